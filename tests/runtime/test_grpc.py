"""The gRPC binding's runtime (``codegen/runtime/grpc/_grpc.py``) on a real ``grpc.aio``
server on loopback, called with raw channels and a2a-sdk's message classes.

The validation tables are the committed package's ``messages.py`` loaded as a module
of ``codegen.runtime`` (so its ``Schema`` is the runtime's own); the service table is
read from a2a-sdk's descriptor. Each test checks one promise of the module docstring:
what reaches the handler, answers and streams, every error form in the status trailer,
cancellation and deadlines, and the checks made at registration.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import re
import socket
import sys
import time
import types
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from a2a.types import a2a_pb2 as pb
from google.protobuf import empty_pb2, json_format
from google.rpc import error_details_pb2, status_pb2

from codegen.runtime._errors import A2A_ERRORS, A2AError
from codegen.runtime._failure import Failure, InvalidArgument, Refusal, Unauthenticated
from codegen.runtime._grpc import (
    INVALID_PARAMS_REASON,
    STATUS_DETAILS_KEY,
    GrpcBinding,
    GrpcMethod,
    GrpcService,
    decode_status,
    encode_status,
    status_of,
)
from codegen.runtime._request import CallContext
from codegen.runtime._status import RpcError

ROOT = Path(__file__).resolve().parents[2]
SERVICE = "lf.a2a.v1.A2AService"
V1 = (("a2a-version", "1.0"),)
COUNTS = hasattr(asyncio.Task, "cancelling")


def _messages() -> types.ModuleType:
    """generated/a2a_binding/messages.py as ``codegen.runtime._test_a2a_messages``."""
    name = "codegen.runtime._test_a2a_messages"
    if name not in sys.modules:
        path = ROOT / "generated" / "a2a_binding" / "messages.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


SCHEMA = _messages().SCHEMA


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


SERVICES = (
    GrpcService(
        SERVICE,
        tuple(
            GrpcMethod(
                m.name,
                _snake(m.name),
                m.input_type.full_name,
                m.output_type.full_name,
                m.server_streaming,
            )
            for m in pb.DESCRIPTOR.services_by_name["A2AService"].methods
        ),
    ),
)
METHODS = {m.rpc: m for m in SERVICES[0].methods}
REQUEST = {
    m.name: m.input_type for m in pb.DESCRIPTOR.services_by_name["A2AService"].methods
}


def _message(text: str = "hi") -> pb.Message:
    return pb.Message(message_id="m1", role=pb.ROLE_USER, parts=[pb.Part(text=text)])


class Handler:
    """Every rpc: records what it got; SendMessage echoes, streams yield two events."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any, CallContext]] = []
        self.events: list[str] = []
        self.override: dict[str, Callable[..., Any]] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda request, context: self._dispatch(name, request, context)

    def _dispatch(self, name: str, request: Any, context: CallContext) -> Any:
        self.seen.append((name, request, context))
        if name in self.override:
            return self.override[name](request, context)
        if name in ("send_streaming_message", "subscribe_to_task"):
            return self._stream(request)
        return self._answer(name, request)

    async def _answer(self, name: str, request: Any) -> Any:
        if name == "send_message":
            return {
                "message": {
                    "messageId": "a1",
                    "role": "ROLE_AGENT",
                    "parts": request["message"]["parts"],
                }
            }
        if name == "delete_task_push_notification_config":
            return None
        if name == "get_task":
            return {
                "id": request["id"],
                "contextId": "c",
                "status": {"state": "TASK_STATE_WORKING"},
            }
        return {}

    async def _stream(self, request: Any) -> AsyncIterator[Any]:
        try:
            for n in range(2):
                yield {
                    "statusUpdate": {
                        "taskId": f"t{n}",
                        "contextId": "c",
                        "status": {"state": "TASK_STATE_WORKING"},
                    }
                }
        finally:
            self.events.append("closed")


@asynccontextmanager
async def serving(handler: Any, **options: Any) -> AsyncIterator[grpc.aio.Channel]:
    options.setdefault("supported_versions", ("1.0",))
    options.setdefault("schema", SCHEMA)
    server = grpc.aio.server()
    GrpcBinding(
        handler,
        services=SERVICES,
        pb2_module="a2a.types.a2a_pb2",
        tenant_field="tenant",
        **options,
    ).add_to(server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield channel
    finally:
        await server.stop(None)


def _response_class(rpc: str) -> Any:
    name = METHODS[rpc].response_type
    return (
        empty_pb2.Empty
        if name == "google.protobuf.Empty"
        else getattr(pb, name.rsplit(".", 1)[1])
    )


def unary(channel: grpc.aio.Channel, rpc: str) -> Any:
    return channel.unary_unary(
        f"/{SERVICE}/{rpc}",
        request_serializer=lambda m: (
            m if isinstance(m, bytes) else m.SerializeToString()
        ),
        response_deserializer=_response_class(rpc).FromString,
    )


def streaming(channel: grpc.aio.Channel, rpc: str) -> Any:
    return channel.unary_stream(
        f"/{SERVICE}/{rpc}",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=pb.StreamResponse.FromString,
    )


def run(scenario: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(scenario(), 30))


async def failed(call: Awaitable[Any]) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


def status(error: grpc.aio.AioRpcError) -> status_pb2.Status:
    """The Status trailer, checked against the call's own code and details."""
    blob = dict(error.trailing_metadata() or ())[STATUS_DETAILS_KEY]
    found = status_pb2.Status.FromString(blob)
    assert found.code == error.code().value[0] and found.message == error.details()
    return found


def infos(found: status_pb2.Status) -> list[error_details_pb2.ErrorInfo]:
    out = []
    for detail in found.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            out.append(info)
    return out


def bad_requests(found: status_pb2.Status) -> list[error_details_pb2.BadRequest]:
    out = []
    for detail in found.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            out.append(bad)
    return out


# ----------------------------------------------------------------- what arrives


def test_a_unary_call_reaches_the_handler_in_canonical_form() -> None:
    handler = Handler()

    async def scenario() -> Any:
        async with serving(handler) as channel:
            request = pb.SendMessageRequest(
                tenant="acme",
                message=_message(),
                configuration=pb.SendMessageConfiguration(history_length=3),
            )
            metadata = V1 + (
                ("a2a-extensions", "https://x/a, https://x/b"),
                ("a2a-extensions", "https://x/c"),
                ("authorization", "Bearer t"),
                ("blob-bin", b"\x00\xff"),
            )
            return await unary(channel, "SendMessage")(
                request, metadata=metadata, timeout=10
            )

    answer = run(scenario)
    assert answer.message.parts[0].text == "hi" and answer.message.role == pb.ROLE_AGENT
    name, request, context = handler.seen[0]
    assert name == "send_message"
    assert request == {
        "tenant": "acme",
        "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
        "configuration": {"historyLength": 3},
    }
    assert (context.tenant, context.binding, context.base_url) == ("acme", "grpc", "")
    assert context.params.version == "1.0"
    assert context.params.extensions == ("https://x/a", "https://x/b", "https://x/c")
    assert context.header("authorization") == "Bearer t"
    assert ("blob-bin", "\x00\xff") in context.headers


def test_int64_and_enum_fields_arrive_as_protojson_and_no_tenant_is_empty() -> None:
    handler = Handler()

    async def scenario() -> None:
        async with serving(handler) as channel:
            await unary(channel, "ListTasks")(
                pb.ListTasksRequest(status=pb.TASK_STATE_WORKING, page_size=5),
                metadata=V1,
                timeout=10,
            )

    run(scenario)
    _, request, context = handler.seen[0]
    assert request == {"status": "TASK_STATE_WORKING", "pageSize": 5}
    assert context.tenant == ""


def test_empty_answers_and_validate_off() -> None:
    handler = Handler()

    async def scenario() -> Any:
        async with serving(handler, schema=None) as channel:
            deleted = await unary(channel, "DeleteTaskPushNotificationConfig")(
                pb.DeleteTaskPushNotificationConfigRequest(task_id="t", id="c"),
                metadata=V1,
                timeout=10,
            )
            # validation is off: the missing REQUIRED message reaches the handler
            handler.override["send_message"] = lambda request, context: _const(
                {"task": {"id": "x"}}
            )
            sent = await unary(channel, "SendMessage")(
                pb.SendMessageRequest(), metadata=V1, timeout=10
            )
            return deleted, sent

    deleted, sent = run(scenario)
    assert deleted == empty_pb2.Empty() and sent.task.id == "x"
    assert handler.seen[1][1] == {}


async def _const(value: Any) -> Any:
    return value


def test_streams_stream_and_the_iterator_is_closed() -> None:
    handler = Handler()

    async def scenario() -> list[Any]:
        async with serving(handler) as channel:
            call = streaming(channel, "SendStreamingMessage")(
                pb.SendMessageRequest(message=_message()), metadata=V1, timeout=10
            )
            return [event async for event in call]

    events = run(scenario)
    assert [e.status_update.task_id for e in events] == ["t0", "t1"]
    assert handler.events == ["closed"]


def test_a_stream_from_an_async_def_returning_an_iterator() -> None:
    handler = Handler()

    async def returns_iterator(request: Any, context: CallContext) -> Any:
        return handler._stream(request)

    handler.override["subscribe_to_task"] = returns_iterator

    async def scenario() -> list[Any]:
        async with serving(handler) as channel:
            call = streaming(channel, "SubscribeToTask")(
                pb.SubscribeToTaskRequest(id="t"), metadata=V1, timeout=10
            )
            return [event async for event in call]

    assert len(run(scenario)) == 2


def test_a_stream_from_an_iterator_without_aclose() -> None:
    class Two:
        def __init__(self) -> None:
            self.left = 2

        def __aiter__(self) -> Two:
            return self

        async def __anext__(self) -> Any:
            if not self.left:
                raise StopAsyncIteration
            self.left -= 1
            return {"task": {"id": str(self.left)}}

    handler = Handler()
    handler.override["subscribe_to_task"] = lambda request, context: Two()

    async def scenario() -> list[Any]:
        async with serving(handler) as channel:
            call = streaming(channel, "SubscribeToTask")(
                pb.SubscribeToTaskRequest(id="t"), metadata=V1, timeout=10
            )
            return [event.task.id async for event in call]

    assert run(scenario) == ["1", "0"]


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize("name", sorted(A2A_ERRORS))
def test_every_a2a_error_is_its_code_with_the_error_info(name: str) -> None:
    kind = A2A_ERRORS[name]
    handler = Handler()

    async def refuse(request: Any, context: CallContext) -> Any:
        raise A2AError(name, f"{name} for tâche-✓", metadata={"taskId": "tâche-✓"})

    handler.override["get_task"] = refuse

    async def scenario() -> grpc.aio.AioRpcError:
        async with serving(handler) as channel:
            return await failed(
                unary(channel, "GetTask")(
                    pb.GetTaskRequest(id="t"), metadata=V1, timeout=10
                )
            )

    error = run(scenario)
    assert error.code().name == kind.grpc_status
    assert error.details() == f"{name} for tâche-✓"
    found = status(error)
    [info] = infos(found)
    assert (info.reason, info.domain, dict(info.metadata)) == (
        kind.reason,
        "a2a-protocol.org",
        {"taskId": "tâche-✓"},
    )


def test_unauthenticated_carries_its_challenge_in_a_trailer() -> None:
    handler = Handler()

    async def refuse(request: Any, context: CallContext) -> Any:
        raise Unauthenticated("needs a token", challenge='Bearer realm="x"')

    handler.override["get_extended_agent_card"] = refuse

    async def scenario() -> grpc.aio.AioRpcError:
        async with serving(handler) as channel:
            call = unary(channel, "GetExtendedAgentCard")(
                pb.GetExtendedAgentCardRequest(), metadata=V1, timeout=10
            )
            return await failed(call)

    error = run(scenario)
    assert (error.code(), error.details()) == (
        grpc.StatusCode.UNAUTHENTICATED,
        "needs a token",
    )
    assert dict(error.trailing_metadata())["www-authenticate"] == 'Bearer realm="x"'
    assert list(status(error).details) == []


def test_a_refused_request_is_invalid_argument_with_bad_request_and_invalid_params() -> (
    None
):
    handler = Handler()

    async def scenario() -> grpc.aio.AioRpcError:
        async with serving(handler) as channel:
            return await failed(
                unary(channel, "SendMessage")(
                    pb.SendMessageRequest(), metadata=V1, timeout=10
                )
            )

    error = run(scenario)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and handler.seen == []
    found = status(error)
    [bad] = bad_requests(found)
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("message", "a REQUIRED field is missing")
    ]
    assert [(i.reason, i.domain) for i in infos(found)] == [
        (INVALID_PARAMS_REASON, "a2a-protocol.org")
    ]


def test_a_nested_required_field_missing_is_refused_with_its_path() -> None:
    """The bytes of a request read straight are checked for REQUIRED fields at
    every depth: one missing hands the request to validation, which names it."""
    handler = Handler()
    request = pb.SendMessageRequest(
        message=pb.Message(message_id="m1", role=pb.ROLE_USER)  # no parts
    )

    async def scenario() -> grpc.aio.AioRpcError:
        async with serving(handler) as channel:
            return await failed(
                unary(channel, "SendMessage")(request, metadata=V1, timeout=10)
            )

    error = run(scenario)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and handler.seen == []
    [bad] = bad_requests(status(error))
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("message.parts", "a REQUIRED field is missing")
    ]


def test_an_enum_number_that_names_no_value_is_refused() -> None:
    async def scenario() -> grpc.aio.AioRpcError:
        async with serving(Handler()) as channel:
            request = pb.ListTasksRequest()
            request.status = 77  # type: ignore[assignment]
            return await failed(
                unary(channel, "ListTasks")(request, metadata=V1, timeout=10)
            )

    error = run(scenario)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert bad_requests(status(error))[0].field_violations[0].field == "status"


def test_a_handler_refusal_and_undecodable_bytes_are_invalid_argument() -> None:
    handler = Handler()

    async def refuse(request: Any, context: CallContext) -> Any:
        raise InvalidArgument("no", [("id", "too short")])

    handler.override["get_task"] = refuse

    async def scenario() -> tuple[grpc.aio.AioRpcError, grpc.aio.AioRpcError]:
        async with serving(handler) as channel:
            refused = await failed(
                unary(channel, "GetTask")(
                    pb.GetTaskRequest(id="t"), metadata=V1, timeout=10
                )
            )
            garbage = await failed(
                unary(channel, "GetTask")(b"\xff\xff\xff", metadata=V1, timeout=10)
            )
            return refused, garbage

    refused, garbage = run(scenario)
    assert bad_requests(status(refused))[0].field_violations[0].field == "id"
    assert garbage.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert garbage.details().startswith("the request is not a lf.a2a.v1.GetTaskRequest")
    assert infos(status(garbage))[0].reason == INVALID_PARAMS_REASON


@pytest.mark.parametrize(
    ("metadata", "supported", "ok"),
    [
        ((), ("1.0",), False),  # none is 0.3
        ((), ("1.0", "0.3"), True),
        ((("a2a-version", "2.0"),), ("1.0",), False),
        ((("a2a-version", "1.0.7"),), ("1.0",), True),
        ((("a2a-version", "1.0"), ("a2a-version", "0.3")), ("1.0", "0.3"), False),
    ],
)
def test_the_version_is_checked(
    metadata: tuple[Any, ...], supported: tuple[str, ...], ok: bool
) -> None:
    async def scenario() -> Any:
        async with serving(Handler(), supported_versions=supported) as channel:
            call = unary(channel, "GetTask")(
                pb.GetTaskRequest(id="t"), metadata=metadata, timeout=10
            )
            return await call if ok else await failed(call)

    outcome = run(scenario)
    if ok:
        assert outcome.id == "t"
    else:
        assert outcome.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert infos(status(outcome))[0].reason == "VERSION_NOT_SUPPORTED"
        if not metadata:  # it says none was named, and what to send
            assert outcome.details() == (
                "no metadata a2a-version was sent, and a request naming no version"
                " is taken as 0.3 (A2A §3.6.2), which this server does not serve"
                " (supported: 1.0): send metadata a2a-version: 1.0"
            )
            assert dict(infos(status(outcome))[0].metadata) == {
                "requestedVersion": "0.3",
                "supportedVersions": "1.0",
            }


def _internal(
    handler: Handler, rpc: str, request: Any, **options: Any
) -> grpc.aio.AioRpcError:
    async def scenario() -> grpc.aio.AioRpcError:
        async with serving(handler, **options) as channel:
            make = streaming if METHODS[rpc].server_streaming else unary
            call = make(channel, rpc)(request, metadata=V1, timeout=10)
            if METHODS[rpc].server_streaming:

                async def drain() -> None:
                    async for _ in call:
                        pass

                return await failed(drain())
            return await failed(call)

    return run(scenario)


async def _raises(exc: BaseException) -> Any:
    raise exc


@pytest.mark.parametrize(
    ("rpc", "answer"),
    [
        ("GetTask", lambda request, context: _raises(RuntimeError("secret internals"))),
        ("GetTask", lambda request, context: _const(["not", "a", "dict"])),
        ("GetTask", lambda request, context: _const({"noSuchField": 1})),
        ("GetTask", lambda request, context: {"id": "not awaitable"}),
        ("GetTask", lambda request, context: _raises(SystemExit(3))),
        # grpc would answer OK for it: the handler has no call to abort
        ("GetTask", lambda request, context: _raises(grpc.aio.AbortError())),
        ("SubscribeToTask", lambda request, context: _raises(grpc.aio.AbortError())),
        ("GetTask", lambda request, context: _raises(InvalidArgument("x", [("a", 1)]))),  # type: ignore[list-item]
        (
            "GetTask",
            lambda request, context: _raises(
                Refusal(Failure(400, "INVALID_ARGUMENT", "m", 0, ({"@type": "nope"},)))
            ),
        ),
        ("SubscribeToTask", lambda request, context: _const({"not": "an iterator"})),
    ],
)
def test_a_handler_bug_is_internal_without_its_text(
    rpc: str, answer: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    handler = Handler()
    handler.override[_snake(rpc)] = answer
    request = REQUEST_OF[rpc]
    with caplog.at_level(logging.ERROR):
        error = _internal(handler, rpc, request)
    assert (error.code(), error.details()) == (
        grpc.StatusCode.INTERNAL,
        "internal error",
    )
    assert list(status(error).details) == []
    assert f"/{SERVICE}/{rpc} failed" in caplog.text


REQUEST_OF = {
    "GetTask": pb.GetTaskRequest(id="t"),
    "SubscribeToTask": pb.SubscribeToTaskRequest(id="t"),
}


def test_expose_errors_shows_the_text() -> None:
    handler = Handler()
    handler.override["get_task"] = lambda request, context: _raises(
        RuntimeError("secret internals")
    )
    error = _internal(handler, "GetTask", REQUEST_OF["GetTask"], expose_errors=True)
    assert error.details() == "RuntimeError: secret internals"


def test_check_responses_refuses_an_answer_that_is_not_the_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    handler = Handler()
    handler.override["get_task"] = lambda request, context: _const(
        {"id": "t", "status": {"state": "DONE"}}
    )
    with caplog.at_level(logging.ERROR):
        error = _internal(
            handler, "GetTask", REQUEST_OF["GetTask"], check_responses=True
        )
    assert error.code() == grpc.StatusCode.INTERNAL
    assert "GetTask returned" in caplog.text and "status.state" in caplog.text


def test_an_error_in_the_middle_of_a_stream_ends_it_with_the_status() -> None:
    handler = Handler()
    closed: list[str] = []

    async def events(request: Any, context: CallContext) -> AsyncIterator[Any]:
        try:
            yield {
                "task": {
                    "id": "t",
                    "contextId": "c",
                    "status": {"state": "TASK_STATE_WORKING"},
                }
            }
            raise A2AError("TaskNotFoundError", "gone mid-stream")
        finally:
            closed.append("finally")

    handler.override["subscribe_to_task"] = events

    async def scenario() -> tuple[list[Any], grpc.aio.AioRpcError]:
        seen: list[Any] = []
        async with serving(handler) as channel:
            call = streaming(channel, "SubscribeToTask")(
                pb.SubscribeToTaskRequest(id="t"), metadata=V1, timeout=10
            )

            async def drain() -> None:
                async for event in call:
                    seen.append(event)

            return seen, await failed(drain())

    seen, error = run(scenario)
    assert [e.task.id for e in seen] == ["t"] and closed == ["finally"]
    assert (error.code(), error.details()) == (
        grpc.StatusCode.NOT_FOUND,
        "gone mid-stream",
    )
    assert infos(status(error))[0].reason == "TASK_NOT_FOUND"


def test_a_cancelled_error_the_handler_raised_itself_is_a_failure() -> None:
    if not COUNTS:
        pytest.skip("before Python 3.11 the two cancellations cannot be told apart")
    handler = Handler()

    async def awaits_a_cancelled_task(request: Any, context: CallContext) -> Any:
        other = asyncio.ensure_future(asyncio.sleep(10))
        other.cancel()
        return await other

    handler.override["get_task"] = awaits_a_cancelled_task
    error = _internal(handler, "GetTask", REQUEST_OF["GetTask"])
    assert error.code() == grpc.StatusCode.INTERNAL


# --------------------------------------------------------- cancellation, deadlines


def sleeper(
    saw: list[str], label: str = "cancelled"
) -> Callable[[Any, CallContext], Awaitable[Any]]:
    """A handler method that sleeps 30 s, noting ``label`` in ``saw`` when cancelled."""

    async def slow(request: Any, context: CallContext) -> Any:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            saw.append(label)
            raise

    return slow


def test_a_deadline_cancels_a_unary_handler() -> None:
    handler = Handler()
    saw: list[str] = []
    handler.override["get_task"] = sleeper(saw)

    async def scenario() -> grpc.aio.AioRpcError:
        async with serving(handler) as channel:
            error = await failed(
                unary(channel, "GetTask")(
                    pb.GetTaskRequest(id="t"), metadata=V1, timeout=0.3
                )
            )
            for _ in range(50):
                if saw:
                    break
                await asyncio.sleep(0.02)
            return error

    error = run(scenario)
    assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert saw == ["cancelled"]


@pytest.mark.parametrize("how", ["deadline", "cancel", "backpressure"])
def test_a_stream_that_ends_early_closes_the_handlers_iterator(
    how: str, caplog: pytest.LogCaptureFixture
) -> None:
    handler = Handler()
    saw: list[str] = []

    async def endless(request: Any, context: CallContext) -> AsyncIterator[Any]:
        big = "x" * 1_000_000 if how == "backpressure" else "x"
        try:
            for n in range(10_000):
                if how != "backpressure":
                    await asyncio.sleep(0.05)
                yield {
                    "message": {
                        "messageId": str(n),
                        "role": "ROLE_AGENT",
                        "parts": [{"text": big}],
                    }
                }
        except asyncio.CancelledError:
            saw.append("CancelledError")
            raise
        except GeneratorExit:
            saw.append("GeneratorExit")
            raise
        finally:
            saw.append("finally")

    handler.override["send_streaming_message"] = endless

    async def scenario() -> None:
        async with serving(handler) as channel:
            call = streaming(channel, "SendStreamingMessage")(
                pb.SendMessageRequest(message=_message()),
                metadata=V1,
                timeout=0.5 if how == "deadline" else 10,
            )
            await call.read()
            if how == "deadline":
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    while True:
                        await call.read()
                assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            else:
                await asyncio.sleep(0.3)
                call.cancel()
            for _ in range(100):
                if "finally" in saw:
                    break
                await asyncio.sleep(0.02)

    with caplog.at_level(logging.INFO, logger="codegen.runtime.grpc"):
        run(scenario)
    assert saw[-1] == "finally" and saw[0] in ("CancelledError", "GeneratorExit"), saw
    # the call ending early is no failure of the handler's: the binding logs none
    # (grpc may log a write that failed once the client left, as it does for any
    # servicer)
    assert not [r for r in caplog.records if r.name == "codegen.runtime.grpc"]


# ------------------------------------------------------------------ registration


def test_registration_checks_the_handler_the_module_and_the_options() -> None:
    with pytest.raises(TypeError, match="lacks the methods .*get_task"):
        GrpcBinding(
            object(),
            services=SERVICES,
            pb2_module="a2a.types.a2a_pb2",
            tenant_field="tenant",
            supported_versions=("1.0",),
        )
    options: dict[str, Any] = {
        "services": SERVICES,
        "tenant_field": "tenant",
        "supported_versions": ("1.0",),
    }
    with pytest.raises(ImportError, match="cannot import no_such_pb2"):
        GrpcBinding(Handler(), pb2_module="no_such_pb2", **options)
    with pytest.raises(TypeError, match="is not a module protoc"):
        GrpcBinding(Handler(), pb2_module="json", **options)
    with pytest.raises(TypeError, match="does not define lf.a2a.v1.Other"):
        GrpcBinding(
            Handler(),
            pb2_module="a2a.types.a2a_pb2",
            **{**options, "services": (GrpcService("lf.a2a.v1.Other", ()),)},
        )
    changed = GrpcService(
        SERVICE, (METHODS["GetTask"]._replace(server_streaming=True),)
    )
    with pytest.raises(TypeError, match="otherwise than this package"):
        GrpcBinding(
            Handler(),
            pb2_module="a2a.types.a2a_pb2",
            **{**options, "services": (changed,)},
        )
    with pytest.raises(ValueError, match="check_responses needs the schema"):
        GrpcBinding(
            Handler(), pb2_module="a2a.types.a2a_pb2", check_responses=True, **options
        )
    with pytest.raises(ValueError, match="not Major.Minor"):
        GrpcBinding(
            Handler(),
            pb2_module="a2a.types.a2a_pb2",
            **{**options, "supported_versions": ("one",)},
        )


def test_an_unknown_method_is_unimplemented() -> None:
    async def scenario() -> grpc.aio.AioRpcError:
        async with serving(Handler()) as channel:
            call = channel.unary_unary(f"/{SERVICE}/NoSuchRpc")(
                b"", metadata=V1, timeout=10
            )
            return await failed(call)

    assert run(scenario).code() == grpc.StatusCode.UNIMPLEMENTED


# -------------------------------------------------------------- the status trailer


def test_encode_status_is_googleapis_bytes_and_decodes_back() -> None:
    details = [
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "R",
            "domain": "d",
            "metadata": {"k": "v"},
        },
        {
            "@type": "type.googleapis.com/google.rpc.BadRequest",
            "fieldViolations": [{"field": "a", "description": "b", "reason": "c"}],
        },
    ]
    blob = encode_status(grpc.StatusCode.NOT_FOUND, "gone ✓", details)
    expected = status_pb2.Status()
    json_format.ParseDict(
        {"code": 5, "message": "gone ✓", "details": details}, expected
    )
    assert blob == expected.SerializeToString()
    decoded = decode_status([("other", "x"), (STATUS_DETAILS_KEY, blob)])
    assert decoded == {"code": 5, "message": "gone ✓", "details": details}
    assert all(type(d) is dict for d in decoded["details"])


def test_decode_status_without_a_readable_trailer() -> None:
    assert decode_status(None) is None
    assert decode_status([(STATUS_DETAILS_KEY, "not bytes")]) is None
    assert decode_status([(STATUS_DETAILS_KEY, b"\xff\xff")]) is None
    other = status_pb2.Status(code=5, message="m")
    other.details.add().Pack(error_details_pb2.RetryInfo())  # a type the pool lacks
    assert decode_status([(STATUS_DETAILS_KEY, other.SerializeToString())]) == {
        "code": 5,
        "message": "m",
        "details": [],
    }


def test_status_of_adds_invalid_params_only_beside_a_bare_bad_request() -> None:
    from codegen.runtime._failure import bad_request, failure_of

    code, message, trailers = status_of(bad_request("bad", [("f", "why")]))
    found = status_pb2.Status.FromString(dict(trailers)[STATUS_DETAILS_KEY])
    assert (code, message) == (grpc.StatusCode.INVALID_ARGUMENT, "bad")
    assert [i.reason for i in infos(found)] == [INVALID_PARAMS_REASON] and len(
        bad_requests(found)
    ) == 1
    content_type = failure_of(A2AError("ContentTypeNotSupportedError", "no"))
    assert content_type is not None
    _, _, trailers = status_of(content_type)
    found = status_pb2.Status.FromString(dict(trailers)[STATUS_DETAILS_KEY])
    assert [i.reason for i in infos(found)] == ["CONTENT_TYPE_NOT_SUPPORTED"]
    assert status_of(Failure(500, "NO_SUCH_CODE", "m", 0))[0] == grpc.StatusCode.UNKNOWN


# --------------------------------------------------------------- the client side


from codegen.runtime._cancellation import DeadlineExceeded  # noqa: E402
from codegen.runtime._grpc import GrpcBackend, error_of  # noqa: E402
from codegen.runtime._params import NO_PARAMS, ServiceParams  # noqa: E402


def _backend(channel: grpc.aio.Channel, **options: Any) -> GrpcBackend:
    return GrpcBackend(
        channel,
        services=SERVICES,
        pb2_module="a2a.types.a2a_pb2",
        version="1.0",
        **options,
    )


SERVED = CallContext(
    "acme",
    "jsonrpc",
    ServiceParams("1.0", ("https://x/a", "https://x/b")),
    (("authorization", "Bearer t"), ("cookie", "secret"), ("trace-bin", "\x00\xff")),
)


def test_the_backend_calls_and_streams_with_the_contexts_metadata() -> None:
    handler = Handler()

    async def scenario() -> tuple[Any, Any, list[Any]]:
        async with serving(handler) as channel:
            backend = _backend(
                channel, forward_headers=("Authorization", "trace-bin"), timeout=10
            )
            sent = await backend.call(
                "SendMessage",
                {
                    "message": {
                        "messageId": "m",
                        "role": "ROLE_USER",
                        "parts": [{"text": "hi"}],
                    }
                },
                SERVED,
            )
            deleted = await backend.call(
                "DeleteTaskPushNotificationConfig", {"taskId": "t", "id": "c"}
            )
            events = [
                e async for e in backend.stream("SubscribeToTask", {"id": "t"}, SERVED)
            ]
            return sent, deleted, events

    sent, deleted, events = run(scenario)
    assert sent == {
        "message": {"messageId": "a1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}
    }
    assert deleted is None and [e["statusUpdate"]["taskId"] for e in events] == [
        "t0",
        "t1",
    ]
    _, _, context = handler.seen[0]
    assert context.params == ServiceParams("1.0", ("https://x/a", "https://x/b"))
    assert (
        context.header("authorization") == "Bearer t"
        and context.header("cookie") is None
    )
    assert ("trace-bin", "\x00\xff") in context.headers
    assert handler.seen[1][2].params.extensions == ()  # no context: the version alone

    offline = _backend(None)  # type: ignore[arg-type]  # metadata needs no channel
    assert offline.metadata(None) == [("a2a-version", "1.0")]
    plain = CallContext(
        "", "http+json", ServiceParams("1.0", ()), (("authorization", "Bearer t"),)
    )
    assert offline.metadata(plain) == [
        ("a2a-version", "1.0"),
        ("authorization", "Bearer t"),
    ]


@pytest.mark.parametrize(
    ("raised", "check"),
    [
        (
            lambda: A2AError("TaskNotFoundError", "gone", metadata={"taskId": "t"}),
            lambda e: isinstance(e, A2AError)
            and (e.name, e.message, e.metadata)
            == ("TaskNotFoundError", "gone", {"taskId": "t"}),
        ),
        (
            lambda: Unauthenticated("who?", challenge='Bearer realm="r"'),
            lambda e: isinstance(e, Unauthenticated)
            and (e.message, e.challenge) == ("who?", 'Bearer realm="r"'),
        ),
        (
            lambda: InvalidArgument("bad", [("id", "short")]),
            lambda e: isinstance(e, InvalidArgument)
            and e.violations == (("id", "short"),),
        ),
        (
            lambda: RuntimeError("bug"),
            lambda e: isinstance(e, RpcError)
            and (e.code, e.message, e.http_status)
            == ("INTERNAL", "internal error", 500),
        ),
    ],
)
def test_the_backend_raises_what_the_server_raised(
    raised: Callable[[], BaseException], check: Callable[[Exception], bool]
) -> None:
    handler = Handler()
    handler.override["get_task"] = lambda request, context: _raises(raised())

    async def events(request: Any, context: CallContext) -> AsyncIterator[Any]:
        yield {"task": {"id": "t"}}
        raise raised()

    handler.override["subscribe_to_task"] = events

    async def scenario() -> tuple[Exception, Exception]:
        async with serving(handler) as channel:
            backend = _backend(channel)
            with pytest.raises(Exception) as unary_error:
                await backend.call("GetTask", {"id": "t"}, SERVED)
            with pytest.raises(Exception) as stream_error:
                async for _ in backend.stream("SubscribeToTask", {"id": "t"}, SERVED):
                    pass
            return unary_error.value, stream_error.value

    for error in run(scenario):
        assert check(error), repr(error)


def test_the_backend_deadline_and_leaving_a_stream_early() -> None:
    handler = Handler()
    saw: list[str] = []

    async def slow(request: Any, context: CallContext) -> Any:
        await asyncio.sleep(30)

    async def endless(request: Any, context: CallContext) -> AsyncIterator[Any]:
        try:
            while True:
                yield {"task": {"id": "t"}}
                await asyncio.sleep(0.02)
        finally:
            saw.append("closed")

    handler.override["get_task"] = slow
    handler.override["subscribe_to_task"] = endless

    async def scenario() -> None:
        async with serving(handler) as channel:
            with pytest.raises(DeadlineExceeded):
                await _backend(channel, timeout=0.2).call(
                    "GetTask", {"id": "t"}, SERVED
                )
            stream = _backend(channel).stream("SubscribeToTask", {"id": "t"}, SERVED)
            assert await anext(stream) == {"task": {"id": "t"}}
            await stream.aclose()  # the call is cancelled: the server's iterator closes
            for _ in range(100):
                if saw:
                    break
                await asyncio.sleep(0.02)

    run(scenario)
    assert saw == ["closed"]


class _Failed(grpc.aio.AioRpcError):
    def __init__(
        self, code: grpc.StatusCode, details: str, trailers: tuple[Any, ...]
    ) -> None:
        super().__init__(
            code, grpc.aio.Metadata(), grpc.aio.Metadata(*trailers), details
        )


def test_error_of_reads_what_a_peer_may_send() -> None:
    bad = status_pb2.Status(code=3, message="m")
    bad.details.add().Pack(
        error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field="f", description="d")
            ]
        )
    )
    invalid = error_of(
        _Failed(
            grpc.StatusCode.INVALID_ARGUMENT,
            "m",
            ((STATUS_DETAILS_KEY, bad.SerializeToString()),),
        )
    )
    assert isinstance(invalid, InvalidArgument) and invalid.violations == (("f", "d"),)
    bare = error_of(_Failed(grpc.StatusCode.INVALID_ARGUMENT, "m", ()))
    assert isinstance(bare, InvalidArgument) and bare.violations == ()
    odd = error_of(
        _Failed(
            grpc.StatusCode.UNAUTHENTICATED, "no", (("www-authenticate", "Bearer\x7f"),)
        )
    )
    assert isinstance(odd, Unauthenticated) and odd.challenge == "Bearer"
    other_domain = status_pb2.Status(code=5, message="x")
    other_domain.details.add().Pack(
        error_details_pb2.ErrorInfo(reason="TASK_NOT_FOUND", domain="example.com")
    )
    unread = _Failed(
        grpc.StatusCode.NOT_FOUND,
        "x",
        ((STATUS_DETAILS_KEY, other_domain.SerializeToString()),),
    )
    # An ErrorInfo of another domain names no A2A error: the status as it came.
    other = error_of(unread)
    assert isinstance(other, RpcError)
    assert (other.code, other.message, other.http_status) == ("NOT_FOUND", "x", 404)
    assert other.details == (
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "TASK_NOT_FOUND",
            "domain": "example.com",
        },
    )
    ok = _Failed(grpc.StatusCode.OK, "", ())  # no error's code: nothing to read
    assert error_of(ok) is ok


def test_error_of_a_service_without_the_a2a_profile_passes_the_status_through() -> None:
    a2a_info = status_pb2.Status(code=5, message="gone")
    a2a_info.details.add().Pack(
        error_details_pb2.ErrorInfo(reason="TASK_NOT_FOUND", domain="a2a-protocol.org")
    )
    trailers = ((STATUS_DETAILS_KEY, a2a_info.SerializeToString()),)
    assert isinstance(
        error_of(_Failed(grpc.StatusCode.NOT_FOUND, "gone", trailers)), A2AError
    )
    for code in (
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.ABORTED,
    ):
        found = error_of(_Failed(code, "gone", trailers), a2a=False)
        assert isinstance(found, RpcError), found
        assert (found.code, found.message) == (code.name, "gone")
        assert found.details[0]["reason"] == "TASK_NOT_FOUND"
    bare = error_of(_Failed(grpc.StatusCode.UNAVAILABLE, "down", ()), a2a=False)
    assert isinstance(bare, RpcError) and bare.details == ()


# ------------------------------------------------ what the hop passes on, and how


from codegen.runtime._failure import failure_of  # noqa: E402
from codegen.runtime._grpc import (  # noqa: E402
    PUBLISHED_CODES,
    check_forward_headers,
)

SECRET = "RuntimeError: SECRET at ipv4:10.1.2.3:50051"
KEPT_BACK = {
    "CANCELLED": ("the call was cancelled", 499),
    "UNKNOWN": ("internal error", 500),
    "DEADLINE_EXCEEDED": ("the call's deadline passed", 504),
    "INTERNAL": ("internal error", 500),
    "UNAVAILABLE": ("the service is unavailable", 503),
    "DATA_LOSS": ("internal error", 500),
}


def _with_details(code: grpc.StatusCode, message: str) -> _Failed:
    """A failed call whose Status carries a ``BadRequest`` and an ErrorInfo of another
    domain than A2A's."""
    found = status_pb2.Status(code=code.value[0], message=message)
    found.details.add().Pack(
        error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(
                    field="f", description=SECRET
                )
            ]
        )
    )
    found.details.add().Pack(
        error_details_pb2.ErrorInfo(reason="R", domain="example.com")
    )
    return _Failed(code, message, ((STATUS_DETAILS_KEY, found.SerializeToString()),))


@pytest.mark.parametrize("a2a", [True, False])
@pytest.mark.parametrize(
    "code", [code for code in grpc.StatusCode if code is not grpc.StatusCode.OK]
)
def test_the_hop_keeps_back_the_text_a_service_did_not_mean_to_publish(
    code: grpc.StatusCode, a2a: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """Every canonical code: the ten of PUBLISHED_CODES pass their message on, the six
    others are answered with their code and a fixed message, their details dropped,
    their text logged; ``expose_errors`` passes it on."""
    assert set(KEPT_BACK) | PUBLISHED_CODES == {
        c.name for c in grpc.StatusCode if c is not grpc.StatusCode.OK
    }
    shown = failure_of(
        error_of(_with_details(code, SECRET), a2a=a2a, expose_errors=True)
    )
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="codegen.runtime.grpc"):
        hidden = failure_of(
            error_of(_with_details(code, SECRET), a2a=a2a, where="/S/M")
        )
    assert hidden is not None and shown is not None
    assert (hidden.status, hidden.http_status) == (code.name, shown.http_status)
    assert shown.message == SECRET
    if code.name in PUBLISHED_CODES:
        assert hidden == shown and "/S/M failed" not in caplog.text
        return
    message, http_status = KEPT_BACK[code.name]
    assert (hidden.message, hidden.http_status, hidden.details) == (
        message,
        http_status,
        (),
    )
    assert SECRET not in repr(hidden) and SECRET in repr(shown)
    [record] = caplog.records
    assert record.getMessage() == f"/S/M failed: {code.name} {SECRET}"
    routine = code.name in ("CANCELLED", "DEADLINE_EXCEEDED")
    assert record.levelno == (logging.INFO if routine else logging.ERROR)


def test_an_a2a_error_keeps_its_text_whatever_its_code() -> None:
    """An A2A ErrorInfo marks an error as meant: InvalidAgentResponseError is
    INTERNAL, and keeps its message."""
    found = status_pb2.Status(code=13, message="the agent answered nonsense")
    found.details.add().Pack(
        error_details_pb2.ErrorInfo(
            reason="INVALID_AGENT_RESPONSE", domain="a2a-protocol.org"
        )
    )
    trailers = ((STATUS_DETAILS_KEY, found.SerializeToString()),)
    error = error_of(_Failed(grpc.StatusCode.INTERNAL, found.message, trailers))
    assert isinstance(error, A2AError)
    assert (error.name, error.message) == (
        "InvalidAgentResponseError",
        "the agent answered nonsense",
    )


def test_the_backend_keeps_back_a_servers_exception_and_a_dead_address(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Over loopback: a server that shows its handler's exception (``expose_errors``
    on its side), and no server at all (grpc's UNAVAILABLE names the address)."""
    handler = Handler()
    handler.override["get_task"] = lambda request, context: _raises(
        RuntimeError("SECRET")
    )

    async def scenario() -> list[Exception]:
        caught = []
        async with serving(handler, expose_errors=True) as channel:
            for backend in (_backend(channel), _backend(channel, expose_errors=True)):
                with pytest.raises(Exception) as error:
                    await backend.call("GetTask", {"id": "t"}, SERVED)
                caught.append(error.value)
        with socket.socket() as probe:  # a port nobody listens on
            probe.bind(("127.0.0.1", 0))
            dead = f"127.0.0.1:{probe.getsockname()[1]}"
        async with grpc.aio.insecure_channel(dead) as channel:
            with pytest.raises(Exception) as error:
                await _backend(channel).call("GetTask", {"id": "t"}, SERVED)
            caught.append(error.value)
        return caught

    with caplog.at_level(logging.ERROR, logger="codegen.runtime.grpc"):
        hidden, shown, down = run(scenario)
    assert isinstance(hidden, RpcError) and (hidden.code, hidden.message) == (
        "INTERNAL",
        "internal error",
    )
    assert isinstance(shown, RpcError) and shown.message == "RuntimeError: SECRET"
    assert isinstance(down, RpcError) and (down.code, down.message) == (
        "UNAVAILABLE",
        "the service is unavailable",
    )
    assert f"/{SERVICE}/GetTask failed: INTERNAL RuntimeError: SECRET" in caplog.text
    assert f"/{SERVICE}/GetTask failed: UNAVAILABLE" in caplog.text
    assert "127.0.0.1" in caplog.text  # the operator sees the address


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Connection", "hop-by-hop"),
        ("keep-alive", "hop-by-hop"),
        ("Proxy-Connection", "hop-by-hop"),
        ("Transfer-Encoding", "hop-by-hop"),
        ("Upgrade", "hop-by-hop"),
        ("TE", "hop-by-hop"),
        ("Host", ":authority"),
        ("grpc-timeout", "read for the call's deadline"),
        ("grpc-status", "reserved by gRPC"),
        ("Grpc-Encoding", "reserved by gRPC"),
        (":authority", "pseudo-header"),
        ("x!y", "no gRPC metadata key"),
        ("", "no gRPC metadata key"),
    ],
)
def test_a_header_never_forwarded_is_refused_when_the_backend_is_made(
    name: str, why: str
) -> None:
    with pytest.raises(ValueError, match=f"the header {re.escape(repr(name))}.*{why}"):
        _backend(None, forward_headers=("authorization", name))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot be forwarded"):
        check_forward_headers([name])


def test_forward_headers_are_lower_case_and_any_other_name_passes() -> None:
    assert check_forward_headers(["Authorization", "X-Trace.Id_2", "trace-bin"]) == {
        "authorization",
        "x-trace.id_2",
        "trace-bin",
    }


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("authorization", "Bearer caf\xe9"),
        ("authorization", "Bearer \x80"),
        ("authorization", "Bearer a\tb"),
        ("x-trace", "\x7f"),
    ],
)
def test_a_header_value_grpc_cannot_carry_is_refused_naming_it(
    header: str, value: str
) -> None:
    handler = Handler()
    context = CallContext("", "http+json", ServiceParams("1.0", ()), ((header, value),))

    async def scenario() -> None:
        async with serving(handler) as channel:
            backend = _backend(channel, forward_headers=("authorization", "x-trace"))
            with pytest.raises(InvalidArgument, match=f"the {header} header cannot"):
                await backend.call("GetTask", {"id": "t"}, context)
            stream = backend.stream("SubscribeToTask", {"id": "t"}, context)
            with pytest.raises(InvalidArgument, match=f"the {header} header cannot"):
                await anext(stream)

    run(scenario)
    assert handler.seen == []  # refused before anything was sent


def test_extensions_grpc_cannot_carry_are_refused_naming_the_header() -> None:
    handler = Handler()
    context = CallContext("", "jsonrpc", ServiceParams("1.0", ("https://x/\xe9",)))

    async def scenario() -> None:
        async with serving(handler) as channel:
            with pytest.raises(InvalidArgument, match="the a2a-extensions header"):
                await _backend(channel).call("GetTask", {"id": "t"}, context)

    run(scenario)
    assert handler.seen == []


# --------------------------------------------------------------------- deadlines


from codegen.runtime._grpc import (
    TIMEOUT_KEY,
    format_timeout,
    parse_timeout,
)  # noqa: E402


@pytest.mark.parametrize(
    ("seconds", "wire"),
    [
        (0.0, "0n"),
        (-1.0, "0n"),
        (1e-9, "1n"),
        (0.2, "200000u"),
        (1.5, "1500000u"),
        (30.0, "30000000u"),
        (100_000.0, "100000S"),
        (1e12, "99999999H"),
    ],
)
def test_format_timeout_is_the_least_unit_that_holds_it(
    seconds: float, wire: str
) -> None:
    assert format_timeout(seconds) == wire
    if seconds > 0 and wire != "99999999H":
        assert parse_timeout(wire) >= seconds - 1e-12  # rounded up, never down


@pytest.mark.parametrize(
    ("wire", "seconds"),
    [
        ("1H", 3600.0),
        ("2M", 120.0),
        ("5S", 5.0),
        ("100m", 0.1),
        ("7u", 7e-6),
        ("12345678n", 0.012345678),
    ],
)
def test_parse_timeout_reads_every_unit(wire: str, seconds: float) -> None:
    assert parse_timeout(wire) == pytest.approx(seconds)


@pytest.mark.parametrize(
    "wire", ["", "S", "5", "5s", "123456789S", "-5S", "5.0S", "٣S", " 5S"]
)
def test_parse_timeout_refuses_what_is_no_timeout_naming_the_header(wire: str) -> None:
    with pytest.raises(InvalidArgument, match=f"the {TIMEOUT_KEY} header"):
        parse_timeout(wire)


def test_the_backend_deadline_is_the_nearer_of_its_option_and_the_callers() -> None:
    def caller(*timeouts: str) -> CallContext:
        return CallContext(
            "", "http+json", SERVED.params, tuple((TIMEOUT_KEY, t) for t in timeouts)
        )

    assert _backend(None).deadline(None) is None  # type: ignore[arg-type]
    assert _backend(None).deadline(caller()) is None  # type: ignore[arg-type]
    assert _backend(None, timeout=5).deadline(None) == 5  # type: ignore[arg-type]
    assert _backend(None, timeout=5).deadline(caller("2S")) == 2  # type: ignore[arg-type]
    assert _backend(None, timeout=1).deadline(caller("2S")) == 1  # type: ignore[arg-type]
    assert _backend(None).deadline(caller("3S", "500m")) == 0.5  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="grpc-timeout header 'soon'"):
        _backend(None, timeout=5).deadline(caller("soon"))  # type: ignore[arg-type]


def test_a_deadline_beyond_what_grpc_can_hold_is_the_longest_it_can() -> None:
    """grpc's wire allows ``99999999H`` (11,400 years), grpc.aio a deadline up to 2**63
    ns after the epoch (about 235 years from now): a call given more would fail at once
    with DEADLINE_EXCEEDED, without reaching the service."""
    from codegen.runtime._grpc import _LATEST_DEADLINE

    far = CallContext("", "http+json", SERVED.params, ((TIMEOUT_KEY, "99999999H"),))
    longest = _LATEST_DEADLINE - time.time()
    found = _backend(None).deadline(far)  # type: ignore[arg-type]
    assert found is not None and longest - 5 < found < longest
    assert _backend(None, timeout=3).deadline(far) == 3  # type: ignore[arg-type]
    handler = Handler()

    async def scenario() -> Any:
        async with serving(handler) as channel:
            return await _backend(channel).call("GetTask", {"id": "t"}, far)

    assert run(scenario)["id"] == "t"
    [(_, _, context)] = handler.seen
    assert parse_timeout(context.header(TIMEOUT_KEY) or "") > 86400 * 365


def test_the_proxy_passes_on_a_deadline_beyond_what_grpc_can_hold() -> None:
    """A gRPC client sending ``grpc-timeout: 99999999H`` (a Go client's longest; grpcio
    never sends more than 27000H) to a proxy (``GrpcBinding`` over ``GrpcBackend``):
    the origin is called, and the proxy answers. Sent over HTTP/2 with httpx, since
    grpcio cannot send such a deadline."""
    import httpx

    origin = Handler()

    async def scenario() -> httpx.Response:
        async with serving(origin) as to_origin:
            proxy = grpc.aio.server()
            GrpcBinding(
                _Proxy(_backend(to_origin)),
                services=SERVICES,
                pb2_module="a2a.types.a2a_pb2",
                tenant_field="tenant",
                supported_versions=("1.0",),
            ).add_to(proxy)
            port = proxy.add_insecure_port("127.0.0.1:0")
            await proxy.start()
            try:
                message = pb.GetTaskRequest(id="t").SerializeToString()
                async with httpx.AsyncClient(http1=False, http2=True) as client:
                    return await client.post(
                        f"http://127.0.0.1:{port}/{SERVICE}/GetTask",
                        content=b"\0" + len(message).to_bytes(4, "big") + message,
                        headers={
                            "content-type": "application/grpc",
                            "te": "trailers",
                            "a2a-version": "1.0",
                            TIMEOUT_KEY: "99999999H",
                        },
                    )
            finally:
                await proxy.stop(None)

    answer = run(scenario)
    assert "grpc-status" not in answer.headers, answer.headers  # no trailers-only error
    assert pb.Task.FromString(answer.content[5:]).id == "t"
    [(_, _, context)] = origin.seen
    assert parse_timeout(context.header(TIMEOUT_KEY) or "") > 86400 * 365


def test_a_served_calls_deadline_reaches_the_handler_and_a_backend_behind_it() -> None:
    """A proxy (``GrpcBinding`` over ``GrpcBackend``): the client's deadline is the
    proxy handler's ``grpc-timeout`` header, and the origin's call ends with it."""
    origin = Handler()
    cancelled: list[str] = []
    origin.override["get_task"] = sleeper(cancelled, "origin")

    async def scenario() -> tuple[grpc.aio.AioRpcError, float, list[str]]:
        async with serving(origin) as to_origin:
            async with serving(_Proxy(_backend(to_origin))) as to_proxy:
                call = to_proxy.unary_unary(f"/{SERVICE}/GetTask")
                started = asyncio.get_running_loop().time()
                error = await failed(
                    call(
                        pb.GetTaskRequest(id="t").SerializeToString(),
                        metadata=V1,
                        timeout=0.5,
                    )
                )
                took = asyncio.get_running_loop().time() - started
                for _ in range(100):
                    if cancelled:
                        break
                    await asyncio.sleep(0.02)
                headers = [dict(context.headers) for name, _, context in origin.seen]
                return error, took, [h.get(TIMEOUT_KEY, "") for h in headers]

    error, took, seen_timeouts = run(scenario)
    assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED and took < 5
    assert cancelled == [
        "origin"
    ]  # the origin's handler was cancelled by the passed-on deadline
    assert len(seen_timeouts) == 1 and seen_timeouts[0].endswith("u")
    # grpc's core sends a deadline as a timeout it may round up (to the millisecond
    # below a second) and reads it on its own clock: two hops may add a little
    # (0.39 ms seen in CI).
    assert 0 < parse_timeout(seen_timeouts[0]) <= 0.5 + 0.005


class _Proxy:
    """A handler over a ``GrpcBackend``: each method calls the same rpc upstream."""

    def __init__(self, backend: GrpcBackend) -> None:
        self.backend = backend

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        rpc = next(m.rpc for m in SERVICES[0].methods if m.attribute == name)
        if METHODS[rpc].server_streaming:
            return lambda request, context: self.backend.stream(rpc, request, context)
        return lambda request, context: self.backend.call(rpc, request, context)


# ------------------------------------------------- REQUIRED fields at their default


from codegen.runtime._grpc import _behaviors, _RequiredDefaults  # noqa: E402


@pytest.mark.parametrize(
    ("options", "found"),
    [
        (b"", set()),
        (b"\xe0\x41\x02", {2}),  # field 1052, varint: REQUIRED
        (b"\xe2\x41\x02\x02\x05", {2, 5}),  # packed
        (
            b"\x08\x01\x11" + bytes(8) + b"\x1d" + bytes(4) + b"\xe0\x41\x03",
            {3},
        ),  # other fields skipped
        (b"\x0a\x02\xe0\x41", set()),  # a length-delimited field holding the same bytes
        (b"\xe0\x41", set()),  # cut short
        (b"\x0b\xe0\x41\x02", set()),  # a group: stop reading
    ],
)
def test_behaviors_read_off_the_wire(options: bytes, found: set[int]) -> None:
    assert _behaviors(options) == found


def test_the_backend_puts_back_required_fields_protojson_leaves_out() -> None:
    """A last page (``nextPageToken: ""``), an empty list, a zero: REQUIRED in the
    proto, left out by ``MessageToDict``, there in what the backend answers."""
    handler = Handler()

    async def empty_page(request: Any, context: CallContext) -> Any:
        return {
            "tasks": [{"id": "t1", "status": {"state": "TASK_STATE_WORKING"}}],
            "pageSize": 0,
        }

    handler.override["list_tasks"] = empty_page

    async def scenario() -> Any:
        async with serving(handler) as channel:
            return await _backend(channel).call("ListTasks", {}, SERVED)

    assert run(scenario) == {
        "tasks": [{"id": "t1", "status": {"state": "TASK_STATE_WORKING"}}],
        "nextPageToken": "",
        "pageSize": 0,
        "totalSize": 0,
    }


def test_required_defaults_in_every_kind_of_field() -> None:
    fill = _RequiredDefaults().fill
    assert fill(pb.ListTasksResponse.DESCRIPTOR, {}) == {
        "tasks": [],
        "nextPageToken": "",
        "pageSize": 0,
        "totalSize": 0,
    }
    # a REQUIRED enum is its zero value's name; a message with presence stays absent
    assert fill(pb.TaskStatus.DESCRIPTOR, {}) == {"state": "TASK_STATE_UNSPECIFIED"}
    assert fill(pb.Task.DESCRIPTOR, {"id": "t"}) == {
        "id": "t"
    }  # status and contextId: not REQUIRED here
    # nested in lists and in oneof members; well-known types left as they are
    event = fill(
        pb.StreamResponse.DESCRIPTOR,
        {"statusUpdate": {"status": {"timestamp": "2020-01-01T00:00:00Z"}}},
    )
    assert event == {
        "statusUpdate": {
            "taskId": "",
            "contextId": "",
            "status": {
                "state": "TASK_STATE_UNSPECIFIED",
                "timestamp": "2020-01-01T00:00:00Z",
            },
        }
    }
    card = fill(
        pb.AgentCard.DESCRIPTOR,
        {
            "skills": [{"id": "s"}],
            "securitySchemes": {"b": {"httpAuthSecurityScheme": {}}},
        },
    )
    assert card["skills"] == [{"id": "s", "name": "", "description": "", "tags": []}]
    assert card["securitySchemes"]["b"]["httpAuthSecurityScheme"] == {"scheme": ""}
    assert card["defaultInputModes"] == [] and card["name"] == ""


def test_required_defaults_of_each_scalar_kind() -> None:
    from google.protobuf import descriptor_pb2, descriptor_pool
    from google.protobuf.message_factory import GetMessageClass

    pool = descriptor_pool.DescriptorPool()
    for module in ("google.protobuf.descriptor_pb2",):
        file = descriptor_pb2.FileDescriptorProto()
        importlib.import_module(module).DESCRIPTOR.CopyToProto(file)
        pool.Add(file)
    behavior = descriptor_pb2.FileDescriptorProto(
        name="fb.proto",
        package="google.api",
        syntax="proto3",
        dependency=["google/protobuf/descriptor.proto"],
    )
    behavior.enum_type.add(name="FieldBehavior").value.add(
        name="FIELD_BEHAVIOR_UNSPECIFIED", number=0
    )
    behavior.enum_type[0].value.add(name="REQUIRED", number=2)
    behavior.extension.add(
        name="field_behavior",
        number=1052,
        type=14,
        label=3,
        type_name=".google.api.FieldBehavior",
        extendee=".google.protobuf.FieldOptions",
    )
    pool.Add(behavior)
    kinds = descriptor_pb2.FileDescriptorProto(
        name="k.proto", package="k", syntax="proto3", dependency=["fb.proto"]
    )
    message = kinds.message_type.add(name="K")
    required = descriptor_pb2.FieldOptions()
    required.ParseFromString(b"\xe2\x41\x01\x02")  # field_behavior = [REQUIRED], packed
    names = {
        "d": 1,
        "f": 2,
        "i64": 3,
        "u64": 4,
        "i32": 5,
        "b": 8,
        "s": 9,
        "y": 12,
        "u32": 13,
        "e": 14,
    }
    for number, (name, kind) in enumerate(names.items(), start=1):
        field = message.field.add(
            name=name,
            json_name=name,
            number=number,
            type=kind,
            label=1,
            options=required,
        )
        if name == "e":
            field.type_name = ".k.E"
    kinds.enum_type.add(name="E").value.add(name="E_NONE", number=0)
    pool.Add(kinds)
    descriptor = pool.FindMessageTypeByName("k.K")
    GetMessageClass(descriptor)
    assert _RequiredDefaults().fill(descriptor, {}) == {
        "d": 0.0,
        "f": 0.0,
        "i64": "0",
        "u64": "0",
        "i32": 0,
        "b": False,
        "s": "",
        "y": "",
        "u32": 0,
        "e": "E_NONE",
    }
    plain = pb.DESCRIPTOR.pool.FindMessageTypeByName("google.protobuf.Empty")
    assert _RequiredDefaults().fill(plain, {}) == {}


# ------------------------------------------------- a service without the A2A profile


def test_a_service_without_the_a2a_profile_is_served_and_called_plainly() -> None:
    """``supported_versions=None``: no version check, ``NO_PARAMS``, a refusal without
    the A2A ErrorInfo; ``version=None``: no ``a2a-version`` sent, every failure its
    ``RpcError``."""
    handler = Handler()
    handler.override["get_task"] = lambda request, context: _raises(
        RpcError("NOT_FOUND", "no task", [])
    )
    handler.override["cancel_task"] = lambda request, context: _raises(
        InvalidArgument("bad", [("id", "short")])
    )

    async def scenario() -> tuple[Any, Exception, Exception, Any]:
        async with serving(handler, supported_versions=None) as channel:
            backend = _backend(channel, forward_headers=("authorization",))
            backend.version = None
            deleted = await backend.call(
                "DeleteTaskPushNotificationConfig", {"taskId": "t", "id": "c"}, SERVED
            )
            with pytest.raises(Exception) as missing:
                await backend.call("GetTask", {"id": "t"}, SERVED)
            with pytest.raises(Exception) as refused:
                await backend.call("CancelTask", {"id": "t"}, SERVED)
            raw = await failed(
                channel.unary_unary("/lf.a2a.v1.A2AService/CancelTask")(
                    pb.CancelTaskRequest(id="t").SerializeToString()
                )
            )
            return deleted, missing.value, refused.value, raw

    deleted, missing, refused, raw = run(scenario)
    assert deleted is None
    context = handler.seen[0][2]
    assert context.params is NO_PARAMS
    assert context.header("a2a-version") is None  # none sent
    assert context.header("a2a-extensions") is None
    assert context.header("authorization") == "Bearer t"
    assert isinstance(missing, RpcError) and missing.code == "NOT_FOUND"
    assert isinstance(refused, RpcError) and refused.code == "INVALID_ARGUMENT"
    assert [d["@type"] for d in refused.details] == [
        "type.googleapis.com/google.rpc.BadRequest"
    ]
    assert raw.code() == grpc.StatusCode.INVALID_ARGUMENT  # no version needed
    assert [d.type_url for d in status(raw).details] == [
        "type.googleapis.com/google.rpc.BadRequest"
    ]

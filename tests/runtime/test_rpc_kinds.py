"""Client-streaming and bidirectional rpcs on every binding, in the runtime: gRPC
(``_grpc``: ``GrpcBinding`` and ``GrpcBackend``) on a real ``grpc.aio`` server on
loopback, HTTP+JSON and JSON-RPC (``_asgi``) in process over httpx, and the client
helpers (``_client``).

The packages are generated from the project's own protos, ``proto/features/streams.proto``
(no A2A profile) and ``proto/features/live.proto`` (the A2A profile, with
``SendLiveMessage``), and imported with the runtime modules of this checkout in place of
their copies, so what runs is ``codegen/runtime``; the message classes are protoc's,
compiled here.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import types
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import httpx
import pytest
from google.rpc import error_details_pb2, status_pb2
from grpc_tools import protoc

import codegen.runtime
from codegen.inputs import include_paths
from codegen.runtime._http_backend import HttpBackend
from tests.servers import running

from ..conftest import PROTO, run_plugin

FEATURES = PROTO / "features"
METER = "/features.streams.v1.MeterService/"
LIVE = "/features.live.v1.A2AService/"
V1 = (("a2a-version", "1.0"),)


def _package(folder: Path, proto: Path, name: str) -> types.ModuleType:
    """The package of ``proto`` (``grpc=true``, ``client=true`` for A2A) whose runtime
    modules are this checkout's ``codegen/runtime`` files, and protoc's ``_pb2`` module
    beside it."""
    options = "grpc=true,client=true" if name.startswith("live") else "grpc=true"
    response, _ = run_plugin(proto, f"{options},module={name}")
    assert not response.error, response.error
    for file in response.file:
        if Path(file.name).name.startswith("_") and file.name.endswith(".py"):
            continue  # the runtime: read from codegen/runtime instead
        path = folder / file.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.content)
    package = types.ModuleType(name)
    package.__path__ = [str(folder / name), *codegen.runtime.__path__]
    sys.modules[name] = package
    pb2 = f"{proto.stem}_pb2"
    if pb2 not in sys.modules:
        assert (
            protoc.main(
                [
                    "protoc",
                    f"-I{FEATURES}",
                    *[f"-I{path}" for path in include_paths()],
                    f"--python_out={folder}",
                    proto.name,
                ]
            )
            == 0
        )
    return package


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("rpc-kinds")
    sys.path.insert(0, str(folder))
    names = {"streams": "streams_kinds_binding", "live": "live_kinds_binding"}
    try:
        for proto, name in names.items():
            _package(folder, FEATURES / f"{proto}.proto", name)
        found = {
            f"{proto}.{module}": importlib.import_module(f"{name}.{module}")
            for proto, name in names.items()
            for module in ("asgi", "grpc_binding", "jsonrpc", "routes", "_grpc")
        }
        found["live.client"] = importlib.import_module(f"{names['live']}.client")
        found["streams_pb2"] = importlib.import_module("streams_pb2")
        found["live_pb2"] = importlib.import_module("live_pb2")
        yield found
    finally:
        sys.path.remove(str(folder))
        for name in list(sys.modules):
            if name.split(".")[0] in names.values():
                del sys.modules[name]


# ------------------------------------------------------------------- handlers


class Meters:
    """MeterService: sums readings, replies to each command; a command's text picks
    what goes wrong."""

    def __init__(self) -> None:
        self.contexts: list[Any] = []
        self.seen: list[dict[str, Any]] = []

    async def get_meter(self, request: Any, context: Any) -> Any:
        return {"meterId": request.get("meterId", ""), "total": "7"}

    async def watch_meter(self, request: Any, context: Any) -> AsyncIterator[Any]:
        yield {"meterId": request.get("meterId", ""), "value": "1"}

    async def upload_readings(self, requests: AsyncIterator[Any], context: Any) -> Any:
        self.contexts.append(context)
        count = total = 0
        async for reading in requests:
            self.seen.append(reading)
            count += 1
            total += int(reading["value"])
        return {"count": count, "total": str(total), "tenant": context.tenant}

    async def upload_samples(self, requests: AsyncIterator[Any], context: Any) -> Any:
        samples = [request async for request in requests]
        self.seen.extend(samples)
        total = sum(int(s.get("sample", {}).get("amount", "0")) for s in samples)
        return {"count": len(samples), "total": str(total)}

    async def count_readings(self, requests: AsyncIterator[Any], context: Any) -> Any:
        readings = [request async for request in requests]
        self.seen.extend(readings)
        return {"count": len(readings)}

    async def converse(
        self, requests: AsyncIterator[Any], context: Any
    ) -> AsyncIterator[Any]:
        self.contexts.append(context)
        self.closed = False
        sequence = 0
        async for command in requests:
            self.seen.append(command)
            text = command.get("text", "")
            if text == "fail":
                raise RuntimeError("secret detail")
            if text == "wait":
                try:
                    yield {"text": "waiting"}
                    await asyncio.Event().wait()
                finally:
                    self.closed = True
            if text == "swallow":  # reads on past a refused request, and answers
                try:
                    async for _ in requests:
                        pass
                except ValueError:
                    pass
                yield {"text": "carried on"}
                return
            sequence += 1
            yield {"text": f"re: {text} ({context.tenant})", "sequence": sequence}


class Agent:
    """The live A2A service: echoes messages, answers a signal by its name."""

    def __init__(self) -> None:
        self.contexts: list[Any] = []

    async def send_message(self, request: Any, context: Any) -> Any:
        return {"message": request["message"]}

    async def send_streaming_message(
        self, request: Any, context: Any
    ) -> AsyncIterator[Any]:
        yield {"message": request["message"]}

    async def send_live_message(
        self, requests: AsyncIterator[Any], context: Any
    ) -> AsyncIterator[Any]:
        self.contexts.append(context)
        async for request in requests:
            if "signal" in request:
                text = "signal " + request["signal"].get("name", "")
            else:
                text = "heard " + request["message"]["parts"][0]["text"]
            yield {
                "message": {
                    "messageId": "a-" + str(len(self.contexts)),
                    "role": "ROLE_AGENT",
                    "parts": [{"text": text}],
                }
            }


def _message(pb: Any, text: str, message_id: str = "m1") -> Any:
    return pb.Message(
        message_id=message_id, role=pb.ROLE_USER, parts=[pb.Part(text=text)]
    )


# ---------------------------------------------------------------------- gRPC


@asynccontextmanager
async def serving(
    register: Callable[[grpc.aio.Server], object],
) -> AsyncIterator[grpc.aio.Channel]:
    """A ``grpc.aio`` server on loopback with what ``register`` adds, and a channel to
    it."""
    server = grpc.aio.server()
    register(server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield channel
    finally:
        await server.stop(None)


def _bad_request(error: grpc.aio.AioRpcError) -> list[tuple[str, str]]:
    """The field violations in a failed call's ``google.rpc.Status``."""
    trailers = dict(error.trailing_metadata() or ())
    status = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
    violations = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            violations += [(v.field, v.description) for v in bad.field_violations]
    return violations


async def _items(*items: Any) -> AsyncIterator[Any]:
    for item in items:
        yield item


def test_grpc_bidirectional_call_answers_each_of_three_requests(
    packages: dict[str, Any],
) -> None:
    pb = packages["streams_pb2"]
    handler = Meters()

    async def main() -> list[Any]:
        register = lambda server: packages["streams.grpc_binding"].add_to_server(
            handler, server
        )
        async with serving(register) as channel:
            converse = channel.stream_stream(
                METER + "Converse",
                request_serializer=pb.Command.SerializeToString,
                response_deserializer=pb.Reply.FromString,
            )
            commands = [pb.Command(tenant="acme", meter_id="m1", text=t) for t in "abc"]
            return [reply async for reply in converse(_items(*commands))]

    replies = asyncio.run(main())
    assert [(r.text, r.sequence) for r in replies] == [
        ("re: a (acme)", 1),
        ("re: b (acme)", 2),
        ("re: c (acme)", 3),
    ]
    # Each request reached the handler as its canonical ProtoJSON dict.
    assert handler.seen == [
        {"tenant": "acme", "meterId": "m1", "text": t} for t in "abc"
    ]
    (context,) = handler.contexts
    assert (context.binding, context.tenant) == ("grpc", "acme")


def test_grpc_client_stream_gets_one_answer(packages: dict[str, Any]) -> None:
    pb = packages["streams_pb2"]
    handler = Meters()

    async def main() -> tuple[Any, Any]:
        register = lambda server: packages["streams.grpc_binding"].add_to_server(
            handler, server
        )
        async with serving(register) as channel:
            upload = channel.stream_unary(
                METER + "UploadReadings",
                request_serializer=pb.Reading.SerializeToString,
                response_deserializer=pb.UploadSummary.FromString,
            )
            readings = [pb.Reading(tenant="t1", value=v) for v in (1, 2, 40)]
            summary = await upload(_items(*readings))
            empty = await upload(_items())  # no request: no tenant either
            return summary, empty

    summary, empty = asyncio.run(main())
    assert (summary.count, summary.total, summary.tenant) == (3, 43, "t1")
    assert (empty.count, empty.total, empty.tenant) == (0, 0, "")
    assert [c.tenant for c in handler.contexts] == ["t1", ""]


def test_grpc_invalid_request_ends_the_call_naming_its_field(
    packages: dict[str, Any],
) -> None:
    """Each request is checked as it arrives: the second lacks its REQUIRED value, and
    the call ends INVALID_ARGUMENT naming ``[1].value``, even where the handler
    swallowed the refusal and answered on."""
    pb = packages["streams_pb2"]
    handler = Meters()

    async def main() -> tuple[grpc.aio.AioRpcError, grpc.aio.AioRpcError, list[Any]]:
        register = lambda server: packages["streams.grpc_binding"].add_to_server(
            handler, server
        )
        async with serving(register) as channel:
            upload = channel.stream_unary(
                METER + "UploadReadings",
                request_serializer=pb.Reading.SerializeToString,
                response_deserializer=pb.UploadSummary.FromString,
            )
            with pytest.raises(grpc.aio.AioRpcError) as unary:
                await upload(
                    _items(pb.Reading(value=1), pb.Reading(unit=pb.UNIT_LITRE))
                )
            converse = channel.stream_stream(
                METER + "Converse",
                request_serializer=lambda raw: raw,
                response_deserializer=pb.Reply.FromString,
            )
            got: list[Any] = []
            with pytest.raises(grpc.aio.AioRpcError) as streamed:
                good = pb.Command(text="swallow").SerializeToString()
                async for reply in converse(_items(good, b"\xff\xff")):
                    got.append(reply)
            return unary.value, streamed.value, got

    unary, streamed, got = asyncio.run(main())
    assert unary.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert str(unary.details()).startswith("request [1] of the stream: ")
    assert _bad_request(unary) == [("[1].value", "a REQUIRED field is missing")]
    # The handler swallowed the refusal of a request that is no Command at all.
    assert streamed.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "request [1] of the stream" in str(streamed.details())
    assert [field for field, _ in _bad_request(streamed)] == ["[1]"]
    assert got == []


def test_grpc_stream_request_over_the_limit_is_refused_unread(
    packages: dict[str, Any],
) -> None:
    pb = packages["streams_pb2"]

    async def main() -> grpc.aio.AioRpcError:
        register = lambda server: packages["streams.grpc_binding"].add_to_server(
            Meters(), server, max_message_bytes=16
        )
        async with serving(register) as channel:
            upload = channel.stream_unary(
                METER + "UploadReadings",
                request_serializer=pb.Reading.SerializeToString,
                response_deserializer=pb.UploadSummary.FromString,
            )
            large = pb.Reading(value=1, meter_id="m" * 40)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await upload(_items(pb.Reading(value=1), large))
            return refused.value

    refused = asyncio.run(main())
    assert refused.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert refused.details() == (
        "request [1] of the stream: the request is larger than 16 bytes"
    )


def test_grpc_bidirectional_call_cancelled_closes_the_handler(
    packages: dict[str, Any],
) -> None:
    pb = packages["streams_pb2"]
    handler = Meters()

    async def main() -> None:
        register = lambda server: packages["streams.grpc_binding"].add_to_server(
            handler, server
        )
        async with serving(register) as channel:
            converse = channel.stream_stream(
                METER + "Converse",
                request_serializer=pb.Command.SerializeToString,
                response_deserializer=pb.Reply.FromString,
            )
            call = converse()
            await call.write(pb.Command(text="wait"))
            reply: Any = await call.read()
            assert reply.text == "waiting"
            call.cancel()
            for _ in range(200):
                if handler.closed:
                    return
                await asyncio.sleep(0.01)

    asyncio.run(main())
    assert handler.closed


class Committing(Meters):
    """UploadReadings that says how its stream ended: at its end, or cancelled."""

    def __init__(self) -> None:
        super().__init__()
        self.ended: list[str] = []

    async def upload_readings(self, requests: AsyncIterator[Any], context: Any) -> Any:
        count = 0
        try:
            async for _ in requests:
                count += 1
        except asyncio.CancelledError:
            self.ended.append(f"cancelled after {count}")
            raise
        self.ended.append(f"committed {count}")
        return {"count": count}


def test_grpc_a_cancelled_client_stream_is_no_end_of_stream(
    packages: dict[str, Any],
) -> None:
    """grpc ends the requests alike when the client half-closes and when it cancels:
    the handler of a cancelled call gets ``CancelledError``, never the end."""
    pb = packages["streams_pb2"]
    handler = Committing()

    async def main() -> None:
        register = lambda server: packages["streams.grpc_binding"].add_to_server(
            handler, server
        )
        async with serving(register) as channel:
            upload = channel.stream_unary(
                METER + "UploadReadings",
                request_serializer=pb.Reading.SerializeToString,
                response_deserializer=pb.UploadSummary.FromString,
            )
            call = upload()
            for value in (1, 2):
                await call.write(pb.Reading(value=value))
            await asyncio.sleep(0.2)  # both read: the handler waits for a third
            call.cancel()
            for _ in range(200):
                if handler.ended:
                    return
                await asyncio.sleep(0.01)

    asyncio.run(main())
    (ended,) = handler.ended  # "cancelled after 2", or 1 on a slow machine
    assert ended.startswith("cancelled after "), ended


def test_grpc_a_stream_has_one_tenant(packages: dict[str, Any]) -> None:
    """The call's tenant is its first request's: a later request naming another is
    refused, one naming none is the stream's."""
    pb = packages["streams_pb2"]
    handler = Meters()

    async def main() -> tuple[Any, grpc.aio.AioRpcError]:
        register = lambda server: packages["streams.grpc_binding"].add_to_server(
            handler, server
        )
        async with serving(register) as channel:
            upload = channel.stream_unary(
                METER + "UploadReadings",
                request_serializer=pb.Reading.SerializeToString,
                response_deserializer=pb.UploadSummary.FromString,
            )
            same = await upload(
                _items(pb.Reading(tenant="t1", value=1), pb.Reading(value=2))
            )
            with pytest.raises(grpc.aio.AioRpcError) as mixed:
                await upload(
                    _items(
                        pb.Reading(tenant="t1", value=1),
                        pb.Reading(tenant="t2", value=2),
                    )
                )
            return same, mixed.value

    same, mixed = asyncio.run(main())
    assert (same.count, same.tenant) == (2, "t1")
    assert mixed.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [field for field, _ in _bad_request(mixed)] == ["[1].tenant"]


def test_grpc_handler_failures_in_a_stream(packages: dict[str, Any]) -> None:
    pb = packages["streams_pb2"]

    class Wrong(Meters):
        async def upload_samples(self, requests: Any, context: Any) -> Any:
            return ["not", "a", "dict"]

        def converse(self, requests: Any, context: Any) -> Any:
            return {"not": "an iterator"}

    async def main() -> list[grpc.aio.AioRpcError]:
        register = lambda server: packages["streams.grpc_binding"].add_to_server(
            Wrong(), server
        )
        errors = []
        async with serving(register) as channel:
            for method, request in (
                ("UploadSamples", pb.SampleUpload()),
                ("Converse", pb.Command(text="x")),
            ):
                call = channel.stream_stream(
                    METER + method,
                    request_serializer=type(request).SerializeToString,
                    response_deserializer=lambda raw: raw,
                )
                with pytest.raises(grpc.aio.AioRpcError) as failed:
                    async for _ in call(_items(request)):
                        pass
                errors.append(failed.value)
        return errors

    for error in asyncio.run(main()):
        assert error.code() is grpc.StatusCode.INTERNAL
        assert error.details() == "internal error"


def test_grpc_backend_forwards_both_kinds(packages: dict[str, Any]) -> None:
    """``Backend`` calls the service over a channel: a handler of the generated
    Protocol in front, and ``add_to_server(Backend(channel), proxy)`` a gRPC proxy
    that streams both ways."""
    pb = packages["streams_pb2"]
    binding = packages["streams.grpc_binding"]
    handler = Meters()

    async def main() -> tuple[Any, ...]:
        register = lambda server: binding.add_to_server(handler, server)
        async with serving(register) as channel:
            backend = binding.Backend(channel)
            answers = [
                answer
                async for answer in backend.converse(
                    _items(*({"text": t, "tenant": "b"} for t in "xyz")), None
                )
            ]
            summary = await backend.upload_readings(
                _items({"value": "5"}, {"value": 6}), None
            )
            rpc_error = importlib.import_module(
                "streams_kinds_binding._status"
            ).RpcError
            with pytest.raises(rpc_error) as refused:  # no A2A profile: the status
                await backend.upload_readings(_items({"value": "1"}, {}), None)
            with pytest.raises(RuntimeError, match="the requests broke"):

                async def broken() -> AsyncIterator[Any]:
                    yield {"value": "1"}
                    raise RuntimeError("the requests broke")

                await backend.upload_readings(broken(), None)
            with pytest.raises(RuntimeError, match="the requests broke"):

                async def broken_commands() -> AsyncIterator[Any]:
                    yield {"text": "a"}
                    raise RuntimeError("the requests broke")

                async for _ in backend.converse(broken_commands(), None):
                    pass
            proxied = lambda server: binding.add_to_server(
                binding.Backend(channel), server
            )
            async with serving(proxied) as proxy:
                converse = proxy.stream_stream(
                    METER + "Converse",
                    request_serializer=pb.Command.SerializeToString,
                    response_deserializer=pb.Reply.FromString,
                )
                through = [
                    r.text
                    async for r in converse(
                        _items(*(pb.Command(tenant="p", text=t) for t in "123"))
                    )
                ]
                upload = proxy.stream_unary(
                    METER + "UploadReadings",
                    request_serializer=pb.Reading.SerializeToString,
                    response_deserializer=pb.UploadSummary.FromString,
                )
                total = (
                    await upload(_items(pb.Reading(value=2), pb.Reading(value=3)))
                ).total
                with pytest.raises(grpc.aio.AioRpcError) as proxied_refusal:
                    await upload(_items(pb.Reading(value=2), pb.Reading()))
        return answers, summary, refused.value, through, total, proxied_refusal.value

    answers, summary, refused, through, total, proxied_refusal = asyncio.run(main())
    assert answers == [
        {"text": f"re: {t} (b)", "sequence": i} for i, t in enumerate("xyz", 1)
    ]
    assert summary == {"count": 2, "total": "11"}
    assert refused.code == "INVALID_ARGUMENT"
    assert [
        v["field"] for d in refused.details for v in d.get("fieldViolations", ())
    ] == ["[1].value"]
    assert through == ["re: 1 (p)", "re: 2 (p)", "re: 3 (p)"]
    assert total == 5
    # The proxy's own binding refused the request before the backend saw it.
    assert proxied_refusal.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert _bad_request(proxied_refusal) == [
        ("[1].value", "a REQUIRED field is missing")
    ]


def test_grpc_binding_checks_the_kind_against_the_message_classes(
    packages: dict[str, Any],
) -> None:
    grpc_module = packages["streams._grpc"]
    binding = packages["streams.grpc_binding"]
    services = tuple(
        grpc_module.GrpcService(
            service.name,
            tuple(
                (
                    method._replace(client_streaming=not method.client_streaming)
                    if method.rpc == "Converse"
                    else method
                )
                for method in service.methods
            ),
        )
        for service in binding.SERVICES
    )
    with pytest.raises(TypeError, match="defines features.streams.v1.MeterService"):
        grpc_module.GrpcBinding(
            Meters(),
            services=services,
            pb2_module=binding.PB2_MODULE,
            tenant_field="tenant",
            supported_versions=None,
        )
    assert [
        (m.rpc, m.server_streaming, m.client_streaming)
        for m in binding.SERVICES[0].methods
    ] == [
        ("GetMeter", False, False),
        ("WatchMeter", True, False),
        ("UploadReadings", False, True),
        ("UploadSamples", False, True),
        ("CountReadings", False, True),
        ("Converse", True, True),
    ]


def test_grpc_live_message_over_the_a2a_binding(packages: dict[str, Any]) -> None:
    """The A2A profile's SendLiveMessage: three requests (two messages and a signal)
    and three answers; the version is checked first, as for every call."""
    pb = packages["live_pb2"]
    agent = Agent()

    async def main() -> tuple[list[Any], grpc.aio.AioRpcError]:
        register = lambda server: packages["live.grpc_binding"].add_to_server(
            agent, server
        )
        async with serving(register) as channel:
            live = channel.stream_stream(
                LIVE + "SendLiveMessage",
                request_serializer=pb.LiveRequest.SerializeToString,
                response_deserializer=pb.StreamResponse.FromString,
            )
            requests = [
                pb.LiveRequest(tenant="t1", message=_message(pb, "one")),
                pb.LiveRequest(tenant="t1", signal=pb.ClientSignal(name="pause")),
                pb.LiveRequest(tenant="t1", message=_message(pb, "two", "m2")),
            ]
            answers = [a async for a in live(_items(*requests), metadata=V1)]
            # Refused before any request is read (a request sent meanwhile could
            # meet the closed call: grpc's client then reports its own INTERNAL).
            old = live(metadata=(("a2a-version", "9.9"),))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await old.read()
            return answers, refused.value

    answers, old = asyncio.run(main())
    assert [a.message.parts[0].text for a in answers] == [
        "heard one",
        "signal pause",
        "heard two",
    ]
    assert agent.contexts[0].tenant == "t1"
    assert agent.contexts[0].params.version == "1.0"
    assert old.code() is grpc.StatusCode.FAILED_PRECONDITION  # VersionNotSupported
    assert "9.9" in str(old.details())


# ----------------------------------------------------------------- HTTP+JSON


def _client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://kinds.test"
    )


def _events(text: str) -> list[Any]:
    return [
        json.loads(line[len("data: ") :])
        for line in text.splitlines()
        if line.startswith("data: ")
    ]


NDJSON = {"content-type": "application/x-ndjson"}


def test_http_json_client_stream_as_array_and_as_ndjson(
    packages: dict[str, Any],
) -> None:
    handler = Meters()
    app = packages["streams.asgi"].create_app(handler)

    async def main() -> list[httpx.Response]:
        async with _client(app) as client:
            return [
                await client.post(
                    "/meters/m1/readings", json=[{"value": "1"}, {"value": 2}]
                ),
                await client.post(
                    "/acme/meters/m1/readings",
                    content=b'{"value": "3"}\r\n\n  \n{"value": 4, "unit": "UNIT_LITRE"}\n',
                    headers=NDJSON,
                ),
                await client.post("/meters/m1/readings"),  # no body: no request
                await client.post(
                    "/meters/m9/samples",
                    json=[{"amount": "2"}, {"amount": 5}],
                    headers={"content-type": "application/json; charset=utf-8"},
                ),
                await client.post("/meters/m3:count?value=4"),
            ]

    array, ndjson, empty, samples, count = asyncio.run(main())
    assert array.json() == {"count": 2, "total": "3", "tenant": ""}
    assert ndjson.json() == {"count": 2, "total": "7", "tenant": "acme"}
    assert empty.json() == {"count": 0, "total": "0", "tenant": ""}
    assert samples.json() == {"count": 2, "total": "7"}
    assert count.json() == {"count": 1}  # no body: the path and query make one
    # Path fields went into every request; a field body took each element.
    assert handler.seen == [
        {"meterId": "m1", "value": "1"},
        {"meterId": "m1", "value": "2"},
        {"tenant": "acme", "meterId": "m1", "value": "3"},
        {"tenant": "acme", "meterId": "m1", "value": "4", "unit": "UNIT_LITRE"},
        {"meterId": "m9", "sample": {"amount": "2"}},
        {"meterId": "m9", "sample": {"amount": "5"}},
        {"meterId": "m3", "value": "4"},
    ]
    assert [c.tenant for c in handler.contexts] == ["", "acme", ""]


def test_an_ndjson_stream_refused_at_its_first_request_is_read_no_further(
    packages: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each line is decoded and checked before the next is decoded: a stream whose
    first request is refused costs that line, whatever follows it."""
    handler = Meters()
    asgi = packages["streams.asgi"]
    app = asgi.create_app(handler)
    dialects = sys.modules[asgi.__name__.rpartition(".")[0] + "._dialects"]
    decoded: list[bytes] = []
    real = dialects.decode

    def counted(data: bytes, **options: Any) -> Any:
        decoded.append(data)
        return real(data, **options)

    monkeypatch.setattr(dialects, "decode", counted)
    first = b'{"unit": "UNIT_WATT_HOUR"}'  # no value: REQUIRED
    body = first + b"\n" + b'{"value": "1"}\n' * 10_000

    async def main() -> httpx.Response:
        async with _client(app) as client:
            return await client.post(
                "/meters/m1/readings", content=body, headers=NDJSON
            )

    answer = asyncio.run(main())
    assert answer.status_code == 400, answer.text
    (detail,) = answer.json()["error"]["details"]
    assert [v["field"] for v in detail["fieldViolations"]] == ["[0].value"]
    assert decoded == [first] and handler.seen == []


def test_http_json_client_stream_refusals_name_the_request(
    packages: dict[str, Any],
) -> None:
    handler = Meters()
    app = packages["streams.asgi"].create_app(handler)

    def violations(answer: httpx.Response) -> list[str]:
        assert answer.status_code == 400, answer.text
        (detail,) = answer.json()["error"]["details"]
        return [v["field"] for v in detail["fieldViolations"]]

    async def main() -> dict[str, httpx.Response]:
        async with _client(app) as client:
            post = client.post
            return {
                "invalid": await post(
                    "/meters/m1/readings",
                    json=[{"value": "1"}, {"unit": "UNIT_WATT_HOUR"}],
                ),
                "object": await post("/meters/m1/readings", json={"value": "1"}),
                "string": await post("/meters/m1/readings", json="text"),
                "boolean": await post("/meters/m1/readings", json=True),
                "null": await post(
                    "/meters/m1/readings",
                    content=b"null",
                    headers={"content-type": "application/json"},
                ),
                "number": await post("/meters/m1/readings", json=1.5),
                "line": await post(
                    "/meters/m1/readings",
                    content=b'{"value": "1"}\n{oops',
                    headers=NDJSON,
                ),
                "tenant": await post(
                    "/acme/meters/m1:converse",
                    json=[{"text": "a"}, {"text": "b", "tenant": "other"}],
                ),
                "mixed": await post(
                    "/meters/m1/readings",
                    json=[
                        {"tenant": "t1", "value": "1"},
                        {"tenant": "t2", "value": "2"},
                    ],
                ),
                "element": await post("/meters/m1/readings", json=[{"value": "1"}, 7]),
                "query": await post("/meters/m1/samples?meterId=m2", json=[{}]),
                "type": await post(
                    "/meters/m1/readings",
                    content=b"[]",
                    headers={"content-type": "text/plain"},
                ),
                "not json": await post(
                    "/meters/m1/readings",
                    content=b"[{",
                    headers={"content-type": "application/json"},
                ),
            }

    answers = asyncio.run(main())
    assert violations(answers["invalid"]) == ["[1].value"]
    assert violations(answers["mixed"]) == ["[1].tenant"]
    assert (
        answers["invalid"]
        .json()["error"]["message"]
        .startswith("request [1] of the stream: ")
    )
    for name, kind in (
        ("object", "an object"),
        ("string", "a string"),
        ("boolean", "a boolean"),
        ("null", "null"),
        ("number", "a number"),
    ):
        message = answers[name].json()["error"]["message"]
        assert message == (
            "UploadReadings takes a stream of requests: the body is a JSON array of"
            " them (or one a line, with Content-Type application/x-ndjson), not " + kind
        )
    assert violations(answers["line"]) == ["[1]"]
    assert (
        "(line 2 of the body) is not JSON" in answers["line"].json()["error"]["message"]
    )
    assert violations(answers["tenant"]) == ["[1].tenant"]
    assert violations(answers["element"]) == ["[1]"]
    # A query field the path binds too (path and query disagree) is the query's
    # error, the same for every request: no request number.
    assert violations(answers["query"]) == ["meterId"]
    assert answers["type"].status_code == 415
    assert answers["not json"].status_code == 400
    assert handler.seen == []  # nothing reached the handler


def test_http_json_bidirectional_answers_as_a_server_stream(
    packages: dict[str, Any],
) -> None:
    handler = Meters()
    app = packages["streams.asgi"].create_app(handler)

    async def main() -> list[httpx.Response]:
        async with _client(app) as client:
            return [
                await client.post(
                    "/acme/meters/m1:converse",
                    json=[{"text": "a"}, {"text": "b"}, {"text": "c"}],
                ),
                await client.post(
                    "/meters/m1:converse",
                    content=b'{"text": "x"}\n{"text": "fail"}\n',
                    headers={**NDJSON, "accept": "application/x-ndjson"},
                ),
            ]

    sse, ndjson = asyncio.run(main())
    assert sse.headers["content-type"].startswith("text/event-stream")
    assert _events(sse.text) == [
        {"result": {"text": f"re: {t} (acme)", "sequence": i}}
        for i, t in enumerate("abc", 1)
    ]
    assert ndjson.headers["content-type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in ndjson.text.splitlines()]
    assert lines[0] == {"result": {"text": "re: x ()", "sequence": 1}}
    assert lines[1]["error"]["status"] == "INTERNAL"


def test_http_json_a2a_live_message(packages: dict[str, Any]) -> None:
    agent = Agent()
    app = packages["live.asgi"].create_app(agent, agent_card={"name": "live"})
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}

    async def main() -> list[httpx.Response]:
        async with _client(app) as client:
            headers = {"a2a-version": "1.0"}
            return [
                await client.post(
                    "/t1/live",
                    json=[{"message": message}, {"signal": {"name": "stop"}}],
                    headers=headers,
                ),
                await client.post(
                    "/live",
                    json=[{"message": {**message, "role": "ROLE_NOBODY"}}],
                    headers=headers,
                ),
            ]

    stream, refused = asyncio.run(main())
    assert [e["message"]["parts"][0]["text"] for e in _events(stream.text)] == [
        "heard hi",
        "signal stop",
    ]
    assert agent.contexts[0].tenant == "t1"
    assert refused.status_code == 400
    (detail,) = refused.json()["error"]["details"]
    assert detail["fieldViolations"][0]["field"] == "[0].message.role"


def test_http_backend_sends_a_stream_of_requests_to_an_http_json_agent(
    packages: dict[str, Any],
) -> None:
    """``HttpBackend.bidirectional``: the requests go as one JSON array once they have
    all come, the tenant of the first in the path, the answers come back as they are
    streamed."""
    agent = Agent()
    app = packages["live.asgi"].create_app(agent, agent_card={"name": "live"})
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}

    async def requests() -> AsyncIterator[dict[str, Any]]:
        yield {"tenant": "t1", "message": message}
        yield {"tenant": "t1", "signal": {"name": "stop"}}

    with running(app) as base:
        backend = HttpBackend(
            base, client=packages["live.client"].BINDING, binding="http+json"
        )

        async def main() -> list[Any]:
            try:
                stream = backend.bidirectional("SendLiveMessage", requests())
                return [answer async for answer in stream]
            finally:
                await backend.aclose()

        answers = asyncio.run(asyncio.wait_for(main(), 30))
    assert [a["message"]["parts"][0]["text"] for a in answers] == [
        "heard hi",
        "signal stop",
    ]
    assert agent.contexts[-1].tenant == "t1"


# ------------------------------------------------------------------ JSON-RPC


def test_jsonrpc_knows_the_method_and_refuses_it_saying_why(
    packages: dict[str, Any],
) -> None:
    meters, live = packages["streams.jsonrpc"], packages["live.jsonrpc"]
    assert meters.METHODS["Converse"].client_streaming
    assert meters.METHODS["Converse"].server_streaming
    assert meters.METHODS["UploadReadings"].client_streaming
    assert not meters.METHODS["GetMeter"].client_streaming
    parsed = live.parse_request(
        {"jsonrpc": "2.0", "id": 1, "method": "SendLiveMessage", "params": {}}
    )
    assert (parsed.method, parsed.client_streaming) == ("SendLiveMessage", True)
    agent, handler = Agent(), Meters()
    live_app = packages["live.asgi"].create_app(agent, agent_card={"name": "live"})
    meters_app = packages["streams.asgi"].create_app(handler, jsonrpc_path="/rpc")

    async def main() -> list[httpx.Response]:
        async with _client(live_app) as a2a, _client(meters_app) as other:
            return [
                await a2a.post(
                    "/",
                    json={
                        "jsonrpc": "2.0",
                        "id": 7,
                        "method": "SendLiveMessage",
                        "params": {"signal": {"name": "x"}},
                    },
                    headers={"a2a-version": "1.0"},
                ),
                await other.post(
                    "/rpc",
                    json={"jsonrpc": "2.0", "id": "u", "method": "UploadReadings"},
                ),
                await other.post(  # a notification: nothing to answer
                    "/rpc", json={"jsonrpc": "2.0", "method": "Converse", "params": {}}
                ),
            ]

    a2a, other, notification = asyncio.run(main())
    error = a2a.json()["error"]
    assert (a2a.status_code, a2a.json()["id"], error["code"]) == (200, 7, -32004)
    assert error["message"] == (
        "SendLiveMessage takes a stream of requests, which a JSON-RPC request (one"
        " params object) cannot carry: call it over gRPC or HTTP+JSON"
    )
    assert error["data"][0]["reason"] == "UNSUPPORTED_OPERATION"
    error = other.json()["error"]
    assert (error["code"], error["data"]["status"]) == (-32601, "UNIMPLEMENTED")
    assert error["message"].startswith("UploadReadings takes a stream of requests")
    assert notification.status_code == 204
    assert agent.contexts == [] and handler.contexts == []


# ------------------------------------------------------------------- client


def test_client_prepares_a_stream_of_requests(packages: dict[str, Any]) -> None:
    client = packages["live.client"]
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    prepared = client.prepare(
        "SendLiveMessage",
        [{"message": message}, {"signal": {"name": "go"}}],
        base_url="http://agent/",
        tenant="t1",
        validate=True,
    )
    assert (prepared.method, prepared.url) == ("POST", "http://agent/t1/live")
    assert json.loads(prepared.body) == [
        {"message": message},
        {"signal": {"name": "go"}},
    ]
    assert ("Accept", "text/event-stream") in prepared.headers
    assert ("Content-Type", "application/a2a+json") in prepared.headers
    empty = client.prepare("SendLiveMessage", [], base_url="http://agent")
    assert (empty.url, empty.body) == ("http://agent/live", b"[]")
    for wrong, match in (
        ({"binding": "jsonrpc"}, "the jsonrpc binding cannot carry"),
        ({"version": "0.3"}, "A2A 0.3 cannot carry"),
    ):
        with pytest.raises(ValueError, match=match):
            client.prepare(
                "SendLiveMessage", [{"message": message}], base_url="http://a", **wrong
            )
    with pytest.raises(ValueError, match="give a list of request dicts"):
        client.prepare("SendLiveMessage", {"message": message}, base_url="http://a")
    with pytest.raises(ValueError, match="the request is a dict, not a list"):
        client.prepare("SendMessage", [{"message": message}], base_url="http://a")
    with pytest.raises(ValueError, match=r"request \[1\] goes to POST /t2/live"):
        client.prepare(
            "SendLiveMessage",
            [{"tenant": "t1"}, {"tenant": "t2"}],
            base_url="http://a",
        )


def test_client_stream_and_server_agree(packages: dict[str, Any]) -> None:
    """What ``client.prepare`` sends is what the app reads: the answers come back."""
    client = packages["live.client"]
    agent = Agent()
    app = packages["live.asgi"].create_app(agent, agent_card={"name": "live"})
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "yo"}]}
    prepared = client.prepare(
        "SendLiveMessage", [{"message": message}] * 3, base_url="http://kinds.test"
    )

    async def main() -> list[Any]:
        async with _client(app) as http:
            answer = await http.request(
                prepared.method,
                prepared.url,
                headers=prepared.headers,
                content=prepared.body,
            )
            return list(
                client.read_stream(
                    "SendLiveMessage", [answer.content], binding="http+json"
                )
            )

    answers = asyncio.run(main())
    assert [a["message"]["parts"][0]["text"] for a in answers] == ["heard yo"] * 3

"""The gateway (issue 26): ``asgi.create_app(grpc_binding.Backend(channel))`` in front of
a2a-sdk 1.3.0's own gRPC server (its ``GrpcHandler`` over a ``DefaultRequestHandler``
with a small executor), driven by a2a-sdk's and @a2a-js/sdk's JSON-RPC and REST clients
over loopback.

Every operation with and without a tenant, both streams, errors with their reasons
intact across the hop, the card (its interfaces where the gateway is reached, dialled
by ``ClientFactory``), the forwarded headers (the allow-list, nothing else), the
caller's deadline, and a stream the HTTP client leaves cancelling the agent's call.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import grpc.aio
import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.request_handlers.grpc_handler import DefaultGrpcServerCallContextBuilder
from a2a.server.tasks import (
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import a2a_pb2 as pb
from a2a.types import a2a_pb2_grpc
from a2a.utils import errors
from google.protobuf import json_format

from .conftest import GENERATED
from .servers import GrpcGateway, GrpcServer, running
from .test_interop import _every_operation, _message, _transport

sys.path.insert(0, str(GENERATED))
try:
    from a2a_binding import asgi, grpc_binding
finally:
    sys.path.remove(str(GENERATED))

BEARER = "Bearer gateway-test-token"
SECRET = "SECRET-7f3a"


class Executor(AgentExecutor):  # type: ignore[misc]
    """A message saying "hold" leaves its task working (until cancelled), "slow" answers
    after 30 s, "stream-forever" streams working updates until its gRPC call is
    cancelled (``Watched`` records the end); any other message completes its task. Records
    what each call's gRPC context carried."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.cancelled: list[str] = []
        self.calls_ended: list[str] = []  # SendMessage calls, by their text

    async def execute(self, context: Any, event_queue: Any) -> None:
        grpc_context = context.call_context.state["grpc_context"]
        self.seen.append(
            {
                "metadata": {k: v for k, v in grpc_context.invocation_metadata() or ()},
                "tenant": context.call_context.tenant,
                "time_remaining": grpc_context.time_remaining(),
            }
        )
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = (
            context.message.parts[0].text
            if context.message and context.message.parts
            else ""
        )
        if text == "hold":
            await updater.start_work()
            return
        if text == "slow":
            await asyncio.sleep(30)
        if text == "stream-forever":  # a2a-sdk runs the executor apart from the call
            while not self.cancelled:
                await updater.start_work()
                await asyncio.sleep(0.05)
            await updater.cancel()
            return
        await updater.complete()

    async def cancel(self, context: Any, event_queue: Any) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


class Watched(GrpcHandler):  # type: ignore[misc]
    """a2a-sdk's servicer, recording a SendStreamingMessage call that ended (a stream
    of "stream-forever" only ends when its call is cancelled) and a SendMessage call
    that ended (one of "slow" ends early only when its call is cancelled); GetTask of the id "explode" fails with an unexpected exception, whose
    text grpc sends as an UNKNOWN status."""

    def __init__(self, executor: Executor, handler: Any) -> None:
        super().__init__(handler, DefaultGrpcServerCallContextBuilder())
        self.executor = executor

    async def SendMessage(self, request: Any, context: Any) -> Any:  # noqa: N802
        try:
            return await super().SendMessage(request, context)
        finally:  # a2a-sdk answers a cancelled call quietly
            self.executor.calls_ended.append(request.message.parts[0].text)

    async def GetTask(self, request: Any, context: Any) -> Any:  # noqa: N802
        if request.id == "explode":
            raise RuntimeError(f"{SECRET} in the agent's database at 10.9.8.7")
        return await super().GetTask(request, context)

    async def SendStreamingMessage(
        self, request: Any, context: Any
    ) -> Any:  # noqa: N802
        try:
            async for event in super().SendStreamingMessage(request, context):
                yield event
        finally:  # a2a-sdk ends the stream quietly when its call is cancelled
            self.executor.cancelled.append(request.message.parts[0].text)


class SdkAgent(GrpcServer):
    """a2a-sdk's gRPC server on its own loop in a thread: ``target`` is its address."""

    def __init__(self) -> None:
        self.executor = Executor()
        super().__init__(self._register)

    def _register(self, server: Any) -> None:
        card = pb.AgentCard(
            name="sdk-agent",
            version="1",
            capabilities=pb.AgentCapabilities(
                streaming=True, push_notifications=True, extended_agent_card=True
            ),
        )
        extended = pb.AgentCard(
            name="sdk-agent-extended", version="1", capabilities=card.capabilities
        )
        handler = DefaultRequestHandler(
            agent_executor=self.executor,
            task_store=InMemoryTaskStore(),
            agent_card=card,
            push_config_store=InMemoryPushNotificationConfigStore(),
            extended_agent_card=extended,
        )
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(
            Watched(self.executor, handler), server
        )


def card_at(base_url: str) -> dict[str, Any]:
    """The gateway's card: its interfaces where the client reached it."""
    return {
        "name": "sdk-agent-behind-the-gateway",
        "version": "1",
        "capabilities": {
            "streaming": True,
            "pushNotifications": True,
            "extendedAgentCard": True,
        },
        "supportedInterfaces": [
            {
                "url": f"{base_url}/jsonrpc",
                "protocolBinding": "JSONRPC",
                "protocolVersion": "1.0",
            },
            {
                "url": f"{base_url}/rest",
                "protocolBinding": "HTTP+JSON",
                "protocolVersion": "1.0",
            },
        ],
    }


def Gateway(target: str, **backend: Any) -> GrpcGateway:  # noqa: N802
    """``create_app(Backend(channel, **backend))`` in front of ``target``."""
    return GrpcGateway(
        target,
        lambda channel: asgi.create_app(
            grpc_binding.Backend(channel, **backend),
            agent_card=card_at,
            http_json_prefix="/rest",
            jsonrpc_path="/jsonrpc",
        ),
    )


@pytest.fixture(scope="module")
def agent() -> Iterator[SdkAgent]:
    with SdkAgent() as served:
        yield served


@pytest.fixture(scope="module")
def gateway(agent: SdkAgent) -> Iterator[str]:
    with running(Gateway(agent.target, timeout=20)) as base:
        yield base


@pytest.mark.parametrize("tenant", ["", "acme"])
@pytest.mark.parametrize("kind", ["rest", "jsonrpc"])
def test_sdk_clients_through_the_gateway_to_sdks_grpc_agent(
    agent: SdkAgent, gateway: str, kind: str, tenant: str
) -> None:
    async def scenario() -> dict[str, Any]:
        headers = {
            "A2A-Version": "1.0",
            "Authorization": BEARER,
            "Cookie": "session=secret",
        }
        async with httpx.AsyncClient(timeout=20, headers=headers) as client:
            return await _every_operation(_transport(kind, client, gateway, tenant))

    agent.executor.seen.clear()
    seen = asyncio.run(asyncio.wait_for(scenario(), 60))
    done_id, held_id = seen["ids"]
    assert seen["SendMessage"] == (pb.TASK_STATE_COMPLETED, pb.TASK_STATE_WORKING)
    assert (
        seen["SendStreamingMessage"][0] == "task"
        and "status_update" in seen["SendStreamingMessage"]
    )
    assert (
        seen["GetTask"].id == done_id
        and seen["GetTask"].status.state == pb.TASK_STATE_COMPLETED
    )
    assert held_id in [t.id for t in seen["ListTasks"].tasks] and done_id not in [
        t.id for t in seen["ListTasks"].tasks
    ]
    assert seen["SubscribeToTask"][0].task.id == held_id
    assert seen["CancelTask"].status.state == pb.TASK_STATE_CANCELED
    assert seen["CreateTaskPushNotificationConfig"].url == "https://example.test/hook"
    assert seen["GetTaskPushNotificationConfig"].id == "c1"
    assert [c.id for c in seen["ListTaskPushNotificationConfigs"].configs] == ["c1"]
    assert list(seen["DeleteTaskPushNotificationConfig"].configs) == []
    assert seen["GetExtendedAgentCard"].name == "sdk-agent-extended"
    # what reached the agent: the tenant, the allow-listed header and the service
    # parameters; not the cookie; the gateway's timeout as the call's deadline
    assert {s["tenant"] for s in agent.executor.seen} == {tenant}
    for call in agent.executor.seen:
        assert (
            call["metadata"]["authorization"] == BEARER
            and call["metadata"]["a2a-version"] == "1.0"
        )
        assert "cookie" not in call["metadata"]
        assert (
            0 < call["time_remaining"] <= 20.5
        )  # grpc reads its deadline off another clock


@pytest.mark.parametrize("kind", ["rest", "jsonrpc"])
def test_errors_keep_their_reasons_across_the_hop(gateway: str, kind: str) -> None:
    async def scenario() -> list[type[Exception]]:
        caught: list[type[Exception]] = []
        async with httpx.AsyncClient(
            timeout=20, headers={"A2A-Version": "1.0"}
        ) as client:
            transport = _transport(kind, client, gateway, "")
            for call in (
                lambda: transport.get_task(pb.GetTaskRequest(id="no-such-task")),
                lambda: transport.get_task_push_notification_config(
                    pb.GetTaskPushNotificationConfigRequest(
                        task_id="no-such-task", id="c"
                    )
                ),
            ):
                with pytest.raises(errors.A2AError) as error:
                    await call()
                caught.append(type(error.value))
        return caught

    assert asyncio.run(asyncio.wait_for(scenario(), 60)) == [
        errors.TaskNotFoundError,
        errors.TaskNotFoundError,
    ]
    # the agent's ErrorInfo, as HTTP+JSON and JSON-RPC put it, with the A2A reason
    rest = httpx.get(
        f"{gateway}/rest/tasks/no-such-task", headers={"A2A-Version": "1.0"}, timeout=20
    )
    assert rest.status_code == 404
    [info] = [
        d
        for d in rest.json()["error"]["details"]
        if d["@type"].endswith("google.rpc.ErrorInfo")
    ]
    assert (info["reason"], info["domain"]) == ("TASK_NOT_FOUND", "a2a-protocol.org")
    rpc = httpx.post(
        f"{gateway}/jsonrpc",
        headers={"A2A-Version": "1.0"},
        timeout=20,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "GetTask",
            "params": {"id": "no-such-task"},
        },
    )
    assert rpc.json()["error"]["code"] == -32001


@pytest.mark.parametrize("kind", ["JSONRPC", "HTTP+JSON"])
def test_client_factory_reads_the_gateways_card_and_dials_it(
    gateway: str, kind: str
) -> None:
    answer = httpx.get(f"{gateway}/.well-known/agent-card.json", timeout=20)
    card = json_format.ParseDict(
        answer.json(), pb.AgentCard(), ignore_unknown_fields=True
    )
    assert [i.url for i in card.supported_interfaces] == [
        f"{gateway}/jsonrpc",
        f"{gateway}/rest",
    ]

    async def scenario() -> list[str]:
        async with httpx.AsyncClient(timeout=20) as http:
            client = ClientFactory(
                ClientConfig(
                    streaming=True,
                    supported_protocol_bindings=[kind],
                    httpx_client=http,
                )
            ).create(card)
            try:
                return [
                    e.WhichOneof("payload")
                    async for e in client.send_message(
                        pb.SendMessageRequest(message=_message("via the card"))
                    )
                ]
            finally:
                await client.close()

    kinds = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert kinds[0] == "task" and kinds[-1] == "status_update"


def test_the_callers_deadline_reaches_the_agent(agent: SdkAgent, gateway: str) -> None:
    """``grpc-timeout`` (as grpc-gateway reads it) bounds the call; a malformed one is a
    400 naming the header, and the agent is not called."""
    agent.executor.seen.clear()
    agent.executor.cancelled.clear()
    body = {
        "message": {
            "messageId": "d1",
            "role": "ROLE_USER",
            "parts": [{"text": "slow"}],
        },
        "configuration": {"returnImmediately": False},
    }
    answer = httpx.post(
        f"{gateway}/rest/message:send",
        json=body,
        timeout=20,
        headers={"A2A-Version": "1.0", "grpc-timeout": "300m"},
    )
    assert answer.status_code == 504, answer.text
    assert 0 < agent.executor.seen[0]["time_remaining"] <= 0.5
    bad = httpx.post(
        f"{gateway}/rest/message:send",
        json=body,
        timeout=20,
        headers={"A2A-Version": "1.0", "grpc-timeout": "soon"},
    )
    assert (
        bad.status_code == 400
        and "grpc-timeout header 'soon'" in bad.json()["error"]["message"]
    )
    assert len(agent.executor.seen) == 1


def test_what_the_agent_did_not_mean_to_publish_stays_at_the_gateway(
    gateway: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An exception in the agent (grpc sends ``Unexpected <class 'RuntimeError'>:
    ...`` as UNKNOWN) is a 500 without its text; an agent that is down a 503 without
    its address. Both are logged for the operator."""
    v1 = {"A2A-Version": "1.0"}
    with caplog.at_level(logging.ERROR, logger="a2a_binding.grpc"):
        failed = httpx.get(f"{gateway}/rest/tasks/explode", headers=v1, timeout=20)
        rpc = httpx.post(
            f"{gateway}/jsonrpc",
            headers=v1,
            timeout=20,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "GetTask",
                "params": {"id": "explode"},
            },
        )
        with socket.socket() as probe:  # a port nobody listens on
            probe.bind(("127.0.0.1", 0))
            dead = f"127.0.0.1:{probe.getsockname()[1]}"
        with running(Gateway(dead, timeout=20)) as nowhere:
            down = httpx.get(f"{nowhere}/rest/tasks/t", headers=v1, timeout=20)
    assert failed.status_code == 500, failed.text
    assert failed.json()["error"]["message"] == "internal error"
    assert rpc.json()["error"] == {"code": -32000, "message": "internal error"}
    assert down.status_code == 503, down.text
    assert down.json()["error"]["message"] == "the service is unavailable"
    for answer in (failed, rpc, down):
        assert SECRET not in answer.text and "127.0.0.1" not in answer.text
        assert "10.9.8.7" not in answer.text
    assert f"GetTask failed: UNKNOWN Unexpected <class 'RuntimeError'>: {SECRET}" in (
        caplog.text
    )
    assert f"GetTask failed: UNAVAILABLE" in caplog.text and dead in caplog.text


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("Authorization", b"Bearer caf\xc3\xa9"),
        ("Authorization", b"Bearer \x80"),
        ("A2A-Extensions", b"https://example.test/\xff"),
    ],
)
@pytest.mark.parametrize("kind", ["rest", "jsonrpc"])
def test_a_header_grpc_cannot_carry_is_a_400_naming_it(
    agent: SdkAgent, gateway: str, kind: str, header: str, value: bytes
) -> None:
    agent.executor.seen.clear()
    headers = {b"A2A-Version": b"1.0", header.encode(): value}
    message = {"messageId": "h1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    if kind == "rest":
        answer = httpx.post(
            f"{gateway}/rest/message:send",
            json={"message": message},
            headers=headers,
            timeout=20,
        )
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert error["status"] == "INVALID_ARGUMENT"
    else:
        answer = httpx.post(
            f"{gateway}/jsonrpc",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "SendMessage",
                "params": {"message": message},
            },
            headers=headers,
            timeout=20,
        )
        error = answer.json()["error"]
        assert error["code"] == -32602
    assert f"the {header.lower()} header cannot be passed on" in error["message"]
    assert agent.executor.seen == []  # nothing reached the agent


def test_a_deadline_beyond_what_grpc_can_hold_still_calls_the_agent(
    agent: SdkAgent,
) -> None:
    """``grpc-timeout: 99999999H`` (11,400 years, the wire's longest) is the longest
    deadline grpc can hold (about 235 years), not an instant 504."""
    agent.executor.seen.clear()
    with running(Gateway(agent.target)) as base:  # no timeout of the gateway's own
        answer = httpx.post(
            f"{base}/rest/message:send",
            json={
                "message": {
                    "messageId": "far",
                    "role": "ROLE_USER",
                    "parts": [{"text": "hi"}],
                }
            },
            headers={"A2A-Version": "1.0", "grpc-timeout": "99999999H"},
            timeout=20,
        )
    assert answer.status_code == 200, answer.text
    assert answer.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    [call] = agent.executor.seen
    assert call["time_remaining"] > 86400 * 365  # grpc sends 27000H at most


def test_http_clients_leaving_unary_calls_cancel_the_agents_calls(
    agent: SdkAgent, gateway: str
) -> None:
    agent.executor.calls_ended.clear()

    async def leave(client: httpx.AsyncClient, number: int) -> None:
        body = {
            "message": {
                "messageId": f"leave-{number}",
                "role": "ROLE_USER",
                "parts": [{"text": "slow"}],
            },
            "configuration": {"returnImmediately": False},
        }
        with pytest.raises(httpx.ReadTimeout):  # the client gives up, and hangs up
            await client.post(
                f"{gateway}/rest/message:send",
                json=body,
                headers={"A2A-Version": "1.0"},
                timeout=0.5,
            )

    async def scenario() -> None:
        async with httpx.AsyncClient() as client:
            await asyncio.gather(*(leave(client, n) for n in range(10)))

    asyncio.run(asyncio.wait_for(scenario(), 30))
    for _ in range(40):  # "slow" takes 30 s, the gateway's deadline is 20 s: the
        if len(agent.executor.calls_ended) == 10:  # calls were cancelled
            break
        threading.Event().wait(0.05)
    assert agent.executor.calls_ended == ["slow"] * 10


def test_an_http_client_leaving_a_stream_cancels_the_agents_call(
    agent: SdkAgent, gateway: str
) -> None:
    agent.executor.cancelled.clear()
    body = {
        "message": {
            "messageId": "f1",
            "role": "ROLE_USER",
            "parts": [{"text": "stream-forever"}],
        }
    }
    with httpx.stream(
        "POST",
        f"{gateway}/rest/message:stream",
        json=body,
        timeout=20,
        headers={"A2A-Version": "1.0", "Accept": "text/event-stream"},
    ) as answer:
        assert answer.status_code == 200
        lines = answer.iter_lines()
        assert next(line for line in lines if line.startswith("data:"))
    for _ in range(200):  # the gateway cancels the gRPC call: the agent's stream ends
        if agent.executor.cancelled:
            break
        threading.Event().wait(0.05)
    assert agent.executor.cancelled == ["stream-forever"]


@pytest.mark.parametrize("tenant", ["", "acme"])
@pytest.mark.parametrize("binding", ["HTTP+JSON", "JSONRPC"])
def test_js_clients_through_the_gateway_to_sdks_grpc_agent(
    agent: SdkAgent, gateway: str, binding: str, tenant: str
) -> None:
    """@a2a-js/sdk 1.3.0's client (tests/js/client.mjs) discovers the gateway from its
    card and runs every operation; the errors keep their reasons."""
    from . import jsenv
    from .test_js_interop import AWKWARD_IDS, _run_js_client

    js_dir = jsenv.install()
    agent.executor.seen.clear()
    result = _run_js_client(
        js_dir, gateway, binding, tenant, BEARER.removeprefix("Bearer ")
    )
    assert "discovery" not in result, result["discovery"]
    assert result["transport"] == binding
    steps = result["steps"]
    ok = {name: step["ok"] for name, step in steps.items() if "ok" in step}
    failed = {
        name: step["error"]
        for name, step in steps.items()
        if "error" in step and not name.startswith(("error", "awkward task"))
    }
    assert not failed, failed
    done, held = ok["SendMessage"]["task"], ok["SendMessage hold"]["task"]
    assert (done["status"]["state"], held["status"]["state"]) == (
        "TASK_STATE_COMPLETED",
        "TASK_STATE_WORKING",
    )
    assert next(iter(ok["SendStreamingMessage"][0])) == "task"
    assert (
        ok["SendStreamingMessage"][-1]["statusUpdate"]["status"]["state"]
        == "TASK_STATE_COMPLETED"
    )
    assert ok["GetTask"]["id"] == done["id"]
    assert held["id"] in [t["id"] for t in ok["ListTasks"]["tasks"]]
    assert [e["task"]["id"] for e in ok["SubscribeToTask"]] == [held["id"]]
    assert ok["CancelTask"]["status"]["state"] == "TASK_STATE_CANCELED"
    assert ok["GetTaskPushNotificationConfig"]["id"] == "c1"
    assert ok["DeleteTaskPushNotificationConfig"].get("configs", []) == []
    assert ok["GetExtendedAgentCard"]["name"] == "sdk-agent-extended"
    for name, reason in [
        ("TaskNotFound", "TASK_NOT_FOUND"),
        ("TaskNotCancelable", "TASK_NOT_CANCELABLE"),
        ("UnsupportedOperation", "UNSUPPORTED_OPERATION"),
    ]:
        error = steps[f"error {name}"]["error"]
        assert (error["name"], error["reason"]) == (f"{name}Error", reason), error
    for awkward in AWKWARD_IDS:
        assert ok[f"awkward get {awkward}"]["id"] == awkward
        assert steps[f"awkward task {awkward}"]["error"]["name"] == "TaskNotFoundError"
    assert {s["tenant"] for s in agent.executor.seen} == {tenant}

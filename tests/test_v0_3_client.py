"""The generated client speaking A2A 0.3 (``version="0.3"``) to real 0.3 servers:
a2a-sdk 0.3.26's OWN JSON-RPC app (A2AStarletteApplication) and REST app
(A2ARESTFastAPIApplication), over a small AgentExecutor (``tests/v0_3/sdk_agent.py``),
each run in the 0.3 venv as a subprocess on loopback; and a2a-sdk 1.3.0's 0.3
adapters (``enable_v0_3_compat``) over the same executor written for 1.3.0, under
uvicorn in this process. All called over real HTTP with httpx: a 1.0 caller's requests
go out as 0.3 and every answer comes back as the 1.0 response (checked against the 1.0
schema): every 0.3 operation, streaming, resubscription, push-notification configs,
the extended card, and the errors read back as the 1.0 ``A2AError``."""

from __future__ import annotations

import asyncio
import importlib
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests import v0_3_env
from tests.servers import running

BINDINGS = {"jsonrpc": "jsonrpc", "http+json": "rest"}
SDK_0_3 = "a2a-sdk 0.3.26"
SDK_1_3 = "a2a-sdk 1.3.0's 0.3 adapter"
RESPONSE_TYPES = {
    "SendMessage": "lf.a2a.v1.SendMessageResponse",
    "SendStreamingMessage": "lf.a2a.v1.StreamResponse",
    "SubscribeToTask": "lf.a2a.v1.StreamResponse",
    "GetTask": "lf.a2a.v1.Task",
    "CancelTask": "lf.a2a.v1.Task",
    "CreateTaskPushNotificationConfig": "lf.a2a.v1.TaskPushNotificationConfig",
    "GetTaskPushNotificationConfig": "lf.a2a.v1.TaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs": "lf.a2a.v1.ListTaskPushNotificationConfigsResponse",
    "GetExtendedAgentCard": "lf.a2a.v1.AgentCard",
}


class Peer:
    """One a2a-sdk 0.3.26 server and the generated client speaking 0.3 to it."""

    def __init__(self, a2a: ModuleType, base: str, binding: str, server: str) -> None:
        self.server = server
        self.client = importlib.import_module("a2a_binding.client")
        self.messages = importlib.import_module("a2a_binding.messages")
        self.protocol = importlib.import_module("a2a_binding.protocol")
        self.base, self.binding = base, binding
        self.http = httpx.Client(timeout=30)

    def _prepare(self, rpc: str, request: dict[str, Any]) -> Any:
        return self.client.prepare(
            rpc,
            request,
            base_url=self.base + "/",
            binding=self.binding,
            version="0.3",
            dynamic=True,
        )

    def _valid(self, rpc: str, answer: dict[str, Any]) -> dict[str, Any]:
        # what comes back is valid 1.0 ProtoJSON, unchanged by 1.0 validation
        checked = self.messages.validate(RESPONSE_TYPES[rpc], answer)
        assert checked == answer
        return answer

    def call(self, rpc: str, request: dict[str, Any]) -> dict[str, Any]:
        prepared = self._prepare(rpc, request)
        assert ("A2A-Version", "0.3") in prepared.headers
        response = self.http.request(
            prepared.method,
            prepared.url,
            headers=prepared.headers,
            content=prepared.body,
        )
        answer: dict[str, Any] = self.client.read_response(
            rpc,
            response.status_code,
            response.headers.multi_items(),
            response.content,
            binding=self.binding,
            version="0.3",
        )
        if rpc in RESPONSE_TYPES and answer:
            self._valid(rpc, answer)
        return answer

    def stream(self, rpc: str, request: dict[str, Any]) -> list[dict[str, Any]]:
        prepared = self._prepare(rpc, request)
        with self.http.stream(
            prepared.method,
            prepared.url,
            headers=prepared.headers,
            content=prepared.body,
        ) as response:
            assert response.status_code == 200, response.read()
            assert self.client.is_event_stream(response.headers.multi_items())
            events = list(
                self.client.read_stream(
                    rpc, response.iter_bytes(), binding=self.binding, version="0.3"
                )
            )
        return [self._valid(rpc, event) for event in events]


@contextmanager
def sdk_1_3_compat(binding: str) -> Iterator[str]:
    """a2a-sdk 1.3.0 serving 0.3 beside 1.0 (its ``enable_v0_3_compat`` JSON-RPC
    endpoint at ``/`` and REST routes), over the executor of ``sdk_agent.py``."""
    from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_message
    from a2a.server.agent_execution import AgentExecutor
    from a2a.server.request_handlers import DefaultRequestHandlerV2
    from a2a.server.routes import create_jsonrpc_routes, create_rest_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.server.tasks.inmemory_push_notification_config_store import (
        InMemoryPushNotificationConfigStore,
    )
    from a2a.types import a2a_pb2 as pb
    from starlette.applications import Starlette

    holds: dict[str, asyncio.Event] = {}

    class Executor(AgentExecutor):
        async def execute(self, context: Any, event_queue: Any) -> None:
            text = context.get_user_input()
            if text == "message":
                reply = new_text_message("a message", context_id=context.context_id)
                await event_queue.enqueue_event(reply)
                return
            task = context.current_task or new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
            updater = TaskUpdater(event_queue, task.id, task.context_id)
            await updater.start_work()
            if text == "hold":
                held = holds.setdefault(task.id, asyncio.Event())
                try:
                    await asyncio.wait_for(held.wait(), 10)
                    return
                except asyncio.TimeoutError:
                    pass
            if text == "slow":
                await asyncio.sleep(0.7)
            await updater.add_artifact(
                [pb.Part(text=text)], artifact_id="a-1", name="echo"
            )
            await updater.complete()

        async def cancel(self, context: Any, event_queue: Any) -> None:
            holds.setdefault(context.task_id, asyncio.Event()).set()
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()

    transport = "JSONRPC" if binding == "jsonrpc" else "HTTP+JSON"
    card = pb.AgentCard(
        name="sdk-1.3-agent",
        description="a2a-sdk 1.3.0 serving 0.3",
        version="1.0.0",
        supported_interfaces=[
            pb.AgentInterface(
                url="http://agent.test/",
                protocol_binding=transport,
                protocol_version="0.3",
            )
        ],
        capabilities=pb.AgentCapabilities(
            streaming=True, push_notifications=True, extended_agent_card=True
        ),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[pb.AgentSkill(id="echo", name="echo", description="echo", tags=["t"])],
    )
    extended = pb.AgentCard()
    extended.CopyFrom(card)
    extended.name = "sdk-1.3-agent (extended)"
    handler = DefaultRequestHandlerV2(
        agent_executor=Executor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=InMemoryPushNotificationConfigStore(),
        extended_agent_card=extended,
    )
    app = Starlette(
        routes=[
            *create_jsonrpc_routes(handler, rpc_url="/", enable_v0_3_compat=True),
            *create_rest_routes(handler, enable_v0_3_compat=True),
        ]
    )
    with running(app) as base:
        yield base


PEERS = [
    (server, binding) for server in (SDK_0_3, SDK_1_3) for binding in sorted(BINDINGS)
]


@pytest.fixture(scope="module", params=PEERS, ids=[f"{s}-{b}" for s, b in PEERS])
def peer(request: pytest.FixtureRequest, a2a: ModuleType) -> Iterator[Peer]:
    server, binding = request.param
    serve = v0_3_env.sdk_agent(BINDINGS[binding]) if server == SDK_0_3 else None
    with serve or sdk_1_3_compat(binding) as base:
        yield Peer(a2a, base, binding, server)


def _message(text: str, **extra: Any) -> dict[str, Any]:
    return {
        "message": {
            "messageId": f"m-{text}-{uuid.uuid4()}",
            "role": "ROLE_USER",
            "parts": [{"text": text}],
        },
        **extra,
    }


def test_send_blocks_and_answers_the_finished_task(peer: Peer) -> None:
    answer = peer.call("SendMessage", _message("hi"))
    task = answer["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert task["artifacts"] == [
        {"artifactId": "a-1", "name": "echo", "parts": [{"text": "hi"}]}
    ]
    assert task["history"][0]["parts"] == [{"text": "hi"}]
    got = peer.call("GetTask", {"id": task["id"], "historyLength": 1})
    assert got["id"] == task["id"]
    assert got["status"]["state"] == "TASK_STATE_COMPLETED"
    assert len(got["history"]) == 1


def test_send_answers_a_message(peer: Peer) -> None:
    answer = peer.call("SendMessage", _message("message"))
    assert answer["message"]["role"] == "ROLE_AGENT"
    assert answer["message"]["parts"] == [{"text": "a message"}]


def test_stream_reads_every_event_as_1_0(peer: Peer) -> None:
    events = peer.stream("SendStreamingMessage", _message("stream me"))
    kinds = [next(iter(event)) for event in events]
    assert kinds[0] == "task"
    assert "artifactUpdate" in kinds
    last = events[-1]["statusUpdate"]
    assert last["status"]["state"] == "TASK_STATE_COMPLETED"
    assert all("final" not in e.get("statusUpdate", {}) for e in events)
    artifact = next(e["artifactUpdate"] for e in events if "artifactUpdate" in e)
    assert artifact["artifact"]["parts"] == [{"text": "stream me"}]


def test_resubscribe_follows_a_running_task(peer: Peer) -> None:
    started = peer.call(
        "SendMessage", _message("slow", configuration={"returnImmediately": True})
    )["task"]
    assert started["status"]["state"] != "TASK_STATE_COMPLETED"
    events = peer.stream("SubscribeToTask", {"id": started["id"]})
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert all(
        next(iter(e.values())).get("taskId", started["id"]) == started["id"]
        for e in events
    )


def test_cancel_and_its_errors(peer: Peer) -> None:
    started = peer.call(
        "SendMessage", _message("hold", configuration={"returnImmediately": True})
    )["task"]
    canceled = peer.call("CancelTask", {"id": started["id"]})
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
    with pytest.raises(peer.protocol.A2AError) as caught:
        peer.call("CancelTask", {"id": started["id"]})
    assert caught.value.kind.name == "TaskNotCancelableError"


def test_an_unknown_task_is_the_1_0_task_not_found_error(peer: Peer) -> None:
    for rpc in ("GetTask", "CancelTask"):
        with pytest.raises(peer.protocol.A2AError) as caught:
            peer.call(rpc, {"id": "no-such-task"})
        assert caught.value.kind.name == "TaskNotFoundError"
        assert caught.value.kind.code == -32001


def test_push_notification_configs(peer: Peer) -> None:
    task = peer.call("SendMessage", _message("hi"))["task"]
    config = {
        "taskId": task["id"],
        "id": "p-1",
        "url": "https://hook.test/a2a",
        "token": "secret",
        "authentication": {"scheme": "Bearer", "credentials": "c"},
    }
    created = peer.call("CreateTaskPushNotificationConfig", config)
    assert created == config
    got = peer.call(
        "GetTaskPushNotificationConfig", {"taskId": task["id"], "id": "p-1"}
    )
    assert got == config
    client = peer.client
    if peer.binding == "http+json":
        # neither a2a-sdk has a 0.3 REST delete route; 0.3.26 has no list either (500)
        delete = {"taskId": task["id"], "id": "p-1"}
        if peer.server == SDK_0_3:
            with pytest.raises(client.ResponseError) as failed:
                peer.call("DeleteTaskPushNotificationConfig", delete)
            assert failed.value.status in (404, 405)
        else:  # 1.3.0 routes it to its 1.0 tenant route (tenant "v1"), which refuses 0.3
            with pytest.raises(peer.protocol.A2AError) as refused:
                peer.call("DeleteTaskPushNotificationConfig", delete)
            assert refused.value.kind.name == "VersionNotSupportedError"
        if peer.server == SDK_0_3:
            with pytest.raises(client.ResponseError) as failed:
                peer.call("ListTaskPushNotificationConfigs", {"taskId": task["id"]})
            assert failed.value.status == 500
        else:
            listed = peer.call(
                "ListTaskPushNotificationConfigs", {"taskId": task["id"]}
            )
            assert listed == {"configs": [config]}
        return
    listed = peer.call("ListTaskPushNotificationConfigs", {"taskId": task["id"]})
    assert listed == {"configs": [config]}
    deleted = peer.call(
        "DeleteTaskPushNotificationConfig", {"taskId": task["id"], "id": "p-1"}
    )
    assert deleted == {}
    assert peer.call("ListTaskPushNotificationConfigs", {"taskId": task["id"]}) == {
        "configs": []
    }


def test_the_extended_card_reads_as_a_1_0_card(peer: Peer) -> None:
    card = peer.call("GetExtendedAgentCard", {})
    name = "sdk-0.3-agent" if peer.server == SDK_0_3 else "sdk-1.3-agent"
    assert card["name"] == f"{name} (extended)"
    assert card["capabilities"]["extendedAgentCard"] is True
    (interface,) = card["supportedInterfaces"]
    if peer.server == SDK_0_3:
        assert interface["url"] == peer.base + "/"
        assert interface["protocolVersion"] == "0.3.0"
    else:
        assert interface == {
            "url": "http://agent.test/",
            "protocolBinding": interface["protocolBinding"],
            "protocolVersion": "0.3",
        }
    expected = "JSONRPC" if peer.binding == "jsonrpc" else "HTTP+JSON"
    assert interface["protocolBinding"] == expected
    assert card["skills"][0]["id"] == "echo"


def test_what_0_3_cannot_say_is_refused_before_sending(peer: Peer) -> None:
    with pytest.raises(ValueError, match="ListTasks: A2A 0.3 has no such operation"):
        peer.call("ListTasks", {})
    with pytest.raises(ValueError, match="A2A 0.3 has no tenants"):
        peer.client.prepare(
            "GetTask",
            {"id": "t", "tenant": "x"},
            base_url=peer.base,
            binding=peer.binding,
            version="0.3",
        )

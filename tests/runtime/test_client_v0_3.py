"""The client helpers speaking A2A 0.3 (``version="0.3"`` of
``codegen/runtime/client/_client.py``), over the committed package's tables (its ``v0_3``
route table included): what goes out for each binding, and every answer form a 0.3
server sends read back as 1.0 (a2a-sdk 0.3's ``{"message"}`` errors, a
``google.rpc.Status``, JSON-RPC results of any type, event streams). The same helpers
against a2a-sdk 0.3.26's real servers: ``tests/test_v0_3_client.py``."""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest

from codegen.runtime._client import ClientBinding, ResponseError
from codegen.runtime._errors import A2AError
from codegen.runtime._jsonrpc import JsonRpcError

BASE = "http://agent.test/a2a/"
TASK_03 = {"kind": "task", "id": "t1", "contextId": "c", "status": {"state": "working"}}
TASK_10 = {"id": "t1", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}


def _binding(a2a: ModuleType, package: str | None) -> ClientBinding:
    protocol = importlib.import_module("a2a_binding.protocol")
    return ClientBinding(
        build=a2a.routes.build,
        jsonrpc_request=a2a.jsonrpc.request,
        headers=protocol.request_headers,
        methods=a2a.jsonrpc.METHODS,
        schema=a2a.messages.SCHEMA,
        package=package,
        protocol_version=protocol.PROTOCOL_VERSION,
    )


@pytest.fixture(scope="module")
def client(a2a: ModuleType) -> ClientBinding:
    return _binding(a2a, "a2a_binding")


def test_http_json_requests_go_to_the_0_3_routes(client: ClientBinding) -> None:
    prepared = client.prepare(
        "SendMessage",
        {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
        base_url=BASE,
        extensions=["urn:a"],
        validate=True,
        version="0.3",
    )
    assert (prepared.method, prepared.url) == ("POST", BASE + "v1/message:send")
    assert prepared.headers == [
        ("A2A-Version", "0.3"),
        ("Content-Type", "application/json"),
        ("A2A-Extensions", "urn:a"),
        ("X-A2A-Extensions", "urn:a"),
    ]
    assert json.loads(prepared.body or b"") == {
        "message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "hi"}]},
        "configuration": {"blocking": True},
    }
    got = client.prepare(
        "GetTask", {"id": "a b", "historyLength": 2}, base_url=BASE, version="0.3"
    )
    assert (got.method, got.url, got.body) == (
        "GET",
        BASE + "v1/tasks/a%20b?historyLength=2",
        None,
    )
    subscribe = client.prepare(
        "SubscribeToTask", {"id": "t"}, base_url=BASE, version="0.3"
    )
    assert (subscribe.method, subscribe.url) == ("GET", BASE + "v1/tasks/t:subscribe")
    assert ("Accept", "text/event-stream") in subscribe.headers
    create = client.prepare(
        "CreateTaskPushNotificationConfig",
        {"taskId": "t", "id": "p", "url": "https://h/"},
        base_url=BASE,
        version="0.3",
    )
    assert create.url == BASE + "v1/tasks/t/pushNotificationConfigs"
    assert json.loads(create.body or b"") == {
        "parent": "tasks/t/pushNotificationConfigs",
        "configId": "p",
        "config": {
            "name": "tasks/t/pushNotificationConfigs/p",
            "pushNotificationConfig": {"id": "p", "url": "https://h/"},
        },
    }


def test_jsonrpc_requests_use_the_0_3_methods(client: ClientBinding) -> None:
    prepared = client.prepare(
        "GetTaskPushNotificationConfig",
        {"taskId": "t", "id": "p"},
        base_url=BASE,
        binding="jsonrpc",
        id=7,
        version="0.3",
    )
    assert (prepared.method, prepared.url) == ("POST", BASE)
    assert json.loads(prepared.body or b"") == {
        "jsonrpc": "2.0",
        "method": "tasks/pushNotificationConfig/get",
        "id": 7,
        "params": {"id": "t", "pushNotificationConfigId": "p"},
    }
    card = client.prepare(
        "GetExtendedAgentCard", {}, base_url=BASE, binding="jsonrpc", version="0.3"
    )
    envelope = json.loads(card.body or b"")
    assert envelope["method"] == "agent/getAuthenticatedExtendedCard"
    assert "params" not in envelope and isinstance(envelope["id"], str)


@pytest.mark.parametrize(
    ("rpc", "request_", "field"),
    [
        ("GetTask", {"id": "a/b"}, "id"),
        ("CancelTask", {"id": "a/b"}, "id"),
        ("SubscribeToTask", {"id": "a/b"}, "id"),
        ("GetTaskPushNotificationConfig", {"taskId": "t", "id": "c/1"}, "id"),
        ("DeleteTaskPushNotificationConfig", {"taskId": "a/b", "id": "c"}, "taskId"),
        ("ListTaskPushNotificationConfigs", {"taskId": "a/b"}, "taskId"),
        (
            "CreateTaskPushNotificationConfig",
            {"taskId": "a/b", "url": "https://x.test/h"},
            "taskId",
        ),
    ],
)
def test_an_id_with_a_slash_is_refused_over_0_3_rest_and_sent_over_0_3_jsonrpc(
    client: ClientBinding, rpc: str, request_: dict[str, Any], field: str
) -> None:
    # 0.3's HTTP+JSON names tasks by resource names (tasks/{id}): no id with "/"
    with pytest.raises(ValueError, match=f"{field} .*resource names"):
        client.prepare(rpc, request_, base_url=BASE, version="0.3")  # type: ignore[call-overload]
    sent = client.prepare(  # type: ignore[call-overload]
        rpc, request_, base_url=BASE, binding="jsonrpc", version="0.3"
    )
    assert "a/b" in (sent.body or b"").decode() or "c/1" in (sent.body or b"").decode()
    # 1.0 escapes it in the path
    assert "%2F" in client.prepare(rpc, request_, base_url=BASE).url  # type: ignore[call-overload]


def test_what_0_3_cannot_carry_is_refused(
    client: ClientBinding, a2a: ModuleType
) -> None:
    for binding in ("http+json", "jsonrpc"):
        with pytest.raises(ValueError, match="ListTasks: A2A 0.3 has no such"):
            client.prepare(
                "ListTasks", {}, base_url=BASE, binding=binding, version="0.3"  # type: ignore[arg-type]
            )
    with pytest.raises(ValueError, match="no tenants"):
        client.prepare("GetTask", {"id": "t"}, base_url=BASE, tenant="x", version="0.3")
    with pytest.raises(ValueError, match="no tenants"):
        client.prepare(
            "GetTask", {"id": "t", "tenant": "x"}, base_url=BASE, version="0.3"
        )
    with pytest.raises(ValueError, match="binding must be"):
        client.prepare("GetTask", {"id": "t"}, base_url=BASE, binding="grpc", version="0.3")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="version must be None .*'1.0', or '0.3'"):
        client.prepare("GetTask", {"id": "t"}, base_url=BASE, version="0.2")
    said = client.prepare("GetTask", {"id": "t"}, base_url=BASE, version="1.0")
    assert said == client.prepare("GetTask", {"id": "t"}, base_url=BASE)
    with pytest.raises(ValueError, match="version must be None"):
        client.read_response("GetTask", 200, [], b"{}", version="2")
    with pytest.raises(ValueError, match="no A2A 0.3 tables"):
        _binding(a2a, None).prepare(
            "GetTask", {"id": "t"}, base_url=BASE, version="0.3"
        )
    with pytest.raises(ValueError, match="generated without the A2A 0.3 proto"):
        _binding(a2a, "a2a_binding.routes").prepare(
            "GetTask", {"id": "t"}, base_url=BASE, version="0.3"
        )
    # JSON-RPC needs no route table
    assert (
        _binding(a2a, None)
        .prepare(
            "GetTask", {"id": "t"}, base_url=BASE, binding="jsonrpc", version="0.3"
        )
        .body
    )


def _rpc(result: Any, **extra: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": result, **extra}).encode()


def test_jsonrpc_answers_read_back_as_1_0(client: ClientBinding) -> None:
    def read(rpc: str, body: bytes) -> Any:
        return client.read_response(
            rpc, 200, [], body, binding="jsonrpc", version="0.3"
        )

    assert read("GetTask", _rpc(TASK_03)) == TASK_10
    assert read("SendMessage", _rpc(TASK_03)) == {"task": TASK_10}
    listed = [{"taskId": "t", "pushNotificationConfig": {"id": "p", "url": "u"}}]
    assert read("ListTaskPushNotificationConfigs", _rpc(listed)) == {
        "configs": [{"taskId": "t", "id": "p", "url": "u"}]
    }
    assert read("DeleteTaskPushNotificationConfig", _rpc(None)) == {}
    # a2a-sdk 0.3 leaves a null result out
    assert read("DeleteTaskPushNotificationConfig", b'{"jsonrpc":"2.0","id":1}') == {}
    error = (
        b'{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}'
    )
    with pytest.raises(A2AError) as caught:
        read("GetTask", error)
    assert caught.value.kind.name == "TaskNotFoundError"
    with pytest.raises(JsonRpcError) as other:
        read(
            "GetTask", b'{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}'
        )
    assert other.value.code == -32602
    with pytest.raises(
        ResponseError, match=r"the A2A 0.3 answer to GetTask: result.kind"
    ):
        read("GetTask", _rpc({"kind": "message"}))


def test_http_json_answers_read_back_as_1_0(client: ClientBinding) -> None:
    def read(rpc: str, status: int, body: Any) -> Any:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return client.read_response(rpc, status, [], raw, version="0.3")

    rest_task = {"id": "t1", "status": {"state": "TASK_STATE_CANCELLED"}}
    canceled = {"id": "t1", "status": {"state": "TASK_STATE_CANCELED"}}
    assert read("CancelTask", 200, rest_task) == canceled
    assert read("SendMessage", 200, {"task": rest_task}) == {"task": canceled}
    assert read("DeleteTaskPushNotificationConfig", 204, b"") == {}
    with pytest.raises(ResponseError, match="response.status.state"):
        read("GetTask", 200, {"status": {"state": "working"}})
    # a2a-sdk 0.3's error form, by its status
    for status, name in ((404, "TaskNotFoundError"), (409, "TaskNotCancelableError")):
        with pytest.raises(A2AError) as caught:
            read("GetTask", status, {"message": "nope"})
        assert (caught.value.kind.name, caught.value.message) == (name, "nope")
    # a google.rpc.Status (a2a-sdk 1.3.0's 0.3 adapter, this package's server)
    status_body = A2AError("TaskNotFoundError", "gone").to_http()[1]
    with pytest.raises(A2AError) as caught:
        read("GetTask", 404, status_body)
    assert caught.value.message == "gone"
    for status, body in (
        (500, {"message": "unknown exception"}),
        (404, {"detail": "x"}),
    ):
        with pytest.raises(ResponseError) as failed:
            read("GetTask", status, body)
        assert not isinstance(failed.value, A2AError) and failed.value.status == status
    with pytest.raises(ResponseError):
        read("GetTask", 404, {"message": 3})


def _sse(*payloads: Any) -> list[bytes]:
    return [f"data: {json.dumps(p)}\n\n".encode() for p in payloads]


def test_streams_read_back_as_1_0(client: ClientBinding) -> None:
    update = {
        "kind": "status-update",
        "taskId": "t1",
        "contextId": "c",
        "status": {"state": "completed"},
        "final": True,
    }
    events = list(
        client.read_stream(
            "SubscribeToTask",
            _sse(
                {"jsonrpc": "2.0", "id": 1, "result": TASK_03},
                {"jsonrpc": "2.0", "id": 1, "result": update},
            ),
            binding="jsonrpc",
            version="0.3",
        )
    )
    assert events == [
        {"task": TASK_10},
        {
            "statusUpdate": {
                "taskId": "t1",
                "contextId": "c",
                "status": {"state": "TASK_STATE_COMPLETED"},
            }
        },
    ]
    rest_events = _sse(
        {"statusUpdate": {"taskId": "t1", "status": {"state": 3}, "final": True}}
    )

    async def chunks() -> AsyncIterator[bytes]:
        for chunk in rest_events:
            yield chunk

    async def collect() -> list[dict[str, Any]]:
        stream = client.aread_stream("SendStreamingMessage", chunks(), version="0.3")
        return [event async for event in stream]

    assert asyncio.run(collect()) == [
        {"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED"}}}
    ]
    with pytest.raises(ResponseError, match="event"):
        list(client.read_stream("SendStreamingMessage", _sse([1]), version="0.3"))
    error = A2AError("TaskNotFoundError", "gone").to_http()[1]
    with pytest.raises(A2AError):
        list(client.read_stream("SubscribeToTask", _sse(error), version="0.3"))

"""Generated jsonrpc.py: the method map, envelope checks, tenants, and the real a2a-sdk."""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import Any

import httpx
import pytest

from .conftest import GENERATED
from .test_routes import A2A_RPCS


def test_methods_cover_every_rpc_and_share_the_route_objects(a2a: ModuleType) -> None:
    methods = a2a.jsonrpc.METHODS
    assert sorted(methods) == sorted(A2A_RPCS)
    for name, method in methods.items():
        assert method.name == name
        assert method.routes and all(route.rpc == name for route in method.routes)
        assert all(
            any(route is r for r in a2a.routes.ROUTES) for route in method.routes
        )
        assert {r.request_type for r in method.routes} == {method.request_type}
        # every route of the rpc, in table order: linked by name, not by position
        assert method.routes == tuple(r for r in a2a.routes.ROUTES if r.rpc == name)
    assert "ROUTES[" not in (GENERATED / "a2a_binding" / "jsonrpc.py").read_text()
    assert a2a.jsonrpc.STREAMING_METHODS == {"SendStreamingMessage", "SubscribeToTask"}
    assert (
        methods["CreateTaskPushNotificationConfig"].request_type
        == "lf.a2a.v1.TaskPushNotificationConfig"
    )
    with pytest.raises(TypeError):
        methods["X"] = methods["GetTask"]  # read-only


def test_request_types_are_the_sdk_classes_for_each_method(a2a: ModuleType) -> None:
    from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher

    sdk = JsonRpcDispatcher.METHOD_TO_MODEL
    assert set(sdk) == set(a2a.jsonrpc.METHODS)
    for name, model in sdk.items():
        assert (
            a2a.jsonrpc.METHODS[name].request_type == model.DESCRIPTOR.full_name
        ), name


def test_a2a_error_codes_agree_with_the_sdk(a2a: ModuleType) -> None:
    from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP

    sdk = {error.__name__: code for error, code in JSON_RPC_ERROR_CODE_MAP.items()}
    for name, kind in a2a.jsonrpc.A2A_ERRORS.items():
        assert sdk[name] == kind.code, name
    assert a2a.jsonrpc.A2A_ERRORS["TaskNotFoundError"].http_status == 404
    assert a2a.jsonrpc.A2A_ERRORS["InvalidAgentResponseError"].http_status == 500
    status = a2a.jsonrpc.A2A_ERRORS["TaskNotCancelableError"].status("done already")
    assert (status["code"], status["status"], status["message"]) == (
        400,
        "FAILED_PRECONDITION",
        "done already",
    )
    assert status["details"][0] == {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "TASK_NOT_CANCELABLE",
        "domain": "a2a-protocol.org",
    }
    assert (sdk["InvalidParamsError"], sdk["MethodNotFoundError"]) == (
        a2a.jsonrpc.INVALID_PARAMS,
        a2a.jsonrpc.METHOD_NOT_FOUND,
    )


def _env(**fields: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", **fields})


@pytest.mark.parametrize(
    ("payload", "code", "message", "request_id"),
    [
        (b"\xff{", -32700, "not UTF-8", None),
        ("{", -32700, "Parse error", None),
        ("", -32700, "Parse error", None),
        (
            '{"jsonrpc": "2.0", "id": NaN, "method": "GetTask"}',
            -32700,
            "NaN is not JSON",
            None,
        ),
        (
            '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"x": Infinity}}',
            -32700,
            "Infinity",
            None,
        ),
        ("[" * 100_000 + "]" * 100_000, -32700, "nested too deeply", None),
        ('{"a":' * 100_000 + "1" + "}" * 100_000, -32700, "nested too deeply", None),
        ("[]", -32600, "batch requests are not supported by A2A", None),
        ('[{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}]', -32600, "batch", None),
        ("1", -32600, "must be a JSON object", None),
        ('"x"', -32600, "must be a JSON object", None),
        # The id could be read, so the answer echoes it (JSON-RPC 2.0 §5: null only when
        # the id cannot be determined).
        (
            '{"id": 1, "method": "GetTask"}',
            -32600,
            '"jsonrpc" must be exactly "2.0"',
            1,
        ),
        (
            '{"jsonrpc": "1.0", "id": 7, "method": "SendMessage"}',
            -32600,
            '"jsonrpc"',
            7,
        ),
        ('{"jsonrpc": 2.0, "id": "x", "method": "GetTask"}', -32600, '"jsonrpc"', "x"),
        (
            '{"jsonrpc": "1.0", "id": [1], "method": "GetTask"}',
            -32600,
            "id must be",
            None,
        ),
        (_env(id=True, method="GetTask"), -32600, "id must be", None),
        (_env(id=1.5, method="GetTask"), -32600, "id must be", None),
        (_env(id=[1], method="GetTask"), -32600, "id must be", None),
        (_env(id={"a": 1}, method="GetTask"), -32600, "id must be", None),
        (_env(id=7), -32600, '"method" must be a string', 7),
        (_env(id=7, method=5), -32600, '"method" must be a string', 7),
        (
            _env(id="a", method="GetTask", params="x"),
            -32600,
            '"params" must be an object or an array',
            "a",
        ),
        (_env(id="a", method="GetTask", params=None), -32600, '"params"', "a"),
        (_env(id="a", method="getTask"), -32601, "Method not found: getTask", "a"),
        (_env(id="a", method="tasks/get"), -32601, "Method not found", "a"),
        (
            _env(id="a", method="Nope", params=[1]),
            -32601,
            "Method not found",
            "a",
        ),  # method before params
        (
            _env(id="a", method="GetTask", params=[{"id": "x"}]),
            -32602,
            "takes an object, not an array",
            "a",
        ),
    ],
)
def test_parse_request_errors(
    a2a: ModuleType, payload: Any, code: int, message: str, request_id: Any
) -> None:
    with pytest.raises(a2a.jsonrpc.JsonRpcError) as info:
        a2a.jsonrpc.parse_request(payload)
    assert info.value.code == code
    assert message in info.value.message
    assert info.value.id == request_id
    assert a2a.jsonrpc.failure(info.value.id, info.value)["error"]["code"] == code


def test_parse_request_accepts(a2a: ModuleType) -> None:
    parse = a2a.jsonrpc.parse_request
    request = parse(_env(id="r1", method="GetTask", params={"id": "t"}).encode())
    assert (request.id, request.method, request.params, request.notification) == (
        "r1",
        "GetTask",
        {"id": "t"},
        False,
    )
    assert parse(_env(id=None, method="GetTask")).params == {}
    assert parse(_env(id=0, method="ListTasks")).id == 0
    assert parse(_env(id=3.0, method="ListTasks")).id == 3.0
    notification = parse({"jsonrpc": "2.0", "method": "SendMessage", "params": {}})
    assert notification.notification and notification.id is None
    assert parse(_env(id=1, method="SubscribeToTask")).streaming
    assert not parse(_env(id=1, method="GetTask")).streaming


def test_parse_request_with_endpoint_tenant(a2a: ModuleType) -> None:
    parse = a2a.jsonrpc.parse_request
    assert parse(
        _env(id=1, method="GetTask", params={"id": "t"}), tenant="t1"
    ).params == {"id": "t", "tenant": "t1"}
    assert parse(
        _env(id=1, method="GetTask", params={"tenant": "t1"}), tenant="t1"
    ).params == {"tenant": "t1"}
    assert parse(
        _env(id=1, method="GetTask", params={"tenant": ""}), tenant="t1"
    ).params == {"tenant": "t1"}
    assert parse(
        _env(id=1, method="GetTask", params={"tenant": "t2"}), tenant=""
    ).params == {"tenant": "t2"}
    with pytest.raises(a2a.jsonrpc.JsonRpcError) as info:
        parse(_env(id=1, method="GetTask", params={"tenant": "t2"}), tenant="t1")
    assert info.value.code == -32602 and info.value.id == 1


@pytest.mark.parametrize(
    ("path", "base", "tenant"),
    [
        ("/", "/", ""),
        ("/tenant1", "/", "tenant1"),
        ("/tenant1/", "/", "tenant1"),
        ("/t%201", "/", "t 1"),
        ("/t%2F1", "/", "t/1"),
        ("/a2a", "/a2a", ""),
        ("/a2a/", "/a2a/", ""),
        ("/a2a/t1", "/a2a", "t1"),
        ("/a2a/t1/", "a2a", "t1"),
        ("/t1/x", "/", None),
        ("//", "/", None),
        ("", "/", None),
        ("t1", "/", None),
        ("/a2ax", "/a2a", None),
        ("/other/t1", "/a2a", None),
        ("/t%zz", "/", None),
        ("/t%FF", "/", None),
    ],
)
def test_endpoint_tenant(
    a2a: ModuleType, path: str, base: str, tenant: str | None
) -> None:
    assert a2a.jsonrpc.endpoint_tenant(path, base) == tenant


def test_client_request_helper(a2a: ModuleType) -> None:
    request = a2a.jsonrpc.request
    assert request("GetTask", {"id": "x"}, "1") == (
        "/",
        {"jsonrpc": "2.0", "id": "1", "method": "GetTask", "params": {"id": "x"}},
    )
    path, envelope = request("GetTask", {"id": "x"}, 2, tenant="t/1")
    assert path == "/" and envelope["params"] == {"id": "x", "tenant": "t/1"}
    path, envelope = request(
        "GetTask",
        {"id": "x", "tenant": "t/1"},
        2,
        tenant="t/1",
        tenant_in_path=True,
        base="/a2a",
    )
    assert path == "/a2a/t%2F1" and envelope["params"] == {"id": "x"}
    # What the client sends, the server reads back the same.
    assert a2a.jsonrpc.endpoint_tenant(path, "/a2a") == "t/1"
    assert a2a.jsonrpc.parse_request(envelope, tenant="t/1").params == {
        "id": "x",
        "tenant": "t/1",
    }
    with pytest.raises(ValueError, match="unknown method"):
        request("Nope", {}, 1)
    with pytest.raises(ValueError, match="differs"):
        request("GetTask", {"tenant": "a"}, 1, tenant="b")


def test_envelopes_and_sse(a2a: ModuleType) -> None:
    jsonrpc = a2a.jsonrpc
    assert jsonrpc.success(1, {"ok": True}) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"ok": True},
    }
    error = jsonrpc.JsonRpcError(-32001, "Task not found", {"taskId": "x"})
    assert jsonrpc.failure("a", error) == {
        "jsonrpc": "2.0",
        "id": "a",
        "error": {"code": -32001, "message": "Task not found", "data": {"taskId": "x"}},
    }
    assert jsonrpc.JsonRpcError(-32603, "boom").to_dict() == {
        "code": -32603,
        "message": "boom",
    }
    event = jsonrpc.sse_event(
        jsonrpc.success("1", {"text": "a\nb \u00e9"}), event_id="0"
    )
    assert (
        event
        == 'id: 0\ndata: {"jsonrpc":"2.0","id":"1","result":{"text":"a\\nb \u00e9"}}\n\n'.encode()
    )
    assert event.count(b"\n") == 3


def test_agent_card_from_the_jsonrpc_module_too(a2a: ModuleType) -> None:
    assert a2a.jsonrpc.AGENT_CARD_PATH == "/.well-known/agent-card.json"
    assert a2a.jsonrpc.agent_card_tenant("/t1/.well-known/agent-card.json") == "t1"


# --- the payloads the real a2a-sdk JSON-RPC client sends ----------------------------------


def _sdk_payloads() -> dict[str, dict[str, Any]]:
    """Drive a2a-sdk's JsonRpcTransport for all 11 methods and record what it posts."""
    from a2a.client.transports.jsonrpc import JsonRpcTransport
    from a2a.types import a2a_pb2 as pb

    sent: dict[str, dict[str, Any]] = {}

    def record(request: httpx.Request) -> httpx.Response:
        payload = json.loads(request.content)
        sent[payload["method"]] = payload
        return httpx.Response(
            400,
            json={
                "jsonrpc": "2.0",
                "id": payload["id"],
                "error": {"code": -32603, "message": "x"},
            },
        )

    card = pb.AgentCard(name="a")
    card.capabilities.extended_agent_card = True
    calls = [
        (
            "send_message",
            pb.SendMessageRequest(
                message=pb.Message(message_id="m", role=pb.ROLE_USER), tenant="t1"
            ),
        ),
        (
            "send_message_streaming",
            pb.SendMessageRequest(message=pb.Message(message_id="m")),
        ),
        ("get_task", pb.GetTaskRequest(id="a/b", history_length=0)),
        ("list_tasks", pb.ListTasksRequest(status=pb.TASK_STATE_WORKING, page_size=5)),
        ("cancel_task", pb.CancelTaskRequest(id="x")),
        (
            "create_task_push_notification_config",
            pb.TaskPushNotificationConfig(task_id="t", url="https://u"),
        ),
        (
            "get_task_push_notification_config",
            pb.GetTaskPushNotificationConfigRequest(task_id="t", id="c"),
        ),
        (
            "list_task_push_notification_configs",
            pb.ListTaskPushNotificationConfigsRequest(task_id="t"),
        ),
        (
            "delete_task_push_notification_config",
            pb.DeleteTaskPushNotificationConfigRequest(task_id="t", id="c"),
        ),
        ("subscribe", pb.SubscribeToTaskRequest(id="x")),
        ("get_extended_agent_card", pb.GetExtendedAgentCardRequest()),
    ]

    async def drive() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(record)) as client:
            transport = JsonRpcTransport(client, card, "http://agent.test/a2a")
            for name, message in calls:
                try:
                    result = getattr(transport, name)(message)
                    if hasattr(result, "__aiter__"):
                        async for _ in result:
                            pass
                    else:
                        await result
                except Exception:
                    pass  # the recorded request is what matters, not the canned answer

    asyncio.run(drive())
    return sent


def test_parse_request_reads_every_sdk_client_payload(a2a: ModuleType) -> None:
    from google.protobuf import json_format
    from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher

    sent = _sdk_payloads()
    assert sorted(sent) == sorted(A2A_RPCS)
    for method, payload in sent.items():
        request = a2a.jsonrpc.parse_request(json.dumps(payload).encode())
        assert request.method == method and request.id == payload["id"]
        assert request.params == payload["params"]
        model = JsonRpcDispatcher.METHOD_TO_MODEL[method]
        json_format.ParseDict(request.params, model())  # the params are that message
    assert sent["GetTask"]["params"] == {"id": "a/b", "historyLength": 0}

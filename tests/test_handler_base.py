"""A handler that writes only the rpcs it has: the generated handler class gives every
rpc a body that refuses it, so an rpc its subclass lacks is answered A2A's
``UnsupportedOperationError`` (HTTP+JSON 400, reason ``UNSUPPORTED_OPERATION``;
JSON-RPC -32004; gRPC as the spec's error table says), or ``UNIMPLEMENTED`` for a
service without the A2A profile (HTTP 501), never 200 with an empty body; and a class
that does not subclass it still gets the ``TypeError`` naming what it lacks. Over the
committed ``generated/a2a_binding`` (the app in process, and a real ``grpc.aio`` server
on loopback with a2a-sdk's message classes) and a package of ``tenancy.proto``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from typing import Any

import grpc
import grpc.aio
import httpx
import pytest
from a2a.types import a2a_pb2 as pb
from google.protobuf import json_format

from .conftest import GENERATED, PROTO

sys.path.insert(0, str(GENERATED))
try:
    from a2a_binding import asgi, grpc_binding, messages
    from a2a_binding.handler import A2AServiceHandler, CallContext
finally:
    sys.path.remove(str(GENERATED))

V1 = {"A2A-Version": "1.0"}
SEND = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}


class TasksOnly(A2AServiceHandler):
    """An agent that has GetTask and nothing else."""

    async def get_task(
        self, request: messages.GetTaskRequest, context: CallContext
    ) -> messages.Task:
        return {
            "id": request["id"],
            "contextId": "c",
            "status": {"state": "TASK_STATE_WORKING"},
        }


def _client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://agent"
    )


def _app(handler: Any) -> Any:
    return asgi.create_app(
        handler,
        agent_card={"name": "tasks-only"},
        http_json_prefix="",
        jsonrpc_path="/jsonrpc",
    )


def test_an_rpc_the_subclass_lacks_is_refused_on_http_json_and_json_rpc() -> None:
    async def scenario() -> None:
        async with _client(_app(TasksOnly())) as http:
            found = await http.get("/tasks/t1", headers=V1)
            assert found.status_code == 200
            assert found.json()["id"] == "t1"
            for path in ("/message:send", "/message:stream"):
                refused = await http.post(path, json=SEND, headers=V1)
                assert refused.status_code == 400, (path, refused.text)
                status = refused.json()["error"]
                assert status["status"] == "FAILED_PRECONDITION"
                assert status["details"][0]["reason"] == "UNSUPPORTED_OPERATION"
                assert "is not supported by this agent" in status["message"]
            listed = await http.get("/tasks", headers=V1)
            assert listed.status_code == 400, listed.text
            for method in ("SendMessage", "SendStreamingMessage", "CancelTask"):
                params = SEND if method.startswith("Send") else {"id": "t1"}
                answer = await http.post(
                    "/jsonrpc",
                    json={
                        "jsonrpc": "2.0",
                        "id": 7,
                        "method": method,
                        "params": params,
                    },
                    headers=V1,
                )
                body = answer.json()
                if "text/event-stream" in answer.headers.get("content-type", ""):
                    body = _first_event(answer.text)
                assert body["error"]["code"] == -32004, (method, body)
                assert body["id"] == 7

    asyncio.run(scenario())


def _first_event(text: str) -> Any:
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[0])


def test_an_rpc_the_subclass_lacks_is_refused_over_grpc() -> None:
    async def scenario() -> None:
        server = grpc.aio.server()
        grpc_binding.add_to_server(TasksOnly(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                metadata = (("a2a-version", "1.0"),)
                get = channel.unary_unary(
                    "/lf.a2a.v1.A2AService/GetTask",
                    request_serializer=pb.GetTaskRequest.SerializeToString,
                    response_deserializer=pb.Task.FromString,
                )
                task = await get(pb.GetTaskRequest(id="t1"), metadata=metadata)
                assert task.id == "t1"
                send = channel.unary_unary(
                    "/lf.a2a.v1.A2AService/SendMessage",
                    request_serializer=pb.SendMessageRequest.SerializeToString,
                    response_deserializer=pb.SendMessageResponse.FromString,
                )
                request = json_format.ParseDict(SEND, pb.SendMessageRequest())
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await send(request, metadata=metadata)
                assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
                assert "is not supported by this agent" in (
                    refused.value.details() or ""
                )
        finally:
            await server.stop(None)

    asyncio.run(scenario())


def test_a_class_that_does_not_subclass_still_names_what_it_lacks() -> None:
    class Plain:
        async def get_task(self, request: Any, context: Any) -> Any:
            return {}

    with pytest.raises(TypeError, match="send_message") as lacking:
        _app(Plain())
    assert "list_tasks" in str(lacking.value)

    async def register() -> None:
        grpc_binding.add_to_server(Plain(), grpc.aio.server())  # type: ignore[arg-type]

    with pytest.raises(TypeError, match="send_message"):
        asyncio.run(register())


def test_a_service_without_the_a2a_profile_answers_unimplemented(
    load_package: Any,
) -> None:
    package = load_package(PROTO / "features" / "tenancy.proto", "serve=true")
    name = package.__name__
    handler = importlib.import_module(f"{name}.handler")
    app_module = importlib.import_module(f"{name}.asgi")
    (base,) = [
        value
        for key, value in vars(handler).items()
        if key.endswith("Handler") and isinstance(value, type)
    ]
    routes = importlib.import_module(f"{name}.routes")
    route = next(r for r in routes.ROUTES if r.rpc == "GetItem" and not r.tenant)

    class Nothing(base):  # type: ignore[misc,valid-type]
        pass

    async def scenario() -> None:
        app = app_module.create_app(Nothing(), jsonrpc_path="/jsonrpc")
        async with _client(app) as http:
            answer = await http.request(route.verb, "/items/i1")
            assert answer.status_code == 501, answer.text
            assert answer.json()["error"]["status"] == "UNIMPLEMENTED"
            called = await http.post(
                "/jsonrpc",
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": route.rpc,
                    "params": {"id": "i1"},
                },
            )
            assert called.json()["error"]["code"] == -32601

    asyncio.run(scenario())

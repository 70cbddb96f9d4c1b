"""An A2A server on the generated tables: HTTP+JSON under /rest, JSON-RPC at /jsonrpc.

All routing, query parsing, tenant handling and JSON-RPC envelope checks come from
``generated/a2a_binding``; this file only turns request dicts into a2a-sdk messages
(``json_format.ParseDict``), hands them to the agent (examples/agent.py) and writes HTTP.

    PYTHONPATH=generated uvicorn examples.a2a_server:app
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from a2a.types import a2a_pb2 as pb
from a2a_binding import jsonrpc, query, routes
from google.protobuf import json_format

from examples.agent import CARD, A2AError, Agent

REST, RPC = "/rest", "/jsonrpc"


def call(agent: Agent, rpc: str, request: dict[str, Any]) -> Any:
    """Run one rpc on a ProtoJSON request; a dict, or an iterator of dicts if it streams."""
    request_type = getattr(pb, jsonrpc.METHODS[rpc].request_type.rpartition(".")[2])
    try:
        message = json_format.ParseDict(request, request_type())
    except json_format.ParseError as exc:
        raise query.QueryError("", "", f"invalid request: {exc}") from None
    result = getattr(agent, rpc)(message)
    if jsonrpc.METHODS[rpc].server_streaming:
        return (json_format.MessageToDict(event) for event in result)
    return json_format.MessageToDict(result)


Send = Callable[[dict[str, Any]], Awaitable[None]]


async def respond(
    send: Send, status: int, body: Any, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", routes.CONTENT_TYPE.encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


async def stream(send: Send, events: Iterator[Any], frame: Callable[[Any], dict[str, Any]]) -> None:
    first = next(events)  # errors surface before the 200 goes out
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream")],
        }
    )
    for event in (first, *events):
        await send(
            {
                "type": "http.response.body",
                "body": jsonrpc.sse_event(frame(event)),
                "more_body": True,
            }
        )
    await send({"type": "http.response.body", "body": b""})


async def rest(agent: Agent, scope: dict[str, Any], body: bytes, send: Send) -> None:
    """HTTP+JSON: transcode, run, answer; errors as google.rpc.Status with their status."""
    try:
        route, request = routes.transcode(
            scope["method"],
            scope["raw_path"].decode("ascii")[len(REST) :],
            scope["query_string"],
            json.loads(body) if body else None,
        )
        result = call(agent, route.rpc, request)
        if route.server_streaming:
            return await stream(send, result, lambda event: event)
        await respond(send, 200, result)
    except routes.RouteNotFound as exc:
        allow = (
            ((b"allow", ", ".join(sorted(exc.allowed_verbs)).encode()),)
            if exc.allowed_verbs
            else ()
        )
        name = "NOT_FOUND" if exc.status == 404 else "UNIMPLEMENTED"
        await respond(
            send,
            exc.status,
            {"error": {"code": exc.status, "status": name, "message": str(exc)}},
            allow,
        )
    except query.QueryError as exc:
        await respond(
            send,
            400,
            {
                "error": {
                    "code": 400,
                    "status": "INVALID_ARGUMENT",
                    "message": str(exc),
                    "details": [exc.to_bad_request()],
                }
            },
        )
    except ValueError as exc:
        await respond(
            send, 400, {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": str(exc)}}
        )
    except A2AError as exc:
        await respond(send, exc.kind.http_status, {"error": exc.kind.status(exc.message)})


async def rpc(agent: Agent, tenant: str, body: bytes, send: Send) -> None:
    """JSON-RPC: check the envelope, run, answer with a result or an error."""
    request_id = None
    try:
        request = jsonrpc.parse_request(body, tenant=tenant)
        request_id = request.id
        result = call(agent, request.method, request.params)
        if request.streaming:
            return await stream(send, result, lambda event: jsonrpc.success(request_id, event))
        await respond(send, 200, jsonrpc.success(request_id, result))
    except jsonrpc.JsonRpcError as exc:
        await respond(send, 200, jsonrpc.failure(exc.id, exc))
    except query.QueryError as exc:
        await respond(
            send,
            200,
            jsonrpc.failure(request_id, jsonrpc.JsonRpcError(jsonrpc.INVALID_PARAMS, str(exc))),
        )
    except A2AError as exc:
        await respond(send, 200, jsonrpc.failure(request_id, exc.kind.error(exc.message)))


def create_app() -> Callable[..., Awaitable[None]]:
    """A fresh server with an empty store."""
    agent = Agent()

    async def app(
        scope: dict[str, Any], receive: Callable[[], Awaitable[dict[str, Any]]], send: Send
    ) -> None:
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            return await send({"type": "lifespan.shutdown.complete"})
        body, more = b"", True
        while more:
            message = await receive()
            body, more = body + message.get("body", b""), message.get("more_body", False)
        path = scope["raw_path"].decode("ascii")
        if routes.agent_card_tenant(path) is not None and scope["method"] == "GET":
            return await respond(send, 200, json_format.MessageToDict(CARD))
        if path == REST or path.startswith(REST + "/"):
            return await rest(agent, scope, body, send)
        tenant = jsonrpc.endpoint_tenant(path, base=RPC)
        if tenant is not None and scope["method"] == "POST":
            return await rpc(agent, tenant, body, send)
        await respond(
            send,
            404,
            {"error": {"code": 404, "status": "NOT_FOUND", "message": f"no endpoint {path}"}},
        )

    return app


app = create_app()

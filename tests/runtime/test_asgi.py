"""The ASGI application runtime (``codegen/runtime/serve/_asgi.py``), called in process.

A small service built on the runtime's own tables (unary, streaming, Empty, a field
body with a ``response_body``, tenant variants) is served by ``A2AApplication`` and
driven by a tiny ASGI driver written here: no network, no framework. Each test checks
one answer of the module docstring: routing, the agent card, both bindings' errors,
limits, streaming with its close on disconnect, lifespan.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import pytest

from tests.runtime.apps import application
from codegen.runtime._asgi import (
    UNAUTHENTICATED_CODE,
    A2AApplication,
    CallContext,
    InvalidArgument,
    Unauthenticated,
    base_url,
)
from codegen.runtime._jsonrpc import JsonRpcBinding, Method
from codegen.runtime._options import ServeOptions
from codegen.runtime._paths import Capture, Route, RouteTable
from codegen.runtime._errors import A2AError
from codegen.runtime._query import Param, QueryCodecs, QueryError
from codegen.runtime._sse_parser import parse_sse

V = [(b"a2a-version", b"1.0")]
JSON = [(b"content-type", b"application/json")]
MODIFIED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
CARD = {"name": "unit", "version": "1"}


def _route(
    rpc: str,
    verb: str,
    template: str,
    fields: tuple[str, ...],
    body: str | None,
    match: tuple[tuple[str, ...], str, tuple[Capture, ...]],
    *,
    tenant: bool = False,
    streaming: bool = False,
    response_body: str | None = None,
    client: bool = False,
) -> Route[str]:
    segments, custom_verb, captures = match
    return Route(
        rpc,
        verb,
        template,
        fields,
        body,
        response_body,
        f"t.{rpc}Request",
        f"t.{rpc}Response",
        streaming,
        tenant,
        False,
        segments=segments,
        custom_verb=custom_verb,
        captures=captures,
        pieces=(template,) if client else (),
        client=0 if client else -1,
    )


ID = (Capture("id", 1, 2),)
TENANT_ID = (Capture("tenant", 0, 1), Capture("id", 2, 3))
ROUTES = (
    _route(
        "Send",
        "POST",
        "/message:send",
        (),
        "*",
        (("message",), "send", ()),
        client=True,
    ),
    _route(
        "Send",
        "POST",
        "/{tenant}/message:send",
        ("tenant",),
        "*",
        (("*", "message"), "send", (Capture("tenant", 0, 1),)),
        tenant=True,
    ),
    _route("Get", "GET", "/tasks/{id}", ("id",), None, (("tasks", "*"), "", ID)),
    _route(
        "Get",
        "GET",
        "/{tenant}/tasks/{id}",
        ("tenant", "id"),
        None,
        (("*", "tasks", "*"), "", TENANT_ID),
        tenant=True,
    ),
    _route(
        "Stream",
        "POST",
        "/message:stream",
        (),
        "*",
        (("message",), "stream", ()),
        streaming=True,
    ),
    _route("Delete", "DELETE", "/tasks/{id}", ("id",), None, (("tasks", "*"), "", ID)),
    _route(
        "Put",
        "POST",
        "/items/{id}:put",
        ("id",),
        "item",
        (("items", "*"), "put", ID),
        response_body="value",
    ),
)
CODECS = QueryCodecs(
    {
        "Get": (
            Param(("tenant",), ("tenant",), "string"),
            Param(("id",), ("id",), "string"),
            Param(("historyLength",), ("history_length",), "int32"),
        ),
        "Delete": (Param(("id",), ("id",), "string"),),
        "Put": (Param(("id",), ("id",), "string"),),
    },
    {},
    {"Send": frozenset({"tenant", "text"}), "Stream": frozenset({"tenant", "text"})},
    service_params=frozenset({"a2a-version"}),
)
TABLE = RouteTable(
    ROUTES,
    query=CODECS,
    tenant_field="tenant",
    max_segments=3,
)
RPC = JsonRpcBinding(
    {
        name: Method(
            name,
            f"t.{name}Request",
            f"t.{name}Response",
            name == "Stream",
            tuple(r for r in ROUTES if r.rpc == name),
        )
        for name in ("Send", "Get", "Stream", "Delete", "Put")
    },
    tenant_field="tenant",
)
METHODS = {
    "Send": "send",
    "Get": "get",
    "Stream": "stream",
    "Delete": "delete",
    "Put": "put",
}


@dataclass
class Handler:
    """Echoes what it got; behaviour switched by the request's ``text``."""

    seen: list[tuple[str, dict[str, Any], CallContext]] = field(default_factory=list)
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    started: asyncio.Event = field(default_factory=asyncio.Event)

    async def send(self, request: dict[str, Any], context: CallContext) -> Any:
        self.seen.append(("Send", request, context))
        text = request.get("text")
        if text == "missing":
            raise A2AError("TaskNotFoundError", "no task t9", metadata={"taskId": "t9"})
        if text == "boom":
            raise RuntimeError("secret detail")
        if text == "query":
            raise QueryError("text", "query", "bad value")
        if text == "not-a-dict":
            return ["a list"]
        if text == "nan":
            return {"value": float("nan")}
        if text == "unauthenticated":
            raise Unauthenticated("who are you?", challenge='Bearer realm="unit"')
        if text == "invalid":
            raise InvalidArgument(
                "two fields are wrong", [("text", "too short"), ("tenant", "unknown")]
            )
        return {"echo": request, "tenant": context.tenant}

    async def get(self, request: dict[str, Any], context: CallContext) -> Any:
        self.seen.append(("Get", request, context))
        return {
            "id": request["id"],
            "tenant": context.tenant,
            "binding": context.binding,
        }

    async def delete(self, request: dict[str, Any], context: CallContext) -> None:
        self.seen.append(("Delete", request, context))

    async def put(self, request: dict[str, Any], context: CallContext) -> Any:
        return {"value": {"id": request["id"], **request["item"]}, "other": 1}

    async def stream(
        self, request: dict[str, Any], context: CallContext
    ) -> AsyncIterator[Any]:
        # An ``async def`` returning an iterator, not an async generator: both are served.
        return self._events(request.get("text", ""))

    async def _events(self, text: str) -> AsyncIterator[Any]:
        try:
            if text == "missing":
                raise A2AError("TaskNotFoundError", "no such task")
            if text == "unauthenticated":
                raise Unauthenticated("who are you?")
            if text == "empty":
                return
            yield {"n": 0}
            if text == "hang":
                self.started.set()
                await asyncio.Event().wait()
            yield {"n": 1}
            if text == "late":
                raise A2AError("UnsupportedOperationError", "stopped")
            if text == "crash":
                raise RuntimeError("secret detail")
            if text == "unjsonable":
                yield {"n": object()}
        finally:
            self.closed.set()


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    chunks: list[bytes]
    raw_headers: list[tuple[bytes, bytes]]

    def json(self) -> Any:
        return json.loads(self.body)

    def events(self) -> list[Any]:
        return [(e.id, json.loads(e.data)) for e in parse_sse(self.chunks)]


async def drive(
    app: Any,
    method: str,
    path: str,
    *,
    body: bytes = b"",
    headers: Sequence[tuple[bytes, bytes]] = (),
    query: bytes = b"",
    raw_path: bytes | None = None,
    root_path: str = "",
    chunked: bool = False,
    disconnect_after_chunks: int | None = None,
    drop_raw_path: bool = False,
    disconnect_during_body: bool = False,
    scheme: str = "http",
    server: Any = ("test", 80),
) -> Answer:
    """One request through the ASGI app; returns what it sent."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": scheme,
        "path": path,
        "raw_path": raw_path if raw_path is not None else path.encode(),
        "query_string": query,
        "root_path": root_path,
        "headers": headers if isinstance(headers, list) else list(headers),
        "server": server,
    }
    if drop_raw_path:
        del scope["raw_path"]
    parts = [body[:3], body[3:]] if chunked else [body]
    finished = asyncio.Event()
    hang_up = asyncio.Event()
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if disconnect_during_body:
            return {"type": "http.disconnect"}
        if parts:
            chunk = parts.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(parts)}
        waits = [
            asyncio.ensure_future(finished.wait()),
            asyncio.ensure_future(hang_up.wait()),
        ]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "http.response.body":
            if not message.get("more_body", False):
                finished.set()
            elif disconnect_after_chunks is not None:
                if sum(1 for m in sent if m.get("body")) >= disconnect_after_chunks:
                    hang_up.set()

    await asyncio.wait_for(app(scope, receive, send), 10)
    start = sent[0]
    chunks = [m.get("body", b"") for m in sent[1:]]
    raw = list(start["headers"])
    return Answer(
        start["status"],
        {k.decode(): v.decode() for k, v in raw},
        b"".join(chunks),
        chunks,
        raw,
    )


def make_app(handler: Any = None, **options: Any) -> A2AApplication:
    settings: dict[str, Any] = dict(
        methods=METHODS,
        routes=TABLE,
        jsonrpc=RPC,
        tenant_field="tenant",
        agent_card_path="/.well-known/agent-card.json",
        agent_card=CARD,
        supported_versions=("1.0",),
        agent_card_last_modified=MODIFIED,
    )
    settings.update(options)
    return application(handler or Handler(), **settings)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def rpc_body(method: str, params: Mapping[str, Any], request_id: Any = 1) -> bytes:
    envelope: dict[str, Any] = {
        "jsonrpc": "2.0",
        "method": method,
        "params": dict(params),
    }
    if request_id is not ...:
        envelope["id"] = request_id
    return json.dumps(envelope).encode()


# --------------------------------------------------------------------- HTTP+JSON


def test_unary_call_reaches_the_handler_with_its_context() -> None:
    handler = Handler()
    answer = run(
        drive(
            make_app(handler),
            "POST",
            "/acme/message:send",
            body=b'{"text": "hi"}',
            headers=[
                *V,
                *JSON,
                (b"A2A-Extensions", b"urn:x, urn:y"),
                (b"X-Other", b"v"),
            ],
        )
    )
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/a2a+json"
    assert answer.json() == {"echo": {"text": "hi", "tenant": "acme"}, "tenant": "acme"}
    _, request, context = handler.seen[0]
    assert context.binding == "http+json" and context.tenant == "acme"
    assert context.params.version == "1.0" and context.params.extensions == (
        "urn:x",
        "urn:y",
    )
    assert ("x-other", "v") in context.headers and context.header("X-OTHER") == "v"
    assert context.header("nope") is None


def test_query_and_path_fields_are_decoded() -> None:
    handler = Handler()
    answer = run(
        drive(
            make_app(handler),
            "GET",
            "/tasks/a%2Fb",
            query=b"historyLength=3",
            headers=V,
        )
    )
    assert answer.json() == {"id": "a/b", "tenant": "", "binding": "http+json"}
    assert handler.seen[0][1] == {"id": "a/b", "historyLength": 3}


def test_version_may_come_from_the_query() -> None:
    answer = run(drive(make_app(), "GET", "/tasks/t1", query=b"A2A-Version=1.0"))
    assert answer.status == 200


def test_empty_response_is_an_empty_object() -> None:
    answer = run(drive(make_app(), "DELETE", "/tasks/t1", headers=V))
    assert answer.status == 200 and answer.json() == {}


def test_field_body_and_response_body() -> None:
    answer = run(
        drive(
            make_app(), "POST", "/items/i1:put", body=b'{"a": 1}', headers=[*V, *JSON]
        )
    )
    assert answer.json() == {"id": "i1", "a": 1}  # only the response_body field


def test_prefix_and_disabled_bindings() -> None:
    app = make_app(http_json_prefix="/rest/", jsonrpc_path=None)
    assert run(drive(app, "GET", "/rest/tasks/t1", headers=V)).status == 200
    assert run(drive(app, "GET", "/tasks/t1", headers=V)).status == 404
    assert (
        run(
            drive(app, "POST", "/", body=rpc_body("Get", {"id": "t"}), headers=V)
        ).status
        == 404
    )
    off = make_app(http_json_prefix=None)
    assert run(drive(off, "GET", "/tasks/t1", headers=V)).status == 404
    assert (
        run(drive(off, "GET", "/acme", headers=V)).headers["allow"] == "POST"
    )  # JSON-RPC
    with pytest.raises(ValueError, match="http_json_prefix"):
        make_app(http_json_prefix="rest")


@pytest.mark.parametrize(
    ("jsonrpc_path", "endpoint"),
    [("/", "/"), ("", "/"), ("/rpc/", "/rpc"), ("/a/b", "/a/b"), (None, None)],
)
def test_the_jsonrpc_endpoint_is_the_normalised_path(
    jsonrpc_path: str | None, endpoint: str | None
) -> None:
    assert ServeOptions(jsonrpc_path=jsonrpc_path).jsonrpc_endpoint == endpoint
    if endpoint is not None:
        app = make_app(jsonrpc_path=jsonrpc_path)
        body = rpc_body("Get", {"id": "t1"})
        answer = run(drive(app, "POST", endpoint, body=body, headers=V))
        assert answer.json()["result"]["id"] == "t1"


def test_not_found_and_method_not_allowed() -> None:
    app = make_app(jsonrpc_path="/rpc")
    missing = run(drive(app, "GET", "/nothing/here/at/all", headers=V))
    assert missing.status == 404 and missing.json()["error"]["status"] == "NOT_FOUND"
    wrong = run(drive(app, "PUT", "/tasks/t1", headers=V))
    assert wrong.status == 405 and wrong.headers["allow"] == "DELETE, GET, HEAD"
    assert wrong.json()["error"]["code"] == 405
    rpc_get = run(drive(app, "GET", "/rpc/acme", headers=V))
    assert rpc_get.status == 405 and rpc_get.headers["allow"] == "POST"


def test_where_both_bindings_share_a_path_http_json_wins() -> None:
    """A POST to the JSON-RPC endpoint (or its tenant form) is JSON-RPC's unless an
    HTTP+JSON route takes it."""
    body = rpc_body("Get", {"id": "t1"})
    alone = make_app(jsonrpc_path="/rpc")
    for path in ("/rpc", "/rpc/acme"):
        answer = run(drive(alone, "POST", path, body=body, headers=[*V, *JSON]))
        assert answer.json()["result"]["id"] == "t1", path
    shared = make_app(jsonrpc_path="/message:send")
    answer = run(drive(shared, "POST", "/message:send", body=body, headers=[*V, *JSON]))
    assert answer.status == 200 and "jsonrpc" not in answer.json()


def test_bad_query_is_400_with_field_violations() -> None:
    answer = run(
        drive(make_app(), "GET", "/tasks/t1", query=b"historyLength=x", headers=V)
    )
    error = answer.json()["error"]
    assert answer.status == 400 and error["status"] == "INVALID_ARGUMENT"
    assert error["details"][0]["@type"] == "type.googleapis.com/google.rpc.BadRequest"
    assert error["details"][0]["fieldViolations"][0]["field"] == "historyLength"


def test_too_many_query_pairs() -> None:
    answer = run(
        drive(
            make_app(max_query_pairs=2),
            "GET",
            "/tasks/t1",
            query=b"a=1&b=2&c=3",
            headers=V,
        )
    )
    assert answer.status == 400


@pytest.mark.parametrize(
    "body, text",
    [
        (b"{not json", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[1, 2]", "must be a JSON object"),
    ],
)
def test_bad_bodies_are_400(body: bytes, text: str) -> None:
    answer = run(
        drive(make_app(), "POST", "/message:send", body=body, headers=[*V, *JSON])
    )
    assert answer.status == 400 and text in answer.json()["error"]["message"]
    assert answer.json()["error"]["details"][0]["fieldViolations"][0]["field"] == ""


@pytest.mark.parametrize(
    "framing",
    [[(b"content-length", b"8")], [(b"transfer-encoding", b"chunked")]],
)
def test_a_body_where_the_route_takes_none(framing: list[tuple[bytes, bytes]]) -> None:
    answer = run(
        drive(
            make_app(),
            "GET",
            "/tasks/t1",
            body=b'{"x": 1}',
            headers=[*V, *JSON, *framing],
        )
    )
    assert answer.status == 400 and "takes no body" in answer.json()["error"]["message"]


def test_a_request_declaring_no_body_to_a_route_taking_none_is_not_read() -> None:
    """No Content-Length and no Transfer-Encoding: no body, as HTTP/1.1 frames it
    (RFC 9112 §6.3); the call runs without reading ``receive``, which is left to the
    watch of a client leaving."""
    answer = run(
        drive(
            make_app(),
            "GET",
            "/tasks/t1",
            body=b'{"x": 1}',
            headers=[*V],
            disconnect_during_body=True,
        )
    )
    assert answer.status == 200 and answer.json()["id"] == "t1"


def test_content_type_other_than_json_is_refused_but_missing_is_fine() -> None:
    refused = run(
        drive(
            make_app(),
            "POST",
            "/message:send",
            body=b'{"text": "x"}',
            headers=[*V, (b"content-type", b"text/plain")],
        )
    )
    assert refused.status == 400
    assert (
        refused.json()["error"]["details"][0]["reason"] == "CONTENT_TYPE_NOT_SUPPORTED"
    )
    plain = run(
        drive(make_app(), "POST", "/message:send", body=b'{"text": "x"}', headers=V)
    )
    assert plain.status == 200
    a2a = run(
        drive(
            make_app(),
            "POST",
            "/message:send",
            body=b'{"text": "x"}',
            headers=[*V, (b"Content-Type", b"application/a2a+json; charset=utf-8")],
        )
    )
    assert a2a.status == 200
    bodyless = run(
        drive(
            make_app(),
            "DELETE",
            "/tasks/t1",
            headers=[*V, (b"content-type", b"text/plain")],
        )
    )
    assert bodyless.status == 200


@pytest.mark.parametrize(
    "headers, expected",
    [
        (
            [],
            "no A2A-Version was sent, and a request naming no version is taken as"
            " 0.3 (A2A §3.6.2), which this server does not serve (supported: 1.0):"
            " send A2A-Version: 1.0",
        ),
        ([(b"a2a-version", b"2.0")], "'2.0' is not supported"),
        ([(b"a2a-version", b"1.0, 0.3")], "several versions"),
    ],
)
def test_version_check(headers: list[tuple[bytes, bytes]], expected: str) -> None:
    answer = run(drive(make_app(), "GET", "/tasks/t1", headers=headers))
    assert answer.status == 400
    error = answer.json()["error"]
    assert (
        error["details"][0]["reason"] == "VERSION_NOT_SUPPORTED"
        and expected in error["message"]
    )


def test_a2a_errors_from_the_handler() -> None:
    answer = run(
        drive(
            make_app(), "POST", "/message:send", body=b'{"text": "missing"}', headers=V
        )
    )
    assert answer.status == 404
    assert answer.json() == {
        "error": {
            "code": 404,
            "status": "NOT_FOUND",
            "message": "no task t9",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "TASK_NOT_FOUND",
                    "domain": "a2a-protocol.org",
                    "metadata": {"taskId": "t9"},
                }
            ],
        }
    }


def test_query_error_from_the_handler_is_400() -> None:
    answer = run(
        drive(make_app(), "POST", "/message:send", body=b'{"text": "query"}', headers=V)
    )
    assert (
        answer.status == 400
        and answer.json()["error"]["details"][0]["fieldViolations"][0]["field"]
        == "text"
    )


@pytest.mark.parametrize("text", ["boom", "not-a-dict", "nan"])
def test_handler_failures_are_500_without_their_text(
    text: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="a2a_binding.asgi"):
        answer = run(
            drive(
                make_app(),
                "POST",
                "/message:send",
                body=json.dumps({"text": text}).encode(),
                headers=V,
            )
        )
    assert answer.status == 500
    assert answer.json() == {
        "error": {"code": 500, "status": "INTERNAL", "message": "internal error"}
    }
    assert "secret" not in answer.body.decode()
    assert caplog.records and caplog.records[0].exc_info is not None


def test_expose_errors_shows_the_text() -> None:
    answer = run(
        drive(
            make_app(expose_errors=True),
            "POST",
            "/message:send",
            body=b'{"text": "boom"}',
            headers=V,
        )
    )
    assert answer.json()["error"]["message"] == "RuntimeError: secret detail"


def test_body_limit() -> None:
    app = make_app(max_body_bytes=10)
    big = run(
        drive(
            app,
            "POST",
            "/message:send",
            body=b'{"text": "0123456789"}',
            headers=V,
            chunked=True,
        )
    )
    assert big.status == 413 and big.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
    declared = run(
        drive(
            app,
            "POST",
            "/message:send",
            body=b"{}",
            headers=[*V, (b"content-length", b"99")],
        )
    )
    assert declared.status == 413
    odd_length = run(
        drive(
            app,
            "POST",
            "/message:send",
            body=b"{}",
            headers=[*V, (b"content-length", b"x")],
        )
    )
    assert odd_length.status == 200
    fine = run(
        drive(app, "POST", "/message:send", body=b'{"t": 1}', headers=V, chunked=True)
    )
    assert fine.status == 200
    with pytest.raises(ValueError, match="negative"):
        make_app(max_body_bytes=-1)


def test_disconnect_while_reading_the_body_sends_nothing() -> None:
    sent: list[Any] = []

    async def scenario() -> None:
        app = make_app()
        for path in ("/message:send", "/"):
            scope = {
                "type": "http",
                "method": "POST",
                "path": path,
                "raw_path": path.encode(),
                "query_string": b"",
                "headers": V,
            }

            async def receive() -> dict[str, Any]:
                return {"type": "http.disconnect"}

            async def send(message: MutableMapping[str, Any]) -> None:
                sent.append(message)

            await app(scope, receive, send)

    run(scenario())
    assert sent == []


@dataclass
class SlowSend(Handler):
    """``send`` takes 30 s, noting its cancellation."""

    cancelled: list[str] = field(default_factory=list)

    async def send(self, request: dict[str, Any], context: CallContext) -> Any:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            self.cancelled.append(request.get("text", ""))
            raise


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/message:send", b'{"text": "rest"}'),
        ("/", rpc_body("Send", {"text": "rpc"})),
        ("/", rpc_body("Send", {"text": "note"}, request_id=...)),  # a notification
    ],
)
def test_a_unary_call_whose_client_leaves_is_cancelled_and_not_answered(
    path: str, body: bytes
) -> None:
    handler = SlowSend()
    sent: list[Any] = []

    async def scenario() -> float:
        app = make_app(handler, call_timeout=20)
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop(0)
            await asyncio.sleep(0.1)  # the client waits a little, then leaves
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "method": "POST",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": [*V, (b"content-type", b"application/json")],
        }
        loop = asyncio.get_running_loop()
        started = loop.time()
        await asyncio.wait_for(app(scope, receive, send), 10)
        return loop.time() - started

    took = run(scenario())
    assert sent == [] and len(handler.cancelled) == 1 and took < 2


def test_check_request_hook() -> None:
    calls: list[tuple[str, Mapping[str, Any]]] = []

    def check(rpc: str, request: Mapping[str, Any]) -> list[tuple[str, str]]:
        calls.append((rpc, request))
        return [("text", "is required")] if "text" not in request else []

    app = make_app(check_request=check)
    bad = run(drive(app, "POST", "/message:send", body=b"{}", headers=V))
    assert bad.status == 400
    assert bad.json()["error"]["details"][0]["fieldViolations"] == [
        {"field": "text", "description": "is required"}
    ]
    assert (
        run(
            drive(app, "POST", "/message:send", body=b'{"text": "x"}', headers=V)
        ).status
        == 200
    )
    rpc = run(drive(app, "POST", "/", body=rpc_body("Send", {}), headers=V))
    error = rpc.json()["error"]
    assert (
        error["code"] == -32602
        and error["data"][0]["fieldViolations"][0]["field"] == "text"
    )
    assert calls[0] == ("Send", {})


def test_root_path_of_a_mount_is_removed() -> None:
    answer = run(
        drive(make_app(), "GET", "/a2a/tasks/a%2Fb", root_path="/a2a", headers=V)
    )
    assert answer.json()["id"] == "a/b"
    root = run(
        drive(
            make_app(),
            "POST",
            "/a2a",
            root_path="/a2a",
            body=rpc_body("Get", {"id": "x"}),
            headers=V,
        )
    )
    assert root.json()["result"]["id"] == "x"


def test_without_raw_path_the_decoded_path_is_reencoded() -> None:
    answer = run(drive(make_app(), "GET", "/tasks/a b", drop_raw_path=True, headers=V))
    assert answer.json()["id"] == "a b"


def test_handler_missing_a_method_is_refused() -> None:
    class Partial:
        async def send(self, request: Any, context: Any) -> Any:
            return {}

    with pytest.raises(TypeError, match="delete, get, put, stream"):
        make_app(Partial())


def test_supported_versions_are_checked_at_creation() -> None:
    with pytest.raises(ValueError, match="not Major.Minor"):
        make_app(supported_versions=("one",))


# --------------------------------------------------------------------- agent card


def test_agent_card_with_caching_headers_and_tenant_form() -> None:
    app = make_app()
    plain = run(drive(app, "GET", "/.well-known/agent-card.json"))  # no version needed
    assert plain.status == 200 and plain.json() == CARD
    assert plain.headers["cache-control"] == "public, max-age=3600"
    assert plain.headers["last-modified"] == "Fri, 02 Jan 2026 03:04:05 GMT"
    assert plain.headers["content-type"] == "application/json"
    tenant = run(drive(app, "GET", "/acme/.well-known/agent-card.json"))
    assert tenant.body == plain.body and tenant.headers["etag"] == plain.headers["etag"]
    head = run(drive(app, "HEAD", "/.well-known/agent-card.json"))
    assert (
        head.status == 200
        and head.body == b""
        and head.headers["content-length"] == str(len(plain.body))
    )
    again = run(
        drive(
            app,
            "GET",
            "/.well-known/agent-card.json",
            headers=[(b"if-none-match", plain.headers["etag"].encode())],
        )
    )
    assert (
        again.status == 304
        and again.body == b""
        and again.headers["etag"] == plain.headers["etag"]
    )
    since = run(
        drive(
            app,
            "GET",
            "/.well-known/agent-card.json",
            headers=[(b"if-modified-since", b"Fri, 02 Jan 2026 03:04:05 GMT")],
        )
    )
    assert since.status == 304
    post = run(drive(app, "POST", "/.well-known/agent-card.json"))
    assert post.status == 405 and post.headers["allow"] == "GET, HEAD"


def test_agent_card_under_a_prefix_stays_at_the_root() -> None:
    app = make_app(http_json_prefix="/rest", agent_card_max_age=60)
    answer = run(drive(app, "GET", "/.well-known/agent-card.json"))
    assert (
        answer.status == 200 and answer.headers["cache-control"] == "public, max-age=60"
    )


# ---------------------------------------------------------------------- JSON-RPC


def test_jsonrpc_call_and_tenant_endpoint() -> None:
    handler = Handler()
    app = make_app(handler, jsonrpc_path="/rpc")
    answer = run(
        drive(
            app,
            "POST",
            "/rpc",
            body=rpc_body("Get", {"id": "t1"}, "a"),
            headers=[*V, *JSON],
        )
    )
    assert answer.status == 200 and answer.headers["content-type"] == "application/json"
    assert answer.json() == {
        "jsonrpc": "2.0",
        "id": "a",
        "result": {"id": "t1", "tenant": "", "binding": "jsonrpc"},
    }
    tenant = run(
        drive(app, "POST", "/rpc/acme", body=rpc_body("Get", {"id": "t1"}), headers=V)
    )
    assert tenant.json()["result"]["tenant"] == "acme"
    in_params = run(
        drive(
            app,
            "POST",
            "/rpc",
            body=rpc_body("Get", {"id": "t1", "tenant": "b"}),
            headers=V,
        )
    )
    assert in_params.json()["result"]["tenant"] == "b"
    empty = run(
        drive(app, "POST", "/rpc", body=rpc_body("Delete", {"id": "t1"}), headers=V)
    )
    assert empty.json()["result"] == {}


@pytest.mark.parametrize(
    "body, code, request_id",
    [
        (b"{oops", -32700, None),
        (b"[]", -32600, None),
        (json.dumps({"jsonrpc": "2.0", "id": 4, "method": "Nope"}).encode(), -32601, 4),
        (
            json.dumps(
                {"jsonrpc": "2.0", "id": 5, "method": "Get", "params": []}
            ).encode(),
            -32602,
            5,
        ),
        (
            json.dumps(
                {"jsonrpc": "2.0", "id": 6, "method": "Get", "params": {"tenant": "x"}}
            ).encode(),
            -32602,
            6,
        ),
    ],
)
def test_jsonrpc_envelope_errors_are_http_200(
    body: bytes, code: int, request_id: Any
) -> None:
    answer = run(drive(make_app(), "POST", "/t", body=body, headers=V))
    assert answer.status == 200 and answer.headers["content-type"] == "application/json"
    assert answer.json()["error"]["code"] == code and answer.json()["id"] == request_id


def test_jsonrpc_errors_from_the_handler_and_version() -> None:
    app = make_app()
    missing = run(
        drive(
            app, "POST", "/", body=rpc_body("Send", {"text": "missing"}, 7), headers=V
        )
    ).json()
    assert missing["id"] == 7 and missing["error"]["code"] == -32001
    assert missing["error"]["data"][0]["metadata"] == {"taskId": "t9"}
    boom = run(
        drive(app, "POST", "/", body=rpc_body("Send", {"text": "boom"}, 8), headers=V)
    ).json()
    assert boom == {
        "jsonrpc": "2.0",
        "id": 8,
        "error": {"code": -32603, "message": "internal error"},
    }
    old = run(drive(app, "POST", "/", body=rpc_body("Get", {"id": "x"}, 9))).json()
    assert old["id"] == 9 and old["error"]["code"] == -32009
    # No version named: it says so, and what to send, not that 0.3 was asked for.
    assert old["error"]["message"].startswith("no A2A-Version was sent")
    assert old["error"]["message"].endswith(": send A2A-Version: 1.0")
    assert old["error"]["data"][0]["metadata"] == {
        "requestedVersion": "0.3",
        "supportedVersions": "1.0",
    }
    query = run(
        drive(app, "POST", "/", body=rpc_body("Send", {"text": "query"}, 10), headers=V)
    ).json()
    assert query["error"]["code"] == -32602


def test_jsonrpc_content_type_and_size() -> None:
    wrong = run(
        drive(
            make_app(),
            "POST",
            "/",
            body=rpc_body("Get", {"id": "x"}),
            headers=[*V, (b"content-type", b"text/plain")],
        )
    )
    assert wrong.status == 200 and wrong.json()["error"]["code"] == -32005
    big = run(
        drive(
            make_app(max_body_bytes=5),
            "POST",
            "/",
            body=rpc_body("Get", {"id": "x"}),
            headers=V,
        )
    )
    assert big.status == 200 and big.json()["error"]["code"] == -32600
    assert big.json()["id"] is None


def test_jsonrpc_notifications_get_no_body() -> None:
    handler = Handler()
    app = make_app(handler)
    done = run(
        drive(app, "POST", "/", body=rpc_body("Get", {"id": "x"}, ...), headers=V)
    )
    assert done.status == 204 and done.body == b"" and handler.seen[0][0] == "Get"
    failed = run(drive(app, "POST", "/", body=rpc_body("Nope", {}, ...), headers=V))
    assert failed.status == 204 and failed.body == b""
    streamed = run(drive(app, "POST", "/", body=rpc_body("Stream", {}, ...), headers=V))
    assert streamed.status == 204 and not handler.closed.is_set()  # never started


@pytest.mark.parametrize(
    "envelope",
    [
        {"jsonrpc": "2.0", "params": {}},  # no method
        {"jsonrpc": "2.0", "method": 1, "params": "bar"},  # JSON-RPC 2.0's example
        {"jsonrpc": "2.0", "method": "Get", "params": "x"},  # params not structured
    ],
)
def test_an_invalid_request_without_id_is_no_notification(
    envelope: dict[str, Any],
) -> None:
    """JSON-RPC 2.0 §5: an invalid Request is answered -32600 with id null, id or not."""
    body = json.dumps(envelope).encode()
    answer = run(drive(make_app(), "POST", "/", body=body, headers=V))
    assert answer.status == 200
    assert answer.json()["id"] is None
    assert answer.json()["error"]["code"] == -32600


def test_an_http_json_route_wins_over_a_jsonrpc_tenant_endpoint() -> None:
    answer = run(
        drive(
            make_app(),
            "POST",
            "/message:send",
            body=rpc_body("Get", {"id": "x"}),
            headers=V,
        )
    )
    assert "echo" in answer.json()


# --------------------------------------------------------------------- streaming


def test_http_json_stream_is_numbered_and_closes_the_iterator() -> None:
    handler = Handler()
    answer = run(
        drive(
            make_app(handler),
            "POST",
            "/message:stream",
            body=b'{"text": "x"}',
            headers=V,
        )
    )
    assert (
        answer.status == 200 and answer.headers["content-type"] == "text/event-stream"
    )
    assert answer.events() == [("0", {"n": 0}), ("1", {"n": 1})]
    assert handler.closed.is_set()


def test_jsonrpc_stream_wraps_each_event() -> None:
    answer = run(
        drive(
            make_app(),
            "POST",
            "/",
            body=rpc_body("Stream", {"text": "x"}, 3),
            headers=V,
        )
    )
    assert answer.headers["content-type"] == "text/event-stream"
    assert answer.events() == [
        ("0", {"jsonrpc": "2.0", "id": 3, "result": {"n": 0}}),
        ("1", {"jsonrpc": "2.0", "id": 3, "result": {"n": 1}}),
    ]


def test_error_before_the_first_event_is_an_ordinary_answer() -> None:
    handler = Handler()
    answer = run(
        drive(
            make_app(handler),
            "POST",
            "/message:stream",
            body=b'{"text": "missing"}',
            headers=V,
        )
    )
    assert (
        answer.status == 404
        and answer.headers["content-type"] == "application/a2a+json"
    )
    assert handler.closed.is_set()
    rpc = run(
        drive(
            make_app(),
            "POST",
            "/",
            body=rpc_body("Stream", {"text": "missing"}, 2),
            headers=V,
        )
    )
    assert (
        rpc.headers["content-type"] == "application/json"
        and rpc.json()["error"]["code"] == -32001
    )


def test_an_empty_stream_is_200_without_events() -> None:
    answer = run(
        drive(
            make_app(), "POST", "/message:stream", body=b'{"text": "empty"}', headers=V
        )
    )
    assert answer.status == 200 and answer.events() == []


@pytest.mark.parametrize(
    "text, http_error, rpc_code",
    [
        ("late", {"code": 400, "status": "FAILED_PRECONDITION"}, -32004),
        (
            "crash",
            {"code": 500, "status": "INTERNAL", "message": "internal error"},
            -32603,
        ),
        (
            "unjsonable",
            {"code": 500, "status": "INTERNAL", "message": "internal error"},
            -32603,
        ),
    ],
)
def test_error_after_the_stream_started_is_the_last_event(
    text: str, http_error: dict[str, Any], rpc_code: int
) -> None:
    handler = Handler()
    answer = run(
        drive(
            make_app(handler),
            "POST",
            "/message:stream",
            body=json.dumps({"text": text}).encode(),
            headers=V,
        )
    )
    events = answer.events()
    assert answer.status == 200 and events[:2] == [("0", {"n": 0}), ("1", {"n": 1})]
    last_id, last = events[-1]
    assert last_id == "2" and http_error.items() <= last["error"].items()
    assert handler.closed.is_set()
    rpc = run(
        drive(
            make_app(),
            "POST",
            "/",
            body=rpc_body("Stream", {"text": text}, 5),
            headers=V,
        )
    )
    last_id, envelope = rpc.events()[-1]
    assert (
        last_id == "2" and envelope["id"] == 5 and envelope["error"]["code"] == rpc_code
    )


def test_client_disconnect_closes_the_handler_iterator() -> None:
    handler = Handler()
    answer = run(
        drive(
            make_app(handler),
            "POST",
            "/message:stream",
            body=b'{"text": "hang"}',
            headers=V,
            disconnect_after_chunks=1,
        )
    )
    assert answer.events() == [("0", {"n": 0})]
    assert handler.started.is_set() and handler.closed.is_set()


def test_stream_handler_returning_something_else_is_500() -> None:
    class Bad(Handler):
        async def stream(self, request: dict[str, Any], context: CallContext) -> Any:
            return [1, 2]

    answer = run(
        drive(make_app(Bad()), "POST", "/message:stream", body=b"{}", headers=V)
    )
    assert answer.status == 500


def test_send_failing_mid_stream_ends_quietly() -> None:
    handler = Handler()

    async def scenario() -> list[MutableMapping[str, Any]]:
        sent: list[MutableMapping[str, Any]] = []
        body = [{"type": "http.request", "body": b'{"text": "x"}'}]

        async def receive() -> dict[str, Any]:
            if body:
                return body.pop()
            await asyncio.Event().wait()
            raise AssertionError

        async def send(message: MutableMapping[str, Any]) -> None:
            if message.get("more_body"):
                raise OSError("connection reset")
            sent.append(message)

        scope = {
            "type": "http",
            "method": "POST",
            "path": "/message:stream",
            "raw_path": b"/message:stream",
            "query_string": b"",
            "headers": V,
        }
        await make_app(handler)(scope, receive, send)
        return sent

    sent = run(scenario())
    assert sent[0]["status"] == 200 and handler.closed.is_set()


# ------------------------------------------- refusals a handler raises: 401 and 400


def test_unauthenticated_is_401_with_a_challenge_on_http_json() -> None:
    answer = run(
        drive(
            make_app(),
            "POST",
            "/message:send",
            body=b'{"text": "unauthenticated"}',
            headers=V,
        )
    )
    assert answer.status == 401
    assert answer.headers["www-authenticate"] == 'Bearer realm="unit"'
    assert answer.json() == {
        "error": {"code": 401, "status": "UNAUTHENTICATED", "message": "who are you?"}
    }


def test_unauthenticated_on_jsonrpc_is_its_code_with_the_challenge() -> None:
    body = rpc_body("Send", {"text": "unauthenticated"}, request_id="r1")
    answer = run(drive(make_app(), "POST", "/", body=body, headers=V))
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["www-authenticate"] == 'Bearer realm="unit"'
    assert answer.json() == {
        "jsonrpc": "2.0",
        "id": "r1",
        "error": {"code": UNAUTHENTICATED_CODE, "message": "who are you?"},
    }
    assert UNAUTHENTICATED_CODE == -31001  # the README's documented code


def test_unauthenticated_before_the_first_event_is_an_ordinary_401() -> None:
    answer = run(
        drive(
            make_app(),
            "POST",
            "/message:stream",
            body=b'{"text": "unauthenticated"}',
            headers=V,
        )
    )
    assert answer.status == 401 and answer.headers["www-authenticate"] == "Bearer"


def test_unauthenticated_code_may_be_chosen_and_the_challenge_is_checked() -> None:
    assert Unauthenticated("x", code=-31002).code == -31002
    for bad in ("", "Bearer\r\nSet-Cookie: a=b", "Bearer réalm"):
        with pytest.raises(ValueError, match="not one header value"):
            Unauthenticated("x", challenge=bad)


def test_invalid_argument_names_its_fields_on_both_bindings() -> None:
    app = make_app()
    answer = run(
        drive(app, "POST", "/message:send", body=b'{"text": "invalid"}', headers=V)
    )
    violations = [
        {"field": "text", "description": "too short"},
        {"field": "tenant", "description": "unknown"},
    ]
    bad_request = {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": violations,
    }
    assert answer.status == 400 and "www-authenticate" not in answer.headers
    assert answer.json() == {
        "error": {
            "code": 400,
            "status": "INVALID_ARGUMENT",
            "message": "two fields are wrong",
            "details": [bad_request],
        }
    }
    body = rpc_body("Send", {"text": "invalid"})
    error = run(drive(app, "POST", "/", body=body, headers=V)).json()["error"]
    assert error == {
        "code": -32602,
        "message": "two fields are wrong",
        "data": [bad_request],
    }


# ------------------------------------------------------ base URL, card as a callable


@pytest.mark.parametrize(
    "scope, expected",
    [
        ({"headers": [(b"host", b"agent.test:8080")]}, "http://agent.test:8080"),
        (
            {"scheme": "https", "headers": [(b"Host", b"[::1]:8443")]},
            "https://[::1]:8443",
        ),
        (
            {"server": ("10.0.0.2", 80)},
            "http://10.0.0.2",
        ),  # the default port is left out
        ({"scheme": "https", "server": ("10.0.0.2", 80)}, "https://10.0.0.2:80"),
        ({"server": ("::1", 9000)}, "http://[::1]:9000"),
        (
            {"headers": [(b"host", b"evil.test/x?y")], "server": ("127.0.0.1", 81)},
            "http://127.0.0.1:81",
        ),  # not a host: the socket's address instead
        ({"server": ("/tmp/sock", None)}, "http://localhost"),  # a unix socket
        ({"scheme": "ws"}, "http://localhost"),
        (
            {"headers": [(b"host", b"h")], "root_path": "/agents/a b/"},
            "http://h/agents/a%20b",
        ),
    ],
)
def test_base_url(scope: dict[str, Any], expected: str) -> None:
    assert base_url(scope) == expected


def test_call_context_carries_the_base_url() -> None:
    handler = Handler()
    run(
        drive(
            make_app(handler),
            "GET",
            "/agents/tasks/t1",
            headers=[*V, (b"host", b"example.test")],
            root_path="/agents",
        )
    )
    assert handler.seen[0][2].base_url == "http://example.test/agents"


def test_agent_card_callable_names_the_address_reached() -> None:
    asked: list[str] = []

    def card(base: str) -> dict[str, Any]:
        asked.append(base)
        return {"name": "unit", "supportedInterfaces": [{"url": base + "/rest"}]}

    app = make_app(agent_card=card)
    path = "/.well-known/agent-card.json"
    one = run(drive(app, "GET", path, headers=[(b"host", b"one.test:81")]))
    two = run(
        drive(
            app,
            "GET",
            "/mount" + path,
            headers=[(b"host", b"two.test")],
            scheme="https",
            root_path="/mount",
        )
    )
    assert asked == ["http://one.test:81", "https://two.test/mount"]
    assert one.json()["supportedInterfaces"][0]["url"] == "http://one.test:81/rest"
    assert two.json()["supportedInterfaces"][0]["url"] == "https://two.test/mount/rest"
    # The ETag follows each answer's bytes: a 304 only for the bytes the client holds.
    assert one.headers["etag"] != two.headers["etag"]
    again = [
        (b"host", b"one.test:81"),
        (b"if-none-match", one.headers["etag"].encode()),
    ]
    assert run(drive(app, "GET", path, headers=again)).status == 304
    moved = [(b"host", b"other.test"), (b"if-none-match", one.headers["etag"].encode())]
    assert run(drive(app, "GET", path, headers=moved)).status == 200
    head = run(drive(app, "HEAD", path, headers=[(b"host", b"one.test:81")]))
    assert head.body == b"" and head.headers["content-length"] == str(len(one.body))


@pytest.mark.parametrize("result", [RuntimeError("secret detail"), ["not", "a card"]])
def test_a_failing_card_callable_is_500_without_its_text(
    result: object, caplog: pytest.LogCaptureFixture
) -> None:
    def card(base: str) -> Any:
        if isinstance(result, Exception):
            raise result
        return result

    with caplog.at_level(logging.ERROR, logger="a2a_binding.asgi"):
        answer = run(
            drive(make_app(agent_card=card), "GET", "/acme/.well-known/agent-card.json")
        )
    assert answer.status == 500
    assert answer.json()["error"]["status"] == "INTERNAL"
    assert "secret" not in answer.body.decode()
    assert caplog.records, "the failure was not logged"


# ------------------------------------------------------------ the OpenAPI document

OPENAPI = '{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}}'


def test_openapi_document_is_served_like_the_card() -> None:
    app = make_app(openapi=OPENAPI, http_json_prefix="/rest")
    host = [(b"host", b"api.test")]
    answer = run(drive(app, "GET", "/openapi.json", headers=host))  # no version needed
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["cache-control"] == "public, max-age=3600"
    assert answer.headers["last-modified"] == "Fri, 02 Jan 2026 03:04:05 GMT"
    document = answer.json()
    # It names no servers: it is given the one HTTP+JSON is served at, after "info".
    assert list(document) == ["openapi", "info", "servers", "paths"]
    assert document["servers"] == [{"url": "http://api.test/rest"}]
    etag = answer.headers["etag"].encode()
    cached = run(
        drive(app, "GET", "/openapi.json", headers=[*host, (b"if-none-match", etag)])
    )
    assert cached.status == 304 and cached.body == b""
    head = run(drive(app, "HEAD", "/openapi.json", headers=host))
    assert head.status == 200 and head.body == b""
    post = run(drive(app, "POST", "/openapi.json"))
    assert post.status == 405 and post.headers["allow"] == "GET, HEAD"
    # Not served where it was not asked for, nor at all without a document.
    assert run(drive(app, "GET", "/rest/openapi.json", headers=V)).status == 404
    plain = make_app(jsonrpc_path="/rpc")  # at "/", JSON-RPC's tenant form takes it
    assert run(drive(plain, "GET", "/openapi.json", headers=V)).status == 404


def test_openapi_document_with_servers_or_without_http_json_is_sent_as_given() -> None:
    named = OPENAPI.replace('"paths"', '"servers": [{"url": "/x"}], "paths"')
    for text, options in [(named, {}), (OPENAPI, {"http_json_prefix": None})]:
        app = make_app(openapi=text.encode(), openapi_path="/docs/api.json", **options)
        answer = run(drive(app, "GET", "/docs/api.json"))
        assert answer.status == 200 and answer.body == text.encode()


def test_link_openapi_in_card_sets_its_documentation_url() -> None:
    app = make_app(openapi=OPENAPI, openapi_path="/api.json", link_openapi_in_card=True)
    answer = run(
        drive(
            app,
            "GET",
            "/m/.well-known/agent-card.json",
            headers=[(b"host", b"h.test")],
            root_path="/m",
        )
    )
    assert answer.json() == {**CARD, "documentationUrl": "http://h.test/m/api.json"}


@pytest.mark.parametrize(
    "options, message",
    [
        ({"openapi": "{"}, "openapi: the document is not JSON"),
        ({"openapi": "[]"}, "openapi: the document is not a JSON object"),
        ({"openapi": OPENAPI, "openapi_path": "api.json"}, "openapi_path 'api.json'"),
        ({"link_openapi_in_card": True}, "link_openapi_in_card needs an openapi"),
    ],
)
def test_openapi_options_are_checked_at_creation(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        make_app(**options)


# --------------------------------------------------------------------- lifespan


def test_lifespan_and_other_scopes() -> None:
    async def scenario() -> list[str]:
        messages = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
        sent: list[str] = []

        async def receive() -> dict[str, Any]:
            return messages.pop(0)

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message["type"])

        app = make_app()
        await app({"type": "lifespan"}, receive, send)
        with pytest.raises(RuntimeError, match="'webtransport'"):
            await app({"type": "webtransport"}, receive, send)
        return sent

    assert run(scenario()) == [
        "lifespan.startup.complete",
        "lifespan.shutdown.complete",
    ]


# ------------------------------------- hostile clients and faulty handlers (issue 14)


def _strict(data: bytes) -> Any:
    """JSON as a strict peer reads it: UTF-8 and no bare NaN/Infinity."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(data.decode("utf-8"), parse_constant=refuse)


def test_lone_surrogates_sent_by_a_client_come_back_escaped() -> None:
    """JSON's ``\\ud800`` escape decodes to a lone surrogate UTF-8 cannot carry: an
    answer echoing it (a request id, a method name, a handler echoing a field) once
    failed to encode, a 500 / an exception out of the app, instead of the answer."""
    app = make_app()
    unknown = run(
        drive(
            app,
            "POST",
            "/",
            body=b'{"jsonrpc":"2.0","id":"\\ud800","method":"\\udfff"}',
            headers=V,
        )
    )
    assert unknown.status == 200
    envelope = _strict(unknown.body)
    assert envelope["id"] == "\ud800" and envelope["error"]["code"] == -32601
    echoed = run(
        drive(
            app,
            "POST",
            "/",
            body=b'{"jsonrpc":"2.0","id":1,"method":"Get","params":{"id":"\\ud800"}}',
            headers=V,
        )
    )
    assert _strict(echoed.body)["result"]["id"] == "\ud800"
    http = run(
        drive(app, "POST", "/message:send", body=b'{"text":"a\\ud800"}', headers=V)
    )
    assert http.status == 200 and _strict(http.body)["echo"]["text"] == "a\ud800"


class OddEvents(Handler):
    """Streams one good event, then what ``text`` names."""

    async def stream(self, request: dict[str, Any], context: CallContext) -> Any:
        text = request.get("text", "")

        async def events() -> AsyncIterator[Any]:
            yield {"n": 0}
            if text == "nan":
                yield {"n": float("nan")}
            elif text == "not-a-dict":
                yield ["n", 1]
            elif text == "surrogate":
                yield {"n": "\udfff"}
            elif text == "cancelled":
                raise asyncio.CancelledError  # e.g. awaiting a task cancelled elsewhere
            yield {"n": 2}

        return events()


@pytest.mark.parametrize("text", ["nan", "not-a-dict"])
def test_a_stream_event_that_is_no_json_object_ends_the_stream_with_an_error(
    text: str,
) -> None:
    """A NaN went out as a bare ``NaN`` (no JSON), a list as a non-object event."""
    app = make_app(OddEvents())
    body = json.dumps({"text": text}).encode()
    http = run(drive(app, "POST", "/message:stream", body=body, headers=V))
    events = [(e.id, _strict(e.data.encode())) for e in parse_sse(http.chunks)]
    assert events == [
        ("0", {"n": 0}),
        (
            "1",
            {"error": {"code": 500, "status": "INTERNAL", "message": "internal error"}},
        ),
    ]
    rpc = run(
        drive(app, "POST", "/", body=rpc_body("Stream", {"text": text}, 3), headers=V)
    )
    last = [_strict(e.data.encode()) for e in parse_sse(rpc.chunks)][-1]
    assert last == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32603, "message": "internal error"},
    }


def test_a_stream_event_with_a_lone_surrogate_is_sent_escaped() -> None:
    app = make_app(OddEvents())
    http = run(
        drive(app, "POST", "/message:stream", body=b'{"text":"surrogate"}', headers=V)
    )
    assert [_strict(e.data.encode()) for e in parse_sse(http.chunks)] == [
        {"n": 0},
        {"n": "\udfff"},
        {"n": 2},
    ]


class Cancelled(Handler):
    async def send(self, request: dict[str, Any], context: CallContext) -> Any:
        if request.get("text") == "wait":
            self.started.set()
            await asyncio.Event().wait()
        loser = asyncio.ensure_future(asyncio.sleep(10))
        loser.cancel()
        return await loser  # CancelledError, though nobody cancelled this request


def test_a_cancelled_error_raised_by_a_handler_is_a_handler_failure() -> None:
    """It escaped the app: the server answered a plain-text 500 (JSON-RPC too)."""
    app = make_app(Cancelled())
    http = run(drive(app, "POST", "/message:send", body=b"{}", headers=V))
    assert http.status == 500 and http.json()["error"]["status"] == "INTERNAL"
    rpc = run(drive(app, "POST", "/", body=rpc_body("Send", {}, 4), headers=V))
    assert rpc.status == 200 and rpc.json()["error"] == {
        "code": -32603,
        "message": "internal error",
    }


def test_a_cancelled_error_mid_stream_is_the_last_event_and_the_stream_ends() -> None:
    """The stream used to stop without an error event or its end (more_body False)."""
    app = make_app(OddEvents())
    answer = run(
        drive(app, "POST", "/message:stream", body=b'{"text":"cancelled"}', headers=V)
    )
    assert [_strict(e.data.encode()) for e in parse_sse(answer.chunks)] == [
        {"n": 0},
        {"error": {"code": 500, "status": "INTERNAL", "message": "internal error"}},
    ]
    assert answer.chunks[-1] == b""  # drive saw the final body message


def test_cancelling_the_request_still_cancels_it() -> None:
    """The handler's own CancelledError is answered; a real cancellation propagates."""
    handler = Cancelled()

    async def scenario() -> list[MutableMapping[str, Any]]:
        sent: list[MutableMapping[str, Any]] = []
        body = [{"type": "http.request", "body": b'{"text":"wait"}'}]

        async def receive() -> dict[str, Any]:
            if body:
                return body.pop()
            await asyncio.Event().wait()
            raise AssertionError

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "method": "POST",
            "path": "/message:send",
            "raw_path": b"/message:send",
            "query_string": b"",
            "headers": V,
        }
        task = asyncio.ensure_future(make_app(handler)(scope, receive, send))
        await handler.started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return sent

    assert run(scenario()) == []


class BadRefusals(Handler):
    async def send(self, request: dict[str, Any], context: CallContext) -> Any:
        raise InvalidArgument("bad", [None])  # type: ignore[list-item]

    async def get(self, request: dict[str, Any], context: CallContext) -> Any:
        raise InvalidArgument("bad", [("field", object())])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("path", "rpc", "params"),
    [("/message:send", "Send", {}), ("/tasks/x", "Get", {"id": "x"})],
)
def test_a_refusal_that_cannot_be_written_is_a_500(
    path: str, rpc: str, params: dict[str, Any]
) -> None:
    """Building the error answer itself failed: the exception left the app."""
    app = make_app(BadRefusals())
    verb = "POST" if rpc == "Send" else "GET"
    body = b"{}" if rpc == "Send" else b""
    http = run(drive(app, verb, path, body=body, headers=V))
    assert http.status == 500 and http.json()["error"]["message"] == "internal error"
    answer = run(drive(app, "POST", "/", body=rpc_body(rpc, params, 5), headers=V))
    assert answer.status == 200 and answer.json()["error"]["code"] == -32603


def test_a_handler_answering_a_read_only_mapping_is_served() -> None:
    """``_call`` accepts any Mapping; HTTP+JSON then failed to encode it (500)."""
    from types import MappingProxyType

    class Proxy(Handler):
        async def get(self, request: dict[str, Any], context: CallContext) -> Any:
            return MappingProxyType({"id": request["id"]})

    answer = run(drive(make_app(Proxy()), "GET", "/tasks/x", headers=V))
    assert answer.status == 200 and answer.json() == {"id": "x"}


@pytest.mark.parametrize(
    "body",
    [
        rpc_body("Send", {}, 6),  # the handler raises CancelledError
        b'{"jsonrpc":"2.0","id":6,"method":"\\ud800"}',  # echoed in -32601's message
    ],
)
def test_under_uvicorn_jsonrpc_failures_stay_jsonrpc_answers(body: bytes) -> None:
    """Before the fixes both left the app and uvicorn answered ``500 text/plain``."""
    import httpx

    from ..servers import running

    with running(make_app(Cancelled())) as base:
        answer = httpx.post(
            base + "/", content=body, headers={"A2A-Version": "1.0"}, timeout=10
        )
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    envelope = _strict(answer.content)
    assert envelope["id"] == 6 and envelope["error"]["code"] in (-32603, -32601)


@pytest.mark.parametrize("path", ["/message:send", "/"])
def test_keyboard_interrupt_from_a_handler_is_not_swallowed(path: str) -> None:
    """Only Exceptions and a handler's own CancelledError are answered."""

    class Interrupted(Handler):
        async def send(self, request: dict[str, Any], context: CallContext) -> Any:
            raise KeyboardInterrupt

    body = b"{}" if path != "/" else rpc_body("Send", {})
    with pytest.raises(KeyboardInterrupt):
        run(drive(make_app(Interrupted()), "POST", path, body=body, headers=V))


def test_cancelling_a_jsonrpc_request_still_cancels_it() -> None:
    handler = Cancelled()

    async def scenario() -> None:
        body = [{"type": "http.request", "body": rpc_body("Send", {"text": "wait"})}]

        async def receive() -> dict[str, Any]:
            return body.pop()

        async def send(message: MutableMapping[str, Any]) -> None:
            raise AssertionError(f"nothing is sent for a cancelled request: {message}")

        scope = {"type": "http", "method": "POST", "path": "/", "headers": V}
        task = asyncio.ensure_future(make_app(handler)(scope, receive, send))
        await handler.started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(scenario())

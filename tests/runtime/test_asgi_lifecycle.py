"""The ASGI application's life cycle: how a request ends, whatever ends it.

Pinned here, on top of ``test_asgi.py``'s harness: a stream is closed when its client
leaves even before the first event, a card given as a callable has a ``Last-Modified``
that follows its bytes, HEAD is served for GET routes, websockets are refused with a
close, JSON-RPC ids come back byte for byte, a handler's ``SystemExit`` is answered (a
``KeyboardInterrupt`` answered, then re-raised), ``call_timeout`` bounds a call (the
wait for the first event of a stream), and the logger is named after the package.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
import email.utils
import importlib
import json
import logging
import shutil
import sys
from collections.abc import AsyncIterator, Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from codegen.render import runtime_files
from codegen.runtime import LAYERS
from codegen.runtime._asgi import CallContext
from tests.runtime.test_asgi import (
    CARD,
    JSON,
    METHODS,
    MODIFIED,
    RPC,
    TABLE,
    V,
    Handler,
    drive,
    make_app,
    rpc_body,
    run,
)

CARD_PATH = "/.well-known/agent-card.json"
INTERNAL = {"error": {"code": 500, "status": "INTERNAL", "message": "internal error"}}


# ------------------------------------------------------------------- a small peer


def http_scope(
    method: str, path: str, headers: Sequence[tuple[bytes, bytes]] = V
) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": list(headers),
        "server": ("test", 80),
    }


@dataclass
class Client:
    """An ASGI peer: gives ``messages``, then leaves ``leave_after`` seconds after the
    app first asks for more (or, when None, once the response is complete)."""

    messages: list[dict[str, Any]]
    leave_after: float | None = None
    sent: list[MutableMapping[str, Any]] = field(default_factory=list)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    _deadline: float | None = None

    async def receive(self) -> dict[str, Any]:
        if self.messages:
            return self.messages.pop(0)
        if self.leave_after is None:
            await self.finished.wait()
        else:
            loop = asyncio.get_running_loop()
            if self._deadline is None:
                self._deadline = loop.time() + self.leave_after
            await asyncio.sleep(max(0.0, self._deadline - loop.time()))
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        self.sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            self.finished.set()


def request(body: bytes) -> list[dict[str, Any]]:
    return [{"type": "http.request", "body": body, "more_body": False}]


@dataclass
class Slow(Handler):
    """Waits ``unary_after`` seconds before answering Send; streams its first event
    after ``first_after`` seconds and, when ``second_after`` is set, a second one that
    much later. ``exits`` records how the wait ended."""

    unary_after: float = 3.0
    first_after: float = 3.0
    second_after: float | None = None
    exits: list[str] = field(default_factory=list)

    async def send(self, request: dict[str, Any], context: CallContext) -> Any:
        try:
            await asyncio.sleep(self.unary_after)
        except asyncio.CancelledError:
            self.exits.append("cancelled")
            raise
        finally:
            self.exits.append("finally")
        return {"slept": self.unary_after}

    async def stream(self, request: dict[str, Any], context: CallContext) -> Any:
        return self._slow_events()

    async def _slow_events(self) -> AsyncIterator[Any]:
        try:
            await asyncio.sleep(self.first_after)
            yield {"n": 0}
            if self.second_after is not None:
                await asyncio.sleep(self.second_after)
                yield {"n": 1}
        except asyncio.CancelledError:
            self.exits.append("cancelled")
            raise
        except GeneratorExit:
            self.exits.append("closed")
            raise
        finally:
            self.exits.append("finally")


STREAMS = [
    pytest.param("/message:stream", b'{"text": "x"}', id="http+json"),
    pytest.param("/", rpc_body("Stream", {"text": "x"}, 1), id="jsonrpc"),
]


# -------------------------------------------------- 1. a client leaving a stream early


@pytest.mark.parametrize("path, body", STREAMS)
def test_a_client_leaving_before_the_first_event_closes_the_stream(
    path: str, body: bytes
) -> None:
    """A client gone before the first event: app back in 0.5 s, generator closed."""
    handler = Slow(first_after=3.0)

    async def scenario() -> tuple[float, set[asyncio.Task[Any]]]:
        client = Client(request(body), leave_after=0.1)
        before = asyncio.all_tasks()
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            await asyncio.wait_for(
                make_app(handler)(
                    http_scope("POST", path), client.receive, client.send
                ),
                0.6,
            )
        except asyncio.TimeoutError:
            pytest.fail("the app still waited for the first event 0.6 s after it began")
        elapsed = loop.time() - start
        return elapsed, asyncio.all_tasks() - before

    elapsed, left = run(scenario())
    assert elapsed < 0.5
    assert "finally" in handler.exits
    assert left == set()


# --------------------------------------------- 2. Last-Modified of a callable card


@pytest.mark.parametrize(
    "last_modified", [MODIFIED, None], ids=["last-modified-given", "none-given"]
)
def test_a_callable_card_has_a_last_modified_that_follows_its_bytes(
    last_modified: Any,
) -> None:
    """A changed card: new ETag, a later-second Last-Modified, 304s that follow."""
    card: dict[str, Any] = {"name": "unit", "version": "1"}
    app = make_app(agent_card=lambda base: card, agent_card_last_modified=last_modified)

    def get(*headers: tuple[bytes, bytes]) -> Any:
        return run(drive(app, "GET", CARD_PATH, headers=headers))

    first = get()
    assert first.status == 200 and first.json() == card
    e1, l1 = first.headers["etag"], first.headers["last-modified"]
    same = get()
    assert same.headers["etag"] == e1 and same.headers["last-modified"] == l1
    cached = get((b"if-none-match", e1.encode()))
    assert cached.status == 304 and cached.body == b""
    assert cached.headers["etag"] == e1

    card["version"] = "2"  # within the same second as the first GET, or later
    changed = get()
    assert changed.status == 200 and changed.json() == {"name": "unit", "version": "2"}
    e2, l2 = changed.headers["etag"], changed.headers.get("last-modified")
    assert e2 != e1
    first_date = email.utils.parsedate_to_datetime(l1)
    if l2 is None:  # changed within the second of the last date: the ETag decides
        assert last_modified is None
    else:
        assert email.utils.parsedate_to_datetime(l2) > first_date
        assert email.utils.parsedate_to_datetime(l2) <= datetime.now(timezone.utc)
    stale = get((b"if-modified-since", l1.encode()))
    assert stale.status == 200 and stale.json() == {"name": "unit", "version": "2"}
    assert stale.headers["etag"] == e2
    current = get((b"if-none-match", e2.encode()))
    assert current.status == 304 and current.body == b""
    assert current.headers["etag"] == e2
    if l2 is not None:
        dated = get((b"if-modified-since", l2.encode()))
        assert dated.status == 304 and dated.headers["etag"] == e2


def test_a_card_that_changes_back_is_not_hidden_by_its_old_date() -> None:
    """A -> B -> A: the last A is newer than B, so a client holding B gets it."""
    card: dict[str, Any] = {"name": "unit", "version": "1"}
    app = make_app(
        agent_card=lambda base: dict(card), agent_card_last_modified=MODIFIED
    )

    def get(*headers: tuple[bytes, bytes]) -> Any:
        return run(drive(app, "GET", CARD_PATH, headers=headers))

    get()
    card["version"] = "2"
    b = get()
    card["version"] = "1"
    back = get((b"if-modified-since", b.headers["last-modified"].encode()))
    assert back.status == 200 and back.json()["version"] == "1"
    assert back.headers["etag"] != b.headers["etag"]


def test_dates_of_per_request_cards_never_run_ahead_of_the_clock() -> None:
    """Each Host gets its own rendering; none is dated after now."""
    app = make_app(
        agent_card=lambda base: {"name": base}, agent_card_last_modified=MODIFIED
    )
    for number in range(300):
        host = f"h{number}.example".encode()
        answer = run(drive(app, "GET", CARD_PATH, headers=[(b"host", host)]))
        date = email.utils.parsedate_to_datetime(answer.headers["last-modified"])
        assert date <= datetime.now(timezone.utc)
    assert len(app.documents._renderings) == 256


def test_a_card_callable_taking_two_arguments_gets_the_tenant_of_its_path() -> None:
    """``/{tenant}/.well-known/agent-card.json`` can say which tenant it is for
    (AgentInterface.tenant): ``""`` at the root, the decoded segment otherwise; each
    tenant's card has its own ETag."""
    asked: list[tuple[str, str]] = []

    def card(base_url: str, tenant: str) -> dict[str, Any]:
        asked.append((base_url, tenant))
        interface = {"url": base_url, "protocolBinding": "HTTP+JSON", "tenant": tenant}
        return {"name": "unit", "supportedInterfaces": [interface]}

    app = make_app(agent_card=card, agent_card_last_modified=MODIFIED)
    answers = {
        path: run(drive(app, "GET", path))
        for path in (CARD_PATH, "/t1" + CARD_PATH, "/caf%C3%A9" + CARD_PATH)
    }
    tenants = [a.json()["supportedInterfaces"][0]["tenant"] for a in answers.values()]
    assert tenants == ["", "t1", "café"]
    assert [tenant for _, tenant in asked] == ["", "t1", "café"]
    assert len({a.headers["etag"] for a in answers.values()}) == 3
    again = run(drive(app, "GET", "/t1" + CARD_PATH))
    assert again.headers["etag"] == answers["/t1" + CARD_PATH].headers["etag"]
    head = run(drive(app, "HEAD", "/t1" + CARD_PATH))
    assert head.status == 200 and head.body == b""
    assert head.headers["etag"] == again.headers["etag"]


@pytest.mark.parametrize(
    "source",
    [
        lambda base: {"name": base},
        lambda base, *rest: {"name": base + "|" + "|".join(rest)},
        lambda base, tenant="": {"name": base + "|" + tenant},
    ],
    ids=["one-argument", "varargs", "defaulted-tenant"],
)
def test_one_argument_card_callables_keep_working(source: Any) -> None:
    """A callable that takes one argument gets only the base URL, for every tenant
    (one rendering); one that can take two gets the tenant."""
    app = make_app(agent_card=source, agent_card_last_modified=MODIFIED)
    root = run(drive(app, "GET", CARD_PATH)).json()["name"]
    tenant = run(drive(app, "GET", "/t1" + CARD_PATH)).json()["name"]
    if root.endswith("|"):
        assert tenant == root + "t1"
    else:
        assert tenant == root and "|" not in root
        assert len(app.documents._renderings) == 1


def test_a_card_callable_python_cannot_inspect_gets_one_argument() -> None:
    """A builtin without a signature is called as the one-argument form was."""
    from codegen.runtime._documents import _takes_two

    assert _takes_two(lambda a, b: None) and not _takes_two(lambda a: None)
    assert not _takes_two(max) and not _takes_two(lambda *, tenant: None)


def test_a_fixed_card_keeps_the_last_modified_it_was_given() -> None:
    """For a card that is no callable, Last-Modified stays agent_card_last_modified."""
    app = make_app()
    for _ in range(2):
        answer = run(drive(app, "GET", CARD_PATH))
        assert answer.status == 200 and answer.json() == CARD
        assert answer.headers["last-modified"] == "Fri, 02 Jan 2026 03:04:05 GMT"


# ------------------------------------------------------- 3. HEAD for the GET routes


@pytest.mark.parametrize(
    "headers, status",
    [(V, 200), ([], 400)],
    ids=["answered", "refused-without-version"],
)
def test_head_on_a_get_route_is_the_get_answer_without_its_body(
    headers: list[tuple[bytes, bytes]], status: int
) -> None:
    """HEAD /tasks/abc: GET's status and headers without the body; handler called."""
    handler = Handler()
    app = make_app(handler)
    get = run(drive(app, "GET", "/tasks/abc", headers=headers))
    head = run(drive(app, "HEAD", "/tasks/abc", headers=headers))
    assert get.status == status and get.body
    assert head.status == status
    assert head.body == b""
    assert head.raw_headers == get.raw_headers
    assert head.headers["content-type"] == "application/a2a+json"
    assert head.headers["content-length"] == str(len(get.body))
    if status == 200:
        assert [(rpc, request) for rpc, request, _ in handler.seen] == [
            ("Get", {"id": "abc"}),
            ("Get", {"id": "abc"}),
        ]
        assert handler.seen[1][2].binding == "http+json"


def test_head_where_only_post_is_routed_is_405() -> None:
    """HEAD /message:send is 405; only POST is allowed there."""
    answer = run(drive(make_app(), "HEAD", "/message:send", headers=V))
    assert answer.status == 405 and answer.headers["allow"] == "POST"


@pytest.mark.parametrize(
    "verb, path, allow",
    [
        ("POST", "/tasks/abc", "DELETE, GET, HEAD"),
        ("PUT", "/tasks/abc", "DELETE, GET, HEAD"),
        ("PUT", "/acme/tasks/abc", "GET, HEAD"),
    ],
)
def test_allow_lists_head_wherever_it_lists_get(
    verb: str, path: str, allow: str
) -> None:
    """A 405's Allow names HEAD next to GET."""
    answer = run(drive(make_app(), verb, path, headers=V))
    assert answer.status == 405 and answer.headers["allow"] == allow


# ------------------------------------------------------------ 4. websockets refused


def test_a_websocket_is_refused_with_a_close(caplog: pytest.LogCaptureFixture) -> None:
    """A websocket gets one websocket.close; the app returns, logging no ERROR."""
    sent: list[MutableMapping[str, Any]] = []
    incoming = [{"type": "websocket.connect"}]

    async def receive() -> dict[str, Any]:
        if incoming:
            return incoming.pop(0)
        return {"type": "websocket.disconnect", "code": 1006}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "websocket",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "scheme": "ws",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"test")],
        "server": ("test", 80),
        "subprotocols": [],
    }
    with caplog.at_level(logging.DEBUG):
        run(asyncio.wait_for(make_app()(scope, receive, send), 1.0))
    assert len(sent) == 1 and sent[0]["type"] == "websocket.close"
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


# ------------------------------------------------------ 5. JSON-RPC ids byte for byte

BIG_FLOAT = b"9007199254740993.0"  # 2**53 + 1: no double holds it


@pytest.mark.parametrize(
    "raw_id",
    [BIG_FLOAT, b"12345678901234567890123", b'"r-1"'],
    ids=["integral-float", "big-integer", "string"],
)
@pytest.mark.parametrize(
    "method, params, expected",
    [
        ("Get", b'{"id":"x"}', b'"result":'),
        ("Nope", b"{}", b'"code":-32601'),
        ("Send", b'{"text":"missing"}', b'"code":-32001'),
    ],
    ids=["result", "unknown-method", "handler-error"],
)
def test_jsonrpc_ids_are_echoed_as_sent(
    raw_id: bytes, method: str, params: bytes, expected: bytes
) -> None:
    """The response's raw bytes hold ``"id":<the id as sent>``, result or error."""
    body = b'{"jsonrpc":"2.0","id":%s,"method":"%s","params":%s}' % (
        raw_id,
        method.encode(),
        params,
    )
    answer = run(drive(make_app(), "POST", "/", body=body, headers=[*V, *JSON]))
    assert answer.status == 200
    assert b'"id":' + raw_id in answer.body
    assert expected in answer.body


def test_jsonrpc_stream_events_echo_the_id_as_sent() -> None:
    """Each event of a JSON-RPC stream holds ``"id":9007199254740993.0``."""
    body = b'{"jsonrpc":"2.0","id":%s,"method":"Stream","params":{"text":"x"}}' % (
        BIG_FLOAT
    )
    answer = run(drive(make_app(), "POST", "/", body=body, headers=V))
    assert answer.headers["content-type"] == "text/event-stream"
    assert [number for number, _ in answer.events()] == ["0", "1"]
    events = [event for event in answer.body.split(b"\n\n") if event.strip()]
    assert len(events) == 2
    for event in events:
        assert b'"id":9007199254740993.0' in event and b'"result":' in event


def test_a_non_integral_float_id_is_still_refused() -> None:
    """``"id": 1.5`` is -32600 with id null."""
    body = b'{"jsonrpc":"2.0","id":1.5,"method":"Get","params":{"id":"x"}}'
    answer = run(drive(make_app(), "POST", "/", body=body, headers=V))
    assert answer.status == 200
    envelope = answer.json()
    assert envelope["id"] is None and envelope["error"]["code"] == -32600


# ------------------------------------------- 6. SystemExit and KeyboardInterrupt


class Exiting(Handler):
    """Send raises ``exception``."""

    def __init__(self, exception: type[BaseException]) -> None:
        super().__init__()
        self.exception = exception

    async def send(self, request: dict[str, Any], context: CallContext) -> Any:
        raise self.exception


FAILURES = pytest.mark.parametrize(
    "path, body, status, answer",
    [
        ("/message:send", b"{}", 500, INTERNAL),
        (
            "/",
            rpc_body("Send", {}, 4),
            200,
            {
                "jsonrpc": "2.0",
                "id": 4,
                "error": {"code": -32603, "message": "internal error"},
            },
        ),
    ],
    ids=["http+json", "jsonrpc"],
)


def answered(client: Client) -> tuple[int, Any]:
    """The status and decoded body of the one complete answer ``client`` got."""
    assert [m["type"] for m in client.sent] == [
        "http.response.start",
        "http.response.body",
    ]
    assert not client.sent[1].get("more_body", False)
    return client.sent[0]["status"], json.loads(client.sent[1]["body"])


@FAILURES
def test_a_handler_system_exit_is_a_handler_failure(
    path: str,
    body: bytes,
    status: int,
    answer: dict[str, Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """SystemExit: answered 500 INTERNAL / -32603 and logged; the app returns."""
    client = Client(request(body))
    app = make_app(Exiting(SystemExit))
    with caplog.at_level(logging.ERROR):
        # In the main task: a SystemExit out of another task (drive's wait_for) leaves
        # Python 3.11's ast module broken, so pytest could not report later failures.
        try:
            run(app(http_scope("POST", path), client.receive, client.send))
        except SystemExit:
            pytest.fail("the handler's SystemExit left the app")
    assert answered(client) == (status, answer)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].levelno == logging.ERROR
    assert errors[0].exc_info is not None and errors[0].exc_info[0] is SystemExit


@FAILURES
def test_a_handler_keyboard_interrupt_is_answered_then_raised(
    path: str, body: bytes, status: int, answer: dict[str, Any]
) -> None:
    """KeyboardInterrupt: the client gets the 500 / -32603 first, then it propagates."""
    client = Client(request(body))
    app = make_app(Exiting(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        run(app(http_scope("POST", path), client.receive, client.send))
    assert answered(client) == (status, answer)


# -------------------------------------------------------------------- 7. call_timeout


def test_a_unary_call_over_call_timeout_is_cancelled_and_504() -> None:
    """HTTP+JSON: the handler is cancelled, the answer 504 DEADLINE_EXCEEDED."""
    handler = Slow(unary_after=3.0)
    app = make_app(handler, call_timeout=0.1)
    answer = run(
        asyncio.wait_for(
            drive(app, "POST", "/message:send", body=b"{}", headers=V), 1.0
        )
    )
    assert answer.status == 504
    assert answer.headers["content-type"] == "application/a2a+json"
    assert set(answer.json()) == {"error"}
    error = answer.json()["error"]
    assert set(error) == {"code", "status", "message"}
    assert error["code"] == 504 and error["status"] == "DEADLINE_EXCEEDED"
    assert isinstance(error["message"], str) and error["message"]
    assert handler.exits == ["cancelled", "finally"]


def test_a_jsonrpc_call_over_call_timeout_is_cancelled_and_32603() -> None:
    """JSON-RPC: HTTP 200, error -32603 naming the deadline, with the request's id."""
    handler = Slow(unary_after=3.0)
    app = make_app(handler, call_timeout=0.1)
    answer = run(
        asyncio.wait_for(
            drive(app, "POST", "/", body=rpc_body("Send", {}, "t-1"), headers=V), 1.0
        )
    )
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/json"
    envelope = answer.json()
    assert set(envelope) == {"jsonrpc", "id", "error"}
    assert envelope["jsonrpc"] == "2.0" and envelope["id"] == "t-1"
    assert set(envelope["error"]) == {"code", "message"}
    assert envelope["error"]["code"] == -32603
    assert "deadline" in envelope["error"]["message"].lower()
    assert handler.exits == ["cancelled", "finally"]


@pytest.mark.parametrize(
    "path, body, expected",
    [
        ("/message:send", b"{}", {"slept": 0.05}),
        (
            "/",
            rpc_body("Send", {}, 2),
            {"jsonrpc": "2.0", "id": 2, "result": {"slept": 0.05}},
        ),
    ],
    ids=["http+json", "jsonrpc"],
)
def test_a_call_within_call_timeout_is_answered(
    path: str, body: bytes, expected: dict[str, Any]
) -> None:
    """A handler done before call_timeout is answered as without one."""
    handler = Slow(unary_after=0.05)
    app = make_app(handler, call_timeout=1)
    answer = run(asyncio.wait_for(drive(app, "POST", path, body=body, headers=V), 1.0))
    assert answer.status == 200 and answer.json() == expected
    assert handler.exits == ["finally"]


@pytest.mark.parametrize("path, body", STREAMS)
def test_call_timeout_bounds_the_wait_for_the_first_event(
    path: str, body: bytes
) -> None:
    """A first event later than call_timeout: a plain 504 / -32603, generator closed."""
    handler = Slow(first_after=3.0)
    app = make_app(handler, call_timeout=0.1)
    answer = run(asyncio.wait_for(drive(app, "POST", path, body=body, headers=V), 1.0))
    if path == "/":
        assert answer.status == 200
        assert answer.headers["content-type"] == "application/json"
        envelope = answer.json()
        assert set(envelope) == {"jsonrpc", "id", "error"} and envelope["id"] == 1
        assert set(envelope["error"]) == {"code", "message"}
        assert envelope["error"]["code"] == -32603
        assert "deadline" in envelope["error"]["message"].lower()
    else:
        assert answer.status == 504
        assert answer.headers["content-type"] == "application/a2a+json"
        error = answer.json()["error"]
        assert set(error) == {"code", "status", "message"}
        assert error["code"] == 504 and error["status"] == "DEADLINE_EXCEEDED"
    assert "finally" in handler.exits


@pytest.mark.parametrize("path, body", STREAMS)
def test_a_stream_started_in_time_may_outlast_call_timeout(
    path: str, body: bytes
) -> None:
    """First event within call_timeout, the second after it: both sent, normal end."""
    handler = Slow(first_after=0.0, second_after=0.3)
    app = make_app(handler, call_timeout=0.15)
    answer = run(asyncio.wait_for(drive(app, "POST", path, body=body, headers=V), 1.0))
    assert answer.status == 200
    assert answer.headers["content-type"] == "text/event-stream"
    results = [event for _, event in answer.events()]
    if path == "/":
        results = [envelope["result"] for envelope in results]
    assert results == [{"n": 0}, {"n": 1}]
    assert answer.chunks[-1] == b""
    assert handler.exits == ["finally"]


@pytest.mark.parametrize("value", [0, -1, "x"])
def test_call_timeout_must_be_a_positive_number(value: Any) -> None:
    """0, -1 and "x" are refused with ValueError when the app is made."""
    with pytest.raises(ValueError, match="call_timeout"):
        make_app(call_timeout=value)


def test_call_timeout_defaults_to_no_limit() -> None:
    """Without call_timeout, or with None, a slow handler is simply waited for."""
    for options in ({}, {"call_timeout": None}):
        handler = Slow(unary_after=0.2)
        app = make_app(handler, **options)
        answer = run(drive(app, "POST", "/message:send", body=b"{}", headers=V))
        assert answer.status == 200 and answer.json() == {"slept": 0.2}
        assert handler.exits == ["finally"]


# ---------------------------------------------------------------- 8. the logger name


def test_handler_failures_are_logged_under_the_package_logger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """In this repository the logger is ``codegen.runtime.asgi``."""
    with caplog.at_level(logging.ERROR):
        answer = run(
            drive(
                make_app(), "POST", "/message:send", body=b'{"text":"boom"}', headers=V
            )
        )
    assert answer.status == 500
    assert caplog.records
    assert {record.name for record in caplog.records} == {"codegen.runtime.asgi"}


@pytest.fixture
def copied_runtime(tmp_path: Path) -> Iterator[ModuleType]:
    """The runtime's ``_*.py`` modules (of every layer) copied into a package
    ``mypkg``, as generation does; its ``_asgi`` imported (and forgotten afterwards)."""
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, module in runtime_files(LAYERS).items():
        shutil.copy(module, package / name)
    assert "mypkg" not in sys.modules
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("mypkg._asgi")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "mypkg" or n.startswith("mypkg.")]:
            del sys.modules[name]


def test_the_logger_is_named_after_the_package_it_is_copied_into(
    copied_runtime: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    """Copied as ``mypkg._asgi``, the runtime logs under ``mypkg.asgi``."""
    app = copied_runtime.A2AApplication(
        Handler(),
        methods=METHODS,
        routes=TABLE,
        jsonrpc=RPC,
        tenant_field="tenant",
        agent_card_path=CARD_PATH,
        agent_card=CARD,
        options=copied_runtime.ServeOptions(
            supported_versions=("1.0",), agent_card_last_modified=MODIFIED
        ),
    )
    with caplog.at_level(logging.ERROR):
        answer = run(
            drive(app, "POST", "/message:send", body=b'{"text":"boom"}', headers=V)
        )
    assert answer.status == 500
    # asyncio may log a task another test left behind, whenever it is collected.
    names = {record.name for record in caplog.records} - {"asyncio"}
    assert names == {"mypkg.asgi"}


def test_a_routes_module_instead_of_its_table_is_refused_at_creation() -> None:
    """``routes=`` takes the table (the generated ``routes.TABLE``), which the app asks
    for ``request``; anything else would fail on every request."""
    import types

    module = types.ModuleType("routes")
    with pytest.raises(TypeError, match=r"routes\.TABLE"):
        make_app(routes=module)

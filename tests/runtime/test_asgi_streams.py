"""How a stream ends, once its 200 is out: the stream is the only sender, whatever
fails (a send, the handler's ``finally``, an interrupt); a handler that is an ``async
def`` returning its iterator is watched and bounded like a generator; the request's
task is left with no cancellation request of the watcher's or the deadline's."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, MutableMapping
from typing import Any

import pytest

from tests.runtime.apps import application
from codegen.runtime._asgi import A2AApplication, CallContext
from codegen.runtime._jsonrpc import JsonRpcBinding, Method
from codegen.runtime._paths import Capture, Route, RouteTable
from codegen.runtime._query import QueryCodecs
from tests.runtime.test_asgi import V, Handler, make_app, rpc_body, run

STREAM = [{"type": "http.request", "body": b"{}", "more_body": False}]


class StrictPeer:
    """An ASGI server's side, as strict as uvicorn's: one response start, then bodies;
    ``fail_on`` makes the n-th body send raise ``ConnectionResetError``."""

    def __init__(self, *, fail_on: int | None = None, leave_after: float | None = None):
        self.sent: list[MutableMapping[str, Any]] = []
        self.fail_on = fail_on
        self.leave_after = leave_after
        self.done = asyncio.Event()
        self.messages = [dict(m) for m in STREAM]

    async def receive(self) -> dict[str, Any]:
        if self.messages:
            return self.messages.pop(0)
        if self.leave_after is not None:
            await asyncio.sleep(self.leave_after)
        else:
            await self.done.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        starts = [m for m in self.sent if m["type"] == "http.response.start"]
        if message["type"] == "http.response.start" and starts:
            raise RuntimeError("a second http.response.start")
        bodies = sum(1 for m in self.sent if m["type"] == "http.response.body")
        if message["type"] == "http.response.body" and bodies + 1 == self.fail_on:
            raise ConnectionResetError("the client is gone")
        self.sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            self.done.set()

    def statuses(self) -> list[int]:
        return [m["status"] for m in self.sent if m["type"] == "http.response.start"]


def scope(path: str = "/message:stream", method: str = "POST") -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "headers": V}


async def serve(app: A2AApplication, peer: StrictPeer, where: dict[str, Any]) -> int:
    """Runs the app in a task of its own; returns the task's cancellation count."""

    async def request() -> int:
        await app(where, peer.receive, peer.send)
        task = asyncio.current_task()
        return task.cancelling() if task is not None else 0  # type: ignore[attr-defined]

    return await asyncio.wait_for(asyncio.ensure_future(request()), 5)


class Events(Handler):
    def __init__(self, events: Any) -> None:
        super().__init__()
        self.make = events

    async def stream(self, request: dict[str, Any], context: CallContext) -> Any:
        return self.make()


async def two_then(error: BaseException | None = None) -> AsyncIterator[Any]:
    yield {"n": 0}
    yield {"n": 1}
    if error is not None:
        raise error


@pytest.mark.parametrize("path", ["/message:stream", "/"])
def test_a_send_failing_mid_stream_is_logged_not_answered_again(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(Events(two_then))
    peer = StrictPeer(fail_on=2)
    where = scope(path)
    if path == "/":
        peer.messages[0]["body"] = rpc_body("Stream", {})
    with caplog.at_level(logging.DEBUG):
        run(serve(app, peer, where))
    assert peer.statuses() == [200]
    assert "stream ended early" in caplog.text


def test_a_keyboard_interrupt_mid_stream_is_the_last_event_then_raised() -> None:
    app = make_app(Events(lambda: two_then(KeyboardInterrupt())))
    peer = StrictPeer()

    async def scenario() -> None:
        await app(scope(), peer.receive, peer.send)

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(scenario())
    assert peer.statuses() == [200]
    bodies = [m["body"] for m in peer.sent if m["type"] == "http.response.body"]
    assert b'"n":1' in bodies[1] and b'"INTERNAL"' in bodies[2]


def test_a_failing_finally_of_the_handler_is_logged_not_answered_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def events() -> AsyncIterator[Any]:
        try:
            yield {"n": 0}
            yield {"n": object()}  # ends the stream: the iterator is closed
        finally:
            raise RuntimeError("cleanup failed")

    app = make_app(Events(events))
    peer = StrictPeer()
    with caplog.at_level(logging.ERROR):
        run(serve(app, peer, scope()))
    assert peer.statuses() == [200]
    assert "closing the stream failed" in caplog.text


class LateIterator(Handler):
    """An ``async def`` that awaits before it returns its iterator."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay
        self.exits: list[str] = []

    async def stream(self, request: dict[str, Any], context: CallContext) -> Any:
        try:
            await asyncio.sleep(self.delay)
        except asyncio.CancelledError:
            self.exits.append("cancelled")
            raise
        return two_then()


def test_the_disconnect_watch_covers_a_handler_that_returns_its_iterator_late() -> None:
    handler = LateIterator(5)
    peer = StrictPeer(leave_after=0.1)

    async def scenario() -> float:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await serve(make_app(handler), peer, scope())
        return loop.time() - start

    assert run(scenario()) < 1 and handler.exits == ["cancelled"]
    assert peer.sent == []


def test_call_timeout_covers_a_handler_that_returns_its_iterator_late() -> None:
    handler = LateIterator(5)
    peer = StrictPeer()
    run(serve(make_app(handler, call_timeout=0.1), peer, scope()))
    assert peer.statuses() == [504] and handler.exits == ["cancelled"]


class Swallowing(Handler):
    """Swallows the cancellation of its wait and answers or yields anyway."""

    async def send(self, request: dict[str, Any], context: CallContext) -> Any:
        try:
            await asyncio.sleep(1)
        except asyncio.CancelledError:
            raise ValueError("turned into another error") from None
        return {}

    async def stream(self, request: dict[str, Any], context: CallContext) -> Any:
        return self._swallow()

    async def _swallow(self) -> AsyncIterator[Any]:
        try:
            await asyncio.sleep(1)
        except asyncio.CancelledError:
            pass
        yield {"n": 0}


@pytest.mark.skipif(
    not hasattr(asyncio.Task, "cancelling"), reason="Python 3.11 counts cancellations"
)
def test_no_cancellation_request_is_left_on_the_request_task() -> None:
    unary = StrictPeer()
    unary.messages[0]["body"] = b"{}"
    left = run(
        serve(make_app(Swallowing(), call_timeout=0.05), unary, scope("/message:send"))
    )
    assert left == 0 and unary.statuses() == [500]
    stream = StrictPeer(leave_after=0.05)
    assert run(serve(make_app(Swallowing()), stream, scope())) == 0


def _get_stream_table() -> RouteTable[str]:
    route = Route(
        "Watch",
        "GET",
        "/watch/{id}",
        ("id",),
        None,
        None,
        "t.W",
        "t.E",
        True,
        False,
        False,
        segments=("watch", "*"),
        captures=(Capture("id", 1, 2),),
    )
    return RouteTable(
        (route,), query=QueryCodecs({"Watch": ()}, {}, {}), max_segments=2
    )


class Watcher:
    def __init__(self) -> None:
        self.calls = 0

    async def watch(self, request: dict[str, Any], context: CallContext) -> Any:
        self.calls += 1
        return two_then()


def test_head_on_a_streaming_get_route_answers_its_headers_without_the_handler() -> (
    None
):
    handler = Watcher()
    rpc = JsonRpcBinding({"Watch": Method("Watch", "t.W", "t.E", True, ())})
    app = application(
        handler,
        methods={"Watch": "watch"},
        routes=_get_stream_table(),
        jsonrpc=rpc,
        tenant_field="",
        agent_card_path="/.well-known/agent-card.json",
        agent_card={"name": "x"},
        supported_versions=("1.0",),
    )
    peer = StrictPeer()
    run(
        serve(
            app,
            peer,
            {"type": "http", "method": "HEAD", "path": "/watch/a", "headers": V},
        )
    )
    assert peer.statuses() == [200] and handler.calls == 0
    start = peer.sent[0]
    assert (b"content-type", b"text/event-stream") in start["headers"]
    assert peer.sent[1]["body"] == b""

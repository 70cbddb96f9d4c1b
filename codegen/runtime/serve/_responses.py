"""The ASGI answers the server sends: one function per kind of response, each the one
place that kind is sent.

``send_bytes`` is a whole body with its Content-Type and Content-Length (``head=True``
sends the same headers without the body, as HEAD asks); ``send_empty`` a status with
headers and no body (204, 304); ``send_events`` a stream fed by a handler's async
iterator (``text/event-stream``, or another ``Framing``), watching for the client's
disconnect from the start, and ``send_stream_head`` its headers alone; ``refuse_websocket`` turns a websocket away
before it is accepted.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, NamedTuple

from ._cancellation import handler_cancelled, uncancel, within
from ._dispatch import Dispatcher
from ._request import Receive, Send
from ._sse import SSE_CONTENT_TYPE, sse_frame

__all__ = [
    "Framing",
    "SSE",
    "refuse_websocket",
    "send_bytes",
    "send_empty",
    "send_events",
    "send_one_event",
    "send_stream_head",
]

_END = object()
_STOP = object()  # nothing more to send
_SSE_HEADERS = [
    (b"content-type", SSE_CONTENT_TYPE.encode()),
    (b"cache-control", b"no-cache"),
]


class Framing(NamedTuple):
    """How a stream goes out: its response headers, and ``frame(data, number,
    error)`` the bytes of one event from its JSON (``number`` counts from 0;
    ``error``: the last event, an error's)."""

    headers: list[tuple[bytes, bytes]]
    frame: Callable[[bytes, int, bool], bytes]


SSE = Framing(
    _SSE_HEADERS, lambda data, number, error: sse_frame(data, event_id=number)
)
"""Server-sent events, each ``data:`` the event's JSON as it is, ``id:`` its number."""


def _raw(headers: Sequence[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]


async def send_bytes(
    send: Send,
    status: int,
    body: bytes,
    content_type: str,
    headers: Sequence[tuple[str, str]] = (),
    *,
    head: bool = False,
) -> None:
    """A whole answer; with ``head`` the headers of it alone (HEAD)."""
    raw = [(b"content-type", content_type.encode("latin-1"))]
    if headers:
        raw += _raw(headers)
    raw.append((b"content-length", b"%d" % len(body)))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": b"" if head else body})


async def send_empty(
    send: Send, status: int, headers: Sequence[tuple[str, str]] = ()
) -> None:
    """A status without a body (204 No Content, 304 Not Modified)."""
    raw = _raw(headers)
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": b""})


async def send_stream_head(send: Send, framing: Framing = SSE) -> None:
    """The status and headers of a stream, without a stream (HEAD)."""
    await send(
        {"type": "http.response.start", "status": 200, "headers": framing.headers}
    )
    await send({"type": "http.response.body", "body": b""})


async def send_one_event(
    send: Send,
    data: bytes,
    extra: Sequence[tuple[str, str]] = (),
    framing: Framing = SSE,
) -> None:
    """A stream of one event, ``data`` the JSON of an error (a stream that failed
    before its first event, where a client reads errors as events only)."""
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": framing.headers + _raw(extra),
        }
    )
    await send({"type": "http.response.body", "body": framing.frame(data, 0, True)})


async def refuse_websocket(receive: Receive, send: Send) -> None:
    """Close a websocket before accepting it (servers answer the handshake 403)."""
    message = await receive()
    if message["type"] == "websocket.connect":
        await send({"type": "websocket.close", "code": 1008})


async def send_events(
    receive: Receive,
    send: Send,
    start: Callable[[], AsyncIterator[Any]],
    render: Callable[[Any], bytes],
    render_error: Callable[[BaseException], bytes],
    answer: Callable[[BaseException], Awaitable[None]],
    *,
    first_within: float | None = None,
    head: bool = False,
    log: logging.Logger,
    framing: Framing = SSE,
) -> None:
    """A stream, answered whatever happens: ``start()`` gives the handler's events,
    sent as ``framing`` says (default ``text/event-stream``) numbered from 0.

    ``render`` turns one event into its JSON bytes (raising for an event JSON cannot
    carry), ``render_error`` an error after the 200 into the JSON of the last event,
    and ``answer`` sends the ordinary error answer for an error before it. The 200
    goes out with the first event, so an error while starting or before the first
    event, or ``first_within`` seconds passing without it (``DeadlineExceeded``), is
    ``answer``ed; an error after it is the last event, and the stream ends. Once the
    200 is out this is the only sender: a failed send or a failing ``aclose`` is
    logged, not raised. A ``KeyboardInterrupt`` propagates once it is answered; a real
    cancellation propagates unanswered. With ``head`` the stream stops after the
    headers.

    The client's disconnect is watched from the start, by a task that only reads
    ``receive``: when the client leaves while the handler is starting or producing an
    event, the wait is cancelled and the stream stops quietly. The events are
    produced in the caller's task, so whatever the handler raises reaches the
    caller's error policy. The iterator is closed at the end in every case.
    """
    import asyncio  # here: a third of the package's import time, for streams only

    stream = _Stream(receive, send, render, render_error, framing, head, log)
    watcher = asyncio.ensure_future(stream.watch())
    try:
        first = await stream.first(start, answer, first_within)
        if first is not _STOP:
            await stream.pump(first)
    except asyncio.CancelledError:
        if not stream.taken_back():
            raise  # a real cancellation
    finally:
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        await stream.close()


class _Stream:
    """One streamed answer: the state its sender and the disconnect watcher share
    (``gone``: the client left; ``waiting``: the handler is starting or producing an
    event; ``cut``: the watcher cancelled the sender's task for it)."""

    def __init__(
        self,
        receive: Receive,
        send: Send,
        render: Callable[[Any], bytes],
        render_error: Callable[[BaseException], bytes],
        framing: Framing,
        head: bool,
        log: logging.Logger,
    ) -> None:
        import asyncio

        self.receive, self.send, self.log = receive, send, log
        self.render, self.render_error = render, render_error
        self.framing, self.head = framing, head
        self.current = asyncio.current_task()
        self.gone = self.waiting = self.cut = False
        self.events: AsyncIterator[Any] | None = None

    async def watch(self) -> None:
        """Read ``receive`` until the client leaves; cancel a wait for the handler
        then (it is producing an event nobody will read)."""
        while (await self.receive())["type"] != "http.disconnect":
            pass
        self.gone = True
        if self.waiting and self.current is not None:
            self.cut = True
            self.current.cancel()

    def taken_back(self) -> bool:
        """Whether a cancellation is the watcher's, now taken back."""
        if not self.cut:
            return False
        self.cut = False
        return uncancel(self.current)

    async def first(
        self,
        start: Callable[[], AsyncIterator[Any]],
        answer: Callable[[BaseException], Awaitable[None]],
        first_within: float | None,
    ) -> Any:
        """The first event (or ``_END``); ``_STOP`` when there is nothing more to
        send: the client left, or the failure before the first event was answered."""
        import asyncio

        async def begin() -> Any:
            self.events = start()
            try:
                return await anext(self.events)
            except StopAsyncIteration:
                return _END

        self.waiting = True
        try:
            first = await within(begin(), first_within)
        except asyncio.CancelledError:
            if self.taken_back():
                return _STOP  # the client left
            raise
        except BaseException as exc:
            if not self.gone:
                await answer(exc)
            if isinstance(exc, KeyboardInterrupt):
                raise
            return _STOP
        finally:
            self.waiting = False
        return _STOP if self.gone else first

    async def pump(self, event: Any) -> None:
        """The 200, ``event`` and the ones after it, framed and numbered from 0, and
        the end; an error after the 200 is the last event. A failed send is logged."""
        try:
            await self.send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": self.framing.headers,
                }
            )
            number = 0
            while event is not _END and not self.head and not self.gone:
                last: BaseException | None = None
                try:
                    data = self.render(event)
                except Exception as exc:  # an event JSON cannot carry ends the stream
                    last, data = exc, self.render_error(exc)
                await self._body(self.framing.frame(data, number, last is not None))
                number += 1
                if last is not None or self.gone:
                    break
                event = await self._next(number)
            if not self.gone:
                await self.send({"type": "http.response.body", "body": b""})
        except Exception:  # sending failed: the response has started, nobody to tell
            self.log.debug("stream ended early", exc_info=True)

    async def _next(self, number: int) -> Any:
        """The handler's next event, or ``_END`` at its end or after its error (sent
        as the last event, numbered ``number``)."""
        import asyncio

        assert self.events is not None
        self.waiting = True
        try:
            return await anext(self.events)
        except StopAsyncIteration:
            return _END
        except BaseException as exc:
            if self.cut or (
                isinstance(exc, asyncio.CancelledError) and not handler_cancelled(exc)
            ):
                raise  # the watcher's (taken back by send_events), or a real one
            await self._body(self.framing.frame(self.render_error(exc), number, True))
            if isinstance(exc, KeyboardInterrupt):
                raise
            return _END
        finally:
            self.waiting = False

    async def _body(self, body: bytes) -> None:
        await self.send({"type": "http.response.body", "body": body, "more_body": True})

    async def close(self) -> None:
        """Take back a cancellation the watcher asked for and that never came, and
        close the handler's iterator (a failing ``finally`` of it is logged)."""
        if self.cut:
            uncancel(self.current)  # the watcher's request, never delivered
        closing = None if self.events is None else Dispatcher.closing(self.events)
        if closing is not None:
            try:
                await closing
            except Exception:  # the handler's finally failed: the answer stands
                self.log.error("closing the stream failed", exc_info=True)

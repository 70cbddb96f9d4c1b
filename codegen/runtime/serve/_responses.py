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
    start: Callable[[], Awaitable[AsyncIterator[Any]]],
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

    current = asyncio.current_task()
    gone = waiting = cut = False  # cut: the watcher cancelled the current task
    opened: list[AsyncIterator[Any]] = []

    async def watch() -> None:
        nonlocal gone, cut
        while (await receive())["type"] != "http.disconnect":
            pass
        gone = True
        if waiting and current is not None:
            cut = True
            current.cancel()  # the handler is producing an event nobody will read

    async def begin() -> Any:
        events = await start()
        opened.append(events)
        try:
            return await anext(events)
        except StopAsyncIteration:
            return _END

    def taken_back() -> bool:
        """Whether a cancellation is the watcher's, now taken back."""
        nonlocal cut
        if not cut:
            return False
        cut = False
        return uncancel(current)

    watcher = asyncio.ensure_future(watch())
    try:
        waiting = True
        try:
            first = await within(begin(), first_within)
        except asyncio.CancelledError:
            if taken_back():
                return  # the client left
            raise
        except BaseException as exc:
            if not gone:
                await answer(exc)
            if isinstance(exc, KeyboardInterrupt):
                raise
            return
        finally:
            waiting = False
        if gone:
            return
        events = opened[0]
        try:
            start_message = {
                "type": "http.response.start",
                "status": 200,
                "headers": framing.headers,
            }
            await send(start_message)
            number, event = 0, first
            while event is not _END and not head and not gone:
                last: BaseException | None = None
                try:
                    data = render(event)
                except Exception as exc:  # an event JSON cannot carry ends the stream
                    last, data = exc, render_error(exc)
                body = framing.frame(data, number, last is not None)
                await send(
                    {"type": "http.response.body", "body": body, "more_body": True}
                )
                number += 1
                if last is not None or gone:
                    break
                waiting = True
                try:
                    event = await anext(events)
                except StopAsyncIteration:
                    break
                except BaseException as exc:
                    if cut or (
                        isinstance(exc, asyncio.CancelledError)
                        and not handler_cancelled(exc)
                    ):
                        raise  # the watcher's (taken back below), or a real one
                    body = framing.frame(render_error(exc), number, True)
                    await send(
                        {"type": "http.response.body", "body": body, "more_body": True}
                    )
                    if isinstance(exc, KeyboardInterrupt):
                        raise
                    break
                finally:
                    waiting = False
            if not gone:
                await send({"type": "http.response.body", "body": b""})
        except Exception:  # sending failed: the response has started, nobody to tell
            log.debug("stream ended early", exc_info=True)
    except asyncio.CancelledError:
        if not taken_back():
            raise  # a real cancellation
    finally:
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        if cut:
            uncancel(current)  # the watcher's request, never delivered
        if opened:
            close = getattr(opened[0], "aclose", None)
            if close is not None:
                try:
                    await close()
                except Exception:  # the handler's finally failed: the answer stands
                    log.error("closing the stream failed", exc_info=True)

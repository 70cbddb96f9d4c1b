"""The ASGI answers the server sends: one function per kind of response, each the one
place that kind is sent.

``send_bytes`` is a whole body with its Content-Type and Content-Length (``head=True``
sends the same headers without the body, as HEAD asks); ``send_empty`` a status with
headers and no body (204, 304); ``send_events`` a ``text/event-stream`` fed by a
handler's async iterator, watching for the client's disconnect from the start;
``refuse_websocket`` turns a websocket away before it is accepted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from ._failure import uncancel, within
from ._request import Receive, Send
from ._sse import SSE_CONTENT_TYPE, sse_frame

__all__ = ["refuse_websocket", "send_bytes", "send_empty", "send_events"]

_END = object()
_SSE_HEADERS = [
    (b"content-type", SSE_CONTENT_TYPE.encode()),
    (b"cache-control", b"no-cache"),
]


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


async def refuse_websocket(receive: Receive, send: Send) -> None:
    """Close a websocket before accepting it (servers answer the handshake 403)."""
    message = await receive()
    if message["type"] == "websocket.connect":
        await send({"type": "websocket.close", "code": 1008})


async def send_events(
    receive: Receive,
    send: Send,
    events: AsyncIterator[Any],
    render: Callable[[Any], bytes],
    render_error: Callable[[BaseException], bytes],
    *,
    first_within: float | None = None,
    head: bool = False,
) -> None:
    """The events as ``text/event-stream``, numbered from 0.

    ``render`` turns one event into its JSON bytes (raising for an event JSON cannot
    carry); ``render_error`` an exception into the JSON bytes of the last event
    (re-raising what must not be answered, such as a real cancellation). The 200 goes
    out with the first event, so an error before it, or ``first_within`` seconds
    passing without it (``DeadlineExceeded``), propagates to the caller, whose answer
    is an ordinary error. An error after it is the last event, and the stream ends;
    a ``KeyboardInterrupt`` propagates once its event is sent. With ``head`` the
    stream stops after the headers.

    The client's disconnect is watched from the start, by a task that only reads
    ``receive``: when the client leaves while the handler is producing an event
    (before the first one too) the wait is cancelled, and the stream stops quietly.
    The events are produced in the caller's task, so whatever the handler raises
    reaches the caller. The iterator is closed at the end in every case.
    """
    import asyncio  # here: a third of the package's import time, for streams only

    current = asyncio.current_task()
    gone = waiting = False

    async def watch() -> None:
        nonlocal gone
        while (await receive())["type"] != "http.disconnect":
            pass
        gone = True
        if waiting and current is not None:
            current.cancel()  # the handler is producing an event nobody will read

    watcher = asyncio.ensure_future(watch())
    try:
        waiting = True
        try:
            first: Any = await within(anext(events), first_within)
        except StopAsyncIteration:
            first = _END
        finally:
            waiting = False
        if gone:
            return
        start = {"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS}
        await send(start)
        number, event = 0, first
        while event is not _END and not head and not gone:
            failed: BaseException | None = None
            try:
                data = render(event)
            except Exception as exc:  # an event JSON cannot carry ends the stream
                failed, data = exc, render_error(exc)
            body = sse_frame(data, event_id=number)
            await send({"type": "http.response.body", "body": body, "more_body": True})
            number += 1
            if failed is not None or gone:
                break
            waiting = True
            try:
                event = await anext(events)
            except StopAsyncIteration:
                break
            except BaseException as exc:
                if gone:
                    raise
                body = sse_frame(render_error(exc), event_id=number)
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
    except asyncio.CancelledError:
        if not (gone and uncancel(current)):
            raise  # a real cancellation
    except OSError:
        if not gone:  # sending failed: the response has started, nobody to tell
            raise
    finally:
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()

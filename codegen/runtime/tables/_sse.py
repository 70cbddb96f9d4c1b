"""Server-sent events (the WHATWG HTML "event stream" format): the one framer.

``sse_frame`` writes every event the package sends (the server's streams, the
generated ``jsonrpc.sse_event``, ``protocol.sse_frame``); ``_sse_parser`` reads a
stream back for clients.
"""

from __future__ import annotations

import re

__all__ = ["SSE_CONTENT_TYPE", "sse_frame"]

SSE_CONTENT_TYPE = "text/event-stream"
"""The media type of an event stream."""

_LINE_END_BYTES = re.compile(rb"\r\n|\r|\n")


def sse_frame(
    data: str | bytes,
    *,
    event_id: str | int | None = None,
    event: str | None = None,
) -> bytes:
    """One event of a ``text/event-stream`` body, UTF-8, ending in its blank line.

    Each line of ``data`` (split at CR, LF or CRLF) gets its own ``data:`` field, so
    the parser joins them back with ``"\\n"``; ``bytes`` are taken as UTF-8 already.
    ``ValueError`` when ``event_id`` or ``event`` holds CR or LF (it would end the
    field), ``event_id`` holds NUL (parsers ignore such an id), or ``data`` is a
    ``str`` UTF-8 cannot carry (a lone surrogate).
    """
    head = b""
    if event_id is not None:
        text = str(event_id)
        if "\r" in text or "\n" in text or "\0" in text:
            raise ValueError(f"SSE event_id {text!r} holds CR, LF or NUL")
        head = b"id: " + text.encode("utf-8") + b"\n"
    if event is not None:
        if "\r" in event or "\n" in event:
            raise ValueError(f"SSE event {event!r} holds CR or LF")
        head += b"event: " + event.encode("utf-8") + b"\n"
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if b"\n" not in raw and b"\r" not in raw:  # compact JSON: one line
        return head + b"data: " + raw + b"\n\n"
    lines = _LINE_END_BYTES.split(raw)
    return head + b"".join(b"data: " + line + b"\n" for line in lines) + b"\n"

"""Server-sent events (the WHATWG HTML "event stream" format) read back: the parser
clients use (``_sse`` frames what the package sends).

``SseDecoder`` takes the bytes of a stream as they come; ``parse_sse`` and
``aparse_sse`` turn a whole (async) iterable of chunks into events.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass

__all__ = [
    "MAX_SSE_EVENT_CHARS",
    "SseDecoder",
    "SseEvent",
    "SseTooLarge",
    "aparse_sse",
    "parse_sse",
]

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SseEvent:
    """One dispatched server-sent event.

    ``id`` is the last event id seen on the stream (``""`` before any), ``event`` the
    event type (``"message"`` when none was given), ``data`` the data lines joined by
    ``"\\n"``.
    """

    id: str
    event: str
    data: str


MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024
"""Default bound on one event-stream event (and on one unfinished line), in characters."""


class SseTooLarge(ValueError):
    """An event-stream event beyond the decoder's ``max_event_chars``."""


class SseDecoder:
    """Incremental ``text/event-stream`` parser (WHATWG HTML, "Event stream").

    ``feed`` takes the next bytes, split anywhere (inside a UTF-8 sequence, between a
    CR and its LF), and returns the events those bytes complete. ``close`` ends the
    stream: an event without its final blank line is dropped, as the standard says.
    An event (or an unfinished line) larger than ``max_event_chars`` raises
    ``SseTooLarge``: a peer that never ends a line or an event cannot grow memory
    without bound.
    """

    def __init__(self, *, max_event_chars: int = MAX_SSE_EVENT_CHARS) -> None:
        self.max_event_chars = max_event_chars
        self._size = 0  # characters of the event being read
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._bom_checked = False
        self._pending = ""
        self._after_cr = False
        self._data: list[str] = []
        self._event = ""
        self._last_id = ""

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Parse the next bytes of the stream; returns the events they complete."""
        text = self._utf8.decode(chunk)
        if not text:
            return []
        if not self._bom_checked:
            self._bom_checked = True
            if text.startswith("\ufeff"):  # one leading BOM is ignored, once
                text = text[1:]
        if self._after_cr and text.startswith("\n"):
            text = text[1:]  # the LF of a CRLF split across chunks
        self._after_cr = False
        buffer = self._pending + text
        events: list[SseEvent] = []
        position = 0
        if not self._pending or "\n" in text or "\r" in text:
            matches = _LINE_END.finditer(buffer)
        else:
            matches = iter(())  # the line goes on: nothing to scan again
        for match in matches:
            event = self._line(buffer[position : match.start()])
            if event is not None:
                events.append(event)
            position = match.end()
            self._after_cr = match.group() == "\r" and position == len(buffer)
        self._pending = buffer[position:]
        if self._size + len(self._pending) > self.max_event_chars:
            raise SseTooLarge(
                f"an event-stream event longer than {self.max_event_chars} characters"
            )
        return events

    def close(self) -> None:
        """End the stream: discard the unfinished line and event, if any."""
        self._utf8.reset()
        self._pending, self._after_cr = "", False
        self._data, self._event, self._size = [], "", 0

    def _line(self, line: str) -> SseEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None  # a comment
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._size += len(value) + 1
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._last_id = value
        # "retry" and unknown fields are ignored: reconnection is the caller's business.
        return None

    def _dispatch(self) -> SseEvent | None:
        data, event = self._data, self._event
        self._data, self._event, self._size = [], "", 0
        if not data:
            return None
        return SseEvent(self._last_id, event or "message", "\n".join(data))


def parse_sse(chunks: Iterable[bytes]) -> Iterator[SseEvent]:
    """The events of a ``text/event-stream`` body given as byte chunks."""
    decoder = SseDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    decoder.close()


async def aparse_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[SseEvent]:
    """The events of a ``text/event-stream`` body given as async byte chunks."""
    decoder = SseDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    decoder.close()

"""Request headers, read once.

Header inputs of the public functions are a mapping or an iterable of ``(name,
value)`` pairs, each ``str`` or ``bytes`` (ASGI gives ``list[tuple[bytes, bytes]]``);
names are matched in any case and bytes are read as ISO-8859-1, which keeps every
octet. ``RequestHead`` is the server's one pass over an ASGI request's headers: the
fields the binding acts on are picked out as it goes, and the whole list is decoded
only when a handler asks for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Union

__all__ = [
    "HeaderText",
    "OWS",
    "RequestHead",
    "RequestHeaders",
    "allow_list",
    "field_lines",
    "header_text",
    "list_items",
    "unique",
]

HeaderText = Union[str, bytes]
RequestHeaders = Union[
    Mapping[str, str],
    Mapping[bytes, bytes],
    Iterable[tuple[HeaderText, HeaderText]],
]
"""Request headers: a mapping or (name, value) pairs, ``str`` or ``bytes``."""

OWS = " \t"
"""Optional white space around a field value's members (RFC 9110 §5.6.3)."""


def header_text(value: object, what: str) -> str:
    """A header name or value as text; ``TypeError`` for anything but str or bytes."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        # ISO-8859-1 maps every octet to one character, so nothing is lost or refused.
        return bytes(value).decode("latin-1")
    raise TypeError(f"header {what} must be str or bytes, not {type(value).__name__}")


def field_lines(headers: RequestHeaders, name: str) -> list[str]:
    """The values of every field line named ``name`` (any case), in order."""
    pairs: Iterable[Any] = headers.items() if isinstance(headers, Mapping) else headers
    wanted = name.lower()
    found: list[str] = []
    for pair in pairs:
        key, value = pair
        key_text = header_text(key, "name")
        if key_text.lower() == wanted:
            found.append(header_text(value, f"{key_text!r} value"))
    return found


def list_items(values: Iterable[str]) -> list[str]:
    """Members of a comma-separated list field, trimmed, empty members dropped."""
    return [
        item.strip(OWS)
        for value in values
        for item in value.split(",")
        if item.strip(OWS)
    ]


def unique(items: Iterable[str]) -> tuple[str, ...]:
    """``items`` without repeats, in first-seen order."""
    return tuple(dict.fromkeys(items))


# The fields the server acts on, by lower-case name: their slot in RequestHead.
_VERSION, _EXTENSIONS, _CONTENT_TYPE, _CONTENT_LENGTH, _HOST, _TRANSFER_ENCODING = (
    range(6)
)
_OTHER = 6  # a field the server does not act on
_WANTED = {
    b"a2a-version": _VERSION,
    b"a2a-extensions": _EXTENSIONS,
    b"content-type": _CONTENT_TYPE,
    b"content-length": _CONTENT_LENGTH,
    b"host": _HOST,
    b"transfer-encoding": _TRANSFER_ENCODING,
}
# The slot of each name as sent, for the names seen so far: clients send the same
# few names on every request, so most are found here at once. Bounded (the first
# names seen, none longer than a usual name), whatever names clients make up.
_SEEN: dict[bytes, int] = dict(_WANTED)
_MOST_SEEN, _LONGEST_SEEN = 512, 64


def _slot(name: bytes) -> int:
    """The slot of the header name ``name`` (any case), remembered while there is
    room."""
    slot = _WANTED.get(bytes(name).lower(), _OTHER)
    if type(name) is bytes and len(name) <= _LONGEST_SEEN and len(_SEEN) < _MOST_SEEN:
        _SEEN[name] = slot
    return slot


class RequestHead:
    """The headers of one ASGI request, walked once.

    ``versions`` and ``extensions`` are the values of every ``A2A-Version`` and
    ``A2A-Extensions`` line; ``content_type``, ``content_length`` and ``host`` the
    first value of theirs (None when absent). ``pairs`` is every header as ``(lower
    case name, value)``, decoded on first use. ``declares_body``: the request has a
    Content-Length or a Transfer-Encoding, as a request with a body does in HTTP/1.1
    (RFC 9112 §6.3: one with neither has none).
    """

    __slots__ = (
        "raw",
        "versions",
        "extensions",
        "content_type",
        "content_length",
        "host",
        "declares_body",
        "_pairs",
    )

    def __init__(self, raw: Iterable[tuple[bytes, bytes]]) -> None:
        # Kept as a list: ``pairs`` walks it again when a handler asks.
        self.raw = raw if isinstance(raw, list) else list(raw)
        versions: list[str] = []
        extensions: list[str] = []
        content_type = content_length = host = None
        chunked = False
        seen = _SEEN
        for key, value in self.raw:
            try:
                slot = seen[key]
            except (KeyError, TypeError):  # a name not seen yet, or a bytearray
                slot = _slot(key)
            if slot == _OTHER:
                continue
            text = (value if type(value) is bytes else bytes(value)).decode("latin-1")
            if slot == _VERSION:
                versions.append(text)
            elif slot == _EXTENSIONS:
                extensions.append(text)
            elif slot == _CONTENT_TYPE:
                content_type = text if content_type is None else content_type
            elif slot == _CONTENT_LENGTH:
                content_length = text if content_length is None else content_length
            elif slot == _HOST:
                host = text if host is None else host
            else:
                chunked = True
        self.versions = versions
        self.extensions = extensions
        self.content_type = content_type
        self.content_length = content_length
        self.host = host
        self.declares_body = chunked or content_length is not None
        self._pairs: tuple[tuple[str, str], ...] | None = None

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """Every header as ``(lower-case name, value)``, values read as ISO-8859-1."""
        if self._pairs is None:
            self._pairs = tuple(
                (bytes(k).decode("latin-1").lower(), bytes(v).decode("latin-1"))
                for k, v in self.raw
            )
        return self._pairs


def allow_list(
    names: Iterable[str], never: Callable[[str], str | None]
) -> frozenset[str]:
    """The lower-case header names of ``names``, an allow-list of headers a backend
    passes on; ``ValueError`` naming the first that ``never`` (given the lower-case
    name) says must never be forwarded, and why ("a hop-by-hop header...")."""
    allowed: set[str] = set()
    for name in names:
        key = name.lower()
        why = never(key)
        if why is not None:
            raise ValueError(f"the header {name!r} cannot be forwarded: it is {why}")
        allowed.add(key)
    return frozenset(allowed)

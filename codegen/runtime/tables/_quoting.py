"""How an error message quotes what a client sent: a short piece of it, never all.

A refusal names the value it refuses (``tenant 'a' differs from ...``), and the value
may be as large as the body limit allows; quoted whole, a 3 MB tenant would come back
as several copies of itself. Every message that quotes client input (query, path and
header values, tenants, field values, JSON-RPC methods, content types) quotes it through
``excerpt``, which keeps the first ``EXCERPT_CHARACTERS`` characters and says how long
the whole value was.
"""

from __future__ import annotations

__all__ = ["EXCERPT_CHARACTERS", "FIELD_PATH_CHARACTERS", "excerpt", "field_path"]

EXCERPT_CHARACTERS = 64
"""The most characters of one value an error message quotes: room for a UUID, a
content type with its parameters or a timestamp, far below any size that matters."""


def excerpt(
    value: object, *, quoted: bool = True, limit: int = EXCERPT_CHARACTERS
) -> str:
    """``value`` as an error message quotes it: a string's ``repr`` (as it is, with
    ``quoted=False``), another value's ``repr``; past ``limit`` characters cut there,
    with ``...`` and the whole length after it.

    ``excerpt("acme")`` is ``'acme'``; a tenant of 3,000,000 ``x`` is
    ``'xxxx...x'... (3000000 characters)`` with 64 ``x`` between the quotes.
    """
    text = value if isinstance(value, str) else repr(value)
    shown = text[:limit]
    if quoted and isinstance(value, str):
        shown = repr(shown)
    if len(text) <= limit:
        return shown
    return f"{shown}... ({len(text)} characters)"


FIELD_PATH_CHARACTERS = 4096
"""The most characters of a field path an error quotes: a path holds map keys,
unknown keys and query parameter names as the client sent them, and a path of a
hundred nested messages (the deepest validation walks) fits with names of 40
characters."""


def field_path(path: str) -> str:
    """A field path as an error names it: as it is, or cut at
    ``FIELD_PATH_CHARACTERS`` with ``...`` and its whole length."""
    return excerpt(path, quoted=False, limit=FIELD_PATH_CHARACTERS)

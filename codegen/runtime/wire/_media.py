"""The content types of each binding (A2A §9.1, §11.1) and the media type of a
Content-Type value."""

from __future__ import annotations

from ._headers import OWS, header_text

__all__ = [
    "HTTP_JSON_ACCEPTED",
    "HTTP_JSON_CONTENT_TYPE",
    "JSONRPC_ACCEPTED",
    "JSONRPC_CONTENT_TYPE",
    "JSON_ACCEPTED",
    "NDJSON_TYPES",
    "media_type",
]

HTTP_JSON_CONTENT_TYPE = "application/a2a+json"
"""What an HTTP+JSON peer sends (§11.1)."""

HTTP_JSON_ACCEPTED = frozenset({"application/a2a+json", "application/json"})
"""Media types an HTTP+JSON server reads (plain JSON too: several SDKs send it)."""

JSONRPC_CONTENT_TYPE = "application/json"
"""What a JSON-RPC peer sends (§9.1)."""

JSONRPC_ACCEPTED = frozenset({"application/json", "application/a2a+json"})
"""Media types a JSON-RPC server reads."""

JSON_ACCEPTED = frozenset({"application/json"})
"""Media types a service without the A2A profile reads, on either binding:
``application/a2a+json`` is A2A's own, and its OpenAPI document names JSON alone."""

NDJSON_TYPES = frozenset(
    {"application/x-ndjson", "application/ndjson", "application/jsonl"}
)
"""The media types of newline-delimited JSON: a client may ask a stream's answers in
it, and send a client stream's requests in it (one message a line)."""


def media_type(value: str | bytes | None) -> str:
    """The media type of a Content-Type value, lower-case, without parameters.

    ``"Application/JSON; charset=utf-8"`` gives ``"application/json"``; None or an
    empty value gives ``""``. A server tests ``media_type(value) in accepted``.
    """
    if value is None:
        return ""
    text = header_text(value, "Content-Type value")
    return text.split(";", 1)[0].strip(OWS).lower()

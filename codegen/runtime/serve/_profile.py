"""What the ASGI application says differently for an A2A service and for any other
gRPC service: the forms of its errors, the Content-Types it reads and writes, how its
streams go out.

``A2A`` is the A2A binding's (§9, §11): errors as ``{"error": Status}`` with the A2A
error table's codes, answers in ``application/a2a+json``, request bodies in it or in
``application/json``, streams as server-sent events. ``GATEWAY`` is the one for a
service with http rules and no A2A profile. It reads ``application/json`` alone (what
its OpenAPI document names; a refused Content-Type's 415 lists that, not A2A's types).
Its HTTP+JSON error is A2A's form, ``{"error": {"code": <HTTP status>, "status": <gRPC
code name>, "message", "details"}}`` (``Failure.http_body``), with the HTTP status
``google.rpc.Code`` documents for the code, so a client reads one form from an A2A
agent and from any other service here (grpc-gateway writes the bare Status instead,
``{"code": <gRPC code number>, "message", "details"}``). JSON-RPC errors carry
that Status object in ``data``; answers are ``application/json``; a server stream
sends grpc-gateway's chunks, ``{"result": <message>}`` per event and, after a
failure, the error body ``{"error": Status}`` as the last one, as server-sent events
(the default) or newline-delimited JSON when the request's ``Accept`` prefers one of
:data:`NDJSON_TYPES` (by ``q``) to ``text/event-stream``; the answer then has
``Content-Type: application/x-ndjson``. The application's other choices (versions
checked, a card served) are its own parameters.
"""

from __future__ import annotations

from typing import Any

from ._errors import A2AError
from ._failure import Failure, Refusal
from ._headers import OWS, RequestHead, list_items
from ._jsonrpc import INVALID_REQUEST
from ._media import (
    HTTP_JSON_ACCEPTED,
    HTTP_JSON_CONTENT_TYPE,
    JSON_ACCEPTED,
    JSONRPC_ACCEPTED,
    NDJSON_TYPES,
)
from ._responses import SSE, Framing
from ._sse import SSE_CONTENT_TYPE, sse_frame
from ._status import RpcError

__all__ = [
    "A2A",
    "GATEWAY",
    "GatewayProfile",
    "NDJSON",
    "NDJSON_TYPES",
    "Profile",
    "prefers_ndjson",
]


def _chunk(data: bytes, error: bool) -> bytes:
    """grpc-gateway's stream chunk of an event's JSON (``{"result": event}``); an
    error's is its HTTP+JSON body, ``{"error": Status}`` already."""
    return data if error else b'{"result":' + data + b"}"


NDJSON = Framing(
    [(b"content-type", b"application/x-ndjson"), (b"cache-control", b"no-cache")],
    lambda data, number, error: _chunk(data, error) + b"\n",
)
"""grpc-gateway's stream: one chunk per line."""

_CHUNKS_AS_EVENTS = Framing(
    SSE.headers,
    lambda data, number, error: sse_frame(_chunk(data, error), event_id=number),
)


def _quality(parameters: list[str]) -> float:
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip(OWS).lower() == "q":
            try:
                return min(max(float(value.strip(OWS)), 0.0), 1.0)
            except ValueError:
                return 0.0
    return 1.0


def prefers_ndjson(accept: list[str]) -> bool:
    """Whether ``Accept`` field values prefer newline-delimited JSON to server-sent
    events: an :data:`NDJSON_TYPES` member named with a higher ``q`` than
    ``text/event-stream`` (0 when not named). Wildcards choose nothing: SSE stays the
    default."""
    ndjson = sse = 0.0
    for item in list_items(accept):
        media, *parameters = item.split(";")
        media = media.strip(OWS).lower()
        if media in NDJSON_TYPES:
            ndjson = max(ndjson, _quality(parameters))
        elif media == SSE_CONTENT_TYPE:
            sse = max(sse, _quality(parameters))
    return ndjson > sse


class Profile:
    """A2A's forms (see the module docstring); ``GatewayProfile`` overrides them."""

    content_type = HTTP_JSON_CONTENT_TYPE
    """The Content-Type of HTTP+JSON answers and errors."""

    http_json_accepted = HTTP_JSON_ACCEPTED
    """The media types an HTTP+JSON request body is read in."""

    stream_accepted = HTTP_JSON_ACCEPTED | NDJSON_TYPES
    """The media types a client stream's HTTP+JSON body is read in (a JSON array, or
    newline-delimited JSON)."""

    jsonrpc_accepted = JSONRPC_ACCEPTED
    """The media types a JSON-RPC request is read in."""

    def http_body(self, failure: Failure) -> bytes:
        """The HTTP+JSON body of ``failure``."""
        return failure.http_body()

    def jsonrpc_error(self, failure: Failure) -> dict[str, Any]:
        """The JSON-RPC error object of ``failure``."""
        return failure.jsonrpc_error()

    def unsupported_content_type(self, message: str) -> Exception:
        """What a body of a Content-Type the binding does not read raises."""
        return A2AError("ContentTypeNotSupportedError", message)

    def unsupported_operation(self, message: str) -> Exception:
        """What a call of an rpc the binding cannot carry raises (a client stream
        over JSON-RPC): A2A's ``UnsupportedOperationError`` (-32004, HTTP 400)."""
        return A2AError("UnsupportedOperationError", message)

    def framing(self, head: RequestHead) -> Framing:
        """How an HTTP+JSON stream goes out for the request with ``head``."""
        return SSE


class GatewayProfile(Profile):
    """The forms of a service without the A2A profile: A2A's error body, JSON-RPC
    errors with the Status in ``data``, grpc-gateway's Content-Type and streams,
    request bodies in ``application/json`` alone."""

    content_type = "application/json"
    http_json_accepted = jsonrpc_accepted = JSON_ACCEPTED
    stream_accepted = JSON_ACCEPTED | NDJSON_TYPES

    def jsonrpc_error(self, failure: Failure) -> dict[str, Any]:
        return failure.jsonrpc_status_error()

    def unsupported_content_type(self, message: str) -> Exception:
        # HTTP's own answer: no gRPC code says "unsupported media type".
        return Refusal(Failure(415, "INVALID_ARGUMENT", message, INVALID_REQUEST))

    def unsupported_operation(self, message: str) -> Exception:
        # UNIMPLEMENTED, as gRPC answers a method it does not serve: -32601 and the
        # Status in ``data`` (the message says why).
        return RpcError("UNIMPLEMENTED", message)

    def framing(self, head: RequestHead) -> Framing:
        accept = [value for name, value in head.pairs if name == "accept"]
        return NDJSON if accept and prefers_ndjson(accept) else _CHUNKS_AS_EVENTS


A2A = Profile()
"""The A2A binding's forms."""
GATEWAY = GatewayProfile()
"""The forms of any other gRPC service (see :class:`GatewayProfile`)."""

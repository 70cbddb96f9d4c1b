"""JSON-RPC 2.0: the envelope checks, the answers, SSE framing and endpoint tenants.

The generated ``jsonrpc.py`` holds the method table and hands it to ``JsonRpcBinding``.
``parse_request`` checks an incoming envelope in the order JSON-RPC implies (parse
-32700, envelope -32600, method -32601, params -32602) and raises ``JsonRpcError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Union
from urllib.parse import quote

from ._json import DuplicateKeys, ExactNumber, NotJson, decode, encode
from ._paths import Name, Route, Rpc, decode_segment, well_formed
from ._quoting import excerpt
from ._sse import sse_frame

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JsonRpcBinding",
    "JsonRpcError",
    "METHOD_NOT_FOUND",
    "Method",
    "PARSE_ERROR",
    "Request",
    "RequestId",
    "decode_envelope",
    "decode_json",
    "endpoint_tenant",
    "failure",
    "method_table",
    "response_bytes",
    "sse_event",
    "streaming_methods",
    "success",
]

PARSE_ERROR = -32700
"""The payload is not valid JSON (or not UTF-8)."""
INVALID_REQUEST = -32600
"""The JSON is not a valid JSON-RPC 2.0 request object."""
METHOD_NOT_FOUND = -32601
"""No method of this name."""
INVALID_PARAMS = -32602
"""``params`` is not what the method takes."""
INTERNAL_ERROR = -32603
"""The server failed while handling a valid request."""

RequestId = Union[str, int, float, None]
"""A request ``id``: a string, a number without fraction, or null."""


@dataclass(frozen=True)
class Method:
    """One JSON-RPC method: the rpc's message types, whether it streams its answer (as
    ``text/event-stream``), and the HTTP routes of the same rpc. ``client_streaming``:
    the rpc takes a stream of requests, which one JSON-RPC request (one ``params``
    object) cannot carry; it is known here, and a server refuses a call of it with an
    error saying so (A2A's ``UnsupportedOperationError``, -32004; -32601 for a
    service without the A2A profile)."""

    name: str
    request_type: str
    response_type: str
    server_streaming: bool
    routes: tuple[Route[str], ...]
    client_streaming: bool = False


def method_table(
    rpcs: Mapping[Name, Rpc[Name]], routes: Mapping[str, tuple[Route[Name], ...]]
) -> Mapping[str, Method]:
    """``METHODS`` of a package: a ``Method`` for each of its ``rpcs``, with the
    rpc's HTTP ``routes`` (by rpc name; none for an rpc without any)."""
    return MappingProxyType(
        {
            name: Method(
                name,
                rpc.request_type,
                rpc.response_type,
                rpc.server_streaming,
                routes.get(name, ()),
                rpc.client_streaming,
            )
            for name, rpc in rpcs.items()
        }
    )


def streaming_methods(methods: Mapping[str, Method]) -> frozenset[str]:
    """The names of the ``methods`` whose answer is a stream of events."""
    return frozenset(
        name for name, method in methods.items() if method.server_streaming
    )


class JsonRpcError(Exception):
    """A JSON-RPC error: ``code``, ``message`` and optional ``data``. ``id`` is the id of
    the request it answers when the request got far enough to have one."""

    def __init__(
        self, code: int, message: str, data: Any = None, *, id: RequestId = None
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data = data
        self.id = id

    def to_dict(self) -> dict[str, Any]:
        """The JSON-RPC error object."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


@dataclass(frozen=True)
class Request:
    """A checked JSON-RPC request. ``params`` is the request message as a ProtoJSON dict
    (``{}`` when absent); a request without ``id`` is a notification; ``streaming`` is
    True when the answer is a ``text/event-stream``; ``client_streaming`` when the
    method takes a stream of requests, which a server refuses over JSON-RPC."""

    id: RequestId
    method: str
    params: dict[str, Any] = field(default_factory=dict)
    notification: bool = False
    streaming: bool = False
    client_streaming: bool = False


def decode_json(payload: bytes | str) -> Any:
    """A JSON document, or ``JsonRpcError(PARSE_ERROR)`` naming what is wrong (not
    UTF-8, not JSON, ``NaN``/``Infinity``, nested too deeply)."""
    try:
        return decode(payload)
    except NotJson as exc:
        raise JsonRpcError(PARSE_ERROR, f"Parse error: {exc}") from None


def decode_envelope(payload: bytes | str, *, mark_duplicates: bool = False) -> Any:
    """``decode_json``, with a fractional ``id`` kept as sent (an ``ExactNumber``),
    so that the answer echoes it exactly: ``9007199254740993.0`` is no double. With
    ``mark_duplicates`` an object naming a key twice is a ``DuplicateKeys``: the
    envelope is then refused, and validation refuses such params."""
    try:
        envelope = decode(payload, mark_duplicates=mark_duplicates)
    except NotJson as exc:
        raise JsonRpcError(PARSE_ERROR, f"Parse error: {exc}") from None
    if isinstance(envelope, dict) and type(envelope.get("id")) is float:
        envelope["id"] = decode(payload, exact=True)["id"]  # the rare path: parse again
    return envelope


def _valid_id(request_id: object) -> bool:
    if request_id is None or isinstance(request_id, str):
        return True
    if isinstance(request_id, bool):
        return False
    if isinstance(request_id, int):
        return True
    return isinstance(request_id, float) and request_id.is_integer()


class JsonRpcBinding:
    """The JSON-RPC methods of one package and the json name of the tenant field
    (``""`` when the requests have none)."""

    def __init__(
        self, methods: Mapping[str, Method], *, tenant_field: str = ""
    ) -> None:
        self.methods = methods
        self.tenant_field = tenant_field

    def parse_request(self, payload: object, *, tenant: str | None = None) -> Request:
        """Check one JSON-RPC 2.0 request (see the generated ``parse_request``)."""
        envelope = (
            decode_envelope(payload) if isinstance(payload, (bytes, str)) else payload
        )
        if isinstance(envelope, list):
            raise JsonRpcError(
                INVALID_REQUEST,
                "Invalid Request: batch requests are not supported by A2A",
            )
        if type(envelope) is not dict and not isinstance(envelope, Mapping):
            raise JsonRpcError(
                INVALID_REQUEST, "Invalid Request: the request must be a JSON object"
            )
        notification = "id" not in envelope
        request_id = None if notification else envelope["id"]
        if not _valid_id(request_id):
            raise JsonRpcError(
                INVALID_REQUEST,
                "Invalid Request: id must be a string, an integer or null",
            )
        # From here on the id could be read, so every error answers it (JSON-RPC 2.0 §5).
        if type(envelope) is not dict and isinstance(envelope, DuplicateKeys):
            named = excerpt(", ".join(map(repr, envelope.duplicates)), quoted=False)
            raise JsonRpcError(
                INVALID_REQUEST,
                f"Invalid Request: {named} given twice in the request object",
                id=request_id,
            )
        if envelope.get("jsonrpc") != "2.0":
            raise JsonRpcError(
                INVALID_REQUEST,
                'Invalid Request: "jsonrpc" must be exactly "2.0"',
                id=request_id,
            )
        method = envelope.get("method")
        if not isinstance(method, str):
            raise JsonRpcError(
                INVALID_REQUEST,
                'Invalid Request: "method" must be a string',
                id=request_id,
            )
        params = envelope.get("params", {})
        if type(params) is not dict and not isinstance(params, (Mapping, list)):
            raise JsonRpcError(
                INVALID_REQUEST,
                'Invalid Request: "params" must be an object or an array',
                id=request_id,
            )
        found = self.methods.get(method)
        if found is None:
            raise JsonRpcError(
                METHOD_NOT_FOUND,
                f"Method not found: {excerpt(method, quoted=False)}",
                id=request_id,
            )
        if isinstance(params, list):
            raise JsonRpcError(
                INVALID_PARAMS,
                f"Invalid params: {method} takes an object, not an array",
                id=request_id,
            )
        params = params.copy() if isinstance(params, dict) else dict(params)
        if tenant and self.tenant_field:
            self._put_tenant(params, tenant, request_id)
        return Request(
            request_id,
            found.name,
            params,
            notification,
            found.server_streaming,
            found.client_streaming,
        )

    def _put_tenant(
        self, params: dict[str, Any], tenant: str, request_id: RequestId
    ) -> None:
        """The endpoint's ``tenant`` into ``params``; -32602 when they name another."""
        given = params.get(self.tenant_field)
        if given and given != tenant:
            raise JsonRpcError(
                INVALID_PARAMS,
                f"Invalid params: {self.tenant_field} {excerpt(given)} differs "
                f"from the endpoint's tenant {excerpt(tenant)}",
                id=request_id,
            )
        params[self.tenant_field] = tenant

    def request(
        self,
        method: str,
        params: Mapping[str, Any],
        id: RequestId,
        *,
        tenant: str | None = None,
        tenant_in_path: bool = False,
        base: str = "/",
    ) -> tuple[str, dict[str, Any]]:
        """The endpoint path and request envelope a client sends (see the generated
        ``request``)."""
        if method not in self.methods:
            raise ValueError(f"unknown method {method!r}")
        body = dict(params)
        path = _base(base) or "/"
        if tenant:
            if not self.tenant_field:
                raise ValueError(f"{method}: the requests have no tenant field")
            given = body.get(self.tenant_field)
            if given and given != tenant:
                raise ValueError(
                    f"tenant={tenant!r} differs from params {self.tenant_field} "
                    f"{given!r}"
                )
            if tenant_in_path:
                body.pop(self.tenant_field, None)
                path = _base(base) + "/" + quote(tenant, safe="")
            else:
                body[self.tenant_field] = tenant
        envelope: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": id,
            "method": method,
            "params": body,
        }
        return path, envelope


def success(id: RequestId, result: Any) -> dict[str, Any]:
    """A success response envelope."""
    return {"jsonrpc": "2.0", "id": id, "result": result}


def failure(id: RequestId, error: JsonRpcError) -> dict[str, Any]:
    """An error response envelope."""
    return {"jsonrpc": "2.0", "id": id, "error": error.to_dict()}


def response_bytes(id: RequestId, member: str, value: Any) -> bytes:
    """A response envelope as JSON bytes: ``member`` is ``"result"`` or ``"error"``.
    An id read as an ``ExactNumber`` is written as it was sent."""
    if type(id) is int:  # the usual id: its digits
        written = b"%d" % id
    else:
        written = id.text.encode() if isinstance(id, ExactNumber) else encode(id)
    return b"".join(
        (
            b'{"jsonrpc":"2.0","id":',
            written,
            b',"',
            member.encode(),
            b'":',
            encode(value),
            b"}",
        )
    )


def sse_event(
    envelope: Mapping[str, Any], *, event_id: str | int | None = None
) -> bytes:
    """One Server-Sent Events event carrying a response envelope on one ``data:`` line
    (compact JSON never holds a line break); ``event_id`` numbers it. ``ValueError``
    for what JSON cannot carry (a NaN) or an id holding CR, LF or NUL."""
    return sse_frame(encode(envelope), event_id=event_id)


def _base(base: str) -> str:
    return "/" + base.strip("/") if base.strip("/") else ""


def endpoint_tenant(path: str, base: str = "/") -> str | None:
    """The tenant of a JSON-RPC endpoint path under ``base``: ``""`` for the base
    itself, the percent-decoded segment for ``base/t1`` and ``base/t1/``, None for
    anything else (deeper paths, paths outside ``base``, malformed escapes)."""
    prefix = _base(base)
    if not path.startswith("/") or (
        not path.startswith(prefix + "/") and path != prefix
    ):
        return None
    rest = path[len(prefix) :]
    if rest in ("", "/"):
        return ""
    segment = rest[1:-1] if rest.endswith("/") else rest[1:]
    if not segment or "/" in segment or not well_formed(segment):
        return None
    return decode_segment(segment)

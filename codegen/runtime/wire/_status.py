"""gRPC status codes (``google.rpc.Code``) for HTTP and JSON-RPC, and ``RpcError``, the
error a handler of any service raises.

``HTTP_STATUS`` is the HTTP status ``google/rpc/code.proto`` documents for each code
(its "HTTP Mapping" lines: FAILED_PRECONDITION is 400, not 412; CANCELLED is 499,
"client closed request"); grpc-gateway's ``HTTPStatusFromCode`` gives the same ones. A
code outside the table is 500 there, so ``RpcError`` refuses one instead. The error
body is ``_failure.Failure.rpc_status``, the ``google.rpc.Status`` form the A2A binding
writes too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

__all__ = [
    "CODES",
    "HTTP_STATUS",
    "RpcError",
    "SERVER_ERROR",
    "jsonrpc_code",
]

CODES: Mapping[str, int] = MappingProxyType(
    {
        "OK": 0,
        "CANCELLED": 1,
        "UNKNOWN": 2,
        "INVALID_ARGUMENT": 3,
        "DEADLINE_EXCEEDED": 4,
        "NOT_FOUND": 5,
        "ALREADY_EXISTS": 6,
        "PERMISSION_DENIED": 7,
        "RESOURCE_EXHAUSTED": 8,
        "FAILED_PRECONDITION": 9,
        "ABORTED": 10,
        "OUT_OF_RANGE": 11,
        "UNIMPLEMENTED": 12,
        "INTERNAL": 13,
        "UNAVAILABLE": 14,
        "DATA_LOSS": 15,
        "UNAUTHENTICATED": 16,
    }
)
"""Each canonical code's number, by name (``google/rpc/code.proto``)."""

HTTP_STATUS: Mapping[str, int] = MappingProxyType(
    {
        "OK": 200,
        "CANCELLED": 499,
        "UNKNOWN": 500,
        "INVALID_ARGUMENT": 400,
        "DEADLINE_EXCEEDED": 504,
        "NOT_FOUND": 404,
        "ALREADY_EXISTS": 409,
        "PERMISSION_DENIED": 403,
        "RESOURCE_EXHAUSTED": 429,
        "FAILED_PRECONDITION": 400,
        "ABORTED": 409,
        "OUT_OF_RANGE": 400,
        "UNIMPLEMENTED": 501,
        "INTERNAL": 500,
        "UNAVAILABLE": 503,
        "DATA_LOSS": 500,
        "UNAUTHENTICATED": 401,
    }
)
"""The HTTP status of each code, as ``google/rpc/code.proto`` documents it."""

SERVER_ERROR = -32000
"""The JSON-RPC code of a status JSON-RPC has no code of its own for (the start of
JSON-RPC 2.0's "server error" range)."""

# The statuses JSON-RPC 2.0 names itself: Invalid params, Method not found, Internal.
_JSONRPC_CODES = {
    "INVALID_ARGUMENT": -32602,
    "UNIMPLEMENTED": -32601,
    "INTERNAL": -32603,
}


def jsonrpc_code(code: str) -> int:
    """The JSON-RPC error code of the gRPC code named ``code``: -32602 for
    INVALID_ARGUMENT, -32601 for UNIMPLEMENTED, -32603 for INTERNAL,
    :data:`SERVER_ERROR` for the rest (the Status in ``data`` names the code)."""
    return _JSONRPC_CODES.get(code, SERVER_ERROR)


class RpcError(Exception):
    """Raised by a handler to answer with a gRPC status: ``code`` a canonical code name
    (``"NOT_FOUND"``, ``"ALREADY_EXISTS"``...), ``message`` for the client, ``details``
    ProtoJSON objects with ``@type`` (``google.rpc.ErrorInfo``, ``BadRequest``...).

    HTTP+JSON answers with the code's :data:`HTTP_STATUS`; JSON-RPC with
    :func:`jsonrpc_code`; gRPC with the code itself. ``ValueError`` for a code that is
    not a canonical name, or ``OK`` (no error).
    """

    def __init__(self, code: str, message: str, details: Iterable[Any] = ()) -> None:
        if code not in CODES or code == "OK":
            raise ValueError(
                f"{code!r} is not a gRPC error code; known: "
                + ", ".join(name for name in CODES if name != "OK")
            )
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = tuple(details)

    @property
    def http_status(self) -> int:
        """The HTTP status ``google.rpc.Code`` documents for this code."""
        return HTTP_STATUS[self.code]

    def __repr__(self) -> str:
        return f"RpcError({self.code!r}, {self.message!r}, details={self.details!r})"

"""The A2A error table (A2A §5.4) and ``A2AError``, rendered for HTTP+JSON (§11.6, a
``google.rpc.Status`` with a ``google.rpc.ErrorInfo``) and JSON-RPC (§9.5, the same
detail in ``error.data``), and read back from either by clients."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ._jsonrpc import JsonRpcError

__all__ = [
    "A2AError",
    "A2AErrorKind",
    "A2A_ERRORS",
    "DOMAIN",
    "ERROR_INFO_TYPE",
]

DOMAIN = "a2a-protocol.org"
"""The ``google.rpc.ErrorInfo`` domain of every A2A error (§11.6)."""

ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
"""The ``@type`` of a ``google.rpc.ErrorInfo`` detail in ProtoJSON."""


def _metadata(metadata: Mapping[str, str] | None) -> dict[str, str]:
    if metadata is None:
        return {}
    checked: dict[str, str] = {}
    for key, value in metadata.items():
        # ErrorInfo.metadata is map<string, string>: nothing else has a ProtoJSON form.
        if not isinstance(key, str):
            raise ValueError(f"ErrorInfo metadata key {key!r} must be a string")
        if not isinstance(value, str):
            raise ValueError(
                f"ErrorInfo metadata[{key!r}] must be a string, "
                f"not {type(value).__name__}"
            )
        checked[key] = value
    return checked


@dataclass(frozen=True)
class A2AErrorKind:
    """One row of the A2A error table (§5.4).

    ``code`` is the JSON-RPC error code, ``http_status`` the HTTP+JSON status,
    ``grpc_status`` the canonical gRPC status name and ``reason`` the ErrorInfo reason:
    the name in UPPER_SNAKE_CASE without ``Error`` (``TASK_NOT_FOUND``).
    """

    name: str
    code: int
    http_status: int
    grpc_status: str
    reason: str = field(init=False)

    def __post_init__(self) -> None:
        words = re.findall("[A-Z][a-z]*", self.name.removesuffix("Error"))
        object.__setattr__(self, "reason", "_".join(words).upper())

    def error_info(self, metadata: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The ``google.rpc.ErrorInfo`` detail (ProtoJSON) naming this error."""
        info: dict[str, Any] = {
            "@type": ERROR_INFO_TYPE,
            "reason": self.reason,
            "domain": DOMAIN,
        }
        checked = _metadata(metadata)
        if checked:  # an empty map has no ProtoJSON field
            info["metadata"] = checked
        return info

    def status(
        self, message: str, metadata: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        """The ``google.rpc.Status`` JSON object of this error for HTTP+JSON (§11.6).

        ``code`` is the HTTP status, ``status`` the gRPC status name, ``details`` the
        ErrorInfo (with ``metadata`` when given). Raises ``ValueError`` when a
        metadata value is not a string.
        """
        return {
            "code": self.http_status,
            "status": self.grpc_status,
            "message": message,
            "details": [self.error_info(metadata)],
        }

    def error(
        self, message: str, data: Any = None, *, id: str | int | float | None = None
    ) -> JsonRpcError:
        """This error as a JSON-RPC error (§9.5).

        ``data`` defaults to a list holding the ErrorInfo, as §9.5 asks; pass ``data``
        to send something else.
        """
        detail = [self.error_info()] if data is None else data
        return JsonRpcError(self.code, message, detail, id=id)


# The rows of §5.4: name, JSON-RPC code, HTTP status, gRPC status.
_KINDS = (
    A2AErrorKind("TaskNotFoundError", -32001, 404, "NOT_FOUND"),
    A2AErrorKind("TaskNotCancelableError", -32002, 400, "FAILED_PRECONDITION"),
    A2AErrorKind(
        "PushNotificationNotSupportedError", -32003, 400, "FAILED_PRECONDITION"
    ),
    A2AErrorKind("UnsupportedOperationError", -32004, 400, "FAILED_PRECONDITION"),
    A2AErrorKind("ContentTypeNotSupportedError", -32005, 400, "INVALID_ARGUMENT"),
    A2AErrorKind("InvalidAgentResponseError", -32006, 500, "INTERNAL"),
    A2AErrorKind(
        "ExtendedAgentCardNotConfiguredError", -32007, 400, "FAILED_PRECONDITION"
    ),
    A2AErrorKind("ExtensionSupportRequiredError", -32008, 400, "FAILED_PRECONDITION"),
    A2AErrorKind("VersionNotSupportedError", -32009, 400, "FAILED_PRECONDITION"),
)
A2A_ERRORS: Mapping[str, A2AErrorKind] = MappingProxyType({k.name: k for k in _KINDS})
"""The A2A errors of §5.4 by name (``"TaskNotFoundError"``, ...), read-only."""

_BY_CODE = {kind.code: kind for kind in _KINDS}
_BY_REASON = {kind.reason: kind for kind in _KINDS}


def _peer_metadata(info: Mapping[str, Any]) -> dict[str, str]:
    """ErrorInfo metadata as a peer sent it; never raises."""
    raw = info.get("metadata")
    if not isinstance(raw, Mapping):
        return {}
    # Some servers (a2a-sdk) pass non-string values through; keep them as JSON text.
    return {
        str(key): value if isinstance(value, str) else json.dumps(value, default=str)
        for key, value in raw.items()
    }


def _a2a_error_infos(
    details: object,
) -> Iterator[tuple[A2AErrorKind, Mapping[str, Any]]]:
    """The ErrorInfo details of ``details`` that name an A2A error, in order."""
    if not isinstance(details, list):
        return
    for detail in details:
        if (
            isinstance(detail, Mapping)
            and detail.get("@type") == ERROR_INFO_TYPE
            and detail.get("domain") == DOMAIN
        ):
            reason = detail.get("reason")
            kind = _BY_REASON.get(reason) if isinstance(reason, str) else None
            if kind is not None:
                yield kind, detail


class A2AError(Exception):
    """An A2A error (§5.4), for a handler to raise and a client to catch.

    ``name`` is a key of ``A2A_ERRORS`` (``ValueError`` otherwise); ``metadata``
    becomes the ErrorInfo metadata (string values only, for example ``taskId``).
    """

    def __init__(
        self, name: str, message: str, *, metadata: Mapping[str, str] | None = None
    ) -> None:
        kind = A2A_ERRORS.get(name)
        if kind is None:
            raise ValueError(
                f"{name!r} is not an A2A error; known: {', '.join(sorted(A2A_ERRORS))}"
            )
        super().__init__(message)
        self.kind: A2AErrorKind = kind
        self.message: str = message
        self.metadata: dict[str, str] = _metadata(metadata)

    @property
    def name(self) -> str:
        """The error's name in the table, e.g. ``"TaskNotFoundError"``."""
        return self.kind.name

    def __repr__(self) -> str:
        return (
            f"A2AError({self.kind.name!r}, {self.message!r},"
            f" metadata={self.metadata!r})"
        )

    def to_http(self) -> tuple[int, dict[str, Any]]:
        """The HTTP+JSON answer (§11.6): status code and ``{"error": Status}`` body."""
        status = self.kind.status(self.message, self.metadata)
        return self.kind.http_status, {"error": status}

    def to_jsonrpc(self, id: str | int | float | None = None) -> JsonRpcError:
        """The JSON-RPC error (§9.5): A2A code, message, ``data`` = [ErrorInfo]."""
        return self.kind.error(
            self.message, [self.kind.error_info(self.metadata)], id=id
        )

    @classmethod
    def from_status(cls, payload: object) -> A2AError | None:
        """Read an HTTP+JSON error body (``{"error": Status}``) or a bare Status.

        Returns the A2A error its first A2A ErrorInfo (reason and domain
        ``a2a-protocol.org``) names, with the Status message and the ErrorInfo
        metadata; None when the payload names no A2A error. Never raises.
        """
        if isinstance(payload, Mapping) and isinstance(payload.get("error"), Mapping):
            payload = payload["error"]
        if not isinstance(payload, Mapping):
            return None
        for kind, info in _a2a_error_infos(payload.get("details")):
            message = payload.get("message")
            text = message if isinstance(message, str) else kind.name
            return cls(kind.name, text, metadata=_peer_metadata(info))
        return None

    @classmethod
    def from_jsonrpc(cls, error: object) -> A2AError | None:
        """Read a JSON-RPC error object (``{"code", "message", "data"}``).

        Returns the A2A error its code names (-32001..-32009), with the metadata of an
        ErrorInfo in ``data`` of the same reason; None for any other code (the code is
        what JSON-RPC defines, so it decides). Never raises.
        """
        if not isinstance(error, Mapping):
            return None
        code = error.get("code")
        if not isinstance(code, int) or isinstance(code, bool):
            return None
        kind = _BY_CODE.get(code)
        if kind is None:
            return None
        message = error.get("message")
        metadata: dict[str, str] = {}
        for found, info in _a2a_error_infos(error.get("data")):
            if found is kind:
                metadata = _peer_metadata(info)
                break
        text = message if isinstance(message, str) else kind.name
        return cls(kind.name, text, metadata=metadata)

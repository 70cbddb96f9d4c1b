"""How a package's handler is served, configured once: ``ServeOptions``.

``asgi.create_app`` and ``grpc_binding.add_to_server`` keep their keywords and make
one of these; the ASGI application, its dialects and the dispatcher read it, frozen,
instead of passing each setting on. A setting that cannot work is refused here,
naming it, before anything is served.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ._query import MAX_QUERY_PAIRS
from ._validate import UnknownFields

__all__ = ["CheckRequest", "DEFAULT_MAX_BODY_BYTES", "ServeOptions"]

CheckRequest = Callable[[str, Mapping[str, Any]], Sequence[tuple[str, str]]]
"""A hook run on each decoded request: ``(rpc, request)`` to the field violations
``(field, description)`` that make it invalid (empty when it is fine)."""

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
"""Default limit on a request body: 4 MiB, gRPC's default message size limit."""


def _prefix(value: str | None, what: str) -> str | None:
    """A mount path without its trailing ``/`` (``""`` for the root); None: off."""
    if value is None:
        return None
    if any(c in value for c in "?#") or (value and not value.startswith("/")):
        raise ValueError(f"{what} {value!r} must be a path starting with '/'")
    return value.rstrip("/")


@dataclass(frozen=True)
class ServeOptions:
    """The settings of a served handler (``create_app``'s and ``add_to_server``'s
    keywords, documented there), checked and normalised when made.

    ``supported_versions`` None: a service without the A2A profile (no version
    check); ``validate`` whether requests are validated against the package's
    messages; ``max_body_bytes`` the largest request body (or gRPC message) read;
    ``http_json_prefix`` and ``jsonrpc_path`` None turn that binding off, and are
    kept without a trailing ``/``.
    """

    supported_versions: tuple[str, ...] | None = None
    validate: bool = True
    unknown_fields: UnknownFields = "drop"
    check_request: CheckRequest | None = None
    check_responses: bool = False
    expose_errors: bool = False
    call_timeout: float | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_query_pairs: int = MAX_QUERY_PAIRS
    http_json_prefix: str | None = ""
    jsonrpc_path: str | None = "/"
    agent_card_last_modified: datetime | None = None
    agent_card_max_age: int = 3600
    openapi: str | bytes | None = None
    openapi_path: str = "/openapi.json"
    link_openapi_in_card: bool = False

    def __post_init__(self) -> None:
        versions: Any = self.supported_versions
        if versions is not None and not isinstance(versions, tuple):
            if isinstance(versions, str):
                raise TypeError(
                    f"supported_versions is a list of versions, not the string"
                    f" {versions!r}"
                )
            self._set("supported_versions", tuple(versions))
        self._set(
            "http_json_prefix", _prefix(self.http_json_prefix, "http_json_prefix")
        )
        self._set("jsonrpc_path", _prefix(self.jsonrpc_path, "jsonrpc_path"))
        self._set("openapi_path", _prefix(self.openapi_path, "openapi_path") or "/")
        if self.max_body_bytes < 0 or self.max_query_pairs < 0:
            raise ValueError("max_body_bytes and max_query_pairs must not be negative")
        timeout = self.call_timeout
        if timeout is not None and (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not 0 < timeout < float("inf")
        ):
            raise ValueError(
                f"call_timeout must be a positive number of seconds, not {timeout!r}"
            )
        if self.unknown_fields not in ("drop", "reject"):
            raise ValueError(
                "unknown_fields must be 'drop' or 'reject', not"
                f" {self.unknown_fields!r}"
            )

    def _set(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)  # frozen: normalised once, when made

    @property
    def jsonrpc_endpoint(self) -> str | None:
        """The JSON-RPC endpoint's path of no tenant (``jsonrpc_path`` as normalised,
        ``"/"`` for the root); None when JSON-RPC is off."""
        path = self.jsonrpc_path
        return None if path is None else path or "/"

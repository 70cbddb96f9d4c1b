"""Every way a call can fail, converted once into a ``Failure`` and rendered per
binding.

A ``Failure`` holds both forms of one error: the HTTP+JSON answer (status and a
``google.rpc.Status``, §11.6) and the JSON-RPC error object (§9.5). ``failure_of``
is the one conversion from an exception: ``A2AError``, a handler's ``RpcError`` (a
gRPC status), a bad query, a handler's ``InvalidArgument`` or ``Unauthenticated``, a
request validation refused, a body that is not JSON, a JSON-RPC envelope error, a
passed deadline, or a ``Refusal`` the server made itself. Anything else is a failure
of the handler, answered ``internal``.

The HTTP+JSON form is the same for every service (``http_body``: ``{"error":
rpc_status}``, the ``google.rpc.Status`` with the HTTP status as ``code`` and the gRPC
code's name as ``status``); the JSON-RPC form has two renderings, A2A's
(``jsonrpc_error``, the error table's ``data``) and the one of any other gRPC service
(``jsonrpc_status_error``: that same Status in ``data``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ._cancellation import DeadlineExceeded, handler_cancelled
from ._errors import A2AError
from ._json import NotJson, encode
from ._jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    JsonRpcError,
)
from ._query import QueryError
from ._quoting import excerpt
from ._status import RpcError, jsonrpc_code
from ._validate import ValidationError

__all__ = [
    "BAD_REQUEST_TYPE",
    "Failure",
    "Failures",
    "GENERIC_ERROR",
    "InvalidArgument",
    "Refusal",
    "UNAUTHENTICATED_CODE",
    "Unauthenticated",
    "PUBLISHED_CODES",
    "bad_request",
    "error_from_status",
    "failure_of",
    "internal",
    "not_found",
    "numbered",
    "other_tenant",
]

UNAUTHENTICATED_CODE = -31001
"""JSON-RPC code of :class:`Unauthenticated`: outside JSON-RPC's reserved
-32768..-32000 and A2A's -32001..-32099, since A2A leaves authentication errors to a
"JSON-RPC custom error" of the server's choosing."""

BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
"""The ``@type`` of a ``google.rpc.BadRequest`` detail in ProtoJSON."""

GENERIC_ERROR = "internal error"
"""What a client is told of a handler's unexpected failure."""


class Unauthenticated(Exception):
    """Raised by a handler refusing a call for missing or wrong credentials.

    HTTP+JSON answers 401 with ``WWW-Authenticate: <challenge>`` and a
    ``google.rpc.Status`` UNAUTHENTICATED; JSON-RPC answers HTTP 200 with the same
    header and the error ``code`` (default :data:`UNAUTHENTICATED_CODE`). ``challenge``
    is the header's value, e.g. ``'Bearer realm="agents"'``.
    """

    def __init__(
        self,
        message: str,
        *,
        challenge: str = "Bearer",
        code: int = UNAUTHENTICATED_CODE,
    ) -> None:
        if not (challenge and challenge.isascii() and challenge.isprintable()):
            raise ValueError(f"challenge {challenge!r} is not one header value")
        super().__init__(message)
        self.message, self.challenge, self.code = message, challenge, code


class InvalidArgument(ValueError):
    """Raised by a handler refusing a request for bad fields.

    ``violations`` are ``(field, description)`` pairs, ``field`` a json name path such
    as ``message.parts``. Answered 400 INVALID_ARGUMENT (JSON-RPC -32602) with the
    violations as a ``google.rpc.BadRequest``.
    """

    def __init__(
        self, message: str, violations: Iterable[tuple[str, str]] = ()
    ) -> None:
        super().__init__(message)
        self.message = message
        self.violations = tuple(violations)


def other_tenant(field: str, stream: str, tenant: object) -> InvalidArgument | None:
    """The refusal of a client stream's request whose ``field`` names a ``tenant``
    other than the ``stream``'s (its first request's, the call's ``CallContext``); None
    when it names the same or none."""
    if not field or not tenant or tenant == stream:
        return None
    return InvalidArgument(
        f"{field} {excerpt(tenant)} differs from the stream's {excerpt(stream)}",
        [(field, "differs from the tenant of the stream's first request")],
    )


def numbered(exc: InvalidArgument | ValidationError, index: int) -> InvalidArgument:
    """The refusal of request ``index`` of a client stream (numbered from 0 as they
    arrive), as the refusal of the call: the message names the request, and each
    violation's field starts with ``[index]`` (``[2].message.parts[0].text``; ``[2]``
    for the request itself)."""
    where = f"[{index}]"
    return InvalidArgument(
        f"request {where} of the stream: {exc.message}",
        [
            (f"{where}.{field}" if field else where, text)
            for field, text in exc.violations
        ],
    )


class Failure(NamedTuple):
    """One error in both bindings' forms.

    ``http_status``, ``status`` (the ``google.rpc.Code`` name), ``message`` and
    ``details`` make the HTTP+JSON ``google.rpc.Status``; ``code``, ``rpc_message``
    (``message`` when empty) and ``data`` the JSON-RPC error object; ``headers`` go
    out with either answer (``WWW-Authenticate``, ``Allow``).
    """

    http_status: int
    status: str
    message: str
    code: int
    details: tuple[Any, ...] = ()
    data: Any = None
    rpc_message: str = ""
    headers: tuple[tuple[str, str], ...] = ()

    def rpc_status(self) -> dict[str, Any]:
        """The ``google.rpc.Status`` object: ``code`` the HTTP status, ``status`` the
        gRPC code's name, ``message``, ``details`` when there are any."""
        error: dict[str, Any] = {
            "code": self.http_status,
            "status": self.status,
            "message": self.message,
        }
        if self.details:
            error["details"] = list(self.details)
        return error

    def http_body(self) -> bytes:
        """The HTTP+JSON body: ``{"error": google.rpc.Status}``."""
        return encode({"error": self.rpc_status()})

    def jsonrpc_error(self) -> dict[str, Any]:
        """The JSON-RPC error object."""
        error: dict[str, Any] = {
            "code": self.code,
            "message": self.rpc_message or self.message,
        }
        if self.data is not None:
            error["data"] = self.data
        return error

    def jsonrpc_status_error(self) -> dict[str, Any]:
        """The JSON-RPC error object of a service without the A2A profile: the code
        and message of ``jsonrpc_error``, the ``google.rpc.Status`` in ``data``."""
        return {
            "code": self.code,
            "message": self.rpc_message or self.message,
            "data": self.rpc_status(),
        }


class Refusal(Exception):
    """A call the server refused itself (a body too large, a route that takes no
    body), carrying its ``failure``."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def bad_request(message: str, violations: Iterable[tuple[str, str]]) -> Failure:
    """400 INVALID_ARGUMENT / -32602 with the violations as a ``google.rpc.BadRequest``
    (``TypeError`` when a violation is not a pair of strings)."""
    rows = []
    for field, text in violations:
        if not isinstance(field, str) or not isinstance(text, str):
            raise TypeError(
                f"a field violation is not two strings: {field!r}, {text!r}"
            )
        rows.append({"field": field, "description": text})
    detail = {"@type": BAD_REQUEST_TYPE, "fieldViolations": rows}
    return Failure(
        400, "INVALID_ARGUMENT", message, INVALID_PARAMS, (detail,), [detail]
    )


def internal(message: str = GENERIC_ERROR) -> Failure:
    """500 INTERNAL / -32603: the server failed."""
    return Failure(500, "INTERNAL", message, INTERNAL_ERROR)


def not_found(verb: str, path: str, allowed: Iterable[str]) -> Failure:
    """404 NOT_FOUND when no verb is ``allowed`` for ``path``, else 405 with
    ``Allow``."""
    verbs = sorted(allowed)
    shown = excerpt(verb, quoted=False)
    where = f"{shown} {excerpt(path, quoted=False)}"
    if not verbs:
        return Failure(404, "NOT_FOUND", f"{where}: no route has this path", 0)
    allow = ", ".join(verbs)
    return Failure(
        405,
        "UNIMPLEMENTED",
        f"{where}: {shown} is not allowed here (allowed: {allow})",
        0,
        headers=(("Allow", allow),),
    )


def failure_of(exc: BaseException) -> Failure | None:
    """The failure ``exc`` stands for; None when it is none of the known refusals (a
    handler's bug). ``TypeError`` when ``exc`` is one but cannot be described (an
    ``InvalidArgument`` whose violations are not pairs of strings)."""
    if isinstance(exc, Refusal):
        return exc.failure
    if isinstance(exc, A2AError):
        kind = exc.kind
        info = kind.error_info(exc.metadata)
        return Failure(
            kind.http_status, kind.grpc_status, exc.message, kind.code, (info,), [info]
        )
    if isinstance(exc, RpcError):
        details = exc.details
        return Failure(
            exc.http_status,
            exc.code,
            exc.message,
            jsonrpc_code(exc.code),
            details,
            list(details) if details else None,
        )
    if isinstance(exc, QueryError):
        return bad_request(str(exc), [exc.violation])
    if isinstance(exc, (InvalidArgument, ValidationError)):
        return bad_request(exc.message, exc.violations)
    if isinstance(exc, Unauthenticated):
        challenge = (("WWW-Authenticate", exc.challenge),)
        return Failure(401, "UNAUTHENTICATED", exc.message, exc.code, headers=challenge)
    if isinstance(exc, NotJson):
        text = str(exc)
        failure = bad_request(
            f"the body is not JSON: {text}", [("", f"not JSON: {text}")]
        )
        return failure._replace(
            code=PARSE_ERROR, data=None, rpc_message=f"Parse error: {text}"
        )
    if isinstance(exc, JsonRpcError):
        if exc.code == METHOD_NOT_FOUND:  # as gRPC answers a method it lacks
            return Failure(501, "UNIMPLEMENTED", exc.message, exc.code, data=exc.data)
        return Failure(400, "INVALID_ARGUMENT", exc.message, exc.code, data=exc.data)
    if isinstance(exc, DeadlineExceeded):
        return Failure(
            504,
            "DEADLINE_EXCEEDED",
            str(exc),
            INTERNAL_ERROR,
            rpc_message=f"Internal error: deadline exceeded: {exc}",
        )
    return None


class Failures:
    """What a call raised, as the failure its binding answers: ``failure_of`` and,
    for the rest, a logged ``internal`` (the exception's text only with
    ``expose_errors``), one policy for every binding.

    ``of`` re-raises what must propagate unanswered: a real cancellation, and every
    ``BaseException`` but those in ``answered`` (the ASGI app answers ``SystemExit``
    and ``KeyboardInterrupt``, then re-raises the latter); a ``CancelledError`` the
    handler raised while its call was not being cancelled is its failure.
    """

    def __init__(
        self,
        log: logging.Logger,
        *,
        expose_errors: bool,
        answered: tuple[type[BaseException], ...],
    ) -> None:
        self.log = log
        self.expose_errors = expose_errors
        self.answered = answered

    def internal(self, exc: BaseException, where: str) -> Failure:
        """500 INTERNAL / -32603 for ``exc``, logged with its traceback."""
        self.log.error("%s failed", where, exc_info=exc)
        if self.expose_errors:
            return internal(f"{type(exc).__name__}: {exc}")
        return internal()

    def of(self, exc: BaseException, where: str) -> Failure:
        """The failure ``exc``, raised while serving ``where``, is answered with."""
        if not isinstance(exc, Exception):
            if isinstance(exc, self.answered):
                return self.internal(exc, where)
            if not handler_cancelled(exc):
                raise exc
        try:
            failure = failure_of(exc)
        except Exception as failed:  # a refusal that cannot be described
            return self.internal(failed, where)
        return failure if failure is not None else self.internal(exc, where)


# ------------------------------------------------ a failed call, read back


PUBLISHED_CODES = frozenset(
    {
        "INVALID_ARGUMENT",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
        "UNAUTHENTICATED",
    }
)
"""The status codes whose message and details a failed call passes on as the service
sent them (``error_from_status``): the answers a service gives on purpose, about the request. grpc writes
these itself only with texts that name no address and no exception ("Method not
found!", "Received message larger than max (N vs. M)"). The other six (CANCELLED,
UNKNOWN, DEADLINE_EXCEEDED, INTERNAL, UNAVAILABLE, DATA_LOSS) carry what a service did
not mean to publish: an unexpected exception's text (grpc's own ``Unexpected <class
...>: ...``), or a text grpc wrote naming the service's address (a connection that
failed)."""

_UNPUBLISHED_MESSAGES: Mapping[str, str] = {
    "CANCELLED": "the call was cancelled",
    "DEADLINE_EXCEEDED": "the call's deadline passed",
    "UNAVAILABLE": "the service is unavailable",
}
"""What the caller is told of a status whose text is kept back (else ``GENERIC_ERROR``)."""

_ROUTINE_CODES = frozenset({"CANCELLED", "DEADLINE_EXCEEDED"})
"""Codes whose kept-back text is logged at INFO: the call's own end, not a failure of
the service."""


def error_from_status(
    code: str,
    message: str,
    status: object,
    *,
    challenge: str | None = None,
    a2a: bool = True,
    expose_errors: bool = False,
    where: str = "a call",
    log: logging.Logger,
) -> Exception | None:
    """What the serving side raised, read back from a call that failed with the gRPC
    ``code`` (its name), ``message`` and ``status`` (the ``google.rpc.Status`` dict
    that came with it, or None): over gRPC, or in an HTTP+JSON error body. The
    ``A2AError`` its first A2A ErrorInfo names; ``Unauthenticated`` (``challenge``,
    else ``Bearer``); ``InvalidArgument`` with the ``BadRequest``'s violations;
    ``DeadlineExceeded``; else the ``RpcError`` of the code, message and Status
    details; None for a code that is no canonical error code. With ``a2a=False`` (a
    service without the A2A profile) every failure is that ``RpcError``.

    A status the service did not mean to publish, one whose code is not in
    ``PUBLISHED_CODES`` and that names no A2A error, keeps its code but not its text:
    its message is a fixed one (``"internal error"``, ``"the service is
    unavailable"``...) and its details are dropped, unless ``expose_errors``. Its text
    is logged on ``log`` with ``where`` either way: at ERROR, at INFO for CANCELLED and
    DEADLINE_EXCEEDED."""
    if a2a and status is not None:
        found = A2AError.from_status(status)
        if found is not None:
            return found
    if code not in PUBLISHED_CODES and code != "OK":
        level = logging.INFO if code in _ROUTINE_CODES else logging.ERROR
        log.log(level, "%s failed: %s %s", where, code, message)
        if not expose_errors:
            message = _UNPUBLISHED_MESSAGES.get(code, GENERIC_ERROR)
            status = None
    details = _details(status)
    if a2a and code == "UNAUTHENTICATED":
        try:
            return Unauthenticated(message, challenge=challenge or "Bearer")
        except ValueError:  # a challenge no header can carry
            return Unauthenticated(message)
    if a2a and code == "INVALID_ARGUMENT":
        violations = [
            (str(row.get("field", "")), str(row.get("description", "")))
            for detail in details
            if detail.get("@type") == BAD_REQUEST_TYPE
            for row in _rows(detail.get("fieldViolations"))
        ]
        return InvalidArgument(message, violations)
    if a2a and code == "DEADLINE_EXCEEDED":
        return DeadlineExceeded(message)
    try:
        return RpcError(code, message, details)
    except ValueError:
        return None


def _rows(value: object) -> list[Mapping[str, Any]]:
    """The objects of a list in a peer's JSON; nothing for anything else."""
    if not isinstance(value, list):
        return []
    return [row for row in value if isinstance(row, Mapping)]


def _details(status: object) -> list[Mapping[str, Any]]:
    """The ``details`` of a ``google.rpc.Status`` dict, its objects only."""
    return _rows(status.get("details")) if isinstance(status, Mapping) else []

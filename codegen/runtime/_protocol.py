"""The A2A binding rules the proto does not carry (A2A spec v1.0).

Service parameters (``A2A-Version``, ``A2A-Extensions``; §3.2.6, §9.2, §11.2), the
version check (§3.6), the error table (§5.4) rendered for HTTP+JSON (§11.6, a
``google.rpc.Status`` with a ``google.rpc.ErrorInfo``) and JSON-RPC (§9.5, the same
detail in ``error.data``), the content types of each binding (§9.1, §11.1), agent-card
caching (RFC 9110 §8.8, §13.1.2, §13.1.3, §13.2.2) and server-sent events (the
WHATWG HTML event-stream format), for servers and clients alike. The generated
``protocol.py`` re-exports these names with the binding's protocol version as default.

Header inputs are a mapping or an iterable of ``(name, value)`` pairs, each ``str`` or
``bytes`` (ASGI gives ``list[tuple[bytes, bytes]]``); names are matched in any case and
bytes are read as ISO-8859-1, which keeps every octet.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Union
from urllib.parse import unquote

if TYPE_CHECKING:  # imported where used: ``_jsonrpc`` imports this module for SSE
    from ._jsonrpc import JsonRpcError

__all__ = [
    "A2AError",
    "A2AErrorKind",
    "A2A_ERRORS",
    "Binding",
    "DEFAULT_VERSION",
    "DOMAIN",
    "ERROR_INFO_TYPE",
    "EXTENSIONS_HEADER",
    "HTTP_JSON_ACCEPTED",
    "HTTP_JSON_CONTENT_TYPE",
    "JSONRPC_ACCEPTED",
    "JSONRPC_CONTENT_TYPE",
    "RequestHeaders",
    "ServiceParams",
    "MAX_SSE_EVENT_CHARS",
    "SseDecoder",
    "SseTooLarge",
    "SseEvent",
    "VERSION_HEADER",
    "agent_card_headers",
    "aparse_sse",
    "check_version",
    "media_type",
    "not_modified",
    "parse_sse",
    "request_headers",
    "service_params",
    "sse_frame",
]

VERSION_HEADER = "A2A-Version"
"""The service parameter naming the protocol version a request speaks (§3.2.6)."""

EXTENSIONS_HEADER = "A2A-Extensions"
"""The service parameter listing the extension URIs a request uses (§3.2.6)."""

DEFAULT_VERSION = "0.3"
"""The version of a request that names none (§3.6: a missing version means 0.3)."""

DOMAIN = "a2a-protocol.org"
"""The ``google.rpc.ErrorInfo`` domain of every A2A error (§11.6)."""

ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
"""The ``@type`` of a ``google.rpc.ErrorInfo`` detail in ProtoJSON."""

HTTP_JSON_CONTENT_TYPE = "application/a2a+json"
"""What an HTTP+JSON peer sends (§11.1)."""

HTTP_JSON_ACCEPTED = frozenset({"application/a2a+json", "application/json"})
"""Media types an HTTP+JSON server reads (plain JSON too: several SDKs send it)."""

JSONRPC_CONTENT_TYPE = "application/json"
"""What a JSON-RPC peer sends (§9.1)."""

JSONRPC_ACCEPTED = frozenset({"application/json", "application/a2a+json"})
"""Media types a JSON-RPC server reads."""

Binding = Literal["http+json", "jsonrpc"]
"""The two HTTP bindings of A2A."""

HeaderText = Union[str, bytes]
RequestHeaders = Union[
    Mapping[str, str],
    Mapping[bytes, bytes],
    Iterable[tuple[HeaderText, HeaderText]],
]
"""Request headers: a mapping or (name, value) pairs, ``str`` or ``bytes``."""

_OWS = " \t"
# Bounded so int() never meets a huge digit string (Python limits those).
_VERSION = re.compile(r"([0-9]{1,9})\.([0-9]{1,9})(?:\.[0-9]{1,9})?")
_LINE_END = re.compile(r"\r\n|\r|\n")


# --------------------------------------------------------------------------- headers


def _text(value: object, what: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        # ISO-8859-1 maps every octet to one character, so nothing is lost or refused.
        return bytes(value).decode("latin-1")
    raise TypeError(f"header {what} must be str or bytes, not {type(value).__name__}")


def _field_lines(headers: RequestHeaders, name: str) -> list[str]:
    """The values of every field line named ``name`` (any case), in order."""
    pairs: Iterable[Any] = headers.items() if isinstance(headers, Mapping) else headers
    wanted = name.lower()
    found: list[str] = []
    for pair in pairs:
        key, value = pair
        key_text = _text(key, "name")
        if key_text.lower() == wanted:
            found.append(_text(value, f"{key_text!r} value"))
    return found


def _list_items(values: Iterable[str]) -> list[str]:
    """Members of a comma-separated list field, trimmed, empty members dropped."""
    return [
        item.strip(_OWS)
        for value in values
        for item in value.split(",")
        if item.strip(_OWS)
    ]


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _query_values(query: str | bytes, name: str) -> list[str]:
    """Values of ``name`` (any case) in a raw form-urlencoded query string."""
    text = _text(query, "query string")
    wanted = name.lower()
    found: list[str] = []
    for pair in text.split("&"):
        key, _, value = pair.partition("=")
        key = unquote(key.replace("+", " "), errors="replace")
        if key.lower() == wanted:
            found.append(unquote(value.replace("+", " "), errors="replace"))
    return found


@dataclass(frozen=True)
class ServiceParams:
    """The A2A service parameters of one request (§3.2.6).

    ``version`` is the requested protocol version as sent (``"0.3"`` when none is);
    ``extensions`` the extension URIs in first-seen order, without duplicates.
    """

    version: str
    extensions: tuple[str, ...]


def service_params(headers: RequestHeaders, query: str | bytes = "") -> ServiceParams:
    """Read ``A2A-Version`` and ``A2A-Extensions`` from a request.

    Field names match in any case; repeated fields and comma-separated values both
    count; members are trimmed and empty ones dropped. ``A2A-Version`` comes from the
    headers, or from the raw query string (name in any case) when no header carries
    it; a header wins over the query. A missing version is ``"0.3"``.

    Raises ``A2AError`` of kind ``VersionNotSupportedError`` when one source names two
    different versions (``A2A-Version: 1.0, 0.3``): a singleton field with conflicting
    values (RFC 9110 §5.3) says nothing a server can act on, and picking one would
    process the request under semantics the client may not have meant. Repeats of one
    value are fine.
    """
    extensions = _unique(_list_items(_field_lines(headers, EXTENSIONS_HEADER)))
    source = "header"
    versions = _unique(_list_items(_field_lines(headers, VERSION_HEADER)))
    if not versions:
        source = "query parameter"
        versions = _unique(_list_items(_query_values(query, VERSION_HEADER)))
    if len(versions) > 1:
        raise A2AError(
            "VersionNotSupportedError",
            f"{VERSION_HEADER} {source} names several versions: {', '.join(versions)}",
            metadata={"requestedVersion": ", ".join(versions)},
        )
    return ServiceParams(versions[0] if versions else DEFAULT_VERSION, extensions)


def _major_minor(version: str) -> tuple[int, int] | None:
    match = _VERSION.fullmatch(version)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def check_version(version: str, supported: Iterable[str]) -> None:
    """Refuse a version whose Major.Minor is not one of ``supported`` (§3.6).

    The minor must match (``1.1`` is refused where only ``1.0`` is supported); a patch
    part is ignored (``1.0.2`` is ``1.0``). Anything that is not ``Major.Minor`` or
    ``Major.Minor.Patch`` in ASCII digits (``""``, ``"1"``, ``" 1.0"``) is refused.
    Raises ``A2AError`` of kind ``VersionNotSupportedError`` with the metadata
    ``requestedVersion`` and ``supportedVersions``; ``ValueError`` when an entry of
    ``supported`` is itself not a version (a server's configuration bug).
    """
    allowed: list[tuple[int, int]] = []
    names: list[str] = []
    for entry in supported:
        parsed = _major_minor(entry)
        if parsed is None:
            raise ValueError(f"supported version {entry!r} is not Major.Minor")
        allowed.append(parsed)
        names.append(entry)
    if _major_minor(version) in allowed:
        return
    listed = ", ".join(names)
    raise A2AError(
        "VersionNotSupportedError",
        f"{VERSION_HEADER} {version!r} is not supported"
        f" (supported: {listed or 'none'})",
        metadata={"requestedVersion": version, "supportedVersions": listed},
    )


# --------------------------------------------------------------------------- errors


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
    ``grpc_status`` the canonical gRPC status name and ``reason`` the ErrorInfo reason
    (the name in UPPER_SNAKE_CASE without ``Error``).
    """

    name: str
    code: int
    http_status: int
    grpc_status: str
    reason: str

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
        from ._jsonrpc import JsonRpcError

        detail = [self.error_info()] if data is None else data
        return JsonRpcError(self.code, message, detail, id=id)


A2A_ERRORS: Mapping[str, A2AErrorKind] = MappingProxyType(
    {
        kind.name: kind
        for kind in (
            A2AErrorKind(
                "TaskNotFoundError", -32001, 404, "NOT_FOUND", "TASK_NOT_FOUND"
            ),
            A2AErrorKind(
                "TaskNotCancelableError",
                -32002,
                400,
                "FAILED_PRECONDITION",
                "TASK_NOT_CANCELABLE",
            ),
            A2AErrorKind(
                "PushNotificationNotSupportedError",
                -32003,
                400,
                "FAILED_PRECONDITION",
                "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ),
            A2AErrorKind(
                "UnsupportedOperationError",
                -32004,
                400,
                "FAILED_PRECONDITION",
                "UNSUPPORTED_OPERATION",
            ),
            A2AErrorKind(
                "ContentTypeNotSupportedError",
                -32005,
                400,
                "INVALID_ARGUMENT",
                "CONTENT_TYPE_NOT_SUPPORTED",
            ),
            A2AErrorKind(
                "InvalidAgentResponseError",
                -32006,
                500,
                "INTERNAL",
                "INVALID_AGENT_RESPONSE",
            ),
            A2AErrorKind(
                "ExtendedAgentCardNotConfiguredError",
                -32007,
                400,
                "FAILED_PRECONDITION",
                "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            ),
            A2AErrorKind(
                "ExtensionSupportRequiredError",
                -32008,
                400,
                "FAILED_PRECONDITION",
                "EXTENSION_SUPPORT_REQUIRED",
            ),
            A2AErrorKind(
                "VersionNotSupportedError",
                -32009,
                400,
                "FAILED_PRECONDITION",
                "VERSION_NOT_SUPPORTED",
            ),
        )
    }
)
"""The A2A errors of §5.4 by name (``"TaskNotFoundError"``, ...), read-only."""

_BY_CODE = {kind.code: kind for kind in A2A_ERRORS.values()}
_BY_REASON = {kind.reason: kind for kind in A2A_ERRORS.values()}


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


# --------------------------------------------------------------------- content types


def media_type(value: str | bytes | None) -> str:
    """The media type of a Content-Type value, lower-case, without parameters.

    ``"Application/JSON; charset=utf-8"`` gives ``"application/json"``; None or an
    empty value gives ``""``. A server tests ``media_type(value) in accepted``.
    """
    if value is None:
        return ""
    text = _text(value, "Content-Type value")
    return text.split(";", 1)[0].strip(_OWS).lower()


def request_headers(
    binding: Binding,
    *,
    body: bool,
    version: str,
    extensions: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """The A2A headers a client sends on one request.

    ``A2A-Version`` always (§3.6: clients MUST send it); ``Content-Type`` of the
    binding when the request has a body; ``A2A-Extensions`` (one comma-separated
    field, duplicates dropped) when ``extensions`` is not empty. Raises ``ValueError``
    for an unknown binding, or a version or extension that a header cannot carry.
    """
    if binding == "http+json":
        content_type = HTTP_JSON_CONTENT_TYPE
    elif binding == "jsonrpc":
        content_type = JSONRPC_CONTENT_TYPE
    else:
        raise ValueError(f"binding must be 'http+json' or 'jsonrpc', not {binding!r}")
    if _major_minor(version) is None:
        raise ValueError(f"{VERSION_HEADER} {version!r} is not Major.Minor")
    headers = [(VERSION_HEADER, version)]
    if body:
        headers.append(("Content-Type", content_type))
    for index, uri in enumerate(extensions):
        # A comma would split the URI in two at the server; CR/LF would end the field.
        if not uri or uri != uri.strip(_OWS) or any(c in uri for c in ",\r\n\0"):
            raise ValueError(
                f"extensions[{index}] {uri!r} cannot travel in {EXTENSIONS_HEADER}"
            )
    if extensions:
        headers.append((EXTENSIONS_HEADER, ", ".join(_unique(extensions))))
    return headers


# ----------------------------------------------------------------- agent card caching

_DAYS = "Mon|Tue|Wed|Thu|Fri|Sat|Sun"
_LONG_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_MONTHS = (
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
)
_MONTH = "|".join(_MONTHS)
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})"
# RFC 9110 §5.6.7: recipients accept IMF-fixdate and the two obsolete forms.
_IMF_FIXDATE = re.compile(
    rf"(?:{_DAYS}), ([0-9]{{2}}) ({_MONTH}) ([0-9]{{4}}) {_TIME} GMT"
)
_RFC850_DATE = re.compile(
    rf"(?:{_LONG_DAYS}), ([0-9]{{2}})-({_MONTH})-([0-9]{{2}}) {_TIME} GMT"
)
_ASCTIME_DATE = re.compile(
    rf"(?:{_DAYS}) ({_MONTH}) ([0-9]{{2}}| [0-9]) {_TIME} ([0-9]{{4}})"
)


def _http_date(value: str) -> datetime | None:
    """An HTTP-date (RFC 9110 §5.6.7) as an aware UTC datetime; None when invalid."""
    if match := _IMF_FIXDATE.fullmatch(value):
        day, month, year, hour, minute, second = match.groups()
        full_year = int(year)
    elif match := _RFC850_DATE.fullmatch(value):
        day, month, year, hour, minute, second = match.groups()
        # A two-digit year more than 50 years ahead is the latest past year like it.
        now = datetime.now(timezone.utc).year
        full_year = now - now % 100 + int(year)
        if full_year > now + 50:
            full_year -= 100
    elif match := _ASCTIME_DATE.fullmatch(value):
        month, day, hour, minute, second, year = match.groups()
        full_year = int(year)
    else:
        return None
    try:
        return datetime(
            full_year,
            _MONTHS.index(month) + 1,
            int(day),
            int(hour),
            int(minute),
            min(int(second), 59),  # a leap second (60) is allowed by the grammar
            tzinfo=timezone.utc,
        )
    except ValueError:  # 31 Feb, hour 25 and the like
        return None


def _utc_seconds(moment: datetime, what: str) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{what} must be an aware datetime (with a time zone)")
    # HTTP dates have one-second resolution; compare what the client could have seen.
    return moment.astimezone(timezone.utc).replace(microsecond=0)


def agent_card_headers(
    body: bytes, last_modified: datetime, *, max_age: int = 3600
) -> list[tuple[str, str]]:
    """Caching headers for an agent card served as ``body``.

    ``Cache-Control: public, max-age=N``, a strong quoted ``ETag`` derived from the
    bytes (a sha256 prefix, so equal cards get equal tags on every replica) and
    ``Last-Modified`` as an IMF-fixdate. ``last_modified`` must be aware.
    """
    # Imported here: servers need them, clients (routes.build) do not, and together
    # they cost more to import than the rest of the package.
    import email.utils
    import hashlib

    if isinstance(max_age, bool) or not isinstance(max_age, int) or max_age < 0:
        raise ValueError(f"max_age must be a non-negative int, not {max_age!r}")
    moment = _utc_seconds(last_modified, "last_modified")
    return [
        ("Cache-Control", f"public, max-age={max_age}"),
        ("ETag", f'"{hashlib.sha256(body).hexdigest()[:32]}"'),
        ("Last-Modified", email.utils.format_datetime(moment, usegmt=True)),
    ]


def _entity_tags(value: str) -> list[tuple[bool, str] | None]:
    """Members of an entity-tag list (RFC 9110 §8.8.3): (weak, opaque-tag) or None.

    A member that is not an entity-tag is None, so it can never match. Commas inside
    the quotes belong to the tag.
    """
    members: list[tuple[bool, str] | None] = []
    index, end = 0, len(value)
    while True:
        while index < end and value[index] in _OWS + ",":
            index += 1
        if index >= end:
            return members
        weak = value.startswith("W/", index)
        start = index + 2 if weak else index
        close = value.find('"', start + 1) if value.startswith('"', start) else -1
        after = close + 1
        while 0 < after < end and value[after] in _OWS:
            after += 1
        opaque = value[start + 1 : close] if close > 0 else ""
        if close > 0 and (after == end or value[after] == ",") and _etagc(opaque):
            members.append((weak, opaque))
            index = after
        else:
            members.append(None)
            comma = value.find(",", index)
            index = end if comma < 0 else comma


def _etagc(opaque: str) -> bool:
    # etagc = %x21 / %x23-7E / obs-text
    return all(c == "!" or "#" <= c <= "~" or "\x80" <= c <= "\xff" for c in opaque)


def not_modified(headers: RequestHeaders, etag: str, last_modified: datetime) -> bool:
    """Whether a GET or HEAD for the card deserves 304 Not Modified (RFC 9110).

    ``If-None-Match`` (§13.1.2), when present, decides alone: ``*`` matches, or any
    listed tag matches ``etag`` by weak comparison (``W/`` ignored on either side);
    members that are not entity-tags never match. Otherwise ``If-Modified-Since``
    (§13.1.3) gives 304 when ``last_modified``, at one-second resolution, is not later
    than its date; it is ignored when its value is not one valid HTTP-date (or the
    field is repeated). ``etag`` is the card's ETag as sent; ``last_modified`` must
    be aware (``ValueError`` otherwise).
    """
    tags = _entity_tags(etag)
    if len(tags) != 1 or tags[0] is None:
        raise ValueError(f"etag {etag!r} is not one entity-tag")
    own = tags[0][1]
    moment = _utc_seconds(last_modified, "last_modified")
    if_none_match = _field_lines(headers, "If-None-Match")
    if if_none_match:
        # An empty field line adds no member; "*" stays "*" next to one.
        combined = ", ".join(line for line in if_none_match if line.strip(_OWS))
        if combined.strip(_OWS) == "*":
            return True
        return any(tag is not None and tag[1] == own for tag in _entity_tags(combined))
    if_modified_since = _field_lines(headers, "If-Modified-Since")
    if len(if_modified_since) != 1:
        return False
    since = _http_date(if_modified_since[0].strip(_OWS))
    return since is not None and moment <= since


# ------------------------------------------------------------------------------- SSE


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


def sse_frame(
    data: str, *, event_id: str | None = None, event: str | None = None
) -> bytes:
    """One event of a ``text/event-stream`` body, UTF-8, ending in its blank line.

    Each line of ``data`` (split at CR, LF or CRLF) gets its own ``data:`` field, so
    the parser joins them back with ``"\\n"``. ``ValueError`` when ``event_id`` or
    ``event`` holds CR or LF (it would end the field), or ``event_id`` holds NUL
    (parsers ignore such an id).
    """
    lines: list[str] = []
    if event_id is not None:
        if any(c in event_id for c in "\r\n\0"):
            raise ValueError(f"SSE event_id {event_id!r} holds CR, LF or NUL")
        lines.append(f"id: {event_id}")
    if event is not None:
        if any(c in event for c in "\r\n"):
            raise ValueError(f"SSE event {event!r} holds CR or LF")
        lines.append(f"event: {event}")
    lines.extend(f"data: {line}" for line in _LINE_END.split(data))
    return ("\n".join(lines) + "\n\n").encode("utf-8")

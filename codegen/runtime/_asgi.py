"""An ASGI application serving one handler over HTTP+JSON and JSON-RPC (A2A).

ASGI is a calling convention, so this needs nothing outside the standard library; it
runs under any ASGI server on asyncio (uvicorn, hypercorn) and mounts inside Starlette
or FastAPI. The generated ``asgi.py`` hands ``A2AApplication`` the package's tables
(``routes``, ``jsonrpc``) and the rpc-to-method map of its handler ``Protocol``.

What it answers, in the order it decides:

1. ``GET``/``HEAD`` ``/.well-known/agent-card.json`` and ``/{tenant}/...`` at the
   application root: the card with caching headers, 304 when the client's copy is
   current; no version check (discovery comes before any version is agreed). The same
   for the OpenAPI document at ``openapi_path`` when one is given.
2. A path some HTTP+JSON route takes under ``http_json_prefix``: the rpc over
   HTTP+JSON. Errors are ``{"error": google.rpc.Status}`` with their HTTP status.
3. ``POST`` to ``jsonrpc_path`` or ``jsonrpc_path/{tenant}``: JSON-RPC. Every answer is
   HTTP 200 (``application/json``, or ``text/event-stream`` for a stream), errors
   included; a notification (no ``id``) is run and answered 204 without a body (JSON-RPC
   2.0 forbids answering it), streaming methods are not started for one.
4. Anything else: 405 with ``Allow`` when some route or the JSON-RPC endpoint takes the
   path with another verb, else 404.

When both bindings share a path (the defaults put both at the root), an HTTP+JSON route
wins, so a JSON-RPC tenant endpoint named like a route's first segment is not reachable.

Decisions: a body over ``max_body_bytes`` is 413 (HTTP+JSON) or -32600 (JSON-RPC: the
request was not read, so it is no parse error); a body whose Content-Type is not one
the binding reads is the A2A ``ContentTypeNotSupportedError`` (400 / -32005), while a
missing Content-Type is never refused; an error raised after a stream has started goes
out as one last event (HTTP+JSON ``{"error": Status}``, JSON-RPC a failure envelope) and
the stream ends. A handler's own exception other than ``A2AError`` or ``QueryError``
is logged and answered 500 / -32603 with a generic message (its text only with
``expose_errors=True``); so is a ``CancelledError`` the handler raised while the
request was not being cancelled (Python 3.11+ tells them apart), while a real
cancellation, ``KeyboardInterrupt`` and ``SystemExit`` propagate.

A handler refuses a call with :class:`Unauthenticated` (401 with ``WWW-Authenticate``
and a ``google.rpc.Status`` UNAUTHENTICATED; JSON-RPC :data:`UNAUTHENTICATED_CODE`,
HTTP 200 with the same ``WWW-Authenticate``) or :class:`InvalidArgument` (400
INVALID_ARGUMENT with a ``google.rpc.BadRequest``; JSON-RPC -32602 with the BadRequest
in ``data``).

URLs: the *base URL* of a request is the scheme, host and port the client reached
(the ``Host`` header when it is a well-formed host and port, else the server's socket
address; the scheme from the ASGI scope, which a server's proxy-headers support sets)
followed by the percent-encoded ASGI ``root_path`` (a Starlette ``Mount``'s prefix),
without a trailing slash. ``agent_card`` may be a callable taking it, so that a card
names the URLs its clients really reach; the ``ETag`` then follows the bytes of each
answer. A served OpenAPI document without ``servers`` is given one: the base URL
followed by ``http_json_prefix``; ``link_openapi_in_card=True`` sets the card's
``documentationUrl`` to the base URL followed by ``openapi_path``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol, Union
from urllib.parse import quote

from ._jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    JsonRpcError,
    Request,
    RequestId,
    decode_json,
    endpoint_tenant,
    failure,
    success,
)
from ._paths import Match, Route, RouteNotFound, tenant_of
from ._protocol import (
    HTTP_JSON_ACCEPTED,
    HTTP_JSON_CONTENT_TYPE,
    JSONRPC_ACCEPTED,
    JSONRPC_CONTENT_TYPE,
    A2AError,
    Binding,
    ServiceParams,
    agent_card_headers,
    check_version,
    media_type,
    not_modified,
    service_params,
)
from ._query import MAX_QUERY_PAIRS, QueryError, QueryInput, Unknown

__all__ = [
    "A2AApplication",
    "AgentCardSource",
    "AsgiMessage",
    "CallContext",
    "CheckRequest",
    "DEFAULT_MAX_BODY_BYTES",
    "InvalidArgument",
    "JsonRpcTable",
    "Receive",
    "RouteTableLike",
    "Scope",
    "Send",
    "UNAUTHENTICATED_CODE",
    "Unauthenticated",
    "base_url",
]

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
"""Default limit on a request body: 4 MiB, gRPC's default message size limit."""

Scope = MutableMapping[str, Any]
"""An ASGI connection scope."""
AsgiMessage = MutableMapping[str, Any]
"""An ASGI event, received or sent."""
Receive = Callable[[], Awaitable[AsgiMessage]]
"""The ASGI ``receive`` callable."""
Send = Callable[[AsgiMessage], Awaitable[None]]
"""The ASGI ``send`` callable."""

CheckRequest = Callable[[str, Mapping[str, Any]], Sequence[tuple[str, str]]]
"""A hook run on each decoded request: ``(rpc, request)`` to the field violations
``(field, description)`` that make it invalid (empty when it is fine)."""

AgentCardSource = Union[Mapping[str, Any], Callable[[str], Mapping[str, Any]]]
"""The agent card as a ProtoJSON object, or a callable from a request's base URL to
it (see the module docstring)."""

UNAUTHENTICATED_CODE = -31001
"""JSON-RPC code of :class:`Unauthenticated`: outside JSON-RPC's reserved
-32768..-32000 and A2A's -32001..-32099, since A2A leaves authentication errors to a
"JSON-RPC custom error" of the server's choosing."""

_SSE = "text/event-stream"
_PATH_SAFE = "/:@!$&'()*+,;=~"
_BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
_GENERIC_ERROR = "internal error"

log = logging.getLogger("a2a_binding.asgi")


@dataclass(frozen=True)
class CallContext:
    """What a handler learns about one call besides its request.

    ``tenant`` is the request's tenant (``""`` when none), ``binding`` the binding it
    came over (``"http+json"`` or ``"jsonrpc"``), ``params`` its A2A service parameters
    and ``headers`` every request header as ``(lower-case name, value)`` pairs, values
    read as ISO-8859-1. ``base_url`` is where the client reached the application
    (scheme, host, port and mount prefix, see :func:`base_url`), for answers that name
    URLs, such as an extended agent card.
    """

    tenant: str
    binding: Binding
    params: ServiceParams
    headers: tuple[tuple[str, str], ...]
    base_url: str = ""

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (any case), None when absent."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key == wanted), None)


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


# A host as RFC 9110 allows it in Host (reg-name or IP literal), with an optional port:
# anything else (a header injected by a client) is not put into URLs we answer with.
_HOST = re.compile(r"(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _first_header(scope: Scope, name: bytes) -> bytes | None:
    """The first value of the request header ``name`` (lower case), if any."""
    for key, value in scope.get("headers") or []:
        if bytes(key).lower() == name:
            return bytes(value)
    return None


def base_url(scope: Scope) -> str:
    """Where the client reached the application: scheme, host and port, then the
    percent-encoded ``root_path``, without a trailing slash.

    The host is the ``Host`` header when it is a well-formed host and optional port,
    else the server's socket address (``scope["server"]``, the port left out when it
    is the scheme's default), else ``localhost``.
    """
    scheme = scope.get("scheme") or "http"
    if scheme not in _DEFAULT_PORTS:
        scheme = "http"
    found = _first_header(scope, b"host")
    host = found.decode("latin-1") if found is not None else ""
    if not _HOST.fullmatch(host):
        server = scope.get("server")
        if server and server[1] is not None:
            address, port = server
            host = f"[{address}]" if ":" in address else address
            if port != _DEFAULT_PORTS[scheme]:
                host += f":{port}"
        else:
            host = "localhost"
    root = quote(scope.get("root_path") or "", safe=_PATH_SAFE).rstrip("/")
    return f"{scheme}://{host}{root}"


class RouteTableLike(Protocol):
    """The HTTP+JSON table the application routes with (the generated ``routes``
    module, or a ``RouteTable``)."""

    def match(self, verb: str, raw_path: str) -> Match | None: ...

    def allowed_verbs(self, raw_path: str) -> frozenset[str]: ...

    def transcode(
        self,
        verb: str,
        raw_path: str,
        query: QueryInput = "",
        body: object = None,
        *,
        unknown: Unknown = "ignore",
        max_pairs: int = MAX_QUERY_PAIRS,
    ) -> tuple[Route, dict[str, Any]]: ...


class JsonRpcTable(Protocol):
    """The JSON-RPC method table (the generated ``jsonrpc`` module, or a
    ``JsonRpcBinding``)."""

    def parse_request(self, payload: object, *, tenant: str | None = None) -> Request:
        """Check one envelope."""


class _Refused(Exception):
    """A request refused before its handler ran: HTTP status, ``google.rpc.Status``
    name, message, details; JSON-RPC code and data."""

    def __init__(
        self,
        status: int,
        name: str,
        message: str,
        code: int,
        details: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.name, self.message = status, name, message
        self.code, self.details = code, details or []


def _bad_request(message: str, violations: Iterable[tuple[str, str]]) -> _Refused:
    detail = {
        "@type": _BAD_REQUEST_TYPE,
        "fieldViolations": [
            {"field": field, "description": text} for field, text in violations
        ],
    }
    return _Refused(400, "INVALID_ARGUMENT", message, INVALID_PARAMS, [detail])


@dataclass(frozen=True)
class _Document:
    """A document served with caching headers: the card or the OpenAPI document."""

    body: bytes
    headers: list[tuple[str, str]]
    etag: str


class _Disconnected(Exception):
    """The client went away while the request body was being read."""


def _json(payload: Any) -> bytes:
    # allow_nan=False: ProtoJSON writes non-finite floats as strings, never bare NaN.
    text = json.dumps(
        payload, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate, as a client's JSON "\ud800" escape decodes (echoed in an
        # id, a method name, a field): UTF-8 cannot carry it, JSON's escape can.
        return json.dumps(payload, separators=(",", ":"), allow_nan=False).encode()


def _sse(data: bytes, number: int) -> bytes:
    """One numbered event; compact JSON never holds the CR or LF that ends a line."""
    return b"id: %d\ndata: %s\n\n" % (number, data)


def _handler_cancelled(exc: BaseException) -> bool:
    """Whether ``exc`` is a ``CancelledError`` a handler raised while this request was
    not being cancelled (it awaited a task cancelled elsewhere): a handler failure
    like any other. A real cancellation (the server's, a task group's) propagates;
    before Python 3.11 the two cannot be told apart, so both propagate."""
    import asyncio  # loaded already when a CancelledError exists

    if not isinstance(exc, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return cancelling is not None and cancelling() == 0


def _prefix(value: str | None, what: str) -> str | None:
    """``None``, ``""`` for the root, or ``/a/b`` without a trailing slash."""
    if value is None:
        return None
    if any(c in value for c in "?#") or (value and not value.startswith("/")):
        raise ValueError(f"{what} {value!r} must be a path starting with '/'")
    return value.rstrip("/")


async def _aclose(events: object) -> None:
    close = getattr(events, "aclose", None)
    if close is not None:
        await close()


class A2AApplication:
    """The ASGI application (see the module docstring for what it answers).

    ``handler`` has one method per rpc, named in ``methods`` (rpc name to attribute);
    ``routes`` and ``jsonrpc`` are the package's tables, ``tenant_field`` the json name
    of the tenant field of the requests, ``agent_card`` the ProtoJSON card or a
    callable from the request's base URL to it. ``openapi`` is an OpenAPI document
    (JSON text) served at ``openapi_path``; ``link_openapi_in_card`` puts its URL into
    the card's ``documentationUrl``.
    """

    def __init__(
        self,
        handler: object,
        *,
        methods: Mapping[str, str],
        routes: RouteTableLike,
        jsonrpc: JsonRpcTable,
        tenant_field: str,
        agent_card_path: str,
        agent_card: AgentCardSource,
        http_json_prefix: str | None = "",
        jsonrpc_path: str | None = "/",
        supported_versions: Iterable[str],
        agent_card_last_modified: datetime | None = None,
        agent_card_max_age: int = 3600,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        max_query_pairs: int = MAX_QUERY_PAIRS,
        check_request: CheckRequest | None = None,
        expose_errors: bool = False,
        openapi: str | bytes | None = None,
        openapi_path: str = "/openapi.json",
        link_openapi_in_card: bool = False,
    ) -> None:
        missing = sorted(
            name for name in methods.values() if not hasattr(handler, name)
        )
        if missing:
            raise TypeError(f"the handler lacks the methods {', '.join(missing)}")
        self.handler = handler
        self._methods = {rpc: getattr(handler, name) for rpc, name in methods.items()}
        self.routes = routes
        self.jsonrpc = jsonrpc
        self.tenant_field = tenant_field
        self.http_json_prefix = _prefix(http_json_prefix, "http_json_prefix")
        self.jsonrpc_path = _prefix(jsonrpc_path, "jsonrpc_path")
        self.supported_versions = tuple(supported_versions)
        check_version(self.supported_versions[0], self.supported_versions)
        if max_body_bytes < 0 or max_query_pairs < 0:
            raise ValueError("max_body_bytes and max_query_pairs must not be negative")
        self.max_body_bytes = max_body_bytes
        self.max_query_pairs = max_query_pairs
        self.check_request = check_request
        self.expose_errors = expose_errors
        self._card_path = agent_card_path
        self._modified = agent_card_last_modified or datetime.now(timezone.utc)
        self._max_age = agent_card_max_age
        self._openapi_path: str | None = None
        self._openapi: dict[str, Any] = {}
        if openapi is not None:
            self._openapi_path = _prefix(openapi_path, "openapi_path") or "/"
            try:
                document = json.loads(openapi)
            except ValueError as exc:
                raise ValueError(f"openapi: the document is not JSON: {exc}") from None
            if not isinstance(document, dict):
                raise ValueError("openapi: the document is not a JSON object")
            self._openapi = document
        elif link_openapi_in_card:
            raise ValueError("link_openapi_in_card needs an openapi document")
        self._link_openapi = link_openapi_in_card
        self._card_source = agent_card
        # A fixed answer is rendered once; one that names URLs, per request.
        self._fixed_card: _Document | None = None
        if not callable(agent_card) and not link_openapi_in_card:
            self._fixed_card = self._document(_json(dict(agent_card)))
        self._fixed_openapi: _Document | None = None
        if openapi is not None and (
            "servers" in self._openapi or self.http_json_prefix is None
        ):
            raw = openapi.encode("utf-8") if isinstance(openapi, str) else openapi
            self._fixed_openapi = self._document(raw)

    def _document(self, body: bytes) -> _Document:
        headers = agent_card_headers(body, self._modified, max_age=self._max_age)
        return _Document(body, headers, dict(headers)["ETag"])

    def _card(self, scope: Scope) -> _Document:
        if self._fixed_card is not None:
            return self._fixed_card
        base = base_url(scope)
        source = self._card_source
        card = dict(source(base) if callable(source) else source)
        if self._link_openapi:
            card["documentationUrl"] = base + (self._openapi_path or "")
        return self._document(_json(card))

    def _openapi_document(self, scope: Scope) -> _Document:
        if self._fixed_openapi is not None:
            return self._fixed_openapi
        server = {"url": base_url(scope) + (self.http_json_prefix or "")}
        document: dict[str, Any] = {}
        for key, value in self._openapi.items():
            document[key] = value
            if key == "info":  # where OpenAPI documents usually put it
                document["servers"] = [server]
        document.setdefault("servers", [server])
        return self._document(_json(document))

    # ------------------------------------------------------------------ entry point

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        else:  # websockets and anything newer: not ours
            raise RuntimeError(f"the A2A application serves HTTP, not {kind!r}")

    @staticmethod
    async def _lifespan(receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    @staticmethod
    def _raw_path(scope: Scope) -> str:
        """The path as sent (still percent-encoded) below ``root_path``: the prefix a
        Starlette ``Mount`` or a server's root path put in front is removed."""
        raw = scope.get("raw_path")
        if raw:
            path = bytes(raw).decode("latin-1").split("?", 1)[0]
        else:  # raw_path is optional in ASGI: re-encode the decoded path
            path = quote(scope["path"], safe=_PATH_SAFE)
        root = scope.get("root_path") or ""
        encoded_root = quote(root, safe=_PATH_SAFE)
        for prefix in (root, encoded_root):
            if prefix and (path == prefix or path.startswith(prefix + "/")):
                return path[len(prefix) :] or "/"
        return path

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        verb: str = scope["method"]
        path = self._raw_path(scope)
        if tenant_of(path, self._card_path) is not None or path == self._openapi_path:
            if verb in ("GET", "HEAD"):
                await self._serve_document(scope, send, path, head=verb == "HEAD")
            else:
                await self._status_error(
                    send,
                    405,
                    "UNIMPLEMENTED",
                    f"{verb} {path}",
                    [("Allow", "GET, HEAD")],
                )
            return
        route_path = self._route_path(path)
        if route_path is not None and self.routes.match(verb, route_path) is not None:
            await self._http_json(scope, receive, send, route_path)
            return
        rpc_tenant = (
            endpoint_tenant(path, self.jsonrpc_path or "/")
            if self.jsonrpc_path is not None
            else None
        )
        if verb == "POST" and rpc_tenant is not None:
            await self._jsonrpc(scope, receive, send, rpc_tenant)
            return
        allowed = set(self.routes.allowed_verbs(route_path)) if route_path else set()
        if rpc_tenant is not None:
            allowed.add("POST")
        error = RouteNotFound(verb, path)
        if allowed:
            allow = ", ".join(sorted(allowed))
            await self._status_error(
                send,
                405,
                "UNIMPLEMENTED",
                f"{verb} {path}: {verb} is not allowed here (allowed: {allow})",
                [("Allow", allow)],
            )
        else:
            await self._status_error(send, 404, "NOT_FOUND", str(error))

    def _route_path(self, path: str) -> str | None:
        prefix = self.http_json_prefix
        if prefix is None:
            return None
        if not prefix:
            return path
        if path.startswith(prefix + "/"):
            return path[len(prefix) :]
        return None

    # ------------------------------------------------------------------- agent card

    async def _serve_document(
        self, scope: Scope, send: Send, path: str, *, head: bool
    ) -> None:
        """The agent card or the OpenAPI document, with caching headers and 304s."""
        try:
            if path == self._openapi_path:
                document = self._openapi_document(scope)
            else:
                document = self._card(scope)
        except Exception as exc:  # the card callable failed, or gave no JSON object
            message = self._internal(exc, f"GET {path}")
            await self._status_error(send, 500, "INTERNAL", message)
            return
        headers = [(k.lower().encode(), v.encode()) for k, v in document.headers]
        if not_modified(scope.get("headers") or [], document.etag, self._modified):
            await send(
                {"type": "http.response.start", "status": 304, "headers": headers}
            )
            await send({"type": "http.response.body", "body": b""})
            return
        headers += [
            (b"content-type", JSONRPC_CONTENT_TYPE.encode()),
            (b"content-length", str(len(document.body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        body = b"" if head else document.body
        await send({"type": "http.response.body", "body": body})

    # ---------------------------------------------------------------------- helpers

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body; None when it is larger than ``max_body_bytes``."""
        limit = self.max_body_bytes
        length = _first_header(scope, b"content-length")
        if length is not None:
            try:
                if int(length) > limit:
                    return None
            except ValueError:
                pass  # the server refuses a bad Content-Length before we see it
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Disconnected
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _params(self, scope: Scope) -> ServiceParams:
        """The service parameters, checked: the version sets the request's semantics,
        so it is checked before the request is read."""
        params = service_params(
            scope.get("headers") or [], scope.get("query_string", b"")
        )
        check_version(params.version, self.supported_versions)
        return params

    def _context(
        self,
        scope: Scope,
        binding: Binding,
        params: ServiceParams,
        request: Mapping[str, Any],
    ) -> CallContext:
        tenant = request.get(self.tenant_field) if self.tenant_field else None
        headers = tuple(
            (bytes(k).decode("latin-1").lower(), bytes(v).decode("latin-1"))
            for k, v in scope.get("headers") or []
        )
        return CallContext(
            tenant if isinstance(tenant, str) else "",
            binding,
            params,
            headers,
            base_url(scope),
        )

    def _check(self, rpc: str, request: Mapping[str, Any]) -> None:
        if self.check_request is None:
            return
        violations = list(self.check_request(rpc, request))
        if violations:
            described = "; ".join(f"{field}: {text}" for field, text in violations)
            raise _bad_request(f"{rpc}: invalid request: {described}", violations)

    def _content_type(
        self, scope: Scope, body: bytes, accepted: frozenset[str]
    ) -> None:
        if not body:
            return  # a body-less request is never refused for its Content-Type
        value = _first_header(scope, b"content-type")
        if value is None:
            return
        found = media_type(value)
        if found not in accepted:
            raise A2AError(
                "ContentTypeNotSupportedError",
                f"Content-Type {found!r} is not supported here "
                f"(accepted: {', '.join(sorted(accepted))})",
            )

    def _internal(self, exc: BaseException, where: str) -> str:
        log.error("%s failed", where, exc_info=exc)
        if self.expose_errors:
            return f"{type(exc).__name__}: {exc}"
        return _GENERIC_ERROR

    @staticmethod
    async def _send_body(
        send: Send,
        status: int,
        body: bytes,
        content_type: str,
        headers: Sequence[tuple[str, str]] = (),
    ) -> None:
        raw = [(b"content-type", content_type.encode())]
        raw += [(k.lower().encode(), v.encode("latin-1")) for k, v in headers]
        raw.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": body})

    async def _status_error(
        self,
        send: Send,
        status: int,
        name: str,
        message: str,
        headers: Sequence[tuple[str, str]] = (),
    ) -> None:
        body = _json({"error": {"code": status, "status": name, "message": message}})
        await self._send_body(send, status, body, HTTP_JSON_CONTENT_TYPE, headers)

    def _http_error(self, exc: BaseException, where: str) -> tuple[int, bytes]:
        """The HTTP status and ``{"error": Status}`` body of an exception; a generic
        500 when the exception cannot be described (a handler's ``InvalidArgument``
        whose violations are not text pairs)."""
        try:
            status, error = self._http_status(exc, where)
            return status, _json(error)
        except Exception as failed:
            message = self._internal(failed, where)
            error = {"code": 500, "status": "INTERNAL", "message": message}
            return 500, _json({"error": error})

    def _http_status(
        self, exc: BaseException, where: str
    ) -> tuple[int, dict[str, Any]]:
        if isinstance(exc, A2AError):
            return exc.to_http()
        if isinstance(exc, QueryError):
            exc = _bad_request(
                str(exc), [(exc.field, f"{exc.reason} (got {exc.value!r})")]
            )
        if isinstance(exc, InvalidArgument):
            exc = _bad_request(exc.message, exc.violations)
        if isinstance(exc, Unauthenticated):
            exc = _Refused(401, "UNAUTHENTICATED", exc.message, exc.code)
        if isinstance(exc, _Refused):
            error: dict[str, Any] = {
                "code": exc.status,
                "status": exc.name,
                "message": exc.message,
            }
            if exc.details:
                error["details"] = exc.details
            return exc.status, {"error": error}
        message = self._internal(exc, where)
        return 500, {"error": {"code": 500, "status": "INTERNAL", "message": message}}

    def _jsonrpc_failure(
        self, exc: BaseException, request_id: RequestId, where: str
    ) -> bytes:
        """The failure envelope of an exception; -32603 when the exception cannot be
        described (see ``_http_error``)."""
        try:
            error = self._jsonrpc_error(exc, request_id, where)
            return _json(
                failure(error.id if error.id is not None else request_id, error)
            )
        except Exception as failed:
            error = JsonRpcError(INTERNAL_ERROR, self._internal(failed, where))
            return _json(failure(request_id, error))

    def _jsonrpc_error(
        self, exc: BaseException, request_id: RequestId, where: str
    ) -> JsonRpcError:
        if isinstance(exc, A2AError):
            return exc.to_jsonrpc(request_id)
        if isinstance(exc, JsonRpcError):
            return exc
        if isinstance(exc, QueryError):
            exc = _bad_request(
                str(exc), [(exc.field, f"{exc.reason} (got {exc.value!r})")]
            )
        if isinstance(exc, InvalidArgument):
            exc = _bad_request(exc.message, exc.violations)
        if isinstance(exc, Unauthenticated):
            return JsonRpcError(exc.code, exc.message, id=request_id)
        if isinstance(exc, _Refused):
            return JsonRpcError(
                exc.code, exc.message, exc.details or None, id=request_id
            )
        return JsonRpcError(INTERNAL_ERROR, self._internal(exc, where), id=request_id)

    async def _call(
        self, rpc: str, request: dict[str, Any], context: CallContext
    ) -> Mapping[str, Any]:
        result = await self._methods[rpc](request, context)
        if result is None:
            return {}  # google.protobuf.Empty
        if not isinstance(result, Mapping):
            raise TypeError(
                f"{rpc}: the handler returned {type(result).__name__}, not a dict"
            )
        return result

    async def _events(
        self, rpc: str, request: dict[str, Any], context: CallContext
    ) -> AsyncIterator[Any]:
        events = self._methods[rpc](request, context)
        if isinstance(events, Awaitable):  # ``async def`` returning an iterator
            events = await events
        if not isinstance(events, AsyncIterator):
            raise TypeError(
                f"{rpc}: the handler returned {type(events).__name__}, "
                "not an async iterator"
            )
        return events

    async def _stream(
        self,
        receive: Receive,
        send: Send,
        events: AsyncIterator[Any],
        frame: Callable[[dict[str, Any]], Mapping[str, Any]],
        fail: Callable[[BaseException], bytes],
        rpc: str,
    ) -> None:
        """The events as ``text/event-stream``, numbered from 0.

        The first event is awaited before the 200 goes out, so an error before it (an
        unknown task) is an ordinary error answer: it propagates to the caller. An
        event that is no JSON object (not a dict, a NaN in it) ends the stream with
        ``fail``'s error event, as a handler's error does. The iterator is closed at
        the end, on error and when the client disconnects.
        """
        import asyncio  # here: a third of the package's import time, for streams only

        try:
            try:
                first: Any = await anext(events)
                more = True
            except StopAsyncIteration:
                first, more = None, False
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", _SSE.encode()),
                        (b"cache-control", b"no-cache"),
                    ],
                }
            )

            async def pump() -> None:
                number, event, going = 0, first, more
                while going:
                    try:
                        if not isinstance(event, Mapping):
                            raise TypeError(
                                f"{rpc}: the handler yielded {type(event).__name__},"
                                " not a dict"
                            )
                        body = _sse(_json(frame(dict(event))), number)
                    except Exception as exc:  # a handler's event JSON cannot carry
                        body = _sse(fail(exc), number)
                        going = False
                    await send(
                        {"type": "http.response.body", "body": body, "more_body": True}
                    )
                    number += 1
                    if not going:
                        break
                    try:
                        event = await anext(events)
                    except StopAsyncIteration:
                        break
                    except BaseException as exc:
                        if not isinstance(exc, Exception) and not _handler_cancelled(
                            exc
                        ):
                            raise
                        body = _sse(fail(exc), number)
                        await send(
                            {
                                "type": "http.response.body",
                                "body": body,
                                "more_body": True,
                            }
                        )
                        break
                await send({"type": "http.response.body", "body": b""})

            async def gone() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass

            # A stream may never end (a subscription): stop when the client goes.
            pumping = asyncio.ensure_future(pump())
            watching = asyncio.ensure_future(gone())
            try:
                await asyncio.wait(
                    {pumping, watching}, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                for task in (pumping, watching):
                    task.cancel()
                await asyncio.gather(pumping, watching, return_exceptions=True)
            if pumping.done() and not pumping.cancelled() and pumping.exception():
                # Only sending can fail here (handler errors became the last event):
                # the response has started, so there is nobody left to tell.
                log.debug("stream ended early", exc_info=pumping.exception())
        finally:
            await _aclose(events)

    # -------------------------------------------------------------------- HTTP+JSON

    async def _http_json(
        self, scope: Scope, receive: Receive, send: Send, route_path: str
    ) -> None:
        verb: str = scope["method"]
        where = f"{verb} {route_path}"
        try:
            body = await self._read_body(scope, receive)
        except _Disconnected:
            return
        try:
            if body is None:
                raise _Refused(
                    413,
                    "RESOURCE_EXHAUSTED",
                    f"the body is larger than {self.max_body_bytes} bytes",
                    INVALID_REQUEST,
                )
            self._content_type(scope, body, HTTP_JSON_ACCEPTED)
            params = self._params(scope)
            payload = self._decode_body(body)
            try:
                route, request = self.routes.transcode(
                    verb,
                    route_path,
                    scope.get("query_string", b""),
                    payload,
                    max_pairs=self.max_query_pairs,
                )
            except QueryError:
                raise
            except ValueError as exc:
                raise _bad_request(str(exc), [("", str(exc))]) from None
            context = self._context(scope, "http+json", params, request)
            self._check(route.rpc, request)
            where = route.rpc
            if route.server_streaming:
                events = await self._events(route.rpc, request, context)
                await self._stream(
                    receive,
                    send,
                    events,
                    lambda event: event,
                    lambda exc: self._http_error(exc, route.rpc)[1],
                    route.rpc,
                )
                return
            result = await self._call(route.rpc, request, context)
            if route.response_body:
                result = result.get(route.response_body) or {}
            answer = _json(dict(result))
        except BaseException as exc:
            if not isinstance(exc, Exception) and not _handler_cancelled(exc):
                raise  # KeyboardInterrupt, SystemExit, a real cancellation
            status, error = self._http_error(exc, where)
            await self._send_body(
                send, status, error, HTTP_JSON_CONTENT_TYPE, _challenge(exc)
            )
            return
        await self._send_body(send, 200, answer, HTTP_JSON_CONTENT_TYPE)

    @staticmethod
    def _decode_body(body: bytes) -> Any:
        if not body:
            return None
        try:
            return decode_json(body)
        except JsonRpcError as exc:
            text = exc.message.removeprefix("Parse error: ")
            raise _bad_request(
                f"the body is not JSON: {text}", [("", f"not JSON: {text}")]
            ) from None

    # --------------------------------------------------------------------- JSON-RPC

    async def _jsonrpc(
        self, scope: Scope, receive: Receive, send: Send, tenant: str
    ) -> None:
        try:
            body = await self._read_body(scope, receive)
        except _Disconnected:
            return
        request_id: RequestId = None
        notification = False
        where = "JSON-RPC"
        challenge: list[tuple[str, str]] = []
        try:
            if body is None:
                raise JsonRpcError(
                    INVALID_REQUEST,
                    f"Invalid Request: the body is larger than {self.max_body_bytes}"
                    " bytes",
                )
            self._content_type(scope, body, JSONRPC_ACCEPTED)
            envelope = decode_json(body)
            notification = _is_notification(envelope)
            parsed = self.jsonrpc.parse_request(envelope, tenant=tenant or None)
            request_id = parsed.id
            where = parsed.method
            params = self._params(scope)
            context = self._context(scope, "jsonrpc", params, parsed.params)
            self._check(parsed.method, parsed.params)
            if parsed.streaming:
                if notification:
                    raise _Quiet
                events = await self._events(parsed.method, parsed.params, context)
                method = parsed.method
                await self._stream(
                    receive,
                    send,
                    events,
                    lambda event: success(request_id, event),
                    lambda exc: self._jsonrpc_failure(exc, request_id, method),
                    method,
                )
                return
            result = await self._call(parsed.method, parsed.params, context)
            answer = _json(success(request_id, dict(result)))
        except _Quiet:
            answer = b""
        except BaseException as exc:
            if not isinstance(exc, Exception) and not _handler_cancelled(exc):
                raise  # KeyboardInterrupt, SystemExit, a real cancellation
            answer = self._jsonrpc_failure(exc, request_id, where)
            challenge = _challenge(exc)
        if notification:
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        await self._send_body(send, 200, answer, JSONRPC_CONTENT_TYPE, challenge)


def _is_notification(envelope: object) -> bool:
    """A valid JSON-RPC 2.0 Request object without ``id``. An invalid one without ``id``
    (no ``method``, say) is no notification: it is answered -32600 with id null."""
    return (
        isinstance(envelope, Mapping)
        and "id" not in envelope
        and envelope.get("jsonrpc") == "2.0"
        and isinstance(envelope.get("method"), str)
        and isinstance(envelope.get("params", {}), (dict, list))
    )


def _challenge(exc: BaseException) -> list[tuple[str, str]]:
    """The ``WWW-Authenticate`` header an error answer carries, if any."""
    if isinstance(exc, Unauthenticated):
        return [("WWW-Authenticate", exc.challenge)]
    return []


class _Quiet(Exception):
    """A notification that is not run: nothing to answer."""

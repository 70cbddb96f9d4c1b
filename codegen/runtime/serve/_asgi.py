"""An ASGI application serving one handler over HTTP+JSON and JSON-RPC (A2A).

ASGI is a calling convention, so this needs nothing outside the standard library; it
runs under any ASGI server on asyncio (uvicorn, hypercorn) and mounts inside Starlette
or FastAPI. The generated ``asgi.py`` hands ``A2AApplication`` the package's tables
(``routes.TABLE``, ``jsonrpc``) and the rpc-to-method map of its handler ``Protocol``.
This module decides what a request is and calls the handler; the other runtime modules
do the rest, each one job: ``_request`` reads the request, ``_failure`` converts every
error once, ``_responses`` sends, ``_documents`` serves the card and OpenAPI document.

What it answers, in the order it decides:

1. ``GET``/``HEAD`` ``/.well-known/agent-card.json`` and ``/{tenant}/...`` at the
   application root: the card with caching headers, 304 when the client's copy is
   current; no version check (discovery comes before any version is agreed). The same
   for the OpenAPI document at ``openapi_path`` when one is given.
2. A path some HTTP+JSON route takes under ``http_json_prefix``: the rpc over
   HTTP+JSON. Errors are ``{"error": google.rpc.Status}`` with their HTTP status.
   ``HEAD`` is served wherever ``GET`` is (RFC 9110 §9.3.2): the same status and
   headers, no body.
3. ``POST`` to ``jsonrpc_path`` or ``jsonrpc_path/{tenant}``: JSON-RPC. Every answer is
   HTTP 200 (``application/json``, or ``text/event-stream`` for a stream), errors
   included; a notification (no ``id``) is run and answered 204 without a body (JSON-RPC
   2.0 forbids answering it), streaming methods are not started for one. The ``id`` is
   echoed exactly as sent (``9007199254740993.0`` too, which no double holds).
4. Anything else: 405 with ``Allow`` when some route or the JSON-RPC endpoint takes the
   path with another verb, else 404. A websocket is closed before it is accepted
   (servers answer its handshake 403).

When both bindings share a path (the defaults put both at the root), an HTTP+JSON route
wins, so a JSON-RPC tenant endpoint named like a route's first segment is not reachable.

Given a 0.3 side (``v0_3``, the A2A packages' ``V0_3Serving``) and "0.3" among the
supported versions, 0.3 clients are served from the same handler: a 0.3 JSON-RPC
method, and a 0.3 route (matched before the 1.0 ones, unless the request names a later
version), is converted to its 1.0 request, validated and answered in 0.3's form; a 0.3
stream's error before its first event goes as its one event; the card's form follows
the version a request names (``Vary: A2A-Version``). See ``_params.VersionPolicy``.

Decisions: a body over ``max_body_bytes`` is 413 (HTTP+JSON) or -32600 (JSON-RPC: the
request was not read, so it is no parse error); a body whose Content-Type is not one
the binding reads is the A2A ``ContentTypeNotSupportedError`` (400 / -32005), while a
missing Content-Type is never refused; an error raised after a stream has started goes
out as one last event (HTTP+JSON ``{"error": Status}``, JSON-RPC a failure envelope) and
the stream ends; the handler's iterator is closed when the stream ends, fails, or the
client leaves (before the first event too). ``call_timeout`` (seconds) bounds a unary
call and the wait for a stream's first event: past it the handler is cancelled and the
answer is 504 ``DEADLINE_EXCEEDED`` (JSON-RPC -32603). A handler's own exception other
than the refusals ``_failure`` knows is logged and answered 500 / -32603 with a
generic message (its text only with ``expose_errors=True``); so are a ``CancelledError``
the handler raised while the request was not being cancelled (Python 3.11+ tells them
apart) and a ``SystemExit`` (a handler cannot stop the server for every other client).
``KeyboardInterrupt`` is answered the same way, then propagates: it is the operator's.
A real cancellation (the server going away) propagates unanswered. A unary call whose
client disconnects is cancelled and not answered, as a stream is (the disconnect is
watched once the call has run 50 to 100 ms: see ``_cancellation.DisconnectWatch``), so
that a handler calling on (a ``grpc_binding.Backend``) cancels its own call too.

Client-streaming and bidirectional rpcs (``Route.client_streaming``): over HTTP+JSON
the whole body is read first, within ``max_body_bytes``, as the stream of requests: a
JSON array of request bodies (as Envoy's gRPC-JSON transcoder reads it), or
newline-delimited JSON, one a line, under a Content-Type of ``NDJSON_TYPES`` (as
grpc-gateway reads it); an empty body is an empty stream. Each element is merged with
the path and query fields, which every request of the stream shares (as in Envoy), and
checked as a unary request is; a refused one refuses the call before the handler runs
(400, the request's number in the message and the fields: ``[2].message.role``). The
handler gets an async iterator of the requests; a client-streaming call is answered as
a unary one, a bidirectional one as a server stream. ``CallContext.tenant`` is the
first request's (the path's when the route binds it). Over JSON-RPC such a method is
known, and refused: one request carries one ``params`` object, not a stream of them
(the profile's ``unsupported_operation``: A2A's ``UnsupportedOperationError``, -32004;
UNIMPLEMENTED, -32601 with the Status in ``data``, for any other service).

A handler refuses a call with :class:`Unauthenticated` (401 with ``WWW-Authenticate``
and a ``google.rpc.Status`` UNAUTHENTICATED; JSON-RPC :data:`UNAUTHENTICATED_CODE`,
HTTP 200 with the same ``WWW-Authenticate``) or :class:`InvalidArgument` (400
INVALID_ARGUMENT with a ``google.rpc.BadRequest``; JSON-RPC -32602 with the BadRequest
in ``data``).

``agent_card`` may be a callable taking the request's base URL (see ``_request``), and
the tenant of the card's path when it takes two arguments, so that a card names the
URLs its clients really reach; the ``ETag`` and
``Last-Modified`` then follow the bytes of each answer. A served OpenAPI document
without ``servers`` is given one: the base URL followed by ``http_json_prefix``;
``link_openapi_in_card=True`` sets the card's ``documentationUrl`` to the base URL
followed by ``openapi_path``. Failures are logged on the logger named after the
package (``<package>.asgi``).

Any other gRPC service is served by the same application with three parameters:
``agent_card=None`` (no card: its paths are routed like any other),
``supported_versions=None`` (no ``A2A-Version`` check; ``CallContext.params`` is
``NO_PARAMS``) and ``profile=GATEWAY`` (grpc-gateway's error forms, Content-Type and
streams: see ``_profile``).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from collections.abc import Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Any, Protocol

from ._caching import not_modified
from ._documents import AgentCardSource, Documents
from ._errors import A2AError
from ._failure import (
    UNAUTHENTICATED_CODE,
    Failure,
    Failures,
    InvalidArgument,
    Refusal,
    Unauthenticated,
    not_found,
    numbered,
    other_tenant,
)
from ._cancellation import DisconnectWatch, within
from ._headers import RequestHead
from ._json import NotJson, decode, encode
from ._jsonrpc import (
    INVALID_REQUEST,
    JsonRpcError,
    Request,
    RequestId,
    decode_envelope,
    endpoint_tenant,
    response_bytes,
)
from ._media import NDJSON_TYPES, JSONRPC_CONTENT_TYPE, media_type
from ._params import NO_PARAMS, VERSION_HEADER, Binding, ServiceParams, VersionPolicy
from ._params import read_service_params
from ._paths import Match, Name, Rpc, tenant_of
from ._profile import A2A, Profile
from ._query import MAX_QUERY_PAIRS, QueryError, QueryInput, Unknown
from ._quoting import excerpt
from ._request import (
    AsgiMessage,
    CallContext,
    Disconnected,
    Receive,
    Scope,
    Send,
    base_url,
    raw_path,
    read_body,
)
from ._responses import refuse_websocket, send_bytes, send_empty, send_events
from ._responses import send_one_event, send_stream_head
from ._validate import Schema, UnknownFields, ValidationError, json_type
from ._validate_fast import validator

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
    "handler_methods",
    "message_types",
]

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
"""Default limit on a request body: 4 MiB, gRPC's default message size limit."""

CheckRequest = Callable[[str, Mapping[str, Any]], Sequence[tuple[str, str]]]
"""A hook run on each decoded request: ``(rpc, request)`` to the field violations
``(field, description)`` that make it invalid (empty when it is fine)."""


def handler_methods(rpcs: Mapping[Name, Rpc[Name]]) -> Mapping[str, str]:
    """Each rpc's handler method, by rpc name (``rpcs``: a package's ``RPCS``)."""
    return MappingProxyType({name: rpc.method for name, rpc in rpcs.items()})


def message_types(rpcs: Mapping[Name, Rpc[Name]]) -> Mapping[str, tuple[str, str]]:
    """Each rpc's request and response message types (full proto names), by rpc
    name (``rpcs``: a package's ``RPCS``)."""
    return MappingProxyType(
        {name: (rpc.request_type, rpc.response_type) for name, rpc in rpcs.items()}
    )


_PACKAGE = __name__.rpartition(".")[0]
log = logging.getLogger(f"{_PACKAGE}.asgi" if _PACKAGE else "asgi")
"""The logger of the application: ``<package>.asgi`` wherever the package is vendored."""

_DOCUMENT_VERBS = ("GET", "HEAD")


class RouteTableLike(Protocol):
    """The HTTP+JSON table the application routes with (the generated
    ``routes.TABLE``, a ``RouteTable``)."""

    def match(self, verb: str, raw_path: str) -> Match[str] | None: ...

    def allowed_verbs(self, raw_path: str) -> frozenset[str]: ...

    def request(
        self,
        match: Match[str],
        query: QueryInput = "",
        body: object = None,
        *,
        unknown: Unknown = "ignore",
        max_pairs: int | None = None,
    ) -> dict[str, Any]: ...


class JsonRpcTable(Protocol):
    """The JSON-RPC method table (the generated ``jsonrpc`` module, or a
    ``JsonRpcBinding``)."""

    def parse_request(self, payload: object, *, tenant: str | None = None) -> Request:
        """Check one envelope."""


class V0_3Side(Protocol):
    """The 0.3 side of an A2A application (the A2A packages' ``V0_3Serving``): the
    0.3 route table, if any, and the conversions between 0.3 and 1.0."""

    routes: RouteTableLike | None

    def method(self, name: object) -> str | None: ...

    def rpc(self, method: str, params: object) -> str: ...

    def streams(self, method: str) -> bool: ...

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]: ...

    def result(self, method: str, rpc: str, result: dict[str, Any]) -> Any: ...

    def event(self, event: dict[str, Any]) -> dict[str, Any]: ...

    def error(self, error: dict[str, Any]) -> dict[str, Any]: ...

    def route_request(
        self, found: Match[str], request: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]: ...

    def route_answer(self, rpc: str, answer: dict[str, Any]) -> dict[str, Any]: ...

    def card(self, card: dict[str, Any]) -> dict[str, Any]: ...


def _prefix(value: str | None, what: str) -> str | None:
    """``None``, ``""`` for the root, or ``/a/b`` without a trailing slash."""
    if value is None:
        return None
    if any(c in value for c in "?#") or (value and not value.startswith("/")):
        raise ValueError(f"{what} {value!r} must be a path starting with '/'")
    return value.rstrip("/")


def _as_dict(value: object, rpc: str, what: str) -> dict[str, Any]:
    """A handler's answer or event as a dict (a read-only mapping is copied)."""
    if type(value) is dict:
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"{rpc}: the handler {what} {type(value).__name__}, not a dict")
    return dict(value)


class A2AApplication:
    """The ASGI application (see the module docstring for what it answers).

    ``handler`` has one method per rpc, named in ``methods`` (rpc name to attribute);
    ``routes`` and ``jsonrpc`` are the package's tables, ``tenant_field`` the json name
    of the tenant field of the requests (``""``: none, and no JSON-RPC tenant
    endpoint), ``agent_card`` the ProtoJSON card or a callable from the request's base
    URL to it (None: no card is served). ``openapi`` is an OpenAPI document (JSON
    text) served at ``openapi_path``; ``link_openapi_in_card`` puts its URL into
    the card's ``documentationUrl``. ``call_timeout`` is the deadline of a call in
    seconds (None: none). ``supported_versions=None`` turns the ``A2A-Version``
    check off; ``profile`` is how errors, answers and streams are written (``A2A``,
    or ``_profile.GATEWAY`` for a service without the A2A profile).
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
        agent_card: AgentCardSource | None,
        http_json_prefix: str | None = "",
        jsonrpc_path: str | None = "/",
        supported_versions: Iterable[str] | None,
        agent_card_last_modified: datetime | None = None,
        agent_card_max_age: int = 3600,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        max_query_pairs: int = MAX_QUERY_PAIRS,
        check_request: CheckRequest | None = None,
        expose_errors: bool = False,
        openapi: str | bytes | None = None,
        openapi_path: str = "/openapi.json",
        link_openapi_in_card: bool = False,
        call_timeout: float | None = None,
        schema: Schema | None = None,
        message_types: Mapping[str, tuple[str, str]] | None = None,
        unknown_fields: UnknownFields = "drop",
        check_responses: bool = False,
        v0_3: V0_3Side | None = None,
        profile: Profile = A2A,
    ) -> None:
        missing = sorted(
            name for name in methods.values() if not hasattr(handler, name)
        )
        if missing:
            raise TypeError(f"the handler lacks the methods {', '.join(missing)}")
        self.handler = handler
        self._methods = {rpc: getattr(handler, name) for rpc, name in methods.items()}
        if not callable(getattr(routes, "request", None)):
            raise TypeError(
                "routes must be a route table (the generated routes.TABLE), not "
                f"{type(routes).__name__}"
            )
        self.routes = routes
        self.jsonrpc = jsonrpc
        self.tenant_field = tenant_field
        self.http_json_prefix = _prefix(http_json_prefix, "http_json_prefix")
        self.jsonrpc_path = _prefix(jsonrpc_path, "jsonrpc_path")
        self.profile = profile
        self._versions = VersionPolicy.of(supported_versions)
        self.supported_versions = self._versions.names if self._versions else ()
        # 0.3 is served where it is supported and the package has its side.
        self.v0_3 = (
            v0_3 if self._versions is not None and self._versions.serves_v0_3 else None
        )
        # The route tables an HTTP+JSON request is matched against, 0.3's first (its
        # ``/v1/...`` paths would otherwise be 1.0 tenant routes of tenant "v1").
        self._tables: tuple[tuple[RouteTableLike, bool], ...] = (
            ((self.v0_3.routes, True),)
            if self.v0_3 is not None and self.v0_3.routes is not None
            else ()
        ) + ((routes, False),)
        if max_body_bytes < 0 or max_query_pairs < 0:
            raise ValueError("max_body_bytes and max_query_pairs must not be negative")
        self.max_body_bytes = max_body_bytes
        self.max_query_pairs = max_query_pairs
        if call_timeout is not None and (
            isinstance(call_timeout, bool)
            or not isinstance(call_timeout, (int, float))
            or not 0 < call_timeout < float("inf")
        ):
            raise ValueError(
                f"call_timeout must be a positive number of seconds, not {call_timeout!r}"
            )
        self.call_timeout = call_timeout
        self.schema = schema
        self._types = dict(message_types or {})
        if schema is not None:
            untyped = sorted(set(self._methods) - set(self._types))
            if untyped:
                raise TypeError(f"no message types for {', '.join(untyped)}")
        if unknown_fields not in ("drop", "reject"):
            raise ValueError(
                f"unknown_fields must be 'drop' or 'reject', not {unknown_fields!r}"
            )
        self.unknown_fields: UnknownFields = unknown_fields
        self._validators: dict[str, Callable[[object], dict[str, Any]]] = {}
        if schema is not None:  # the request of each rpc, checked in place
            self._validators = {
                rpc: validator(
                    schema, types[0], unknown_fields=unknown_fields, in_place=True
                )
                for rpc, types in self._types.items()
            }
        if check_responses and schema is None:
            raise ValueError("check_responses needs the schema to check them with")
        self.check_responses = check_responses
        self.check_request = check_request
        self.expose_errors = expose_errors
        self.failures = Failures(
            log, expose_errors=expose_errors, answered=(SystemExit, KeyboardInterrupt)
        )
        self._departures = DisconnectWatch()
        self._card_path = agent_card_path if agent_card is not None else None
        self._openapi_path = (
            (_prefix(openapi_path, "openapi_path") or "/")
            if openapi is not None
            else None
        )
        self.documents = Documents(
            agent_card if agent_card is not None else {},
            last_modified=agent_card_last_modified,
            max_age=agent_card_max_age,
            openapi=openapi,
            openapi_path=self._openapi_path,
            http_json_prefix=self.http_json_prefix,
            link_openapi=link_openapi_in_card,
            compose=self.v0_3.card if self.v0_3 is not None else None,
            vary=VERSION_HEADER,
        )
        message = f"the body is larger than {max_body_bytes} bytes"
        self._too_large = Failure(
            413,
            "RESOURCE_EXHAUSTED",
            message,
            INVALID_REQUEST,
            rpc_message=f"Invalid Request: {message}",
        )

    # ------------------------------------------------------------------ entry point

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "websocket":
            await refuse_websocket(receive, send)
        else:  # anything newer: not ours
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

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        verb: str = scope["method"]
        path = raw_path(scope)
        head = verb == "HEAD"
        card = self._card_path
        if path == self._openapi_path or (
            card is not None
            and path.endswith(card)
            and tenant_of(path, card) is not None
        ):
            if verb in _DOCUMENT_VERBS:
                await self._serve_document(scope, send, path, head=head)
            else:
                await self._send_failure(send, not_found(verb, path, _DOCUMENT_VERBS))
            return
        route_path = self._route_path(path)
        tables = self._tables
        request_head: RequestHead | None = None  # read once, for either binding
        read: ServiceParams | None = None
        if route_path is not None:
            request_head = RequestHead(scope.get("headers") or ())
            if len(tables) > 1:
                read = self._read_params(request_head, scope)
                if not self._speaks_v0_3(read):
                    tables = tables[1:]  # a later version named: that version's routes
            for table, v0_3 in tables:
                found = table.match("GET" if head else verb, route_path)
                if found is not None:
                    await self._http_json(
                        scope, receive, send, found, head, v0_3, request_head, read
                    )
                    return
        rpc_tenant = (
            endpoint_tenant(path, self.jsonrpc_path or "/")
            if self.jsonrpc_path is not None
            else None
        )
        if rpc_tenant and not self.tenant_field:  # no tenants: the endpoint alone
            rpc_tenant = None
        if verb == "POST" and rpc_tenant is not None:
            if request_head is None:
                request_head = RequestHead(scope.get("headers") or ())
            await self._jsonrpc(scope, receive, send, rpc_tenant, request_head, read)
            return
        allowed = {
            verb
            for table, _ in tables
            for verb in (table.allowed_verbs(route_path) if route_path else ())
        }
        if rpc_tenant is not None:
            allowed.add("POST")
        if "GET" in allowed:
            allowed.add("HEAD")
        await self._send_failure(send, not_found(verb, path, allowed), head=head)

    def _route_path(self, path: str) -> str | None:
        prefix = self.http_json_prefix
        if prefix is None:
            return None
        if not prefix:
            return path
        if path.startswith(prefix + "/"):
            return path[len(prefix) :]
        return None

    async def _serve_document(
        self, scope: Scope, send: Send, path: str, *, head: bool
    ) -> None:
        """The agent card or the OpenAPI document, with caching headers and 304s."""
        where = lambda: base_url(scope)  # noqa: E731  only a card that names URLs asks
        try:
            if path == self._openapi_path:
                document = self.documents.openapi(where)
            else:
                assert self._card_path is not None
                tenant = tenant_of(path, self._card_path) or ""
                document = self.documents.card(
                    where,
                    tenant,
                    composed=self.v0_3 is not None
                    and self._speaks_v0_3(
                        self._read_params(
                            RequestHead(scope.get("headers") or ()), scope
                        )
                    ),
                )
        except Exception as exc:  # the card callable failed, or gave no JSON object
            await self._send_failure(
                send, self.failures.internal(exc, f"GET {path}"), head=head
            )
            return
        if not_modified(
            scope.get("headers") or [], document.etag, document.last_modified
        ):
            await send_empty(send, 304, document.headers)
            return
        await send_bytes(
            send, 200, document.body, JSONRPC_CONTENT_TYPE, document.headers, head=head
        )

    @staticmethod
    def _read_params(head: RequestHead, scope: Scope) -> ServiceParams | None:
        """The service parameters as sent, unchecked; None where they name two
        versions (``_params`` refuses that request)."""
        try:
            return read_service_params(
                head.versions, head.extensions, scope.get("query_string", b"")
            )
        except A2AError:
            return None

    def _speaks_v0_3(self, read: ServiceParams | None) -> bool:
        """Whether a request may be 0.3's, by the version it names (``read``): no
        version or 0.3 (§3.6.2: no version is 0.3; 0.3 clients send none), or two (no
        form chosen). A card request naming a later version gets the card as given,
        an HTTP+JSON request that version's routes only (so a 1.0 tenant named like a
        0.3 route's first segment, ``v1``, is reached by naming 1.0)."""
        if self._versions is None:
            return False
        return read is None or self._versions.speaks_v0_3(read)

    # ------------------------------------------------------------------- failures

    def _http_error(self, exc: BaseException, where: str) -> tuple[Failure, bytes]:
        """The failure and the HTTP+JSON body of ``exc`` (see ``_failure``)."""
        failure = self.failures.of(exc, where)
        try:
            return failure, self.profile.http_body(failure)
        except Exception as failed:  # details JSON cannot carry
            failure = self.failures.internal(failed, where)
            return failure, self.profile.http_body(failure)

    def _jsonrpc_error(
        self, exc: BaseException, request_id: RequestId, where: str, v0_3: bool
    ) -> tuple[Failure, bytes]:
        """The failure and the JSON-RPC failure envelope of ``exc`` (in 0.3's codes
        for a 0.3 request)."""
        failure = self.failures.of(exc, where)
        if isinstance(exc, JsonRpcError) and exc.id is not None:
            request_id = exc.id
        rendered = self.profile.jsonrpc_error
        try:
            error = rendered(failure)
            if v0_3 and self.v0_3 is not None:
                error = self.v0_3.error(error)
            return failure, response_bytes(request_id, "error", error)
        except Exception as failed:  # data JSON cannot carry
            failure = self.failures.internal(failed, where)
            return failure, response_bytes(request_id, "error", rendered(failure))

    async def _send_http_error(
        self, send: Send, exc: BaseException, where: str, *, head: bool = False
    ) -> None:
        """The HTTP+JSON answer of ``exc``: every HTTP+JSON error goes out here."""
        failure, body = self._http_error(exc, where)
        await self._send_failure(send, failure, body, head=head)

    async def _send_failure(
        self,
        send: Send,
        failure: Failure,
        body: bytes | None = None,
        *,
        head: bool = False,
    ) -> None:
        await send_bytes(
            send,
            failure.http_status,
            self.profile.http_body(failure) if body is None else body,
            self.profile.content_type,
            failure.headers,
            head=head,
        )

    async def _send_jsonrpc_error(
        self,
        send: Send,
        exc: BaseException,
        request_id: RequestId,
        where: str,
        v0_3: bool,
        as_event: bool = False,
    ) -> None:
        """The JSON-RPC answer of ``exc`` (HTTP 200, the failure envelope); with
        ``as_event``, as the one event of a stream (a 0.3 stream's: 0.3 clients read
        a streaming method's errors as events, as a2a-sdk's 0.3 servers send them)."""
        failure, body = self._jsonrpc_error(exc, request_id, where, v0_3)
        if as_event:
            await send_one_event(send, body, failure.headers)
        else:
            await send_bytes(send, 200, body, JSONRPC_CONTENT_TYPE, failure.headers)

    # ---------------------------------------------------------------------- calls

    def _params(
        self,
        head: RequestHead,
        scope: Scope,
        v0_3: bool = False,
        read: ServiceParams | None = None,
    ) -> ServiceParams:
        """The service parameters, checked: the version sets the request's semantics,
        so it is checked before the request is read (``v0_3``: a request in 0.3's
        form; see ``VersionPolicy``; ``read``: as ``_read_params`` read them)."""
        if self._versions is None:  # not an A2A service: no service parameters
            return NO_PARAMS
        if read is None:
            read = read_service_params(
                head.versions, head.extensions, scope.get("query_string", b"")
            )
        return self._versions.check(read, v0_3=v0_3)

    def _tenant_kept(
        self, given: dict[str, Any], request: dict[str, Any]
    ) -> dict[str, Any]:
        """``request`` (converted from ``given``) with the endpoint's tenant that
        ``given`` carried (0.3 has no tenant field; its endpoint may)."""
        tenant = given.get(self.tenant_field) if self.tenant_field else None
        if tenant:
            request[self.tenant_field] = tenant
        return request

    def _context(
        self,
        binding: Binding,
        params: ServiceParams,
        request: Mapping[str, Any],
        scope: Scope,
        head: RequestHead,
    ) -> CallContext:
        tenant = request.get(self.tenant_field) if self.tenant_field else None
        return CallContext.of_request(
            tenant if isinstance(tenant, str) else "", binding, params, scope, head
        )

    def _check(self, rpc: str, request: Mapping[str, Any]) -> None:
        if self.check_request is None:
            return
        violations = list(self.check_request(rpc, request))
        if violations:
            described = "; ".join(f"{field}: {text}" for field, text in violations)
            raise InvalidArgument(f"{rpc}: invalid request: {described}", violations)

    def _valid(self, rpc: str, request: dict[str, Any]) -> dict[str, Any]:
        """The request in canonical form, or ``ValidationError`` (400 / -32602);
        the request is this call's own (just decoded): brought to that form in
        place where it is plain."""
        check = self._validators.get(rpc)
        return request if check is None else check(request)

    def _answer(self, rpc: str, answer: dict[str, Any]) -> dict[str, Any]:
        """A handler's answer, checked when ``check_responses`` is on: one that is
        not its response message is the handler's bug, a 500 with the description
        logged."""
        if self.check_responses:
            assert self.schema is not None
            try:
                self.schema.validate(self._types[rpc][1], answer, answer=True)
            except ValidationError as exc:
                raise InvalidResponse(f"{rpc} answered {exc.message}") from None
        return answer

    def _content_type(self, head: RequestHead, accepted: frozenset[str]) -> None:
        if head.content_type is None:
            return  # a missing Content-Type is never refused
        found = media_type(head.content_type)
        if found not in accepted:
            raise self.profile.unsupported_content_type(
                f"Content-Type {excerpt(found)} is not supported here "
                f"(accepted: {', '.join(sorted(accepted))})"
            )

    async def _call(
        self, rpc: str, request: object, context: CallContext, receive: Receive
    ) -> dict[str, Any]:
        """A unary (or client-streaming) call's answer; ``Disconnected`` when the
        client left while it ran (the handler is cancelled). ``request``: the request,
        or a client stream's async iterator of them."""
        call = self._methods[rpc](request, context)
        if self.call_timeout is not None:
            call = within(call, self.call_timeout)
        result = await self._departures.run(call, receive)
        if result is None:
            return self._answer(rpc, {})  # google.protobuf.Empty
        return self._answer(rpc, _as_dict(result, rpc, "returned"))

    async def _events(
        self, rpc: str, request: object, context: CallContext
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

    # -------------------------------------------------------------------- HTTP+JSON

    async def _http_json(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        found: Match[str],
        head: bool,
        v0_3: bool,
        request_head: RequestHead,
        read: ServiceParams | None,
    ) -> None:
        """One HTTP+JSON call; ``v0_3``: of a 0.3 route, converted to the 1.0 rpc
        and request and back, validated as 1.0."""
        route = found.route
        where = rpc = route.rpc
        try:
            body = await read_body(
                receive, request_head.content_length, self.max_body_bytes
            )
        except Disconnected:
            return
        streams = route.client_streaming and route.body is not None
        try:
            if body is None:
                raise Refusal(self._too_large)
            if body:
                self._content_type(request_head, self.profile.accepted(streams))
            params = self._params(request_head, scope, v0_3, read)
            checked = self.schema is not None
            side = self.v0_3 if v0_3 else None
            table = side.routes if side is not None else self.routes
            assert table is not None  # the route was matched in it
            request: Any
            if streams:  # a client stream: every request read before the call
                requests = self._stream_requests(
                    found, table, scope, body, request_head, checked
                )
                context = self._context(
                    "http+json",
                    params,
                    requests[0] if requests else found.params,
                    scope,
                    request_head,
                )
                request = _one_by_one(requests)
            else:
                payload = decode(body, mark_duplicates=checked) if body else None
                request = self._request(found, table, scope, payload)
                if side is not None:
                    rpc, request = side.route_request(found, request)
                request = self._valid(rpc, request)
                context = self._context(
                    "http+json", params, request, scope, request_head
                )
                self._check(rpc, request)
                if route.client_streaming:  # no body: its one request, as a stream
                    request = _one_by_one((request,))
            if not route.server_streaming:
                result = await self._call(rpc, request, context, receive)
                if side is not None:
                    result = side.route_answer(rpc, result)
                if route.response_body:
                    result = result.get(route.response_body) or {}
                answer = encode(result)
        except Disconnected:  # the client left during the call: nobody to answer
            return
        except BaseException as exc:
            await self._send_http_error(send, exc, where, head=head)
            if isinstance(exc, KeyboardInterrupt):
                raise
            return
        if not route.server_streaming:
            await send_bytes(send, 200, answer, self.profile.content_type, head=head)
            return
        framing = self.profile.framing(request_head)
        if head:  # a stream's headers: the handler is not started for them
            await send_stream_head(send, framing)
            return

        def event_bytes(event: object) -> bytes:
            answer = self._answer(rpc, _as_dict(event, rpc, "yielded"))
            return encode(
                side.route_answer(rpc, answer) if side is not None else answer
            )

        await send_events(
            receive,
            send,
            lambda: self._events(rpc, request, context),
            event_bytes,
            lambda exc: self._http_error(exc, where)[1],
            lambda exc: self._send_http_error(send, exc, where),
            first_within=self.call_timeout,
            log=log,
            framing=framing,
        )

    def _request(
        self, found: Match[str], table: RouteTableLike, scope: Scope, payload: object
    ) -> dict[str, Any]:
        """The request of ``found`` with the query and a decoded body, ``payload``."""
        try:
            return table.request(
                found,
                scope.get("query_string", b""),
                payload,
                max_pairs=self.max_query_pairs,
            )
        except QueryError:
            raise
        except ValueError as exc:  # a body the route does not take
            raise InvalidArgument(str(exc), [("", str(exc))]) from None

    def _stream_requests(
        self,
        found: Match[str],
        table: RouteTableLike,
        scope: Scope,
        body: bytes,
        head: RequestHead,
        checked: bool,
    ) -> list[dict[str, Any]]:
        """The requests of a client stream, each checked as a unary request is: its
        body one element of ``body`` (see ``_streams``), merged with the path and
        query fields (which every request shares, as in Envoy). A refused one is
        the call's refusal, naming its number (``_failure.numbered``)."""
        rpc = found.route.rpc
        bodies = _stream_bodies(
            body, media_type(head.content_type), rpc, mark_duplicates=checked
        )
        requests: list[dict[str, Any]] = []
        for index, element in enumerate(bodies):
            try:
                request = self._valid(rpc, self._request(found, table, scope, element))
                self._check(rpc, request)
                if requests:  # one tenant a stream: its first request's
                    field = self.tenant_field
                    other = other_tenant(
                        field, requests[0].get(field, ""), request.get(field)
                    )
                    if other is not None:
                        raise other
            except QueryError as exc:
                self._request(found, table, scope, None)  # the query's own: as it is
                refused = InvalidArgument(str(exc), [exc.violation])
                raise numbered(refused, index) from None  # a body field against it
            except (InvalidArgument, ValidationError) as exc:
                raise numbered(exc, index) from None
            requests.append(request)
        return requests

    # --------------------------------------------------------------------- JSON-RPC

    async def _jsonrpc(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        tenant: str,
        request_head: RequestHead,
        read: ServiceParams | None,
    ) -> None:
        """A JSON-RPC request (``read``: its service parameters, if ``_http`` read
        them already)."""
        try:
            body = await read_body(
                receive, request_head.content_length, self.max_body_bytes
            )
        except Disconnected:
            return
        request_id: RequestId = None
        notification = streaming = False
        v0_3: str | None = None  # the 0.3 method a 0.3 request calls
        side = self.v0_3
        where = "JSON-RPC"
        try:
            if body is None:
                raise Refusal(self._too_large)
            if body:
                self._content_type(request_head, self.profile.jsonrpc_accepted)
            envelope = decode_envelope(body, mark_duplicates=self.schema is not None)
            notification = _is_notification(envelope)
            if side is not None and isinstance(envelope, dict):
                v0_3 = side.method(envelope.get("method"))
                if v0_3 is not None:  # checked as the 1.0 method it stands for
                    envelope = copy.copy(envelope)  # a DuplicateKeys stays one
                    envelope["method"] = side.rpc(v0_3, envelope.get("params"))
            parsed = self.jsonrpc.parse_request(envelope, tenant=tenant or None)
            request_id = parsed.id
            where = method = parsed.method
            params = self._params(request_head, scope, v0_3 is not None, read)
            if parsed.client_streaming:
                raise self.profile.unsupported_operation(
                    f"{method} takes a stream of requests, which a JSON-RPC request"
                    " (one params object) cannot carry: call it over gRPC or"
                    " HTTP+JSON"
                )
            request = parsed.params
            if side is not None and v0_3 is not None:
                where = v0_3
                request = self._tenant_kept(request, side.request(v0_3, request))
            request = self._valid(method, request)
            context = self._context("jsonrpc", params, request, scope, request_head)
            self._check(method, request)
            streaming = parsed.streaming
            if not streaming and not notification:
                result: Any = await self._call(method, request, context, receive)
                if side is not None and v0_3 is not None:
                    result = side.result(v0_3, method, result)
                answer = response_bytes(request_id, "result", result)
            elif not streaming:
                await self._call(method, request, context, receive)
        except Disconnected:  # the client left during the call: nobody to answer
            return
        except BaseException as exc:
            if notification:  # JSON-RPC 2.0 forbids answering one, errors included
                self.failures.of(exc, where)  # logged; re-raised if it must propagate
                await send_empty(send, 204)
            else:
                await self._send_jsonrpc_error(
                    send,
                    exc,
                    request_id,
                    where,
                    v0_3 is not None,
                    as_event=side is not None
                    and v0_3 is not None
                    and side.streams(v0_3),
                )
            if isinstance(exc, KeyboardInterrupt):
                raise
            return
        if notification:  # run (a streaming method is not started for one)
            await send_empty(send, 204)
            return
        if not streaming:
            await send_bytes(send, 200, answer, JSONRPC_CONTENT_TYPE)
            return
        legacy = side if v0_3 is not None else None

        def event_bytes(event: object) -> bytes:
            answer = self._answer(method, _as_dict(event, method, "yielded"))
            return response_bytes(
                request_id, "result", legacy.event(answer) if legacy else answer
            )

        await send_events(
            receive,
            send,
            lambda: self._events(method, request, context),
            event_bytes,
            lambda exc: self._jsonrpc_error(exc, request_id, where, bool(legacy))[1],
            lambda exc: self._send_jsonrpc_error(
                send, exc, request_id, where, bool(legacy), as_event=bool(legacy)
            ),
            first_within=self.call_timeout,
            log=log,
        )


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


class InvalidResponse(Exception):
    """A handler's answer that is not its response message (``check_responses``)."""


# ------------------------------------------------------------ client streams

_BLANK = b" \t\r"


def _stream_bodies(
    body: bytes, media: str, rpc: str, *, mark_duplicates: bool = False
) -> list[Any]:
    """The request bodies in ``body`` (of media type ``media``, ``""`` for none), in
    order; an empty body holds none. Newline-delimited JSON: each line that is not
    blank is one JSON value (a line that is no JSON is ``InvalidArgument`` naming the
    line and the request's number). Otherwise the body is one JSON array
    (``NotJson`` when it is no JSON; ``InvalidArgument`` when it is other than an
    array). ``mark_duplicates``: an object naming a key twice is a ``DuplicateKeys``,
    which validation refuses."""
    if not body:
        return []
    if media in NDJSON_TYPES:
        found: list[Any] = []
        for number, line in enumerate(body.split(b"\n"), 1):
            if not line.strip(_BLANK):
                continue
            try:
                found.append(decode(line, mark_duplicates=mark_duplicates))
            except NotJson as exc:
                where = f"[{len(found)}]"
                raise InvalidArgument(
                    f"request {where} of the stream (line {number} of the body) is"
                    f" not JSON: {exc}",
                    [(where, f"not JSON: {exc}")],
                ) from None
        return found
    payload = decode(body, mark_duplicates=mark_duplicates)
    if not isinstance(payload, list):
        text = (
            f"{rpc} takes a stream of requests: the body is a JSON array of them (or"
            " one a line, with Content-Type application/x-ndjson), not"
            f" {json_type(payload)}"
        )
        raise InvalidArgument(text, [("", text)])
    return payload


async def _one_by_one(
    requests: Iterable[dict[str, Any]],
) -> AsyncIterator[dict[str, Any]]:
    """``requests`` as the async iterator a client-streaming handler reads."""
    for request in requests:
        yield request

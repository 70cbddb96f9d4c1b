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

import logging
from collections.abc import Mapping
from types import MappingProxyType

from ._caching import not_modified
from ._cancellation import DisconnectWatch
from ._dialects import HttpJsonDialect, JsonRpcDialect, JsonRpcTable, RouteTableLike
from ._dialects import V0_3Side
from ._dispatch import Dispatcher, InvalidResponse
from ._documents import AgentCardSource, Documents
from ._errors import A2AError
from ._failure import (
    UNAUTHENTICATED_CODE,
    Failures,
    InvalidArgument,
    Unauthenticated,
    not_found,
)
from ._headers import RequestHead
from ._jsonrpc import endpoint_tenant
from ._media import JSONRPC_CONTENT_TYPE
from ._options import DEFAULT_MAX_BODY_BYTES, CheckRequest, ServeOptions
from ._params import VERSION_HEADER, ServiceParams, VersionPolicy
from ._params import read_service_params
from ._paths import Name, Rpc, tenant_of
from ._profile import A2A, Profile
from ._request import AsgiMessage, CallContext, Receive, Scope, Send, base_url
from ._request import raw_path
from ._responses import refuse_websocket, send_bytes, send_empty
from ._validate import Schema

__all__ = [
    "A2AApplication",
    "AgentCardSource",
    "AsgiMessage",
    "CallContext",
    "CheckRequest",
    "DEFAULT_MAX_BODY_BYTES",
    "InvalidArgument",
    "InvalidResponse",
    "JsonRpcTable",
    "Receive",
    "RouteTableLike",
    "Scope",
    "Send",
    "ServeOptions",
    "UNAUTHENTICATED_CODE",
    "Unauthenticated",
    "V0_3Side",
    "base_url",
    "handler_methods",
    "message_types",
]


def handler_methods(rpcs: Mapping[Name, Rpc[Name]]) -> Mapping[str, str]:
    """The handler method of each rpc, by rpc name (``rpcs``: a package's ``RPCS``)."""
    return MappingProxyType({name: rpc.method for name, rpc in rpcs.items()})


def message_types(rpcs: Mapping[Name, Rpc[Name]]) -> Mapping[str, tuple[str, str]]:
    """The request and response message types (full proto names) of each rpc, by
    name (``rpcs``: a package's ``RPCS``)."""
    return MappingProxyType(
        {name: (rpc.request_type, rpc.response_type) for name, rpc in rpcs.items()}
    )


_PACKAGE = __name__.rpartition(".")[0]
log = logging.getLogger(f"{_PACKAGE}.asgi" if _PACKAGE else "asgi")
"""The logger of the application: ``<package>.asgi`` wherever the package is vendored."""

_DOCUMENT_VERBS = ("GET", "HEAD")


class A2AApplication:
    """The ASGI application (see the module docstring for what it answers): it routes
    each request to its dialect (``_dialects``: HTTP+JSON, JSON-RPC) or serves a
    document (the agent card, the OpenAPI document).

    ``handler`` has one method per rpc, named in ``methods`` (rpc name to attribute);
    ``routes`` and ``jsonrpc`` are the package's tables, ``tenant_field`` the json name
    of the tenant field of the requests (``""``: none, and no JSON-RPC tenant
    endpoint), ``agent_card`` the ProtoJSON card or a callable from the request's base
    URL to it (None: no card is served); ``schema`` and ``message_types`` what requests
    are validated with (where ``options.validate`` says); ``v0_3`` the package's 0.3
    side (served where ``options.supported_versions`` has 0.3); ``profile`` how
    errors, answers and streams are written (``A2A``, or ``_profile.GATEWAY`` for a
    service without the A2A profile); ``options`` the rest (``ServeOptions``: what
    ``create_app`` takes).
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
        schema: Schema | None = None,
        message_types: Mapping[str, tuple[str, str]] | None = None,
        v0_3: V0_3Side | None = None,
        profile: Profile = A2A,
        options: ServeOptions = ServeOptions(),
    ) -> None:
        if not callable(getattr(routes, "request", None)):
            raise TypeError(
                "routes must be a route table (the generated routes.TABLE), not "
                f"{type(routes).__name__}"
            )
        self.options = options
        versions = VersionPolicy.of(options.supported_versions)
        self.failures = Failures(
            log,
            expose_errors=options.expose_errors,
            answered=(SystemExit, KeyboardInterrupt),
        )
        self.dispatch = Dispatcher(
            handler,
            methods,
            versions=versions,
            schema=schema,
            message_types=message_types or {},
            failures=self.failures,
            options=options,
            tenant_field=tenant_field,
        )
        self.handler = handler
        self.profile = profile
        self._versions = versions
        self.supported_versions = versions.names if versions else ()
        # 0.3 is served where it is supported and the package has its side.
        self.v0_3 = v0_3 if versions is not None and versions.serves_v0_3 else None
        # The route tables an HTTP+JSON request is matched against, 0.3's first (its
        # ``/v1/...`` paths would otherwise be 1.0 tenant routes of tenant "v1").
        self._tables: tuple[tuple[RouteTableLike, bool], ...] = (
            ((self.v0_3.routes, True),)
            if self.v0_3 is not None and self.v0_3.routes is not None
            else ()
        ) + ((routes, False),)
        shared = (self.dispatch, options, profile, self.v0_3, DisconnectWatch(), log)
        self.http_json = HttpJsonDialect(routes, *shared)
        self.jsonrpc = JsonRpcDialect(jsonrpc, *shared)
        self.tenant_field = tenant_field
        self._card_path = agent_card_path if agent_card is not None else None
        self._openapi_path = options.openapi_path if options.openapi else None
        self._rpc_alone = self._unshared_endpoint()
        self.documents = Documents(
            agent_card if agent_card is not None else {},
            last_modified=options.agent_card_last_modified,
            max_age=options.agent_card_max_age,
            openapi=options.openapi,
            openapi_path=self._openapi_path,
            http_json_prefix=options.http_json_prefix,
            link_openapi=options.link_openapi_in_card,
            compose=self.v0_3.card if self.v0_3 is not None else None,
            vary=VERSION_HEADER,
        )

    # ------------------------------------------------------------------ entry point

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One HTTP request, read once: a document, a route's call, a JSON-RPC call,
        or 404 / 405 (and the lifespan protocol; a websocket is refused)."""
        if scope["type"] != "http":
            await self._not_http(scope, receive, send)
            return
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
                failure = not_found(verb, path, _DOCUMENT_VERBS)
                await self.http_json.send_failure(send, failure)
            return
        request_head = RequestHead(scope.get("headers") or ())  # for either binding
        if path == self._rpc_alone and verb == "POST":  # no route to try first
            await self.jsonrpc.serve(scope, receive, send, "", request_head, None)
            return
        route_path = self._route_path(path)
        tables = self._tables
        read: ServiceParams | None = None
        if route_path is not None:
            if len(tables) > 1:
                read = self._read_params(request_head, scope)
                if not self._speaks_v0_3(read):
                    tables = tables[1:]  # a later version named: that version's routes
            for table, v0_3 in tables:
                found = table.match("GET" if head else verb, route_path)
                if found is not None:
                    await self.http_json.serve(
                        scope, receive, send, found, request_head, read, v0_3
                    )
                    return
        rpc_tenant = self._rpc_tenant(path)
        if verb == "POST" and rpc_tenant is not None:
            await self.jsonrpc.serve(
                scope, receive, send, rpc_tenant, request_head, read
            )
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
        failure = not_found(verb, path, allowed)
        await self.http_json.send_failure(send, failure, head=head)

    async def _not_http(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
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

    def _route_path(self, path: str) -> str | None:
        """``path`` below the HTTP+JSON prefix; None when it is not below it."""
        prefix = self.options.http_json_prefix
        if prefix is None:
            return None
        if not prefix:
            return path
        if path.startswith(prefix + "/"):
            return path[len(prefix) :]
        return None

    def _unshared_endpoint(self) -> str | None:
        """The JSON-RPC endpoint (of no tenant) when no HTTP+JSON route of any
        version takes a POST to it, else None: a request there needs no matching."""
        endpoint = self.options.jsonrpc_endpoint
        if endpoint is None:
            return None
        route_path = self._route_path(endpoint)
        if route_path is not None and any(
            table.match("POST", route_path) for table, _ in self._tables
        ):
            return None  # HTTP+JSON wins where both bindings share a path
        return endpoint

    def _rpc_tenant(self, path: str) -> str | None:
        """The tenant of the JSON-RPC endpoint ``path`` names (``""``: the endpoint
        itself); None when it names none."""
        endpoint = self.options.jsonrpc_endpoint
        if endpoint is None:
            return None
        tenant = endpoint_tenant(path, endpoint)
        if tenant and not self.tenant_field:  # no tenants: the endpoint alone
            return None
        return tenant

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
            failure = self.failures.internal(exc, f"GET {path}")
            await self.http_json.send_failure(send, failure, head=head)
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

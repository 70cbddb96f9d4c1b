"""The ASGI application's wire forms: HTTP+JSON and JSON-RPC, each in 1.0 and 0.3.

A dialect reads a request into its rpc, its ProtoJSON request and a ``CallContext``,
has ``_dispatch.Dispatcher`` take the call's steps, and writes the answer, a stream's
events and a failure in its own form. ``HttpJsonDialect`` serves a route the
application matched (a 0.3 route converted to the 1.0 rpc and request and back);
``JsonRpcDialect`` serves a JSON-RPC request (a 0.3 method converted the same way).
The gRPC binding (``_grpc.GrpcBinding``) is the third, over the same dispatcher.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import AsyncIterator, Awaitable, Iterable, Iterator, Mapping
from typing import Any, Protocol

from ._cancellation import DisconnectWatch
from ._dispatch import Dispatcher
from ._failure import Failure, InvalidArgument, Refusal, numbered, other_tenant
from ._headers import RequestHead
from ._json import NotJson, decode, encode
from ._jsonrpc import INVALID_REQUEST, JsonRpcError, Request, RequestId
from ._jsonrpc import decode_envelope, response_bytes
from ._media import JSONRPC_CONTENT_TYPE, NDJSON_TYPES, media_type
from ._options import ServeOptions
from ._params import NO_PARAMS, Binding, ServiceParams, read_service_params
from ._paths import Match
from ._profile import Profile
from ._query import QueryError, QueryInput, Unknown
from ._quoting import excerpt
from ._request import CallContext, Disconnected, Receive, Scope, Send, read_body
from ._responses import send_bytes, send_empty, send_events, send_one_event
from ._responses import send_stream_head
from ._validate import ValidationError, json_type

__all__ = [
    "HttpJsonDialect",
    "JsonRpcDialect",
    "JsonRpcTable",
    "RouteTableLike",
    "V0_3Side",
]


class RouteTableLike(Protocol):
    """What the application needs of a route table (the generated package's
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
        owned_body: bool = False,
    ) -> dict[str, Any]: ...


class JsonRpcTable(Protocol):
    """What the application needs of the JSON-RPC tables (the generated ``jsonrpc``
    module, or a ``JsonRpcBinding``)."""

    def parse_request(self, payload: object, *, tenant: str | None = None) -> Request:
        """Check one envelope."""


class V0_3Side(Protocol):
    """What the application needs to serve A2A 0.3 beside 1.0: the package's
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


class _Dialect:
    """What both of the application's dialects share: the request's body within the
    limit, its checked service parameters, its ``CallContext``, its Content-Type, and
    the handler's call, cancelled when the client leaves (``DisconnectWatch``)."""

    binding: Binding

    def __init__(
        self,
        dispatch: Dispatcher,
        options: ServeOptions,
        profile: Profile,
        v0_3: V0_3Side | None,
        departures: DisconnectWatch,
        log: logging.Logger,
    ) -> None:
        self.dispatch, self.options, self.profile = dispatch, options, profile
        self.v0_3, self.departures, self.log = v0_3, departures, log
        self.max_body = options.max_body_bytes  # over it, the body is not read
        message = f"the body is larger than {options.max_body_bytes} bytes"
        self.too_large = Failure(
            413,
            "RESOURCE_EXHAUSTED",
            message,
            INVALID_REQUEST,
            rpc_message=f"Invalid Request: {message}",
        )

    def params(
        self, head: RequestHead, scope: Scope, v0_3: bool, read: ServiceParams | None
    ) -> ServiceParams:
        """The service parameters, checked (``read``: as the application read them
        to pick the routes, if it did)."""
        versions = self.dispatch.versions
        if versions is None:  # not an A2A service: no parameters
            return NO_PARAMS
        if read is None:
            if len(head.versions) == 1 and not head.extensions:
                usual = versions.usual.get((head.versions[0], v0_3))
                if usual is not None:
                    return usual  # a version as listed, no extension: checked already
            read = read_service_params(
                head.versions, head.extensions, scope.get("query_string", b"")
            )
        return self.dispatch.params(read, v0_3=v0_3)

    def context(
        self,
        params: ServiceParams,
        request: Mapping[str, Any],
        scope: Scope,
        head: RequestHead,
    ) -> CallContext:
        tenant = self.dispatch.tenant(request)
        return CallContext.of_request(tenant, self.binding, params, scope, head)

    def content_type(self, head: RequestHead, accepted: frozenset[str]) -> None:
        """Refuse a body of a media type not ``accepted`` (a missing Content-Type is
        never refused; the caller has let the usual ones, as they are, through)."""
        sent = head.content_type
        if sent is None:
            return
        found = media_type(sent)
        if found not in accepted:
            raise self.profile.unsupported_content_type(
                f"Content-Type {excerpt(found)} is not supported here "
                f"(accepted: {', '.join(sorted(accepted))})"
            )

    def call(
        self, rpc: str, request: object, context: CallContext, receive: Receive
    ) -> Awaitable[Any]:
        """A unary (or client-streaming) call, as the handler returns it (see
        ``Dispatcher.answer``); ``Disconnected`` when the client left while it ran
        (the handler is cancelled)."""
        return self.departures.run(self.dispatch.invoke(rpc, request, context), receive)


# ------------------------------------------------------------------- HTTP+JSON


class HttpJsonDialect(_Dialect):
    """HTTP+JSON: a route's call, its answer and its errors (a ``google.rpc.Status``
    in the profile's form), in 1.0 or, for a 0.3 route, converted."""

    binding: Binding = "http+json"

    def __init__(self, routes: RouteTableLike, *args: Any) -> None:
        super().__init__(*args)
        self.routes = routes

    def error(self, exc: BaseException, where: str) -> tuple[Failure, bytes]:
        """The failure and the HTTP+JSON body of ``exc`` (see ``_failure``)."""
        failures = self.dispatch.failures
        failure = failures.of(exc, where)
        try:
            return failure, self.profile.http_body(failure)
        except Exception as failed:  # details JSON cannot carry
            failure = failures.internal(failed, where)
            return failure, self.profile.http_body(failure)

    async def send_error(
        self, send: Send, exc: BaseException, where: str, *, head: bool = False
    ) -> None:
        """The HTTP+JSON answer of ``exc``: every HTTP+JSON error goes out here."""
        failure, body = self.error(exc, where)
        await self.send_failure(send, failure, body, head=head)

    async def send_failure(
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

    async def serve(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        found: Match[str],
        request_head: RequestHead,
        read: ServiceParams | None,
        v0_3: bool,
    ) -> None:
        """One call of the route ``found`` (``read``: the service parameters, if the
        application read them already; ``v0_3``: of a 0.3 route, converted to the 1.0
        rpc and request and back, validated as 1.0). A HEAD request is answered as
        a GET, without the body."""
        route = found.route
        head = scope["method"] == "HEAD"
        try:
            body = (
                await read_body(receive, request_head.content_length, self.max_body)
                if route.body is not None or request_head.declares_body
                else b""  # none declared and none taken: not read (RFC 9112 §6.3)
            )
        except Disconnected:
            return
        side = self.v0_3 if v0_3 else None
        try:
            if body is None:
                raise Refusal(self.too_large)
            params = self.params(request_head, scope, v0_3, read)
            rpc, request, context = self._read(
                scope, found, side, body, request_head, params
            )
            if not route.server_streaming:
                returned = await self.call(rpc, request, context, receive)
                result = self.dispatch.answer(rpc, returned, "returned", True)
                if side is not None:
                    result = side.route_answer(rpc, result)
                if route.response_body:
                    result = result.get(route.response_body) or {}
                answer = encode(result)
        except Disconnected:  # the client left during the call: nobody to answer
            return
        except BaseException as exc:
            await self.send_error(send, exc, route.rpc, head=head)
            if isinstance(exc, KeyboardInterrupt):
                raise
            return
        if not route.server_streaming:
            await send_bytes(send, 200, answer, self.profile.content_type, head=head)
            return
        call = (rpc, request, context)
        await self._stream(receive, send, found, call, side, request_head, head)

    def _read(
        self,
        scope: Scope,
        found: Match[str],
        side: V0_3Side | None,
        body: bytes,
        head: RequestHead,
        params: ServiceParams,
    ) -> tuple[str, object, CallContext]:
        """The call's rpc, its request (a client stream's: an async iterator of
        them, each read before the call) and its context."""
        route = found.route
        rpc = route.rpc
        streams = route.client_streaming and route.body is not None
        if body:
            profile = self.profile
            accepted = (
                profile.stream_accepted if streams else profile.http_json_accepted
            )
            if head.content_type not in accepted:
                self.content_type(head, accepted)
        table = side.routes if side is not None else self.routes
        assert table is not None  # the route was matched in it
        if streams:
            requests = self._stream_requests(found, table, scope, body, head)
            first = requests[0] if requests else found.params
            return rpc, _one_by_one(requests), self.context(params, first, scope, head)
        checked = self.dispatch.schema is not None
        payload = decode(body, mark_duplicates=checked) if body else None
        request = self._request(found, table, scope, payload)
        if side is not None:
            rpc, request = side.route_request(found, request)
        request, tenant = self.dispatch.accept(rpc, request)
        context = CallContext.of_request(tenant, self.binding, params, scope, head)
        if route.client_streaming:  # no body: its one request, as a stream
            return rpc, _one_by_one((request,)), context
        return rpc, request, context

    async def _stream(
        self,
        receive: Receive,
        send: Send,
        found: Match[str],
        call: tuple[str, object, CallContext],
        side: V0_3Side | None,
        request_head: RequestHead,
        head: bool,
    ) -> None:
        """A server stream's events, in the framing the client asked for."""
        rpc, request, context = call
        where = found.route.rpc
        framing = self.profile.framing(request_head)
        if head:  # a stream's headers: the handler is not started for them
            await send_stream_head(send, framing)
            return
        dispatch = self.dispatch

        def event_bytes(event: object) -> bytes:
            answer = dispatch.answer(rpc, event, "yielded")
            return encode(
                side.route_answer(rpc, answer) if side is not None else answer
            )

        await send_events(
            receive,
            send,
            lambda: dispatch.events(rpc, request, context),
            event_bytes,
            lambda exc: self.error(exc, where)[1],
            lambda exc: self.send_error(send, exc, where),
            first_within=self.options.call_timeout,
            log=self.log,
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
                max_pairs=self.options.max_query_pairs,
                owned_body=True,  # decoded for this call alone
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
    ) -> list[dict[str, Any]]:
        """The requests of a client stream, each checked as a unary request is: its
        body one element of ``body`` (see ``_stream_bodies``), merged with the path
        and query fields (which every request shares, as in Envoy). A refused one is
        the call's refusal, naming its number (``_failure.numbered``)."""
        rpc = found.route.rpc
        dispatch = self.dispatch
        bodies = _stream_bodies(
            body,
            media_type(head.content_type),
            rpc,
            mark_duplicates=dispatch.schema is not None,
        )
        requests: list[dict[str, Any]] = []
        for index, element in enumerate(bodies):
            try:
                request = self._request(found, table, scope, element)
                request = dispatch.valid(rpc, request)
                dispatch.check(rpc, request)
                if requests:  # one tenant a stream: its first request's
                    field = dispatch.tenant_field
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


_BLANK = b" \t\r"


def _stream_bodies(
    body: bytes, media: str, rpc: str, *, mark_duplicates: bool = False
) -> Iterator[Any]:
    """The request bodies in ``body`` (of media type ``media``, ``""`` for none), in
    order; an empty body holds none. Newline-delimited JSON: each line that is not
    blank is one JSON value, decoded as it is taken, so that a stream refused at its
    first request costs the decoding of that line, not of the body (a line that is
    no JSON is ``InvalidArgument`` naming the line and the request's number). Otherwise the
    body is one JSON array (``NotJson`` when it is no JSON; ``InvalidArgument`` when
    it is other than an array). ``mark_duplicates``: an object naming a key twice is
    a ``DuplicateKeys``, which validation refuses."""
    if not body:
        return
    if media in NDJSON_TYPES:
        index = 0
        for number, line in enumerate(body.split(b"\n"), 1):
            if not line.strip(_BLANK):
                continue
            try:
                element = decode(line, mark_duplicates=mark_duplicates)
            except NotJson as exc:
                where = f"[{index}]"
                raise InvalidArgument(
                    f"request {where} of the stream (line {number} of the body) is"
                    f" not JSON: {exc}",
                    [(where, f"not JSON: {exc}")],
                ) from None
            yield element
            index += 1
        return
    payload = decode(body, mark_duplicates=mark_duplicates)
    if not isinstance(payload, list):
        text = (
            f"{rpc} takes a stream of requests: the body is a JSON array of them (or"
            " one a line, with Content-Type application/x-ndjson), not"
            f" {json_type(payload)}"
        )
        raise InvalidArgument(text, [("", text)])
    yield from payload


async def _one_by_one(
    requests: Iterable[dict[str, Any]],
) -> AsyncIterator[dict[str, Any]]:
    """``requests`` as the async iterator a client-streaming handler reads."""
    for request in requests:
        yield request


# -------------------------------------------------------------------- JSON-RPC


class JsonRpcDialect(_Dialect):
    """JSON-RPC 2.0: one request envelope's call and its answer or error envelope, in
    1.0's methods or, for a 0.3 method, converted (0.3's error codes, a 0.3 streaming
    method's errors as events)."""

    binding: Binding = "jsonrpc"

    def __init__(self, jsonrpc: JsonRpcTable, *args: Any) -> None:
        super().__init__(*args)
        self.jsonrpc = jsonrpc

    def error(
        self, exc: BaseException, request_id: RequestId, where: str, v0_3: bool
    ) -> tuple[Failure, bytes]:
        """The failure and the JSON-RPC failure envelope of ``exc`` (in 0.3's codes
        for a 0.3 request)."""
        failures = self.dispatch.failures
        failure = failures.of(exc, where)
        if isinstance(exc, JsonRpcError) and exc.id is not None:
            request_id = exc.id
        rendered = self.profile.jsonrpc_error
        try:
            error = rendered(failure)
            if v0_3 and self.v0_3 is not None:
                error = self.v0_3.error(error)
            return failure, response_bytes(request_id, "error", error)
        except Exception as failed:  # data JSON cannot carry
            failure = failures.internal(failed, where)
            return failure, response_bytes(request_id, "error", rendered(failure))

    async def send_error(
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
        failure, body = self.error(exc, request_id, where, v0_3)
        if as_event:
            await send_one_event(send, body, failure.headers)
        else:
            await send_bytes(send, 200, body, JSONRPC_CONTENT_TYPE, failure.headers)

    async def serve(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        tenant: str,
        request_head: RequestHead,
        read: ServiceParams | None,
    ) -> None:
        """A JSON-RPC request to the endpoint of ``tenant`` (``read``: its service
        parameters, if the application read them already)."""
        try:
            body = await read_body(receive, request_head.content_length, self.max_body)
        except Disconnected:
            return
        call = _JsonRpcCall()
        try:
            if body is None:
                raise Refusal(self.too_large)
            request, context = self._read(call, body, tenant, scope, request_head, read)
            if not call.streaming:
                returned = await self.call(call.method, request, context, receive)
                result: Any = self.dispatch.answer(
                    call.method, returned, "returned", True
                )
                if call.v0_3 is not None:
                    assert self.v0_3 is not None
                    result = self.v0_3.result(call.v0_3, call.method, result)
                answer = response_bytes(call.id, "result", result)
        except Disconnected:  # the client left during the call: nobody to answer
            return
        except BaseException as exc:
            await self._refuse(send, call, exc)
            if isinstance(exc, KeyboardInterrupt):
                raise
            return
        if call.notification:  # run (a streaming method is not started for one)
            await send_empty(send, 204)
        elif not call.streaming:
            await send_bytes(send, 200, answer, JSONRPC_CONTENT_TYPE)
        else:
            await self._stream(receive, send, call, request, context)

    def _read(
        self,
        call: _JsonRpcCall,
        body: bytes,
        tenant: str,
        scope: Scope,
        head: RequestHead,
        read: ServiceParams | None,
    ) -> tuple[dict[str, Any], CallContext]:
        """The envelope in ``body`` read into ``call`` (its id, method, kind), its
        request in canonical form and its context."""
        if body and head.content_type not in self.profile.jsonrpc_accepted:
            self.content_type(head, self.profile.jsonrpc_accepted)
        checked = self.dispatch.schema is not None
        envelope = decode_envelope(body, mark_duplicates=checked)
        call.notification = _is_notification(envelope)
        side = self.v0_3
        if side is not None and isinstance(envelope, dict):
            call.v0_3 = side.method(envelope.get("method"))
            if call.v0_3 is not None:  # checked as the 1.0 method it stands for
                envelope = copy.copy(envelope)  # a DuplicateKeys stays one
                envelope["method"] = side.rpc(call.v0_3, envelope.get("params"))
        parsed = self.jsonrpc.parse_request(envelope, tenant=tenant or None)
        call.id = parsed.id
        call.where = call.method = method = parsed.method
        params = self.params(head, scope, call.v0_3 is not None, read)
        if parsed.client_streaming:
            raise self.profile.unsupported_operation(
                f"{method} takes a stream of requests, which a JSON-RPC request"
                " (one params object) cannot carry: call it over gRPC or HTTP+JSON"
            )
        request = parsed.params
        if side is not None and call.v0_3 is not None:
            call.where = call.v0_3
            request = self._tenant_kept(request, side.request(call.v0_3, request))
        request, tenant = self.dispatch.accept(method, request)
        context = CallContext.of_request(tenant, self.binding, params, scope, head)
        call.streaming = parsed.streaming
        return request, context

    def _tenant_kept(
        self, given: dict[str, Any], request: dict[str, Any]
    ) -> dict[str, Any]:
        """``request`` (converted from ``given``) with the endpoint's tenant that
        ``given`` carried (0.3 has no tenant field; its endpoint may)."""
        field = self.dispatch.tenant_field
        tenant = given.get(field) if field else None
        if tenant:
            request[field] = tenant
        return request

    async def _refuse(self, send: Send, call: _JsonRpcCall, exc: BaseException) -> None:
        """The answer of a call that failed before its answer began."""
        if call.notification:  # JSON-RPC 2.0 forbids answering one, errors included
            self.dispatch.failures.of(exc, call.where)  # logged; re-raised if it must
            await send_empty(send, 204)
            return
        legacy = call.v0_3
        as_event = (
            legacy is not None and self.v0_3 is not None and self.v0_3.streams(legacy)
        )
        await self.send_error(
            send, exc, call.id, call.where, legacy is not None, as_event
        )

    async def _stream(
        self,
        receive: Receive,
        send: Send,
        call: _JsonRpcCall,
        request: dict[str, Any],
        context: CallContext,
    ) -> None:
        """A streaming method's events, each a response envelope."""
        legacy = self.v0_3 if call.v0_3 is not None else None
        dispatch, method, request_id = self.dispatch, call.method, call.id

        def event_bytes(event: object) -> bytes:
            answer = dispatch.answer(method, event, "yielded")
            return response_bytes(
                request_id, "result", legacy.event(answer) if legacy else answer
            )

        await send_events(
            receive,
            send,
            lambda: dispatch.events(method, request, context),
            event_bytes,
            lambda exc: self.error(exc, request_id, call.where, bool(legacy))[1],
            lambda exc: self.send_error(
                send, exc, request_id, call.where, bool(legacy), as_event=bool(legacy)
            ),
            first_within=self.options.call_timeout,
            log=self.log,
        )


class _JsonRpcCall:
    """What is known of a JSON-RPC call as its envelope is read: enough to answer a
    failure at any point in its own form."""

    __slots__ = ("id", "method", "where", "v0_3", "notification", "streaming")

    def __init__(self) -> None:
        self.id: RequestId = None
        self.method = ""
        self.where = "JSON-RPC"
        self.v0_3: str | None = None  # the 0.3 method a 0.3 request calls
        self.notification = False
        self.streaming = False


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

"""A handler whose answers come from an A2A agent over HTTP (option ``translate=true``).

``HttpBackend`` is to an agent that speaks JSON-RPC or HTTP+JSON, in A2A 1.0 or 0.3,
what ``GrpcBackend`` is to a gRPC one: ``call`` and ``stream`` take the request dict
and the ``CallContext`` of the call being served and give the answer dicts, so that the
ASGI app (or the gRPC binding) in front of it is a gateway that speaks every binding
and version whatever the agent speaks. Each call is the client layer's
(``ClientBinding.prepare``, ``read_response``, ``aread_stream``) sent with httpx, the
one module of the package that needs it.

One call:

1. An rpc the agent's version lacks (0.3 has no ListTasks), or a stream of requests
   the agent's binding cannot carry (JSON-RPC, 0.3), is ``UnsupportedOperationError``
   and nothing is sent; so is a tenant to a 0.3 agent (0.3 has no tenants:
   ``InvalidArgument`` naming ``tenant``).
2. The request is prepared for the agent's binding and version, with the context's
   extensions, the call's tenant (the request's; else the backend's ``tenant``, the
   one the agent's card gives its interface), and the context's headers named in
   ``forward_headers`` (an allow-list, checked when the backend is made: hop-by-hop
   headers, ``Host``, the body's and A2A's own headers are never forwarded; a value
   HTTP cannot carry is ``InvalidArgument`` naming the header).
3. Its deadline is the nearer of ``timeout`` and the caller's (``grpc-timeout``: an
   HTTP client's, or the deadline of a gRPC call being served); past it the request is
   abandoned (the connection closed) and ``DeadlineExceeded`` raised. For a stream the
   deadline bounds the whole stream.
4. The answer is read as the client layer reads it; what the agent raised is raised
   here as the serving side raises it, so that the app in front answers it in its own
   binding and version: an A2A error by its code and reason (a 0.3 agent's -32001 is a
   1.0 client's ``TaskNotFoundError``), a refusal for credentials ``Unauthenticated``
   with the agent's challenge, refused params ``InvalidArgument``, a method the agent
   does not know ``UnsupportedOperationError``; a ``google.rpc.Status`` as
   ``_failure.error_from_status`` reads it; any other answer by its HTTP status as gRPC
   reads an HTTP answer that is not gRPC (404 UNIMPLEMENTED, 429 and 502-504
   UNAVAILABLE, 403 PERMISSION_DENIED, else UNKNOWN); an agent that cannot be reached
   UNAVAILABLE. The text of an answer the agent did not mean to publish (an
   exception's, an address) is logged on ``<package>.translate`` and kept from the
   caller unless ``expose_errors``.
5. Leaving a stream early, or cancelling a call, closes its request to the agent.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Mapping
from typing import Any

import httpx
from httpx import AsyncClient

from ._client import AuthenticationRequired, ClientBinding, PreparedRequest
from ._client import ResponseError, is_event_stream
from ._cancellation import DeadlineExceeded
from ._deadline import TIMEOUT_KEY, caller_timeout
from ._errors import A2AError
from ._failure import InvalidArgument, Unauthenticated, error_from_status
from ._headers import allow_list
from ._jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, JsonRpcError
from ._params import Binding
from ._quoting import excerpt
from ._request import CallContext
from ._v0_3 import V0_3, V0_3_RPCS

__all__ = ["AsyncClient", "HttpBackend", "check_http_forward_headers"]

_PACKAGE = __name__.rpartition(".")[0]
log = logging.getLogger(f"{_PACKAGE}.translate" if _PACKAGE else "http_backend")
"""The logger of the HTTP backends: ``<package>.translate``."""

_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
_NEVER_FORWARDED: Mapping[str, str] = {
    **dict.fromkeys(
        _HOP_BY_HOP,
        "a hop-by-hop header, about the HTTP connection it came over (RFC 9110"
        " §7.6.1)",
    ),
    "host": "the address the client reached, not the agent's",
    **dict.fromkeys(
        ("content-length", "content-type", "content-encoding", "expect", "accept"),
        "about the request's body and answer, which the backend writes itself",
    ),
    **dict.fromkeys(
        ("a2a-version", "a2a-extensions", "x-a2a-extensions"),
        "an A2A service parameter, sent in the form the agent's version reads",
    ),
    TIMEOUT_KEY: "read for the call's deadline, which the backend keeps itself",
}
"""Header names never forwarded, whatever the allow-list says, and why."""

_TOKEN = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz")

_HTTP_CODES: Mapping[int, str] = {
    400: "INTERNAL",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "UNIMPLEMENTED",
    429: "UNAVAILABLE",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "UNAVAILABLE",
}
"""The gRPC code of an HTTP answer that carries no status of its own, as gRPC reads an
answer that is not gRPC (grpc's doc/http-grpc-status-mapping.md); UNKNOWN else."""


def check_http_forward_headers(names: Iterable[str]) -> frozenset[str]:
    """The allow-list of headers an ``HttpBackend`` passes on, lower-case.
    ``ValueError`` naming a header that must never be forwarded and why: a hop-by-hop
    header or ``Host``, one about the body (``Content-Type``...), an A2A service
    parameter (sent in the agent's version's form), ``grpc-timeout`` (read for the
    deadline), a ``-bin`` gRPC metadata key (binary, no HTTP value) or a name that is
    no HTTP field name."""
    return allow_list(names, _never_forwarded)


def _never_forwarded(key: str) -> str | None:
    """Why an HTTP backend never passes the header ``key`` on; None when it may."""
    why = _NEVER_FORWARDED.get(key)
    if why is None and key.endswith("-bin"):
        why = "binary gRPC metadata, which no HTTP header carries"
    if why is None and not (key and set(key) <= _TOKEN):
        why = "no HTTP field name (RFC 9110 §5.1)"
    return why


def _field_value(key: str, value: str) -> str:
    """``value`` of header ``key``, checked to be what an HTTP field carries (no
    control character but tab; ISO-8859-1); ``InvalidArgument`` naming it otherwise."""
    if all(" " <= c <= "\xff" and c != "\x7f" or c == "\t" for c in value):
        return value
    raise InvalidArgument(
        f"the {key} header cannot be passed on to the agent: it holds a control"
        " character or one outside ISO-8859-1"
    )


class HttpBackend:
    """The rpcs of a package called on the A2A agent at ``url`` over HTTP, in the shape
    of its handler (see the module's docstring for a call's steps).

    ``client`` is the package's ``ClientBinding`` (``client.BINDING``); ``binding``
    (``"jsonrpc"`` or ``"http+json"``) and ``version`` (None: the package's; or
    ``"0.3"``) say how the agent is spoken to, ``url`` the interface's URL (the
    JSON-RPC endpoint, or the HTTP+JSON base) and ``tenant`` its tenant. ``http`` is
    the ``httpx.AsyncClient`` to send with (None: one of the backend's own, without
    read timeouts, as streams may be quiet for long; closed by ``aclose``).
    """

    def __init__(
        self,
        url: str,
        *,
        client: ClientBinding,
        binding: Binding = "jsonrpc",
        version: str | None = None,
        tenant: str = "",
        forward_headers: Iterable[str] = ("authorization",),
        timeout: float | None = None,
        expose_errors: bool = False,
        http: AsyncClient | None = None,
    ) -> None:
        if binding not in ("jsonrpc", "http+json"):
            raise ValueError(
                f"binding must be 'jsonrpc' or 'http+json', not {binding!r}"
            )
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"the agent's URL {url!r} is not http:// or https://")
        self.url, self.binding, self.tenant = url, binding, tenant
        self.version = version
        self.legacy = version == V0_3
        self.forward_headers = check_http_forward_headers(forward_headers)
        self.timeout = timeout
        self.expose_errors = expose_errors
        self._client = client
        self._own_http = http is None
        self.http = http or AsyncClient(timeout=httpx.Timeout(None, connect=10.0))

    async def aclose(self) -> None:
        """Close the backend's own HTTP client (not one it was given)."""
        if self._own_http:
            await self.http.aclose()

    async def call(
        self, rpc: str, request: Mapping[str, Any], context: CallContext | None = None
    ) -> Any:
        """The answer of unary ``rpc``."""
        prepared = self._prepare(rpc, request, context)
        return await self._exchange(rpc, prepared, context)

    async def stream(
        self, rpc: str, request: Mapping[str, Any], context: CallContext | None = None
    ) -> AsyncIterator[Any]:
        """The events of server-streaming ``rpc``; leaving early closes the request."""
        prepared = self._prepare(rpc, request, context)
        async for event in self._events(rpc, prepared, self._deadline(context)):
            yield event

    async def client_stream(
        self,
        rpc: str,
        requests: AsyncIterable[Mapping[str, Any]],
        context: CallContext | None = None,
    ) -> Any:
        """The answer of client-streaming ``rpc`` to ``requests``, sent together as
        one HTTP+JSON body once they have all come (HTTP/1.1 carries no answer before
        its request ends)."""
        prepared = await self._prepare_stream(rpc, requests, context)
        return await self._exchange(rpc, prepared, context)

    async def bidirectional(
        self,
        rpc: str,
        requests: AsyncIterable[Mapping[str, Any]],
        context: CallContext | None = None,
    ) -> AsyncIterator[Any]:
        """The answers of bidirectional ``rpc``: ``requests`` sent as one body once
        they have all come, then the answers as they come."""
        prepared = await self._prepare_stream(rpc, requests, context)
        async for event in self._events(rpc, prepared, self._deadline(context)):
            yield event

    # ---------------------------------------------------------------- the request

    def _unsupported(self, rpc: str) -> None:
        if self.legacy and rpc not in V0_3_RPCS:
            raise A2AError(
                "UnsupportedOperationError",
                f"{rpc}: the agent speaks A2A 0.3, which has no such operation",
            )

    def _tenant(self, request: Mapping[str, Any]) -> str | None:
        tenant = request.get("tenant") or self.tenant
        if tenant and self.legacy:
            raise InvalidArgument(
                "the agent speaks A2A 0.3, which has no tenants",
                [("tenant", "A2A 0.3 has no tenants: send the request without one")],
            )
        return tenant or None

    def _prepare(
        self, rpc: str, request: Mapping[str, Any], context: CallContext | None
    ) -> PreparedRequest:
        self._unsupported(rpc)
        tenant = self._tenant(request)
        extensions = () if context is None else context.params.extensions
        prepared = self._client.prepare(
            rpc,
            request,
            base_url=self.url,
            binding=self.binding,
            tenant=tenant,
            extensions=extensions,
            version=self.version,
        )
        return self._forwarding(prepared, context)

    async def _prepare_stream(
        self,
        rpc: str,
        requests: AsyncIterable[Mapping[str, Any]],
        context: CallContext | None,
    ) -> PreparedRequest:
        if self.legacy or self.binding != "http+json":
            carrier = "A2A 0.3" if self.legacy else "JSON-RPC"
            raise A2AError(
                "UnsupportedOperationError",
                f"{rpc} takes a stream of requests, which the agent's {carrier}"
                " cannot carry",
            )
        gathered = [request async for request in requests]
        tenant = self._tenant(gathered[0]) if gathered else self.tenant or None
        prepared = self._client.prepare(
            rpc,
            gathered,
            base_url=self.url,
            binding=self.binding,
            tenant=tenant,
            extensions=() if context is None else context.params.extensions,
        )
        return self._forwarding(prepared, context)

    def _forwarding(
        self, prepared: PreparedRequest, context: CallContext | None
    ) -> PreparedRequest:
        """``prepared`` with the context's allowed headers added."""
        if context is None or not self.forward_headers:
            return prepared
        forwarded = [
            (key, _field_value(key, value))
            for key, value in context.headers
            if key in self.forward_headers
        ]
        if not forwarded:
            return prepared
        return PreparedRequest(
            prepared.method, prepared.url, prepared.headers + forwarded, prepared.body
        )

    def _deadline(self, context: CallContext | None) -> float | None:
        return caller_timeout(self.timeout, () if context is None else context.headers)

    # ----------------------------------------------------------------- the answer

    async def _exchange(
        self, rpc: str, prepared: PreparedRequest, context: CallContext | None
    ) -> Any:
        """The answer to ``prepared``, within the call's deadline."""
        deadline = self._deadline(context)  # a malformed one: nothing is sent
        try:
            response = await asyncio.wait_for(self._send(prepared), deadline)
        except asyncio.TimeoutError:
            raise self._late(rpc) from None
        except httpx.HTTPError as exc:
            raise self._unreachable(exc, rpc) from None
        return self._read(rpc, response.status_code, response, response.content)

    async def _send(
        self, prepared: PreparedRequest, *, stream: bool = False
    ) -> httpx.Response:
        request = self.http.build_request(
            prepared.method,
            prepared.url,
            headers=prepared.headers,
            content=prepared.body,
        )
        return await self.http.send(request, stream=stream)

    async def _events(
        self, rpc: str, prepared: PreparedRequest, deadline: float | None
    ) -> AsyncIterator[Any]:
        """The events of the stream ``prepared`` opens, within ``deadline``."""
        loop = asyncio.get_running_loop()
        end = None if deadline is None else loop.time() + deadline
        try:
            response = await asyncio.wait_for(
                self._send(prepared, stream=True), deadline
            )
        except asyncio.TimeoutError:
            raise self._late(rpc) from None
        except httpx.HTTPError as exc:
            raise self._unreachable(exc, rpc) from None
        try:
            if not is_event_stream(response.headers.multi_items()):
                body = await response.aread()
                self._read(rpc, response.status_code, response, body)
                raise self._raised(
                    ResponseError(
                        f"HTTP {response.status_code}: the agent answered {rpc}"
                        " without an event stream",
                        status=response.status_code,
                        body=body,
                    ),
                    rpc,
                )
            events = self._client.aread_stream(
                rpc, response.aiter_bytes(), binding=self.binding, version=self.version
            )
            while True:
                left = None if end is None else max(end - loop.time(), 0.0)
                try:
                    event = await asyncio.wait_for(events.__anext__(), left)
                except StopAsyncIteration:
                    return
                except asyncio.TimeoutError:
                    raise self._late(rpc) from None
                except (A2AError, JsonRpcError, ResponseError) as exc:
                    raise self._raised(exc, rpc) from None
                except httpx.HTTPError as exc:
                    raise self._unreachable(exc, rpc) from None
                yield event
        finally:
            await response.aclose()  # the agent sees the request end

    def _read(
        self, rpc: str, status: int, response: httpx.Response, body: bytes
    ) -> Any:
        try:
            return self._client.read_response(
                rpc,
                status,
                response.headers.multi_items(),
                body,
                binding=self.binding,
                version=self.version,
            )
        except (A2AError, JsonRpcError, ResponseError) as exc:
            raise self._raised(exc, rpc) from None

    # ------------------------------------------------------------------ failures

    def _raised(self, exc: Exception, rpc: str) -> Exception:
        """What the serving side raises for the agent's failure ``exc``."""
        where = f"{rpc} at {self.url}"
        if isinstance(exc, A2AError):
            return exc
        if isinstance(exc, AuthenticationRequired):
            try:
                return Unauthenticated(exc.message, challenge=exc.challenge or "Bearer")
            except ValueError:  # a challenge no header can carry
                return Unauthenticated(exc.message)
        if isinstance(exc, JsonRpcError):
            if exc.code == INVALID_PARAMS:
                return InvalidArgument(f"the agent refused the request: {exc.message}")
            if exc.code == METHOD_NOT_FOUND:
                return A2AError(
                    "UnsupportedOperationError", f"{rpc}: the agent has no such method"
                )
            code, message, status = (
                "INTERNAL",
                f"JSON-RPC {exc.code} {exc.message}",
                None,
            )
        elif isinstance(exc, ResponseError):
            status = exc.error
            named = status.get("status") if isinstance(status, Mapping) else None
            if isinstance(named, str) and named.isupper():
                code = named
                message = str(status.get("message", ""))
            else:
                code = _HTTP_CODES.get(exc.status, "UNKNOWN")
                message, status = str(exc), None
        else:
            code, message, status = "UNKNOWN", str(exc), None
        found = error_from_status(
            code,
            message,
            status,
            expose_errors=self.expose_errors,
            where=where,
            log=log,
        )
        return found if found is not None else exc

    def _unreachable(self, exc: httpx.HTTPError, rpc: str) -> Exception:
        """The failure of a request that got no answer (refused, reset, timed out)."""
        text = f"the agent cannot be reached: {type(exc).__name__} {excerpt(str(exc))}"
        found = error_from_status(
            "UNAVAILABLE",
            text,
            None,
            expose_errors=self.expose_errors,
            where=f"{rpc} at {self.url}",
            log=log,
        )
        return found if found is not None else exc

    def _late(self, rpc: str) -> Exception:
        return DeadlineExceeded(f"{rpc}: the agent did not answer within the deadline")

"""Client helpers that stay independent of the HTTP library.

``prepare`` gives the whole request an rpc needs (method, URL, headers, body bytes) for
either binding; ``read_response`` turns the answer into the response dict or raises the
error it carries; ``read_stream`` and ``aread_stream`` turn an event-stream body into
the response dicts. The generated ``client.py`` hands ``ClientBinding`` the package's
tables and adds a typed overload per rpc.

Errors: an A2A error (an HTTP+JSON ``google.rpc.Status`` with an A2A ErrorInfo, or a
JSON-RPC error with an A2A code) is raised as ``A2AError``; any other JSON-RPC error as
``JsonRpcError``; an answer that is neither a response nor one of those (a 404 from a
proxy, HTML, a JSON-RPC answer without ``result``) as ``ResponseError``. A refusal for
missing or wrong credentials is ``AuthenticationRequired`` on both bindings: an HTTP
401, or a JSON-RPC error with ``UNAUTHENTICATED_CODE`` or a ``WWW-Authenticate``
header (what the server's ``Unauthenticated`` sends); it is a ``ResponseError`` and a
``JsonRpcError``, the two that callers caught for it before.

``version="0.3"`` speaks A2A 0.3 to an old agent with the same 1.0 requests and
answers: ``prepare`` converts the request (0.3 JSON-RPC method and params, or the 0.3
HTTP+JSON route and body of the package's ``v0_3`` tables) and ``read_response`` /
``read_stream`` convert the 0.3 answer back. 0.3 has no ListTasks and no tenants
(``ValueError``). Headers: ``A2A-Version: 0.3`` (0.3 servers ignore it, 1.0 servers
serving 0.3 read it), ``Content-Type: application/json`` (0.3's one media type), the
extensions under both ``A2A-Extensions`` and 0.3's ``X-A2A-Extensions``. A 0.3
subscription goes as ``GET`` (the v0.3.0 proto's verb: a2a-sdk 0.3.26 serves no
other), a push-notification config as the whole ``CreateTaskPushNotificationConfig``
request (what a2a-sdk's 0.3 servers parse, not the ``config`` the proto's rule names).
A 0.3 HTTP+JSON error is a ``google.rpc.Status`` (a2a-sdk 1.3.0, this package) or
a2a-sdk 0.3's ``{"message": ...}``, read by its HTTP status as the A2A error a2a-sdk
0.3 sends it for (404 task not found, 409 not cancelable, 415, 501 unsupported
operation, 502).
"""

from __future__ import annotations

import importlib
import json
import uuid
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from ._jsonrpc import JsonRpcError, Method, RequestId
from ._paths import HttpRequest
from ._errors import A2AError
from ._failure import UNAUTHENTICATED_CODE
from ._headers import RequestHeaders, field_lines
from ._json import encode
from ._media import JSONRPC_CONTENT_TYPE, media_type
from ._params import EXTENSIONS_HEADER, Binding
from ._v0_3 import V0_3
from ._v0_3_rest import request_from_v1, response_to_v1
from ._v0_3_rpc import params_from_v1, result_to_v1
from ._v0_3_shapes import ShapeError
from ._validate import Schema
from ._validate_fast import validator
from ._sse import SSE_CONTENT_TYPE
from ._sse_parser import SseEvent, SseTooLarge, aparse_sse, parse_sse

__all__ = [
    "AuthenticationRequired",
    "ClientBinding",
    "PreparedRequest",
    "ResponseError",
    "is_event_stream",
]


@dataclass(frozen=True)
class PreparedRequest:
    """One request to send: ``url`` is absolute (the base URL joined with the path and
    query), ``headers`` the A2A headers and Content-Type, ``body`` the JSON bytes or
    None for a body-less request."""

    method: str
    url: str
    headers: list[tuple[str, str]]
    body: bytes | None


class ResponseError(Exception):
    """An answer that carries neither a response nor an A2A or JSON-RPC error.

    ``status`` is the HTTP status, ``error`` the ``google.rpc.Status`` object when the
    body held one (``{"error": {...}}``), else None; ``body`` the raw bytes.
    """

    def __init__(
        self, message: str, *, status: int, body: bytes, error: Any = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.error = error


class AuthenticationRequired(ResponseError, JsonRpcError):
    """The server refused the call for missing or wrong credentials, on either binding.

    ``challenge`` is the ``WWW-Authenticate`` value (None when the answer had none),
    e.g. ``'Bearer realm="agents"'``; ``status`` the HTTP status (401 over HTTP+JSON,
    usually 200 over JSON-RPC); ``code`` the JSON-RPC error code (the server's, or
    ``UNAUTHENTICATED_CODE`` for an HTTP 401); ``message`` the server's text;
    ``error`` the ``google.rpc.Status`` or JSON-RPC error object when there was one.
    """

    def __init__(
        self,
        message: str,
        *,
        challenge: str | None,
        status: int,
        body: bytes,
        error: Any = None,
        code: int = UNAUTHENTICATED_CODE,
        data: Any = None,
        id: RequestId = None,
    ) -> None:
        Exception.__init__(self, f"authentication required: {message}")
        self.challenge = challenge
        self.status, self.body, self.error = status, body, error
        self.code, self.message, self.data, self.id = code, message, data, id


def _challenge(headers: RequestHeaders) -> str | None:
    """The ``WWW-Authenticate`` value of an answer (several joined), or None."""
    values = field_lines(headers, "www-authenticate")
    return ", ".join(values) if values else None


def _unauthenticated_http(
    status: int, headers: RequestHeaders, body: bytes
) -> AuthenticationRequired:
    """A 401 over either binding, whatever its body holds."""
    try:
        payload = json.loads(body) if body.strip() else None
    except (ValueError, RecursionError):
        payload = None
    error = payload.get("error") if isinstance(payload, Mapping) else None
    message = error.get("message") if isinstance(error, Mapping) else None
    return AuthenticationRequired(
        message if isinstance(message, str) else f"HTTP {status}",
        challenge=_challenge(headers),
        status=status,
        body=body,
        error=error,
    )


def _unauthenticated_jsonrpc(
    exc: JsonRpcError, headers: RequestHeaders, status: int, body: bytes
) -> JsonRpcError:
    """A JSON-RPC error as ``AuthenticationRequired`` when it is one (A2A's
    unauthenticated code, or a ``WWW-Authenticate`` challenge beside it); else
    ``exc`` itself."""
    challenge = _challenge(headers)
    if exc.code != UNAUTHENTICATED_CODE and challenge is None:
        return exc
    return AuthenticationRequired(
        exc.message,
        challenge=challenge,
        status=status,
        body=body,
        error=exc.to_dict(),
        code=exc.code,
        data=exc.data,
        id=exc.id,
    )


def is_event_stream(headers: RequestHeaders) -> bool:
    """Whether response ``headers`` announce a ``text/event-stream`` body (so the body
    goes to ``read_stream``; anything else goes to ``read_response``)."""
    pairs: Iterable[Any] = headers.items() if isinstance(headers, Mapping) else headers
    for name, value in pairs:
        text = name.decode("latin-1") if isinstance(name, bytes) else name
        if text.lower() == "content-type":
            return media_type(value) == SSE_CONTENT_TYPE
    return False


def _json(rpc: str, payload: Any) -> bytes:
    """The request body; ``ValueError`` naming ``rpc`` for what JSON cannot carry (a
    NaN or infinity, which ProtoJSON writes as a string)."""
    try:
        return encode(payload)
    except (ValueError, RecursionError) as exc:  # RecursionError: a cycle
        raise ValueError(f"{rpc}: the request is not JSON: {exc}") from None


# a2a-sdk 0.3's HTTP+JSON errors are ``{"message": ...}``: the status says which.
_V0_3_HTTP_ERRORS = {
    404: "TaskNotFoundError",
    409: "TaskNotCancelableError",
    415: "ContentTypeNotSupportedError",
    501: "UnsupportedOperationError",
    502: "InvalidAgentResponseError",
}
_V0_3_EXTENSIONS_HEADER = "X-A2A-Extensions"


def _v0_3_headers(
    headers: list[tuple[str, str]], binding: Binding
) -> list[tuple[str, str]]:
    """The 1.0 headers ``headers`` (built for version 0.3) as a 0.3 server reads
    them: JSON's media type, and the extensions under 0.3's name too."""
    out: list[tuple[str, str]] = []
    for name, value in headers:
        if name == "Content-Type" and binding == "http+json":
            value = JSONRPC_CONTENT_TYPE
        out.append((name, value))
        if name == EXTENSIONS_HEADER:
            out.append((_V0_3_EXTENSIONS_HEADER, value))
    return out


def _decode(body: bytes, status: int) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        excerpt = body[:80].decode("utf-8", "replace")
        raise ResponseError(
            f"HTTP {status}: the answer is not JSON: {excerpt!r}",
            status=status,
            body=body,
        ) from None


class ClientBinding:
    """The client side of one package: ``build`` is ``routes.build``,
    ``jsonrpc_request`` is ``jsonrpc.request``, ``headers`` is
    ``protocol.request_headers`` and ``methods`` is ``jsonrpc.METHODS`` (which rpcs
    stream, and the ``response_body`` of their HTTP+JSON route); ``protocol_version``
    is ``protocol.PROTOCOL_VERSION``; ``package`` is the
    generated package, whose ``v0_3.routes`` (the 0.3 route table) is imported when a
    call asks for ``version="0.3"`` (a package generated without the 0.3 proto has
    none)."""

    def __init__(
        self,
        *,
        build: Callable[..., HttpRequest],
        jsonrpc_request: Callable[..., tuple[str, dict[str, Any]]],
        headers: Callable[..., list[tuple[str, str]]],
        methods: Mapping[str, Method],
        schema: Schema | None = None,
        package: str | None = None,
        protocol_version: str | None = None,
    ) -> None:
        self._package = package
        self._protocol_version = protocol_version
        self._build = build
        self._jsonrpc_request = jsonrpc_request
        self._headers = headers
        self._schema = schema
        self._validators: dict[str, Callable[[object], dict[str, Any]]] = {}
        self._methods = methods
        self.streaming = frozenset(n for n, m in methods.items() if m.server_streaming)
        self.client_streaming = frozenset(
            n for n, m in methods.items() if m.client_streaming
        )
        self.response_bodies = {
            name: method.routes[0].response_body
            for name, method in methods.items()
            if method.routes and method.routes[0].response_body
        }

    def prepare(
        self,
        rpc: str,
        request: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        base_url: str,
        binding: Binding = "http+json",
        tenant: str | None = None,
        id: RequestId = None,
        extensions: Sequence[str] = (),
        tenant_in_path: bool = False,
        validate: bool = False,
        version: str | None = None,
    ) -> PreparedRequest:
        """The request for ``rpc`` (see the generated ``client.prepare``)."""
        legacy = self._legacy(version)
        if rpc in self.client_streaming:
            return self._prepare_stream(
                rpc,
                request,
                base_url=base_url,
                binding=binding,
                tenant=tenant,
                extensions=extensions,
                validate=validate,
                legacy=legacy,
            )
        if not isinstance(request, Mapping):
            raise ValueError(f"{rpc}: the request is a dict, not a list of them")
        if validate:
            request = self._validator(rpc)(request)
        base = base_url.rstrip("/")
        accept = [("Accept", SSE_CONTENT_TYPE)] if rpc in self.streaming else []
        if legacy:
            if tenant or request.get("tenant") or tenant_in_path:
                raise ValueError(f"{rpc}: A2A 0.3 has no tenants")
            return self._prepare_v0_3(
                rpc, request, base_url, binding, id, extensions, accept
            )
        if binding == "http+json":
            built = self._build(rpc, request, tenant=tenant)
            url = base + built.path
            if built.query:
                url += "?" + urlencode(built.query, quote_via=quote)
            body = None if built.body is None else _json(rpc, built.body)
            headers = self._headers(
                "http+json", body=body is not None, extensions=extensions
            )
            return PreparedRequest(built.verb, url, headers + accept, body)
        if binding != "jsonrpc":
            raise ValueError(
                f"binding must be 'http+json' or 'jsonrpc', not {binding!r}"
            )
        request_id = str(uuid.uuid4()) if id is None else id
        path, envelope = self._jsonrpc_request(
            rpc, request, request_id, tenant=tenant, tenant_in_path=tenant_in_path
        )
        url = base + path if tenant_in_path and tenant else base_url
        headers = self._headers("jsonrpc", body=True, extensions=extensions)
        return PreparedRequest("POST", url, headers + accept, _json(rpc, envelope))

    def _validator(self, rpc: str) -> Callable[[object], dict[str, Any]]:
        """The validator of ``rpc``'s requests, made on first use."""
        check = self._validators.get(rpc)
        if check is None:
            method = self._methods.get(rpc)
            if self._schema is None or method is None:
                raise ValueError(f"{rpc}: no schema to validate the request with")
            check = self._validators[rpc] = validator(self._schema, method.request_type)
        return check

    def _prepare_stream(
        self,
        rpc: str,
        requests: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        base_url: str,
        binding: Binding,
        tenant: str | None,
        extensions: Sequence[str],
        validate: bool,
        legacy: bool,
    ) -> PreparedRequest:
        """``prepare`` for a client-streaming rpc: ``requests`` (a list of request
        dicts) sent over HTTP+JSON as one JSON array of their bodies, on the route
        the first builds (each must build the same path and query: they are the
        stream's, shared by every request). JSON-RPC, whose request carries one
        ``params`` object, and A2A 0.3 cannot carry it: ``ValueError`` saying so."""
        if legacy or binding != "http+json":
            carrier = "A2A 0.3" if legacy else f"the {binding} binding"
            raise ValueError(
                f"{rpc} takes a stream of requests, which {carrier} cannot carry:"
                " send it over HTTP+JSON (or gRPC)"
            )
        if isinstance(requests, Mapping) or not isinstance(requests, Sequence):
            raise ValueError(
                f"{rpc} takes a stream of requests: give a list of request dicts"
            )
        if validate:
            check = self._validator(rpc)
            requests = [check(one) for one in requests]
        built = [self._build(rpc, one, tenant=tenant) for one in requests or ({},)]
        first = _one_route(rpc, built)
        url = base_url.rstrip("/") + first.path
        if first.query:
            url += "?" + urlencode(first.query, quote_via=quote)
        body: bytes | None = None
        if first.body is not None:
            body = _json(rpc, [one.body for one in built] if requests else [])
        elif len(built) > 1:  # a route without a body: the stream is its one request
            raise ValueError(
                f"{rpc}: its route {first.verb} {first.path} takes no body, so the"
                " stream holds one request, not several"
            )
        headers = self._headers(
            "http+json", body=body is not None, extensions=extensions
        )
        accept = [("Accept", SSE_CONTENT_TYPE)] if rpc in self.streaming else []
        return PreparedRequest(first.verb, url, headers + accept, body)

    def _prepare_v0_3(
        self,
        rpc: str,
        request: Mapping[str, Any],
        base_url: str,
        binding: Binding,
        id: RequestId,
        extensions: Sequence[str],
        accept: list[tuple[str, str]],
    ) -> PreparedRequest:
        """``prepare`` for a 0.3 server: the request converted, then sent as 0.3."""
        if binding == "http+json":
            v0_3_rpc, converted = request_from_v1(rpc, request)
            built = self._v0_3_build(v0_3_rpc, converted)
            verb, query, payload = built.verb, built.query, built.body
            if v0_3_rpc == "TaskSubscription":
                verb = "GET"  # the v0.3.0 proto's verb, the one a2a-sdk 0.3 serves
            elif v0_3_rpc == "CreateTaskPushNotificationConfig":
                query, payload = [], converted  # what a2a-sdk's 0.3 servers parse
            url = base_url.rstrip("/") + built.path
            if query:
                url += "?" + urlencode(query, quote_via=quote)
            body = None if payload is None else _json(rpc, payload)
        elif binding == "jsonrpc":
            method, params = params_from_v1(rpc, dict(request))
            envelope: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
            envelope["id"] = str(uuid.uuid4()) if id is None else id
            if params is not None:
                envelope["params"] = params
            verb, url, body = "POST", base_url, _json(rpc, envelope)
        else:
            raise ValueError(
                f"binding must be 'http+json' or 'jsonrpc', not {binding!r}"
            )
        headers = self._headers(
            binding, body=body is not None, extensions=extensions, version=V0_3
        )
        return PreparedRequest(
            verb, url, _v0_3_headers(headers, binding) + accept, body
        )

    def _legacy(self, version: str | None) -> bool:
        """Whether a call speaks A2A 0.3 (``version="0.3"``) rather than the
        package's own version (``None``, or that version said)."""
        if version is None or version == self._protocol_version:
            return False
        if version != V0_3:
            own = f"{self._protocol_version!r}, " if self._protocol_version else ""
            raise ValueError(
                f"version must be None (this package's), {own}or '0.3', not {version!r}"
            )
        return True

    def _v0_3_build(self, rpc: str, request: Mapping[str, Any]) -> HttpRequest:
        if self._package is None:
            raise ValueError("this package has no A2A 0.3 tables")
        try:
            routes = importlib.import_module(".v0_3.routes", self._package)
        except ImportError:
            raise ValueError(
                "this package was generated without the A2A 0.3 proto "
                "(option v0_3_proto): it has no 0.3 route table"
            ) from None
        built: HttpRequest = routes.build(rpc, request, dynamic=True)
        return built

    def read_response(
        self,
        rpc: str,
        status: int,
        headers: RequestHeaders,
        body: bytes,
        *,
        binding: Binding = "http+json",
        version: str | None = None,
    ) -> dict[str, Any]:
        """The response of ``rpc`` (see the generated ``client.read_response``)."""
        # The body decides, not its Content-Type (servers label JSON inconsistently);
        # the headers are read for a WWW-Authenticate challenge only.
        legacy = self._legacy(version)
        if binding not in ("jsonrpc", "http+json"):
            raise ValueError(
                f"binding must be 'http+json' or 'jsonrpc', not {binding!r}"
            )
        if status == 401:
            raise _unauthenticated_http(status, headers, body)
        if binding == "jsonrpc":
            try:
                envelope = _decode(body, status)
                if legacy:
                    result = _jsonrpc_payload(envelope, status, body, legacy=True)
                    return _from_v0_3(result_to_v1, rpc, result, status, body)
                return _jsonrpc_result(envelope, status, body)
            except JsonRpcError as exc:
                raise _unauthenticated_jsonrpc(exc, headers, status, body) from None
        if 200 <= status < 300:
            if not body.strip():
                return {}  # google.protobuf.Empty, or a 204
            payload = _decode(body, status)
            if legacy:
                return _from_v0_3(response_to_v1, rpc, payload, status, body)
            field = self.response_bodies.get(rpc)
            if field is not None:
                payload = {field: payload}
            if not isinstance(payload, dict):
                raise ResponseError(
                    f"HTTP {status}: {rpc} answered {type(payload).__name__}, "
                    "not an object",
                    status=status,
                    body=body,
                )
            return payload
        payload = _decode(body, status) if body.strip() else None
        if legacy:
            found = _v0_3_http_error(payload, status)
            if found is not None:
                raise found
        raise _status_error(payload, status, body)

    def _event(
        self, rpc: str, event: SseEvent, binding: Binding, legacy: bool
    ) -> dict[str, Any]:
        data = event.data.encode("utf-8")
        payload = _decode(data, 200)
        if binding == "jsonrpc":
            if legacy:
                result = _jsonrpc_payload(payload, 200, data)
                return _from_v0_3(result_to_v1, rpc, result, 200, data)
            return _jsonrpc_result(payload, 200, data)
        if isinstance(payload, Mapping) and "error" in payload:
            raise _status_error(payload, 200, data)
        if legacy:
            return _from_v0_3(response_to_v1, rpc, payload, 200, data)
        if not isinstance(payload, dict):
            raise ResponseError(
                f"event {event.id}: not an object", status=200, body=data
            )
        return payload

    def read_stream(
        self,
        rpc: str,
        chunks: Iterable[bytes],
        *,
        binding: Binding = "http+json",
        version: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """The responses of an event-stream body, raising on an error event."""
        legacy = self._legacy(version)
        try:
            for event in parse_sse(chunks):
                yield self._event(rpc, event, binding, legacy)
        except SseTooLarge as exc:
            raise ResponseError(str(exc), status=200, body=b"") from None

    async def aread_stream(
        self,
        rpc: str,
        chunks: AsyncIterable[bytes],
        *,
        binding: Binding = "http+json",
        version: str | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """``read_stream`` over async byte chunks."""
        legacy = self._legacy(version)
        try:
            async for event in aparse_sse(chunks):
                yield self._event(rpc, event, binding, legacy)
        except SseTooLarge as exc:
            raise ResponseError(str(exc), status=200, body=b"") from None


def _status_error(payload: Any, status: int, body: bytes) -> Exception:
    """The error of an HTTP+JSON failure: its A2A error, or a ``ResponseError``
    carrying what the body says."""
    found = A2AError.from_status(payload)
    if found is not None:
        return found
    error = payload.get("error") if isinstance(payload, Mapping) else None
    message = error.get("message") if isinstance(error, Mapping) else None
    text = message if isinstance(message, str) else f"HTTP status {status}"
    return ResponseError(
        f"HTTP {status}: {text}", status=status, body=body, error=error
    )


def _jsonrpc_result(envelope: Any, status: int, body: bytes) -> dict[str, Any]:
    """The ``result`` object of a JSON-RPC answer; raises the error it carries."""
    result = _jsonrpc_payload(envelope, status, body)
    if result is None:
        return {}
    if not isinstance(result, dict):
        raise ResponseError(
            f"HTTP {status}: the JSON-RPC result is {type(result).__name__}, "
            "not an object",
            status=status,
            body=body,
        )
    return result


def _jsonrpc_payload(
    envelope: Any, status: int, body: bytes, *, legacy: bool = False
) -> Any:
    """The ``result`` of a JSON-RPC answer, whatever its type; raises the error
    the answer carries. ``legacy``: a 0.3 answer, where a ``null`` result may be
    left out (a2a-sdk 0.3 drops it from a delete's answer)."""
    if not isinstance(envelope, Mapping):
        raise ResponseError(
            f"HTTP {status}: the JSON-RPC answer is not an object",
            status=status,
            body=body,
        )
    error = envelope.get("error")
    if error is not None:
        found = A2AError.from_jsonrpc(error)
        if found is not None:
            raise found
        code = error.get("code") if isinstance(error, Mapping) else None
        if isinstance(code, int) and not isinstance(code, bool):
            message = error.get("message")
            raise JsonRpcError(
                code,
                message if isinstance(message, str) else "",
                error.get("data"),
                id=envelope.get("id"),
            )
        raise ResponseError(
            f"HTTP {status}: malformed JSON-RPC error {error!r}",
            status=status,
            body=body,
        )
    if "result" not in envelope and not legacy:
        raise ResponseError(
            f"HTTP {status}: the JSON-RPC answer has neither result nor error",
            status=status,
            body=body,
        )
    return envelope.get("result")


def _one_route(rpc: str, built: Sequence[HttpRequest]) -> HttpRequest:
    """The first of a stream's requests, once each is known to go to its path and
    query (they are the stream's, shared by every request)."""
    first = built[0]
    for index, other in enumerate(built):
        if (other.verb, other.path, other.query) != (
            first.verb,
            first.path,
            first.query,
        ):
            raise ValueError(
                f"{rpc}: request [{index}] goes to {other.verb} {other.path},"
                f" request [0] to {first.verb} {first.path}: the path and query"
                " fields of a stream are the same for every request"
            )
    return first


def _from_v0_3(
    convert: Callable[[str, Any], dict[str, Any]],
    rpc: str,
    answer: Any,
    status: int,
    body: bytes,
) -> dict[str, Any]:
    """A 0.3 answer as the 1.0 one; a malformed one is a ``ResponseError`` naming
    its field."""
    try:
        return convert(rpc, answer)
    except ShapeError as exc:
        raise ResponseError(
            f"HTTP {status}: the A2A 0.3 answer to {rpc}: {exc}",
            status=status,
            body=body,
        ) from None


def _v0_3_http_error(payload: Any, status: int) -> A2AError | None:
    """The A2A error of a2a-sdk 0.3's HTTP+JSON error body ``{"message": ...}``, by
    the status it sends that error with (a ``google.rpc.Status``, which other 0.3
    servers send, is read as in 1.0)."""
    name = _V0_3_HTTP_ERRORS.get(status)
    if name is None or not isinstance(payload, Mapping) or "error" in payload:
        return None
    message = payload.get("message")
    if not isinstance(message, str):
        return None
    return A2AError(name, message)

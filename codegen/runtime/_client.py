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
"""

from __future__ import annotations

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
from ._media import media_type
from ._params import Binding
from ._validate import Schema
from ._sse import SSE_CONTENT_TYPE, SseEvent, SseTooLarge, aparse_sse, parse_sse

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
    stream, and the ``response_body`` of their HTTP+JSON route)."""

    def __init__(
        self,
        *,
        build: Callable[..., HttpRequest],
        jsonrpc_request: Callable[..., tuple[str, dict[str, Any]]],
        headers: Callable[..., list[tuple[str, str]]],
        methods: Mapping[str, Method],
        schema: Schema | None = None,
    ) -> None:
        self._build = build
        self._jsonrpc_request = jsonrpc_request
        self._headers = headers
        self._schema = schema
        self._methods = methods
        self.streaming = frozenset(n for n, m in methods.items() if m.server_streaming)
        self.response_bodies = {
            name: method.routes[0].response_body
            for name, method in methods.items()
            if method.routes and method.routes[0].response_body
        }

    def prepare(
        self,
        rpc: str,
        request: Mapping[str, Any],
        *,
        base_url: str,
        binding: Binding = "http+json",
        tenant: str | None = None,
        id: RequestId = None,
        extensions: Sequence[str] = (),
        tenant_in_path: bool = False,
        validate: bool = False,
    ) -> PreparedRequest:
        """The request for ``rpc`` (see the generated ``client.prepare``)."""
        if validate:
            method = self._methods.get(rpc)
            if self._schema is None or method is None:
                raise ValueError(f"{rpc}: no schema to validate the request with")
            request = self._schema.validate(method.request_type, request)
        base = base_url.rstrip("/")
        accept = [("Accept", SSE_CONTENT_TYPE)] if rpc in self.streaming else []
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

    def read_response(
        self,
        rpc: str,
        status: int,
        headers: RequestHeaders,
        body: bytes,
        *,
        binding: Binding = "http+json",
    ) -> dict[str, Any]:
        """The response of ``rpc`` (see the generated ``client.read_response``)."""
        # The body decides, not its Content-Type (servers label JSON inconsistently);
        # the headers are read for a WWW-Authenticate challenge only.
        if binding not in ("jsonrpc", "http+json"):
            raise ValueError(
                f"binding must be 'http+json' or 'jsonrpc', not {binding!r}"
            )
        if status == 401:
            raise _unauthenticated_http(status, headers, body)
        if binding == "jsonrpc":
            try:
                return self._jsonrpc_result(_decode(body, status), status, body)
            except JsonRpcError as exc:
                challenge = _challenge(headers)
                if exc.code == UNAUTHENTICATED_CODE or challenge is not None:
                    raise AuthenticationRequired(
                        exc.message,
                        challenge=challenge,
                        status=status,
                        body=body,
                        error=exc.to_dict(),
                        code=exc.code,
                        data=exc.data,
                        id=exc.id,
                    ) from None
                raise
        if 200 <= status < 300:
            if not body.strip():
                return {}  # google.protobuf.Empty, or a 204
            payload = _decode(body, status)
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
        raise self._status_error(payload, status, body)

    @staticmethod
    def _status_error(payload: Any, status: int, body: bytes) -> Exception:
        found = A2AError.from_status(payload)
        if found is not None:
            return found
        error = payload.get("error") if isinstance(payload, Mapping) else None
        message = error.get("message") if isinstance(error, Mapping) else None
        text = message if isinstance(message, str) else f"HTTP status {status}"
        return ResponseError(
            f"HTTP {status}: {text}", status=status, body=body, error=error
        )

    @staticmethod
    def _jsonrpc_result(envelope: Any, status: int, body: bytes) -> dict[str, Any]:
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
        if "result" not in envelope:
            raise ResponseError(
                f"HTTP {status}: the JSON-RPC answer has neither result nor error",
                status=status,
                body=body,
            )
        result = envelope["result"]
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

    def _event(self, event: SseEvent, binding: Binding) -> dict[str, Any]:
        data = event.data.encode("utf-8")
        payload = _decode(data, 200)
        if binding == "jsonrpc":
            return self._jsonrpc_result(payload, 200, data)
        if isinstance(payload, Mapping) and "error" in payload:
            raise self._status_error(payload, 200, data)
        if not isinstance(payload, dict):
            raise ResponseError(
                f"event {event.id}: not an object", status=200, body=data
            )
        return payload

    def read_stream(
        self, rpc: str, chunks: Iterable[bytes], *, binding: Binding = "http+json"
    ) -> Iterator[dict[str, Any]]:
        """The responses of an event-stream body, raising on an error event."""
        del rpc  # every stream event has the same shape
        try:
            for event in parse_sse(chunks):
                yield self._event(event, binding)
        except SseTooLarge as exc:
            raise ResponseError(str(exc), status=200, body=b"") from None

    async def aread_stream(
        self,
        rpc: str,
        chunks: AsyncIterable[bytes],
        *,
        binding: Binding = "http+json",
    ) -> AsyncIterator[dict[str, Any]]:
        """``read_stream`` over async byte chunks."""
        del rpc
        try:
            async for event in aparse_sse(chunks):
                yield self._event(event, binding)
        except SseTooLarge as exc:
            raise ResponseError(str(exc), status=200, body=b"") from None

"""What the server reads of one ASGI request: its path, its body, where the client
reached it, and the ``CallContext`` a handler gets.

URLs: the *base URL* of a request is the scheme, host and port the client reached
(the ``Host`` header when it is a well-formed host and port, else the server's socket
address; the scheme from the ASGI scope, which a server's proxy-headers support sets)
followed by the percent-encoded ASGI ``root_path`` (a Starlette ``Mount``'s prefix),
without a trailing slash.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import quote

from ._headers import RequestHead
from ._params import Binding, ServiceParams

__all__ = [
    "AsgiMessage",
    "CallContext",
    "Disconnected",
    "Receive",
    "Scope",
    "Send",
    "base_url",
    "raw_path",
    "read_body",
]

Scope = MutableMapping[str, Any]
"""An ASGI connection scope."""
AsgiMessage = MutableMapping[str, Any]
"""An ASGI event, received or sent."""
Receive = Callable[[], Awaitable[AsgiMessage]]
"""The ASGI ``receive`` callable."""
Send = Callable[[AsgiMessage], Awaitable[None]]
"""The ASGI ``send`` callable."""

PATH_SAFE = "/:@!$&'()*+,;=~"
"""What percent-encoding leaves as it is in a path (RFC 3986 ``pchar`` and ``/``)."""

# A host as RFC 9110 allows it in Host (reg-name or IP literal), with an optional port:
# anything else (a header injected by a client) is not put into URLs we answer with.
_HOST = re.compile(r"(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def base_url(scope: Scope, host: str | None = None) -> str:
    """Where the client reached the application: scheme, host and port, then the
    percent-encoded ``root_path``, without a trailing slash.

    The host is the ``Host`` header (or ``host``, when the caller read it already)
    when it is a well-formed host and optional port, else the server's socket address
    (``scope["server"]``, the port left out when it is the scheme's default), else
    ``localhost``.
    """
    scheme = scope.get("scheme") or "http"
    if scheme not in _DEFAULT_PORTS:
        scheme = "http"
    if host is None:
        host = RequestHead(scope.get("headers") or []).host or ""
    if not _HOST.fullmatch(host):
        server = scope.get("server")
        if server and server[1] is not None:
            address, port = server
            host = f"[{address}]" if ":" in address else address
            if port != _DEFAULT_PORTS[scheme]:
                host += f":{port}"
        else:
            host = "localhost"
    root = quote(scope.get("root_path") or "", safe=PATH_SAFE).rstrip("/")
    return f"{scheme}://{host}{root}"


def raw_path(scope: Scope) -> str:
    """The path as sent (still percent-encoded) below ``root_path``: the prefix a
    Starlette ``Mount`` or a server's root path put in front is removed."""
    raw = scope.get("raw_path")
    if raw:
        path = (raw if type(raw) is bytes else bytes(raw)).decode("latin-1")
        if "?" in path:
            path = path.split("?", 1)[0]
    else:  # raw_path is optional in ASGI: re-encode the decoded path
        path = quote(scope["path"], safe=PATH_SAFE)
    root = scope.get("root_path")
    if not root:
        return path
    for prefix in (root, quote(root, safe=PATH_SAFE)):
        if path == prefix or path.startswith(prefix + "/"):
            return path[len(prefix) :] or "/"
    return path


class Disconnected(Exception):
    """The client went away: while the request body was being read, or while a unary
    call ran (``_cancellation.DisconnectWatch``)."""


async def read_body(receive: Receive, length: str | None, limit: int) -> bytes | None:
    """The whole body; None when it is larger than ``limit`` (by its Content-Length,
    ``length``, or as it arrives). ``Disconnected`` when the client leaves first."""
    if length is not None:
        try:
            if int(length) > limit:
                return None
        except ValueError:
            pass  # the server refuses a bad Content-Length before we see it
    message = await receive()
    if message["type"] == "http.disconnect":
        raise Disconnected
    chunk = message.get("body", b"")
    if not message.get("more_body", False):  # the usual case: one message
        return chunk if len(chunk) <= limit else None
    chunks = [chunk]
    size = len(chunk)
    while True:
        if size > limit:
            return None
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Disconnected
        chunk = message.get("body", b"")
        size += len(chunk)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks) if size <= limit else None


class CallContext:
    """What a handler learns about one call besides its request.

    ``tenant`` is the request's tenant (``""`` when none), ``binding`` the binding it
    came over (``"http+json"``, ``"jsonrpc"`` or ``"grpc"``), ``params`` its A2A service
    parameters
    and ``headers`` every request header as ``(lower-case name, value)`` pairs, values
    read as ISO-8859-1. ``base_url`` is where the client reached the application
    (scheme, host, port and mount prefix, see :func:`base_url`), for answers that name
    URLs, such as an extended agent card (``""`` over gRPC). Read-only; ``headers`` and ``base_url`` are
    worked out when first read.
    """

    __slots__ = ("_tenant", "_binding", "_params", "_headers", "_base_url", "_source")

    def __init__(
        self,
        tenant: str,
        binding: Binding,
        params: ServiceParams,
        headers: tuple[tuple[str, str], ...] = (),
        base_url: str = "",
    ) -> None:
        self._tenant = tenant
        self._binding: Binding = binding
        self._params = params
        self._headers: tuple[tuple[str, str], ...] | None = headers
        self._base_url: str | None = base_url
        self._source: (
            tuple[Scope, RequestHead] | Callable[[], tuple[tuple[str, str], ...]] | None
        ) = None

    @classmethod
    def of_request(
        cls,
        tenant: str,
        binding: Binding,
        params: ServiceParams,
        scope: Scope,
        head: RequestHead,
    ) -> CallContext:
        """The context of a request being served: headers and base URL from
        ``scope`` and ``head`` when read."""
        context = cls.__new__(cls)
        context._tenant, context._binding, context._params = tenant, binding, params
        context._headers = context._base_url = None
        context._source = (scope, head)
        return context

    @classmethod
    def of_call(
        cls,
        tenant: str,
        binding: Binding,
        params: ServiceParams,
        headers: Callable[[], tuple[tuple[str, str], ...]],
    ) -> CallContext:
        """The context of a call being served whose headers ``headers()`` gives
        when read (no base URL)."""
        context = cls.__new__(cls)
        context._tenant, context._binding, context._params = tenant, binding, params
        context._headers, context._base_url = None, ""
        context._source = headers
        return context

    @property
    def tenant(self) -> str:
        """The request's tenant, ``""`` when none."""
        return self._tenant

    @property
    def binding(self) -> Binding:
        """The binding the call came over."""
        return self._binding

    @property
    def params(self) -> ServiceParams:
        """The call's A2A service parameters."""
        return self._params

    @property
    def headers(self) -> tuple[tuple[str, str], ...]:
        """Every request header as ``(lower-case name, value)``."""
        if self._headers is None:
            source = self._source
            assert source is not None
            self._headers = source() if callable(source) else source[1].pairs
        return self._headers

    @property
    def base_url(self) -> str:
        """Where the client reached the application (see :func:`base_url`)."""
        if self._base_url is None:
            assert isinstance(self._source, tuple)
            scope, head = self._source
            self._base_url = base_url(scope, head.host or "")
        return self._base_url

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (any case), None when absent."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key == wanted), None)

    def _fields(self) -> tuple[object, ...]:
        return (self.tenant, self.binding, self.params, self.headers, self.base_url)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CallContext):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"CallContext(tenant={self.tenant!r}, binding={self.binding!r}, "
            f"params={self.params!r}, headers={self.headers!r}, "
            f"base_url={self.base_url!r})"
        )

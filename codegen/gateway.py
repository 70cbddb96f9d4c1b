"""``a2a-codegen gateway``: the generated app in front of a gRPC service or an A2A agent
over HTTP, in one command.

The package is generated with ``grpc=true`` into a temporary folder (``package_folder``:
removed when the command ends, however it ends), with protoc's ``_pb2`` module beside it
when the input is proto files or a descriptor set (a module input is its own ``_pb2``),
imported, and ``asgi.create_app(grpc_binding.Backend(channel), ...)`` runs under
uvicorn. The channel is opened on the serving loop at lifespan startup (a ``grpc.aio``
channel belongs to its loop) and closed at shutdown.

For an A2A service (a package with the A2A profile) the app serves an agent card: the
given file, its JSON-RPC and HTTP+JSON interfaces pointed at where the gateway is
reached (``public_url``, else each request's own base URL), one added for a served
binding the card does not list; its other interfaces (the agent's gRPC one) stay as
written. Any other service with http rules gets no card, as grpc-gateway serves it.

In front of an A2A agent over HTTP (a ``http://`` or ``https://`` target) the package
is generated with ``translate=true`` too: the agent's card is read at start-up
(``fetch_card``: a 1.0 card, or a 0.3 one read as 1.0), the interface to speak to it
picked (``pick_interface``: the package's version before 0.3, the card's order
within a version, JSON-RPC and HTTP+JSON only, or the binding asked for), and
``HttpGateway`` serves ``http_backend.Backend`` on every binding and both versions:
JSON-RPC and HTTP+JSON on the app, gRPC on a port of its own when asked. The card it
serves is the agent's with the gateway's interfaces in place of the agent's
(``gateway_interfaces``).
"""

from __future__ import annotations

import importlib
import json
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit

from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

__all__ = [
    "AGENT_CARD_PATH",
    "GatewayError",
    "Gateway",
    "GrpcListener",
    "HttpGateway",
    "Interface",
    "Package",
    "card_rewriter",
    "fetch_card",
    "fronted",
    "gateway_interfaces",
    "pick_interface",
    "read_card",
    "load_card",
    "load_package",
    "package_folder",
    "served_package",
]


class GatewayError(Exception):
    """A gateway that cannot be set up; the message names the input at fault."""


def load_card(path: str) -> dict[str, Any]:
    """The agent card in ``path`` (ProtoJSON); ``GatewayError`` naming the file."""
    try:
        card = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise GatewayError(
            f"cannot read the agent card {path}: {exc.strerror}"
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GatewayError(f"the agent card {path} is not JSON: {exc}") from None
    if not isinstance(card, dict):
        raise GatewayError(f"the agent card {path} is not a JSON object")
    interfaces = card.get("supportedInterfaces", [])
    if not isinstance(interfaces, list) or not all(
        isinstance(i, dict) for i in interfaces
    ):
        raise GatewayError(
            f"the agent card {path}: supportedInterfaces is not a list of objects"
        )
    return card


def card_rewriter(
    card: Mapping[str, Any],
    served: Sequence[tuple[str, str]],
    version: str,
    public_url: str | None = None,
) -> Callable[[str], dict[str, Any]]:
    """The card for a request reaching the gateway at ``base_url``: each interface of
    a binding in ``served`` (``(protocolBinding, path)``) at ``base + path``, the
    first of each binding kept in place, one appended for a binding the card lacks."""
    base_of: Callable[[str], str] = (
        (lambda _: public_url.rstrip("/")) if public_url else (lambda b: b)
    )

    def rewritten(base_url: str) -> dict[str, Any]:
        base = base_of(base_url)
        urls = {binding: base + path for binding, path in served}
        interfaces: list[dict[str, Any]] = []
        for interface in card.get("supportedInterfaces", []):
            binding = interface.get("protocolBinding")
            if binding in urls:
                interfaces.append({**interface, "url": urls[binding]})
            else:
                interfaces.append(dict(interface))
        listed = {i.get("protocolBinding") for i in interfaces}
        interfaces.extend(
            {"url": url, "protocolBinding": binding, "protocolVersion": version}
            for binding, url in urls.items()
            if binding not in listed
        )
        return {**card, "supportedInterfaces": interfaces}

    return rewritten


def served_package(files: Mapping[str, str]) -> tuple[str, bool]:
    """The one package of a ``grpc=true`` generation the gateway serves, and whether it
    has the A2A profile (``protocol.py``); ``GatewayError`` for none or several."""
    packages = sorted(
        {name.split("/")[0] for name in files if name.endswith("/grpc_binding.py")}
    )
    if len(packages) != 1:
        raise GatewayError(
            "the input gives no service with google.api.http rules to serve"
            if not packages
            else f"the input gives several packages ({', '.join(packages)}): give one"
        )
    return packages[0], f"{packages[0]}/protocol.py" in files


class Package(NamedTuple):
    """The imported package: its ``asgi`` and ``grpc_binding`` modules, whether it is
    an A2A service (``a2a``: it serves an agent card and checks versions), and its
    ``http_backend`` module (a ``translate=true`` generation; else None)."""

    asgi: ModuleType
    grpc_binding: ModuleType
    a2a: bool
    http_backend: ModuleType | None = None


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


@contextmanager
def package_folder() -> Iterator[Path]:
    """A new temporary folder for the package, on ``sys.path`` once ``load_package``
    puts it there; removed (and taken off ``sys.path``) when the block ends: normally,
    on an error, on Ctrl-C, and on SIGTERM, which raises ``SystemExit(143)`` in the
    block (in the main thread; uvicorn sends the signal on after its own graceful
    shutdown), whose default action ends the process with no cleanup."""
    on_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm) if on_main else None
    try:
        folder = Path(tempfile.mkdtemp(prefix="a2a-gateway-"))
        try:
            yield folder
        finally:
            while str(folder) in sys.path:
                sys.path.remove(str(folder))
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def load_package(
    request: plugin_pb2.CodeGeneratorRequest,
    files: Mapping[str, str],
    *,
    from_module: bool,
    folder: Path,
) -> Package:
    """Write ``files`` (a ``grpc=true`` generation) into ``folder`` (see
    ``package_folder``), add protoc's ``_pb2`` module for ``request`` unless the input
    was a module, and import the served package's ``asgi`` and ``grpc_binding``."""
    name, a2a = served_package(files)
    for path, content in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(content, encoding="utf-8")
    if not from_module:
        _protoc_python(request, folder)
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    asgi = importlib.import_module(f"{name}.asgi")
    grpc_binding = importlib.import_module(f"{name}.grpc_binding")
    http_backend = (
        importlib.import_module(f"{name}.http_backend")
        if f"{name}/http_backend.py" in files
        else None
    )
    return Package(asgi, grpc_binding, a2a, http_backend)


def _protoc_python(request: plugin_pb2.CodeGeneratorRequest, folder: Path) -> None:
    """protoc's ``--python_out`` for the request's files whose ``_pb2`` module cannot
    be imported already (protobuf's own, googleapis-common-protos' ``google.api``),
    from the request's own descriptors."""
    from grpc_tools import protoc

    descriptors = folder / "input.pb"
    descriptors.write_bytes(
        descriptor_pb2.FileDescriptorSet(file=request.proto_file).SerializeToString()
    )
    wanted = [f.name for f in request.proto_file if not _importable(f.name)]
    if not wanted:  # protoc refuses a run without input files
        return
    status = protoc.main(
        [
            "protoc",
            f"--descriptor_set_in={descriptors}",
            f"--python_out={folder}",
            *wanted,
        ]
    )
    if status != 0:
        raise GatewayError(
            f"protoc --python_out failed for {', '.join(wanted)} (status {status})"
        )


def _importable(proto_name: str) -> bool:
    import importlib.util

    module = proto_name.removesuffix(".proto").replace("/", ".").replace("-", "_")
    try:
        return importlib.util.find_spec(f"{module}_pb2") is not None
    except ImportError:  # a parent package that does not exist
        return False


class Gateway:
    """An ASGI app made by ``make_app(channel)`` over a ``grpc.aio`` channel to
    ``target`` (plaintext), both opened on the serving loop at lifespan startup (a
    channel belongs to the loop it runs on); the channel is closed at shutdown."""

    def __init__(self, target: str, make_app: Callable[[Any], Any]) -> None:
        self.target, self.make_app = target, make_app
        self.app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        import grpc.aio

        await receive()  # lifespan.startup
        channel = grpc.aio.insecure_channel(self.target)
        self.app = self.make_app(channel)
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        await channel.close()
        await send({"type": "lifespan.shutdown.complete"})


# ------------------------------------------------- in front of an agent over HTTP

AGENT_CARD_PATH = "/.well-known/agent-card.json"
"""Where an A2A agent serves its card, below its base URL (0.3 and 1.0 alike)."""

HTTP_BINDINGS = ("JSONRPC", "HTTP+JSON")
"""The bindings an ``http_backend.Backend`` speaks to an agent."""

_BACKEND_BINDING = {"JSONRPC": "jsonrpc", "HTTP+JSON": "http+json"}


class Interface(NamedTuple):
    """One interface of an agent's card: its binding (``protocolBinding``), protocol
    version as written, absolute URL and tenant."""

    binding: str
    version: str
    url: str
    tenant: str

    @property
    def major_minor(self) -> str:
        """``"1.0"`` of ``"1.0.2"``; the version as written when it has no minor."""
        return ".".join(self.version.split(".")[:2])

    def backend(self, package_version: str) -> dict[str, Any]:
        """The keywords of ``http_backend.Backend`` that speak to this interface."""
        version = (
            None if self.major_minor in ("", package_version) else self.major_minor
        )
        return {
            "binding": _BACKEND_BINDING[self.binding],
            "version": version,
            "tenant": self.tenant,
        }


def fetch_card(
    url: str, *, timeout: float = 10.0
) -> tuple[dict[str, Any], list[Interface]]:
    """The card of the A2A agent at ``url`` (read from ``url`` + ``AGENT_CARD_PATH``)
    as a 1.0 card, and its interfaces; ``GatewayError`` naming the URL for an agent
    that cannot be reached, an answer that is not 200, or a card that does not
    parse."""
    import httpx  # only here: the gateway in front of a gRPC service needs none

    where = url.rstrip("/") + AGENT_CARD_PATH
    try:
        response = httpx.get(where, timeout=timeout, follow_redirects=True)
    except httpx.HTTPError as exc:
        reason = str(exc) or type(exc).__name__
        raise GatewayError(f"cannot read the agent card at {where}: {reason}") from None
    if response.status_code != 200:
        raise GatewayError(
            f"cannot read the agent card at {where}: HTTP {response.status_code}"
        )
    try:
        payload = response.json()
    except ValueError as exc:
        raise GatewayError(f"the agent card at {where} is not JSON: {exc}") from None
    return read_card(payload, where)


def read_card(payload: object, where: str) -> tuple[dict[str, Any], list[Interface]]:
    """``payload``, an agent card read at ``where``, as a 1.0 card (a 0.3 card
    converted, its interfaces of version 0.3), and its interfaces with their URLs
    made absolute against ``where``; ``GatewayError`` for what is no card."""
    from .runtime._v0_3_card import card_to_v1
    from .runtime._v0_3_shapes import ShapeError

    if not isinstance(payload, dict):
        raise GatewayError(f"the agent card at {where} is not a JSON object")
    if "supportedInterfaces" in payload:
        card = payload
    elif "url" in payload:
        try:
            card = card_to_v1(payload)
        except ShapeError as exc:
            raise GatewayError(f"the agent card at {where}: {exc}") from None
    else:
        raise GatewayError(
            f"the agent card at {where} is neither a 1.0 card (supportedInterfaces)"
            " nor a 0.3 one (url)"
        )
    listed = card.get("supportedInterfaces")
    if not isinstance(listed, list) or not all(isinstance(i, dict) for i in listed):
        raise GatewayError(
            f"the agent card at {where}: supportedInterfaces is not a list of objects"
        )
    interfaces = []
    for index, entry in enumerate(listed):
        fields = [entry.get(k, "") for k in ("protocolBinding", "protocolVersion")]
        fields += [entry.get("url", ""), entry.get("tenant", "")]
        if not all(isinstance(field, str) for field in fields):
            raise GatewayError(
                f"the agent card at {where}: supportedInterfaces[{index}] has a"
                " field that is not a string"
            )
        binding, version, url, tenant = fields
        interfaces.append(Interface(binding, version, urljoin(where, url), tenant))
    return card, interfaces


def pick_interface(
    interfaces: Sequence[Interface],
    *,
    package_version: str,
    binding: str | None = None,
    where: str = "the agent card",
) -> Interface:
    """The interface a gateway speaks to the agent over: one of ``HTTP_BINDINGS``
    (``binding`` only, when given), the package's version before 0.3 (by
    Major.Minor, as a2a-sdk's client factory picks), the card's order within a
    version (the agent's preference); ``GatewayError`` listing what the card offers
    when none fits."""
    ranks = {package_version: 0, "0.3": 1}
    candidates = [
        (ranks[i.major_minor], index, i)
        for index, i in enumerate(interfaces)
        if i.binding in HTTP_BINDINGS
        and (binding is None or i.binding == binding)
        and i.major_minor in ranks
        and i.url.startswith(("http://", "https://"))
    ]
    if candidates:
        return min(candidates)[2]
    offered = ", ".join(
        f"{i.binding} {i.version or '(no version)'}" for i in interfaces
    )
    wanted = binding or " or ".join(HTTP_BINDINGS)
    raise GatewayError(
        f"{where} lists no {wanted} interface in version {package_version} or 0.3"
        f" at an http(s) URL (it lists: {offered or 'none'})"
    )


def gateway_interfaces(
    base_url: str,
    *,
    jsonrpc_path: str,
    http_json_prefix: str,
    version: str,
    grpc_port: int | None = None,
) -> list[dict[str, Any]]:
    """The interfaces of a gateway reached at ``base_url``: JSON-RPC and HTTP+JSON in
    ``version`` and in 0.3 (served at the same URLs), and gRPC at ``grpc_port`` of
    the same host, in ``version``."""
    base = base_url.rstrip("/")
    jsonrpc = {"url": base + jsonrpc_path, "protocolBinding": "JSONRPC"}
    http_json = {"url": base + http_json_prefix, "protocolBinding": "HTTP+JSON"}
    interfaces = [
        {**jsonrpc, "protocolVersion": version},
        {**http_json, "protocolVersion": version},
    ]
    if grpc_port is not None:
        host = urlsplit(base).hostname or "127.0.0.1"
        host = f"[{host}]" if ":" in host else host
        interfaces.append(
            {
                "url": f"{host}:{grpc_port}",
                "protocolBinding": "GRPC",
                "protocolVersion": version,
            }
        )
    interfaces += [
        {**jsonrpc, "protocolVersion": "0.3"},
        {**http_json, "protocolVersion": "0.3"},
    ]
    return interfaces


class GrpcListener(NamedTuple):
    """gRPC served beside the app: ``add_to_server(handler, server)`` of the package's
    ``grpc_binding``, on ``address`` (``host:port``, plaintext)."""

    add_to_server: Callable[[Any, Any], Any]
    address: str


class HttpGateway:
    """An ASGI app in front of an agent over HTTP, made on the serving loop at lifespan
    startup: ``make_backend()`` gives the handler (an ``http_backend.Backend``),
    ``make_app(handler)`` the app; with ``grpc`` the handler is also served on a
    ``grpc.aio`` server. At shutdown the gRPC server stops (a second's grace) and the
    backend's HTTP client is closed. A startup that fails (a port in use) is reported
    to the server as ``lifespan.startup.failed`` with its reason."""

    def __init__(
        self,
        make_backend: Callable[[], Any],
        make_app: Callable[[Any], Any],
        *,
        grpc: GrpcListener | None = None,
    ) -> None:
        self.make_backend, self.make_app, self.grpc = make_backend, make_app, grpc
        self.app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        await receive()  # lifespan.startup
        backend = self.make_backend()
        try:
            server = await self._grpc_server(backend)
        except Exception as exc:
            await backend.aclose()
            await send({"type": "lifespan.startup.failed", "message": str(exc)})
            return
        self.app = self.make_app(backend)
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        if server is not None:
            await server.stop(1.0)
        await backend.aclose()
        await send({"type": "lifespan.shutdown.complete"})

    async def _grpc_server(self, backend: Any) -> Any:
        if self.grpc is None:
            return None
        import grpc.aio

        server = grpc.aio.server()
        self.grpc.add_to_server(backend, server)
        try:
            server.add_insecure_port(self.grpc.address)
        except RuntimeError as exc:  # grpc's "Failed to bind"
            raise GatewayError(
                f"cannot serve gRPC on {self.grpc.address}: {exc}"
            ) from None
        await server.start()
        return server


_Rewrite = Callable[[str], list[dict[str, Any]]]


def fronted(backend_class: Any, interfaces_at: _Rewrite, public_url: str | None) -> Any:
    """``backend_class`` (the package's ``http_backend.Backend``) with the extended
    agent card it answers rewritten as the public one is: the gateway's interfaces in
    place of the agent's (at ``public_url``, else where the call reached the gateway;
    over gRPC, which names no URL, the agent's are dropped)."""

    async def get_extended_agent_card(self: Any, request: Any, context: Any) -> Any:
        card = await backend_class.get_extended_agent_card(self, request, context)
        base = public_url or context.base_url
        interfaces = interfaces_at(base) if base else []
        return {**card, "supportedInterfaces": interfaces}

    return type(
        "GatewayBackend",
        (backend_class,),
        {"get_extended_agent_card": get_extended_agent_card},
    )

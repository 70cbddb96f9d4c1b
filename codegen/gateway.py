"""``a2a-codegen gateway``: the generated app in front of a gRPC service, in one command.

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

from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

__all__ = [
    "GatewayError",
    "Gateway",
    "Package",
    "card_rewriter",
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
    """The imported package: its ``asgi`` and ``grpc_binding`` modules, and whether it
    is an A2A service (``a2a``: it serves an agent card and checks versions)."""

    asgi: ModuleType
    grpc_binding: ModuleType
    a2a: bool


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
    return Package(asgi, grpc_binding, a2a)


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

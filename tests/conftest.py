"""Shared fixtures: compiling test protos, running the plugin, importing generated code."""

from __future__ import annotations

import importlib
import itertools
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from google.protobuf.compiler import plugin_pb2

from codegen.inputs import request_from_protos
from codegen.plugin import generate
from codegen.render import runtime_files
from codegen.runtime import LAYERS

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
SPEC = ROOT.parent / "shared" / "a2a-spec"
SPEC_TAGS = ("v0.3.0", "v1.0.0-rc", "v1.0.0", "v1.0.1", "main-2026-08")
GENERATED = ROOT / "generated"


def spec_proto(tag: str) -> Path:
    """The upstream a2a.proto at ``tag``; skips the test where ../shared is absent."""
    path = SPEC / tag / "a2a.proto"
    if not path.is_file():
        pytest.skip(
            f"upstream A2A protos are not here ({path} is missing); they live in ../shared/a2a-spec"
        )
    return path


@pytest.fixture(scope="session")
def sdk_a2a(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An A2A 1.0 proto file: the one a2a-sdk ships compiled, written back out as
    ``a2a.proto`` (tests/sdk_protos.py). For tests that need an A2A proto, not a given
    upstream tag: they run where ../shared is absent too."""
    from .sdk_protos import sdk_proto

    return sdk_proto(tmp_path_factory.mktemp("sdk-a2a"), "1.0")


@pytest.fixture(scope="session")
def sdk_a2a_v0_3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """a2a-sdk's A2A 0.3 proto (``a2a_v0_3.proto``), written out likewise."""
    from .sdk_protos import sdk_proto

    return sdk_proto(tmp_path_factory.mktemp("sdk-a2a-v0_3"), "0.3")


def plugin_executable() -> str:
    """The installed ``protoc-gen-a2a`` script of the interpreter running the tests."""
    found = shutil.which("protoc-gen-a2a", path=str(Path(sys.executable).parent))
    assert found, "protoc-gen-a2a is not installed next to the test interpreter"
    return found


def compile_request(
    proto: Path, parameter: str = ""
) -> plugin_pb2.CodeGeneratorRequest:
    return request_from_protos([str(proto)], [str(proto.parent)], parameter)


def run_plugin(
    proto: Path, parameter: str = ""
) -> tuple[plugin_pb2.CodeGeneratorResponse, list[str]]:
    warnings: list[str] = []
    response = generate(compile_request(proto, parameter), warnings.append)
    return response, warnings


_counter = itertools.count()


@pytest.fixture
def load_package(tmp_path: Path) -> Iterator[Callable[..., ModuleType]]:
    """Generate a package from a proto into tmp_path under a unique name and import it."""
    added: list[str] = []

    def load(proto: Path, parameter: str = "") -> ModuleType:
        name = f"gen_{proto.stem.replace('-', '_').replace('.', '_')}_{next(_counter)}"
        full_parameter = ",".join(filter(None, [parameter, f"module={name}"]))
        response, _ = run_plugin(proto, full_parameter)
        assert not response.error, response.error
        for file in response.file:
            path = tmp_path / file.name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(file.content)
        if str(tmp_path) not in sys.path:
            sys.path.insert(0, str(tmp_path))
            added.append(str(tmp_path))
        package = importlib.import_module(name)
        for sub in ("routes", "query", "jsonrpc", "messages"):
            importlib.import_module(f"{name}.{sub}")
        return package

    yield load
    for entry in added:
        sys.path.remove(entry)


@pytest.fixture(scope="session")
def example(example_module: ModuleType) -> ModuleType:
    """The module examples/a2a_server.py (:func:`example_module`, by the name the
    example's own tests give it)."""
    return example_module


@pytest.fixture(scope="session")
def a2a() -> ModuleType:
    """The committed generated/a2a_binding package (what users vendor)."""
    sys.path.insert(0, str(GENERATED))
    try:
        package = importlib.import_module("a2a_binding")
        for sub in ("routes", "query", "jsonrpc", "messages"):
            importlib.import_module(f"a2a_binding.{sub}")
    finally:
        sys.path.remove(str(GENERATED))
    return package


@pytest.fixture(scope="session")
def example_module() -> ModuleType:
    """``examples.a2a_server``, importing the committed generated package."""
    sys.path[:0] = [str(GENERATED), str(ROOT)]
    try:
        return importlib.import_module("examples.a2a_server")
    finally:
        del sys.path[:2]


def mypy_strict(
    targets: Iterable[str | Path],
    *,
    cache: Path,
    cwd: Path,
    mypypath: Path | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """One ``mypy --strict`` run over ``targets`` from ``cwd``, without incremental
    state beyond ``cache``; with ``mypypath``, that and a minimal PATH are the whole
    environment (the generated package found as a user's code finds it)."""
    env = (
        None
        if mypypath is None
        else {"MYPYPATH": str(mypypath), "PATH": "/usr/bin:/bin"}
    )
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental"]
        + ["--cache-dir", str(cache), *map(str, targets)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )


@cache
def _runtime_source(module: str) -> str | None:
    """The text of the runtime module ``module`` (a file name), if there is one."""
    path = runtime_files(LAYERS).get(module)
    return path.read_text(encoding="utf-8") if path is not None else None


def verbatim_header(name: str, content: str) -> str | None:
    """The header above a generated file (named ``name``, of ``content``) that carries
    a runtime module as it is; None for any other file."""
    source = _runtime_source(Path(name).name) if Path(name).name[:1] == "_" else None
    if source is None or not content.endswith(source):
        return None
    return content[: -len(source)]


def black_has_seen(name: str, content: str, headers_seen: set[str]) -> bool:
    """Whether black need not see this generated file: a runtime module as it is,
    under a header already seen (recorded in ``headers_seen``, one set per package)
    above another. The runtime is black-clean (checked in test_generated_output) and
    the header is the package's, so black has seen all that could differ."""
    header = verbatim_header(name, content)
    if header is None:
        return False
    if header in headers_seen:
        return True
    headers_seen.add(header)
    return False

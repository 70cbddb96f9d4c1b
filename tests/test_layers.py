"""The package in layers: with no option the tables alone, and ``import routes`` loads
only what matching, building and transcoding use."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest

from codegen.inputs import V0_3_MODULE, request_from_module, with_v0_3
from codegen.plugin import generate

from .conftest import PROTO, SPEC, run_plugin, spec_proto

LOADED = """
import json, sys
before = set(sys.modules)
import a2a_binding.routes
print(json.dumps(sorted(m for m in set(sys.modules) - before if m.startswith("a2a_binding"))))
"""


def _loaded_by_routes(folder: Path) -> list[str]:
    """The modules of the package in ``folder`` that ``import a2a_binding.routes``
    loads, in a fresh interpreter."""
    found = subprocess.run(
        [sys.executable, "-c", LOADED],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded: list[str] = json.loads(found.stdout)
    return loaded


def _write(response: object, folder: Path) -> None:
    for file in response.file:  # type: ignore[attr-defined]
        path = folder / file.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.content)


def test_importing_routes_loads_no_message_tables_and_no_other_layer(
    tmp_path: Path,
) -> None:
    response = generate(request_from_module(parameter="serve=true,client=true"))
    assert response.error == ""
    _write(response, tmp_path)
    loaded = _loaded_by_routes(tmp_path)
    assert loaded == [
        "a2a_binding",
        "a2a_binding._compiling",
        "a2a_binding._paths",
        "a2a_binding._query",
        "a2a_binding._quoting",
        "a2a_binding.query",
        "a2a_binding.routes",
    ]


# What the package with no option may weigh (issue #37): the files and lines a user
# vendors and reads, and what ``import routes`` (a router's or a client's only need)
# loads of them.
MAX_FILES = 16
MAX_LINES = 6_500
MAX_LINES_ANY_SERVICE = 5_000  # a service without the A2A profile, of seven rpcs
MAX_ROUTES_MODULES = 9
MAX_ROUTES_LINES = 3_000


def _weigh(package: Path) -> tuple[int, int]:
    """The Python files of ``package`` and their lines."""
    files = sorted(package.rglob("*.py"))
    return len(files), sum(len(path.read_text().splitlines()) for path in files)


def _spec_tags() -> list[str]:
    """Every upstream tag under ../shared/a2a-spec (one that skips where it is absent)."""
    return sorted(path.parent.name for path in SPEC.glob("*/a2a.proto")) or ["absent"]


@pytest.mark.parametrize("tag", _spec_tags())
def test_the_default_package_of_each_upstream_proto_keeps_its_size(
    tag: str, tmp_path: Path
) -> None:
    response, _ = run_plugin(spec_proto(tag))
    assert response.error == ""
    _write(response, tmp_path)
    files, lines = _weigh(tmp_path / "a2a_binding")
    assert files <= MAX_FILES, f"{tag}: {files} Python files"
    assert lines <= MAX_LINES, f"{tag}: {lines} lines"
    loaded = _loaded_by_routes(tmp_path)
    paths = [
        (
            tmp_path / (name.replace(".", "/") + ".py")
            if "." in name
            else tmp_path / name / "__init__.py"
        )
        for name in loaded
    ]
    routes_lines = sum(len(path.read_text().splitlines()) for path in paths)
    assert len(loaded) <= MAX_ROUTES_MODULES, f"{tag}: import routes loads {loaded}"
    assert (
        routes_lines <= MAX_ROUTES_LINES
    ), f"{tag}: import routes loads {routes_lines}"


def test_a_service_of_seven_rpcs_keeps_its_size(tmp_path: Path) -> None:
    response, _ = run_plugin(PROTO / "features" / "streams.proto")  # seven rpcs
    assert response.error == ""
    _write(response, tmp_path)
    files, lines = _weigh(tmp_path / "streams_binding")
    assert files <= MAX_FILES and lines <= MAX_LINES_ANY_SERVICE, (files, lines)


def test_a_service_without_the_a2a_profile_gets_its_tables_alone() -> None:
    response, _ = run_plugin(PROTO / "features" / "tenancy.proto")
    assert response.error == ""
    names = sorted(f.name.partition("/")[2] for f in response.file)
    assert names == [
        "__init__.py",
        "_compiling.py",
        "_json.py",
        "_jsonrpc.py",
        "_paths.py",
        "_query.py",
        "_quoting.py",
        "_sse.py",
        "_validate.py",
        "jsonrpc.py",
        "messages.py",
        "py.typed",
        "query.py",
        "routes.py",
    ]
    served, _ = run_plugin(PROTO / "features" / "tenancy.proto", "serve=true")
    assert {"handler.py", "asgi.py"} <= {f.name.partition("/")[2] for f in served.file}
    assert "protocol.py" not in {f.name.partition("/")[2] for f in served.file}


LAYER_OPTIONS = ("", "serve=true", "client=true", "grpc=true", "serve=true,client=true")


@pytest.mark.parametrize("options", LAYER_OPTIONS)
@pytest.mark.parametrize("v0_3", [False, True], ids=["1.0", "with-0.3"])
def test_each_layer_carries_the_runtime_it_imports(options: str, v0_3: bool) -> None:
    """The runtime folders a package carries whole hold every module its modules
    import, whatever the layers asked for: nothing is missing at import time."""
    request = request_from_module(parameter=options)
    if v0_3:
        request = with_v0_3(request, request_from_module(V0_3_MODULE))
    response = generate(request)
    assert response.error == ""
    files = {f.name.partition("/")[2]: f.content for f in response.file}
    for name, content in files.items():
        if not name.endswith(".py"):
            continue
        folder = PurePosixPath(name).parent
        for node in ast.walk(ast.parse(content)):
            if isinstance(node, ast.ImportFrom) and node.level and node.module:
                base = folder
                for _ in range(node.level - 1):
                    base = base.parent
                target = base / (node.module.replace(".", "/") + ".py")
                package = base / node.module.replace(".", "/") / "__init__.py"
                assert (
                    str(target).lstrip("./") in files
                    or str(package).lstrip("./") in files
                ), f"{name} imports {node.module}, which the package lacks"


def test_a_service_without_the_a2a_profile_carries_no_a2a_error_table() -> None:
    response, _ = run_plugin(PROTO / "features" / "tenancy.proto")
    assert "_errors.py" not in {f.name.partition("/")[2] for f in response.file}
    served, _ = run_plugin(PROTO / "features" / "tenancy.proto", "serve=true")
    assert "_errors.py" in {f.name.partition("/")[2] for f in served.file}

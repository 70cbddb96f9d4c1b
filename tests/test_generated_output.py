"""The generated package as users vendor it: fresh, typed, stdlib-only, formatted."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import black
import pytest

from codegen import __version__
from codegen.inputs import V0_3_MODULE, request_from_module, with_v0_3
from codegen.model import descriptor_sha256
from codegen.plugin import generate

from .conftest import (
    GENERATED,
    PROTO,
    ROOT,
    black_has_seen,
    mypy_strict,
    run_plugin,
    spec_proto,
)

STDLIB = set(sys.stdlib_module_names)
# The exceptions, written only with grpc=true (the gRPC binding's runtime) and
# translate=true (the HTTP backend's).
GRPC_IMPORTS = {
    "_grpc.py": {"grpc", "google"},
    "_proto.py": {"google"},
    "_http_backend.py": {"httpx"},
}


def _write(response, out: Path) -> Path:  # type: ignore[no-untyped-def]
    for file in response.file:
        (out / file.name).parent.mkdir(parents=True, exist_ok=True)
        (out / file.name).write_text(file.content)
    return out


def test_committed_generated_is_what_make_generate_writes() -> None:
    response = generate(
        with_v0_3(
            request_from_module(
                parameter="module=a2a_binding,serve=true,client=true,openapi=true,grpc=true,"
                "translate=true"
            ),
            request_from_module(V0_3_MODULE),
        )
    )
    assert not response.error
    expected = {f.name: f.content for f in response.file}
    on_disk = {
        p.relative_to(GENERATED).as_posix(): p.read_text()
        for p in sorted((GENERATED / "a2a_binding").rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert (
        on_disk == expected
    ), "generated/ is stale: run `make generate` and commit the result"


def _outputs(tmp_path: Path) -> list[Path]:
    """Packages generated from every kind of input the tests have."""
    packages = [GENERATED / "a2a_binding"]
    for proto, parameter in [
        (PROTO / "features" / "library.proto", ""),
        (PROTO / "features" / "tenancy.proto", "tenant_field=tenant"),
        (PROTO / "features" / "legacy.proto", ""),
        (PROTO / "features" / "editions.proto", ""),
        (PROTO / "features" / "scalars.proto", ""),
        (PROTO / "features" / "keywords.proto", ""),
        (PROTO / "features" / "bodies.proto", ""),
    ]:
        response, _ = run_plugin(proto, parameter)
        assert not response.error, response.error
        _write(response, tmp_path)
        packages.append(tmp_path / response.file[0].name.split("/")[0])
    return packages


def test_generated_code_passes_mypy_strict(tmp_path: Path) -> None:
    packages = _outputs(tmp_path)
    for package in packages:
        result = mypy_strict(
            [package.name], cache=tmp_path / ".mypy", cwd=package.parent
        )
        assert (
            result.returncode == 0
        ), f"{package.name}:\n{result.stdout}{result.stderr}"


def test_generated_code_has_no_unused_name_or_import(tmp_path: Path) -> None:
    """pyflakes over every package: nothing imported or assigned that is not used
    (a template printing an import for a case the input lacks, say)."""
    packages = _outputs(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "pyflakes", *map(str, packages)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_generated_code_imports_only_the_standard_library(tmp_path: Path) -> None:
    for package in _outputs(tmp_path):
        for module in package.glob("*.py"):
            tree = ast.parse(module.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module or ""]
                else:
                    continue
                allowed = STDLIB | GRPC_IMPORTS.get(module.name, set())
                for name in names:
                    assert name.split(".")[0] in allowed, f"{module}: imports {name}"


def test_generated_code_is_black_formatted_and_documented(tmp_path: Path) -> None:
    for package in _outputs(tmp_path):
        assert (package / "py.typed").is_file()
        headers_seen: set[str] = set()
        for module in sorted(package.glob("*.py")):
            source = module.read_text()
            if not black_has_seen(module.name, source, headers_seen):
                assert black.format_str(source, mode=black.Mode()) == source, module
            tree = ast.parse(source)
            assert ast.get_docstring(tree), f"{module} has no module docstring"
            for node in tree.body:
                if not isinstance(
                    node, (ast.FunctionDef, ast.ClassDef)
                ) or node.name.startswith("_"):
                    continue
                overload = any(
                    getattr(d, "id", None) == "overload" for d in node.decorator_list
                )
                assert overload or ast.get_docstring(
                    node
                ), f"{module}: {node.name} has no docstring"


def test_header_names_generator_source_and_descriptor_hash() -> None:
    request = request_from_module(parameter="module=a2a_binding")
    target = next(f for f in request.proto_file if f.name == "a2a.proto")
    header = (GENERATED / "a2a_binding" / "routes.py").read_text().splitlines()[:4]
    assert header[0] == f"# Generated by protoc-gen-a2a {__version__}. DO NOT EDIT."
    # Line 2 is fixed text: PEP 263 reads an encoding declaration from lines 1 and 2 only.
    assert (
        header[1] == "# Regenerate this package from its proto rather than editing it."
    )
    assert header[2] == "# source: a2a.proto (package lf.a2a.v1)"
    assert header[3] == f"# descriptor sha256: {descriptor_sha256(target)}"


def test_comments_become_documentation_and_do_not_change_the_hash(
    tmp_path: Path,
) -> None:
    # v1.0.0 and v1.0.1 differ only in comments: the descriptor hash must be the same.
    old, _ = run_plugin(spec_proto("v1.0.0"))
    new, _ = run_plugin(spec_proto("v1.0.1"))
    old_routes = next(f.content for f in old.file if f.name.endswith("routes.py"))
    new_routes = next(f.content for f in new.file if f.name.endswith("routes.py"))
    assert old_routes.splitlines()[3] == new_routes.splitlines()[3]
    assert "# Gets the latest state of a task." in new_routes
    assert "api-linter" not in new_routes  # (-- internal --) comment blocks are dropped
    # so are the lines for linters and editors (protolint directives, "Next ID: 20")
    old_messages = next(f.content for f in old.file if f.name.endswith("messages.py"))
    assert "protolint" not in old_messages and "Next ID" not in old_messages
    assert "# The set of interaction modes that the agent supports" in old_messages
    library, _ = run_plugin(PROTO / "features" / "library.proto")
    routes = next(f.content for f in library.file if f.name.endswith("routes.py"))
    assert "LibraryService: Books on shelves." in routes
    assert "# Gets one book." in routes


def test_generation_is_deterministic_across_processes(tmp_path: Path) -> None:
    script = (
        "import sys; from codegen.inputs import V0_3_MODULE, request_from_module, with_v0_3; from codegen.plugin import generate;"
        "sys.stdout.buffer.write(generate(request_from_module()).SerializeToString(deterministic=True))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            timeout=120,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1 and len(next(iter(outputs))) > 1000


@pytest.mark.parametrize("tag", ["v0.3.0", "v1.0.0-rc"])
def test_older_upstream_protos_give_working_tables(tag: str, load_package) -> None:  # type: ignore[no-untyped-def]
    package = load_package(spec_proto(tag))
    if tag == "v0.3.0":
        found = package.routes.match("GET", "/v1/tasks/abc")
        assert found.route.rpc == "GetTask" and found.params == {"name": "tasks/abc"}
        built = package.routes.build(
            "GetTaskPushNotificationConfig",
            {"name": "tasks/t 1/pushNotificationConfigs/c"},
        )
        assert built.path == "/v1/tasks/t%201/pushNotificationConfigs/c"
        create = package.routes.build(
            "CreateTaskPushNotificationConfig",
            {
                "parent": "task/t/pushNotificationConfigs",
                "config": {"url": "u"},
                "configId": "c",
            },
        )
        assert (create.body, create.query) == ({"url": "u"}, [("configId", "c")])
    else:
        found = package.routes.match("GET", "/t1/tasks/abc/pushNotificationConfigs")
        assert found.route.rpc == "ListTaskPushNotificationConfig"


def test_the_generator_itself_passes_mypy_strict(tmp_path: Path) -> None:
    root = GENERATED.parent
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy"),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_runtime_is_black_clean_and_shipped_unchanged() -> None:
    """The runtime needs no formatting pass at generation time: it is black-clean here,
    and each package carries it byte for byte under the generated header."""
    from codegen.render import runtime_files
    from codegen.runtime import LAYERS

    from .test_layout import MODE as _BLACK_MODE

    runtime = runtime_files(LAYERS)
    package = GENERATED / "a2a_binding"
    shipped = sorted(p.name for p in package.glob("_*.py") if p.name != "__init__.py")
    assert shipped == sorted(runtime)
    for module in shipped:
        source = runtime[module].read_text()
        assert black.format_str(source, mode=_BLACK_MODE) == source, module
        generated = (GENERATED / "a2a_binding" / module).read_text()
        header = (
            (GENERATED / "a2a_binding" / "routes.py").read_text().split('"""', 1)[0]
        )
        assert generated == header + source, f"{module} is not the runtime as it is"


def test_every_committed_module_is_black_formatted() -> None:
    """Generation lays code out itself (``codegen.layout``); black agrees with it."""
    from .test_layout import black_of

    modules = sorted((GENERATED / "a2a_binding").glob("*.py"))
    assert len(modules) > 10
    for module in modules:
        source = module.read_text()
        assert black_of(source) == source, module.name


def test_the_repository_is_black_clean_as_its_config_says() -> None:
    """``[tool.black]`` covers the tests, benches, examples and conformance runner as
    well as codegen/: ``black --check`` finds nothing to change in them."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "black",
            "--check",
            "--quiet",
            "codegen",
            "tests",
            "bench",
            "examples",
            "conformance",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]

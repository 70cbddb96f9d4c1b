"""The docs' wheel install, in a fresh venv: the package is ``protoc_gen_a2a`` (never a
top-level ``codegen``), templates ship inside, both scripts and ``python -m`` work, and
the embedded A2A default names the extra it needs until that extra is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import venv
import zipfile
from pathlib import Path

from codegen.inputs import include_paths

from .conftest import ROOT
from .docs import block


def source_copy(target: Path) -> Path:
    """The checkout's files (tracked and untracked, not ignored), as a fresh clone has."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
            timeout=60,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


def bash(script: str, cwd: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    """Run the docs' commands as a user would, with ``bin_dir`` first on PATH."""
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "VIRTUAL_ENV": str(bin_dir.parent),
    }
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_wheel_from_the_docs_installs_a_working_plugin(
    tmp_path: Path, sdk_a2a: Path
) -> None:
    proto = sdk_a2a
    clone = source_copy(tmp_path / "clone")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    build_line, install_line = block("wheel-install").strip().splitlines()
    built = bash(build_line, clone, bin_dir)
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next((clone / "dist").glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        top = {name.split("/")[0] for name in archive.namelist()}
        names = set(archive.namelist())
    assert top == {
        "protoc_gen_a2a",
        f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info",
    }
    assert (
        "protoc_gen_a2a/templates/routes.py.j2" in names
        and "protoc_gen_a2a/__main__.py" in names
    )

    # First without the extra: everything but the embedded default works.
    plain = subprocess.run(
        [str(bin_dir / "pip"), "install", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert plain.returncode == 0, plain.stdout + plain.stderr
    python = bin_dir / "python"
    outside = tmp_path / "elsewhere"  # nothing may come from the checkout
    outside.mkdir()
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args),
            capture_output=True,
            text=True,
            timeout=300,
            cwd=outside,
            env=env,
            stdin=subprocess.DEVNULL,
        )

    assert (
        run(str(python), "-c", "import codegen").returncode != 0
    )  # no generic top-level name
    assert run(str(bin_dir / "protoc-gen-a2a"), "--version").stdout.startswith(
        "protoc-gen-a2a "
    )
    assert "generate" in run(str(bin_dir / "a2a-codegen"), "--help").stdout
    module = run(str(python), "-m", "protoc_gen_a2a", "--version")
    assert module.returncode == 0 and "0." in module.stdout
    out = tmp_path / "out"
    out.mkdir()
    generated = run(
        str(python),
        "-m",
        "grpc_tools.protoc",
        f"-I{proto.parent}",
        *[f"-I{p}" for p in include_paths_of(python)],
        f"--plugin=protoc-gen-a2a={bin_dir / 'protoc-gen-a2a'}",
        f"--a2a_out={out}",
        "a2a.proto",
    )
    assert generated.returncode == 0, generated.stderr
    assert {
        "__init__.py",
        "routes.py",
        "query.py",
        "jsonrpc.py",
        "messages.py",
        "py.typed",
    } <= {p.name for p in (out / "a2a_binding").iterdir()}
    no_extra = run(
        str(bin_dir / "a2a-codegen"), "generate", "-o", str(tmp_path / "default")
    )
    assert no_extra.returncode == 1
    assert (
        "pip install 'protoc-gen-a2a[a2a]'" in no_extra.stderr
        and "Traceback" not in no_extra.stderr
    )

    # Then the docs' line, with the extra: the embedded default generates.
    extra = bash(install_line, clone, bin_dir)
    assert extra.returncode == 0, extra.stdout + extra.stderr
    default = run(
        str(bin_dir / "a2a-codegen"), "generate", "-o", str(tmp_path / "default")
    )
    assert default.returncode == 0, default.stderr
    assert (tmp_path / "default" / "a2a_binding" / "routes.py").is_file()
    # The reviewed A2A overlaps ship in the wheel: the embedded default is quiet.
    assert "warning" not in default.stderr, default.stderr
    printed = run(str(bin_dir / "a2a-codegen"), "a2a-overlaps")
    assert (
        printed.returncode == 0
        and "GET /tasks/{id=*} and GET /{tenant}/tasks" in printed.stdout
    )


def include_paths_of(python: Path) -> list[str]:
    """``include_paths()`` as the venv's own interpreter sees it."""
    script = "from protoc_gen_a2a.inputs import include_paths; print('\\n'.join(include_paths()))"
    found = subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, timeout=60, cwd="/"
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() != include_paths()  # the venv's copies, not the test's
    return found.stdout.split()

"""The plugin from a built wheel in a fresh venv: templates ship inside the wheel."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

from codegen.inputs import include_paths

from .conftest import ROOT, spec_proto


def test_wheel_installs_a_working_protoc_plugin(tmp_path: Path) -> None:
    proto = spec_proto("v1.0.1")
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    wheel = next(dist.glob("*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(wheel)], capture_output=True, text=True, timeout=600
    )
    assert install.returncode == 0, install.stdout + install.stderr
    plugin = env_dir / "bin" / "protoc-gen-a2a"
    assert plugin.is_file()
    out = tmp_path / "out"
    out.mkdir()
    # Run from an unrelated folder so nothing can come from the source checkout.
    result = subprocess.run(
        [str(python), "-m", "grpc_tools.protoc", f"-I{proto.parent}", *[f"-I{p}" for p in include_paths()],
         f"--plugin=protoc-gen-a2a={plugin}", f"--a2a_out={out}", "a2a.proto"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in (out / "a2a_binding").iterdir())
    assert names == ["__init__.py", "jsonrpc.py", "messages.py", "py.typed", "query.py", "routes.py"]
    cli = subprocess.run([str(env_dir / "bin" / "a2a-codegen"), "--help"], capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0 and "generate" in cli.stdout

"""What a new user meets first, run as written: the README's install from a clone and
its quick start, in a fresh venv; and its pre-commit configuration on a repository of
its own."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .docs import block
from .sdk_protos import sdk_proto
from .test_wheel import bash, source_copy


def test_install_from_a_clone_and_the_quick_start(tmp_path: Path) -> None:
    clone = source_copy(tmp_path / "clone")
    # The README's python3 is whatever is on PATH; make it this interpreter's base.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(Path(sys.base_prefix) / "bin" / "python3")
    installed = bash(block("install"), clone, bin_dir)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert installed.stdout.splitlines()[-1].startswith(
        "protoc-gen-a2a "
    ), installed.stdout
    quick = bash(block("quick-start"), clone, bin_dir)
    assert quick.returncode == 0, quick.stdout + quick.stderr
    assert (clone / "out" / "a2a_binding" / "routes.py").is_file()
    assert f"{'out'} is up to date" in quick.stderr
    assert "a2a_binding (a2a.proto): 24 routes" in quick.stdout
    assert max(len(line) for line in quick.stdout.splitlines()) <= 100
    # The editable install runs the clone's code under the installed name.
    module = subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-m", "protoc_gen_a2a", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert module.returncode == 0, module.stderr


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=60,
    )


def test_pre_commit_hook_checks_the_generated_package(tmp_path: Path) -> None:
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    if pre_commit is None:
        pytest.skip(
            "pre-commit is not installed next to the test interpreter (a dev dependency)"
        )
    # The hook repository: this checkout as committed in a clone of its own.
    hooks = source_copy(tmp_path / "hooks")
    _git(hooks, "init", "-q")
    _git(hooks, "add", "-A")
    _git(hooks, "commit", "-q", "-m", "hooks")
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"],
        cwd=hooks,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # A user's repository with a proto (the A2A proto a2a-sdk ships, written out),
    # its committed output and the README's configuration.
    user = tmp_path / "user"
    sdk_proto(user / "spec", "1.0")
    config = block("pre-commit-config")
    listed = re.search(r"args: \[(.*)\]", config)
    assert listed is not None, config
    args = [a.strip() for a in listed.group(1).split(",")]
    cli = shutil.which("a2a-codegen", path=str(Path(sys.executable).parent))
    assert cli
    subprocess.run(
        [cli, "generate", *args], cwd=user, check=True, capture_output=True, timeout=300
    )
    (user / ".pre-commit-config.yaml").write_text(
        config.replace("<URL or path of this repository>", str(hooks)).replace(
            "<commit or tag>", rev
        )
    )
    _git(user, "init", "-q")
    _git(user, "add", "-A")
    _git(user, "commit", "-q", "-m", "user")
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
    }

    def hook() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [pre_commit, "run", "--all-files"],
            cwd=user,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )

    fresh = hook()
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert "a2a-codegen check" in fresh.stdout and "Passed" in fresh.stdout
    routes = user / "src" / "vendor" / "a2a_binding" / "routes.py"
    routes.write_text(routes.read_text() + "# edited by hand\n")
    stale = hook()
    assert stale.returncode == 1
    assert "src/vendor/a2a_binding/routes.py: differs" in stale.stdout
    assert "-# edited by hand" in stale.stdout

"""What a new user meets first, run as written: the README's install from a clone and
its quick start, in a fresh venv; and the pre-commit hook on a repository of its own."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import spec_proto
from .test_wheel import bash, readme_block, source_copy


def test_install_from_a_clone_and_the_quick_start(tmp_path: Path) -> None:
    clone = source_copy(tmp_path / "clone")
    # The README's python3 is whatever is on PATH; make it this interpreter's base.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(Path(sys.base_prefix) / "bin" / "python3")
    installed = bash(readme_block("From a clone"), clone, bin_dir)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert installed.stdout.splitlines()[-1].startswith(
        "protoc-gen-a2a "
    ), installed.stdout
    quick = bash(readme_block("## Quick start"), clone, bin_dir)
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
    proto = spec_proto("v1.0.1")
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
    # A user's repository with a proto and its committed output.
    user = tmp_path / "user"
    (user / "spec").mkdir(parents=True)
    shutil.copy(proto, user / "spec" / "a2a.proto")
    cli = shutil.which("a2a-codegen", path=str(Path(sys.executable).parent))
    assert cli
    args = ["spec/a2a.proto", "-o", "src/vendor", "--module", "a2a_binding"]
    subprocess.run(
        [cli, "generate", *args], cwd=user, check=True, capture_output=True, timeout=300
    )
    (user / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n      - id: a2a-codegen-check\n"
        f"        args: [{', '.join(args)}]\n"
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

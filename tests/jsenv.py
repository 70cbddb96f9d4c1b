"""The JavaScript side of the interop tests: node, and @a2a-js/sdk installed once.

``install()`` copies ``tests/js/`` (package.json, package-lock.json, the scripts) into
``.cache/js/<lock hash>/`` and runs ``npm ci`` there on first use, so the repository
tree never holds a node_modules folder and a changed lockfile gets a fresh install.
Tests skip, saying why, where node or npm is missing or too old; under ``CI=true`` they
fail instead, so a CI run never passes without the JS side.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, NoReturn

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "tests" / "js"
CACHE = ROOT / ".cache" / "js"
NODE_MAJOR = 20  # @a2a-js/sdk 1.3.0 declares engines.node >= 20
INSTALL_TIMEOUT = 600.0


def _unavailable(reason: str) -> NoReturn:
    """Skips the calling test, or fails it under ``CI=true`` (CI must run it)."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI=true: {reason}")
    pytest.skip(reason)


def node() -> str:
    """The node executable; skips the calling test when there is none or it is too old."""
    found = shutil.which("node")
    if found is None:
        _unavailable(
            "node is not on PATH: the @a2a-js/sdk interop tests need Node >= 20"
        )
    version = subprocess.run(
        [found, "--version"], capture_output=True, text=True, check=True
    )
    major = int(version.stdout.strip().lstrip("v").split(".")[0])
    if major < NODE_MAJOR:
        _unavailable(
            f"node {version.stdout.strip()} is older than the {NODE_MAJOR} @a2a-js/sdk needs"
        )
    return found


def _lock_hash() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((SOURCES / name).read_bytes())
    return digest.hexdigest()[:16]


@contextmanager
def _locked(path: Path) -> Iterator[IO[str]]:
    """An exclusive lock, so parallel test processes install once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield handle
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def install() -> Path:
    """The folder holding the JS scripts and their node_modules, installed if needed."""
    node()
    npm = shutil.which("npm")
    if npm is None:
        _unavailable(
            "npm is not on PATH: it installs @a2a-js/sdk for the interop tests"
        )
    folder = CACHE / _lock_hash()
    with _locked(CACHE / ".install.lock"):
        if not (folder / "node_modules" / ".installed").is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            for name in ("package.json", "package-lock.json", ".npmrc"):
                shutil.copy2(SOURCES / name, folder / name)
            result = subprocess.run(
                [
                    npm,
                    "ci",
                    "--no-audit",
                    "--no-fund",
                    "--ignore-scripts",
                    "--loglevel=error",
                ],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
                env={**os.environ, "npm_config_update_notifier": "false"},
            )
            if result.returncode != 0:
                pytest.fail(
                    f"npm ci in {folder} failed ({result.returncode}):\n{result.stderr[-4000:]}"
                )
            (folder / "node_modules" / ".installed").write_text(
                json.dumps({"lock": _lock_hash()})
            )
        # The scripts are copied on every run so an edit to them needs no reinstall;
        # node resolves packages from the script's own folder, hence the copy.
        for script in SOURCES.glob("*.mjs"):
            shutil.copy2(script, folder / script.name)
    return folder


def run_script(
    folder: Path, script: str, config: object, timeout: float = 30.0
) -> dict[str, Any]:
    """Runs one of the tests/js scripts from ``install()``'s folder with ``config`` as
    its JSON argument; the one JSON object it prints. Fails the test, with node's
    stderr, when the script exits non-zero or prints nothing."""
    done = subprocess.run(
        [node(), str(folder / script), json.dumps(config)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert (
        done.returncode == 0 and done.stdout
    ), f"{script} failed ({done.returncode}):\n{done.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result

"""The A2A 0.3 side of the tests: a2a-sdk 0.3.26 in a venv of its own (``.venv-v0_3``,
made by ``make test``'s install step: it cannot share one with a2a-sdk 1.3.0), and its
own servers started from it as subprocesses on loopback.

Tests skip, saying why, where that venv is missing; under CI (``CI=true``) they fail
instead, since ``make`` installs it there.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv-v0_3"
SCRIPTS = ROOT / "tests" / "v0_3"
START_TIMEOUT = 30.0


def python() -> str:
    """The 0.3 venv's python; skips the calling test (fails it under CI) without it."""
    executable = VENV / "bin" / "python"
    if not (VENV / ".installed").is_file() or not executable.is_file():
        reason = (
            "the a2a-sdk 0.3.26 venv .venv-v0_3 is not installed "
            "(make .venv-v0_3/.installed makes it; make test does)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return str(executable)


def run(
    script: str, stdin: str, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """Run ``tests/v0_3/<script>`` in the 0.3 venv with ``stdin``."""
    return subprocess.run(
        [python(), str(SCRIPTS / script)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=SCRIPTS,
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def sdk_agent(kind: str) -> Iterator[str]:
    """a2a-sdk 0.3.26's own ``kind`` ("jsonrpc" or "rest") server over
    ``tests/v0_3/sdk_agent.py``, on 127.0.0.1; yields its base URL (no trailing
    ``/``) once its agent card answers, and stops it after."""
    port = _free_port()
    process = subprocess.Popen(
        [python(), str(SCRIPTS / "sdk_agent.py"), kind, str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=SCRIPTS,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                _, err = process.communicate()
                raise RuntimeError(f"the 0.3 agent exited: {err.decode()[-2000:]}")
            try:
                if httpx.get(base + "/.well-known/agent-card.json").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the 0.3 agent did not start")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()

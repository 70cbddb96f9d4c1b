"""The generated package is stdlib-only Python 3.10+: run it under every CPython 3.10+
this machine has, not only the one running the tests."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys

import pytest

from .conftest import GENERATED

SMOKE = """
from a2a_binding import jsonrpc, messages, query, routes
route, request = routes.transcode(
    "GET", "/t1/tasks", "status=TASK_STATE_WORKING&pageSize=5&statusTimestampAfter=2025-11-09T10:30:00%2B01:00"
)
assert (route.rpc, request) == ("ListTasks", {
    "status": "TASK_STATE_WORKING", "pageSize": 5, "statusTimestampAfter": "2025-11-09T09:30:00Z", "tenant": "t1"})
assert routes.build("GetTask", {"id": "a/b"}, tenant="t 1").path == "/t%201/tasks/a%2Fb"
assert routes.match("GET", "/tasks/") is None and routes.allowed_verbs("/tasks/x:cancel") == {"POST"}
assert jsonrpc.parse_request(b'{"jsonrpc":"2.0","id":1,"method":"GetTask"}', tenant="t1").params == {"tenant": "t1"}
try:
    query.decode("ListTasks", "pageSize=1.5")
except query.QueryError as error:
    assert error.field == "pageSize"
else:
    raise AssertionError("no QueryError")
"""


def _interpreters() -> list[str]:
    found = {os.path.realpath(sys.executable)}
    candidates = [shutil.which(f"python3.{minor}") for minor in range(10, 16)]
    candidates += glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3"))
    usable = []
    for candidate in filter(None, candidates):
        real = os.path.realpath(candidate)
        if real in found:
            continue
        version = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info >= (3, 10))"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if version.returncode == 0 and version.stdout.strip() == "True":
            found.add(real)
            usable.append(candidate)
    return sorted(usable)


INTERPRETERS = _interpreters()


@pytest.mark.skipif(not INTERPRETERS, reason="no other CPython 3.10+ on this machine")
@pytest.mark.parametrize("python", INTERPRETERS)
def test_generated_package_runs_on_other_pythons(python: str) -> None:
    result = subprocess.run(
        [python, "-c", SMOKE],
        cwd=GENERATED,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert result.returncode == 0, result.stderr

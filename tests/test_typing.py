"""The generated Literal overloads let mypy --strict catch wrong request shapes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .conftest import GENERATED, mypy_strict

GOOD = """
from a2a_binding import jsonrpc, query, routes

built = routes.build("GetTask", {"id": "x", "historyLength": 2})
listed = routes.build("ListTasks", {"status": "TASK_STATE_WORKING", "pageSize": 5}, tenant="t1")
decoded = query.decode("ListTasks", "pageSize=5")
size: int = decoded.get("pageSize", 0)
pairs = query.encode("GetTask", {"historyLength": 1})
path, envelope = jsonrpc.request("CancelTask", {"id": "x"}, 1)

import httpx  # HttpRequest.query passes as httpx's params as it is

httpx.Request(built.verb, "http://agent" + built.path, params=built.query)

# Code that holds the rpc name in a variable dispatches with dynamic=True, no ignore.
from typing import Any

from a2a_binding import client


def dispatch(rpc: routes.RpcName, request: dict[str, Any]) -> None:
    routes.build(rpc, request, dynamic=True)
    jsonrpc.request(rpc, request, 1, dynamic=True)
    query.decode(rpc, "", dynamic=True)
    client.prepare(rpc, request, base_url="http://agent", dynamic=True)
"""

BAD = """
from a2a_binding import jsonrpc, messages, query, routes

routes.build("GetTask", {"taskId": "x"})
routes.build("ListTasks", {"status": "WORKING"})
routes.build("NoSuchRpc", {})
decoded = query.decode("ListTasks", "")
text: str = decoded["pageSize"]
jsonrpc.request("GetTask", {"taskId": "x"}, 1)
request: messages.GetTaskRequest = {"taskId": "x"}
routes.build("GetTask", {})
message: messages.Message = {"messageId": "m", "parts": [{"text": "hi"}]}
from a2a_binding import client
client.prepare("GetTask", {"taskId": "x"}, base_url="http://agent")
def dispatch(rpc: routes.RpcName) -> None:
    routes.build(rpc, {})
"""


def _mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(source)
    return mypy_strict(
        [snippet], cache=tmp_path / ".mypy", cwd=GENERATED, mypypath=GENERATED
    )


def test_mypy_accepts_well_typed_calls(tmp_path: Path) -> None:
    result = _mypy(tmp_path, GOOD)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_rejects_wrong_requests(tmp_path: Path) -> None:
    result = _mypy(tmp_path, BAD)
    assert result.returncode == 1
    out = result.stdout
    lines = {int(line.split(":")[1]) for line in out.splitlines() if ": error:" in line}
    # 14: a literal rpc with a wrong request fails in client.prepare too; 16: a variable
    # rpc name needs dynamic=True.
    assert lines == {4, 5, 6, 8, 9, 10, 11, 12, 14, 16}, out
    assert (
        '4: error: No overload variant of "build" matches argument types "str", "dict[str, str]"'
        in out
    )
    assert '9: error: No overload variant of "request" matches' in out
    assert (
        '8: error: Incompatible types in assignment (expression has type "int", variable has type "str")'
        in out
    )
    assert '10: error: Extra key "taskId" for TypedDict "GetTaskRequest"' in out
    # REQUIRED fields and path-bound fields are required keys: missing ones are errors.
    assert '11: error: No overload variant of "build" matches' in out
    assert '12: error: Missing key "role" for TypedDict "Message"' in out

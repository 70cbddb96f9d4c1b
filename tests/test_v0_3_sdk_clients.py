"""a2a-sdk 0.3.26's own clients (JSON-RPC and REST, from its ``ClientFactory`` reading
the card) against the example server, which serves 0.3 beside 1.0 from its one 1.0
handler: every 0.3 operation, both streams, errors, the card. The clients run in the
0.3 venv (``tests/v0_3_env.py``), the example under uvicorn on loopback; every answer
was parsed by a2a-sdk 0.3.26's own types before it reached the report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests import v0_3_env
from tests.servers import running

TOKEN = "v0-3-token"


@pytest.fixture(scope="module")
def example(example_module: ModuleType) -> Iterator[str]:
    with running(example_module.create_app(token=TOKEN)) as base:
        yield base


def _report(base: str, transport: str) -> dict[str, Any]:
    given = json.dumps({"base": base, "token": TOKEN, "transport": transport})
    done = v0_3_env.run("sdk_clients.py", given)
    assert done.returncode == 0, done.stderr[-4000:]
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.mark.parametrize("transport", ["jsonrpc", "rest"])
def test_every_0_3_operation_through_a2a_sdk_0_3_clients(
    example: str, transport: str
) -> None:
    report = _report(example, transport)
    card = report["card"]
    assert card["protocolVersion"].startswith("0.3")
    assert {
        card["preferredTransport"],
        *(i["transport"] for i in card.get("additionalInterfaces", [])),
    } >= {"JSONRPC", "HTTP+JSON"}
    assert report["extended_card"]["name"] == card["name"]

    (sent,) = report["send"]
    task = sent["task"]
    assert task["kind"] == "task" and task["status"]["state"] == "completed"
    assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "hi"}]
    assert task["history"][0]["role"] == "user"

    stream = report["stream"]
    updates = [e["update"] for e in stream if e.get("update")]
    assert stream[0]["task"]["status"]["state"] in ("submitted", "working")
    assert updates and updates[-1]["kind"] == "status-update"
    assert updates[-1]["final"] is True
    assert updates[-1]["status"]["state"] == "completed"
    assert all(
        u["final"] is False for u in updates[:-1] if u["kind"] == "status-update"
    )

    held = report["held"][0]["task"]
    assert held["status"]["state"] == "working"
    assert report["get"]["id"] == held["id"]
    assert len(report["get"]["history"]) == 1
    assert report["cancel"]["status"]["state"] == "canceled"
    resubscribed = report["resubscribe"]
    assert resubscribed[0]["task"]["id"] == held["id"]
    last = resubscribed[-1]["update"]
    assert last["final"] is True and last["status"]["state"] == "canceled"

    config = report["set_config"]
    assert config["taskId"] == held["id"]
    assert config["pushNotificationConfig"]["url"] == "http://127.0.0.1:9/hook"
    assert config["pushNotificationConfig"]["id"] == "cfg-1"
    assert report["get_config"] == config
    if transport == "jsonrpc":
        assert report["list_configs"]["result"] == [config]
        assert report["delete_config"] == {"jsonrpc": "2.0", "id": 2, "result": None}

    missing = report["not_found"]
    if transport == "jsonrpc":
        assert missing["jsonrpc"]["code"] == -32001
    else:
        assert missing["http"] == 404

"""``a2a-codegen gateway`` (issue 26, item 3): the command run as a user runs it, in a
process of its own, in front of a2a-sdk 1.3.0's gRPC agent (tests/test_gateway.py),
reached by a2a-sdk's clients through the card it serves; and its refusals."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.types import a2a_pb2 as pb
from a2a.utils import errors
from google.protobuf import json_format

from codegen.gateway import card_rewriter

from .conftest import spec_proto
from .test_gateway import SdkAgent
from .test_interop import _message

CLI = [sys.executable, "-c", "from codegen.cli import main; main()"]
CARD = {
    "name": "behind-the-cli-gateway",
    "version": "1",
    "capabilities": {"streaming": True},
    "supportedInterfaces": [
        {
            "url": "grpc://agent.internal:50051",
            "protocolBinding": "GRPC",
            "protocolVersion": "1.0",
        },
        {
            "url": "https://old.example/rpc",
            "protocolBinding": "JSONRPC",
            "protocolVersion": "1.0",
            "tenant": "t",
        },
    ],
}


@pytest.fixture(scope="module")
def agent() -> Iterator[SdkAgent]:
    with SdkAgent() as served:
        yield served


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def gateway_process(*args: str, cwd: Path) -> Iterator[str]:
    """``a2a-codegen gateway ARGS --port P`` until its card answers; its base URL."""
    port = _free_port()
    process = subprocess.Popen(
        [*CLI, "gateway", *args, "--port", str(port)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.communicate()[1]
            try:
                httpx.get(f"{base}/.well-known/agent-card.json", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the gateway did not start"
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(30)


def _through(base: str) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The served card, and per binding what a2a-sdk's client dialled from it got."""
    card_json = httpx.get(f"{base}/.well-known/agent-card.json", timeout=10).json()
    card = json_format.ParseDict(card_json, pb.AgentCard(), ignore_unknown_fields=True)

    async def scenario(binding: str) -> list[str]:
        async with httpx.AsyncClient(timeout=20) as http:
            client = ClientFactory(
                ClientConfig(
                    streaming=True,
                    supported_protocol_bindings=[binding],
                    httpx_client=http,
                )
            ).create(card)
            try:
                kinds = [
                    e.WhichOneof("payload")
                    async for e in client.send_message(
                        pb.SendMessageRequest(message=_message("through the cli"))
                    )
                ]
                with pytest.raises(errors.TaskNotFoundError):
                    await client.get_task(pb.GetTaskRequest(id="no-such-task"))
                return kinds
            finally:
                await client.close()

    return card_json, {
        b: asyncio.run(asyncio.wait_for(scenario(b), 60))
        for b in ("JSONRPC", "HTTP+JSON")
    }


def test_the_gateway_command_over_the_embedded_default(
    agent: SdkAgent, tmp_path: Path
) -> None:
    (tmp_path / "card.json").write_text(json.dumps(CARD))
    with gateway_process(
        "--target",
        agent.target,
        "--card",
        "card.json",
        "--http-json-prefix",
        "/rest",
        "--jsonrpc-path",
        "/rpc",
        cwd=tmp_path,
    ) as base:
        card, kinds = _through(base)
    assert card["supportedInterfaces"] == [
        CARD["supportedInterfaces"][0],  # the agent's own gRPC interface, as written
        {
            **CARD["supportedInterfaces"][1],
            "url": f"{base}/rpc",
        },  # rewritten, its tenant kept
        {
            "url": f"{base}/rest",
            "protocolBinding": "HTTP+JSON",
            "protocolVersion": "1.0",
        },  # added
    ]
    assert kinds["JSONRPC"][0] == kinds["HTTP+JSON"][0] == "task"


def test_the_gateway_command_over_the_upstream_proto(
    agent: SdkAgent, tmp_path: Path
) -> None:
    """A proto input: the package and protoc's ``a2a_pb2`` generated beside it."""
    proto = spec_proto("v1.0.1")
    (tmp_path / "card.json").write_text(json.dumps(CARD))
    with gateway_process(
        str(proto),
        "-I",
        str(proto.parent),
        "--target",
        agent.target,
        "--card",
        "card.json",
        "--public-url",
        "https://gw.example/a2a/",
        cwd=tmp_path,
    ) as base:
        card = httpx.get(f"{base}/.well-known/agent-card.json", timeout=10).json()
        answer = httpx.post(
            f"{base}/message:send",
            timeout=20,
            headers={"A2A-Version": "1.0"},
            json={
                "message": {
                    "messageId": "p1",
                    "role": "ROLE_USER",
                    "parts": [{"text": "hi"}],
                }
            },
        )
    assert [i["url"] for i in card["supportedInterfaces"]] == [
        "grpc://agent.internal:50051",
        "https://gw.example/a2a/",
        "https://gw.example/a2a",
    ]
    assert (
        answer.status_code == 200
        and answer.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    )


@pytest.mark.parametrize(
    ("card", "expected"),
    [
        (None, "cannot read the agent card card.json"),
        ("{", "the agent card card.json is not JSON"),
        ("[]", "the agent card card.json is not a JSON object"),
        ('{"supportedInterfaces": {}}', "supportedInterfaces is not a list of objects"),
    ],
)
def test_the_gateway_command_refuses_a_bad_card_naming_it(
    tmp_path: Path, card: str | None, expected: str
) -> None:
    if card is not None:
        (tmp_path / "card.json").write_text(card)
    done = subprocess.run(
        [*CLI, "gateway", "--target", "127.0.0.1:1", "--card", "card.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and expected in done.stderr, done.stderr
    assert "gateway on" not in done.stderr  # nothing was served


def test_the_card_rewriter_keeps_what_is_not_served() -> None:
    rewrite = card_rewriter({"name": "n"}, [("HTTP+JSON", "/v1")], "1.0")
    assert rewrite("http://h:1") == {
        "name": "n",
        "supportedInterfaces": [
            {
                "url": "http://h:1/v1",
                "protocolBinding": "HTTP+JSON",
                "protocolVersion": "1.0",
            }
        ],
    }
    twice = card_rewriter(
        {
            "supportedInterfaces": [
                {"protocolBinding": "HTTP+JSON", "url": "a"},
                {"protocolBinding": "HTTP+JSON", "url": "b", "tenant": "x"},
            ]
        },
        [("HTTP+JSON", "")],
        "1.0",
        public_url="https://p/",
    )
    assert [i["url"] for i in twice("http://ignored")["supportedInterfaces"]] == [
        "https://p",
        "https://p",
    ]

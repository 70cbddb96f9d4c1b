"""``a2a-codegen gateway --target URL``: the gateway in front of an A2A agent over HTTP,
run as a user runs it, in a process of its own, with real peers on both sides.

1. a2a-sdk 0.3.26's own JSON-RPC server (``tests/v0_3/sdk_agent.py``) behind the
   gateway, reached by a2a-sdk 1.3.0's JSON-RPC, REST and gRPC clients at the
   interfaces the gateway's card lists (send, stream, get, cancel, push configs,
   errors; 0.3 has no ListTasks and no tenants) and by @a2a-js/sdk's client.
2. An a2a-sdk 1.3.0 agent serving HTTP+JSON only behind the gateway, reached by
   a2a-sdk 0.3.26's JSON-RPC and REST clients (``tests/v0_3/sdk_clients.py``) and by
   a2a-sdk 1.3.0's gRPC client, a tenant carried to the agent.
3. What the gateway says at start-up about a target it cannot use: one line naming
   the URL.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc.aio
import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.types import a2a_pb2 as pb
from a2a.utils import errors
from google.protobuf import json_format

from . import jsenv, v0_3_env
from .docs import block
from .servers import running
from .test_gateway_cli import CLI, _docs_args, _temporary, gateway_process

CARD_PATH = "/.well-known/agent-card.json"
NODE_TIMEOUT = 60.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _message(text: str) -> pb.Message:
    return pb.Message(
        message_id=f"m-{text}", role=pb.ROLE_USER, parts=[pb.Part(text=text)]
    )


def _card(base: str) -> pb.AgentCard:
    card_json = httpx.get(base + CARD_PATH, timeout=10).json()
    return json_format.ParseDict(card_json, pb.AgentCard(), ignore_unknown_fields=True)


def _clients(card: pb.AgentCard, binding: str, http: httpx.AsyncClient) -> Any:
    """a2a-sdk 1.3.0's streaming and unary clients for ``binding`` of ``card``."""
    made = [
        ClientFactory(
            ClientConfig(
                streaming=streaming,
                supported_protocol_bindings=[binding],
                httpx_client=http,
                grpc_channel_factory=grpc.aio.insecure_channel,
            )
        ).create(card)
        for streaming in (True, False)
    ]
    return made


async def _first(stream: AsyncIterator[pb.StreamResponse]) -> pb.StreamResponse:
    return await anext(stream)


# ------------------------------------------------- a 0.3 JSON-RPC agent behind it


@pytest.fixture(scope="module")
def behind_0_3(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, int, str]]:
    """The gateway (with gRPC) in front of a2a-sdk 0.3.26's JSON-RPC server, run as
    docs/gateway.md writes the command."""
    cwd = tmp_path_factory.mktemp("gateway-0-3")
    grpc_port = _free_port()
    documented = block("gateway-url-command").strip()
    with v0_3_env.sdk_agent("jsonrpc") as agent:
        args = _docs_args(documented, agent + "/", {"50051": str(grpc_port)})
        assert args == ["--target", agent + "/", "--grpc-port", str(grpc_port)]
        with gateway_process(*args, cwd=cwd) as base:
            yield base, grpc_port, agent


def test_the_card_lists_every_binding_and_both_versions(
    behind_0_3: tuple[str, int, str],
) -> None:
    base, grpc_port, agent = behind_0_3
    card = httpx.get(base + CARD_PATH, timeout=10).json()
    assert card["name"] == "sdk-0.3-agent"  # the agent's own card
    assert card["capabilities"]["streaming"] is True
    host = base.removeprefix("http://").rsplit(":", 1)[0]
    assert card["supportedInterfaces"] == [
        {"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": base, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        {
            "url": f"{host}:{grpc_port}",
            "protocolBinding": "GRPC",
            "protocolVersion": "1.0",
        },
        {"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        {"url": base, "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
    ]
    # what 0.3 clients read: the gateway's URLs, never the agent's
    assert card["url"] == f"{base}/" and card["preferredTransport"] == "JSONRPC"
    assert agent.removeprefix("http://") not in json.dumps(card)


async def _every_operation(base: str, binding: str) -> dict[str, Any]:
    """Each operation a2a-sdk 1.3.0's client makes over ``binding``, through the
    gateway to the 0.3 agent; what came back."""
    got: dict[str, Any] = {}
    async with httpx.AsyncClient(timeout=30) as http:
        client, unary = _clients(_card(base), binding, http)
        try:
            (sent,) = [
                e
                async for e in unary.send_message(
                    pb.SendMessageRequest(message=_message("hello"))
                )
            ]
            got["sent"] = sent.task
            got["stream"] = [
                e
                async for e in client.send_message(
                    pb.SendMessageRequest(message=_message("stream"))
                )
            ]
            got["get"] = await client.get_task(pb.GetTaskRequest(id=sent.task.id))
            held = client.send_message(pb.SendMessageRequest(message=_message("hold")))
            first = await _first(held)
            task_id = first.task.id
            got["cancel"] = await client.cancel_task(pb.CancelTaskRequest(id=task_id))
            await held.aclose()
            config = pb.TaskPushNotificationConfig(
                task_id=task_id, id="cfg-1", url="http://127.0.0.1:9/hook", token="tok"
            )
            got["created"] = await client.create_task_push_notification_config(config)
            got["fetched"] = await client.get_task_push_notification_config(
                pb.GetTaskPushNotificationConfigRequest(task_id=task_id, id="cfg-1")
            )
            got["listed"] = await client.list_task_push_notification_configs(
                pb.ListTaskPushNotificationConfigsRequest(task_id=task_id)
            )
            await client.delete_task_push_notification_config(
                pb.DeleteTaskPushNotificationConfigRequest(task_id=task_id, id="cfg-1")
            )
            for name, call in (
                ("not_found", client.get_task(pb.GetTaskRequest(id="no-such-task"))),
                (
                    "not_cancelable",
                    client.cancel_task(pb.CancelTaskRequest(id=sent.task.id)),
                ),
                ("list_tasks", client.list_tasks(pb.ListTasksRequest())),
            ):
                try:
                    await call
                    got[name] = None
                except Exception as exc:  # the error the client raised
                    got[name] = exc
        finally:
            await client.close()
            await unary.close()
    return got


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON", "GRPC"])
def test_a2a_sdk_1_0_clients_reach_a_0_3_jsonrpc_agent(
    behind_0_3: tuple[str, int, str], binding: str
) -> None:
    base, _, _ = behind_0_3
    got = asyncio.run(asyncio.wait_for(_every_operation(base, binding), 90))
    sent = got["sent"]
    assert sent.status.state == pb.TASK_STATE_COMPLETED
    assert sent.artifacts[0].parts[0].text == "hello"
    kinds = [e.WhichOneof("payload") for e in got["stream"]]
    assert kinds[0] == "task" and kinds[-1] == "status_update"
    assert got["stream"][-1].status_update.status.state == pb.TASK_STATE_COMPLETED
    assert got["get"].id == sent.id and got["get"].status.state == sent.status.state
    assert got["cancel"].status.state == pb.TASK_STATE_CANCELED
    assert got["created"].url == "http://127.0.0.1:9/hook"
    assert got["created"].id == "cfg-1" and got["fetched"] == got["created"]
    assert list(got["listed"].configs) == [got["created"]]
    # a 0.3 agent's -32001 and -32002 are the 1.0 client's errors, and ListTasks,
    # which 0.3 lacks, is UnsupportedOperationError (not a 500)
    assert isinstance(got["not_found"], errors.TaskNotFoundError)
    assert isinstance(got["not_cancelable"], errors.TaskNotCancelableError)
    assert isinstance(got["list_tasks"], errors.UnsupportedOperationError)


def test_the_js_client_reaches_a_0_3_jsonrpc_agent(
    behind_0_3: tuple[str, int, str],
) -> None:
    base, _, _ = behind_0_3
    folder = jsenv.install()
    config = {"base": base, "binding": "JSONRPC", "tenant": "", "awkwardIds": []}
    result = jsenv.run_script(folder, "client.mjs", config, NODE_TIMEOUT)
    steps = result["steps"]
    assert result["transport"] == "JSONRPC", result
    assert (
        steps["SendMessage"]["ok"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    )
    streamed = steps["SendStreamingMessage"]["ok"]
    assert streamed[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert steps["GetTask"]["ok"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert steps["CreateTaskPushNotificationConfig"]["ok"]["url"]
    assert "ok" in steps["DeleteTaskPushNotificationConfig"]
    assert steps["error TaskNotFound"]["error"]["name"] == "TaskNotFoundError"
    assert steps["ListTasks"]["error"]["name"] == "UnsupportedOperationError"
    # the JS client spoke 1.0 to the gateway: every JSON-RPC method it sent is 1.0's
    methods = {s["rpcMethod"] for s in result["sent"] if s["rpcMethod"]}
    assert methods and all("/" not in method for method in methods), methods


# ---------------------------------------- a 1.0 agent serving HTTP+JSON only, behind


class _Tenants:
    """The tenant of each request the agent's executor saw."""

    def __init__(self) -> None:
        self.seen: list[str] = []


def _rest_agent(tenants: _Tenants) -> tuple[Any, list[str]]:
    """a2a-sdk 1.3.0's REST routes alone, over an executor that completes each task
    (a message saying "hold" leaves it working for a cancel), and its card (whose
    interface URL is set once the server has a port)."""
    from a2a.helpers.proto_helpers import new_task_from_user_message
    from a2a.server.agent_execution import AgentExecutor
    from a2a.server.request_handlers import DefaultRequestHandlerV2
    from a2a.server.routes import create_agent_card_routes, create_rest_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.server.tasks.inmemory_push_notification_config_store import (
        InMemoryPushNotificationConfigStore,
    )
    from starlette.applications import Starlette

    class Completer(AgentExecutor):
        async def execute(self, context: Any, event_queue: Any) -> None:
            tenants.seen.append(context.tenant)
            task = context.current_task
            if task is None:
                task = new_task_from_user_message(context.message)
                await event_queue.enqueue_event(task)
            updater = TaskUpdater(event_queue, task.id, task.context_id)
            await updater.start_work()
            if context.get_user_input() == "hold":
                return
            text = context.get_user_input()
            await updater.add_artifact([pb.Part(text=text)], name="echo")
            await updater.complete()

        async def cancel(self, context: Any, event_queue: Any) -> None:
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()

    url: list[str] = [""]
    card = pb.AgentCard(
        name="sdk-1-0-rest-agent",
        description="a2a-sdk 1.3.0, HTTP+JSON only",
        version="1",
        capabilities=pb.AgentCapabilities(
            streaming=True, push_notifications=True, extended_agent_card=True
        ),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
    )
    extended = pb.AgentCard()
    extended.CopyFrom(card)
    extended.name = "sdk-1-0-rest-agent-extended"

    async def with_url(served: pb.AgentCard) -> pb.AgentCard:
        out = pb.AgentCard()
        out.CopyFrom(served)
        out.supported_interfaces.add(
            url=url[0], protocol_binding="HTTP+JSON", protocol_version="1.0"
        )
        return out

    handler = DefaultRequestHandlerV2(
        agent_executor=Completer(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=InMemoryPushNotificationConfigStore(),
        extended_agent_card=extended,
        extended_card_modifier=lambda served, context: with_url(served),
    )
    app = Starlette(
        routes=[
            *create_agent_card_routes(card, card_modifier=with_url),
            *create_rest_routes(handler),
        ]
    )
    return app, url


@pytest.fixture(scope="module")
def behind_rest(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, int, _Tenants, str]]:
    cwd = tmp_path_factory.mktemp("gateway-rest")
    tenants = _Tenants()
    app, url = _rest_agent(tenants)
    grpc_port = _free_port()
    with running(app) as agent:
        url[0] = agent
        with gateway_process(
            "--target", agent, "--grpc-port", str(grpc_port), cwd=cwd
        ) as base:
            yield base, grpc_port, tenants, agent


@pytest.mark.parametrize("transport", ["jsonrpc", "rest"])
def test_a2a_sdk_0_3_clients_reach_a_1_0_rest_agent(
    behind_rest: tuple[str, int, _Tenants, str], transport: str
) -> None:
    base, _, _, _ = behind_rest
    given = json.dumps({"base": base, "token": "t", "transport": transport})
    done = v0_3_env.run("sdk_clients.py", given)
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout)
    assert report["card"]["name"] == "sdk-1-0-rest-agent"
    (sent,) = report["send"]
    assert sent["task"]["status"]["state"] == "completed"
    assert sent["task"]["artifacts"][0]["parts"] == [{"kind": "text", "text": "hi"}]
    updates = [e["update"] for e in report["stream"] if e.get("update")]
    assert updates[-1]["final"] is True
    assert updates[-1]["status"]["state"] == "completed"
    assert report["held"][0]["task"]["status"]["state"] == "working"
    assert report["cancel"]["status"]["state"] == "canceled"
    assert report["resubscribe"][-1]["update"]["status"]["state"] == "canceled"
    assert report["set_config"]["pushNotificationConfig"]["id"] == "cfg-1"
    assert report["get_config"] == report["set_config"]
    missing = report["not_found"]
    if transport == "jsonrpc":
        assert missing["jsonrpc"]["code"] == -32001  # the 1.0 agent's TaskNotFound
        assert report["list_configs"]["result"] == [report["set_config"]]
    else:
        assert missing["http"] == 404


def test_a_grpc_client_reaches_a_1_0_rest_agent_with_its_tenant(
    behind_rest: tuple[str, int, _Tenants, str],
) -> None:
    base, grpc_port, tenants, agent = behind_rest

    async def scenario() -> dict[str, Any]:
        async with httpx.AsyncClient(timeout=30) as http:
            client, unary = _clients(_card(base), "GRPC", http)
            try:
                (sent,) = [
                    e
                    async for e in unary.send_message(
                        pb.SendMessageRequest(
                            tenant="acme", message=_message("over grpc")
                        )
                    )
                ]
                stream = [
                    e
                    async for e in client.send_message(
                        pb.SendMessageRequest(message=_message("streamed"))
                    )
                ]
                listed = await client.list_tasks(pb.ListTasksRequest(tenant="acme"))
                extended = await client.get_extended_agent_card(
                    pb.GetExtendedAgentCardRequest()
                )
                try:
                    await client.get_task(pb.GetTaskRequest(id="no-such-task"))
                    missing: Exception | None = None
                except Exception as exc:
                    missing = exc
                return {
                    "sent": sent,
                    "stream": stream,
                    "listed": listed,
                    "extended": extended,
                    "x": missing,
                }
            finally:
                await client.close()
                await unary.close()

    got = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert got["sent"].task.status.state == pb.TASK_STATE_COMPLETED
    assert got["sent"].task.artifacts[0].parts[0].text == "over grpc"
    assert got["stream"][-1].status_update.status.state == pb.TASK_STATE_COMPLETED
    assert "acme" in tenants.seen  # the tenant reached the agent, in its path
    assert got["sent"].task.id in [t.id for t in got["listed"].tasks]
    assert isinstance(got["x"], errors.TaskNotFoundError)
    # the agent's extended card, with the gateway's interfaces in place of the agent's
    extended = got["extended"]
    assert extended.name == "sdk-1-0-rest-agent-extended"
    urls = [i.url for i in extended.supported_interfaces]
    assert len(urls) == 5 and f"127.0.0.1:{grpc_port}" in urls
    assert all(url.startswith(("http://127.0.0.1:", "127.0.0.1:")) for url in urls)
    assert agent not in json.dumps([str(i) for i in extended.supported_interfaces])


# ------------------------------------------------------------------ at start-up


def _refused(args: list[str], cwd: Path) -> str:
    import subprocess

    _, env = _temporary(cwd)
    done = subprocess.run(
        [*CLI, "gateway", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_an_unreachable_target_is_one_line_naming_the_url(tmp_path: Path) -> None:
    """As docs/gateway.md shows it: the card's URL, then why."""
    url = f"http://127.0.0.1:{_free_port()}/a2a"
    line = _refused(["--target", url], tmp_path)
    shape = r"a2a-codegen: cannot read the agent card at (\S+): \S.*"
    documented = re.fullmatch(shape, block("gateway-unreachable").strip())
    assert documented and documented[1].endswith(CARD_PATH)
    got = re.fullmatch(shape, line)
    assert got and got[1] == f"{url}{CARD_PATH}", line


def test_a_card_that_does_not_parse_is_one_line_naming_the_url(tmp_path: Path) -> None:
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, PlainTextResponse
    from starlette.routing import Route

    app = Starlette(
        routes=[
            Route(CARD_PATH, lambda request: PlainTextResponse("<html>")),
            Route("/other" + CARD_PATH, lambda request: JSONResponse({"name": "x"})),
            Route(
                "/grpc-only" + CARD_PATH,
                lambda request: JSONResponse(
                    {
                        "name": "x",
                        "supportedInterfaces": [
                            {
                                "url": "agent:50051",
                                "protocolBinding": "GRPC",
                                "protocolVersion": "1.0",
                            }
                        ],
                    }
                ),
            ),
        ]
    )
    with running(app) as agent:
        not_json = _refused(["--target", agent], tmp_path)
        no_card = _refused(["--target", agent + "/other"], tmp_path)
        grpc_only = _refused(["--target", agent + "/grpc-only"], tmp_path)
    assert not_json.startswith(f"a2a-codegen: the agent card at {agent}{CARD_PATH}")
    assert "is not JSON" in not_json
    assert "neither a 1.0 card (supportedInterfaces) nor a 0.3 one (url)" in no_card
    assert "lists no JSONRPC or HTTP+JSON interface" in grpc_only
    assert "GRPC 1.0" in grpc_only  # what it lists


def test_grpc_only_options_are_refused_for_a_grpc_target(tmp_path: Path) -> None:
    line = _refused(["--target", "127.0.0.1:50051", "--grpc-port", "1"], tmp_path)
    assert "--grpc-port is for an agent over HTTP" in line

"""The whole server path, in process: the generated ASGI app against a2a-sdk's Starlette app.

Both apps serve an equivalent trivial agent (a fixed task ``task-123`` with a push
config ``cfg-1``; messages complete at once) and get the same requests through the same
bare ASGI driver (no network, no HTTP client): the 27-request HTTP+JSON mix of
``bench/bench.py`` plus JSON-RPC calls, every request with ``A2A-Version: 1.0``. Prints
requests per second of each, their ratio (issue 14's goal: at least 5x), and the import
time of each app. One run; numbers are reported, never asserted.

    .venv/bin/python bench/bench_serving.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "generated"), str(ROOT)]

from a2a_binding import asgi, messages  # noqa: E402
from a2a_binding.handler import CallContext  # noqa: E402

from bench.bench import MESSAGE, MIX  # noqa: E402

App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]
TASK: messages.Task = {
    "id": "task-123",
    "contextId": "ctx",
    "status": {"state": "TASK_STATE_WORKING"},
}
CONFIG: messages.TaskPushNotificationConfig = {
    "id": "cfg-1",
    "taskId": "task-123",
    "url": "https://x.test/h",
}
CARD: messages.AgentCard = {"name": "bench", "description": "d", "version": "1"}

RPC_MIX: list[tuple[str, dict[str, Any]]] = [
    ("SendMessage", MESSAGE),
    ("GetTask", {"id": "task-123", "historyLength": 5}),
    ("ListTasks", {"pageSize": 10}),
    ("CancelTask", {"id": "task-123"}),
    ("GetTaskPushNotificationConfig", {"taskId": "task-123", "id": "cfg-1"}),
    ("ListTaskPushNotificationConfigs", {"taskId": "task-123"}),
    ("GetTask", {"id": "nope"}),
    ("Nope", {}),
]


class TrivialAgent:
    """Fixed answers, as cheap as a handler can be."""

    async def send_message(
        self, request: messages.SendMessageRequest, context: CallContext
    ) -> messages.SendMessageResponse:
        return {"task": {**TASK, "status": {"state": "TASK_STATE_COMPLETED"}}}

    async def send_streaming_message(
        self, request: messages.SendMessageRequest, context: CallContext
    ) -> AsyncIterator[messages.StreamResponse]:
        yield {"task": TASK}
        yield {
            "statusUpdate": {
                "taskId": "task-123",
                "contextId": "ctx",
                "status": {"state": "TASK_STATE_COMPLETED"},
            }
        }

    async def get_task(
        self, request: messages.GetTaskRequest, context: CallContext
    ) -> messages.Task:
        if request.get("id") != "task-123":
            raise asgi_error("TaskNotFoundError")
        return TASK

    async def list_tasks(
        self, request: messages.ListTasksRequest, context: CallContext
    ) -> messages.ListTasksResponse:
        return {"tasks": [TASK], "nextPageToken": "", "pageSize": 1, "totalSize": 1}

    async def cancel_task(
        self, request: messages.CancelTaskRequest, context: CallContext
    ) -> messages.Task:
        return {**TASK, "status": {"state": "TASK_STATE_CANCELED"}}

    async def subscribe_to_task(
        self, request: messages.SubscribeToTaskRequest, context: CallContext
    ) -> AsyncIterator[messages.StreamResponse]:
        yield {"task": TASK}

    async def create_task_push_notification_config(
        self, request: messages.TaskPushNotificationConfig, context: CallContext
    ) -> messages.TaskPushNotificationConfig:
        return CONFIG

    async def get_task_push_notification_config(
        self,
        request: messages.GetTaskPushNotificationConfigRequest,
        context: CallContext,
    ) -> messages.TaskPushNotificationConfig:
        return CONFIG

    async def list_task_push_notification_configs(
        self,
        request: messages.ListTaskPushNotificationConfigsRequest,
        context: CallContext,
    ) -> messages.ListTaskPushNotificationConfigsResponse:
        return {"configs": [CONFIG]}

    async def get_extended_agent_card(
        self, request: messages.GetExtendedAgentCardRequest, context: CallContext
    ) -> messages.AgentCard:
        return CARD

    async def delete_task_push_notification_config(
        self,
        request: messages.DeleteTaskPushNotificationConfigRequest,
        context: CallContext,
    ) -> None:
        return None


def asgi_error(name: str) -> Exception:
    from a2a_binding.protocol import A2AError

    return A2AError(name, "not found")


def generated_app() -> App:
    return asgi.create_app(
        TrivialAgent(), agent_card=CARD, http_json_prefix="", jsonrpc_path="/jsonrpc"
    )


def sdk_app() -> App:
    from a2a.server.agent_execution import AgentExecutor
    from a2a.server.context import ServerCallContext
    from a2a.server.request_handlers import DefaultRequestHandlerV2
    from a2a.server.routes import create_jsonrpc_routes, create_rest_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.server.tasks.inmemory_push_notification_config_store import (
        InMemoryPushNotificationConfigStore,
    )
    from a2a.types import a2a_pb2 as pb
    from starlette.applications import Starlette

    class Completer(AgentExecutor):
        async def execute(self, context: Any, event_queue: Any) -> None:
            from a2a.helpers.proto_helpers import new_task_from_user_message

            task = context.current_task or new_task_from_user_message(context.message)
            if context.current_task is None:
                await event_queue.enqueue_event(task)
            await TaskUpdater(event_queue, task.id, task.context_id).complete()

        async def cancel(self, context: Any, event_queue: Any) -> None:
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()

    card = pb.AgentCard(
        name="bench",
        description="d",
        version="1",
        capabilities=pb.AgentCapabilities(
            streaming=True, push_notifications=True, extended_agent_card=True
        ),
    )
    store = InMemoryTaskStore()
    push = InMemoryPushNotificationConfigStore()

    async def seed() -> None:
        task = pb.Task(
            id="task-123",
            context_id="ctx",
            status=pb.TaskStatus(state=pb.TASK_STATE_WORKING),
        )
        await store.save(task, ServerCallContext())

    asyncio.run(seed())
    handler = DefaultRequestHandlerV2(
        agent_executor=Completer(),
        task_store=store,
        agent_card=card,
        push_config_store=push,
        extended_agent_card=card,
    )
    return Starlette(
        routes=[
            *create_jsonrpc_routes(handler, rpc_url="/jsonrpc"),
            *create_rest_routes(handler),
        ]
    )


def requests() -> list[tuple[dict[str, Any], bytes]]:
    """ASGI scopes and bodies of the mix: 27 HTTP+JSON, then the JSON-RPC calls."""
    out = []
    headers = [(b"a2a-version", b"1.0"), (b"content-type", b"application/json")]
    for verb, path, query, body in MIX:
        scope = {
            "type": "http",
            "method": verb,
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": query.encode(),
            "headers": headers,
            "scheme": "http",
            "http_version": "1.1",
            "server": ("bench", 80),
            "client": ("bench", 1),
            "asgi": {"version": "3.0"},
        }
        out.append((scope, b"" if body is None else json.dumps(body).encode()))
    for number, (method, params) in enumerate(RPC_MIX):
        envelope = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
        scope = {
            "type": "http",
            "method": "POST",
            "path": "/jsonrpc",
            "raw_path": b"/jsonrpc",
            "root_path": "",
            "query_string": b"",
            "headers": headers,
            "scheme": "http",
            "http_version": "1.1",
            "server": ("bench", 80),
            "client": ("bench", 1),
            "asgi": {"version": "3.0"},
        }
        out.append((scope, json.dumps(envelope).encode()))
    return out


async def call(app: App, scope: dict[str, Any], body: bytes) -> int:
    """One request; returns the status. The client "disconnects" once the answer ends."""
    done = asyncio.Event()
    sent = [False]
    status = [0]

    async def receive() -> dict[str, Any]:
        if not sent[0]:
            sent[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status[0] = message["status"]
        elif message["type"] == "http.response.body" and not message.get("more_body"):
            done.set()

    await app(dict(scope), receive, send)
    return status[0]


def rate(
    app: App, mix: list[tuple[dict[str, Any], bytes]], seconds: float = 2.0
) -> tuple[float, list[int]]:
    async def run() -> tuple[float, list[int]]:
        statuses = [await call(app, scope, body) for scope, body in mix]  # warm-up
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for scope, body in mix:
                await call(app, scope, body)
            count += len(mix)
        return count / (time.perf_counter() - start), statuses

    return asyncio.run(run())


def import_time(statement: str, repeats: int = 7) -> float:
    """Median milliseconds of ``statement`` in a fresh interpreter."""
    code = f"import time; s = time.perf_counter(); {statement}; print(time.perf_counter() - s)"
    env_path = f"{ROOT / 'generated'}"
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
                env={"PYTHONPATH": env_path},
            ).stdout
        )
        for _ in range(repeats)
    ]
    return statistics.median(times) * 1000


def main() -> None:
    import logging

    logging.disable(logging.ERROR)  # the SDK logs every error answer
    mix = requests()
    ours, our_statuses = rate(generated_app(), mix)
    theirs, their_statuses = rate(sdk_app(), mix)
    print(
        f"Whole server path, in-process ASGI, {len(mix)} requests per round "
        f"({len(MIX)} HTTP+JSON + {len(RPC_MIX)} JSON-RPC)"
    )
    print(f"  generated asgi.create_app      {ours:10.0f} requests/s")
    print(f"  a2a-sdk 1.3.0 Starlette app    {theirs:10.0f} requests/s")
    print(f"  ratio {ours / theirs:.1f}x (goal >= 5x)")
    differ = [
        (scope["method"], scope["path"], a, b)
        for (scope, _), a, b in zip(mix, our_statuses, their_statuses)
        if a != b
    ]
    if differ:
        print(f"  statuses that differ (ours, sdk): {differ}")
    print("Import time (fresh interpreter, median of 7)")
    mine = import_time("import a2a_binding.asgi, a2a_binding.client")
    sdk = import_time(
        "import a2a.server.routes, a2a.server.request_handlers, starlette.applications"
    )
    print(f"  import a2a_binding.asgi, .client  {mine:7.1f} ms")
    print(f"  import a2a-sdk server + Starlette {sdk:7.1f} ms  ({sdk / mine:.0f}x)")


if __name__ == "__main__":
    main()

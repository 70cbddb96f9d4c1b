"""The A2A binding alone: the generated ASGI app against a2a-sdk's and a hand-written floor.

Three apps answer the same requests over a trivial handler (fixed answers, no task
store, no executor), so that what is timed is the binding, like with like:

* generated: ``a2a_binding.asgi.create_app`` over ``TrivialAgent``;
* a2a-sdk 1.3.0: a Starlette app of its ``create_rest_routes`` and
  ``create_jsonrpc_routes`` over ``TrivialSdkHandler``, a subclass of its abstract
  ``RequestHandler`` giving fixed protobuf answers;
* floor: ``FloorApp``, an ASGI app written by hand for exactly these requests, doing
  what any binding must: split the path, read ``A2A-Version`` (refusing other
  versions), decode ``historyLength`` or the JSON body, call the same ``TrivialAgent``,
  write the JSON answer with Content-Type and Content-Length, 404 otherwise.

Four requests, each with the headers an HTTP client sends: ``GET
/tasks/task-123?historyLength=5`` and ``POST /message:send`` (HTTP+JSON), JSON-RPC
``SendMessage`` and ``GetTask`` at ``/jsonrpc``. Every app gets them through the same
bare in-process ASGI driver (no network); a driver-only row (an app sending a fixed
answer) shows what the driver itself costs. The apps run in interleaved rounds (in each
round, each app runs each request for a fixed batch of about 0.1 s, in an order that
changes from round to round), so a drift of the machine's speed hits all of them alike;
the table gives the median over the rounds of microseconds per request, with min-max,
then generated/floor (goal <= 1.6x) and sdk/generated (goal >= 8x). An extra row, not
part of the ratios, times a2a-sdk's task machinery (``DefaultRequestHandlerV2``, an
executor and an in-memory task store) on the same requests.

Then a real server: uvicorn on 127.0.0.1 (a free port), one process per app, the
generated app and the floor under the same settings, driven by a small asyncio client
(8 keep-alive connections, bursts of 8 x 500 requests alternating the two HTTP+JSON
requests, each burst capped in time) in interleaved rounds; it prints requests per
second of each and their ratio. Last, the import time of each binding.

Numbers are printed, never asserted. About a minute and a half:

    .venv/bin/python bench/bench_serving.py
"""

from __future__ import annotations

import asyncio
import gc
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast
from urllib.parse import parse_qsl

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "generated"), str(ROOT)]

from a2a_binding import asgi, messages  # noqa: E402
from a2a_binding.handler import CallContext  # noqa: E402
from a2a_binding.protocol import A2AError  # noqa: E402

if TYPE_CHECKING:
    from a2a.server.request_handlers import RequestHandler

App = Callable[[Any, Any, Any], Awaitable[None]]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

ROUNDS = 15
BATCH_SECONDS = 0.1
SERVER_ROUNDS = 5
CONNECTIONS = 8
PER_CONNECTION = 500
BURST_CAP_SECONDS = 10.0
SERVER_LIFETIME_SECONDS = 120.0  # a server process stops by itself after this

MESSAGE = {
    "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
}
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
CARD: messages.AgentCard = {
    "name": "bench",
    "description": "d",
    "version": "1",
    "supportedInterfaces": [
        {
            "url": "http://127.0.0.1:8000/jsonrpc",
            "protocolBinding": "JSONRPC",
            "protocolVersion": "1.0",
        }
    ],
    "capabilities": {},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [],
}


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
            raise A2AError("TaskNotFoundError", "not found")
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


# --- the three apps ----------------------------------------------------------------------


def generated_app(*, validate: bool = True) -> App:
    return asgi.create_app(
        TrivialAgent(), agent_card=CARD, jsonrpc_path="/jsonrpc", validate=validate
    )


def trivial_sdk_handler() -> RequestHandler:
    """a2a-sdk's abstract ``RequestHandler`` with fixed protobuf answers: what
    ``TrivialAgent`` is to the generated app."""
    from a2a.server.context import ServerCallContext
    from a2a.server.events.event_queue import Event
    from a2a.server.request_handlers import RequestHandler
    from a2a.types import a2a_pb2 as pb
    from a2a.utils.errors import TaskNotFoundError

    task = pb.Task(
        id="task-123",
        context_id="ctx",
        status=pb.TaskStatus(state=pb.TASK_STATE_WORKING),
    )
    completed = pb.Task(
        id="task-123",
        context_id="ctx",
        status=pb.TaskStatus(state=pb.TASK_STATE_COMPLETED),
    )
    canceled = pb.Task(
        id="task-123",
        context_id="ctx",
        status=pb.TaskStatus(state=pb.TASK_STATE_CANCELED),
    )
    config = pb.TaskPushNotificationConfig(
        id="cfg-1", task_id="task-123", url="https://x.test/h"
    )
    card = pb.AgentCard(name="bench", description="d", version="1")

    class TrivialSdkHandler(RequestHandler):
        async def on_get_task(
            self, params: pb.GetTaskRequest, context: ServerCallContext
        ) -> pb.Task | None:
            if params.id != "task-123":
                raise TaskNotFoundError("not found")
            return task

        async def on_list_tasks(
            self, params: pb.ListTasksRequest, context: ServerCallContext
        ) -> pb.ListTasksResponse:
            return pb.ListTasksResponse(tasks=[task], page_size=1, total_size=1)

        async def on_cancel_task(
            self, params: pb.CancelTaskRequest, context: ServerCallContext
        ) -> pb.Task | None:
            return canceled

        async def on_message_send(
            self, params: pb.SendMessageRequest, context: ServerCallContext
        ) -> pb.Task | pb.Message:
            return completed

        async def on_message_send_stream(
            self, params: pb.SendMessageRequest, context: ServerCallContext
        ) -> AsyncGenerator[Event]:
            yield task
            yield pb.TaskStatusUpdateEvent(
                task_id="task-123", context_id="ctx", status=completed.status
            )

        async def on_create_task_push_notification_config(
            self, params: pb.TaskPushNotificationConfig, context: ServerCallContext
        ) -> pb.TaskPushNotificationConfig:
            return config

        async def on_get_task_push_notification_config(
            self,
            params: pb.GetTaskPushNotificationConfigRequest,
            context: ServerCallContext,
        ) -> pb.TaskPushNotificationConfig:
            return config

        async def on_subscribe_to_task(
            self, params: pb.SubscribeToTaskRequest, context: ServerCallContext
        ) -> AsyncGenerator[Event]:
            yield task

        async def on_list_task_push_notification_configs(
            self,
            params: pb.ListTaskPushNotificationConfigsRequest,
            context: ServerCallContext,
        ) -> pb.ListTaskPushNotificationConfigsResponse:
            return pb.ListTaskPushNotificationConfigsResponse(configs=[config])

        async def on_delete_task_push_notification_config(
            self,
            params: pb.DeleteTaskPushNotificationConfigRequest,
            context: ServerCallContext,
        ) -> None:
            return None

        async def on_get_extended_agent_card(
            self, params: pb.GetExtendedAgentCardRequest, context: ServerCallContext
        ) -> pb.AgentCard:
            return card

    return TrivialSdkHandler()


def starlette_app(handler: RequestHandler) -> App:
    """a2a-sdk's binding: its JSON-RPC and REST routes in a Starlette app."""
    from a2a.server.routes import create_jsonrpc_routes, create_rest_routes
    from starlette.applications import Starlette

    return Starlette(
        routes=[
            *create_jsonrpc_routes(handler, rpc_url="/jsonrpc"),
            *create_rest_routes(handler),
        ]
    )


def sdk_app() -> App:
    return starlette_app(trivial_sdk_handler())


async def sdk_task_machinery_app() -> App:
    """Not the binding: a2a-sdk's ``DefaultRequestHandlerV2`` with an executor that
    completes each message, an in-memory task store (``task-123`` seeded) and push
    config store, behind the same routes."""
    from a2a.helpers.proto_helpers import new_task_from_user_message
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.context import ServerCallContext
    from a2a.server.events.event_queue import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandlerV2
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.server.tasks.inmemory_push_notification_config_store import (
        InMemoryPushNotificationConfigStore,
    )
    from a2a.types import a2a_pb2 as pb

    class Completer(AgentExecutor):
        async def execute(
            self, context: RequestContext, event_queue: EventQueue
        ) -> None:
            task = context.current_task
            if task is None:
                assert context.message is not None
                task = new_task_from_user_message(context.message)
                await event_queue.enqueue_event(task)
            await TaskUpdater(event_queue, task.id, task.context_id).complete()

        async def cancel(
            self, context: RequestContext, event_queue: EventQueue
        ) -> None:
            task_id, context_id = context.task_id or "", context.context_id or ""
            await TaskUpdater(event_queue, task_id, context_id).cancel()

    card = pb.AgentCard(
        name="bench",
        description="d",
        version="1",
        capabilities=pb.AgentCapabilities(
            streaming=True, push_notifications=True, extended_agent_card=True
        ),
    )
    store = InMemoryTaskStore()
    seeded = pb.Task(
        id="task-123",
        context_id="ctx",
        status=pb.TaskStatus(state=pb.TASK_STATE_WORKING),
    )
    await store.save(seeded, ServerCallContext())
    handler = DefaultRequestHandlerV2(
        agent_executor=Completer(),
        task_store=store,
        agent_card=card,
        push_config_store=InMemoryPushNotificationConfigStore(),
        extended_agent_card=card,
    )
    return starlette_app(handler)


REST_TYPE = b"application/a2a+json"
JSONRPC_TYPE = b"application/json"
MAX_BODY_BYTES = 4 * 1024 * 1024
_encode = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False
).encode


class FloorContext(NamedTuple):
    """The floor's call context: the little a trivial handler could want."""

    tenant: str
    binding: str


class FloorApp:
    """A binding written by hand for exactly the benchmark's requests: what any binding
    must do for them and nothing more (no tenants, no other routes, no field checks).
    The trivial handler raises only TaskNotFoundError."""

    def __init__(self, handler: TrivialAgent) -> None:
        self.handler = handler

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            raise RuntimeError(f"HTTP only, not {scope['type']!r}")
        version = b"0.3"  # A2A: no A2A-Version header means 0.3
        for name, value in scope["headers"]:
            if name == b"a2a-version":
                version = value
                break
        verb, path = scope["method"], scope["path"]
        if path == "/jsonrpc" and verb == "POST":
            await self._jsonrpc(version, receive, send)
        elif verb == "GET" and path.startswith("/tasks/"):
            task_id = path[7:]
            if not task_id or "/" in task_id or ":" in task_id:
                await _answer(send, 404, _status(404, "NOT_FOUND", path), REST_TYPE)
            elif version != b"1.0":
                await _answer(send, 400, _version_status(version), REST_TYPE)
            else:
                await self._get_task(task_id, scope["query_string"], send)
        elif verb == "POST" and path == "/message:send":
            if version != b"1.0":
                await _answer(send, 400, _version_status(version), REST_TYPE)
                return
            body = await _read_body(receive)
            try:
                request = json.loads(body)
                if not isinstance(request, dict):
                    raise ValueError("not a JSON object")
            except ValueError as error:
                status = _status(400, "INVALID_ARGUMENT", str(error))
                await _answer(send, 400, status, REST_TYPE)
                return
            context = cast(CallContext, FloorContext("", "http+json"))
            answer = await self.handler.send_message(
                cast(messages.SendMessageRequest, request), context
            )
            await _answer(send, 200, answer, REST_TYPE)
        else:
            await _answer(send, 404, _status(404, "NOT_FOUND", path), REST_TYPE)

    async def _get_task(self, task_id: str, query: bytes, send: Send) -> None:
        request: messages.GetTaskRequest = {"id": task_id}
        if query:
            for name, value in parse_qsl(query.decode("latin-1")):
                if name == "historyLength":
                    try:
                        request["historyLength"] = int(value)
                    except ValueError:
                        status = _status(400, "INVALID_ARGUMENT", f"{name}: {value!r}")
                        await _answer(send, 400, status, REST_TYPE)
                        return
        context = cast(CallContext, FloorContext("", "http+json"))
        try:
            answer = await self.handler.get_task(request, context)
        except A2AError as error:
            await _answer(send, 404, _status(404, "NOT_FOUND", str(error)), REST_TYPE)
            return
        await _answer(send, 200, answer, REST_TYPE)

    async def _jsonrpc(self, version: bytes, receive: Receive, send: Send) -> None:
        body = await _read_body(receive)
        try:
            envelope = json.loads(body)
        except ValueError:
            await _answer(send, 200, _rpc_error(None, -32700, "Parse error"))
            return
        if (
            not isinstance(envelope, dict)
            or envelope.get("jsonrpc") != "2.0"
            or not isinstance(envelope.get("params", {}), dict)
        ):
            await _answer(send, 200, _rpc_error(None, -32600, "Invalid Request"))
            return
        request_id = envelope.get("id")
        method, params = envelope.get("method"), envelope.get("params", {})
        if method not in ("SendMessage", "GetTask"):
            await _answer(send, 200, _rpc_error(request_id, -32601, "Method not found"))
            return
        if version != b"1.0":
            await _answer(send, 200, _rpc_error(request_id, -32009, "Bad version"))
            return
        context = cast(CallContext, FloorContext("", "jsonrpc"))
        result: Any
        try:
            if method == "SendMessage":
                result = await self.handler.send_message(params, context)
            else:
                result = await self.handler.get_task(params, context)
        except A2AError as error:
            await _answer(send, 200, _rpc_error(request_id, -32001, str(error)))
            return
        answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
        await _answer(send, 200, answer)


async def _read_body(receive: Receive) -> bytes:
    message = await receive()
    body: bytes = message.get("body", b"")
    while message.get("more_body"):
        message = await receive()
        body += message.get("body", b"")
        if len(body) > MAX_BODY_BYTES:
            raise ValueError("body too large")
    return body


async def _answer(
    send: Send, status: int, payload: object, content_type: bytes = JSONRPC_TYPE
) -> None:
    body = _encode(payload).encode("utf-8")
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _status(code: int, status: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "status": status, "message": message}}


def _version_status(version: bytes) -> dict[str, Any]:
    text = version.decode("latin-1")
    return _status(400, "FAILED_PRECONDITION", f"A2A-Version {text!r} is not supported")


def _rpc_error(request_id: object, code: int, message: str) -> dict[str, Any]:
    error = {"code": code, "message": message}
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


async def driver_only(scope: Message, receive: Receive, send: Send) -> None:
    """What the driver costs: a fixed answer, nothing read or decoded."""
    await send({"type": "http.response.start", "status": 200, "headers": _FIXED})
    await send({"type": "http.response.body", "body": b"{}"})


_FIXED = [(b"content-type", REST_TYPE), (b"content-length", b"2")]


# --- requests and the in-process driver --------------------------------------------------


class Case(NamedTuple):
    label: str
    scope: Message
    body: bytes


CLIENT_HEADERS = [
    (b"host", b"127.0.0.1:8000"),
    (b"accept", b"application/json"),
    (b"accept-encoding", b"gzip, deflate"),
    (b"connection", b"keep-alive"),
    (b"user-agent", b"python-httpx/0.28.1"),
]


def case(
    label: str,
    verb: str,
    path: str,
    query: str = "",
    payload: object = None,
    version: bytes = b"1.0",
) -> Case:
    """An ASGI scope as uvicorn builds it, with the headers an HTTP client sends."""
    body = b"" if payload is None else json.dumps(payload).encode()
    headers = [*CLIENT_HEADERS, (b"a2a-version", version)]
    if payload is not None:
        headers += [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "method": verb,
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": headers,
    }
    return Case(label, scope, body)


def rpc(method: str, params: object) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


CASES = [
    case("GET /tasks/{id}", "GET", "/tasks/task-123", "historyLength=5"),
    case("POST /message:send", "POST", "/message:send", payload=MESSAGE),
    case(
        "JSON-RPC SendMessage", "POST", "/jsonrpc", payload=rpc("SendMessage", MESSAGE)
    ),
    case(
        "JSON-RPC GetTask",
        "POST",
        "/jsonrpc",
        payload=rpc("GetTask", {"id": "task-123", "historyLength": 5}),
    ),
]
GOALS = {"GET /tasks/{id}", "POST /message:send"}  # the goals name these two
# Only checked, not timed: the version is checked, the task can be missing.
CHECKS = [
    *CASES,
    case("GET /tasks/{id}, A2A-Version 0.3", "GET", "/tasks/task-123", version=b"0.3"),
    case(
        "JSON-RPC GetTask, A2A-Version 0.3",
        "POST",
        "/jsonrpc",
        payload=rpc("GetTask", {"id": "task-123"}),
        version=b"0.3",
    ),
    case("GET /tasks/{id}, no such task", "GET", "/tasks/nope"),
    case(
        "JSON-RPC GetTask, no such task",
        "POST",
        "/jsonrpc",
        payload=rpc("GetTask", {"id": "nope"}),
    ),
]


class Exchange:
    """One request through the ASGI interface: the body in one message, then (should
    the app ask again once the answer is out) a disconnect."""

    __slots__ = ("body", "read", "status", "chunks", "finished", "done")

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.read = False
        self.status = 0
        self.chunks: list[bytes] = []
        self.finished = False
        self.done: asyncio.Event | None = None

    async def receive(self) -> Message:
        if not self.read:
            self.read = True
            return {"type": "http.request", "body": self.body, "more_body": False}
        if not self.finished:  # an app listening for a disconnect mid-answer
            if self.done is None:
                self.done = asyncio.Event()
            await self.done.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            self.status = message["status"]
        elif kind == "http.response.body":
            self.chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                self.finished = True
                if self.done is not None:
                    self.done.set()


async def call(app: App, scope: Message, body: bytes) -> Exchange:
    exchange = Exchange(body)
    await app(dict(scope), exchange.receive, exchange.send)
    return exchange


async def batch(app: App, scope: Message, body: bytes, count: int) -> float:
    """Seconds per request over ``count`` requests."""
    start = time.perf_counter()
    for _ in range(count):
        exchange = Exchange(body)
        await app(dict(scope), exchange.receive, exchange.send)
    return (time.perf_counter() - start) / count


def outcome(exchange: Exchange) -> tuple[Any, ...]:
    """What must agree between the apps: the status, and the result of a success
    (JSON-RPC: the result, or the error code)."""
    try:
        answer = json.loads(b"".join(exchange.chunks))
    except ValueError:
        return (exchange.status, "not JSON")
    if isinstance(answer, dict) and "jsonrpc" in answer:
        if "error" in answer:
            return (exchange.status, "error", answer["error"].get("code"))
        return (exchange.status, answer.get("result"))
    return (exchange.status, answer if exchange.status == 200 else "error")


async def check(apps: dict[str, App]) -> None:
    """Each check request once through each app; prints where they differ from the
    generated app."""
    differ = []
    for probe in CHECKS:
        seen = {
            name: outcome(await call(app, probe.scope, probe.body))
            for name, app in apps.items()
        }
        for name, value in seen.items():
            if value != seen["generated"]:
                differ.append(
                    f"{probe.label}: {name} {value} vs generated {seen['generated']}"
                )
    if differ:
        print("  answers that differ:")
        for line in differ:
            print(f"    {line}")
    else:
        print(
            f"  all apps gave the same status and result to the {len(CHECKS)} check requests"
        )


async def interleaved(apps: dict[str, App]) -> dict[tuple[str, str], list[float]]:
    """Microseconds per request, one sample per round, per (case, app)."""
    counts: dict[tuple[str, str], int] = {}
    for probe in CASES:
        for name, app in apps.items():
            for _ in range(20):  # warm-up
                await call(app, probe.scope, probe.body)
            count, elapsed = 50, 0.0
            while True:
                elapsed = await batch(app, probe.scope, probe.body, count) * count
                if elapsed > BATCH_SECONDS / 5:
                    break
                count *= 2
            counts[probe.label, name] = max(10, int(count * BATCH_SECONDS / elapsed))
    samples: dict[tuple[str, str], list[float]] = {key: [] for key in counts}
    names = list(apps)
    for number in range(ROUNDS):
        gc.collect()
        order = names[number % len(names) :] + names[: number % len(names)]
        if number % 2:
            order.reverse()
        for probe in CASES:
            for name in order:
                key = probe.label, name
                seconds = await batch(apps[name], probe.scope, probe.body, counts[key])
                samples[key].append(seconds * 1e6)
    return samples


def in_process() -> None:
    import logging

    logging.disable(logging.ERROR)  # the SDK logs every error answer

    async def run() -> dict[tuple[str, str], list[float]]:
        apps: dict[str, App] = {
            "generated": generated_app(),
            "sdk": sdk_app(),
            "floor": FloorApp(TrivialAgent()),
        }
        await check(apps)
        apps["unvalidated"] = generated_app(validate=False)
        apps["sdk task machinery"] = await sdk_task_machinery_app()
        apps["driver only"] = driver_only
        return await interleaved(apps)

    print(
        f"\nThe binding alone, in process: {len(CASES)} requests, each app over a "
        f"trivial handler, {ROUNDS} interleaved rounds of ~{BATCH_SECONDS} s batches"
    )
    samples = asyncio.run(run())
    logging.disable(logging.NOTSET)
    rows = [
        ("generated", "generated asgi.create_app"),
        ("sdk", "a2a-sdk 1.3.0 routes (REST + JSON-RPC)"),
        ("floor", "floor: hand-written specialised ASGI app"),
        ("unvalidated", "generated, validate=False (the request as decoded)"),
        (
            "sdk task machinery",
            "a2a-sdk task machinery (DefaultRequestHandlerV2), not the binding",
        ),
        ("driver only", "the ASGI driver alone (fixed answer)"),
    ]
    print("  us per request: median over rounds (min-max)")
    for probe in CASES:
        print(f"  {probe.label}")
        medians: dict[str, float] = {}
        for name, label in rows:
            values = samples[probe.label, name]
            medians[name] = statistics.median(values)
            print(
                f"    {label:<70} {medians[name]:8.1f} ({min(values):.1f}-{max(values):.1f})"
            )
        # per round, the two side by side: the machine's drift cancels
        shares = [
            1 - ratio
            for ratio in _per_round(samples, probe.label, "unvalidated", "generated")
        ]
        share = statistics.median(shares)
        share_goal = " (goal <= 25 %)" if probe.label == "POST /message:send" else ""
        print(
            f"    validation: {share:.0%} of the generated app's time{share_goal}"
            f" (median of the rounds' shares, {min(shares):.0%} to {max(shares):.0%};"
            f" of the medians {1 - medians['unvalidated'] / medians['generated']:.0%})"
        )
        per_round_floor = _per_round(samples, probe.label, "generated", "floor")
        per_round_sdk = _per_round(samples, probe.label, "sdk", "generated")
        floor_goal = " (goal <= 1.6x)" if probe.label in GOALS else ""
        sdk_goal = " (goal >= 8x)" if probe.label in GOALS else ""
        print(
            f"    generated/floor = {medians['generated'] / medians['floor']:4.2f}x"
            f"{floor_goal}, rounds {min(per_round_floor):.2f}-{max(per_round_floor):.2f};"
            f" sdk/generated = {medians['sdk'] / medians['generated']:4.1f}x{sdk_goal},"
            f" rounds {min(per_round_sdk):.1f}-{max(per_round_sdk):.1f}"
        )


def _per_round(
    samples: dict[tuple[str, str], list[float]], label: str, top: str, bottom: str
) -> list[float]:
    return [a / b for a, b in zip(samples[label, top], samples[label, bottom])]


# --- a real server -----------------------------------------------------------------------


def serve(name: str) -> None:
    """The server process: uvicorn on 127.0.0.1, a free port (printed on stdout), for
    at most SERVER_LIFETIME_SECONDS."""
    import socket
    import threading

    import uvicorn

    app = generated_app() if name == "generated" else FloorApp(TrivialAgent())
    # proto IPPROTO_TCP, as uvicorn's own bind has it (getaddrinfo): asyncio sets
    # TCP_NODELAY only on such sockets, and without it Nagle's algorithm and the
    # client's delayed ACKs hold each answer's body for 40 ms.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until uvicorn accepts
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)

    def stop() -> None:
        server.should_exit = True

    for delay, action in (
        (SERVER_LIFETIME_SECONDS, stop),
        (SERVER_LIFETIME_SECONDS + 10, lambda: os._exit(1)),
    ):
        timer = threading.Timer(delay, action)
        timer.daemon = True
        timer.start()
    print(port, flush=True)
    server.run(sockets=[sock])


def http_requests(port: int) -> list[bytes]:
    common = (
        f"Host: 127.0.0.1:{port}\r\nAccept: application/json\r\n"
        "Accept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n"
        "User-Agent: python-httpx/0.28.1\r\nA2A-Version: 1.0\r\n"
    )
    body = json.dumps(MESSAGE)
    return [
        f"GET /tasks/task-123?historyLength=5 HTTP/1.1\r\n{common}\r\n".encode(),
        (
            f"POST /message:send HTTP/1.1\r\n{common}Content-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n{body}"
        ).encode(),
    ]


async def burst(port: int, per_connection: int) -> tuple[float, int, int]:
    """CONNECTIONS keep-alive connections, each sending ``per_connection`` requests one
    after the other (alternating the two); stops at BURST_CAP_SECONDS. Returns
    requests per second, answered requests, and answers other than 200."""
    wire = http_requests(port)
    deadline = time.perf_counter() + BURST_CAP_SECONDS

    async def connection() -> tuple[int, int]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        done = failed = 0
        try:
            for number in range(per_connection):
                if time.perf_counter() > deadline:
                    break
                writer.write(wire[number % 2])
                head = await reader.readuntil(b"\r\n\r\n")
                at = head.lower().find(b"\r\ncontent-length:") + 17
                length = int(head[at : head.find(b"\r\n", at)])
                await reader.readexactly(length)
                done += 1
                failed += head[9:12] != b"200"
        finally:
            writer.close()
            await writer.wait_closed()
        return done, failed

    start = time.perf_counter()
    results = await asyncio.wait_for(
        asyncio.gather(*(connection() for _ in range(CONNECTIONS))),
        BURST_CAP_SECONDS + 5,
    )
    elapsed = time.perf_counter() - start
    done = sum(d for d, _ in results)
    return done / elapsed, done, sum(f for _, f in results)


async def start_server(name: str) -> tuple[asyncio.subprocess.Process, int]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).resolve()),
        "--serve",
        name,
        stdout=asyncio.subprocess.PIPE,
        cwd=ROOT,
    )
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), 30)
        return process, int(line)
    except BaseException:
        await stop_server(process)
        raise


async def stop_server(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
            await process.wait()


def real_server() -> None:
    import uvicorn

    names = ["generated", "floor"]
    total = CONNECTIONS * PER_CONNECTION
    print(
        f"\nReal server: uvicorn {uvicorn.__version__} on 127.0.0.1 (one process per app, "
        "same settings), a pure-Python asyncio client\n"
        f"  {CONNECTIONS} keep-alive connections x {PER_CONNECTION} requests (GET "
        "/tasks/{id} and POST /message:send alternating), "
        f"{SERVER_ROUNDS} interleaved rounds, each burst capped at {BURST_CAP_SECONDS:.0f} s"
    )

    async def run() -> dict[str, list[tuple[float, int, int]]]:
        servers: dict[str, tuple[asyncio.subprocess.Process, int]] = {}
        try:
            for name in names:
                servers[name] = await start_server(name)
            for name in names:
                await burst(servers[name][1], 50)  # warm-up
            results: dict[str, list[tuple[float, int, int]]] = {n: [] for n in names}
            for number in range(SERVER_ROUNDS):
                for name in names if number % 2 == 0 else names[::-1]:
                    results[name].append(await burst(servers[name][1], PER_CONNECTION))
            return results
        finally:
            for process, _ in servers.values():
                await stop_server(process)

    results = asyncio.run(run())
    rates: dict[str, float] = {}
    labels = {
        "generated": "generated asgi.create_app",
        "floor": "floor: hand-written ASGI app",
    }
    for name in names:
        values = [rate for rate, _, _ in results[name]]
        rates[name] = statistics.median(values)
        answered = sum(done for _, done, _ in results[name])
        failed = sum(f for _, _, f in results[name])
        note = (
            f"; {answered} of {SERVER_ROUNDS * total} answered"
            if answered < SERVER_ROUNDS * total
            else ""
        )
        note += f"; {failed} answers not 200" if failed else ""
        print(
            f"  {labels[name]:<42} {rates[name]:8.0f} requests/s "
            f"({min(values):.0f}-{max(values):.0f}){note}"
        )
    per_round = [f[0] / g[0] for f, g in zip(results["floor"], results["generated"])]
    print(
        f"  floor/generated = {rates['floor'] / rates['generated']:4.2f}x in requests/s "
        f"(rounds {min(per_round):.2f}-{max(per_round):.2f}): the generated app serves "
        f"{rates['generated'] / rates['floor']:.0%} of the floor's rate"
    )


# --- import time -------------------------------------------------------------------------


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


def import_times() -> None:
    print("\nImport time (fresh interpreter, median of 7)")
    mine = import_time("import a2a_binding.asgi, a2a_binding.client")
    sdk = import_time(
        "import a2a.server.routes, a2a.server.request_handlers, starlette.applications"
    )
    print(f"  import a2a_binding.asgi, .client  {mine:7.1f} ms")
    print(f"  import a2a-sdk server + Starlette {sdk:7.1f} ms  ({sdk / mine:.0f}x)")
    # routes.py imported messages and protocol until the tables became a layer of
    # their own: the second row is what importing routes loaded then.
    routes = import_time("import a2a_binding.routes")
    before = import_time(
        "import a2a_binding.routes, a2a_binding.messages, a2a_binding.protocol"
    )
    print(f"  import a2a_binding.routes         {routes:7.1f} ms")
    print(
        f"  ... with messages and protocol    {before:7.1f} ms  ({before / routes:.1f}x:"
        " what it loaded before)"
    )


def main() -> None:
    version = importlib.metadata.version
    print(
        f"bench_serving: Python {platform.python_version()} on {platform.machine()}, "
        f"{platform.system()}; a2a-sdk {version('a2a-sdk')}, starlette "
        f"{version('starlette')}, uvicorn {version('uvicorn')}"
    )
    start = time.perf_counter()
    in_process()
    real_server()
    import_times()
    print(f"\nbench_serving took {time.perf_counter() - start:.0f}s")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
    else:
        main()

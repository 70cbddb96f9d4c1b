"""Serving and calling A2A with the committed ``generated/a2a_binding`` alone, end to end.

1. A trivial in-memory handler written with the generated TypedDicts, served by
   ``asgi.create_app`` under uvicorn on loopback, driven by a2a-sdk 1.3.0's own REST and
   JSON-RPC clients: every operation, with and without a tenant, streaming, errors.
2. The same app under hypercorn, and mounted inside Starlette (``Mount``) and FastAPI
   (``app.mount``).
3. The client helpers (``client.prepare`` + httpx, ``read_response``, ``read_stream``)
   against a2a-sdk's own server, over both bindings.
4. mypy --strict names the rpcs a handler class lacks (the docs' examples run in
   tests/test_docs.py).
5. A card built per request from the address reached, the package's OpenAPI document
   served and linked from the card, a handler's ``Unauthenticated``, live and mounted.
"""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.types import a2a_pb2 as pb
from a2a.utils import errors

from .conftest import GENERATED, mypy_strict
from .servers import running
from .test_interop import (
    _every_operation,
    _message,
    _transport,
    sdk_server,
)  # noqa: F401

sys.path.insert(0, str(GENERATED))
try:
    from a2a_binding import asgi, client, messages, protocol
    from a2a_binding.handler import (
        UNAUTHENTICATED_CODE,
        A2AServiceHandler,
        CallContext,
        Unauthenticated,
    )
finally:
    sys.path.remove(str(GENERATED))

CARD: messages.AgentCard = {
    "name": "served-by-create-app",
    "version": "1",
    "capabilities": {
        "streaming": True,
        "pushNotifications": True,
        "extendedAgentCard": True,
    },
}
# a2a-sdk's ClientFactory puts the version on the httpx client; its bare transports don't.
SDK_HEADERS = {"A2A-Version": "1.0"}
TERMINAL = (
    "TASK_STATE_COMPLETED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_FAILED",
    "TASK_STATE_REJECTED",
)


class MemoryAgent:
    """Keeps tasks per tenant in memory: a message saying "hold" leaves its task
    working, any other completes it at once."""

    def __init__(self) -> None:
        self.tasks: dict[tuple[str, str], messages.Task] = {}
        self.configs: dict[
            tuple[str, str, str], messages.TaskPushNotificationConfig
        ] = {}
        self.count = 0

    def _task(self, tenant: str, task_id: str) -> messages.Task:
        task = self.tasks.get((tenant, task_id))
        if task is None:
            raise protocol.A2AError(
                "TaskNotFoundError",
                f"no task {task_id!r}",
                metadata={"taskId": task_id},
            )
        return task

    def _new(
        self, request: messages.SendMessageRequest, context: CallContext
    ) -> messages.Task:
        self.count += 1
        message = request.get("message", {})
        hold = any(part.get("text") == "hold" for part in message.get("parts", []))
        task: messages.Task = {
            "id": f"task-{self.count}",
            "contextId": "ctx",
            "status": {
                "state": "TASK_STATE_WORKING" if hold else "TASK_STATE_COMPLETED"
            },
            "history": [message],
        }
        self.tasks[(context.tenant, task["id"])] = task
        return task

    async def send_message(
        self, request: messages.SendMessageRequest, context: CallContext
    ) -> messages.SendMessageResponse:
        return {"task": self._new(request, context)}

    async def send_streaming_message(
        self, request: messages.SendMessageRequest, context: CallContext
    ) -> AsyncIterator[messages.StreamResponse]:
        task = self._new(request, context)
        working: messages.Task = {**task, "status": {"state": "TASK_STATE_WORKING"}}
        yield {"task": working}
        yield {
            "statusUpdate": {
                "taskId": task["id"],
                "contextId": "ctx",
                "status": task["status"],
            }
        }

    async def get_task(
        self, request: messages.GetTaskRequest, context: CallContext
    ) -> messages.Task:
        task = self._task(context.tenant, request.get("id", ""))
        if request.get("historyLength") == 0:
            return {key: value for key, value in task.items() if key != "history"}  # type: ignore[return-value]
        return task

    async def list_tasks(
        self, request: messages.ListTasksRequest, context: CallContext
    ) -> messages.ListTasksResponse:
        found = [
            task
            for (tenant, _), task in self.tasks.items()
            if tenant == context.tenant
            and request.get("status", task["status"]["state"])
            == task["status"]["state"]
        ]
        return {
            "tasks": found,
            "nextPageToken": "",
            "pageSize": len(found),
            "totalSize": len(found),
        }

    async def cancel_task(
        self, request: messages.CancelTaskRequest, context: CallContext
    ) -> messages.Task:
        task = self._task(context.tenant, request.get("id", ""))
        if task["status"]["state"] in TERMINAL:
            raise protocol.A2AError(
                "TaskNotCancelableError", f"task {task['id']} has ended"
            )
        task["status"] = {"state": "TASK_STATE_CANCELED"}
        return task

    async def subscribe_to_task(
        self, request: messages.SubscribeToTaskRequest, context: CallContext
    ) -> AsyncIterator[messages.StreamResponse]:
        task = self._task(context.tenant, request.get("id", ""))
        if task["status"]["state"] in TERMINAL:
            raise protocol.A2AError("UnsupportedOperationError", "the task has ended")
        yield {"task": task}

    async def create_task_push_notification_config(
        self, request: messages.TaskPushNotificationConfig, context: CallContext
    ) -> messages.TaskPushNotificationConfig:
        self._task(context.tenant, request.get("taskId", ""))
        config = {key: value for key, value in request.items() if key != "tenant"}
        self.configs[(context.tenant, request["taskId"], request["id"])] = config  # type: ignore[assignment]
        return config  # type: ignore[return-value]

    async def get_task_push_notification_config(
        self,
        request: messages.GetTaskPushNotificationConfigRequest,
        context: CallContext,
    ) -> messages.TaskPushNotificationConfig:
        key = (context.tenant, request.get("taskId", ""), request.get("id", ""))
        if key not in self.configs:
            raise protocol.A2AError("TaskNotFoundError", "no such config")
        return self.configs[key]

    async def list_task_push_notification_configs(
        self,
        request: messages.ListTaskPushNotificationConfigsRequest,
        context: CallContext,
    ) -> messages.ListTaskPushNotificationConfigsResponse:
        task_id = request.get("taskId", "")
        return {
            "configs": [
                c
                for (t, i, _), c in self.configs.items()
                if (t, i) == (context.tenant, task_id)
            ]
        }

    async def get_extended_agent_card(
        self, request: messages.GetExtendedAgentCardRequest, context: CallContext
    ) -> messages.AgentCard:
        return CARD

    async def delete_task_push_notification_config(
        self,
        request: messages.DeleteTaskPushNotificationConfigRequest,
        context: CallContext,
    ) -> None:
        self.configs.pop(
            (context.tenant, request.get("taskId", ""), request.get("id", "")), None
        )


def make_app(**options: Any) -> asgi.A2AApplication:
    handler: A2AServiceHandler = (
        MemoryAgent()
    )  # mypy checks the handler is complete here
    return asgi.create_app(
        handler,
        agent_card=CARD,
        http_json_prefix="/rest",
        jsonrpc_path="/jsonrpc",
        **options,
    )


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    with running(make_app()) as base:
        yield base


# ------------------------------------------------------- a2a-sdk's clients, our app


@pytest.mark.parametrize("tenant", ["", "acme"])
@pytest.mark.parametrize("kind", ["rest", "jsonrpc"])
def test_sdk_clients_against_create_app(served: str, kind: str, tenant: str) -> None:
    async def scenario() -> dict[str, Any]:
        async with httpx.AsyncClient(timeout=10, headers=SDK_HEADERS) as http:
            return await _every_operation(_transport(kind, http, served, tenant))

    seen = asyncio.run(scenario())
    done_id, held_id = seen["ids"]
    assert seen["SendMessage"] == (pb.TASK_STATE_COMPLETED, pb.TASK_STATE_WORKING)
    assert seen["SendStreamingMessage"] == ["task", "status_update"]
    assert seen["GetTask"].id == done_id and len(seen["GetTask"].history) == 0
    assert [t.id for t in seen["ListTasks"].tasks] == [
        held_id
    ]  # this tenant's working task only
    assert [e.task.id for e in seen["SubscribeToTask"]] == [held_id]
    assert seen["CancelTask"].status.state == pb.TASK_STATE_CANCELED
    assert seen["CreateTaskPushNotificationConfig"].url == "https://example.test/hook"
    assert seen["GetTaskPushNotificationConfig"].id == "c1"
    assert [c.id for c in seen["ListTaskPushNotificationConfigs"].configs] == ["c1"]
    assert list(seen["DeleteTaskPushNotificationConfig"].configs) == []
    assert seen["GetExtendedAgentCard"].name == "served-by-create-app"


def test_tenants_are_apart_and_errors_reach_the_sdk(served: str) -> None:
    async def scenario() -> None:
        async with httpx.AsyncClient(timeout=10, headers=SDK_HEADERS) as http:
            acme = _transport("rest", http, served, "tenant-b")
            plain = _transport("jsonrpc", http, served, "")
            task = (
                await acme.send_message(pb.SendMessageRequest(message=_message("hold")))
            ).task
            with pytest.raises(errors.TaskNotFoundError):
                await plain.get_task(pb.GetTaskRequest(id=task.id))

    asyncio.run(scenario())


def test_plain_http_answers(served: str) -> None:
    with httpx.Client(base_url=served, timeout=10) as http:
        card = http.get("/acme/.well-known/agent-card.json")
        assert card.status_code == 200 and card.json() == CARD and card.headers["etag"]
        assert (
            http.get(
                "/.well-known/agent-card.json",
                headers={"If-None-Match": card.headers["etag"]},
            ).status_code
            == 304
        )
        bad = http.get(
            "/rest/tasks", params={"pageSize": "1.5"}, headers={"A2A-Version": "1.0"}
        )
        assert (
            bad.status_code == 400
            and bad.json()["error"]["details"][0]["fieldViolations"][0]["field"]
            == "pageSize"
        )
        assert (
            http.delete("/rest/tasks", headers={"A2A-Version": "1.0"}).headers["allow"]
            == "GET, HEAD"
        )
        old = http.get("/rest/tasks")
        assert (
            old.status_code == 400
            and old.json()["error"]["details"][0]["reason"] == "VERSION_NOT_SUPPORTED"
        )
        rpc = http.post(
            "/jsonrpc",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "GetTask",
                "params": {"id": "x"},
            },
        )
        assert rpc.status_code == 200 and rpc.json()["error"]["code"] == -32009


def test_stream_is_closed_when_the_client_leaves() -> None:
    closed = threading.Event()

    class Endless(MemoryAgent):
        async def subscribe_to_task(
            self, request: messages.SubscribeToTaskRequest, context: CallContext
        ) -> AsyncIterator[messages.StreamResponse]:
            try:
                yield {"task": {"id": request.get("id", "")}}
                await asyncio.Event().wait()
                yield {}
            finally:
                closed.set()

    app = asgi.create_app(Endless(), agent_card=CARD)
    with running(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        prepared = client.prepare("SubscribeToTask", {"id": "t1"}, base_url=base)
        with http.stream(
            prepared.method, prepared.url, headers=prepared.headers
        ) as response:
            first = next(client.read_stream("SubscribeToTask", response.iter_bytes()))
            assert first == {"task": {"id": "t1"}}
        assert closed.wait(
            10
        ), "the handler's iterator was not closed after the client left"


# ------------------------------------------------------------ other servers, mounts


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _exercise(http: httpx.Client, base: str) -> None:
    """A unary call, a stream and the card through the client helpers."""
    sent = client.prepare(
        "SendMessage",
        {
            "message": {
                "messageId": "m",
                "role": "ROLE_USER",
                "parts": [{"text": "hold"}],
            }
        },
        base_url=base + "/rest",
    )
    answer = http.request(
        sent.method, sent.url, headers=sent.headers, content=sent.body
    )
    task = client.read_response(
        "SendMessage", answer.status_code, answer.headers.raw, answer.content
    )["task"]
    streamed = client.prepare(
        "SubscribeToTask", {"id": task["id"]}, base_url=base, binding="jsonrpc"
    )
    answer = http.request(
        streamed.method,
        base + "/jsonrpc",
        headers=streamed.headers,
        content=streamed.body,
    )
    assert client.is_event_stream(answer.headers.raw)
    assert [
        e["task"]["id"]
        for e in client.read_stream(
            "SubscribeToTask", [answer.content], binding="jsonrpc"
        )
    ] == [task["id"]]
    assert (
        http.get(base + "/.well-known/agent-card.json").json()["name"] == CARD["name"]
    )


def test_under_hypercorn() -> None:
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    port = _free_port()
    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    stop = threading.Event()
    ready = threading.Event()

    def run() -> None:
        async def main() -> None:
            shutdown = asyncio.Event()

            async def watch() -> None:
                while not stop.is_set():
                    await asyncio.sleep(0.05)
                shutdown.set()

            watcher = asyncio.ensure_future(watch())
            ready.set()
            await serve(make_app(), config, shutdown_trigger=shutdown.wait)  # type: ignore[arg-type]
            await watcher

        asyncio.run(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(10)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(timeout=10) as http:
            deadline = time.monotonic() + 15
            while True:
                try:
                    http.get(base + "/.well-known/agent-card.json")
                    break
                except httpx.ConnectError:
                    assert time.monotonic() < deadline, "hypercorn did not start"
                    time.sleep(0.05)
            _exercise(http, base)
    finally:
        stop.set()
        thread.join(15)
    assert not thread.is_alive()


def test_mounted_in_starlette_and_fastapi() -> None:
    from fastapi import FastAPI
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route

    async def hello(request: Any) -> PlainTextResponse:
        return PlainTextResponse("hello")

    starlette_app = Starlette(
        routes=[Route("/hello", hello), Mount("/agent", app=make_app())]
    )
    fastapi_app = FastAPI()
    fastapi_app.mount("/agent", make_app())

    for app in (starlette_app, fastapi_app):
        with running(app) as base, httpx.Client(timeout=10) as http:
            _exercise(http, base + "/agent")
            escaped = http.get(
                base + "/agent/rest/tasks/a%2Fb", headers={"A2A-Version": "1.0"}
            )
            assert escaped.status_code == 404
            assert (
                escaped.json()["error"]["details"][0]["metadata"]["taskId"] == "a/b"
            )  # %2F stayed in the id
    with running(starlette_app) as base:
        assert httpx.get(base + "/hello").text == "hello"


# ------------------------------------ true URLs, the OpenAPI document, refusals, live


class Guarded(MemoryAgent):
    """The extended card for a bearer token only; its URLs from the call's base URL."""

    async def get_extended_agent_card(
        self, request: messages.GetExtendedAgentCardRequest, context: CallContext
    ) -> messages.AgentCard:
        if context.header("authorization") != "Bearer s3cret":
            raise Unauthenticated(
                "a bearer token is needed", challenge='Bearer realm="t"'
            )
        return {**CARD, "documentationUrl": context.base_url}


def _card_at(base_url: str) -> messages.AgentCard:
    return {
        **CARD,
        "supportedInterfaces": [
            {"url": base_url + "/rest", "protocolBinding": "HTTP+JSON"}
        ],
    }


def test_openapi_document_reads_the_package_file_wherever_it_is_vendored(
    tmp_path: Path,
) -> None:
    document = asgi.openapi_document()
    assert document == (GENERATED / "a2a_binding" / "openapi.json").read_text(
        encoding="utf-8"
    )
    # Vendored under another package, and generated without the document.
    import shutil

    shutil.copytree(GENERATED / "a2a_binding", tmp_path / "vendor" / "a2a_binding")
    (tmp_path / "vendor" / "__init__.py").write_text("")
    probe = "from vendor.a2a_binding import asgi; d = asgi.openapi_document(); print(None if d is None else len(d))"
    found = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout.strip() == str(len(document or ""))
    (tmp_path / "vendor" / "a2a_binding" / "openapi.json").unlink()
    missing = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert missing.stdout.strip() == "None"


def test_true_urls_openapi_and_refusals_under_uvicorn_and_in_a_mount() -> None:
    """The card callable and the extended card see the address the client reached (the
    mount's prefix included); the served document's ``servers`` and the card's
    ``documentationUrl`` lead to the real HTTP+JSON binding; Unauthenticated is a 401
    with its challenge, and the JSON-RPC code with it."""
    from starlette.applications import Starlette
    from starlette.routing import Mount

    def build() -> asgi.A2AApplication:
        return asgi.create_app(
            Guarded(),
            agent_card=_card_at,
            http_json_prefix="/rest",
            jsonrpc_path="/jsonrpc",
            openapi=asgi.openapi_document(),
            link_openapi_in_card=True,
        )

    for app, prefix in (
        (build(), ""),
        (Starlette(routes=[Mount("/agent", app=build())]), "/agent"),
    ):
        with (
            running(app) as served,
            httpx.Client(timeout=10, headers=SDK_HEADERS) as http,
        ):
            base = served + prefix
            card = http.get(base + "/.well-known/agent-card.json").json()
            assert card["supportedInterfaces"][0]["url"] == base + "/rest"
            assert card["documentationUrl"] == base + "/openapi.json"
            document = http.get(card["documentationUrl"])
            assert document.status_code == 200 and document.headers["etag"]
            assert document.json()["paths"] and document.json()["servers"] == [
                {"url": base + "/rest"}
            ]
            server = document.json()["servers"][0]["url"]
            assert (
                http.get(server + "/tasks").json()["tasks"] == []
            )  # the document leads there
            refused = http.get(base + "/rest/extendedAgentCard")
            assert (
                refused.status_code == 401
                and refused.headers["www-authenticate"] == 'Bearer realm="t"'
            )
            assert refused.json()["error"]["status"] == "UNAUTHENTICATED"
            envelope = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "GetExtendedAgentCard",
                "params": {},
            }
            answer = http.post(base + "/jsonrpc", json=envelope)
            assert (
                answer.status_code == 200
                and answer.headers["www-authenticate"] == 'Bearer realm="t"'
            )
            assert answer.json()["error"]["code"] == UNAUTHENTICATED_CODE == -31001
            for binding, reply in (
                ("http+json", refused),
                ("jsonrpc", answer),
            ):  # one error for both
                with pytest.raises(client.AuthenticationRequired) as caught:
                    client.read_response(
                        "GetExtendedAgentCard",
                        reply.status_code,
                        reply.headers.raw,
                        reply.content,
                        binding=binding,
                    )  # type: ignore[arg-type]
                assert caught.value.challenge == 'Bearer realm="t"'
            granted = http.get(
                base + "/rest/extendedAgentCard",
                headers={"Authorization": "Bearer s3cret"},
            )
            assert granted.json()["documentationUrl"] == base


# ---------------------------------------------------- our client, a2a-sdk's server


@pytest.mark.parametrize("binding", ["http+json", "jsonrpc"])
@pytest.mark.parametrize("tenant", ["", "acme"])
def test_client_helpers_against_the_sdk_server(
    sdk_server: tuple[str, Any], binding: str, tenant: str
) -> None:  # noqa: F811
    base, _ = sdk_server
    url = base + ("/jsonrpc" if binding == "jsonrpc" else "")
    options: dict[str, Any] = {
        "base_url": url,
        "binding": binding,
        "tenant": tenant or None,
    }

    def call(rpc: str, request: dict[str, Any]) -> Any:
        sent = client.prepare(rpc, request, **options)
        answer = http.request(
            sent.method, sent.url, headers=sent.headers, content=sent.body
        )
        return client.read_response(
            rpc, answer.status_code, answer.headers.raw, answer.content, binding=binding
        )

    def stream(rpc: str, request: dict[str, Any], limit: int) -> list[Any]:
        sent = client.prepare(rpc, request, **options)
        events: list[Any] = []
        with http.stream(
            sent.method, sent.url, headers=sent.headers, content=sent.body
        ) as answer:
            assert client.is_event_stream(answer.headers.raw)
            for event in client.read_stream(rpc, answer.iter_bytes(), binding=binding):
                events.append(event)
                if len(events) == limit:
                    break
        return events

    with httpx.Client(timeout=10) as http:
        held = call(
            "SendMessage",
            {
                "message": {
                    "messageId": f"h-{binding}-{tenant}",
                    "role": "ROLE_USER",
                    "parts": [{"text": "hold"}],
                }
            },
        )["task"]
        events = stream(
            "SendStreamingMessage",
            {
                "message": {
                    "messageId": f"s-{binding}-{tenant}",
                    "role": "ROLE_USER",
                    "parts": [{"text": "go"}],
                }
            },
            99,
        )
        assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
        assert (
            call("GetTask", {"id": held["id"], "historyLength": 0})["id"] == held["id"]
        )
        assert held["id"] in [
            t["id"]
            for t in call("ListTasks", {"status": "TASK_STATE_WORKING"})["tasks"]
        ]
        assert (
            stream("SubscribeToTask", {"id": held["id"]}, 1)[0]["task"]["id"]
            == held["id"]
        )
        config = {"taskId": held["id"], "id": "c1", "url": "https://example.test/hook"}
        assert call("CreateTaskPushNotificationConfig", config)["id"] == "c1"
        assert call(
            "GetTaskPushNotificationConfig", {"taskId": held["id"], "id": "c1"}
        )["url"]
        assert [
            c["id"]
            for c in call("ListTaskPushNotificationConfigs", {"taskId": held["id"]})[
                "configs"
            ]
        ] == ["c1"]
        assert (
            call("DeleteTaskPushNotificationConfig", {"taskId": held["id"], "id": "c1"})
            == {}
        )
        assert call("GetExtendedAgentCard", {})["name"] == "sdk-server"
        assert (
            call("CancelTask", {"id": held["id"]})["status"]["state"]
            == "TASK_STATE_CANCELED"
        )
        with pytest.raises(protocol.A2AError) as caught:
            call("GetTask", {"id": "no-such-task"})
        assert caught.value.kind.name == "TaskNotFoundError"
        with pytest.raises(protocol.A2AError) as not_cancelable:
            call("CancelTask", {"id": held["id"]})
        assert not_cancelable.value.kind.name == "TaskNotCancelableError"


# ------------------------------------------------------------- typing


def _mypy(source: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "snippet.py").write_text(source)
    return mypy_strict(
        [tmp_path / "snippet.py"],
        cache=tmp_path / "cache",
        cwd=GENERATED,
        mypypath=GENERATED,
    )


def test_mypy_names_the_rpcs_a_handler_lacks(tmp_path: Path) -> None:
    """A class written against the generated Protocol but missing two rpcs: mypy's error
    at ``create_app`` names exactly those two."""
    protocol_source = (GENERATED / "a2a_binding" / "handler.py").read_text()
    body = protocol_source.split("class A2AServiceHandler(Protocol):", 1)[1]
    methods = re.split(r"\n(?=    (?:async )?def )", body)[1:]
    kept = [
        m
        for m in methods
        if not re.match(r"    (?:async )?def (get_task|list_tasks)\(", m)
    ]
    assert len(kept) == len(methods) - 2 == 9
    source = (
        "from collections.abc import AsyncIterator\n"
        "from a2a_binding import messages\n"
        "from a2a_binding.asgi import create_app\n"
        "from a2a_binding.handler import CallContext\n"
        "from a2a_binding.protocol import A2AError\n\n\n"
        "class Partial:\n"
        + "\n".join(kept)
        + '\n\napp = create_app(Partial(), agent_card={"name": "x"})\n'
    )
    result = _mypy(source, tmp_path)
    assert result.returncode == 1, result.stdout
    assert (
        'Argument 1 to "create_app" has incompatible type "Partial"' in result.stdout
    ), result.stdout
    listed = re.search(
        r'"Partial" is missing following "A2AServiceHandler" protocol members:\n'
        r".*note:\s+([\w, ]+)\n",
        result.stdout,
    )
    assert listed is not None, result.stdout
    assert listed.group(1).split(", ") == ["get_task", "list_tasks"], result.stdout


def test_required_fields_are_checked_on_both_bindings(served: str) -> None:
    """`create_app` checks REQUIRED fields (google.api.field_behavior) by default: nested
    ones, on both bindings, as google.rpc.BadRequest field violations."""
    lacking = {"message": {"messageId": "r1", "parts": [{"text": "x"}]}}  # no role
    with httpx.Client(timeout=10) as http:
        sent = client.prepare("SendMessage", lacking, base_url=served + "/rest")
        answer = http.request(
            sent.method, sent.url, headers=sent.headers, content=sent.body
        )
        assert answer.status_code == 400
        status = answer.json()["error"]
        assert status["status"] == "INVALID_ARGUMENT"
        assert status["details"][0]["fieldViolations"] == [
            {"field": "message.role", "description": "a REQUIRED field is missing"}
        ]
        sent = client.prepare(
            "SendMessage", {}, base_url=served + "/jsonrpc", binding="jsonrpc", id=5
        )
        answer = http.request(
            sent.method, sent.url, headers=sent.headers, content=sent.body
        )
        error = answer.json()["error"]
        assert answer.status_code == 200 and error["code"] == -32602
        assert error["data"][0]["fieldViolations"][0]["field"] == "message"
    assert asgi.required_fields("SendMessage", lacking) == [
        ("message.role", "a REQUIRED field is missing")
    ]
    assert asgi.required_fields("GetTask", {"id": "t"}) == []


def test_refusals_say_what_went_wrong(served: str) -> None:
    """A first request with a misspelled field, or without ``A2A-Version``, is told
    which field it misspelled and which version to send, on both bindings."""
    misspelled = {"mesage": {"messageId": "r1", "role": "ROLE_USER", "parts": []}}
    named = {
        "field": "mesage",
        "description": "unknown field (did you mean 'message'?)",
    }
    no_version = (
        "no A2A-Version was sent, and a request naming no version is taken as 0.3"
        " (A2A §3.6.2), which this server does not serve (supported: 1.0):"
        " send A2A-Version: 1.0"
    )
    with httpx.Client(timeout=10) as http:
        for binding, url in (("http+json", "/rest"), ("jsonrpc", "/jsonrpc")):
            sent = client.prepare(
                "SendMessage", misspelled, base_url=served + url, binding=binding, id=1
            )
            answer = http.request(
                sent.method, sent.url, headers=sent.headers, content=sent.body
            )
            error = answer.json()["error"]
            details = error["details"] if binding == "http+json" else error["data"]
            assert details[0]["fieldViolations"] == [
                {"field": "message", "description": "a REQUIRED field is missing"},
                named,
            ]
            unversioned = [(k, v) for k, v in sent.headers if k != "A2A-Version"]
            answer = http.request(
                sent.method, sent.url, headers=unversioned, content=sent.body
            )
            assert answer.json()["error"]["message"] == no_version

"""Interop with the JavaScript SDK @a2a-js/sdk 1.3.0 over loopback, both directions.

1. The JS SDK's Express server (tests/js/server.mjs, its own in-memory executor) driven
   by requests built only with the generated package (``routes.build``,
   ``jsonrpc.request``) plus the headers A2A requires: every operation, with and
   without a tenant, streaming, awkward ids, and its error answers compared field by
   field with the generated error table.
2. The JS SDK's REST and JSON-RPC clients (tests/js/client.mjs), discovering our example
   server (examples/a2a_server.py) from its agent card, running every operation.

Where the JS SDK and the spec disagree, a ``test_known_difference_*`` asserts what the
JS SDK really does, beside what our table does: recorded evidence, never a pass of ours.
Node and npm are needed; tests/jsenv.py installs the SDK into .cache/js/ on first use.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import httpx
import pytest

from . import jsenv

from .servers import running

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
# Every character the brief names, non-ASCII, and ids that look like literal segments.
AWKWARD_IDS = [
    "a/b",
    "a?b",
    "a#b",
    "a%2Fb",
    "a:b",
    "a b",
    "\u00e9t\u00e9-\u2713",
    ":cancel",
    "tasks",
]
SEEDED_IDS = [*AWKWARD_IDS, "extendedAgentCard"]
TENANTS = ["", "acme"]
NODE_TIMEOUT = 30.0


def request_headers(
    binding: str, *, body: object, extensions: tuple[str, ...] = ()
) -> list[tuple[str, str]]:
    """The headers the generated package says an A2A client sends
    (``protocol.request_headers``): ``A2A-Version``, the binding's Content-Type when
    there is a body (``body`` is None or False when there is none), ``A2A-Extensions``.
    The ``a2a`` fixture has imported the package by the time a test calls this."""
    protocol = sys.modules["a2a_binding.protocol"]
    has_body = body is not None and body is not False
    return list(protocol.request_headers(binding, body=has_body, extensions=extensions))


# --- running node -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def js_dir() -> Path:
    return jsenv.install()


@pytest.fixture(scope="module")
def js_server(js_dir: Path) -> Iterator[str]:
    """The JS SDK's Express server on a free loopback port; its base URL."""
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(
            [jsenv.node(), str(js_dir / "server.mjs"), json.dumps(SEEDED_IDS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=js_dir,
        )
        assert process.stdout is not None and process.stdin is not None
        try:
            ready, _, _ = select.select([process.stdout], [], [], NODE_TIMEOUT)
            line = process.stdout.readline() if ready else b""
            if not line:
                process.kill()
                stderr.seek(0)
                pytest.fail(
                    f"the JS server did not start:\n{stderr.read().decode()[-3000:]}"
                )
            yield f"http://127.0.0.1:{json.loads(line)['port']}"
        finally:
            process.stdin.close()  # the script exits when its stdin closes
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def _kind(a2a: ModuleType, name: str) -> Any:
    return a2a.jsonrpc.A2A_ERRORS[name]


def grpc_status_number(name: str) -> int:
    """The number of the gRPC status code ``name`` (``"NOT_FOUND"`` is 5)."""
    number: int = grpc.StatusCode[name].value[0]
    return number


# --- 1. the JS server, driven by the generated package --------------------------------------


def _rest(
    client: httpx.Client,
    a2a: ModuleType,
    rpc: str,
    request: dict[str, Any],
    tenant: str = "",
    *,
    prefix: str = "/rest",
    headers: list[tuple[str, str]] | None = None,
) -> httpx.Response:
    built = a2a.routes.build(rpc, request, tenant=tenant or None)
    body = None if built.body is None else json.dumps(built.body).encode()
    sent = request_headers("http+json", body=body) if headers is None else headers
    return client.request(
        built.verb, prefix + built.path, params=built.query, content=body, headers=sent
    )


def _rpc(
    client: httpx.Client,
    a2a: ModuleType,
    method: str,
    params: dict[str, Any],
    request_id: int,
    tenant: str = "",
    *,
    prefix: str = "/jsonrpc",
    headers: list[tuple[str, str]] | None = None,
) -> httpx.Response:
    path, envelope = a2a.jsonrpc.request(
        method, params, request_id, tenant=tenant or None, base=prefix
    )
    body = json.dumps(envelope).encode()
    sent = request_headers("jsonrpc", body=body) if headers is None else headers
    return client.post(path, content=body, headers=sent)


def _sse(response: httpx.Response) -> list[Any]:
    """The ``data`` of each event of an event stream (HTML event-stream rules: lines
    joined with "\\n", comments skipped, a blank line ends an event)."""
    assert response.headers["content-type"].startswith(
        "text/event-stream"
    ), response.headers
    events: list[Any] = []
    data: list[str] = []
    for line in response.iter_lines():
        if not line:
            if data:
                events.append(json.loads("\n".join(data)))
            data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if (
        data
    ):  # an unterminated last event is dropped by the rules; the JS server ends each
        pytest.fail(f"unterminated SSE event: {data}")
    return events


def _stream_rest(
    client: httpx.Client,
    a2a: ModuleType,
    rpc: str,
    request: dict[str, Any],
    tenant: str,
) -> list[Any]:
    built = a2a.routes.build(rpc, request, tenant=tenant or None)
    body = None if built.body is None else json.dumps(built.body).encode()
    with client.stream(
        built.verb,
        "/rest" + built.path,
        params=built.query,
        content=body,
        headers=request_headers("http+json", body=body),
    ) as response:
        assert response.status_code == 200, response.read()
        return _sse(response)


def _stream_rpc(
    client: httpx.Client,
    a2a: ModuleType,
    method: str,
    params: dict[str, Any],
    request_id: int,
    tenant: str,
) -> list[Any]:
    path, envelope = a2a.jsonrpc.request(
        method, params, request_id, tenant=tenant or None, base="/jsonrpc"
    )
    body = json.dumps(envelope).encode()
    with client.stream(
        "POST", path, content=body, headers=request_headers("jsonrpc", body=body)
    ) as response:
        assert response.status_code == 200, response.read()
        return _sse(response)


def _message(text: str) -> dict[str, Any]:
    return {
        "message": {
            "messageId": f"m-{text}",
            "role": "ROLE_USER",
            "parts": [{"text": text}],
        }
    }


@pytest.mark.parametrize("tenant", TENANTS)
def test_every_operation_over_http_json_against_the_js_server(
    js_server: str, a2a: ModuleType, tenant: str
) -> None:
    with httpx.Client(base_url=js_server, timeout=10) as client:
        held = _rest(client, a2a, "SendMessage", _message("hold"), tenant)
        assert held.status_code == 200, held.text
        held_id = held.json()["task"]["id"]
        assert held.json()["task"]["status"]["state"] == "TASK_STATE_WORKING"
        done = _rest(client, a2a, "SendMessage", _message("done"), tenant).json()[
            "task"
        ]
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        assert done["artifacts"][0]["parts"] == [{"text": "done"}]
        events = _stream_rest(
            client, a2a, "SendStreamingMessage", _message("stream"), tenant
        )
        assert [next(iter(e)) for e in events] == [
            "task",
            "artifactUpdate",
            "statusUpdate",
        ]
        assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
        got = _rest(
            client, a2a, "GetTask", {"id": done["id"], "historyLength": 0}, tenant
        )
        assert (
            got.status_code == 200
            and got.json()["id"] == done["id"]
            and "history" not in got.json()
        )
        listed = _rest(
            client,
            a2a,
            "ListTasks",
            {"status": "TASK_STATE_WORKING", "pageSize": 100},
            tenant,
        )
        ids = [t["id"] for t in listed.json()["tasks"]]
        assert held_id in ids and done["id"] not in ids and set(SEEDED_IDS) <= set(ids)
        subscribed = _stream_rest(
            client, a2a, "SubscribeToTask", {"id": held_id}, tenant
        )  # POST (D1)
        assert [e["task"]["id"] for e in subscribed] == [held_id]
        config = {
            "taskId": done["id"],
            "id": "c1",
            "url": "https://example.test/hook",
            "token": "t",
        }
        created = _rest(client, a2a, "CreateTaskPushNotificationConfig", config, tenant)
        assert (
            created.is_success and created.json()["url"] == config["url"]
        ), created.text
        fetched = _rest(
            client,
            a2a,
            "GetTaskPushNotificationConfig",
            {"taskId": done["id"], "id": "c1"},
            tenant,
        )
        assert fetched.json()["id"] == "c1" and fetched.json()["taskId"] == done["id"]
        configs = _rest(
            client,
            a2a,
            "ListTaskPushNotificationConfigs",
            {"taskId": done["id"], "pageSize": 10},
            tenant,
        )
        assert [c["id"] for c in configs.json()["configs"]] == ["c1"]
        deleted = _rest(
            client,
            a2a,
            "DeleteTaskPushNotificationConfig",
            {"taskId": done["id"], "id": "c1"},
            tenant,
        )
        assert deleted.is_success, deleted.text
        after = _rest(
            client,
            a2a,
            "ListTaskPushNotificationConfigs",
            {"taskId": done["id"]},
            tenant,
        )
        assert after.json().get("configs", []) == []
        card = _rest(client, a2a, "GetExtendedAgentCard", {}, tenant)
        assert (
            card.status_code == 200 and card.json()["name"] == "js-sdk-server-extended"
        )
        cancelled = _rest(
            client, a2a, "CancelTask", {"id": held_id}, tenant
        )  # no body, no Content-Type
        assert cancelled.json()["status"]["state"] == "TASK_STATE_CANCELED"
        # The tenant is a real scope on the JS server: the other tenant cannot see the task.
        other = "" if tenant else "acme"
        assert _rest(client, a2a, "GetTask", {"id": held_id}, other).status_code == 404


@pytest.mark.parametrize("tenant", TENANTS)
def test_every_operation_over_jsonrpc_against_the_js_server(
    js_server: str, a2a: ModuleType, tenant: str
) -> None:
    with httpx.Client(base_url=js_server, timeout=10) as client:

        def call(method: str, params: dict[str, Any], request_id: int) -> Any:
            answer = _rpc(client, a2a, method, params, request_id, tenant)
            assert (
                answer.status_code == 200 and answer.json()["id"] == request_id
            ), answer.text
            assert "error" not in answer.json(), answer.json()
            return answer.json()["result"]

        held_id = call("SendMessage", _message("hold"), 1)["task"]["id"]
        done = call("SendMessage", _message("done"), 2)["task"]
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        events = _stream_rpc(
            client, a2a, "SendStreamingMessage", _message("stream"), 3, tenant
        )
        assert all(e["jsonrpc"] == "2.0" and e["id"] == 3 for e in events)
        assert [next(iter(e["result"])) for e in events] == [
            "task",
            "artifactUpdate",
            "statusUpdate",
        ]
        got = call("GetTask", {"id": done["id"], "historyLength": 0}, 4)
        assert got["id"] == done["id"] and "history" not in got
        ids = [
            t["id"]
            for t in call(
                "ListTasks", {"status": "TASK_STATE_WORKING", "pageSize": 100}, 5
            )["tasks"]
        ]
        assert held_id in ids and done["id"] not in ids
        subscribed = _stream_rpc(
            client, a2a, "SubscribeToTask", {"id": held_id}, 6, tenant
        )
        assert [e["result"]["task"]["id"] for e in subscribed] == [held_id]
        config = {"taskId": done["id"], "id": "c1", "url": "https://example.test/hook"}
        assert call("CreateTaskPushNotificationConfig", config, 7)["id"] == "c1"
        assert (
            call(
                "GetTaskPushNotificationConfig", {"taskId": done["id"], "id": "c1"}, 8
            )["url"]
            == config["url"]
        )
        assert [
            c["id"]
            for c in call("ListTaskPushNotificationConfigs", {"taskId": done["id"]}, 9)[
                "configs"
            ]
        ] == ["c1"]
        call("DeleteTaskPushNotificationConfig", {"taskId": done["id"], "id": "c1"}, 10)
        assert (
            call("ListTaskPushNotificationConfigs", {"taskId": done["id"]}, 11).get(
                "configs", []
            )
            == []
        )
        assert call("GetExtendedAgentCard", {}, 12)["name"] == "js-sdk-server-extended"
        assert (
            call("CancelTask", {"id": held_id}, 13)["status"]["state"]
            == "TASK_STATE_CANCELED"
        )
        other = _rpc(
            client, a2a, "GetTask", {"id": held_id}, 14, "" if tenant else "acme"
        ).json()
        assert other["error"]["code"] == _kind(a2a, "TaskNotFoundError").code


@pytest.mark.parametrize("tenant", TENANTS)
@pytest.mark.parametrize("task_id", AWKWARD_IDS)
def test_awkward_ids_reach_the_js_server_intact(
    js_server: str, a2a: ModuleType, task_id: str, tenant: str
) -> None:
    config_id = f"cfg {task_id}"
    with httpx.Client(base_url=js_server, timeout=10) as client:
        got = _rest(client, a2a, "GetTask", {"id": task_id}, tenant)
        assert got.status_code == 200 and got.json()["id"] == task_id, got.text
        config = {
            "taskId": task_id,
            "id": config_id,
            "url": "https://example.test/hook",
        }
        assert _rest(
            client, a2a, "CreateTaskPushNotificationConfig", config, tenant
        ).is_success
        fetched = _rest(
            client,
            a2a,
            "GetTaskPushNotificationConfig",
            {"taskId": task_id, "id": config_id},
            tenant,
        )
        assert (fetched.json()["taskId"], fetched.json()["id"]) == (
            task_id,
            config_id,
        ), fetched.text
        rpc_got = _rpc(
            client,
            a2a,
            "GetTaskPushNotificationConfig",
            {"taskId": task_id, "id": config_id},
            1,
            tenant,
        )
        assert rpc_got.json()["result"]["id"] == config_id
        deleted = _rest(
            client,
            a2a,
            "DeleteTaskPushNotificationConfig",
            {"taskId": task_id, "id": config_id},
            tenant,
        )
        assert deleted.is_success, deleted.text
        assert (
            _rpc(client, a2a, "GetTask", {"id": task_id}, 2, tenant).json()["result"][
                "id"
            ]
            == task_id
        )


def _completed_task(client: httpx.Client, a2a: ModuleType) -> str:
    task_id: str = _rest(client, a2a, "SendMessage", _message("done")).json()["task"][
        "id"
    ]
    return task_id


# Each scenario provokes one A2A error on the JS server, over HTTP+JSON or JSON-RPC.
Scenario = Callable[[httpx.Client, ModuleType, str], httpx.Response]


def _call(
    rpc: str,
    request: Callable[[httpx.Client, ModuleType], dict[str, Any]],
    *,
    prefix: str = "",
    headers: Callable[[str, bytes | None], list[tuple[str, str]]] | None = None,
) -> Scenario:
    def run(client: httpx.Client, a2a: ModuleType, binding: str) -> httpx.Response:
        params = request(client, a2a)
        if binding == "http+json":
            built = a2a.routes.build(rpc, params)
            body = None if built.body is None else json.dumps(built.body).encode()
            sent = (
                headers(binding, body)
                if headers
                else request_headers(binding, body=body)
            )
            return client.request(
                built.verb,
                f"{prefix}/rest{built.path}",
                params=built.query,
                content=body,
                headers=sent,
            )
        path, envelope = a2a.jsonrpc.request(rpc, params, 7, base=f"{prefix}/jsonrpc")
        body = json.dumps(envelope).encode()
        return client.post(
            path,
            content=body,
            headers=(
                headers(binding, body)
                if headers
                else request_headers(binding, body=body)
            ),
        )

    return run


ERROR_SCENARIOS: dict[str, Scenario] = {
    "TaskNotFoundError": _call("GetTask", lambda c, a: {"id": "no-such-task"}),
    "TaskNotCancelableError": _call(
        "CancelTask", lambda c, a: {"id": _completed_task(c, a)}
    ),
    "UnsupportedOperationError": _call(
        "SubscribeToTask", lambda c, a: {"id": _completed_task(c, a)}
    ),
    "PushNotificationNotSupportedError": _call(
        "CreateTaskPushNotificationConfig",
        lambda c, a: {"taskId": "t", "url": "https://example.test/h"},
        prefix="/bare",
    ),
    "ExtendedAgentCardNotConfiguredError": _call(
        "GetExtendedAgentCard", lambda c, a: {}, prefix="/bare"
    ),
    "VersionNotSupportedError": _call(  # no A2A-Version: the spec reads it as 0.3
        "GetTask",
        lambda c, a: {"id": "tasks"},
        headers=lambda binding, body: [
            h for h in request_headers(binding, body=body) if h[0] != "A2A-Version"
        ],
    ),
    "ContentTypeNotSupportedError": _call(
        "SendMessage",
        lambda c, a: _message("x"),
        headers=lambda binding, body: [
            ("A2A-Version", "1.0"),
            ("Content-Type", "text/plain"),
        ],
    ),
}


@pytest.mark.parametrize("binding", ["http+json", "jsonrpc"])
@pytest.mark.parametrize("name", sorted(ERROR_SCENARIOS))
def test_js_server_errors_match_the_generated_error_table(
    js_server: str, a2a: ModuleType, name: str, binding: str
) -> None:
    """The JS server's own answer, field by field, against what the generated package
    renders for the same error and message (§5.4, §9.5, §11.6)."""
    kind = _kind(a2a, name)
    with httpx.Client(base_url=js_server, timeout=10) as client:
        answer = ERROR_SCENARIOS[name](client, a2a, binding)
    if binding == "http+json":
        assert answer.status_code == kind.http_status, answer.text
        error = answer.json()["error"]
        assert error == kind.status(error["message"])
    else:
        assert answer.status_code == 200, answer.text
        error = answer.json()["error"]
        ours = kind.error(
            error["message"], data=kind.status(error["message"])["details"]
        ).to_dict()
        assert error == ours
        # A refused Content-Type is answered before the body is read: no id to echo.
        assert answer.json()["id"] == (
            None if name == "ContentTypeNotSupportedError" else 7
        )


# --- known differences: the JS SDK against the spec, with the evidence ----------------------


def test_known_difference_js_routes_tasks_extendedAgentCard_to_the_tenant_route(
    js_server: str, a2a: ModuleType
) -> None:
    """A task whose id is "extendedAgentCard" exists, and our table (like a2a-sdk) reads
    GET /tasks/extendedAgentCard as GetTask; the JS server's routes are tried in
    registration order, so it answers GetExtendedAgentCard for tenant "tasks" instead.
    """
    built = a2a.routes.build("GetTask", {"id": "extendedAgentCard"})
    assert built.path == "/tasks/extendedAgentCard"
    found = a2a.routes.match("GET", built.path)
    assert found.route.rpc == "GetTask" and found.params == {"id": "extendedAgentCard"}
    with httpx.Client(base_url=js_server, timeout=10) as client:
        js = _rest(client, a2a, "GetTask", {"id": "extendedAgentCard"})
        assert (
            js.status_code == 200
            and js.json()["name"] == "js-sdk-server-extended"
            and "status" not in js.json()
        )
        # The same task is there: JSON-RPC, which has no routes, finds it.
        rpc = _rpc(client, a2a, "GetTask", {"id": "extendedAgentCard"}, 1)
        assert rpc.json()["result"]["id"] == "extendedAgentCard"


def test_known_difference_js_routes_tasks_tasks_configs_to_the_tenant_route(
    js_server: str, a2a: ModuleType
) -> None:
    """GET /tasks/tasks/pushNotificationConfigs lists the configs of task "tasks" in our
    table; the JS server tries /:tenant/tasks/:taskId first: GetTask("pushNotificationConfigs")
    in tenant "tasks", a TaskNotFound."""
    built = a2a.routes.build("ListTaskPushNotificationConfigs", {"taskId": "tasks"})
    assert built.path == "/tasks/tasks/pushNotificationConfigs"
    assert (
        a2a.routes.match("GET", built.path).route.rpc
        == "ListTaskPushNotificationConfigs"
    )
    with httpx.Client(base_url=js_server, timeout=10) as client:
        js = _rest(client, a2a, "ListTaskPushNotificationConfigs", {"taskId": "tasks"})
        assert js.status_code == 404, js.text
        assert js.json()["error"]["details"][0]["reason"] == "TASK_NOT_FOUND"
        assert "pushNotificationConfigs" in js.json()["error"]["message"]
        rpc = _rpc(
            client, a2a, "ListTaskPushNotificationConfigs", {"taskId": "tasks"}, 1
        )
        assert "error" not in rpc.json(), rpc.text


def test_known_difference_js_answers_201_and_204_for_push_configs(
    js_server: str, a2a: ModuleType
) -> None:
    """Create answers 201 and delete 204 with no body (a2a-sdk: 200 and 200 ``{}``); the
    JSON-RPC delete result is null. Our client side reads any 2xx."""
    with httpx.Client(base_url=js_server, timeout=10) as client:
        config = {"taskId": "tasks", "id": "k", "url": "https://example.test/hook"}
        created = _rest(client, a2a, "CreateTaskPushNotificationConfig", config)
        assert created.status_code == 201 and created.json()["id"] == "k"
        deleted = _rest(
            client,
            a2a,
            "DeleteTaskPushNotificationConfig",
            {"taskId": "tasks", "id": "k"},
        )
        assert deleted.status_code == 204 and deleted.content == b""
        assert (
            _rpc(client, a2a, "CreateTaskPushNotificationConfig", config, 1).json()[
                "result"
            ]["id"]
            == "k"
        )
        rpc = _rpc(
            client,
            a2a,
            "DeleteTaskPushNotificationConfig",
            {"taskId": "tasks", "id": "k"},
            2,
        ).json()
        assert rpc == {"jsonrpc": "2.0", "id": 2, "result": None}


def test_known_difference_js_jsonrpc_refuses_a2a_json(
    js_server: str, a2a: ModuleType
) -> None:
    """We accept ``application/a2a+json`` on JSON-RPC as well as ``application/json``; the
    JS JSON-RPC server refuses it with -32005 (its REST server takes both)."""
    headers = [("A2A-Version", "1.0"), ("Content-Type", "application/a2a+json")]
    with httpx.Client(base_url=js_server, timeout=10) as client:
        rpc = _rpc(client, a2a, "GetTask", {"id": "tasks"}, 1, headers=headers).json()
        assert rpc["error"]["code"] == _kind(a2a, "ContentTypeNotSupportedError").code
        rest = _rest(client, a2a, "SendMessage", _message("x"), headers=headers)
        assert rest.status_code == 200, rest.text


def test_known_difference_js_ignores_the_version_query_parameter(
    js_server: str, a2a: ModuleType
) -> None:
    """A client may send ``A2A-Version`` as a query parameter (§3.2.6); the JS server
    reads only the header, so the request is taken for 0.3 and refused."""
    built = a2a.routes.build("GetTask", {"id": "tasks"})
    with httpx.Client(base_url=js_server, timeout=10) as client:
        in_query = client.get(
            "/rest" + built.path, params=[*built.query, ("A2A-Version", "1.0")]
        )
        assert in_query.status_code == 400
        assert (
            in_query.json()["error"]["details"][0]["reason"] == "VERSION_NOT_SUPPORTED"
        )
        assert "'0.3'" in in_query.json()["error"]["message"]
        assert _rest(client, a2a, "GetTask", {"id": "tasks"}).status_code == 200


# --- 2. the JS clients against our example server -------------------------------------------


@pytest.fixture(scope="module")
def our_server(example: ModuleType) -> Iterator[str]:
    """The example serving all three bindings (gRPC on a free port, in its card)."""
    app = example.create_app(grpc_port=0, grpc_host="127.0.0.1")
    with running(app) as base:
        assert app.handler.grpc is not None, "the lifespan did not start gRPC"
        yield base


def _run_js_client(
    js_dir: Path, base: str, binding: str, tenant: str, bearer: str
) -> dict[str, Any]:
    config = {
        "base": base,
        "binding": binding,
        "tenant": tenant,
        "awkwardIds": AWKWARD_IDS,
        "bearer": bearer,
    }
    return jsenv.run_script(js_dir, "client.mjs", config, NODE_TIMEOUT)


def _card_problem(base: str, result: dict[str, Any]) -> str:
    """Names the card fields that kept the JS client from working, for the failure message."""
    card = httpx.get(
        base + "/.well-known/agent-card.json", headers=[("A2A-Version", "1.0")]
    ).json()
    return (
        f"served on {base}; card supportedInterfaces={card.get('supportedInterfaces')} "
        f"capabilities={card.get('capabilities')}; JS client: {result.get('discovery') or result.get('steps')}"
    )


@pytest.mark.parametrize("tenant", TENANTS)
@pytest.mark.parametrize("binding", ["HTTP+JSON", "JSONRPC", "GRPC"])
def test_js_clients_against_our_server(
    js_dir: Path,
    our_server: str,
    example: ModuleType,
    a2a: ModuleType,
    binding: str,
    tenant: str,
) -> None:
    result = _run_js_client(js_dir, our_server, binding, tenant, example.DEFAULT_TOKEN)
    assert "discovery" not in result, _card_problem(our_server, result)
    assert result["transport"] == binding
    steps = result["steps"]
    ok = {name: step["ok"] for name, step in steps.items() if "ok" in step}
    failed = {
        name: step["error"]
        for name, step in steps.items()
        if "error" in step and not name.startswith(("error", "awkward task"))
    }
    assert not failed, f"{failed}\n{_card_problem(our_server, result)}"

    done, held = ok["SendMessage"]["task"], ok["SendMessage hold"]["task"]
    assert (done["status"]["state"], held["status"]["state"]) == (
        "TASK_STATE_COMPLETED",
        "TASK_STATE_WORKING",
    )
    assert [next(iter(e)) for e in ok["SendStreamingMessage"]][0] == "task"
    assert (
        ok["SendStreamingMessage"][-1]["statusUpdate"]["status"]["state"]
        == "TASK_STATE_COMPLETED"
    )
    assert ok["GetTask"]["id"] == done["id"] and "history" not in ok["GetTask"]
    assert [t["id"] for t in ok["ListTasks"]["tasks"]] == [
        held["id"]
    ]  # this tenant's working task only
    assert [e["task"]["id"] for e in ok["SubscribeToTask"]] == [held["id"]]
    assert ok["CancelTask"]["status"]["state"] == "TASK_STATE_CANCELED"
    assert ok["CreateTaskPushNotificationConfig"]["url"] == "https://example.test/hook"
    assert ok["GetTaskPushNotificationConfig"]["id"] == "c1"
    assert [c["id"] for c in ok["ListTaskPushNotificationConfigs"]["configs"]] == ["c1"]
    assert ok["DeleteTaskPushNotificationConfig"].get("configs", []) == []
    with httpx.Client(base_url=our_server, timeout=10) as client:
        built = a2a.routes.build("GetExtendedAgentCard", {})
        bearer = ("Authorization", f"Bearer {example.DEFAULT_TOKEN}")
        direct = client.get(
            "/rest" + built.path,
            headers=[*request_headers("http+json", body=None), bearer],
        )
    assert direct.status_code == 200, direct.text
    expected = direct.json()
    if binding == "GRPC":  # a call over gRPC names no HTTP address: its own interface
        expected["supportedInterfaces"] = [
            i for i in expected["supportedInterfaces"] if i["protocolBinding"] == "GRPC"
        ]
    assert ok["GetExtendedAgentCard"] == expected

    for name, code in [
        ("TaskNotFound", "TaskNotFoundError"),
        ("TaskNotCancelable", "TaskNotCancelableError"),
        ("UnsupportedOperation", "UnsupportedOperationError"),
    ]:
        error, kind = steps[f"error {name}"]["error"], _kind(a2a, code)
        assert (error["name"], error["reason"]) == (code, kind.reason), error
        if binding == "HTTP+JSON":
            assert error["statusCode"] == kind.http_status
        elif binding == "JSONRPC":
            assert error["envelopeCode"] == kind.code
        else:  # the reason came back in the status details, the code beside it
            assert error["grpcCode"] == grpc_status_number(kind.grpc_status), error

    for awkward in AWKWARD_IDS:
        assert ok[f"awkward create {awkward}"]["id"] == awkward
        assert ok[f"awkward get {awkward}"]["id"] == awkward
        assert steps[f"awkward task {awkward}"]["error"]["name"] == "TaskNotFoundError"

    sent = result["sent"]
    assert sent[0]["path"] == "/.well-known/agent-card.json"  # discovery comes first
    assert all(request["version"] == "1.0" for request in sent), sent
    api = [r for r in sent if r["path"] != "/.well-known/agent-card.json"]
    if binding == "GRPC":
        assert api == []  # the card over HTTP, every call over gRPC
    elif binding == "JSONRPC":
        assert {r["path"] for r in api} == {"/jsonrpc"}  # tenants ride in params.tenant
    else:
        prefix = f"/rest/{tenant}/" if tenant else "/rest/"
        paths = [r["path"] for r in api]
        assert all(path.startswith(prefix) for path in paths), paths
        # The JS client's encoding of every awkward id routes back to that id in our table.
        for awkward in AWKWARD_IDS:
            ours = a2a.routes.build(
                "GetTask", {"id": awkward}, tenant=tenant or None
            ).path
            assert ("/rest" + ours) in paths, (awkward, ours)
            found = a2a.routes.match("GET", ours)
            assert found.params["id"] == awkward
        assert f"POST {prefix}tasks/{held['id']}:subscribe" in [
            f"{r['method']} {r['path']}" for r in api
        ]

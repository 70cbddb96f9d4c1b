"""0.3 beside 1.0 in the ASGI application (``codegen/runtime/serve/_asgi.py`` with
``supported_versions=("1.0", "0.3")``): a 0.3 JSON-RPC request reaches the one 1.0
handler in the 1.0 form, validated, and its answers, stream events and errors go back
in 0.3's form; the card is the one both read; 1.0 requests are served as before.

The application is the runtime's, over the tables of the committed A2A package
(``generated/a2a_binding``: its JSON-RPC methods, routes and ``messages.SCHEMA``) and a
small in-memory 1.0 handler written here. Real 0.3 clients (a2a-sdk 0.3.26, the JS
SDK, the 0.3 kit) are driven against the example elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest

from tests.runtime.apps import application
from codegen.runtime._asgi import A2AApplication, CallContext
from codegen.runtime._errors import A2AError
from codegen.runtime._jsonrpc import JsonRpcBinding
from codegen.runtime._sse_parser import parse_sse
from codegen.runtime._v0_3_serving import V0_3Serving
from codegen.runtime._validate import Schema
from tests.runtime.test_asgi import drive, run

CARD = {
    "name": "both",
    "description": "serves 1.0 and 0.3",
    "version": "1",
    "supportedInterfaces": [
        {"url": "http://test/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ],
    "capabilities": {"streaming": True, "extendedAgentCard": True},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [],
}

MESSAGE_03 = {
    "kind": "message",
    "messageId": "m-1",
    "role": "user",
    "parts": [{"kind": "text", "text": "hello"}],
}


class Store:
    """A 1.0 handler keeping tasks in memory; ``calls`` records each (rpc, request,
    version) it was given."""

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, Any]] = {}
        self.configs: dict[str, dict[str, Any]] = {}
        self.calls: list[tuple[str, dict[str, Any], str]] = []

    def _seen(self, rpc: str, request: dict[str, Any], context: CallContext) -> None:
        self.calls.append((rpc, request, context.params.version))

    def _task(self, task_id: str) -> dict[str, Any]:
        if task_id not in self.tasks:
            raise A2AError("TaskNotFoundError", f"no task {task_id!r}")
        return self.tasks[task_id]

    async def send_message(self, request: Any, context: CallContext) -> Any:
        self._seen("SendMessage", request, context)
        task_id = f"t-{len(self.tasks) + 1}"
        task = {
            "id": task_id,
            "contextId": "c-1",
            "status": {"state": "TASK_STATE_COMPLETED"},
            "history": [dict(request["message"], taskId=task_id, contextId="c-1")],
        }
        self.tasks[task_id] = task
        return {"task": task}

    async def send_streaming_message(
        self, request: Any, context: CallContext
    ) -> AsyncIterator[Any]:
        self._seen("SendStreamingMessage", request, context)
        task = {
            "id": "t-s",
            "contextId": "c-1",
            "status": {"state": "TASK_STATE_WORKING"},
        }
        self.tasks["t-s"] = task
        yield {"task": task}
        for state in ("TASK_STATE_WORKING", "TASK_STATE_COMPLETED"):
            yield {
                "statusUpdate": {
                    "taskId": "t-s",
                    "contextId": "c-1",
                    "status": {"state": state},
                }
            }

    async def get_task(self, request: Any, context: CallContext) -> Any:
        self._seen("GetTask", request, context)
        return self._task(request["id"])

    async def list_tasks(self, request: Any, context: CallContext) -> Any:
        self._seen("ListTasks", request, context)
        return {"tasks": list(self.tasks.values())}

    async def cancel_task(self, request: Any, context: CallContext) -> Any:
        self._seen("CancelTask", request, context)
        task = self._task(request["id"])
        task["status"] = {"state": "TASK_STATE_CANCELED"}
        return task

    async def subscribe_to_task(
        self, request: Any, context: CallContext
    ) -> AsyncIterator[Any]:
        self._seen("SubscribeToTask", request, context)
        yield {"task": self._task(request["id"])}

    async def create_task_push_notification_config(
        self, request: Any, context: CallContext
    ) -> Any:
        self._seen("CreateTaskPushNotificationConfig", request, context)
        self._task(request["taskId"])
        config = dict(request, id=request.get("id") or "cfg-1")
        self.configs[config["id"]] = config
        return config

    async def get_task_push_notification_config(
        self, request: Any, context: CallContext
    ) -> Any:
        self._seen("GetTaskPushNotificationConfig", request, context)
        return self.configs[request["id"]]

    async def list_task_push_notification_configs(
        self, request: Any, context: CallContext
    ) -> Any:
        self._seen("ListTaskPushNotificationConfigs", request, context)
        return {"configs": list(self.configs.values())}

    async def get_extended_agent_card(self, request: Any, context: CallContext) -> Any:
        self._seen("GetExtendedAgentCard", request, context)
        return dict(CARD, name="extended")

    async def delete_task_push_notification_config(
        self, request: Any, context: CallContext
    ) -> None:
        self._seen("DeleteTaskPushNotificationConfig", request, context)
        self.configs.pop(request["id"], None)


@pytest.fixture
def make(a2a: ModuleType) -> Any:
    import importlib

    asgi = importlib.import_module("a2a_binding.asgi")
    # The package's tables in the runtime's own checker and envelope reader (whose
    # errors and marked duplicates the runtime's application knows).
    tables = a2a.messages.SCHEMA
    schema = Schema(tables._rules, tables._enum_values)
    jsonrpc = JsonRpcBinding(a2a.jsonrpc.METHODS, tenant_field="tenant")
    routes_v0_3 = importlib.import_module("a2a_binding.v0_3.routes").TABLE

    def build(
        store: Store, versions: tuple[str, ...] = ("1.0", "0.3"), **options: Any
    ) -> A2AApplication:
        settings: dict[str, Any] = dict(
            methods=asgi.HANDLER_METHODS,
            routes=a2a.routes.TABLE,
            jsonrpc=jsonrpc,
            tenant_field="tenant",
            agent_card_path=a2a.routes.AGENT_CARD_PATH,
            agent_card=CARD,
            supported_versions=versions,
            schema=schema,
            message_types=asgi.MESSAGE_TYPES,
            check_responses=True,
            v0_3=V0_3Serving(routes_v0_3),
        )
        return application(store, **{**settings, **options})

    return build


def envelope(method: str, params: Any, request_id: Any = 1) -> bytes:
    """A JSON-RPC request; ``params`` None: none sent (what 0.3 clients send for the
    extended card), ``request_id`` ``...``: a notification."""
    sent: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        sent["params"] = params
    if request_id is not ...:
        sent["id"] = request_id
    return json.dumps(sent).encode()


def call(app: A2AApplication, method: str, params: Any, **options: Any) -> Any:
    answer = run(drive(app, "POST", "/", body=envelope(method, params), **options))
    assert answer.status == 200, answer.body
    return json.loads(answer.body)


def test_message_send_reaches_the_1_0_handler_and_answers_in_0_3(make: Any) -> None:
    store = Store()
    app = make(store)
    answer = call(app, "message/send", {"message": MESSAGE_03})
    rpc, request, version = store.calls[-1]
    assert (rpc, version) == ("SendMessage", "0.3")
    assert request == {
        "message": {
            "messageId": "m-1",
            "role": "ROLE_USER",
            "parts": [{"text": "hello"}],
        }
    }
    task = answer["result"]
    assert (task["kind"], task["status"]["state"], task["id"]) == (
        "task",
        "completed",
        "t-1",
    )
    assert task["history"][0]["parts"] == [{"kind": "text", "text": "hello"}]
    got = call(app, "tasks/get", {"id": "t-1", "historyLength": 5})
    assert got["result"] == task
    assert store.calls[-1][1] == {"id": "t-1", "historyLength": 5}
    canceled = call(app, "tasks/cancel", {"id": "t-1"})
    assert canceled["result"]["status"]["state"] == "canceled"


def test_push_configs_and_the_extended_card(make: Any) -> None:
    store = Store()
    app = make(store)
    call(app, "message/send", {"message": MESSAGE_03})
    config = {
        "taskId": "t-1",
        "pushNotificationConfig": {
            "url": "https://hook.test/x",
            "token": "tok",
            "authentication": {"schemes": ["Bearer"], "credentials": "c"},
        },
    }
    made = call(app, "tasks/pushNotificationConfig/set", config)["result"]
    assert store.calls[-1][1] == {
        "taskId": "t-1",
        "url": "https://hook.test/x",
        "token": "tok",
        "authentication": {"scheme": "Bearer", "credentials": "c"},
    }
    assert made["pushNotificationConfig"]["id"] == "cfg-1"
    assert made["pushNotificationConfig"]["authentication"]["schemes"] == ["Bearer"]
    got = call(
        app,
        "tasks/pushNotificationConfig/get",
        {"id": "t-1", "pushNotificationConfigId": "cfg-1"},
    )
    assert got["result"] == made
    listed = call(app, "tasks/pushNotificationConfig/list", {"id": "t-1"})
    assert listed["result"] == [made]
    deleted = call(
        app,
        "tasks/pushNotificationConfig/delete",
        {"id": "t-1", "pushNotificationConfigId": "cfg-1"},
    )
    assert deleted["result"] is None and store.configs == {}
    card = call(app, "agent/getAuthenticatedExtendedCard", None)["result"]
    assert (card["name"], card["url"], card["protocolVersion"]) == (
        "extended",
        "http://test/",
        "0.3.0",
    )
    assert card["supportsAuthenticatedExtendedCard"] is True


def test_params_in_python_names_reach_the_handler(make: Any) -> None:
    """a2a-sdk 0.3 reads each field under its Python name too (``task_id``), as a
    client dumping its models by Python name writes it: a follow-up message stays in
    its task, a push config is registered, and a get asks for the config it names."""
    store = Store()
    app = make(store)
    call(app, "message/send", {"message": MESSAGE_03})
    follow_up = {
        "kind": "message",
        "message_id": "m-2",
        "task_id": "t-1",
        "context_id": "c-1",
        "role": "user",
        "parts": [{"kind": "text", "text": "and then"}],
    }
    call(app, "message/send", {"message": follow_up})
    message = store.calls[-1][1]["message"]
    assert (message["messageId"], message["taskId"], message["contextId"]) == (
        "m-2",
        "t-1",
        "c-1",
    )
    for config_id in ("p-1", "p-2"):
        pushed = {"id": config_id, "url": f"https://hook.test/{config_id}"}
        params = {"task_id": "t-1", "push_notification_config": pushed}
        call(app, "tasks/pushNotificationConfig/set", params)
        assert store.calls[-1][1] == dict(pushed, taskId="t-1")
    got = call(
        app,
        "tasks/pushNotificationConfig/get",
        {"id": "t-1", "push_notification_config_id": "p-2"},
    )
    assert store.calls[-1][:2] == (
        "GetTaskPushNotificationConfig",
        {"taskId": "t-1", "id": "p-2"},
    )
    assert got["result"]["pushNotificationConfig"]["url"] == "https://hook.test/p-2"
    configuration = {"accepted_output_modes": ["text/plain"], "history_length": 1}
    call(app, "message/send", {"message": MESSAGE_03, "configuration": configuration})
    assert store.calls[-1][1]["configuration"] == {
        "acceptedOutputModes": ["text/plain"],
        "historyLength": 1,
    }


def test_a_0_3_history_length_of_0_is_no_limit(make: Any) -> None:
    """0.3's historyLength 0 (sent as ``"0"`` too) is "no limit", 1.0's field left
    out; 1.0's 0 asks for no messages. A negative one reaches the handler as sent, for
    it to refuse, as the 0.3 conformance kit's boundary test requires (the example
    agent does)."""
    store = Store()
    app = make(store)
    call(app, "message/send", {"message": MESSAGE_03})
    call(app, "tasks/get", {"id": "t-1", "historyLength": "-1"})
    assert store.calls[-1][1] == {"id": "t-1", "historyLength": -1}
    for length in (0, "0"):
        call(app, "tasks/get", {"id": "t-1", "historyLength": length})
        assert store.calls[-1][1] == {"id": "t-1"}
        configuration = {"historyLength": length, "blocking": True}
        call(
            app, "message/send", {"message": MESSAGE_03, "configuration": configuration}
        )
        assert store.calls[-1][1]["configuration"] == {}
    call(app, "tasks/get", {"id": "t-1", "historyLength": "2"})
    assert store.calls[-1][1] == {"id": "t-1", "historyLength": 2}


def test_a_0_3_stream_says_final_on_its_last_status_update(make: Any) -> None:
    app = make(Store())
    answer = run(
        drive(
            app, "POST", "/", body=envelope("message/stream", {"message": MESSAGE_03})
        )
    )
    assert answer.headers["content-type"].startswith("text/event-stream")
    events = [json.loads(e.data)["result"] for e in parse_sse([answer.body])]
    assert [e["kind"] for e in events] == ["task", "status-update", "status-update"]
    assert [e.get("final") for e in events] == [None, False, True]
    assert events[2]["status"]["state"] == "completed"
    resubscribed = run(
        drive(app, "POST", "/", body=envelope("tasks/resubscribe", {"id": "t-s"}))
    )
    assert [
        json.loads(e.data)["result"]["kind"] for e in parse_sse([resubscribed.body])
    ] == ["task"]


def test_0_3_errors_are_0_3_codes_naming_the_place(make: Any) -> None:
    store = Store()
    app = make(store)
    missing = call(app, "tasks/get", {"id": "nope"})["error"]
    assert missing["code"] == -32001
    assert missing["data"][0]["reason"] == "TASK_NOT_FOUND"
    bad_kind = call(
        app, "message/send", {"message": dict(MESSAGE_03, parts=[{"kind": "image"}])}
    )["error"]
    assert bad_kind["code"] == -32602
    assert bad_kind["data"][0]["fieldViolations"][0]["field"] == "message.parts[0].kind"
    bad_role = call(app, "message/send", {"message": dict(MESSAGE_03, role="boss")})
    assert bad_role["error"]["code"] == -32602
    # A 1.0 validation refusal names the 1.0 field, the same path in 0.3.
    bad_text = call(
        app,
        "message/send",
        {"message": dict(MESSAGE_03, parts=[{"kind": "text", "text": 5}])},
    )["error"]
    assert bad_text["data"][0]["fieldViolations"][0]["field"] == (
        "message.parts[0].text"
    )
    assert [c[0] for c in store.calls] == ["GetTask"]  # no refused one reached it
    # An error 0.3 has no code for (version not supported, -32009) is -32603.
    wrong = call(
        app,
        "tasks/get",
        {"id": "t-1"},
        headers=[(b"a2a-version", b"1.0")],
    )["error"]
    assert wrong["code"] == -32603
    assert wrong["data"][0]["reason"] == "VERSION_NOT_SUPPORTED"
    assert "0.3 method" in wrong["message"]


def test_a_0_3_envelope_is_checked_like_any_other(make: Any) -> None:
    app = make(Store())
    body = b'{"jsonrpc":"2.0","id":7,"id":8,"method":"tasks/get","params":{"id":"x"}}'
    twice = json.loads(run(drive(app, "POST", "/", body=body)).body)
    assert twice["error"]["code"] == -32600
    listed = call(app, "tasks/get", [1])
    assert listed["error"]["code"] == -32602
    note = run(
        drive(
            app,
            "POST",
            "/",
            body=envelope("message/send", {"message": MESSAGE_03}, ...),
        )
    )
    assert (note.status, note.body) == (204, b"")


def test_1_0_requests_are_served_as_before_beside_0_3(make: Any) -> None:
    store = Store()
    app = make(store)
    message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    named = call(
        app, "SendMessage", {"message": message}, headers=[(b"a2a-version", b"1.0")]
    )
    assert named["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    # Naming no version, a 1.0 method is in 1.0's form: served as 1.0.
    unnamed = call(app, "SendMessage", {"message": message})
    assert "task" in unnamed["result"] and store.calls[-1][2] == "1.0"
    # Naming 0.3, it is refused: 0.3 has no such method.
    refused = call(
        app, "SendMessage", {"message": message}, headers=[(b"a2a-version", b"0.3")]
    )["error"]
    assert refused["code"] == -32009


def test_without_0_3_nothing_of_it_is_served(make: Any) -> None:
    app = make(Store(), versions=("1.0",))
    assert call(app, "message/send", {"message": MESSAGE_03})["error"]["code"] == -32601
    message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    unnamed = call(app, "SendMessage", {"message": message})["error"]
    assert unnamed["code"] == -32009  # no version is 0.3, which is not served
    card = json.loads(run(drive(app, "GET", "/.well-known/agent-card.json")).body)
    assert card == CARD


def test_the_card_is_the_one_both_kinds_of_client_read(make: Any) -> None:
    app = make(Store())
    card = json.loads(run(drive(app, "GET", "/.well-known/agent-card.json")).body)
    assert card["supportedInterfaces"] == CARD["supportedInterfaces"]
    assert (card["url"], card["preferredTransport"], card["protocolVersion"]) == (
        "http://test/",
        "JSONRPC",
        "0.3.0",
    )
    assert card["capabilities"] == CARD["capabilities"]


# ------------------------------------------------------------------ 0.3 HTTP+JSON

MESSAGE_03_REST = {
    "messageId": "m-1",
    "role": "ROLE_USER",
    "content": [{"text": "hello"}],
}


def rest(
    app: A2AApplication, verb: str, path: str, body: Any = None, **options: Any
) -> Any:
    sent = b"" if body is None else json.dumps(body).encode()
    return run(drive(app, verb, path, body=sent, **options))


def test_a_0_3_route_reaches_the_1_0_handler_and_answers_in_0_3(make: Any) -> None:
    store = Store()
    app = make(store)
    answer = rest(app, "POST", "/v1/message:send", {"message": MESSAGE_03_REST})
    assert answer.status == 200, answer.body
    rpc, request, version = store.calls[-1]
    assert (rpc, version) == ("SendMessage", "0.3")
    assert request["message"]["parts"] == [{"text": "hello"}]
    task = json.loads(answer.body)["task"]
    assert task["history"][0]["content"] == [{"text": "hello"}]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    got = rest(app, "GET", "/v1/tasks/t-1", query=b"historyLength=2")
    assert json.loads(got.body)["id"] == "t-1"
    assert store.calls[-1][:2] == ("GetTask", {"id": "t-1", "historyLength": 2})
    missing = rest(app, "GET", "/v1/tasks/nope")
    assert missing.status == 404
    assert json.loads(missing.body)["error"]["details"][0]["reason"] == "TASK_NOT_FOUND"


def test_a_0_3_route_streams_0_3_events(make: Any) -> None:
    app = make(Store())
    answer = rest(app, "POST", "/v1/message:stream", {"message": MESSAGE_03_REST})
    events = [json.loads(e.data) for e in parse_sse([answer.body])]
    assert [next(iter(e)) for e in events] == ["task", "statusUpdate", "statusUpdate"]
    assert [e.get("statusUpdate", {}).get("final") for e in events] == [
        None,
        None,  # ProtoJSON leaves a false bool out
        True,
    ]


def test_a_0_3_route_is_converted_then_validated_as_1_0(make: Any) -> None:
    store = Store()
    app = make(store)
    bad = rest(
        app,
        "POST",
        "/v1/message:send",
        {"message": dict(MESSAGE_03_REST, content=[{"text": 5}])},
    )
    assert bad.status == 400
    violation = json.loads(bad.body)["error"]["details"][0]["fieldViolations"][0]
    assert violation["field"] == "message.content[0].text"  # the 0.3 field
    shape = rest(
        app,
        "POST",
        "/v1/message:send",
        {"message": dict(MESSAGE_03_REST, content="text")},
    )
    assert shape.status == 400
    violation = json.loads(shape.body)["error"]["details"][0]["fieldViolations"][0]
    assert violation["field"] == "message.content"
    # What the conversion lets through, 1.0 validation refuses, naming 1.0's field.
    unknown = rest(
        app,
        "POST",
        "/v1/message:send",
        {"message": dict(MESSAGE_03_REST, messageId=7)},
    )
    assert unknown.status == 400
    violation = json.loads(unknown.body)["error"]["details"][0]["fieldViolations"][0]
    assert violation["field"] == "message.messageId"
    assert store.calls == []
    wrong_verb = rest(app, "DELETE", "/v1/message:send")
    assert (wrong_verb.status, wrong_verb.headers["allow"]) == (405, "POST")


def test_without_0_3_its_routes_are_not_served(make: Any) -> None:
    store = Store()
    app = make(store, versions=("1.0",))
    # /v1/message:send is then the 1.0 route of tenant "v1", refused for its version.
    answer = rest(app, "POST", "/v1/message:send", {"message": MESSAGE_03_REST})
    assert answer.status == 400
    assert json.loads(answer.body)["error"]["details"][0]["reason"] == (
        "VERSION_NOT_SUPPORTED"
    )
    assert store.calls == []


def test_the_card_by_the_version_a_client_names(make: Any) -> None:
    app = make(Store())
    plain = run(
        drive(
            app,
            "GET",
            "/.well-known/agent-card.json",
            headers=[(b"a2a-version", b"1.0")],
        )
    )
    assert json.loads(plain.body) == CARD
    both = run(drive(app, "GET", "/.well-known/agent-card.json"))
    assert json.loads(both.body)["url"] == "http://test/"
    assert plain.headers["vary"] == both.headers["vary"] == "A2A-Version"
    assert plain.headers["etag"] != both.headers["etag"]
    for named in (b"0.3", b"1.0, 0.3"):  # 0.3, or no one form: the card both read
        answer = run(
            drive(
                app,
                "GET",
                "/.well-known/agent-card.json",
                headers=[(b"a2a-version", named)],
            )
        )
        assert answer.body == both.body, named
    # A card callable: rendered per form too.
    live = make(Store(), agent_card=lambda base: CARD)
    plain_live = run(
        drive(
            live,
            "GET",
            "/.well-known/agent-card.json",
            headers=[(b"a2a-version", b"1.0")],
        )
    )
    assert json.loads(plain_live.body) == CARD
    assert "url" in json.loads(
        run(drive(live, "GET", "/.well-known/agent-card.json")).body
    )


def test_a_0_3_stream_that_fails_before_its_first_event_fails_as_its_one_event(
    make: Any,
) -> None:
    app = make(Store())
    for body in (
        envelope("tasks/resubscribe", {"id": "nope"}),  # the handler refuses it
        envelope("message/stream", {"message": "hello"}),  # the request is refused
    ):
        answer = run(drive(app, "POST", "/", body=body))
        assert answer.headers["content-type"].startswith("text/event-stream"), body
        (event,) = parse_sse([answer.body])
        assert json.loads(event.data)["error"]["code"] in (-32001, -32602)
    # 1.0's streams answer such an error as a plain JSON-RPC error.
    plain = run(
        drive(
            app,
            "POST",
            "/",
            body=envelope("SubscribeToTask", {"id": "nope"}),
            headers=[(b"a2a-version", b"1.0")],
        )
    )
    assert plain.headers["content-type"] == "application/json"


def test_a_0_3_route_reads_ids_holding_a_slash(make: Any) -> None:
    store = Store()
    store.tasks["a/b"] = {
        "id": "a/b",
        "contextId": "c",
        "status": {"state": "TASK_STATE_WORKING"},
    }
    app = make(store)
    answer = rest(app, "GET", "/v1/tasks/a%2Fb")
    assert answer.status == 200, answer.body
    assert store.calls[-1][:2] == ("GetTask", {"id": "a/b"})


def test_a_0_3_route_decodes_ids_once(make: Any, a2a: ModuleType) -> None:
    """An id in a 0.3 resource name is percent-decoded once: ``%2F`` is its ``/``,
    ``%252F`` its ``%2F`` (as the package's own 0.3 client sends an id holding
    ``%2F``), in every place a name is read."""
    from tests.runtime.test_client_v0_3 import BASE, _binding

    store = Store()
    for task_id in ("a/b", "a%2Fb"):
        store.tasks[task_id] = {
            "id": task_id,
            "contextId": "c",
            "status": {"state": "TASK_STATE_WORKING"},
        }
    store.configs["p%2F1"] = {"taskId": "a%2Fb", "id": "p%2F1", "url": "https://h"}
    app = make(store)
    sent = _binding(a2a, "a2a_binding").prepare(  # type: ignore[call-overload]
        "GetTask", {"id": "a%2Fb"}, base_url=BASE, version="0.3"
    )
    path = "/" + sent.url.removeprefix(BASE)
    assert path == "/v1/tasks/a%252Fb"
    for verb, path, rpc, request in (
        ("GET", path, "GetTask", {"id": "a%2Fb"}),
        ("GET", "/v1/tasks/a%2Fb", "GetTask", {"id": "a/b"}),
        ("POST", "/v1/tasks/a%252Fb:cancel", "CancelTask", {"id": "a%2Fb"}),
        (
            "GET",
            "/v1/tasks/a%252Fb/pushNotificationConfigs/p%252F1",
            "GetTaskPushNotificationConfig",
            {"taskId": "a%2Fb", "id": "p%2F1"},
        ),
        (
            "GET",
            "/v1/tasks/a%252Fb/pushNotificationConfigs",
            "ListTaskPushNotificationConfigs",
            {"taskId": "a%2Fb"},
        ),
    ):
        answer = rest(app, verb, path, {} if verb == "POST" else None)
        assert answer.status == 200, (path, answer.body)
        assert store.calls[-1][:2] == (rpc, request), path


def test_a_request_naming_1_0_reaches_the_1_0_routes_of_tenant_v1(make: Any) -> None:
    """``/v1/...`` is a 0.3 route and a 1.0 route of tenant ``v1``: naming 1.0 says
    which; a 0.3 route naming 1.0 is then a 1.0 request, a 1.0 route naming 0.3 is
    refused (0.3's routes are ``/v1/...``)."""
    store = Store()
    app = make(store)
    message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    named = rest(
        app,
        "POST",
        "/v1/message:send",
        {"message": message},
        headers=[(b"a2a-version", b"1.0")],
    )
    assert named.status == 200, named.body
    rpc, request, version = store.calls[-1]
    assert (rpc, request.get("tenant"), version) == ("SendMessage", "v1", "1.0")
    refused = rest(
        app,
        "POST",
        "/message:send",
        {"message": message},
        headers=[(b"a2a-version", b"0.3")],
    )
    assert refused.status == 400
    assert json.loads(refused.body)["error"]["details"][0]["reason"] == (
        "VERSION_NOT_SUPPORTED"
    )
    wrong_verb = rest(
        app, "DELETE", "/v1/message:send", headers=[(b"a2a-version", b"1.0")]
    )
    assert (wrong_verb.status, wrong_verb.headers["allow"]) == (405, "POST")


def test_supported_versions_may_be_any_iterable(make: Any) -> None:
    app = make(Store(), versions=(v for v in ("1.0", "0.3")))
    assert app.supported_versions == ("1.0", "0.3") and app.v0_3 is not None
    assert call(app, "tasks/get", {"id": "nope"})["error"]["code"] == -32001


def test_a_route_request_naming_two_versions_is_refused(make: Any) -> None:
    store = Store()
    answer = rest(
        make(store),
        "POST",
        "/v1/message:send",
        {"message": MESSAGE_03_REST},
        headers=[(b"a2a-version", b"1.0, 0.3")],
    )
    assert answer.status == 400
    assert "several versions" in json.loads(answer.body)["error"]["message"]
    assert store.calls == []


class _CountedHeaders(list[tuple[bytes, bytes]]):
    """A scope's header list that counts the walks over it."""

    walks = 0

    def __iter__(self) -> Any:
        type(self).walks += 1
        return super().__iter__()


@pytest.mark.parametrize(
    "method, path, body, sent",
    [
        ("GET", "/tasks/t-1", b"", [(b"a2a-version", b"1.0")]),
        ("POST", "/", envelope("GetTask", {"id": "t-1"}), [(b"a2a-version", b"1.0")]),
        ("POST", "/", envelope("tasks/get", {"id": "t-1"}), []),
        ("GET", "/v1/tasks/t-1", b"", []),
    ],
)
def test_the_headers_are_read_once_per_request(
    make: Any, method: str, path: str, body: bytes, sent: list[tuple[bytes, bytes]]
) -> None:
    """Where both versions are served, the version is read before the route is
    chosen; a JSON-RPC request on the same path reads the same pass, not its own."""
    store = Store()
    store.tasks["t-1"] = {"id": "t-1", "status": {"state": "TASK_STATE_WORKING"}}
    headers = _CountedHeaders([(b"content-type", b"application/json"), *sent])
    _CountedHeaders.walks = 0
    answer = run(drive(make(store), method, path, body=body, headers=headers))
    assert answer.status == 200, answer.body
    assert b'"error"' not in answer.body
    assert _CountedHeaders.walks == 1

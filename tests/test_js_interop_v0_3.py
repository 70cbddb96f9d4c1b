"""A real 0.3 client against the example's 0.3 side: @a2a-js/sdk 0.3.14, the JS SDK's
last 0.3 release (installed beside 1.3.0 as ``@a2a-js/sdk-v0_3``), over loopback.

tests/js/client_v0_3.mjs discovers examples/a2a_server.py from its agent card with the
0.3 SDK's own ClientFactory (it reads the 0.3 card: ``url``, ``preferredTransport``,
``additionalInterfaces``), then runs every 0.3 operation over JSON-RPC and over the 0.3
HTTP+JSON binding (``/v1/...`` routes): send, stream, get, cancel, resubscribe, the four
push config methods, the authenticated extended card and the errors the agent answers.
A 0.3 client sends no ``A2A-Version``: the example must answer it as 0.3 (§3.6.2), in
0.3 shapes (``kind`` discriminators, lower-case states, ``final`` on the last status
update). 0.3 has no ListTasks and no tenant, so neither is exercised.
Then @a2a-js/sdk 1.3.0's own 0.3 transports (``LegacyJsonRpcTransport``,
``LegacyRestTransport`` in ``@a2a-js/sdk/compat/v0_3/client``: its 1.0 calls translated
to 0.3 on the wire, with ``A2A-Version: 0.3``) run tests/js/client.mjs's 1.0 steps
against the same server. The 0.3.14 release is what deployed 0.3 clients run.
Node and npm are needed; tests/jsenv.py installs both SDKs into .cache/js/ on first use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from . import jsenv

from .servers import running

# Ids that need escaping in a path segment, and ids that look like literal segments.
SLASH = "a/b"
AWKWARD_IDS = [SLASH, "a?b", "a b", "\u00e9t\u00e9-\u2713", ":cancel", "tasks"]
NODE_TIMEOUT = 30.0
CARD_PATH = "/.well-known/agent-card.json"
# The 0.3 JSON-RPC methods this client calls (0.3 has no tasks/list).
V0_3_METHODS = {
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
}
# The 0.3 JSON-RPC error codes (the 0.3 spec's table, kept in 1.0) and the JS SDK's
# error class for each.
ERRORS = {
    "TaskNotFound": (-32001, "TaskNotFoundError"),
    "TaskNotCancelable": (-32002, "TaskNotCancelableError"),
    "UnsupportedOperation": (-32004, "UnsupportedOperationError"),
}


@pytest.fixture(scope="module")
def js_dir() -> Path:
    return jsenv.install()


@pytest.fixture(scope="module")
def our_server(example: ModuleType) -> Iterator[str]:
    """The example as it is run (HTTP+JSON under /rest, JSON-RPC at /jsonrpc)."""
    with running(example.create_app()) as base:
        yield base


def _run(js_dir: Path, base: str, binding: str, bearer: str) -> dict[str, Any]:
    config = {
        "base": base,
        "binding": binding,
        "awkwardIds": AWKWARD_IDS,
        "bearer": bearer,
    }
    return jsenv.run_script(js_dir, "client_v0_3.mjs", config, NODE_TIMEOUT)


def _card_problem(base: str, result: dict[str, Any]) -> str:
    """What a 0.3 client reads from the card, for a failure message."""
    card = httpx.get(base + CARD_PATH).json()  # as a 0.3 client asks: no A2A-Version
    read = {k: card.get(k) for k in ("protocolVersion", "url", "preferredTransport")}
    return (
        f"served on {base}; the card a 0.3 client gets: {read}, additionalInterfaces="
        f"{card.get('additionalInterfaces')}; JS 0.3 client: "
        f"{result.get('discovery') or result.get('sent')}"
    )


def _error_class(error: dict[str, Any]) -> str:
    """The JS SDK's error class name; a stream reports its error as the cause."""
    return str(error.get("causeName") or error.get("name"))


def _rest_error(error: dict[str, Any]) -> tuple[int, str]:
    """The HTTP status and the ErrorInfo reason in the JS REST client's message for an
    error body it cannot type: "HTTP error for /v1/...! Status: 404 Not Found.
    Response: {...}"."""
    match = re.search(r"Status: (\d+) .*? Response: (\{.*\})$", error["message"], re.S)
    assert match, error
    body = json.loads(match.group(2))
    return int(match.group(1)), body["error"]["details"][0]["reason"]


def _rest_known(binding: str, extended_card: str) -> set[str]:
    """The steps whose REST answers the 0.3 JS clients cannot read (tests below): the
    extended card (step ``extended_card``) and the config id holding a slash."""
    if binding != "HTTP+JSON":
        return set()
    return {extended_card, f"awkward get {SLASH}", f"awkward delete {SLASH}"}


def _unexpected_errors(steps: dict[str, Any], known: set[str]) -> dict[str, Any]:
    """The steps that failed, but for the error steps (checked on their own), the
    unknown awkward task ids (TaskNotFound by design) and ``known``."""
    return {
        name: step["error"]
        for name, step in steps.items()
        if "error" in step
        and name not in known
        and not name.startswith(("error ", "awkward task"))
    }


@pytest.fixture(scope="module", params=["JSONRPC", "HTTP+JSON"])
def run(
    request: pytest.FixtureRequest, js_dir: Path, our_server: str, example: ModuleType
) -> tuple[str, dict[str, Any]]:
    """One run of the 0.3 client over a binding: (binding, what it printed)."""
    binding: str = request.param
    result = _run(js_dir, our_server, binding, example.DEFAULT_TOKEN)
    assert "discovery" not in result, _card_problem(our_server, result)
    return binding, result


def test_the_0_3_client_picks_the_binding_from_the_0_3_card(
    run: tuple[str, dict[str, Any]], our_server: str
) -> None:
    binding, result = run
    expected = "JsonRpcTransport" if binding == "JSONRPC" else "RestTransport"
    assert expected in result["transport"], _card_problem(our_server, result)
    card = result["card"]
    assert card["protocolVersion"].startswith("0.3"), card
    assert (
        card["capabilities"]["streaming"] and card["capabilities"]["pushNotifications"]
    )


def test_every_0_3_operation_answers_in_0_3_shapes(
    run: tuple[str, dict[str, Any]], our_server: str
) -> None:
    binding, result = run
    steps = result["steps"]
    known = _rest_known(binding, "agent/getAuthenticatedExtendedCard")
    failed = _unexpected_errors(
        steps, known | {"tasks/pushNotificationConfig/get by task"}
    )
    assert not failed, f"{failed}\n{_card_problem(our_server, result)}"
    ok = {name: step["ok"] for name, step in steps.items() if "ok" in step}

    done, held = ok["message/send"], ok["message/send hold"]
    assert (done["kind"], held["kind"]) == ("task", "task")
    assert (done["status"]["state"], held["status"]["state"]) == (
        "completed",
        "working",
    )
    assert done["artifacts"][0]["parts"] == [{"kind": "text", "text": "hello"}]
    stream = ok["message/stream"]
    assert stream[0]["kind"] == "task"
    last = stream[-1]
    assert last["kind"] == "status-update" and last["final"] is True, stream
    assert last["status"]["state"] == "completed"
    assert all(event.get("final") is not True for event in stream[:-1]), stream
    assert ok["tasks/get"]["kind"] == "task" and ok["tasks/get"]["id"] == done["id"]
    resubscribed = ok["tasks/resubscribe"]
    assert [(e["kind"], e["id"]) for e in resubscribed] == [("task", held["id"])]
    assert ok["tasks/cancel"]["status"]["state"] == "canceled"

    config = {"id": "c1", "url": "https://example.test/hook", "token": "t"}
    pushed = {"taskId": done["id"], "pushNotificationConfig": config}
    assert ok["tasks/pushNotificationConfig/set"] == pushed
    assert ok["tasks/pushNotificationConfig/get"] == pushed
    assert ok["tasks/pushNotificationConfig/list"] == [pushed]
    assert ok["tasks/pushNotificationConfig/delete"] == []

    for awkward in AWKWARD_IDS:
        assert ok[f"awkward set {awkward}"]["pushNotificationConfig"]["id"] == awkward
        if f"awkward get {awkward}" not in known:
            got = ok[f"awkward get {awkward}"]["pushNotificationConfig"]["id"]
            assert got == awkward
        error = steps[f"awkward task {awkward}"]["error"]
        if binding == "JSONRPC":
            assert _error_class(error) == "TaskNotFoundError", error
        else:
            assert _rest_error(error) == (404, "TASK_NOT_FOUND"), error

    if binding == "JSONRPC":
        extended = ok["agent/getAuthenticatedExtendedCard"]
        assert extended["name"] == result["card"]["name"]
        assert "hold" in [skill["id"] for skill in extended["skills"]]  # extended only


# An error before a 0.3 stream's first event goes as the stream's one event (found
# here, issue 24: it went as plain application/json, which the 0.3 JS client cannot read).


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_reach_the_0_3_client_as_its_typed_errors(
    run: tuple[str, dict[str, Any]], name: str
) -> None:
    binding, result = run
    code, js_class = ERRORS[name]
    error = result["steps"][f"error {name}"].get("error")
    assert error is not None, result["steps"][f"error {name}"]
    if binding == "HTTP+JSON":
        return  # test_known_difference_rest_errors_are_untyped_in_the_0_3_client
    assert _error_class(error) == js_class, error
    assert error.get("code", error.get("causeCode")) == code, error


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_known_difference_rest_errors_are_untyped_in_the_0_3_client(
    run: tuple[str, dict[str, Any]], a2a: ModuleType, name: str
) -> None:
    """The example answers 0.3 HTTP+JSON errors as a2a-sdk 1.3.0's 0.3 side does: the
    HTTP status and ``{"error": google.rpc.Status}`` with the ErrorInfo reason. The 0.3
    JS REST client types only a bare ``{"code": <JSON-RPC code>, "message"}`` body (its
    own server's form), so it throws a plain Error holding status and body."""
    binding, result = run
    if binding != "HTTP+JSON":
        pytest.skip("HTTP+JSON only")
    error = result["steps"][f"error {name}"]["error"]
    kind = a2a.jsonrpc.A2A_ERRORS[ERRORS[name][1]]
    assert error["name"] == "Error", error  # untyped
    assert _rest_error(error) == (kind.http_status, kind.reason), error


def test_known_difference_rest_extended_card_in_the_0_3_json_form(
    run: tuple[str, dict[str, Any]], our_server: str, example: ModuleType
) -> None:
    """``GET /v1/card`` answers the card in the 0.3 JSON form (security schemes with
    ``type``), as a2a-sdk 1.3.0's 0.3 REST side does (``model_dump`` of its 0.3 card);
    the 0.3 JS REST client parses it as ProtoJSON of the 0.3 proto (a oneof per scheme)
    and throws "Unsupported security scheme type"."""
    binding, result = run
    if binding != "HTTP+JSON":
        pytest.skip("HTTP+JSON only")
    error = result["steps"]["agent/getAuthenticatedExtendedCard"]["error"]
    assert error["message"] == "Unsupported security scheme type", error
    bearer = {"Authorization": f"Bearer {example.DEFAULT_TOKEN}"}
    card = httpx.get(our_server + "/rest/v1/card", headers=bearer).json()
    assert card["securitySchemes"]["bearer"]["type"] == "http", card


def test_a_0_3_rest_push_config_id_with_a_slash(
    run: tuple[str, dict[str, Any]],
) -> None:
    """A "/" in an id reaches the 0.3 REST routes as %2F in a resource-name segment
    (found here, issue 24: it was kept encoded)."""
    binding, result = run
    step = result["steps"][f"awkward get {SLASH}"]
    assert step.get("ok", {}).get("pushNotificationConfig", {}).get("id") == SLASH, step


def test_the_0_3_client_sends_no_version_and_the_0_3_wire_names(
    run: tuple[str, dict[str, Any]],
) -> None:
    binding, result = run
    sent = result["sent"]
    assert sent[0]["path"] == CARD_PATH  # discovery comes first
    assert all(request["version"] is None for request in sent), sent
    api = sent[1:]
    if binding == "JSONRPC":
        assert {r["path"] for r in api} == {"/jsonrpc"}
        assert {r["rpcMethod"] for r in api} == V0_3_METHODS
    else:
        paths = [f"{r['method']} {r['path']}" for r in api]
        assert all(p.split(" ")[1].startswith("/rest/v1/") for p in paths), paths
        assert "POST /rest/v1/message:send" in paths
        assert "GET /rest/v1/card" in paths  # the 0.3 REST extended card


def test_a_0_3_push_config_get_by_task_id_alone(
    run: tuple[str, dict[str, Any]],
) -> None:
    """0.3's get without ``pushNotificationConfigId`` answers the task's first config,
    as a2a-sdk 0.3 does (found here, issue 24: it was refused, 1.0 requiring the id)."""
    binding, result = run
    step = result["steps"]["tasks/pushNotificationConfig/get by task"]
    if binding == "HTTP+JSON":  # the JS REST transport needs the config id: no request
        assert "pushNotificationConfigId" in step["error"]["message"], step
        return
    config = step.get("ok", {}).get("pushNotificationConfig", {})
    assert config.get("id") == "c1", step  # the task's one config


# --- @a2a-js/sdk 1.3.0's own 0.3 transports (its compat/v0_3 client) ---------------------


@pytest.fixture(scope="module", params=["JSONRPC", "HTTP+JSON"])
def legacy_run(
    request: pytest.FixtureRequest, js_dir: Path, our_server: str, example: ModuleType
) -> tuple[str, dict[str, Any]]:
    """tests/js/client.mjs with ``legacy``: the 1.0 calls of test_js_interop.py through
    1.3.0's LegacyJsonRpcTransport / LegacyRestTransport to the card's interface."""
    binding: str = request.param
    config = {
        "base": our_server,
        "binding": binding,
        "tenant": "",  # 0.3 has no tenant
        "awkwardIds": AWKWARD_IDS,
        "bearer": example.DEFAULT_TOKEN,
        "legacy": True,
    }
    result = jsenv.run_script(js_dir, "client.mjs", config, NODE_TIMEOUT)
    assert "discovery" not in result, _card_problem(our_server, result)
    return binding, result


def test_js_1_3_legacy_transports_speak_0_3_to_the_example(
    legacy_run: tuple[str, dict[str, Any]], our_server: str
) -> None:
    binding, result = legacy_run
    assert (result["transport"], result["protocolVersion"]) == (binding, "0.3")
    steps = result["steps"]
    # 0.3 has no tasks/list: the client refuses it itself
    known = _rest_known(binding, "GetExtendedAgentCard") | {"ListTasks"}
    failed = _unexpected_errors(steps, known)
    assert not failed, f"{failed}\n{_card_problem(our_server, result)}"
    ok = {name: step["ok"] for name, step in steps.items() if "ok" in step}
    assert ok["SendMessage"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert ok["SendMessage hold"]["task"]["status"]["state"] == "TASK_STATE_WORKING"
    streamed = ok["SendStreamingMessage"]
    assert streamed[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert ok["CancelTask"]["status"]["state"] == "TASK_STATE_CANCELED"
    assert [c["id"] for c in ok["ListTaskPushNotificationConfigs"]["configs"]] == ["c1"]
    assert ok["DeleteTaskPushNotificationConfig"].get("configs", []) == []
    if binding == "JSONRPC":  # typed errors with the 0.3 codes
        for name, (code, js_class) in ERRORS.items():
            error = steps[f"error {name}"]["error"]
            if name == "UnsupportedOperation":
                # A stream's error goes as its one event (what 0.3.14's client and
                # a2a-sdk's 0.3 side read and write); this transport reads an error
                # event as a plain Error, the ErrorInfo reason in its message.
                assert error["name"] == "Error", error
                assert "UNSUPPORTED_OPERATION" in error["message"], error
                continue
            assert (error["name"], error["envelopeCode"]) == (js_class, code), error
        assert "hold" in [s["id"] for s in ok["GetExtendedAgentCard"]["skills"]]

    api = [r for r in result["sent"] if r["path"] != CARD_PATH]
    assert all(r["version"] == "0.3" for r in api), api  # it names its version
    if binding == "JSONRPC":
        assert {r["rpcMethod"] for r in api} <= V0_3_METHODS
    else:
        assert all(r["path"].startswith("/rest/v1/") for r in api), api

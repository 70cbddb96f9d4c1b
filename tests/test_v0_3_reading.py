"""0.3 JSON-RPC requests read as a2a-sdk 0.3.26 reads them (its own pydantic types, in
the 0.3 venv: ``tests/v0_3/validate_shapes.py``): a field under its Python name
(``task_id``) as well as its json name (``taskId``), the json name winning where both
are given, at every depth its models have; free-form values (``metadata``, a data
part's ``data``) kept as given; ``historyLength`` 0, however JSON spells it, as "no
limit". Each request is read by a2a-sdk and dumped by alias: our conversion of what
was sent must be our conversion of what a2a-sdk read."""

from __future__ import annotations

import json
from typing import Any

from codegen.runtime import _v0_3_rpc as rpc
from codegen.runtime import _v0_3_shapes as shapes
from tests import v0_3_env

PUSH = {
    "id": "p-1",
    "url": "https://hook.test/x",
    "token": "tok",
    "authentication": {"schemes": ["Bearer"], "credentials": "c"},
}
MESSAGE = {
    "kind": "message",
    "message_id": "m-1",
    "context_id": "c-1",
    "task_id": "t-1",
    "reference_task_ids": ["t-0"],
    "role": "user",
    "parts": [
        {"kind": "text", "text": "hi"},
        {
            "kind": "file",
            "file": {"uri": "https://x.test/f", "mime_type": "text/plain", "name": "f"},
        },
        {"kind": "data", "data": {"context_id": "free-form: kept"}},
    ],
    "metadata": {"task_id": "free-form: kept"},
}
SEND = {
    "message": MESSAGE,
    "configuration": {
        "accepted_output_modes": ["text/plain"],
        "history_length": 2,
        "blocking": True,
        "push_notification_config": PUSH,
    },
}
# (method, a2a-sdk 0.3.26's request model, params in Python names)
REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    ("message/send", "SendMessageRequest", SEND),
    ("message/stream", "SendStreamingMessageRequest", SEND),
    ("tasks/get", "GetTaskRequest", {"id": "t-1", "history_length": 3}),
    ("tasks/cancel", "CancelTaskRequest", {"id": "t-1", "metadata": {"task_id": 1}}),
    ("tasks/resubscribe", "TaskResubscriptionRequest", {"id": "t-1"}),
    (
        "tasks/pushNotificationConfig/set",
        "SetTaskPushNotificationConfigRequest",
        {"task_id": "t-1", "push_notification_config": PUSH},
    ),
    (
        "tasks/pushNotificationConfig/get",
        "GetTaskPushNotificationConfigRequest",
        {"id": "t-1", "push_notification_config_id": "p-2"},
    ),
    (
        "tasks/pushNotificationConfig/list",
        "ListTaskPushNotificationConfigRequest",
        {"id": "t-1"},
    ),
    (
        "tasks/pushNotificationConfig/delete",
        "DeleteTaskPushNotificationConfigRequest",
        {"id": "t-1", "push_notification_config_id": "p-2"},
    ),
    (  # both spellings: the json name wins, at every depth
        "message/send",
        "SendMessageRequest",
        {
            "message": dict(MESSAGE, taskId="t-json"),
            "configuration": {"history_length": 2, "historyLength": 4},
        },
    ),
    (
        "tasks/pushNotificationConfig/get",
        "GetTaskPushNotificationConfigRequest",
        {
            "id": "t-1",
            "pushNotificationConfigId": "p-json",
            "push_notification_config_id": "p-python",
        },
    ),
]
EVENTS = ("Task", "Message", "TaskStatusUpdateEvent", "TaskArtifactUpdateEvent")


def _read(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a2a-sdk 0.3.26 makes of each case (``validate_shapes.py``)."""
    done = v0_3_env.run("validate_shapes.py", json.dumps(cases))
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout)
    assert len(results) == len(cases) and all(r["ok"] for r in results), results
    return results


def _request(method: str, model: str, params: dict[str, Any]) -> dict[str, Any]:
    envelope = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return {"model": model, "value": envelope}


def test_every_python_name_a2a_sdk_reads_is_read() -> None:
    """The names read are a2a-sdk 0.3.26's: every field, of every model a request or
    an event holds, whose Python name is not its json name."""
    models = [model for _, model, _ in REQUESTS] + list(EVENTS)
    (result,) = _read([{"aliases": models}])
    assert result["aliases"] == shapes._JSON_NAMES


def test_params_in_python_names_as_a2a_sdk_0_3_26_reads_them() -> None:
    results = _read([_request(*case) for case in REQUESTS])
    for (method, model, params), result in zip(REQUESTS, results):
        assert result["type"] == model, method
        read = result["dump"]["params"]  # by json name, as a2a-sdk read it
        assert rpc.rpc_of(method, params) == rpc.rpc_of(method, read), method
        assert rpc.params_to_v1(method, params) == rpc.params_to_v1(method, read), (
            method,
            params,
        )


def test_history_length_0_is_no_limit_as_a2a_sdk_0_3_26_reads_it() -> None:
    """a2a-sdk 0.3.26 reads the number as pydantic does (``"0"`` is 0) and applies
    no limit for 0; 1.0 says "no limit" by leaving the field out (its 0 asks for no
    messages). A negative number, which a2a-sdk 0.3.26 also reads as no limit, is
    kept, for 1.0's validation to refuse, as the 0.3 conformance kit requires."""
    lengths: list[Any] = [0, "0", " 0", "0.0", 0.0, 2, "2"]
    results = _read(
        [
            _request("tasks/get", "GetTaskRequest", {"id": "t", "historyLength": n})
            for n in lengths
        ]
    )
    for length, result in zip(lengths, results):
        limit = result["dump"]["params"].get("historyLength")
        got = rpc.params_to_v1("tasks/get", {"id": "t", "historyLength": length})[1]
        assert ("historyLength" in got) == bool(limit), length
    for negative in (-1, "-1"):
        got = rpc.params_to_v1("tasks/get", {"id": "t", "historyLength": negative})[1]
        assert got["historyLength"] == negative

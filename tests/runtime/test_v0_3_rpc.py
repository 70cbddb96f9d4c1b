"""0.3 JSON-RPC params to 1.0 requests and 1.0 answers to 0.3 results
(``codegen/runtime/v0_3/_v0_3_rpc``), differentially against a2a-sdk 1.3.0's
``a2a.compat.v0_3.conversions``: each 0.3 request is built as a2a-sdk's pydantic type,
dumped as a 0.3 client sends it, and converted by both; each 1.0 answer is a protobuf
message converted by a2a-sdk and, as ProtoJSON, by us."""

from __future__ import annotations

from typing import Any

import pytest

from codegen.runtime import _v0_3_rpc as rpc
from codegen.runtime._jsonrpc import JsonRpcError
from codegen.runtime._v0_3_shapes import ShapeError

compat = pytest.importorskip("a2a.compat.v0_3.conversions")
types = pytest.importorskip("a2a.compat.v0_3.types")
from a2a.types import a2a_pb2  # noqa: E402
from google.protobuf.json_format import MessageToDict, ParseDict  # noqa: E402

from .test_v0_3_shapes import (
    AGENT_MESSAGE,
    ARTIFACT_UPDATE,
    MESSAGE,
    STATUS_UPDATE,
    TASK,
)  # noqa: E402


def _v0_3(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


PUSH = {
    "id": "p-1",
    "url": "https://hook.test/x",
    "token": "tok",
    "authentication": {"schemes": ["Bearer"], "credentials": "c"},
}
REQUESTS = [
    (
        types.SendMessageRequest,
        compat.to_core_send_message_request,
        "message/send",
        {
            "message": MESSAGE,
            "metadata": {"m": 1},
            "configuration": {
                "acceptedOutputModes": ["text/plain"],
                "historyLength": 3,
                "blocking": False,
                "pushNotificationConfig": PUSH,
            },
        },
    ),
    (
        types.SendMessageRequest,
        compat.to_core_send_message_request,
        "message/send",
        {"message": MESSAGE, "configuration": {"historyLength": 0, "blocking": True}},
    ),
    (
        types.SendStreamingMessageRequest,
        compat.to_core_send_message_request,
        "message/stream",
        {"message": MESSAGE},
    ),
    (
        types.GetTaskRequest,
        compat.to_core_get_task_request,
        "tasks/get",
        {"id": "t-1", "historyLength": 2},
    ),
    (
        types.GetTaskRequest,
        compat.to_core_get_task_request,
        "tasks/get",
        {"id": "t-1", "historyLength": 0},
    ),
    (
        types.CancelTaskRequest,
        compat.to_core_cancel_task_request,
        "tasks/cancel",
        {"id": "t-1", "metadata": {"why": "x"}},
    ),
    (
        types.TaskResubscriptionRequest,
        compat.to_core_subscribe_to_task_request,
        "tasks/resubscribe",
        {"id": "t-1"},
    ),
    (
        types.SetTaskPushNotificationConfigRequest,
        compat.to_core_create_task_push_notification_config_request,
        "tasks/pushNotificationConfig/set",
        {"taskId": "t-1", "pushNotificationConfig": PUSH},
    ),
    (
        types.GetTaskPushNotificationConfigRequest,
        compat.to_core_get_task_push_notification_config_request,
        "tasks/pushNotificationConfig/get",
        {"id": "t-1", "pushNotificationConfigId": "p-1"},
    ),
    (
        types.GetTaskPushNotificationConfigRequest,
        compat.to_core_get_task_push_notification_config_request,
        "tasks/pushNotificationConfig/get",
        {"id": "t-1"},
    ),
    (
        types.ListTaskPushNotificationConfigRequest,
        compat.to_core_list_task_push_notification_config_request,
        "tasks/pushNotificationConfig/list",
        {"id": "t-1"},
    ),
    (
        types.DeleteTaskPushNotificationConfigRequest,
        compat.to_core_delete_task_push_notification_config_request,
        "tasks/pushNotificationConfig/delete",
        {"id": "t-1", "pushNotificationConfigId": "p-1"},
    ),
]


@pytest.mark.parametrize(
    ("model", "to_core", "method", "params"),
    REQUESTS,
    ids=[f"{r[2]}-{i}" for i, r in enumerate(REQUESTS)],
)
def test_params_as_a2a_sdk_converts_them(a2a, model, to_core, method, params) -> None:  # type: ignore[no-untyped-def]
    typed = model.model_validate(
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    )
    sent = _v0_3(typed)["params"]
    name, ours = rpc.params_to_v1(method, sent)
    core = to_core(typed)
    assert ours == MessageToDict(core)
    ParseDict(ours, type(core)())
    if (
        method == "tasks/pushNotificationConfig/get"
        and "pushNotificationConfigId" not in params
    ):
        # 0.3 may ask for "the task's config" without its id, which 1.0 requires (and
        # a2a-sdk's conversion leaves out): it is served by listing the task's configs
        # (the first is the answer, as a2a-sdk 0.3 answers), a request 1.0 accepts.
        assert name == "ListTaskPushNotificationConfigs"
        listed = a2a.jsonrpc.METHODS[name].request_type
        assert a2a.messages.validate(listed, ours) == {"taskId": "t-1"}
        return
    # The 1.0 rpc takes the request a2a-sdk builds, and the 1.0 validation accepts ours.
    assert a2a.jsonrpc.METHODS[name].request_type == core.DESCRIPTOR.full_name
    a2a.messages.validate(core.DESCRIPTOR.full_name, ours)


def test_the_extended_card_and_absent_params() -> None:
    assert rpc.params_to_v1("agent/getAuthenticatedExtendedCard", None) == (
        "GetExtendedAgentCard",
        {},
    )
    assert rpc.params_to_v1("tasks/resubscribe", {"id": "t"}) == (
        "SubscribeToTask",
        {"id": "t"},
    )
    with pytest.raises(KeyError):
        rpc.params_to_v1("tasks/list", {})


@pytest.mark.parametrize(
    ("method", "params", "field", "reason"),
    [
        ("tasks/get", [], "params", "expected an object"),
        (
            "message/send",
            {"message": {"kind": "task"}},
            "params.message.kind",
            "expected 'message', not 'task'",
        ),
        (
            "message/send",
            {"message": MESSAGE, "configuration": 1},
            "params.configuration",
            "expected an object",
        ),
        (
            "message/send",
            {"message": MESSAGE, "configuration": {"blocking": "yes"}},
            "params.configuration.blocking",
            "expected a boolean",
        ),
        (
            "message/send",
            {"message": MESSAGE, "configuration": {"pushNotificationConfig": []}},
            "params.configuration.pushNotificationConfig",
            "expected an object",
        ),
        (
            "tasks/pushNotificationConfig/set",
            {"taskId": "t", "pushNotificationConfig": "x"},
            "params.pushNotificationConfig",
            "expected an object",
        ),
        (
            "tasks/pushNotificationConfig/set",
            {"pushNotificationConfig": {"url": "u", "authentication": 1}},
            "params.pushNotificationConfig.authentication",
            "expected an object",
        ),
        (
            "tasks/pushNotificationConfig/set",
            {
                "pushNotificationConfig": {
                    "url": "u",
                    "authentication": {"schemes": "Bearer"},
                }
            },
            "params.pushNotificationConfig.authentication.schemes",
            "expected an array",
        ),
    ],
)
def test_malformed_params_are_refused_by_field(
    method: str, params: Any, field: str, reason: str
) -> None:
    with pytest.raises(ShapeError) as raised:
        rpc.params_to_v1(method, params)
    assert (raised.value.field, raised.value.reason) == (field, reason)


def _core(message_type: Any, value: dict[str, Any]) -> Any:
    return ParseDict(value, message_type())


def test_results_as_a2a_sdk_converts_them() -> None:
    task = compat.to_core_task(types.Task.model_validate(TASK))
    message = compat.to_core_message(types.Message.model_validate(AGENT_MESSAGE))
    for core in (
        a2a_pb2.SendMessageResponse(task=task),
        a2a_pb2.SendMessageResponse(message=message),
    ):
        expected = _v0_3(compat.to_compat_send_message_response(core, 1))["result"]
        assert rpc.result_from_v1("message/send", MessageToDict(core)) == expected
    for method in ("tasks/get", "tasks/cancel"):
        assert rpc.result_from_v1(method, MessageToDict(task)) == _v0_3(
            compat.to_compat_task(task)
        )
    push = compat.to_core_task_push_notification_config(
        types.TaskPushNotificationConfig.model_validate(
            {"taskId": "t-1", "pushNotificationConfig": PUSH}
        )
    )
    for method in (
        "tasks/pushNotificationConfig/set",
        "tasks/pushNotificationConfig/get",
    ):
        assert rpc.result_from_v1(method, MessageToDict(push)) == _v0_3(
            compat.to_compat_task_push_notification_config(push)
        )
    listed = a2a_pb2.ListTaskPushNotificationConfigsResponse(configs=[push, push])
    assert rpc.result_from_v1(
        "tasks/pushNotificationConfig/list", MessageToDict(listed)
    ) == (
        _v0_3(compat.to_compat_list_task_push_notification_config_response(listed, 1))[
            "result"
        ]
    )
    assert rpc.result_from_v1("tasks/pushNotificationConfig/list", {}) == []
    assert rpc.result_from_v1("tasks/pushNotificationConfig/delete", {}) is None
    with pytest.raises(KeyError):
        rpc.result_from_v1("tasks/list", {})
    # A config without authentication scheme or task: what a2a-sdk writes too.
    bare = a2a_pb2.TaskPushNotificationConfig(
        url="u", authentication=a2a_pb2.AuthenticationInfo(credentials="c")
    )
    assert rpc.push_config_from_v1(MessageToDict(bare)) == _v0_3(
        compat.to_compat_task_push_notification_config(bare)
    )


def test_stream_events_as_a2a_sdk_converts_them() -> None:
    events = [
        a2a_pb2.StreamResponse(
            task=compat.to_core_task(types.Task.model_validate(TASK))
        ),
        a2a_pb2.StreamResponse(
            message=compat.to_core_message(types.Message.model_validate(AGENT_MESSAGE))
        ),
        a2a_pb2.StreamResponse(
            artifact_update=compat.to_core_task_artifact_update_event(
                types.TaskArtifactUpdateEvent.model_validate(ARTIFACT_UPDATE)
            )
        ),
    ]
    for core in events:
        expected = _v0_3(compat.to_compat_stream_response(core, 1))["result"]
        for method in ("message/stream", "tasks/resubscribe"):
            assert rpc.result_from_v1(method, MessageToDict(core)) == expected
    status = a2a_pb2.StreamResponse(
        status_update=compat.to_core_task_status_update_event(
            types.TaskStatusUpdateEvent.model_validate(STATUS_UPDATE)
        )
    )
    ours = rpc.stream_event_from_v1(MessageToDict(status), final=True)
    theirs = _v0_3(compat.to_compat_stream_response(status, 1))["result"]
    assert {k: v for k, v in ours.items() if k != "final"} == {
        k: v for k, v in theirs.items() if k != "final"
    }
    assert ours["final"] is True
    # By default ``final`` says whether a 1.0 stream ends on the update's state: the
    # terminal ones (as a2a-sdk says) and the interrupted ones (where a2a-sdk says
    # false, though its streams of either version end there).
    for state, final in [
        ("TASK_STATE_SUBMITTED", False),
        ("TASK_STATE_WORKING", False),
        ("TASK_STATE_COMPLETED", True),
        ("TASK_STATE_CANCELED", True),
        ("TASK_STATE_FAILED", True),
        ("TASK_STATE_REJECTED", True),
        ("TASK_STATE_INPUT_REQUIRED", True),
        ("TASK_STATE_AUTH_REQUIRED", True),
    ]:
        update = {"taskId": "t", "contextId": "c", "status": {"state": state}}
        event = rpc.stream_event_from_v1({"statusUpdate": update})
        assert event["final"] is final, state
        core = ParseDict({"statusUpdate": update}, a2a_pb2.StreamResponse())
        if final and "REQUIRED" not in state:
            assert event == _v0_3(compat.to_compat_stream_response(core, 1))["result"]
    with pytest.raises(ShapeError, match="result: a stream response with no event"):
        rpc.stream_event_from_v1({})


def test_a_get_without_config_id_answers_the_tasks_first_config() -> None:
    push = {"taskId": "t", "id": "c1", "url": "https://h/x"}
    listed = {"configs": [push, dict(push, id="c2")]}
    got = rpc.result_from_v1(
        "tasks/pushNotificationConfig/get", listed, "ListTaskPushNotificationConfigs"
    )
    assert got == rpc.push_config_from_v1(push)
    with pytest.raises(JsonRpcError) as none:
        rpc.result_from_v1(
            "tasks/pushNotificationConfig/get", {}, "ListTaskPushNotificationConfigs"
        )
    assert (none.value.code, none.value.message) == (
        -32603,
        "Push notification config not found",
    )
    assert rpc.rpc_of("tasks/pushNotificationConfig/get", "not params") == (
        "ListTaskPushNotificationConfigs"
    )
    assert rpc.rpc_of(
        "tasks/pushNotificationConfig/get", {"pushNotificationConfigId": "c"}
    ) == ("GetTaskPushNotificationConfig")


def test_an_empty_authentication_is_left_out() -> None:
    config = {
        "taskId": "t",
        "pushNotificationConfig": {"url": "u", "authentication": {}},
    }
    assert rpc.push_config_to_v1(config) == {"taskId": "t", "url": "u"}


def _python_names(model: Any) -> Any:
    """The params of a 0.3 request as a client writes them when it dumps the model by
    Python names (``task_id``...; metadata and data parts kept as given)."""
    return model.model_dump(mode="json", by_alias=False, exclude_none=True)["params"]


@pytest.mark.parametrize(
    ("model", "to_core", "method", "params"),
    REQUESTS,
    ids=[f"{r[2]}-{i}" for i, r in enumerate(REQUESTS)],
)
def test_params_in_python_names_as_a2a_sdk_reads_them(a2a, model, to_core, method, params) -> None:  # type: ignore[no-untyped-def]
    typed = model.model_validate(
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    )
    sent = _python_names(typed)
    # what a2a-sdk reads of the request sent so
    read = model.model_validate(
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": sent}
    )
    assert read == typed
    assert rpc.params_to_v1(method, sent) == rpc.params_to_v1(
        method, _v0_3(typed)["params"]
    )


def test_every_python_name_is_read_at_every_depth() -> None:
    typed = types.SendMessageRequest.model_validate(
        {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": REQUESTS[0][3]}
    )
    sent = _python_names(typed)
    text = repr(sent)
    for name in ("message_id", "context_id", "task_id", "reference_task_ids"):
        assert f"'{name}'" in text  # the case says each in its Python name
    for name in ("mime_type", "accepted_output_modes", "push_notification_config"):
        assert f"'{name}'" in text
    assert rpc.params_to_v1("message/send", sent) == rpc.params_to_v1(
        "message/send", _v0_3(typed)["params"]
    )
    core = MessageToDict(compat.to_core_send_message_request(typed))
    assert rpc.params_to_v1("message/send", sent)[1] == core


def test_the_json_name_wins_where_both_are_given() -> None:
    params = {
        "id": "t-1",
        "pushNotificationConfigId": "p-json",
        "push_notification_config_id": "p-python",
    }
    method = "tasks/pushNotificationConfig/get"
    typed = types.GetTaskPushNotificationConfigRequest.model_validate(
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    )
    assert typed.params.push_notification_config_id == "p-json"  # a2a-sdk's reading
    assert rpc.params_to_v1(method, params) == (
        "GetTaskPushNotificationConfig",
        {"taskId": "t-1", "id": "p-json"},
    )
    nested = {
        "message": dict(MESSAGE, task_id="other", taskId="t-1"),
        "configuration": {"history_length": 2, "historyLength": 5},
    }
    got = rpc.params_to_v1("message/send", nested)[1]
    assert (got["message"]["taskId"], got["configuration"]["historyLength"]) == (
        "t-1",
        5,
    )


def test_a_get_naming_its_config_by_python_name_asks_for_that_config() -> None:
    params = {"id": "t-1", "push_notification_config_id": "p-2"}
    assert rpc.rpc_of("tasks/pushNotificationConfig/get", params) == (
        "GetTaskPushNotificationConfig"
    )
    assert rpc.params_to_v1("tasks/pushNotificationConfig/get", params) == (
        "GetTaskPushNotificationConfig",
        {"taskId": "t-1", "id": "p-2"},
    )


@pytest.mark.parametrize(
    "length", [0, "0", 0.0, False, " 0", "+0", "-0", "00", "0.0", None, 3, "3", 3.0]
)
def test_history_length_0_means_no_limit_however_it_is_spelled(
    a2a: Any, length: Any
) -> None:
    """0.3 (a2a-sdk reads the number as pydantic does) means no limit by 0; 1.0 by
    leaving the field out (its 0 asks for no messages): the 1.0 request is what
    a2a-sdk 1.3.0's adapter makes of the same 0.3 request."""
    get = {"id": "t-1", "historyLength": length}
    send = {"message": MESSAGE, "configuration": {"historyLength": length}}
    for model, to_core, method, params, where in (
        (types.GetTaskRequest, compat.to_core_get_task_request, "tasks/get", get, ()),
        (
            types.SendMessageRequest,
            compat.to_core_send_message_request,
            "message/send",
            send,
            ("configuration",),
        ),
    ):
        typed = model.model_validate(
            {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        )
        core = to_core(typed)
        name, ours = rpc.params_to_v1(method, params)
        checked = a2a.messages.validate(core.DESCRIPTOR.full_name, ours)
        for key in where:
            checked, core = checked.get(key, {}), getattr(core, key)
        assert checked.get("historyLength") == (
            core.history_length if core.HasField("history_length") else None
        ), (method, length)

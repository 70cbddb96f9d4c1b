"""The client side of ``codegen/runtime/v0_3/_v0_3_rpc``: 1.0 requests as 0.3 JSON-RPC
params (``params_from_v1``) and 0.3 results as 1.0 answers (``result_to_v1``,
``stream_event_to_v1``), differentially against a2a-sdk 1.3.0's 0.3 JSON-RPC client
(``a2a.compat.v0_3.conversions``: ``to_compat_*_request`` of a 1.0 protobuf request,
``to_core_*`` of a 0.3 pydantic result), each side as its library writes it."""

from __future__ import annotations

from typing import Any

import pytest

from codegen.runtime import _v0_3_rpc as rpc
from codegen.runtime._v0_3_shapes import ShapeError

compat = pytest.importorskip("a2a.compat.v0_3.conversions")
types = pytest.importorskip("a2a.compat.v0_3.types")
from a2a.types import a2a_pb2  # noqa: E402
from google.protobuf.json_format import MessageToDict, ParseDict  # noqa: E402

from .test_v0_3_rest import CARD_03  # noqa: E402
from .test_v0_3_shapes import (  # noqa: E402
    AGENT_MESSAGE,
    ARTIFACT_UPDATE,
    MESSAGE,
    STATUS_UPDATE,
    TASK,
)


def _v0_3(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


SEND = {
    "message": {
        "messageId": "m1",
        "role": "ROLE_USER",
        "parts": [{"text": "hi"}, {"data": [1, 2]}, {"url": "https://x.test/"}],
        "referenceTaskIds": ["t0"],
    },
    "configuration": {
        "acceptedOutputModes": ["text/plain"],
        "historyLength": 2,
        "returnImmediately": True,
        "taskPushNotificationConfig": {
            "url": "https://hook.test/",
            "id": "p",
            "authentication": {"scheme": "Bearer", "credentials": "c"},
        },
    },
    "metadata": {"k": "v"},
}

REQUESTS: list[tuple[str, Any, dict[str, Any], Any]] = [
    (
        "SendMessage",
        a2a_pb2.SendMessageRequest,
        SEND,
        compat.to_compat_send_message_request,
    ),
    (
        "SendStreamingMessage",
        a2a_pb2.SendMessageRequest,
        {"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": []}},
        compat.to_compat_send_message_request,
    ),
    (
        "GetTask",
        a2a_pb2.GetTaskRequest,
        {"id": "t1", "historyLength": 3},
        compat.to_compat_get_task_request,
    ),
    (
        "CancelTask",
        a2a_pb2.CancelTaskRequest,
        {"id": "t1", "metadata": {"why": "x"}},
        compat.to_compat_cancel_task_request,
    ),
    (
        "SubscribeToTask",
        a2a_pb2.SubscribeToTaskRequest,
        {"id": "t1"},
        compat.to_compat_subscribe_to_task_request,
    ),
    (
        "CreateTaskPushNotificationConfig",
        a2a_pb2.TaskPushNotificationConfig,
        {"taskId": "t1", "id": "p1", "url": "https://hook.test/", "token": "x"},
        compat.to_compat_create_task_push_notification_config_request,
    ),
    (
        "GetTaskPushNotificationConfig",
        a2a_pb2.GetTaskPushNotificationConfigRequest,
        {"taskId": "t1", "id": "p1"},
        compat.to_compat_get_task_push_notification_config_request,
    ),
    (
        "ListTaskPushNotificationConfigs",
        a2a_pb2.ListTaskPushNotificationConfigsRequest,
        {"taskId": "t1"},
        compat.to_compat_list_task_push_notification_config_request,
    ),
    (
        "DeleteTaskPushNotificationConfig",
        a2a_pb2.DeleteTaskPushNotificationConfigRequest,
        {"taskId": "t1", "id": "p1"},
        compat.to_compat_delete_task_push_notification_config_request,
    ),
]


@pytest.mark.parametrize(("name", "message_type", "request_", "to_compat"), REQUESTS)
def test_params_as_a2a_sdk_writes_them(
    name: str, message_type: Any, request_: dict[str, Any], to_compat: Any
) -> None:
    expected = _v0_3(to_compat(ParseDict(request_, message_type()), 1))
    method, params = rpc.params_from_v1(name, request_)
    streaming = name == "SendStreamingMessage"  # a2a-sdk's one converter says send
    assert method == ("message/stream" if streaming else expected["method"])
    assert params == expected["params"]
    # and back through the server direction: the same 1.0 request
    rpc_again, again = rpc.params_to_v1(method, params)
    assert rpc_again == name
    assert MessageToDict(ParseDict(again, message_type())) == MessageToDict(
        ParseDict(
            {
                **request_,
                **(
                    {"message": {**request_["message"], "referenceTaskIds": ["t0"]}}
                    if name == "SendMessage"
                    else {}
                ),
            },
            message_type(),
        )
    )


def test_the_card_request_and_list_tasks() -> None:
    expected = _v0_3(
        compat.to_compat_get_extended_agent_card_request(
            a2a_pb2.GetExtendedAgentCardRequest(), 1
        )
    )
    assert rpc.params_from_v1("GetExtendedAgentCard", {}) == (expected["method"], None)
    with pytest.raises(ValueError, match="ListTasks: A2A 0.3 has no such operation"):
        rpc.params_from_v1("ListTasks", {})
    with pytest.raises(ValueError, match="ListTasks"):
        rpc.result_to_v1("ListTasks", {})


def _dict(message: Any) -> dict[str, Any]:
    out: dict[str, Any] = MessageToDict(message)
    return out


def test_results_as_a2a_sdk_reads_them() -> None:
    task = types.Task.model_validate(TASK)
    message = types.Message.model_validate(AGENT_MESSAGE)
    for result in (task, message):
        core = compat.to_core_send_message_response(
            types.SendMessageResponse(
                root=types.SendMessageSuccessResponse(id=1, result=result)
            )
        )
        assert rpc.result_to_v1("SendMessage", _v0_3(result)) == _dict(core)
    for name in ("GetTask", "CancelTask"):
        assert rpc.result_to_v1(name, TASK) == _dict(compat.to_core_task(task))
    push = types.TaskPushNotificationConfig.model_validate(
        {
            "taskId": "t1",
            "pushNotificationConfig": {
                "id": "p",
                "url": "https://hook.test/",
                "authentication": {"schemes": ["Bearer", "Basic"]},
            },
        }
    )
    core_push = _dict(compat.to_core_task_push_notification_config(push))
    for name in ("CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig"):
        assert rpc.result_to_v1(name, _v0_3(push)) == core_push
    listed = compat.to_core_list_task_push_notification_config_response(
        types.ListTaskPushNotificationConfigResponse(
            root=types.ListTaskPushNotificationConfigSuccessResponse(
                id=1, result=[push, push]
            )
        )
    )
    assert rpc.result_to_v1(
        "ListTaskPushNotificationConfigs", [_v0_3(push), _v0_3(push)]
    ) == _dict(listed)
    assert rpc.result_to_v1("DeleteTaskPushNotificationConfig", None) == {}
    card = compat.to_core_agent_card(types.AgentCard.model_validate(CARD_03))
    assert rpc.result_to_v1("GetExtendedAgentCard", CARD_03) == _dict(card)


def test_stream_events_as_a2a_sdk_reads_them() -> None:
    for event, model in (
        (TASK, types.Task),
        (MESSAGE, types.Message),
        (STATUS_UPDATE, types.TaskStatusUpdateEvent),
        (ARTIFACT_UPDATE, types.TaskArtifactUpdateEvent),
    ):
        core = compat.to_core_stream_response(
            types.SendStreamingMessageSuccessResponse(
                id=1, result=model.model_validate(event)
            )
        )
        for name in ("SendStreamingMessage", "SubscribeToTask"):
            assert rpc.result_to_v1(name, event) == _dict(core)


@pytest.mark.parametrize(
    ("name", "result", "field"),
    [
        ("SendStreamingMessage", {"kind": "nothing"}, "result.kind"),
        ("SendStreamingMessage", [], "result"),
        ("GetTask", {"kind": "message"}, "result.kind"),
        ("ListTaskPushNotificationConfigs", {}, "result"),
        ("ListTaskPushNotificationConfigs", [3], "result[0]"),
        ("GetExtendedAgentCard", [], "result"),
        (
            "GetTaskPushNotificationConfig",
            {"pushNotificationConfig": 1},
            "result.pushNotificationConfig",
        ),
    ],
)
def test_malformed_results_are_refused_by_field(
    name: str, result: Any, field: str
) -> None:
    with pytest.raises(ShapeError) as caught:
        rpc.result_to_v1(name, result)
    assert caught.value.field == field

"""The 0.3 JSON-RPC ``params`` of each method as the 1.0 request the handler serves, and
the 1.0 answers (results, stream events, push-notification configs) as 0.3 results.

Each 0.3 object is read as a2a-sdk 0.3 reads it: a field under its json name
(``taskId``) or its Python name (``task_id``), the json name winning where both are
given (``_v0_3_shapes._model``).

Choices where the versions differ (a2a-sdk 1.3.0's ``compat.v0_3`` makes the same):
``blocking`` is 1.0's ``returnImmediately`` negated; a 0.3 ``historyLength`` of 0
(however JSON spells it: ``0``, ``"0"``) means no limit there and is left unset, 1.0's
"no limit" (1.0's 0 asks for no messages); a 0.3 push-notification config is nested
under ``pushNotificationConfig`` with its task beside it, a 1.0 one is flat with
``taskId``;
``tasks/pushNotificationConfig/get`` without a config id asks for the task's config
with no ``id``; of 0.3's list of authentication schemes 1.0 keeps the first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._jsonrpc import INTERNAL_ERROR, JsonRpcError
from ._quoting import excerpt
from ._v0_3 import V0_3_METHODS, V0_3_RPCS, error_code_to_v0_3, final_update
from ._v0_3_card import card_answer_from_v1, card_to_v1
from ._v0_3_shapes import (
    ShapeError,
    _model,
    _unset,
    artifact_update_from_v1,
    artifact_update_to_v1,
    message_from_v1,
    message_to_v1,
    status_update_from_v1,
    status_update_to_v1,
    task_from_v1,
    task_to_v1,
)

__all__ = [
    "error_from_v1",
    "params_from_v1",
    "params_to_v1",
    "rpc_of",
    "push_config_from_v1",
    "push_config_to_v1",
    "result_from_v1",
    "result_to_v1",
    "stream_event_from_v1",
    "stream_event_to_v1",
]

Json = dict[str, Any]


def _copy(source: Json, target: Json, names: dict[str, str]) -> None:
    for old, new in names.items():
        if old in source:
            target[new] = source[old]


_CONFIG_FIELDS = {"id": "id", "url": "url", "token": "token"}


def push_config_to_v1(params: object, where: str = "params") -> Json:
    """A 0.3 ``TaskPushNotificationConfig`` (``taskId`` and the nested config) as a
    1.0 ``TaskPushNotificationConfig``."""
    value = _model(params, where)
    out: Json = {}
    _copy(value, out, {"taskId": "taskId"})
    if value.get("pushNotificationConfig") is not None:
        config = _model(
            value["pushNotificationConfig"], f"{where}.pushNotificationConfig"
        )
        out.update(_flat_config(config, f"{where}.pushNotificationConfig"))
    return out


def _flat_config(config: Json, where: str) -> Json:
    out: Json = {}
    _copy(config, out, _CONFIG_FIELDS)
    if config.get("authentication") is not None:
        auth = _model(config["authentication"], f"{where}.authentication")
        converted: Json = {}
        schemes = auth.get("schemes", [])
        if not isinstance(schemes, list):
            raise ShapeError(f"{where}.authentication.schemes", "expected an array")
        if schemes:  # 1.0 has one scheme: the first (none: 1.0 validation refuses)
            converted["scheme"] = schemes[0]
        _copy(auth, converted, {"credentials": "credentials"})
        if converted:  # an empty one says nothing (1.0 would require a scheme)
            out["authentication"] = converted
    return out


def push_config_from_v1(config: Json) -> Json:
    """A 1.0 ``TaskPushNotificationConfig`` as a 0.3 one."""
    nested: Json = {"url": config.get("url", "")}
    _copy(config, nested, {"id": "id", "token": "token"})
    if "authentication" in config:
        auth = config["authentication"]
        converted: Json = {"schemes": [auth["scheme"]] if auth.get("scheme") else []}
        _copy(auth, converted, {"credentials": "credentials"})
        nested["authentication"] = converted
    return {"taskId": config.get("taskId", ""), "pushNotificationConfig": nested}


def _send(params: Json) -> Json:
    out: Json = {}
    if "message" in params:
        out["message"] = message_to_v1(params["message"], "params.message")
    if params.get("configuration") is not None:
        given = _model(params["configuration"], "params.configuration")
        configuration: Json = {}
        _copy(given, configuration, {"acceptedOutputModes": "acceptedOutputModes"})
        if not _unset(given.get("historyLength")):  # 0.3's 0 is "no limit"
            configuration["historyLength"] = given["historyLength"]
        if given.get("blocking") is not None:
            blocking = given["blocking"]
            if not isinstance(blocking, bool):
                raise ShapeError("params.configuration.blocking", "expected a boolean")
            if not blocking:  # 1.0's default is to block: false is not written
                configuration["returnImmediately"] = True
        if given.get("pushNotificationConfig") is not None:
            where = "params.configuration.pushNotificationConfig"
            pushed = _model(given["pushNotificationConfig"], where)
            configuration["taskPushNotificationConfig"] = _flat_config(pushed, where)
        out["configuration"] = configuration
    if params.get("metadata"):
        out["metadata"] = params["metadata"]
    return out


def _get(params: Json) -> Json:
    out: Json = {}
    _copy(params, out, {"id": "id"})
    if not _unset(params.get("historyLength")):
        out["historyLength"] = params["historyLength"]
    return out


def _cancel(params: Json) -> Json:
    out: Json = {}
    _copy(params, out, {"id": "id"})
    if params.get("metadata"):
        out["metadata"] = params["metadata"]
    return out


def _by_task(params: Json) -> Json:
    out: Json = {}
    _copy(params, out, {"id": "taskId", "pushNotificationConfigId": "id"})
    return out


def _subscribe(params: Json) -> Json:
    out: Json = {}
    _copy(params, out, {"id": "id"})
    return out


def _card(params: Json) -> Json:
    return {}


_PARAMS: dict[str, Callable[[Json], Json]] = {
    "message/send": _send,
    "message/stream": _send,
    "tasks/get": _get,
    "tasks/cancel": _cancel,
    "tasks/resubscribe": _subscribe,
    "tasks/pushNotificationConfig/set": push_config_to_v1,
    "tasks/pushNotificationConfig/get": _by_task,
    "tasks/pushNotificationConfig/list": _by_task,
    "tasks/pushNotificationConfig/delete": _by_task,
    "agent/getAuthenticatedExtendedCard": _card,
}


_LISTED = "ListTaskPushNotificationConfigs"


def rpc_of(method: str, params: object) -> str:
    """The 1.0 rpc a 0.3 call is served by: its method's, but for
    ``tasks/pushNotificationConfig/get`` without ``pushNotificationConfigId``, which
    0.3 answers with the task's first config (1.0 requires the id): ListTasks...
    Configs, whose first config ``result_from_v1`` answers; ``KeyError`` for a
    method 0.3 does not have."""
    rpc = V0_3_METHODS[method].rpc
    if method == "tasks/pushNotificationConfig/get" and not (
        isinstance(params, dict)
        and _model(params, "params").get("pushNotificationConfigId")
    ):
        return _LISTED
    return rpc


def params_to_v1(method: str, params: object) -> tuple[str, Json]:
    """The 1.0 rpc (``rpc_of``) and request for a 0.3 ``method``'s ``params`` (absent
    params are ``{}``); ``KeyError`` for a method 0.3 does not have."""
    value = _model({} if params is None else params, "params")
    return rpc_of(method, value), _PARAMS[method](value)


def stream_event_from_v1(event: Json, *, final: bool | None = None) -> Json:
    """A 1.0 ``StreamResponse`` as the 0.3 event it holds. ``final`` (said on a status
    update): whether it is the last event of its stream; by default what
    ``final_update`` says of it."""
    if "task" in event:
        return task_from_v1(event["task"])
    if "message" in event:
        return message_from_v1(event["message"])
    if "statusUpdate" in event:
        update = event["statusUpdate"]
        final = final_update(update) if final is None else final
        return status_update_from_v1(update, final=final)
    if "artifactUpdate" in event:
        return artifact_update_from_v1(event["artifactUpdate"])
    raise ShapeError("result", "a stream response with no event")


def result_from_v1(method: str, result: Json, rpc: str = "") -> Any:
    """The 0.3 ``result`` of ``method`` for the 1.0 handler's answer to ``rpc`` (the
    ``rpc_of`` the call; for ``tasks/pushNotificationConfig/delete``, which answers
    nothing, ``None``; for the extended card, the card as it is when it lists no
    interface 0.3 can call)."""
    if method in ("message/send", "message/stream", "tasks/resubscribe"):
        return stream_event_from_v1(result)
    if method in ("tasks/get", "tasks/cancel"):
        return task_from_v1(result)
    if method == "tasks/pushNotificationConfig/get" and rpc == _LISTED:
        configs = result.get("configs") or ()
        if not configs:  # what a2a-sdk 0.3 answers
            raise JsonRpcError(INTERNAL_ERROR, "Push notification config not found")
        return push_config_from_v1(configs[0])
    if method in (
        "tasks/pushNotificationConfig/set",
        "tasks/pushNotificationConfig/get",
    ):
        return push_config_from_v1(result)
    if method == "tasks/pushNotificationConfig/list":
        return [push_config_from_v1(c) for c in result.get("configs", ())]
    if method == "tasks/pushNotificationConfig/delete":
        return None
    if method == "agent/getAuthenticatedExtendedCard":
        return card_answer_from_v1(result)
    raise KeyError(method)


def error_from_v1(error: Json) -> Json:
    """A 1.0 JSON-RPC error object as a 0.3 client reads it: the code one 0.3 has
    (``error_code_to_v0_3``), the message and ``data`` kept."""
    code = error.get("code")
    if isinstance(code, int) and error_code_to_v0_3(code) != code:
        return {**error, "code": error_code_to_v0_3(code)}
    return error


# The client side: a 1.0 request as 0.3 JSON-RPC params, 0.3 results as 1.0 answers.
# Errors need no conversion: the codes 0.3 has (JSON-RPC's and -32001 to -32007) mean
# in 1.0 what they meant, and 0.3 servers send no other.


def _send_from_v1(request: Json) -> Json:
    out: Json = {}
    if "message" in request:
        out["message"] = message_from_v1(request["message"])
    if "configuration" in request:
        given = request["configuration"]
        configuration: Json = {}
        _copy(given, configuration, {"acceptedOutputModes": "acceptedOutputModes"})
        if "taskPushNotificationConfig" in given:
            flat = given["taskPushNotificationConfig"]
            nested = push_config_from_v1(flat)["pushNotificationConfig"]
            configuration["pushNotificationConfig"] = nested
        _copy(given, configuration, {"historyLength": "historyLength"})
        configuration["blocking"] = not given.get("returnImmediately", False)
        out["configuration"] = configuration
    _copy(request, out, {"metadata": "metadata"})
    return out


def _renamed(names: dict[str, str]) -> Callable[[Json], Json]:
    def convert(request: Json) -> Json:
        out: Json = {}
        _copy(request, out, names)
        return out

    return convert


_PARAMS_FROM_V1: dict[str, Callable[[Json], Json]] = {
    "SendMessage": _send_from_v1,
    "SendStreamingMessage": _send_from_v1,
    "GetTask": _renamed({"id": "id", "historyLength": "historyLength"}),
    "CancelTask": _renamed({"id": "id", "metadata": "metadata"}),
    "SubscribeToTask": _renamed({"id": "id"}),
    "CreateTaskPushNotificationConfig": push_config_from_v1,
    "GetTaskPushNotificationConfig": _renamed(
        {"taskId": "id", "id": "pushNotificationConfigId"}
    ),
    "ListTaskPushNotificationConfigs": _renamed({"taskId": "id"}),
    "DeleteTaskPushNotificationConfig": _renamed(
        {"taskId": "id", "id": "pushNotificationConfigId"}
    ),
    "GetExtendedAgentCard": _renamed({}),
}


def params_from_v1(rpc: str, request: Json) -> tuple[str, Json | None]:
    """Client side: the 0.3 JSON-RPC method and ``params`` of a 1.0 request (``None``
    for ``agent/getAuthenticatedExtendedCard``, which takes none). ``ValueError`` for
    ListTasks, which 0.3 does not have. The tenant has no place in 0.3 and is
    dropped."""
    if rpc not in _PARAMS_FROM_V1:
        raise ValueError(f"{rpc}: A2A 0.3 has no such operation")
    method = V0_3_RPCS[rpc]
    if method == "agent/getAuthenticatedExtendedCard":
        return method, None
    return method, _PARAMS_FROM_V1[rpc](request)


def stream_event_to_v1(result: object, where: str = "result") -> Json:
    """Client side: a 0.3 event (a ``result`` of ``message/stream``,
    ``tasks/resubscribe``, or ``message/send``) as a 1.0 ``StreamResponse`` (``final``
    dropped)."""
    value = _model(result, where)
    kind = value.get("kind")
    if kind == "task":
        return {"task": task_to_v1(value, where)}
    if kind == "message":
        return {"message": message_to_v1(value, where)}
    if kind == "status-update":
        return {"statusUpdate": status_update_to_v1(value, where)}
    if kind == "artifact-update":
        return {"artifactUpdate": artifact_update_to_v1(value, where)}
    raise ShapeError(f"{where}.kind", f"no such event {excerpt(kind)}")


def _configs_to_v1(result: object) -> Json:
    if not isinstance(result, list):
        raise ShapeError("result", "expected an array")
    return {
        "configs": [
            push_config_to_v1(item, f"result[{i}]") for i, item in enumerate(result)
        ]
    }


def result_to_v1(rpc: str, result: object) -> Json:
    """Client side: the 1.0 answer to ``rpc`` (a 1.0 rpc) from the 0.3 JSON-RPC
    ``result``; ``ShapeError`` naming the field for a result of the wrong shape."""
    if rpc in ("SendMessage", "SendStreamingMessage", "SubscribeToTask"):
        return stream_event_to_v1(result)
    if rpc in ("GetTask", "CancelTask"):
        return task_to_v1(result, "result")
    if rpc in ("CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig"):
        return push_config_to_v1(result, "result")
    if rpc == "ListTaskPushNotificationConfigs":
        return _configs_to_v1(result)
    if rpc == "DeleteTaskPushNotificationConfig":
        return {}
    if rpc == "GetExtendedAgentCard":
        return card_to_v1(result, "result")
    raise ValueError(f"{rpc}: A2A 0.3 has no such operation")

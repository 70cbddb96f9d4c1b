"""The A2A 0.3 HTTP+JSON binding's bodies (ProtoJSON of the v0.3.0 proto) and 1.0
ProtoJSON, both ways, for every request, response and stream event.

Server side: ``request_to_v1`` turns a 0.3 request (as the ``v0_3`` route table's
``transcode`` gives it: path, query and body in one dict, with the path's values as
sent, ``RouteTable.raw_params``) into the 1.0 rpc and request the handler serves;
``response_from_v1`` turns the handler's 1.0 answer or stream event back into the 0.3
body. Client side: ``request_from_v1`` and ``response_to_v1`` are the same conversions
the other way. Errors are ``google.rpc.Status`` objects on both versions (``{"error":
{code, status, message, details}}``, as a2a-sdk 1.3.0's 0.3 REST adapter writes them):
nothing to convert.

What differs from 1.0 (the v0.3.0 proto): a message's parts are ``content``; a file part
nests ``file`` with ``fileWithUri`` or ``fileWithBytes``, ``mimeType`` and ``name``; a data
part nests its object under ``data.data``; ``TASK_STATE_CANCELLED`` is spelled with two
L's; tasks and configs are named by resource names (``tasks/{id}``,
``tasks/{id}/pushNotificationConfigs/{config}``; in a path each id is percent-encoded,
an id's ``/`` sent as ``%2F``, and decoded once); a push-notification config nests its
fields under ``pushNotificationConfig``; status updates carry ``final``. Input may use
proto field names (``request``, ``msg``, ``update``, ``file_with_uri``...) as well as the
json names, as ProtoJSON allows; output uses the json names (``message``).

Choices where the versions differ (a2a-sdk's 0.3 REST peers make the same):
``fileWithBytes`` holds the base64 text of the file as its bytes (so on the wire it is
base64 twice), as a2a-sdk 0.3.26 and 1.3.0 write and read it; a
CreateTaskPushNotificationConfig body may be the whole request (``parent``,
``configId``, ``config``), which a2a-sdk's 0.3 clients send, as well as the ``config``
the proto's rule names; a 0.3 configuration without ``blocking`` is non-blocking
(proto3's default ``false``: 1.0 ``returnImmediately: true``), so a 1.0 request always
goes with ``blocking`` said; a 0.3 ``historyLength`` of 0 (no limit) is left unset,
1.0's "no limit"; of 0.3's list of authentication schemes 1.0 keeps the first; 1.0's
``referenceTaskIds`` and CancelTask ``metadata`` have no place in the 0.3 proto and are
dropped; a data part that is not an object goes to 0.3 as ``{"value": v}`` with
``metadata.data_part_compat: true``, as the JSON-RPC shapes do. ListTasks has no 0.3
route: ``request_from_v1`` refuses it. The card is ``_v0_3_card``'s (a2a-sdk serves
``/v1/card`` in the 0.3 JSON-RPC form).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any
from urllib.parse import unquote

from ._quoting import excerpt
from ._v0_3 import final_update
from ._v0_3_card import card_answer_from_v1, card_to_v1
from ._v0_3_shapes import ShapeError, _copy, _items, _list, _object, _snake, _unset
from ._v0_3_shapes import part_from_v1 as _shape_part_from_v1
from ._v0_3_shapes import part_to_v1 as _shape_part_to_v1

__all__ = [
    "V0_3_REST_RPCS",
    "request_from_v1",
    "request_to_v1",
    "response_from_v1",
    "response_to_v1",
    "stream_event_from_v1",
    "stream_event_to_v1",
]

Json = dict[str, Any]

V0_3_REST_RPCS: Mapping[str, str] = MappingProxyType(
    {
        "SendMessage": "SendMessage",
        "SendStreamingMessage": "SendStreamingMessage",
        "GetTask": "GetTask",
        "CancelTask": "CancelTask",
        "TaskSubscription": "SubscribeToTask",
        "CreateTaskPushNotificationConfig": "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig": "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfig": "ListTaskPushNotificationConfigs",
        "GetAgentCard": "GetExtendedAgentCard",
        "DeleteTaskPushNotificationConfig": "DeleteTaskPushNotificationConfig",
    }
)
"""Each rpc of the v0.3.0 proto (its HTTP+JSON routes) to the 1.0 rpc serving it."""

_REST_RPCS_BACK = {new: old for old, new in V0_3_REST_RPCS.items()}

_STATES_0_3 = (
    "TASK_STATE_UNSPECIFIED",
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELLED",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_REJECTED",
    "TASK_STATE_AUTH_REQUIRED",
)
_STATES_1_0 = tuple(s.replace("CANCELLED", "CANCELED") for s in _STATES_0_3)
_ROLES = ("ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT")

_TASK_NAME = re.compile(r"tasks/([^/]+)")
# CreateTaskPushNotificationConfig's route binds its parent with the collection.
_CONFIGS_PARENT = re.compile(r"tasks/([^/]+)(?:/pushNotificationConfigs)?")
_CONFIG_NAME = re.compile(r"tasks/([^/]+)/pushNotificationConfigs/([^/]+)")


def _fields(
    value: object, where: str, names: tuple[str, ...], proto: Mapping[str, str] = {}
) -> Json:
    """The fields ``names`` (json names) of the 0.3 object ``value``, whichever name
    ProtoJSON lets it use (the json name, the proto name, or ``proto``'s own name for
    a field whose json name is not its proto name's camel case); ``null`` is absent,
    other keys are dropped (unknown fields). A field given under two names is read
    under its json name, as the JSON-RPC side reads it (``_v0_3_shapes._model``)."""
    given = _object(value, where)
    lookup = {name: name for name in names}
    lookup.update({_snake(name): name for name in names})
    lookup.update({old: new for old, new in proto.items()})
    out: Json = {}
    for key, item in given.items():
        name = lookup.get(key)
        if name is None or item is None:
            continue
        if key == name:
            out[name] = item  # the json name wins
        else:
            out.setdefault(name, item)
    return out


def _enum(value: object, names: tuple[str, ...], where: str) -> str:
    """An enum value by name or number (ProtoJSON takes both), as its name."""
    if isinstance(value, str) and value in names:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value < len(names):
            return names[value]
    raise ShapeError(where, f"no such value {excerpt(value)}")


def _string(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise ShapeError(where, "expected a string")
    return value


# Parts: through the 0.3 JSON-RPC shape, so the two 0.3 bindings convert alike.


def part_to_v1(part: object, where: str = "part") -> Json:
    """A 0.3 ProtoJSON ``Part`` as a 1.0 ``Part``."""
    value = _fields(part, where, ("text", "file", "data", "metadata"))
    shape: Json = {}
    if "metadata" in value:
        shape["metadata"] = value["metadata"]
    members = [name for name in ("text", "file", "data") if name in value]
    if len(members) != 1:
        raise ShapeError(where, "expected one of text, file or data")
    if "text" in value:
        shape.update(kind="text", text=_string(value["text"], f"{where}.text"))
    elif "file" in value:
        shape.update(kind="file", file=_file_to_shape(value["file"], f"{where}.file"))
    else:
        data = _fields(value["data"], f"{where}.data", ("data",))
        shape.update(
            kind="data", data=_object(data.get("data", {}), f"{where}.data.data")
        )
    return _shape_part_to_v1(shape, where)


def _file_to_shape(file: object, where: str) -> Json:
    value = _fields(file, where, ("fileWithUri", "fileWithBytes", "mimeType", "name"))
    content = [name for name in ("fileWithUri", "fileWithBytes") if name in value]
    if len(content) != 1:
        raise ShapeError(where, "expected one of fileWithUri or fileWithBytes")
    shape: Json = {}
    if "fileWithUri" in value:
        shape["uri"] = _string(value["fileWithUri"], f"{where}.fileWithUri")
    else:
        shape["bytes"] = _base64_text(value["fileWithBytes"], f"{where}.fileWithBytes")
    if value.get("mimeType"):
        shape["mimeType"] = value["mimeType"]
    if value.get("name"):
        shape["name"] = value["name"]
    return shape


def _base64_text(value: object, where: str) -> str:
    """The text ``fileWithBytes`` carries: the base64 of the file (see the module's
    docstring), itself base64 on the wire."""
    text = _string(value, where)
    try:
        padded = text + "=" * (-len(text) % 4)
        raw = base64.b64decode(padded, altchars=b"-_", validate=True)
        return raw.decode("ascii")
    except (binascii.Error, ValueError):
        raise ShapeError(where, "expected base64") from None


def part_from_v1(part: Json) -> Json:
    """A 1.0 ``Part`` as a 0.3 ProtoJSON ``Part``."""
    shape = _shape_part_from_v1(part)
    out: Json = {}
    if shape["kind"] == "text":
        out["text"] = shape["text"]
    elif shape["kind"] == "data":
        out["data"] = {"data": shape["data"]}
    else:
        file = shape["file"]
        converted: Json = {}
        if "uri" in file:
            converted["fileWithUri"] = file["uri"]
        else:
            converted["fileWithBytes"] = base64.b64encode(
                str(file["bytes"]).encode("utf-8")
            ).decode("ascii")
        _copy(file, converted, ("mimeType", "name"))
        out["file"] = converted
    if "metadata" in shape:
        out["metadata"] = shape["metadata"]
    return out


def _parts_to_v1(value: object, where: str) -> list[Json]:
    return _items(part_to_v1, value, where)


_MESSAGE_FIELDS = ("messageId", "contextId", "taskId", "metadata", "extensions")


def message_to_v1(message: object, where: str = "message") -> Json:
    """A 0.3 ProtoJSON ``Message`` as a 1.0 ``Message``."""
    value = _fields(message, where, (*_MESSAGE_FIELDS, "role", "content"))
    out: Json = {}
    _copy(value, out, _MESSAGE_FIELDS)
    if "role" in value:
        out["role"] = _enum(value["role"], _ROLES, f"{where}.role")
    if "content" in value:
        out["parts"] = _parts_to_v1(value["content"], f"{where}.content")
    return out


def message_from_v1(message: Json) -> Json:
    """A 1.0 ``Message`` as a 0.3 ProtoJSON ``Message`` (``referenceTaskIds``, which
    the 0.3 proto lacks, is dropped)."""
    out: Json = {}
    _copy(message, out, ("messageId", "contextId", "taskId"))
    if "role" in message:
        out["role"] = message["role"]
    out["content"] = [part_from_v1(p) for p in message.get("parts", ())]
    _copy(message, out, ("metadata", "extensions"))
    return out


def status_to_v1(status: object, where: str = "status") -> Json:
    """A 0.3 ProtoJSON ``TaskStatus`` as a 1.0 one."""
    value = _fields(
        status, where, ("state", "message", "timestamp"), {"update": "message"}
    )
    out: Json = {}
    if "state" in value:
        state = _enum(value["state"], _STATES_0_3, f"{where}.state")
        out["state"] = _STATES_1_0[_STATES_0_3.index(state)]
    if "message" in value:
        out["message"] = message_to_v1(value["message"], f"{where}.message")
    _copy(value, out, ("timestamp",))
    return out


def status_from_v1(status: Json) -> Json:
    """A 1.0 ``TaskStatus`` as a 0.3 ProtoJSON one."""
    state = status.get("state", "TASK_STATE_UNSPECIFIED")
    out: Json = {"state": _STATES_0_3[_STATES_1_0.index(state)]}
    if "message" in status:
        out["message"] = message_from_v1(status["message"])
    _copy(status, out, ("timestamp",))
    return out


_ARTIFACT_FIELDS = ("artifactId", "name", "description", "metadata", "extensions")


def artifact_to_v1(artifact: object, where: str = "artifact") -> Json:
    """A 0.3 ProtoJSON ``Artifact`` as a 1.0 one."""
    value = _fields(artifact, where, (*_ARTIFACT_FIELDS, "parts"))
    out: Json = {}
    _copy(value, out, _ARTIFACT_FIELDS)
    out["parts"] = _parts_to_v1(value.get("parts", []), f"{where}.parts")
    return out


def artifact_from_v1(artifact: Json) -> Json:
    """A 1.0 ``Artifact`` as a 0.3 ProtoJSON one."""
    out: Json = {}
    _copy(artifact, out, ("artifactId", "name", "description"))
    out["parts"] = [part_from_v1(p) for p in artifact.get("parts", ())]
    _copy(artifact, out, ("metadata", "extensions"))
    return out


def task_to_v1(task: object, where: str = "task") -> Json:
    """A 0.3 ProtoJSON ``Task`` as a 1.0 one."""
    names = ("id", "contextId", "status", "artifacts", "history", "metadata")
    value = _fields(task, where, names)
    out: Json = {}
    _copy(value, out, ("id", "contextId"))
    if "status" in value:
        out["status"] = status_to_v1(value["status"], f"{where}.status")
    if value.get("artifacts"):
        out["artifacts"] = _items(
            artifact_to_v1, value["artifacts"], f"{where}.artifacts"
        )
    if value.get("history"):
        out["history"] = _items(message_to_v1, value["history"], f"{where}.history")
    _copy(value, out, ("metadata",))
    return out


def task_from_v1(task: Json) -> Json:
    """A 1.0 ``Task`` as a 0.3 ProtoJSON one."""
    out: Json = {}
    _copy(task, out, ("id", "contextId"))
    out["status"] = status_from_v1(task.get("status", {}))
    if task.get("artifacts"):
        out["artifacts"] = [artifact_from_v1(a) for a in task["artifacts"]]
    if task.get("history"):
        out["history"] = [message_from_v1(m) for m in task["history"]]
    _copy(task, out, ("metadata",))
    return out


def _status_update_to_v1(event: object, where: str) -> Json:
    value = _fields(
        event, where, ("taskId", "contextId", "status", "final", "metadata")
    )
    out: Json = {}
    _copy(value, out, ("taskId", "contextId"))
    if "status" in value:
        out["status"] = status_to_v1(value["status"], f"{where}.status")
    _copy(value, out, ("metadata",))
    return out  # final dropped: 1.0 ends the stream instead


_ARTIFACT_EVENT_FIELDS = ("taskId", "contextId", "append", "lastChunk", "metadata")


def _artifact_update_to_v1(event: object, where: str) -> Json:
    value = _fields(event, where, (*_ARTIFACT_EVENT_FIELDS, "artifact"))
    out: Json = {}
    _copy(value, out, _ARTIFACT_EVENT_FIELDS)
    if "artifact" in value:
        out["artifact"] = artifact_to_v1(value["artifact"], f"{where}.artifact")
    return out


_EVENTS_TO_V1: dict[str, Callable[[object, str], Json]] = {
    "task": task_to_v1,
    "message": message_to_v1,
    "statusUpdate": _status_update_to_v1,
    "artifactUpdate": _artifact_update_to_v1,
}


def stream_event_to_v1(event: object, where: str = "event") -> Json:
    """A 0.3 ``StreamResponse`` (or ``SendMessageResponse``) as the 1.0 one, ``final``
    dropped."""
    value = _fields(event, where, tuple(_EVENTS_TO_V1), {"msg": "message"})
    if len(value) != 1:
        raise ShapeError(where, "expected one of " + ", ".join(_EVENTS_TO_V1))
    ((name, item),) = value.items()
    return {name: _EVENTS_TO_V1[name](item, f"{where}.{name}")}


def stream_event_from_v1(event: Json, *, final: bool | None = None) -> Json:
    """A 1.0 ``StreamResponse`` (or ``SendMessageResponse``) as the 0.3 one; ``final``:
    whether it is the last event of its stream, said on a status update (by default
    what ``final_update`` says of it)."""
    if "task" in event:
        return {"task": task_from_v1(event["task"])}
    if "message" in event:
        return {"message": message_from_v1(event["message"])}
    if "statusUpdate" in event:
        update = event["statusUpdate"]
        out: Json = {}
        _copy(update, out, ("taskId", "contextId"))
        out["status"] = status_from_v1(update.get("status", {}))
        if final_update(update) if final is None else final:  # false is left out
            out["final"] = True
        _copy(update, out, ("metadata",))
        return {"statusUpdate": out}
    if "artifactUpdate" in event:
        update = event["artifactUpdate"]
        converted: Json = {}
        _copy(update, converted, ("taskId", "contextId"))
        converted["artifact"] = artifact_from_v1(update.get("artifact", {}))
        _copy(update, converted, ("append", "lastChunk", "metadata"))
        return {"artifactUpdate": converted}
    raise ShapeError("event", "a stream response with no event")


# Push-notification configs: 0.3 names them and nests the config; 1.0 is flat.


def _id(segment: str, sent: bool) -> str:
    """The id a resource name's segment names; ``sent``: the name is a request's
    path value as sent (percent-encoded), whose ids are decoded here, once: ``%2F``
    is an id's ``/``, ``%252F`` its ``%2F``. A name in a body is not encoded."""
    return unquote(segment) if sent and "%" in segment else segment


def _task_id(name: object, where: str, pattern: re.Pattern[str] = _TASK_NAME) -> str:
    """The task id of a request's path value ``name`` (as sent)."""
    match = pattern.fullmatch(_string(name, where))
    if match is None:
        raise ShapeError(where, "expected tasks/{id}")
    return _id(match.group(1), sent=True)


def _config_ids(name: object, where: str, sent: bool = True) -> tuple[str, str]:
    """The task and config ids of a config's resource name (``sent``: a request's
    path value, as sent)."""
    match = _CONFIG_NAME.fullmatch(_string(name, where))
    if match is None:
        raise ShapeError(where, "expected tasks/{id}/pushNotificationConfigs/{id}")
    return _id(match.group(1), sent), _id(match.group(2), sent)


def _config_to_v1(config: object, where: str) -> Json:
    """A 0.3 ``PushNotificationConfig`` as the fields of a 1.0
    ``TaskPushNotificationConfig``."""
    value = _fields(config, where, ("id", "url", "token", "authentication"))
    out: Json = {}
    _copy(value, out, ("id", "url", "token"))
    if "authentication" in value:
        auth = _fields(
            value["authentication"],
            f"{where}.authentication",
            ("schemes", "credentials"),
        )
        converted: Json = {}
        schemes = _list(auth.get("schemes", []), f"{where}.authentication.schemes")
        if schemes:  # 1.0 has one scheme: the first
            converted["scheme"] = schemes[0]
        _copy(auth, converted, ("credentials",))
        if converted:  # an empty one says nothing (1.0 would require a scheme)
            out["authentication"] = converted
    return out


def _config_from_v1(config: Json) -> Json:
    out: Json = {}
    _copy(config, out, ("id",))
    out["url"] = config.get("url", "")
    _copy(config, out, ("token",))
    if "authentication" in config:
        auth = config["authentication"]
        converted: Json = {"schemes": [auth["scheme"]] if auth.get("scheme") else []}
        _copy(auth, converted, ("credentials",))
        out["authentication"] = converted
    return out


def push_config_to_v1(config: object, where: str = "config") -> Json:
    """A 0.3 ProtoJSON ``TaskPushNotificationConfig`` (its ``name`` and nested config)
    as a 1.0 one."""
    value = _fields(config, where, ("name", "pushNotificationConfig"))
    out: Json = {}
    if "name" in value:  # a body's name: not percent-encoded
        ids = _config_ids(value["name"], f"{where}.name", sent=False)
        out["taskId"], out["id"] = ids
    if "pushNotificationConfig" in value:
        out.update(
            _config_to_v1(
                value["pushNotificationConfig"], f"{where}.pushNotificationConfig"
            )
        )
    return out


def push_config_from_v1(config: Json) -> Json:
    """A 1.0 ``TaskPushNotificationConfig`` as a 0.3 ProtoJSON one."""
    name = f"tasks/{config.get('taskId', '')}/pushNotificationConfigs/{config.get('id', '')}"
    return {"name": name, "pushNotificationConfig": _config_from_v1(config)}


# Requests, by the 0.3 rpc: 0.3 (transcoded: path, query and body) to 1.0.


def _send_to_v1(request: object) -> Json:
    value = _fields(
        request,
        "request",
        ("message", "configuration", "metadata"),
        {"request": "message"},
    )
    out: Json = {}
    if "message" in value:
        out["message"] = message_to_v1(value["message"], "message")
    if "configuration" in value:
        where = "configuration"
        given = _fields(
            value["configuration"],
            where,
            ("acceptedOutputModes", "pushNotification", "historyLength", "blocking"),
        )
        configuration: Json = {}
        _copy(given, configuration, ("acceptedOutputModes",))
        if "pushNotification" in given:
            configuration["taskPushNotificationConfig"] = _config_to_v1(
                given["pushNotification"], f"{where}.pushNotification"
            )
        if not _unset(given.get("historyLength")):  # 0.3's 0 is "no limit"
            configuration["historyLength"] = given["historyLength"]
        blocking = given.get("blocking", False)
        if not isinstance(blocking, bool):
            raise ShapeError(f"{where}.blocking", "expected a boolean")
        if not blocking:  # proto3's default false: non-blocking
            configuration["returnImmediately"] = True
        out["configuration"] = configuration
    _copy(value, out, ("metadata",))
    return out


def _get_task_to_v1(request: object) -> Json:
    value = _fields(request, "request", ("name", "historyLength"))
    out: Json = {"id": _task_id(value.get("name"), "name")}
    if not _unset(value.get("historyLength")):
        out["historyLength"] = value["historyLength"]
    return out


def _by_task_name(request: object) -> Json:
    value = _fields(request, "request", ("name",))
    return {"id": _task_id(value.get("name"), "name")}


def _by_config_name(request: object) -> Json:
    value = _fields(request, "request", ("name",))
    task_id, config_id = _config_ids(value.get("name"), "name")
    return {"taskId": task_id, "id": config_id}


def _create_config_to_v1(request: object) -> Json:
    value = _fields(request, "request", ("parent", "configId", "config"))
    out: Json = {"taskId": _task_id(value.get("parent"), "parent", _CONFIGS_PARENT)}
    given = value.get("config", {})
    if isinstance(given, dict) and "config" in given:
        # a2a-sdk's 0.3 clients send the whole request as the body, not its config
        whole = _fields(given, "config", ("configId", "config"))
        given = whole.get("config", {})
        value.setdefault("configId", whole.get("configId"))
    config = _fields(given, "config", ("name", "pushNotificationConfig"))
    if "pushNotificationConfig" in config:
        out.update(
            _config_to_v1(
                config["pushNotificationConfig"], "config.pushNotificationConfig"
            )
        )
    if "id" not in out and value.get("configId"):
        out["id"] = value["configId"]
    return out


def _list_configs_to_v1(request: object) -> Json:
    value = _fields(request, "request", ("parent", "pageSize", "pageToken"))
    out: Json = {"taskId": _task_id(value.get("parent"), "parent")}
    if not _unset(value.get("pageSize")):
        out["pageSize"] = value["pageSize"]
    if value.get("pageToken"):
        out["pageToken"] = value["pageToken"]
    return out


def _card_request_to_v1(request: object) -> Json:
    _object(request, "request")
    return {}


_REQUESTS_TO_V1: dict[str, Callable[[object], Json]] = {
    "SendMessage": _send_to_v1,
    "SendStreamingMessage": _send_to_v1,
    "GetTask": _get_task_to_v1,
    "CancelTask": _by_task_name,
    "TaskSubscription": _by_task_name,
    "CreateTaskPushNotificationConfig": _create_config_to_v1,
    "GetTaskPushNotificationConfig": _by_config_name,
    "ListTaskPushNotificationConfig": _list_configs_to_v1,
    "GetAgentCard": _card_request_to_v1,
    "DeleteTaskPushNotificationConfig": _by_config_name,
}


def request_to_v1(v0_3_rpc: str, request: object) -> tuple[str, Json]:
    """Server side: the 1.0 rpc and request for a 0.3 HTTP+JSON request.

    ``v0_3_rpc`` is the rpc of the ``v0_3`` route that matched (``route.rpc``:
    ``"TaskSubscription"``, ``"GetAgentCard"``...), ``request`` what its table
    transcoded (path, query and body in one dict) with the path's values as sent
    (``RouteTable.raw_params``: the resource names, whose ids are decoded here, once;
    the transcoded ones have been decoded but for ``%2F``). Raises ``ShapeError``
    naming the field for a request of the wrong shape, ``KeyError`` for an rpc 0.3
    does not have. The result still goes through the 1.0 validation.
    """
    return V0_3_REST_RPCS[v0_3_rpc], _REQUESTS_TO_V1[v0_3_rpc](request)


# Answers, by the 1.0 rpc: 1.0 to the 0.3 body.


def _list_configs_from_v1(answer: Json) -> Json:
    out: Json = {"configs": [push_config_from_v1(c) for c in answer.get("configs", ())]}
    _copy(answer, out, ("nextPageToken",))
    return out


def _empty(answer: Json) -> Json:
    return {}


_RESPONSES_FROM_V1: dict[str, Callable[[Json], Json]] = {
    "SendMessage": stream_event_from_v1,
    "SendStreamingMessage": stream_event_from_v1,
    "SubscribeToTask": stream_event_from_v1,
    "GetTask": task_from_v1,
    "CancelTask": task_from_v1,
    "CreateTaskPushNotificationConfig": push_config_from_v1,
    "GetTaskPushNotificationConfig": push_config_from_v1,
    "ListTaskPushNotificationConfigs": _list_configs_from_v1,
    "GetExtendedAgentCard": card_answer_from_v1,
    "DeleteTaskPushNotificationConfig": _empty,
}


def response_from_v1(
    rpc: str, answer: Json | None, *, final: bool | None = None
) -> Json:
    """Server side: the 0.3 HTTP+JSON body for the 1.0 handler's answer to ``rpc``
    (the 1.0 rpc ``request_to_v1`` gave), or for one event of its stream (``final``:
    the stream's last event, said on a status update; by default what
    ``final_update`` says of it). ``None`` (an ``Empty`` answer)
    is ``{}``. Error bodies need no conversion: 0.3 and 1.0 both send the
    ``google.rpc.Status`` form."""
    if answer is None:
        return {}
    if rpc in ("SendStreamingMessage", "SubscribeToTask"):
        return stream_event_from_v1(answer, final=final)
    return _RESPONSES_FROM_V1[rpc](answer)


# Client side: 1.0 requests to 0.3 ones, 0.3 answers to 1.0 ones.


def _send_from_v1(request: Json) -> Json:
    out: Json = {}
    if "message" in request:
        out["message"] = message_from_v1(request["message"])
    # Always a configuration: without one (or ``blocking``) a 0.3 server does not
    # block (proto3's false), where 1.0's default is to block.
    given = request.get("configuration", {})
    configuration: Json = {}
    _copy(given, configuration, ("acceptedOutputModes",))
    if "taskPushNotificationConfig" in given:
        configuration["pushNotification"] = _config_from_v1(
            given["taskPushNotificationConfig"]
        )
    _copy(given, configuration, ("historyLength",))
    configuration["blocking"] = not given.get("returnImmediately", False)
    out["configuration"] = configuration
    _copy(request, out, ("metadata",))
    return out


def _name_part(request: Json, field: str) -> str:
    """A request's id as one part of a 0.3 resource name (``tasks/{id}``), which no
    ``/`` can be part of: ``ValueError`` for an id holding one, before sending."""
    value = request.get(field, "")
    if isinstance(value, str) and "/" in value:
        raise ValueError(
            f"{field} {value!r}: A2A 0.3's HTTP+JSON binding names tasks and configs by"
            " resource names (tasks/{id}), and an id with '/' is none (JSON-RPC"
            " carries it)"
        )
    return str(value)


def _get_task_from_v1(request: Json) -> Json:
    out: Json = {"name": f"tasks/{_name_part(request, 'id')}"}
    _copy(request, out, ("historyLength",))
    return out


def _by_task_from_v1(request: Json) -> Json:
    return {"name": f"tasks/{_name_part(request, 'id')}"}


def _by_config_from_v1(request: Json) -> Json:
    task, config = _name_part(request, "taskId"), _name_part(request, "id")
    return {"name": f"tasks/{task}/pushNotificationConfigs/{config}"}


def _create_config_from_v1(request: Json) -> Json:
    task = _name_part(request, "taskId")
    out: Json = {
        "parent": f"tasks/{task}/pushNotificationConfigs",
        "config": push_config_from_v1(request),
    }
    _copy(request, out, ("id",))
    if "id" in out:
        out["configId"] = out.pop("id")
    return out


def _list_configs_from_v1_request(request: Json) -> Json:
    out: Json = {"parent": f"tasks/{_name_part(request, 'taskId')}"}
    _copy(request, out, ("pageSize", "pageToken"))
    return out


_REQUESTS_FROM_V1: dict[str, Callable[[Json], Json]] = {
    "SendMessage": _send_from_v1,
    "SendStreamingMessage": _send_from_v1,
    "GetTask": _get_task_from_v1,
    "CancelTask": _by_task_from_v1,
    "SubscribeToTask": _by_task_from_v1,
    "CreateTaskPushNotificationConfig": _create_config_from_v1,
    "GetTaskPushNotificationConfig": _by_config_from_v1,
    "ListTaskPushNotificationConfigs": _list_configs_from_v1_request,
    "GetExtendedAgentCard": _empty,
    "DeleteTaskPushNotificationConfig": _by_config_from_v1,
}


def request_from_v1(rpc: str, request: Mapping[str, Any]) -> tuple[str, Json]:
    """Client side: the 0.3 rpc (its ``v0_3`` route) and 0.3 ProtoJSON request (for
    ``v0_3.routes.build``) of a 1.0 request. ``ValueError`` for ListTasks, which 0.3
    does not have, and for another rpc it does not know. The tenant has no place in
    0.3 and is dropped; 1.0's CancelTask ``metadata`` too (0.3's CancelTaskRequest is
    only the name)."""
    if rpc not in _REQUESTS_FROM_V1:
        raise ValueError(f"{rpc}: A2A 0.3 has no such operation")
    return _REST_RPCS_BACK[rpc], _REQUESTS_FROM_V1[rpc](dict(request))


def _list_configs_to_v1_answer(answer: object) -> Json:
    value = _fields(answer, "response", ("configs", "nextPageToken"))
    out: Json = {
        "configs": _items(push_config_to_v1, value.get("configs", []), "configs")
    }
    if value.get("nextPageToken"):
        out["nextPageToken"] = value["nextPageToken"]
    return out


def _card_to_v1(answer: object) -> Json:
    return card_to_v1(answer)


_RESPONSES_TO_V1: dict[str, Callable[[object], Json]] = {
    "SendMessage": lambda answer: stream_event_to_v1(answer, "response"),
    "SendStreamingMessage": lambda answer: stream_event_to_v1(answer, "event"),
    "SubscribeToTask": lambda answer: stream_event_to_v1(answer, "event"),
    "GetTask": lambda answer: task_to_v1(answer, "response"),
    "CancelTask": lambda answer: task_to_v1(answer, "response"),
    "CreateTaskPushNotificationConfig": lambda a: push_config_to_v1(a, "response"),
    "GetTaskPushNotificationConfig": lambda a: push_config_to_v1(a, "response"),
    "ListTaskPushNotificationConfigs": _list_configs_to_v1_answer,
    "GetExtendedAgentCard": _card_to_v1,
    "DeleteTaskPushNotificationConfig": lambda answer: {},
}


def response_to_v1(rpc: str, answer: object) -> Json:
    """Client side: the 1.0 answer to ``rpc`` (a 1.0 rpc) from the 0.3 HTTP+JSON body
    (or one event of its stream, ``final`` dropped); ``ShapeError`` naming the field for
    an answer of the wrong shape."""
    return _RESPONSES_TO_V1[rpc](answer)

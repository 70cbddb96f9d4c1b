"""The A2A 0.3 JSON-RPC shapes and 1.0 ProtoJSON, both ways: parts, messages, task
statuses, artifacts, tasks and the two stream events.

0.3 marks each object with ``kind`` (``"text"``, ``"file"``, ``"data"`` parts;
``"message"``, ``"task"``, ``"status-update"``, ``"artifact-update"``), spells task states
and roles in lower case, and nests a file part's content under ``file`` (``bytes`` or
``uri``, ``mimeType``, ``name``); 1.0 ProtoJSON has ``raw``/``url``, ``mediaType``,
``filename`` on the part itself. The values are JSON as decoded (untrusted): a shape
that is not what 0.3 (or 1.0) allows raises ``ShapeError`` naming the field, before
anything reaches the handler. A 0.3 object's fields are read under either spelling
a2a-sdk 0.3 reads: the json name (``taskId``) or the Python one (``task_id``), which
clients write when they dump a model without ``by_alias``; the json name wins where
both are given (``_model``).

Choices where the versions differ (the same as a2a-sdk 1.3.0's ``compat.v0_3``, so
both peers read each other's answers alike):

- 1.0 data parts hold any JSON value, 0.3 ones an object: a value that is not an object
  goes to 0.3 as ``{"value": v}`` with ``metadata.data_part_compat: true``, and back.
- 0.3's task state ``unknown`` is 1.0's ``TASK_STATE_UNSPECIFIED``.
- ``final`` (0.3 status updates) is not in 1.0: the caller says it (the last event of
  a stream); reading a 0.3 event drops it.
"""

from __future__ import annotations

import re
from typing import Any

from ._quoting import excerpt
from ._v0_3 import role_from_v0_3
from ._v0_3 import task_state_from_v0_3, task_state_to_v0_3

__all__ = [
    "ShapeError",
    "artifact_from_v1",
    "artifact_to_v1",
    "artifact_update_from_v1",
    "artifact_update_to_v1",
    "message_from_v1",
    "message_to_v1",
    "part_from_v1",
    "part_to_v1",
    "status_from_v1",
    "status_to_v1",
    "status_update_from_v1",
    "status_update_to_v1",
    "task_from_v1",
    "task_to_v1",
]

Json = dict[str, Any]

_COMPAT_FLAG = "data_part_compat"
_FILE_CONTENT = (("bytes", "raw"), ("uri", "url"))


class ShapeError(ValueError):
    """A value that is not the shape its version allows; ``field`` is its path."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def _object(value: object, where: str) -> Json:
    if not isinstance(value, dict):
        raise ShapeError(where, "expected an object")
    return value


def _snake(name: str) -> str:
    """A json name's Python (and proto) spelling: ``taskId`` is ``task_id``."""
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


# The 0.3 JSON-RPC fields whose json name is not their Python name, in every object a
# request or an event holds (a2a-sdk 0.3.26's ``a2a.types``; a test compares).
_TWO_WORD_FIELDS = (
    "acceptedOutputModes",
    "artifactId",
    "contextId",
    "historyLength",
    "lastChunk",
    "messageId",
    "mimeType",
    "pushNotificationConfig",
    "pushNotificationConfigId",
    "referenceTaskIds",
    "taskId",
)
_JSON_NAMES = {_snake(name): name for name in _TWO_WORD_FIELDS}


def _model(value: object, where: str) -> Json:
    """A 0.3 JSON-RPC object (one of a2a-sdk 0.3's models: not free-form JSON such as
    ``metadata`` or a data part's ``data``) with each field under its json name.

    a2a-sdk 0.3 reads a field under its Python name too (``task_id``), which a client
    dumping its models by Python name writes; where both are given the json name
    wins, as there. An object holding no Python name, the usual case, is returned as
    it is, found so by one set operation (this runs for every object of a request)."""
    given = _object(value, where)
    if _JSON_NAMES.keys().isdisjoint(given):
        return given
    out = {key: item for key, item in given.items() if key not in _JSON_NAMES}
    for key, item in given.items():
        name = _JSON_NAMES.get(key)
        if name is not None:
            out.setdefault(name, item)
    return out


_ZERO = re.compile(r"\s*[+-]?0+(?:\.0*)?\s*")


def _unset(number: object) -> bool:
    """Whether a 0.3 integer field (``historyLength``, ``pageSize``) sets no limit:
    absent, ``null`` or 0, which 0.3 means so (proto3 has no unset but 0), however
    JSON spells the 0: ``0``, ``0.0`` or a string (``"0"``; a2a-sdk 0.3.26 reads
    ``" 0"``, ``"+0"``, ``"0.0"`` as 0 too). 1.0 says "no limit" by leaving the field
    out (its 0 asks for none at all), so such a field is not converted. A negative
    number is converted, and refused by 1.0's validation: the 0.3 conformance kit
    requires that refusal (a2a-sdk 0.3.26 would apply no limit)."""
    if number is None:
        return True
    if isinstance(number, str):
        return _ZERO.fullmatch(number) is not None
    return isinstance(number, (int, float)) and number == 0


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ShapeError(where, "expected an array")
    return value


def _items(convert: Any, value: object, where: str) -> list[Json]:
    """Each item of the 0.3 array ``value`` converted, with its place."""
    items = _list(value, where)
    return [convert(item, f"{where}[{i}]") for i, item in enumerate(items)]


def _kind(value: Json, expected: str, where: str) -> None:
    kind = value.get("kind", expected)
    if kind != expected:
        raise ShapeError(f"{where}.kind", f"expected {expected!r}, not {excerpt(kind)}")


def _copy(source: Json, target: Json, names: tuple[str, ...]) -> None:
    for name in names:
        if name in source:
            target[name] = source[name]


def _enum(convert: Any, value: object, where: str) -> str:
    try:
        result: str = convert(value)
    except (KeyError, TypeError):  # TypeError: an unhashable value
        raise ShapeError(where, f"no such value {excerpt(value)}") from None
    return result


def part_to_v1(part: object, where: str = "part") -> Json:
    """A 0.3 part as a 1.0 ``Part``."""
    value = _model(part, where)
    kind = value.get("kind")
    out: Json = {}
    metadata = value.get("metadata")
    if kind == "text":
        out["text"] = value.get("text")
    elif kind == "data":
        data = value.get("data")
        if isinstance(metadata, dict) and metadata.get(_COMPAT_FLAG) is True:
            metadata = {k: v for k, v in metadata.items() if k != _COMPAT_FLAG}
            out["data"] = _object(data, f"{where}.data").get("value")
            metadata = metadata or None
        else:
            out["data"] = _object(data, f"{where}.data")
    elif kind == "file":
        file = _model(value.get("file"), f"{where}.file")
        found = [(old, new) for old, new in _FILE_CONTENT if old in file]
        if len(found) != 1:
            raise ShapeError(f"{where}.file", "expected one of bytes or uri")
        ((old, new),) = found
        out[new] = file[old]
        if file.get("mimeType") is not None:
            out["mediaType"] = file["mimeType"]
        if file.get("name") is not None:
            out["filename"] = file["name"]
    else:
        raise ShapeError(
            f"{where}.kind", f"expected text, file or data, not {excerpt(kind)}"
        )
    if metadata is not None:
        out["metadata"] = metadata
    return out


def part_from_v1(part: Json) -> Json:
    """A 1.0 ``Part`` as a 0.3 part."""
    metadata = part.get("metadata")
    out: Json
    if "text" in part:
        out = {"kind": "text", "text": part["text"]}
    elif "data" in part:
        data = part["data"]
        if not isinstance(data, dict):
            data = {"value": data}
            metadata = {**(metadata or {}), _COMPAT_FLAG: True}
        out = {"kind": "data", "data": data}
    else:
        file: Json = {}
        for old, new in _FILE_CONTENT:
            if new in part:
                file[old] = part[new]
        if not file:
            raise ShapeError("part", "has no content (text, raw, url or data)")
        if part.get("mediaType"):
            file["mimeType"] = part["mediaType"]
        if part.get("filename"):
            file["name"] = part["filename"]
        out = {"kind": "file", "file": file}
    if metadata is not None:
        out["metadata"] = metadata
    return out


_MESSAGE_FIELDS = (
    "messageId",
    "contextId",
    "taskId",
    "metadata",
    "extensions",
    "referenceTaskIds",
)


def message_to_v1(message: object, where: str = "message") -> Json:
    """A 0.3 message as a 1.0 ``Message``."""
    value = _model(message, where)
    _kind(value, "message", where)
    out: Json = {}
    _copy(value, out, _MESSAGE_FIELDS)
    if "role" in value:
        out["role"] = _enum(role_from_v0_3, value["role"], f"{where}.role")
    if "parts" in value:
        out["parts"] = _items(part_to_v1, value["parts"], f"{where}.parts")
    return out


def message_from_v1(message: Json) -> Json:
    """A 1.0 ``Message`` as a 0.3 message (``ROLE_UNSPECIFIED`` is ``agent``, as
    a2a-sdk writes it)."""
    out: Json = {"kind": "message"}
    _copy(message, out, _MESSAGE_FIELDS)
    role = message.get("role", "ROLE_UNSPECIFIED")
    out["role"] = "user" if role == "ROLE_USER" else "agent"
    out["parts"] = [part_from_v1(p) for p in message.get("parts", ())]
    return out


def status_to_v1(status: object, where: str = "status") -> Json:
    """A 0.3 task status as a 1.0 ``TaskStatus``."""
    value = _model(status, where)
    out: Json = {}
    if "state" in value:
        out["state"] = _enum(task_state_from_v0_3, value["state"], f"{where}.state")
    if value.get("message") is not None:
        out["message"] = message_to_v1(value["message"], f"{where}.message")
    if value.get("timestamp") is not None:
        out["timestamp"] = value["timestamp"]
    return out


def status_from_v1(status: Json) -> Json:
    """A 1.0 ``TaskStatus`` as a 0.3 task status."""
    state = status.get("state", "TASK_STATE_UNSPECIFIED")
    out: Json = {"state": _enum(task_state_to_v0_3, state, "status.state")}
    if "message" in status:
        out["message"] = message_from_v1(status["message"])
    if "timestamp" in status:
        out["timestamp"] = status["timestamp"]
    return out


_ARTIFACT_FIELDS = ("artifactId", "name", "description", "metadata", "extensions")


def artifact_to_v1(artifact: object, where: str = "artifact") -> Json:
    """A 0.3 artifact as a 1.0 ``Artifact``."""
    value = _model(artifact, where)
    out: Json = {}
    _copy(value, out, _ARTIFACT_FIELDS)
    if "parts" in value:
        out["parts"] = _items(part_to_v1, value["parts"], f"{where}.parts")
    return out


def artifact_from_v1(artifact: Json) -> Json:
    """A 1.0 ``Artifact`` as a 0.3 artifact."""
    out: Json = {}
    _copy(artifact, out, _ARTIFACT_FIELDS)
    out["parts"] = [part_from_v1(p) for p in artifact.get("parts", ())]
    return out


def task_to_v1(task: object, where: str = "task") -> Json:
    """A 0.3 task as a 1.0 ``Task``."""
    value = _model(task, where)
    _kind(value, "task", where)
    out: Json = {}
    _copy(value, out, ("id", "contextId", "metadata"))
    if "status" in value:
        out["status"] = status_to_v1(value["status"], f"{where}.status")
    for name, convert in (("artifacts", artifact_to_v1), ("history", message_to_v1)):
        if value.get(name) is not None:
            out[name] = _items(convert, value[name], f"{where}.{name}")
    return out


def task_from_v1(task: Json) -> Json:
    """A 1.0 ``Task`` as a 0.3 task (a task without a status is ``unknown``)."""
    out: Json = {"kind": "task"}
    _copy(task, out, ("id", "contextId"))
    out["status"] = status_from_v1(task.get("status", {}))
    if task.get("artifacts"):
        out["artifacts"] = [artifact_from_v1(a) for a in task["artifacts"]]
    if task.get("history"):
        out["history"] = [message_from_v1(m) for m in task["history"]]
    if "metadata" in task:
        out["metadata"] = task["metadata"]
    return out


def status_update_to_v1(event: object, where: str = "statusUpdate") -> Json:
    """A 0.3 ``status-update`` event as a 1.0 ``TaskStatusUpdateEvent`` (``final``
    dropped: 1.0 ends the stream instead)."""
    value = _model(event, where)
    _kind(value, "status-update", where)
    out: Json = {}
    _copy(value, out, ("taskId", "contextId", "metadata"))
    if "status" in value:
        out["status"] = status_to_v1(value["status"], f"{where}.status")
    return out


def status_update_from_v1(event: Json, *, final: bool) -> Json:
    """A 1.0 ``TaskStatusUpdateEvent`` as a 0.3 ``status-update`` event; ``final``:
    whether it is the last event of its stream."""
    out: Json = {"kind": "status-update"}
    _copy(event, out, ("taskId", "contextId"))
    out["status"] = status_from_v1(event.get("status", {}))
    out["final"] = final
    if "metadata" in event:
        out["metadata"] = event["metadata"]
    return out


_ARTIFACT_EVENT_FIELDS = ("taskId", "contextId", "append", "lastChunk", "metadata")


def artifact_update_to_v1(event: object, where: str = "artifactUpdate") -> Json:
    """A 0.3 ``artifact-update`` event as a 1.0 ``TaskArtifactUpdateEvent``."""
    value = _model(event, where)
    _kind(value, "artifact-update", where)
    out: Json = {}
    _copy(value, out, _ARTIFACT_EVENT_FIELDS)
    if "artifact" in value:
        out["artifact"] = artifact_to_v1(value["artifact"], f"{where}.artifact")
    return out


def artifact_update_from_v1(event: Json) -> Json:
    """A 1.0 ``TaskArtifactUpdateEvent`` as a 0.3 ``artifact-update`` event."""
    out: Json = {"kind": "artifact-update"}
    _copy(event, out, _ARTIFACT_EVENT_FIELDS)
    out["artifact"] = artifact_from_v1(event.get("artifact", {}))
    return out

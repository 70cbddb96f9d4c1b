"""The 0.3 JSON-RPC shapes and 1.0 ProtoJSON, both ways (``codegen/runtime/v0_3/_v0_3_shapes``),
differentially against a2a-sdk 1.3.0's own adapter (``a2a.compat.v0_3.conversions``:
0.3 pydantic types to 1.0 protobuf messages and back), with the wire form of each side
as its library writes it: pydantic's JSON dump (by alias) for 0.3, protobuf's
``MessageToDict`` for 1.0. Every conversion is also checked to round-trip, and every
malformed 0.3 value to be refused naming its field."""

from __future__ import annotations

from typing import Any

import pytest

from codegen.runtime import _v0_3_shapes as shapes

compat = pytest.importorskip("a2a.compat.v0_3.conversions")
types = pytest.importorskip("a2a.compat.v0_3.types")
from a2a.types import a2a_pb2  # noqa: E402
from google.protobuf.json_format import MessageToDict, ParseDict  # noqa: E402


def _v0_3(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    return dumped


TEXT = {"kind": "text", "text": "hello", "metadata": {"k": [1, "x"]}}
BYTES = {
    "kind": "file",
    "file": {"bytes": "aGk=", "mimeType": "text/plain", "name": "a.txt"},
}
URI = {"kind": "file", "file": {"uri": "https://x.test/f"}, "metadata": {"m": True}}
DATA = {"kind": "data", "data": {"a": {"b": [1, 2]}}}
DATA_VALUE = {
    "kind": "data",
    "data": {"value": [1, "two"]},
    "metadata": {"data_part_compat": True, "x": 1},
}
PARTS = [TEXT, BYTES, URI, DATA, DATA_VALUE]
MESSAGE = {
    "kind": "message",
    "messageId": "m-1",
    "contextId": "c-1",
    "taskId": "t-1",
    "role": "user",
    "parts": PARTS,
    "metadata": {"trace": "abc"},
    "extensions": ["urn:x"],
    "referenceTaskIds": ["t-0"],
}
AGENT_MESSAGE = {
    "kind": "message",
    "messageId": "m-2",
    "role": "agent",
    "parts": [TEXT],
}
STATUS = {
    "state": "input-required",
    "message": AGENT_MESSAGE,
    "timestamp": "2025-01-02T03:04:05Z",
}
ARTIFACT = {
    "artifactId": "a-1",
    "name": "out",
    "description": "result",
    "parts": [DATA, BYTES],
    "metadata": {"n": 1},
    "extensions": ["urn:y"],
}
TASK = {
    "kind": "task",
    "id": "t-1",
    "contextId": "c-1",
    "status": STATUS,
    "artifacts": [ARTIFACT],
    "history": [MESSAGE, AGENT_MESSAGE],
    "metadata": {"z": None},
}
STATUS_UPDATE = {
    "kind": "status-update",
    "taskId": "t-1",
    "contextId": "c-1",
    "status": {"state": "completed"},
    "final": True,
    "metadata": {"s": 1},
}
ARTIFACT_UPDATE = {
    "kind": "artifact-update",
    "taskId": "t-1",
    "contextId": "c-1",
    "artifact": ARTIFACT,
    "append": True,
    "lastChunk": True,
    "metadata": {"q": "r"},
}

# (0.3 sample, its pydantic type, a2a-sdk's two conversions, our two, our to_v1's extra args)
CASES = [
    *[
        (
            part,
            types.Part,
            compat.to_core_part,
            compat.to_compat_part,
            shapes.part_to_v1,
            shapes.part_from_v1,
            {},
        )
        for part in PARTS
    ],
    (
        MESSAGE,
        types.Message,
        compat.to_core_message,
        compat.to_compat_message,
        shapes.message_to_v1,
        shapes.message_from_v1,
        {},
    ),
    (
        AGENT_MESSAGE,
        types.Message,
        compat.to_core_message,
        compat.to_compat_message,
        shapes.message_to_v1,
        shapes.message_from_v1,
        {},
    ),
    (
        STATUS,
        types.TaskStatus,
        compat.to_core_task_status,
        compat.to_compat_task_status,
        shapes.status_to_v1,
        shapes.status_from_v1,
        {},
    ),
    (
        ARTIFACT,
        types.Artifact,
        compat.to_core_artifact,
        compat.to_compat_artifact,
        shapes.artifact_to_v1,
        shapes.artifact_from_v1,
        {},
    ),
    (
        TASK,
        types.Task,
        compat.to_core_task,
        compat.to_compat_task,
        shapes.task_to_v1,
        shapes.task_from_v1,
        {},
    ),
    (
        STATUS_UPDATE,
        types.TaskStatusUpdateEvent,
        compat.to_core_task_status_update_event,
        compat.to_compat_task_status_update_event,
        shapes.status_update_to_v1,
        shapes.status_update_from_v1,
        {"final": True},
    ),
    (
        ARTIFACT_UPDATE,
        types.TaskArtifactUpdateEvent,
        compat.to_core_task_artifact_update_event,
        compat.to_compat_task_artifact_update_event,
        shapes.artifact_update_to_v1,
        shapes.artifact_update_from_v1,
        {},
    ),
]
IDS = [f"{c[1].__name__}-{i}" for i, c in enumerate(CASES)]


@pytest.mark.parametrize(
    ("sample", "model", "to_core", "to_compat", "to_v1", "from_v1", "extra"),
    CASES,
    ids=IDS,
)
def test_both_ways_as_a2a_sdk_converts(sample, model, to_core, to_compat, to_v1, from_v1, extra) -> None:  # type: ignore[no-untyped-def]
    typed = model.model_validate(sample)
    assert _v0_3(typed) == _v0_3(
        model.model_validate(_v0_3(typed))
    )  # the sample is canonical 0.3
    core = to_core(typed)
    ours = to_v1(_v0_3(typed))
    assert ours == MessageToDict(core)
    # Back: ours from 1.0 ProtoJSON is what a2a-sdk writes from the same protobuf.
    back = from_v1(ours, **extra)
    assert back == _v0_3(to_compat(core))
    # And a round trip is lossless for what both versions can say.
    assert back == _v0_3(typed)
    assert to_v1(back) == ours
    # Our 1.0 form is one protobuf accepts as it is.
    ParseDict(ours, type(core)())


def test_false_flags_of_an_artifact_update_are_kept() -> None:
    # 1.0's append and lastChunk have no presence: false and absent are one value, which
    # ProtoJSON writes by omitting it and reads either way.
    event = {**ARTIFACT_UPDATE, "lastChunk": False, "append": False}
    ours = shapes.artifact_update_to_v1(event)
    assert (ours["append"], ours["lastChunk"]) == (False, False)
    core = ParseDict(ours, a2a_pb2.TaskArtifactUpdateEvent())
    assert core == compat.to_core_task_artifact_update_event(
        types.TaskArtifactUpdateEvent.model_validate(event)
    )


def test_a_1_0_data_part_that_is_not_an_object() -> None:
    for value in ([1, 2], "s", 3.5, True, None):
        core = ParseDict({"data": value, "metadata": {"a": 1}}, a2a_pb2.Part())
        ours = shapes.part_from_v1(MessageToDict(core))
        assert ours == _v0_3(compat.to_compat_part(core))
        assert ours["metadata"] == {"a": 1, "data_part_compat": True}
        assert shapes.part_to_v1(ours) == MessageToDict(core)
    bare = shapes.part_from_v1({"data": 7})
    assert bare == {
        "kind": "data",
        "data": {"value": 7},
        "metadata": {"data_part_compat": True},
    }
    assert shapes.part_to_v1(bare) == {"data": 7}


def test_1_0_values_0_3_cannot_say() -> None:
    # A task without a status is "unknown", a message without a role "agent", as
    # a2a-sdk writes them; an empty 1.0 file part is refused.
    task = shapes.task_from_v1({"id": "t", "contextId": "c"})
    assert task == _v0_3(compat.to_compat_task(a2a_pb2.Task(id="t", context_id="c")))
    assert task["status"] == {"state": "unknown"}
    message = shapes.message_from_v1({"messageId": "m"})
    assert message == _v0_3(compat.to_compat_message(a2a_pb2.Message(message_id="m")))
    with pytest.raises(shapes.ShapeError, match="part: has no content"):
        shapes.part_from_v1({"mediaType": "text/plain"})
    with pytest.raises(
        shapes.ShapeError, match="status.state: no such value 'TASK_STATE_NEW'"
    ):
        shapes.status_from_v1({"state": "TASK_STATE_NEW"})
    update = shapes.status_update_from_v1(
        {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}},
        final=False,
    )
    assert update["final"] is False and update["status"] == {"state": "working"}
    assert shapes.artifact_update_from_v1({"taskId": "t"})["artifact"] == {"parts": []}


@pytest.mark.parametrize(
    ("convert", "value", "field", "reason"),
    [
        (shapes.part_to_v1, [], "part", "expected an object"),
        (
            shapes.part_to_v1,
            {"kind": "image"},
            "part.kind",
            "expected text, file or data, not 'image'",
        ),
        (
            shapes.part_to_v1,
            {"text": "no kind"},
            "part.kind",
            "expected text, file or data, not None",
        ),
        (
            shapes.part_to_v1,
            {"kind": "file", "file": {}},
            "part.file",
            "expected one of bytes or uri",
        ),
        (
            shapes.part_to_v1,
            {"kind": "file", "file": {"bytes": "", "uri": ""}},
            "part.file",
            "expected one of bytes or uri",
        ),
        (
            shapes.part_to_v1,
            {"kind": "file", "file": "x"},
            "part.file",
            "expected an object",
        ),
        (
            shapes.part_to_v1,
            {"kind": "data", "data": [1]},
            "part.data",
            "expected an object",
        ),
        (
            shapes.part_to_v1,
            {"kind": "data", "data": 1, "metadata": {"data_part_compat": True}},
            "part.data",
            "expected an object",
        ),
        (
            shapes.message_to_v1,
            {"kind": "task"},
            "message.kind",
            "expected 'message', not 'task'",
        ),
        (
            shapes.message_to_v1,
            {"role": "ROLE_USER"},
            "message.role",
            "no such value 'ROLE_USER'",
        ),
        (
            shapes.message_to_v1,
            {"role": ["user"]},
            "message.role",
            "no such value ['user']",
        ),
        (shapes.message_to_v1, {"parts": {}}, "message.parts", "expected an array"),
        (
            shapes.message_to_v1,
            {"parts": [TEXT, {"kind": "x"}]},
            "message.parts[1].kind",
            "expected text, file or data, not 'x'",
        ),
        (
            shapes.task_to_v1,
            {"status": {"state": "TASK_STATE_WORKING"}},
            "task.status.state",
            "no such value 'TASK_STATE_WORKING'",
        ),
        (
            shapes.task_to_v1,
            {"history": [{"kind": "message", "parts": [1]}]},
            "task.history[0].parts[0]",
            "expected an object",
        ),
        (shapes.task_to_v1, {"artifacts": "x"}, "task.artifacts", "expected an array"),
        (
            shapes.task_to_v1,
            {"status": {"message": {"role": "x"}}},
            "task.status.message.role",
            "no such value 'x'",
        ),
        (shapes.artifact_to_v1, {"parts": None}, "artifact.parts", "expected an array"),
        (
            shapes.status_update_to_v1,
            {"kind": "artifact-update"},
            "statusUpdate.kind",
            "expected 'status-update', not 'artifact-update'",
        ),
        (
            shapes.status_update_to_v1,
            {"status": 1},
            "statusUpdate.status",
            "expected an object",
        ),
        (
            shapes.artifact_update_to_v1,
            {"artifact": {"parts": [{}]}},
            "artifactUpdate.artifact.parts[0].kind",
            "expected text, file or data, not None",
        ),
        (
            shapes.artifact_update_to_v1,
            {"kind": "status-update"},
            "artifactUpdate.kind",
            "expected 'artifact-update', not 'status-update'",
        ),
    ],
)
def test_malformed_0_3_values_are_refused_by_field(convert, value, field, reason) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(shapes.ShapeError) as raised:
        convert(value)
    assert (raised.value.field, raised.value.reason) == (field, reason)
    assert str(raised.value) == f"{field}: {reason}"

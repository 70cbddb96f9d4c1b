"""``MessageBuilder`` (``codegen/runtime/_proto.py``): ProtoJSON dicts built into
protobuf messages through their constructors, held against ``json_format.ParseDict``
on the A2A messages (a2a-sdk's classes, the committed package's tables): the same
message where it builds one, the same failure where it fails, and the fast path taken
for the canonical answers a handler gives. (``tests/test_validation_oracle.py`` holds it
against ParseDict on random values of every kind.)"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from a2a.types import a2a_pb2 as pb
from google.protobuf import json_format
from google.protobuf.message import Message

from codegen.runtime import _proto
from codegen.runtime._proto import MessageBuilder

from ..conftest import GENERATED

sys.path.insert(0, str(GENERATED))
try:
    from a2a_binding import messages
finally:
    sys.path.remove(str(GENERATED))

BUILDER = MessageBuilder(messages.SCHEMA)

TASK: dict[str, Any] = {
    "id": "task-1",
    "contextId": "ctx",
    "status": {
        "state": "TASK_STATE_COMPLETED",
        "timestamp": "2026-12-01T10:00:00.250Z",
        "message": {
            "messageId": "m1",
            "role": "ROLE_AGENT",
            "parts": [{"text": "done", "mediaType": "text/plain"}],
        },
    },
    "artifacts": [
        {"artifactId": "a1", "parts": [{"data": {"k": [1, "x", None, True]}}]}
    ],
    "metadata": {"trace": {"depth": 2, "tags": ["a", "b"]}, "none": None},
}


def parse(message_class: type[Message], value: Any) -> Message:
    message = message_class()
    json_format.ParseDict(value, message)
    return message


def fast(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records each value that fell back to ParseDict."""
    fallbacks: list[str] = []
    real = json_format.ParseDict

    def recording(value: Any, message: Message, *args: Any, **kwargs: Any) -> Any:
        fallbacks.append(type(message).__name__)
        return real(value, message, *args, **kwargs)

    monkeypatch.setattr(_proto.json_format, "ParseDict", recording)
    return fallbacks


@pytest.mark.parametrize(
    ("message_class", "type_name", "value"),
    [
        (pb.Task, "lf.a2a.v1.Task", TASK),
        (pb.StreamResponse, "lf.a2a.v1.StreamResponse", {"task": TASK}),
        (
            pb.ListTasksResponse,
            "lf.a2a.v1.ListTasksResponse",
            {"tasks": [TASK, {"id": "t2"}], "nextPageToken": "", "pageSize": 2},
        ),
        (
            pb.TaskPushNotificationConfig,
            "lf.a2a.v1.TaskPushNotificationConfig",
            {"id": "c", "taskId": "t", "url": "https://x.test/h"},
        ),
        (pb.AgentCard, "lf.a2a.v1.AgentCard", {"name": "n", "securitySchemes": {}}),
        (pb.Part, "lf.a2a.v1.Part", {"data": []}),  # an empty list is set
        (pb.Part, "lf.a2a.v1.Part", {"data": {}}),
        (pb.Part, "lf.a2a.v1.Part", {"data": 2.5, "metadata": {}}),
    ],
)
def test_canonical_answers_take_the_constructor_and_equal_parse_dict(
    monkeypatch: pytest.MonkeyPatch,
    message_class: type[Message],
    type_name: str,
    value: dict[str, Any],
) -> None:
    fallbacks = fast(monkeypatch)
    built = BUILDER.build(message_class, type_name, value)
    assert fallbacks == []
    assert built == parse(message_class, value)


@pytest.mark.parametrize(
    "change",
    [
        {"context_id": "proto name"},  # ParseDict takes it; the tables do not
        {"status": {"state": 3}},  # an enum by number
        {"status": {"state": "TASK_STATE_COMPLETED", "timestamp": 5}},
        {"metadata": {"deep": {"a": {"a": {"a": {}}}}} | {"nan": float("nan")}},
        {"history": None},  # null for a repeated field
        {"artifacts": [{"artifactId": "a", "parts": [{"text": "x", "raw": "eA=="}]}]},
        {"artifacts": [{"artifactId": "a", "parts": [{"raw": "eA=="}]}]},  # bytes
        {"history": [{"messageId": "m", "role": "ROLE_USER", "parts": [], "x": 1}]},
        {"id": 5},
        {"metadata": {1: "non-text key"}},
        {"status": {"state": "TASK_STATE_BOSS"}},
    ],
)
def test_whatever_the_fast_path_does_not_know_is_parse_dicts(
    monkeypatch: pytest.MonkeyPatch, change: dict[str, Any]
) -> None:
    value = {**TASK, **change}
    fallbacks = fast(monkeypatch)
    try:
        expected: Message | None = parse(pb.Task, value)
    except Exception:
        expected = None
    fallbacks.clear()
    if expected is None:
        with pytest.raises(Exception):
            BUILDER.build(pb.Task, "lf.a2a.v1.Task", value)
    else:
        assert BUILDER.build(pb.Task, "lf.a2a.v1.Task", value) == expected
    assert fallbacks == ["Task"]


@pytest.mark.parametrize(
    ("kind", "value", "taken"),
    [
        ("int64", "-12", -12),
        ("int64", "12", 12),
        ("int32", 7, 7),
        ("double", 1.5, 1.5),
        ("double", 2, 2),
        ("float", 1.5, 1.5),
        ("bool", False, False),
    ],
)
def test_scalars_the_fast_path_takes(kind: str, value: Any, taken: Any) -> None:
    assert _proto._scalar(kind, value) == taken


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("int64", " 12"),
        ("int64", "1e3"),
        ("int64", "١٢"),  # digits int() reads, not ASCII
        ("int32", True),
        ("double", float("nan")),
        ("double", 10**400),
        ("float", 1e39),
        ("double", "NaN"),
        ("string", 5),
        ("bool", 1),
        ("timestamp", "yesterday"),
        ("bytes", "eA=="),
    ],
)
def test_scalars_left_to_parse_dict(kind: str, value: Any) -> None:
    with pytest.raises(_proto._Unsure):
        _proto._scalar(kind, value)


def test_two_members_of_a_oneof_are_refused_as_parse_dict_refuses() -> None:
    value = {"task": {"id": "t"}, "message": {"messageId": "m"}}
    with pytest.raises(json_format.ParseError):
        parse(pb.StreamResponse, value)
    with pytest.raises(json_format.ParseError):
        BUILDER.build(pb.StreamResponse, "lf.a2a.v1.StreamResponse", value)


def test_nesting_beyond_the_fast_paths_depth_is_parse_dicts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    struct: dict[str, Any] = {}
    for _ in range(40):  # 80 levels of Struct and Value
        struct = {"a": struct}
    fallbacks = fast(monkeypatch)
    built = BUILDER.build(pb.Task, "lf.a2a.v1.Task", {"id": "t", "metadata": struct})
    assert fallbacks == ["Task"]
    assert built == parse(pb.Task, {"id": "t", "metadata": struct})

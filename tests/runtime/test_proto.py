"""``MessageBuilder`` (``codegen/runtime/grpc/_proto.py``): ProtoJSON dicts built into
protobuf messages through their constructors, held against ``json_format.ParseDict``
on the A2A messages (a2a-sdk's classes, the committed package's tables): the same
message where it builds one, the same failure where it fails, and the fast path taken
for the canonical answers a handler gives. (``tests/test_validation_oracle.py`` holds it
against ParseDict on random values of every kind.)"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from a2a.types import a2a_pb2 as pb
from google.protobuf import descriptor_pb2, json_format, wrappers_pb2
from google.protobuf.message import DecodeError, Message

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


# --- MessageReader -----------------------------------------------------------------

READER = _proto.MessageReader()


def _read_like_message_to_dict(message: Message) -> None:
    assert READER.read(message) == json_format.MessageToDict(message)


MESSAGES = [
    pb.SendMessageRequest(
        message=pb.Message(
            message_id="m1",
            role=pb.ROLE_USER,
            parts=[pb.Part(text="hi"), pb.Part(raw=b"\x00\xff", media_type="x/y")],
            reference_task_ids=["a", "b"],
        ),
        configuration=pb.SendMessageConfiguration(
            history_length=3, accepted_output_modes=["text/plain"]
        ),
    ),
    json_format.ParseDict(TASK, pb.Task()),  # a timestamp, nested messages
    pb.GetTaskRequest(id="t", history_length=0),  # explicit presence, at 0
    pb.ListTasksRequest(page_size=5, status=pb.TASK_STATE_WORKING),
    pb.Task(id="t", metadata={"a": [1, {"b": None}], "c": "d"}),  # a Struct
    json_format.ParseDict({"data": {"x": [1.5, "y"]}}, pb.Part()),  # a Value
    pb.Message(role=7),  # an enum number no value has: printed as a number
    pb.Task(status=pb.TaskStatus(state=99)),  # the same, a message down
    pb.Message(),  # nothing set
    pb.SendMessageRequest(),
]


@pytest.mark.parametrize(
    "message", MESSAGES, ids=lambda message: type(message).__name__
)
def test_the_reader_reads_what_message_to_dict_prints(message: Message) -> None:
    _read_like_message_to_dict(message)


def test_the_reader_reads_plain_messages_itself(monkeypatch: Any) -> None:
    """The compiled functions know each field by its descriptor's identity: a plain
    message never reaches ``MessageToDict`` (which would answer the same, slowly)."""

    def printed(message: Message) -> Any:
        raise AssertionError(f"{type(message).__name__} was printed")

    monkeypatch.setattr(json_format, "MessageToDict", printed)
    reader = _proto.MessageReader()  # compiled with the patched printer bound
    request = pb.SendMessageRequest(
        message=pb.Message(
            message_id="m1", role=pb.ROLE_USER, parts=[pb.Part(text="hi")]
        ),
        configuration=pb.SendMessageConfiguration(history_length=3),
    )
    parsed = pb.SendMessageRequest.FromString(request.SerializeToString())
    expected = {
        "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
        "configuration": {"historyLength": 3},
    }
    assert reader.read(request) == reader.read(parsed) == expected
    with pytest.raises(AssertionError, match="Message was printed"):
        reader.read(pb.Message(role=7))  # the printer is what is bound: it is reached


# --- MessageReader.parser: bytes read off the wire --------------------------------


def _parsed_as_protobuf_parses(
    parser: Callable[[bytes], Any], message_class: Any, raw: bytes
) -> None:
    """``parser(raw)`` is ``read(FromString(raw))`` (its keys in the order the bytes
    give the fields, NaN compared as text), or fails as ``FromString``."""
    try:
        expected = READER.read(message_class.FromString(raw))
    except Exception as exc:
        with pytest.raises(type(exc)):
            parser(raw)
        return
    got = json.dumps(parser(raw), sort_keys=True)
    assert got == json.dumps(expected, sort_keys=True), raw


@pytest.mark.parametrize(
    "message", MESSAGES, ids=lambda message: type(message).__name__
)
def test_the_parser_reads_what_the_reader_reads(message: Message) -> None:
    raw = message.SerializeToString()
    _parsed_as_protobuf_parses(READER.parser(type(message)), type(message), raw)
    assert READER.parser(type(message))(raw) == json_format.MessageToDict(message)


def test_bytes_of_no_such_message_raise_what_refused_makes_of_the_error() -> None:
    garbage = b"\x0a\x05ab"  # a string field five bytes long holding two
    with pytest.raises(DecodeError):
        READER.parser(pb.GetTaskRequest)(garbage)

    class NotA(Exception):
        pass

    refused = READER.parser(pb.GetTaskRequest, None, lambda exc: NotA(str(exc)))
    with pytest.raises(NotA) as caught:
        refused(garbage)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    # the message itself is read as without it, straight or by protobuf
    task = pb.GetTaskRequest(id="t", history_length=3)
    assert refused(task.SerializeToString()) == {"id": "t", "historyLength": 3}


def _counting_parser(message_class: Any) -> tuple[Callable[[bytes], Any], list[int]]:
    """A parser of ``message_class`` and the count of the messages it left to
    protobuf (its ``FromString`` replaced before the parser was made)."""
    fallbacks: list[int] = []

    def from_string(raw: bytes) -> Any:
        fallbacks.append(len(raw))
        return message_class.FromString(raw)

    class Counted:  # what the parser reads of a message class
        DESCRIPTOR = message_class.DESCRIPTOR
        FromString = staticmethod(from_string)

    return _proto.MessageReader().parser(Counted), fallbacks  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "message",
    [
        pb.GetTaskRequest(id="task-123", tenant="t", history_length=0),
        pb.SendMessageRequest(
            message=pb.Message(
                message_id="m1",
                context_id="c",
                role=pb.ROLE_USER,
                parts=[pb.Part(text="hi"), pb.Part(url="https://x.test/f")],
                reference_task_ids=["a", "b"],
            ),
            configuration=pb.SendMessageConfiguration(
                history_length=3,
                accepted_output_modes=["text/plain"],
                return_immediately=True,
            ),
        ),
        pb.ListTasksRequest(page_size=5, status=pb.TASK_STATE_WORKING),
        pb.CancelTaskRequest(id="t" * 300),  # a two-byte length
        pb.Task(id="t", status=pb.TaskStatus(state=pb.TASK_STATE_WORKING)),
    ],
    ids=lambda message: type(message).__name__,
)
def test_the_parser_reads_plain_bytes_itself(message: Message) -> None:
    parser, fallbacks = _counting_parser(type(message))
    raw = message.SerializeToString()
    assert parser(raw) == json_format.MessageToDict(message)
    assert fallbacks == []


@pytest.mark.parametrize(
    ("message_class", "raw", "why"),
    [
        (
            pb.Message,
            pb.Message(role=7).SerializeToString(),
            "an enum number no value has",
        ),
        (pb.Part, pb.Part(raw=b"x").SerializeToString(), "bytes"),
        (pb.Task, pb.Task(metadata={"a": 1}).SerializeToString(), "a Struct"),
        (
            pb.TaskStatus,
            pb.TaskStatus(timestamp={"seconds": 5}).SerializeToString(),
            "a Timestamp",
        ),
        (
            pb.Part,
            pb.Part(text="a").SerializeToString()
            + pb.Part(url="b").SerializeToString(),
            "two members of a oneof: the last counts",
        ),
        (
            pb.Task,
            pb.Task(status={"state": 1}).SerializeToString()
            + pb.Task(status={"state": 2}).SerializeToString(),
            "a message given twice: the two merged",
        ),
    ],
)
def test_the_parser_leaves_the_rest_to_protobuf(
    message_class: Any, raw: bytes, why: str
) -> None:
    parser, fallbacks = _counting_parser(message_class)
    assert parser(raw) == READER.read(message_class.FromString(raw)), why
    assert fallbacks == [len(raw)], why


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"\n\x03abc\n\x01d", "a string given twice: the last counts"),
        (b"\n\x03abc\n\x00", "the last given is the default: left out"),
        (b"\x12\x02\n\x01", "a message that ends early"),
        (b"\n\x05abc", "a string longer than the bytes"),
        (b"\n\x02\xc3\x28", "not UTF-8"),
        (b"\n\x02\xed\xa0", "a surrogate's UTF-8"),
        (b"\xfa\x01\x00", "an unknown field (number 31)"),
        (b"\x0d\x00\x00\x00\x00", "a known number with another wire type"),
        (b"\n", "a tag and nothing more"),
        (b"\n\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "an 11-byte length"),
        (b"\x1a\x02\x08\x01\x1a\x02\x08\x02", "a message given twice: merged"),
        (b"\x00", "field number 0"),
        (b"", "nothing"),
        (b"\x8a\x80\x80\x80\x00\x01a", "a tag in five bytes: protobuf reads it"),
        (b"\x8a\x80\x80\x80\x80\x00\x01a", "a tag in six bytes: protobuf refuses it"),
        (b"\n\x81\x80\x80\x80\x00a", "a length in five bytes"),
        (b"\n\x81\x80\x80\x80\x80\x00a", "a length in six bytes"),
        (b"\x98" + b"\x80" * 8 + b"\x00\x05", "a ten-byte tag of a varint field"),
        (b"\x1a\x0b\x88" + b"\x80" * 8 + b"\x00\x03", "the same, a message down"),
    ],
)
def test_the_parser_takes_odd_bytes_as_protobuf_does(raw: bytes, why: str) -> None:
    _parsed_as_protobuf_parses(READER.parser(pb.Task), pb.Task, raw)
    _parsed_as_protobuf_parses(READER.parser(pb.GetTaskRequest), pb.GetTaskRequest, raw)


def test_the_parser_takes_every_varint_kind_as_protobuf_does() -> None:
    kind = descriptor_pb2.FieldDescriptorProto
    for field_type, name in [
        (kind.TYPE_INT32, "small"),
        (kind.TYPE_UINT32, "usmall"),
        (kind.TYPE_INT64, "big"),
        (kind.TYPE_UINT64, "ubig"),
        (kind.TYPE_BOOL, "flag"),
    ]:
        message_class = _one_message_class(field_type, name)
        parser = READER.parser(message_class)
        for number in (
            0,
            1,
            127,
            128,
            2**31 - 1,
            2**31,
            2**32,
            2**32 + 5,
            2**63,
            2**64 - 1,
        ):
            raw = b"\x08" + _proto.varint_bytes(number)
            _parsed_as_protobuf_parses(parser, message_class, raw)
        _parsed_as_protobuf_parses(parser, message_class, b"\x08\x80\x00")  # overlong


def _conflicting_class(syntax: str) -> Any:
    """``conflict.M`` whose string fields ``foo_bar`` (1) and ``fooBar`` (2) share the
    json name ``fooBar``, as ``deprecated_legacy_json_field_conflicts`` allows."""
    from google.protobuf import descriptor_pool, message_factory

    kind = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name=f"conflict_{syntax}.proto", package=f"conflict{syntax}", syntax=syntax
    )
    message = file.message_type.add(name="M")
    message.options.deprecated_legacy_json_field_conflicts = True
    for number, name in enumerate(("foo_bar", "fooBar"), 1):
        message.field.add(
            name=name, number=number, type=kind.TYPE_STRING, label=kind.LABEL_OPTIONAL
        )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(
        pool.FindMessageTypeByName(f"conflict{syntax}.M")
    )


@pytest.mark.parametrize("syntax", ["proto2", "proto3"])
def test_fields_that_share_a_json_name_are_left_to_protobuf(syntax: str) -> None:
    """Which field a json name stands for is protobuf's choice: the bytes reader and
    writer take no such type."""
    message_class = _conflicting_class(syntax)
    parser = READER.parser(message_class)
    for raw in (b"\n\x01A\x12\x01B", b"\x12\x01B\n\x01A", b"\n\x01A\x12\x00"):
        _parsed_as_protobuf_parses(parser, message_class, raw)
    encoder = _proto.MessageEncoder()
    expected = json_format.ParseDict({"fooBar": "x"}, message_class())
    assert (
        encoder.encode(message_class, {"fooBar": "x"}) == expected.SerializeToString()
    )


def test_a_proto2_string_that_is_not_utf8_is_read_as_message_to_dict_prints_it() -> (
    None
):
    """protobuf does not check a proto2 string's UTF-8: such a value comes as bytes,
    which the reader leaves to ``MessageToDict`` (a string, as it prints it)."""
    kind = descriptor_pb2.FieldDescriptorProto
    for label in (kind.LABEL_OPTIONAL, kind.LABEL_REPEATED):
        from google.protobuf import descriptor_pool, message_factory

        file = descriptor_pb2.FileDescriptorProto(
            name=f"loose{label}.proto", package=f"loose{label}", syntax="proto2"
        )
        file.message_type.add(name="M").field.add(
            name="text", number=1, type=kind.TYPE_STRING, label=label
        )
        pool = descriptor_pool.DescriptorPool()
        pool.Add(file)
        message_class = message_factory.GetMessageClass(
            pool.FindMessageTypeByName(f"loose{label}.M")
        )
        message = message_class.FromString(b"\n\x01\xc3")
        read = _proto.MessageReader().read(message)
        assert read == json_format.MessageToDict(message)
        assert json.dumps(read)  # text, as JSON holds it
        _parsed_as_protobuf_parses(
            READER.parser(message_class), message_class, b"\n\x01\xc3"
        )


def test_messages_deeper_than_the_wire_reader_goes_are_protobufs() -> None:
    kinds = _kinds_class()
    raw = b""
    for _ in range(_proto._WIRE_DEPTH + 5):
        raw = b"\x42" + _proto.varint_bytes(len(raw)) + raw  # child, field 8
    parser, fallbacks = _counting_parser(kinds)
    _parsed_as_protobuf_parses(parser, kinds, raw)
    assert fallbacks == [len(raw)]
    for _ in range(120):  # past protobuf's own limit: both fail
        raw = b"\x42" + _proto.varint_bytes(len(raw)) + raw
    _parsed_as_protobuf_parses(parser, kinds, raw)


@settings(max_examples=2000, deadline=None)
@given(
    message=st.sampled_from(MESSAGES),
    edits=st.lists(
        st.tuples(
            st.sampled_from(["cut", "set", "insert", "pad", "again"]),
            st.integers(0, 10**6),
            st.binary(min_size=1, max_size=3),
        ),
        max_size=3,
    ),
)
def test_edited_bytes_are_parsed_as_protobuf_parses(
    message: Message, edits: list[tuple[str, int, bytes]]
) -> None:
    raw = bytearray(message.SerializeToString())
    for what, at, data in edits:
        at = at % (len(raw) + 1)
        if what == "cut":
            del raw[at:]
        elif what == "set" and at < len(raw):
            raw[at] = data[0]
        elif what == "insert":
            raw[at:at] = data
        elif what == "pad" and at < len(raw) and raw[at] < 128:
            # a varint's byte written long (tag, length or value: 2 to 10 bytes)
            raw[at : at + 1] = bytes([raw[at] | 0x80]) + b"\x80" * (data[0] % 9) + b"\0"
        elif what == "again":  # another message after it: protobuf merges the two
            raw += MESSAGES[at % len(MESSAGES)].SerializeToString()
    _parsed_as_protobuf_parses(READER.parser(type(message)), type(message), bytes(raw))


def test_the_reader_prints_other_kinds_as_message_to_dict_does() -> None:
    """Floats, doubles that are not finite, 64-bit integers, maps, extensions and
    messages with a JSON form of their own, on protobuf's own test-like types."""
    from google.protobuf import struct_pb2, timestamp_pb2, wrappers_pb2

    stamp = timestamp_pb2.Timestamp(seconds=5, nanos=1000)
    for message in (
        stamp,
        wrappers_pb2.Int64Value(value=2**40),
        wrappers_pb2.DoubleValue(value=float("nan")),
        wrappers_pb2.FloatValue(value=0.1),
        struct_pb2.Struct(fields={"k": struct_pb2.Value(number_value=1)}),
        struct_pb2.ListValue(values=[struct_pb2.Value(string_value="x")]),
    ):
        _read_like_message_to_dict(message)


def _kinds_class() -> Any:
    """A message type with the kinds the A2A requests lack: floats, doubles, 64-bit
    integers, maps, repeated well-known types, NullValue, and an extension range."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from google.protobuf import struct_pb2, timestamp_pb2

    pool = descriptor_pool.DescriptorPool()
    for module in (struct_pb2, timestamp_pb2):
        proto = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(proto)
        pool.Add(proto)
    kind = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name="kinds.proto",
        package="kinds",
        syntax="proto3",
        dependency=["google/protobuf/struct.proto", "google/protobuf/timestamp.proto"],
    )
    message = file.message_type.add(name="Kinds")
    entry = message.nested_type.add(name="ByNameEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=kind.TYPE_STRING)
    entry.field.add(name="value", number=2, type=kind.TYPE_INT64)
    for number, (name, type_, label, type_name) in enumerate(
        [
            ("ratio", kind.TYPE_FLOAT, kind.LABEL_OPTIONAL, ""),
            ("big", kind.TYPE_DOUBLE, kind.LABEL_OPTIONAL, ""),
            ("bigs", kind.TYPE_DOUBLE, kind.LABEL_REPEATED, ""),
            ("sizes", kind.TYPE_UINT64, kind.LABEL_REPEATED, ""),
            (
                "by_name",
                kind.TYPE_MESSAGE,
                kind.LABEL_REPEATED,
                ".kinds.Kinds.ByNameEntry",
            ),
            (
                "times",
                kind.TYPE_MESSAGE,
                kind.LABEL_REPEATED,
                ".google.protobuf.Timestamp",
            ),
            (
                "nothing",
                kind.TYPE_ENUM,
                kind.LABEL_OPTIONAL,
                ".google.protobuf.NullValue",
            ),
            ("child", kind.TYPE_MESSAGE, kind.LABEL_OPTIONAL, ".kinds.Kinds"),
        ],
        start=1,
    ):
        field = message.field.add(name=name, number=number, type=type_, label=label)
        if type_name:
            field.type_name = type_name
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("kinds.Kinds"))


@pytest.mark.parametrize(
    "value",
    [
        {"big": 2.5, "bigs": [1.0, -3.25], "sizes": ["1", "18446744073709551615"]},
        {"child": {"big": 2.5, "child": {"sizes": ["7"]}}},
        {"big": "NaN"},
        {"bigs": [1.0, "-Infinity"]},
        {"ratio": 0.1},
        {"byName": {"a": "5"}},
        {"times": ["2026-12-01T10:00:00Z"]},
        {"nothing": None},
        {"child": {"ratio": 0.5}, "sizes": ["3"]},
    ],
)
def test_the_reader_prints_every_kind_as_message_to_dict_does(value: Any) -> None:
    kinds = _kinds_class()
    message = json_format.ParseDict(value, kinds())
    assert repr(READER.read(message)) == repr(json_format.MessageToDict(message))


def _one_message_class(field_type: int, field_name: str) -> Any:
    """``same.M`` with one field numbered 1, in a pool of its own."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    file = descriptor_pb2.FileDescriptorProto(
        name="same.proto", package="same", syntax="proto3"
    )
    file.message_type.add(name="M").field.add(
        name=field_name,
        number=1,
        type=field_type,  # type: ignore[arg-type]
        label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
    )
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("same.M"))


def test_the_reader_keeps_apart_two_types_of_one_name_from_two_pools() -> None:
    kind = descriptor_pb2.FieldDescriptorProto
    texts = _one_message_class(kind.TYPE_STRING, "text")
    counts = _one_message_class(kind.TYPE_INT64, "count")
    reader = _proto.MessageReader()
    assert reader.read(texts(text="hi")) == {"text": "hi"}
    assert reader.read(counts(count=5)) == {"count": "5"}  # a 64-bit integer: text
    assert reader.read(texts(text="again")) == {"text": "again"}


# --- MessageEncoder ----------------------------------------------------------------

ENCODER = _proto.MessageEncoder(BUILDER)


def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records each value the encoder left to the builder."""
    calls: list[str] = []
    real = BUILDER.build

    def recording(message_class: Any, type_name: str, value: Any) -> Message:
        calls.append(type_name)
        return real(message_class, type_name, value)

    monkeypatch.setattr(BUILDER, "build", recording)
    return calls


@pytest.mark.parametrize(
    ("message_class", "value"),
    [
        (pb.Task, TASK),
        (pb.StreamResponse, {"task": TASK}),
        (pb.ListTasksResponse, {"tasks": [TASK, {"id": "t2"}], "nextPageToken": ""}),
        (pb.Part, {"text": ""}),  # a oneof member: written though empty
        (pb.Part, {"data": []}),
        (pb.Task, {"id": "", "status": {"state": "TASK_STATE_UNSPECIFIED"}}),
        (pb.GetTaskRequest, {"id": "t", "historyLength": 0}),  # optional: written
        (pb.GetTaskRequest, {"id": "t", "historyLength": -1}),  # ten bytes
        (pb.Message, {"messageId": "é" * 200, "extensions": ["a", ""]}),  # long
        (pb.SendMessageConfiguration, {"returnImmediately": False}),
        (pb.Task, {"id": "t", "status": None, "metadata": {}}),  # null: absent
    ],
)
def test_canonical_values_are_written_as_the_bytes_of_parse_dicts_message(
    monkeypatch: pytest.MonkeyPatch, message_class: type[Message], value: Any
) -> None:
    calls = built(monkeypatch)
    written = ENCODER.encode(message_class, value)
    assert calls == []
    assert message_class.FromString(written) == parse(message_class, value)


@pytest.mark.parametrize(
    ("message_class", "value"),
    [
        (
            pb.Task,
            {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}},
        ),
        (pb.GetTaskRequest, {"id": "t", "historyLength": -1}),
        (pb.Part, {"text": "", "mediaType": "text/plain"}),
    ],
)
def test_fields_in_protobufs_order_are_protobufs_bytes(
    message_class: type[Message], value: Any
) -> None:
    expected = parse(message_class, value).SerializeToString()
    assert ENCODER.encode(message_class, value) == expected


@pytest.mark.parametrize(
    "change",
    [
        {"context_id": "proto name"},
        {"status": {"state": 3}},  # an enum by number
        {"id": "\ud800"},  # not UTF-8
        {"artifacts": [{"artifactId": "a", "parts": [{"raw": "eA=="}]}]},  # bytes
        {"metadata": {"nan": float("nan")}},
        {"history": [None]},
        {"id": 5},
    ],
)
def test_what_the_encoder_does_not_write_is_built_and_serialized(
    monkeypatch: pytest.MonkeyPatch, change: dict[str, Any]
) -> None:
    value = {**TASK, **change}
    try:
        expected: Message | None = parse(pb.Task, value)
    except Exception:
        expected = None
    calls = built(monkeypatch)
    if expected is None:
        with pytest.raises(Exception):
            ENCODER.encode(pb.Task, value)
    else:
        assert pb.Task.FromString(ENCODER.encode(pb.Task, value)) == expected
    assert calls == ["lf.a2a.v1.Task"]


@pytest.mark.parametrize(
    "number", [1, 127, 128, 300, 2**31 - 1, -1, -(2**31), 2**63 - 1]
)
def test_varints_are_protobufs(number: int) -> None:
    written = wrappers_pb2.Int64Value(value=number).SerializeToString()
    assert written == b"\x08" + _proto.varint_bytes(number)


def test_without_a_builder_parse_dict_builds_what_is_not_written() -> None:
    encoder = _proto.MessageEncoder()
    value = {"id": "t", "status": {"state": 3}}
    assert pb.Task.FromString(encoder.encode(pb.Task, value)) == parse(pb.Task, value)
    with pytest.raises(json_format.ParseError):
        encoder.encode(pb.Task, {"id": "t", "nope": 1})

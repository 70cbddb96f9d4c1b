"""Request validation (``codegen/runtime/tables/_validate.py``) on a small hand-written schema:
every ProtoJSON kind accepted in each form protobuf's parser takes, and refused with the
path of the field; the canonical form handed back; REQUIRED fields; unknown fields."""

from __future__ import annotations

from typing import Any

import pytest

from codegen.runtime._json import decode
from codegen.runtime._validate import FieldRule, Schema, ValidationError

SCHEMA = Schema(
    {
        "t.All": (
            FieldRule("s", "string"),
            FieldRule("b", "bool"),
            FieldRule("i32", "int32"),
            FieldRule("u32", "uint32"),
            FieldRule("i64", "int64"),
            FieldRule("u64", "uint64"),
            FieldRule("f", "float"),
            FieldRule("d", "double"),
            FieldRule("raw", "bytes"),
            FieldRule("color", "enum", "t.Color"),
            FieldRule("colors", "enum", "t.Color", repeated=True),
            FieldRule("nested", "message", "t.Nested"),
            FieldRule("items", "message", "t.Nested", repeated=True),
            FieldRule("by_name", "int32", map_key="string"),
            FieldRule("by_number", "string", map_key="int64"),
            FieldRule("by_flag", "message", "t.Nested", map_key="bool"),
            FieldRule("ts", "timestamp"),
            FieldRule("dur", "duration"),
            FieldRule("mask", "field_mask"),
            FieldRule("st", "struct"),
            FieldRule("val", "value"),
            FieldRule("lv", "list_value"),
            FieldRule("anything", "any"),
            FieldRule("empty", "message", "google.protobuf.Empty"),
            FieldRule("one_text", "string", oneof="pick"),
            FieldRule("one_number", "int32", oneof="pick"),
        ),
        "t.Nested": (
            FieldRule("name", "string", required=True),
            FieldRule("note", "string"),
        ),
        "t.Needs": (
            FieldRule("a", "string", required=True, oneof="either"),
            FieldRule("b", "string", required=True, oneof="either"),
            FieldRule("list", "string", repeated=True, required=True),
        ),
    },
    {"t.Color": (("COLOR_UNSPECIFIED", 0), ("RED", 1), ("CRIMSON", 1), ("GREEN", 2))},
)


def valid(value: Any, **options: Any) -> dict[str, Any]:
    return SCHEMA.validate("t.All", value, **options)


def refused(value: Any, **options: Any) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        SCHEMA.validate("t.All", value, **options)
    assert caught.value.to_bad_request()["fieldViolations"]
    return [field for field, _ in caught.value.violations]


@pytest.mark.parametrize(
    ("sent", "canonical"),
    [
        ({"s": "x", "b": False}, {"s": "x", "b": False}),
        ({"i32": 5, "u32": "7"}, {"i32": 5, "u32": 7}),
        ({"i32": 5.0, "u32": 1e3}, {"i32": 5, "u32": 1000}),
        (
            {"i64": 5, "u64": "18446744073709551615"},
            {"i64": "5", "u64": "18446744073709551615"},
        ),
        ({"f": 1.5, "d": "NaN"}, {"f": 1.5, "d": "NaN"}),
        ({"d": "-Infinity", "f": 2}, {"d": "-Infinity", "f": 2}),
        ({"raw": "QUJD"}, {"raw": "QUJD"}),
        ({"color": "CRIMSON"}, {"color": "CRIMSON"}),
        (
            {"color": 2, "colors": ["RED", 1]},
            {"color": "GREEN", "colors": ["RED", "RED"]},
        ),
        ({"nested": {"name": "n"}}, {"nested": {"name": "n"}}),
        (
            {"items": [{"name": "a"}, {"name": "b", "note": None}]},
            {"items": [{"name": "a"}, {"name": "b"}]},
        ),
        ({"by_name": {"k": 1}}, {"byName": {"k": 1}}),
        (
            {"byNumber": {"-5": "x"}, "byFlag": {"true": {"name": "n"}}},
            {"byNumber": {"-5": "x"}, "byFlag": {"true": {"name": "n"}}},
        ),
        (
            {"ts": "2025-01-02T03:04:05.123Z", "dur": "-1.5s", "mask": "a.b,c"},
            {"ts": "2025-01-02T03:04:05.123Z", "dur": "-1.5s", "mask": "a.b,c"},
        ),
        (
            {"st": {"a": [1, None]}, "val": None, "lv": [1, "x"]},
            {"st": {"a": [1, None]}, "val": None, "lv": [1, "x"]},
        ),
        ({"empty": {}}, {"empty": {}}),
        ({"oneText": "x", "oneNumber": None}, {"oneText": "x"}),
        ({"s": None, "nested": None, "items": None}, {}),
    ],
)
def test_valid_values_come_back_canonical(
    sent: dict[str, Any], canonical: dict[str, Any]
) -> None:
    assert valid(sent) == canonical


@pytest.mark.parametrize(
    ("sent", "paths"),
    [
        ({"s": 5}, ["s"]),
        ({"b": "true"}, ["b"]),
        ({"i32": True}, ["i32"]),
        ({"i32": 1.5}, ["i32"]),
        ({"i32": 2**31}, ["i32"]),
        ({"u32": -1}, ["u32"]),
        ({"i64": "9223372036854775808"}, ["i64"]),
        ({"i32": "0x10"}, ["i32"]),
        ({"f": 1e39}, ["f"]),
        ({"d": True}, ["d"]),
        ({"d": "nan"}, ["d"]),
        ({"raw": "Q"}, ["raw"]),
        ({"color": "BLUE"}, ["color"]),
        ({"color": 7}, ["color"]),
        ({"color": True}, ["color"]),
        ({"colors": ["RED", None]}, ["colors[1]"]),
        ({"nested": "x"}, ["nested"]),
        ({"nested": []}, ["nested"]),
        ({"nested": {}}, ["nested.name"]),
        ({"items": {"name": "a"}}, ["items"]),
        ({"items": [{"name": 5}]}, ["items[0].name"]),
        ({"byName": {"k": "x"}}, ["byName[k]"]),
        ({"byNumber": {"x": "y"}}, ["byNumber[x]"]),
        ({"byFlag": {"True": {"name": "n"}}}, ["byFlag[True]"]),
        ({"byName": []}, ["byName"]),
        ({"ts": "2025-01-02"}, ["ts"]),
        ({"dur": "1"}, ["dur"]),
        ({"mask": "a_b"}, ["mask"]),
        ({"st": []}, ["st"]),
        ({"lv": {}}, ["lv"]),
        ({"anything": {"x": 1}}, ["anything"]),
        ({"empty": 5}, ["empty"]),
        ({"oneText": "x", "oneNumber": 1}, [""]),
        ({"s": "a", "i32": "x", "nested": {"name": 1}}, ["i32", "nested.name"]),
    ],
)
def test_invalid_values_are_refused_at_their_path(
    sent: dict[str, Any], paths: list[str]
) -> None:
    found = refused(sent)
    for path in paths:
        assert any(f == path or f.startswith(path) for f in found), (path, found)


def test_a_non_object_request_is_refused_as_a_whole() -> None:
    assert refused(["x"]) == [""]


def test_unknown_fields_are_dropped_or_refused() -> None:
    assert valid({"s": "x", "nope": {"deep": 1}}) == {"s": "x"}
    assert refused({"s": "x", "nope": 1}, unknown_fields="reject") == ["nope"]
    assert refused({"nested": {"name": "n", "x": 1}}, unknown_fields="reject") == [
        "nested.x"
    ]
    with pytest.raises(ValueError, match="unknown_fields"):
        valid({}, unknown_fields="keep")


def test_keys_given_twice_are_refused_where_they_are() -> None:
    body = decode(
        b'{"s": "a", "s": "b", "nested": {"name": "x", "name": "y"}}',
        mark_duplicates=True,
    )
    assert refused(body) == ["s", "nested.name"]
    both = {"oneText": "x", "one_text": "y"}  # one field in its two spellings
    assert refused(both)


def test_required_fields_and_required_oneofs() -> None:
    with pytest.raises(ValidationError) as caught:
        SCHEMA.validate("t.Needs", {"list": []})
    texts = dict(caught.value.violations)
    assert texts["list"] == "a REQUIRED field is missing"
    assert texts["a"] == "one of a, b is REQUIRED (oneof either)"
    assert SCHEMA.validate("t.Needs", {"b": "x", "list": ["y"]}) == {
        "b": "x",
        "list": ["y"],
    }
    assert SCHEMA.missing_fields("t.Needs", {"list": ["y"]}) == [
        ("a", "one of a, b is REQUIRED (oneof either)")
    ]


def test_a_type_the_schema_lacks_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="not a message type"):
        SCHEMA.validate("t.Nope", {})
    assert "t.All" in SCHEMA and "t.Nope" not in SCHEMA


def test_any_of_a_known_type_is_checked_and_of_another_kept() -> None:
    known = {"@type": "type.googleapis.com/t.Nested", "name": "n"}
    assert valid({"anything": known}) == {"anything": known}
    assert refused({"anything": {"@type": "type.googleapis.com/t.Nested", "name": 5}})
    other = {"@type": "type.googleapis.com/elsewhere.Thing", "x": 1}
    assert valid({"anything": other})["anything"]["@type"].endswith("elsewhere.Thing")


DURATION_ANY = "type.googleapis.com/google.protobuf.Duration"


@pytest.mark.parametrize(
    "sent",
    [
        {"anything": {}},
        {"anything": {"@type": DURATION_ANY, "value": "1.5s", "ignored": 1}},
        {"anything": {"@type": "x/google.protobuf.Value", "value": None}},
        {"anything": {"@type": "x/google.protobuf.Int64Value", "value": 5}},
        {"anything": {"@type": "x/google.protobuf.Struct", "value": {"a": {"b": [1]}}}},
        {"anything": {"@type": "x/google.protobuf.Empty"}},
        {"val": {"a": [{"b": None}, 1.5, "s", True]}},
        {"ts": "0001-01-01T00:00:00Z", "dur": "315576000000s"},
        {"ts": "1972-01-01T10:00:20.021+01:00", "dur": "0.000000001s"},
    ],
)
def test_well_known_forms_that_are_accepted(sent: dict[str, Any]) -> None:
    assert valid(sent).keys() == sent.keys()


@pytest.mark.parametrize(
    ("sent", "path"),
    [
        ({"anything": {"@type": DURATION_ANY}}, "anything.value"),
        ({"anything": {"@type": DURATION_ANY, "value": None}}, "anything.value"),
        ({"anything": {"@type": DURATION_ANY, "value": "1"}}, "anything.value"),
        ({"anything": {"@type": 5}}, "anything.@type"),
        ({"anything": "x"}, "anything"),
        ({"ts": "1972-01-01T10:00:20t"}, "ts"),
        ({"ts": "10000-01-01T00:00:00Z"}, "ts"),
        ({"ts": "1972-01-01T10:00:20.1234567891Z"}, "ts"),
        ({"dur": "315576000001s"}, "dur"),
        ({"dur": 1}, "dur"),
        ({"mask": 5}, "mask"),
        ({"[ext.field]": 1}, "[ext.field]"),
    ],
)
def test_well_known_forms_that_are_refused(sent: dict[str, Any], path: str) -> None:
    found = refused(sent)
    assert any(f.startswith(path) for f in found), (path, found)


def test_duplicates_are_found_inside_json_taken_as_sent() -> None:
    for body, path in [
        (b'{"st": {"a": 1, "a": 2}}', "st[a]"),
        (b'{"val": [{"x": 1, "x": 1}]}', "val"),
        (b'{"byName": {"k": 1, "k": 2}}', "byName[k]"),
        (b'{"nope": {"x": 1, "x": 2}}', "nope.x"),
        (b'{"anything": {"@type": "x/else.Where", "y": 1, "y": 2}}', "anything.y"),
    ]:
        found = refused(decode(body, mark_duplicates=True))
        assert any(f.startswith(path) for f in found), (body, found)


def test_nesting_is_bounded_as_protobuf_bounds_it() -> None:
    deep: dict[str, Any] = {"name": "n"}
    value: Any = 1
    for _ in range(120):
        value = [value]
    assert refused({"val": value})
    assert refused({"lv": value})
    for _ in range(3):
        deep = {"name": "n", "note": "x"}
    assert valid({"nested": deep}) == {"nested": deep}


def test_keys_that_are_not_text_are_refused() -> None:
    assert refused({"\ud800": 1}) == ["\ud800"]
    assert refused({"s": "\ud800"}) == ["s"]


def test_an_answer_may_leave_out_required_scalars_and_lists_not_messages() -> None:
    """ProtoJSON prints no default: an answer's empty REQUIRED list or string cannot
    be told from unset, while a set message field is always printed."""
    answers = Schema(
        {
            "t.Page": (
                FieldRule("items", "string", repeated=True, required=True),
                FieldRule("token", "string", required=True),
                FieldRule("meta", "message", "t.Meta", required=True),
            ),
            "t.Meta": (),
        },
        {},
    )
    assert answers.validate("t.Page", {"meta": {}}, answer=True) == {"meta": {}}
    with pytest.raises(ValidationError) as caught:
        answers.validate("t.Page", {"items": []}, answer=True)
    assert caught.value.violations == (("meta", "a REQUIRED field is missing"),)
    with pytest.raises(ValidationError) as strict:
        answers.validate("t.Page", {"meta": {}})  # a request: all three are needed
    assert [f for f, _ in strict.value.violations] == ["items", "token"]

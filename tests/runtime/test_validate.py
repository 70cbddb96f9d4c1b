"""Request validation (``codegen/runtime/tables/_validate.py``) on small hand-written schemas:
every field kind, the canonical form, the paths of violations, duplicate keys, oneofs,
REQUIRED fields, unknown fields, maps with each key kind, ``Any`` and nulls.
(``tests/test_validation_oracle.py`` holds it against protobuf's own parser.)"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from codegen.runtime._json import DuplicateKeys, decode
from codegen.runtime._validate import FieldRule, Schema, ValidationError

R = FieldRule
SCHEMA = Schema(
    {
        "t.All": (
            R("text", "string"),
            R("blob", "bytes"),
            R("flag", "bool"),
            R("i32", "int32"),
            R("u32", "uint32"),
            R("i64", "int64"),
            R("u64", "uint64"),
            R("flt", "float"),
            R("dbl", "double"),
            R("shade", "enum", "t.Shade"),
            R("at", "timestamp"),
            R("wait", "duration"),
            R("mask", "field_mask"),
            R("extra", "struct"),
            R("value", "value"),
            R("list", "list_value"),
            R("nothing", "null_value"),
            R("any", "any"),
            R("leaf", "message", "t.Leaf"),
            R("leaves", "message", "t.Leaf", repeated=True),
            R("texts", "string", repeated=True),
            R("values", "value", repeated=True),
            R("nothings", "null_value", repeated=True),
            R("empty", "message", "google.protobuf.Empty"),
            R("page_size", "int32"),
        ),
        "t.Leaf": (
            R("name", "string", required=True),
            R("count", "int64"),
            R("child", "message", "t.Leaf"),
        ),
        "t.Maps": (
            R("by_text", "int32", map_key="string"),
            R("by_bool", "string", map_key="bool"),
            R("by_i32", "string", map_key="int32"),
            R("by_u32", "string", map_key="uint32"),
            R("by_i64", "message", "t.Leaf", map_key="int64"),
            R("by_u64", "enum", "t.Shade", map_key="uint64"),
            R("values", "value", map_key="string"),
            R("nulls", "null_value", map_key="string"),
            R("times", "timestamp", map_key="string"),
        ),
        "t.Part": (
            R("text", "string", oneof="content"),
            R("data", "value", oneof="content"),
            R("nothing", "null_value", oneof="content"),
            R("file_name", "string", oneof="content"),
            R("media_type", "string"),
        ),
        "t.Must": (
            R("id", "string", required=True),
            R("tags", "string", repeated=True, required=True),
            R("leaf", "message", "t.Leaf", required=True),
            R("count", "int32", required=True),
            R("text", "string", required=True, oneof="content"),
            R("data", "value", required=True, oneof="content"),
            R("nothing", "null_value", required=True, oneof="content"),
        ),
        "t.Wrapper": (R("part", "message", "t.Part", repeated=True),),
    },
    {
        "t.Shade": (
            ("SHADE_UNSPECIFIED", 0),
            ("SHADE_DARK", 1),
            ("SHADE_NOIR", 1),
            ("SHADE_MINUS", -7),
        ),
    },
)


def valid(value: object, type_name: str = "t.All", **options: Any) -> dict[str, Any]:
    return SCHEMA.validate(type_name, value, **options)


def violations(
    value: object, type_name: str = "t.All", **options: Any
) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as caught:
        SCHEMA.validate(type_name, value, **options)
    assert caught.value.violations
    return list(caught.value.violations)


def paths(value: object, type_name: str = "t.All", **options: Any) -> list[str]:
    return [path for path, _ in violations(value, type_name, **options)]


def test_the_canonical_form() -> None:
    sent = {
        "text": "a",
        "page_size": "7",
        "i64": 5,
        "u64": "1e3",
        "shade": 1,
        "flt": "NaN",
        "dbl": 1,
        "blob": "QQ",
        "leaf": {"name": "n", "count": 2.0},
        "texts": [],
        "value": None,
        "unknown": {"x": 1},
        "flag": None,
    }
    assert valid(sent) == {
        "text": "a",
        "pageSize": 7,
        "i64": "5",
        "u64": "1000",
        "shade": "SHADE_DARK",
        "flt": "NaN",
        "dbl": 1,
        "blob": "QQ",
        "leaf": {"name": "n", "count": "2"},
        "texts": [],
        "value": None,
    }
    assert valid({"shade": "SHADE_NOIR"}) == {
        "shade": "SHADE_NOIR"
    }  # an alias, as sent
    assert valid({"shade": "-7"}) == {"shade": "SHADE_MINUS"}
    assert valid({}) == {}


@pytest.mark.parametrize(
    ("kind", "good", "bad"),
    [
        (
            "i32",
            [
                (5, 5),
                ("5", 5),
                (5.0, 5),
                ("5.0", 5),
                ("1e3", 1000),
                (1e3, 1000),
                ("+5", 5),
                ("\t5", 5),
                ("1_000", 1000),
                ("\u0665", 5),
                ("-0", 0),
                ("1000e-3", 1),
                (2**31 - 1, 2**31 - 1),
            ],
            [
                " 5",
                "5 ",
                1.5,
                "1.5",
                "0x10",
                "",
                "abc",
                "Infinity",
                "1e400",
                2**31,
                "2147483648",
                -(2**31) - 1,
                True,
                False,
                [],
                {},
                float("inf"),
                float("nan"),
            ],
        ),
        (
            "u32",
            [(0, 0), (-0.0, 0), ("-0", 0), (2**32 - 1, 2**32 - 1)],
            [-1, "-1", 2**32],
        ),
        (
            "i64",
            [
                (5, "5"),
                ("9223372036854775807", "9223372036854775807"),
                (9.223372036854775e18, "9223372036854774784"),
                ("9007199254740993.0", "9007199254740992"),
                (-(2**63), str(-(2**63))),
            ],
            [2**63, "9223372036854775807.0", 1e20, True],
        ),
        (
            "u64",
            [("18446744073709551615", "18446744073709551615")],
            ["18446744073709551616", 1.8446744073709552e19, -1],
        ),
        (
            "flt",
            [
                (1.5, 1.5),
                ("1.5", "1.5"),
                (" 1.5 ", " 1.5 "),
                ("1_0.5", "1_0.5"),
                ("NaN", "NaN"),
                ("NAN", "NAN"),
                ("-inf", "-inf"),
                ("1e39", "1e39"),
                (10**39, 10**39),
                (3.4028234663852886e38, 3.4028234663852886e38),
                (-0.0, -0.0),
                (7, 7),
            ],
            [
                "nan",
                1e39,
                -1e39,
                3.4028235e38,
                float("nan"),
                float("inf"),
                float("-inf"),
                10**400,
                True,
                False,
                "abc",
                "",
                "0x10",
                [],
                {},
            ],
        ),
        (
            "dbl",
            [(1e308, 1e308), (3.4028235e38, 3.4028235e38), ("1e400", "1e400")],
            [float("inf"), 10**400, True],
        ),
        ("flag", [(True, True), (False, False)], ["true", 0, 1, 1.0, [], "yes"]),
        (
            "text",
            [("", ""), ("\x00", "\x00"), ("\U0001f600", "\U0001f600"), ("é", "é")],
            ["\ud800", "a\udc00b", "\ud83d\ude00", 5, 5.0, True, [], {}],
        ),
        (
            "blob",
            [
                ("QQ==", "QQ=="),
                ("QQ", "QQ"),
                ("-_8=", "-_8="),
                ("+/8", "+/8"),
                ("!!QQ==", "!!QQ=="),
                ("", ""),
                ("QQ==QQ==", "QQ==QQ=="),
                ("Q Q = =", "Q Q = ="),
            ],
            ["Q", "QUJDR", "Q===", "=QQ", " QQ", "\ud800", 5, [], True],
        ),
        (
            "shade",
            [
                ("SHADE_DARK", "SHADE_DARK"),
                (1, "SHADE_DARK"),
                ("1", "SHADE_DARK"),
                (" 1 ", "SHADE_DARK"),
                (1.0, "SHADE_DARK"),
                ("\u0661", "SHADE_DARK"),
                (-7, "SHADE_MINUS"),
                (0, "SHADE_UNSPECIFIED"),
            ],
            [
                "shade_dark",
                "SHADE_BLUE",
                "",
                "1.0",
                "0x1",
                "1e3",
                2,
                "2",
                1.5,
                -0.5,
                2**32 + 1,
                True,
                False,
                float("nan"),
                float("inf"),
                [],
                {},
            ],
        ),
        (
            "nothing",
            [
                ("NULL_VALUE", "NULL_VALUE"),
                (0, "NULL_VALUE"),
                ("0", "NULL_VALUE"),
                (None, "NULL_VALUE"),
            ],
            [1, True, "FOO", 0.5, []],
        ),
        (
            "at",
            [
                ("1972-01-01T10:00:20.021Z", None),
                ("1972-01-01T10:00:20.021+01:00", None),
                ("1972-01-01T10:00:20-05:00", None),
                ("1972-01-01T10:00:20+99:99", None),
                ("1972-01-01T10:00:20.Z", None),
                ("1972-1-1T1:2:3Z", None),
                ("0001-01-01T00:00:00Z", None),
                ("9999-12-31T23:59:59.999999999Z", None),
                ("1972-01-01T10:00:20.1e-5Z", None),
            ],
            [
                "",
                "1972-01-01",
                "1972-01-01T10:00:20",
                "1972-01-01t10:00:20Z",
                "1972-01-01T10:00:20z",
                "1972-01-01T10:00:20Z ",
                "1972-01-01T10:00:20+0100",
                "1972-01-01T10:00:20+01:00:00",
                "1972-01-01T10:00:20.1234567891Z",
                "1972-01-01T10:00:20.1e5Z",
                "1972-01-01T10:00:20.1e999Z",
                "1972-01-01T10:00:20.-5Z",
                "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59-01:00",
                "1972-02-30T00:00:00Z",
                "1972-01-01T23:59:60Z",
                "\ud800",
                5,
                [],
                {},
            ],
        ),
        (
            "wait",
            [
                ("1s", None),
                ("-1.5s", None),
                ("-0.5s", None),
                ("1.0000000001s", None),
                ("315576000000.999999999s", None),
                ("+1.5s", None),
                (" 1.5s", None),
                ("1_0s", None),
                ("1.s", None),
            ],
            [
                "1",
                "1S",
                "",
                "s",
                ".5s",
                "1e3s",
                "315576000001s",
                "1.9999999999s",
                " -1.5s",
                "1.-5s",
                "0.1e999s",
                "1.5e3s",
                1,
                1.5,
                {"seconds": 1},
            ],
        ),
        (
            "mask",
            [
                ("", None),
                ("a.b,c", None),
                ("fooBar,bazQux.quuxCorge", None),
                ("a,,b", None),
                ("A", None),
            ],
            ["foo_bar", "\ud800", 5, ["a"]],
        ),
    ],
)
def test_every_scalar_kind(
    kind: str, good: list[tuple[Any, Any]], bad: list[Any]
) -> None:
    for sent, canonical in good:
        expected = sent if canonical is None else canonical
        assert valid({kind: sent}) == {kind: expected}, sent
    for sent in bad:
        found = violations({kind: sent})
        assert [path for path, _ in found] == [kind], (sent, found)


@pytest.mark.parametrize(
    ("sent", "text"),
    [
        ({"i32": "abc"}, "not an integer in -2147483648..2147483647 (int32): abc"),
        ({"i32": True}, "expected an integer (int32), got a boolean"),
        ({"u64": []}, "expected an integer (uint64), got an array"),
        ({"shade": "SHADE_BLUE"}, "'SHADE_BLUE' is not a value of t.Shade"),
        ({"shade": 2}, "2 is not a number of a value of t.Shade"),
        ({"shade": 1.5}, "1.5 is not a number of a value of t.Shade"),
        ({"shade": True}, "expected a value of t.Shade, got a boolean"),
        ({"nothing": 1}, "1 is not a number of a value of google.protobuf.NullValue"),
        ({"text": 5}, "expected a string, got a number"),
        ({"text": "\ud800"}, "not valid Unicode: a lone surrogate"),
        ({"flag": "true"}, "expected true or false, got a string"),
        ({"blob": "Q"}, "not base64 text"),
        ({"blob": 5}, "expected base64 text, got a number"),
        ({"flt": "abc"}, "not a number: 'abc'"),
        ({"flt": True}, "expected a number, got a boolean"),
        ({"flt": [1]}, "expected a number, got an array"),
        (
            {"flt": float("nan")},
            "NaN and the infinities are the strings 'NaN', 'Infinity', '-Infinity'",
        ),
        ({"flt": 1e39}, "out of range for a 32-bit float"),
        ({"dbl": 10**400}, "out of range for a 64-bit float"),
        ({"at": 5}, "expected a string, got a number"),
        (
            {"at": "1972-01-01T00:00:00+0100"},
            "not an RFC 3339 timestamp: time zone offset '+0100'",
        ),
        ({"at": "19720101"}, "not an RFC 3339 timestamp: no time zone offset"),
        ({"at": "1972-01-01t00:00:00Z"}, "not an RFC 3339 timestamp: a lowercase 't'"),
        (
            {"at": "1972-01-01T00:00:00.1234567891Z"},
            "not an RFC 3339 timestamp: more than 9 fractional digits",
        ),
        ({"at": "1972-01-01T00:00:00ZZ"}, "not an RFC 3339 timestamp: text after 'Z'"),
        (
            {"at": "0001-01-01T00:00:00+01:00"},
            "out of range (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z)",
        ),
        ({"wait": "1"}, "not a duration: it ends in 's' ('1.5s')"),
        ({"wait": "315576000001s"}, "out of range (at most 315576000000s either way)"),
        (
            {"wait": "1.9999999999s"},
            "out of range: the fraction rounds to a whole second",
        ),
        (
            {"wait": " -1.5s"},
            "not a duration: the seconds and the fraction differ in sign",
        ),
        ({"mask": "a_b"}, "not a field mask: the paths are in json names (no '_')"),
    ],
)
def test_descriptions(sent: dict[str, Any], text: str) -> None:
    assert violations(sent) == [(next(iter(sent)), text)]


def test_a_bad_timestamp_says_why() -> None:
    ((_, text),) = violations({"at": "1972-13-01T00:00:00Z"})
    assert text.startswith("not an RFC 3339 timestamp: ") and "does not match" in text
    ((_, text),) = violations({"wait": "1e3s"})
    assert text.startswith("not a duration: invalid literal")


def test_seconds_and_offsets_too_long_to_read_say_so() -> None:
    """In the protocol's words, not Python's advice to raise its digit limit."""
    limit = sys.get_int_max_str_digits()
    digits = limit + 700
    too_long = (
        f"an integer of {digits} digits is longer than the {limit} digits the reader"
        " accepts"
    )
    ((_, text),) = violations({"wait": "1" * digits + "s"})
    assert text == f"not a duration: {too_long}"
    ((_, text),) = violations({"wait": "-" + "1" * digits + ".5s"})
    assert text == f"not a duration: {too_long}"
    ((_, text),) = violations({"at": "1972-01-01T00:00:00+" + "1" * digits + ":00"})
    assert text == f"not an RFC 3339 timestamp: {too_long}"


def test_a_long_value_is_quoted_short() -> None:
    long = "B" * 1000
    assert violations({"shade": long}) == [
        ("shade", f"'{'B' * 64}'... (1000 characters) is not a value of t.Shade")
    ]
    assert violations({"flt": long}) == [
        ("flt", f"not a number: '{'B' * 64}'... (1000 characters)")
    ]
    offset = "+" + "1" * 1000
    assert violations({"at": "1972-01-01T00:00:00" + offset}) == [
        (
            "at",
            "not an RFC 3339 timestamp: time zone offset"
            f" '+{'1' * 63}'... (1001 characters)",
        )
    ]


def test_messages_lists_and_paths() -> None:
    assert paths({"leaf": {"name": "n", "child": {"name": 5}}}) == ["leaf.child.name"]
    assert paths({"leaves": [{"name": "a"}, {"name": "b", "child": []}]}) == [
        "leaves[1].child"
    ]
    assert paths({"leaf": {"name": "n", "child": {}}}) == ["leaf.child.name"]
    for not_an_object in ("", [], "abc", ["x"], 5, True):
        assert violations({"leaf": not_an_object}) == [
            ("leaf", f"expected an object, got {_json(not_an_object)}")
        ]
    assert violations("x") == [("", "expected an object, got a string")]
    assert violations(None) == [("", "expected an object, got null")]

    class Number(int):
        pass

    assert valid({"i32": Number(3), "i64": Number(4)}) == {"i32": 3, "i64": "4"}
    assert violations({"texts": "abc"}) == [
        ("texts", "expected an array, got a string")
    ]
    assert violations({"texts": ["a", None, 5]}) == [
        ("texts[1]", "null is not a value of a repeated field"),
        ("texts[2]", "expected a string, got a number"),
    ]
    assert paths({"leaves": [None]}) == ["leaves[0]"]
    assert valid({"values": [None, 1, "x", [None], {"a": None}]})["values"] == [
        None,
        1,
        "x",
        [None],
        {"a": None},
    ]
    assert paths({"nothings": [None, "NULL_VALUE"]}) == ["nothings[0]"]
    assert valid({"nothings": [0, "NULL_VALUE"]}) == {
        "nothings": ["NULL_VALUE", "NULL_VALUE"]
    }
    assert valid({"texts": ("a",)}) == {"texts": ["a"]}  # a tuple is a list too


def _json(value: object) -> str:
    return {str: "a string", list: "an array", int: "a number", bool: "a boolean"}[
        type(value)
    ]


def test_every_problem_is_reported() -> None:
    found = violations({"i32": "x", "leaf": {"name": 1, "count": "y"}, "texts": [1]})
    assert [path for path, _ in found] == ["i32", "leaf.name", "leaf.count", "texts[0]"]
    error = pytest.raises(ValidationError, SCHEMA.validate, "t.All", {"i32": "x"}).value
    assert (
        error.message
        == str(error)
        == "t.All: invalid: i32: not an integer in -2147483648..2147483647 (int32): x"
    )
    assert error.to_bad_request() == {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [
            {
                "field": "i32",
                "description": "not an integer in -2147483648..2147483647 (int32): x",
            }
        ],
    }
    top = pytest.raises(ValidationError, SCHEMA.validate, "t.All", []).value
    assert (
        top.message == "t.All: invalid: (the request): expected an object, got an array"
    )


def test_struct_value_and_list_value() -> None:
    deep: Any = {"a": {"b": [1, 2.5, "x", None, True, {"c": []}]}}
    assert valid({"extra": deep, "value": deep, "list": [deep]}) == {
        "extra": deep,
        "value": deep,
        "list": [deep],
    }
    assert valid({"value": "x", "extra": {}, "list": ()}) == {
        "value": "x",
        "extra": {},
        "list": (),
    }
    assert valid({"value": [10**300, 2**64 + 1]})  # a double holds them
    assert violations({"extra": [], "list": {}, "value": object()}) == [
        ("extra", "expected an object, got an array"),
        ("list", "expected an array, got an object"),
        ("value", "expected a JSON value, got object"),
    ]
    assert violations({"extra": {"a": {"b": ["\ud800"]}, "\udc00": 1}}) == [
        ("extra[a][b][0]", "not valid Unicode: a lone surrogate"),
        ("extra[\udc00]", "the key is not valid Unicode text"),
    ]
    assert violations({"value": [10**400]}) == [
        ("value[0]", "out of range for a 64-bit float")
    ]


def objects(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def lists(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def test_nesting_is_limited_as_protobuf_limits_it() -> None:
    """Level 1 is the request; every message is one more, a Struct, a ListValue and
    each Value in them too: 100 levels at most."""
    assert valid({"value": objects(49)})  # the innermost Value: level 100
    ((path, text),) = violations({"value": objects(50)})
    assert text == "nested more than 100 messages deep"
    assert path == "value" + "[a]" * 49
    assert valid({"list": lists(49)})
    assert paths({"list": lists(50)}) == ["list" + "[0]" * 50]  # the innermost 1
    assert valid({"extra": {"k": objects(48)}})
    assert paths({"extra": {"k": objects(49)}}) == ["extra[k]" + "[a]" * 49]
    inner_list: Any = [1]
    for _ in range(49):
        inner_list = {"a": inner_list}
    assert paths({"value": inner_list}) == [
        "value" + "[a]" * 49
    ]  # its ListValue: level 101
    wkt = "type.googleapis.com/google.protobuf.Any"
    anys: Any = {}
    for _ in range(98):  # the Any field is level 2, each Any in an Any one more
        anys = {"@type": wkt, "value": anys}
    assert valid({"any": anys})
    assert paths({"any": {"@type": wkt, "value": anys}}) == ["any" + ".value" * 99]
    leaf: Any = {"name": "n"}
    for _ in range(98):
        leaf = {"name": "n", "child": leaf}
    assert valid({"leaf": leaf})  # 99 leaves under the request: the last at level 100
    assert paths({"leaf": {"name": "n", "child": leaf}}) == ["leaf" + ".child" * 99]


def test_a_text_value_costs_a_level_too() -> None:
    schema = Schema(
        {
            "t.Deep": (
                R("child", "message", "t.Deep"),
                R("at", "timestamp"),
                R("n", "int32"),
            )
        },
        {},
    )
    value: Any = {"at": "1970-01-01T00:00:00Z", "n": 1}
    for _ in range(98):
        value = {"child": value}
    assert schema.validate(
        "t.Deep", value
    )  # the innermost Deep is level 99, its Timestamp 100
    value = {"child": value}
    with pytest.raises(ValidationError) as caught:
        schema.validate("t.Deep", value)
    assert caught.value.violations == (
        ("child" * 1 + ".child" * 98 + ".at", "nested more than 100 messages deep"),
    )


def test_duplicate_keys_are_refused_wherever_they_are() -> None:
    message = decode(
        b'{"text": "a", "text": "b", "page_size": 1, "page_size": 2}',
        mark_duplicates=True,
    )
    assert violations(message) == [
        ("text", "given twice in one object"),
        ("pageSize", "given twice in one object"),
    ]
    nested = decode(
        b'{"leaf": {"name": "a", "name": "b"}, "extra": {"x": {"y": 1, "y": 2}}}',
        mark_duplicates=True,
    )
    assert violations(nested) == [
        ("leaf.name", "given twice in one object"),
        ("extra[x][y]", "given twice in one object"),
    ]
    maps = decode(b'{"byText": {"a": 1, "a": 2}}', mark_duplicates=True)
    assert violations(maps, "t.Maps") == [("byText[a]", "given twice in one object")]
    unknown = decode(b'{"nope": [{"a": 1, "a": 2}]}', mark_duplicates=True)
    assert violations(unknown) == [("nope[0].a", "given twice in one object")]
    assert violations(unknown, unknown_fields="reject") == [
        ("nope", "unknown field"),
        ("nope[0].a", "given twice in one object"),
    ]
    # both names of one field are one key given twice
    assert violations({"pageSize": 1, "page_size": 2}) == [
        ("pageSize", "given twice, as 'pageSize' and 'page_size'")
    ]
    assert violations({"page_size": None, "pageSize": 1}) == [
        ("pageSize", "given twice, as 'pageSize' and 'page_size'")
    ]
    marked = DuplicateKeys({"name": "b"})
    marked.duplicates = ("name",)
    assert violations({"leaves": [marked]}) == [
        ("leaves[0].name", "given twice in one object")
    ]
    proto_named = DuplicateKeys({"page_size": 2})
    proto_named.duplicates = ("page_size",)
    assert violations(proto_named) == [
        ("pageSize", "given twice in one object")
    ]  # by json name


def test_oneofs() -> None:
    assert violations({"part": [{"text": "a", "file_name": "b"}]}, "t.Wrapper") == [
        ("part[0]", "oneof content: 'text' and 'fileName' are both set")
    ]
    assert violations({"text": "a", "fileName": "b", "data": 1}, "t.Part") == [
        ("", "oneof content: 'text' and 'fileName' are both set"),
        ("", "oneof content: 'text' and 'data' are both set"),
    ]
    assert valid({"text": None, "fileName": "b"}, "t.Part") == {
        "fileName": "b"
    }  # null: not set
    assert valid({"text": "a", "mediaType": "m"}, "t.Part") == {
        "text": "a",
        "mediaType": "m",
    }
    # A Value's null and a NullValue are set, though not counted: the member set last stays.
    assert valid({"text": "a", "data": None}, "t.Part") == {"data": None}
    assert valid({"data": None, "text": "a"}, "t.Part") == {"text": "a"}
    assert valid({"data": None, "nothing": None}, "t.Part") == {"nothing": "NULL_VALUE"}
    assert valid({"nothing": None, "data": 5}, "t.Part") == {"data": 5}
    assert paths({"data": None, "text": "a", "fileName": "b"}, "t.Part") == [""]


def test_required_fields() -> None:
    complete = {
        "id": "x",
        "tags": ["t"],
        "leaf": {"name": "n"},
        "count": 0,
        "text": "a",
    }
    assert valid(complete, "t.Must") == complete
    assert violations({}, "t.Must") == [
        ("id", "a REQUIRED field is missing"),
        ("tags", "a REQUIRED field is missing"),
        ("leaf", "a REQUIRED field is missing"),
        ("count", "a REQUIRED field is missing"),
        ("text", "one of text, data, nothing is REQUIRED (oneof content)"),
    ]
    empty = {**complete, "id": "", "tags": [], "leaf": {}, "count": None}
    assert violations(empty, "t.Must") == [
        ("leaf.name", "a REQUIRED field is missing"),
        ("id", "a REQUIRED field is missing"),
        ("tags", "a REQUIRED field is missing"),
        ("count", "a REQUIRED field is missing"),
    ]
    # a field that is wrong is not missing as well
    assert violations({**complete, "id": 5, "text": 5}, "t.Must") == [
        ("id", "expected a string, got a number"),
        ("text", "expected a string, got a number"),
    ]
    assert paths({**complete, "text": None, "data": None}, "t.Must") == [
        "text"
    ]  # a null Value: nothing
    assert (
        valid({**complete, "text": None, "nothing": None}, "t.Must")["nothing"]
        == "NULL_VALUE"
    )
    nested = {"leaves": [{"name": "a"}, {}], "leaf": {"child": {}}}
    assert SCHEMA.missing_fields("t.All", nested) == [
        ("leaf.child.name", "a REQUIRED field is missing"),
        ("leaf.name", "a REQUIRED field is missing"),
        ("leaves[1].name", "a REQUIRED field is missing"),
    ]
    assert (
        SCHEMA.missing_fields(
            "t.Must",
            {"id": 5, "data": 1, "tags": ["t"], "leaf": {"name": "n"}, "count": 1},
        )
        == []
    )
    assert SCHEMA.missing_fields(
        "t.Must", {"tags": ["t"], "leaf": {"name": "n"}, "count": 1}
    ) == [
        ("id", "a REQUIRED field is missing"),
        ("text", "one of text, data, nothing is REQUIRED (oneof content)"),
    ]


def test_unknown_fields() -> None:
    sent = {"nope": 1, "leaf": {"name": "n", "x": {"deep": True}}, "@type": "t.All"}
    assert valid(sent) == {"leaf": {"name": "n"}}
    assert violations(sent, unknown_fields="reject") == [
        ("nope", "unknown field"),
        ("leaf.x", "unknown field"),
        ("@type", "unknown field"),
    ]
    # Extension syntax, and keys protobuf cannot look up, are refused either way.
    for key in ("[ext.x]", "[ext.x]\n", "[]"):
        assert violations({key: 1}) == [(key, "extensions are not supported")]
    assert valid({"[not-ext]": 1, "Text": 1}) == {}
    assert violations({"\ud800": 1}) == [
        ("\ud800", "the key is not valid Unicode text")
    ]
    assert violations({5: 1}) == [("5", "the key is not valid Unicode text")]
    assert valid({"page_size": 3, "TEXT": 1}) == {"pageSize": 3}
    with pytest.raises(
        ValueError, match="unknown_fields must be 'drop' or 'reject', not 'keep'"
    ):
        SCHEMA.validate("t.All", {}, unknown_fields="keep")  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match="'t.Nope' is not a message type of this schema"
    ):
        SCHEMA.validate("t.Nope", {})
    assert "t.All" in SCHEMA and "t.Nope" not in SCHEMA


def test_unknown_keys_are_named_beside_a_missing_required_field() -> None:
    """An object lacking a REQUIRED field names the unknown keys it holds (a
    misspelling is the likely cause), with the closest field not given; elsewhere
    unknown keys are dropped unseen, as ParseDict(ignore_unknown_fields=True) does."""
    complete = {"id": "x", "tags": ["t"], "leaf": {"name": "n"}, "count": 0}
    misspelled = {**complete, "text": "a", "leaf": {"nmae": "n", "cuont": 1, "zz": 1}}
    assert violations(misspelled, "t.Must") == [
        ("leaf.name", "a REQUIRED field is missing"),
        ("leaf.nmae", "unknown field (did you mean 'name'?)"),
        ("leaf.cuont", "unknown field (did you mean 'count'?)"),
        ("leaf.zz", "unknown field"),
    ]
    # The field suggested is one not given; a REQUIRED oneof counts as missing too.
    assert violations({**complete, "txet": "a", "idd": "y"}, "t.Must") == [
        ("text", "one of text, data, nothing is REQUIRED (oneof content)"),
        ("txet", "unknown field (did you mean 'text'?)"),
        ("idd", "unknown field"),
    ]
    # Nothing missing at that object: its unknown keys are dropped, even where
    # another object lacks a field.
    elsewhere = {**complete, "text": "a", "idd": "y", "leaf": {}}
    assert violations(elsewhere, "t.Must") == [
        ("leaf.name", "a REQUIRED field is missing")
    ]
    assert valid({**complete, "text": "a", "nmae": 1}, "t.Must") == {
        **complete,
        "text": "a",
    }
    # Refused as unknown already (unknown_fields="reject"): named once, as before.
    assert violations({"leaf": {"nmae": "n"}}, "t.All", unknown_fields="reject") == [
        ("leaf.nmae", "unknown field"),
        ("leaf.name", "a REQUIRED field is missing"),
    ]
    # Many unknown keys: each named, as many as a refusal shows (it counts the
    # rest); the first few only are matched against the fields.
    many = {"leaf": {f"k{n}": n for n in range(5000)}}
    found = violations(many, "t.All")
    assert found[:2] == [
        ("leaf.name", "a REQUIRED field is missing"),
        ("leaf.k0", "unknown field"),
    ]
    assert len(found) == 20  # REPORTED_VIOLATIONS; the message counts the rest
    with pytest.raises(ValidationError, match="; and 4981 more$"):
        SCHEMA.validate("t.All", many)
    long_key = "name" + "e" * 200
    assert violations({"leaf": {long_key: 1}})[1] == (
        f"leaf.{long_key}",
        "unknown field",
    )


def test_maps_with_each_key_kind() -> None:
    sent = {
        "byText": {"": 1, " x ": "2", "é": 3},
        "byBool": {"true": "a", "false": "b"},
        "byI32": {
            "1": "a",
            "-1": "b",
            "\t1": "c",
            "1.0": "d",
            "1e2": "e",
            "+1": "f",
            "01": "g",
            "1_0": "h",
        },
        "byU32": {"4294967295": "a", "-0": "b"},
        "byI64": {"-9223372036854775808": {"name": "n", "count": 1}},
        "byU64": {"18446744073709551615": 1, "0": "SHADE_NOIR"},
        "values": {"a": None, "b": [1]},
        "nulls": {"a": "NULL_VALUE", "b": 0},
        "times": {"a": "1970-01-01T00:00:00Z"},
    }
    canonical = valid(sent, "t.Maps")
    assert canonical == {  # keys as sent; values canonical
        **sent,
        "byText": {"": 1, " x ": 2, "é": 3},
        "byI64": {"-9223372036854775808": {"name": "n", "count": "1"}},
        "byU64": {"18446744073709551615": "SHADE_DARK", "0": "SHADE_NOIR"},
        "nulls": {"a": "NULL_VALUE", "b": "NULL_VALUE"},
    }
    bad = {
        "byText": {"\ud800": 1},
        "byBool": {"True": "a", "1": "b"},
        "byI32": {" 1": "a", "x": "b", "2147483648": "c", "1.5": "d"},
        "byU32": {"-1": "a"},
        "byI64": {"9223372036854775808": {"name": "n"}},
        "byU64": {"18446744073709551616": 1},
    }
    assert violations(bad, "t.Maps") == [
        ("byText[\ud800]", "the key is not valid Unicode text"),
        ("byBool[True]", "the key is not true or false"),
        ("byBool[1]", "the key is not true or false"),
        ("byI32[ 1]", "the key is not an integer in range (int32)"),
        ("byI32[x]", "the key is not an integer in range (int32)"),
        ("byI32[2147483648]", "the key is not an integer in range (int32)"),
        ("byI32[1.5]", "the key is not an integer in range (int32)"),
        ("byU32[-1]", "the key is not an integer in range (uint32)"),
        ("byI64[9223372036854775808]", "the key is not an integer in range (int64)"),
        ("byU64[18446744073709551616]", "the key is not an integer in range (uint64)"),
    ]
    assert violations(
        {"byText": {"a": None, "b": "x"}, "nulls": {"a": None}, "byI64": []}, "t.Maps"
    ) == [
        ("byText[a]", "null is not a value of a map"),
        ("byText[b]", "not an integer in -2147483648..2147483647 (int32): x"),
        ("nulls[a]", "null is not a value of a map"),
        ("byI64", "expected an object, got an array"),
    ]
    assert paths({"byI64": {"1": {"count": 1}}, "times": {"a": "x"}}, "t.Maps") == [
        "byI64[1].name",
        "times[a]",
    ]
    assert valid({"byText": None, "values": None}, "t.Maps") == {}  # a null map: absent


def test_any() -> None:
    leaf = {"@type": "type.googleapis.com/t.Leaf", "name": "n", "count": 1, "x": 1}
    assert valid({"any": leaf}) == {
        "any": {"@type": "type.googleapis.com/t.Leaf", "name": "n", "count": "1"}
    }
    assert valid({"any": {"@type": "t.Leaf", "name": "n"}}) == {
        "any": {"@type": "t.Leaf", "name": "n"}
    }  # no prefix
    assert paths({"any": {**leaf, "name": 5}}) == ["any.name"]
    assert violations({"any": {**leaf, "x": 1}}, unknown_fields="reject") == [
        ("any.x", "unknown field")
    ]
    assert paths({"any": {"@type": "a/t.Leaf"}}) == [
        "any.name"
    ]  # its REQUIRED fields too
    assert valid({"any": {}}) == {"any": {}}  # the empty Any
    assert valid({"any": {"@type": "x/google.protobuf.Empty"}}) == {
        "any": {"@type": "x/google.protobuf.Empty"}
    }
    assert paths(
        {"any": {"@type": "x/google.protobuf.Empty", "value": {}}},
        unknown_fields="reject",
    ) == ["any.value"]
    # a type this package does not know is left as sent
    other = {"@type": "type.googleapis.com/other.Thing", "whatever": [1, {"x": None}]}
    assert valid({"any": other}) == {"any": other}
    twice = decode(
        b'{"@type": "x/other.Thing", "a": {"b": 1, "b": 2}}', mark_duplicates=True
    )
    assert violations({"any": twice}) == [("any.a.b", "given twice in one object")]
    # well-known types carry their JSON form in "value"; the rest is ignored
    wkt = "type.googleapis.com/google.protobuf."
    assert valid(
        {"any": {"@type": wkt + "Int64Value", "value": 5, "extra": 1}},
        unknown_fields="reject",
    ) == {"any": {"@type": wkt + "Int64Value", "value": "5"}}
    assert valid({"any": {"@type": wkt + "Value", "value": None}}) == {
        "any": {"@type": wkt + "Value", "value": None}
    }
    assert valid({"any": {"@type": wkt + "Duration", "value": "1.5s"}})
    assert valid(
        {
            "any": {
                "@type": wkt + "Any",
                "value": {"@type": wkt + "Struct", "value": {"a": 1}},
            }
        }
    )
    assert violations({"any": {"@type": wkt + "Duration"}}) == [
        ("any.value", "an Any of google.protobuf.Duration has it in 'value'")
    ]
    assert violations({"any": {"@type": wkt + "Duration", "value": None}}) == [
        ("any.value", "expected google.protobuf.Duration, got null")
    ]
    assert (
        violations({"any": {"@type": wkt + "Timestamp", "value": "x"}})[0][0]
        == "any.value"
    )
    assert violations({"any": {"@type": wkt + "BoolValue", "value": 1}}) == [
        ("any.value", "expected true or false, got a number")
    ]
    # what is no Any
    assert violations({"any": "x"}) == [("any", "expected an object, got a string")]
    assert violations({"any": {"value": 1}}) == [
        ("any.@type", "an Any needs its type URL in '@type'")
    ]
    for url in (5, None, "\ud800/t.Leaf"):
        assert paths({"any": {"@type": url}}) == ["any.@type"]
    assert violations({"any": {"@type": "t.Leaf/"}}) == [
        ("any.@type", "expected a type URL")
    ]
    assert violations({"any": {"@type": 5}}) == [
        ("any.@type", "expected a string, got a number")
    ]
    marked = DuplicateKeys({"@type": wkt + "Int64Value", "value": "5"})
    marked.duplicates = ("value",)
    assert violations({"any": marked}) == [("any.value", "given twice in one object")]
    named = DuplicateKeys({"@type": "t.Leaf", "name": "n"})
    named.duplicates = ("name",)
    assert violations({"any": named}) == [("any.name", "given twice in one object")]


def test_empty_and_nulls() -> None:
    assert valid({"empty": {}}) == {"empty": {}}
    assert violations({"empty": {"x": 1}}, unknown_fields="reject") == [
        ("empty.x", "unknown field")
    ]
    schema = Schema(
        {"t.E": (R("e", "message", "google.protobuf.Empty"),)}, {}
    )  # Empty not in the tables
    assert schema.validate("t.E", {"e": {"x": 1}}) == {"e": {}}
    every_null = {
        name: None
        for name in (
            "text",
            "blob",
            "i64",
            "shade",
            "at",
            "extra",
            "list",
            "any",
            "leaf",
            "texts",
        )
    }
    assert valid(every_null) == {}
    assert valid({"value": None, "nothing": None}) == {
        "value": None,
        "nothing": "NULL_VALUE",
    }
    # protobuf sets a null Value or NullValue field, and fails on a repeated one
    assert violations({"values": None, "nothings": None}) == [
        ("values", "expected an array, got null"),
        ("nothings", "expected an array, got null"),
    ]


def test_schema_errors_and_first_use() -> None:
    broken = Schema({"t.B": (R("x", "complex"),)}, {})
    with pytest.raises(ValueError, match="x: unknown field kind 'complex'"):
        broken.validate("t.B", {})
    schema = Schema(
        {"t.A": (R("a", "enum", "t.E"),), "t.B": (R("b", "enum", "t.E"),)},
        {"t.E": (("E_ZERO", 0),)},
    )
    assert schema.validate("t.A", {"a": 0}) == {"a": "E_ZERO"}
    assert schema.validate("t.B", {"b": "E_ZERO"}) == {
        "b": "E_ZERO"
    }  # the enum's check, compiled once
    assert schema.missing_fields("t.A", {}) == []


def test_type_names_within_the_package_and_derived_json_names() -> None:
    # As messages.py prints SCHEMA: the proto name and, where it is protoc's default,
    # no json name; types of the package named within it, others by full name.
    schema = Schema(
        {
            "a.b.Outer": (
                R("inner_item", "message", "Inner", repeated=True),
                R("shade", "enum", "Outer.Shade"),
                R("done", "message", "google.protobuf.Empty"),
                R("odd_name", "string", json_name="custom"),
            ),
            "a.b.Inner": (R("page_size", "int32"),),
            "google.protobuf.Empty": (),
        },
        {"a.b.Outer.Shade": (("SHADE_UNSPECIFIED", 0), ("SHADE_DARK", 1))},
        package="a.b",
    )
    rules = schema.fields("a.b.Outer")
    assert [rule.type_name for rule in rules] == [
        "a.b.Inner",
        "a.b.Outer.Shade",
        "google.protobuf.Empty",
        "",
    ]
    assert [rule.json_name for rule in rules] == [
        "innerItem",
        "shade",
        "done",
        "custom",
    ]
    sent = {"inner_item": [{"pageSize": "7"}], "shade": 1, "done": {}, "custom": "x"}
    assert schema.validate("a.b.Outer", sent) == {
        "innerItem": [{"pageSize": 7}],
        "shade": "SHADE_DARK",
        "done": {},
        "custom": "x",
    }

"""The query-codec runtime (``codegen/runtime/tables/_query.py``), imported directly.

Every codec's edges (ranges, leading zeros, float32 overflow, NaN/Infinity, url-safe
base64, timestamps with offsets and bounds, durations, field masks), repeated fields in
both forms, dotted names spelled with any mix of json and proto names, oneofs,
``unknown="reject"`` with service parameters, ``max_pairs``, and ``encode``'s refusal of
unknown keys and its json-over-proto preference; plus round-trip properties.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.runtime import _query
from codegen.runtime._query import Param, QueryCodecs, QueryError

STATE = "test.State"
STATES = {
    "STATE_UNSPECIFIED": "STATE_UNSPECIFIED",
    "STATE_WORKING": "STATE_WORKING",
    "0": "STATE_UNSPECIFIED",
    "2": "STATE_WORKING",
}

PARAMS = (
    Param(("pageSize",), ("page_size",), "int32"),
    Param(("count",), ("count",), "uint32"),
    Param(("big",), ("big",), "int64"),
    Param(("ubig",), ("ubig",), "uint64"),
    Param(("ratio",), ("ratio",), "double"),
    Param(("small",), ("small",), "float"),
    Param(("flag",), ("flag",), "bool"),
    Param(("name",), ("name",), "string"),
    Param(("blob",), ("blob",), "bytes"),
    Param(("status",), ("status",), "enum", enum=STATE),
    Param(("after",), ("after",), "timestamp"),
    Param(("timeout",), ("timeout",), "duration"),
    Param(("updateMask",), ("update_mask",), "field_mask"),
    Param(("tags",), ("tags",), "string", repeated=True),
    Param(("states",), ("states",), "enum", repeated=True, enum=STATE),
    Param(("ids",), ("ids",), "int64", repeated=True),
    Param(("pageConfig", "maxItems"), ("page_config", "max_items"), "int32"),
    Param(
        ("pageConfig", "innerConfig", "deepValue"),
        ("page_config", "inner_config", "deep_value"),
        "string",
    ),
    Param(("byName",), ("by_name",), "string", oneof="Request:selector"),
    Param(("byId",), ("by_id",), "int32", oneof="Request:selector"),
)

CODECS = QueryCodecs(
    {"List": PARAMS, "Empty": ()},
    {STATE: STATES},
    {"Send": frozenset({"message", "tenant"})},
    service_params=frozenset({"a2a-version"}),
    max_pairs=50,
)


def decode(query: Any, **options: Any) -> dict[str, Any]:
    return CODECS.decode("List", query, **options)


def error_of(query: Any, **options: Any) -> QueryError:
    with pytest.raises(QueryError) as caught:
        decode(query, **options)
    return caught.value


# ------------------------------------------------------------------ integers


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("pageSize=2147483647", {"pageSize": 2147483647}),
        ("pageSize=-2147483648", {"pageSize": -2147483648}),
        ("pageSize=-0", {"pageSize": 0}),
        ("pageSize=" + "0" * 5000 + "7", {"pageSize": 7}),
        ("count=4294967295", {"count": 4294967295}),
        ("big=-9223372036854775808", {"big": "-9223372036854775808"}),
        ("big=00012", {"big": "12"}),
        ("ubig=18446744073709551615", {"ubig": "18446744073709551615"}),
    ],
)
def test_integers(query: str, expected: dict[str, Any]) -> None:
    assert decode(query) == expected


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("pageSize=2147483648", "out of range"),
        ("pageSize=-2147483649", "out of range"),
        ("count=-1", "out of range"),
        ("count=4294967296", "out of range"),
        ("big=9223372036854775808", "out of range"),
        ("ubig=18446744073709551616", "out of range"),
        ("ubig=" + "9" * 5000, "out of range"),
        ("big=-" + "1" * 5000, "out of range"),
        ("pageSize=1e2", "not a decimal integer"),
        ("pageSize=10.0", "not a decimal integer"),
        ("pageSize=+1", "not a decimal integer"),
        ("pageSize=-", "not a decimal integer"),
        ("pageSize=%D9%A3", "not a decimal integer"),  # an Arabic-Indic digit
        ("pageSize=", "empty value"),
    ],
)
def test_integer_errors(query: str, reason: str) -> None:
    error = error_of(query)
    assert reason in error.reason
    assert error.field == query.partition("=")[0]
    assert type(error) is QueryError


# ------------------------------------------------------------------ floats


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ratio=1.5", 1.5),
        ("ratio=-.5e-3", -0.0005),
        ("ratio=5.", 5.0),
        ("ratio=1E2", 100.0),
        ("ratio=1e-400", 0.0),
        ("ratio=NaN", "NaN"),
        ("ratio=Infinity", "Infinity"),
        ("ratio=-Infinity", "-Infinity"),
        ("small=0.1", 0.10000000149011612),
        ("small=3.4028234e38", 3.4028234663852886e38),
        ("small=-Infinity", "-Infinity"),
        ("ratio=" + "0" * 3000 + "1.5", 1.5),
        ("ratio=0." + "0" * 3000 + "1", 0.0),
    ],
)
def test_floats(query: str, expected: object) -> None:
    name = query.partition("=")[0]
    assert decode(query) == {name: expected}


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("ratio=1e400", "out of range"),
        ("ratio=-" + "9" * 400, "out of range"),
        ("small=3.5e38", "32-bit float"),
        ("small=-1e39", "32-bit float"),
        ("ratio=nan", "not a number"),
        ("ratio=inf", "not a number"),
        ("ratio=0x10", "not a number"),
        ("ratio=1_000", "not a number"),
        ("ratio=.", "not a number"),
        ("ratio=", "empty value"),
    ],
)
def test_float_errors(query: str, reason: str) -> None:
    assert reason in error_of(query).reason


# ------------------------------------------------------------------ bool, string, bytes


def test_bools_and_strings() -> None:
    for text, value in [("true", True), ("TRUE", True), ("1", True), ("False", False)]:
        assert decode(f"flag={text}") == {"flag": value}
    assert "not a boolean" in error_of("flag=yes").reason
    assert "not a boolean" in error_of("flag=").reason
    assert decode("name=") == {"name": ""}
    assert decode("name=a+b%20c%2B%26") == {"name": "a b c+&"}


def test_bytes() -> None:
    assert decode("blob=") == {"blob": ""}
    assert decode("blob=-_8") == {"blob": "+/8="}  # url-safe, unpadded
    assert decode("blob=%2B%2F8%3D") == {"blob": "+/8="}
    assert decode("blob=+/8=") == {"blob": "+/8="}  # an unescaped + arrived as a space
    assert decode([("blob", "aGk")]) == {"blob": "aGk="}
    for bad in ("a", "a===", "a$b", "ab=c", "abcde"):
        assert error_of([("blob", bad)]).reason == "not base64", bad


# ------------------------------------------------------------------ enums


def test_enums() -> None:
    assert decode("status=STATE_WORKING") == {"status": "STATE_WORKING"}
    assert decode("status=2") == {"status": "STATE_WORKING"}
    assert decode("status=-0") == {"status": "STATE_UNSPECIFIED"}
    assert decode("status=002") == {"status": "STATE_WORKING"}
    for bad in ("3", "state_working", "", "0" * 3000 + "2", "1e0", "-"):
        assert error_of([("status", bad)]).reason == f"not a value of {STATE}", bad


# ------------------------------------------------------------------ timestamps


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-11-09T10:30:00Z", "2025-11-09T10:30:00Z"),
        ("2025-11-09t10:30:00z", "2025-11-09T10:30:00Z"),
        ("2025-11-09T10:30:00.5Z", "2025-11-09T10:30:00.500Z"),
        ("2025-11-09T10:30:00.000001Z", "2025-11-09T10:30:00.000001Z"),
        ("2025-11-09T10:30:00.123456789Z", "2025-11-09T10:30:00.123456789Z"),
        ("2025-11-09T10:30:00.000000000Z", "2025-11-09T10:30:00Z"),
        ("2025-11-09T10:30:00+02:00", "2025-11-09T08:30:00Z"),
        ("2025-11-09T10:30:00 02:00", "2025-11-09T08:30:00Z"),  # "+" unescaped
        ("2025-11-09T23:30:00-01:30", "2025-11-10T01:00:00Z"),
        ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
        ("9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"),
        ("0001-01-01T01:00:00+01:00", "0001-01-01T00:00:00Z"),
    ],
)
def test_timestamps(text: str, expected: str) -> None:
    assert decode([("after", text)]) == {"after": expected}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("2025-11-09T10:30:00", "not an RFC 3339 timestamp"),
        ("2025-11-09 10:30:00Z", "not an RFC 3339 timestamp"),
        ("2025-11-09T10:30:00.1234567890Z", "not an RFC 3339 timestamp"),
        ("25-11-09T10:30:00Z", "not an RFC 3339 timestamp"),
        ("", "not an RFC 3339 timestamp"),
        ("2023-02-29T00:00:00Z", "not a valid date and time"),
        ("2025-13-01T00:00:00Z", "not a valid date and time"),
        ("2025-01-01T24:00:00Z", "not a valid date and time"),
        ("2025-01-01T23:59:60Z", "not a valid date and time"),
        ("0000-01-01T00:00:00Z", "not a valid date and time"),
        ("0001-01-01T00:00:00+00:01", "not a valid date and time"),
        ("9999-12-31T23:59:59-00:01", "not a valid date and time"),
        ("2025-01-01T00:00:00+24:00", "not a valid date and time"),
        ("2025-01-01T00:00:00+01:60", "not a valid date and time"),
    ],
)
def test_timestamp_errors(text: str, reason: str) -> None:
    assert error_of([("after", text)]).reason == reason


# ------------------------------------------------------------------ durations, masks


def test_durations() -> None:
    for text, expected in [
        ("1.5s", "1.500s"),
        ("0s", "0s"),
        ("-0s", "0s"),
        ("-0.5s", "-0.500s"),
        ("3s", "3s"),
        ("1.000000001s", "1.000000001s"),
        ("315576000000s", "315576000000s"),
    ]:
        assert decode([("timeout", text)]) == {"timeout": expected}, text
    for bad in ("1", "1.5", "s", "+1s", "1.1234567891s", "1e3s", "1.5S", ""):
        assert "not a duration" in error_of([("timeout", bad)]).reason, bad
    assert "out of range" in error_of([("timeout", "315576000001s")]).reason


def test_field_masks() -> None:
    assert decode("updateMask=a_b.c_d,e") == {"updateMask": "aB.cD,e"}
    assert decode("update_mask=fooBar") == {"updateMask": "fooBar"}
    for bad in ("", "a,,b", "1a", "a.", "a-b"):
        assert "not a field mask" in error_of([("updateMask", bad)]).reason, bad


# ------------------------------------------------------------------ repeated fields


def test_repeated_both_forms() -> None:
    assert decode("tags=a&tags=b,c") == {"tags": ["a", "b", "c"]}
    # In a raw query string an escaped comma does not separate.
    assert decode("tags=a%2Cb&tags=c") == {"tags": ["a,b", "c"]}
    # Decoded pairs: every comma separates.
    assert decode([("tags", "a,b")]) == {"tags": ["a", "b"]}
    assert decode("states=2,STATE_UNSPECIFIED") == {
        "states": ["STATE_WORKING", "STATE_UNSPECIFIED"]
    }
    assert decode("ids=1,02&ids=-3") == {"ids": ["1", "2", "-3"]}
    assert decode("tags=") == {"tags": [""]}
    error = error_of("ids=1,x")
    assert (error.field, error.value) == ("ids", "x")


def test_singular_duplicates_judged_after_decoding() -> None:
    assert decode("status=2&status=STATE_WORKING") == {"status": "STATE_WORKING"}
    assert decode("pageSize=5&page_size=005") == {"pageSize": 5}
    error = error_of("pageSize=5&page_size=6")
    assert error.field == "pageSize" and "given twice" in error.reason


# ------------------------------------------------------------------ names


@pytest.mark.parametrize(
    "name",
    [
        "pageConfig.innerConfig.deepValue",
        "page_config.inner_config.deep_value",
        "pageConfig.inner_config.deepValue",
        "page_config.innerConfig.deep_value",
        "page%5Fconfig.innerConfig%2EdeepValue",
    ],
)
def test_nested_names_in_any_spelling(name: str) -> None:
    assert decode(f"{name}=v&pageConfig.max_items=3") == {
        "pageConfig": {"innerConfig": {"deepValue": "v"}, "maxItems": 3}
    }


@pytest.mark.parametrize(
    "name",
    [
        "pageConfig",
        "pageConfig.",
        "pageConfig.innerConfig",
        "pageConfig.nope",
        ".pageSize",
        "pageSize.x",
        "page_size.x",
        "pageConfig.maxItems.x",
        "pageConfig.innerConfig.deepValue.x",
        "PAGESIZE",
        "nope",
    ],
)
def test_names_that_are_no_parameter(name: str) -> None:
    assert decode([(name, "1")]) == {}
    error = error_of([(name, "1")], unknown="reject")
    assert (error.field, error.reason) == (name, "unknown query parameter")


def test_unknown_values_must_still_be_well_formed() -> None:
    assert "malformed percent escape" in error_of("other=%zz").reason
    assert "not valid UTF-8" in error_of("other=%FF").reason


def test_service_params_are_skipped_even_with_reject() -> None:
    for name in ("a2a-version", "A2A-Version", "A2A-VERSION"):
        assert decode(f"{name}=1.0&pageSize=1", unknown="reject") == {"pageSize": 1}
    with pytest.raises(QueryError, match="unknown query parameter"):
        CODECS.reject_fields("Send", "other=1", unknown="reject")
    CODECS.reject_fields("Send", "A2A-Version=1.0&other=1")
    CODECS.reject_fields("Send", [("a2a-version", "1")], unknown="reject")


def test_reject_fields() -> None:
    for query in ("message=x", "message.parts=1", "tenant=", [("message", "x")]):
        with pytest.raises(QueryError, match="whole request as its body"):
            CODECS.reject_fields("Send", query)
    error = pytest.raises(QueryError, CODECS.reject_fields, "Send", "message=a%20b")
    assert error.value.value == "a b"
    CODECS.reject_fields("NoBodyFields", "x=1")


def test_oneofs() -> None:
    assert decode("byName=a") == {"byName": "a"}
    error = error_of("by_name=a&byId=1")
    assert error.field == "byId"
    assert error.reason == "oneof selector already set by byName"


# ------------------------------------------------------------------ the form encoding


def test_form_encoding() -> None:
    assert decode("name") == {"name": ""}
    assert decode("&&name=x&") == {"name": "x"}
    assert decode("name=a=b") == {"name": "a=b"}
    assert decode(b"name=%C3%A9+x") == {"name": "é x"}
    assert decode("na%6De=x") == {"name": "x"}
    assert decode([("name", "a+b%20")]) == {"name": "a+b%20"}  # pairs are decoded text
    assert "malformed percent escape" in error_of("name=%").reason
    assert "malformed percent escape" in error_of("name=%4g").reason
    assert "not valid UTF-8" in error_of("name=%C3").reason
    assert "malformed percent escape" in error_of("na%me=x").reason
    assert error_of(b"name=\xff").reason == "query string is not valid UTF-8"


def test_pairs_must_be_string_tuples() -> None:
    for bad in ([["name", "x"]], [("name",)], [("name", 1)], [(1, "x")]):
        assert "must be (str, str) tuples" in error_of(bad).reason


def test_max_pairs_for_strings_and_iterables() -> None:
    assert decode("&".join(["name=x"] * 50)) == {"name": "x"}
    assert "more than 50" in error_of("&".join(["name=x"] * 51)).reason
    assert "more than 3" in error_of("a=1&b=2&c=3&d=4", max_pairs=3).reason
    assert decode([("name", "x")] * 50) == {"name": "x"}
    assert "more than 50" in error_of([("name", "x")] * 51).reason

    def endless() -> Any:
        while True:
            yield ("name", "x")

    assert "more than 7" in error_of(endless(), max_pairs=7).reason


def test_unknown_rpc_and_bad_request_detail() -> None:
    with pytest.raises(ValueError, match="no route that carries a query"):
        CODECS.decode("Nope", "")
    assert CODECS.decode("Empty", "a=1") == {}
    error = error_of("pageSize=x")
    assert str(error) == "pageSize: not a decimal integer (got 'x')"
    assert error.to_bad_request() == {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [
            {"field": "pageSize", "description": "not a decimal integer (got 'x')"}
        ],
    }


# ------------------------------------------------------------------ encode


def test_encode_values() -> None:
    request = {
        "pageSize": 5,
        "big": 12,
        "ratio": float("nan"),
        "small": float("-inf"),
        "flag": True,
        "name": "a b",
        "blob": "-_8",
        "status": 2,
        "after": "2025-11-09T10:30:00+02:00",
        "tags": ["a", "b,c"],
        "ids": ("1", 2),
        "pageConfig": {"maxItems": 3, "inner_config": {"deepValue": "d"}},
        "byName": None,
    }
    assert CODECS.encode("List", request) == [
        ("pageSize", "5"),
        ("big", "12"),
        ("ratio", "NaN"),
        ("small", "-Infinity"),
        ("flag", "true"),
        ("name", "a b"),
        ("blob", "+/8="),
        ("status", "STATE_WORKING"),
        ("after", "2025-11-09T08:30:00Z"),
        ("tags", "a"),
        ("tags", "b,c"),
        ("ids", "1"),
        ("ids", "2"),
        ("pageConfig.maxItems", "3"),
        ("pageConfig.innerConfig.deepValue", "d"),
    ]
    assert CODECS.encode("List", {"ratio": 1.5, "flag": False}) == [
        ("ratio", "1.5"),
        ("flag", "false"),
    ]
    assert CODECS.encode("List", {"ratio": float("inf")}) == [("ratio", "Infinity")]


def test_encode_prefers_json_names() -> None:
    for request in (
        {"page_size": 1, "pageSize": 2},
        {"pageSize": 2, "page_size": 1},
    ):
        assert CODECS.encode("List", request) == [("pageSize", "2")]
    nested = {
        "page_config": {"max_items": 1},
        "pageConfig": {"maxItems": 2},
    }
    assert CODECS.encode("List", nested) == [("pageConfig.maxItems", "2")]
    assert CODECS.encode("List", {"page_config": {"max_items": 1}}) == [
        ("pageConfig.maxItems", "1")
    ]


@pytest.mark.parametrize(
    ("request_dict", "field"),
    [
        ({"nope": 1}, "nope"),
        ({"pageConfig": {"nope": 1}}, "pageConfig.nope"),
        ({"pageConfig": {"innerConfig": {"nope": 1}}}, "pageConfig.innerConfig.nope"),
        ({"pageConfig": 5}, "pageConfig"),
        ({"pageSize": {"x": 1}}, "pageSize"),
        ({1: "x"}, "1"),
    ],
)
def test_encode_refuses_unknown_keys(request_dict: Any, field: str) -> None:
    with pytest.raises(QueryError) as error:
        CODECS.encode("List", request_dict)
    assert error.value.field == field


def test_encode_refuses_bad_values() -> None:
    for request in (
        {"pageSize": "x"},
        {"pageSize": 2**31},
        {"status": "NOPE"},
        {"name": [1]},
        {"name": {"a": 1}} | {},
        {"tags": [object()]},
        {"after": "yesterday"},
    ):
        with pytest.raises(QueryError):
            CODECS.encode("List", request)


# ------------------------------------------------------------------ properties

INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)


@settings(max_examples=200, deadline=None)
@given(
    page_size=INT32,
    big=INT64,
    ratio=st.floats(allow_nan=False),
    name=st.text(),
    tags=st.lists(st.text().filter(lambda t: "," not in t), min_size=1, max_size=3),
    blob=st.binary(max_size=12),
    flag=st.booleans(),
)
def test_encode_then_decode(
    page_size: int,
    big: int,
    ratio: float,
    name: str,
    tags: list[str],
    blob: bytes,
    flag: bool,
) -> None:
    request = {
        "pageSize": page_size,
        "big": str(big),
        "ratio": ratio,
        "name": name,
        "tags": tags,
        "blob": base64.b64encode(blob).decode(),
        "flag": flag,
    }
    decoded = CODECS.decode("List", CODECS.encode("List", request))
    expected: dict[str, Any] = dict(request)
    if math.isinf(ratio):
        expected["ratio"] = "Infinity" if ratio > 0 else "-Infinity"
    assert decoded == expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([p.json_path[-1] for p in PARAMS] + ["page_size", "x"]),
            st.text(max_size=12),
        ),
        max_size=6,
    ),
    st.sampled_from(["ignore", "reject"]),
)
def test_decode_raises_only_query_errors(
    pairs: list[tuple[str, str]], unknown: _query.Unknown
) -> None:
    raw = "&".join(f"{name}={value}" for name, value in pairs)
    for query in (pairs, raw, raw.encode()):
        try:
            CODECS.decode("List", query, unknown=unknown)
        except QueryError:
            pass


def test_parse_value_directly() -> None:
    assert CODECS.parse_value("string", "f", "a b") == "a b"
    assert CODECS.parse_value("enum", "s", "2", STATE) == "STATE_WORKING"
    assert CODECS.parse_value("int64", "n", "-0") == "0"

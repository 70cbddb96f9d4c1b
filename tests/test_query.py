"""Generated query codecs and transcode: ProtoJSON rules, errors, agreement with protobuf."""

from __future__ import annotations

import importlib
import math
import subprocess
import sys
from types import ModuleType
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.inputs import include_paths

from .conftest import PROTO, run_plugin

SCALARS = PROTO / "features" / "scalars.proto"


@pytest.fixture(scope="module")
def scalars(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, ModuleType]:
    """The generated binding for scalars.proto and protobuf's own classes for it."""
    out = tmp_path_factory.mktemp("scalars")
    response, _ = run_plugin(SCALARS, "module=scalars_query_test")
    assert not response.error, response.error
    for file in response.file:
        (out / file.name).parent.mkdir(parents=True, exist_ok=True)
        (out / file.name).write_text(file.content)
    compiled = subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{SCALARS.parent}",
            *[f"-I{p}" for p in include_paths()],
            f"--python_out={out}",
            SCALARS.name,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert compiled.returncode == 0, compiled.stderr
    sys.path.insert(0, str(out))
    try:
        binding = importlib.import_module("scalars_query_test")
        importlib.import_module("scalars_query_test.routes")
        pb2 = importlib.import_module("scalars_pb2")
    finally:
        sys.path.remove(str(out))
    return binding, pb2


# --- A2A (issue checks) ---------------------------------------------------------------


def test_a2a_list_tasks_query(a2a: ModuleType) -> None:
    route, request = a2a.routes.transcode(
        "GET",
        "/t1/tasks",
        "contextId=c1&status=TASK_STATE_WORKING&pageSize=50&historyLength=3"
        "&includeArtifacts=true&statusTimestampAfter=2025-11-09T10:30:00%2B01:00",
    )
    assert route.rpc == "ListTasks" and route.tenant
    assert request == {
        "tenant": "t1",
        "contextId": "c1",
        "status": "TASK_STATE_WORKING",
        "pageSize": 50,
        "historyLength": 3,
        "includeArtifacts": True,
        "statusTimestampAfter": "2025-11-09T09:30:00Z",
    }


@pytest.mark.parametrize(
    ("query", "field", "reason"),
    [
        ("status=TASK_STATE_BOGUS", "status", "not a value of lf.a2a.v1.TaskState"),
        ("pageSize=1.5", "pageSize", "not a decimal integer"),
        ("pageSize=99999999999", "pageSize", "out of range"),
        ("pageSize=", "pageSize", "empty value"),
        ("pageSize=1e2", "pageSize", "not a decimal integer"),
        (
            "pageSize=%EF%BC%91",
            "pageSize",
            "not a decimal integer",
        ),  # fullwidth digit one
        ("includeArtifacts=yes", "includeArtifacts", "not a boolean"),
        (
            "statusTimestampAfter=2025-13-01T00:00:00Z",
            "statusTimestampAfter",
            "not a valid date",
        ),
        (
            "statusTimestampAfter=2025-11-09",
            "statusTimestampAfter",
            "not an RFC 3339 timestamp",
        ),
        ("status=1&status=2", "status", "given twice with different values"),
        ("pageSize=1&page_size=2", "pageSize", "given twice with different values"),
        ("contextId=%zz", "contextId", "malformed percent escape"),
        ("contextId=%C3%28", "contextId", "not valid UTF-8"),
        ("nope=%zz", "nope", "malformed percent escape"),
    ],
)
def test_a2a_bad_query_values(
    a2a: ModuleType, query: str, field: str, reason: str
) -> None:
    with pytest.raises(a2a.query.QueryError) as info:
        a2a.routes.transcode("GET", "/tasks", query)
    assert info.value.field == field
    assert reason in info.value.reason
    violation = info.value.to_bad_request()
    assert violation["@type"] == "type.googleapis.com/google.rpc.BadRequest"
    assert violation["fieldViolations"][0]["field"] == field


def test_a2a_unbound_fields_come_from_the_query(a2a: ModuleType) -> None:
    route, request = a2a.routes.transcode("GET", "/tasks/abc", "tenant=t2")
    assert (route.rpc, request) == ("GetTask", {"tenant": "t2", "id": "abc"})


def test_a2a_forms_that_sdks_get_wrong(a2a: ModuleType) -> None:
    decode = a2a.query.decode
    assert decode("ListTasks", "includeArtifacts=1") == {"includeArtifacts": True}
    assert decode("ListTasks", "includeArtifacts=TRUE") == {"includeArtifacts": True}
    assert decode("ListTasks", "context_id=c&history_length=0") == {
        "contextId": "c",
        "historyLength": 0,
    }
    assert decode("ListTasks", "status=3") == {"status": "TASK_STATE_COMPLETED"}
    # An unescaped "+" in an offset arrives as a space: read it as the "+" it was.
    assert decode("ListTasks", "statusTimestampAfter=2025-11-09T10:30:00+01:00") == {
        "statusTimestampAfter": "2025-11-09T09:30:00Z"
    }
    assert decode("ListTasks", "status=2&status=TASK_STATE_WORKING") == {
        "status": "TASK_STATE_WORKING"
    }
    assert decode("ListTasks", "contextId=a+b%2Bc") == {"contextId": "a b+c"}
    assert decode("ListTasks", [("contextId", "a+b")]) == {
        "contextId": "a+b"
    }  # pairs are decoded
    assert decode("ListTasks", b"pageSize=7") == {"pageSize": 7}
    assert decode("GetTask", "historyLength=0") == {"historyLength": 0}  # presence kept
    assert decode("GetTask", "") == {}
    assert decode("GetTask", "&&historyLength=2&") == {"historyLength": 2}


def test_unknown_parameters(a2a: ModuleType) -> None:
    assert a2a.query.decode("ListTasks", "x=1&pageSize=2") == {"pageSize": 2}
    with pytest.raises(a2a.query.QueryError, match="unknown query parameter"):
        a2a.query.decode("ListTasks", "x=1", unknown="reject")
    with pytest.raises(a2a.query.QueryError, match="unknown query parameter"):
        a2a.routes.transcode("GET", "/tasks", "x=1", unknown="reject")


def test_query_pair_limit(a2a: ModuleType) -> None:
    a2a.query.decode("ListTasks", "&".join(["x=1"] * 1000))
    with pytest.raises(a2a.query.QueryError, match="more than 1000 query parameters"):
        a2a.query.decode("ListTasks", "&".join(["x=1"] * 1001))
    with pytest.raises(a2a.query.QueryError, match="more than 3 query parameters"):
        a2a.query.decode("ListTasks", [("x", "1")] * 4, max_pairs=3)


def test_encode_writes_json_names_in_field_order(a2a: ModuleType) -> None:
    encoded = a2a.query.encode(
        "ListTasks",
        {
            "includeArtifacts": True,
            "status": "TASK_STATE_WORKING",
            "page_size": 5,
            "statusTimestampAfter": "2025-11-09T10:30:00+01:00",
        },
    )
    assert encoded == [
        ("status", "TASK_STATE_WORKING"),
        ("pageSize", "5"),
        ("statusTimestampAfter", "2025-11-09T09:30:00Z"),
        ("includeArtifacts", "true"),
    ]
    with pytest.raises(
        a2a.query.QueryError, match="ListTasks has no query parameter of this name"
    ):
        a2a.query.encode("ListTasks", {"pageSise": 5})
    with pytest.raises(a2a.query.QueryError, match="not a value of"):
        a2a.query.encode("ListTasks", {"status": "WORKING"})
    with pytest.raises(ValueError, match="has no route that carries a query"):
        a2a.query.encode("SendMessage", {})


# --- transcode ------------------------------------------------------------------------


def test_transcode_body_star(a2a: ModuleType) -> None:
    body = {"message": {"messageId": "m"}, "tenant": ""}
    route, request = a2a.routes.transcode("POST", "/t1/message:send", "", body)
    assert route.rpc == "SendMessage"
    assert request == {"message": {"messageId": "m"}, "tenant": "t1"}
    assert body == {
        "message": {"messageId": "m"},
        "tenant": "",
    }  # the caller's body is untouched
    with pytest.raises(
        a2a.query.QueryError, match="takes the whole request as its body"
    ):
        a2a.routes.transcode("POST", "/message:send", "message=x", {})
    with pytest.raises(
        ValueError, match="the path gives 't1' but the request gives 't2'"
    ):
        a2a.routes.transcode("POST", "/t1/message:send", "", {"tenant": "t2"})
    with pytest.raises(ValueError, match="must be a JSON object"):
        a2a.routes.transcode("POST", "/message:send", "", ["x"])
    route, request = a2a.routes.transcode(
        "POST", "/tasks/t%2F1:cancel", "ignored=1", None
    )
    assert request == {"id": "t/1"}


def test_transcode_conflicts_between_path_and_query(a2a: ModuleType) -> None:
    with pytest.raises(a2a.query.QueryError) as info:
        a2a.routes.transcode("GET", "/t1/tasks/abc", "tenant=t2")
    assert info.value.field == "tenant"
    with pytest.raises(a2a.query.QueryError):
        a2a.routes.transcode("GET", "/tasks/abc", "id=other")
    assert a2a.routes.transcode("GET", "/tasks/abc", "id=abc")[1] == {"id": "abc"}


def test_transcode_404_and_405(a2a: ModuleType) -> None:
    with pytest.raises(a2a.routes.RouteNotFound) as info:
        a2a.routes.transcode("GET", "/nope")
    assert info.value.status == 404 and info.value.allowed_verbs == frozenset()
    assert isinstance(info.value, LookupError)
    with pytest.raises(a2a.routes.RouteNotFound) as info:
        a2a.routes.transcode("DELETE", "/t1/tasks")
    assert info.value.status == 405 and info.value.allowed_verbs == {"GET"}


def test_transcode_without_body_refuses_one(a2a: ModuleType) -> None:
    assert a2a.routes.transcode("POST", "/tasks/x:subscribe", "", {})[1] == {"id": "x"}
    with pytest.raises(ValueError, match="takes no body"):
        a2a.routes.transcode("GET", "/tasks/x", "", {"historyLength": 1})


def test_transcode_field_body_and_typed_path_values(
    scalars: tuple[ModuleType, ModuleType],
) -> None:
    binding, _ = scalars
    route, request = binding.routes.transcode(
        "GET", "/numbers/-42/COLOUR_RED/1", "text=t"
    )
    assert request == {"i64": "-42", "colour": "COLOUR_RED", "flag": True, "text": "t"}
    with pytest.raises(binding.query.QueryError) as info:
        binding.routes.transcode("GET", "/numbers/x/COLOUR_RED/true")
    assert info.value.field == "i64"
    with pytest.raises(binding.query.QueryError):
        binding.routes.transcode("GET", "/numbers/1/COLOUR_PINK/true")


def test_library_field_body(load_package) -> None:  # type: ignore[no-untyped-def]
    library = load_package(PROTO / "features" / "library.proto")
    route, request = library.routes.transcode(
        "POST", "/v1/shelves/s1/books", "requestId=r&parent=shelves/s1", {"title": "T"}
    )
    assert route.rpc == "CreateBook"
    assert request == {"requestId": "r", "parent": "shelves/s1", "book": {"title": "T"}}
    route, request = library.routes.transcode(
        "PATCH", "/v1/shelves/s/books/b", "updateMask=title,page_count", {"title": "T"}
    )
    assert request == {
        "updateMask": "title,pageCount",
        "book": {"title": "T", "name": "shelves/s/books/b"},
    }
    with pytest.raises(ValueError, match="the path gives"):
        library.routes.transcode(
            "PATCH", "/v1/shelves/s/books/b", "", {"name": "shelves/s/books/other"}
        )
    built = library.routes.build("UpdateBook", request)
    assert built.path == "/v1/shelves/s/books/b" and built.body == {"title": "T"}
    assert built.query == [("updateMask", "title,pageCount")]
    assert (
        library.routes.transcode(built.verb, built.path, built.query, built.body)[1]
        == request
    )


# --- every scalar type -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("i32=-2147483648&u32=4294967295", {"i32": -(2**31), "u32": 2**32 - 1}),
        (
            "i64=-9223372036854775808&u64=18446744073709551615",
            {"i64": str(-(2**63)), "u64": str(2**64 - 1)},
        ),
        ("i64=007&s64=-0", {"i64": "7", "s64": "0"}),
        (
            "s32=-5&f32=5&sf32=-5&f64=5&sf64=-5",
            {"s32": -5, "f32": 5, "sf32": -5, "f64": "5", "sf64": "-5"},
        ),
        ("flt=1.5&dbl=-2.5e-3", {"flt": 1.5, "dbl": -0.0025}),
        ("dbl=NaN&flt=-Infinity", {"dbl": "NaN", "flt": "-Infinity"}),
        ("dbl=Infinity", {"dbl": "Infinity"}),
        ("flag=False", {"flag": False}),
        ("flag=0", {"flag": False}),
        ("text=&blob=", {"text": "", "blob": ""}),
        ("blob=aGk", {"blob": "aGk="}),
        ("blob=-_8%3D", {"blob": "+/8="}),
        ("blob=+/8=", {"blob": "+/8="}),  # unescaped + arrives as space: read back as +
        ("colour=COLOUR_BLUE", {"colour": "COLOUR_BLUE"}),
        ("colour=-3", {"colour": "COLOUR_BLUE"}),
        ("at=2025-01-02T03:04:05.5Z", {"at": "2025-01-02T03:04:05.500Z"}),
        ("at=2025-01-02t03:04:05.123456789z", {"at": "2025-01-02T03:04:05.123456789Z"}),
        ("at=2025-01-02T03:04:05.1234Z", {"at": "2025-01-02T03:04:05.123400Z"}),
        ("at=2025-01-01T00:30:00%2B01:00", {"at": "2024-12-31T23:30:00Z"}),
        ("at=0001-01-01T00:00:00Z", {"at": "0001-01-01T00:00:00Z"}),
        ("at=9999-12-31T23:59:59.999999999Z", {"at": "9999-12-31T23:59:59.999999999Z"}),
        ("wait=1.5s", {"wait": "1.500s"}),
        ("wait=-0.000000001s", {"wait": "-0.000000001s"}),
        ("wait=3s", {"wait": "3s"}),
        ("mask=a.b_c,dE", {"mask": "a.bC,dE"}),
        (
            "boxedI64=5&boxedFlag=true&boxedText=&boxedDbl=1",
            {"boxedI64": "5", "boxedFlag": True, "boxedText": "", "boxedDbl": 1.0},
        ),
        (
            "boxed_u32=7&boxedBlob=AA&boxedFlt=0.5",
            {"boxedU32": 7, "boxedBlob": "AA==", "boxedFlt": 0.5},
        ),
        ("maybe=0", {"maybe": 0}),
        ("manyI64=1&manyI64=2,3", {"manyI64": ["1", "2", "3"]}),
        (
            "colours=COLOUR_RED,2&colours=-3",
            {"colours": ["COLOUR_RED", "COLOUR_GREEN", "COLOUR_BLUE"]},
        ),
        (
            "texts=a%2Cb,c",
            {"texts": ["a,b", "c"]},
        ),  # an escaped comma does not separate
        (
            "times=2025-01-01T00:00:00Z,2025-01-02T00:00:00Z",
            {"times": ["2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z"]},
        ),
        (
            "window.pageSize=5&window.page_token=t",
            {"window": {"pageSize": 5, "pageToken": "t"}},
        ),
        ("window.inner.pageSize=5", {}),  # a recursive type is not followed: unknown
        ("choiceText=x", {"choiceText": "x"}),
        ("id=a&i32=1&i32=1", {"id": "a", "i32": 1}),
        ("extra=1&labels=2", {}),  # no query form: unknown
    ],
)
def test_scalar_decoding(
    scalars: tuple[ModuleType, ModuleType], query: str, expected: dict[str, Any]
) -> None:
    binding, _ = scalars
    assert binding.query.decode("Get", query) == expected


@pytest.mark.parametrize(
    ("query", "field", "reason"),
    [
        ("i32=2147483648", "i32", "out of range"),
        ("u32=-1", "u32", "out of range"),
        ("u64=18446744073709551616", "u64", "out of range"),
        ("i64=" + "9" * 5000, "i64", "out of range"),
        ("i32=+1", "i32", "not a decimal integer"),
        ("i32=%201", "i32", "not a decimal integer"),
        ("flt=1e39", "flt", "out of range"),
        ("dbl=1e400", "dbl", "out of range"),
        ("dbl=nan", "dbl", "not a number"),
        ("dbl=0x10", "dbl", "not a number"),
        ("dbl=", "dbl", "empty value"),
        ("flag=", "flag", "not a boolean"),
        ("blob=a", "blob", "not base64"),
        ("blob=a*b", "blob", "not base64"),
        ("colour=red", "colour", "not a value of example.scalars.v1.Colour"),
        ("colour=7", "colour", "not a value of"),
        ("colour=", "colour", "not a value of"),
        ("at=2025-01-01T00:00:00", "at", "not an RFC 3339 timestamp"),
        ("at=2025-01-01T00:00:00.1234567890Z", "at", "not an RFC 3339 timestamp"),
        ("at=2025-02-30T00:00:00Z", "at", "not a valid date"),
        ("at=2025-01-01T24:00:00Z", "at", "not a valid date"),
        ("at=2025-01-01T00:00:60Z", "at", "not a valid date"),
        ("at=0001-01-01T00:00:00%2B01:00", "at", "not a valid date"),
        ("at=2025-01-01T00:00:00%2B24:00", "at", "not a valid date"),
        ("wait=1.5", "wait", "not a duration"),
        ("wait=315576000001s", "wait", "out of range"),
        ("mask=a..b", "mask", "not a field mask"),
        ("mask=", "mask", "not a field mask"),
        ("manyI64=1,,2", "manyI64", "empty value"),
        ("window.pageSize=x", "window.pageSize", "not a decimal integer"),
        (
            "choiceText=x&choiceNumber=1",
            "choiceNumber",
            "oneof choice already set by choiceText",
        ),
        ("text=a&text=b", "text", "given twice"),
        ("at=2025-01-01T01:00:00%2B01:00&at=2025-01-01T00:00:01Z", "at", "given twice"),
    ],
)
def test_scalar_errors(
    scalars: tuple[ModuleType, ModuleType], query: str, field: str, reason: str
) -> None:
    binding, _ = scalars
    with pytest.raises(binding.query.QueryError) as info:
        binding.query.decode("Get", query)
    assert (info.value.field, reason in info.value.reason) == (field, True), info.value


def test_same_instant_twice_is_one_value(
    scalars: tuple[ModuleType, ModuleType],
) -> None:
    binding, _ = scalars
    assert binding.query.decode(
        "Get", "at=2025-01-01T01:00:00%2B01:00&at=2025-01-01T00:00:00Z"
    ) == {"at": "2025-01-01T00:00:00Z"}


# --- agreement with protobuf's json_format ------------------------------------------------

_int32 = st.integers(-(2**31), 2**31 - 1)
_uint32 = st.integers(0, 2**32 - 1)
_int64 = st.integers(-(2**63), 2**63 - 1)
_uint64 = st.integers(0, 2**64 - 1)
_text = st.text(max_size=12)


@st.composite
def _scalars_message(draw: st.DrawFn, pb2: ModuleType) -> Any:
    """A random Scalars message with only the fields a query can carry."""
    msg = pb2.Scalars()
    msg.id = draw(_text)
    msg.i32, msg.s32, msg.sf32 = draw(_int32), draw(_int32), draw(_int32)
    msg.u32, msg.f32 = draw(_uint32), draw(_uint32)
    msg.i64, msg.s64, msg.sf64 = draw(_int64), draw(_int64), draw(_int64)
    msg.u64, msg.f64 = draw(_uint64), draw(_uint64)
    msg.flt = draw(st.floats(width=32, allow_nan=False))
    msg.dbl = draw(st.floats(allow_nan=draw(st.booleans())))
    msg.flag = draw(st.booleans())
    msg.text = draw(_text)
    msg.blob = draw(st.binary(max_size=12))
    msg.colour = draw(st.sampled_from([0, 1, 2, -3]))
    if draw(st.booleans()):
        msg.at.seconds = draw(st.integers(-62135596800, 253402300799))
        msg.at.nanos = draw(st.integers(0, 999_999_999))
    if draw(st.booleans()):
        seconds = draw(st.integers(-315576000000, 315576000000))
        msg.wait.seconds = seconds
        msg.wait.nanos = draw(st.integers(0, 999_999_999)) * (-1 if seconds < 0 else 1)
    if draw(st.booleans()):
        msg.mask.paths.extend(
            draw(
                st.lists(st.sampled_from(["a", "b_c", "d.e_f"]), min_size=1, max_size=3)
            )
        )
    if draw(st.booleans()):
        msg.boxed_i64.value = draw(_int64)
    if draw(st.booleans()):
        msg.boxed_text.value = draw(_text)
    if draw(st.booleans()):
        msg.maybe = draw(_int32)
    msg.many_i64.extend(draw(st.lists(_int64, max_size=3)))
    msg.colours.extend(draw(st.lists(st.sampled_from([0, 1, 2, -3]), max_size=3)))
    msg.texts.extend(draw(st.lists(_text, max_size=3)))
    if draw(st.booleans()):
        # A set but empty message has no query form, so keep one field non-default.
        msg.window.page_size = draw(_int32.filter(bool))
        msg.window.page_token = draw(_text)
    if draw(st.booleans()):
        msg.choice_text = draw(_text)
    elif draw(st.booleans()):
        msg.choice_number = draw(_int32)
    return msg


def _same(parsed: Any, expected: Any) -> bool:
    """Message equality with NaN equal to NaN (the codec keeps NaN, not its payload bits)."""
    left, right = type(expected)(), type(expected)()
    left.CopyFrom(parsed)
    right.CopyFrom(expected)
    if math.isnan(left.dbl) and math.isnan(right.dbl):
        left.dbl = right.dbl = 0
    return bool(left == right)


def _urlencode(pairs: list[tuple[str, str]]) -> str:
    from urllib.parse import urlencode

    return urlencode(pairs)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_decode_encode_agree_with_json_format(
    scalars: tuple[ModuleType, ModuleType], data: st.DataObject
) -> None:
    binding, pb2 = scalars
    msg = data.draw(_scalars_message(pb2))
    as_dict = json_format.MessageToDict(msg)
    pairs = binding.query.encode("Get", as_dict)
    # Through a real query string, as an HTTP library sends it, and as decoded pairs.
    for query in (_urlencode(pairs), [(n, v) for n, v in pairs]):
        if not isinstance(query, str) and any(
            "," in v for n, v in pairs if n == "texts"
        ):
            continue  # decoded pairs cannot tell a comma in a value from a separator
        decoded = binding.query.decode("Get", query)
        assert _same(json_format.ParseDict(decoded, pb2.Scalars()), msg)
        assert (
            binding.query.decode(
                "Get", _urlencode(binding.query.encode("Get", decoded))
            )
            == decoded
        )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_decode_accepts_what_message_to_dict_emits(
    scalars: tuple[ModuleType, ModuleType], data: st.DataObject
) -> None:
    binding, pb2 = scalars
    msg = data.draw(_scalars_message(pb2))
    as_dict = json_format.MessageToDict(msg)
    pairs: list[tuple[str, str]] = []

    def flatten(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                flatten(f"{prefix}{key}.", inner)
        elif isinstance(value, list):
            pairs.extend(
                (prefix[:-1], item if isinstance(item, str) else json_text(item))
                for item in value
            )
        else:
            pairs.append(
                (prefix[:-1], value if isinstance(value, str) else json_text(value))
            )

    def json_text(value: Any) -> str:
        return (
            ("true" if value else "false") if isinstance(value, bool) else repr(value)
        )

    flatten("", as_dict)
    decoded = binding.query.decode("Get", _urlencode(pairs), unknown="reject")
    assert _same(json_format.ParseDict(decoded, pb2.Scalars()), msg)


def test_a2a_agrees_with_the_sdk_message_classes(a2a: ModuleType) -> None:
    from a2a.types import a2a_pb2

    request = a2a_pb2.ListTasksRequest(
        tenant="t",
        context_id="c",
        status=a2a_pb2.TASK_STATE_WORKING,
        page_size=5,
        page_token="p",
        history_length=0,
        include_artifacts=True,
    )
    request.status_timestamp_after.FromJsonString("2025-11-09T10:30:00.250+01:00")
    as_dict = json_format.MessageToDict(request)
    decoded = a2a.query.decode(
        "ListTasks", _urlencode(a2a.query.encode("ListTasks", as_dict))
    )
    assert json_format.ParseDict(decoded, a2a_pb2.ListTasksRequest()) == request
    get = a2a_pb2.GetTaskRequest(id="x", history_length=0)
    built = a2a.routes.build("GetTask", json_format.MessageToDict(get))
    route, back = a2a.routes.transcode(
        built.verb, built.path, _urlencode(built.query), built.body
    )
    assert json_format.ParseDict(back, a2a_pb2.GetTaskRequest()) == get
    assert back["historyLength"] == 0


@settings(max_examples=500, deadline=None)
@given(
    query=st.one_of(
        st.text(max_size=80),
        st.lists(
            st.tuples(
                st.sampled_from(
                    [
                        "i32",
                        "at",
                        "colours",
                        "window.inner.pageSize",
                        "blob",
                        "x",
                        "%",
                        "dbl",
                    ]
                ),
                st.text(alphabet="0123456789-+.,%eEaZT:zAF", max_size=12),
            ),
            max_size=6,
        ).map(lambda pairs: "&".join(f"{n}={v}" for n, v in pairs)),
        st.binary(max_size=40),
    )
)
def test_arbitrary_queries_give_a_dict_or_query_error(
    scalars: tuple[ModuleType, ModuleType], query: Any
) -> None:
    binding, _ = scalars
    try:
        result = binding.query.decode("Get", query, unknown="reject")
    except binding.query.QueryError as exc:
        assert isinstance(exc.field, str) and isinstance(exc.reason, str)
    else:
        assert isinstance(result, dict)

"""The compiled check of the plain case (``codegen/runtime/tables/_validate_fast.py``): it
gives what the general walk gives or leaves the value to it, and names from a proto
are data to it, never source. (``tests/test_validation_oracle.py`` compares the two on
every case it makes.)"""

from __future__ import annotations

import contextlib
import copy
import gc
import weakref
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.runtime._json import decode
from codegen.runtime._validate import FieldRule, Schema, ValidationError
from codegen.runtime import _validate_fast as _fast
from codegen.runtime._validate_fast import Fallback, json_value, target, validator

R = FieldRule
SCHEMA = Schema(
    {
        "t.Send": (
            R("message", "message", "t.Message", required=True),
            R("config", "message", "t.Config"),
            R("metadata", "struct"),
        ),
        "t.Message": (
            R("message_id", "string", required=True),
            R("role", "enum", "t.Role", required=True),
            R("parts", "message", "t.Part", repeated=True, required=True),
            R("tags", "string", repeated=True),
            R("counts", "int64", repeated=True),
            R("labels", "string", map_key="string"),
        ),
        "t.Part": (
            R("text", "string", oneof="content"),
            R("raw", "bytes", oneof="content"),
            R("data", "value", oneof="content"),
            R("at", "timestamp"),
            R("extra", "any"),
        ),
        "t.Config": (
            R("history_length", "int32"),
            R("blocking", "bool"),
            R("size", "int64"),
            R("ratio", "double"),
        ),
        "t.Tree": (
            R("name", "string"),
            R("children", "message", "t.Tree", repeated=True),
            R("only", "message", "t.Tree"),
        ),
        "t.Pick": (
            R("a", "string", required=True, oneof="choice"),
            R("b", "int32", required=True, oneof="choice"),
        ),
    },
    {"t.Role": (("ROLE_UNSPECIFIED", 0), ("ROLE_USER", 1), ("ROLE_AGENT", 2))},
)
PLAIN = {
    "message": {
        "messageId": "m1",
        "role": "ROLE_USER",
        "parts": [{"text": "hi"}, {"data": {"a": [1, 2.5, None, True]}}],
        "tags": ["x"],
        "counts": [1, "2"],
    },
    "config": {"historyLength": 5, "blocking": False, "size": 7, "ratio": 0.5},
    "metadata": {"k": {"deep": ["v"]}},
}


def compiled(type_name: str, value: object) -> Any:
    return target(SCHEMA, type_name).check(value, 1)


def test_a_plain_request_is_checked_by_the_compiled_check_as_the_walk_checks_it() -> (
    None
):
    expected = SCHEMA._walked("t.Send", PLAIN, False, False)
    assert compiled("t.Send", PLAIN) == expected
    assert expected["message"]["counts"] == ["1", "2"]  # int64 as strings
    assert expected["config"]["size"] == "7"
    assert SCHEMA.validate("t.Send", PLAIN) == expected


def _edit(path: tuple[Any, ...], value: object) -> dict[str, Any]:
    sent: dict[str, Any] = copy.deepcopy(PLAIN)
    holder: Any = sent
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return sent


@pytest.mark.parametrize(
    ("path", "value", "plain"),
    [
        (("message", "messageId"), "caf\u00e9", True),  # through the field's check
        (("message", "role"), 1, True),  # an enum by number: renamed
        (("message", "parts", 0, "at"), "2025-01-01T00:00:00Z", True),
        (("config", "historyLength"), "5", True),  # a number as a string
        (("message", "messageId"), None, False),  # null: absent
        (("message", "message_id"), "m2", False),  # a proto name
        (("message", "unknown"), 1, False),  # an unknown field
        (("message", "messageId"), "\ud800", False),  # a lone surrogate: refused
        (("message", "messageId"), 5, False),  # the wrong type: refused
        (("message", "messageId"), "", False),  # REQUIRED and empty: refused
        (("message", "role"), "ROLE_BOSS", False),  # no such value: refused
        (("message", "parts", 0, "raw"), "aGk=", False),  # a second oneof member
        (("message", "parts", 0, "at"), "yesterday", False),  # refused
        (("message", "parts", 0, "extra"), {}, False),  # an Any: the walk's
        (("message", "labels"), {"a": "b"}, False),  # a map: the walk's
        (("message", "counts"), [1, "x"], False),  # refused
        (("message", "tags"), "x", False),  # not a list: refused
        (("config", "blocking"), 1, False),  # refused
        (("config", "historyLength"), 2**31, False),  # out of range: refused
        (("metadata",), {"k": "\ud800"}, False),  # refused
        (("metadata",), [1], False),  # refused
        (("message", "parts"), [None], False),  # refused
    ],
)
def test_the_compiled_check_gives_the_walk_s_answer_or_leaves_it_to_the_walk(
    path: tuple[Any, ...], value: object, plain: bool
) -> None:
    sent = _edit(path, value)
    try:
        expected: Any = SCHEMA._walked("t.Send", sent, False, False)
    except ValidationError as exc:
        expected = exc.violations
    if plain:
        assert compiled("t.Send", sent) == expected
    else:
        with pytest.raises(Fallback):
            compiled("t.Send", sent)
    try:
        got: Any = SCHEMA.validate("t.Send", sent)
    except ValidationError as exc:
        got = exc.violations
    assert got == expected


def test_duplicate_keys_and_missing_fields_are_left_to_the_walk() -> None:
    text = '{"message": {"messageId": "a", "messageId": "b", "role": 1, "parts": []}}'
    with pytest.raises(Fallback):
        compiled("t.Send", decode(text, mark_duplicates=True))
    with pytest.raises(ValidationError) as caught:
        SCHEMA.validate("t.Send", decode(text, mark_duplicates=True))
    assert ("message.messageId", "given twice in one object") in caught.value.violations
    with pytest.raises(Fallback):
        compiled("t.Send", {})  # "message" is REQUIRED
    with pytest.raises(Fallback):
        compiled("t.Pick", {})  # one of the oneof is REQUIRED
    assert compiled("t.Pick", {"b": 3}) == {"b": 3}
    with pytest.raises(Fallback):
        compiled("t.Pick", {"a": ""})  # held, but at its default
    with pytest.raises(ValidationError, match="is REQUIRED"):
        SCHEMA.validate("t.Pick", {"a": ""})
    always = Schema({"t.A": (R("any", "any", required=True),)}, {})
    with pytest.raises(Fallback):  # a REQUIRED field the check never takes
        target(always, "t.A").check({"any": {}}, 1)
    assert always.validate("t.A", {"any": {}}) == {"any": {}}
    with pytest.raises(Fallback):
        compiled("t.Pick", {"a": "x", "b": 3})


@pytest.mark.parametrize("in_place", [False, True])
def test_a_misspelled_field_is_named_as_the_walk_names_it(in_place: bool) -> None:
    """A REQUIRED field missing beside an unknown key: the compiled validator leaves
    the case to the walk, so both refuse it with the same violations."""
    message = copy.deepcopy(PLAIN["message"])
    sent = {"mesage": message}
    with pytest.raises(Fallback):
        compiled("t.Send", sent)
    with pytest.raises(ValidationError) as walked:
        SCHEMA.validate("t.Send", copy.deepcopy(sent))
    with pytest.raises(ValidationError) as checked:
        validator(SCHEMA, "t.Send", in_place=in_place)(copy.deepcopy(sent))
    expected = (
        ("message", "a REQUIRED field is missing"),
        ("mesage", "unknown field (did you mean 'message'?)"),
    )
    assert walked.value.violations == checked.value.violations == expected
    assert checked.value.message == walked.value.message
    message["roel"] = message.pop("role")
    nested = {"message": message}
    with pytest.raises(ValidationError) as inner:
        validator(SCHEMA, "t.Send", in_place=in_place)(nested)
    assert inner.value.violations == (
        ("message.role", "a REQUIRED field is missing"),
        ("message.roel", "unknown field (did you mean 'role'?)"),
    )


def test_a_recursive_type_compiles_lazily_and_deep_values_fall_back() -> None:
    tree: dict[str, Any] = {"name": "leaf"}
    for level in range(98):
        tree = {"name": str(level), "children": [tree], "only": {"name": "x"}}
    assert compiled("t.Tree", tree) == SCHEMA._walked("t.Tree", tree, False, False)
    for _ in range(3):
        tree = {"children": [tree]}
    with pytest.raises(Fallback):
        compiled("t.Tree", tree)
    with pytest.raises(ValidationError, match="nested more than 100"):
        SCHEMA.validate("t.Tree", tree)


@pytest.mark.parametrize(
    "name",
    [
        'a"b',
        "x\n    import os",
        "{k0}",
        "k0",
        "out",
        "\\",
        "'''",
        "item is None or True",
    ],
)
def test_names_from_a_proto_are_data_to_the_compiled_check(name: str) -> None:
    schema = Schema(
        {
            "t.M": (
                R("p", "string", json_name=name, required=True),
                R("other", "enum", "t.E"),
            )
        },
        {"t.E": ((name, 0), ("B", 1))},
    )
    value = {name: "v", "other": name}
    assert target(schema, "t.M").check(value, 1) == value
    assert schema.validate("t.M", value) == value
    with pytest.raises(ValidationError):
        schema.validate("t.M", {"other": "B"})


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4)
    | st.just(10**400)
    | st.just("\udc00"),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=3) | st.just("\ud800"), inner, max_size=3),
    max_leaves=12,
)


@given(_JSON_VALUES)
def test_json_values_are_taken_as_the_walk_takes_them(item: Any) -> None:
    """What ``json_value`` takes at depth 2 (a Value field of the request), the walk
    takes as sent; deep nesting falls back."""
    schema = Schema({"t.V": (R("v", "value"),)}, {})
    try:
        walked: Any = schema._walked("t.V", {"v": item}, False, False)["v"]
    except ValidationError:
        walked = Fallback
    try:
        plain: Any = json_value(item, 2)
    except Fallback:
        plain = Fallback
    assert plain is Fallback or plain == walked


def test_deep_json_values_fall_back() -> None:
    deep: Any = "x"
    for _ in range(49):
        deep = [deep]
    assert json_value(deep, 2) is deep  # a list and its Value: two levels each
    with pytest.raises(Fallback):
        json_value([deep], 2)
    with pytest.raises(ValidationError, match="nested more than 100"):
        SCHEMA.validate("t.Send", {**PLAIN, "metadata": {"k": [deep]}})
    for refused in (10**400, {"\ud800": 1}, ["\udfff"], (1,), object()):
        with pytest.raises(Fallback):
            json_value(refused, 2)


def test_in_place_a_plain_request_becomes_its_canonical_form_where_it_is() -> None:
    sent = copy.deepcopy(PLAIN)
    expected = SCHEMA.validate("t.Send", PLAIN)
    got = validator(SCHEMA, "t.Send", in_place=True)(sent)
    assert got is sent and got == expected
    assert got["message"]["counts"] == ["1", "2"]  # the number's text, in its list
    assert got["config"]["size"] == "7"
    # a copy, and the caller's value left as it was, without in_place
    again = copy.deepcopy(PLAIN)
    assert SCHEMA.validate("t.Send", again) is not again and again == PLAIN


def test_in_place_a_value_that_falls_back_is_decided_by_the_walk_as_sent() -> None:
    sent = copy.deepcopy(PLAIN)
    sent["config"]["unknown"] = 1  # not plain: the walk drops it
    got = validator(SCHEMA, "t.Send", in_place=True)(sent)
    assert got == SCHEMA.validate("t.Send", PLAIN) and "unknown" not in got["config"]
    refused = copy.deepcopy(PLAIN)
    refused["config"]["historyLength"] = "many"
    with pytest.raises(ValidationError) as in_place:
        validator(SCHEMA, "t.Send", in_place=True)(refused)
    with pytest.raises(ValidationError) as copied:
        SCHEMA.validate("t.Send", {**PLAIN, "config": refused["config"]})
    assert in_place.value.violations == copied.value.violations
    assert [path for path, _ in in_place.value.violations] == ["config.historyLength"]


def test_a_validator_checks_its_arguments_once_when_made() -> None:
    with pytest.raises(ValueError, match="unknown_fields"):
        validator(SCHEMA, "t.Send", unknown_fields="keep")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a message type"):
        validator(SCHEMA, "t.Nothing")
    check = validator(SCHEMA, "t.Send", unknown_fields="reject")
    assert check(PLAIN) == SCHEMA.validate("t.Send", PLAIN)
    with pytest.raises(ValidationError):
        check({**PLAIN, "other": 1})


def test_the_compiled_checks_go_with_their_schema() -> None:
    """A schema made at run time (a package loaded and dropped) is freed with the
    checks compiled for it: they are kept by the schema, not beside it."""
    schema = Schema(SCHEMA._rules, SCHEMA._enum_values)
    check = validator(schema, "t.Send")
    assert check(copy.deepcopy(PLAIN)) == SCHEMA.validate("t.Send", PLAIN)
    assert schema.compiled
    gone = weakref.ref(schema)
    del schema, check
    gc.collect()
    assert gone() is None


def test_a_validator_compiles_its_check_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first request compiles the message's check; the next ones run it."""
    from codegen.runtime import _validate_fast

    made: list[str] = []
    real = _validate_fast.compiled

    def counting(name: str, body: Any, bound: Any) -> Any:
        made.append(name)
        return real(name, body, bound)

    monkeypatch.setattr(_validate_fast, "compiled", counting)
    schema = Schema(SCHEMA._rules, SCHEMA._enum_values)
    check = validator(schema, "t.Send")
    for _ in range(3):
        check(copy.deepcopy(PLAIN))
    first = len(made)
    assert first >= 1
    for _ in range(5):
        check(copy.deepcopy(PLAIN))
    assert len(made) == first


def test_two_copies_of_the_runtime_sharing_a_schema_each_run_their_own_checks() -> None:
    """The generated package's schema checked by this repository's runtime first
    (as the tests of the runtime do), then by the package's own copy of it: the
    package compiles its own checks, so it never takes the other copy's refusal of
    a value for the value."""
    import sys

    from ..conftest import GENERATED

    sys.path.insert(0, str(GENERATED))
    try:
        from a2a_binding import _validate_fast as vendored
        from a2a_binding import messages
    finally:
        sys.path.remove(str(GENERATED))
    shared = messages.SCHEMA
    part = {"text": {}, "metadata": {}, "filename": "", "mediaType": ""}
    ours, theirs = (
        module.target(shared, "lf.a2a.v1.Part") for module in (_fast, vendored)
    )
    with contextlib.suppress(Fallback):  # compiled first, as the runtime's tests do
        ours.check(part, 1)
    assert ours is not theirs
    with pytest.raises(vendored.Fallback):  # a text that is no string: walked, refused
        theirs.check(part, 1)
    with pytest.raises(messages.ValidationError):
        vendored.validator(shared, "lf.a2a.v1.Part")(part)

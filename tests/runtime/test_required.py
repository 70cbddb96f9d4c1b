"""REQUIRED fields checked on ProtoJSON objects: direct, nested, repeated, oneofs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.runtime._required import RequiredFields, Rule

RULES = RequiredFields(
    {
        "t.Send": (
            Rule("message", "message", True, "t.Message"),
            Rule("config", "config", False, "t.Config"),
        ),
        "t.Message": (
            Rule("messageId", "message_id", True),
            Rule("parts", "parts", True, "t.Part", True),
        ),
        "t.Part": (
            Rule("text", "text", True, "", False, "content"),
            Rule("url", "url", True, "", False, "content"),
        ),
        "t.Config": (Rule("mode", "mode", True),),
    }
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"message": {"messageId": "m", "parts": [{"text": "hi"}]}}, []),
        ({}, [("message", "a REQUIRED field is missing")]),
        ({"message": None}, [("message", "a REQUIRED field is missing")]),
        (
            {"message": {}},
            [
                ("message.messageId", "a REQUIRED field is missing"),
                ("message.parts", "a REQUIRED field is missing"),
            ],
        ),
        (
            {"message": {"message_id": "m", "parts": [{"url": "u"}, {}]}},
            [
                (
                    "message.parts[1].text",
                    "one of message.parts[1].text, message.parts[1].url is REQUIRED "
                    "(oneof content)",
                )
            ],
        ),
        (
            {"message": {"messageId": "", "parts": [{"text": "x"}]}},
            [("message.messageId", "a REQUIRED field is missing")],
        ),
        (
            {"message": {"messageId": "m", "parts": [{"text": "x"}]}, "config": {}},
            [("config.mode", "a REQUIRED field is missing")],
        ),
        ({"message": {"messageId": "m", "parts": ["not an object"]}}, []),
    ],
)
def test_violations(value: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert RULES.violations("t.Send", value) == expected


def test_a_type_without_rules_has_nothing_missing() -> None:
    assert RULES.violations("t.Other", {}) == []


@given(
    st.recursive(
        st.none() | st.text(max_size=3) | st.integers(),
        lambda inner: st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "message",
                    "messageId",
                    "message_id",
                    "parts",
                    "text",
                    "url",
                    "config",
                    "mode",
                ]
            ),
            inner,
            max_size=4,
        ),
        max_leaves=20,
    )
)
def test_never_raises_on_any_json(value: Any) -> None:
    if isinstance(value, dict):
        for field, reason in RULES.violations("t.Send", value):
            assert field and reason

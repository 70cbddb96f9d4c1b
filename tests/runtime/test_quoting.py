"""How an error message quotes a client's value (``codegen/runtime/tables/_quoting.py``):
whole when short, else its first ``EXCERPT_CHARACTERS`` characters and its length."""

from __future__ import annotations

from typing import Any

import pytest

from codegen.runtime._quoting import EXCERPT_CHARACTERS, excerpt

LIMIT = EXCERPT_CHARACTERS


@pytest.mark.parametrize(
    ("value", "quoted", "expected"),
    [
        ("acme", True, "'acme'"),
        ("acme", False, "acme"),
        ("", True, "''"),
        ("it's", True, '"it\'s"'),
        ("\ud800", True, "'\\ud800'"),
        ("x" * LIMIT, True, repr("x" * LIMIT)),
        ("x" * LIMIT, False, "x" * LIMIT),
        (7, True, "7"),
        (1.5, False, "1.5"),
        ({"a": 1}, True, "{'a': 1}"),
    ],
)
def test_a_short_value_is_quoted_as_repr_would(
    value: Any, quoted: bool, expected: str
) -> None:
    assert excerpt(value, quoted=quoted) == expected


def test_a_long_value_is_cut_and_its_length_said() -> None:
    assert excerpt("x" * (LIMIT + 1)) == f"'{'x' * LIMIT}'... ({LIMIT + 1} characters)"
    assert excerpt("y" * 3_000_000, quoted=False) == (
        f"{'y' * LIMIT}... (3000000 characters)"
    )


def test_the_cut_is_made_before_quoting() -> None:
    """A long value's escapes are those of the characters kept, nothing half-cut."""
    shown = excerpt("\n" * 1000)
    assert shown == repr("\n" * LIMIT) + "... (1000 characters)"


def test_a_long_value_of_another_type_is_cut_in_its_repr() -> None:
    value = list(range(1000))
    assert excerpt(value) == f"{repr(value)[:LIMIT]}... ({len(repr(value))} characters)"


@pytest.mark.parametrize("size", [LIMIT + 1, 10_000, 3_000_000])
def test_the_excerpt_is_bounded_whatever_the_size(size: int) -> None:
    assert len(excerpt("\U0001f600" * size)) < 12 * LIMIT

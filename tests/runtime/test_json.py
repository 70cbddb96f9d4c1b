"""The one JSON encoder and decoder (``codegen/runtime/tables/_json.py``), against the
standard library's ``json`` as the reference."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.runtime import _json
from codegen.runtime._json import DuplicateKeys, ExactNumber, NotJson, decode, encode
from codegen.runtime._json import read_int

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@given(_JSON)
def test_encode_is_compact_json_that_reads_back(value: Any) -> None:
    written = encode(value)
    assert json.loads(written) == value
    reference = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    try:
        assert written == reference.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: written as its escape instead
        assert written == json.dumps(value, separators=(",", ":")).encode()


def test_encode_refuses_what_json_cannot_carry() -> None:
    for bad in (float("nan"), float("inf"), {"x": [float("-inf")]}):
        with pytest.raises(ValueError, match="not JSON compliant"):
            encode(bad)
    with pytest.raises(TypeError, match="object has no JSON form"):
        encode({"x": object()})
    assert encode({"a": "\ud800"}) == b'{"a":"\\ud800"}'


@given(_JSON)
def test_decode_reads_what_json_writes(value: Any) -> None:
    assert decode(json.dumps(value)) == value
    assert decode(json.dumps(value).encode()) == value


_SPACE = st.text(alphabet=" \t\n\r\x0c", max_size=3)


def _reference(text: str) -> tuple[str, Any]:
    """What the library's own ``decode`` makes of ``text`` with the decoder's options
    (no NaN, no number beyond a double): the value, or the error."""
    try:
        return "value", _json._PLAIN.decode(text)
    except ValueError as exc:
        return "error", str(exc)


@given(
    _SPACE,
    _JSON.map(json.dumps)
    | st.text(alphabet='{}[]",:0123456789.e-tfnrua ', max_size=12),
    _SPACE,
    st.sampled_from(["", "x", "1", "{}", ",", "\x00"]),
)
def test_decode_is_the_library_s_decode_at_both_ends(
    before: str, document: str, after: str, junk: str
) -> None:
    """The scanner is called directly: whitespace around the document, an empty or
    a blank payload, data after it, all as the library reads them."""
    text = before + document + after + junk
    kind, expected = _reference(text)
    if kind == "value":
        assert decode(text) == expected
    else:
        with pytest.raises(NotJson) as caught:
            decode(text)
        assert str(caught.value) == expected


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"\xff", "not UTF-8"),
        (b"{", "Expecting property name"),
        (b"NaN", "NaN is not JSON"),
        (b"[Infinity]", "Infinity is not JSON"),
        (b"1e999", "beyond a double"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
)
def test_decode_refuses_what_is_not_one_json_document(
    payload: bytes, reason: str
) -> None:
    with pytest.raises(NotJson, match=reason):
        decode(payload)


LIMIT = sys.get_int_max_str_digits()


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize(
    ("before", "sign"),
    [
        ("", ""),
        ('{"id": ', "-"),
        (
            '[1.5, 12, "'
            + "7" * 5000
            + '", '
            + "0."
            + "8" * 5000
            + ", "
            + "8" * 5000
            + "e-4990, ",
            "",
        ),
    ],
)
def test_an_integer_too_long_to_read_is_refused_where_it_stands(
    exact: bool, before: str, sign: str
) -> None:
    """Not Python's advice to raise its limit: the integer's place, as the decoder's
    own errors give one, and what is wrong. Digits inside a string and a long number
    read as a double (no limit) before it are no integer."""
    digits = LIMIT + 700
    payload = f"{before}{sign}{'9' * digits}]"
    with pytest.raises(NotJson) as caught:
        decode(payload.encode(), exact=exact)
    place = json.JSONDecodeError("", payload, len(before))
    assert str(caught.value) == (
        f"an integer of {digits} digits is longer than the {LIMIT} digits the reader"
        f" accepts: line 1 column {place.colno} (char {place.pos})"
    )


def test_an_integer_at_the_limit_is_read() -> None:
    assert decode(("[" + "9" * LIMIT + "]").encode()) == [int("9" * LIMIT)]


def test_read_int_says_a_number_is_too_long_in_its_own_words() -> None:
    assert read_int("-12") == -12
    with pytest.raises(ValueError) as caught:
        read_int("1" * (LIMIT + 1))
    assert str(caught.value) == (
        f"an integer of {LIMIT + 1} digits is longer than the {LIMIT} digits the"
        " reader accepts"
    )
    with pytest.raises(ValueError, match="invalid literal"):
        read_int("1e3")


def test_exact_numbers_keep_their_text() -> None:
    found = decode(b'{"id": 9007199254740993.0, "n": [1e2, 3]}', exact=True)
    assert (
        isinstance(found["id"], ExactNumber)
        and found["id"].text == "9007199254740993.0"
    )
    assert found["n"][0].text == "1e2" and found["n"][1] == 3
    with pytest.raises(NotJson, match="beyond a double"):
        decode("1e999", exact=True)


def test_duplicate_keys_are_marked_when_asked() -> None:
    found = decode(
        b'{"a": 1, "b": {"c": 1, "c": 2}, "a": 3, "a": 4}', mark_duplicates=True
    )
    assert isinstance(found, DuplicateKeys) and found.duplicates == ("a",)
    assert found == {"a": 4, "b": {"c": 2}}
    assert isinstance(found["b"], DuplicateKeys) and found["b"].duplicates == ("c",)
    copied = found.copy()
    assert isinstance(copied, DuplicateKeys) and copied.duplicates == ("a",)
    plain = decode(b'{"a": 1, "a": 2}')
    assert type(plain) is dict and plain == {"a": 2}
    assert type(decode(b'{"a": 1}', mark_duplicates=True)) is dict


def test_another_python_without_the_c_encoder_gets_the_library_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import json.encoder

    from codegen.runtime import _json

    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    plain = _json._encoder(ensure_ascii=False)
    assert "".join(plain({"a": ["é", 1.5]}, 0)) == '{"a":["é",1.5]}'
    with pytest.raises(ValueError):
        plain(float("nan"), 0)

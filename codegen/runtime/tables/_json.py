"""JSON text: the one encoder and the one decoder every module of the package uses.

The encoder writes compact UTF-8 JSON and refuses what JSON cannot carry (NaN and the
infinities, which ProtoJSON writes as strings); a lone surrogate, as a client's JSON
``"\\ud800"`` escape decodes, goes out as that escape, since UTF-8 cannot carry it. The
decoder reads one JSON document and refuses with :class:`NotJson` what is not one (bytes
that are not UTF-8, ``NaN`` and ``Infinity``, a number beyond a double, an integer of
more digits than Python converts, nesting too deep for the parser).
"""

from __future__ import annotations

import json
import json.encoder
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any

from ._quoting import excerpt

__all__ = ["DuplicateKeys", "ExactNumber", "NotJson", "decode", "encode", "read_int"]


def _type_error(value: object) -> Any:
    raise TypeError(f"{type(value).__name__} has no JSON form")


def _encoder(ensure_ascii: bool) -> Callable[[Any, int], Iterable[str]]:
    """The chunks of compact JSON text, built once: ``json.dumps`` builds an encoder
    on each call. CPython's C encoder is called directly where it exists; circular
    structures are not looked for (a handler's answer is a tree; a cycle is a
    RecursionError)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    strings = (
        json.encoder.encode_basestring_ascii
        if ensure_ascii
        else json.encoder.encode_basestring
    )
    if make is None:  # another Python: the library's own encoder
        encoder = json.JSONEncoder(
            separators=(",", ":"), ensure_ascii=ensure_ascii, allow_nan=False
        )
        return lambda payload, _: (encoder.encode(payload),)
    chunks: Callable[[Any, int], Iterable[str]] = make(
        None, _type_error, strings, None, ":", ",", False, False, False
    )
    return chunks


_UTF8 = _encoder(ensure_ascii=False)
_ASCII = _encoder(ensure_ascii=True)


def encode(payload: Any) -> bytes:
    """``payload`` as compact UTF-8 JSON.

    Raises ``ValueError`` for a NaN or an infinity and ``TypeError`` for a value JSON
    has no form for.
    """
    text = "".join(_UTF8(payload, 0))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_ASCII(payload, 0)).encode("ascii")


class NotJson(ValueError):
    """A payload that is not one JSON document; the message says why."""


class ExactNumber(float):
    """A JSON number that keeps the text it was sent as (``text``), so that it can be
    written back exactly: ``9007199254740993.0`` is no double."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> ExactNumber:
        number = super().__new__(cls, _finite(text))
        number.text = text
        return number


def _finite(text: str) -> float:
    # One beyond a double (1e999) is refused, not read as infinity: no JSON answer
    # could carry it back.
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise NotJson(f"the number {excerpt(text, quoted=False)} is beyond a double")
    return number


def _reject_constant(name: str) -> Any:
    raise NotJson(f"{name} is not JSON")


def _digit_limit() -> int:
    """The most digits ``int()`` converts (``sys.set_int_max_str_digits``); 0 for
    no limit, as on the Pythons before it."""
    limit: int = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    return limit


def _too_long(digits: int, limit: int) -> str:
    return (
        f"an integer of {digits} digits is longer than the {limit} digits"
        " the reader accepts"
    )


def read_int(text: str) -> int:
    """``int(text)``, for text a client sent: a ``ValueError`` saying so when it has
    more digits than Python converts, in place of Python's advice to raise the limit."""
    try:
        return int(text)
    except ValueError:
        limit = _digit_limit()
        digits = sum(map(str.isdecimal, text))
        if limit and digits > limit:
            raise ValueError(_too_long(digits, limit)) from None
        raise


# A JSON string, or a JSON number with its parts (the json module's NUMBER_RE): what
# ``_long_integer`` walks to find a number, never looking inside a string.
_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"|(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?', re.S
)


def _long_integer(payload: str) -> NotJson:
    """The error for the first integer of ``payload`` with more digits than ``int()``
    converts, at its position, as the decoder's own errors give one.

    Called when the scanner failed converting an integer: the document is JSON up to
    that integer, so its strings and numbers are where ``_TOKEN`` finds them."""
    limit = _digit_limit()
    for token in _TOKEN.finditer(payload):
        integer, fraction, exponent = token.groups()
        if integer is None or fraction or exponent:
            continue  # a string, or a number read as a float (no limit)
        digits = len(integer) - integer.startswith("-")
        if digits > limit:
            message = _too_long(digits, limit)
            return NotJson(str(json.JSONDecodeError(message, payload, token.start())))
    return NotJson(f"an integer is longer than the {limit} digits the reader accepts")


class DuplicateKeys(dict):  # type: ignore[type-arg]
    """A JSON object that named a key more than once (``duplicates``, in order); the
    last value of each is kept, as JSON parsers do. Validation refuses it."""

    __slots__ = ("duplicates",)
    duplicates: tuple[str, ...]

    def copy(self) -> DuplicateKeys:
        """A copy that still knows its duplicates."""
        copied = DuplicateKeys(self)
        copied.duplicates = self.duplicates
        return copied


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) == len(pairs):
        return found
    marked = DuplicateKeys(found)
    seen: set[str] = set()
    twice: dict[str, None] = {}
    for key, _ in pairs:
        if key in seen:
            twice[key] = None
        seen.add(key)
    marked.duplicates = tuple(twice)
    return marked


# Built once: json.loads with options builds a decoder on every call.
_PLAIN = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite)
_UNIQUE = json.JSONDecoder(
    parse_constant=_reject_constant, parse_float=_finite, object_pairs_hook=_object
)
_EXACT = json.JSONDecoder(parse_constant=_reject_constant, parse_float=ExactNumber)
_SPACE = " \t\n\r"  # JSON's whitespace
_Scanner = Callable[[str, int], "tuple[Any, int]"]


def _scanner(decoder: json.JSONDecoder) -> _Scanner:
    scan: _Scanner = getattr(decoder, "scan_once")
    return scan


_SCAN_PLAIN, _SCAN_UNIQUE, _SCAN_EXACT = map(_scanner, (_PLAIN, _UNIQUE, _EXACT))


def decode(
    payload: bytes | str, *, exact: bool = False, mark_duplicates: bool = False
) -> Any:
    """The JSON document ``payload`` holds; :class:`NotJson` naming what is wrong.

    With ``exact=True`` every number with a fraction or an exponent is an
    :class:`ExactNumber`; with ``mark_duplicates=True`` an object that names a key
    twice is a :class:`DuplicateKeys`.
    """
    if isinstance(payload, bytes):
        try:
            payload = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NotJson(
                f"the payload is not UTF-8 ({exc.reason} at byte {exc.start})"
            ) from None
    scan = _SCAN_EXACT if exact else _SCAN_UNIQUE if mark_duplicates else _SCAN_PLAIN
    # The scanner called directly: the library's ``decode`` matches a whitespace
    # pattern at both ends of every document, which costs as much as scanning a
    # small one. The same value and the same errors.
    start = len(payload) - len(payload.lstrip(_SPACE))
    try:
        value, end = scan(payload, start)
        if end != len(payload):
            rest = payload[end:]
            trailing = rest.lstrip(_SPACE)
            if trailing:
                raise json.JSONDecodeError(
                    "Extra data", payload, end + len(rest) - len(trailing)
                )
        return value
    except StopIteration as exc:
        raise NotJson(
            str(json.JSONDecodeError("Expecting value", payload, exc.value))
        ) from None
    except RecursionError:
        raise NotJson("the JSON is nested too deeply") from None
    except NotJson:
        raise
    except json.JSONDecodeError as exc:
        raise NotJson(str(exc)) from None
    except ValueError:  # int() refused an integer's digits
        raise _long_integer(payload) from None

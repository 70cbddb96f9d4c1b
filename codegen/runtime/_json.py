"""JSON text: the one encoder and the one decoder every module of the package uses.

The encoder writes compact UTF-8 JSON and refuses what JSON cannot carry (NaN and the
infinities, which ProtoJSON writes as strings); a lone surrogate, as a client's JSON
``"\\ud800"`` escape decodes, goes out as that escape, since UTF-8 cannot carry it. The
decoder reads one JSON document and refuses with :class:`NotJson` what is not one (bytes
that are not UTF-8, ``NaN`` and ``Infinity``, a number beyond a double, nesting too deep
for the parser).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["ExactNumber", "NotJson", "decode", "encode"]

# Built once: json.dumps with options builds an encoder on every call.
_UTF8 = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_ASCII = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def encode(payload: Any) -> bytes:
    """``payload`` as compact UTF-8 JSON.

    Raises ``ValueError`` for a NaN or an infinity and ``TypeError`` for a value JSON
    has no form for.
    """
    text = _UTF8.encode(payload)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _ASCII.encode(payload).encode("ascii")


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
        raise ValueError(f"the number {text[:40]} is beyond a double")
    return number


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode(payload: bytes | str, *, exact: bool = False) -> Any:
    """The JSON document ``payload`` holds; :class:`NotJson` naming what is wrong.

    With ``exact=True`` every number with a fraction or an exponent is an
    :class:`ExactNumber`.
    """
    if isinstance(payload, bytes):
        try:
            payload = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NotJson(
                f"the payload is not UTF-8 ({exc.reason} at byte {exc.start})"
            ) from None
    try:
        return json.loads(
            payload,
            parse_constant=_reject_constant,
            parse_float=ExactNumber if exact else _finite,
        )
    except RecursionError:
        raise NotJson("the JSON is nested too deeply") from None
    except ValueError as exc:
        raise NotJson(str(exc)) from None

"""Request validation: a ProtoJSON value checked against its message's fields, and
handed back in the canonical form its ``TypedDict`` describes.

The generated ``messages.py`` holds, per message type, a ``FieldRule`` per field (proto
name, json name where it is not protoc's default, ProtoJSON kind, message or enum type,
repeated, map key kind, REQUIRED, oneof) and the values of every enum, and hands them
to ``Schema``.

The rule is protobuf's own JSON parser, ``json_format.ParseDict(value, message,
ignore_unknown_fields=True)``: a value is valid exactly when it accepts it, with the
exceptions below. So an integer may be a number or a string in Python's own syntax
(``5``, ``5.0``, ``1e3``, ``"5"``, ``"1e3"``, ``"+5"``, ``"1_000"``; not with a space,
not ``1.5``), a float a number or a string ``float()`` reads (``"NaN"``, ``"1e39"``),
bytes any text the lenient base64 decoder reads (both alphabets, padding optional), a
timestamp or duration any text protobuf's own ``FromJsonString`` reads, a field mask
any text without ``_``; strings and keys must be valid Unicode (no surrogate code
points); nothing nests more than 100 messages deep (a ``Struct`` level costs two: its
``Struct`` and its ``Value``); a key in ``[...]`` (extension syntax) is refused, and so
is ``null`` for a repeated ``Value`` or ``NullValue`` field; an ``Any`` is ``{}`` or
has a string ``@type``, the type named after its last ``/``. Refused although that parser accepts them, because they are
looser than the types a handler is given: a non-object where a message is expected
(``""`` and ``[]`` are empty messages to it), an unknown enum name (which it skips),
an enum number that names no value (proto3 keeps it; this includes ``1.5``, which it
truncates, and numbers beyond 32 bits, whose low bits it looks up), ``true``/``false``
where a number or an enum is expected (Python's bool is an int). And, as the decoder
reports them: an object that names a key twice (``DuplicateKeys``), and one that gives
a field under both its json and its proto name. A field REQUIRED by
``google.api.field_behavior`` must be there (not ``null``, ``""`` or ``[]``). An
``Any`` of a type this package does not know is left as sent (duplicate keys aside).

The canonical form: json names (proto names are accepted and renamed), enum values by
name (defined numbers accepted and renamed, ``NullValue`` as ``"NULL_VALUE"``), 64-bit
integers as decimal strings, 32-bit integers as ``int``, fields given as ``null`` left
out (ProtoJSON's "absent"; a ``Value`` keeps its ``null``), of a oneof only the member
protobuf keeps, everything else as sent (map keys included). Unknown fields are dropped,
or refused with ``unknown_fields="reject"``; where an object lacks a REQUIRED field, the
unknown keys it holds are named beside it (``mesage: unknown field (did you mean
'message'?)``), a misspelling being the likely cause. ``ParseDict`` of the canonical
form is ``ParseDict`` of what was sent. Every problem is reported, each with the path
of the field in json names (``message.parts[0].text``; ``[key]`` for map and
``Struct`` entries), as ``ValidationError``.
"""

from __future__ import annotations

import base64
import datetime
import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, replace
from typing import Any, Literal

from ._json import DuplicateKeys, read_int
from ._query import json_name
from ._quoting import excerpt, field_path

__all__ = [
    "FieldRule",
    "Schema",
    "UnknownFields",
    "ValidationError",
    "json_type",
]

UnknownFields = Literal["drop", "reject"]
"""What validation does with a field the message does not have."""


@dataclass(frozen=True)
class FieldRule:
    """One field of a message, as validation reads it.

    ``kind`` is the field's ProtoJSON form: ``string``, ``bytes``, ``bool``,
    ``int32``, ``uint32``, ``int64``, ``uint64``, ``float``, ``double``, ``enum``,
    ``message``, or a well-known type's (``timestamp``, ``duration``, ``field_mask``,
    ``struct``, ``value``, ``list_value``, ``null_value``, ``any``; a wrapper is the
    kind it wraps). ``type_name`` names the message or enum type; ``json_name`` is
    protoc's lowerCamel of the proto name unless given (a ``json_name`` option);
    ``map_key`` is the key kind of a map field (whose value the other columns
    describe), ``""`` for others; ``oneof`` names the field's oneof (``""`` for none).
    """

    proto_name: str
    kind: str
    type_name: str = ""
    _: KW_ONLY
    json_name: str = ""
    repeated: bool = False
    map_key: str = ""
    required: bool = False
    oneof: str = ""

    def __post_init__(self) -> None:
        if not self.json_name:
            object.__setattr__(self, "json_name", json_name(self.proto_name))


class ValidationError(ValueError):
    """A value that is not valid ProtoJSON of its message: ``violations`` are
    ``(field path, description)`` pairs, the path in json names with ``[i]`` for list
    elements and ``[key]`` for map values (``""`` for the value itself)."""

    def __init__(self, message: str, violations: Sequence[tuple[str, str]]) -> None:
        super().__init__(message)
        self.message = message
        self.violations = tuple(violations)

    def to_bad_request(self) -> dict[str, Any]:
        """The violations as a ``google.rpc.BadRequest`` detail."""
        return {
            "@type": "type.googleapis.com/google.rpc.BadRequest",
            "fieldViolations": [
                {"field": field, "description": text} for field, text in self.violations
            ],
        }


class _Bad:
    """What a check returns for a value it refused (``None`` is a value: a
    ``Value``'s null)."""

    __slots__ = ()


_BAD: Any = _Bad()
_REFUSED: Any = _Bad()  # a null where protobuf takes none
_MAX_DEPTH = 100  # json_format's max_recursion_depth: messages, WKTs included
_INT_RANGES = {
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}
_FLOAT32_MAX = 3.4028234663852886e38  # FLT_MAX, as protobuf's float check has it
_INF = float("inf")
_SURROGATE = re.compile("[\ud800-\udfff]")
_EXTENSION = re.compile(r"\[[a-zA-Z0-9._]*\]$")  # json_format's, "$" and all
_EMPTY = "google.protobuf.Empty"
_EPOCH = datetime.datetime(1970, 1, 1)
_TIMESTAMP_SECONDS = (-62135596800, 253402300799)  # 0001-01-01 .. 9999-12-31
_DURATION_SECONDS = 315576000000  # 10 000 years


def json_type(value: object) -> str:
    """How an error names the JSON type of ``value``: ``"an object"``, ``"null"``..."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _text(value: object) -> bool:
    """A ``str`` protobuf can store: no surrogate code points (UTF-8 has none)."""
    return type(value) is str and (value.isascii() or not _SURROGATE.search(value))


# --- scalar checks: the canonical value, or _BAD -----------------------------------


def _integer(item: object) -> Any:
    """The integer json_format's ``_ConvertInteger`` reads from ``item``, or _BAD."""
    kind = type(item)
    if kind is int:
        return item
    if kind is str:
        assert isinstance(item, str)
        if " " in item:
            return _BAD
        try:
            return int(item)
        except ValueError:
            try:
                number = float(item)
            except ValueError:
                return _BAD
            return int(number) if number.is_integer() else _BAD
    if isinstance(item, float):
        return int(item) if item.is_integer() else _BAD
    if isinstance(item, int) and not isinstance(item, bool):
        return int(item)
    return _BAD


def _integer_check(kind: str) -> Callable[[object], Any]:
    low, high = _INT_RANGES[kind]
    if kind in ("int64", "uint64"):

        def wide(item: object) -> Any:
            number = _integer(item)
            if number is _BAD or not low <= number <= high:
                return _BAD
            return str(number)

        return wide

    def narrow(item: object) -> Any:
        if type(item) is int and low <= item <= high:
            return item
        number = _integer(item)
        if number is _BAD or not low <= number <= high:
            return _BAD
        return number

    return narrow


def _float_check(float32: bool) -> Callable[[object], Any]:
    def check(item: object) -> Any:
        if isinstance(item, float):
            if item != item or item == _INF or item == -_INF:
                return _BAD  # JSON has no NaN: the strings "NaN", "Infinity"
            if float32 and not -_FLOAT32_MAX <= item <= _FLOAT32_MAX:
                return _BAD
            return item
        if type(item) is str:
            assert isinstance(item, str)
            if item == "nan":
                return _BAD
            try:
                float(item)
            except ValueError:
                return _BAD
            return item
        if isinstance(item, int) and not isinstance(item, bool):
            try:
                float(item)
            except OverflowError:
                return _BAD
            return item
        return _BAD

    return check


def _string(item: object) -> Any:
    if type(item) is str and (item.isascii() or not _SURROGATE.search(item)):
        return item
    return _BAD


def _bool(item: object) -> Any:
    return item if item is True or item is False else _BAD


def _bytes(item: object) -> Any:
    if type(item) is not str:
        return _BAD
    assert isinstance(item, str)
    try:  # json_format's own expression: the lenient decoder, both alphabets
        encoded = item.encode("utf-8")
        base64.urlsafe_b64decode(encoded + b"=" * (4 - len(encoded) % 4))
    except ValueError:
        return _BAD
    return item


def _timestamp_problem(value: str) -> str:
    """Why protobuf's ``Timestamp.FromJsonString`` refuses ``value`` ("" if not)."""
    zone = value.find("Z")
    if zone == -1:
        zone = value.find("+")
    if zone == -1:
        zone = value.rfind("-")
    if zone == -1:
        return "not an RFC 3339 timestamp: no time zone offset"
    time_value = value[:zone]
    point = time_value.find(".")
    seconds_text = time_value if point == -1 else time_value[:point]
    nanos_text = "" if point == -1 else time_value[point + 1 :]
    if "t" in seconds_text:
        return "not an RFC 3339 timestamp: a lowercase 't'"
    try:
        moment = datetime.datetime.strptime(seconds_text, "%Y-%m-%dT%H:%M:%S")
        if len(nanos_text) > 9:
            return "not an RFC 3339 timestamp: more than 9 fractional digits"
        nanos = round(float("0." + nanos_text) * 1e9) if nanos_text else 0
        delta = moment - _EPOCH
        seconds = delta.seconds + delta.days * 86400
        if value[zone] == "Z":
            if len(value) != zone + 1:
                return "not an RFC 3339 timestamp: text after 'Z'"
        else:
            offset = value[zone:]
            colon = offset.find(":")
            if colon == -1:
                return f"not an RFC 3339 timestamp: time zone offset {excerpt(offset)}"
            shift = (
                read_int(offset[1:colon]) * 60 + read_int(offset[colon + 1 :])
            ) * 60
            seconds += -shift if offset[0] == "+" else shift
    except (ValueError, OverflowError) as exc:
        return f"not an RFC 3339 timestamp: {str(exc)[:80]}"
    low, high = _TIMESTAMP_SECONDS
    if not low <= seconds <= high or not 0 <= nanos < 10**9:
        return "out of range (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z)"
    return ""


def _duration_problem(value: str) -> str:
    """Why protobuf's ``Duration.FromJsonString`` refuses ``value`` ("" if not)."""
    if value[-1:] != "s":
        return "not a duration: it ends in 's' ('1.5s')"
    try:
        point = value.find(".")
        if point == -1:
            seconds, nanos = read_int(value[:-1]), 0
        else:
            seconds = read_int(value[:point])
            sign = "-0" if value[0] == "-" else "0"
            nanos = int(round(float(sign + value[point:-1]) * 1e9))
    except (ValueError, OverflowError) as exc:
        return f"not a duration: {str(exc)[:80]}"
    if not -_DURATION_SECONDS <= seconds <= _DURATION_SECONDS:
        return "out of range (at most 315576000000s either way)"
    if not -(10**9) < nanos < 10**9:
        return "out of range: the fraction rounds to a whole second"
    if (nanos < 0 < seconds) or (seconds < 0 < nanos):
        return "not a duration: the seconds and the fraction differ in sign"
    return ""


def _field_mask_problem(value: str) -> str:
    if "_" in value:
        return "not a field mask: the paths are in json names (no '_')"
    return ""


_TEXT_PROBLEMS: dict[str, Callable[[str], str]] = {
    "timestamp": _timestamp_problem,
    "duration": _duration_problem,
    "field_mask": _field_mask_problem,
}


def _text_check(kind: str) -> Callable[[object], Any]:
    problem = _TEXT_PROBLEMS[kind]

    def check(item: object) -> Any:
        if not _text(item):
            return _BAD
        assert isinstance(item, str)
        return _BAD if problem(item) else item

    return check


def _enum_check(
    values: Sequence[tuple[str, int]], canonical_null: bool = False
) -> Callable[[object], Any]:
    """Names as sent, defined numbers (and the strings ``int()`` reads as one) as
    their first name; ``NullValue``'s as ``"NULL_VALUE"``."""
    names = frozenset(name for name, _ in values)
    numbers: dict[int, str] = {}
    for name, number in values:
        numbers.setdefault(number, name)  # an alias: the first name

    def check(item: object) -> Any:
        if type(item) is str:
            if item in names:
                return "NULL_VALUE" if canonical_null else item
            try:
                number = int(item)
            except ValueError:
                return _BAD
        elif type(item) is int:
            number = item
        elif type(item) is float and item.is_integer():
            number = int(item)
        else:
            return _BAD
        return numbers.get(number, _BAD)

    return check


# --- descriptions of refused scalars -----------------------------------------------


def _describe(kind: str, type_name: str, item: object) -> str:
    """Why a scalar check of ``kind`` refused ``item``."""
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        if isinstance(item, (int, float, str)) and not isinstance(item, bool):
            shown = excerpt(str(item), quoted=False)
            return f"not an integer in {low}..{high} ({kind}): {shown}"
        return f"expected an integer ({kind}), got {json_type(item)}"
    if kind in ("enum", "null_value"):
        type_name = type_name or "google.protobuf.NullValue"
        if isinstance(item, str):
            return f"{excerpt(item)} is not a value of {type_name}"
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            return f"{excerpt(item)} is not a number of a value of {type_name}"
        return f"expected a value of {type_name}, got {json_type(item)}"
    if type(item) is str:
        assert isinstance(item, str)
        if not _text(item):
            return "not valid Unicode: a lone surrogate"
        if kind in _TEXT_PROBLEMS:
            return _TEXT_PROBLEMS[kind](item)
        if kind == "bytes":
            return "not base64 text"
        if kind in ("float", "double"):
            return f"not a number: {excerpt(item)}"
    if kind in ("float", "double") and isinstance(item, (int, float)):
        if isinstance(item, bool):
            return f"expected a number, got {json_type(item)}"
        if isinstance(item, float) and (item != item or abs(item) == _INF):
            return (
                "NaN and the infinities are the strings 'NaN', 'Infinity', '-Infinity'"
            )
        return f"out of range for a {'32' if kind == 'float' else '64'}-bit float"
    expected = {
        "string": "a string",
        "bool": "true or false",
        "bytes": "base64 text",
        "float": "a number",
        "double": "a number",
    }.get(kind, "a string")
    return f"expected {expected}, got {json_type(item)}"


# --- the compiled tables -----------------------------------------------------------


class _Field:
    """One field, compiled: how its values are checked."""

    __slots__ = (
        "json_name",
        "proto_name",
        "kind",
        "type_name",
        "oneof",
        "required",
        "outer",
        "convert",
        "nested",
        "key",
        "key_kind",
        "null",
        "scalar",
        "walk",
        "target",
        "singular_message",
        "messages",
    )

    def __init__(self, schema: Schema, rule: FieldRule) -> None:
        self.json_name = rule.json_name
        self.proto_name = rule.proto_name
        self.kind = kind = rule.kind
        self.type_name = rule.type_name
        self.oneof = rule.oneof
        self.required = rule.required
        self.target: _Message | None = None
        # a singular value that is null: left out (_BAD), or this canonical value
        self.null: Any = _BAD
        if kind == "value":
            self.null = None
        elif kind == "null_value":
            self.null = "NULL_VALUE"
        self.convert: Callable[[object], Any] | None = None
        self.nested: Callable[[_Walk, _Field, object, str, int], Any] | None = None
        if kind in _NESTED:
            self.nested = _NESTED[kind]
        elif kind == "enum":
            self.convert = schema._enum(rule.type_name)
        else:
            self.convert = _SCALARS.get(kind)
            if self.convert is None:
                raise ValueError(f"{rule.json_name}: unknown field kind {kind!r}")
        self.outer: Callable[[_Walk, _Field, object, str, int], Any] | None = None
        self.key: Callable[[object], Any] | None = None
        self.key_kind = rule.map_key
        if rule.map_key:
            self.outer = _Walk.map
            self.key = _MAP_KEYS[rule.map_key]
            self.null = _BAD
        elif rule.repeated:
            self.outer = _Walk.repeated
            # protobuf sets a null Value or NullValue field, and fails on a list
            self.null = _REFUSED if kind in ("value", "null_value") else _BAD
        # a singular scalar's check, or what walks the value
        self.scalar = self.convert if self.outer is None else None
        self.walk: Callable[[_Walk, _Field, object, str, int], Any] = (
            self.outer or self.nested or _Walk.element
        )
        # walked by _Walk.message itself, its target compiled on first use
        self.singular_message = kind == "message" and self.outer is None
        # a repeated message field: _Walk.repeated walks its elements itself
        self.messages = kind == "message" and rule.repeated and not rule.map_key

    def resolve(self, schema: Schema) -> _Message:
        """The message type of a message field, compiled once."""
        target = self.target = schema._message(self.type_name)
        return target

    def problem(self, item: object) -> str:
        return _describe(self.kind, self.type_name, item)


class _Message:
    """One message's fields, by json name and by proto name."""

    __slots__ = ("fields", "proto_fields", "required", "kept", "oneof_required")

    def __init__(self, schema: Schema, rules: Sequence[FieldRule]) -> None:
        compiled = [_Field(schema, rule) for rule in rules]
        self.fields = {field.json_name: field for field in compiled}
        self.proto_fields = {
            field.proto_name: field
            for field in compiled
            if field.proto_name not in self.fields
        }
        self.required = tuple(f for f in compiled if f.required and not f.oneof)
        # What an answer must show of them: ProtoJSON leaves out a scalar or a list
        # at its default, but prints a singular message field that is set.
        self.kept = tuple(
            f for f in self.required if f.kind in _PRESENCE_KINDS and f.outer is None
        )
        oneofs: dict[str, list[str]] = {}
        for field in compiled:
            if field.required and field.oneof:
                oneofs.setdefault(field.oneof, []).append(field.json_name)
        self.oneof_required = tuple((k, tuple(v)) for k, v in oneofs.items())


class Schema:
    """The validation tables of one package: ``messages`` maps each message type's
    full name to its fields, ``enums`` each enum type's full name to its values as
    ``(name, number)`` pairs. A field's ``type_name`` may name a type of ``package``
    within it, as a ``.proto`` does (``Task`` for ``lf.a2a.v1.Task``); ``fields``
    gives full names."""

    def __init__(
        self,
        messages: Mapping[str, Sequence[FieldRule]],
        enums: Mapping[str, Sequence[tuple[str, int]]],
        *,
        package: str = "",
    ) -> None:
        if package:
            known = {*messages, *enums}
            messages = {
                name: tuple(
                    (
                        replace(rule, type_name=f"{package}.{rule.type_name}")
                        if f"{package}.{rule.type_name}" in known
                        else rule
                    )
                    for rule in rules
                )
                for name, rules in messages.items()
            }
        self._rules = messages
        self._messages: dict[str, _Message] = {}
        self._enum_values = enums
        self._enums: dict[str, Callable[[object], Any]] = {}
        # The compiled checks the serving layers make (``_validate_fast.target``).
        self.compiled: dict[tuple[str, bool, str], Any] = {}

    def __contains__(self, message_type: object) -> bool:
        return message_type in self._rules

    def fields(self, message_type: str) -> Sequence[FieldRule]:
        """The fields of ``message_type`` (a full proto name); ``KeyError`` for a
        type this schema does not hold."""
        return () if message_type == _EMPTY else self._rules[message_type]

    def enum_values(self, enum_type: str) -> Sequence[tuple[str, int]]:
        """The values of ``enum_type`` as ``(name, number)`` pairs; ``KeyError`` for
        an enum this schema does not hold."""
        return self._enum_values[enum_type]

    def _message(self, type_name: str) -> _Message:
        found = self._messages.get(type_name)
        if found is None:  # compiled on first use: most of a package's types never are
            found = self._messages[type_name] = _Message(self, self.fields(type_name))
        return found

    def _enum(self, type_name: str) -> Callable[[object], Any]:
        found = self._enums.get(type_name)
        if found is None:
            found = self._enums[type_name] = _enum_check(self._enum_values[type_name])
        return found

    def validate(
        self,
        message_type: str,
        value: object,
        *,
        unknown_fields: UnknownFields = "drop",
        answer: bool = False,
    ) -> dict[str, Any]:
        """``value`` in canonical form if it is valid ProtoJSON of ``message_type``
        (a full proto name); ``ValidationError`` naming every problem otherwise.
        ``value`` itself is not changed.

        With ``answer=True`` the value is an answer a handler gives, as ProtoJSON
        prints one: a REQUIRED scalar or list may be left out at its default (it
        cannot be told from unset), a REQUIRED message must be there. (The serving
        layers check requests with ``_validate_fast.validator``, which decides as
        this does, faster in the common case.)"""
        self._arguments(message_type, unknown_fields)
        return self._walked(message_type, value, unknown_fields == "reject", answer)

    def _arguments(self, message_type: str, unknown_fields: str) -> None:
        if unknown_fields != "drop" and unknown_fields != "reject":
            raise ValueError(
                f"unknown_fields must be 'drop' or 'reject', not {unknown_fields!r}"
            )
        if message_type not in self._rules:
            raise ValueError(f"{message_type!r} is not a message type of this schema")

    def _walked(
        self, message_type: str, value: object, reject_unknown: bool, answer: bool
    ) -> dict[str, Any]:
        """``validate`` by the general walk alone, which decides every case."""
        walk = _Walk(self, reject_unknown, answer)
        result = walk.message(self._message(message_type), value, "", 1)
        if walk.violations:
            raise _refusal(message_type, walk.violations)
        return result  # type: ignore[no-any-return]

    def missing_fields(
        self, message_type: str, value: Mapping[str, Any]
    ) -> list[tuple[str, str]]:
        """Only the REQUIRED fields missing in ``value``, nested ones included, as
        ``(field path, description)`` pairs (the rest is not looked at)."""
        walk = _Walk(self, False)
        walk.message(self._message(message_type), value, "", 1)
        return sorted(walk.missing)


_MISSING = "a REQUIRED field is missing"
_UNKNOWN = "unknown field"
_SUGGESTED_KEY_CHARACTERS = 128  # a longer key is no misspelled field name
# Kinds whose presence ProtoJSON keeps: a set message field is printed, even empty.
_PRESENCE_KINDS = frozenset(
    {"message", "timestamp", "duration", "field_mask", "struct", "list_value", "any"}
)
_TOO_DEEP = f"nested more than {_MAX_DEPTH} messages deep"


_EMPTY_KINDS = (str, list, tuple)


def _present(value: object) -> bool:
    if value is None:
        return False
    if isinstance(value, (str, list, tuple)) and not value:
        return False
    return True


REPORTED_VIOLATIONS = 20
"""The most violations a refusal lists (its message says how many more there were): a
body of a few hundred thousand bad values would otherwise be answered with tens of
megabytes."""


def _refusal(
    message_type: str, violations: Sequence[tuple[str, str]]
) -> ValidationError:
    """The ``ValidationError`` listing the first ``REPORTED_VIOLATIONS`` of
    ``violations``, each path cut at ``_quoting.FIELD_PATH_CHARACTERS``."""
    shown = [
        (field_path(field), text) for field, text in violations[:REPORTED_VIOLATIONS]
    ]
    described = "; ".join(
        f"{field or '(the request)'}: {text}" for field, text in shown
    )
    if len(violations) > len(shown):
        described += f"; and {len(violations) - len(shown)} more"
    return ValidationError(f"{message_type}: invalid: {described}", shown)


class _Walk:
    """One validation: the values it has walked and what was wrong with them."""

    __slots__ = ("schema", "reject_unknown", "answer", "violations", "missing")

    def __init__(
        self, schema: Schema, reject_unknown: bool, answer: bool = False
    ) -> None:
        self.schema = schema
        self.reject_unknown = reject_unknown
        self.answer = answer
        self.violations: list[tuple[str, str]] = []
        self.missing: list[tuple[str, str]] = []  # the REQUIRED ones among them

    def fail(self, path: str, text: str) -> Any:
        self.violations.append((path, text))
        return _BAD

    def lacks(self, path: str, text: str) -> None:
        self.violations.append((path, text))
        self.missing.append((path, text))

    def duplicates(self, value: object, path: str) -> None:
        """The keys a map or ``Struct`` object named twice."""
        if isinstance(value, DuplicateKeys):
            for key in value.duplicates:
                self.fail(f"{path}[{key}]", "given twice in one object")

    def message_duplicates(self, message: _Message, value: object, path: str) -> None:
        """The fields a message object named twice, by json name."""
        if isinstance(value, DuplicateKeys):
            for key in value.duplicates:
                field = message.fields.get(key) or message.proto_fields.get(key)
                name = key if field is None else field.json_name
                self.fail(_join(path, name), "given twice in one object")

    def message(self, message: _Message, value: object, path: str, depth: int) -> Any:
        """The canonical form of one message at nesting ``depth`` (the request's is
        1), or _BAD."""
        if type(value) is not dict:
            if not isinstance(value, Mapping):
                return self.fail(path, f"expected an object, got {json_type(value)}")
            self.message_duplicates(message, value, path)
        if depth > _MAX_DEPTH:
            return self.fail(path, _TOO_DEEP)
        fields = message.fields
        out: dict[str, Any] = {}
        oneofs: dict[str, tuple[str, str]] | None = None
        failed: set[str] | None = None
        dropped: list[str] | None = None  # the unknown keys dropped
        for key, item in value.items():
            field = fields.get(key)
            if field is None:
                field = message.proto_fields.get(key)
                if field is None:
                    if self.unknown(key, item, path):
                        dropped = dropped or []
                        dropped.append(key)
                    continue
                if field.json_name in value:
                    self.fail(
                        _join(path, field.json_name),
                        f"given twice, as {field.json_name!r} and {key!r}",
                    )
                    continue
            name = field.json_name
            if item is None:
                if field.null is _REFUSED:
                    self.fail(_join(path, name), "expected an array, got null")
                    failed = failed or set()
                    failed.add(name)
                elif field.null is not _BAD:  # a Value's null, a NullValue
                    if field.oneof:
                        oneofs = {} if oneofs is None else oneofs
                        self.oneof_member(out, oneofs, field, False, path)
                    out[name] = field.null
                continue  # null: the field is absent
            if field.oneof:
                if oneofs is None:  # the first member of a oneof set
                    oneofs = {field.oneof: (name, name)}
                elif not self.oneof_member(out, oneofs, field, True, path):
                    continue
            scalar = field.scalar
            if scalar is not None:
                result = scalar(item)
                if result is not _BAD:
                    out[name] = result
                    continue
                self.fail(f"{path}.{name}" if path else name, field.problem(item))
            else:
                where = f"{path}.{name}" if path else name
                if field.singular_message:
                    target = field.target or field.resolve(self.schema)
                    result = self.message(target, item, where, depth + 1)
                else:
                    result = field.walk(self, field, item, where, depth + 1)
                if result is not _BAD:
                    out[name] = result
                    continue
            failed = failed or set()
            failed.add(name)  # reported already: not missing as well
        lacking = len(self.missing)
        self.required(message, out, failed, path)
        if dropped and len(self.missing) > lacking:
            self.strays(message, out, failed, dropped, path)
        return out

    def required(
        self,
        message: _Message,
        out: dict[str, Any],
        failed: set[str] | None,
        path: str,
    ) -> None:
        """The REQUIRED fields (and oneofs) of ``message`` that ``out``, its canonical
        form so far, lacks, but those ``failed`` (refused already)."""
        required = message.kept if self.answer else message.required
        for field in required:
            name = field.json_name
            held = out.get(name)
            # absent: None, "" or [] (a falsy 0, false or {} is there)
            if not held and (held is None or type(held) in _EMPTY_KINDS):
                if not (failed and name in failed):
                    self.lacks(_join(path, name), _MISSING)
        for oneof, members in message.oneof_required:
            for member in members:
                if _present(out.get(member)) or (failed and member in failed):
                    break
            else:
                named = [_join(path, member) for member in members]
                self.lacks(
                    named[0], f"one of {', '.join(named)} is REQUIRED (oneof {oneof})"
                )

    def strays(
        self,
        message: _Message,
        out: dict[str, Any],
        failed: set[str] | None,
        dropped: Sequence[str],
        path: str,
    ) -> None:
        """Each unknown key ``dropped`` from an object that lacks a REQUIRED field,
        named beside it (a misspelled field is the likely cause): ``unknown field``,
        with the closest field not given (``did you mean 'message'?``) where one is
        close. Only keys among the first ``REPORTED_VIOLATIONS`` violations are
        matched: the rest are never shown, and a body can hold a great many keys."""
        absent = [
            name
            for name in message.fields
            if name not in out and not (failed and name in failed)
        ]
        for key in dropped:
            close: list[str] = []
            if (
                len(self.violations) < REPORTED_VIOLATIONS
                and len(key) <= _SUGGESTED_KEY_CHARACTERS
            ):
                close = difflib.get_close_matches(key, absent, n=1)
            hint = f" (did you mean {excerpt(close[0])}?)" if close else ""
            self.fail(_join(path, key), f"{_UNKNOWN}{hint}")

    def oneof_member(
        self,
        out: dict[str, Any],
        oneofs: dict[str, tuple[str, str]],
        field: _Field,
        counted: bool,
        path: str,
    ) -> bool:
        """Records ``field`` as the member of its oneof set last; False for a second
        member that is not null (refused). The member set before it is dropped, as
        protobuf does: that happens when one of them is a null ``Value`` (set, but
        not counted)."""
        name = field.json_name
        state = oneofs.get(field.oneof)  # (the member counted, the member held)
        if state is None:
            oneofs[field.oneof] = (name if counted else "", name)
            return True
        first, held = state
        if counted and first:
            self.fail(path, f"oneof {field.oneof}: {first!r} and {name!r} are both set")
            return False
        out.pop(held, None)
        oneofs[field.oneof] = (name if counted else first, name)
        return True

    def unknown(self, key: object, item: object, path: str) -> bool:
        """A key that names no field: dropped (its value is not looked at but for
        duplicate keys), or refused. True when it was dropped."""
        if not _text(key):  # protobuf's field lookup fails on a surrogate
            self.fail(_join(path, str(key)), "the key is not valid Unicode text")
            return False
        assert isinstance(key, str)
        where = _join(path, key)
        dropped = False
        if key[:1] == "[" and _EXTENSION.match(key):
            self.fail(where, "extensions are not supported")
        elif self.reject_unknown:
            self.fail(where, _UNKNOWN)
        else:
            dropped = True
        if isinstance(item, (Mapping, list, tuple)):
            self.sent_duplicates(item, where)
        return dropped

    def element(self, field: _Field, item: object, path: str, depth: int) -> Any:
        """One value of a repeated or map field (not null)."""
        if field.convert is not None:
            result = field.convert(item)
            if result is _BAD:
                self.fail(path, field.problem(item))
            return result
        assert field.nested is not None
        return field.nested(self, field, item, path, depth)

    def repeated(self, field: _Field, item: object, path: str, depth: int) -> Any:
        if type(item) is not list and not isinstance(item, (list, tuple)):
            return self.fail(path, f"expected an array, got {json_type(item)}")
        out = []
        bad = False
        nullable = field.kind == "value"
        convert = field.convert
        target = (
            (field.target or field.resolve(self.schema)) if field.messages else None
        )
        for index, element in enumerate(item):
            if element is None and not nullable:
                self.fail(f"{path}[{index}]", "null is not a value of a repeated field")
                bad = True
                continue
            if convert is not None:  # element(), inlined for the common kinds
                result = convert(element)
                if result is _BAD:
                    self.fail(f"{path}[{index}]", field.problem(element))
            elif target is not None:
                result = self.message(target, element, f"{path}[{index}]", depth)
            else:
                result = self.element(field, element, f"{path}[{index}]", depth)
            if result is _BAD:
                bad = True
            else:
                out.append(result)
        return _BAD if bad else out

    def map(self, field: _Field, item: object, path: str, depth: int) -> Any:
        if not isinstance(item, Mapping):
            return self.fail(path, f"expected an object, got {json_type(item)}")
        self.duplicates(item, path)
        out: dict[Any, Any] = {}
        bad = False
        nullable = field.kind == "value"
        key_check = field.key
        assert key_check is not None
        for key, element in item.items():
            where = f"{path}[{key}]"
            if key_check(key) is _BAD:
                self.fail(where, f"the key is not {_KEY_TEXTS[field.key_kind]}")
                bad = True
                continue
            if element is None and not nullable:
                self.fail(where, "null is not a value of a map")
                bad = True
                continue
            result = self.element(field, element, where, depth)
            if result is _BAD:
                bad = True
            else:
                out[key] = result
        return _BAD if bad else out

    def nested_message(self, field: _Field, item: object, path: str, depth: int) -> Any:
        target = field.target or field.resolve(self.schema)
        return self.message(target, item, path, depth)

    def sent_duplicates(self, item: object, path: str) -> None:
        """Duplicate keys anywhere in JSON taken as sent (an unknown field's value, an
        ``Any`` of a type not known here): walked without recursion, as deep as the
        decoder went."""
        stack = [(item, path)]
        while stack:
            value, where = stack.pop()
            if isinstance(value, Mapping):
                if isinstance(value, DuplicateKeys):
                    for key in value.duplicates:
                        self.fail(_join(where, key), "given twice in one object")
                children = [(v, _join(where, str(k))) for k, v in value.items()]
            elif isinstance(value, (list, tuple)):
                children = [(v, f"{where}[{i}]") for i, v in enumerate(value)]
            else:
                continue
            stack.extend(reversed(children))


# --- the well-known types, walked as JSON ------------------------------------------


def _text_value(walk: _Walk, field: _Field, item: object, path: str, depth: int) -> Any:
    """A timestamp, duration or field mask: a message to protobuf (one level)."""
    if depth > _MAX_DEPTH:
        return walk.fail(path, _TOO_DEEP)
    result = _TEXT_CHECKS[field.kind](item)
    if result is _BAD:
        walk.fail(path, field.problem(item))
    return result


def _value(
    walk: _Walk, field: _Field | None, item: object, path: str, depth: int
) -> Any:
    """A ``google.protobuf.Value``: any JSON protobuf can hold, as sent."""
    if depth > _MAX_DEPTH:
        return walk.fail(path, _TOO_DEEP)
    kind = type(item)
    if kind is str:
        if _text(item):
            return item
        return walk.fail(path, "not valid Unicode: a lone surrogate")
    if kind is dict or (kind is not list and isinstance(item, Mapping)):
        return _struct(walk, field, item, path, depth + 1)
    if kind is list or kind is tuple:
        return _list_value(walk, field, item, path, depth + 1)
    if item is None or item is True or item is False or isinstance(item, float):
        return item
    if isinstance(item, int):
        try:
            float(item)
        except OverflowError:
            return walk.fail(path, "out of range for a 64-bit float")
        return item
    return walk.fail(path, f"expected a JSON value, got {json_type(item)}")


def _struct(
    walk: _Walk, field: _Field | None, item: object, path: str, depth: int
) -> Any:
    """A ``google.protobuf.Struct``: an object of JSON values, as sent."""
    if not isinstance(item, Mapping):
        return walk.fail(path, f"expected an object, got {json_type(item)}")
    if depth > _MAX_DEPTH:
        return walk.fail(path, _TOO_DEEP)
    mark = len(walk.violations)
    walk.duplicates(item, path)
    for key, element in item.items():
        where = f"{path}[{key}]"
        if not _text(key):
            walk.fail(where, "the key is not valid Unicode text")
            continue
        _value(walk, None, element, where, depth + 1)
    return item if len(walk.violations) == mark else _BAD


def _list_value(
    walk: _Walk, field: _Field | None, item: object, path: str, depth: int
) -> Any:
    """A ``google.protobuf.ListValue``: an array of JSON values, as sent."""
    if not isinstance(item, (list, tuple)):
        return walk.fail(path, f"expected an array, got {json_type(item)}")
    if depth > _MAX_DEPTH:
        return walk.fail(path, _TOO_DEEP)
    mark = len(walk.violations)
    for index, element in enumerate(item):
        _value(walk, None, element, f"{path}[{index}]", depth + 1)
    return item if len(walk.violations) == mark else _BAD


def _any(walk: _Walk, field: _Field | None, item: object, path: str, depth: int) -> Any:
    """A ``google.protobuf.Any``: a message of this schema walked as one (its
    ``@type`` beside its fields), a well-known type's JSON in ``value``, and a type
    not known here left as sent."""
    if not isinstance(item, Mapping):
        return walk.fail(path, f"expected an object, got {json_type(item)}")
    if depth > _MAX_DEPTH:
        return walk.fail(path, _TOO_DEEP)
    if not item:
        return {}  # the empty Any
    url = item.get("@type")
    type_name = url.rpartition("/")[2] if isinstance(url, str) and _text(url) else ""
    if type_name in walk.schema._rules or type_name == _EMPTY:
        message = walk.schema._message(type_name)
        walk.message_duplicates(message, item, path)
        fields = {key: value for key, value in item.items() if key != "@type"}
        checked = walk.message(message, fields, path, depth)  # no level of its own
        return _BAD if checked is _BAD else {"@type": url, **checked}
    wrapped = _ANY_PAYLOADS.get(type_name)
    if wrapped is None and type_name:  # a type not known here: left as sent
        mark = len(walk.violations)
        walk.sent_duplicates(item, path)
        return item if len(walk.violations) == mark else _BAD
    if isinstance(item, DuplicateKeys):
        for key in item.duplicates:
            walk.fail(_join(path, key), "given twice in one object")
    if url is None:
        return walk.fail(_join(path, "@type"), "an Any needs its type URL in '@type'")
    if wrapped is None:
        text = "a type URL" if _text(url) else f"a string, got {json_type(url)}"
        return walk.fail(_join(path, "@type"), f"expected {text}")
    # A well-known type: its JSON form is in "value" (the rest is ignored).
    where = _join(path, "value")
    if "value" not in item:
        return walk.fail(where, f"an Any of {type_name} has it in 'value'")
    payload = item["value"]
    if payload is None:
        if wrapped.kind != "value":
            return walk.fail(where, f"expected {type_name}, got null")
        return {"@type": url, "value": None}
    cost = 0 if wrapped.convert is not None else 1  # a wrapper: no level
    result = walk.element(wrapped, payload, where, depth + cost)
    return _BAD if result is _BAD else {"@type": url, "value": result}


def _map_key(kind: str) -> Callable[[object], Any]:
    if kind == "string":
        return _string
    if kind == "bool":
        return lambda key: key if key == "true" or key == "false" else _BAD
    return _integer_check(kind)


_SCALARS: dict[str, Callable[[object], Any]] = {
    "string": _string,
    "bool": _bool,
    "bytes": _bytes,
    "float": _float_check(True),
    "double": _float_check(False),
    "null_value": _enum_check((("NULL_VALUE", 0),), canonical_null=True),
    **{kind: _integer_check(kind) for kind in _INT_RANGES},
}
_TEXT_CHECKS = {kind: _text_check(kind) for kind in _TEXT_PROBLEMS}
_NESTED: dict[str, Callable[[_Walk, _Field, object, str, int], Any]] = {
    "message": _Walk.nested_message,
    "any": _any,
    "struct": _struct,
    "list_value": _list_value,
    "value": _value,
    **{kind: _text_value for kind in _TEXT_PROBLEMS},
}
_MAP_KEYS = {kind: _map_key(kind) for kind in ("string", "bool", *_INT_RANGES)}
_KEY_TEXTS = {
    "string": "valid Unicode text",
    "bool": "true or false",
    **{kind: f"an integer in range ({kind})" for kind in _INT_RANGES},
}

# The well-known types an Any carries as {"@type": ..., "value": <their JSON form>}.
_WRAPPED = {
    "Any": "any",
    "Duration": "duration",
    "FieldMask": "field_mask",
    "ListValue": "list_value",
    "Struct": "struct",
    "Timestamp": "timestamp",
    "Value": "value",
    "DoubleValue": "double",
    "FloatValue": "float",
    "Int64Value": "int64",
    "UInt64Value": "uint64",
    "Int32Value": "int32",
    "UInt32Value": "uint32",
    "BoolValue": "bool",
    "StringValue": "string",
    "BytesValue": "bytes",
}
_ANY_PAYLOADS = {
    f"google.protobuf.{name}": _Field(Schema({}, {}), FieldRule("value", kind))
    for name, kind in _WRAPPED.items()
}

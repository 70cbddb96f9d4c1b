"""Query-string codecs: ProtoJSON values in ``application/x-www-form-urlencoded`` form.

The generated ``query.py`` holds, per rpc, its query parameters (json path, proto path,
codec, repeated, enum, oneof) and the values of the enums they use, and hands them to
``QueryCodecs``. ``+`` is a space, escapes are strict ``%XX`` of UTF-8, names are json
names (proto names are accepted too, at every level of a dotted name), 64-bit integers
come out as decimal strings, enums by name, repeated fields as repeated keys or
comma-separated values (a comma escaped as ``%2C`` in a raw query string does not
separate), nested messages as dotted names (``a.b=1``). Every bad value raises
``QueryError``, never another exception.
"""

from __future__ import annotations

import base64
import math
import re
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any, Literal, NamedTuple, Union
from urllib.parse import unquote

from ._quoting import excerpt, field_path

__all__ = [
    "MAX_QUERY_PAIRS",
    "PARSERS",
    "Param",
    "QueryCodecs",
    "QueryError",
    "QueryInput",
    "Unknown",
    "json_name",
]

MAX_QUERY_PAIRS = 1000
"""Default limit on the number of ``name=value`` pairs one query string may hold."""

QueryInput = Union[str, bytes, Iterable[tuple[str, str]]]
"""A raw query string (as sent, without ``?``), or name/value pairs already decoded."""

Unknown = Literal["ignore", "reject"]
"""What ``decode`` does with a parameter that names no field."""


class QueryError(ValueError):
    """A query (or path) parameter that cannot be read.

    ``field`` is the json name of the field (or the parameter as sent, when it names
    none), ``value`` the text received, ``reason`` what is wrong with it. The message
    quotes an excerpt of ``value`` (see ``_quoting``).
    """

    def __init__(self, field: str, value: str, reason: str) -> None:
        self.field = field
        self.value = value
        self.reason = reason
        # The field violation: the field as an error names it (a parameter the
        # client sent may be huge), and what is wrong, the value quoted.
        self.violation = (field_path(field), f"{reason} (got {excerpt(value)})")
        super().__init__(": ".join(self.violation))

    @property
    def description(self) -> str:
        """What is wrong, with an excerpt of the value: the violation's text."""
        return self.violation[1]

    def to_bad_request(self) -> dict[str, Any]:
        """The error as a ``google.rpc.BadRequest`` detail for a ``google.rpc.Status``."""
        field, description = self.violation
        return {
            "@type": "type.googleapis.com/google.rpc.BadRequest",
            "fieldViolations": [{"field": field, "description": description}],
        }


class Param(NamedTuple):
    """One query parameter of an rpc: a scalar, enum or well-known-scalar field,
    possibly inside singular nested messages (``config.pageSize``).

    ``codec`` is one of int32, uint32, int64, uint64, float, double, bool, string, bytes,
    enum, timestamp, duration, field_mask; ``enum`` names the enum type of the ``enum``
    codec; ``oneof`` is the oneof the field belongs to (``""`` for none), as
    ``parent.path:name``.
    """

    json_path: tuple[str, ...]
    proto_path: tuple[str, ...]
    codec: str
    repeated: bool = False
    enum: str = ""
    oneof: str = ""


_MALFORMED_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_FLOAT = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_NON_FINITE = frozenset({"NaN", "Infinity", "-Infinity"})
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]*={0,2}\Z")
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]{1,9}))?(?:[Zz]|([+\- ])([0-9]{2}):([0-9]{2}))\Z"
)
_DURATION = re.compile(r"(-)?([0-9]{1,12})(?:\.([0-9]{1,9}))?s\Z")
_FIELD_MASK_PATH = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)*\Z")


def form_text(field: str, raw: str) -> str:
    """One ``application/x-www-form-urlencoded`` name or value, decoded strictly."""
    if "+" in raw:
        raw = raw.replace("+", " ")
    if "%" not in raw:
        return raw
    if _MALFORMED_ESCAPE.search(raw):
        raise QueryError(field, raw, "malformed percent escape")
    try:
        return unquote(raw, errors="strict")
    except UnicodeError:
        raise QueryError(field, raw, "not valid UTF-8") from None


def query_pairs(
    query: QueryInput, max_pairs: int
) -> tuple[Iterable[tuple[str, str, str]], bool]:
    """The pairs of a query as (decoded name, separator, value), as ``str.partition``
    splits ``name=value``, for one pass, and whether the values still need
    form-decoding (only when the raw query holds a ``%`` or a ``+`` at all)."""
    if not isinstance(query, str):
        if not isinstance(query, bytes):
            return _given_pairs(query, max_pairs), False
        try:
            query = query.decode("utf-8")
        except UnicodeDecodeError:
            raise QueryError(
                "", repr(query), "query string is not valid UTF-8"
            ) from None
    if "&" not in query and max_pairs:  # the usual query of one pair, or none
        pairs = [query.partition("=")] if query else []
    else:
        parts = query.split("&", max_pairs)
        if len(parts) > max_pairs:
            raise QueryError("", query, f"more than {max_pairs} query parameters")
        # Empty parts ("a=1&&b=2") are no pairs.
        pairs = [part.partition("=") for part in parts if part]
    if "%" not in query and "+" not in query:
        return pairs, False
    return [(form_text(name, name), sep, value) for name, sep, value in pairs], True


def _given_pairs(
    query: Iterable[tuple[str, str]], max_pairs: int
) -> list[tuple[str, str, str]]:
    """Pairs given already decoded, checked, as ``query_pairs`` gives them."""
    decoded: list[tuple[str, str, str]] = []
    for pair in query:
        if len(decoded) >= max_pairs:
            raise QueryError("", "", f"more than {max_pairs} query parameters")
        if (
            not isinstance(pair, tuple)
            or len(pair) != 2
            or not isinstance(pair[0], str)
            or not isinstance(pair[1], str)
        ):
            raise QueryError("", repr(pair), "query pairs must be (str, str) tuples")
        decoded.append((pair[0], "=", pair[1]))
    return decoded


def _integers(low: int, high: int) -> Callable[[str, str], int]:
    """The codec of the decimal integers (optional ``-``, ASCII digits only) within
    ``low..high``."""
    short = len(str(high)) - 1  # digits of a number below ``high`` whatever they are

    def parse(field: str, text: str) -> int:
        if len(text) <= short and text.isdigit() and text.isascii():
            return int(text)  # the usual case: a few digits, within range (low <= 0)
        negative = text[:1] == "-"
        digits = text[1:] if negative else text
        if not (digits.isascii() and digits.isdigit()):
            reason = (
                "empty value; expected an integer"
                if not text
                else "not a decimal integer"
            )
            raise QueryError(field, text, reason)
        if len(digits) > 20:  # leading zeros, or out of range (int() refuses 4,300)
            digits = digits.lstrip("0")
            if len(digits) > 20:
                raise QueryError(field, text, f"out of range {low}..{high}")
            number = -int(digits or "0") if negative else int(digits or "0")
        else:
            number = int(text)
        if not low <= number <= high:
            raise QueryError(field, text, f"out of range {low}..{high}")
        return number

    return parse


_int32 = _integers(-(2**31), 2**31 - 1)
_uint32 = _integers(0, 2**32 - 1)
_int64_number = _integers(-(2**63), 2**63 - 1)
_uint64_number = _integers(0, 2**64 - 1)


def _int64(field: str, text: str) -> str:
    return str(_int64_number(field, text))


def _uint64(field: str, text: str) -> str:
    return str(_uint64_number(field, text))


def _double(field: str, text: str) -> float | str:
    """A decimal or exponent number, or ``NaN``/``Infinity``/``-Infinity`` (kept as the
    strings ProtoJSON uses)."""
    if text in _NON_FINITE:
        return text
    if not _FLOAT.match(text):
        reason = "empty value; expected a number" if not text else "not a number"
        raise QueryError(field, text, reason)
    number = float(text)
    if math.isinf(number):
        raise QueryError(field, text, "out of range")
    return number


def _float(field: str, text: str) -> float | str:
    """A 32-bit float: the number rounded to float32, an error if that overflows."""
    number = _double(field, text)
    if isinstance(number, str):
        return number
    try:
        return float(struct.unpack("<f", struct.pack("<f", number))[0])
    except OverflowError:
        raise QueryError(field, text, "out of range for a 32-bit float") from None


def _bool(field: str, text: str) -> bool:
    """``true``/``false`` in any case, or ``1``/``0``."""
    lowered = text.lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise QueryError(field, text, "not a boolean (true, false, 1 or 0)")


def _string(field: str, text: str) -> str:
    return text


def _bytes(field: str, text: str) -> str:
    """Standard or url-safe base64, padded or not; written back as standard, padded."""
    text = text.replace(" ", "+")  # a "+" the sender did not escape arrives as a space
    body = text.rstrip("=")
    if not _BASE64.match(text) or len(body) % 4 == 1:
        raise QueryError(field, text, "not base64")
    standard = body.replace("-", "+").replace("_", "/") + "=" * (-len(body) % 4)
    return base64.b64encode(base64.b64decode(standard)).decode("ascii")


def _fraction(nanos: int) -> str:
    """Nanoseconds as protobuf prints them: no digits, or 3, 6 or 9."""
    if nanos == 0:
        return ""
    if nanos % 1_000_000 == 0:
        return f".{nanos // 1_000_000:03d}"
    if nanos % 1_000 == 0:
        return f".{nanos // 1_000:06d}"
    return f".{nanos:09d}"


def _timestamp(field: str, text: str) -> str:
    """RFC 3339 with any offset, written back in UTC with ``Z`` (years 0001 to 9999)."""
    found = _TIMESTAMP.match(text)
    if found is None:
        raise QueryError(field, text, "not an RFC 3339 timestamp")
    fraction, sign, off_h, off_m = found.group(7, 8, 9, 10)
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    # The pattern fixed the shape: the date is text[:10], HH:MM:SS text[11:19], and
    # equal-length digit strings compare as their numbers do.
    clock = text[11:19]
    try:
        day = date.fromisoformat(text[:10])  # the calendar's own check of the date
        if clock[:2] > "23" or clock[3:5] > "59" or clock[6:] > "59":
            raise ValueError("time out of range")
        if sign is None:  # already UTC: the validated digits are the answer
            if fraction is None and text[10] == "T" and text[19] == "Z":
                return text  # written as protobuf writes it
            return f"{text[:10]}T{clock}{_fraction(nanos)}Z"
        if off_h > "23" or off_m > "59":
            raise ValueError("offset out of range")
        moment = datetime(
            day.year,
            day.month,
            day.day,
            int(clock[:2]),
            int(clock[3:5]),
            int(clock[6:]),
        )
        offset = timedelta(hours=int(off_h), minutes=int(off_m))
        # A space is a "+" that was not escaped in the query string.
        moment = moment - offset if sign in "+ " else moment + offset
    except (ValueError, OverflowError):
        raise QueryError(field, text, "not a valid date and time") from None
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}{_fraction(nanos)}Z"
    )


def _duration(field: str, text: str) -> str:
    """Seconds with up to 9 fractional digits and an ``s``, e.g. ``1.5s``."""
    found = _DURATION.match(text)
    if found is None:
        raise QueryError(field, text, "not a duration such as 1.5s")
    negative, seconds_text, fraction = found.groups()
    seconds = int(seconds_text)
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    if seconds > 315_576_000_000:  # protobuf bounds the seconds, as here
        raise QueryError(field, text, "out of range (at most 10,000 years)")
    sign = "-" if negative and (seconds or nanos) else ""
    return f"{sign}{seconds}{_fraction(nanos)}s"


def json_name(proto_name: str) -> str:
    """protoc's default json name of a field: ``_`` dropped, the letter after it
    upper-cased (``push_notifications`` is ``pushNotifications``)."""
    head, *rest = proto_name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _field_mask(field: str, text: str) -> str:
    """Comma-separated field paths, written back in camelCase."""
    paths = text.split(",")
    if not all(_FIELD_MASK_PATH.match(path) for path in paths):
        raise QueryError(field, text, "not a field mask (comma-separated field paths)")
    return ",".join(
        ".".join(json_name(part) for part in path.split(".")) for path in paths
    )


PARSERS: dict[str, Callable[[str, str], Any]] = {
    # Each codec: (field, text) to the ProtoJSON value, or QueryError.
    "bool": _bool,
    "bytes": _bytes,
    "double": _double,
    "duration": _duration,
    "field_mask": _field_mask,
    "float": _float,
    "int32": _int32,
    "int64": _int64,
    "string": _string,
    "timestamp": _timestamp,
    "uint32": _uint32,
    "uint64": _uint64,
}


def _as_text(field: str, value: object) -> str:
    """A ProtoJSON value as the text a query carries."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    raise QueryError(field, repr(value), "cannot be written in a query string")


def _written(value: object) -> str:
    """A decoded value back as query text (the inverse of the codecs)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else repr(value)


def _enum_value(values: Mapping[str, str], enum: str, field: str, text: str) -> str:
    """An enum value by name, or by the number of a defined value: its name."""
    name = values.get(text)
    if name is not None:
        return name
    digits = text[1:] if text[:1] == "-" else text
    if digits.isascii() and digits.isdigit() and len(digits) < 12:
        name = values.get(str(int(text)))
    if name is None:
        raise QueryError(field, text, f"not a value of {enum}")
    return name


def _parser(
    param: Param, enums: Mapping[str, Mapping[str, str]]
) -> Callable[[str, str], Any] | None:
    """How ``decode`` reads a parameter's text: None for a string (the text itself)."""
    if param.codec == "string":
        return None
    if param.codec == "enum":
        return partial(_enum_value, enums[param.enum], param.enum)
    return PARSERS[param.codec]


# A name trie: each spelling of a level (json or proto name) leads to the next level or,
# at the last level, to the index of the parameter; the flag tells the json spelling.
_Trie = dict[str, tuple[bool, Union[int, "_Trie"]]]


class _Slot(NamedTuple):
    """How ``decode`` stores one parameter: under the messages ``parents`` as ``key``,
    named ``field`` in errors, read by ``parse`` (None for a string, which is its text).
    """

    parents: tuple[str, ...]
    key: str
    field: str
    parse: Callable[[str, str], Any] | None
    repeated: bool


class _RpcQuery:
    """One rpc's parameters with the trie that resolves their names and its oneofs,
    and how ``decode`` stores each (``top`` by the undotted names that spell one)."""

    __slots__ = ("params", "fields", "names", "oneofs", "slots", "top")

    def __init__(
        self, params: Sequence[Param], enums: Mapping[str, Mapping[str, str]]
    ) -> None:
        self.params = tuple(params)
        self.fields = tuple(".".join(param.json_path) for param in self.params)
        self.names: _Trie = {}
        oneofs: dict[str, list[int]] = {}
        for index, param in enumerate(self.params):
            level = self.names
            last = len(param.json_path) - 1
            for depth, (json_part, proto_part) in enumerate(
                zip(param.json_path, param.proto_path)
            ):
                if depth == last:
                    level[json_part] = (True, index)
                    level.setdefault(proto_part, (False, index))
                    break
                entry = level.get(json_part)
                child = entry[1] if entry is not None else {}
                assert isinstance(child, dict)  # nested names never end a parameter
                level[json_part] = (True, child)
                level.setdefault(proto_part, (False, child))
                level = child
            if param.oneof:
                oneofs.setdefault(param.oneof, []).append(index)
        self.oneofs = tuple((name, tuple(members)) for name, members in oneofs.items())
        self.slots = tuple(
            _Slot(
                param.json_path[:-1],
                param.json_path[-1],
                field,
                _parser(param, enums),
                param.repeated,
            )
            for param, field in zip(self.params, self.fields)
        )
        self.top = {
            name: self.slots[found]
            for name, (_, found) in self.names.items()
            if isinstance(found, int)
        }

    def resolve(self, name: str) -> int | None:
        """The parameter a (decoded) query name spells, if any."""
        entry = self.names.get(name)
        if entry is None and "." in name:
            level: _Trie | None = self.names
            for part in name.split("."):
                # A parameter ends the name: "pageSize.x" names nothing.
                entry = level.get(part) if level is not None else None
                if entry is None:
                    break
                level = entry[1] if isinstance(entry[1], dict) else None
        if entry is None or not isinstance(entry[1], int):
            return None
        return entry[1]

    def leaves(
        self, request: Mapping[str, Any], rpc: str
    ) -> list[tuple[int, bool, object]]:
        """Every (parameter, spelled by json names, value) in a request dict; a key that
        names no parameter at any depth is an error, so nothing is dropped."""
        found: list[tuple[int, bool, object]] = []
        stack: list[tuple[Mapping[str, Any], _Trie, str, bool]] = [
            (request, self.names, "", True)
        ]
        while stack:
            holder, level, prefix, json_spelled = stack.pop()
            for key, value in holder.items():
                name = prefix + str(key)
                entry = level.get(key) if isinstance(key, str) else None
                target = entry[1] if entry is not None else None
                is_json = json_spelled and entry is not None and entry[0]
                if isinstance(target, int):
                    found.append((target, is_json, value))
                elif isinstance(target, dict) and isinstance(value, Mapping):
                    stack.append((value, target, name + ".", is_json))
                else:
                    raise QueryError(
                        name, "", f"{rpc} has no query parameter of this name"
                    )
        return found


class QueryCodecs:
    """The query codecs of one package.

    ``rpcs`` maps each rpc whose routes carry a query to its parameters in field order;
    ``enums`` maps each enum type's full name to its values (``name -> name`` and
    ``"number" -> name``); ``body_fields`` gives, for each rpc with a ``body: "*"``
    route, the json and proto names of its request's fields; names in
    ``service_params`` (lower case) are the protocol's own and never fields.
    """

    def __init__(
        self,
        rpcs: Mapping[str, Sequence[Param]],
        enums: Mapping[str, Mapping[str, str]],
        body_fields: Mapping[str, frozenset[str]],
        *,
        service_params: frozenset[str] = frozenset(),
        max_pairs: int = MAX_QUERY_PAIRS,
    ) -> None:
        self._rpcs = {rpc: _RpcQuery(params, enums) for rpc, params in rpcs.items()}
        self.rpcs = frozenset(rpcs)  # the rpcs whose routes carry a query string
        self._enums = enums
        self._body_fields = body_fields
        self._service_params = service_params
        self.max_pairs = max_pairs

    def _rpc(self, rpc: str) -> _RpcQuery:
        found = self._rpcs.get(rpc)
        if found is None:
            raise ValueError(f"rpc {rpc!r} has no route that carries a query string")
        return found

    def parse_value(self, codec: str, field: str, text: str, enum: str = "") -> Any:
        """One decoded value (a path parameter, say) as ProtoJSON. ``codec`` names a
        codec (``int64``, ``timestamp``...); ``enum`` names the enum type for ``enum``.
        """
        if codec == "enum":
            return _enum_value(self._enums[enum], enum, field, text)
        return PARSERS[codec](field, text)

    def _unknown(self, name: str, value: str, raw: bool, unknown: Unknown) -> None:
        """A parameter that names no field: still well-formed, or an error."""
        text = form_text(name, value) if raw else value
        if unknown == "reject" and name.lower() not in self._service_params:
            raise QueryError(name, text, "unknown query parameter")

    def decode(
        self,
        rpc: str,
        query: QueryInput,
        *,
        unknown: Unknown = "ignore",
        max_pairs: int | None = None,
    ) -> dict[str, Any]:
        """Decode the query string of ``rpc`` into a ProtoJSON dict."""
        table = self._rpcs.get(rpc) or self._rpc(rpc)
        pairs, raw = query_pairs(
            query, self.max_pairs if max_pairs is None else max_pairs
        )
        result: dict[str, Any] = {}
        top = table.top
        for name, _, value in pairs:
            slot = top.get(name)
            if slot is None:
                index = table.resolve(name)  # a dotted name, or none
                if index is None:
                    self._unknown(name, value, raw, unknown)
                    continue
                slot = table.slots[index]
            parents, key, field, parse, repeated = slot
            target = result
            if parents:
                for part in parents:
                    child = target.get(part)
                    if child is None:
                        child = target[part] = {}
                    target = child
            if repeated:
                items = target.setdefault(key, [])
                for part in value.split(","):
                    text = form_text(field, part) if raw else part
                    items.append(text if parse is None else parse(field, text))
                continue
            text = form_text(field, value) if raw else value
            decoded = text if parse is None else parse(field, text)
            if target.setdefault(key, decoded) != decoded:
                raise QueryError(
                    field,
                    text,
                    f"given twice with different values ({excerpt(target[key])} first)",
                )
        for oneof, members in table.oneofs:
            present = [
                table.fields[i]
                for i in members
                if _lookup(result, table.params[i].json_path) is not None
            ]
            if len(present) > 1:
                raise QueryError(
                    present[1],
                    "",
                    f"oneof {oneof.partition(':')[2]} already set by {present[0]}",
                )
        return result

    def encode(self, rpc: str, request: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The query pairs for ``request`` (decoded text, json names, field order,
        repeated fields as repeated keys). Raises ``QueryError`` for a key that is no
        query parameter or a value that is not valid for its field."""
        table = self._rpc(rpc)
        chosen: dict[int, tuple[bool, object]] = {}
        for index, json_spelled, value in table.leaves(request, rpc):
            if index not in chosen or (json_spelled and not chosen[index][0]):
                chosen[index] = (json_spelled, value)
        pairs: list[tuple[str, str]] = []
        for index in sorted(chosen):
            param = table.params[index]
            name = ".".join(param.json_path)
            value = chosen[index][1]
            if value is None:
                continue
            items = (
                value
                if param.repeated and isinstance(value, (list, tuple))
                else (value,)
            )
            for item in items:
                text = _as_text(name, item)
                if param.codec != "string":
                    text = _written(
                        self.parse_value(param.codec, name, text, param.enum)
                    )
                pairs.append((name, text))
        return pairs

    def reject_fields(
        self,
        rpc: str,
        query: QueryInput,
        *,
        unknown: Unknown = "ignore",
        max_pairs: int | None = None,
    ) -> None:
        """For a ``body: "*"`` route: every field travels in the body, so a query
        parameter naming a request field is an error; others are ignored or rejected
        per ``unknown``."""
        pairs, raw = query_pairs(
            query, self.max_pairs if max_pairs is None else max_pairs
        )
        fields = self._body_fields.get(rpc, frozenset())
        for name, _, value in pairs:
            if name.split(".")[0] in fields:
                raise QueryError(
                    name,
                    form_text(name, value) if raw else value,
                    "this route takes the whole request as its body",
                )
            self._unknown(name, value, raw, unknown)


def _lookup(result: Mapping[str, Any], path: tuple[str, ...]) -> object:
    node: object = result
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node

"""ProtoJSON dicts as protobuf messages and back, faster than ``json_format``.

``MessageReader`` reads a message's set fields (``ListFields``, C in upb) into the dict
``json_format.MessageToDict`` prints, for the plain kinds (strings, bools, integers,
finite doubles, bytes, enums by a known value, messages, lists of those); a message
holding anything else (a float, a map, a well-known type's own message, an extension,
an enum number no value has) is printed by ``MessageToDict`` itself, that message only.
Its ``parser`` reads a message's bytes straight into that dict, with no message made,
where they hold only plain kinds (strings, enums by a known number, bools, varint
integers, messages, lists of strings and of messages) and every REQUIRED field of the
package's tables; it leaves anything else to protobuf's parser (an unknown field, a
field given twice where protobuf merges, bytes protobuf refuses).

``json_format.ParseDict`` is pure Python and walks every field through its descriptor;
the constructor of a message class (protobuf's C implementation, upb) takes keyword
arguments by proto name, nested dicts for message fields, lists for repeated ones, enum
values by name and a ``Struct`` as a dict. ``MessageBuilder`` renames the canonical
form (what validation hands over, what handlers answer: json names, enums by name,
64-bit integers as decimal strings, timestamps, durations and field masks as their
JSON text) into those arguments with the package's validation tables, which say each
field's proto name and kind.

The rule is that the message built is the one ``ParseDict(value, message_class())``
builds, and fails where it fails: whatever the fast path does not know to be exact
(proto names as keys, enum numbers, 64-bit integers as numbers written oddly, bytes,
``ListValue``, ``Any``, wrappers, maps with non-string keys, floats beyond a
32-bit float, two members of a oneof, nulls in lists, unknown fields) goes to
``ParseDict`` for the whole message instead.

``MessageEncoder`` writes the canonical form as wire bytes itself for the plain kinds
(strings and lists of them, enums by name, bools, varint integers, doubles, messages
and lists of them, timestamps, durations, field masks, structs and values), field by
field in the dict's order, which every protobuf reader takes; anything else is built
by ``MessageBuilder`` and serialized. Writing makes no message object only to
serialize it.

All three work through a function per message type, compiled on first use as the
validator's plain case is (``_compiling.compiled``): a chain of comparisons on the
key (the field's descriptor itself, for the reader) with the field's conversion inline, instead of a walk
that looks each field's rule up and branches on its kind.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import math
import os
import struct
import sys
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

from google.protobuf import duration_pb2, field_mask_pb2, json_format, struct_pb2
from google.protobuf import timestamp_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from ._compiling import compiled
from ._validate import FieldRule, Schema
from ._validate_fast import Target

__all__ = [
    "CONVERSION_THREADS",
    "LARGE_MESSAGE_BYTES",
    "LARGE_VALUE_ITEMS",
    "MessageBuilder",
    "MessageReader",
    "is_large",
    "is_repeated",
    "read_varint",
    "off_loop",
]

T = TypeVar("T")


class _Unsure(Exception):
    """A value the fast path cannot build exactly: ``ParseDict`` builds it."""


_FLOAT32_MAX = 3.4028234663852886e38
_TEXT_TYPES: dict[str, Any] = {
    "timestamp": timestamp_pb2.Timestamp,
    "duration": duration_pb2.Duration,
    "field_mask": field_mask_pb2.FieldMask,
}
_INTEGERS = frozenset({"int32", "uint32", "int64", "uint64"})
# ParseDict refuses a value nested more than 100 messages deep (a Struct level costs
# two: its Struct and its Value); deeper than this, it decides.
_MAX_DEPTH = 64


def _plain_json(value: object, depth: int) -> bool:
    """Whether a ``Struct``'s value holds only what it takes as ParseDict does: text
    keys, strings, finite numbers, booleans, null, lists and objects, not too deep."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if (kind is int or kind is float) and isinstance(value, (int, float)):
        try:
            return abs(float(value)) <= 1.7976931348623157e308  # not NaN or beyond
        except OverflowError:
            return False
    if depth > _MAX_DEPTH:
        return False
    if kind is dict:
        assert isinstance(value, dict)
        return all(
            type(key) is str and _plain_json(item, depth + 2)
            for key, item in value.items()
        )
    if kind is list:
        assert isinstance(value, list)
        return all(_plain_json(item, depth + 2) for item in value)
    return False


def _integer(value: object) -> int:
    if type(value) is int:
        return value
    if type(value) is str and value.isascii():
        digits = value[1:] if value[:1] == "-" else value
        if digits.isdigit():
            return int(value)
    raise _Unsure


def _scalar(kind: str, value: object) -> Any:
    """A scalar field's value as the constructor takes it, or _Unsure."""
    if kind == "string":
        if type(value) is str:
            return value
    elif kind == "bool":
        if value is True or value is False:
            return value
    elif kind in _INTEGERS:
        return _integer(value)
    elif kind == "double" or kind == "float":
        if type(value) is float or type(value) is int:
            try:
                number = float(value)
            except OverflowError:
                raise _Unsure from None
            limit = _FLOAT32_MAX if kind == "float" else 1.7976931348623157e308
            if -limit <= number <= limit:  # not NaN, not beyond the type
                return value
    elif kind in _TEXT_TYPES:
        if type(value) is str:
            message = _TEXT_TYPES[kind]()
            try:
                message.FromJsonString(value)
            except ValueError:
                raise _Unsure from None
            return message
    raise _Unsure


def _json_value(value: object) -> struct_pb2.Value:
    """A ``google.protobuf.Value`` holding plain JSON (see ``_plain_json``)."""
    if value is None:
        return struct_pb2.Value(null_value=struct_pb2.NULL_VALUE)
    if value is True or value is False:
        return struct_pb2.Value(bool_value=value)
    if type(value) is str:
        return struct_pb2.Value(string_value=value)
    if type(value) is dict:  # the constructor takes a dict for a Struct
        return struct_pb2.Value(struct_value=cast(Any, value))
    if type(value) is list:
        holder = struct_pb2.Value()
        holder.list_value.SetInParent()  # an empty list is a list still
        holder.list_value.extend(value)
        return holder
    assert isinstance(value, (int, float))
    return struct_pb2.Value(number_value=value)


def _plain_struct(value: object, depth: int) -> dict[str, Any]:
    """A ``Struct`` field's value of a message at nesting ``depth``, as the
    constructor takes it (the dict), when it is plain JSON; else _Unsure."""
    if type(value) is dict and _plain_json(value, depth + 1):
        return value
    raise _Unsure


def _plain_value(value: object, depth: int) -> struct_pb2.Value:
    """A ``Value`` field's value of a message at nesting ``depth`` as a message, when
    it is plain JSON; else _Unsure."""
    if _plain_json(value, depth + 1):
        return _json_value(value)
    raise _Unsure


# --- the compiled functions ---------------------------------------------------------
#
# Each message type gets a function compiled on first use (as the validator's plain
# case is, see ``_validate_fast``), built from fixed snippets and numbered local names
# only: json names, proto names, enum names and converters arrive as values bound to
# those locals, so nothing from a proto reaches the source text.

_BUILD_STORE: dict[str, list[str]] = {
    "string": [
        "if type(item) is not str:",
        "    raise Unsure",
        "out[p{i}] = item",
    ],
    "enum": [
        "if type(item) is not str or item not in n{i}:",
        "    raise Unsure",
        "out[p{i}] = item",
    ],
    "bool": [
        "if item is not True and item is not False:",
        "    raise Unsure",
        "out[p{i}] = item",
    ],
    "message": ["out[p{i}] = t{i}.check(item, depth + 1)"],
    "messages": [
        "if type(item) is not list:",
        "    raise Unsure",
        "out[p{i}] = [t{i}.check(element, depth + 1) for element in item]",
    ],
    "values": [
        "if type(item) is not list:",
        "    raise Unsure",
        "out[p{i}] = [c{i}(element, depth) for element in item]",
    ],
    "map": [
        "if type(item) is not dict:",
        "    raise Unsure",
        "out[p{i}] = {{name: c{i}(entry, depth) for name, entry in item.items()}}",
    ],
    "value": ["out[p{i}] = c{i}(item, depth)"],
    "unsure": ["raise Unsure"],
}


class MessageBuilder:
    """Builds messages from ProtoJSON dicts with ``schema`` (the package's validation
    tables) saying each field's proto name and kind."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._targets: dict[str, Target] = {}

    def build(
        self, message_class: type[Message], type_name: str, value: Mapping[str, Any]
    ) -> Message:
        """The message of ``message_class`` (of proto type ``type_name``) that
        ``json_format.ParseDict(value, message_class())`` gives; its ``ParseError``
        where it fails."""
        target = self._targets.get(type_name) or self._target(type_name)
        try:
            arguments = target.check(value, 1)
        except _Unsure:
            arguments = None
        if arguments is not None:
            try:  # the constructor refuses what it cannot hold: so may ParseDict
                return message_class(**arguments)
            except (TypeError, ValueError):
                pass
        message = message_class()
        json_format.ParseDict(value if type(value) is dict else dict(value), message)
        return message

    def _target(self, type_name: str) -> Target:
        found = self._targets.get(type_name)
        if found is None:
            found = self._targets[type_name] = Target(lambda: self._compile(type_name))
        return found

    def _compile(self, type_name: str) -> Callable[[Any, int], dict[str, Any]]:
        """The constructor's arguments from a ``type_name`` dict at nesting ``depth``,
        or ``_Unsure``: the keys json names, each value of its field's kind."""
        rules = self.schema.fields(type_name)
        flags: dict[str, str] = {}  # a local per oneof: a member was given
        for rule in rules:
            if rule.oneof:
                flags.setdefault(rule.oneof, f"o{len(flags)}")
        absent = frozenset(  # fields whose null is their absence
            rule.json_name
            for rule in rules
            if not rule.repeated and rule.kind not in ("value", "null_value")
        )
        bound: dict[str, Any] = {"Unsure": _Unsure, "absent": absent}
        body = [
            "def run(value, depth):",
            "    if type(value) is not dict or depth > MAX_DEPTH:",
            "        raise Unsure",
            "    out = {}",
            *(f"    {flag} = False" for flag in flags.values()),
            "    for key, item in value.items():",
            "        if item is None:",
            "            if key in absent:",
            "                continue",
            "            raise Unsure",
        ]
        for i, rule in enumerate(rules):
            bound[f"k{i}"] = rule.json_name
            bound[f"p{i}"] = rule.proto_name
            shape = self._shape(rule)
            if shape in ("message", "messages"):
                bound[f"t{i}"] = self._target(rule.type_name)
            elif shape in ("values", "map", "value"):
                bound[f"c{i}"] = self._converter(rule)
            elif shape == "enum":
                bound[f"n{i}"] = self._names(rule.type_name)
            body.append(f"        {'if' if i == 0 else 'elif'} key == k{i}:")
            if rule.oneof:
                flag = flags[rule.oneof]
                body += [
                    f"            if {flag}:",
                    "                raise Unsure",  # ParseDict refuses the second
                    f"            {flag} = True",
                ]
            body += ["            " + line.format(i=i) for line in _BUILD_STORE[shape]]
        if rules:  # a proto name, or no field: ParseDict says which
            body += ["        else:", "            raise Unsure"]
        else:
            body.append("        raise Unsure")
        body.append("    return out")
        bound["MAX_DEPTH"] = _MAX_DEPTH
        built: Callable[[Any, int], dict[str, Any]] = compiled(
            "<building of one message type>", body, bound
        )
        return built

    def _names(self, enum_type: str) -> frozenset[str]:
        """The value names of ``enum_type``."""
        return frozenset(name for name, _ in self.schema.enum_values(enum_type))

    @staticmethod
    def _shape(rule: FieldRule) -> str:
        """Which snippet takes ``rule``'s field."""
        if rule.map_key:
            return "map" if rule.map_key == "string" else "unsure"
        if rule.repeated:
            return "messages" if rule.kind == "message" else "values"
        if rule.kind in ("string", "enum", "bool", "message"):
            return rule.kind
        return "value"

    def _converter(self, rule: FieldRule) -> Callable[[object, int], Any]:
        """One value of ``rule``'s field (an element of a repeated or map one) of a
        message at nesting ``depth``, or ``_Unsure``."""
        kind = rule.kind
        if kind == "message":
            target = self._target(rule.type_name)
            return lambda value, depth: target.check(value, depth + 1)
        if kind == "enum":
            names = self._names(rule.type_name)

            def enum(value: object, depth: int) -> Any:
                if type(value) is str and value in names:
                    return value
                raise _Unsure

            return enum
        if kind == "struct":
            return _plain_struct
        if kind == "value":
            return _plain_value

        def scalar(value: object, depth: int) -> Any:
            if value is None:
                raise _Unsure
            return _scalar(kind, value)

        return scalar


# --- messages as ProtoJSON dicts ---------------------------------------------------


def is_repeated(field: Any) -> bool:
    """Whether a ``FieldDescriptor`` (upb's or the Python one) is repeated."""
    found = getattr(field, "is_repeated", None)  # protobuf >= 6; ``label`` before
    return bool(found if found is not None else field.label == field.LABEL_REPEATED)


def _is_required(field: Any) -> bool:
    """Whether a ``FieldDescriptor`` is proto2's ``required``."""
    found = getattr(field, "is_required", None)  # protobuf >= 6; ``label`` before
    return bool(found if found is not None else field.label == field.LABEL_REQUIRED)


# What MessageReader does with a field's values: as they are, as decimal text, ...
_AS_IS, _TEXT, _DOUBLE, _BYTES, _ENUM, _MESSAGE, _PRINTED, _STRING = range(8)
_F = FieldDescriptor
_HOW: dict[int, int] = {
    _F.TYPE_STRING: _STRING,
    _F.TYPE_BOOL: _AS_IS,
    _F.TYPE_INT32: _AS_IS,
    _F.TYPE_SINT32: _AS_IS,
    _F.TYPE_SFIXED32: _AS_IS,
    _F.TYPE_UINT32: _AS_IS,
    _F.TYPE_FIXED32: _AS_IS,
    _F.TYPE_INT64: _TEXT,
    _F.TYPE_SINT64: _TEXT,
    _F.TYPE_SFIXED64: _TEXT,
    _F.TYPE_UINT64: _TEXT,
    _F.TYPE_FIXED64: _TEXT,
    _F.TYPE_DOUBLE: _DOUBLE,
    _F.TYPE_BYTES: _BYTES,
    _F.TYPE_ENUM: _ENUM,
    _F.TYPE_MESSAGE: _MESSAGE,
}
# A message of these types has a JSON form of its own: MessageToDict prints it.
_OWN_FORM = "google.protobuf."


_READ_STORE: dict[tuple[int, bool], list[str]] = {
    # A string protobuf did not check (proto2's, or an editions field without UTF-8
    # validation) that is not UTF-8 comes as bytes: MessageToDict prints those.
    (_STRING, False): [
        "if type(value) is not str:",
        "    return printed(message)",
        "out[k{i}] = value",
    ],
    (_STRING, True): [
        "for item in value:",
        "    if type(item) is not str:",
        "        return printed(message)",
        "out[k{i}] = list(value)",
    ],
    (_AS_IS, False): ["out[k{i}] = value"],
    (_AS_IS, True): ["out[k{i}] = list(value)"],
    (_TEXT, False): ["out[k{i}] = str(value)"],
    (_TEXT, True): ["out[k{i}] = [str(item) for item in value]"],
    (_MESSAGE, False): ["out[k{i}] = t{i}.check(value)"],
    (_MESSAGE, True): ["out[k{i}] = [t{i}.check(item) for item in value]"],
    (_PRINTED, False): ["out[k{i}] = printed(value)"],
    (_PRINTED, True): ["out[k{i}] = [printed(item) for item in value]"],
    (_ENUM, False): [
        "if value not in n{i}:",
        "    return printed(message)",  # a number no value has
        "out[k{i}] = n{i}[value]",
    ],
    (_ENUM, True): [
        "for item in value:",
        "    if item not in n{i}:",
        "        return printed(message)",
        "out[k{i}] = [n{i}[item] for item in value]",
    ],
    (_BYTES, False): ["out[k{i}] = b64encode(value).decode()"],
    (_BYTES, True): ["out[k{i}] = [b64encode(item).decode() for item in value]"],
    (_DOUBLE, False): [
        "if not isfinite(value):",
        "    return printed(message)",  # NaN and the infinities are text
        "out[k{i}] = value",
    ],
    (_DOUBLE, True): [
        "for item in value:",
        "    if not isfinite(item):",
        "        return printed(message)",
        "out[k{i}] = list(value)",
    ],
}


# The snippets that read one field's value off the wire: the length-delimited kinds
# from ``data[pos:stop]``, the varint ones from ``n``.
_WIRE_LENGTH: dict[str, list[str]] = {
    "string": ["out[k{i}] = data[pos:stop].decode()"],
    "strings": [
        "s = data[pos:stop].decode()",
        "found = out.get(k{i})",
        "if found is None:",
        "    out[k{i}] = [s]",
        "else:",
        "    found.append(s)",
    ],
    "message": [
        "if k{i} in out:",
        "    raise Unsure",  # protobuf merges the two
        "out[k{i}] = t{i}.check(data, pos, stop, depth + 1)",
    ],
    "messages": [
        "m = t{i}.check(data, pos, stop, depth + 1)",
        "found = out.get(k{i})",
        "if found is None:",
        "    out[k{i}] = [m]",
        "else:",
        "    found.append(m)",
    ],
}
_WIRE_VARINT: dict[str, list[str]] = {
    "enum": [
        "name = n{i}.get(n)",
        "if name is None:",
        "    raise Unsure",  # a number no value has
        "out[k{i}] = name",
    ],
    "bool": ["out[k{i}] = n != 0"],
    "integer": ["out[k{i}] = c{i}(n)"],
}
# The same for a field without presence: its default (the last value given) is left
# out, as MessageToDict leaves it.
_WIRE_IMPLICIT: dict[str, list[str]] = {
    "string": [
        "s = data[pos:stop].decode()",
        "if s:",
        "    out[k{i}] = s",
        "else:",
        "    out.pop(k{i}, None)",
    ],
    "enum": [
        *_WIRE_VARINT["enum"][:3],
        "if n:",
        "    out[k{i}] = name",
        "else:",
        "    out.pop(k{i}, None)",
    ],
    "bool": ["if n:", "    out[k{i}] = True", "else:", "    out.pop(k{i}, None)"],
    "integer": [
        "v = c{i}(n)",
        "if v != z{i}:",
        "    out[k{i}] = v",
        "else:",
        "    out.pop(k{i}, None)",
    ],
}
_WIRE_INTEGERS: dict[int, tuple[Callable[[int], Any], Any]] = {
    # a varint's value as the kind reads it (its low bits), and the kind's zero
    _F.TYPE_INT32: (lambda n: ((n & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000, 0),
    _F.TYPE_UINT32: (lambda n: n & 0xFFFFFFFF, 0),
    _F.TYPE_INT64: (lambda n: str((n ^ 1 << 63) - (1 << 63)), "0"),
    _F.TYPE_UINT64: (str, "0"),
}
_WIRE_DEPTH = 32
"""How deep the bytes reader reads nested messages: a deeper one is protobuf's to
read, whose limit (100) is then the one that counts."""


def read_varint(data: bytes, at: int, most: int = 10) -> tuple[int, int]:
    """The varint at ``data[at]`` and the index past it: ``IndexError`` where the
    data ends first, ``ValueError`` for one over 64 bits or longer than ``most``
    bytes (protobuf reads a tag or a length in at most 5, a value in at most 10)."""
    value = shift = 0
    last = 7 * (most - 1)
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            if value >> 64:
                raise ValueError("a varint over 64 bits")
            return value, at
        shift += 7
        if shift > last:
            raise ValueError(f"a varint over {most} bytes")


def _unsure_wire(data: bytes, pos: int, end: int, depth: int) -> Any:
    raise _Unsure


def _not_plain(descriptor: Any) -> bool:
    """Whether ``descriptor``'s messages are always left to protobuf by the bytes
    reader and writer: a type with a JSON form of its own, one with proto2's
    ``required`` fields (protobuf checks them), one whose fields share a json name
    (as ``deprecated_legacy_json_field_conflicts`` allows; which field a key names
    is then protobuf's choice)."""
    fields = descriptor.fields
    return (
        descriptor.full_name.startswith(_OWN_FORM)
        or any(_is_required(field) for field in fields)
        or len({field.json_name for field in fields}) < len(fields)
    )


def _once(flags: Mapping[str, str], field: Any) -> list[str]:
    """The lines that take a member of a oneof (its local flag in ``flags``, by the
    oneof's name) once: a second member is unsure (``ParseDict`` refuses it,
    protobuf's parser keeps the last)."""
    flag = flags[field.containing_oneof.name]
    return [f"if {flag}:", "    raise Unsure", f"{flag} = True"]


def _target_in(
    targets: dict[Any, Target], descriptor: Any, compile: Callable[[Any], Any]
) -> Target:
    """The ``Target`` of ``descriptor`` in ``targets``, made once: ``compile`` gives
    its function when first called."""
    found = targets.get(descriptor)
    if found is None:
        found = targets[descriptor] = Target(lambda: compile(descriptor))
    return found


class MessageReader:
    """Reads messages into the ProtoJSON dicts ``json_format.MessageToDict`` gives
    (json names, enums by name, 64-bit integers as decimal strings, defaults left
    out), with a function compiled once per message type."""

    def __init__(self, schema: Schema | None = None) -> None:
        self.schema = schema
        # by descriptor, not name: two pools can each define a type of one name
        self._targets: dict[Any, Target] = {}
        self._wires: dict[Any, Target] = {}  # the readers of bytes, as parser's
        self._parsers: dict[tuple[type[Message], Any, Any], Callable[[bytes], Any]] = {}

    def read(self, message: Message) -> dict[str, Any]:
        """``json_format.MessageToDict(message)``."""
        found: dict[str, Any] = self.reader(message.DESCRIPTOR).check(message)
        return found

    def reader(self, descriptor: Any) -> Target:
        """The reader of ``descriptor``'s messages: its ``check(message)`` is
        ``read(message)``, for a caller that reads one type again and again."""
        return self._target(descriptor)

    def parser(
        self,
        message_class: type[Message],
        valid: Callable[[dict[str, Any]], Any] | None = None,
        refused: Callable[[Exception], Exception] | None = None,
    ) -> Callable[[bytes], Any]:
        """``read(message_class.FromString(raw))`` as a function of ``raw`` (raising
        what ``FromString`` raises), for a caller that reads one type again and
        again: bytes that hold only the plain kinds and every field the reader's
        ``schema`` says is REQUIRED (see ``_compile_wire``) are read straight into
        the dict, with no message made (its keys in the order the bytes give the
        fields: by number as protobuf writes them, ``read``'s order); protobuf parses
        the rest, and ``valid`` (the schema's validation of the message type) is
        given what ``read`` reads of it. So with both, what the parser gives is
        what validation gives: a dict read straight holds nothing it refuses or
        changes (strings are valid UTF-8, enums known names, no REQUIRED field
        missing, nested no deeper than ``_WIRE_DEPTH``).

        Bytes that are no such message (protobuf's ``DecodeError``, or an ``Any``
        of a type no pool knows) raise ``refused(error)`` where it is given."""
        key = (message_class, valid, refused)
        found = self._parsers.get(key)
        if found is None:
            found = self._parsers[key] = self._parser(message_class, valid, refused)
        return found

    def _parser(
        self,
        message_class: type[Message],
        valid: Callable[[dict[str, Any]], Any] | None,
        refused: Callable[[Exception], Exception] | None,
    ) -> Callable[[bytes], Any]:
        descriptor = message_class.DESCRIPTOR
        wire = _target_in(self._wires, descriptor, self._compile_wire)
        read = self._target(descriptor)
        from_string = message_class.FromString

        def parse(raw: bytes) -> Any:
            try:
                return wire.check(raw, 0, len(raw), 1)
            except (_Unsure, IndexError, ValueError):  # ValueError: bad UTF-8 too
                pass
            try:
                found = read.check(from_string(raw))
            except Exception as exc:
                if refused is None:
                    raise
                raise refused(exc) from None
            return found if valid is None else valid(found)

        return parse

    def _target(self, descriptor: Any) -> Target:
        return _target_in(self._targets, descriptor, self._compile)

    def _compile_wire(self, descriptor: Any) -> Callable[[bytes, int, int, int], Any]:
        """The dict of the ``descriptor`` message in ``data[pos:end]`` at nesting
        ``depth``, read off the wire, or ``_Unsure``: for strings (valid UTF-8),
        enums by a known value, bools, 32- and 64-bit varint integers, messages and
        lists of strings and of messages, each field once (a list's elements aside,
        and a scalar, whose last value counts, as protobuf's), nested no deeper than
        ``_WIRE_DEPTH``; anything else (another kind, an unknown field or wire type,
        a message or a oneof given twice, which protobuf merges, bytes that end
        early, a REQUIRED field of ``schema``'s not there or at its default) is
        unsure, and protobuf parses the whole message."""
        if _not_plain(descriptor):
            return _unsure_wire
        bound: dict[str, Any] = {
            "Unsure": _Unsure,
            "varint": read_varint,
            "WIRE_DEPTH": _WIRE_DEPTH,
        }
        flags = {
            field.containing_oneof.name: f"o{i}"
            for i, field in enumerate(descriptor.fields)
            if field.containing_oneof is not None
        }
        lengths: list[str] = []  # the branches of length-delimited fields
        varints: list[str] = []  # and of varint ones
        for i, field in enumerate(descriptor.fields):
            shape = self._wire_shape(field, bound, i)
            if shape is None:
                continue  # its tag is no known one: unsure
            branch = lengths if shape in _WIRE_LENGTH else varints
            bound[f"k{i}"] = sys.intern(field.json_name)  # as literals are
            branch.append(f"{'if' if not branch else 'elif'} tag == g{i}:")
            if field.containing_oneof is not None:
                branch += ["    " + line for line in _once(flags, field)]
            lines = _WIRE_LENGTH.get(shape) or _WIRE_VARINT[shape]
            if shape in _WIRE_IMPLICIT and not field.has_presence:
                lines = _WIRE_IMPLICIT[shape]
            branch += ["    " + line.format(i=i) for line in lines]
        for branch in (lengths, varints):
            branch += ["else:", "    raise Unsure"] if branch else ["raise Unsure"]
        body = [
            "def run(data, pos, end, depth):",
            "    if depth > WIRE_DEPTH:",
            "        raise Unsure",
            "    out = {}",
            *(f"    {flag} = False" for flag in dict.fromkeys(flags.values())),
            "    while pos < end:",
            "        tag = data[pos]",
            "        pos += 1",
            "        if tag > 127:",
            "            tag, pos = varint(data, pos - 1, 5)",
            "        n = data[pos]",
            "        pos += 1",
            "        if tag & 7 == 2:",
            "            if n > 127:",
            "                n, pos = varint(data, pos - 1, 5)",
            "            stop = pos + n",
            "            if stop > end:",
            "                raise Unsure",
            *("            " + line for line in lengths),
            "            pos = stop",
            "        elif tag & 7 == 0:",
            "            if n > 127:",
            "                n, pos = varint(data, pos - 1)",
            "            if pos > end:",
            "                raise Unsure",
            *("            " + line for line in varints),
            "        else:",
            "            raise Unsure",
            *self._required(descriptor, bound),
            "    return out",
        ]
        reading: Callable[[bytes, int, int, int], Any] = compiled(
            "<reading of one message type's bytes>", body, bound
        )
        return reading

    def _required(self, descriptor: Any, bound: dict[str, Any]) -> list[str]:
        """The lines that check, once the fields are read, that a ``descriptor``
        message holds a value of each field ``schema`` says is REQUIRED (of one
        member of a oneof with REQUIRED members), their names bound."""
        if self.schema is None or descriptor.full_name not in self.schema:
            return []
        groups: dict[tuple[str, str], list[str]] = {}
        for rule in self.schema.fields(descriptor.full_name):
            if rule.required:
                group = ("oneof", rule.oneof) if rule.oneof else ("", rule.json_name)
                groups.setdefault(group, []).append(rule.json_name)
        lines: list[str] = []
        for j, names in enumerate(groups.values()):
            held = []
            for m, name in enumerate(names):
                bound[f"r{j}_{m}"] = name
                held.append(f"out.get(r{j}_{m})")
            lines += [f"    if not ({' or '.join(held)}):", "        raise Unsure"]
        return lines

    def _wire_shape(self, field: Any, bound: dict[str, Any], i: int) -> str | None:
        """Which snippet reads ``field`` (the ``i``-th) off the wire, its values and
        tag (``g{i}``) bound; None for a field left to protobuf."""
        kind, repeated = field.type, is_repeated(field)
        shape: str | None = None
        if kind == _F.TYPE_STRING:
            shape = "strings" if repeated else "string"
        elif kind == _F.TYPE_MESSAGE:
            target = field.message_type
            if target.GetOptions().map_entry or target.full_name.startswith(_OWN_FORM):
                return None
            bound[f"t{i}"] = _target_in(self._wires, target, self._compile_wire)
            shape = "messages" if repeated else "message"
        elif repeated:
            return None  # packed or not: protobuf reads both
        elif kind == _F.TYPE_ENUM and not field.enum_type.full_name.startswith(
            _OWN_FORM
        ):
            names: dict[int, str] = {}
            for value in field.enum_type.values:  # a negative one: 64-bit on the wire
                names.setdefault(value.number % (1 << 64), value.name)
            bound[f"n{i}"] = names
            shape = "enum"
        elif kind == _F.TYPE_BOOL:
            shape = "bool"
        elif kind in _WIRE_INTEGERS:
            bound[f"c{i}"], bound[f"z{i}"] = _WIRE_INTEGERS[kind]
            shape = "integer"
        else:
            return None  # bytes, floats, doubles, the zigzag and fixed integers
        wire = 2 if shape in _WIRE_LENGTH else 0
        bound[f"g{i}"] = field.number << 3 | wire
        return shape

    def _compile(self, descriptor: Any) -> Callable[[Message], Any]:
        """The dict of a ``descriptor`` message, from its set fields (``ListFields``)
        by descriptor; ``MessageToDict``'s for a type whose JSON form is its own or a
        field the function does not plan (a float, a map, a group, an extension)."""
        if descriptor.full_name.startswith(_OWN_FORM):
            printed: Callable[[Message], Any] = json_format.MessageToDict
            return printed
        bound: dict[str, Any] = {
            "printed": json_format.MessageToDict,
            "b64encode": base64.b64encode,
            "isfinite": math.isfinite,
        }
        body = [
            "def run(message):",
            "    out = {}",
            "    for field, value in message.ListFields():",
        ]
        planned = 0
        for field in descriptor.fields:
            how = _HOW.get(field.type)
            if how is None:
                continue  # a float, a group: printed by MessageToDict
            if how == _MESSAGE:
                target = field.message_type
                if target.GetOptions().map_entry:
                    continue
                if target.full_name.startswith(_OWN_FORM):
                    how = _PRINTED
            i = planned
            if how == _ENUM:
                enum = field.enum_type
                if enum.full_name.startswith(_OWN_FORM):
                    continue  # NullValue: printed as null
                names: dict[int, str] = {}
                for value in enum.values:
                    names.setdefault(value.number, value.name)  # an alias: the first
                bound[f"n{i}"] = names
            elif how == _MESSAGE:
                bound[f"t{i}"] = self._target(field.message_type)
            # ListFields gives the type's own field descriptors (protobuf keeps one
            # object per field): an identity test, no attribute read
            bound[f"f{i}"] = field
            bound[f"k{i}"] = sys.intern(field.json_name)  # as literals are
            body.append(f"        {'if' if i == 0 else 'elif'} field is f{i}:")
            store = _READ_STORE[how, is_repeated(field)]
            body += ["            " + line.format(i=i) for line in store]
            planned += 1
        if planned:  # an extension is no field of the type's
            body += ["        else:", "            return printed(message)"]
        else:
            body.append("        return printed(message)")
        body.append("    return out")
        reading: Callable[[Message], Any] = compiled(
            "<reading of one message type>", body, bound
        )
        return reading


# --- ProtoJSON dicts as wire bytes ---------------------------------------------------

_SMALL = [bytes((n,)) for n in range(128)]  # a varint below 128 is its one byte


def varint_bytes(number: int) -> bytes:
    """``number`` as a protobuf varint (a negative one as its 64-bit two's complement,
    ten bytes, as int32, int64 and enum fields write it)."""
    if number < 0:
        number += 1 << 64
    if number < 128:
        return _SMALL[number]
    out = bytearray()
    while number > 127:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _double_bytes(value: object) -> bytes:
    """A finite double's eight bytes (fixed64 wire type), or _Unsure."""
    return _PACK_DOUBLE(_scalar("double", value))


_PACK_DOUBLE = struct.Struct("<d").pack
_RANGES = {  # the integers each varint kind holds
    _F.TYPE_INT32: (-(1 << 31), 1 << 31),
    _F.TYPE_UINT32: (0, 1 << 32),
    _F.TYPE_INT64: (-(1 << 63), 1 << 63),
    _F.TYPE_UINT64: (0, 1 << 64),
}
_LENGTH = [  # b, length-delimited: a short one joined to its tag and length at once
    "if (n := len(b)) < 128:",
    "    out.append(h{i}[n] + b)",
    "else:",
    "    out += (w{i}, varint(n), b)",
]


_LENGTH_SHAPES = ("string", "strings", "message", "messages", "converted")


def _indented(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


@functools.cache
def _prefixes(tag: bytes) -> list[bytes]:
    """``tag`` followed by each length below 128, the field's ``h{i}``: one table
    per tag, shared by the fields that write it."""
    return [tag + small for small in _SMALL]


_WRITE: dict[str, list[str]] = {
    "string": [
        "if type(item) is not str:",
        "    raise Unsure",
        "b = item.encode()",
        *_LENGTH,
    ],
    "strings": [
        "if type(item) is not list:",
        "    raise Unsure",
        "for element in item:",
        "    if type(element) is not str:",
        "        raise Unsure",
        "    b = element.encode()",
        *_indented(_LENGTH),
    ],
    "enum": [  # n{i}: each name's bytes, tag and number (none for 0 without presence)
        "b = n{i}.get(item) if type(item) is str else None",
        "if b is None:",
        "    raise Unsure",
        "out.append(b)",
    ],
    "bool": [
        "if item is not True and item is not False:",
        "    raise Unsure",
        "out += (w{i}, small[item])",
    ],
    "integer": [
        "n = integer(item)",
        "if not r{i}[0] <= n < r{i}[1]:",
        "    raise Unsure",
        "out += (w{i}, varint(n))",
    ],
    "double": ["out += (w{i}, double(item))"],
    "message": ["b = t{i}.check(item, depth + 1)", *_LENGTH],
    "messages": [
        "if type(item) is not list:",
        "    raise Unsure",
        "for element in item:",
        "    b = t{i}.check(element, depth + 1)",
        *_indented(_LENGTH),
    ],
    "converted": ["b = c{i}(item, depth)", *_LENGTH],
    "unsure": ["raise Unsure"],
}
# The same for a field without presence (proto3's plain scalars): its default is left
# unwritten, as protobuf leaves it (a double's 0, whose sign protobuf keeps, is left to
# the fallback).
_IMPLICIT: dict[str, list[str]] = {
    "string": [*_WRITE["string"][:3], "if b:", *_indented(_LENGTH)],
    "bool": [
        "if item is True:",
        "    out += (w{i}, small[1])",
        "elif item is not False:",
        "    raise Unsure",
    ],
    "integer": [*_WRITE["integer"][:3], "if n:", "    out += (w{i}, varint(n))"],
    "double": ["if item == 0:", "    raise Unsure", "out += (w{i}, double(item))"],
}


class MessageEncoder:
    """Writes ProtoJSON dicts as protobuf's wire bytes, with a function compiled once
    per message type from its descriptor, for the plain kinds (strings, enums by
    name, bools, 32- and 64-bit varint integers, doubles, messages, lists of strings
    and of messages, timestamps, durations, field masks, structs and values of plain
    JSON); a value holding anything else is built as ``MessageBuilder.build`` (or,
    without one, ``json_format.ParseDict``) builds it and serialized. The bytes
    parse to the message that ``ParseDict`` builds (fields in the dict's order, which
    protobuf's readers take in any), and it fails where that fails or where
    protobuf's serializer refuses the message (a proto2 ``required`` field unset)."""

    def __init__(self, builder: MessageBuilder | None = None) -> None:
        self.builder = builder
        self._targets: dict[Any, Target] = {}  # by descriptor, as the reader's
        self._writers: dict[type[Message], Callable[[Mapping[str, Any]], bytes]] = {}

    def encode(self, message_class: type[Message], value: Mapping[str, Any]) -> bytes:
        """The wire bytes of ``value``, a ``message_class`` message's ProtoJSON."""
        return self.writer(message_class)(value)

    def writer(
        self, message_class: type[Message]
    ) -> Callable[[Mapping[str, Any]], bytes]:
        """``encode`` of ``message_class`` as a function of the value, for a caller
        that writes one type again and again."""
        found = self._writers.get(message_class)
        if found is None:
            found = self._writers[message_class] = self.preparing_writer(
                message_class, None
            )
        return found

    def preparing_writer(
        self,
        message_class: type[Message],
        prepare: Callable[[Any], Mapping[str, Any]] | None,
    ) -> Callable[[Any], bytes]:
        """``writer(message_class)`` of a value that may first need ``prepare``,
        which is given every value but a plain dict (a dict of the plain kinds,
        written as it is) and must leave such a dict as it is: a caller's own
        conversion of what it was given (a mapping copied, a wrong type refused)
        costs nothing on the usual value."""
        target = self._target(message_class.DESCRIPTOR)
        built = self._built

        def write(value: Any) -> bytes:
            try:
                written: bytes = target.check(value, 1)
                return written
            except (_Unsure, UnicodeEncodeError):  # a lone surrogate: not UTF-8
                return built(
                    message_class, value if prepare is None else prepare(value)
                )

        return write

    def _built(self, message_class: type[Message], value: Mapping[str, Any]) -> bytes:
        """The bytes of a value that is not plain: built as a message, serialized."""
        if self.builder is not None:
            type_name = message_class.DESCRIPTOR.full_name
            message = self.builder.build(message_class, type_name, value)
        else:
            message = message_class()
            json_format.ParseDict(
                value if type(value) is dict else dict(value), message
            )
        encoded: bytes = message.SerializeToString()
        return encoded

    def _target(self, descriptor: Any) -> Target:
        return _target_in(self._targets, descriptor, self._compile)

    def _compile(self, descriptor: Any) -> Callable[[Any, int], bytes]:
        """The bytes of a ``descriptor`` dict at nesting ``depth``, or ``_Unsure``;
        a type whose JSON form is its own (a well-known type) is always unsure."""
        if _not_plain(descriptor):
            return _unsure
        bound: dict[str, Any] = {
            "Unsure": _Unsure,
            "small": _SMALL,
            "varint": varint_bytes,
            "integer": _integer,
            "double": _double_bytes,
            "MAX_DEPTH": _MAX_DEPTH,
        }
        fields = descriptor.fields
        flags = {
            field.containing_oneof.name: f"o{i}"
            for i, field in enumerate(fields)
            if field.containing_oneof is not None
        }
        bound["absent"] = frozenset(  # fields whose null is their absence
            field.json_name
            for field in fields
            if not is_repeated(field) and self._kind(field) not in _NULLABLE
        )
        body = [
            "def run(value, depth):",
            "    if type(value) is not dict or depth > MAX_DEPTH:",
            "        raise Unsure",
            "    out = []",
            *(f"    {flag} = False" for flag in dict.fromkeys(flags.values())),
            "    for key, item in value.items():",
            "        if item is None:",
            "            if key in absent:",
            "                continue",
            "            raise Unsure",
        ]
        for i, field in enumerate(fields):
            shape = self._shape(field, bound, i)
            bound[f"k{i}"] = sys.intern(field.json_name)  # as literals are
            if shape in _LENGTH_SHAPES:
                bound[f"h{i}"] = _prefixes(bound[f"w{i}"])
            body.append(f"        {'if' if i == 0 else 'elif'} key == k{i}:")
            if field.containing_oneof is not None:
                body += ["            " + line for line in _once(flags, field)]
            lines = _WRITE[shape]
            if shape in _IMPLICIT and not field.has_presence:
                lines = _IMPLICIT[shape]
            body += ["            " + line.format(i=i) for line in lines]
        if fields:  # a proto name, or no field: the fallback says which
            body += ["        else:", "            raise Unsure"]
        else:
            body.append("        raise Unsure")
        body.append("    return b''.join(out)")
        written: Callable[[Any, int], bytes] = compiled(
            "<writing of one message type>", body, bound
        )
        return written

    @staticmethod
    def _kind(field: Any) -> str:
        """The full name of ``field``'s message or enum type, ``""`` for a scalar."""
        if field.type == _F.TYPE_MESSAGE:
            return str(field.message_type.full_name)
        if field.type == _F.TYPE_ENUM:
            return str(field.enum_type.full_name)
        return ""

    def _shape(self, field: Any, bound: dict[str, Any], i: int) -> str:
        """Which snippet writes ``field`` (the ``i``-th), its values bound."""
        kind, repeated = field.type, is_repeated(field)
        bound[f"w{i}"] = varint_bytes(field.number << 3 | _WIRE_TYPES.get(kind, 0))
        if kind == _F.TYPE_STRING:
            return "strings" if repeated else "string"
        if kind == _F.TYPE_MESSAGE:
            target = field.message_type
            if target.GetOptions().map_entry:
                return "unsure"
            converter = _CONVERTERS.get(target.full_name)
            if converter is not None and not repeated:
                bound[f"c{i}"] = converter
                return "converted"
            if target.full_name.startswith(_OWN_FORM):
                return "unsure"
            bound[f"t{i}"] = self._target(target)
            return "messages" if repeated else "message"
        if repeated:
            return "unsure"  # packed or not, by syntax and option: protobuf writes them
        if kind == _F.TYPE_ENUM and not field.enum_type.full_name.startswith(_OWN_FORM):
            tag, implicit = bound[f"w{i}"], not field.has_presence
            bound[f"n{i}"] = {
                value.name: (
                    b""
                    if implicit and not value.number
                    else tag + varint_bytes(value.number)
                )
                for value in field.enum_type.values
            }
            return "enum"
        if kind == _F.TYPE_BOOL:
            return "bool"
        if kind in _RANGES:
            bound[f"r{i}"] = _RANGES[kind]
            return "integer"
        if kind == _F.TYPE_DOUBLE:
            return "double"
        return "unsure"  # bytes, float, the zigzag and fixed integers, NullValue


_NULLABLE = ("google.protobuf.Value", "google.protobuf.NullValue")
_WIRE_TYPES = {  # the wire type of each kind written that is not a varint (0)
    _F.TYPE_STRING: 2,
    _F.TYPE_MESSAGE: 2,
    _F.TYPE_DOUBLE: 1,
}


def _unsure(value: object, depth: int) -> bytes:
    raise _Unsure


def _text_message(kind: str) -> Callable[[object, int], bytes]:
    def convert(value: object, depth: int) -> bytes:
        encoded: bytes = _scalar(kind, value).SerializeToString()
        return encoded

    return convert


def _struct_bytes(value: object, depth: int) -> bytes:
    message = struct_pb2.Struct()
    message.update(_plain_struct(value, depth))
    encoded: bytes = message.SerializeToString()
    return encoded


def _value_bytes(value: object, depth: int) -> bytes:
    encoded: bytes = _plain_value(value, depth).SerializeToString()
    return encoded


_CONVERTERS: dict[str, Callable[[object, int], bytes]] = {
    "google.protobuf.Timestamp": _text_message("timestamp"),
    "google.protobuf.Duration": _text_message("duration"),
    "google.protobuf.FieldMask": _text_message("field_mask"),
    "google.protobuf.Struct": _struct_bytes,
    "google.protobuf.Value": _value_bytes,
}


# --- large messages off the event loop ---------------------------------------------

LARGE_MESSAGE_BYTES = 8 * 1024
"""A serialized message longer than this is converted on a worker thread: at the
densest (``parts`` of empty objects, two bytes each) reading it takes about 1 ms."""

LARGE_VALUE_ITEMS = 4096
"""A ProtoJSON value holding more values than this (object members and list elements,
at any depth) is built on a worker thread: about 1 ms of building."""

CONVERSION_THREADS = 2
"""The worker threads large conversions share: at most this many large messages are
held in both forms at once; the rest wait their turn, and small calls go on."""

_WORKERS = ThreadPoolExecutor(CONVERSION_THREADS, thread_name_prefix="a2a-convert")
"""Started on first use: a package that converts nothing large runs no thread."""


def _workers_after_fork() -> None:
    # A forked child (a pre-forking server) has none of its parent's threads: the
    # inherited pool would take work no thread ever runs, so the child gets its own.
    global _WORKERS
    _WORKERS = ThreadPoolExecutor(CONVERSION_THREADS, thread_name_prefix="a2a-convert")


if hasattr(os, "register_at_fork"):  # POSIX; elsewhere no process forks
    os.register_at_fork(after_in_child=_workers_after_fork)


def is_large(value: object, limit: int = LARGE_VALUE_ITEMS) -> bool:
    """Whether ``value`` holds more than ``limit`` values (object members and list
    elements, at any depth); counting stops as soon as it is known."""
    left = limit
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is dict:
            left -= len(item)
            if left < 0:
                return True
            pending.extend(item.values())
        elif type(item) is list:
            left -= len(item)
            if left < 0:
                return True
            pending.extend(item)
    return False


async def off_loop(convert: Callable[..., T], *args: Any) -> T:
    """``convert(*args)`` on one of the ``CONVERSION_THREADS`` shared workers, while
    the event loop serves other calls. A cancelled caller stops waiting; the
    conversion itself runs to its end and its result is dropped."""
    return await asyncio.get_running_loop().run_in_executor(_WORKERS, convert, *args)

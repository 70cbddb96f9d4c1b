"""ProtoJSON dicts as protobuf messages and back, faster than ``json_format``.

``MessageReader`` reads a message's set fields (``ListFields``, C in upb) into the dict
``json_format.MessageToDict`` prints, for the plain kinds (strings, bools, integers,
finite doubles, bytes, enums by a known value, messages, lists of those); a message
holding anything else (a float, a map, a well-known type's own message, an extension,
an enum number no value has) is printed by ``MessageToDict`` itself, that message only.

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
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping
from typing import Any, NamedTuple, cast

from google.protobuf import duration_pb2, field_mask_pb2, json_format, struct_pb2
from google.protobuf import timestamp_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from ._validate import FieldRule, Schema

__all__ = ["MessageBuilder", "MessageReader", "is_repeated"]


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


class MessageBuilder:
    """Builds messages from ProtoJSON dicts with ``schema`` (the package's validation
    tables) saying each field's proto name and kind."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._fields: dict[str, dict[str, FieldRule]] = {}
        self._enums: dict[str, frozenset[str]] = {}

    def build(
        self, message_class: type[Message], type_name: str, value: Mapping[str, Any]
    ) -> Message:
        """The message of ``message_class`` (of proto type ``type_name``) that
        ``json_format.ParseDict(value, message_class())`` gives; its ``ParseError``
        where it fails."""
        try:
            arguments = self._arguments(type_name, value, 1)
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

    def _rules(self, type_name: str) -> dict[str, FieldRule]:
        found = self._fields.get(type_name)
        if found is None:
            found = self._fields[type_name] = {
                rule.json_name: rule for rule in self.schema.fields(type_name)
            }
        return found

    def _names(self, type_name: str) -> frozenset[str]:
        found = self._enums.get(type_name)
        if found is None:
            found = self._enums[type_name] = frozenset(
                name for name, _ in self.schema.enum_values(type_name)
            )
        return found

    def _arguments(self, type_name: str, value: object, depth: int) -> dict[str, Any]:
        if type(value) is not dict or depth > _MAX_DEPTH:
            raise _Unsure
        rules = self._rules(type_name)
        arguments: dict[str, Any] = {}
        oneofs: set[str] | None = None
        for key, item in value.items():
            rule = rules.get(key)
            if rule is None:
                raise _Unsure  # a proto name, or no field: ParseDict says which
            if item is None:
                if rule.repeated or rule.kind in ("value", "null_value"):
                    raise _Unsure
                continue  # null: the field is absent
            if rule.oneof:
                if oneofs is None:
                    oneofs = {rule.oneof}
                elif rule.oneof in oneofs:
                    raise _Unsure  # ParseDict refuses the second member
                else:
                    oneofs.add(rule.oneof)
            if rule.map_key:
                if rule.map_key != "string" or type(item) is not dict:
                    raise _Unsure
                arguments[rule.proto_name] = {
                    name: self._value(rule, entry, depth)
                    for name, entry in item.items()
                }
            elif rule.repeated:
                if type(item) is not list:
                    raise _Unsure
                arguments[rule.proto_name] = [
                    self._value(rule, entry, depth) for entry in item
                ]
            elif rule.kind == "string" and type(item) is str:
                arguments[rule.proto_name] = item  # the common cases, without a call
            elif rule.kind == "message":
                arguments[rule.proto_name] = self._arguments(
                    rule.type_name, item, depth + 1
                )
            else:
                arguments[rule.proto_name] = self._value(rule, item, depth)
        return arguments

    def _value(self, rule: FieldRule, value: object, depth: int) -> Any:
        """One value of a field (an element of a repeated or map one) of a message at
        nesting ``depth``."""
        kind = rule.kind
        if kind == "message":
            return self._arguments(rule.type_name, value, depth + 1)
        if kind == "enum":
            if type(value) is str and value in self._names(rule.type_name):
                return value
            raise _Unsure
        if kind == "struct":
            if type(value) is dict and _plain_json(value, depth + 1):
                return value
            raise _Unsure
        if kind == "value":
            if _plain_json(value, depth + 1):
                return _json_value(value)
            raise _Unsure
        if value is None:
            raise _Unsure
        return _scalar(kind, value)


# --- messages as ProtoJSON dicts ---------------------------------------------------


def is_repeated(field: Any) -> bool:
    """Whether a ``FieldDescriptor`` (upb's or the Python one) is repeated."""
    found = getattr(field, "is_repeated", None)  # protobuf >= 6; ``label`` before
    return bool(found if found is not None else field.label == field.LABEL_REPEATED)


# What MessageReader does with a field's values: as they are, as decimal text, ...
_AS_IS, _TEXT, _DOUBLE, _BYTES, _ENUM, _MESSAGE, _PRINTED = range(7)
_F = FieldDescriptor
_HOW: dict[int, int] = {
    _F.TYPE_STRING: _AS_IS,
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


class _Field(NamedTuple):
    json_name: str
    how: int
    repeated: bool
    # an enum's value names by number
    names: Mapping[int, str]


class MessageReader:
    """Reads messages into the ProtoJSON dicts ``json_format.MessageToDict`` gives
    (json names, enums by name, 64-bit integers as decimal strings, defaults left
    out), with the fields of each message type planned once."""

    def __init__(self) -> None:
        self._plans: dict[type, dict[int, _Field] | None] = {}

    def read(self, message: Message) -> dict[str, Any]:
        """``json_format.MessageToDict(message)``."""
        found: dict[str, Any] = self._message(message)
        return found

    def _plan(self, message_class: type, descriptor: Any) -> dict[int, _Field] | None:
        """The plain fields of a message class by number (an extension's number is
        no field's); None for a type whose JSON form is its own."""
        name = descriptor.full_name
        plan: dict[int, _Field] | None = None
        if not name.startswith(_OWN_FORM):
            plan = {}
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
                names: dict[int, str] = {}
                if how == _ENUM:
                    enum = field.enum_type
                    if enum.full_name.startswith(_OWN_FORM):
                        continue  # NullValue: printed as null
                    for value in enum.values:
                        names.setdefault(value.number, value.name)  # an alias: first
                plan[field.number] = _Field(
                    field.json_name, how, is_repeated(field), names
                )
        self._plans[message_class] = plan
        return plan

    def _message(self, message: Message) -> Any:
        kind = type(message)
        plan = (
            self._plans[kind]
            if kind in self._plans
            else self._plan(kind, message.DESCRIPTOR)
        )
        if plan is None:
            return json_format.MessageToDict(message)
        out: dict[str, Any] = {}
        for descriptor, value in message.ListFields():
            field = plan.get(descriptor.number)
            if field is None:
                return json_format.MessageToDict(message)
            how = field.how
            if how == _AS_IS:
                out[field.json_name] = list(value) if field.repeated else value
                continue
            values = value if field.repeated else (value,)
            if how == _TEXT:
                printed: list[Any] = [str(item) for item in values]
            elif how == _MESSAGE:
                printed = [self._message(item) for item in values]
            elif how == _PRINTED:
                printed = [json_format.MessageToDict(item) for item in values]
            elif how == _ENUM:
                names = field.names
                if not all(item in names for item in values):
                    return json_format.MessageToDict(message)  # an unknown number
                printed = [names[item] for item in values]
            elif how == _BYTES:
                printed = [base64.b64encode(item).decode("utf-8") for item in values]
            else:  # a double: NaN and the infinities are text
                if not all(math.isfinite(item) for item in values):
                    return json_format.MessageToDict(message)
                printed = list(values)
            out[field.json_name] = printed if field.repeated else printed[0]
        return out

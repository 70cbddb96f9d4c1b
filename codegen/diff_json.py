"""The JSON form of a field's value under ProtoJSON, and whether a reader of one form
reads what a writer of another writes.

A reader is *lenient* when it parses ProtoJSON (a server: the generated one, a2a-sdk's,
``json_format``), which takes an integer as a number or a string and a wrapper's
``null`` as unset. It is *plain* when it reads the JSON as it stands (a client: the
generated TypedDicts, a JavaScript client), so a number that becomes a string breaks it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .model import Field
from .model.naming import WRAPPERS

__all__ = ["JsonForm", "element_form", "misread", "wire_compatible"]

_INT32 = (-(2**31), 2**31 - 1)
_UINT32 = (0, 2**32 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_UINT64 = (0, 2**64 - 1)
_INTEGERS = {
    "int32": (_INT32, False),
    "sint32": (_INT32, False),
    "sfixed32": (_INT32, False),
    "uint32": (_UINT32, False),
    "fixed32": (_UINT32, False),
    "int64": (_INT64, True),
    "sint64": (_INT64, True),
    "sfixed64": (_INT64, True),
    "uint64": (_UINT64, True),
    "fixed64": (_UINT64, True),
}
# Messages ProtoJSON writes as something other than an object of their fields.
_SPECIAL = {
    "google.protobuf.Timestamp": ("timestamp", "an RFC 3339 timestamp string"),
    "google.protobuf.Duration": ("duration", 'a duration string ("1.5s")'),
    "google.protobuf.FieldMask": ("field_mask", "a field mask string"),
    "google.protobuf.Struct": ("struct", "any JSON object"),
    "google.protobuf.Value": ("value", "any JSON value"),
    "google.protobuf.ListValue": ("list_value", "any JSON array"),
    "google.protobuf.Any": ("any", 'an object with "@type"'),
}
_NULL_VALUE = "google.protobuf.NullValue"
# Kinds protobuf's binary encoding reads in place of each other (values may truncate,
# which the JSON check reports).
_WIRE_GROUPS = (
    frozenset({"int32", "uint32", "int64", "uint64", "bool", "enum"}),
    frozenset({"sint32", "sint64"}),
    frozenset({"fixed32", "sfixed32"}),
    frozenset({"fixed64", "sfixed64"}),
    frozenset({"string", "bytes"}),
)


@dataclass(frozen=True)
class JsonForm:
    """What one value of a field looks like in ProtoJSON."""

    shape: str  # integer, float, bool, string, bytes, enum, object, null, or a WKT's
    label: str  # for people: "a number", "a string (64-bit integer)", ...
    low: int = 0  # integers: the range
    high: int = 0
    quoted: bool = False  # integers written as strings (64-bit)
    bits: int = 0  # floats: 32 or 64
    nullable: bool = False  # a wrapper: null means unset
    type_name: str = ""  # enums and messages


def _relative(full_name: str, package: str) -> str:
    prefix = package + "." if package else ""
    return full_name[len(prefix) :] if full_name.startswith(prefix) else full_name


def element_form(field: Field, package: str = "") -> JsonForm:
    """The form of one element of ``field`` (the value of a map, an item of a list)."""
    target = field.map_value if field.map_value is not None else field
    return scalar_form(target.kind, target.type_name, package)


def scalar_form(kind: str, type_name: str, package: str = "") -> JsonForm:
    """The form of a value of ``kind`` (a descriptor type name) and ``type_name``."""
    if kind in _INTEGERS:
        (low, high), quoted = _INTEGERS[kind]
        label = (
            f"a string ({'un' if low == 0 else ''}signed 64-bit integer)"
            if quoted
            else f"a number ({'un' if low == 0 else ''}signed 32-bit integer)"
        )
        return JsonForm("integer", label, low, high, quoted)
    if kind in ("double", "float"):
        bits = 64 if kind == "double" else 32
        return JsonForm("float", f"a number ({bits}-bit float)", bits=bits)
    if kind == "bool":
        return JsonForm("bool", "a boolean")
    if kind == "string":
        return JsonForm("string", "a string")
    if kind == "bytes":
        return JsonForm("bytes", "a base64 string")
    if kind == "enum":
        if type_name == _NULL_VALUE:
            return JsonForm("null", "null")
        name = _relative(type_name, package)
        return JsonForm("enum", f"a string (a {name} name)", type_name=type_name)
    if type_name in WRAPPERS:
        inner = scalar_form(WRAPPERS[type_name], "")
        return JsonForm(
            inner.shape,
            inner.label + " or null",
            inner.low,
            inner.high,
            inner.quoted,
            inner.bits,
            nullable=True,
        )
    if type_name in _SPECIAL:
        shape, label = _SPECIAL[type_name]
        return JsonForm(shape, label, type_name=type_name)
    name = _relative(type_name, package)
    return JsonForm("object", f"an object ({name})", type_name=type_name)


_STRINGS = frozenset({"string", "enum", "timestamp", "duration", "field_mask"})


def misread(
    reader: JsonForm,
    writer: JsonForm,
    *,
    lenient: bool,
    same_type: Callable[[str, str], bool],
    names_missing: Callable[[str, str], tuple[str, ...]],
) -> str | None:
    """Why a reader of ``reader`` does not read every value a writer of ``writer``
    writes, with the same meaning; None when it does.

    ``same_type(reader_type, writer_type)`` says two message or enum types are one type
    across the versions; ``names_missing(reader_enum, writer_enum)`` the value names of
    the writer's enum that the reader's lacks."""
    if writer.nullable and not reader.nullable and not lenient:
        return "a plain JSON reader gets null where it read a value"
    r, w = reader.shape, writer.shape
    if r == "value":
        return None
    if r == w == "integer":
        if writer.quoted != reader.quoted and not lenient:
            return _plain(writer)
        if writer.low < reader.low or writer.high > reader.high:
            return f"values outside {reader.low}..{reader.high} are refused"
        return None
    if r == "float" and w == "integer":
        if writer.quoted and not lenient:
            return _plain(writer)
        if writer.high > 2**53:
            return "integers beyond 2^53 lose precision as a float"
        return None
    if r == w == "float":
        if writer.bits > reader.bits:
            return "a 64-bit float loses precision or overflows as a 32-bit float"
        return None
    if r == "integer" and w == "float":
        return "a number with a fraction is refused"
    if r == "string" and (w in _STRINGS or (w == "integer" and writer.quoted)):
        return None
    if r == w == "enum":
        if same_type(reader.type_name, writer.type_name):
            return None
        missing = names_missing(reader.type_name, writer.type_name)
        if missing:
            return f"names {', '.join(missing)} are refused"
        return None
    if r == w == "object":
        if same_type(reader.type_name, writer.type_name):
            return None
        return "another message"
    if r == "struct" and w in ("object", "struct"):
        return None
    if r == w and r in (
        "bool",
        "bytes",
        "timestamp",
        "duration",
        "field_mask",
        "list_value",
        "any",
        "null",
    ):
        return None
    return "readers refuse the other form"


def _plain(writer: JsonForm) -> str:
    """The break of a plain JSON reader when an integer's quoting changes."""
    if writer.quoted:
        return "a plain JSON reader gets a string where it read a number"
    return "a plain JSON reader gets a number where it read a string"


def wire_compatible(old: Field, new: Field) -> bool:
    """True when protobuf's binary encoding of ``old``'s kind reads as ``new``'s."""
    if old.kind == new.kind:
        return True
    return any(old.kind in group and new.kind in group for group in _WIRE_GROUPS)

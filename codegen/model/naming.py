"""ProtoJSON and Python naming: json names, the query codec and Python annotation of
each field type, identifiers for messages and enums, package names."""

from __future__ import annotations

import builtins
import keyword
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .domain import Enum, Field, Message

# ProtoJSON gives these messages a JSON form of their own instead of an object of fields.
WELL_KNOWN_TYPES = frozenset(
    {
        "google.protobuf.Any",
        "google.protobuf.Duration",
        "google.protobuf.Empty",
        "google.protobuf.FieldMask",
        "google.protobuf.ListValue",
        "google.protobuf.Struct",
        "google.protobuf.Timestamp",
        "google.protobuf.Value",
        "google.protobuf.BoolValue",
        "google.protobuf.BytesValue",
        "google.protobuf.DoubleValue",
        "google.protobuf.FloatValue",
        "google.protobuf.Int32Value",
        "google.protobuf.Int64Value",
        "google.protobuf.StringValue",
        "google.protobuf.UInt32Value",
        "google.protobuf.UInt64Value",
    }
)


# How each query-capable field type is read from and written to a query string.
_SCALAR_CODECS = {
    "double": "double",
    "float": "float",
    "bool": "bool",
    "string": "string",
    "bytes": "bytes",
    "int32": "int32",
    "sint32": "int32",
    "sfixed32": "int32",
    "uint32": "uint32",
    "fixed32": "uint32",
    "int64": "int64",
    "sint64": "int64",
    "sfixed64": "int64",
    "uint64": "uint64",
    "fixed64": "uint64",
    "enum": "enum",
}
# The google.protobuf wrappers, each with the kind of the value it boxes (ProtoJSON
# writes a wrapper as that value).
WRAPPERS = {
    "google.protobuf.DoubleValue": "double",
    "google.protobuf.FloatValue": "float",
    "google.protobuf.Int64Value": "int64",
    "google.protobuf.UInt64Value": "uint64",
    "google.protobuf.Int32Value": "int32",
    "google.protobuf.UInt32Value": "uint32",
    "google.protobuf.BoolValue": "bool",
    "google.protobuf.StringValue": "string",
    "google.protobuf.BytesValue": "bytes",
}
_MESSAGE_CODECS = {
    "google.protobuf.Timestamp": "timestamp",
    "google.protobuf.Duration": "duration",
    "google.protobuf.FieldMask": "field_mask",
    **WRAPPERS,
}
# What validation checks a well-known type's field for: its own JSON form (Empty is an
# object without fields; the wrappers are the value they box).
_WKT_VALIDATION_KINDS = {
    "google.protobuf.Any": "any",
    "google.protobuf.Duration": "duration",
    "google.protobuf.Empty": "message",
    "google.protobuf.FieldMask": "field_mask",
    "google.protobuf.ListValue": "list_value",
    "google.protobuf.Struct": "struct",
    "google.protobuf.Timestamp": "timestamp",
    "google.protobuf.Value": "value",
    **WRAPPERS,
}
NULL_VALUE = "google.protobuf.NullValue"
# Python annotations of ProtoJSON values: 64-bit integers are strings, and so are the
# non-finite floats ("NaN", "Infinity", "-Infinity").
SCALAR_PYTHON_TYPES = {
    "double": "float | str",
    "float": "float | str",
    "bool": "bool",
    "string": "str",
    "bytes": "str",
    "int32": "int",
    "sint32": "int",
    "sfixed32": "int",
    "uint32": "int",
    "fixed32": "int",
    "int64": "str",
    "sint64": "str",
    "sfixed64": "str",
    "uint64": "str",
    "fixed64": "str",
}
WKT_PYTHON_TYPES = {
    "google.protobuf.Timestamp": "str",
    "google.protobuf.Duration": "str",
    "google.protobuf.FieldMask": "str",
    "google.protobuf.Struct": "dict[str, Any]",
    "google.protobuf.Value": "Any",
    "google.protobuf.ListValue": "list[Any]",
    "google.protobuf.Any": "dict[str, Any]",
    "google.protobuf.Empty": "dict[str, Any]",
    "google.protobuf.DoubleValue": "float | str",
    "google.protobuf.FloatValue": "float | str",
    "google.protobuf.Int64Value": "str",
    "google.protobuf.UInt64Value": "str",
    "google.protobuf.Int32Value": "int",
    "google.protobuf.UInt32Value": "int",
    "google.protobuf.BoolValue": "bool",
    "google.protobuf.StringValue": "str",
    "google.protobuf.BytesValue": "str",
}
# What messages.py imports: ``(module, names)`` in the groups it prints them, a blank
# line between groups. The template prints these and imports nothing else, so the
# names a message or enum must not take are exactly these.
MESSAGES_IMPORTS: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...] = (
    (("__future__", ("annotations",)),),
    (("collections.abc", ("Mapping",)), ("typing", ("Any", "Literal", "TypedDict"))),
    (("._validate", ("FieldRule", "Schema", "UnknownFields", "ValidationError")),),
)
# What messages.py defines besides its types (its template's ``SCHEMA = ...`` and the
# tables it is made of, ``def validate``, ``def missing_fields``), and the name the other
# modules import it by.
MESSAGES_DEFINES = frozenset(
    {"SCHEMA", "_MESSAGES", "_ENUMS", "validate", "missing_fields"}
)
MESSAGES_MODULE = "messages"
# Names a message or enum does not take (it gets a trailing "_"): what messages.py
# imports or defines (a type of one of those names would be defined twice), the name
# of the module itself, and the builtins its annotations use.
RESERVED_NAMES = frozenset(
    {name for group in MESSAGES_IMPORTS for _, names in group for name in names}
    | MESSAGES_DEFINES
    | {MESSAGES_MODULE}
    | set(dir(builtins))
)
# A message with REQUIRED fields keeps them in a private total base class (class form
# of its TypedDict): ``_<Name>Required``.
_BASE_PREFIX, _BASE_SUFFIX = "_", "Required"

# ProtoJSON shapes that have no query-string form (http.proto allows only scalars).
NO_QUERY_FORM = frozenset(
    {
        "google.protobuf.Struct",
        "google.protobuf.Value",
        "google.protobuf.ListValue",
        "google.protobuf.Any",
        "google.protobuf.Empty",
    }
)


def query_codec(field: Field) -> str | None:
    """The query codec of a field's type, or None for a message without a scalar form."""
    if field.kind == "message":
        return _MESSAGE_CODECS.get(field.type_name)
    return _SCALAR_CODECS[field.kind]


def validation_kind(kind: str, type_name: str) -> str:
    """The ProtoJSON form request validation checks a value of this field type for
    (the ``kind`` column of ``_validate.FieldRule``)."""
    if kind == "message":
        return _WKT_VALIDATION_KINDS.get(type_name, "message")
    if kind == "enum" and type_name == NULL_VALUE:
        return "null_value"
    return _SCALAR_CODECS[kind]


def proto_json_name(name: str) -> str:
    """protoc's ToJsonName: drop underscores, capitalise the letter after each."""
    out: list[str] = []
    upper = False
    for char in name:
        if char == "_":
            upper = True
        elif upper:
            out.append(char.upper())
            upper = False
        else:
            out.append(char)
    return "".join(out)


def python_names(
    messages: Sequence[Message], enums: Sequence[Enum]
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str, str], ...]]:
    """A Python identifier for every non-well-known message and every enum, and the
    clashes left: ``(identifier, first full name, second full name)``.

    The rule: the name inside its package with ``_`` for nesting (``Task_Status``); when
    two types of different packages share that, both take their package too
    (``lf_a2a_v1_Task``); a name that is a keyword, a builtin, a name the generated
    modules import or define, starts with ``__``, or has the form of a private base class
    (``_<Name>Required``, which ``messages.py`` writes for a message with REQUIRED
    fields) gets a trailing ``_``. Two types that still
    share an identifier (``Foo.Bar`` and ``Foo_Bar``) are a clash: the caller reports it.
    """
    named = [(m.full_name, m.package) for m in messages if not m.well_known]
    named += [(e.full_name, e.package) for e in enums]

    def local(full_name: str, package: str) -> str:
        relative = full_name[len(package) + 1 :] if package else full_name
        return relative.replace(".", "_")

    packages: dict[str, set[str]] = {}
    for full_name, package in named:
        packages.setdefault(local(full_name, package), set()).add(package)
    result = []
    owners: dict[str, str] = {}
    clashes = []
    for full_name, package in sorted(named):
        name = local(full_name, package)
        if len(packages[name]) > 1:
            name = full_name.replace(".", "_")
        if (
            name in RESERVED_NAMES
            or keyword.iskeyword(name)
            or name.startswith("__")
            or _private_base(name)
        ):
            name += "_"
        first = owners.setdefault(name, full_name)
        if first != full_name:
            clashes.append((name, first, full_name))
        result.append((full_name, name))
    return tuple(result), tuple(clashes)


def private_base(identifier: str) -> str:
    """The private base class of the TypedDict ``identifier``: ``_<Name>Required``."""
    return f"{_BASE_PREFIX}{identifier}{_BASE_SUFFIX}"


def _private_base(name: str) -> bool:
    """True for a name of the form ``private_base`` gives."""
    return name.startswith(_BASE_PREFIX) and name.endswith(_BASE_SUFFIX)


def handler_method_name(rpc: str) -> str:
    """The handler method of an rpc: its snake_case name, with a trailing ``_`` when
    that is a Python keyword (rpc ``Import`` is served by ``import_``)."""
    name = snake_case(rpc)
    return name + "_" if keyword.iskeyword(name) else name


def snake_case(name: str) -> str:
    """``GetTaskPushNotificationConfig`` -> ``get_task_push_notification_config``."""
    out: list[str] = []
    for i, char in enumerate(name):
        if (
            char.isupper()
            and i
            and (not name[i - 1].isupper() or name[i + 1 : i + 2].islower())
        ):
            if name[i - 1] != "_":
                out.append("_")
        out.append(char.lower())
    return "".join(out)


def module_name(stem: str) -> str:
    """The default package name of a proto file: ``<stem>_binding``, with ``_`` for
    every character an ``import`` statement could not spell as it is. Python reads
    identifiers in NFKC form, so ``ﬁle`` (a ligature) would be imported as ``file``
    and miss the folder: such characters become ``_`` too."""
    stem = unicodedata.normalize("NFKC", stem)
    cleaned = "".join(
        c if ("_" + c).isidentifier() and unicodedata.normalize("NFKC", c) == c else "_"
        for c in stem
    )
    if cleaned and not cleaned[:1].isidentifier():  # a digit or a combining mark
        cleaned = "_" + cleaned
    name = f"{cleaned}_binding"
    if unicodedata.normalize("NFKC", name) != name:
        name = "".join(c if c.isascii() else "_" for c in name)
    return name

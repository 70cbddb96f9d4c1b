"""Request validation against protobuf's own JSON parser: a differential property test.

For every request message type of the committed A2A package, of the protos in
``proto/features/`` (and every message their requests reach), and of two protos written
here that hold every kind validation knows (maps with each key kind, ``Any``,
``NullValue``, wrappers, ``Value``, a recursive type, proto2 closed enums), hypothesis
builds valid messages with protobuf from the descriptors, renders them with
``json_format.MessageToDict`` (both name styles, enums as names or numbers, 64-bit
integers as strings or numbers, defaults printed or not) and mutates them (wrong JSON
types, out-of-range and oddly written numbers, unknown enum names and numbers, bad
base64, timestamps, durations and field masks, two oneof members, non-objects where
messages go, bools where numbers go, nulls in lists and maps, unknown fields, both
spellings of a field, duplicate keys, REQUIRED fields removed, deep nesting), at any
depth. Each case goes through ``messages.validate`` in both ``unknown_fields`` modes
and through the oracle:

* the oracle accepts exactly when ``json_format.ParseDict(value, message_class(),
  ignore_unknown_fields=<drop>)`` does, except where the contract refuses what it
  accepts (the ``Survey`` below finds those): a non-object where a message goes, an
  unknown enum name, an enum number that names no value, ``true``/``false`` where a
  number or an enum goes; and, as the contract adds them, a key given twice in one
  object, a field given under both of its names, a REQUIRED field missing. An ``Any``
  of a type the package does not know is left as sent (the oracle parses it as ``{}``).
* accepted: ``ParseDict(canonical)`` is ``ParseDict(sent)`` (compared serialized,
  NaN being what it is), the canonical form has the shape the contract names (json
  names, enums by name, 64-bit integers as decimal strings, 32-bit ones as int, no
  nulls but a ``Value``'s), and validating it again gives it back;
* refused: every violation's path is a real json-name path of the value sent.

The compiled check of the plain case (``_validate_fast``) gives what the general walk
gives wherever it does not leave the case to it; ``MessageReader`` reads each message
the cases start from as ``MessageToDict`` prints it, and reads its bytes as it reads
what protobuf parses from them; ``MessageBuilder`` builds what ``ParseDict`` builds.

``VALIDATION_EXAMPLES`` scales the number of examples (``VALIDATION_EXAMPLES=20`` for
a long run); each example is ``CASES_PER_EXAMPLE`` cases.
"""

from __future__ import annotations

import copy
import importlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from google.api import field_behavior_pb2
from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.inputs import include_paths
from codegen.runtime._proto import MessageBuilder, MessageEncoder, MessageReader

from .conftest import PROTO

SCALE = float(os.environ.get("VALIDATION_EXAMPLES", "1"))
CASES_PER_EXAMPLE = 10
FEATURES = sorted((PROTO / "features").glob("*.proto"))
FD = FieldDescriptor

WRAPPERS = {
    f"google.protobuf.{name}"
    for name in (
        "DoubleValue",
        "FloatValue",
        "Int64Value",
        "UInt64Value",
        "Int32Value",
        "UInt32Value",
        "BoolValue",
        "StringValue",
        "BytesValue",
    )
}
TEXT_WKTS = {
    "google.protobuf.Timestamp",
    "google.protobuf.Duration",
    "google.protobuf.FieldMask",
}
JSON_WKTS = {
    "google.protobuf.Struct",
    "google.protobuf.Value",
    "google.protobuf.ListValue",
}
ANY = "google.protobuf.Any"
EMPTY = "google.protobuf.Empty"
NULL_VALUE = "google.protobuf.NullValue"
ANY_WKTS = WRAPPERS | TEXT_WKTS | JSON_WKTS | {ANY}  # carried in an Any's "value"
INT_RANGES = {
    FD.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    FD.CPPTYPE_UINT32: (0, 2**32 - 1),
    FD.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    FD.CPPTYPE_UINT64: (0, 2**64 - 1),
}
WIDE = (FD.CPPTYPE_INT64, FD.CPPTYPE_UINT64)
FLOATS = (FD.CPPTYPE_FLOAT, FD.CPPTYPE_DOUBLE)


# --- the packages under test ---------------------------------------------------------


@dataclass
class Package:
    """One generated package and protobuf's classes for its messages."""

    module: ModuleType  # its messages module
    pool: Any
    types: tuple[str, ...]  # the message types the cases start from
    duplicate_keys: type  # the package's own _json.DuplicateKeys
    fast: ModuleType  # the package's own _validate_fast (of its serving layer)
    builder: MessageBuilder  # over the package's own tables
    encoder: MessageEncoder  # the builder its fallback
    reader: MessageReader  # over the package's own tables (its REQUIRED fields)
    counts: dict[str, int] = field(default_factory=dict)
    mutations: list[str] = field(default_factory=list)

    def descriptor(self, name: str) -> Descriptor:
        return self.pool.FindMessageTypeByName(name)  # type: ignore[no-any-return]

    def cls(self, descriptor: Descriptor) -> type[Message]:
        return message_factory.GetMessageClass(descriptor)  # type: ignore[no-any-return]

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1


def reachable(pool: Any, roots: list[str]) -> tuple[str, ...]:
    """The roots and every (non-well-known) message type their fields reach."""
    seen: dict[str, None] = {}
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen or (name.startswith("google.protobuf.") and name not in roots):
            continue  # a well-known type is a kind of its own (Empty is a request too)
        seen[name] = None
        for fd in pool.FindMessageTypeByName(name).fields:
            if fd.message_type is not None:
                if fd.message_type.GetOptions().map_entry:
                    value = fd.message_type.fields_by_name["value"]
                    if value.message_type is not None:
                        stack.append(value.message_type.full_name)
                else:
                    stack.append(fd.message_type.full_name)
    return tuple(sorted(seen))


READER = MessageReader()


def package_of(root: ModuleType, pool: Any) -> Package:
    name = root.__name__
    messages = importlib.import_module(f"{name}.messages")
    jsonrpc = importlib.import_module(f"{name}.jsonrpc")
    requests = sorted({method.request_type for method in jsonrpc.METHODS.values()})
    for type_name in messages.SCHEMA._rules:  # the tables name the descriptor's fields
        descriptor = pool.FindMessageTypeByName(type_name)
        fields = {(fd.json_name, fd.name) for fd in descriptor.fields}
        rules = {
            (rule.json_name, rule.proto_name)
            for rule in messages.SCHEMA._rules[type_name]
        }
        assert fields == rules, type_name
    duplicates = importlib.import_module(f"{name}._json").DuplicateKeys
    fast = importlib.import_module(f"{name}._validate_fast")
    builder = MessageBuilder(messages.SCHEMA)
    return Package(
        messages,
        pool,
        reachable(pool, requests) or tuple(requests),
        duplicates,
        fast,
        builder,
        MessageEncoder(builder),
        MessageReader(messages.SCHEMA),
    )


def compile_pb2(proto: Path, out: Path) -> ModuleType:
    """protoc's own Python module for ``proto``, imported (its types join the default
    descriptor pool)."""
    out.mkdir(parents=True, exist_ok=True)
    compiled = subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{proto.parent}",
            *[f"-I{p}" for p in include_paths()],
            f"--python_out={out}",
            proto.name,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert compiled.returncode == 0, compiled.stderr
    sys.path.insert(0, str(out))
    try:
        return importlib.import_module(f"{proto.stem}_pb2")
    finally:
        sys.path.remove(str(out))


# --- descriptor helpers ----------------------------------------------------------------


def is_map(fd: FieldDescriptor) -> bool:
    return fd.message_type is not None and fd.message_type.GetOptions().map_entry


def map_value(fd: FieldDescriptor) -> FieldDescriptor:
    return fd.message_type.fields_by_name["value"]  # type: ignore[no-any-return]


def map_key(fd: FieldDescriptor) -> FieldDescriptor:
    return fd.message_type.fields_by_name["key"]  # type: ignore[no-any-return]


def real_oneof(fd: FieldDescriptor) -> Any:
    """The field's oneof, but for the one a proto3 ``optional`` makes up."""
    oneof = fd.containing_oneof
    if oneof is None or (len(oneof.fields) == 1 and oneof.name == f"_{fd.name}"):
        return None
    return oneof


def required(fd: FieldDescriptor) -> bool:
    behaviors = fd.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    return field_behavior_pb2.REQUIRED in behaviors


def type_of(fd: FieldDescriptor) -> str:
    """The full name of a message field's type ("" for a scalar)."""
    return fd.message_type.full_name if fd.message_type is not None else ""


def lookup(descriptor: Descriptor, key: object) -> FieldDescriptor | None:
    """The field a key names, as ParseDict finds it (json name first)."""
    if not isinstance(key, str):
        return None
    for fd in descriptor.fields:
        if fd.json_name == key:
            return fd
    for fd in descriptor.fields:  # (upb's fields_by_name fails on a lone surrogate)
        if fd.name == key:
            return fd
    return None


def join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# --- valid messages, built with protobuf ------------------------------------------------

JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5)
)
JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
MASK_PATH = st.from_regex(
    r"[a-z][a-z0-9]{0,4}(_[a-z][a-z0-9]{0,3}){0,2}(\.[a-z][a-z0-9]{0,3}){0,2}",
    fullmatch=True,
)


class Builder:
    """Random valid messages of a package's types, drawn field by field."""

    MAX_DEPTH = 3

    def __init__(self, draw: Callable[[Any], Any], package: Package) -> None:
        self.draw = draw
        self.package = package

    def message(self, descriptor: Descriptor, depth: int) -> Message:
        message = self.package.cls(descriptor)()
        oneofs_done: set[str] = set()
        for fd in descriptor.fields:
            oneof = real_oneof(fd)
            if oneof is not None:
                if oneof.name in oneofs_done:
                    continue
                oneofs_done.add(oneof.name)
                must = any(required(member) for member in oneof.fields)
                choices = list(oneof.fields) + ([] if must else [None, None])
                picked = self.draw(st.sampled_from(choices))
                if picked is not None and (must or depth < self.MAX_DEPTH):
                    self.set(message, picked, depth, must)
                continue
            must = required(fd)
            if must or (depth < self.MAX_DEPTH and self.draw(st.integers(0, 2)) == 0):
                self.set(message, fd, depth, must)
        return message

    def set(
        self, message: Message, fd: FieldDescriptor, depth: int, must: bool
    ) -> None:
        low = 1 if must else 0
        if is_map(fd):
            target = getattr(message, fd.name)
            for _ in range(self.draw(st.integers(low, 2))):
                key = self.scalar(map_key(fd), False)
                value = map_value(fd)
                if value.message_type is not None:
                    target[key].CopyFrom(self.sub(value, depth + 1, False))
                else:
                    target[key] = self.scalar(value, False)
        elif fd.is_repeated:
            target = getattr(message, fd.name)
            for _ in range(self.draw(st.integers(low, 2))):
                if fd.message_type is not None:
                    target.add().CopyFrom(self.sub(fd, depth + 1, False))
                else:
                    target.append(self.scalar(fd, must))
        elif fd.message_type is not None:
            target = getattr(message, fd.name)
            target.CopyFrom(self.sub(fd, depth + 1, must))
            target.SetInParent()
        else:
            setattr(message, fd.name, self.scalar(fd, must))

    def scalar(self, fd: FieldDescriptor, must: bool) -> Any:
        kind = fd.cpp_type
        draw = self.draw
        if kind in INT_RANGES:
            low, high = INT_RANGES[kind]
            number = draw(st.integers(low, high))
            return number or (1 if must else 0)
        if kind == FD.CPPTYPE_FLOAT:
            return draw(st.floats(width=32))
        if kind == FD.CPPTYPE_DOUBLE:
            return draw(st.floats())
        if kind == FD.CPPTYPE_BOOL:
            return True if must else draw(st.booleans())
        if kind == FD.CPPTYPE_ENUM:
            numbers = [value.number for value in fd.enum_type.values]
            if must and any(numbers):
                numbers = [number for number in numbers if number]
            return draw(st.sampled_from(numbers))
        if fd.type == FD.TYPE_BYTES:
            return draw(st.binary(min_size=int(must), max_size=6))
        return draw(st.text(min_size=int(must), max_size=6))

    def sub(self, fd: FieldDescriptor, depth: int, must: bool) -> Message:
        return self.of(fd.message_type, depth, must)

    def of(self, descriptor: Descriptor, depth: int, must: bool) -> Message:
        """A value of a message type: a well-known type with a valid value."""
        name = descriptor.full_name
        message = self.package.cls(descriptor)()
        draw = self.draw
        if name in WRAPPERS:
            message.value = self.scalar(descriptor.fields_by_name["value"], False)
        elif name == "google.protobuf.Timestamp":
            message.seconds = draw(st.integers(-62135596800, 253402300799))
            message.nanos = draw(st.integers(0, 999_999_999))
        elif name == "google.protobuf.Duration":
            seconds = draw(st.integers(-315576000000, 315576000000))
            nanos = draw(st.integers(0, 999_999_999))
            if seconds < 0 or (seconds == 0 and draw(st.booleans())):
                nanos = -nanos
            message.seconds, message.nanos = seconds, nanos
        elif name == "google.protobuf.FieldMask":
            message.paths.extend(draw(st.lists(MASK_PATH, max_size=3)))
        elif name in JSON_WKTS:
            if name == "google.protobuf.Struct":
                shape: Any = st.dictionaries(st.text(max_size=4), JSON, max_size=3)
            elif name == "google.protobuf.ListValue":
                shape = st.lists(JSON, max_size=3)
            else:
                shape = JSON.filter(lambda value: value is not None) if must else JSON
            json_format.ParseDict(draw(shape), message)
        elif name == ANY:
            if depth <= self.MAX_DEPTH:
                choices = [*self.package.types, *sorted(ANY_WKTS), EMPTY]
                packed = self.package.descriptor(draw(st.sampled_from(choices)))
                message.Pack(self.of(packed, depth + 1, False))
        elif name != EMPTY:
            return self.message(descriptor, depth)
        return message


def render(draw: Callable[[Any], Any], message: Message) -> Any:
    """The message as ProtoJSON, in one of the forms protobuf prints."""
    return json_format.MessageToDict(
        message,
        always_print_fields_with_no_presence=draw(st.integers(0, 3)) == 0,
        preserving_proto_field_name=draw(st.booleans()),
        use_integers_for_enums=draw(st.booleans()),
        unquote_int64_if_possible=draw(st.booleans()),
    )


# --- where a value sits, for the mutations ------------------------------------------------


@dataclass
class Slot:
    """A value of the tree: ``parent[key]``. ``fd`` is the field it belongs to;
    ``role`` says which part of it: ``whole`` (the field's value, a list for a repeated
    field and an object for a map), ``element`` (of a repeated field), ``entry`` (a
    map's value), ``message`` (an object of type ``descriptor``: the root, or an Any's
    fields), ``json`` (inside a Struct, Value or ListValue), ``type_url``."""

    parent: Any
    key: Any
    role: str
    fd: FieldDescriptor | None = None
    descriptor: Descriptor | None = None

    @property
    def value(self) -> Any:
        return self.parent[self.key]

    @value.setter
    def value(self, new: Any) -> None:
        self.parent[self.key] = new

    def category(self) -> str:
        if self.role in ("message", "json", "type_url"):
            return self.role
        if (
            self.role == "whole"
            and self.fd is not None
            and (self.fd.is_repeated or is_map(self.fd))
        ):
            return "map" if is_map(self.fd) else "list"
        fd, descriptor = self.element_type()
        assert fd is not None
        return descriptor.full_name if descriptor is not None else f"scalar {fd.type}"

    def element_type(self) -> tuple[FieldDescriptor | None, Descriptor | None]:
        """(the scalar field, the message type) a single value here has."""
        if self.role == "message":
            return None, self.descriptor
        assert self.fd is not None
        fd = map_value(self.fd) if self.role == "entry" else self.fd
        return fd, fd.message_type


# --- values to put there --------------------------------------------------------------------

ODD_JSON: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.5,
    "",
    "x",
    "abc",
    [],
    ["x"],
    [None],
    {},
    {"x": 1},
]
SURROGATES = ["\ud800", "a\udc00b", "\ud83d\ude00", "\udfff"]
INT_TEXTS = [
    " 5",
    "5 ",
    "\t5",
    "5\n",
    "\u00a05",
    "+5",
    "-0",
    "007",
    "1_000",
    "1__0",
    "_1",
    "\u0665",
    "0x10",
    "1,000",
    "5.0",
    "1e3",
    "1E3",
    ".5e1",
    "5.",
    "1.5",
    "1e-3",
    "1000e-3",
    "Infinity",
    "NaN",
    "nan",
    "inf",
    "1e400",
    "",
    "1.0000000000000001",
    "9007199254740993.0",
    "9223372036854775807.0",
    "１",
]
FLOAT_ODD: list[Any] = [
    1.5,
    "1.5",
    " 1.5 ",
    "1e3",
    "1_0.5",
    "NaN",
    "nan",
    "NAN",
    "Nan",
    "Infinity",
    "-Infinity",
    "inf",
    "-inf",
    "+inf",
    "infinity",
    "INFINITY",
    float("nan"),
    float("inf"),
    float("-inf"),
    1e39,
    -1e39,
    1e308,
    3.4028235e38,
    3.4028234663852886e38,
    "3.4028235e38",
    "1e39",
    "1e400",
    10**39,
    2**128,
    10**400,
    -(10**400),
    -0.0,
    "-0",
    1e-50,
    "0x10",
    "abc",
    "",
    True,
    False,
    0,
    7,
]
BASE64_ODD = [
    "QQ==",
    "QQ",
    "QQ=",
    "QQ===",
    "QUJD====",
    "Q",
    "A",
    "QUJDR",
    "Q===",
    "!!",
    "!!QQ==",
    "QQ=x=",
    "QUJDRA=x",
    "QUI=Q",
    "QQ==QQ==",
    "QQ==x",
    "QR==",
    "-_8=",
    "+/8=",
    "+_8",
    "-/8",
    "\u00fc",
    " QQ",
    "=QQ",
    "Q Q = =",
    "QU\nJD",
    "",
    "=",
    "==",
    "=====",
    "\ud800",
    "QQ\ud800",
]
TIMESTAMPS = [
    "1970-01-01T00:00:00Z",
    "1972-01-01T10:00:20.021Z",
    "1972-01-01T10:00:20.021+01:00",
    "1972-01-01T10:00:20.021-05:00",
    "1972-01-01T10:00:20+00:00",
    "1972-01-01T10:00:20-00:00",
    "1972-01-01T10:00:20+1:2",
    "1972-01-01T10:00:20+99:99",
    "1972-01-01T10:00:20+01:-30",
    "1972-01-01T10:00:20+0100",
    "1972-01-01T10:00:20+01",
    "1972-01-01T10:00:20+01:00:00",
    "1972-01-01T10:00:20+01:00Z",
    "1972-01-01T10:00:20Z ",
    "1972-01-01T10:00:20ZZ",
    "1972-01-01t10:00:20Z",
    "1972-01-01T10:00:20z",
    "1972-01-01T10:00:20",
    "1972-01-01 10:00:20Z",
    " 1972-01-01T10:00:20Z",
    "1972-01-01T10:00Z",
    "1972-01-01Z",
    "1972-01-01T10:00:20.123456789Z",
    "1972-01-01T10:00:20.1234567891Z",
    "1972-01-01T10:00:20.Z",
    "1972-01-01T10:00:20.1e-5Z",
    "1972-01-01T10:00:20.1_0Z",
    "1972-01-01T10:00:20.1e5Z",
    "1972-01-01T10:00:20.1e999Z",
    "1972-01-01T10:00:20.-5Z",
    "1972-1-1T1:2:3Z",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999999Z",
    "0000-01-01T00:00:00Z",
    "10000-01-01T00:00:00Z",
    "9999-12-31T23:59:59-01:00",
    "0001-01-01T00:00:00+01:00",
    "1972-01-01T23:59:60Z",
    "1972-02-30T00:00:00Z",
    "",
    "Z",
    "-",
    "1972-01-01T10:00:20.021Z\ud800",
    5,
    None,
    [],
    "１９７２-01-01T00:00:00Z",
]
DURATIONS = [
    "1s",
    "1.5s",
    "-1.5s",
    "-0.5s",
    "0s",
    "-0s",
    "1.123456789s",
    "315576000000s",
    "-315576000000s",
    "315576000000.999999999s",
    "315576000001s",
    "1.0000000001s",
    "1.9999999999s",
    "-1.9999999995s",
    "1.5e3s",
    "1.s",
    "+1.5s",
    " 1.5s",
    " -1.5s",
    "1_0s",
    "1.5_5s",
    "1.5 s",
    "1 s",
    ".5s",
    "s",
    "1e3s",
    "- 1s",
    "1.-5s",
    "1.+5s",
    "1.5.5s",
    "1.5es",
    "1.5ss",
    "1",
    "1S",
    "",
    "１s",
    "0.1e999s",
    1,
    1.5,
    {"seconds": 1},
    None,
    "1s\ud800",
]
FIELD_MASKS = [
    "",
    "a",
    "a.b,c",
    "fooBar,bazQux.quuxCorge",
    "a,,b",
    ",",
    "a, b",
    "A",
    "fooBAR",
    "a..b",
    "a_b",
    "foo_bar",
    " ",
    "\ud800",
    "a.\udc00",
    5,
    ["a"],
    None,
]
ANY_URLS = [
    "type.googleapis.com/no.such.Type",
    "no.such.Type",
    "",
    "type.googleapis.com/",
    "/",
    5,
    None,
    [],
    "x/y/z/{name}",
    "/{name}",
    "{name}",
    "{name}/",
    "type.googleapis.com/google.protobuf.Duration",
    "type.googleapis.com/google.protobuf.Int64Value",
    "type.googleapis.com/google.protobuf.Value",
    "type.googleapis.com/google.protobuf.Empty",
    "type.googleapis.com/google.protobuf.Struct",
    "type.googleapis.com/google.protobuf.Any",
    "type.googleapis.com/google.rpc.Status",
    "\ud800/{name}",
]
INT_KEYS = [
    "1",
    "-1",
    "0",
    "\t1",
    "1.0",
    "1e2",
    "+1",
    "01",
    "1_0",
    "1e18",
    " 1",
    "1 ",
    "0x1",
    "",
    "true",
    "1.5",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "\u0665",
    "\ud800",
]
BOOL_KEYS = ["true", "false", "True", "TRUE", "1", "0", "", " true"]


def deep(levels: int, kind: str) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"a": value} if kind == "object" else [value]
    return value


def scalar_values(fd: FieldDescriptor, current: Any) -> list[Any]:
    """Values, valid and not, for a scalar field (or a wrapper's value)."""
    kind = fd.cpp_type
    if kind in INT_RANGES:
        low, high = INT_RANGES[kind]
        number = current if isinstance(current, int) else 5
        if isinstance(current, str):
            try:
                number = int(current)
            except ValueError:
                pass
        if isinstance(number, bool) or not low <= number <= high:
            number = 5
        return [
            number,
            str(number),
            float(number),
            f"{number}.0",
            f"{number}e0",
            f"{number} ",
            low,
            high,
            low - 1,
            high + 1,
            str(low - 1),
            str(high + 1),
            float(high + 1),
            2**64,
            1e20,
            "1e20",
            9.223372036854775e18,
            1.8446744073709552e19,
            10**400,
            *INT_TEXTS,
            *ODD_JSON,
        ]
    if kind in FLOATS:
        return [current, str(current), *FLOAT_ODD, *ODD_JSON]
    if kind == FD.CPPTYPE_BOOL:
        return [True, False, "true", "false", "True", 0, 1, 1.0, "yes", *ODD_JSON]
    if kind == FD.CPPTYPE_ENUM:
        return enum_values(fd.enum_type, current)
    if fd.type == FD.TYPE_BYTES:
        return [*BASE64_ODD, *ODD_JSON]
    return ["abc", "", "\x00", "\U0001f600", *SURROGATES, 5, 5.0, *ODD_JSON]


def enum_values(enum: EnumDescriptor, current: Any) -> list[Any]:
    values = list(enum.values)
    first = values[0]
    numbers = [value.number for value in values]
    undefined = next(n for n in range(-3, 100) if n not in numbers)
    out: list[Any] = []
    for value in values[:3]:
        out += [
            value.name,
            value.number,
            str(value.number),
            f" {value.number} ",
            f"{value.number}_0",
            float(value.number),
            value.number + 0.5,
            value.number - 0.5,
            2**32 + value.number,
            -(2**32) + value.number,
            f"{value.number}.0",
            f"{value.number}e0",
            value.name.lower(),
            f"{value.number}".replace("1", "\u0661"),
        ]
    out += [
        undefined,
        str(undefined),
        float(undefined),
        2**31,
        -(2**31) - 1,
        2**63,
        "FOO_BAR",
        "",
        first.name + " ",
        True,
        False,
        float("nan"),
        float("inf"),
        1e300,
        2**62,
        "0x1",
        "1e3",
        current,
    ]
    return out + ODD_JSON


def parts(*choices: tuple[list[str], list[str]]) -> Any:
    """Text made of one piece from each (valid pieces, odd pieces) pair, the valid ones
    three times as likely: most such texts are valid but for one odd piece."""
    return st.tuples(*(st.sampled_from(good * 3 + odd) for good, odd in choices)).map(
        "".join
    )


COMPOSED = {
    "google.protobuf.Timestamp": parts(
        (
            ["1972-01-01", "0001-01-01", "9999-12-31", "2024-02-29"],
            [
                "1972-1-1",
                "0000-01-01",
                "1972-02-30",
                "1972-01- 1",
                "\uff11\uff19\uff17\uff12-01-01",
                "10000-01-01",
                "1972-001-01",
                "-1972-01-01",
                "2023-02-29",
            ],
        ),
        (["T"], ["t", " "]),
        (
            ["10:00:20", "23:59:59", "00:00:00"],
            ["1:2:3", "23:59:60", "24:00:00", "10:00", "10:00:20 "],
        ),
        (
            ["", ".021", ".123456789", ".5"],
            [
                ".",
                ".1234567891",
                ".1e-5",
                ".1_0",
                ".1e5",
                ".-5",
                ".1e999",
                ".0000000005",
                ". 5",
            ],
        ),
        (
            ["Z", "+01:00", "-05:00", "-00:00", "+00:00"],
            [
                "z",
                "",
                "+99:99",
                "+1:2",
                "+0100",
                "+01",
                "+01:00:00",
                "Z ",
                "ZZ",
                "+01:-30",
                "+ 1: 2",
                "+01:00Z",
                "-23:59",
                "+24:00",
                "+01:00 ",
            ],
        ),
    ),
    "google.protobuf.Duration": parts(
        (["", "-"], ["+", " ", " -", "- "]),
        (
            ["1", "0", "315576000000", "42"],
            ["315576000001", "1_0", "", "\uff11", "1e3", "007"],
        ),
        (
            ["", ".5", ".123456789", ".000000001"],
            [
                ".",
                ".1234567891",
                ".9999999999",
                ".5e3",
                ".-5",
                ".5_5",
                ".0000000005",
                ". 5",
            ],
        ),
        (["s"], ["S", "", " s", "ss"]),
    ),
    "google.protobuf.FieldMask": st.lists(
        parts(
            (
                ["a", "fooBar", "x.y"],
                ["A", "b_c", "", " ", "a..b", "\ud800", "\u00e9t\u00e9"],
            ),
            ([""], [".c", ".dE"]),
        ),
        max_size=3,
    ).map(",".join),
}


def message_values(package: Package, descriptor: Descriptor) -> list[Any]:
    name = descriptor.full_name
    if name == "google.protobuf.Timestamp":
        return TIMESTAMPS + ODD_JSON + [COMPOSED[name]] * 40
    if name == "google.protobuf.Duration":
        return DURATIONS + ODD_JSON + [COMPOSED[name]] * 40
    if name == "google.protobuf.FieldMask":
        return FIELD_MASKS + ODD_JSON + [COMPOSED[name]] * 20
    if name in WRAPPERS:
        return scalar_values(descriptor.fields_by_name["value"], 5) + [{"value": 5}]
    if name in JSON_WKTS:
        return [
            deep(48, "object"),
            deep(49, "object"),
            deep(50, "object"),
            deep(97, "list"),
            deep(98, "list"),
            deep(99, "list"),
            {"a": 10**400},
            {"a": 2**64 + 1},
            {"\ud800": 1},
            {"a": "\ud800"},
            {"a": float("nan")},
            {"a": [1, {"b": None}]},
            (1, 2),
            *SURROGATES,
            10**400,
            *ODD_JSON,
        ]
    if name == ANY:
        some = package.types[0]
        return [
            {},
            {"@type": "type.googleapis.com/no.Such"},
            {"@type": 5},
            {"@type": None},
            {"value": 1},
            {"@type": "type.googleapis.com/google.protobuf.Duration"},
            {
                "@type": "type.googleapis.com/google.protobuf.Duration",
                "value": "1s",
                "extra": 1,
            },
            {"@type": "type.googleapis.com/google.protobuf.Duration", "value": None},
            {"@type": "type.googleapis.com/google.protobuf.Value", "value": None},
            {"@type": "type.googleapis.com/google.protobuf.Int64Value", "value": "5"},
            {"@type": "type.googleapis.com/google.protobuf.Int64Value", "value": True},
            {
                "@type": "type.googleapis.com/google.protobuf.Struct",
                "value": {"a": [1]},
            },
            {"@type": "type.googleapis.com/google.protobuf.Any", "value": {}},
            {"@type": "type.googleapis.com/google.protobuf.Empty"},
            {"@type": "type.googleapis.com/google.protobuf.Empty", "value": {}},
            {"@type": some},
            {"@type": f"a/b/{some}", "zz": 1},
            {"@type": f"type.googleapis.com/{some}", "@type2": 1},
            {"@type": "type.googleapis.com/google.rpc.Status", "code": 1},
            *ODD_JSON,
        ]
    return [
        "",
        [],
        "abc",
        ["x"],
        [{}],
        5,
        0,
        True,
        1.5,
        {},
        None,
        [descriptor.fields[0].json_name] if descriptor.fields else "x",
    ]


# --- mutations ----------------------------------------------------------------------------


def mutate(
    draw: Callable[[Any], Any],
    package: Package,
    builder: Builder,
    holder: list[Any],
    type_name: str,
) -> str:
    """One change somewhere in ``holder[0]`` (valid or not); what it was, for the log."""
    found = slots_of(package, holder, type_name)
    groups: dict[str, list[Slot]] = {}  # a kind of place first: strings are most places
    for each in found:
        groups.setdefault(each.category(), []).append(each)
    weighted = [name for name in sorted(groups) for _ in range(WEIGHTS.get(name, 1))]
    slot = draw(st.sampled_from(groups[draw(st.sampled_from(weighted))]))
    role = slot.role
    if role == "type_url":
        url = draw(st.sampled_from(ANY_URLS))
        known = draw(st.sampled_from(package.types))
        slot.value = url.replace("{name}", known) if isinstance(url, str) else url
        return "type_url"
    if role == "json":
        slot.value = pick(
            draw,
            message_values(package, package.descriptor("google.protobuf.Value"))
            + [DUP],
        )
        if slot.value == DUP:
            slot.value = mark_duplicate(draw, package, {"a": 1, "b": 2})
        return "json"
    if (
        role == "whole"
        and slot.fd is not None
        and (slot.fd.is_repeated or is_map(slot.fd))
    ):
        return container(draw, package, slot)
    if role == "message":
        assert slot.descriptor is not None
        if not isinstance(slot.value, dict) or draw(st.integers(0, 3)) == 0:
            slot.value = pick(draw, message_values(package, slot.descriptor))
            return "non-object"
        return message_edit(draw, package, builder, slot)
    fd, descriptor = slot.element_type()
    if descriptor is not None:
        slot.value = pick(draw, message_values(package, descriptor))
        if isinstance(slot.value, st.SearchStrategy):
            slot.value = draw(slot.value)
        return f"value of {descriptor.full_name}"
    assert fd is not None
    slot.value = pick(draw, scalar_values(fd, slot.value))
    return f"scalar {fd.cpp_type}"


DUP = "\0 a duplicate key"


def pick(draw: Callable[[Any], Any], values: list[Any]) -> Any:
    """One of ``values``, a copy of its own (a mutation changes what it inserts)."""
    value = draw(st.sampled_from(values))
    if isinstance(value, st.SearchStrategy):
        return draw(value)
    return copy.deepcopy(value)


WEIGHTS = {"message": 4, "list": 2, "map": 2}


def mark_duplicate(
    draw: Callable[[Any], Any], package: Package, value: dict[str, Any]
) -> Any:
    """``value`` as the decoder gives an object that named a key twice."""
    if not value:
        value = {"x": 1}
    marked = package.duplicate_keys(value)
    marked.duplicates = (draw(st.sampled_from(sorted(value, key=str))),)
    return marked


def container(draw: Callable[[Any], Any], package: Package, slot: Slot) -> str:
    fd = slot.fd
    assert fd is not None
    value = slot.value
    choice = draw(st.integers(0, 5))
    if is_map(fd):
        if not isinstance(value, dict) or choice == 0:
            slot.value = pick(draw, [[], [["a", 1]], "x", 5, None, {}, True])
            return "map replaced"
        key_kind = map_key(fd).cpp_type
        keys = (
            BOOL_KEYS
            if key_kind == FD.CPPTYPE_BOOL
            else ["k", "", *SURROGATES] if key_kind == FD.CPPTYPE_STRING else INT_KEYS
        )
        new_key = draw(st.sampled_from(keys))
        if choice == 1 or not value:
            element = pick(draw, [None, *ODD_JSON])
        else:
            element = copy.deepcopy(
                value[draw(st.sampled_from(sorted(value, key=str)))]
            )
        if choice == 2 and value:
            slot.value = mark_duplicate(draw, package, value)
            return "map duplicate"
        value[new_key] = element
        return "map key"
    if not isinstance(value, list) or choice == 0:
        slot.value = pick(draw, [{}, "x", 5, None, True, [], {"a": 1}])
        return "list replaced"
    if choice == 1 or not value:
        value.insert(draw(st.integers(0, len(value))), pick(draw, [None, *ODD_JSON]))
        return "list element"
    if choice == 2:
        slot.value = value[0]
        return "list unwrapped"
    value.append(copy.deepcopy(value[draw(st.integers(0, len(value) - 1))]))
    return "list grown"


UNKNOWN_KEYS = [
    "zzUnknown",
    "[ext.x]",
    "[ext.x]\n",
    "[bad-ext]",
    "@type",
    "",
    "value",
    "\ud800",
]


def message_edit(
    draw: Callable[[Any], Any], package: Package, builder: Builder, slot: Slot
) -> str:
    descriptor = slot.descriptor
    assert descriptor is not None
    value = slot.value
    fields = list(descriptor.fields)
    choice = draw(st.integers(0, 7))
    present = [key for key in value if lookup(descriptor, key) is not None]
    if choice == 0 or not fields:
        key = draw(
            st.sampled_from(UNKNOWN_KEYS + [f.json_name.upper() for f in fields[:2]])
        )
        value[key] = pick(
            draw,
            [1, None, {"a": [1]}, mark_duplicate(draw, package, {"a": 1, "b": 2}), "x"],
        )
        return "unknown field"
    if choice == 1 and present:  # both spellings, or one renamed
        key = draw(st.sampled_from(present))
        fd = lookup(descriptor, key)
        assert fd is not None
        other = fd.name if key == fd.json_name else fd.json_name
        if draw(st.booleans()):
            value[other] = copy.deepcopy(value[key])
            return "both spellings"
        slot.value = {other if k == key else k: v for k, v in value.items()}
        return "renamed"
    if choice == 2 and present:
        del value[draw(st.sampled_from(present))]
        return "field removed"
    if choice == 3 and present:
        value[draw(st.sampled_from(present))] = pick(draw, [None, "", [], {}])
        return "field emptied"
    if choice == 4 and value:
        slot.value = mark_duplicate(draw, package, value)
        return "duplicate key"
    if choice == 5:  # another member of a oneof, or any field, with a valid value
        fd = draw(st.sampled_from(fields))
        oneof = real_oneof(fd)
        if oneof is not None and draw(st.booleans()):
            fd = draw(st.sampled_from(list(oneof.fields)))
        sample = package.cls(descriptor)()
        builder.set(sample, fd, Builder.MAX_DEPTH, True)
        printed = json_format.MessageToDict(
            sample, preserving_proto_field_name=draw(st.booleans())
        )
        for key, item in printed.items():
            value[key] = item
        if not printed:
            value[fd.json_name] = None
        return "field added"
    if choice == 6:  # a oneof member null, or a Value / NullValue one
        members = [fd for fd in fields if real_oneof(fd) is not None]
        if not members:
            return "no change"
        fd = draw(st.sampled_from(members))
        value[draw(st.sampled_from([fd.json_name, fd.name]))] = None
        return "oneof member null"
    key = draw(st.sampled_from(present)) if present else "x"
    value[key] = pick(draw, ODD_JSON)
    return "odd value"


def slots_of(package: Package, holder: list[Any], type_name: str) -> list[Slot]:
    found: list[Slot] = []

    def message(
        descriptor: Descriptor, parent: Any, key: Any, owner: FieldDescriptor | None
    ) -> None:
        value = parent[key]
        if not isinstance(value, dict):
            return
        found.append(Slot(parent, key, "message", owner, descriptor))
        for name in list(value):
            fd = lookup(descriptor, name)
            if fd is not None:
                whole(fd, value, name)

    def whole(fd: FieldDescriptor, parent: Any, key: Any) -> None:
        found.append(Slot(parent, key, "whole", fd))
        value = parent[key]
        if is_map(fd):
            if isinstance(value, dict):
                for entry in list(value):
                    found.append(Slot(value, entry, "entry", fd))
                    single(map_value(fd), value, entry, fd)
        elif fd.is_repeated:
            if isinstance(value, list):
                for index in range(len(value)):
                    found.append(Slot(value, index, "element", fd))
                    single(fd, value, index, fd)
        else:
            single(fd, parent, key, fd)

    def single(
        fd: FieldDescriptor, parent: Any, key: Any, owner: FieldDescriptor
    ) -> None:
        name = type_of(fd)
        if not name or name in WRAPPERS or name in TEXT_WKTS:
            return
        value = parent[key]
        if name in JSON_WKTS:
            json(value)
        elif name == ANY:
            if isinstance(value, dict) and isinstance(value.get("@type"), str):
                found.append(Slot(value, "@type", "type_url", owner))
                inner = value["@type"].rpartition("/")[2]
                if inner in ANY_WKTS and "value" in value:
                    found.append(Slot(value, "value", "json", owner))
                elif inner in package.module.SCHEMA or inner == EMPTY:
                    message(package.descriptor(inner), parent, key, owner)
        else:
            message(fd.message_type, parent, key, owner)

    def json(value: Any) -> None:
        if isinstance(value, dict):
            for key in list(value):
                found.append(Slot(value, key, "json"))
                json(value[key])
        elif isinstance(value, list):
            for index in range(len(value)):
                found.append(Slot(value, index, "json"))
                json(value[index])

    message(package.descriptor(type_name), holder, 0, None)
    return found or [Slot(holder, 0, "message", None, package.descriptor(type_name))]


# --- the oracle ------------------------------------------------------------------------------


class Survey:
    """One walk of a value as ParseDict reads it: what the contract refuses there
    although ParseDict accepts it (``refusals``), every real json-name path
    (``paths``), and, in the copy it walks, each Any of a type the package does not
    know made ``{}`` (it is left as sent)."""

    def __init__(self, package: Package) -> None:
        self.package = package
        self.refusals: list[str] = []
        self.paths: set[str] = {""}

    def refuse(self, why: str) -> None:
        self.refusals.append(why)

    def duplicates(self, value: Any, path: str) -> None:
        if isinstance(value, self.package.duplicate_keys) and value.duplicates:
            self.refuse(f"{path}: a key given twice")

    def message(self, descriptor: Descriptor, value: Any, path: str) -> None:
        self.paths.add(path)
        if not isinstance(value, dict):
            if value is not None:
                self.refuse(f"{path}: a {type(value).__name__} where a message goes")
            return
        self.duplicates(value, path)
        for fd in descriptor.fields:
            self.paths.add(join(path, fd.json_name))
        seen: set[str] = set()
        for key in list(value):
            fd = lookup(descriptor, key)
            if fd is None:
                self.sent(value[key], join(path, str(key)))
                continue
            if fd.name in seen:
                self.refuse(f"{path}: {fd.name} under both of its names")
            seen.add(fd.name)
            self.whole(fd, value, key, join(path, fd.json_name))
        self.required(descriptor, value, path)

    def required(
        self, descriptor: Descriptor, value: dict[str, Any], path: str
    ) -> None:
        """The contract's REQUIRED check, on what the canonical form would hold."""
        oneofs: dict[str, list[FieldDescriptor]] = {}
        for fd in descriptor.fields:
            oneof = real_oneof(fd)
            if oneof is not None:
                oneofs.setdefault(oneof.name, []).append(fd)
            elif required(fd):
                given = [value[key] for key in (fd.json_name, fd.name) if key in value]
                if not given or not present(fd, given[-1]):
                    self.refuse(f"{join(path, fd.json_name)}: REQUIRED, missing")
        for members in oneofs.values():
            if not any(required(fd) for fd in members):
                continue
            held = None  # the member protobuf keeps: the last one set
            for key, item in value.items():
                fd = lookup(descriptor, key)
                if fd in members and (
                    item is not None
                    or type_of(fd) == "google.protobuf.Value"
                    or (
                        fd.enum_type is not None
                        and fd.enum_type.full_name == NULL_VALUE
                    )
                ):
                    held = (fd, item)
            if held is None or not present(*held):
                self.refuse(f"{path}: a REQUIRED oneof, unset")

    def whole(
        self, fd: FieldDescriptor, parent: dict[str, Any], key: str, path: str
    ) -> None:
        value = parent[key]
        if value is None:
            return
        if is_map(fd):
            if isinstance(value, dict):
                self.duplicates(value, path)
                for entry in list(value):
                    self.paths.add(f"{path}[{entry}]")
                    self.single(map_value(fd), value, entry, f"{path}[{entry}]")
        elif fd.is_repeated:
            if isinstance(value, (list, tuple)):
                for index in range(len(value)):
                    self.paths.add(f"{path}[{index}]")
                    self.single(fd, value, index, f"{path}[{index}]")
        else:
            self.single(fd, parent, key, path)

    def single(self, fd: FieldDescriptor, parent: Any, key: Any, path: str) -> None:
        value = parent[key]
        name = type_of(fd)
        if name in WRAPPERS:
            fd, name = fd.message_type.fields_by_name["value"], ""
        if not name:
            self.scalar(fd, value, path)
        elif name in JSON_WKTS:
            self.json(value, path)
        elif name == ANY:
            self.any(parent, key, path)
        elif name not in TEXT_WKTS:
            self.message(fd.message_type, value, path)

    def scalar(self, fd: FieldDescriptor, value: Any, path: str) -> None:
        if fd.cpp_type in FLOATS and isinstance(value, bool):
            self.refuse(f"{path}: a boolean where a number goes")
        elif fd.cpp_type == FD.CPPTYPE_ENUM and value is not None:
            problem = enum_problem(fd.enum_type, value)
            if problem:
                self.refuse(f"{path}: {problem}")

    def any(self, parent: Any, key: Any, path: str) -> None:
        value = parent[key]
        self.paths.update({join(path, "@type"), join(path, "value")})
        if not isinstance(value, dict):
            return  # ParseDict refuses it
        url = value.get("@type")
        if not isinstance(url, str) or not url:
            self.duplicates(value, path)
            # a key given twice in an Any without its type is named by its own path
            self.paths.update(join(path, str(key)) for key in value)
            return
        name = url.rpartition("/")[2]
        if name in self.package.module.SCHEMA or name == EMPTY:
            fields = {k: v for k, v in value.items() if k != "@type"}
            self.message(self.package.descriptor(name), fields, path)
            value.update(fields)  # an unknown type's Any in there made {}
            self.duplicates(value, path)
        elif name in ANY_WKTS:
            self.duplicates(value, path)
            if "value" in value:
                self.wkt(name, value["value"], join(path, "value"))
        elif name and all(not 0xD800 <= ord(c) <= 0xDFFF for c in url):
            self.sent(value, path)
            parent[key] = {}  # left as sent: ParseDict would look it up in its pool

    def wkt(self, name: str, value: Any, path: str) -> None:
        """An Any's payload of a well-known type."""
        self.paths.add(path)
        if name in WRAPPERS:
            self.scalar(
                self.package.descriptor(name).fields_by_name["value"], value, path
            )
        elif name in JSON_WKTS:
            self.json(value, path)
        elif name == ANY:
            self.any([value], 0, path)

    def json(self, value: Any, path: str) -> None:
        self.paths.add(path)
        if isinstance(value, dict):
            self.duplicates(value, path)
            for key in value:
                self.json(value[key], f"{path}[{key}]")
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                self.json(item, f"{path}[{index}]")

    def sent(self, value: Any, path: str) -> None:
        """JSON taken as sent (an unknown field's value): only duplicates count."""
        self.paths.add(path)
        if isinstance(value, dict):
            self.duplicates(value, path)
            for key in value:
                self.sent(value[key], join(path, str(key)))
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                self.sent(item, f"{path}[{index}]")


def present(fd: FieldDescriptor, value: Any) -> bool:
    """REQUIRED is met: not null (but a NullValue), not "" or []."""
    if value is None:
        return fd.enum_type is not None and fd.enum_type.full_name == NULL_VALUE
    return not (isinstance(value, (str, list, tuple)) and not value)


def enum_problem(enum: EnumDescriptor, value: Any) -> str:
    """Why the contract refuses an enum value ParseDict may take ("" if it does not)."""
    if isinstance(value, bool):
        return "a boolean where an enum goes"
    if isinstance(value, str):
        if value in enum.values_by_name:
            return ""
        try:
            number = int(value)
        except ValueError:
            return "an unknown enum name"
    elif isinstance(value, float):
        if not value.is_integer():
            return "an enum number that is no integer"
        number = int(value)
    elif isinstance(value, int):
        number = value
    else:
        return ""  # ParseDict refuses it
    numbers = {
        value.number for value in enum.values
    }  # (upb's values_by_number truncates)
    return "" if number in numbers else "an enum number that names no value"


@dataclass
class Verdict:
    accepts: bool
    parsed: Message | None
    why: str
    paths: set[str]


def parse(
    package: Package, descriptor: Descriptor, value: Any, drop: bool
) -> tuple[Message | None, Survey, str]:
    """ParseDict of ``value`` (an unknown type's Any as ``{}``) and the survey of it."""
    survey = Survey(package)
    prepared = [copy.deepcopy(value)]
    survey.message(descriptor, prepared[0], "")
    message = package.cls(descriptor)()
    try:
        json_format.ParseDict(prepared[0], message, ignore_unknown_fields=drop)
    except Exception as exc:  # OverflowError, KeyError, AttributeError escape it raw
        return None, survey, f"ParseDict: {type(exc).__name__}: {str(exc)[:300]}"
    return message, survey, ""


def oracle(package: Package, descriptor: Descriptor, value: Any, mode: str) -> Verdict:
    message, survey, why = parse(package, descriptor, value, mode == "drop")
    if message is None:
        return Verdict(False, None, why, survey.paths)
    if survey.refusals:
        return Verdict(False, message, "; ".join(survey.refusals), survey.paths)
    return Verdict(True, message, "", survey.paths)


def serialized(message: Message) -> bytes:
    return message.SerializePartialToString(deterministic=True)


def check_shape(
    package: Package, descriptor: Descriptor, value: Any, path: str = ""
) -> None:
    """The canonical form's promises: json names, enums by name, 64-bit integers as
    decimal strings, 32-bit ones as int, nulls only for a Value."""
    assert isinstance(value, dict), path
    members: dict[str, str] = {}
    for key in value:
        fd = lookup(descriptor, key)
        oneof = real_oneof(fd) if fd is not None else None
        if oneof is not None:
            assert (
                oneof.name not in members
            ), f"{path}: {members[oneof.name]} and {key} of one oneof"
            members[oneof.name] = key
    for key, item in value.items():
        if key == "@type":
            continue
        fd = lookup(descriptor, key)
        assert fd is not None and key == fd.json_name, f"{path}: key {key!r}"
        where = join(path, key)
        if is_map(fd):
            assert isinstance(item, dict), where
            for entry in item.values():
                check_value(package, map_value(fd), entry, where)
        elif fd.is_repeated:
            assert isinstance(item, list), where
            for entry in item:
                check_value(package, fd, entry, where)
        else:
            check_value(package, fd, item, where)


def check_value(package: Package, fd: FieldDescriptor, value: Any, path: str) -> None:
    name = type_of(fd)
    if name in WRAPPERS:
        fd, name = fd.message_type.fields_by_name["value"], ""
    if name == "google.protobuf.Value" or name in JSON_WKTS:
        return
    assert value is not None, f"{path}: null"
    if name == ANY:
        url = value.get("@type", "")
        inner = url.rpartition("/")[2]
        if inner in package.module.SCHEMA:
            check_shape(package, package.descriptor(inner), value, path)
        return
    if name and name not in TEXT_WKTS:
        check_shape(package, fd.message_type, value, path)
    elif fd.cpp_type in WIDE:
        assert type(value) is str and str(int(value)) == value, f"{path}: {value!r}"
    elif fd.cpp_type in INT_RANGES:
        assert type(value) is int, f"{path}: {value!r}"
    elif fd.cpp_type == FD.CPPTYPE_ENUM:
        assert value in fd.enum_type.values_by_name, f"{path}: {value!r}"


def check_case(package: Package, type_name: str, sent: Any, mode: str) -> None:
    """One case: validation agrees with the oracle (see the module's docstring)."""
    descriptor = package.descriptor(type_name)
    before = copy.deepcopy(sent)
    verdict = oracle(package, descriptor, sent, mode)
    try:
        canonical = package.module.validate(type_name, sent, unknown_fields=mode)
        violations: tuple[tuple[str, str], ...] = ()
    except package.module.ValidationError as exc:
        canonical, violations = None, exc.violations
    package.count("cases")
    package.count("accepted" if verdict.accepts else "refused")
    assert sent == before, "validation changed its input"
    context = f"{type_name} ({mode}): {sent!r}"
    check_plain_case(package, type_name, sent, mode, canonical, context)
    if verdict.accepts:
        assert (
            not violations
        ), f"refused what the oracle accepts: {violations} for {context}"
        parsed, _, why = parse(package, descriptor, canonical, True)
        assert (
            parsed is not None
        ), f"the canonical form {canonical!r} does not parse ({why}) for {context}"
        assert verdict.parsed is not None
        assert serialized(parsed) == serialized(
            verdict.parsed
        ), f"{canonical!r} is not {context}"
        check_shape(package, descriptor, canonical)
        again = package.module.validate(type_name, canonical, unknown_fields="reject")
        assert again == canonical, f"{again!r} != {canonical!r}"
        check_builder(package, descriptor, canonical)  # a handler's answer
    else:
        assert (
            canonical is None
        ), f"accepted what the oracle refuses ({verdict.why}): {canonical!r} from {context}"
        assert violations
        for path, text in violations:
            assert path in verdict.paths, f"{path!r} ({text}) is no path of {context}"
    if mode == "reject":  # the builder has no modes: once per case
        check_builder(package, descriptor, sent)


def check_plain_case(
    package: Package,
    type_name: str,
    sent: Any,
    mode: str,
    canonical: Any,
    context: str,
) -> None:
    """The compiled check of the plain case (``_validate_fast``) gives what the
    general walk gives, or leaves the case to it; the walk alone decides as
    ``validate`` does."""
    schema = package.module.SCHEMA
    try:
        walked = schema._walked(type_name, sent, mode == "reject", False)
    except package.module.ValidationError:
        walked = None
    assert walked == canonical, f"the walk alone gives {walked!r} for {context}"
    given = copy.deepcopy(sent)  # the serving path's own request: changed in place
    try:
        in_place = package.fast.validator(
            schema, type_name, unknown_fields=mode, in_place=True
        )(given)
    except package.module.ValidationError as exc:
        in_place, refused = None, exc.violations
    else:
        refused = ()
    assert (
        in_place == canonical
    ), f"in place, validation gives {in_place!r} for {context}"
    if canonical is None:
        with pytest.raises(package.module.ValidationError) as expected:
            package.module.validate(type_name, sent, unknown_fields=mode)
        assert (
            refused == expected.value.violations
        ), f"in place: {refused} for {context}"
    try:
        plain = package.fast.target(schema, type_name).check(sent, 1)
    except package.fast.Fallback:
        return
    package.count("plain")
    assert plain == walked, f"the compiled check gives {plain!r} for {context}"
    assert in_place is given, f"a plain {context} is not checked in place"


def check_reader(package: Package, message: Message) -> None:
    """``MessageReader`` (the gRPC binding's requests) reads what ``MessageToDict``
    prints, on every message the cases start from (NaN compared as text)."""
    try:
        expected: Any = json_format.MessageToDict(message)
    except Exception as exc:  # an Any of a type nobody knows
        with pytest.raises(type(exc)):
            READER.read(message)
        return
    package.count("read")
    assert repr(READER.read(message)) == repr(expected), message
    check_parser(package, message)


def check_parser(package: Package, message: Message) -> None:
    """``MessageReader.parser`` (the bytes of the gRPC binding's requests) reads
    what protobuf parses and ``read`` reads, and fails where ``FromString`` fails;
    over the package's tables, what it reads without handing it to validation is
    what validation accepts and gives back unchanged."""
    message_class = type(message)
    raw = serialized(message)
    try:
        expected = READER.read(message_class.FromString(raw))
    except Exception as exc:  # nested deeper than protobuf's reader goes
        with pytest.raises(type(exc)):
            READER.parser(message_class)(raw)
        return
    parsed = READER.parser(message_class)(raw)
    assert json.dumps(parsed, sort_keys=True) == json.dumps(expected, sort_keys=True)
    type_name = message.DESCRIPTOR.full_name
    validated: list[Any] = []
    straight = package.reader.parser(message_class, validated.append)(raw)
    if validated:  # handed over: what protobuf parsed, as read
        assert validated == [expected]
        return
    package.count("read straight")
    assert straight == expected
    again = package.module.validate(type_name, straight, unknown_fields="reject")
    assert again == straight, f"validation changes {straight!r} to {again!r}"


def check_builder(package: Package, descriptor: Descriptor, sent: Any) -> None:
    """``MessageBuilder`` (the gRPC binding's answers) builds what ``ParseDict`` does
    and fails where it fails, on whatever was sent (unknown fields refused)."""
    try:
        expected: Message | None = package.cls(descriptor)()
        json_format.ParseDict(copy.deepcopy(sent), expected)
    except Exception:  # ParseError, and what escapes it raw
        expected = None
    try:
        built: Message | None = package.builder.build(
            package.cls(descriptor), descriptor.full_name, sent
        )
    except Exception:
        built = None
    if expected is None:
        assert (
            built is None
        ), f"MessageBuilder built {built} where ParseDict fails: {sent!r}"
    else:
        assert (
            built is not None
        ), f"MessageBuilder failed where ParseDict builds: {sent!r}"
        assert serialized(built) == serialized(
            expected
        ), f"{built} is not {expected} for {sent!r}"
    check_encoder(package, descriptor, sent, expected)


def check_encoder(
    package: Package, descriptor: Descriptor, sent: Any, expected: Message | None
) -> None:
    """``MessageEncoder`` (the gRPC binding's answer bytes) writes bytes that parse to
    the message ``ParseDict`` builds, and fails where it fails."""
    message_class = package.cls(descriptor)
    try:
        encoded: bytes | None = package.encoder.encode(message_class, sent)
    except Exception:
        encoded = None
    if expected is None or not expected.IsInitialized():  # proto2's required
        assert encoded is None, f"MessageEncoder wrote {encoded!r} for {sent!r}"
        return
    assert (
        encoded is not None
    ), f"MessageEncoder failed where ParseDict builds: {sent!r}"
    try:
        written = message_class.FromString(encoded)
    except DecodeError:  # nested deeper than protobuf's reader goes: its bytes too
        with pytest.raises(DecodeError):
            message_class.FromString(serialized(expected))
        return
    assert serialized(written) == serialized(
        expected
    ), f"{written} is not {expected} for {sent!r}"


def run_oracle(package: Package, examples: int) -> dict[str, int]:
    """The property, over ``examples`` examples of CASES_PER_EXAMPLE cases each."""

    @settings(
        max_examples=max(1, int(examples * SCALE)),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @given(st.data())
    def cases(data: st.DataObject) -> None:
        draw = data.draw
        type_name = draw(st.sampled_from(package.types))
        builder = Builder(draw, package)
        built = builder.message(package.descriptor(type_name), 0)
        check_reader(package, built)
        rendered = render(draw, built)
        check_case(package, type_name, rendered, "drop")
        check_case(package, type_name, rendered, "reject")
        for _ in range(CASES_PER_EXAMPLE - 2):
            holder = [copy.deepcopy(rendered)]
            for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
                package.mutations.append(
                    mutate(draw, package, builder, holder, type_name)
                )
            check_case(
                package, type_name, holder[0], draw(st.sampled_from(["drop", "reject"]))
            )

    started = time.perf_counter()
    cases()
    counts = dict(package.counts)
    counts["seconds"] = round(time.perf_counter() - started, 1)  # type: ignore[assignment]
    print(f"\n{package.module.__name__}: {counts}")
    if os.environ.get("VALIDATION_MUTATIONS"):
        tally: dict[str, int] = {}
        for what in package.mutations:
            tally[what] = tally.get(what, 0) + 1
        print(sorted(tally.items(), key=lambda item: -item[1]))
    return counts


# --- the tests ---------------------------------------------------------------------------------


def test_a2a_requests_agree_with_protobuf(a2a: ModuleType) -> None:
    from a2a.types import a2a_pb2

    package = package_of(a2a, a2a_pb2.DESCRIPTOR.pool)
    counts = run_oracle(package, 1200)
    assert (
        counts["accepted"] > counts["cases"] // 10
        and counts["refused"] > counts["cases"] // 10
        and counts.get("plain", 0) > counts["accepted"] // 4
    )


@pytest.mark.parametrize("proto", FEATURES, ids=[p.stem for p in FEATURES])
def test_feature_protos_agree_with_protobuf(
    proto: Path, load_package: Callable[..., ModuleType], tmp_path: Path
) -> None:
    root = load_package(proto, "serve=true")  # its compiled check: the serving layer's
    compile_pb2(proto, tmp_path / "pb2")
    run_oracle(package_of(root, descriptor_pool.Default()), 150)


# Every kind validation knows, in two protos of this test's own.
KINDS_PROTO = '// Every field kind request validation knows, for its differential test.\nsyntax = "proto3";\n\npackage vk.v1;\n\nimport "google/api/annotations.proto";\nimport "google/api/field_behavior.proto";\nimport "google/protobuf/any.proto";\nimport "google/protobuf/duration.proto";\nimport "google/protobuf/empty.proto";\nimport "google/protobuf/field_mask.proto";\nimport "google/protobuf/struct.proto";\nimport "google/protobuf/timestamp.proto";\nimport "google/protobuf/wrappers.proto";\n\nenum Shade {\n  SHADE_UNSPECIFIED = 0;\n  SHADE_DARK = 1;\n  SHADE_LIGHT = 2;\n  SHADE_MINUS = -7;\n}\n\nenum Alias {\n  option allow_alias = true;\n  ALIAS_ZERO = 0;\n  ALIAS_ONE = 1;\n  ALIAS_UNO = 1;\n}\n\nmessage Leaf {\n  string name = 1 [(google.api.field_behavior) = REQUIRED];\n  int64 count = 2;\n  Shade shade = 3;\n}\n\nmessage Tree {\n  Tree child = 1;\n  repeated Tree children = 2;\n  Leaf leaf = 3;\n  google.protobuf.Struct data = 4;\n  google.protobuf.Any any = 5;\n}\n\nmessage Kinds {\n  map<int32, string> by_i32 = 1;\n  map<int64, Leaf> by_i64 = 2;\n  map<uint32, Shade> by_u32 = 3;\n  map<uint64, double> by_u64 = 4;\n  map<bool, bytes> by_bool = 5;\n  map<string, google.protobuf.Value> by_str = 6;\n  map<sint32, float> by_s32 = 7;\n  map<fixed64, bool> by_f64 = 8;\n  map<string, google.protobuf.Int64Value> boxed_by_str = 9;\n  map<string, google.protobuf.Timestamp> times_by_str = 10;\n  map<string, google.protobuf.NullValue> nulls_by_str = 11;\n  google.protobuf.Any any = 12;\n  repeated google.protobuf.Any anys = 13;\n  google.protobuf.NullValue nothing = 14;\n  repeated google.protobuf.NullValue nothings = 15;\n  google.protobuf.ListValue list = 16;\n  repeated google.protobuf.Value values = 17;\n  google.protobuf.Value value = 18;\n  repeated google.protobuf.Int32Value boxed_i32s = 19;\n  google.protobuf.UInt64Value boxed_u64 = 20;\n  google.protobuf.FloatValue boxed_flt = 21;\n  google.protobuf.BytesValue boxed_blob = 22;\n  google.protobuf.BoolValue boxed_flag = 23;\n  google.protobuf.StringValue boxed_text = 24;\n  google.protobuf.Empty empty = 25;\n  repeated google.protobuf.Duration waits = 26;\n  repeated google.protobuf.FieldMask masks = 27;\n  Alias alias = 28;\n  repeated Shade shades = 29;\n  repeated bytes blobs = 30;\n  repeated double dbls = 31;\n  repeated float flts = 32;\n  repeated bool flags = 33;\n  repeated uint64 u64s = 34;\n  repeated sint32 s32s = 35;\n  Tree tree = 36;\n  oneof pick {\n    string pick_text = 37 [(google.api.field_behavior) = REQUIRED];\n    google.protobuf.Value pick_value = 38 [(google.api.field_behavior) = REQUIRED];\n    Leaf pick_leaf = 39 [(google.api.field_behavior) = REQUIRED];\n    google.protobuf.NullValue pick_null = 40 [(google.api.field_behavior) = REQUIRED];\n  }\n  optional string maybe = 41;\n  Leaf must = 42 [(google.api.field_behavior) = REQUIRED];\n  repeated string tags = 43 [(google.api.field_behavior) = REQUIRED];\n  google.protobuf.Timestamp at = 44;\n  google.protobuf.Duration wait = 45;\n  google.protobuf.FieldMask mask = 46;\n  google.protobuf.Struct extra = 47;\n  oneof either {\n    int64 either_i64 = 48;\n    Shade either_shade = 49;\n    google.protobuf.Struct either_struct = 50;\n  }\n}\n\nservice KindsService {\n  rpc Put(Kinds) returns (Kinds) {\n    option (google.api.http) = {\n      post: "/kinds"\n      body: "*"\n    };\n  }\n  rpc Grow(Tree) returns (Tree) {\n    option (google.api.http) = {\n      post: "/trees"\n      body: "*"\n    };\n  }\n}\n'
CLOSED_PROTO = '// proto2: closed enums, explicit presence, defaults.\nsyntax = "proto2";\n\npackage vc.v1;\n\nimport "google/api/annotations.proto";\n\nenum Level {\n  LEVEL_NONE = 0;\n  LEVEL_LOW = 1;\n  LEVEL_HIGH = 2;\n}\n\nmessage Probe {\n  optional Level level = 1;\n  repeated Level levels = 2;\n  map<string, Level> by_name = 3;\n  optional int32 count = 4 [default = 7];\n  optional string label = 5 [default = "x"];\n  repeated int64 wide = 6;\n  optional Probe inner = 7;\n  oneof choice {\n    Level choice_level = 8;\n    string choice_text = 9;\n  }\n}\n\nservice ProbeService {\n  rpc Send(Probe) returns (Probe) {\n    option (google.api.http) = {\n      post: "/probes"\n      body: "*"\n    };\n  }\n}\n'


@pytest.mark.parametrize(
    ("name", "text"),
    [("validation_kinds", KINDS_PROTO), ("validation_closed", CLOSED_PROTO)],
)
def test_every_kind_agrees_with_protobuf(
    name: str, text: str, load_package: Callable[..., ModuleType], tmp_path: Path
) -> None:
    proto = tmp_path / "protos" / f"{name}.proto"
    proto.parent.mkdir()
    proto.write_text(text)
    root = load_package(proto, "serve=true")  # its compiled check: the serving layer's
    compile_pb2(proto, tmp_path / "pb2")
    run_oracle(package_of(root, descriptor_pool.Default()), 500)

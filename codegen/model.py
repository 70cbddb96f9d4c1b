"""Descriptors in, validated plain dataclasses out.

This is the only module that reads protobuf descriptors. Everything downstream (templates,
the CLI's route listing and diff) sees the frozen dataclasses defined here. Every error
carries the proto source location, taken from ``SourceCodeInfo`` where the input has it.
"""

from __future__ import annotations

import functools
import hashlib
import keyword
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

from codegen import __version__
from codegen.http_rule import (
    PathTemplate,
    SegmentKind,
    TemplateError,
    overlap_example,
    parse_template,
    precedence,
)
from codegen.options import Options

__all__ = [
    "SourceLocation",
    "Diagnostic",
    "GenerationError",
    "Field",
    "EnumValue",
    "Enum",
    "Message",
    "PathField",
    "Binding",
    "Method",
    "Service",
    "Overlap",
    "BindingFile",
    "Generation",
    "build_files",
    "descriptor_sha256",
    "WELL_KNOWN_TYPES",
]

# Field numbers used to walk SourceCodeInfo paths (descriptor.proto, http.proto).
_FILE_MESSAGE, _FILE_ENUM, _FILE_SERVICE = 4, 5, 6
_MESSAGE_FIELD, _MESSAGE_NESTED, _MESSAGE_ENUM = 2, 3, 4
_ENUM_VALUE = 2
_SERVICE_METHOD = 2
_METHOD_OPTIONS = 4
_HTTP_VERB_FIELDS = {"get": 2, "put": 3, "post": 4, "delete": 5, "patch": 6, "custom": 8}
_HTTP_BODY, _HTTP_ADDITIONAL, _HTTP_RESPONSE_BODY = 7, 11, 12

_FDP = descriptor_pb2.FieldDescriptorProto
_KIND_NAMES = {
    _FDP.TYPE_DOUBLE: "double",
    _FDP.TYPE_FLOAT: "float",
    _FDP.TYPE_INT64: "int64",
    _FDP.TYPE_UINT64: "uint64",
    _FDP.TYPE_INT32: "int32",
    _FDP.TYPE_FIXED64: "fixed64",
    _FDP.TYPE_FIXED32: "fixed32",
    _FDP.TYPE_BOOL: "bool",
    _FDP.TYPE_STRING: "string",
    _FDP.TYPE_GROUP: "message",
    _FDP.TYPE_MESSAGE: "message",
    _FDP.TYPE_BYTES: "bytes",
    _FDP.TYPE_UINT32: "uint32",
    _FDP.TYPE_ENUM: "enum",
    _FDP.TYPE_SFIXED32: "sfixed32",
    _FDP.TYPE_SFIXED64: "sfixed64",
    _FDP.TYPE_SINT32: "sint32",
    _FDP.TYPE_SINT64: "sint64",
}

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


@dataclass(frozen=True, order=True)
class SourceLocation:
    """Where something is written: 1-based line and column, 0 when the input has no
    source info (a descriptor compiled into a module, say)."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.column}"
        return self.file


@dataclass(frozen=True)
class Diagnostic:
    """One problem in the input, rendered as ``file:line:col: rpc Name: message``."""

    location: SourceLocation
    message: str
    rpc: str | None = None

    def __str__(self) -> str:
        where = f"rpc {self.rpc}: " if self.rpc else ""
        return f"{self.location}: {where}{self.message}"


class GenerationError(Exception):
    """The input cannot be generated; holds every diagnostic found."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        super().__init__("\n".join(str(d) for d in diagnostics))
        self.diagnostics = tuple(diagnostics)


@dataclass(frozen=True)
class Field:
    """A message field with its ProtoJSON facts."""

    name: str
    json_name: str
    number: int
    kind: str  # "string", "int64", "enum", "message", ... (descriptor.proto type names)
    type_name: str  # full name of the message or enum type, "" for scalars
    repeated: bool
    oneof: str | None
    map_key_kind: str | None = None  # set for map fields
    map_value: Field | None = None  # the value field of a map entry
    comment: str = ""

    @property
    def is_map(self) -> bool:
        """True for ``map<K, V>`` fields."""
        return self.map_value is not None

    @property
    def is_message(self) -> bool:
        """True for singular or repeated message fields (not maps)."""
        return self.kind == "message" and not self.is_map


@dataclass(frozen=True)
class EnumValue:
    """One value of an enum."""

    name: str
    number: int


@dataclass(frozen=True)
class Enum:
    """An enum type; ProtoJSON writes its values by name."""

    full_name: str
    name: str
    values: tuple[EnumValue, ...]
    comment: str = ""
    package: str = ""

    @property
    def by_number(self) -> tuple[EnumValue, ...]:
        """One value per number, the first declared (what ProtoJSON prints for aliases)."""
        seen: dict[int, EnumValue] = {}
        for value in self.values:
            seen.setdefault(value.number, value)
        return tuple(seen.values())


@dataclass(frozen=True)
class Message:
    """A message type with its fields in declaration order."""

    full_name: str
    name: str
    fields: tuple[Field, ...]
    comment: str = ""
    package: str = ""

    @property
    def well_known(self) -> bool:
        """True for the google.protobuf types with a JSON form of their own."""
        return self.full_name in WELL_KNOWN_TYPES

    def field(self, name: str) -> Field | None:
        """The field with this proto name or json name, if any."""
        for candidate in self.fields:
            if name in (candidate.name, candidate.json_name):
                return candidate
        return None


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
_MESSAGE_CODECS = {
    "google.protobuf.Timestamp": "timestamp",
    "google.protobuf.Duration": "duration",
    "google.protobuf.FieldMask": "field_mask",
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
# Python annotations of ProtoJSON values: 64-bit integers are strings, and so are the
# non-finite floats ("NaN", "Infinity", "-Infinity").
_SCALAR_PYTHON_TYPES = {
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
_WKT_PYTHON_TYPES = {
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
# Names the generated modules import; a message or enum with such a name gets a "_".
_RESERVED_NAMES = frozenset({"Any", "Literal", "TypedDict", "annotations", "messages"})

# ProtoJSON shapes that have no query-string form (http.proto allows only scalars).
_NO_QUERY_FORM = frozenset(
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


@dataclass(frozen=True)
class QueryParam:
    """One query parameter of an rpc: a scalar, enum or well-known-scalar field, possibly
    inside singular nested messages (``config.pageSize``)."""

    json_path: tuple[str, ...]
    proto_path: tuple[str, ...]
    codec: str  # int32, uint32, int64, uint64, float, double, bool, string, bytes, enum,
    # timestamp, duration, field_mask
    repeated: bool
    enum: Enum | None
    oneof: str | None  # the oneof it belongs to, qualified by its parent path

    @property
    def json_name(self) -> str:
        """The dotted json name ``encode`` writes, e.g. ``config.pageSize``."""
        return ".".join(self.json_path)

    @property
    def names(self) -> tuple[str, ...]:
        """Every spelling ``decode`` accepts: json or proto name at each level."""
        spellings = [""]
        for json_part, proto_part in zip(self.json_path, self.proto_path):
            spellings = [
                f"{prefix}.{part}" if prefix else part
                for prefix in spellings
                for part in dict.fromkeys((json_part, proto_part))
            ]
        return tuple(dict.fromkeys(spellings))


@dataclass(frozen=True)
class PathField:
    """A request field bound by a path variable, possibly through nested messages."""

    proto_path: tuple[str, ...]
    json_path: tuple[str, ...]
    field: Field
    single_segment: bool  # `{x}` / `{x=*}`: fully percent-encoded, fully decoded

    @property
    def json_name(self) -> str:
        """Dotted json path, e.g. ``config.taskId``."""
        return ".".join(self.json_path)

    @property
    def proto_name(self) -> str:
        """Dotted proto path, e.g. ``config.task_id``."""
        return ".".join(self.proto_path)


@dataclass(frozen=True)
class Binding:
    """One HTTP route of an rpc: the main rule, an additional binding, a synthesised
    tenant variant, or a generated verb alias."""

    verb: str
    template: PathTemplate
    path_fields: tuple[PathField, ...]
    body: str | None  # "*", the json name of the body field, or None
    response_body: str | None  # json name of the response field sent as body
    tenant: bool
    alias: bool
    location: SourceLocation
    plain_template: str | None = None  # for a tenant variant: the template it prefixes

    @property
    def pieces(self) -> tuple[str | PathField, ...]:
        """Raw template text and path fields in order, for building a path."""
        by_name = {pf.proto_name: pf for pf in self.path_fields}
        return tuple(
            piece if isinstance(piece, str) else by_name[piece.name]
            for piece in self.template.pieces
        )

    @property
    def captures(self) -> tuple[tuple[PathField, int, int | None], ...]:
        """Each path field with the span of flattened segments it captures."""
        by_name = {v.name: v for v in self.template.variables}
        return tuple(
            (pf, by_name[pf.proto_name].start, by_name[pf.proto_name].end)
            for pf in self.path_fields
        )

    @property
    def path_json_names(self) -> tuple[str, ...]:
        """Json names of the path-bound fields, in template order."""
        return tuple(path_field.json_name for path_field in self.path_fields)


@dataclass(frozen=True)
class Method:
    """An rpc with its HTTP bindings."""

    name: str
    service: str
    request: Message
    response: Message
    client_streaming: bool
    server_streaming: bool
    bindings: tuple[Binding, ...]
    location: SourceLocation
    comment: str = ""
    query: tuple[QueryParam, ...] = ()

    @property
    def has_query(self) -> bool:
        """True when some route of the rpc can carry a query string (no ``body: "*"``)."""
        return any(binding.body != "*" for binding in self.bindings)

    @property
    def query_by_field(self) -> tuple[tuple[Field, tuple[QueryParam, ...]], ...]:
        """Top-level request fields that reach the query, each with its parameters."""
        grouped: list[tuple[Field, tuple[QueryParam, ...]]] = []
        for field in self.request.fields:
            params = tuple(p for p in self.query if p.proto_path[0] == field.name)
            if params:
                grouped.append((field, params))
        return tuple(grouped)

    @property
    def client_binding(self) -> Binding:
        """The plain route a client sends: a generated alias when there is one (A2A sends
        POST to ``:subscribe``), otherwise the main rule."""
        plain = [b for b in self.bindings if not b.tenant]
        for binding in plain:
            if binding.alias:
                return binding
        return plain[0] if plain else self.bindings[0]

    def tenant_variant(self, binding: Binding) -> Binding | None:
        """The ``/{tenant}`` variant of a plain route of this rpc (same verb), if any."""
        for candidate in self.bindings:
            if (
                candidate.tenant
                and candidate.verb == binding.verb
                and candidate.plain_template == binding.template.source
            ):
                return candidate
        return None

    @property
    def tenant_client_binding(self) -> Binding | None:
        """The tenant variant of ``client_binding``, if the rpc has one."""
        return self.tenant_variant(self.client_binding)


@dataclass(frozen=True)
class Service:
    """A service that has at least one rpc with an http rule."""

    full_name: str
    name: str
    methods: tuple[Method, ...]
    a2a: bool
    comment: str = ""


@dataclass(frozen=True)
class Overlap:
    """Two routes of one verb that some path matches both of; ``winner`` is the one
    ``match`` picks for ``example``."""

    first: tuple[Method, Binding]
    second: tuple[Method, Binding]
    example: str

    @property
    def loser(self) -> Binding:
        """The route that does not get ``example`` (the other one is more specific)."""
        first, second = self.first[1], self.second[1]
        return second if precedence(first.template, second.template) <= 0 else first

    @property
    def diagnostic(self) -> Diagnostic:
        """The overlap as a diagnostic at the later of the two routes."""
        (m1, b1), (m2, b2) = self.first, self.second
        message = (
            f"{b2.verb} {b2.template.source} overlaps {b1.verb} {b1.template.source} "
            f"(rpc {m1.name}): {b1.verb} {self.example} matches both"
        )
        return Diagnostic(b2.location, message, m2.name)

    def __str__(self) -> str:
        return str(self.diagnostic)


@dataclass(frozen=True)
class BindingFile:
    """Everything generated for one proto file: one output package."""

    proto_file: str
    proto_package: str
    module: str
    services: tuple[Service, ...]
    messages: tuple[Message, ...]  # reachable from the services, sorted by full name
    enums: tuple[Enum, ...]  # reachable from the services, sorted by full name
    descriptor_sha256: str
    generator_version: str
    tenant_field: str  # json name of the request field the tenant routes bind
    overlaps: tuple[Overlap, ...] = ()
    python_names: tuple[tuple[str, str], ...] = ()  # full proto name -> Python identifier

    def python_name(self, full_name: str) -> str:
        """The identifier of a message's TypedDict or an enum's Literal alias."""
        for name, python in self.python_names:
            if name == full_name:
                return python
        raise KeyError(full_name)

    def python_type(self, field: Field, prefix: str = "") -> str:
        """The annotation of a field's ProtoJSON value; ``prefix`` qualifies names defined
        in messages.py (``"messages."`` from the other modules)."""
        if field.map_value is not None:
            return f"dict[str, {self.python_type(field.map_value, prefix)}]"
        single = self._element_type(field, prefix)
        return f"list[{single}]" if field.repeated else single

    def _element_type(self, field: Field, prefix: str) -> str:
        if field.kind == "enum":
            return prefix + self.python_name(field.type_name)
        if field.kind == "message":
            wkt = _WKT_PYTHON_TYPES.get(field.type_name)
            return wkt if wkt is not None else prefix + self.python_name(field.type_name)
        return _SCALAR_PYTHON_TYPES[field.kind]

    @property
    def value_codecs(self) -> tuple[str, ...]:
        """Every query codec used by a query parameter or a typed path field, sorted."""
        codecs = {p.codec for m in self.methods for p in m.query}
        for _, binding in self.routes:
            for path_field in binding.path_fields:
                codec = query_codec(path_field.field)
                if codec is not None:
                    codecs.add(codec)
        return tuple(sorted(codecs))

    @property
    def typed_path_fields(self) -> tuple[tuple[Binding, PathField, str], ...]:
        """Path fields whose value is not a plain string, with their query codec."""
        found = []
        for _, binding in self.routes:
            for path_field in binding.path_fields:
                codec = query_codec(path_field.field)
                if codec not in (None, "string"):
                    found.append((binding, path_field, codec or ""))
        return tuple(found)

    @property
    def query_enums(self) -> tuple[Enum, ...]:
        """Enums read from a query or a path, sorted by full name."""
        found = {p.enum.full_name: p.enum for m in self.methods for p in m.query if p.enum}
        for _, binding in self.routes:
            for path_field in binding.path_fields:
                if path_field.field.kind == "enum":
                    enum = self.enum(path_field.field.type_name)
                    found[enum.full_name] = enum
        return tuple(found[name] for name in sorted(found))

    @functools.cached_property
    def methods(self) -> tuple[Method, ...]:
        """Every rpc of every service, in declaration order."""
        return tuple(m for s in self.services for m in s.methods)

    @property
    def a2a(self) -> bool:
        """True when any service gets the A2A extras."""
        return any(service.a2a for service in self.services)

    @functools.cached_property
    def routes(self) -> tuple[tuple[Method, Binding], ...]:
        """Every (rpc, route) pair, in table order: rpcs as declared, each rpc's bindings
        as written, a generated alias right after the route it aliases."""
        return tuple((m, b) for m in self.methods for b in m.bindings)

    def route_index(self, binding: Binding) -> int:
        """Position of ``binding`` in ``routes``."""
        return self._route_indexes[id(binding)]

    @functools.cached_property
    def _route_indexes(self) -> dict[int, int]:
        return {id(binding): i for i, (_, binding) in enumerate(self.routes)}

    def build_checks_path(self, binding: Binding) -> bool:
        """True when a path built for ``binding`` might route elsewhere, so ``build`` must
        match it again: the route loses some overlap, or a variable spans several
        segments (its value must fit the variable's own pattern)."""
        return id(binding) in self._checked_routes

    @functools.cached_property
    def _checked_routes(self) -> frozenset[int]:
        checked = {id(o.loser) for o in self.overlaps}
        for _, binding in self.routes:
            if any(not pf.single_segment for pf in binding.path_fields):
                checked.add(id(binding))
        return frozenset(checked)

    @property
    def custom_verbs(self) -> tuple[str, ...]:
        """Every custom verb some route has, sorted."""
        return tuple(sorted({b.template.verb for _, b in self.routes if b.template.verb}))

    @property
    def has_tenant_routes(self) -> bool:
        """True when some route is a ``/{tenant}`` variant."""
        return any(b.tenant for _, b in self.routes)

    @property
    def has_multi_segment_variables(self) -> bool:
        """True when some path variable spans several segments (``{name=tasks/*}``)."""
        return any(not pf.single_segment for _, b in self.routes for pf in b.path_fields)

    @property
    def has_deep_wildcards(self) -> bool:
        """True when some template ends with ``**``."""
        return any(b.template.has_deep_wildcard for _, b in self.routes)

    @property
    def max_path_segments(self) -> int:
        """The most segments a path can have and still match (without ``**``); the root
        path ``/`` counts as one."""
        return max([1] + [len(b.template.segments) for _, b in self.routes])

    @property
    def has_nested_path_fields(self) -> bool:
        """True when some path variable names a field inside a nested message."""
        return any(len(pf.json_path) > 1 for _, b in self.routes for pf in b.path_fields)

    def enum(self, full_name: str) -> Enum:
        """The reachable enum with this full name."""
        for enum in self.enums:
            if enum.full_name == full_name:
                return enum
        raise KeyError(full_name)


def descriptor_sha256(file: descriptor_pb2.FileDescriptorProto) -> str:
    """sha256 of the file's descriptor without source info: comments do not change it."""
    stripped = descriptor_pb2.FileDescriptorProto()
    stripped.CopyFrom(file)
    stripped.ClearField("source_code_info")
    return hashlib.sha256(stripped.SerializeToString(deterministic=True)).hexdigest()


class _SourceInfo:
    """Locations and comments of one file, by SourceCodeInfo path."""

    def __init__(self, file: descriptor_pb2.FileDescriptorProto) -> None:
        self.file = file.name
        self.spans: dict[tuple[int, ...], tuple[int, int]] = {}
        self.comments: dict[tuple[int, ...], str] = {}
        for location in file.source_code_info.location:
            path = tuple(location.path)
            if path not in self.spans and location.span:
                self.spans[path] = (location.span[0] + 1, location.span[1] + 1)
            if location.leading_comments and path not in self.comments:
                self.comments[path] = _clean_comment(location.leading_comments)

    def location(self, path: Sequence[int]) -> SourceLocation:
        """The most specific recorded location on ``path`` (protoc records no location
        for some option sub-fields)."""
        for end in range(len(path), -1, -1):
            span = self.spans.get(tuple(path[:end]))
            if span is not None:
                return SourceLocation(self.file, *span)
        return SourceLocation(self.file)

    def comment(self, path: Sequence[int]) -> str:
        return self.comments.get(tuple(path), "")


_INTERNAL_COMMENT = re.compile(r"\(--.*?--\)", re.S)


def _clean_comment(text: str) -> str:
    """A leading comment as docstring text: one space of indent removed, and ``(-- --)``
    blocks (internal notes such as api-linter directives, by Google's convention) dropped."""
    text = _INTERNAL_COMMENT.sub("", text)
    lines = [line[1:] if line.startswith(" ") else line for line in text.splitlines()]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(line.rstrip() for line in lines)


class _Index:
    """Every message and enum of every file in the request, by full name."""

    def __init__(self, files: Iterable[descriptor_pb2.FileDescriptorProto]) -> None:
        self.messages: dict[
            str, tuple[descriptor_pb2.DescriptorProto, _SourceInfo, tuple[int, ...]]
        ] = {}
        self.package: dict[str, str] = {}
        self.enums: dict[
            str, tuple[descriptor_pb2.EnumDescriptorProto, _SourceInfo, tuple[int, ...]]
        ] = {}
        self.files: dict[str, descriptor_pb2.FileDescriptorProto] = {}
        for file in files:
            self.files[file.name] = file
            info = _SourceInfo(file)
            prefix = file.package + "." if file.package else ""
            for i, message in enumerate(file.message_type):
                self._add_message(prefix, message, info, (_FILE_MESSAGE, i))
            for i, enum in enumerate(file.enum_type):
                self.enums[prefix + enum.name] = (enum, info, (_FILE_ENUM, i))
                self.package[prefix + enum.name] = file.package
        self._built: dict[str, Message] = {}

    def _add_message(
        self,
        prefix: str,
        message: descriptor_pb2.DescriptorProto,
        info: _SourceInfo,
        path: tuple[int, ...],
    ) -> None:
        full_name = prefix + message.name
        self.messages[full_name] = (message, info, path)
        self.package[full_name] = self.files[info.file].package
        for i, nested in enumerate(message.nested_type):
            self._add_message(full_name + ".", nested, info, path + (_MESSAGE_NESTED, i))
        for i, enum in enumerate(message.enum_type):
            self.enums[full_name + "." + enum.name] = (enum, info, path + (_MESSAGE_ENUM, i))
            self.package[full_name + "." + enum.name] = self.files[info.file].package

    def message(self, full_name: str) -> Message:
        built = self._built.get(full_name)
        if built is None:
            descriptor, info, path = self.messages[full_name]
            fields = tuple(
                self._field(descriptor, f, info.comment(path + (_MESSAGE_FIELD, i)))
                for i, f in enumerate(descriptor.field)
            )
            built = Message(
                full_name, descriptor.name, fields, info.comment(path), self.package[full_name]
            )
            self._built[full_name] = built
        return built

    def enum(self, full_name: str) -> Enum:
        descriptor, info, path = self.enums[full_name]
        values = tuple(EnumValue(v.name, v.number) for v in descriptor.value)
        return Enum(full_name, descriptor.name, values, info.comment(path), self.package[full_name])

    def _field(
        self,
        message: descriptor_pb2.DescriptorProto,
        descriptor: descriptor_pb2.FieldDescriptorProto,
        comment: str,
    ) -> Field:
        kind = _KIND_NAMES[descriptor.type]
        type_name = descriptor.type_name.lstrip(".")
        repeated = descriptor.label == _FDP.LABEL_REPEATED
        oneof: str | None = None
        if descriptor.HasField("oneof_index") and not descriptor.proto3_optional:
            oneof = message.oneof_decl[descriptor.oneof_index].name
        json_name = descriptor.json_name or _json_name(descriptor.name)
        entry = self.messages.get(type_name, (None,))[0] if kind == "message" else None
        if repeated and entry is not None and entry.options.map_entry:
            key, value = entry.field[0], entry.field[1]
            value_field = self._field(entry, value, "")
            return Field(
                descriptor.name,
                json_name,
                descriptor.number,
                kind,
                type_name,
                repeated=True,
                oneof=None,
                map_key_kind=_KIND_NAMES[key.type],
                map_value=value_field,
                comment=comment,
            )
        return Field(
            descriptor.name,
            json_name,
            descriptor.number,
            kind,
            type_name,
            repeated=repeated,
            oneof=oneof,
            comment=comment,
        )


def _json_name(name: str) -> str:
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


def _http_rule_verb(rule: http_pb2.HttpRule) -> tuple[str, str, str] | None:
    """(verb, template, oneof field name) of a rule, or None when the pattern is unset."""
    which = rule.WhichOneof("pattern")
    if which is None:
        return None
    if which == "custom":
        return rule.custom.kind.upper(), rule.custom.path, which
    return which.upper(), getattr(rule, which), which


class _ServiceBuilder:
    """Builds and validates the methods of one file's services."""

    def __init__(
        self, index: _Index, file: descriptor_pb2.FileDescriptorProto, options: Options
    ) -> None:
        self.index = index
        self.file = file
        self.options = options
        self.info = _SourceInfo(file)
        self.errors: list[Diagnostic] = []
        self.warnings: list[str] = []
        self.skipped: list[Diagnostic] = []  # services without http rules

    def services(self) -> list[Service]:
        services = []
        prefix = self.file.package + "." if self.file.package else ""
        for si, descriptor in enumerate(self.file.service):
            path = (_FILE_SERVICE, si)
            a2a = self.options.profile == "a2a" or (
                self.options.profile == "auto" and descriptor.name == "A2AService"
            )
            methods = []
            for mi, method in enumerate(descriptor.method):
                built = self.method(
                    prefix + descriptor.name, method, path + (_SERVICE_METHOD, mi), a2a
                )
                if built is not None:
                    methods.append(built)
            if methods:
                services.append(
                    Service(
                        prefix + descriptor.name,
                        descriptor.name,
                        tuple(methods),
                        a2a,
                        self.info.comment(path),
                    )
                )
            elif not any(m.options.HasExtension(annotations_pb2.http) for m in descriptor.method):
                self.skipped.append(
                    Diagnostic(
                        self.info.location(path),
                        f"service {descriptor.name} has no google.api.http rules; skipped",
                    )
                )
        return services

    def method(
        self,
        service: str,
        descriptor: descriptor_pb2.MethodDescriptorProto,
        path: tuple[int, ...],
        a2a: bool,
    ) -> Method | None:
        if not descriptor.options.HasExtension(annotations_pb2.http):
            return None
        location = self.info.location(path)
        rule_path = path + (_METHOD_OPTIONS, annotations_pb2.http.number)
        if descriptor.client_streaming:
            self.warnings.append(
                f"{location}: rpc {descriptor.name}: client-streaming rpcs have no "
                "HTTP+JSON or JSON-RPC form here; skipped"
            )
            return None
        request = self.index.message(descriptor.input_type.lstrip("."))
        response = self.index.message(descriptor.output_type.lstrip("."))
        rule = descriptor.options.Extensions[annotations_pb2.http]
        rules = [(rule, rule_path, "")]
        for i, extra in enumerate(rule.additional_bindings):
            extra_path = rule_path + (_HTTP_ADDITIONAL, i)
            where = f"additional_bindings[{i}]: "
            if extra.additional_bindings:
                self.error(extra_path, descriptor.name, where + "additional_bindings may not nest")
                return None
            rules.append((extra, extra_path, where))
        bindings: list[Binding] = []
        for one_rule, one_path, where in rules:
            binding = self.binding(descriptor.name, one_rule, one_path, where, request, response)
            if binding is None:
                return None
            bindings.append(binding)
        bindings = self.link_tenant_variants(descriptor.name, request, bindings)
        if a2a:
            bindings = _with_subscribe_aliases(bindings)
        query = self.query_params(request, bindings)
        return Method(
            descriptor.name,
            service,
            request,
            response,
            descriptor.client_streaming,
            descriptor.server_streaming,
            tuple(bindings),
            location,
            self.info.comment(path),
            query,
        )

    def error(self, path: Sequence[int], rpc: str | None, message: str) -> None:
        self.errors.append(Diagnostic(self.info.location(path), message, rpc))

    def binding(
        self,
        rpc: str,
        rule: http_pb2.HttpRule,
        path: tuple[int, ...],
        where: str,
        request: Message,
        response: Message,
    ) -> Binding | None:
        """One rule as a binding; ``where`` names it inside the option for messages, since
        protoc records no location below ``option (google.api.http)``."""

        def error(at: Sequence[int], message: str) -> None:
            self.error(at, rpc, where + message)

        pattern = _http_rule_verb(rule)
        if pattern is None:
            error(path, "http rule sets no verb (get, put, post, delete, patch or custom)")
            return None
        verb, text, which = pattern
        verb_path = path + (_HTTP_VERB_FIELDS[which],)
        if not verb:
            error(verb_path, "custom http rule has an empty kind")
            return None
        try:
            template = parse_template(text)
        except TemplateError as exc:
            error(verb_path, str(exc))
            return None
        path_fields = []
        for variable in template.variables:
            bound = self.resolve_path_field(request, variable.field_path)
            if isinstance(bound, str):
                error(verb_path, f"path variable {{{variable.name}}} in {text!r}: {bound}")
                return None
            proto_path, json_path, leaf = bound
            path_fields.append(PathField(proto_path, json_path, leaf, variable.single_segment))
        body: str | None = rule.body or None
        if body is not None:
            body_path = path + (_HTTP_BODY,)
            if verb == "GET":
                error(body_path, f"GET {text} has a body ({body!r}); GET carries no body")
                return None
            if body != "*":
                body_field = request.field(body)
                if body_field is None or body_field.name != body:
                    error(body_path, f"body {body!r} is not a field of {request.full_name}")
                    return None
                if not body_field.is_message or body_field.repeated:
                    error(
                        body_path,
                        f"body {body!r} must be a singular message field (the body is a JSON object)",
                    )
                    return None
                body = body_field.json_name
        response_body: str | None = rule.response_body or None
        if response_body is not None:
            response_field = response.field(response_body)
            if response_field is None or response_field.name != response_body:
                error(
                    path + (_HTTP_RESPONSE_BODY,),
                    f"response_body {response_body!r} is not a field of {response.full_name}",
                )
                return None
            response_body = response_field.json_name
        return Binding(
            verb,
            template,
            tuple(path_fields),
            body,
            response_body,
            tenant=False,
            alias=False,
            location=self.info.location(verb_path),
        )

    def query_params(self, request: Message, bindings: list[Binding]) -> tuple[QueryParam, ...]:
        """The parameters a query string may set: every scalar-like field, through singular
        nested messages, except body fields. Path-bound fields are included so that a
        query value that contradicts the path is caught, not ignored. Maps, repeated
        messages and Struct-like types have no query form."""
        if all(binding.body == "*" for binding in bindings):
            return ()
        body_fields = {b.body for b in bindings if b.body not in (None, "*")}
        params: list[QueryParam] = []

        def walk(
            message: Message,
            json_prefix: tuple[str, ...],
            proto_prefix: tuple[str, ...],
            visiting: frozenset[str],
        ) -> None:
            for field in message.fields:
                json_path = json_prefix + (field.json_name,)
                proto_path = proto_prefix + (field.name,)
                if (not proto_prefix and field.json_name in body_fields) or field.is_map:
                    continue
                codec = query_codec(field)
                if codec is not None:
                    enum = self.index.enum(field.type_name) if field.kind == "enum" else None
                    oneof = f"{'.'.join(json_prefix)}:{field.oneof}" if field.oneof else None
                    params.append(
                        QueryParam(json_path, proto_path, codec, field.repeated, enum, oneof)
                    )
                elif (
                    field.kind == "message"
                    and not field.repeated
                    and field.type_name not in _NO_QUERY_FORM
                    and field.type_name not in visiting
                ):
                    nested = self.index.message(field.type_name)
                    walk(nested, json_path, proto_path, visiting | {field.type_name})

        walk(request, (), (), frozenset({request.full_name}))
        return tuple(params)

    def resolve_path_field(
        self, request: Message, field_path: tuple[str, ...]
    ) -> tuple[tuple[str, ...], tuple[str, ...], Field] | str:
        """Resolve a dotted path through singular message fields; a string is the error."""
        message = request
        json_path: list[str] = []
        found: Field | None = None
        for depth, name in enumerate(field_path):
            found = next((f for f in message.fields if f.name == name), None)
            if found is None:
                return f"no field {name!r} in {message.full_name}"
            json_path.append(found.json_name)
            if found.repeated:
                return f"field {name!r} of {message.full_name} is repeated; path variables must be singular"
            last = depth == len(field_path) - 1
            if found.kind == "message":
                if last:
                    return (
                        f"field {name!r} of {message.full_name} is a message "
                        f"({found.type_name}); path variables must be scalars or enums"
                    )
                message = self.index.message(found.type_name)
            elif not last:
                return f"field {name!r} of {message.full_name} is not a message; cannot select {field_path[depth + 1]!r} in it"
        assert found is not None  # field_path has at least one name (grammar)
        return field_path, tuple(json_path), found

    def link_tenant_variants(
        self, rpc: str, request: Message, bindings: list[Binding]
    ) -> list[Binding]:
        """Mark the additional bindings that are ``/{tenant}`` + another binding of the same
        verb, and synthesise missing ones when the ``tenant_field`` option asks for it."""
        tenant_name = self.options.tenant_field or "tenant"
        tenant = request.field(tenant_name)
        if (
            tenant is None
            or tenant.name != tenant_name
            or tenant.kind != "string"
            or tenant.repeated
        ):
            return bindings
        prefixes = (f"/{{{tenant_name}}}", f"/{{{tenant_name}=*}}")
        by_shape = {(b.verb, b.template.source): b for b in bindings}
        linked: list[Binding] = []
        has_variant: set[tuple[str, str]] = set()
        for binding in bindings:
            source = binding.template.source
            for prefix in prefixes:
                rest = source[len(prefix) :] or "/"
                if (
                    source.startswith(prefix)
                    and (binding.verb, rest) in by_shape
                    and rest != source
                ):
                    if by_shape[(binding.verb, rest)].body == binding.body:
                        binding = replace(binding, tenant=True, plain_template=rest)
                        has_variant.add((binding.verb, rest))
                        break
            linked.append(binding)
        if self.options.tenant_field is None:
            return linked
        result: list[Binding] = []
        for binding in linked:
            result.append(binding)
            key = (binding.verb, binding.template.source)
            if binding.tenant or key in has_variant:
                continue
            if binding.template.variable(tenant_name) is not None:
                continue
            source = binding.template.source
            text = f"/{{{tenant_name}}}" + ("" if source == "/" else source)
            template = parse_template(text)
            tenant_path = PathField((tenant.name,), (tenant.json_name,), tenant, True)
            result.append(
                replace(
                    binding,
                    template=template,
                    path_fields=(tenant_path,) + binding.path_fields,
                    tenant=True,
                    plain_template=source,
                )
            )
        return result


def _with_subscribe_aliases(bindings: list[Binding]) -> list[Binding]:
    """A2A conflict D1: the proto says GET on ``:subscribe``, the spec says POST. Servers
    accept both, so every GET ``:subscribe`` route gets a POST alias."""
    result: list[Binding] = []
    existing = {(b.verb, b.template.shape) for b in bindings}
    for binding in bindings:
        result.append(binding)
        if (
            binding.verb == "GET"
            and binding.template.verb == "subscribe"
            and ("POST", binding.template.shape) not in existing
        ):
            result.append(replace(binding, verb="POST", alias=True))
    return result


def _reachable(index: _Index, services: Sequence[Service]) -> tuple[list[Message], list[Enum]]:
    seen: dict[str, Message] = {}
    enums: dict[str, Enum] = {}
    pending = [m.request.full_name for s in services for m in s.methods]
    pending += [m.response.full_name for s in services for m in s.methods]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        message = index.message(name)
        seen[name] = message
        if message.well_known:
            continue
        for f in message.fields:
            target = f.map_value if f.map_value is not None else f
            if target.kind == "message" and target.type_name not in seen:
                pending.append(target.type_name)
            elif target.kind == "enum" and target.type_name not in enums:
                enums[target.type_name] = index.enum(target.type_name)
    return (
        sorted(seen.values(), key=lambda m: m.full_name),
        sorted(enums.values(), key=lambda e: e.full_name),
    )


def _check_duplicates(services: Sequence[Service]) -> list[Diagnostic]:
    errors: list[Diagnostic] = []
    seen: dict[tuple[str, tuple[str, ...]], tuple[Method, Binding]] = {}
    names: dict[str, Service] = {}
    for service in services:
        for method in service.methods:
            other_service = names.setdefault(method.name, service)
            if other_service is not service:
                errors.append(
                    Diagnostic(
                        method.location,
                        f"rpc name is also used by service {other_service.full_name}; "
                        "JSON-RPC method names must be unique in one generated package",
                        method.name,
                    )
                )
            for binding in method.bindings:
                key = (binding.verb, binding.template.shape)
                previous = seen.setdefault(key, (method, binding))
                if previous[1] is not binding:
                    first_method, first = previous
                    errors.append(
                        Diagnostic(
                            binding.location,
                            f"{binding.verb} {binding.template.source} duplicates the route "
                            f"{first.verb} {first.template.source} of rpc {first_method.name} "
                            f"({first.location})",
                            method.name,
                        )
                    )
    return errors


def _overlaps(services: Sequence[Service]) -> list[Overlap]:
    """Every pair of same-verb routes that some path matches both of, with one example.

    Routes of one verb, custom verb and length are split position by position by their
    literal: only routes whose literals agree (or that have a variable there) are ever
    compared, so a large table costs about what its real overlaps cost. Routes ending in
    ``**`` are compared with every route of their verb.
    """
    buckets: dict[tuple[str, str | None], list[tuple[Method, Binding]]] = {}
    for service in services:
        for method in service.methods:
            for binding in method.bindings:
                key = (binding.verb, binding.template.verb)
                buckets.setdefault(key, []).append((method, binding))
    pairs: dict[tuple[int, int], tuple[tuple[Method, Binding], tuple[Method, Binding]]] = {}
    order = {id(b): i for i, (_, b) in enumerate(item for bucket in buckets.values() for item in bucket)}

    def add(first: tuple[Method, Binding], second: tuple[Method, Binding]) -> None:
        if order[id(first[1])] > order[id(second[1])]:
            first, second = second, first
        pairs[(id(first[1]), id(second[1]))] = (first, second)

    def split(group: list[tuple[Method, Binding]], position: int) -> None:
        if len(group) < 2:
            return
        if position == len(group[0][1].template.segments):
            for i, first in enumerate(group):
                for second in group[i + 1 :]:
                    add(first, second)
            return
        by_literal: dict[str, list[tuple[Method, Binding]]] = {}
        variables: list[tuple[Method, Binding]] = []
        for item in group:
            segment = item[1].template.segments[position]
            if segment.kind is SegmentKind.LITERAL:
                by_literal.setdefault(segment.literal, []).append(item)
            else:
                variables.append(item)
        split(variables, position + 1)
        for same_literal in by_literal.values():
            split(same_literal + variables, position + 1)

    for bucket in buckets.values():
        deep = [item for item in bucket if item[1].template.has_deep_wildcard]
        by_length: dict[int, list[tuple[Method, Binding]]] = {}
        for item in bucket:
            if not item[1].template.has_deep_wildcard:
                by_length.setdefault(len(item[1].template.segments), []).append(item)
        for group in by_length.values():
            split(group, 0)
        for item in deep:
            for other in bucket:
                if other is not item:
                    add(item, other)
    found = []
    for first, second in sorted(pairs.values(), key=lambda p: (order[id(p[0][1])], order[id(p[1][1])])):
        example = overlap_example(first[1].template, second[1].template)
        if example is not None:
            found.append(Overlap(first, second, example))
    return found


@dataclass(frozen=True)
class Generation:
    """The model of one plugin run: the files to write and the warnings for stderr."""

    files: tuple[BindingFile, ...]
    warnings: tuple[str, ...]


def build_files(request: plugin_pb2.CodeGeneratorRequest, options: Options) -> Generation:
    """The model of every ``file_to_generate`` that has a service with http rules.

    Raises ``GenerationError`` with every problem found; nothing is partially returned.
    """
    index = _Index(request.proto_file)
    results: list[BindingFile] = []
    errors: list[Diagnostic] = []
    warnings: list[str] = []
    for name in sorted(request.file_to_generate):
        file = index.files[name]
        builder = _ServiceBuilder(index, file, options)
        services = builder.services()
        errors.extend(builder.errors)
        warnings.extend(builder.warnings)
        if not services:
            # A file without services (an import buf lists, say) is nothing to do; a file
            # whose services all lack http rules was almost certainly meant to have them.
            if builder.skipped and not builder.errors:
                first = builder.skipped[0]
                errors.append(
                    replace(
                        first, message=first.message.replace("; skipped", "; nothing to generate")
                    )
                )
            continue
        warnings.extend(f"warning: {skipped}" for skipped in builder.skipped)
        errors.extend(_check_duplicates(services))
        overlaps = _overlaps(services)
        if options.ambiguity == "error":
            errors.extend(overlap.diagnostic for overlap in overlaps)
        messages, enums = _reachable(index, services)
        names = _python_names(messages, enums)
        stem = name.rsplit("/", 1)[-1].removesuffix(".proto")
        results.append(
            BindingFile(
                proto_file=name,
                proto_package=file.package,
                module=options.module or _module_name(stem),
                services=tuple(services),
                messages=tuple(messages),
                enums=tuple(enums),
                descriptor_sha256=descriptor_sha256(file),
                generator_version=__version__,
                tenant_field=_json_name(options.tenant_field or "tenant"),
                overlaps=tuple(overlaps),
                python_names=names,
            )
        )
        if options.ambiguity == "warn":
            warnings.extend(f"warning: {overlap}" for overlap in overlaps)
    packages: dict[str, str] = {}
    for binding_file in results:
        other = packages.setdefault(binding_file.module, binding_file.proto_file)
        if other != binding_file.proto_file:
            errors.append(
                Diagnostic(
                    SourceLocation(binding_file.proto_file),
                    f"would be generated as package {binding_file.module}, like {other}; "
                    "generate them in separate runs, each with its own module=NAME",
                )
            )
    if errors:
        raise GenerationError(errors)
    return Generation(tuple(results), tuple(warnings))


def _python_names(
    messages: Sequence[Message], enums: Sequence[Enum]
) -> tuple[tuple[str, str], ...]:
    """A unique identifier for every non-well-known message and every enum: the name
    inside its package with ``_`` for nesting (``Task_Status``); on a clash between
    packages, the package is prefixed too."""
    named = [(m.full_name, m.package) for m in messages if not m.well_known]
    named += [(e.full_name, e.package) for e in enums]

    def local(full_name: str, package: str) -> str:
        relative = full_name[len(package) + 1 :] if package else full_name
        return relative.replace(".", "_")

    counts: dict[str, int] = {}
    for full_name, package in named:
        counts[local(full_name, package)] = counts.get(local(full_name, package), 0) + 1
    result = []
    for full_name, package in sorted(named):
        name = local(full_name, package)
        if counts[name] > 1:
            name = full_name.replace(".", "_")
        if name in _RESERVED_NAMES or keyword.iskeyword(name):
            name += "_"
        result.append((full_name, name))
    return tuple(result)


def _module_name(stem: str) -> str:
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in stem)
    if cleaned[:1].isdigit():
        cleaned = "_" + cleaned
    return f"{cleaned}_binding"

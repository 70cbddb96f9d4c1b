"""Reading descriptors: every message and enum of a request by full name, source
locations and comments, the descriptor hash. The field numbers that walk
``SourceCodeInfo`` paths come from the generated protobuf constants."""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Container, Iterable, Sequence

from google.api import field_behavior_pb2, http_pb2
from google.protobuf import descriptor_pb2

from .domain import Diagnostic, Enum, EnumValue, Field, Message, SourceLocation
from .naming import proto_json_name

# Field numbers that walk SourceCodeInfo paths (descriptor.proto, http.proto).
FILE_MESSAGE = descriptor_pb2.FileDescriptorProto.MESSAGE_TYPE_FIELD_NUMBER
FILE_ENUM = descriptor_pb2.FileDescriptorProto.ENUM_TYPE_FIELD_NUMBER
FILE_SERVICE = descriptor_pb2.FileDescriptorProto.SERVICE_FIELD_NUMBER
FILE_PACKAGE = descriptor_pb2.FileDescriptorProto.PACKAGE_FIELD_NUMBER
MESSAGE_ONEOF = descriptor_pb2.DescriptorProto.ONEOF_DECL_FIELD_NUMBER
MESSAGE_FIELD = descriptor_pb2.DescriptorProto.FIELD_FIELD_NUMBER
MESSAGE_NESTED = descriptor_pb2.DescriptorProto.NESTED_TYPE_FIELD_NUMBER
MESSAGE_ENUM = descriptor_pb2.DescriptorProto.ENUM_TYPE_FIELD_NUMBER
ENUM_VALUE = descriptor_pb2.EnumDescriptorProto.VALUE_FIELD_NUMBER
SERVICE_METHOD = descriptor_pb2.ServiceDescriptorProto.METHOD_FIELD_NUMBER
METHOD_OPTIONS = descriptor_pb2.MethodDescriptorProto.OPTIONS_FIELD_NUMBER
HTTP_VERB_FIELDS = {
    name: http_pb2.HttpRule.DESCRIPTOR.fields_by_name[name].number
    for name in ("get", "put", "post", "delete", "patch", "custom")
}
HTTP_BODY = http_pb2.HttpRule.BODY_FIELD_NUMBER
HTTP_ADDITIONAL = http_pb2.HttpRule.ADDITIONAL_BINDINGS_FIELD_NUMBER
HTTP_RESPONSE_BODY = http_pb2.HttpRule.RESPONSE_BODY_FIELD_NUMBER

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


def descriptor_sha256(file: descriptor_pb2.FileDescriptorProto) -> str:
    """sha256 of the file's descriptor without source info: comments do not change it."""
    stripped = descriptor_pb2.FileDescriptorProto()
    stripped.CopyFrom(file)
    stripped.ClearField("source_code_info")
    return hashlib.sha256(stripped.SerializeToString(deterministic=True)).hexdigest()


class SourceInfo:
    """Locations and comments of one file, by SourceCodeInfo path."""

    def __init__(self, file: descriptor_pb2.FileDescriptorProto) -> None:
        self.file = file.name
        self._descriptor = file

    @functools.cached_property
    def _read(
        self,
    ) -> tuple[dict[tuple[int, ...], tuple[int, int]], dict[tuple[int, ...], str]]:
        """The spans and comments below, in one pass over the file's locations, on
        first use (an imported file such as descriptor.proto has thousands of locations
        no diagnostic needs)."""
        spans: dict[tuple[int, ...], tuple[int, int]] = {}
        comments: dict[tuple[int, ...], str] = {}
        for location in self._descriptor.source_code_info.location:
            path = tuple(location.path)
            span = location.span
            if span and path not in spans:
                spans[path] = (span[0] + 1, span[1] + 1)
            leading = location.leading_comments
            if leading and path not in comments:
                comments[path] = _clean_comment(_text(leading))
        return spans, comments

    @property
    def spans(self) -> dict[tuple[int, ...], tuple[int, int]]:
        """(line, column), 1-based, of each path."""
        return self._read[0]

    @property
    def comments(self) -> dict[tuple[int, ...], str]:
        """The cleaned leading comment of each path that has one."""
        return self._read[1]

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


def _text(value: str | bytes) -> str:
    """A string field as text: protobuf hands over bytes that are not UTF-8 as they
    are (a descriptor set need not come from protoc); those bytes are kept as escapes.
    """
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return value


def _drop_internal_notes(text: str) -> str:
    """``text`` without its ``(-- ... --)`` blocks, in one pass (an opening ``(--``
    without a closing ``--)`` is kept as it is)."""
    kept: list[str] = []
    position = 0
    while True:
        start = text.find("(--", position)
        end = text.find("--)", start + 3) if start >= 0 else -1
        if end < 0:
            kept.append(text[position:])
            return "".join(kept)
        kept.append(text[position:start])
        position = end + 3


# A comment line that speaks to a tool or the proto's editors, not to a reader of the
# API: a linter directive (protolint, buf, api-linter), a ``Next ID: 20`` counter, or a
# documentation site's snippet marker (``--8<-- [start:AgentCard]``).
_TOOL_LINE = re.compile(
    r"\s*(?:protolint:(?:enable|disable)\b|buf:lint:ignore\b|api-linter:|--8<--"
    r"|next (?:field )?id:\s*\d+\.?\s*\Z)",
    re.IGNORECASE,
)


def _clean_comment(text: str) -> str:
    """A leading comment as docstring text: one space of indent removed, and ``(-- --)``
    blocks (internal notes such as api-linter directives, by Google's convention) and
    lines for tools (``protolint:disable ...``, ``Next ID: 20``) dropped.
    """
    text = _drop_internal_notes(text)
    lines = [
        line[1:] if line.startswith(" ") else line
        for line in text.splitlines()
        if not _TOOL_LINE.match(line)
    ]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(line.rstrip() for line in lines)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_names(
    file: descriptor_pb2.FileDescriptorProto, info: SourceInfo
) -> list[Diagnostic]:
    """Every name of a file checked as protoc checks it: identifiers for the package's
    parts, messages, fields, oneofs, enums, values, services and rpcs; json names without
    ``.`` and control characters, unique in their message. A descriptor set need not come
    from protoc, and these names reach generated code."""
    errors: list[Diagnostic] = []
    symbols: dict[str, str] = {}  # full name -> what it is

    def declare(full_name: str, what: str, path: tuple[int, ...]) -> None:
        other = symbols.setdefault(full_name, what)
        if other is not what:
            errors.append(
                Diagnostic(
                    info.location(path),
                    f"{what} {full_name!r} is already defined (as a {other})",
                )
            )

    def check(name: str | bytes, what: str, path: tuple[int, ...]) -> None:
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            errors.append(
                Diagnostic(
                    info.location(path), f"{what} {name!r} is not a valid identifier"
                )
            )

    for part in file.package.split(".") if file.package else ():
        check(part, "package part", (FILE_PACKAGE,))

    def enum(
        descriptor: descriptor_pb2.EnumDescriptorProto,
        path: tuple[int, ...],
        scope: str,
    ) -> None:
        check(descriptor.name, "enum", path)
        declare(scope + descriptor.name, "enum", path)
        for i, value in enumerate(descriptor.value):
            check(value.name, "enum value", path + (ENUM_VALUE, i))

    def message(
        descriptor: descriptor_pb2.DescriptorProto, path: tuple[int, ...], scope: str
    ) -> None:
        check(descriptor.name, "message", path)
        full_name = scope + descriptor.name
        declare(full_name, "message", path)
        json_names: dict[str, str] = {}
        field_names: set[str] = set()
        for i, field in enumerate(descriptor.field):
            where = path + (MESSAGE_FIELD, i)
            check(field.name, "field", where)
            if field.name in field_names:
                errors.append(
                    Diagnostic(
                        info.location(where),
                        f"field {field.name!r} of {full_name} is already defined",
                    )
                )
            field_names.add(field.name)
            spelled = field.json_name or proto_json_name(field.name)
            if "." in spelled or not spelled.isprintable() or not spelled:
                errors.append(
                    Diagnostic(
                        info.location(where),
                        f"json_name {spelled!r} of field {field.name!r} must be non-empty "
                        "printable text without '.' (a dot would mean a nested field)",
                    )
                )
            other = json_names.setdefault(spelled, field.name)
            if other != field.name:
                errors.append(
                    Diagnostic(
                        info.location(where),
                        f"fields {other!r} and {field.name!r} of {descriptor.name} have "
                        f"the same json name {spelled!r}",
                    )
                )
        for i, oneof in enumerate(descriptor.oneof_decl):
            check(oneof.name, "oneof", path + (MESSAGE_ONEOF, i))
        for i, nested in enumerate(descriptor.nested_type):
            message(nested, path + (MESSAGE_NESTED, i), full_name + ".")
        for i, nested_enum in enumerate(descriptor.enum_type):
            enum(nested_enum, path + (MESSAGE_ENUM, i), full_name + ".")

    package = file.package + "." if file.package else ""
    for i, descriptor in enumerate(file.message_type):
        message(descriptor, (FILE_MESSAGE, i), package)
    for i, enum_descriptor in enumerate(file.enum_type):
        enum(enum_descriptor, (FILE_ENUM, i), package)
    for i, service in enumerate(file.service):
        check(service.name, "service", (FILE_SERVICE, i))
        declare(package + service.name, "service", (FILE_SERVICE, i))
        for j, method in enumerate(service.method):
            check(method.name, "rpc", (FILE_SERVICE, i, SERVICE_METHOD, j))
    return errors


def check_references(
    file: descriptor_pb2.FileDescriptorProto,
    info: SourceInfo,
    messages: Container[str],
    enums: Container[str],
) -> list[Diagnostic]:
    """Every type a file refers to resolved as protoc resolves it: a message field names
    a message, an enum field an enum, an rpc's request and response are messages, a
    oneof index names a oneof and a map entry has its key and value. A descriptor set
    need not come from protoc; an unresolved name would otherwise end generation with a
    traceback. ``messages`` and ``enums`` hold full names without the leading dot."""
    errors: list[Diagnostic] = []

    def resolve(type_name: str, kinds: Container[str]) -> bool:
        return type_name.lstrip(".") in kinds  # as ``Index`` reads it

    def message(
        descriptor: descriptor_pb2.DescriptorProto, path: tuple[int, ...]
    ) -> None:
        for i, field in enumerate(descriptor.field):
            where = path + (MESSAGE_FIELD, i)
            problem = ""
            if field.type in (_FDP.TYPE_MESSAGE, _FDP.TYPE_GROUP):
                if not resolve(field.type_name, messages):
                    problem = "is not a message of the input"
            elif field.type == _FDP.TYPE_ENUM:
                if not resolve(field.type_name, enums):
                    problem = "is not an enum of the input"
            elif field.type not in _KIND_NAMES:
                problem = f"has no known type ({field.type})"
            if problem:
                errors.append(
                    Diagnostic(
                        info.location(where),
                        f"the type {field.type_name!r} of field {field.name!r} "
                        + problem,
                    )
                )
            if field.HasField("oneof_index") and not (
                0 <= field.oneof_index < len(descriptor.oneof_decl)
            ):
                errors.append(
                    Diagnostic(
                        info.location(where),
                        f"field {field.name!r} names oneof {field.oneof_index}, "
                        f"which {descriptor.name} does not declare",
                    )
                )
        if descriptor.options.map_entry and len(descriptor.field) != 2:
            errors.append(
                Diagnostic(
                    info.location(path),
                    f"map entry {descriptor.name} must have a key and a value field",
                )
            )
        for i, nested in enumerate(descriptor.nested_type):
            message(nested, path + (MESSAGE_NESTED, i))

    for i, descriptor in enumerate(file.message_type):
        message(descriptor, (FILE_MESSAGE, i))
    for i, service in enumerate(file.service):
        for j, method in enumerate(service.method):
            where = (FILE_SERVICE, i, SERVICE_METHOD, j)
            for role, type_name in (
                ("request", method.input_type),
                ("response", method.output_type),
            ):
                if not resolve(type_name, messages):
                    errors.append(
                        Diagnostic(
                            info.location(where),
                            f"the {role} type {type_name!r} of rpc {method.name} is "
                            "not a message of the input",
                        )
                    )
    return errors


class Index:
    """Every message and enum of every file in the request, by full name."""

    def __init__(self, files: Iterable[descriptor_pb2.FileDescriptorProto]) -> None:
        self.messages: dict[
            str, tuple[descriptor_pb2.DescriptorProto, SourceInfo, tuple[int, ...]]
        ] = {}
        self.package: dict[str, str] = {}
        self.enums: dict[
            str, tuple[descriptor_pb2.EnumDescriptorProto, SourceInfo, tuple[int, ...]]
        ] = {}
        self.files: dict[str, descriptor_pb2.FileDescriptorProto] = {}
        self.infos: dict[str, SourceInfo] = {}
        for file in files:
            self.files[file.name] = file
            info = self.infos[file.name] = SourceInfo(file)
            prefix = file.package + "." if file.package else ""
            for i, message in enumerate(file.message_type):
                self._add_message(prefix, message, info, (FILE_MESSAGE, i))
            for i, enum in enumerate(file.enum_type):
                self.enums[prefix + enum.name] = (enum, info, (FILE_ENUM, i))
                self.package[prefix + enum.name] = file.package
        self._built: dict[str, Message] = {}

    def _add_message(
        self,
        prefix: str,
        message: descriptor_pb2.DescriptorProto,
        info: SourceInfo,
        path: tuple[int, ...],
    ) -> None:
        full_name = prefix + message.name
        self.messages[full_name] = (message, info, path)
        self.package[full_name] = self.files[info.file].package
        for i, nested in enumerate(message.nested_type):
            self._add_message(full_name + ".", nested, info, path + (MESSAGE_NESTED, i))
        for i, enum in enumerate(message.enum_type):
            self.enums[full_name + "." + enum.name] = (
                enum,
                info,
                path + (MESSAGE_ENUM, i),
            )
            self.package[full_name + "." + enum.name] = self.files[info.file].package

    def message(self, full_name: str) -> Message:
        built = self._built.get(full_name)
        if built is None:
            descriptor, info, path = self.messages[full_name]
            file = self.files[info.file]
            fields = tuple(
                self._field(
                    descriptor,
                    f,
                    info.comment(path + (MESSAGE_FIELD, i)),
                    info.location(path + (MESSAGE_FIELD, i)),
                    _presence(file, descriptor, f),
                )
                for i, f in enumerate(descriptor.field)
            )
            built = Message(
                full_name,
                descriptor.name,
                fields,
                info.comment(path),
                self.package[full_name],
                info.location(path),
            )
            self._built[full_name] = built
        return built

    def enum(self, full_name: str) -> Enum:
        descriptor, info, path = self.enums[full_name]
        values = tuple(
            EnumValue(v.name, v.number, info.location(path + (ENUM_VALUE, i)))
            for i, v in enumerate(descriptor.value)
        )
        return Enum(
            full_name,
            descriptor.name,
            values,
            info.comment(path),
            self.package[full_name],
            info.location(path),
        )

    def _field(
        self,
        message: descriptor_pb2.DescriptorProto,
        descriptor: descriptor_pb2.FieldDescriptorProto,
        comment: str,
        location: SourceLocation = SourceLocation(""),
        presence: tuple[bool, bool] = (False, False),
    ) -> Field:
        kind = _KIND_NAMES[descriptor.type]
        type_name = descriptor.type_name.lstrip(".")
        repeated = descriptor.label == _FDP.LABEL_REPEATED
        oneof: str | None = None
        if descriptor.HasField("oneof_index") and not descriptor.proto3_optional:
            oneof = message.oneof_decl[descriptor.oneof_index].name
        json_name = descriptor.json_name or proto_json_name(descriptor.name)
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
                location=location,
            )
        behaviors = descriptor.options.Extensions[field_behavior_pb2.field_behavior]
        return Field(
            descriptor.name,
            json_name,
            descriptor.number,
            kind,
            type_name,
            repeated=repeated,
            oneof=oneof,
            comment=comment,
            required=field_behavior_pb2.REQUIRED in behaviors,
            deprecated=descriptor.options.deprecated,
            location=location,
            explicit_presence=presence[0],
            legacy_required=presence[1],
            default=descriptor.default_value,
        )


_FEATURES = descriptor_pb2.FeatureSet


def _presence(
    file: descriptor_pb2.FileDescriptorProto,
    message: descriptor_pb2.DescriptorProto,
    field: descriptor_pb2.FieldDescriptorProto,
) -> tuple[bool, bool]:
    """(explicit presence, legacy required) of a singular field, as protobuf resolves
    them: by syntax, or for editions by the ``field_presence`` feature of the field, its
    message or the file (EXPLICIT by default). Repeated fields and maps have neither."""
    if field.label == _FDP.LABEL_REPEATED:
        return False, False
    if field.label == _FDP.LABEL_REQUIRED:
        return True, True
    if file.syntax == "editions":
        for options in (field.options, message.options, file.options):
            if options.features.HasField("field_presence"):
                setting = options.features.field_presence
                return (
                    setting != _FEATURES.IMPLICIT,
                    setting == _FEATURES.LEGACY_REQUIRED,
                )
        return True, False
    if file.syntax == "proto3":
        explicit = (
            field.proto3_optional
            or field.HasField("oneof_index")
            or field.type in (_FDP.TYPE_MESSAGE, _FDP.TYPE_GROUP)
        )
        return explicit, False
    return True, False  # proto2: every singular field tracks presence

"""The A2A protos a2a-sdk ships compiled, written back out as ``.proto`` files.

The upstream protos live beside the repository, in ../shared/a2a-spec; a clone without
that folder still has a2a-sdk 1.3.0 (a dev dependency), whose ``a2a.types.a2a_pb2`` holds
the 1.0 proto and ``a2a.compat.v0_3.a2a_v0_3_pb2`` the 0.3 one, as descriptors. Tests
that need an A2A proto file, not a given upstream tag (its comments, its history), take
one of these: :func:`sdk_proto` prints the descriptor as proto source (no comments: the
descriptor carries none) that compiles back to the same descriptor, imports and all,
which ``test_sdk_protos_compile_back_to_their_descriptors`` checks.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from google.protobuf import descriptor_pb2, text_format
from google.protobuf.message import Message

MODULES = {"1.0": "a2a.types.a2a_pb2", "0.3": "a2a.compat.v0_3.a2a_v0_3_pb2"}

FDP = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    FDP.TYPE_DOUBLE: "double",
    FDP.TYPE_FLOAT: "float",
    FDP.TYPE_INT64: "int64",
    FDP.TYPE_UINT64: "uint64",
    FDP.TYPE_INT32: "int32",
    FDP.TYPE_FIXED64: "fixed64",
    FDP.TYPE_FIXED32: "fixed32",
    FDP.TYPE_BOOL: "bool",
    FDP.TYPE_STRING: "string",
    FDP.TYPE_BYTES: "bytes",
    FDP.TYPE_UINT32: "uint32",
    FDP.TYPE_SFIXED32: "sfixed32",
    FDP.TYPE_SFIXED64: "sfixed64",
    FDP.TYPE_SINT32: "sint32",
    FDP.TYPE_SINT64: "sint64",
}


def descriptor(version: str) -> descriptor_pb2.FileDescriptorProto:
    """The file descriptor of a2a-sdk's A2A proto of ``version`` (``1.0`` or ``0.3``)."""
    module = importlib.import_module(MODULES[version])
    proto = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(proto)
    return proto


def sdk_proto(folder: Path, version: str = "1.0") -> Path:
    """a2a-sdk's A2A proto of ``version`` as a file in ``folder`` (``a2a.proto`` for
    1.0, ``a2a_v0_3.proto`` for 0.3, the names inside the descriptors); its imports
    are the google/* protos every protoc run here finds."""
    file = descriptor(version)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file.name
    path.write_text(proto_source(file), encoding="utf-8")
    return path


def _options(options: Message) -> list[str]:
    """Each set option as ``name = value`` (extensions in parentheses; messages in
    text format; a repeated option once per value)."""
    found = []
    for field, value in options.ListFields():
        name = f"({field.full_name})" if field.is_extension else field.name
        values = value if field.is_repeated else [value]
        for item in values:
            if field.message_type is not None:
                text = text_format.MessageToString(item, as_one_line=True)
                found.append(f"{name} = {{ {text} }}")
            elif field.enum_type is not None:
                found.append(f"{name} = {field.enum_type.values_by_number[item].name}")
            else:
                found.append(f"{name} = {_literal(item)}")
    return found


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def _type(field: descriptor_pb2.FieldDescriptorProto) -> str:
    if field.type in (FDP.TYPE_MESSAGE, FDP.TYPE_ENUM):
        return field.type_name  # fully qualified, with its leading dot
    return _SCALARS[field.type]


def _field(
    field: descriptor_pb2.FieldDescriptorProto,
    maps: dict[str, descriptor_pb2.DescriptorProto],
    indent: str,
) -> str:
    entry = maps.get(field.type_name)
    if entry is not None:
        key, value = entry.field
        kind = f"map<{_type(key)}, {_type(value)}>"
    else:
        label = ""
        if field.label == FDP.LABEL_REPEATED:
            label = "repeated "
        elif field.proto3_optional:
            label = "optional "
        kind = label + _type(field)
    options = _options(field.options)
    if field.json_name and field.json_name != _json_name(field.name):
        options.insert(0, f"json_name = {_literal(field.json_name)}")
    suffix = f" [{', '.join(options)}]" if options else ""
    return f"{indent}{kind} {field.name} = {field.number}{suffix};"


def _json_name(name: str) -> str:
    """protoc's json name of a field named ``name``."""
    parts = name.split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def _enum(enum: descriptor_pb2.EnumDescriptorProto, indent: str) -> list[str]:
    lines = [f"{indent}enum {enum.name} {{"]
    lines += [f"{indent}  option {o};" for o in _options(enum.options)]
    for value in enum.value:
        options = _options(value.options)
        suffix = f" [{', '.join(options)}]" if options else ""
        lines.append(f"{indent}  {value.name} = {value.number}{suffix};")
    return lines + [f"{indent}}}"]


def _message(
    message: descriptor_pb2.DescriptorProto, scope: str, indent: str
) -> list[str]:
    full = f"{scope}.{message.name}"
    maps = {f"{full}.{n.name}": n for n in message.nested_type if n.options.map_entry}
    lines = [f"{indent}message {message.name} {{"]
    inner = indent + "  "
    lines += [f"{inner}option {o};" for o in _options(message.options)]
    for nested in message.nested_type:
        if not nested.options.map_entry:
            lines += _message(nested, full, inner)
    for enum in message.enum_type:
        lines += _enum(enum, inner)
    real_oneofs = {
        f.oneof_index
        for f in message.field
        if f.HasField("oneof_index") and not f.proto3_optional
    }
    written: set[int] = set()
    for field in message.field:
        index = field.oneof_index if field.HasField("oneof_index") else None
        if index is None or index not in real_oneofs:
            lines.append(_field(field, maps, inner))
        elif index not in written:
            written.add(index)
            lines.append(f"{inner}oneof {message.oneof_decl[index].name} {{")
            lines += [
                _field(f, maps, inner + "  ")
                for f in message.field
                if f.HasField("oneof_index")
                and f.oneof_index == index
                and not f.proto3_optional
            ]
            lines.append(f"{inner}}}")
    for reserved in message.reserved_range:
        end = reserved.end - 1
        span = (
            str(reserved.start)
            if end == reserved.start
            else f"{reserved.start} to {end}"
        )
        lines.append(f"{inner}reserved {span};")
    if message.reserved_name:
        lines.append(
            f"{inner}reserved {', '.join(_literal(n) for n in message.reserved_name)};"
        )
    return lines + [f"{indent}}}"]


def proto_source(file: descriptor_pb2.FileDescriptorProto) -> str:
    """Proto source for ``file`` (proto3, as both A2A descriptors are)."""
    assert file.syntax == "proto3", file.syntax
    lines = [f'syntax = "{file.syntax}";', "", f"package {file.package};", ""]
    lines += [f'import "{name}";' for name in file.dependency]
    lines += [f"option {o};" for o in _options(file.options)]
    scope = f".{file.package}"
    for enum in file.enum_type:
        lines += ["", *_enum(enum, "")]
    for message in file.message_type:
        lines += ["", *_message(message, scope, "")]
    for service in file.service:
        lines += ["", f"service {service.name} {{"]
        lines += [f"  option {o};" for o in _options(service.options)]
        for method in service.method:
            request = ("stream " if method.client_streaming else "") + method.input_type
            response = (
                "stream " if method.server_streaming else ""
            ) + method.output_type
            options = _options(method.options)
            head = f"  rpc {method.name}({request}) returns ({response})"
            if not options:
                lines.append(head + ";")
                continue
            lines.append(head + " {")
            lines += [f"    option {o};" for o in options]
            lines.append("  }")
        lines.append("}")
    return "\n".join(lines) + "\n"

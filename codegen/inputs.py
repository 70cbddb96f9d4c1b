"""Where a ``CodeGeneratorRequest`` comes from when protoc is not the caller.

Three sources, each turned into the request protoc would send the plugin:
proto files compiled in-process with ``grpc_tools.protoc``, a ``FileDescriptorSet``
(``protoc -o`` / ``buf build -o``), and a compiled ``_pb2`` module (the embedded default is
the ``lf.a2a.v1`` descriptor inside the pinned ``a2a-sdk``). This module moves serialized
descriptors around; reading them is the model's job.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

__all__ = [
    "DEFAULT_MODULE",
    "InputError",
    "V0_3_MODULE",
    "include_paths",
    "request_from_descriptor_set",
    "request_from_module",
    "request_from_protos",
    "with_v0_3",
]

DEFAULT_MODULE = "a2a.types.a2a_pb2"
"""The embedded default input: the A2A descriptor compiled into the pinned a2a-sdk."""


V0_3_MODULE = "a2a.compat.v0_3.a2a_v0_3_pb2"
"""The A2A 0.3 descriptor the pinned a2a-sdk ships (``a2a_v0_3.proto``, package
``a2a.v1``): the embedded 0.3 input, as ``DEFAULT_MODULE`` is the 1.0 one."""


class InputError(Exception):
    """An input that cannot be read or compiled; the message is for the user as it is."""


def include_paths() -> list[str]:
    """Include paths for the well-known protos: grpcio-tools ships google/protobuf/*.proto,
    googleapis-common-protos ships google/api/*.proto."""
    import grpc_tools
    from google.api import http_pb2

    paths = [str(Path(grpc_tools.__file__).parent / "_proto")]
    google_dir = Path(http_pb2.__file__).resolve().parent.parent
    paths.append(str(google_dir.parent))
    return paths


def _request(
    files: Sequence[descriptor_pb2.FileDescriptorProto],
    to_generate: Sequence[str],
    parameter: str,
) -> plugin_pb2.CodeGeneratorRequest:
    request = plugin_pb2.CodeGeneratorRequest(parameter=parameter)
    request.file_to_generate.extend(to_generate)
    request.proto_file.extend(files)
    chosen = set(to_generate)
    request.source_file_descriptors.extend(f for f in files if f.name in chosen)
    return request


def request_from_descriptor_set(
    path: str | Path, to_generate: Sequence[str] = (), parameter: str = ""
) -> plugin_pb2.CodeGeneratorRequest:
    """A request from a serialized ``FileDescriptorSet``. Without ``to_generate`` the
    files that define services are generated (what a user of ``buf build -o`` means)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror}") from exc
    descriptor_set = descriptor_pb2.FileDescriptorSet()
    try:
        descriptor_set.ParseFromString(data)
    except (
        Exception
    ) as exc:  # the protobuf runtime raises DecodeError or others by backend
        raise InputError(f"{path}: not a FileDescriptorSet ({exc})") from exc
    files = list(descriptor_set.file)
    names = {f.name for f in files}
    for file in files:
        missing = [d for d in file.dependency if d not in names]
        if missing:
            raise InputError(
                f"{path}: {file.name} imports {missing[0]}, which the set does not hold "
                "(build it with --include_imports)"
            )
    if to_generate:
        unknown = [name for name in to_generate if name not in names]
        if unknown:
            raise InputError(f"{path}: no file {unknown[0]!r} in the descriptor set")
        chosen = list(to_generate)
    else:
        chosen = [f.name for f in files if f.service]
        if not chosen:
            raise InputError(f"{path}: no file in the descriptor set defines a service")
    return _request(files, chosen, parameter)


def request_from_module(
    module_name: str = DEFAULT_MODULE, parameter: str = ""
) -> plugin_pb2.CodeGeneratorRequest:
    """A request from a compiled ``_pb2`` module: its file and every import, in
    dependency order, as protoc would list them."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        hint = (
            " (install the a2a extra: pip install 'protoc-gen-a2a[a2a]')"
            if module_name == DEFAULT_MODULE
            else ""
        )
        raise InputError(f"cannot import {module_name}: {exc}{hint}") from exc
    descriptor = getattr(module, "DESCRIPTOR", None)
    if descriptor is None or not hasattr(descriptor, "dependencies"):
        raise InputError(
            f"{module_name} is not a compiled protobuf module (no file DESCRIPTOR)"
        )
    ordered: list[descriptor_pb2.FileDescriptorProto] = []
    seen: set[str] = set()

    def visit(file_descriptor: object) -> None:
        name = getattr(file_descriptor, "name")
        if name in seen:
            return
        seen.add(name)
        for dependency in getattr(file_descriptor, "dependencies"):
            visit(dependency)
        proto = descriptor_pb2.FileDescriptorProto()
        getattr(file_descriptor, "CopyToProto")(proto)
        ordered.append(proto)

    visit(descriptor)
    return _request(ordered, [descriptor.name], parameter)


@contextlib.contextmanager
def _captured_stderr() -> Iterator[list[str]]:
    """Capture file descriptor 2: protoc runs in-process and writes its errors there."""
    captured: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield captured
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            captured.append(sink.read().decode("utf-8", "replace"))


def request_from_protos(
    protos: Sequence[str], includes: Sequence[str] = (), parameter: str = ""
) -> plugin_pb2.CodeGeneratorRequest:
    """Compile ``protos`` with grpc_tools.protoc in-process (source info included, so
    diagnostics carry line and column) and return the request for them."""
    from grpc_tools import protoc

    include_args = list(includes)
    for proto in protos:
        # protoc would only say it cannot make the path relative to an include.
        if not any(Path(base, proto).is_file() for base in ("", *includes)):
            where = " or under any -I folder" if includes else ""
            raise InputError(f"{proto}: no such file{where}")
    for proto in protos:
        if not any(_is_within(proto, inc) for inc in include_args):
            # First, so that a file of the same name under another -I cannot shadow it.
            include_args.insert(0, str(Path(proto).parent))
    include_args += include_paths()
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "set.pb")
        args = [
            "protoc",
            f"--descriptor_set_out={out}",
            "--include_imports",
            "--include_source_info",
        ]
        args += [f"-I{inc}" for inc in include_args] + [
            _relative_name(p, include_args) for p in protos
        ]
        with _captured_stderr() as stderr:
            status = protoc.main(args)
        if status != 0:
            text = "".join(stderr).strip() or f"protoc exited with status {status}"
            raise InputError(text)
        names = [_relative_name(p, include_args) for p in protos]
        return request_from_descriptor_set(out, names, parameter)


def _is_within(path: str, directory: str) -> bool:
    try:
        Path(path).resolve().relative_to(Path(directory).resolve())
    except ValueError:
        return False
    return True


def _relative_name(proto: str, includes: Sequence[str]) -> str:
    """The name protoc gives a file: its path relative to the first include that holds it."""
    for include in includes:
        if _is_within(proto, include):
            return Path(proto).resolve().relative_to(Path(include).resolve()).as_posix()
    return Path(proto).as_posix()


def with_v0_3(
    request: plugin_pb2.CodeGeneratorRequest, legacy: plugin_pb2.CodeGeneratorRequest
) -> plugin_pb2.CodeGeneratorRequest:
    """``request`` with the A2A 0.3 proto of ``legacy`` added as protoc would pass both
    (option ``v0_3_proto`` naming it): the files of both, each once."""
    if len(legacy.file_to_generate) != 1:
        raise InputError(
            "the 0.3 input must be one proto file, not "
            f"{len(legacy.file_to_generate)} ({', '.join(legacy.file_to_generate)})"
        )
    name = legacy.file_to_generate[0]
    if name in request.file_to_generate:
        raise InputError(
            f"the 0.3 proto and the input are both named {name!r}; name them apart "
            "(an -I above both folders, e.g. v0.3.0/a2a.proto and v1.0.0/a2a.proto)"
        )
    # An import both hold (google/api/http.proto, say) is the input's: one name is
    # one file in a request, and the versions shipped by a2a-sdk and by
    # googleapis-common-protos differ in ways the 0.3 proto does not use (a name it
    # uses and the input's file lacks is the model's error, with its place).
    held = {file.name for file in request.proto_file}
    added = [file for file in legacy.proto_file if file.name not in held]
    parameter = ",".join(filter(None, (request.parameter, f"v0_3_proto={name}")))
    merged = _request(
        list(request.proto_file) + added,
        list(request.file_to_generate) + [name],
        parameter,
    )
    return merged

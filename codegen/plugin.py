"""The protoc plugin: ``CodeGeneratorRequest`` on stdin, ``CodeGeneratorResponse`` on stdout.

``generate`` is pure but for reading the acknowledgement file an option names, and is
what tests call. ``main`` is the only other I/O: read stdin, write stdout, and send
warnings to stderr (stdout is the protocol). Input problems go to ``response.error`` so
protoc prints them and writes nothing; generator bugs raise and exit non-zero with a
traceback.
"""

from __future__ import annotations

import select
import sys
from collections.abc import Callable, Sequence
from typing import BinaryIO, NamedTuple

from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

from . import __version__
from .acknowledge import AcknowledgementError, load, settle
from .model import BindingFile, GenerationError, Overlap, build_files
from .options import OptionError, Options
from .render import V0_3_PACKAGE, render_file, render_v0_3

__all__ = ["Run", "generate", "main", "run"]

_FEATURES = (
    plugin_pb2.CodeGeneratorResponse.FEATURE_PROTO3_OPTIONAL
    | plugin_pb2.CodeGeneratorResponse.FEATURE_SUPPORTS_EDITIONS
)

_USAGE = """\
usage: protoc-gen-a2a [--version | --help]

A protoc plugin: protoc runs it with a CodeGeneratorRequest on stdin and reads the
generated files from stdout. Run it through protoc or buf, e.g.

  python -m grpc_tools.protoc -I spec -I GOOGLEAPIS --a2a_out=src/vendor a2a.proto

Options go in --a2a_opt=k=v,...: module, tenant_field, ambiguity, profile, acknowledge,
serve, client, grpc, translate, openapi, pb2_module, v0_3_proto (docs/generating.md).
With none, the package holds the tables; serve=true adds the serving layer, client=true
the client helpers, grpc=true the gRPC binding, translate=true the HTTP backend.
As a build step or CI check without protoc, use a2a-codegen (a2a-codegen --help).
"""

_HINT = (
    "protoc-gen-a2a: this is a protoc plugin and reads a CodeGeneratorRequest on stdin; "
    "run it through protoc (--a2a_out=DIR) or use a2a-codegen; --help for more"
)


class Run(NamedTuple):
    """One plugin run: the response for protoc, the model it came from, and the
    overlaps an acknowledgement file covered (for ``a2a-codegen routes``)."""

    response: plugin_pb2.CodeGeneratorResponse
    files: tuple[BindingFile, ...]
    acknowledged: tuple[Overlap, ...]


def run(
    request: plugin_pb2.CodeGeneratorRequest,
    warn: Callable[[str], None] = lambda message: None,
) -> Run:
    """Build the model once and render it; warnings go to ``warn``, once each."""
    response = plugin_pb2.CodeGeneratorResponse(
        supported_features=_FEATURES,
        minimum_edition=descriptor_pb2.EDITION_PROTO2,
        maximum_edition=descriptor_pb2.EDITION_2023,
    )
    try:
        options = Options.parse(request.parameter)
        acknowledgements = load(options.acknowledge) if options.acknowledge else ()
        # The model lists the overlaps; the policy is applied here, once, against the
        # acknowledgements.
        generation = build_files(request, options)
    except OptionError as exc:
        response.error = f"protoc-gen-a2a: {exc}"
        return Run(response, (), ())
    except AcknowledgementError as exc:
        response.error = str(exc)
        return Run(response, (), ())
    except GenerationError as exc:
        response.error = str(exc)
        return Run(response, (), ())
    legacy = (generation.v0_3,) if generation.v0_3 is not None else ()
    settled = settle(
        [overlap for file in generation.files + legacy for overlap in file.overlaps],
        acknowledgements,
    )
    if options.ambiguity == "error" and settled.new:
        response.error = "\n".join(str(overlap.diagnostic) for overlap in settled.new)
        return Run(response, (), ())
    for message in generation.warnings:
        warn(message)
    if options.ambiguity == "warn":
        for overlap in settled.new:
            warn(f"warning: {overlap}")
    for acknowledgement in settled.stale:
        warn(acknowledgement.stale_warning)
    if options.client:
        lacking = [f.proto_file for f in generation.files if not f.a2a]
        if lacking:
            asked = (
                "translate=true: the HTTP backend calls through the client helpers,"
                " which"
                if options.translate
                else "client=true: the client helpers"
            )
            response.error = (
                f"protoc-gen-a2a: option {asked} are A2A's,"
                f" and {', '.join(lacking)} has no A2A service"
            )
            return Run(response, (), ())
    for binding_file in generation.files:
        package = binding_file.module
        pb2_module = (
            (options.pb2_module or _pb2_module(request, binding_file.proto_file))
            if options.grpc
            else None
        )
        rendered = render_file(
            binding_file,
            pb2_module=pb2_module,
            v0_3=bool(legacy),
            serve=options.serve,
            client=options.client,
            translate=options.translate,
        )
        for name, content in sorted(rendered.items()):
            response.file.add(name=f"{package}/{name}", content=content)
    for binding_file in legacy:
        folder = f"{binding_file.module}/{V0_3_PACKAGE}"
        for name, content in sorted(render_v0_3(binding_file).items()):
            response.file.add(name=f"{folder}/{name}", content=content)
    return Run(response, generation.files + legacy, settled.acknowledged)


def _pb2_module(request: plugin_pb2.CodeGeneratorRequest, proto_file: str) -> str:
    """The default ``pb2_module``: the module ``protoc --python_out`` writes for
    ``proto_file``, or a2a-sdk's ``a2a.types.a2a_pb2`` when the file is the embedded
    default input (the descriptor compiled into that module, which this process
    imported to build the request: protoc's requests carry source info and never
    match it)."""
    from .inputs import DEFAULT_MODULE  # only here: an option most runs lack
    from .serving_views import protoc_python_module

    embedded = sys.modules.get(DEFAULT_MODULE)
    descriptor = getattr(embedded, "DESCRIPTOR", None)
    if descriptor is not None and descriptor.name == proto_file:
        compiled = descriptor_pb2.FileDescriptorProto()
        descriptor.CopyToProto(compiled)
        if any(file == compiled for file in request.proto_file):
            return DEFAULT_MODULE
    return protoc_python_module(proto_file)


def generate(
    request: plugin_pb2.CodeGeneratorRequest,
    warn: Callable[[str], None] = lambda message: None,
) -> plugin_pb2.CodeGeneratorResponse:
    """Generate the binding packages for ``request``; warnings go to ``warn``."""
    return run(request, warn).response


def _warn(message: str) -> None:
    print(f"protoc-gen-a2a: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``protoc-gen-a2a`` executable.

    protoc passes no arguments; ``--version`` and ``--help`` answer without reading
    stdin, and a bare run on a terminal prints a hint instead of waiting for input.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["--version"], ["-V"]):
        print(f"protoc-gen-a2a {__version__}")
        return
    if args in (["--help"], ["-h"]):
        print(_USAGE, end="")
        return
    if args:
        print(
            f"protoc-gen-a2a: unknown argument {args[0]!r}; --help for usage",
            file=sys.stderr,
        )
        sys.exit(2)
    stdin = sys.stdin
    if stdin is None or stdin.isatty():
        print(_HINT, file=sys.stderr)
        sys.exit(2)
    data = stdin.buffer.read()
    if not data:
        # protoc always sends at least the file names; nothing at all is a person.
        print(_HINT, file=sys.stderr)
        sys.exit(2)
    request = plugin_pb2.CodeGeneratorRequest.FromString(data)
    response = generate(request, _warn)
    _write_all(sys.stdout.buffer, response.SerializeToString(deterministic=True))


def _write_all(stream: BinaryIO, data: bytes) -> None:
    """Write every byte of ``data`` to ``stream`` and flush it. Under
    ``PYTHONUNBUFFERED`` stdout is a raw stream, whose ``write`` may take only part of
    the data; a non-blocking pipe takes what fits and refuses the rest until its reader
    catches up. Either way the rest is written once the pipe has room, so protoc never
    reads a response cut short."""
    view = memoryview(data)
    while view:
        try:
            written = stream.write(view)
        except BlockingIOError as exc:  # buffered: it kept what it could
            written = exc.characters_written
        if not written:  # nothing taken: wait until the pipe has room
            select.select([], [stream], [])
            continue
        view = view[written:]
    while True:
        try:
            stream.flush()
            return
        except BlockingIOError:
            select.select([], [stream], [])


if __name__ == "__main__":
    main()

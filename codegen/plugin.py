"""The protoc plugin: ``CodeGeneratorRequest`` on stdin, ``CodeGeneratorResponse`` on stdout.

``generate`` is pure and is what tests call. ``main`` is the only I/O: read stdin, write
stdout, and send warnings to stderr (stdout is the protocol). Input problems go to
``response.error`` so protoc prints them and writes nothing; generator bugs raise and exit
non-zero with a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

from codegen.model import GenerationError, build_files
from codegen.options import OptionError, Options
from codegen.render import render_file

__all__ = ["generate", "main"]

_FEATURES = (
    plugin_pb2.CodeGeneratorResponse.FEATURE_PROTO3_OPTIONAL
    | plugin_pb2.CodeGeneratorResponse.FEATURE_SUPPORTS_EDITIONS
)


def generate(
    request: plugin_pb2.CodeGeneratorRequest,
    warn: Callable[[str], None] = lambda message: None,
) -> plugin_pb2.CodeGeneratorResponse:
    """Generate the binding packages for ``request``; warnings go to ``warn``."""
    response = plugin_pb2.CodeGeneratorResponse(
        supported_features=_FEATURES,
        minimum_edition=descriptor_pb2.EDITION_PROTO2,
        maximum_edition=descriptor_pb2.EDITION_2023,
    )
    try:
        options = Options.parse(request.parameter)
        generation = build_files(request, options)
    except OptionError as exc:
        response.error = f"protoc-gen-a2a: {exc}"
        return response
    except GenerationError as exc:
        response.error = str(exc)
        return response
    for message in generation.warnings:
        warn(message)
    for binding_file in generation.files:
        package = binding_file.module
        for name, content in sorted(render_file(binding_file).items()):
            response.file.add(name=f"{package}/{name}", content=content)
    return response


def _warn(message: str) -> None:
    print(f"protoc-gen-a2a: {message}", file=sys.stderr)


def main() -> None:
    """Entry point of the ``protoc-gen-a2a`` executable."""
    request = plugin_pb2.CodeGeneratorRequest.FromString(sys.stdin.buffer.read())
    response = generate(request, _warn)
    sys.stdout.buffer.write(response.SerializeToString(deterministic=True))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()

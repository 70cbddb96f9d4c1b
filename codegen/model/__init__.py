"""Descriptors in, validated plain dataclasses out.

This package is the only place that reads protobuf descriptors; everything downstream
(views, templates, the CLI's route listing and diff) sees the frozen dataclasses of
``domain``. It is split along its seams:

- ``descriptors``: reading descriptors, source locations and comments;
- ``domain``: the dataclasses (``Service``, ``Method``, ``Binding``, ``Route``...);
- ``build``: building and validating them from a ``CodeGeneratorRequest``;
- ``routing``: route-table analysis (duplicates, overlaps);
- ``a2a``: the A2A profile;
- ``naming``: ProtoJSON and Python naming.

Every error carries the proto source location, from ``SourceCodeInfo`` where the input
has it.
"""

from .build import build_files
from .descriptors import descriptor_sha256
from .domain import (
    Binding,
    BindingFile,
    Diagnostic,
    Enum,
    EnumValue,
    Field,
    Generation,
    GenerationError,
    Message,
    Method,
    Overlap,
    PathField,
    QueryParam,
    Route,
    Service,
    SourceLocation,
)
from .naming import WELL_KNOWN_TYPES, query_codec, validation_kind

__all__ = [
    "Binding",
    "BindingFile",
    "Diagnostic",
    "Enum",
    "EnumValue",
    "Field",
    "Generation",
    "GenerationError",
    "Message",
    "Method",
    "Overlap",
    "PathField",
    "QueryParam",
    "Route",
    "Service",
    "SourceLocation",
    "WELL_KNOWN_TYPES",
    "build_files",
    "descriptor_sha256",
    "query_codec",
    "validation_kind",
]

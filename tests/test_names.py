"""Every identifier a generated module defines comes from the model: the templates print
the names the model gives them (types, private bases, imports, handler methods) and
compose none, so a proto whose names collide with all of them still generates
importable, mypy-clean code."""

from __future__ import annotations

import ast
from pathlib import Path

from codegen.inputs import request_from_module
from codegen.model import build_files
from codegen.model.naming import (
    MESSAGES_DEFINES,
    MESSAGES_IMPORTS,
    MESSAGES_MODULE,
    RESERVED_NAMES,
    private_base,
)
from codegen.options import Options
from codegen.plugin import generate

from .conftest import GENERATED, compile_request
from .test_hostile_inputs import (
    assert_imports_cleanly,
    assert_mypy_strict,
    write_package,
)

_IMPORTED = {name for group in MESSAGES_IMPORTS for _, names in group for name in names}
# Every name messages.py binds besides its types, and the form of a private base.
_COLLIDING = sorted(_IMPORTED | MESSAGES_DEFINES | {MESSAGES_MODULE}) + [
    private_base("Holder"),
    private_base("Plain"),
]


def _proto(tmp_path: Path) -> Path:
    """One rpc whose request holds a message of every colliding name; ``Holder`` has a
    REQUIRED field (so a private base class) and so does ``_HolderRequired``."""
    required = "[(google.api.field_behavior) = REQUIRED]"
    lines = [
        'syntax = "proto3";',
        "package names.v1;",
        'import "google/api/annotations.proto";',
        'import "google/api/field_behavior.proto";',
    ]
    for name in _COLLIDING:
        lines.append(f"message {name} {{ string id = 1 {required}; }}")
    fields = " ".join(f"{name} f{i} = {i + 2};" for i, name in enumerate(_COLLIDING))
    lines.append(f"message Holder {{ string id = 1 {required}; {fields} }}")
    lines.append("message Plain { string id = 1; }")
    lines.append(
        "service Names { rpc GetHolder(Holder) returns (Plain) {"
        ' option (google.api.http) = { get: "/holders/{id}" }; } }'
    )
    proto = tmp_path / "names.proto"
    proto.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return proto


def _bound(module: ast.Module) -> set[str]:
    """The names a module binds at its top level."""
    found: set[str] = set()
    for node in module.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def test_the_reserved_names_are_what_messages_imports_and_defines() -> None:
    assert _IMPORTED | MESSAGES_DEFINES | {MESSAGES_MODULE} <= RESERVED_NAMES
    assert {"Any", "TypedDict", "Mapping", "ValidationError"} <= _IMPORTED


def test_names_that_collide_with_the_module_generate_importable_mypy_clean_code(
    tmp_path: Path,
) -> None:
    request = compile_request(_proto(tmp_path), "module=names_pkg")
    (binding_file,) = build_files(request, Options()).files
    given = dict(binding_file.python_names)
    # every colliding name was renamed by the model, never printed as it is
    assert all(given[f"names.v1.{name}"] == name + "_" for name in _COLLIDING), given
    response = generate(request)
    assert not response.error, response.error
    out = tmp_path / "out"
    packages = write_package(response, out)
    source = (out / "names_pkg" / "messages.py").read_text(encoding="utf-8")
    bound = _bound(ast.parse(source))
    bases = {private_base(given[name]) for name in ("names.v1.Holder",)}
    bases |= {private_base(name + "_") for name in _COLLIDING}
    from_model = set(given.values()) | _IMPORTED | MESSAGES_DEFINES | {"__all__"}
    assert bound - bases - from_model == set(), "names the model did not give"
    assert private_base("Holder") in bound  # the base class is the model's name
    assert_imports_cleanly(out, packages)
    assert_mypy_strict(out, packages)


def test_handler_methods_are_the_models_names() -> None:
    """handler.py's Protocol methods are the model's ``Method.handler_name``."""
    (binding_file,) = build_files(request_from_module(), Options()).files
    expected = {method.handler_name for method in binding_file.methods}
    source = (GENERATED / "a2a_binding" / "handler.py").read_text(encoding="utf-8")
    defined = {
        item.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    assert expected <= defined, expected - defined

"""Red-team review of the generator's untrusted-input handling (issue 12, second pass).

Each case is input that, before its fix, ended generation with a traceback, wrote a
package that failed at import, or silently changed a name on its way into Python. The
clean outcomes are the ones ``test_hostile_inputs`` asserts: a located diagnostic and
no files, or a package that compiles, holds only template-shaped statements, imports in
a fresh interpreter and keeps every name as the proto spells it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from google.api import field_behavior_pb2
from google.protobuf import descriptor_pb2

from codegen.plugin import generate

from .test_hostile_inputs import (
    ENUM,
    INT32,
    MESSAGE,
    OPTIONAL,
    STRING,
    add_message,
    add_rpc,
    assert_diagnostic,
    proto_file,
    request_for,
    settle,
    simple_file,
)


def _python(root: Path, script: str) -> str:
    """Run ``script`` with ``root`` on the path in a fresh interpreter; its stdout."""
    result = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            f"import sys\nsys.path.insert(0, {str(root)!r})\n" + script,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


# --- handler.py / asgi.py (A2A profile): names the plugin computes from rpc names ------


def test_rpcs_named_like_keywords_get_handler_methods_with_a_trailing_underscore(
    tmp_path: Path,
) -> None:
    # Was: RenderError traceback (``async def import(``), no package.
    file = simple_file()
    file.service[0].method[0].name = "Import"
    add_rpc(file, "Class", "Request", post="/items")
    add_rpc(file, "Await", "Request", get="/await/{id}")
    settle(generate(request_for(file, parameter="profile=a2a,serve=true")), tmp_path)
    methods = _python(
        tmp_path,
        "from hostile_binding import asgi\nprint(sorted(asgi.HANDLER_METHODS.items()))",
    )
    assert methods == str(
        [("Await", "await_"), ("Class", "class_"), ("Import", "import_")]
    )


def test_an_rpc_whose_handler_method_python_would_mangle_is_a_diagnostic() -> None:
    # ``async def __secret`` in a class body is ``_HostileHandler__secret``: the server
    # would look the handler method up under a name no handler class defines.
    file = simple_file()
    file.service[0].method[0].name = "__Secret"
    assert_diagnostic(
        generate(request_for(file, parameter="profile=a2a")), "__Secret", "mangles"
    )


def test_a_service_named_service_beside_another_is_a_diagnostic() -> None:
    # Was: RenderError traceback ('ServiceHandler' is defined twice).
    file = simple_file()
    file.service[0].name = "Service"
    add_rpc(file, "Other", "Request", service="Other", get="/other/{id}")
    assert_diagnostic(
        generate(request_for(file, parameter="profile=a2a")), "ServiceHandler"
    )


def test_an_a2a_service_without_an_agent_card_message_imports(tmp_path: Path) -> None:
    # Was: asgi.py raised AttributeError (messages.AgentCard) at import.
    file = simple_file()
    file.service[0].name = "A2AService"  # the auto profile's trigger
    settle(generate(request_for(file)), tmp_path)


# --- TypedDict keys that Python would rewrite ---------------------------------------


@pytest.mark.parametrize(
    "json_name",
    ["__secret", "ｃｏｕｎｔ", "ﬁeld"],
    ids=["mangled", "fullwidth", "ligature"],
)
def test_json_names_python_would_rewrite_stay_as_spelled(
    json_name: str, tmp_path: Path
) -> None:
    # Was: class-form TypedDicts, whose keys became ``_Request__secret`` (mangling),
    # ``count`` (NFKC: the fullwidth key fell onto the ``count`` field) and ``field``.
    file = simple_file()
    file.message_type[0].field[1].json_name = json_name
    settle(generate(request_for(file)), tmp_path)
    keys = _python(
        tmp_path,
        "from hostile_binding import messages, query\n"
        "print(sorted(messages.Request.__optional_keys__"
        " | messages.Request.__required_keys__))\n"
        "print(sorted(query.GetQuery.__optional_keys__))",
    )
    assert keys.splitlines() == [str(sorted(["id", json_name]))] * 2


# --- types named like what messages.py imports or defines -------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "Mapping",
        "FieldRule",
        "Schema",
        "UnknownFields",
        "ValidationError",
        "SCHEMA",
        "validate",
        "missing_fields",
        "_RequestRequired",
    ],
)
def test_a_type_named_like_a_messages_module_name_is_renamed(
    name: str, tmp_path: Path
) -> None:
    # Was: RenderError traceback ('<name>' is defined twice). The docs' rule: a
    # trailing "_".
    file = simple_file()
    request = file.message_type[0]
    request.field[0].options.Extensions[field_behavior_pb2.field_behavior].append(
        field_behavior_pb2.REQUIRED
    )
    add_message(file, name, ("a", STRING, ""))
    request.field.add(
        name="extra",
        number=3,
        type=MESSAGE,
        type_name=f".hostile.v1.{name}",
        label=OPTIONAL,
    )
    settle(generate(request_for(file)), tmp_path)
    out = _python(
        tmp_path,
        "from hostile_binding import messages\n"
        f"print(hasattr(messages, {name + '_'!r}))\n"
        "print(messages.missing_fields('hostile.v1.Request', {}))",
    )
    assert out.splitlines() == [
        "True",
        str([("id", "a REQUIRED field is missing")]),
    ]


# --- references a descriptor set need not resolve -----------------------------------


def _field(file: descriptor_pb2.FileDescriptorProto, kind: int, type_name: str) -> None:
    file.message_type[0].field.add(
        name="x", number=9, type=kind, type_name=type_name, label=OPTIONAL
    )


def _missing_message(file: descriptor_pb2.FileDescriptorProto) -> None:
    _field(file, MESSAGE, ".nope.Missing")


def _missing_enum(file: descriptor_pb2.FileDescriptorProto) -> None:
    _field(file, ENUM, ".nope.Missing")


def _enum_naming_a_message(file: descriptor_pb2.FileDescriptorProto) -> None:
    _field(file, ENUM, ".hostile.v1.Request")


def _missing_request(file: descriptor_pb2.FileDescriptorProto) -> None:
    file.service[0].method[0].input_type = ".nope.Missing"


def _oneof_out_of_range(file: descriptor_pb2.FileDescriptorProto) -> None:
    file.message_type[0].field[1].oneof_index = 3


def _map_entry_without_value(file: descriptor_pb2.FileDescriptorProto) -> None:
    entry = file.message_type[0].nested_type.add(name="TagsEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=STRING, label=OPTIONAL)
    file.message_type[0].field.add(
        name="tags",
        number=9,
        type=MESSAGE,
        type_name=".hostile.v1.Request.TagsEntry",
        label=3,
    )


@pytest.mark.parametrize(
    "break_it",
    [
        _missing_message,
        _missing_enum,
        _enum_naming_a_message,
        _missing_request,
        _oneof_out_of_range,
        _map_entry_without_value,
    ],
)
def test_an_unresolved_reference_is_a_diagnostic(break_it: object) -> None:
    # Was: KeyError / IndexError tracebacks from the plugin.
    file = simple_file()
    getattr(break_it, "__call__")(file)
    assert_diagnostic(generate(request_for(file)), "hostile.proto")


# --- the default package name -------------------------------------------------------


@pytest.mark.parametrize(
    "stem", ["ﬁle", "²nd", "ｆｕｌｌ"], ids=["ligature", "superscript", "fullwidth"]
)
def test_the_default_package_name_can_be_imported_by_an_import_statement(
    stem: str, tmp_path: Path
) -> None:
    # Was: ``ﬁle_binding`` (``import`` reads it as ``file_binding`` and misses the
    # folder) and ``²nd_binding`` (not an identifier at all).
    packages = settle(generate(request_for(simple_file(f"{stem}.proto"))), tmp_path)
    assert len(packages) == 1
    assert packages[0].isascii() or packages[0].isidentifier()
    assert _python(tmp_path, f"import {packages[0]}\nprint('ok')") == "ok"


# --- determinism ------------------------------------------------------------------------


def test_output_is_the_same_whatever_the_order_of_the_input_files() -> None:
    first = simple_file()
    second = proto_file("other.proto", "other.v1")
    add_message(second, "M", ("a", STRING, ""), ("n", INT32, ""))
    add_rpc(second, "Go", "M", service="S", get="/m/{a}")
    one = generate(request_for(first, second))
    two = generate(request_for(second, first))
    again = generate(request_for(first, second))
    assert not one.error
    contents = [(f.name, f.content) for f in one.file]
    assert contents == [(f.name, f.content) for f in two.file]
    assert contents == [(f.name, f.content) for f in again.file]


def test_a_file_name_in_a_diagnostic_holds_no_raw_control_characters() -> None:
    # Was: the name went raw into ``response.error``, so protoc printed the escape
    # sequence and the newline began a forged second diagnostic line.
    file = simple_file("a\x1b[2J\nforged.proto:1:1: all good\n.proto")
    file.service[0].method[0].name = "bad name"
    error = assert_diagnostic(generate(request_for(file)), "bad name")
    assert "\n" not in error and "\\x1b[2J\\nforged" in error

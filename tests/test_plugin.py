"""The plugin as protoc runs it, and its diagnostics."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

from codegen.inputs import include_paths, request_from_module
from codegen.options import OptionError, Options
from codegen.plugin import generate

from .conftest import (
    PROTO,
    SPEC_TAGS,
    compile_request,
    plugin_executable,
    run_plugin,
    spec_proto,
)

BROKEN = sorted((PROTO / "broken").glob("*.proto"))


def protoc(
    proto: Path, out: Path, *, opt: str = "", includes: list[Path] = ()
) -> subprocess.CompletedProcess[str]:
    """Run real protoc (grpc_tools) with the installed plugin, as a user would."""
    out.mkdir(parents=True, exist_ok=True)
    args = [sys.executable, "-m", "grpc_tools.protoc", f"-I{proto.parent}"]
    args += [f"-I{p}" for p in [*includes, *include_paths()]]
    args += [f"--plugin=protoc-gen-a2a={plugin_executable()}", f"--a2a_out={out}"]
    if opt:
        args.append(f"--a2a_opt={opt}")
    args.append(proto.name)
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


TABLES = [
    "a2a_binding/__init__.py",
    "a2a_binding/_compiling.py",
    "a2a_binding/_errors.py",
    "a2a_binding/_json.py",
    "a2a_binding/_jsonrpc.py",
    "a2a_binding/_paths.py",
    "a2a_binding/_query.py",
    "a2a_binding/_quoting.py",
    "a2a_binding/_sse.py",
    "a2a_binding/_validate.py",
    "a2a_binding/jsonrpc.py",
    "a2a_binding/messages.py",
    "a2a_binding/py.typed",
    "a2a_binding/query.py",
    "a2a_binding/routes.py",
]


def test_protoc_writes_the_tables_for_the_a2a_proto(
    tmp_path: Path, sdk_a2a: Path
) -> None:
    """No option: the tables and the runtime they use, nothing of the other layers."""
    result = protoc(sdk_a2a, tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(_files(tmp_path)) == TABLES
    # Overlaps are warnings on stderr, with an example path; stdout stays the protocol.
    assert "GET /tasks/tasks matches both" in result.stderr
    assert result.stdout == ""


def test_protoc_writes_the_layers_asked_for(tmp_path: Path, sdk_a2a: Path) -> None:
    result = protoc(sdk_a2a, tmp_path, opt="serve=true,client=true")
    assert result.returncode == 0, result.stderr
    assert sorted(_files(tmp_path)) == [
        "a2a_binding/__init__.py",
        "a2a_binding/_asgi.py",
        "a2a_binding/_caching.py",
        "a2a_binding/_cancellation.py",
        "a2a_binding/_client.py",
        "a2a_binding/_compiling.py",
        "a2a_binding/_deadline.py",
        "a2a_binding/_dialects.py",
        "a2a_binding/_dispatch.py",
        "a2a_binding/_documents.py",
        "a2a_binding/_errors.py",
        "a2a_binding/_failure.py",
        "a2a_binding/_headers.py",
        "a2a_binding/_json.py",
        "a2a_binding/_jsonrpc.py",
        "a2a_binding/_media.py",
        "a2a_binding/_options.py",
        "a2a_binding/_params.py",
        "a2a_binding/_paths.py",
        "a2a_binding/_profile.py",
        "a2a_binding/_query.py",
        "a2a_binding/_quoting.py",
        "a2a_binding/_request.py",
        "a2a_binding/_responses.py",
        "a2a_binding/_sse.py",
        "a2a_binding/_sse_parser.py",
        "a2a_binding/_status.py",
        "a2a_binding/_v0_3.py",
        "a2a_binding/_v0_3_card.py",
        "a2a_binding/_v0_3_rest.py",
        "a2a_binding/_v0_3_rpc.py",
        "a2a_binding/_v0_3_serving.py",
        "a2a_binding/_v0_3_shapes.py",
        "a2a_binding/_validate.py",
        "a2a_binding/_validate_fast.py",
        "a2a_binding/asgi.py",
        "a2a_binding/client.py",
        "a2a_binding/handler.py",
        "a2a_binding/jsonrpc.py",
        "a2a_binding/messages.py",
        "a2a_binding/protocol.py",
        "a2a_binding/py.typed",
        "a2a_binding/query.py",
        "a2a_binding/routes.py",
    ]
    served = protoc(sdk_a2a, tmp_path / "served", opt="serve=true")
    assert served.returncode == 0, served.stderr
    found = sorted(_files(tmp_path / "served"))
    assert "a2a_binding/asgi.py" in found and "a2a_binding/client.py" not in found
    assert set(TABLES) < set(found)


@pytest.mark.parametrize("tag", SPEC_TAGS)
def test_every_upstream_version_generates(tag: str, tmp_path: Path) -> None:
    result = protoc(spec_proto(tag), tmp_path)
    assert result.returncode == 0, result.stderr
    routes = (tmp_path / "a2a_binding" / "routes.py").read_text()
    assert "ROUTES: tuple[Route[RpcName], ...] = (" in routes


@pytest.mark.parametrize("proto", BROKEN, ids=[p.stem for p in BROKEN])
def test_broken_proto_fails_with_its_location(proto: Path, tmp_path: Path) -> None:
    header = proto.read_text().splitlines()
    expect = header[0].removeprefix("// expect: ")
    options = (
        header[1].removeprefix("// options: ")
        if header[1].startswith("// options:")
        else ""
    )
    result = protoc(proto, tmp_path / "out", opt=options)
    assert result.returncode != 0
    assert list((tmp_path / "out").rglob("*")) == [], "a failed generation wrote files"
    # protoc prefixes the plugin's error with the flag that ran it.
    lines = [line.removeprefix("--a2a_out: ") for line in result.stderr.splitlines()]
    errors = [line for line in lines if line.startswith(proto.name)]
    assert len(errors) == 1, result.stderr
    assert re.match(
        rf"{re.escape(proto.name)}:\d+:\d+: (rpc \w+|service \w+)", errors[0]
    ), errors[0]
    assert expect in errors[0]
    assert "Traceback" not in result.stderr


def test_broken_corpus_is_large_enough() -> None:
    assert len(BROKEN) >= 20


def test_error_points_at_the_option_line() -> None:
    response, _ = run_plugin(PROTO / "broken" / "get_with_body.proto")
    lines = (PROTO / "broken" / "get_with_body.proto").read_text().splitlines()
    line, column = map(int, response.error.split(":")[1:3])
    assert lines[line - 1][column - 1 :].startswith("option (google.api.http)")
    assert "rpc Get: GET /items/{id} has a body ('*')" in response.error


def test_features_proto_generates_every_service_with_rules(tmp_path: Path) -> None:
    result = protoc(PROTO / "features" / "library.proto", tmp_path)
    assert result.returncode == 0, result.stderr
    assert (
        "service InternalService has no google.api.http rules; skipped" in result.stderr
    )
    routes = (tmp_path / "library_binding" / "routes.py").read_text()
    # each rpc once in RPCS, naming its service; InternalService's Sync is not there
    assert routes.count('service="example.library.v1.AdminService"') == 2
    assert (
        'name="Ping"' in routes
        and 'name="GetBook"' in routes
        and '"Sync"' not in routes
    )


def test_supported_features_and_editions() -> None:
    response = generate(compile_request(PROTO / "features" / "tenancy.proto"))
    features = plugin_pb2.CodeGeneratorResponse
    assert response.supported_features & features.FEATURE_PROTO3_OPTIONAL
    assert response.supported_features & features.FEATURE_SUPPORTS_EDITIONS
    assert response.minimum_edition == descriptor_pb2.EDITION_PROTO2
    assert response.maximum_edition >= descriptor_pb2.EDITION_2023


def test_editions_proto_compiles_through_protoc(tmp_path: Path) -> None:
    result = protoc(PROTO / "features" / "editions.proto", tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "editions_binding" / "routes.py").is_file()


def test_module_option_names_the_package(tmp_path: Path) -> None:
    result = protoc(
        PROTO / "features" / "tenancy.proto", tmp_path, opt="module=items_api"
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "items_api" / "routes.py").is_file()


@pytest.mark.parametrize(
    ("parameter", "message"),
    [
        ("colour=blue", "unknown option 'colour'"),
        ("module", "option 'module' needs a value"),
        ("module=not-an-identifier", "is not a valid identifier"),
        ("ambiguity=maybe", "expected warn, error or ignore"),
        ("profile=x", "expected auto, a2a or none"),
        ("module=a,module=b", "given twice"),
        ("module=class", "option module='class' is a Python keyword"),
        ("acknowledge=", "option acknowledge= needs a file name"),
        ("serve=yes", "option serve='yes': expected true or false"),
        ("client=1", "option client='1': expected true or false"),
        ("grpc=true,serve=false", "option serve=false contradicts grpc=true"),
    ],
)
def test_bad_options_are_errors_naming_them(
    parameter: str, message: str, tmp_path: Path
) -> None:
    with pytest.raises(OptionError, match=re.escape(message)):
        Options.parse(parameter)
    result = protoc(PROTO / "features" / "tenancy.proto", tmp_path, opt=parameter)
    assert result.returncode != 0
    assert message in result.stderr
    assert not any(tmp_path.rglob("*.py"))


def test_client_helpers_are_refused_for_a_service_without_the_a2a_profile(
    tmp_path: Path,
) -> None:
    result = protoc(PROTO / "features" / "tenancy.proto", tmp_path, opt="client=true")
    assert result.returncode != 0
    assert "option client=true: the client helpers are A2A's" in result.stderr
    assert not any(tmp_path.rglob("*.py"))


def test_grpc_implies_the_serving_layer() -> None:
    assert Options.parse("grpc=true").serve
    assert Options.parse("grpc=true,serve=true") == Options.parse("grpc=true")
    assert not Options.parse("").serve and not Options.parse("").client


def test_options_round_trip() -> None:
    options = Options.parse(
        " module=x , tenant_field=tenant,ambiguity=error,profile=a2a,acknowledge=a b.txt"
    )
    assert options == Options("x", "tenant", "error", "a2a", "a b.txt")
    assert Options.parse(options.to_parameter()) == options
    assert Options.parse("") == Options()


def test_output_is_byte_identical_across_runs_and_input_orders() -> None:
    request = request_from_module()
    first = generate(request)
    shuffled = plugin_pb2.CodeGeneratorRequest()
    shuffled.CopyFrom(request)
    # Same files, imports listed in another (still valid) order: output must not change.
    files = list(request.proto_file)
    target = files[-1]
    del shuffled.proto_file[:]
    shuffled.proto_file.extend(list(reversed(files[:-1])) + [target])
    second = generate(shuffled)
    assert first.SerializeToString(deterministic=True) == second.SerializeToString(
        deterministic=True
    )
    assert [f.name for f in first.file] == sorted(f.name for f in first.file)


def test_only_files_to_generate_are_emitted(tmp_path: Path) -> None:
    request = compile_request(PROTO / "features" / "library.proto")
    assert len(request.proto_file) > 1  # imports are indexed to resolve types
    response = generate(request)
    assert {f.name.split("/")[0] for f in response.file} == {"library_binding"}


def test_plugin_bug_exits_nonzero_with_traceback_and_silent_stdout() -> None:
    # A request naming a file it does not contain is not something protoc can send: the
    # plugin treats it as its own bug, so it must crash loudly, not answer.
    request = plugin_pb2.CodeGeneratorRequest(file_to_generate=["missing.proto"])
    result = subprocess.run(
        [plugin_executable()],
        input=request.SerializeToString(),
        capture_output=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert b"Traceback" in result.stderr
    assert result.stdout == b""


def test_two_files_may_not_become_one_package(tmp_path: Path) -> None:
    source = (PROTO / "features" / "tenancy.proto").read_text()
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "items.proto").write_text(
            source.replace("example.tenancy.v1", f"twins.{folder}")
        )
    (tmp_path / "a" / "other.proto").write_text(
        source.replace("example.tenancy.v1", "twins.other")
    )
    (tmp_path / "out").mkdir()
    base = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"-I{tmp_path}",
        *[f"-I{p}" for p in include_paths()],
        f"--plugin=protoc-gen-a2a={plugin_executable()}",
        f"--a2a_out={tmp_path / 'out'}",
    ]
    same_stem = subprocess.run(
        [*base, "a/items.proto", "b/items.proto"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert same_stem.returncode != 0
    assert (
        "b/items.proto: would be generated as package items_binding, like a/items.proto"
        in same_stem.stderr
    )
    one_module = subprocess.run(
        [*base, "--a2a_opt=module=api", "a/items.proto", "a/other.proto"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        one_module.returncode != 0
        and "would be generated as package api" in one_module.stderr
    )
    assert list((tmp_path / "out").iterdir()) == []
    separate = subprocess.run(
        [*base, "a/items.proto", "a/other.proto"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert separate.returncode == 0, separate.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "items_binding",
        "other_binding",
    ]


@pytest.mark.parametrize("stdin", ["tty", "empty", "closed"])
@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_answer_without_reading_stdin(flag: str, stdin: str) -> None:
    primary, secondary = pty.openpty()
    source = {"tty": secondary, "empty": subprocess.DEVNULL, "closed": None}[stdin]
    command = [plugin_executable(), flag]
    if stdin == "closed":
        # The shell closes stdin and execs the plugin. Not a ``preexec_fn``: that
        # forks this process as it is, with grpc's fork handlers (an earlier test
        # loaded grpc), whose threads race the close of descriptor 0 in the child.
        command = ["/bin/sh", "-c", 'exec 0<&- && exec "$@"', "sh", *command]
    try:
        result = subprocess.run(
            command,
            stdin=source,
            capture_output=True,
            timeout=60,  # a hang (reading the terminal) fails here instead of blocking the run
            close_fds=True,
            pass_fds=(),
        )
    finally:
        os.close(primary)
        os.close(secondary)
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    if flag == "--version":
        assert re.fullmatch(r"protoc-gen-a2a \d+\.\d+\.\d+\n", text)
    else:
        assert text.startswith("usage: protoc-gen-a2a") and "--a2a_out" in text
    assert result.stderr == b""


@pytest.mark.parametrize("stdin", ["tty", "empty"])
def test_no_arguments_without_a_request_prints_a_hint(stdin: str) -> None:
    primary, secondary = pty.openpty()
    try:
        result = subprocess.run(
            [plugin_executable()],
            stdin=secondary if stdin == "tty" else subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
        )
    finally:
        os.close(primary)
        os.close(secondary)
    assert result.returncode == 2
    assert result.stdout == b""  # never protocol bytes for a person to read
    lines = result.stderr.decode().splitlines()
    assert (
        len(lines) == 1
        and "this is a protoc plugin" in lines[0]
        and "Traceback" not in lines[0]
    )


def test_unknown_argument_is_a_usage_error() -> None:
    result = subprocess.run(
        [plugin_executable(), "--frobnicate"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and "unknown argument '--frobnicate'" in result.stderr


def test_executable_answers_as_generate_does(sdk_a2a: Path) -> None:
    # The executable ends with os._exit once the response is flushed: the whole response
    # (far larger than a pipe's buffer) and every warning must be out by then.
    request = compile_request(sdk_a2a, "ambiguity=warn,serve=true,client=true")
    warnings: list[str] = []
    expected = generate(request, warnings.append).SerializeToString(deterministic=True)
    result = subprocess.run(
        [plugin_executable()],
        input=request.SerializeToString(),
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert len(expected) > 1 << 16 and result.stdout == expected
    assert warnings and result.stderr.decode().splitlines() == [
        f"protoc-gen-a2a: {w}" for w in warnings
    ]


def test_executable_collects_garbage_while_generating() -> None:
    # The collector is paused only while the generator's modules load: generation itself
    # runs with it on (a large proto must not grow memory without bound).
    script = (
        "import gc\n"
        "from codegen import executable, plugin\n"
        "plugin.main = lambda: print(gc.isenabled(), gc.get_freeze_count() > 0)\n"
        "executable.main()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "True True\n"


@pytest.mark.parametrize(
    "unbuffered", [True, False], ids=["PYTHONUNBUFFERED", "buffered"]
)
def test_response_reaches_a_slow_non_blocking_pipe_whole(
    unbuffered: bool, sdk_a2a: Path
) -> None:
    # A non-blocking pipe takes what fits (64 KiB) and refuses the rest until its reader
    # catches up; under PYTHONUNBUFFERED stdout is raw and a write may take only part.
    request = compile_request(sdk_a2a, "serve=true,client=true")
    expected = generate(request).SerializeToString(deterministic=True)
    assert len(expected) > 4 << 16  # more than the pipe takes at once, several times
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    chunks: list[bytes] = []

    def read_slowly() -> None:
        time.sleep(0.2)  # the plugin meets a full pipe first
        while chunk := os.read(read_end, 1 << 14):
            chunks.append(chunk)
            time.sleep(0.002)

    reader = threading.Thread(target=read_slowly)
    reader.start()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    try:
        result = subprocess.run(
            [plugin_executable()],
            input=request.SerializeToString(),
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            timeout=60,
        )
    finally:
        os.close(write_end)
        reader.join(timeout=60)
        os.close(read_end)
    assert result.returncode == 0, result.stderr
    assert b"".join(chunks) == expected


def test_version_with_stdout_closed_exits_cleanly() -> None:
    result = subprocess.run(
        [plugin_executable(), "--version"],
        stdout=None,
        stderr=subprocess.PIPE,
        timeout=60,
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: os.close(1),
    )
    assert result.returncode == 0 and result.stderr == b""

"""The a2a-codegen CLI: generate, check, diff, routes, and buf as a local plugin."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegen.acknowledge import A2A_OVERLAPS
from codegen.cli import main
from codegen.inputs import include_paths

from .conftest import GENERATED, PROTO, spec_proto
from .docs import block
from .test_plugin import protoc


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed console script, as a build step runs it."""
    exe = shutil.which("a2a-codegen", path=str(Path(sys.executable).parent))
    assert exe
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=300)


def _tree(root: Path) -> dict[str, bytes]:
    """Every file below root, leaving out caches that imports and tools leave behind."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {"__pycache__", ".mypy_cache"} & set(p.parts)
    }


def test_generate_writes_exactly_what_protoc_writes(
    tmp_path: Path, sdk_a2a: Path
) -> None:
    proto = sdk_a2a
    assert protoc(proto, tmp_path / "protoc").returncode == 0
    result = _cli(
        "generate", str(proto), "-I", str(proto.parent), "-o", str(tmp_path / "cli")
    )
    assert result.returncode == 0, result.stderr
    assert _tree(tmp_path / "cli") == _tree(tmp_path / "protoc")


def test_generate_from_descriptor_set_and_module(tmp_path: Path, sdk_a2a: Path) -> None:
    proto = sdk_a2a
    descriptor_set = tmp_path / "a2a.pb"
    compiled = subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{proto.parent}",
            *[f"-I{p}" for p in include_paths()],
            "--include_imports",
            "--include_source_info",
            f"-o{descriptor_set}",
            "a2a.proto",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert compiled.returncode == 0, compiled.stderr
    assert protoc(proto, tmp_path / "protoc").returncode == 0
    result = _cli(
        "generate", "--descriptor-set", str(descriptor_set), "-o", str(tmp_path / "set")
    )
    assert result.returncode == 0, result.stderr
    assert _tree(tmp_path / "set") == _tree(tmp_path / "protoc")
    module = _cli(
        "generate",
        "--from-module",
        "a2a.types.a2a_pb2",
        "-o",
        str(tmp_path / "mod"),
        "--module",
        "a2a_binding",
        "--opt",
        "openapi=true",
        "--opt",
        "grpc=true",
        "--opt",
        "client=true",
        "--opt",
        "translate=true",
        "--v0-3",
        "a2a.compat.v0_3.a2a_v0_3_pb2",
    )
    assert module.returncode == 0, module.stderr
    assert _tree(tmp_path / "mod") == _tree(GENERATED)


def test_generate_without_input_uses_the_embedded_default(tmp_path: Path) -> None:
    result = _cli(
        "generate",
        "-o",
        str(tmp_path),
        "--module",
        "a2a_binding",
        "--opt",
        "openapi=true",
        "--opt",
        "grpc=true",
        "--opt",
        "client=true",
        "--opt",
        "translate=true",
        "--v0-3",
        "a2a.compat.v0_3.a2a_v0_3_pb2",
        "--print-routes",
    )
    assert result.returncode == 0, result.stderr
    assert (
        "using the embedded default (a2a.types.a2a_pb2 from a2a-sdk)" in result.stderr
    )
    assert _tree(tmp_path) == _tree(GENERATED)
    assert "a2a_binding (a2a.proto): 24 routes" in result.stdout
    assert "a2a_binding (a2a_v0_3.proto): 11 routes" in result.stdout
    assert "GET     /tasks/{id=*}" in result.stdout


def test_generate_replaces_the_package_and_drops_stale_files(tmp_path: Path) -> None:
    stale = tmp_path / "a2a_binding" / "old_module.py"
    stale.parent.mkdir()
    stale.write_text("# from an older generator\n")
    neighbour = tmp_path / "other" / "keep.py"
    neighbour.parent.mkdir()
    neighbour.write_text("x = 1\n")
    result = CliRunner().invoke(
        main, ["generate", "-o", str(tmp_path), "--module", "a2a_binding"]
    )
    assert result.exit_code == 0, result.output
    assert not stale.exists()
    assert neighbour.read_text() == "x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a2a_binding",
        "other",
    ]  # no temp dirs left


def test_check_fresh_stale_and_never_writes(tmp_path: Path) -> None:
    assert (
        _cli("generate", "-o", str(tmp_path), "--module", "a2a_binding").returncode == 0
    )
    fresh = _cli("check", "-o", str(tmp_path), "--module", "a2a_binding")
    assert fresh.returncode == 0, fresh.stderr
    routes = tmp_path / "a2a_binding" / "routes.py"
    routes.write_text(
        routes.read_text().replace('"/tasks/{id=*}"', '"/tasks/{task=*}"', 1)
    )
    (tmp_path / "a2a_binding" / "extra.py").write_text("x = 1\n")
    (tmp_path / "a2a_binding" / "empty.txt").write_text("")
    (tmp_path / "a2a_binding" / "py.typed").unlink()
    before = _tree(tmp_path)
    stale = _cli("check", "-o", str(tmp_path), "--module", "a2a_binding")
    assert stale.returncode == 1
    assert (
        '-    route(RPCS["GetTask"], "GET", "/tasks/{task=*}", client=0),'
        in stale.stdout
    )
    assert (
        '+    route(RPCS["GetTask"], "GET", "/tasks/{id=*}", client=0),' in stale.stdout
    )
    assert "a2a_binding/extra.py" in stale.stdout
    # Every file is named, also those with no text to diff (an empty extra, py.typed).
    prefix = f"a2a-codegen: {tmp_path}/"
    named = [
        line.removeprefix(prefix)
        for line in stale.stderr.splitlines()
        if line.startswith(prefix)
    ]
    assert named == [
        "a2a_binding/empty.txt: extra (the generator does not write it)",
        "a2a_binding/extra.py: extra (the generator does not write it)",
        "a2a_binding/py.typed: missing",
        "a2a_binding/routes.py: differs",
    ]
    assert "is stale (4 file(s) named above)" in stale.stderr
    assert _tree(tmp_path) == before


def test_check_of_a_folder_that_is_not_there_says_so_in_one_line(
    tmp_path: Path,
) -> None:
    nowhere = tmp_path / "nowhere"
    missing = _cli("check", "-o", str(nowhere), "--module", "a2a_binding")
    assert missing.returncode == 1 and not nowhere.exists()
    assert missing.stderr.splitlines() == [
        f"a2a-codegen: {nowhere}: no such folder (a2a-codegen generate -o {nowhere} with the same inputs "
        "writes it)"
    ]
    assert missing.stdout == ""
    # The folder is there, the package is not: one line too, never a diff of every file.
    (tmp_path / "empty").mkdir()
    absent = _cli("check", "-o", str(tmp_path / "empty"), "--module", "a2a_binding")
    assert absent.returncode == 1 and absent.stdout == ""
    assert absent.stderr.splitlines() == [
        f"a2a-codegen: {tmp_path}/empty/a2a_binding: no such folder (a2a-codegen generate -o "
        f"{tmp_path}/empty with the same inputs writes it)"
    ]
    assert list((tmp_path / "empty").iterdir()) == []


def test_a_proto_that_is_not_there_is_named(tmp_path: Path) -> None:
    alone = _cli("generate", "nosuch/a2a.proto", "-o", str(tmp_path / "out"))
    assert alone.returncode == 1
    assert alone.stderr.splitlines() == ["a2a-codegen: nosuch/a2a.proto: no such file"]
    included = _cli("check", "a2a.proto", "-I", str(tmp_path), "-o", str(tmp_path))
    assert included.returncode == 1
    assert included.stderr.splitlines() == [
        "a2a-codegen: a2a.proto: no such file or under any -I folder"
    ]
    assert not (tmp_path / "out").exists()
    # A name found under an -I folder is still what protoc is given.
    found = _cli(
        "generate",
        "library.proto",
        "-I",
        str(PROTO / "features"),
        "-o",
        str(tmp_path / "out"),
    )
    assert found.returncode == 0, found.stderr


def test_diff_on_the_real_spec_versions(tmp_path: Path) -> None:
    v030, rc, v100, v101 = (
        spec_proto(t) for t in ("v0.3.0", "v1.0.0-rc", "v1.0.0", "v1.0.1")
    )
    first = _cli("diff", str(v030), str(rc), "--format", "json")
    assert first.returncode == 1
    report = json.loads(first.stdout)
    descriptions = [f"{c['subject']}: {c['description']}" for c in report["changes"]]
    # Every v0.3.0 route lost its /v1 prefix and its resource-name variable; old
    # clients' paths now read "v1" as a tenant.
    assert (
        "rpc A2AService.GetTask: GET /v1/{name=tasks/*}: template /v1/{name=tasks/*} -> /tasks/{id=*}: "
        "old clients that use it reach it through GET /{tenant}/tasks/{id=*}, which reads the path "
        "as other fields" in descriptions
    )
    assert (
        "rpc A2AService.GetTask: GET /v1/{name=tasks/*}: path fields name -> id"
        in descriptions
    )
    assert any(
        d.startswith(
            "rpc A2AService.SendMessage: POST /v1/message:send: template /v1/message:send -> "
            "/message:send: old clients that use it reach it"
        )
        for d in descriptions
    )
    assert any(
        d.startswith("rpc A2AService.SubscribeToTask: renamed from TaskSubscription")
        for d in descriptions
    )
    assert any(
        d.startswith("rpc A2AService.GetExtendedAgentCard: renamed from GetAgentCard")
        for d in descriptions
    )
    assert (
        "rpc A2AService.ListTasks: added (unary), with its JSON-RPC method and routes "
        "(GET /tasks, GET /{tenant}/tasks)" in descriptions
    )
    # One per rpc that existed before, and the tenant variant of the POST :subscribe alias.
    assert sum("tenant route" in d and "added" in d for d in descriptions) == 11
    # The messages too: a renamed field, an enum value renamed, a removed response field.
    assert (
        "message Message: field content -> parts: renamed (JSON content -> parts); now REQUIRED: senders "
        "built from the old version may leave it out" in descriptions
    )
    assert any(
        d.startswith(
            "enum TaskState: value TASK_STATE_CANCELLED -> TASK_STATE_CANCELED"
        )
        for d in descriptions
    )
    final = next(
        c
        for c in report["changes"]
        if c["description"].startswith("field final removed")
    )
    assert final["impact"] == "clients" and final["role"] == "response"
    assert final["old"]["location"].endswith("a2a.proto:287:3") and final["new"][
        "location"
    ].endswith(":313:1")
    second = _cli("diff", str(rc), str(v100))
    assert second.returncode == 1
    assert "package a2a.v1 -> lf.a2a.v1: gRPC method paths" in second.stdout
    assert (
        "rpc A2AService.ListTaskPushNotificationConfigs: renamed from ListTaskPushNotificationConfig"
        in second.stdout
    )
    assert (
        "POST /tasks/{task_id=*}/pushNotificationConfigs: body config -> *"
        in second.stdout
    )
    assert "\nBreaking for clients and servers (" in second.stdout
    third = _cli("diff", str(v100), str(v101))
    assert third.returncode == 0
    assert "no change a JSON or gRPC peer sees" in third.stdout
    assert third.stdout.strip().endswith(
        "regenerating changes 1 file, in comments only: a2a_binding/messages.py"
    )
    assert _cli("diff", str(v100), str(v101), "--fail-on", "any").returncode == 0
    markdown = _cli(
        "diff", str(rc), str(v100), "--format", "markdown", "--fail-on", "never"
    )
    assert markdown.returncode == 0
    assert "| **clients and servers** | rpc A2AService." in markdown.stdout


def test_diff_compatible_changes_and_fail_on(tmp_path: Path) -> None:
    old = PROTO / "features" / "tenancy.proto"
    new = tmp_path / "tenancy.proto"
    new.write_text(
        old.read_text().replace(
            "  optional int32 version = 3;",
            "  optional int32 version = 3;\n  string note = 4;",
        )
    )
    result = _cli("diff", str(old), str(new), "-I", str(PROTO / "features"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "\nCompatible (2):\n" in result.stdout
    assert (
        "  rpc ItemService.GetItem: query parameter note (string) added  [tenancy.proto:20:3 -> tenancy.proto:21:3]"
        in result.stdout
    )
    assert (
        "  message Item: field note added (string, number 4)  [tenancy.proto:9:1 -> tenancy.proto:13:3]"
        in (result.stdout)
    )
    assert _cli("diff", str(old), str(new), "--fail-on", "any").returncode == 1
    # The module form too: the embedded A2A default against itself.
    same = _cli("diff", "a2a.types.a2a_pb2", "a2a.types.a2a_pb2")
    assert same.returncode == 0 and "no change a JSON or gRPC peer sees" in same.stdout


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_routes_command(fmt: str) -> None:
    result = CliRunner().invoke(main, ["routes", "--format", fmt])
    assert result.exit_code == 0, result.output
    if fmt == "json":
        table = json.loads(result.stdout)
        assert len(table["routes"]) == 24
        row = next(
            r for r in table["routes"] if r["path"] == "/tasks" and not r["tenant"]
        )
        assert row["query_fields"] == [
            "tenant",
            "contextId",
            "status",
            "pageSize",
            "pageToken",
            "historyLength",
            "statusTimestampAfter",
            "includeArtifacts",
        ]
        assert {
            "first": "GET /tasks/{id=*}",
            "second": "GET /{tenant}/tasks",
            "example": "/tasks/tasks",
            "winner": "GET /tasks/{id=*}",
            "acknowledged": True,
        } in table[
            "overlaps"
        ]  # the shipped review
    elif fmt == "markdown":
        assert "| GET | `/tasks/{id=*}` | GetTask |" in result.stdout
        assert (
            "`GET /tasks/{id=*}` and `GET /{tenant}/tasks`: e.g. `/tasks/tasks`"
            in result.stdout
        )
    else:
        assert "POST    /tasks/{id=*}:subscribe" in result.stdout
        assert "/tasks/tasks" in result.stdout


def test_routes_text_fits_100_columns_unless_asked_wider() -> None:
    narrow = CliRunner().invoke(main, ["routes"])
    assert narrow.exit_code == 0, narrow.output
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 100
    # The widest route still says everything: rpc, flags, path, query and body fields.
    assert "GET     /tasks  ListTasks\n" in narrow.stdout
    assert (
        "          query: tenant, contextId, status, pageSize, pageToken, historyLength,"
        in narrow.stdout
    )
    assert (
        "POST    /{tenant}/tasks/{id=*}:subscribe  SubscribeToTask  (server stream, tenant, alias)"
        in narrow.stdout
    )
    # Overlaps: the example path as an acknowledgement line, then the winner first.
    assert (
        "  GET /tasks/extendedAgentCard  # acknowledged\n      GetTask  GET /tasks/{id=*}\n"
        in narrow.stdout
    )
    wide = CliRunner().invoke(main, ["routes", "--width", "300"])
    assert max(len(line) for line in wide.stdout.splitlines()) > 200
    assert wide.stdout.splitlines()[1].split() == [
        "verb",
        "path",
        "rpc",
        "path",
        "fields",
        "query",
        "body",
        "stream",
        "tenant",
        "alias",
    ]
    assert CliRunner().invoke(main, ["routes", "--width", "10"]).exit_code == 2


def test_generate_warns_once_and_acknowledged_overlaps_are_quiet(
    tmp_path: Path, sdk_a2a: Path
) -> None:
    # An empty acknowledgement file: every overlap of the embedded default warns.
    (tmp_path / "none.overlaps").write_text("")
    none = str(tmp_path / "none.overlaps")
    loud = _cli(
        "generate", "-o", str(tmp_path / "a"), "--acknowledge", none, "--print-routes"
    )
    assert loud.returncode == 0, loud.stderr
    for example in (
        "/tasks/tasks ",
        "/tasks/extendedAgentCard ",
        "/tasks/tasks/pushNotificationConfigs ",
        "/tasks/tasks/pushNotificationConfigs/pushNotificationConfigs ",
    ):
        assert loud.stderr.count(f"GET {example}matches both") == 1, loud.stderr
    # The embedded default comes with the shipped reviewed overlaps; a2a-overlaps prints them.
    quiet = _cli("generate", "-o", str(tmp_path / "b"), "--print-routes")
    assert quiet.returncode == 0, quiet.stderr
    assert "warning" not in quiet.stderr
    assert "  GET /tasks/tasks  # acknowledged" in quiet.stdout
    assert _tree(tmp_path / "a") == _tree(
        tmp_path / "b"
    )  # acknowledging changes no output
    printed = _cli("a2a-overlaps")
    assert printed.returncode == 0 and printed.stdout == A2A_OVERLAPS.read_text()
    (tmp_path / "spec.overlaps").write_text(printed.stdout)
    spec = sdk_a2a
    own = _cli(
        "check",
        str(spec),
        "-o",
        str(tmp_path / "own"),
        "--acknowledge",
        str(tmp_path / "spec.overlaps"),
    )
    assert "warning" not in own.stderr and "matches both" not in own.stderr, own.stderr
    fresh = _cli("check", "-o", str(tmp_path / "b"), "--opt", "ambiguity=error")
    assert fresh.returncode == 0 and "warning" not in fresh.stderr, fresh.stderr
    strict = _cli(
        "check",
        "-o",
        str(tmp_path / "b"),
        "--acknowledge",
        none,
        "--opt",
        "ambiguity=error",
    )
    assert strict.returncode == 1 and strict.stderr.count("matches both") == 4


def test_python_dash_m_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "codegen", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and "0." in result.stdout
    # The console scripts run the installed name, protoc_gen_a2a (the editable install maps it here).
    alias = subprocess.run(
        [sys.executable, "-m", "protoc_gen_a2a", "routes", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert alias.returncode == 0, alias.stderr
    assert len(json.loads(alias.stdout)["routes"]) == 24


@pytest.mark.parametrize(
    "command", ["generate", "check", "diff", "routes", "a2a-overlaps"]
)
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = _cli(command, "--help")
    assert result.returncode == 0
    assert "Example" in result.stdout


def test_errors_are_one_line_with_the_right_exit_status(tmp_path: Path) -> None:
    usage = _cli("generate")  # -o is required
    assert usage.returncode == 2 and "Missing option" in usage.stderr
    unknown = _cli("generate", "-o", str(tmp_path), "--opt", "colour=blue")
    assert unknown.returncode == 2 and "unknown option 'colour'" in unknown.stderr
    both = _cli("routes", "x.proto", "--from-module", "a2a.types.a2a_pb2")
    assert both.returncode == 2
    keyword = _cli("generate", "-o", str(tmp_path), "--module", "class")
    assert (
        keyword.returncode == 2
        and "option module='class' is a Python keyword" in keyword.stderr
    )
    assert not (tmp_path / "class").exists()
    bad = tmp_path / "bad.proto"
    bad.write_text('syntax = "proto3";\nmessage M { strin x = 1; }\n')
    compiled = _cli("generate", str(bad), "-o", str(tmp_path / "out"))
    assert compiled.returncode == 1
    assert (
        "bad.proto:2:" in compiled.stderr
        and '"strin" is not defined' in compiled.stderr
    )
    assert "Traceback" not in compiled.stderr and not (tmp_path / "out").exists()
    broken = _cli(
        "generate",
        str(PROTO / "broken" / "get_with_body.proto"),
        "-o",
        str(tmp_path / "out"),
    )
    assert broken.returncode == 1
    assert (
        "get_with_body.proto:" in broken.stderr
        and "GET carries no body" in broken.stderr
    )
    assert not (tmp_path / "out").exists()
    missing = _cli("diff", str(tmp_path / "nope.pb"), "a2a.types.a2a_pb2")
    assert missing.returncode == 1 and "no such file" in missing.stderr
    not_a_set = tmp_path / "junk.pb"
    not_a_set.write_bytes(b"\xff\xfe junk")
    junk = _cli(
        "generate", "--descriptor-set", str(not_a_set), "-o", str(tmp_path / "out")
    )
    assert junk.returncode == 1 and "not a FileDescriptorSet" in junk.stderr
    assert all(
        len(r.stderr.strip().splitlines()) == 1 for r in (compiled, junk, missing)
    )


@pytest.mark.parametrize("config", ["buf-gen-yaml", "buf-gen-yaml-docs"])
def test_buf_generate_with_the_local_plugin_matches_protoc(
    tmp_path: Path, sdk_a2a: Path, config: str
) -> None:
    """The docs' buf.gen.yaml (the plugin found on PATH) and their commands that copy
    the google/api protos buf needs: buf writes what protoc writes with the same
    options."""
    buf = shutil.which("buf", path=str(Path(sys.executable).parent))
    if buf is None:
        pytest.skip(
            "buf is not installed next to the test interpreter (buf-bin, a dev dependency)"
        )
    proto = sdk_a2a
    work = tmp_path / "module"
    work.mkdir()
    shutil.copy(proto, work / "a2a.proto")
    # The docs' own commands fetch exactly the google/api protos they say are needed.
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "BUF_CACHE_DIR": str(tmp_path / "cache"),
    }
    copied = subprocess.run(
        ["bash", "-euc", block("buf-google-protos")],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert copied.returncode == 0, copied.stderr
    assert sorted(p.name for p in (work / "google" / "api").iterdir()) == [
        "annotations.proto",
        "client.proto",
        "field_behavior.proto",
        "http.proto",
        "launch_stage.proto",
    ]
    (work / "buf.yaml").write_text("version: v2\n")
    gen = block(config)
    (work / "buf.gen.yaml").write_text(gen)
    opt = re.search(r"opt: (\S+)", gen)
    assert opt is not None and "local: protoc-gen-a2a" in gen
    out = re.search(r"out: (\S+)", gen)
    assert out is not None
    result = subprocess.run(
        [buf, "generate"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert protoc(proto, tmp_path / "protoc", opt=opt.group(1)).returncode == 0
    assert _tree(work / out.group(1)) == _tree(tmp_path / "protoc")

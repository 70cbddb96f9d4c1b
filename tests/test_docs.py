"""The README and the documentation site as a user reads them.

Every code block says how it is checked (tests/docs.py): the Python ones pass
``mypy --strict`` against the generated package, and run where they are whole programs;
the shell ones run; the others are checked by the test that reads them, here or beside
the feature they show. The site builds with ``mkdocs build --strict``; the README stays
short; what the docs say mypy reports for an incomplete handler is what it reports; the
files they say each layer adds are the files the plugin writes; the README's agent
serves the three bindings and its client examples get the answers they print.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from google.protobuf import descriptor_pb2

from codegen.acknowledge import A2A_OVERLAPS, parse
from codegen.diff_acknowledge import parse as parse_changes
from codegen.inputs import request_from_module, request_from_protos
from codegen.plugin import generate

from .conftest import GENERATED, PROTO, ROOT, mypy_strict, spec_proto
from .docs import KINDS, Block, block, blocks, pages
from .sdk_protos import sdk_proto
from .servers import running

BIN = Path(sys.executable).parent


# ------------------------------------------------------------------ every block


def test_every_code_block_says_how_it_is_checked() -> None:
    found = blocks()
    assert len(found) > 30, "the docs lost their code blocks"
    unmarked = [b.where for b in found if b.kind is None]
    assert (
        unmarked == []
    ), f"code blocks without a <!-- check: ... --> marker: {unmarked}"
    names = [b.name for b in found if b.kind == "test"]
    assert len(names) == len(set(names)), "a test block name is used twice"
    sources = "".join(
        p.read_text(encoding="utf-8")
        for p in sorted(Path(__file__).parent.rglob("test_*.py"))
    )
    unread = [n for n in names if f'"{n}"' not in sources]
    assert unread == [], f"blocks no test reads: {unread}"
    for b in found:
        assert b.kind in KINDS, b.where
        if b.kind in ("mypy", "run"):
            assert b.language == "python", b.where
        if b.kind == "sh":
            assert b.language == "sh", b.where


def test_the_readme_is_short_and_links_into_the_site() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    linked = set(re.findall(r"\]\((docs/[^)#]+)", readme))
    assert linked and all((ROOT / link).is_file() for link in linked), linked


def test_no_page_speaks_of_how_it_was_made() -> None:
    # the words are split here so that this line does not say them itself
    said = ("ses" "sion", "work " "log", "note" "book")
    words = re.compile("|".join(said), re.IGNORECASE)
    for path in [*pages(), ROOT / "CHANGELOG.md"]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            assert not words.search(line), f"{path.name}:{number + 1}: {line}"


def test_the_site_builds_strict(tmp_path: Path) -> None:
    """What ``make docs`` runs: a broken link or anchor, or a page not in the nav,
    fails the build; the API reference renders from generated/a2a_binding/."""
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q"]
        + ["-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stdout + built.stderr
    reference = (tmp_path / "site" / "reference" / "routes" / "index.html").read_text()
    assert 'id="a2a_binding.routes.transcode"' in reference
    assert 'id="a2a_binding.routes.build"' in reference


# ------------------------------------------------------------------ Python blocks


def _python_blocks() -> list[Block]:
    return [b for b in blocks() if b.language == "python"]


def _mypy(files: dict[str, str], tmp_path: Path) -> dict[str, list[str]]:
    """One mypy --strict run over ``files`` (name: source); the error lines by file."""
    for name, source in files.items():
        (tmp_path / name).write_text(source)
    result = mypy_strict(
        list(files), cache=tmp_path / "cache", cwd=tmp_path, mypypath=GENERATED
    )
    errors: dict[str, list[str]] = {name: [] for name in files}
    for line in result.stdout.splitlines():
        name = line.partition(":")[0]
        if name in errors and ": note:" not in line:
            errors[name].append(line)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    return errors


def _handler_methods() -> list[str]:
    """The handler's method names, as the generated ``routes.RPCS`` lists them."""
    source = (GENERATED / "a2a_binding" / "routes.py").read_text()
    return re.findall(r'^            method="(\w+)",$', source, re.MULTILINE)


def test_python_blocks_pass_mypy_strict_and_mypy_names_what_the_docs_say(
    tmp_path: Path,
) -> None:
    python = _python_blocks()
    assert len(python) >= 10, "the docs lost their Python blocks"
    files = {f"block_{i}.py": b.text for i, b in enumerate(python)}
    # What docs/serving.md says of its handler: a subclass, final or not, is complete
    # with the rpcs it writes; a plain class with three or more missing is incompatible.
    server = next(b.text for b in python if "class Agent(A2AServiceHandler)" in b.text)
    files["final_agent.py"] = (
        "import typing\n"
        + server.replace(
            "class Agent(A2AServiceHandler):",
            "@typing.final\nclass Agent(A2AServiceHandler):",
        )
        + "\n\nAPP = serve(Agent())\n"
    )
    plain = server.replace("class Agent(A2AServiceHandler):", "class Agent:")
    files["plain_agent.py"] = plain + "\n\nAPP = serve(Agent())\n"
    errors = _mypy(files, tmp_path)
    for index, found in enumerate(python):
        assert errors[f"block_{index}.py"] == [], f"{found.where}:\n" + "\n".join(
            errors[f"block_{index}.py"]
        )
    assert len([m for m in _handler_methods() if m != "get_task"]) >= 3
    assert errors["final_agent.py"] == []
    (incompatible,) = errors["plain_agent.py"]
    assert (
        'Argument 1 to "serve" has incompatible type "Agent"; expected "A2AServiceHandler"'
        in incompatible
    )


def _python(
    source: str, cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    (cwd / "block.py").write_text(source)
    return subprocess.run(
        [sys.executable, "block.py"],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(GENERATED)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    "found", blocks("run"), ids=lambda b: b.where.replace("/", "_")
)
def test_run_blocks_run(found: Block, tmp_path: Path) -> None:
    done = _python(found.text, tmp_path)
    assert done.returncode == 0, f"{found.where}\n{done.stdout}{done.stderr}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_for(url: str, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert process.poll() is None, process.communicate()
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            assert time.monotonic() < deadline, f"nothing answered at {url}"
            time.sleep(0.1)


@pytest.fixture(scope="module")
def readme_agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The README's agent, run as written but on free ports; what replaces its
    addresses in the README's client examples."""
    ports = {
        "localhost:8000": f"127.0.0.1:{_free_port()}",
        "localhost:50051": f"localhost:{_free_port()}",
        "port=8000": "port=" + str(_free_port()),
    }
    ports["port=8000"] = "port=" + ports["localhost:8000"].rpartition(":")[2]
    source = block("serve-agent")
    for old, new in ports.items():
        assert old in source, old
        source = source.replace(old, new)
    folder = tmp_path_factory.mktemp("agent")
    (folder / "agent.py").write_text(source)
    process = subprocess.Popen(
        [sys.executable, "agent.py"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(GENERATED)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = "http://" + ports["localhost:8000"]
        _wait_for(base + "/.well-known/agent-card.json", process)
        yield ports
    finally:
        process.terminate()
        process.communicate(timeout=30)


def _with_ports(source: str, ports: dict[str, str]) -> str:
    for old, new in ports.items():
        source = source.replace(old, new)
    return source


def test_the_readme_agent_answers_our_client_helpers(
    readme_agent: dict[str, str], tmp_path: Path
) -> None:
    done = _python(_with_ports(block("call-helpers"), readme_agent), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "acme said 'hi'",
        "TaskNotFoundError",
    ]


def test_the_readme_agent_answers_a2a_sdks_clients_on_three_bindings(
    readme_agent: dict[str, str], tmp_path: Path
) -> None:
    done = _python(_with_ports(block("call-sdk"), readme_agent), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "JSONRPC you said 'hi'",
        "HTTP+JSON you said 'hi'",
        "GRPC you said 'hi'",
    ]


@pytest.fixture(scope="module")
def example_base(example: Any) -> Iterator[str]:
    """The example agent on loopback (tasks complete at once): its base URL."""
    with running(example.create_app(hold=False)) as base:
        yield base


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("client-httpx", r"\d+ tasks"),
        ("client-stream", r"\['task'\]"),
        ("client-urllib", r"TaskNotFoundError \{"),
        ("client-auth", r"log in first: Bearer"),
    ],
)
def test_the_calling_examples_against_the_example_agent(
    example_base: str, tmp_path: Path, name: str, printed: str
) -> None:
    source = block(name).replace("http://localhost:8000", example_base)
    done = _python(source, tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(printed, done.stdout), done.stdout


# ------------------------------------------------------------------ shell blocks


def sh_workspace(folder: Path) -> dict[str, str]:
    """A folder holding what the shell blocks name: ``spec/a2a.proto`` (and its 0.3
    sibling, ``spec/a2a_v0_3.proto``) as a2a-sdk ships them, a released copy in
    ``spec/released/``, the reviewed overlaps and changes, and ``a2a.pb``, its
    descriptor set; the environment to run them in (the tool on PATH)."""
    spec = folder / "spec"
    proto = sdk_proto(spec, "1.0")
    sdk_proto(spec, "0.3")
    sdk_proto(spec / "released", "1.0")
    (spec / "a2a.overlaps").write_text(A2A_OVERLAPS.read_text())
    (spec / "a2a.changes").write_text("# reviewed breaking changes, one a line\n")
    request = request_from_protos([str(proto)], [str(spec)])
    (folder / "a2a.pb").write_bytes(
        descriptor_pb2.FileDescriptorSet(file=request.proto_file).SerializeToString()
    )
    return {
        "PATH": f"{BIN}:/usr/bin:/bin",
        "HOME": str(folder),
        "VIRTUAL_ENV": str(BIN.parent),
    }


def _bash(
    script: str, cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("found", blocks("sh"), ids=lambda b: b.where.replace("/", "_"))
def test_sh_blocks_run(found: Block, tmp_path: Path) -> None:
    env = sh_workspace(tmp_path)
    done = _bash(found.text, tmp_path, env)
    assert done.returncode == 0, f"{found.where}\n{done.stdout}\n{done.stderr}"


def test_the_ci_steps_pass_on_a_fresh_package(tmp_path: Path) -> None:
    env = sh_workspace(tmp_path)
    steps = [
        line.removeprefix("- run: ")
        for line in block("ci-steps").splitlines()
        if line.strip()
    ]
    assert len(steps) == 3 and all(s.startswith("a2a-codegen ") for s in steps)
    first = shlex.split(steps[0])
    made = _bash(shlex.join(["a2a-codegen", "generate", *first[2:]]), tmp_path, env)
    assert made.returncode == 0, made.stderr
    for step in steps:
        done = _bash(step, tmp_path, env)
        assert done.returncode == 0, f"{step}\n{done.stdout}\n{done.stderr}"
    # and the first step fails once the package is edited by hand
    routes = tmp_path / "src" / "vendor" / "a2a_binding" / "routes.py"
    routes.write_text(routes.read_text() + "# edited\n")
    stale = _bash(steps[0], tmp_path, env)
    assert stale.returncode == 1 and "routes.py" in stale.stderr


def test_the_make_targets_named_exist() -> None:
    lines = [line.split("#")[0].split() for line in block("make-targets").splitlines()]
    assert [words[0] for words in lines] == ["make", "make"]
    for words in lines:
        dry = subprocess.run(
            ["make", "-n", *words[1:]],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert dry.returncode == 0, dry.stderr


# ------------------------------------------------------------------ text blocks


def _layers(text: str) -> dict[str, set[str]]:
    listed: dict[str, set[str]] = {}
    layer = ""
    for line in text.splitlines():
        if not line.startswith(" "):
            layer = line.split()[0] + (" " + line.split()[1] if line[0] == "(" else "")
        names = re.findall(r"[\w.]+\.(?:py|typed|json)\b", line)
        assert not (set(names) & listed.get(layer, set())), line
        listed.setdefault(layer, set()).update(names)
    return listed


def _written(request: Any) -> set[str]:
    response = generate(request)
    assert response.error == "", response.error
    assert len({f.name.partition("/")[0] for f in response.file}) == 1
    return {f.name.partition("/")[2] for f in response.file}


def test_the_files_each_layer_adds_are_what_the_plugin_writes() -> None:
    """Each layer's row lists what its option adds to the package, exactly: for A2A,
    and for a service without the A2A profile."""

    def a2a(parameter: str) -> set[str]:
        return _written(request_from_module(parameter=parameter))

    tables, served = a2a(""), a2a("serve=true")
    assert _layers(block("layers")) == {
        "(no option)": tables,
        "serve=true": served - tables,
        "client=true": a2a("client=true") - tables,
        "grpc=true": a2a("grpc=true") - served,
        "translate=true": a2a("translate=true") - a2a("serve=true,client=true"),
        "openapi=true": a2a("openapi=true") - tables,
    }
    library = PROTO / "features" / "library.proto"

    def other(parameter: str) -> set[str]:
        return _written(
            request_from_protos([str(library)], [str(library.parent)], parameter)
        )

    tables, served = other(""), other("serve=true")
    assert _layers(block("layers-any-service")) == {
        "(no option)": tables,
        "serve=true": served - tables,
        "grpc=true": other("grpc=true") - served,
        "openapi=true": other("openapi=true") - tables,
    }
    refused = generate(
        request_from_protos([str(library)], [str(library.parent)], "client=true")
    )
    assert "client" in refused.error
    refused = generate(
        request_from_protos([str(library)], [str(library.parent)], "translate=true")
    )
    assert "translate=true" in refused.error


def test_the_overlaps_file_example_parses() -> None:
    entries = parse(block("overlaps-file"), "a2a.overlaps")
    assert len(entries) == 2


def test_the_changes_file_example_acknowledges_what_it_names(tmp_path: Path) -> None:
    """Its first line acknowledges the change of proto/changes/field_added_required,
    its second every change of the renamed rpc of proto/changes/rpc_renamed."""
    changes = tmp_path / "a2a.changes"
    changes.write_text(block("changes-file"))
    assert len(parse_changes(changes.read_text(), str(changes))) == 2
    for pair in ("field_added_required", "rpc_renamed"):
        folder = PROTO / "changes" / pair
        done = subprocess.run(
            [str(BIN / "a2a-codegen"), "diff", "old.proto", "new.proto"]
            + ["--acknowledge-changes", str(changes)],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "acknowledged" in done.stdout


def test_the_diff_report_is_what_diff_prints(tmp_path: Path) -> None:
    """Each line of the sample is a line of the report on the upstream versions."""
    old, new = spec_proto("v1.0.0-rc"), spec_proto("v1.0.0")
    for tag in ("v1.0.0-rc", "v1.0.0"):
        (tmp_path / tag).mkdir()
        (tmp_path / tag / "a2a.proto").write_bytes(
            (old if tag == "v1.0.0-rc" else new).read_bytes()
        )
    done = subprocess.run(
        [str(BIN / "a2a-codegen"), "diff", "v1.0.0-rc/a2a.proto", "v1.0.0/a2a.proto"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    printed = done.stdout.splitlines()
    for line in block("diff-report").splitlines():
        assert line in printed, line


# ------------------------------------------------------------------ servers


def _curl_commands() -> list[list[str]]:
    return [
        shlex.split(command)
        for command in block("curl").replace("\\\n", " ").splitlines()
        if command.strip()
    ]


def _is_content_type(command: list[str], index: int) -> bool:
    """``-H 'Content-Type: ...'``: the flag or its value."""
    here = command[index]
    if here == "-H" and index + 1 < len(command):
        return command[index + 1].lower().startswith("content-type:")
    return here.lower().startswith("content-type:") and command[index - 1] == "-H"


def test_the_curl_lines_get_what_the_docs_say(example_base: str) -> None:
    commands = _curl_commands()
    assert [c[0] for c in commands] == ["curl"] * 4

    def curl(command: list[str]) -> Any:
        args = [a.replace("localhost:8000", example_base) for a in command]
        done = subprocess.run(
            args + ["-w", "\n%{http_code}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        body, _, status = done.stdout.rpartition("\n")
        return int(status), json.loads(body)

    card, sent, listed, jsonrpc = [curl(command) for command in commands]
    assert card[0] == 200 and card[1]["supportedInterfaces"]
    assert sent[0] == 200
    assert sent[1]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert listed[0] == 200 and sent[1]["task"]["id"] in [
        t["id"] for t in listed[1]["tasks"]
    ]
    assert jsonrpc[0] == 200 and jsonrpc[1]["result"]["tasks"]
    # What the docs say of a first `curl -d` without the Content-Type header.
    for command in (commands[1], commands[3]):
        bare = [a for i, a in enumerate(command) if not _is_content_type(command, i)]
        status, refused = curl(bare)
        if "/jsonrpc" in " ".join(command):
            assert status == 200 and refused["error"]["code"] == -32005, refused
            reason = refused["error"]["data"][0]["reason"]
        else:
            assert status == 400, refused
            assert refused["error"]["status"] == "INVALID_ARGUMENT", refused
            reason = refused["error"]["details"][0]["reason"]
        assert reason == "CONTENT_TYPE_NOT_SUPPORTED"


def test_the_server_settings_start_a_server(tmp_path: Path) -> None:
    """Both commands of robustness.md serve the example with the settings they give."""
    commands = block("server-settings").replace("\\\n", " ").splitlines()
    assert [c.split()[1] for c in commands] == ["uvicorn", "hypercorn"]
    for command in commands:
        port = _free_port()
        words = shlex.split(command.split("#")[0])
        env_assignment, program, *args = words
        if program == "uvicorn":
            args += ["--port", str(port)]
        else:
            args = [f"127.0.0.1:{port}" if a == "127.0.0.1:8000" else a for a in args]
        process = subprocess.Popen(
            [str(BIN / program), *args],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT / env_assignment.split("=")[1])},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            _wait_for(f"http://127.0.0.1:{port}/.well-known/agent-card.json", process)
        finally:
            process.terminate()
            process.communicate(timeout=30)

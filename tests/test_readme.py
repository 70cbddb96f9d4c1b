"""The README as a user reads it: its complete Python snippets pass ``mypy --strict``
against the generated package, what it says mypy reports for an incomplete handler is
what mypy reports, the files it says protoc writes are the files the plugin writes, and
its curl lines get the answers it describes from the example server."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any


from codegen.inputs import request_from_module
from codegen.plugin import generate

from .conftest import GENERATED, ROOT, mypy_strict
from .servers import running

README = (ROOT / "README.md").read_text(encoding="utf-8")
MARK = "<!-- checked: mypy --strict -->\n```python\n"


def _checked_snippets() -> list[str]:
    """Every Python block marked as complete (the line before it is ``MARK``'s)."""
    found = []
    start = README.find(MARK)
    while start != -1:
        body = start + len(MARK)
        found.append(README[body : README.index("```", body)])
        start = README.find(MARK, body)
    return found


def _section(heading: str) -> str:
    start = README.index(heading)
    return README[start : README.index("\n## ", start + 1)]


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


def test_marked_snippets_pass_mypy_strict_and_mypy_names_what_the_readme_says(
    tmp_path: Path,
) -> None:
    snippets = _checked_snippets()
    # The server, the per-tenant card and the gRPC server, at least.
    assert len(snippets) >= 3, "README lost its snippets marked as complete"
    server = next(s for s in snippets if "class Agent(A2AServiceHandler)" in s)
    files = {f"snippet_{i}.py": source for i, source in enumerate(snippets)}
    # What the server snippet's comment promises: with @final, every missing rpc named.
    files["final_agent.py"] = "import typing\n" + server.replace(
        "class Agent(A2AServiceHandler):",
        "@typing.final\nclass Agent(A2AServiceHandler):",
    )
    # And what the README says of a plain class passed to create_app with three or
    # more rpcs missing: incompatible, nothing named.
    plain = server.replace("class Agent(A2AServiceHandler):", "class Agent:")
    files["plain_agent.py"] = plain + "\n\nAPP = serve(Agent())\n"
    errors = _mypy(files, tmp_path)
    for index in range(len(snippets)):
        assert errors[f"snippet_{index}.py"] == [], (
            f"README snippet {index}:\n"
            + "\n".join(errors[f"snippet_{index}.py"])
            + "\n"
            + snippets[index]
        )
    methods = sorted(_handler_methods())
    lacking = [m for m in methods if m != "get_task"]
    assert len(lacking) >= 3
    (final,) = errors["final_agent.py"]
    named = re.search(
        r"Final class final_agent\.Agent has abstract attributes (.*?)  \[misc\]", final
    )
    assert named is not None, final
    assert named.group(1).split(", ") == [f'"{m}"' for m in lacking], final
    (incompatible,) = errors["plain_agent.py"]
    assert (
        'Argument 1 to "serve" has incompatible type "Agent"; expected "A2AServiceHandler"'
        in incompatible
    )


def _handler_methods() -> list[str]:
    """The handler's method names, as the generated ``routes.RPCS`` lists them."""
    source = (GENERATED / "a2a_binding" / "routes.py").read_text()
    return re.findall(r'^            method="(\w+)",$', source, re.MULTILINE)


def test_the_files_the_readme_says_protoc_writes_are_what_the_plugin_writes() -> None:
    """Each layer's row lists what its option adds to the package, exactly."""
    section = _section("### With protoc")
    block = section.split("```text\n", 1)[1].split("```", 1)[0]
    listed: dict[str, set[str]] = {}
    layer = ""
    for line in block.splitlines():
        if not line.startswith(" "):
            layer = line.split()[0] + (" " + line.split()[1] if line[0] == "(" else "")
        names = re.findall(r"[\w.]+\.(?:py|typed|json)\b", line)
        assert not (set(names) & listed.get(layer, set())), line
        listed.setdefault(layer, set()).update(names)

    def written(parameter: str) -> set[str]:
        response = generate(request_from_module(parameter=parameter))
        assert response.error == ""
        assert {f.name.partition("/")[0] for f in response.file} == {"a2a_binding"}
        return {f.name.partition("/")[2] for f in response.file}

    tables, served = written(""), written("serve=true")
    assert listed == {
        "(no option)": tables,
        "serve=true": served - tables,
        "client=true": written("client=true") - tables,
        "grpc=true": written("grpc=true") - served,
        "openapi=true": written("openapi=true") - tables,
    }


def _curl_commands() -> list[list[str]]:
    section = _section("## Serving and calling")
    block = (
        section.split("### Trying it with curl", 1)[1]
        .split("```sh\n", 1)[1]
        .split("```", 1)[0]
    )
    return [
        shlex.split(command)
        for command in block.replace("\\\n", " ").splitlines()
        if command.strip()
    ]


def test_the_curl_lines_get_what_the_readme_says(example: Any) -> None:
    commands = _curl_commands()
    assert [c[0] for c in commands] == ["curl"] * 4
    with running(example.create_app(hold=False)) as base:

        def curl(command: list[str]) -> Any:
            args = [a.replace("localhost:8000", base) for a in command]
            done = subprocess.run(
                args + ["-w", "\n%{http_code}"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr
            body, _, status = done.stdout.rpartition("\n")
            return int(status), json.loads(body)

        answers = [curl(command) for command in commands]
        card, sent, listed, jsonrpc = answers
        assert card[0] == 200 and card[1]["supportedInterfaces"]
        assert (
            sent[0] == 200
            and sent[1]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
        )
        assert listed[0] == 200 and [t["id"] for t in listed[1]["tasks"]] == [
            sent[1]["task"]["id"]
        ]
        assert (
            jsonrpc[0] == 200
            and jsonrpc[1]["result"]["tasks"][0]["id"] == sent[1]["task"]["id"]
        )
        # What the README says of a first `curl -d` without the Content-Type header.
        for command, field in ((commands[1], "error"), (commands[3], "error")):
            bare = [
                a for i, a in enumerate(command) if not _is_content_type(command, i)
            ]
            status, refused = curl(bare)
            if "/jsonrpc" in " ".join(command):
                assert status == 200 and refused[field]["code"] == -32005, refused
                reason = refused[field]["data"][0]["reason"]
            else:
                assert (
                    status == 400 and refused[field]["status"] == "INVALID_ARGUMENT"
                ), refused
                reason = refused[field]["details"][0]["reason"]
            assert reason == "CONTENT_TYPE_NOT_SUPPORTED"


def _is_content_type(command: list[str], index: int) -> bool:
    """``-H 'Content-Type: ...'``: the flag or its value."""
    here = command[index]
    if here == "-H" and index + 1 < len(command):
        return command[index + 1].lower().startswith("content-type:")
    return here.lower().startswith("content-type:") and command[index - 1] == "-H"

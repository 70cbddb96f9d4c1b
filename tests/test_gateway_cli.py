"""``a2a-codegen gateway`` (issue 26, item 3): the command run as a user runs it, in a
process of its own, in front of a2a-sdk 1.3.0's gRPC agent (tests/test_gateway.py),
reached by a2a-sdk's clients through the card it serves; in front of any other gRPC
service with http rules (``proto/features/library.proto`` served by the test's own
``grpc.aio`` server, tests/test_any_service.py), with no card; its refusals; and its
temporary folder, gone after every run (stopped by SIGTERM or Ctrl-C, or failed)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.types import a2a_pb2 as pb
from a2a.utils import errors
from google.protobuf import json_format

from codegen.gateway import (
    GatewayError,
    card_rewriter,
    load_package,
    package_folder,
    served_package,
)
from codegen.plugin import generate

from .conftest import compile_request
from .docs import block
from .servers import GrpcServer
from .test_any_service import LIBRARY, library_service
from .test_any_service import generated  # noqa: F401  (the fixture: library_pb2)
from .test_gateway import SdkAgent
from .test_interop import _message

CLI = [sys.executable, "-c", "from codegen.cli import main; main()"]
CARD = {
    "name": "behind-the-cli-gateway",
    "version": "1",
    "capabilities": {"streaming": True},
    "supportedInterfaces": [
        {
            "url": "grpc://agent.internal:50051",
            "protocolBinding": "GRPC",
            "protocolVersion": "1.0",
        },
        {
            "url": "https://old.example/rpc",
            "protocolBinding": "JSONRPC",
            "protocolVersion": "1.0",
            "tenant": "t",
        },
    ],
}


@pytest.fixture(scope="module")
def agent() -> Iterator[SdkAgent]:
    with SdkAgent() as served:
        yield served


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _temporary(cwd: Path) -> tuple[Path, dict[str, str]]:
    """A TMPDIR of the run's own, and the environment that gives it to the command."""
    tmp = cwd / "tmp"
    tmp.mkdir(exist_ok=True)
    return tmp, {**os.environ, "TMPDIR": str(tmp)}


def _package_folders(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("a2a-gateway-*"))


def _gateway_run(args: list[str], cwd: Path) -> tuple[Any, Path]:
    """``a2a-codegen gateway ARGS`` to its end (a refusal, a failure); the finished
    process and its TMPDIR."""
    tmp, env = _temporary(cwd)
    done = subprocess.run(
        [*CLI, "gateway", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done, tmp


@contextmanager
def gateway_process(
    *args: str,
    cwd: Path,
    probe: str = "/.well-known/agent-card.json",
    stop: signal.Signals = signal.SIGTERM,
) -> Iterator[str]:
    """``a2a-codegen gateway ARGS --port P`` until ``probe`` answers; its base URL.
    Stopped by ``stop``; then its temporary package folder, there while it served,
    must be gone, and the process ended by the exit that removes it."""
    port = _free_port()
    tmp, env = _temporary(cwd)
    process = subprocess.Popen(
        [*CLI, "gateway", *args, "--port", str(port)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.communicate()[1]
            try:
                httpx.get(f"{base}{probe}", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the gateway did not start"
                time.sleep(0.1)
        (serving,) = _package_folders(tmp)
        assert any(serving.glob("*/grpc_binding.py"))  # the package it serves
        yield base
    finally:
        process.send_signal(stop)
        try:
            _, stderr = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # never left running after the test
            process.kill()
            process.communicate()
            raise
    # SIGTERM ends it as SystemExit(143); Ctrl-C is a stop to uvicorn.run (status 0).
    assert process.returncode == (143 if stop == signal.SIGTERM else 0), stderr
    assert not serving.exists() and _package_folders(tmp) == [], stderr


def _through(base: str) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The served card, and per binding what a2a-sdk's client dialled from it got."""
    card_json = httpx.get(f"{base}/.well-known/agent-card.json", timeout=10).json()
    card = json_format.ParseDict(card_json, pb.AgentCard(), ignore_unknown_fields=True)

    async def scenario(binding: str) -> list[str]:
        async with httpx.AsyncClient(timeout=20) as http:
            client = ClientFactory(
                ClientConfig(
                    streaming=True,
                    supported_protocol_bindings=[binding],
                    httpx_client=http,
                )
            ).create(card)
            try:
                kinds = [
                    e.WhichOneof("payload")
                    async for e in client.send_message(
                        pb.SendMessageRequest(message=_message("through the cli"))
                    )
                ]
                with pytest.raises(errors.TaskNotFoundError):
                    await client.get_task(pb.GetTaskRequest(id="no-such-task"))
                return kinds
            finally:
                await client.close()

    return card_json, {
        b: asyncio.run(asyncio.wait_for(scenario(b), 60))
        for b in ("JSONRPC", "HTTP+JSON")
    }


def test_the_gateway_command_over_the_embedded_default(
    agent: SdkAgent, tmp_path: Path
) -> None:
    (tmp_path / "card.json").write_text(json.dumps(CARD))
    with gateway_process(
        "--target",
        agent.target,
        "--card",
        "card.json",
        "--http-json-prefix",
        "/rest",
        "--jsonrpc-path",
        "/rpc",
        cwd=tmp_path,
    ) as base:
        card, kinds = _through(base)
    assert card["supportedInterfaces"] == [
        CARD["supportedInterfaces"][0],  # the agent's own gRPC interface, as written
        {
            **CARD["supportedInterfaces"][1],
            "url": f"{base}/rpc",
        },  # rewritten, its tenant kept
        {
            "url": f"{base}/rest",
            "protocolBinding": "HTTP+JSON",
            "protocolVersion": "1.0",
        },  # added
    ]
    assert kinds["JSONRPC"][0] == kinds["HTTP+JSON"][0] == "task"


def _docs_args(line: str, target: str, files: dict[str, str]) -> list[str]:
    """A gateway command of the docs as arguments: ``--target`` set to ``target``,
    ``--port`` left out (``gateway_process`` picks a free one), the file names in
    ``files`` replaced."""
    words = shlex.split(line)
    assert words[:2] == ["a2a-codegen", "gateway"], line
    args: list[str] = []
    rest = iter(words[2:])
    for word in rest:
        if word in ("--port", "--target"):
            next(rest)  # its value
            args += ["--target", target] if word == "--target" else []
            continue
        args.append(files.get(word, word))
    return args


def _docs_commands() -> list[str]:
    """The gateway commands of docs/gateway.md, one a line."""
    return block("gateway-commands").replace("\\\n", " ").splitlines()


def test_the_readme_gateway_command(agent: SdkAgent, tmp_path: Path) -> None:
    """As the README runs it: the embedded A2A input, a card, JSON-RPC at the root;
    a2a-sdk's clients reach the agent through the card it serves."""
    readme = block("gateway-command").strip()
    assert (
        _docs_commands()[0]
        .replace("agent.internal", "localhost")
        .replace("8000", "8080")
        == readme
    )  # the docs begin with the same command
    (tmp_path / "card.json").write_text(json.dumps(CARD))
    with gateway_process(*_docs_args(readme, agent.target, {}), cwd=tmp_path) as base:
        card, kinds = _through(base)
    assert [i["url"] for i in card["supportedInterfaces"]] == [
        "grpc://agent.internal:50051",
        f"{base}/",
        base,
    ]
    assert kinds["JSONRPC"][0] == kinds["HTTP+JSON"][0] == "task"


def test_the_gateway_command_over_a_proto_file(
    agent: SdkAgent, tmp_path: Path, sdk_a2a: Path
) -> None:
    """The docs' command with a proto input (the A2A proto, as a2a-sdk ships it): the
    package and protoc's ``a2a_pb2`` generated beside it; the card's URLs at the public
    URL."""
    line = _docs_commands()[1]
    args = _docs_args(
        line, agent.target, {"a2a.proto": str(sdk_a2a), "spec": str(sdk_a2a.parent)}
    )
    public = args[args.index("--public-url") + 1]
    prefix = args[args.index("--http-json-prefix") + 1]
    rpc = args[args.index("--jsonrpc-path") + 1]
    (tmp_path / "card.json").write_text(json.dumps(CARD))
    with gateway_process(*args, cwd=tmp_path) as base:
        card = httpx.get(f"{base}/.well-known/agent-card.json", timeout=10).json()
        answer = httpx.post(
            f"{base}{prefix}/message:send",
            timeout=20,
            headers={"A2A-Version": "1.0"},
            json={
                "message": {
                    "messageId": "p1",
                    "role": "ROLE_USER",
                    "parts": [{"text": "hi"}],
                }
            },
        )
    assert [i["url"] for i in card["supportedInterfaces"]] == [
        "grpc://agent.internal:50051",
        public + rpc,
        public + prefix,
    ]
    assert (
        answer.status_code == 200
        and answer.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    )


@pytest.mark.parametrize(
    ("card", "expected"),
    [
        (None, "cannot read the agent card card.json"),
        ("{", "the agent card card.json is not JSON"),
        ("[]", "the agent card card.json is not a JSON object"),
        ('{"supportedInterfaces": {}}', "supportedInterfaces is not a list of objects"),
    ],
)
def test_the_gateway_command_refuses_a_bad_card_naming_it(
    tmp_path: Path, card: str | None, expected: str
) -> None:
    if card is not None:
        (tmp_path / "card.json").write_text(card)
    done, tmp = _gateway_run(
        ["--target", "127.0.0.1:1", "--card", "card.json"], tmp_path
    )
    assert done.returncode == 1 and expected in done.stderr, done.stderr
    assert "gateway on" not in done.stderr  # nothing was served
    assert _package_folders(tmp) == []


def test_the_card_rewriter_keeps_what_is_not_served() -> None:
    rewrite = card_rewriter({"name": "n"}, [("HTTP+JSON", "/v1")], "1.0")
    assert rewrite("http://h:1") == {
        "name": "n",
        "supportedInterfaces": [
            {
                "url": "http://h:1/v1",
                "protocolBinding": "HTTP+JSON",
                "protocolVersion": "1.0",
            }
        ],
    }
    twice = card_rewriter(
        {
            "supportedInterfaces": [
                {"protocolBinding": "HTTP+JSON", "url": "a"},
                {"protocolBinding": "HTTP+JSON", "url": "b", "tenant": "x"},
            ]
        },
        [("HTTP+JSON", "")],
        "1.0",
        public_url="https://p/",
    )
    assert [i["url"] for i in twice("http://ignored")["supportedInterfaces"]] == [
        "https://p",
        "https://p",
    ]


# ------------------------------------------------------- any gRPC service


@pytest.fixture(scope="module")
def library(generated: Path) -> Iterator[str]:
    """The test's own ``grpc.aio`` server of LibraryService and AdminService; its
    target."""
    register, _, _ = library_service()
    with GrpcServer(register) as served:
        yield served.target


def _library_args(target: str, *more: str) -> list[str]:
    return [str(LIBRARY), "-I", str(LIBRARY.parent), "--target", target, *more]


def test_the_gateway_command_in_front_of_any_grpc_service(
    library: str, tmp_path: Path
) -> None:
    """No card, JSON-RPC off by default; the service's own routes and statuses.
    Stopped with Ctrl-C (SIGINT)."""
    line = _docs_commands()[2]  # the docs' command for any service
    files = {"library.proto": str(LIBRARY), "proto": str(LIBRARY.parent)}
    with (
        gateway_process(
            *_docs_args(line, library, files),
            cwd=tmp_path,
            probe="/admin/ping",
            stop=signal.SIGINT,
        ) as base,
        httpx.Client(base_url=base, timeout=20) as http,
    ):
        book = http.get("/v1/shelves/1/books/1")
        assert (book.status_code, book.headers["content-type"]) == (
            200,
            "application/json",
        )
        assert book.json()["title"] == "Dune"
        assert http.get("/v1/books/2").json()["title"] == "Odes"  # additional binding
        created = http.post(
            "/v1/shelves/2/books", params={"requestId": "9"}, json={"title": "New"}
        )
        assert created.json() == {"name": "shelves/2/books/9", "title": "New"}
        again = http.post(
            "/v1/shelves/2/books", params={"requestId": "9"}, json={"title": "New"}
        )
        assert again.status_code == 409
        assert again.json()["error"]["status"] == "ALREADY_EXISTS"
        assert again.json()["error"]["details"][0]["reason"] == "BOOK_EXISTS"
        lines = http.get(
            "/v1/shelves/1/books:stream", headers={"Accept": "application/x-ndjson"}
        ).content.splitlines()
        assert [json.loads(line)["result"]["title"] for line in lines] == [
            "Dune",
            "Odes",
        ]
        # No card, and no JSON-RPC endpoint: "/" is Ping's GET binding, nothing else.
        card = http.get("/.well-known/agent-card.json")
        assert (card.status_code, card.json()["error"]["status"]) == (404, "NOT_FOUND")
        rpc = {"jsonrpc": "2.0", "id": 1, "method": "Ping", "params": {}}
        assert http.post("/", json=rpc).status_code == 405
        assert http.get("/").json() == {}


def test_the_gateway_command_serves_json_rpc_for_any_service_when_asked(
    library: str, tmp_path: Path
) -> None:
    with (
        gateway_process(
            *_library_args(
                library, "--jsonrpc-path", "/rpc", "--http-json-prefix", "/api"
            ),
            cwd=tmp_path,
            probe="/api/admin/ping",
        ) as base,
        httpx.Client(base_url=base, timeout=20) as http,
    ):

        def get_book(name: str) -> Any:
            envelope = {"jsonrpc": "2.0", "id": 3, "method": "GetBook"}
            return http.post("/rpc", json={**envelope, "params": {"name": name}}).json()

        got = get_book("shelves/1/books/1")
        assert (got["id"], got["result"]["title"]) == (3, "Dune")
        missing = get_book("shelves/1/books/404")["error"]
        assert (missing["code"], missing["data"]["status"]) == (-32000, "NOT_FOUND")
        assert http.get("/api/v1/books/1").json()["title"] == "Dune"
        assert http.get("/v1/books/1").status_code == 404  # only under the prefix


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ("--card", "card.json"),
            "--card is for an A2A service's agent card; library_binding has no A2A "
            "profile, so no card is served: drop --card",
        ),
        (("--public-url", "https://x.example"), "drop --public-url"),
    ],
)
def test_a_card_for_a_service_without_the_a2a_profile_is_refused(
    tmp_path: Path, args: tuple[str, ...], expected: str
) -> None:
    (tmp_path / "card.json").write_text(json.dumps(CARD))
    done, tmp = _gateway_run(_library_args("127.0.0.1:1", *args), tmp_path)
    assert done.returncode == 1 and expected in done.stderr, done.stderr
    assert "gateway on" not in done.stderr and _package_folders(tmp) == []


def test_an_a2a_service_without_a_card_is_refused(tmp_path: Path) -> None:
    done, tmp = _gateway_run(["--target", "127.0.0.1:1"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert (
        "a2a-codegen: a2a_binding is an A2A service: give its agent card with "
        "--card FILE (ProtoJSON), which the gateway serves"
    ) in done.stderr
    assert "gateway on" not in done.stderr and _package_folders(tmp) == []


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Connection", "it is a hop-by-hop header"),
        ("Host", "which HTTP/2 carries as :authority"),
        ("grpc-status", "it is reserved by gRPC"),
        ("grpc-timeout", "it is read for the call's deadline"),
        (":path", "it is an HTTP/2 pseudo-header"),
    ],
)
def test_a_header_never_forwarded_is_refused_in_one_line(
    tmp_path: Path, header: str, expected: str
) -> None:
    (tmp_path / "card.json").write_text(json.dumps(CARD))
    args = ["--target", "127.0.0.1:1", "--card", "card.json"]
    done, tmp = _gateway_run(
        [*args, "--forward-header", "authorization", "--forward-header", header],
        tmp_path,
    )
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.splitlines()  # one line, no traceback
    assert line.startswith(
        f"a2a-codegen: --forward-header: the header {header!r} cannot be forwarded: "
    )
    assert expected in line
    assert _package_folders(tmp) == []  # refused before anything was written


# ------------------------------------------------------- the temporary folder


def test_a_run_failing_after_the_folder_was_made_removes_it(tmp_path: Path) -> None:
    """The port is taken: uvicorn gives up after the package was written."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        done, tmp = _gateway_run(_library_args("127.0.0.1:1", "--port", port), tmp_path)
    # uvicorn's startup failure: status 3, after it said why.
    assert done.returncode == 3 and "address already in use" in done.stderr, done.stderr
    made = re.search(r"package in (\S+), removed on exit", done.stderr)
    assert made is not None, done.stderr  # it got as far as serving
    assert Path(made[1]).parent == tmp
    assert not Path(made[1]).exists() and _package_folders(tmp) == []


def test_the_package_folder_goes_with_the_block_however_it_ends(
    generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``package_folder`` and ``load_package`` in process: removed and off
    ``sys.path`` after an error; SIGTERM inside the block is ``SystemExit(143)``, and
    the handler before it is back afterwards. ``library_pb2`` is importable already
    (``generated``): no protoc run, which refused one without input files."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    request = compile_request(LIBRARY, "grpc=true")
    files = {file.name: file.content for file in generate(request).file}
    assert served_package(files) == ("library_binding", False)
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(RuntimeError, match="after loading"):
        with package_folder() as folder:
            package = load_package(request, files, from_module=False, folder=folder)
            assert folder.parent == tmp_path and str(folder) in sys.path
            assert package.a2a is False
            assert package.asgi.__name__ == "library_binding.asgi"
            assert not (folder / "library_pb2.py").exists()
            raise RuntimeError("after loading")
    assert not folder.exists() and str(folder) not in sys.path
    for name, module in list(sys.modules.items()):  # imported from the folder gone
        if str(getattr(module, "__file__", None) or "").startswith(str(folder)):
            del sys.modules[name]
    with pytest.raises(SystemExit) as exited:
        with package_folder() as folder:
            signal.raise_signal(signal.SIGTERM)
    assert exited.value.code == 143 and not folder.exists()
    assert signal.getsignal(signal.SIGTERM) is before


def test_served_package_refuses_none_and_several() -> None:
    a2a = {"a2a_binding/grpc_binding.py": "", "a2a_binding/protocol.py": ""}
    assert served_package(a2a) == ("a2a_binding", True)
    with pytest.raises(GatewayError, match="no service with google.api.http rules"):
        served_package({"x/routes.py": ""})
    with pytest.raises(GatewayError, match=r"several packages \(a, b\): give one"):
        served_package({"a/grpc_binding.py": "", "b/grpc_binding.py": ""})

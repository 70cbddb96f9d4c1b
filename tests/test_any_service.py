"""Any gRPC service, not only A2A (issue 26, item 2): ``proto/features/library.proto``
generated with ``grpc=true``, its services served by a ``grpc.aio`` server of this
test's own (protoc's message classes and servicers), fronted by the generated app over
``grpc_binding.Backend`` under uvicorn on loopback, and driven over HTTP+JSON and
JSON-RPC: every rpc, every binding (``additional_bindings``, ``response_body``, a
custom HEAD), gRPC statuses answered with the HTTP status ``google.rpc.Code`` documents
and DESIGN's error body, ``{"error": {"code": <HTTP status>, "status": <name>,
"message", "details"}}`` (A2A's form; grpc-gateway's bare ``{"code": <gRPC number>,
...}`` is not it), a server stream as SSE and as newline-delimited JSON. Then
the direct case: a handler of the generated Protocol served by ``create_app``, and by
``grpc_binding.add_to_server`` to a gRPC client.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import json
import shlex
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import grpc.aio
import httpx
import pytest
from google.protobuf import any_pb2, empty_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_tools import protoc

from codegen.inputs import include_paths
from codegen.runtime._sse_parser import parse_sse

from .conftest import PROTO, mypy_strict, run_plugin
from .docs import block
from .google_rpc import documented_http_mapping
from .servers import GrpcGateway, GrpcServer, running

LIBRARY = PROTO / "features" / "library.proto"
PACKAGE = "library_any_binding"
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"

# What the app must answer for each status of the backend: the HTTP status
# google/rpc/code.proto documents (grpc-gateway's HTTPStatusFromCode gives the same).
HTTP_MAPPING = {
    name: status
    for name, (_, status) in (documented_http_mapping() or {}).items()
    if name != "OK"
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The package (``grpc=true``) and protoc's ``library_pb2``/``_pb2_grpc`` beside
    it, importable for the module's tests."""
    folder = tmp_path_factory.mktemp("any-service")
    response, _ = run_plugin(LIBRARY, f"grpc=true,module={PACKAGE}")
    assert not response.error, response.error
    for file in response.file:
        (folder / file.name).parent.mkdir(parents=True, exist_ok=True)
        (folder / file.name).write_text(file.content)
    status = protoc.main(
        [
            "protoc",
            f"-I{LIBRARY.parent}",
            *[f"-I{path}" for path in include_paths()],
            f"--python_out={folder}",
            f"--grpc_python_out={folder}",
            LIBRARY.name,
        ]
    )
    assert status == 0
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    try:
        yield folder
    finally:
        sys.path.remove(str(folder))


@pytest.fixture(scope="module")
def package(generated: Path) -> dict[str, ModuleType]:
    return {
        name: importlib.import_module(f"{PACKAGE}.{name}")
        for name in ("asgi", "grpc_binding", "handler", "messages")
    }


# ------------------------------------------------------------ the gRPC service


def _abort_details(code: grpc.StatusCode, message: str, *details: Any) -> Any:
    """The trailers of a rich status: a ``google.rpc.Status`` with ``details``."""
    status = status_pb2.Status(code=code.value[0], message=message)
    for detail in details:
        packed = any_pb2.Any()
        packed.Pack(detail)
        status.details.append(packed)
    return (("grpc-status-details-bin", status.SerializeToString()),)


def library_servicers(pb: Any, pb_grpc: Any) -> tuple[Any, Any]:
    """The test's own implementation of LibraryService and AdminService, with
    protoc's classes: books in memory; a book named ``shelves/status/books/<CODE>``
    fails with that gRPC status."""

    class Library(pb_grpc.LibraryServiceServicer):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            self.books = {
                "shelves/1/books/1": pb.Book(
                    name="shelves/1/books/1",
                    title="Dune",
                    page_count=412,
                    genre=pb.GENRE_FICTION,
                ),
                "shelves/1/books/2": pb.Book(
                    name="shelves/1/books/2", title="Odes", genre=pb.GENRE_POETRY
                ),
            }
            self.metadata: list[dict[str, Any]] = []

        async def GetBook(self, request: Any, context: Any) -> Any:  # noqa: N802
            self.metadata.append(dict(context.invocation_metadata() or ()))
            name = request.name or f"shelves/1/books/{request.book_id}"
            if name.startswith("shelves/status/books/"):
                code = getattr(grpc.StatusCode, name.rsplit("/", 1)[1])
                await context.abort(code, f"asked for {code.name}")
            if name not in self.books:
                await context.abort(grpc.StatusCode.NOT_FOUND, f"no book {name}")
            book = pb.Book()
            if request.read_mask.paths:
                request.read_mask.MergeMessage(self.books[name], book, True, True)
            else:
                book.CopyFrom(self.books[name])
            return book

        async def ListBooks(self, request: Any, context: Any) -> Any:  # noqa: N802
            books = [
                b
                for b in sorted(self.books.values(), key=lambda b: b.name)
                if b.name.startswith(request.parent + "/")
                and (not request.genres or b.genre in request.genres)
            ]
            echo = ",".join(
                [
                    str(request.page_size),
                    "+".join(pb.Genre.Name(g) for g in request.genres),
                    request.published_after.ToJsonString(),
                ]
            )
            return pb.ListBooksResponse(
                books=books[: request.page_size or None], next_page_token=echo
            )

        async def CreateBook(self, request: Any, context: Any) -> Any:  # noqa: N802
            name = f"{request.parent}/books/{request.request_id}"
            if name in self.books:
                await context.abort(
                    grpc.StatusCode.ALREADY_EXISTS,
                    f"{name} exists",
                    trailing_metadata=_abort_details(
                        grpc.StatusCode.ALREADY_EXISTS,
                        f"{name} exists",
                        error_details_pb2.ErrorInfo(
                            reason="BOOK_EXISTS",
                            domain="library.example",
                            metadata={"name": name},
                        ),
                    ),
                )
            book = pb.Book()
            book.CopyFrom(request.book)
            book.name = name
            self.books[name] = book
            return book

        async def UpdateBook(self, request: Any, context: Any) -> Any:  # noqa: N802
            stored = self.books.get(request.book.name)
            if stored is None:
                await context.abort(grpc.StatusCode.NOT_FOUND, request.book.name)
            if request.update_mask.paths:
                request.update_mask.MergeMessage(request.book, stored, True, True)
            else:
                stored.CopyFrom(request.book)
            return stored

        async def DeleteBook(self, request: Any, context: Any) -> Any:  # noqa: N802
            if not request.force:
                await context.abort(
                    grpc.StatusCode.FAILED_PRECONDITION, "set force to delete"
                )
            self.books.pop(request.name, None)
            return empty_pb2.Empty()

        async def MoveBook(self, request: Any, context: Any) -> Any:  # noqa: N802
            book = self.books.pop(request.name)
            book.name = (
                f"{request.other_shelf_name}/books/{request.name.split('/')[-1]}"
            )
            self.books[book.name] = book
            return book

        async def GetShelfByNumber(
            self, request: Any, context: Any
        ) -> Any:  # noqa: N802
            return pb.Shelf(
                name=f"shelves/{request.number}", theme=pb.Genre.Name(request.genre)
            )

        async def ReadFile(self, request: Any, context: Any) -> Any:  # noqa: N802
            return pb.FileContent(content=f"contents of {request.path}".encode())

        async def StreamBooks(
            self, request: Any, context: Any
        ) -> AsyncIterator[Any]:  # noqa: N802
            if request.parent == "shelves/missing":
                await context.abort(grpc.StatusCode.NOT_FOUND, "no such shelf")
            if request.parent == "shelves/broken":
                yield pb.Book(name="shelves/broken/books/1", title="half")
                await context.abort(grpc.StatusCode.DATA_LOSS, "the shelf broke")
            for book in sorted(self.books.values(), key=lambda b: b.name):
                if book.name.startswith(request.parent + "/"):
                    yield book

    class Admin(pb_grpc.AdminServiceServicer):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            self.purged: list[str] = []

        async def Ping(self, request: Any, context: Any) -> Any:  # noqa: N802
            return empty_pb2.Empty()

        async def Purge(self, request: Any, context: Any) -> Any:  # noqa: N802
            if request.path.startswith("locked/"):
                await context.abort(grpc.StatusCode.PERMISSION_DENIED, "locked")
            self.purged.append(request.path)
            return empty_pb2.Empty()

    return Library(), Admin()


def library_service() -> tuple[Callable[[Any], None], Any, Any]:
    """``register(server)`` adding the test's two servicers to a ``grpc.aio`` server
    (``library_pb2`` importable: the ``generated`` fixture), and the servicers."""
    pb = importlib.import_module("library_pb2")
    pb_grpc = importlib.import_module("library_pb2_grpc")
    library, admin = library_servicers(pb, pb_grpc)

    def register(server: Any) -> None:
        pb_grpc.add_LibraryServiceServicer_to_server(library, server)
        pb_grpc.add_AdminServiceServicer_to_server(admin, server)

    return register, library, admin


@pytest.fixture(scope="module")
def backend(
    generated: Path, package: dict[str, ModuleType]
) -> Iterator[tuple[str, Any, Any]]:
    """The gateway (``create_app(Backend(channel))``, JSON-RPC at ``/jsonrpc``) in
    front of the test's gRPC service: (base URL, the two servicers)."""
    register, library, admin = library_service()
    asgi, grpc_binding = package["asgi"], package["grpc_binding"]
    with GrpcServer(register) as served:
        gateway = GrpcGateway(
            served.target,
            lambda channel: asgi.create_app(
                grpc_binding.Backend(channel, forward_headers=("authorization",)),
                jsonrpc_path="/jsonrpc",
            ),
        )
        with running(gateway) as url:
            yield url, library, admin


@pytest.fixture
def http(backend: tuple[str, Any, Any]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=backend[0], timeout=30) as client:
        yield client


# ------------------------------------------------------------ HTTP+JSON, every rpc


def test_every_rpc_and_binding_over_http_json(
    http: httpx.Client, backend: tuple[str, Any, Any]
) -> None:
    _, library, admin = backend
    # GetBook: the main rule (multi-segment variable) and its additional binding.
    got = http.get("/v1/shelves/1/books/1", headers={"Authorization": "Bearer t"})
    assert got.status_code == 200, got.text
    assert got.headers["content-type"] == "application/json"
    assert got.json() == {
        "name": "shelves/1/books/1",
        "title": "Dune",
        "pageCount": "412",
        "genre": "GENRE_FICTION",
    }
    assert library.metadata[-1].get("authorization") == "Bearer t"
    assert "a2a-version" not in library.metadata[-1]  # no A2A profile
    assert http.get("/v1/books/2").json()["title"] == "Odes"
    masked = http.get("/v1/shelves/1/books/1", params={"readMask": "title"})
    assert masked.json() == {"title": "Dune"}
    # ListBooks: the query, decoded and carried across the hop.
    listed = http.get(
        "/v1/shelves/1/books",
        params=[
            ("pageSize", "5"),
            ("genres", "GENRE_FICTION"),
            ("genres", "2"),
            ("publishedAfter", "2020-01-02T03:04:05Z"),
        ],
    )
    assert listed.status_code == 200, listed.text
    assert [b["title"] for b in listed.json()["books"]] == ["Dune", "Odes"]
    assert listed.json()["nextPageToken"] == (
        "5,GENRE_FICTION+GENRE_POETRY,2020-01-02T03:04:05Z"
    )
    # CreateBook: body "book", the rest in the query.
    created = http.post(
        "/v1/shelves/2/books",
        params={"requestId": "9"},
        json={"title": "Ariel", "genre": "GENRE_POETRY", "pageCount": 96},
    )
    assert created.status_code == 200, created.text
    assert created.json() == {
        "name": "shelves/2/books/9",
        "title": "Ariel",
        "pageCount": "96",
        "genre": "GENRE_POETRY",
    }
    # UpdateBook: PATCH with body "book", and its additional PUT with body "*".
    patched = http.patch(
        "/v1/shelves/2/books/9",
        params={"updateMask": "title"},
        json={"title": "Ariel (restored)", "pageCount": 1},
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["title"] == "Ariel (restored)"
    assert patched.json()["pageCount"] == "96"  # not in the mask
    put = http.put(
        "/v1/shelves/2/books/9",
        json={"book": {"title": "Ariel", "pageCount": 100}, "updateMask": "pageCount"},
    )
    assert put.status_code == 200, put.text
    assert (put.json()["title"], put.json()["pageCount"]) == ("Ariel (restored)", "100")
    # MoveBook: a custom verb after a multi-segment variable, body "*".
    moved = http.post(
        "/v1/shelves/2/books/9:move", json={"otherShelfName": "shelves/3"}
    )
    assert moved.status_code == 200, moved.text
    assert moved.json()["name"] == "shelves/3/books/9"
    # DeleteBook: google.protobuf.Empty answers {}.
    deleted = http.delete("/v1/shelves/3/books/9", params={"force": "true"})
    assert (deleted.status_code, deleted.json()) == (200, {})
    assert "shelves/3/books/9" not in library.books
    # GetShelfByNumber: an int64 and an enum in the path (by name and by number).
    for genre in ("GENRE_POETRY", "2"):
        shelf = http.get(f"/v1/shelfNumbers/9007199254740993/genres/{genre}")
        assert shelf.json() == {
            "name": "shelves/9007199254740993",
            "theme": "GENRE_POETRY",
        }
    # ReadFile: `**` keeps its slashes; response_body sends the field alone (bytes:
    # base64 in a JSON string); the custom HEAD binding answers without a body.
    read = http.get("/v1/files/docs/a%2Fb/c.txt")
    assert read.status_code == 200, read.text
    assert base64.b64decode(read.json()) == b"contents of docs/a%2Fb/c.txt"
    head = http.head("/v1/files/docs/c.txt")
    assert (head.status_code, head.content) == (200, b"")
    assert int(head.headers["content-length"]) > 0
    # AdminService: Ping on both bindings; Purge on `**` and `**:now`.
    assert http.get("/admin/ping").json() == {}
    assert http.get("/").json() == {}
    assert http.post("/admin/a/b", json={}).json() == {}
    assert http.post("/admin/c/d:now", json={}).json() == {}
    assert admin.purged[-2:] == ["a/b", "c/d"]


# ------------------------------------------------------------ errors


KEPT_BACK = {
    "CANCELLED": "the call was cancelled",
    "DATA_LOSS": "internal error",
    "DEADLINE_EXCEEDED": "the call's deadline passed",
    "INTERNAL": "internal error",
    "UNAVAILABLE": "the service is unavailable",
    "UNKNOWN": "internal error",
}
"""What the gateway says of a status whose text the service did not mean to publish."""


@pytest.mark.skipif(not HTTP_MAPPING, reason="no google/rpc/code.proto installed")
@pytest.mark.parametrize("code", sorted(HTTP_MAPPING) or ["OK"])
def test_a_backend_status_gets_its_http_status_and_the_status_body(
    http: httpx.Client, code: str
) -> None:
    """A status the service sends on purpose passes with its text; the others keep
    their code and lose their text (an exception's, an address) to a fixed one."""
    status = HTTP_MAPPING[code]
    answer = http.get(f"/v1/shelves/status/books/{code}")
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    message = KEPT_BACK.get(code, f"asked for {code}")
    assert answer.json() == {
        "error": {"code": status, "status": code, "message": message}
    }


def test_status_details_pass_through(http: httpx.Client) -> None:
    body = {"title": "Dune"}
    answer = http.post("/v1/shelves/1/books", params={"requestId": "1"}, json=body)
    assert answer.status_code == 409, answer.text
    assert answer.json() == {
        "error": {
            "code": 409,
            "status": "ALREADY_EXISTS",
            "message": "shelves/1/books/1 exists",
            "details": [
                {
                    "@type": ERROR_INFO,
                    "reason": "BOOK_EXISTS",
                    "domain": "library.example",
                    "metadata": {"name": "shelves/1/books/1"},
                }
            ],
        }
    }
    refused = http.delete("/v1/shelves/1/books/2")  # FAILED_PRECONDITION: 400, not 412
    assert (refused.status_code, refused.json()["error"]["status"]) == (
        400,
        "FAILED_PRECONDITION",
    )
    locked = http.post("/admin/locked/x", json={})
    assert (locked.status_code, locked.json()["error"]["status"]) == (
        403,
        "PERMISSION_DENIED",
    )


def test_the_gateways_own_refusals_are_statuses_too(http: httpx.Client) -> None:
    invalid = http.get("/v1/shelves/1/books", params={"pageSize": "many"})
    assert invalid.status_code == 400
    body = invalid.json()["error"]
    assert (body["code"], body["status"], body["details"][0]["@type"]) == (
        400,
        "INVALID_ARGUMENT",
        BAD_REQUEST,
    )
    assert body["details"][0]["fieldViolations"][0]["field"] == "pageSize"
    assert "domain" not in json.dumps(body)  # no A2A ErrorInfo
    missing = http.get("/v2/nothing")
    assert (missing.status_code, missing.json()["error"]["status"]) == (
        404,
        "NOT_FOUND",
    )
    wrong_verb = http.delete("/v1/shelves/1/books")
    assert (wrong_verb.status_code, wrong_verb.json()["error"]["code"]) == (405, 405)
    assert wrong_verb.json()["error"]["status"] == "UNIMPLEMENTED"
    assert wrong_verb.headers["allow"] == "GET, HEAD, POST"
    text = http.post(
        "/v1/shelves/1/books", content=b"x", headers={"Content-Type": "text/plain"}
    )
    assert (text.status_code, text.json()["error"]["status"]) == (
        415,
        "INVALID_ARGUMENT",
    )
    # What this service reads, not A2A's media types (it has no A2A profile).
    accepted = "(accepted: application/json)"
    assert text.json()["error"]["message"] == (
        f"Content-Type 'text/plain' is not supported here {accepted}"
    )
    a2a_typed = http.post(
        "/v1/shelves/1/books",
        content=b"{}",
        headers={"Content-Type": "application/a2a+json"},
    )
    assert a2a_typed.status_code == 415
    assert a2a_typed.json()["error"]["message"].endswith(accepted)
    rpc_text = http.post(
        "/jsonrpc", content=b"x", headers={"Content-Type": "text/plain"}
    )
    assert rpc_text.json()["error"]["data"]["message"].endswith(accepted)
    # No A2A rules: no card, and no version is asked for or checked.
    assert http.get("/.well-known/agent-card.json").status_code == 404
    versioned = http.get("/v1/books/1", headers={"A2A-Version": "9.9"})
    assert versioned.status_code == 200


def test_an_unreachable_backend_is_unavailable(package: dict[str, ModuleType]) -> None:
    asgi, grpc_binding = package["asgi"], package["grpc_binding"]
    gateway = GrpcGateway(
        "127.0.0.1:1",
        lambda channel: asgi.create_app(grpc_binding.Backend(channel, timeout=5)),
    )
    with running(gateway) as url:
        answer = httpx.get(f"{url}/admin/ping", timeout=30)
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"]["status"] == "UNAVAILABLE"


def test_the_docs_curl_lines_through_the_gateway(backend: tuple[str, Any, Any]) -> None:
    """docs/gateway.md's curl lines against this gateway (JSON-RPC at /jsonrpc)."""
    lines = block("library-curl").replace("\\\n", " ").splitlines()
    answers = []
    for line in lines:
        command = shlex.split(line.split("  #")[0])
        assert command[0] == "curl", line
        args = [
            a.replace("localhost:8000", backend[0].removeprefix("http://"))
            for a in command
        ]
        done = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        answers.append(done.stdout)
    book, short, stream, rpc = answers
    assert json.loads(book)["title"] == json.loads(short)["title"] == "Dune"
    titles = [json.loads(line)["result"]["title"] for line in stream.splitlines()]
    assert titles == ["Dune", "Odes"]
    assert json.loads(rpc)["result"]["title"] == "Dune"


# ------------------------------------------------------------ streams


def test_a_server_stream_as_sse_and_as_ndjson(http: httpx.Client) -> None:
    sse = http.get("/v1/shelves/1/books:stream")
    assert sse.status_code == 200, sse.text
    assert sse.headers["content-type"] == "text/event-stream"
    events = list(parse_sse([sse.content]))
    assert [e.id for e in events] == ["0", "1"]
    assert [json.loads(e.data)["result"]["title"] for e in events] == ["Dune", "Odes"]
    ndjson = http.get(
        "/v1/shelves/1/books:stream",
        headers={"Accept": "text/event-stream;q=0.5, application/x-ndjson"},
    )
    assert ndjson.headers["content-type"] == "application/x-ndjson"
    lines = ndjson.content.decode().splitlines()
    assert [json.loads(line)["result"]["title"] for line in lines] == ["Dune", "Odes"]
    assert ndjson.content.endswith(b"\n")


def test_a_stream_that_fails_ends_with_the_error_body_as_its_last_chunk(
    http: httpx.Client,
) -> None:
    broken = http.get(
        "/v1/shelves/broken/books:stream", headers={"Accept": "application/x-ndjson"}
    )
    assert broken.status_code == 200  # the stream had started
    first, last = (json.loads(line) for line in broken.content.decode().splitlines())
    assert first == {"result": {"name": "shelves/broken/books/1", "title": "half"}}
    broke = {"code": 500, "status": "DATA_LOSS", "message": KEPT_BACK["DATA_LOSS"]}
    assert last == {"error": broke}
    events = list(parse_sse([http.get("/v1/shelves/broken/books:stream").content]))
    assert json.loads(events[-1].data) == {"error": broke}
    before = http.get("/v1/shelves/missing/books:stream")  # before the first event
    assert (before.status_code, before.json()["error"]["status"]) == (
        404,
        "NOT_FOUND",
    )


# ------------------------------------------------------------ JSON-RPC


def _rpc(http: httpx.Client, method: str, params: Any, id: int = 1) -> Any:
    answer = http.post(
        "/jsonrpc",
        json={"jsonrpc": "2.0", "id": id, "method": method, "params": params},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_every_rpc_over_json_rpc(http: httpx.Client) -> None:
    assert _rpc(http, "GetBook", {"bookId": "1"})["result"]["title"] == "Dune"
    listed = _rpc(http, "ListBooks", {"parent": "shelves/1", "genres": [2]})
    assert [b["title"] for b in listed["result"]["books"]] == ["Odes"]
    created = _rpc(
        http,
        "CreateBook",
        {"parent": "shelves/5", "requestId": "1", "book": {"title": "Maus"}},
    )
    assert created["result"]["name"] == "shelves/5/books/1"
    updated = _rpc(
        http,
        "UpdateBook",
        {
            "book": {"name": "shelves/5/books/1", "pageCount": "296"},
            "updateMask": "pageCount",
        },
    )
    assert updated["result"] == {
        "name": "shelves/5/books/1",
        "title": "Maus",
        "pageCount": "296",
    }
    moved = _rpc(
        http, "MoveBook", {"name": "shelves/5/books/1", "otherShelfName": "shelves/6"}
    )
    assert moved["result"]["name"] == "shelves/6/books/1"
    assert _rpc(http, "DeleteBook", {"name": "shelves/6/books/1", "force": True}) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {},
    }
    shelf = _rpc(http, "GetShelfByNumber", {"number": 4, "genre": "GENRE_FICTION"})
    assert shelf["result"] == {"name": "shelves/4", "theme": "GENRE_FICTION"}
    read = _rpc(
        http, "ReadFile", {"path": "a/b"}
    )  # the whole message: no response_body
    assert base64.b64decode(read["result"]["content"]) == b"contents of a/b"
    assert _rpc(http, "Ping", {})["result"] == {}
    assert _rpc(http, "Purge", {"path": "z"})["result"] == {}
    stream = http.post(
        "/jsonrpc",
        json={
            "jsonrpc": "2.0",
            "id": "s",
            "method": "StreamBooks",
            "params": {"parent": "shelves/1"},
        },
    )
    assert stream.headers["content-type"] == "text/event-stream"
    envelopes = [json.loads(e.data) for e in parse_sse([stream.content])]
    assert [(e["id"], e["result"]["title"]) for e in envelopes] == [
        ("s", "Dune"),
        ("s", "Odes"),
    ]


def test_json_rpc_errors_carry_the_status(http: httpx.Client) -> None:
    missing = _rpc(http, "GetBook", {"name": "shelves/1/books/404"}, id=7)
    assert missing == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {
            "code": -32000,
            "message": "no book shelves/1/books/404",
            "data": {
                "code": 404,
                "status": "NOT_FOUND",
                "message": "no book shelves/1/books/404",
            },
        },
    }
    exists = _rpc(
        http, "CreateBook", {"parent": "shelves/1", "requestId": "2", "book": {}}
    )["error"]
    assert (exists["code"], exists["data"]["status"]) == (-32000, "ALREADY_EXISTS")
    assert exists["data"]["details"][0]["reason"] == "BOOK_EXISTS"
    internal = _rpc(http, "GetBook", {"name": "shelves/status/books/INTERNAL"})
    assert (internal["error"]["code"], internal["error"]["data"]["status"]) == (
        -32603,
        "INTERNAL",
    )
    invalid = _rpc(http, "ListBooks", {"parent": "shelves/1", "pageSize": "x"})
    assert invalid["error"]["code"] == -32602
    assert invalid["error"]["data"]["details"][0]["@type"] == BAD_REQUEST
    unknown = _rpc(http, "SendMessage", {})
    assert unknown["error"]["code"] == -32601
    assert unknown["error"]["data"]["status"] == "UNIMPLEMENTED"


# ------------------------------------------------------------ the direct case


def _direct_handler(messages: ModuleType, handler: ModuleType) -> Any:
    """A handler of the generated Protocol, answering from dicts."""
    RpcError = handler.RpcError  # noqa: N806

    class Direct:
        async def get_book(self, request: Any, context: Any) -> Any:
            if request.get("bookId") == "bad":
                raise handler.InvalidArgument("bad id", [("bookId", "not a number")])
            if request.get("bookId") == "0":
                raise RpcError(
                    "NOT_FOUND",
                    "no book 0",
                    [{"@type": ERROR_INFO, "reason": "GONE", "domain": "d"}],
                )
            return {"name": request.get("name") or "shelves/1/books/1", "title": "T"}

        async def list_books(self, request: Any, context: Any) -> Any:
            return {"books": [], "nextPageToken": context.binding}

        async def create_book(self, request: Any, context: Any) -> Any:
            return {**request["book"], "name": request["parent"] + "/books/1"}

        async def update_book(self, request: Any, context: Any) -> Any:
            return request["book"]

        async def delete_book(self, request: Any, context: Any) -> None:
            return None

        async def move_book(self, request: Any, context: Any) -> Any:
            return {"name": request["otherShelfName"] + "/books/1"}

        async def get_shelf_by_number(self, request: Any, context: Any) -> Any:
            return {"name": f"shelves/{request['number']}"}

        async def read_file(self, request: Any, context: Any) -> Any:
            return {"content": base64.b64encode(b"direct").decode()}

        async def stream_books(self, request: Any, context: Any) -> AsyncIterator[Any]:
            yield {"title": "one"}
            yield {"title": "two"}
            raise RpcError("ABORTED", "enough")

        async def ping(self, request: Any, context: Any) -> None:
            return None

        async def purge(self, request: Any, context: Any) -> None:
            raise RpcError("UNAVAILABLE", "try later")

    return Direct()


def test_a_handler_of_the_generated_protocol_served_by_create_app(
    package: dict[str, ModuleType],
) -> None:
    app = package["asgi"].create_app(
        _direct_handler(package["messages"], package["handler"]),
        jsonrpc_path="/rpc",
    )
    with running(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        assert http.get("/v1/books/7").json() == {
            "name": "shelves/1/books/1",
            "title": "T",
        }
        gone = http.get("/v1/books/0")
        assert gone.status_code == 404
        assert gone.json() == {
            "error": {
                "code": 404,
                "status": "NOT_FOUND",
                "message": "no book 0",
                "details": [{"@type": ERROR_INFO, "reason": "GONE", "domain": "d"}],
            }
        }
        assert http.get("/v1/shelves/1/books").json()["nextPageToken"] == "http+json"
        assert http.get("/v1/files/x").json() == base64.b64encode(b"direct").decode()
        unavailable = http.post("/admin/x", json={})
        assert (unavailable.status_code, unavailable.json()["error"]["code"]) == (
            503,
            503,
        )
        lines = http.get(
            "/v1/shelves/1/books:stream", headers={"Accept": "application/x-ndjson"}
        ).content.splitlines()
        assert [json.loads(line) for line in lines] == [
            {"result": {"title": "one"}},
            {"result": {"title": "two"}},
            {"error": {"code": 409, "status": "ABORTED", "message": "enough"}},
        ]
        rpc = http.post(
            "/rpc",
            json={"jsonrpc": "2.0", "id": 1, "method": "ListBooks", "params": {}},
        ).json()
        assert rpc["result"]["nextPageToken"] == "jsonrpc"
        assert http.post("/jsonrpc", json={}).status_code == 404  # only at /rpc
        # The library has no tenants: no ``/rpc/{tenant}`` endpoint either.
        body = {"jsonrpc": "2.0", "id": 1, "method": "Ping", "params": {}}
        assert http.post("/rpc/acme", json=body).status_code == 404


def test_the_same_handler_served_over_grpc_by_add_to_server(
    package: dict[str, ModuleType], generated: Path
) -> None:
    pb = importlib.import_module("library_pb2")
    pb_grpc = importlib.import_module("library_pb2_grpc")
    handler = _direct_handler(package["messages"], package["handler"])
    grpc_binding = package["grpc_binding"]

    async def call() -> list[Any]:
        found: list[Any] = []
        async with grpc.aio.insecure_channel(target) as channel:
            stub = pb_grpc.LibraryServiceStub(channel)
            found.append(await stub.GetBook(pb.GetBookRequest(book_id="3"), timeout=10))
            for book_id in ("0", "bad"):
                try:
                    await stub.GetBook(pb.GetBookRequest(book_id=book_id), timeout=10)
                except grpc.aio.AioRpcError as error:
                    found.append(error)
            books = [
                title
                async for title in _titles(stub.StreamBooks(pb.ListBooksRequest()))
            ]
            found.append(books)
        return found

    with GrpcServer(
        lambda server: grpc_binding.add_to_server(handler, server)
    ) as served:
        target = served.target
        book, error, refused, titles = asyncio.run(call())
    assert (book.name, book.title) == ("shelves/1/books/1", "T")
    assert error.code() == grpc.StatusCode.NOT_FOUND
    status = grpc_binding.decode_status(error.trailing_metadata())
    assert status == {
        "code": 5,
        "message": "no book 0",
        "details": [{"@type": ERROR_INFO, "reason": "GONE", "domain": "d"}],
    }
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    refusal = grpc_binding.decode_status(refused.trailing_metadata())
    assert [d["@type"] for d in refusal["details"]] == [BAD_REQUEST]  # no A2A reason
    assert titles == ["one", "two", grpc.StatusCode.ABORTED]


async def _titles(call: Any) -> AsyncIterator[Any]:
    try:
        async for book in call:
            yield book.title
    except grpc.aio.AioRpcError as error:
        yield error.code()


# ------------------------------------------------------------ the plugin side


TYPED_USE = f"""
from collections.abc import AsyncIterator, Mapping
from typing import Any, final

import grpc.aio

from {PACKAGE} import asgi, grpc_binding, messages
from {PACKAGE}.handler import CallContext, RpcError, ServiceHandler


@final
class Library(ServiceHandler):
    async def get_book(
        self, request: messages.GetBookRequest, context: CallContext
    ) -> messages.Book:
        if not request.get("name"):
            raise RpcError("NOT_FOUND", "no name")
        return {{"name": request["name"], "pageCount": "1", "genre": "GENRE_POETRY"}}

    async def list_books(
        self, request: messages.ListBooksRequest, context: CallContext
    ) -> messages.ListBooksResponse:
        return {{"books": [], "nextPageToken": ""}}

    async def create_book(
        self, request: messages.CreateBookRequest, context: CallContext
    ) -> messages.Book:
        return request.get("book", {{}})

    async def update_book(
        self, request: messages.UpdateBookRequest, context: CallContext
    ) -> messages.Book:
        return request.get("book", {{}})

    async def delete_book(
        self, request: messages.DeleteBookRequest, context: CallContext
    ) -> None:
        return None

    async def move_book(
        self, request: messages.MoveBookRequest, context: CallContext
    ) -> messages.Book:
        return {{}}

    async def get_shelf_by_number(
        self, request: messages.GetShelfByNumberRequest, context: CallContext
    ) -> messages.Shelf:
        return {{"name": "shelves/" + request.get("number", "0")}}

    async def read_file(
        self, request: messages.ReadFileRequest, context: CallContext
    ) -> messages.FileContent:
        return {{"content": ""}}

    async def stream_books(
        self, request: messages.ListBooksRequest, context: CallContext
    ) -> AsyncIterator[messages.Book]:
        yield {{"title": "one"}}

    async def ping(self, request: Mapping[str, Any], context: CallContext) -> None:
        return None

    async def purge(
        self, request: messages.ReadFileRequest, context: CallContext
    ) -> None:
        return None


def serve(channel: grpc.aio.Channel, server: grpc.aio.Server) -> None:
    asgi.create_app(Library(), jsonrpc_path="/jsonrpc")
    asgi.create_app(grpc_binding.Backend(channel))
    grpc_binding.add_to_server(Library(), server)
    grpc_binding.add_to_server(grpc_binding.Backend(channel), server)
"""


def test_the_generated_package_passes_mypy_strict(generated: Path) -> None:
    """The package, and a typed handler of its Protocol (and ``Backend``) given to
    ``create_app`` and ``add_to_server``."""
    (generated / "typed_use.py").write_text(TYPED_USE)
    result = mypy_strict(
        [PACKAGE, "typed_use.py"], cache=generated / ".mypy", cwd=generated
    )
    assert result.returncode == 0, result.stdout + result.stderr

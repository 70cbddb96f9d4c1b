"""``codegen/runtime/translate/_http_backend.py``: a handler answered by an A2A agent
over HTTP. The agent is the committed package's own app (which serves JSON-RPC and
HTTP+JSON in 1.0 and 0.3) under uvicorn on loopback, over a handler that records what
reached it; the backend is built with the package's tables and the runtime's
``ClientBinding``. Each test checks one promise of the module docstring, in each binding
and version where the promise depends on them. The same backend behind the gateway,
with a2a-sdk's and @a2a-js/sdk's peers: ``tests/test_gateway_http.py``."""

from __future__ import annotations

import asyncio
import importlib
import logging
import socket
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from codegen.runtime._cancellation import DeadlineExceeded
from codegen.runtime._client import ClientBinding
from codegen.runtime._errors import A2AError
from codegen.runtime._failure import InvalidArgument, Unauthenticated
from codegen.runtime._http_backend import HttpBackend, check_http_forward_headers
from codegen.runtime._params import ServiceParams
from codegen.runtime._request import CallContext
from codegen.runtime._status import RpcError
from tests.servers import running

KINDS = [
    ("jsonrpc", None),
    ("http+json", None),
    ("jsonrpc", "0.3"),
    ("http+json", "0.3"),
]


def _task(task_id: str, text: str = "") -> dict[str, Any]:
    task: dict[str, Any] = {
        "id": task_id,
        "contextId": "c",
        "status": {"state": "TASK_STATE_COMPLETED"},
    }
    if text:
        task["artifacts"] = [{"artifactId": "a", "parts": [{"text": text}]}]
    return task


class Agent:
    """The agent's handler: what reached it, and answers by the request."""

    def __init__(self, package: ModuleType) -> None:
        self.package = package
        self.calls: list[tuple[str, CallContext | Any, dict[str, Any]]] = []
        self.closed_flag = False

    def _saw(self, rpc: str, request: Any, context: Any) -> None:
        self.calls.append((rpc, context, dict(request)))

    async def send_message(self, request: Any, context: Any) -> Any:
        self._saw("SendMessage", request, context)
        text = request["message"]["parts"][0]["text"]
        return {"task": _task("t-" + text, text)}

    async def send_streaming_message(self, request: Any, context: Any) -> Any:
        self._saw("SendStreamingMessage", request, context)
        text = request["message"]["parts"][0]["text"]
        yield {
            "task": {**_task("s-" + text), "status": {"state": "TASK_STATE_WORKING"}}
        }
        try:
            if text == "forever":
                await asyncio.sleep(30)
            yield {
                "statusUpdate": {
                    "taskId": "s-" + text,
                    "contextId": "c",
                    "status": {"state": "TASK_STATE_COMPLETED"},
                }
            }
        finally:
            self.closed_flag = True

    async def get_task(self, request: Any, context: Any) -> Any:
        self._saw("GetTask", request, context)
        protocol = self.package.protocol
        if request["id"] == "slow":
            await asyncio.sleep(5)
        if request["id"] == "boom":
            raise RuntimeError("a secret at 10.0.0.7")
        if request["id"] == "auth":
            raise self.package.handler.Unauthenticated(
                "no token", challenge='Bearer realm="agents"'
            )
        if request["id"] == "missing":
            raise protocol.A2AError("TaskNotFoundError", "no task missing")
        return _task(request["id"])

    async def list_tasks(self, request: Any, context: Any) -> Any:
        self._saw("ListTasks", request, context)
        return {"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0}


@pytest.fixture(scope="module")
def package(a2a: ModuleType) -> ModuleType:
    for sub in ("asgi", "handler", "protocol", "v0_3.routes"):
        importlib.import_module(f"a2a_binding.{sub}")
    return a2a


@pytest.fixture(scope="module")
def client(package: ModuleType) -> ClientBinding:
    return ClientBinding(
        build=package.routes.build,
        jsonrpc_request=package.jsonrpc.request,
        headers=package.protocol.request_headers,
        methods=package.jsonrpc.METHODS,
        schema=package.messages.SCHEMA,
        package="a2a_binding",
        protocol_version=package.protocol.PROTOCOL_VERSION,
    )


@pytest.fixture(scope="module")
def agent(package: ModuleType) -> Iterator[tuple[str, Agent]]:
    recorder = Agent(package)
    base = package.handler.A2AServiceHandler

    class Served(base):  # type: ignore[misc, valid-type]
        send_message = recorder.send_message
        send_streaming_message = recorder.send_streaming_message
        get_task = recorder.get_task
        list_tasks = recorder.list_tasks

    app = package.asgi.create_app(
        Served(),
        agent_card={"name": "agent", "version": "1"},
        supported_versions=["1.0", "0.3"],
        http_json_prefix="/rest",
        jsonrpc_path="/rpc",
    )
    with running(app) as url:
        yield url, recorder


def _url(base: str, binding: str) -> str:
    return base + ("/rpc" if binding == "jsonrpc" else "/rest")


def _context(
    headers: tuple[tuple[str, str], ...] = (), extensions: tuple[str, ...] = ()
) -> CallContext:
    return CallContext("", "grpc", ServiceParams("1.0", extensions), headers)


def _message(text: str, **more: Any) -> dict[str, Any]:
    return {
        "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": text}]},
        **more,
    }


def _run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 30))


async def _using(backend: HttpBackend, work: Any) -> Any:
    try:
        return await work(backend)
    finally:
        await backend.aclose()


# ------------------------------------------------------------------- each form


@pytest.mark.parametrize("binding, version", KINDS)
def test_each_binding_and_version_calls_streams_and_raises_a2a_errors(
    agent: tuple[str, Agent], client: ClientBinding, binding: str, version: Any
) -> None:
    base, recorder = agent
    backend = HttpBackend(
        _url(base, binding), client=client, binding=binding, version=version
    )

    async def work(b: HttpBackend) -> Any:
        sent = await b.call("SendMessage", _message("hello"), _context())
        events = [e async for e in b.stream("SendStreamingMessage", _message("s"))]
        got = await b.call("GetTask", {"id": "t-hello"})
        with pytest.raises(A2AError) as missing:
            await b.call("GetTask", {"id": "missing"})
        return sent, events, got, missing.value

    sent, events, got, missing = _run(_using(backend, work))
    assert sent["task"]["artifacts"][0]["parts"][0]["text"] == "hello"
    assert [next(iter(e)) for e in events] == ["task", "statusUpdate"]
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert got["id"] == "t-hello"
    # the agent's error by its code and reason, whatever form carried it
    assert missing.kind.name == "TaskNotFoundError"
    assert recorder.calls[-1][1].params.version == (version or "1.0")


def test_an_rpc_the_agents_version_lacks_is_unsupported_and_not_sent(
    agent: tuple[str, Agent], client: ClientBinding
) -> None:
    base, recorder = agent
    before = len(recorder.calls)
    for binding in ("jsonrpc", "http+json"):
        backend = HttpBackend(
            _url(base, binding), client=client, binding=binding, version="0.3"
        )
        with pytest.raises(A2AError) as refused:
            _run(_using(backend, lambda b: b.call("ListTasks", {})))
        assert refused.value.kind.name == "UnsupportedOperationError"
        assert "A2A 0.3" in str(refused.value)
    assert len(recorder.calls) == before
    one_oh = HttpBackend(_url(base, "jsonrpc"), client=client)
    listed = _run(_using(one_oh, lambda b: b.call("ListTasks", {})))
    assert listed["tasks"] == []


def test_tenants_reach_a_1_0_agent_and_are_refused_for_a_0_3_one(
    agent: tuple[str, Agent], client: ClientBinding
) -> None:
    base, recorder = agent
    for binding in ("jsonrpc", "http+json"):
        named = HttpBackend(_url(base, binding), client=client, binding=binding)
        _run(_using(named, lambda b: b.call("GetTask", {"id": "x", "tenant": "acme"})))
        assert recorder.calls[-1][1].tenant == "acme"
        default = HttpBackend(
            _url(base, binding), client=client, binding=binding, tenant="t0"
        )
        _run(_using(default, lambda b: b.call("GetTask", {"id": "x"})))
        assert recorder.calls[-1][1].tenant == "t0"
    old = HttpBackend(_url(base, "jsonrpc"), client=client, version="0.3")
    before = len(recorder.calls)
    with pytest.raises(InvalidArgument) as refused:
        _run(_using(old, lambda b: b.call("GetTask", {"id": "x", "tenant": "acme"})))
    assert [field for field, _ in refused.value.violations] == ["tenant"]
    assert len(recorder.calls) == before


# ------------------------------------------------------------------- the hop


def test_only_allowed_headers_and_the_extensions_go_on(
    agent: tuple[str, Agent], client: ClientBinding
) -> None:
    base, recorder = agent
    backend = HttpBackend(
        _url(base, "http+json"),
        client=client,
        binding="http+json",
        forward_headers=["Authorization", "X-Trace"],
    )
    context = _context(
        (("authorization", "Bearer t"), ("x-trace", "1"), ("cookie", "s=1")),
        ("urn:a",),
    )
    _run(_using(backend, lambda b: b.call("GetTask", {"id": "x"}, context)))
    seen = recorder.calls[-1][1]
    assert seen.header("authorization") == "Bearer t"
    assert seen.header("x-trace") == "1"
    assert seen.header("cookie") is None
    assert seen.params.extensions == ("urn:a",)


@pytest.mark.parametrize(
    "name, why",
    [
        ("Host", "the address the client reached"),
        ("connection", "hop-by-hop"),
        ("Content-Type", "the request's body"),
        ("A2A-Version", "an A2A service parameter"),
        ("x-a2a-extensions", "an A2A service parameter"),
        ("grpc-timeout", "the call's deadline"),
        ("trace-bin", "binary gRPC metadata"),
        ("bad header", "no HTTP field name"),
        ("", "no HTTP field name"),
    ],
)
def test_headers_never_forwarded_are_refused_naming_why(name: str, why: str) -> None:
    with pytest.raises(ValueError, match=why) as refused:
        check_http_forward_headers(["authorization", name])
    assert repr(name) in str(refused.value)
    assert check_http_forward_headers(["X-Trace"]) == {"x-trace"}


def test_a_value_http_cannot_carry_is_refused_naming_the_header(
    agent: tuple[str, Agent], client: ClientBinding
) -> None:
    base, recorder = agent
    before = len(recorder.calls)
    backend = HttpBackend(_url(base, "jsonrpc"), client=client)
    context = _context((("authorization", "Bearer a\r\nx: y"),))
    with pytest.raises(InvalidArgument, match="the authorization header"):
        _run(_using(backend, lambda b: b.call("GetTask", {"id": "x"}, context)))
    assert len(recorder.calls) == before


def test_the_deadline_is_the_nearer_of_the_backends_and_the_callers(
    agent: tuple[str, Agent], client: ClientBinding
) -> None:
    base, _ = agent
    own = HttpBackend(_url(base, "jsonrpc"), client=client, timeout=0.3)
    with pytest.raises(DeadlineExceeded, match="GetTask"):
        _run(_using(own, lambda b: b.call("GetTask", {"id": "slow"})))

    def callers() -> HttpBackend:
        return HttpBackend(_url(base, "http+json"), client=client, binding="http+json")

    late = _context((("grpc-timeout", "200m"),))
    with pytest.raises(DeadlineExceeded):
        _run(_using(callers(), lambda b: b.call("GetTask", {"id": "slow"}, late)))
    bad = _context((("grpc-timeout", "soon"),))
    with pytest.raises(InvalidArgument, match="grpc-timeout"):
        _run(_using(callers(), lambda b: b.call("GetTask", {"id": "x"}, bad)))


def test_a_streams_deadline_bounds_the_whole_stream(
    agent: tuple[str, Agent], client: ClientBinding
) -> None:
    base, _ = agent
    backend = HttpBackend(_url(base, "jsonrpc"), client=client, timeout=0.5)

    async def work(b: HttpBackend) -> list[Any]:
        got: list[Any] = []
        with pytest.raises(DeadlineExceeded):
            async for event in b.stream("SendStreamingMessage", _message("forever")):
                got.append(event)
        return got

    got = _run(_using(backend, work))
    assert [next(iter(e)) for e in got] == ["task"]  # the first came in time


@pytest.mark.parametrize("binding", ["jsonrpc", "http+json"])
def test_leaving_a_stream_early_ends_the_agents_stream(
    agent: tuple[str, Agent], client: ClientBinding, binding: str
) -> None:
    base, recorder = agent
    recorder.closed_flag = False
    backend = HttpBackend(_url(base, binding), client=client, binding=binding)

    async def work(b: HttpBackend) -> Any:
        events = b.stream("SendStreamingMessage", _message("forever"))
        first = await anext(events)
        await events.aclose()  # type: ignore[attr-defined]
        for _ in range(100):
            if recorder.closed_flag:
                break
            await asyncio.sleep(0.05)
        return first

    first = _run(_using(backend, work))
    assert "task" in first
    assert recorder.closed_flag, "the agent's stream went on after the client left"


# -------------------------------------------------------------- what failed


def test_an_agents_own_failure_keeps_its_code_but_not_its_text(
    agent: tuple[str, Agent], client: ClientBinding, caplog: pytest.LogCaptureFixture
) -> None:
    base, _ = agent
    for binding in ("jsonrpc", "http+json"):
        backend = HttpBackend(_url(base, binding), client=client, binding=binding)
        with pytest.raises(RpcError) as failed:
            _run(_using(backend, lambda b: b.call("GetTask", {"id": "boom"})))
        assert failed.value.code == "INTERNAL"
        assert failed.value.message == "internal error"
    with pytest.raises(Unauthenticated) as refused:
        backend = HttpBackend(
            _url(base, "http+json"), client=client, binding="http+json"
        )
        _run(_using(backend, lambda b: b.call("GetTask", {"id": "auth"})))
    assert refused.value.challenge == 'Bearer realm="agents"'


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_an_agent_that_cannot_be_reached_is_unavailable(
    client: ClientBinding, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"http://127.0.0.1:{_free_port()}/"
    backend = HttpBackend(url, client=client)
    with caplog.at_level(logging.ERROR), pytest.raises(RpcError) as failed:
        _run(_using(backend, lambda b: b.call("GetTask", {"id": "x"})))
    assert (failed.value.code, failed.value.message) == (
        "UNAVAILABLE",
        "the service is unavailable",
    )
    assert url in caplog.text and "cannot be reached" in caplog.text
    exposed = HttpBackend(url, client=client, expose_errors=True)

    async def stream(b: HttpBackend) -> list[Any]:
        return [e async for e in b.stream("SendStreamingMessage", _message("x"))]

    with pytest.raises(RpcError, match="the agent cannot be reached"):
        _run(_using(exposed, stream))


@pytest.fixture(scope="module")
def odd_agent() -> Iterator[str]:
    """Answers no A2A agent gives on purpose: a proxy's 404, a busy 503, a teapot,
    JSON-RPC's own errors, a Status of its own, and JSON where a stream belongs."""

    def status(code: int) -> Any:
        return lambda request: PlainTextResponse("<html>nope</html>", code)

    async def jsonrpc(request: Request) -> Response:
        body = await request.json()
        code = {"GetTask": -32601, "CancelTask": -32602}.get(body["method"], -32000)
        error = {"code": code, "message": f"error {code} at 10.0.0.7"}
        return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "error": error})

    def own_status(request: Request) -> Response:
        error = {
            "code": 409,
            "status": "ABORTED",
            "message": "try again",
            "details": [],
        }
        return JSONResponse({"error": error}, 409)

    app = Starlette(
        routes=[
            Route("/404/tasks/{id}", status(404)),
            Route("/503/tasks/{id}", status(503)),
            Route("/418/tasks/{id}", status(418)),
            Route("/rpc", jsonrpc, methods=["POST"]),
            Route("/status/tasks/{id}", own_status),
            Route(
                "/json/message:stream",
                lambda request: JSONResponse({"task": _task("t")}),
                methods=["POST"],
            ),
        ]
    )
    with running(app) as base:
        yield base


@pytest.mark.parametrize(
    "where, code, message",
    [
        ("404", "UNIMPLEMENTED", "HTTP 404"),
        ("503", "UNAVAILABLE", "the service is unavailable"),
        ("418", "UNKNOWN", "internal error"),
        ("status", "ABORTED", "try again"),
    ],
)
def test_other_http_answers_are_read_by_their_status(
    odd_agent: str, client: ClientBinding, where: str, code: str, message: str
) -> None:
    backend = HttpBackend(f"{odd_agent}/{where}", client=client, binding="http+json")
    with pytest.raises(RpcError) as failed:
        _run(_using(backend, lambda b: b.call("GetTask", {"id": "x"})))
    assert failed.value.code == code
    assert failed.value.message.startswith(message)


def test_jsonrpc_errors_of_the_agent_are_read_by_their_code(
    odd_agent: str, client: ClientBinding
) -> None:
    def backend() -> HttpBackend:
        return HttpBackend(f"{odd_agent}/rpc", client=client)

    with pytest.raises(A2AError) as unknown:
        _run(_using(backend(), lambda b: b.call("GetTask", {"id": "x"})))
    assert unknown.value.kind.name == "UnsupportedOperationError"
    with pytest.raises(InvalidArgument, match="the agent refused the request"):
        _run(_using(backend(), lambda b: b.call("CancelTask", {"id": "x"})))
    with pytest.raises(RpcError) as other:
        _run(_using(backend(), lambda b: b.call("ListTasks", {})))
    assert (other.value.code, other.value.message) == ("INTERNAL", "internal error")


def test_a_stream_answered_without_an_event_stream_is_a_failure(
    odd_agent: str, client: ClientBinding
) -> None:
    backend = HttpBackend(f"{odd_agent}/json", client=client, binding="http+json")

    async def work(b: HttpBackend) -> None:
        async for _ in b.stream("SendStreamingMessage", _message("x")):
            pass

    with pytest.raises(RpcError) as failed:
        _run(_using(backend, work))
    assert failed.value.code == "UNKNOWN"


# ---------------------------------------------------------------- its parts


def test_streams_of_requests_need_an_http_json_1_0_agent(
    client: ClientBinding,
) -> None:
    async def requests() -> AsyncIterator[dict[str, Any]]:
        yield {}

    for binding, version in (("jsonrpc", None), ("http+json", "0.3")):
        backend = HttpBackend(
            "http://agent.test/", client=client, binding=binding, version=version
        )
        with pytest.raises(A2AError, match="cannot carry") as refused:
            _run(_using(backend, lambda b: b.client_stream("X", requests())))
        assert refused.value.kind.name == "UnsupportedOperationError"


def test_the_backend_closes_its_own_client_only(client: ClientBinding) -> None:
    async def work() -> tuple[bool, bool]:
        given = httpx.AsyncClient()
        with_given = HttpBackend("https://agent.test/", client=client, http=given)
        own = HttpBackend("https://agent.test/", client=client)
        await with_given.aclose()
        await own.aclose()
        closed = (given.is_closed, own.http.is_closed)
        await given.aclose()
        return closed

    assert _run(work()) == (False, True)


def test_a_binding_or_url_it_cannot_speak_is_refused() -> None:
    with pytest.raises(ValueError, match="binding must be"):
        HttpBackend("http://a/", client=None, binding="grpc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is not http:// or https://"):
        HttpBackend("agent:50051", client=None)  # type: ignore[arg-type]

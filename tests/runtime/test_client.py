"""The client helpers runtime (``codegen/runtime/client/_client.py``).

``ClientBinding`` is built over the committed package's tables (``routes.build``,
``jsonrpc.request``, ``protocol.request_headers``, ``jsonrpc.METHODS``), so what is
checked is what the generated ``client.py`` sends and reads: URLs, headers and bodies
per binding, responses, every error form, and event streams split anywhere.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from types import ModuleType
from typing import Any

import pytest

from codegen.runtime._client import (
    AuthenticationRequired,
    ClientBinding,
    PreparedRequest,
    ResponseError,
    is_event_stream,
)
from codegen.runtime._jsonrpc import JsonRpcError
from codegen.runtime._errors import A2A_ERRORS, A2AError
from codegen.runtime._failure import UNAUTHENTICATED_CODE

BASE = "http://agent.test/a2a/"


@pytest.fixture(scope="module")
def client(a2a: ModuleType) -> ClientBinding:
    import importlib

    protocol = importlib.import_module("a2a_binding.protocol")
    return ClientBinding(
        build=a2a.routes.build,
        jsonrpc_request=a2a.jsonrpc.request,
        headers=protocol.request_headers,
        methods=a2a.jsonrpc.METHODS,
    )


def test_http_json_get_with_query_and_escaped_path(client: ClientBinding) -> None:
    prepared = client.prepare(
        "GetTask", {"id": "a/b c", "historyLength": 2}, base_url=BASE, tenant="t 1"
    )
    assert prepared == PreparedRequest(
        "GET",
        "http://agent.test/a2a/t%201/tasks/a%2Fb%20c?historyLength=2",
        [("A2A-Version", "1.0")],
        None,
    )


def test_http_json_post_body_and_extensions(client: ClientBinding) -> None:
    prepared = client.prepare(
        "SendMessage",
        {"message": {"messageId": "m", "parts": [{"text": "é"}]}},
        base_url="http://agent.test",
        extensions=["urn:a", "urn:b"],
    )
    assert (
        prepared.method == "POST" and prepared.url == "http://agent.test/message:send"
    )
    assert prepared.headers == [
        ("A2A-Version", "1.0"),
        ("Content-Type", "application/a2a+json"),
        ("A2A-Extensions", "urn:a, urn:b"),
    ]
    assert json.loads(prepared.body or b"") == {
        "message": {"messageId": "m", "parts": [{"text": "é"}]}
    }


def test_subscribe_is_a_post_and_streams_ask_for_sse(client: ClientBinding) -> None:
    prepared = client.prepare("SubscribeToTask", {"id": "t1"}, base_url=BASE)
    assert prepared.method == "POST" and prepared.url.endswith("/tasks/t1:subscribe")
    assert ("Accept", "text/event-stream") in prepared.headers


def test_query_values_are_percent_encoded_not_plus(client: ClientBinding) -> None:
    prepared = client.prepare("ListTasks", {"contextId": "a b&c"}, base_url=BASE)
    assert prepared.url == "http://agent.test/a2a/tasks?contextId=a%20b%26c"


def test_jsonrpc_request_and_default_id(client: ClientBinding) -> None:
    prepared = client.prepare(
        "GetTask", {"id": "t1"}, base_url=BASE, binding="jsonrpc", tenant="acme", id=7
    )
    assert prepared.method == "POST" and prepared.url == BASE
    assert prepared.headers == [
        ("A2A-Version", "1.0"),
        ("Content-Type", "application/json"),
    ]
    assert json.loads(prepared.body or b"") == {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "GetTask",
        "params": {"id": "t1", "tenant": "acme"},
    }
    first = json.loads(
        client.prepare("GetTask", {"id": "t"}, base_url=BASE, binding="jsonrpc").body
        or b""
    )
    second = json.loads(
        client.prepare("GetTask", {"id": "t"}, base_url=BASE, binding="jsonrpc").body
        or b""
    )
    assert (
        isinstance(first["id"], str)
        and len(first["id"]) == 36
        and first["id"] != second["id"]
    )


def test_jsonrpc_tenant_in_path(client: ClientBinding) -> None:
    prepared = client.prepare(
        "GetTask",
        {"id": "t1"},
        base_url=BASE,
        binding="jsonrpc",
        tenant="a/b",
        tenant_in_path=True,
        id=1,
    )
    assert prepared.url == "http://agent.test/a2a/a%2Fb"
    assert json.loads(prepared.body or b"")["params"] == {"id": "t1"}


def test_unknown_binding_and_rpc(client: ClientBinding) -> None:
    with pytest.raises(ValueError, match="binding"):
        client.prepare("GetTask", {"id": "t"}, base_url=BASE, binding="grpc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="binding"):
        client.read_response("GetTask", 200, [], b"{}", binding="grpc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="path field 'id' is missing"):
        client.prepare("GetTask", {}, base_url=BASE)


def test_read_http_json_responses(client: ClientBinding) -> None:
    assert client.read_response("GetTask", 200, [], b'{"id": "t1"}') == {"id": "t1"}
    assert client.read_response("DeleteTaskPushNotificationConfig", 200, {}, b"") == {}
    assert (
        client.read_response("DeleteTaskPushNotificationConfig", 204, {}, b"  ") == {}
    )
    with pytest.raises(ResponseError, match="not an object") as caught:
        client.read_response("GetTask", 200, [], b"[1]")
    assert caught.value.status == 200
    with pytest.raises(ResponseError, match="not JSON") as not_json:
        client.read_response("GetTask", 502, [], b"<html>bad gateway</html>")
    assert not_json.value.status == 502 and not_json.value.body.startswith(b"<html>")


def test_response_body_field_is_wrapped() -> None:
    class Route:
        response_body = "value"

    class Method:
        server_streaming = False
        client_streaming = False
        routes = (Route(),)

    client = ClientBinding(
        build=lambda *a, **k: None,
        jsonrpc_request=lambda *a, **k: ("/", {}),
        headers=lambda *a, **k: [],
        methods={"Put": Method()},
    )  # type: ignore[dict-item]
    assert client.read_response("Put", 200, [], b'{"a": 1}') == {"value": {"a": 1}}


def test_http_json_a2a_error_is_raised(client: ClientBinding) -> None:
    status, body = A2AError(
        "TaskNotFoundError", "no task", metadata={"taskId": "t1"}
    ).to_http()
    with pytest.raises(A2AError) as caught:
        client.read_response("GetTask", status, [], json.dumps(body).encode())
    assert caught.value.kind is A2A_ERRORS["TaskNotFoundError"]
    assert caught.value.message == "no task" and caught.value.metadata == {
        "taskId": "t1"
    }


def test_http_json_other_errors(client: ClientBinding) -> None:
    status = {
        "error": {"code": 404, "status": "NOT_FOUND", "message": "GET /x: no route"}
    }
    with pytest.raises(ResponseError, match="HTTP 404: GET /x: no route") as caught:
        client.read_response("GetTask", 404, [], json.dumps(status).encode())
    assert caught.value.error == status["error"]
    with pytest.raises(ResponseError, match="HTTP 500: HTTP status 500"):
        client.read_response("GetTask", 500, [], b"")


def test_a_refused_credential_is_one_typed_error_on_both_bindings(
    client: ClientBinding,
) -> None:
    """What the real app answers for ``Unauthenticated``: HTTP+JSON 401 with a Status,
    JSON-RPC 200 with -31001; both with WWW-Authenticate. One exception for both, and
    still the ResponseError and JsonRpcError callers caught before."""
    from tests.runtime.test_asgi import V, drive, make_app, rpc_body, run

    app = make_app()
    http = run(
        drive(
            app, "POST", "/message:send", body=b'{"text": "unauthenticated"}', headers=V
        )
    )
    body = rpc_body("Send", {"text": "unauthenticated"}, request_id="r1")
    jsonrpc = run(drive(app, "POST", "/", body=body, headers=V))
    caught = []
    for binding, answer in (("http+json", http), ("jsonrpc", jsonrpc)):
        with pytest.raises(AuthenticationRequired) as refused:
            client.read_response(
                "GetTask",
                answer.status,
                answer.raw_headers,
                answer.body,
                binding=binding,  # type: ignore[arg-type]
            )
        caught.append(refused.value)
    for error in caught:
        assert isinstance(error, ResponseError) and isinstance(error, JsonRpcError)
        assert error.challenge == 'Bearer realm="unit"'
        assert error.message == "who are you?" and error.code == UNAUTHENTICATED_CODE
        assert str(error) == "authentication required: who are you?"
    assert (caught[0].status, caught[1].status) == (401, 200)
    assert caught[0].error == {
        "code": 401,
        "status": "UNAUTHENTICATED",
        "message": "who are you?",
    }
    assert caught[1].id == "r1" and caught[1].to_dict()["code"] == -31001


@pytest.mark.parametrize(
    "binding, status, headers, body, challenge, code",
    [
        # A 401 whatever it holds (a proxy's HTML), with or without a challenge.
        (
            "http+json",
            401,
            [("WWW-Authenticate", "Basic")],
            b"<h1>no</h1>",
            "Basic",
            -31001,
        ),
        ("http+json", 401, {}, b"", None, -31001),
        ("jsonrpc", 401, [(b"www-authenticate", b"Bearer")], b"", "Bearer", -31001),
        # A server-chosen code with the challenge header; the default code without it.
        (
            "jsonrpc",
            200,
            [("WWW-Authenticate", "Bearer"), ("www-authenticate", "Basic")],
            b'{"jsonrpc": "2.0", "id": 1, "error": {"code": -31002, "message": "m"}}',
            "Bearer, Basic",
            -31002,
        ),
        (
            "jsonrpc",
            200,
            [],
            b'{"jsonrpc": "2.0", "id": 1, "error": {"code": -31001, "message": "m"}}',
            None,
            -31001,
        ),
    ],
)
def test_authentication_required_forms(
    client: ClientBinding,
    binding: Any,
    status: int,
    headers: Any,
    body: bytes,
    challenge: str | None,
    code: int,
) -> None:
    with pytest.raises(AuthenticationRequired) as caught:
        client.read_response("GetTask", status, headers, body, binding=binding)
    assert (caught.value.challenge, caught.value.code) == (challenge, code)
    assert caught.value.status == status and caught.value.body == body


def test_other_errors_are_not_authentication(client: ClientBinding) -> None:
    """A 403, or a JSON-RPC error with another code and no challenge, stays what it was."""
    forbidden = (
        b'{"error": {"code": 403, "status": "PERMISSION_DENIED", "message": "no"}}'
    )
    with pytest.raises(ResponseError) as http:
        client.read_response(
            "GetTask", 403, [("WWW-Authenticate", "Bearer")], forbidden
        )
    assert not isinstance(http.value, AuthenticationRequired)
    other = b'{"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}}'
    with pytest.raises(JsonRpcError) as rpc:
        client.read_response("GetTask", 200, [], other, binding="jsonrpc")
    assert not isinstance(rpc.value, AuthenticationRequired)


def test_read_jsonrpc_responses(client: ClientBinding) -> None:
    ok = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"id": "t"}}).encode()
    assert client.read_response("GetTask", 200, [], ok, binding="jsonrpc") == {
        "id": "t"
    }
    empty = json.dumps({"jsonrpc": "2.0", "id": 1, "result": None}).encode()
    assert (
        client.read_response(
            "DeleteTaskPushNotificationConfig", 200, [], empty, binding="jsonrpc"
        )
        == {}
    )


def test_jsonrpc_errors(client: ClientBinding) -> None:
    a2a = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "error": A2AError("TaskNotCancelableError", "done").to_jsonrpc(1).to_dict(),
        }
    ).encode()
    with pytest.raises(A2AError) as caught:
        client.read_response("CancelTask", 200, [], a2a, binding="jsonrpc")
    assert caught.value.kind.code == -32002
    other = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "error": {"code": -32601, "message": "nope", "data": 1},
        }
    )
    with pytest.raises(JsonRpcError) as rpc_error:
        client.read_response("GetTask", 200, [], other.encode(), binding="jsonrpc")
    assert (
        rpc_error.value.code,
        rpc_error.value.message,
        rpc_error.value.data,
        rpc_error.value.id,
    ) == (-32601, "nope", 1, 2)
    no_message = json.dumps({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000}})
    with pytest.raises(JsonRpcError):
        client.read_response("GetTask", 200, [], no_message.encode(), binding="jsonrpc")


@pytest.mark.parametrize(
    "payload, text",
    [
        ([], "not an object"),
        ({"jsonrpc": "2.0", "id": 1, "error": "bad"}, "malformed JSON-RPC error"),
        ({"jsonrpc": "2.0", "id": 1}, "neither result nor error"),
        ({"jsonrpc": "2.0", "id": 1, "result": [1]}, "result is list"),
    ],
)
def test_malformed_jsonrpc_answers(
    client: ClientBinding, payload: Any, text: str
) -> None:
    with pytest.raises(ResponseError, match=text):
        client.read_response(
            "GetTask", 200, [], json.dumps(payload).encode(), binding="jsonrpc"
        )


def _split(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


HTTP_STREAM = (
    b'id: 0\ndata: {"task": {"id": "t"}}\n\n'
    b'id: 1\r\ndata: {"statusUpdate": {"taskId": "t"}}\r\n\r\n'
)


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_read_http_json_stream_split_anywhere(client: ClientBinding, size: int) -> None:
    events = list(client.read_stream("SendStreamingMessage", _split(HTTP_STREAM, size)))
    assert events == [{"task": {"id": "t"}}, {"statusUpdate": {"taskId": "t"}}]


def test_read_streams_raise_on_error_events(client: ClientBinding) -> None:
    _, body = A2AError("UnsupportedOperationError", "terminal").to_http()
    stream = HTTP_STREAM + b"data: " + json.dumps(body).encode() + b"\n\n"
    seen: list[Any] = []
    with pytest.raises(A2AError, match="terminal"):
        for event in client.read_stream("SubscribeToTask", [stream]):
            seen.append(event)
    assert len(seen) == 2
    with pytest.raises(ResponseError, match="not an object"):
        list(client.read_stream("SubscribeToTask", [b"data: [1]\n\n"]))
    with pytest.raises(ResponseError, match="not JSON"):
        list(client.read_stream("SubscribeToTask", [b"data: {oops\n\n"]))


def test_read_jsonrpc_stream_async(client: ClientBinding) -> None:
    envelopes = [
        {"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t"}}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": -32603, "message": "internal error"},
        },
    ]
    data = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in envelopes)

    async def chunks() -> AsyncIterator[bytes]:
        for chunk in _split(data, 7):
            yield chunk

    async def collect() -> tuple[list[Any], BaseException | None]:
        seen: list[Any] = []
        try:
            async for event in client.aread_stream(
                "SendStreamingMessage", chunks(), binding="jsonrpc"
            ):
                seen.append(event)
        except JsonRpcError as exc:
            return seen, exc
        return seen, None

    seen, error = asyncio.run(collect())
    assert (
        seen == [{"task": {"id": "t"}}]
        and isinstance(error, JsonRpcError)
        and error.code == -32603
    )


@pytest.mark.parametrize(
    "headers, expected",
    [
        ([("Content-Type", "text/event-stream; charset=utf-8")], True),
        ([(b"content-type", b"application/json")], False),
        ({"content-type": "text/event-stream"}, True),
        ([], False),
    ],
)
def test_is_event_stream(headers: Iterable[Any], expected: bool) -> None:
    assert is_event_stream(headers) is expected


# ----------------------------------------------- hostile servers, odd requests (issue 14)

DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize("binding", ["http+json", "jsonrpc"])
@pytest.mark.parametrize("status", [200, 500])
def test_a_deeply_nested_answer_is_a_response_error(
    client: ClientBinding, binding: Any, status: int
) -> None:
    """json.loads raises RecursionError, which left read_response as is."""
    with pytest.raises(ResponseError, match="not JSON"):
        client.read_response("GetTask", status, [], DEEP, binding=binding)


@pytest.mark.parametrize("binding", ["http+json", "jsonrpc"])
def test_a_deeply_nested_event_is_a_response_error(
    client: ClientBinding, binding: Any
) -> None:
    stream = client.read_stream(
        "SendStreamingMessage", [b"data: " + DEEP + b"\n\n"], binding=binding
    )
    with pytest.raises(ResponseError, match="not JSON"):
        list(stream)


def test_a_jsonrpc_error_whose_code_is_a_boolean_is_malformed(
    client: ClientBinding,
) -> None:
    body = b'{"jsonrpc":"2.0","id":1,"error":{"code":true,"message":"x"}}'
    with pytest.raises(ResponseError, match="malformed JSON-RPC error"):
        client.read_response("GetTask", 200, [], body, binding="jsonrpc")


@pytest.mark.parametrize("binding", ["http+json", "jsonrpc"])
@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_request_json_cannot_carry_is_refused_before_sending(
    client: ClientBinding, binding: Any, value: float
) -> None:
    """A NaN went out as a bare ``NaN``, which no JSON parser (nor our server) reads."""
    request = {"id": "t", "metadata": {"score": value}}
    with pytest.raises(ValueError, match="CancelTask: the request is not JSON"):
        client.prepare("CancelTask", request, base_url=BASE, binding=binding)


def test_a_stream_that_never_ends_its_line_is_a_response_error(
    client: ClientBinding, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codegen.runtime import _sse_parser

    monkeypatch.setattr(_sse_parser, "MAX_SSE_EVENT_CHARS", 1000)
    monkeypatch.setattr(
        _sse_parser.SseDecoder.__init__, "__kwdefaults__", {"max_event_chars": 1000}
    )
    endless = (b"data: " + b"x" * 100 for _ in range(100))
    with pytest.raises(ResponseError, match="longer than 1000"):
        list(client.read_stream("SubscribeToTask", endless))

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(100):
            yield b"data: " + b"y" * 100

    async def read() -> None:
        async for _ in client.aread_stream("SubscribeToTask", chunks()):
            pass

    with pytest.raises(ResponseError, match="longer than 1000"):
        asyncio.run(read())


def test_prepare_validates_when_asked(a2a: ModuleType) -> None:
    """``validate=True``: the server's check, made before sending, with its field
    paths; the request goes out in canonical form."""
    import importlib

    protocol = importlib.import_module("a2a_binding.protocol")
    checked = ClientBinding(
        build=a2a.routes.build,
        jsonrpc_request=a2a.jsonrpc.request,
        headers=protocol.request_headers,
        methods=a2a.jsonrpc.METHODS,
        schema=a2a.messages.SCHEMA,
    )
    bad = {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": 5}]}}
    with pytest.raises(ValueError) as refused:
        checked.prepare("SendMessage", bad, base_url=BASE, validate=True)
    assert [f for f, _ in refused.value.violations] == ["message.parts[0].text"]  # type: ignore[attr-defined]
    good = {"message": {"message_id": "m", "role": 1, "parts": [{"text": "hi"}]}}
    sent = checked.prepare("SendMessage", good, base_url=BASE, validate=True)
    assert sent.body is not None and json.loads(sent.body) == {
        "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    }
    assert checked.prepare("SendMessage", bad, base_url=BASE).body is not None
    unchecked = ClientBinding(
        build=a2a.routes.build,
        jsonrpc_request=a2a.jsonrpc.request,
        headers=protocol.request_headers,
        methods=a2a.jsonrpc.METHODS,
    )
    with pytest.raises(ValueError, match="no schema"):
        unchecked.prepare("SendMessage", good, base_url=BASE, validate=True)

"""The JSON-RPC runtime (``codegen/runtime/tables/_jsonrpc.py``), imported directly.

The order of the envelope checks (-32700, -32600, -32601, -32602), the id echoed once
it could be read, notifications, the tenant in params against the endpoint's, the
client's ``request``, ``endpoint_tenant`` and SSE framing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.runtime import _jsonrpc as j
from codegen.runtime._jsonrpc import JsonRpcBinding, JsonRpcError, Method
from codegen.runtime._jsonrpc import response_bytes
from codegen.runtime._sse import sse_frame

METHODS = {
    "GetTask": Method("GetTask", "t.GetTaskRequest", "t.Task", False, ()),
    "Subscribe": Method("Subscribe", "t.SubscribeRequest", "t.Event", True, ()),
}
BINDING = JsonRpcBinding(METHODS, tenant_field="tenant")
NO_TENANT = JsonRpcBinding(METHODS)


def error_of(payload: object, **options: Any) -> JsonRpcError:
    with pytest.raises(JsonRpcError) as caught:
        BINDING.parse_request(payload, **options)
    return caught.value


def test_constants() -> None:
    assert (j.PARSE_ERROR, j.INVALID_REQUEST, j.METHOD_NOT_FOUND) == (
        -32700,
        -32600,
        -32601,
    )
    assert (j.INVALID_PARAMS, j.INTERNAL_ERROR) == (-32602, -32603)


def test_valid_requests() -> None:
    request = BINDING.parse_request(
        b'{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"x"}}'
    )
    assert request == j.Request(7, "GetTask", {"id": "x"}, False, False)
    streaming = BINDING.parse_request('{"jsonrpc":"2.0","id":"a","method":"Subscribe"}')
    assert (streaming.id, streaming.params, streaming.streaming) == ("a", {}, True)
    null_id = BINDING.parse_request({"jsonrpc": "2.0", "id": None, "method": "GetTask"})
    assert null_id.id is None and not null_id.notification
    notification = BINDING.parse_request({"jsonrpc": "2.0", "method": "GetTask"})
    assert notification.id is None and notification.notification
    assert (
        BINDING.parse_request({"jsonrpc": "2.0", "id": 3.0, "method": "GetTask"}).id
        == 3.0
    )


@pytest.mark.parametrize(
    ("payload", "code", "text", "request_id"),
    [
        # Parse errors first.
        (b"\xff{", -32700, "not UTF-8", None),
        ("{", -32700, "Parse error", None),
        (
            '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"a":NaN}}',
            -32700,
            "NaN is not JSON",
            None,
        ),
        ('{"id":' + "1" * 5000 + "}", -32700, "Parse error", None),
        ("[" * 100_000 + "]" * 100_000, -32700, "nested too deeply", None),
        # Then the envelope, with no id while it cannot be read.
        ("[]", -32600, "batch", None),
        ("5", -32600, "must be a JSON object", None),
        ('{"jsonrpc":"2.0","id":true,"method":"GetTask"}', -32600, "id must be", None),
        ('{"jsonrpc":"2.0","id":1.5,"method":"GetTask"}', -32600, "id must be", None),
        ('{"jsonrpc":"2.0","id":{},"method":"Nope"}', -32600, "id must be", None),
        # Once the id is readable every error answers it.
        ('{"jsonrpc":"1.0","id":7,"method":"GetTask"}', -32600, '"2.0"', 7),
        ('{"id":7,"method":"GetTask"}', -32600, '"2.0"', 7),
        ('{"jsonrpc":"2.0","id":"r","method":5}', -32600, '"method" must be', "r"),
        ('{"jsonrpc":"2.0","id":1}', -32600, '"method" must be', 1),
        (
            '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":null}',
            -32600,
            '"params"',
            1,
        ),
        (
            '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":"x"}',
            -32600,
            '"params"',
            1,
        ),
        # A malformed envelope beats an unknown method, which beats bad params.
        ('{"jsonrpc":"2.0","id":1,"method":"Nope","params":5}', -32600, '"params"', 1),
        (
            '{"jsonrpc":"2.0","id":1,"method":"Nope","params":[]}',
            -32601,
            "Method not found: Nope",
            1,
        ),
        (
            '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":[1]}',
            -32602,
            "object, not an array",
            1,
        ),
    ],
)
def test_errors_in_order(
    payload: str | bytes, code: int, text: str, request_id: object
) -> None:
    error = error_of(payload)
    assert error.code == code
    assert text in error.message
    assert error.id == request_id


def test_tenant_in_params_and_endpoint() -> None:
    payload = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}
    assert BINDING.parse_request(payload, tenant="t1").params == {
        "id": "x",
        "tenant": "t1",
    }
    same = dict(payload, params={"tenant": "t1"})
    assert BINDING.parse_request(same, tenant="t1").params == {"tenant": "t1"}
    empty = dict(payload, params={"tenant": ""})
    assert BINDING.parse_request(empty, tenant="t1").params == {"tenant": "t1"}
    # No path tenant: the params' own tenant is kept.
    assert BINDING.parse_request(same, tenant="").params == {"tenant": "t1"}
    assert BINDING.parse_request(same).params == {"tenant": "t1"}
    error = error_of(dict(payload, params={"tenant": "t2"}), tenant="t1")
    assert (error.code, error.id) == (-32602, 1)
    assert "'t2' differs from the endpoint's tenant 't1'" in error.message
    # A binding without a tenant field leaves params alone.
    assert NO_TENANT.parse_request(payload, tenant="t1").params == {"id": "x"}


def test_error_objects_and_envelopes() -> None:
    error = JsonRpcError(-32001, "Task not found", [{"reason": "TASK_NOT_FOUND"}], id=4)
    assert str(error) == "-32001: Task not found"
    assert error.to_dict() == {
        "code": -32001,
        "message": "Task not found",
        "data": [{"reason": "TASK_NOT_FOUND"}],
    }
    assert JsonRpcError(-32600, "x").to_dict() == {"code": -32600, "message": "x"}
    assert j.success(4, {"a": 1}) == {"jsonrpc": "2.0", "id": 4, "result": {"a": 1}}
    assert j.failure(None, JsonRpcError(-32700, "p")) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "p"},
    }


def test_client_request() -> None:
    assert BINDING.request("GetTask", {"id": "x"}, 1) == (
        "/",
        {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}},
    )
    path, envelope = BINDING.request("GetTask", {"id": "x"}, "a", tenant="t1")
    assert path == "/" and envelope["params"] == {"id": "x", "tenant": "t1"}
    path, envelope = BINDING.request(
        "GetTask", {"id": "x", "tenant": "t 1"}, 2, tenant="t 1", tenant_in_path=True
    )
    assert path == "/t%201" and envelope["params"] == {"id": "x"}
    path, _ = BINDING.request(
        "GetTask", {}, 2, tenant="t", tenant_in_path=True, base="/rpc/"
    )
    assert path == "/rpc/t"
    assert BINDING.request("GetTask", {}, 2, base="/rpc")[0] == "/rpc"
    with pytest.raises(ValueError, match="unknown method 'Nope'"):
        BINDING.request("Nope", {}, 1)
    with pytest.raises(ValueError, match="differs from params tenant"):
        BINDING.request("GetTask", {"tenant": "a"}, 1, tenant="b")
    with pytest.raises(ValueError, match="no tenant field"):
        NO_TENANT.request("GetTask", {}, 1, tenant="t")
    assert NO_TENANT.request("GetTask", {}, 1, tenant="")[1]["params"] == {}


@pytest.mark.parametrize(
    ("path", "base", "tenant"),
    [
        ("/", "/", ""),
        ("/t1", "/", "t1"),
        ("/t1/", "/", "t1"),
        ("/t%201", "/", "t 1"),
        ("/t1/x", "/", None),
        ("//", "/", None),
        ("", "/", None),
        ("t1", "/", None),
        ("/%zz", "/", None),
        ("/%FF", "/", None),
        ("/rpc", "/rpc", ""),
        ("/rpc/", "/rpc/", ""),
        ("/rpc/t1", "rpc", "t1"),
        ("/rpc/t1/", "/rpc", "t1"),
        ("/rpcx", "/rpc", None),
        ("/other/t1", "/rpc", None),
        ("/rpc/t1/x", "/rpc", None),
    ],
)
def test_endpoint_tenant(path: str, base: str, tenant: str | None) -> None:
    assert j.endpoint_tenant(path, base) == tenant


def test_sse_event() -> None:
    envelope = j.success(1, {"text": "a\nb é"})
    assert j.sse_event(envelope) == (
        'data: {"jsonrpc":"2.0","id":1,"result":{"text":"a\\nb é"}}\n\n'.encode()
    )
    framed = j.sse_event(envelope, event_id=0)
    assert framed.startswith(b"id: 0\ndata: ") and framed.endswith(b"\n\n")
    assert j.sse_event({}, event_id="e-1") == b"id: e-1\ndata: {}\n\n"
    for bad in ("a\nb", "a\rb", "a\0b"):
        with pytest.raises(ValueError, match="SSE event_id"):
            j.sse_event({}, event_id=bad)


def test_sse_event_is_framed_as_the_server_frames_its_streams() -> None:
    """One encoder and one framer: no NaN on the wire, lone surrogates escaped."""
    with pytest.raises(ValueError):
        j.sse_event(j.success(1, {"x": float("nan")}))
    framed = j.sse_event(j.success("\ud800", {"text": "a\udfff"}), event_id=3)
    assert (
        framed
        == b'id: 3\ndata: {"jsonrpc":"2.0","id":"\\ud800","result":{"text":"a\\udfff"}}\n\n'
    )
    assert framed == sse_frame(
        response_bytes("\ud800", "result", {"text": "a\udfff"}), event_id=3
    )


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "jsonrpc": st.sampled_from(["2.0", "1.0", 2]),
            "id": st.one_of(st.integers(), st.text(max_size=3), st.none(), _JSON),
            "method": st.sampled_from(["GetTask", "Subscribe", "Nope", 5]),
            "params": _JSON,
        },
    ),
    st.one_of(st.none(), st.sampled_from(["", "t1"])),
)
def test_parse_request_matches_the_order_of_checks(
    envelope: dict[str, Any], tenant: str | None
) -> None:
    """A brute-force reading of the order: the first failing check gives the code."""
    request_id = envelope.get("id")
    id_ok = request_id is None or (
        isinstance(request_id, (str, int))
        and not isinstance(request_id, bool)
        or isinstance(request_id, float)
        and request_id.is_integer()
    )
    params = envelope.get("params", {})
    expected: int | None
    if not id_ok:
        expected = -32600
    elif envelope.get("jsonrpc") != "2.0" or not isinstance(
        envelope.get("method"), str
    ):
        expected = -32600
    elif not isinstance(params, (dict, list)):
        expected = -32600
    elif envelope["method"] not in METHODS:
        expected = -32601
    elif isinstance(params, list):
        expected = -32602
    elif tenant and params.get("tenant") and params.get("tenant") != tenant:
        expected = -32602
    else:
        expected = None
    for payload in (envelope, json.dumps(envelope)):
        if expected is None:
            request = BINDING.parse_request(payload, tenant=tenant)
            assert request.notification == ("id" not in envelope)
            assert request.id == request_id
            continue
        with pytest.raises(JsonRpcError) as caught:
            BINDING.parse_request(payload, tenant=tenant)
        assert caught.value.code == expected
        assert caught.value.id == (request_id if id_ok else None)


@pytest.mark.parametrize("number", ["1e999", "-1e999"])
def test_a_number_beyond_a_double_is_a_parse_error(number: str) -> None:
    from codegen.runtime._jsonrpc import JsonRpcError, decode_json

    with pytest.raises(JsonRpcError) as raised:
        decode_json('{"jsonrpc": "2.0", "id": 1, "params": {"x": ' + number + "}}")
    assert raised.value.code == -32700 and "beyond a double" in raised.value.message
    assert decode_json("[1e308, 2.5]") == [1e308, 2.5]

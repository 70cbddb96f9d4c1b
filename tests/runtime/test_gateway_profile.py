"""Serving any gRPC service (no A2A profile): ``_status`` (codes, the HTTP status
``google.rpc.Code`` documents for each, ``RpcError``), ``_profile`` (the error forms,
grpc-gateway's streams, the NDJSON choice), and the ASGI application with
``profile=GATEWAY``, no card and no version check.

The HTTP+JSON error is the contract's ``{"error": {"code": <HTTP status>, "status":
<name>, "message", "details"}}``, the A2A binding's form, not grpc-gateway's bare
``{"code": <gRPC number>, "message", "details"}``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from codegen.runtime._errors import A2AError
from codegen.runtime._failure import Failure, bad_request, failure_of
from codegen.runtime._headers import RequestHead
from codegen.runtime._params import NO_PARAMS
from codegen.runtime._profile import A2A, GATEWAY, NDJSON, prefers_ndjson
from codegen.runtime._request import CallContext
from codegen.runtime._responses import SSE
from codegen.runtime._status import (
    CODES,
    HTTP_STATUS,
    SERVER_ERROR,
    RpcError,
    jsonrpc_code,
)
from codegen.runtime._sse_parser import parse_sse

from ..google_rpc import documented_http_mapping
from .test_asgi import JSON, V, Handler, drive, make_app, rpc_body, run

# ------------------------------------------------------------------- _status


def test_every_code_has_a_number_and_an_http_status() -> None:
    assert set(CODES) == set(HTTP_STATUS) and len(CODES) == 17
    assert sorted(CODES.values()) == list(range(17))
    # The ones that differ from a first guess.
    assert HTTP_STATUS["FAILED_PRECONDITION"] == 400  # not 412
    assert HTTP_STATUS["CANCELLED"] == 499
    assert HTTP_STATUS["RESOURCE_EXHAUSTED"] == 429
    assert HTTP_STATUS["DEADLINE_EXCEEDED"] == 504


def test_the_http_statuses_are_the_ones_google_rpc_code_documents() -> None:
    documented = documented_http_mapping()
    if documented is None:
        pytest.skip("googleapis-common-protos ships no google/rpc/code.proto here")
    assert documented == {name: (CODES[name], HTTP_STATUS[name]) for name in CODES}


def test_rpc_error() -> None:
    error = RpcError("ALREADY_EXISTS", "there", [{"@type": "x"}])
    assert (error.code, error.message, error.details) == (
        "ALREADY_EXISTS",
        "there",
        ({"@type": "x"},),
    )
    assert error.http_status == 409 and str(error) == "there"
    assert (
        repr(error) == "RpcError('ALREADY_EXISTS', 'there', details=({'@type': 'x'},))"
    )
    for wrong in ("OK", "not_found", "TEAPOT"):
        with pytest.raises(ValueError, match="is not a gRPC error code"):
            RpcError(wrong, "m")


def test_jsonrpc_codes() -> None:
    assert jsonrpc_code("INVALID_ARGUMENT") == -32602
    assert jsonrpc_code("UNIMPLEMENTED") == -32601
    assert jsonrpc_code("INTERNAL") == -32603
    assert jsonrpc_code("NOT_FOUND") == SERVER_ERROR == -32000


def test_failure_of_an_rpc_error_and_its_two_renderings() -> None:
    detail = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "R"}
    failure = failure_of(RpcError("NOT_FOUND", "gone", [detail]))
    assert failure == Failure(404, "NOT_FOUND", "gone", -32000, (detail,), [detail])
    assert json.loads(failure.http_body()) == {
        "error": {
            "code": 404,
            "status": "NOT_FOUND",
            "message": "gone",
            "details": [detail],
        }
    }
    status = {
        "code": 404,
        "status": "NOT_FOUND",
        "message": "gone",
        "details": [detail],
    }
    assert failure.rpc_status() == status
    assert json.loads(failure.http_body()) == {"error": failure.rpc_status()}
    assert failure.jsonrpc_status_error() == {
        "code": -32000,
        "message": "gone",
        "data": status,
    }
    bare = failure_of(RpcError("UNAVAILABLE", "down"))
    assert bare is not None and bare.data is None and bare.http_status == 503
    # No details: the Status has none (as A2A's body always did).
    assert bare.rpc_status() == {
        "code": 503,
        "status": "UNAVAILABLE",
        "message": "down",
    }
    refused = bad_request("bad", [("f", "d")])
    assert refused.jsonrpc_status_error()["data"]["status"] == "INVALID_ARGUMENT"


# ------------------------------------------------------------------ _profile


@pytest.mark.parametrize(
    ("accept", "ndjson"),
    [
        ([], False),
        (["application/x-ndjson"], True),
        (["Application/JSONL"], True),
        (["application/ndjson; q=0.9"], True),
        (["text/event-stream, application/x-ndjson"], False),  # a tie: SSE
        (["text/event-stream;q=0.5", "application/x-ndjson"], True),
        (["application/x-ndjson;q=0.2, text/event-stream;q=0.4"], False),
        (["application/x-ndjson;q=0"], False),
        (["application/x-ndjson;q=oops"], False),  # an unreadable q counts as 0
        (["application/x-ndjson;q=7"], True),  # clamped to 1
        (["*/*"], False),
        (["application/json"], False),
    ],
)
def test_prefers_ndjson(accept: list[str], ndjson: bool) -> None:
    assert prefers_ndjson(accept) is ndjson


def test_the_gateway_profiles_forms() -> None:
    failure = failure_of(RpcError("ABORTED", "again"))
    assert failure is not None
    assert GATEWAY.http_body(failure) == A2A.http_body(failure) == failure.http_body()
    assert json.loads(GATEWAY.http_body(failure)) == {
        "error": {"code": 409, "status": "ABORTED", "message": "again"}
    }
    assert GATEWAY.jsonrpc_error(failure)["data"] == failure.rpc_status()
    assert GATEWAY.content_type == "application/json"
    assert A2A.content_type == "application/a2a+json"
    assert A2A.jsonrpc_error(failure) == failure.jsonrpc_error()
    assert isinstance(A2A.unsupported_content_type("m"), A2AError)
    refusal = failure_of(GATEWAY.unsupported_content_type("m"))
    assert refusal is not None and (refusal.http_status, refusal.status) == (
        415,
        "INVALID_ARGUMENT",
    )
    head = RequestHead([(b"accept", b"application/x-ndjson")])
    assert GATEWAY.framing(head) is NDJSON and A2A.framing(head) is SSE
    assert NDJSON.frame(b'{"a":1}', 0, False) == b'{"result":{"a":1}}\n'
    # An error's chunk is its HTTP+JSON body as it is: {"error": Status}.
    assert NDJSON.frame(failure.http_body(), 3, True) == failure.http_body() + b"\n"
    events = GATEWAY.framing(RequestHead([]))
    (event,) = parse_sse([events.frame(b'{"a":1}', 4, False)])
    assert (event.id, json.loads(event.data)) == ("4", {"result": {"a": 1}})


# ------------------------------------------------------- the application


class Service(Handler):
    """The unit handler, plus answers of gRPC statuses."""

    async def send(self, request: dict[str, Any], context: CallContext) -> Any:
        if request.get("text") == "exists":
            raise RpcError("ALREADY_EXISTS", "it exists", [{"@type": "t/x", "a": 1}])
        return await super().send(request, context)

    async def _events(self, text: str) -> AsyncIterator[Any]:
        if text == "aborted":
            yield {"n": 0}
            raise RpcError("ABORTED", "stopped")
        async for event in super()._events(text):
            yield event


def gateway(**options: Any) -> Any:
    return make_app(
        Service(),
        agent_card=None,
        supported_versions=None,
        profile=GATEWAY,
        **options,
    )


def test_no_version_is_checked_and_no_card_served() -> None:
    handler = Service()
    app = make_app(handler, agent_card=None, supported_versions=None, profile=GATEWAY)
    answer = run(drive(app, "GET", "/tasks/t1", headers=[(b"a2a-version", b"7.7")]))
    assert answer.status == 200 and answer.headers["content-type"] == "application/json"
    assert handler.seen[-1][2].params is NO_PARAMS
    card = run(drive(app, "GET", "/.well-known/agent-card.json"))
    assert (card.status, card.json()) == (
        404,
        {
            "error": {
                "code": 404,
                "status": "NOT_FOUND",
                "message": "GET /.well-known/agent-card.json: no route has this path",
            }
        },
    )
    assert app.supported_versions == ()


def test_errors_are_the_google_rpc_status_under_error() -> None:
    app = gateway()
    body = json.dumps({"text": "exists"}).encode()
    answer = run(drive(app, "POST", "/message:send", body=body, headers=JSON))
    assert (answer.status, answer.json()) == (
        409,
        {
            "error": {
                "code": 409,
                "status": "ALREADY_EXISTS",
                "message": "it exists",
                "details": [{"@type": "t/x", "a": 1}],
            }
        },
    )
    assert answer.headers["content-type"] == "application/json"
    wrong = run(drive(app, "PUT", "/tasks/t1"))
    assert (wrong.status, wrong.json()["error"]["status"], wrong.headers["allow"]) == (
        405,
        "UNIMPLEMENTED",
        "DELETE, GET, HEAD",
    )
    text = [(b"content-type", b"text/plain")]
    refused = run(drive(app, "POST", "/message:send", body=b"x", headers=text))
    assert (refused.status, refused.json()["error"]) == (
        415,
        {
            "code": 415,
            "status": "INVALID_ARGUMENT",
            "message": refused.json()["error"]["message"],
        },
    )
    rpc_refused = run(drive(app, "POST", "/", body=b"x", headers=text))
    assert rpc_refused.json()["error"]["code"] == -32600
    invalid = run(
        drive(app, "POST", "/message:send", body=b'{"text": "invalid"}', headers=JSON)
    )
    assert (invalid.status, invalid.json()["error"]["code"]) == (400, 400)
    violations = invalid.json()["error"]["details"][0]["fieldViolations"]
    assert violations[0]["field"] == "text"


@pytest.mark.parametrize("sent", [b"text/plain", b"application/a2a+json"])
def test_a_refused_content_type_lists_what_the_service_reads(sent: bytes) -> None:
    """A service without the A2A profile reads application/json alone (its OpenAPI
    document names that): its 415 says so, never naming A2A's media types."""
    headers = [(b"content-type", sent)]
    shown = repr(sent.decode())
    refused = run(
        drive(gateway(), "POST", "/message:send", body=b"{}", headers=headers)
    )
    assert (refused.status, refused.json()["error"]["message"]) == (
        415,
        f"Content-Type {shown} is not supported here (accepted: application/json)",
    )
    rpc = run(drive(gateway(), "POST", "/", body=rpc_body("Send", {}), headers=headers))
    error = rpc.json()["error"]
    assert (error["code"], error["data"]["message"]) == (
        -32600,
        f"Content-Type {shown} is not supported here (accepted: application/json)",
    )
    # A2A's own service reads both, and lists both.
    a2a = run(
        drive(
            make_app(),
            "POST",
            "/message:send",
            body=b"{}",
            headers=[*V, *[(b"content-type", b"text/plain")]],
        )
    )
    assert a2a.json()["error"]["message"].endswith(
        "(accepted: application/a2a+json, application/json)"
    )
    assert GATEWAY.stream_accepted == {
        "application/json",
        "application/jsonl",
        "application/ndjson",
        "application/x-ndjson",
    }


def test_json_rpc_errors_carry_the_status_in_data() -> None:
    app = gateway()
    answer = run(drive(app, "POST", "/", body=rpc_body("Send", {"text": "exists"})))
    assert answer.status == 200
    assert answer.json()["error"] == {
        "code": -32000,
        "message": "it exists",
        "data": {
            "code": 409,
            "status": "ALREADY_EXISTS",
            "message": "it exists",
            "details": [{"@type": "t/x", "a": 1}],
        },
    }
    unknown = run(drive(app, "POST", "/", body=rpc_body("Nope", {})))
    assert unknown.json()["error"]["code"] == -32601
    # an unknown method is UNIMPLEMENTED, as gRPC answers one
    data = unknown.json()["error"]["data"]
    assert (data["code"], data["status"]) == (501, "UNIMPLEMENTED")


def test_streams_send_grpc_gateways_chunks_as_sse_or_ndjson() -> None:
    app = gateway()
    body = json.dumps({"text": "aborted"}).encode()
    sse = run(drive(app, "POST", "/message:stream", body=body, headers=JSON))
    assert sse.headers["content-type"] == "text/event-stream"
    stopped = {"error": {"code": 409, "status": "ABORTED", "message": "stopped"}}
    assert sse.events() == [("0", {"result": {"n": 0}}), ("1", stopped)]
    accept = [*JSON, (b"accept", b"application/x-ndjson")]
    lines = run(drive(app, "POST", "/message:stream", body=body, headers=accept))
    assert lines.headers["content-type"] == "application/x-ndjson"
    assert [json.loads(line) for line in lines.body.splitlines()] == [
        {"result": {"n": 0}},
        stopped,
    ]
    # A2A's own stream is unchanged: bare events, A2A's error form.
    a2a = run(
        drive(
            make_app(Service()),
            "POST",
            "/message:stream",
            body=body,
            headers=[*JSON, (b"a2a-version", b"1.0")],
        )
    )
    assert a2a.events()[0] == ("0", {"n": 0})
    assert a2a.events()[1][1]["error"]["code"] == 409


def test_without_a_tenant_field_the_json_rpc_endpoint_has_no_tenant_form() -> None:
    body = rpc_body("Get", {"id": "t1"})
    plain = gateway(tenant_field="")
    assert run(drive(plain, "POST", "/", body=body)).json()["result"]["id"] == "t1"
    assert run(drive(plain, "POST", "/acme", body=body)).status == 404
    tenanted = run(drive(gateway(), "POST", "/acme", body=body))
    assert tenanted.json()["result"]["tenant"] == "acme"

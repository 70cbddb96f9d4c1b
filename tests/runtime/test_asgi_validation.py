"""Request validation in the ASGI application: what reaches a handler is valid
ProtoJSON of its request message, in canonical form, on both bindings; refusals are
400 / -32602 with a ``google.rpc.BadRequest`` naming each field; answers are checked
with ``check_responses``.

The service is ``test_asgi.py``'s, with a ``Schema`` for its messages.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from codegen.runtime._asgi import CallContext
from codegen.runtime._validate import FieldRule, Schema
from tests.runtime.test_asgi import Handler, V, drive, make_app, rpc_body, run

SCHEMA = Schema(
    {
        "t.SendRequest": (
            FieldRule("tenant", "string"),
            FieldRule("text", "string"),
            FieldRule("count", "int32"),
            FieldRule("big", "int64"),
            FieldRule("state", "enum", "t.State"),
            FieldRule("part", "message", "t.Part", repeated=True),
        ),
        "t.Part": (
            FieldRule("text_part", "string", oneof="kind"),
            FieldRule("url_part", "string", oneof="kind"),
        ),
        "t.SendResponse": (
            FieldRule("echo", "struct"),
            FieldRule("tenant", "string"),
        ),
        "t.GetRequest": (
            FieldRule("tenant", "string"),
            FieldRule("id", "string", required=True),
            FieldRule("history_length", "int32"),
        ),
        "t.GetResponse": (
            FieldRule("id", "string"),
            FieldRule("tenant", "string"),
            FieldRule("binding", "string"),
        ),
        "t.StreamRequest": (
            FieldRule("tenant", "string"),
            FieldRule("text", "string"),
        ),
        "t.StreamResponse": (FieldRule("n", "int32"),),
        "t.DeleteRequest": (FieldRule("id", "string"),),
        "google.protobuf.Empty": (),
        "t.PutRequest": (
            FieldRule("id", "string"),
            FieldRule("item", "struct"),
        ),
        "t.PutResponse": (
            FieldRule("value", "struct"),
            FieldRule("other", "int32"),
        ),
    },
    {"t.State": (("STATE_UNSPECIFIED", 0), ("STATE_ON", 1))},
)
TYPES = {
    "Send": ("t.SendRequest", "t.SendResponse"),
    "Get": ("t.GetRequest", "t.GetResponse"),
    "Stream": ("t.StreamRequest", "t.StreamResponse"),
    "Delete": ("t.DeleteRequest", "google.protobuf.Empty"),
    "Put": ("t.PutRequest", "t.PutResponse"),
}
JSON_HEADERS = V + [(b"content-type", b"application/json")]


def validating(handler: Any = None, **options: Any) -> Any:
    return make_app(handler, schema=SCHEMA, message_types=TYPES, **options)


def violations(error: dict[str, Any]) -> list[tuple[str, str]]:
    (detail,) = error["details"] if "details" in error else error["data"]
    assert detail["@type"] == "type.googleapis.com/google.rpc.BadRequest"
    return [(v["field"], v["description"]) for v in detail["fieldViolations"]]


def test_the_handler_gets_the_canonical_form() -> None:
    """Proto names renamed, enum numbers named, 64-bit integers as strings, 32-bit
    integers as int, null fields left out, unknown fields dropped."""
    handler = Handler()
    sent = {"count": "7", "big": 5, "state": 1, "text": None, "nope": 1}
    sent["part"] = [{"text_part": "a"}]
    answer = run(
        drive(
            validating(handler),
            "POST",
            "/message:send",
            body=json.dumps(sent).encode(),
            headers=V,
        )
    )
    assert answer.status == 200
    expected = {
        "count": 7,
        "big": "5",
        "state": "STATE_ON",
        "part": [{"textPart": "a"}],
    }
    assert handler.seen[-1][1] == expected
    rpc = run(
        drive(validating(handler), "POST", "/", body=rpc_body("Send", sent), headers=V)
    )
    assert rpc.json()["result"]["echo"] == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"count": "abc"},
            [("count", "not an integer in -2147483648..2147483647 (int32): abc")],
        ),
        ({"count": True}, [("count", "expected an integer (int32), got a boolean")]),
        ({"state": "STATE_OFF"}, [("state", "'STATE_OFF' is not a value of t.State")]),
        (
            {"part": [{"textPart": "a", "urlPart": "b"}]},
            [("part[0]", "oneof kind: 'textPart' and 'urlPart' are both set")],
        ),
        ({"part": {"textPart": "a"}}, [("part", "expected an array, got an object")]),
        ({"part": ["x"]}, [("part[0]", "expected an object, got a string")]),
    ],
)
def test_a_bad_field_is_400_and_32602_naming_it(
    body: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    handler = Handler()
    app = validating(handler)
    http = run(
        drive(app, "POST", "/message:send", body=json.dumps(body).encode(), headers=V)
    )
    assert http.status == 400 and http.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert violations(http.json()["error"]) == expected
    rpc = run(drive(app, "POST", "/", body=rpc_body("Send", body, 3), headers=V))
    error = rpc.json()["error"]
    assert rpc.status == 200 and error["code"] == -32602 and rpc.json()["id"] == 3
    assert violations(error) == expected
    assert handler.seen == []  # a refused request changes nothing


def test_path_and_query_fields_are_validated_too() -> None:
    handler = Handler()
    app = validating(handler)
    answer = run(drive(app, "GET", "/tasks/abc", query=b"historyLength=3", headers=V))
    assert answer.status == 200 and handler.seen[-1][1] == {
        "id": "abc",
        "historyLength": 3,
    }
    missing = run(drive(app, "POST", "/", body=rpc_body("Get", {}), headers=V))
    assert violations(missing.json()["error"]) == [
        ("id", "a REQUIRED field is missing")
    ]


def test_duplicate_keys_are_refused() -> None:
    app = validating()
    twice = b'{"text": "a", "text": "b"}'
    http = run(drive(app, "POST", "/message:send", body=twice, headers=V))
    assert http.status == 400 and violations(http.json()["error"]) == [
        ("text", "given twice in one object")
    ]
    nested = b'{"part": [{"textPart": "a", "textPart": "b"}]}'
    http = run(drive(app, "POST", "/message:send", body=nested, headers=V))
    assert violations(http.json()["error"]) == [
        ("part[0].textPart", "given twice in one object")
    ]
    params = b'{"jsonrpc": "2.0", "id": 1, "method": "Send", "params": {"text": "a", "text": "b"}}'
    rpc = run(drive(app, "POST", "/", body=params, headers=V)).json()
    assert rpc["error"]["code"] == -32602 and violations(rpc["error"]) == [
        ("text", "given twice in one object")
    ]
    envelope = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "Send", "method": "Get", "params": {}}'
    )
    rpc = run(drive(app, "POST", "/", body=envelope, headers=V)).json()
    assert rpc["error"]["code"] == -32600 and rpc["id"] == 1
    assert "'method' given twice" in rpc["error"]["message"]
    # Without validation the decoded JSON is handed over as it is: the last one wins.
    handler = Handler()
    run(drive(make_app(handler), "POST", "/message:send", body=twice, headers=V))
    assert handler.seen[-1][1] == {"text": "b"}


def test_unknown_fields_can_be_refused() -> None:
    app = validating(unknown_fields="reject")
    http = run(
        drive(
            app,
            "POST",
            "/message:send",
            body=b'{"nope": 1, "part": [{"x": 2}]}',
            headers=V,
        )
    )
    assert violations(http.json()["error"]) == [
        ("nope", "unknown field"),
        ("part[0].x", "unknown field"),
    ]
    with pytest.raises(ValueError, match="unknown_fields"):
        validating(unknown_fields="keep")


class BadAnswers(Handler):
    async def get(self, request: dict[str, Any], context: CallContext) -> Any:
        return {"id": 5}

    async def _events(self, text: str) -> Any:
        yield {"n": 1}
        yield {"n": "many"}


def test_check_responses_makes_a_bad_answer_a_logged_500(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = validating(BadAnswers(), check_responses=True)
    with caplog.at_level(logging.ERROR):
        http = run(drive(app, "GET", "/tasks/abc", headers=V))
    assert http.status == 500 and http.json()["error"]["message"] == "internal error"
    assert "Get returned t.GetResponse: invalid: id: expected a string" in caplog.text
    rpc = run(drive(app, "POST", "/", body=rpc_body("Get", {"id": "abc"}), headers=V))
    assert rpc.json()["error"]["code"] == -32603
    stream = run(drive(app, "POST", "/message:stream", body=b"{}", headers=V))
    events = stream.events()
    assert events[0] == ("0", {"n": 1}) and events[1][1]["error"]["code"] == 500
    # Unchecked, the same answers go out as the handler gave them.
    assert run(
        drive(validating(BadAnswers()), "GET", "/tasks/abc", headers=V)
    ).json() == {"id": 5}


def test_validation_options_are_checked_at_creation() -> None:
    with pytest.raises(TypeError, match="no message types for Put"):
        make_app(
            schema=SCHEMA, message_types={k: v for k, v in TYPES.items() if k != "Put"}
        )
    with pytest.raises(ValueError, match="check_responses needs the schema"):
        make_app(check_responses=True)

"""What the ASGI application answers to a huge value it refuses: a short quote of it,
never the value again (a 3 MB tenant is not answered with 12 MB), and to a number too
long to read: a parse error naming its place, in the protocol's words.

The service is ``test_asgi.py``'s, driven by its in-process ASGI driver.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from tests.runtime.test_asgi import JSON, V, drive, make_app, rpc_body, run
from tests.runtime.test_asgi_validation import JSON_HEADERS, validating, violations

HUGE = "x" * 3_000_000
SHOWN = f"'{'x' * 64}'... (3000000 characters)"  # how a message quotes HUGE
SHORT = 2_000  # bytes: every refusal of HUGE fits, whatever HUGE's size
DIGITS = sys.get_int_max_str_digits() + 700  # an integer int() will not convert
PYTHON_ADVICE = "set_int_max_str_digits"


def test_a_jsonrpc_tenant_clash_quotes_the_tenant_once_and_short() -> None:
    answer = run(
        drive(
            make_app(jsonrpc_path="/rpc"),
            "POST",
            "/rpc/t1",
            body=rpc_body("Get", {"id": "a", "tenant": HUGE}),
            headers=V,
        )
    )
    assert len(answer.body) < SHORT
    error = answer.json()["error"]
    assert error["code"] == -32602
    assert error["message"] == (
        f"Invalid params: tenant {SHOWN} differs from the endpoint's tenant 't1'"
    )


@pytest.mark.parametrize(
    ("verb", "path", "body", "query"),
    [
        ("POST", "/t1/message:send", json.dumps({"tenant": HUGE}).encode(), b""),
        ("GET", "/t1/tasks/a", b"", b"tenant=" + HUGE.encode()),
    ],
)
def test_an_http_json_tenant_clash_quotes_the_tenant_short(
    verb: str, path: str, body: bytes, query: bytes
) -> None:
    answer = run(
        drive(make_app(), verb, path, body=body, query=query, headers=[*V, *JSON])
    )
    assert answer.status == 400 and len(answer.body) < SHORT
    error = answer.json()["error"]
    reason = f"the path gives 't1' but the request gives {SHOWN} (got {SHOWN})"
    assert error["message"] == f"tenant: {reason}"
    assert violations(error) == [("tenant", reason)]


def test_a_huge_jsonrpc_method_is_quoted_short() -> None:
    answer = run(drive(make_app(), "POST", "/", body=rpc_body(HUGE, {}), headers=V))
    assert len(answer.body) < SHORT
    assert answer.json()["error"] == {
        "code": -32601,
        "message": f"Method not found: {'x' * 64}... (3000000 characters)",
    }


def test_a_huge_content_type_is_quoted_short() -> None:
    answer = run(
        drive(
            make_app(),
            "POST",
            "/",
            body=rpc_body("Get", {"id": "a"}),
            headers=[*V, (b"content-type", HUGE.encode())],
        )
    )
    assert len(answer.body) < SHORT
    error = answer.json()["error"]
    assert error["code"] == -32005
    assert error["message"].startswith(f"Content-Type {SHOWN} is not supported here")


def test_a_huge_path_no_route_has_is_quoted_short() -> None:
    answer = run(drive(make_app(), "GET", "/a/" + HUGE, headers=V))
    assert answer.status == 404 and len(answer.body) < SHORT
    assert answer.json()["error"]["message"] == (
        f"GET /a/{'x' * 61}... (3000003 characters): no route has this path"
    )


def test_a_huge_field_value_in_a_validation_message_is_quoted_short() -> None:
    sent = '{"state": ' + "9" * 4000 + "}"  # a JSON integer, read, no enum value
    answer = run(
        drive(validating(), "POST", "/message:send", body=sent.encode(), headers=V)
    )
    assert answer.status == 400 and len(answer.body) < SHORT
    assert violations(answer.json()["error"]) == [
        (
            "state",
            f"{'9' * 64}... (4000 characters) is not a number of a value of t.State",
        )
    ]


def test_an_integer_query_parameter_too_long_is_out_of_range_quoted_short() -> None:
    query = b"historyLength=" + b"1" * DIGITS
    answer = run(drive(make_app(), "GET", "/tasks/a", query=query, headers=V))
    assert answer.status == 400 and len(answer.body) < SHORT
    error = answer.json()["error"]
    shown = f"'{'1' * 64}'... ({DIGITS} characters)"
    reason = f"out of range -2147483648..2147483647 (got {shown})"
    assert error["message"] == f"historyLength: {reason}"
    assert violations(error) == [("historyLength", reason)]


def _too_long(position: int) -> str:
    limit = sys.get_int_max_str_digits()
    return (
        f"an integer of {DIGITS} digits is longer than the {limit} digits the reader"
        f" accepts: line 1 column {position + 1} (char {position})"
    )


@pytest.mark.parametrize("exact_id", [False, True])
def test_a_jsonrpc_id_too_long_to_read_is_a_parse_error_naming_its_place(
    exact_id: bool,
) -> None:
    """-32700 as for any body that is not JSON; the id is not read, so it is null. A
    fractional number elsewhere makes the envelope be read again, exactly."""
    head = '{"jsonrpc": "2.0", "id": '
    tail = ', "method": "Get", "params": {"n": 1.5}}' if exact_id else "}"
    body = (head + "1" * DIGITS + tail).encode()
    answer = run(drive(make_app(), "POST", "/", body=body, headers=V))
    assert answer.status == 200 and PYTHON_ADVICE not in answer.body.decode()
    assert answer.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": f"Parse error: {_too_long(len(head))}"},
    }


def test_a_number_too_long_to_read_in_an_http_json_body_is_a_400_parse_error() -> None:
    head = '{"text": "a", "count": -'
    body = (head + "7" * DIGITS + "}").encode()
    answer = run(
        drive(validating(), "POST", "/message:send", body=body, headers=JSON_HEADERS)
    )
    assert answer.status == 400 and PYTHON_ADVICE not in answer.body.decode()
    error: dict[str, Any] = answer.json()["error"]
    text = _too_long(len(head) - 1)
    assert error["message"] == f"the body is not JSON: {text}"
    assert violations(error) == [("", f"not JSON: {text}")]


def test_a_body_of_many_bad_values_is_answered_with_a_bounded_refusal() -> None:
    """300,000 wrong elements (900 KB): the first ``REPORTED_VIOLATIONS`` listed, the
    rest counted (the answer was 36 MB, every violation in the message and again in
    the BadRequest)."""
    from codegen.runtime._validate import REPORTED_VIOLATIONS

    body = json.dumps({"part": [1] * 300_000}).encode()
    answer = run(drive(validating(), "POST", "/message:send", body=body, headers=V))
    assert answer.status == 400 and len(answer.body) < 10 * SHORT
    error = answer.json()["error"]
    found = violations(error)
    assert [field for field, _ in found] == [
        f"part[{i}]" for i in range(REPORTED_VIOLATIONS)
    ]
    assert error["message"].endswith(f"; and {300_000 - REPORTED_VIOLATIONS} more")


def test_a_huge_unknown_key_is_cut_in_the_field_path() -> None:
    from codegen.runtime._quoting import FIELD_PATH_CHARACTERS

    body = json.dumps({HUGE: 1}).encode()
    answer = run(
        drive(
            validating(unknown_fields="reject"),
            "POST",
            "/message:send",
            body=body,
            headers=V,
        )
    )
    assert answer.status == 400 and len(answer.body) < 3 * FIELD_PATH_CHARACTERS
    ((field, _),) = violations(answer.json()["error"])
    assert field == "x" * FIELD_PATH_CHARACTERS + "... (3000000 characters)"


def test_a_huge_version_is_quoted_short_in_the_message_and_the_metadata() -> None:
    for path, body in (("/tasks/a", b""), ("/", rpc_body("Get", {"id": "a"}))):
        answer = run(
            drive(
                make_app(),
                "POST" if body else "GET",
                path,
                body=body,
                headers=[(b"a2a-version", HUGE.encode()), *JSON],
            )
        )
        assert len(answer.body) < SHORT, path
        assert SHOWN[1:-1].split("'")[0][:64] in answer.body.decode()


def test_a_huge_method_is_quoted_short() -> None:
    verb = "X" * 3_000_000
    answer = run(drive(make_app(), verb, "/message:send", headers=[*V, *JSON]))
    assert answer.status == 405 and len(answer.body) < SHORT
    assert f"{'X' * 64}... (3000000 characters)" in answer.json()["error"]["message"]


def test_a_huge_query_name_with_a_bad_escape_is_cut() -> None:
    from codegen.runtime._quoting import FIELD_PATH_CHARACTERS

    query = b"a" * 3_000_000 + b"=%ZZ"
    answer = run(drive(make_app(), "GET", "/tasks/a", query=query, headers=V))
    assert answer.status == 400 and len(answer.body) < 3 * FIELD_PATH_CHARACTERS
    ((field, _),) = violations(answer.json()["error"])
    assert field == "a" * FIELD_PATH_CHARACTERS + "... (3000000 characters)"

"""Hostile input for the generated code, and round trips at volume.

Only the declared errors may escape: ``RouteNotFound`` and ``QueryError``/``ValueError``
from ``transcode``, ``ValueError`` from ``build``, ``QueryError`` from ``decode`` and
``encode``, ``JsonRpcError`` from ``parse_request``; ``match`` returns None. Edge inputs
are pinned in ``FOUND``; a crash ``make fuzz`` finds is added there.
"""

from __future__ import annotations

import json
import random
import string
from types import ModuleType
from typing import Any
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .test_routes import A2A_RPCS

VERBS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "get", ""]
SETTINGS = settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

_percent = st.builds(
    lambda h: "%" + h, st.text(alphabet="0123456789abcdefABCDEFgz%", max_size=3)
)
_path_piece = st.one_of(
    st.sampled_from(
        [
            "tasks",
            "t1",
            "message:send",
            ":cancel",
            ":subscribe",
            "pushNotificationConfigs",
            "extendedAgentCard",
            ".well-known",
            "..",
            ".",
            "",
            "%2F",
            "%FF",
            "%C3%A9",
            "%zz",
            "+",
        ]
    ),
    _percent,
    st.text(max_size=8),
)
_paths = st.one_of(
    st.text(max_size=60),
    st.lists(_path_piece, max_size=8).map(lambda parts: "/" + "/".join(parts)),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
)
_json = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10)
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=8), inner, max_size=4),
    ),
    max_leaves=20,
)
_queries = st.one_of(
    st.text(max_size=80),
    st.binary(max_size=80),
    st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "pageSize",
                    "status",
                    "historyLength",
                    "includeArtifacts",
                    "statusTimestampAfter",
                    "tenant",
                    "contextId",
                    "x",
                    "%41",
                    "page_size",
                ]
            ),
            st.one_of(st.text(max_size=12), _percent),
        ),
        max_size=8,
    ).map(lambda pairs: "&".join(f"{n}={v}" for n, v in pairs)),
    st.lists(st.tuples(st.text(max_size=6), st.text(max_size=6)), max_size=5),
)


@SETTINGS
@given(verb=st.sampled_from(VERBS), path=_paths)
def test_match_and_allowed_verbs_never_raise(
    a2a: ModuleType, verb: str, path: str
) -> None:
    found = a2a.routes.match(verb, path)
    allowed = a2a.routes.allowed_verbs(path)
    assert found is None or found.route.verb in allowed
    assert a2a.routes.agent_card_tenant(path) is None or isinstance(
        a2a.routes.agent_card_tenant(path), str
    )


@SETTINGS
@given(verb=st.sampled_from(VERBS), path=_paths, query=_queries, body=_json)
def test_transcode_raises_only_declared_errors(
    a2a: ModuleType, verb: str, path: str, query: Any, body: Any
) -> None:
    try:
        route, request = a2a.routes.transcode(verb, path, query, body)
    except a2a.routes.RouteNotFound as exc:
        assert exc.status in (404, 405)
    except ValueError:
        pass  # QueryError included
    else:
        assert route.verb == verb and isinstance(request, dict)


@SETTINGS
@given(
    rpc=st.sampled_from(A2A_RPCS + ["Nope"]),
    request=st.dictionaries(
        st.sampled_from(
            [
                "id",
                "taskId",
                "tenant",
                "historyLength",
                "pageSize",
                "status",
                "message",
                "x",
                "statusTimestampAfter",
            ]
        ),
        _json,
        max_size=5,
    ),
    tenant=st.one_of(st.none(), st.text(max_size=6)),
)
def test_build_raises_only_value_error(
    a2a: ModuleType, rpc: str, request: dict[str, Any], tenant: str | None
) -> None:
    try:
        built = a2a.routes.build(rpc, request, tenant=tenant)
    except ValueError:
        return
    assert built.path.startswith("/") and built.path.isascii()
    assert a2a.routes.match(built.verb, built.path) is not None


@SETTINGS
@given(
    rpc=st.sampled_from(
        ["GetTask", "ListTasks", "ListTaskPushNotificationConfigs", "SubscribeToTask"]
    ),
    query=_queries,
    unknown=st.sampled_from(["ignore", "reject"]),
)
def test_decode_raises_only_query_error(
    a2a: ModuleType, rpc: str, query: Any, unknown: str
) -> None:
    try:
        decoded = a2a.query.decode(rpc, query, unknown=unknown)
    except a2a.query.QueryError as exc:
        assert isinstance(
            exc.to_bad_request()["fieldViolations"][0]["description"], str
        )
    else:
        assert isinstance(decoded, dict)


@SETTINGS
@given(
    rpc=st.sampled_from(["GetTask", "ListTasks"]),
    request=st.dictionaries(
        st.sampled_from(
            [
                "pageSize",
                "status",
                "historyLength",
                "includeArtifacts",
                "statusTimestampAfter",
                "tenant",
                "contextId",
                "x",
            ]
        ),
        _json,
        max_size=5,
    ),
)
def test_encode_raises_only_query_error(
    a2a: ModuleType, rpc: str, request: dict[str, Any]
) -> None:
    try:
        pairs = a2a.query.encode(rpc, request)
    except a2a.query.QueryError:
        return
    assert all(isinstance(n, str) and isinstance(v, str) for n, v in pairs)


_envelopes = st.fixed_dictionaries(
    {
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2.0, None]),
        "id": _json,
        "method": st.one_of(st.sampled_from(A2A_RPCS), _json),
        "params": _json,
    },
    optional={"extra": _json},
)


@SETTINGS
@given(
    payload=st.one_of(
        st.binary(max_size=100),
        st.text(max_size=100),
        _json,
        _envelopes,
        _envelopes.map(json.dumps),
        st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
        st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n),
        st.sampled_from(
            [
                '{"jsonrpc":"2.0","id":1e999,"method":"GetTask"}',
                '{"jsonrpc":"2.0","id":NaN,"method":"GetTask"}',
                '{"jsonrpc":"2.0","id":' + "9" * 5000 + ',"method":"GetTask"}',
                "\ufeff{}",
                '{"jsonrpc":"2.0"}' * 2,
            ]
        ),
    ),
    tenant=st.one_of(st.none(), st.text(max_size=5)),
)
def test_parse_request_raises_only_jsonrpc_errors(
    a2a: ModuleType, payload: Any, tenant: str | None
) -> None:
    try:
        request = a2a.jsonrpc.parse_request(payload, tenant=tenant)
    except a2a.jsonrpc.JsonRpcError as exc:
        assert exc.code in (-32700, -32600, -32601, -32602)
        json.dumps(
            a2a.jsonrpc.failure(exc.id, exc)
        )  # the answer is always serialisable
    else:
        assert request.method in A2A_RPCS and isinstance(request.params, dict)


# Edge inputs kept as plain cases (huge numbers, deep nesting, lone surrogates, offsets
# that leave the year range); crashes found by ``make fuzz`` belong here too.
FOUND: list[tuple[str, Any]] = [
    ("parse_request", '{"jsonrpc":"2.0","id":' + "9" * 5000 + ',"method":"GetTask"}'),
    ("parse_request", "[" * 100_000 + "]" * 100_000),
    ("parse_request", b"\xed\xa0\x80"),  # an encoded lone surrogate is not UTF-8
    ("decode", "pageSize=" + "9" * 10_000),
    ("decode", "statusTimestampAfter=9999-12-31T23:59:59-00:01"),
    ("decode", "statusTimestampAfter=0001-01-01T00:00:00%2B00:01"),
    ("decode", b"contextId=\xff"),
    ("decode", [("contextId", "\ud800")]),
    ("match", "/tasks/" + "%41" * 10_000),
    ("match", "/" + "a/" * 10_000),
    ("build", {"id": "\ud800"}),
]


@pytest.mark.parametrize(
    ("target", "value"), FOUND, ids=[f"{t}-{i}" for i, (t, _) in enumerate(FOUND)]
)
def test_found_cases(a2a: ModuleType, target: str, value: Any) -> None:
    try:
        if target == "parse_request":
            a2a.jsonrpc.parse_request(value)
        elif target == "decode":
            a2a.query.decode("ListTasks", value)
        elif target == "match":
            assert a2a.routes.match("GET", value) is None or isinstance(value, str)
        else:
            a2a.routes.build("GetTask", value)
    except (a2a.jsonrpc.JsonRpcError, ValueError):
        pass


# --- round trips at volume ---------------------------------------------------------------

HOSTILE = (
    "/%.?#:&=+ ,;@!$'()*[]\x00\x01\x1f\x7f\u00e9\u4e2d\U0001f600\u200b\\\""
    + string.ascii_letters
)


def _text(rng: random.Random, empty: bool = False) -> str:
    size = rng.randint(0 if empty else 1, 12)
    return "".join(rng.choice(HOSTILE) for _ in range(size))


def _timestamp(rng: random.Random) -> str:
    seconds = rng.randint(0, 9)
    fraction = rng.choice(["", ".123", ".123456", ".123456789"])
    return f"{rng.randint(1, 9999):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:0{seconds}{fraction}Z"


def _request(rng: random.Random, rpc: str) -> dict[str, Any]:
    """A random, valid ProtoJSON request for ``rpc`` (canonical forms, as MessageToDict
    writes them), with hostile ids and tenants."""
    request: dict[str, Any] = {}
    if rng.random() < 0.5:
        request["tenant"] = _text(rng)
    if rpc in ("GetTask", "CancelTask", "SubscribeToTask"):
        request["id"] = _text(rng)
    if rpc in (
        "GetTaskPushNotificationConfig",
        "DeleteTaskPushNotificationConfig",
        "CreateTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
    ):
        request["taskId"] = _text(rng)
    if rpc in ("GetTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig"):
        request["id"] = _text(rng)
    if rpc == "GetTask" and rng.random() < 0.5:
        request["historyLength"] = rng.randint(0, 2**31 - 1)
    if rpc == "ListTasks":
        for name, make in (
            ("contextId", lambda: _text(rng, empty=True)),
            (
                "status",
                lambda: rng.choice(
                    [
                        "TASK_STATE_WORKING",
                        "TASK_STATE_COMPLETED",
                        "TASK_STATE_UNSPECIFIED",
                    ]
                ),
            ),
            ("pageSize", lambda: rng.randint(-(2**31), 2**31 - 1)),
            ("pageToken", lambda: _text(rng, empty=True)),
            ("historyLength", lambda: rng.randint(0, 100)),
            ("statusTimestampAfter", lambda: _timestamp(rng)),
            ("includeArtifacts", lambda: rng.random() < 0.5),
        ):
            if rng.random() < 0.6:
                request[name] = make()
    if rpc == "ListTaskPushNotificationConfigs":
        if rng.random() < 0.5:
            request["pageSize"] = rng.randint(0, 1000)
        if rng.random() < 0.5:
            request["pageToken"] = _text(rng, empty=True)
    if rpc in ("SendMessage", "SendStreamingMessage"):
        request["message"] = {
            "messageId": _text(rng),
            "role": "ROLE_USER",
            "parts": [{"text": _text(rng, True)}],
        }
    if rpc == "CreateTaskPushNotificationConfig":
        request["url"] = "https://example.test/" + _text(rng)
    if rpc == "CancelTask" and rng.random() < 0.5:
        request["metadata"] = {_text(rng): _text(rng)}
    return request


REFUSALS = ("may not be '.' or '..'", "does not route back")


@pytest.mark.parametrize("rpc", A2A_RPCS)
def test_ten_thousand_round_trips_per_rpc(a2a: ModuleType, rpc: str) -> None:
    rng = random.Random(f"round-trip-{rpc}")
    refused = 0
    for i in range(10_000):
        request = _request(rng, rpc)
        try:
            built = a2a.routes.build(rpc, request)
        except ValueError as exc:
            assert any(reason in str(exc) for reason in REFUSALS), (request, exc)
            refused += 1
            continue
        # Half the time through a real query string, as an HTTP library sends it.
        query: Any = urlencode(built.query) if i % 2 else built.query
        route, back = a2a.routes.transcode(built.verb, built.path, query, built.body)
        expected = {k: v for k, v in request.items() if not (k == "tenant" and not v)}
        assert route.rpc == rpc, (request, built)
        assert back == expected, (request, built)
    assert refused < 500  # only the rare "." / ".." id or a tenant that shadows a route


@pytest.mark.parametrize(
    "rpc", ["ListTasks", "GetTask", "ListTaskPushNotificationConfigs"]
)
def test_decode_inverts_encode_at_volume(a2a: ModuleType, rpc: str) -> None:
    rng = random.Random(f"query-{rpc}")
    path_fields = {"id", "taskId"}
    for _ in range(10_000):
        query = {k: v for k, v in _request(rng, rpc).items() if k not in path_fields}
        pairs = a2a.query.encode(rpc, query)
        assert a2a.query.decode(rpc, urlencode(pairs)) == query
        assert a2a.query.decode(rpc, pairs) == query or any("," in v for _, v in pairs)

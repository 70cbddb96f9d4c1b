"""The A2A protocol rules runtime: service parameters and versions (``_params``), the
error table (``_errors``), content types (``_media``), card caching (``_caching``) and
SSE (``_sse``, ``_sse_parser``), all of ``codegen/runtime/``, as the generated ``protocol.py`` exports
them.

Unit tests per rule, hypothesis properties (SSE round trips over arbitrary chunking,
service parameters invariant to header spelling, ``not_modified`` against a brute-force
reading of RFC 9110) and a cross-check of the error table and its wire forms against
a2a-sdk 1.3.0 and of the SSE parser against sse-starlette's framing.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterable
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.runtime import _caching, _errors, _headers, _media, _params, _sse
from codegen.runtime import _sse_parser

MODULES = (_caching, _errors, _headers, _media, _params, _sse, _sse_parser)
# What the generated protocol.py gathers from them, by public name.
p = SimpleNamespace(
    **{name: getattr(module, name) for module in MODULES for name in module.__all__}
)
from codegen.runtime._jsonrpc import JsonRpcError

UTC = timezone.utc

# The spec's table (§5.4) as ../shared/A2A-BINDINGS.md lists it:
# name -> (JSON-RPC code, gRPC status, HTTP status).
SPEC_TABLE = {
    "TaskNotFoundError": (-32001, "NOT_FOUND", 404),
    "TaskNotCancelableError": (-32002, "FAILED_PRECONDITION", 400),
    "PushNotificationNotSupportedError": (-32003, "FAILED_PRECONDITION", 400),
    "UnsupportedOperationError": (-32004, "FAILED_PRECONDITION", 400),
    "ContentTypeNotSupportedError": (-32005, "INVALID_ARGUMENT", 400),
    "InvalidAgentResponseError": (-32006, "INTERNAL", 500),
    "ExtendedAgentCardNotConfiguredError": (-32007, "FAILED_PRECONDITION", 400),
    "ExtensionSupportRequiredError": (-32008, "FAILED_PRECONDITION", 400),
    "VersionNotSupportedError": (-32009, "FAILED_PRECONDITION", 400),
}


def upper_snake_without_error(name: str) -> str:
    """The ErrorInfo reason rule of §11.6, written independently of the module."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name.removesuffix("Error")).upper()


# ----------------------------------------------------------------- constants


def test_constants() -> None:
    assert p.VERSION_HEADER == "A2A-Version"
    assert p.EXTENSIONS_HEADER == "A2A-Extensions"
    assert p.DOMAIN == "a2a-protocol.org"
    assert p.HTTP_JSON_CONTENT_TYPE == "application/a2a+json"
    assert p.HTTP_JSON_ACCEPTED == {"application/a2a+json", "application/json"}
    assert p.JSONRPC_CONTENT_TYPE == "application/json"
    assert p.JSONRPC_ACCEPTED == {"application/json", "application/a2a+json"}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_runtime_imports_only_the_standard_library_and_siblings(module: Any) -> None:
    # It ships verbatim inside generated packages, which import nothing else.
    source = open(module.__file__, encoding="utf-8").read()
    imported = re.findall(r"^\s*(?:from|import) (\S+)", source, re.MULTILINE)
    for module in imported:
        assert not module.startswith("codegen"), module
        if not module.startswith("."):
            root = module.split(".")[0]
            assert root in {
                "__future__",
                "codecs",
                "collections",
                "dataclasses",
                "datetime",
                "email",
                "hashlib",
                "json",
                "re",
                "types",
                "typing",
                "urllib",
            }, module


# ---------------------------------------------------------- service parameters


def test_service_params_defaults() -> None:
    assert p.service_params({}) == p.ServiceParams("0.3", ())
    assert p.service_params([]) == p.ServiceParams("0.3", ())


@pytest.mark.parametrize(
    "headers",
    [
        {"A2A-Version": "1.0"},
        {"a2a-version": "1.0"},
        {b"A2A-VERSION": b"1.0"},
        [(b"a2a-version", b"  1.0\t")],
        [("A2A-Version", "1.0, 1.0"), ("a2a-version", "1.0")],
        [("A2A-Version", ""), ("A2A-Version", " , 1.0 ,")],
    ],
)
def test_version_from_headers_in_any_form(headers: Any) -> None:
    assert p.service_params(headers).version == "1.0"


def test_extensions_repeated_comma_separated_trimmed_deduplicated() -> None:
    headers = [
        (b"a2a-extensions", b" https://e/b ,https://e/a,, "),
        (b"Content-Type", b"application/json"),
        (b"A2A-EXTENSIONS", b"https://e/c, https://e/b"),
        (b"a2a-extensions", b""),
    ]
    params = p.service_params(headers)
    assert params.extensions == ("https://e/b", "https://e/a", "https://e/c")
    assert params.version == "0.3"


@pytest.mark.parametrize(
    ("query", "version"),
    [
        ("A2A-Version=1.0", "1.0"),
        ("a2a-version=1.0", "1.0"),
        (b"pageSize=3&A2A-VERSION=1.0", "1.0"),
        ("A2A%2DVersion=1%2E0", "1.0"),
        ("A2A-Version=+1.0+", "1.0"),
        ("A2A-Version=", "0.3"),
        ("A2A-Versionx=1.0&A2A-Version", "0.3"),
        ("", "0.3"),
    ],
)
def test_version_from_query(query: str | bytes, version: str) -> None:
    assert p.service_params({}, query).version == version


def test_header_wins_over_query() -> None:
    params = p.service_params({"A2A-Version": "1.0"}, "A2A-Version=0.3")
    assert params.version == "1.0"
    # An empty header field carries no version, so the query still counts.
    assert p.service_params({"A2A-Version": " "}, "A2A-Version=1.0").version == "1.0"


@pytest.mark.parametrize(
    ("headers", "query", "named"),
    [
        ([("A2A-Version", "1.0"), ("A2A-Version", "0.3")], "", "1.0, 0.3"),
        ({"A2A-Version": "1.0,2.0"}, "", "1.0, 2.0"),
        ({}, "A2A-Version=1.0&a2a-version=1.1", "1.0, 1.1"),
    ],
)
def test_conflicting_versions_are_refused(headers: Any, query: str, named: str) -> None:
    with pytest.raises(p.A2AError) as caught:
        p.service_params(headers, query)
    assert caught.value.kind.name == "VersionNotSupportedError"
    assert caught.value.metadata == {"requestedVersion": named}
    assert named in caught.value.message


def test_header_values_must_be_text_or_bytes() -> None:
    with pytest.raises(TypeError, match="header"):
        p.service_params([("A2A-Version", 1.0)])  # type: ignore[list-item]


_URI = st.text("abcxyz:/._-~", min_size=1, max_size=12)


@given(
    version=st.sampled_from(["1.0", "0.3", "1.0.2", "2.1"]),
    extensions=st.lists(_URI, max_size=6),
    data=st.data(),
)
def test_service_params_invariant_to_case_and_field_splitting(
    version: str, extensions: list[str], data: st.DataObject
) -> None:
    canonical = [("A2A-Version", version), ("A2A-Extensions", ",".join(extensions))]
    expected = p.service_params(canonical)
    assert expected == p.ServiceParams(version, tuple(dict.fromkeys(extensions)))

    def spelled(name: str) -> str:
        flips = data.draw(
            st.lists(st.booleans(), min_size=len(name), max_size=len(name))
        )
        return "".join(c.upper() if f else c.lower() for c, f in zip(name, flips))

    lines: list[tuple[str, str]] = [(spelled("a2a-version"), f" {version} ")]
    remaining = list(extensions)
    while remaining:
        size = data.draw(st.integers(1, len(remaining)))
        group, remaining = remaining[:size], remaining[size:]
        pad = data.draw(st.sampled_from(["", " ", "\t", " \t"]))
        lines.append((spelled("A2A-Extensions"), f",{pad}".join(group) + pad))
    order = data.draw(st.permutations(range(1, len(lines))))
    shuffled = [lines[0]] + [lines[i] for i in order if i > 0]
    # Reordering extension fields changes first-seen order, so compare as sets there.
    as_bytes = data.draw(st.booleans())
    wire: list[Any] = (
        [(n.encode(), v.encode()) for n, v in lines] if as_bytes else lines
    )
    assert p.service_params(wire) == expected
    reordered = p.service_params(shuffled)
    assert reordered.version == expected.version
    assert set(reordered.extensions) == set(expected.extensions)


# --------------------------------------------------------------------- versions


@pytest.mark.parametrize(
    ("version", "supported"),
    [
        ("1.0", ["1.0"]),
        ("1.0.2", ["1.0"]),
        ("1.0", ["1.0.7"]),
        ("0.3", ["1.0", "0.3"]),
        ("01.0", ["1.0"]),
        ("2.5", ("1.0", "2.5")),
    ],
)
def test_supported_versions(version: str, supported: Iterable[str]) -> None:
    p.check_version(version, supported)


@pytest.mark.parametrize(
    "version",
    [
        "1.1",
        "0.3",
        "2.0",
        "",
        "1",
        "one.0",
        " 1.0",
        "1.0 ",
        "1.0.0.0",
        "1.0-rc",
        "v1.0",
        "1.0.x",
        "\uff11.0",
        "1." + "0" * 5000,
        "1.0.",
        ".0",
    ],
)
def test_refused_versions(version: str) -> None:
    with pytest.raises(p.A2AError) as caught:
        p.check_version(version, ["1.0"])
    error = caught.value
    assert error.kind.name == "VersionNotSupportedError"
    # the version as sent, or for a huge one its first characters and its length
    shown = version if len(version) <= 64 else f"{version[:64]}... (5002 characters)"
    assert error.metadata == {"requestedVersion": shown, "supportedVersions": "1.0"}
    assert error.to_http()[1]["error"]["status"] == "FAILED_PRECONDITION"


def test_check_version_lists_every_supported_version() -> None:
    with pytest.raises(p.A2AError) as caught:
        p.check_version("3.0", iter(["1.0", "2.0"]))
    assert caught.value.metadata["supportedVersions"] == "1.0, 2.0"
    with pytest.raises(p.A2AError, match="none"):
        p.check_version("1.0", [])


def test_a_request_naming_no_version_is_told_so_and_what_to_send() -> None:
    """Where 0.3 is not served, a request without ``A2A-Version`` is refused as 0.3
    (§3.6.2), and the message says it sent none, not that it asked for 0.3."""
    unnamed = p.service_params({})
    with pytest.raises(p.A2AError) as caught:
        _params.VersionPolicy(["1.0"]).check(unnamed)
    error = caught.value
    assert error.kind.name == "VersionNotSupportedError"
    assert error.message == (
        "no A2A-Version was sent, and a request naming no version is taken as 0.3"
        " (A2A §3.6.2), which this server does not serve (supported: 1.0):"
        " send A2A-Version: 1.0"
    )
    assert error.metadata == {"requestedVersion": "0.3", "supportedVersions": "1.0"}
    over_grpc = _params.VersionPolicy(["2.0", "1.0"], parameter="metadata a2a-version")
    with pytest.raises(p.A2AError, match="send metadata a2a-version: 2.0$"):
        over_grpc.check(unnamed)
    # 0.3 alone: a request naming none is 0.3's, but not in 0.3's form.
    with pytest.raises(p.A2AError) as only_v0_3:
        _params.VersionPolicy(["0.3"]).check(unnamed)
    assert only_v0_3.value.message.endswith(
        "taken as 0.3 (A2A §3.6.2), but this is no 0.3 method or route"
        " (supported: 0.3)"
    )
    assert only_v0_3.value.metadata["supportedVersions"] == "0.3"
    # Naming 0.3 is still refused as asking for it.
    with pytest.raises(p.A2AError, match="A2A-Version '0.3' is not supported"):
        _params.VersionPolicy(["1.0"]).check(p.service_params({"A2A-Version": "0.3"}))


def test_a_junk_supported_version_is_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="'latest'"):
        p.check_version("1.0", ["1.0", "latest"])


# ----------------------------------------------------------------------- errors


def test_error_table_is_the_spec_table() -> None:
    assert set(p.A2A_ERRORS) == set(SPEC_TABLE)
    for name, (code, grpc_status, http_status) in SPEC_TABLE.items():
        kind = p.A2A_ERRORS[name]
        assert (kind.name, kind.code, kind.grpc_status, kind.http_status) == (
            name,
            code,
            grpc_status,
            http_status,
        )
        assert kind.reason == upper_snake_without_error(name)
    assert p.A2A_ERRORS["TaskNotCancelableError"].reason == "TASK_NOT_CANCELABLE"


def test_error_table_is_read_only() -> None:
    with pytest.raises(TypeError):
        p.A2A_ERRORS["Mine"] = p.A2A_ERRORS["TaskNotFoundError"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        p.A2A_ERRORS["TaskNotFoundError"].code = 1  # type: ignore[misc]


def test_status_object() -> None:
    kind = p.A2A_ERRORS["TaskNotCancelableError"]
    assert kind.status("no") == {
        "code": 400,
        "status": "FAILED_PRECONDITION",
        "message": "no",
        "details": [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "TASK_NOT_CANCELABLE",
                "domain": "a2a-protocol.org",
            }
        ],
    }
    detail = kind.status("no", {"taskId": "t1"})["details"][0]
    assert detail["metadata"] == {"taskId": "t1"}


@pytest.mark.parametrize("metadata", [{"taskId": 7}, {"taskId": None}, {1: "x"}])
def test_metadata_values_must_be_strings(metadata: Any) -> None:
    kind = p.A2A_ERRORS["TaskNotFoundError"]
    with pytest.raises(ValueError, match="metadata"):
        kind.status("gone", metadata)
    with pytest.raises(ValueError, match="metadata"):
        p.A2AError("TaskNotFoundError", "gone", metadata=metadata)


def test_kind_error_is_a_jsonrpc_error_with_error_info() -> None:
    kind = p.A2A_ERRORS["UnsupportedOperationError"]
    error = kind.error("nope", id="r1")
    assert isinstance(error, JsonRpcError)
    assert (error.code, error.message, error.id) == (-32004, "nope", "r1")
    assert error.to_dict() == {
        "code": -32004,
        "message": "nope",
        "data": [kind.error_info()],
    }
    assert kind.error("nope", {"custom": True}).data == {"custom": True}


def test_a2a_error() -> None:
    error = p.A2AError("TaskNotFoundError", "no task t1", metadata={"taskId": "t1"})
    assert isinstance(error, Exception)
    assert str(error) == "no task t1"
    assert error.kind is p.A2A_ERRORS["TaskNotFoundError"]
    assert error.name == "TaskNotFoundError"
    assert error.message == "no task t1"
    assert error.metadata == {"taskId": "t1"}
    assert "TaskNotFoundError" in repr(error)
    status, body = error.to_http()
    assert status == 404
    assert body == {"error": error.kind.status("no task t1", {"taskId": "t1"})}
    rpc = error.to_jsonrpc(7)
    assert isinstance(rpc, JsonRpcError)
    assert (rpc.code, rpc.message, rpc.id) == (-32001, "no task t1", 7)
    assert rpc.data == [
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "TASK_NOT_FOUND",
            "domain": "a2a-protocol.org",
            "metadata": {"taskId": "t1"},
        }
    ]
    assert p.A2AError("TaskNotFoundError", "x").metadata == {}


def test_unknown_error_name() -> None:
    with pytest.raises(ValueError, match="'TaskNotFound'"):
        p.A2AError("TaskNotFound", "x")


@pytest.mark.parametrize("name", sorted(SPEC_TABLE))
def test_errors_read_back(name: str) -> None:
    error = p.A2AError(name, "why", metadata={"taskId": "t/1", "k": "é"})
    for read in (
        p.A2AError.from_status(error.to_http()[1]),
        p.A2AError.from_status(error.to_http()[1]["error"]),
        p.A2AError.from_jsonrpc(error.to_jsonrpc().to_dict()),
    ):
        assert read is not None
        assert (read.kind, read.message, read.metadata) == (
            error.kind,
            error.message,
            error.metadata,
        )


def test_reading_back_what_is_not_an_a2a_error() -> None:
    info = p.A2A_ERRORS["TaskNotFoundError"].error_info()
    status = p.A2A_ERRORS["TaskNotFoundError"].status("gone")
    assert (
        p.A2AError.from_status({**status, "details": [{**info, "domain": "x.org"}]})
        is None
    )
    assert (
        p.A2AError.from_status({**status, "details": [{**info, "reason": "NO"}]})
        is None
    )
    assert (
        p.A2AError.from_status({**status, "details": [{**info, "reason": ["a"]}]})
        is None
    )
    assert (
        p.A2AError.from_status({**status, "details": [{**info, "@type": "x"}]}) is None
    )
    assert p.A2AError.from_status({**status, "details": "TASK_NOT_FOUND"}) is None
    assert p.A2AError.from_status({"error": "bad gateway"}) is None
    assert p.A2AError.from_status("<html>") is None
    assert (
        p.A2AError.from_jsonrpc({"code": -32602, "message": "x", "data": [info]})
        is None
    )
    assert p.A2AError.from_jsonrpc({"code": True, "message": "x"}) is None
    assert p.A2AError.from_jsonrpc({"code": "-32001", "message": "x"}) is None
    assert p.A2AError.from_jsonrpc(None) is None


def test_reading_back_is_lenient_about_what_peers_send() -> None:
    # A Status whose first ErrorInfo is foreign: the A2A one after it counts.
    foreign = {"@type": p.ERROR_INFO_TYPE, "reason": "QUOTA", "domain": "example.com"}
    info = p.A2A_ERRORS["TaskNotFoundError"].error_info()
    read = p.A2AError.from_status(
        {"code": 404, "details": [foreign, {**info, "metadata": {"n": 3, "s": "x"}}]}
    )
    assert read is not None
    assert read.message == "TaskNotFoundError"  # no message: the name stands in
    assert read.metadata == {"n": "3", "s": "x"}
    # JSON-RPC: the code decides; metadata only from an ErrorInfo of that reason.
    other = p.A2A_ERRORS["TaskNotCancelableError"].error_info({"taskId": "t"})
    read = p.A2AError.from_jsonrpc({"code": -32001, "data": [other, "x"]})
    assert read is not None
    assert (read.kind.name, read.message, read.metadata) == (
        "TaskNotFoundError",
        "TaskNotFoundError",
        {},
    )
    read = p.A2AError.from_status({"details": [{**info, "metadata": "taskId=t"}]})
    assert read is not None and read.metadata == {}
    read = p.A2AError.from_jsonrpc({"code": -32001, "message": "m", "data": {"k": 1}})
    assert read is not None and read.metadata == {}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-40000, 40000) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(
        st.sampled_from(
            [
                "code",
                "message",
                "details",
                "data",
                "error",
                "@type",
                "reason",
                "domain",
                "metadata",
                "taskId",
            ]
        ),
        inner,
        max_size=5,
    ),
    max_leaves=20,
)


@given(_JSON)
def test_reading_back_never_raises(payload: Any) -> None:
    for read in (p.A2AError.from_status(payload), p.A2AError.from_jsonrpc(payload)):
        assert read is None or all(isinstance(v, str) for v in read.metadata.values())


# ------------------------------------------------------------- a2a-sdk 1.3.0


def test_table_agrees_with_a2a_sdk() -> None:
    errors = pytest.importorskip("a2a.utils.errors", reason="a2a-sdk is not installed")
    sdk_classes = {cls.__name__: cls for cls in errors.A2A_ERROR_MAPPING}
    for name, kind in p.A2A_ERRORS.items():
        cls = sdk_classes[name]
        mapping = errors.A2A_ERROR_MAPPING[cls]
        assert errors.JSON_RPC_ERROR_CODE_MAP[cls] == kind.code, name
        assert (mapping.http_code, mapping.grpc_status, mapping.reason) == (
            kind.http_status,
            kind.grpc_status,
            kind.reason,
        ), name
    # Every A2A code the SDK knows (-32001..-32099) is in our table.
    sdk_a2a_codes = {
        c for c in errors.JSON_RPC_ERROR_CODE_MAP.values() if -32099 <= c <= -32001
    }
    assert sdk_a2a_codes == {kind.code for kind in p.A2A_ERRORS.values()}


def _without_empty_metadata(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _without_empty_metadata(v)
            for k, v in value.items()
            if not (k == "metadata" and v == {})
        }
    if isinstance(value, list):
        return [_without_empty_metadata(v) for v in value]
    return value


@pytest.mark.parametrize("name", sorted(SPEC_TABLE))
@pytest.mark.parametrize("metadata", [None, {"taskId": "t1"}])
def test_wire_forms_agree_with_a2a_sdk(
    name: str, metadata: dict[str, str] | None
) -> None:
    errors = pytest.importorskip("a2a.utils.errors", reason="a2a-sdk is not installed")
    from a2a.client.transports.jsonrpc import JsonRpcTransport
    from a2a.client.transports.rest import _parse_rest_error
    from a2a.server.request_handlers.response_helpers import build_error_response
    from a2a.utils.error_handlers import build_rest_error_payload

    cls = next(c for c in errors.A2A_ERROR_MAPPING if c.__name__ == name)
    sdk_error = cls("it failed", data=metadata)
    ours = p.A2AError(name, "it failed", metadata=metadata)

    # Servers: the SDK's HTTP+JSON body and JSON-RPC error are ours (the SDK always
    # writes an empty metadata map; ProtoJSON leaves it out).
    status, body = ours.to_http()
    sdk_body = build_rest_error_payload(sdk_error)
    assert status == sdk_body["error"]["code"]
    assert _without_empty_metadata(sdk_body) == body
    sdk_rpc = build_error_response("r1", sdk_error)
    assert _without_empty_metadata(sdk_rpc["error"]) == ours.to_jsonrpc("r1").to_dict()

    # Clients: each side reads the other's errors as the same error.
    read = p.A2AError.from_status(sdk_body)
    assert read is not None and (read.name, read.message, read.metadata) == (
        name,
        "it failed",
        metadata or {},
    )
    read = p.A2AError.from_jsonrpc(sdk_rpc["error"])
    assert read is not None and (read.name, read.metadata) == (name, metadata or {})
    sdk_read = _parse_rest_error(body, "fallback")
    assert isinstance(sdk_read, errors.A2AError) and type(sdk_read) is cls
    assert (sdk_read.message, sdk_read.data) == ("it failed", metadata)
    rpc_error = ours.to_jsonrpc().to_dict()
    sdk_read = JsonRpcTransport._create_jsonrpc_error(None, rpc_error)  # type: ignore[arg-type]
    assert isinstance(sdk_read, errors.A2AError) and type(sdk_read) is cls
    assert (sdk_read.message, sdk_read.data) == ("it failed", metadata)


def test_version_rule_is_stricter_than_a2a_sdk_on_the_minor() -> None:
    # a2a-sdk's validate_version accepts any 1.x; §3.6 asks for Major.Minor.
    p.check_version("1.0.9", ["1.0"])
    with pytest.raises(p.A2AError):
        p.check_version("1.1", ["1.0"])


# ---------------------------------------------------------------- content types


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, ""),
        ("", ""),
        (b"", ""),
        ("application/json", "application/json"),
        ("Application/A2A+JSON; charset=utf-8", "application/a2a+json"),
        (b" application/json ;charset=UTF-8", "application/json"),
        ("text/event-stream", "text/event-stream"),
        ("application/jsonx", "application/jsonx"),
    ],
)
def test_media_type(value: str | bytes | None, expected: str) -> None:
    assert p.media_type(value) == expected


def test_media_type_membership_per_binding() -> None:
    assert p.media_type("application/json; charset=utf-8") in p.HTTP_JSON_ACCEPTED
    assert p.media_type("APPLICATION/A2A+JSON") in p.JSONRPC_ACCEPTED
    assert p.media_type("text/plain") not in p.JSONRPC_ACCEPTED
    assert p.media_type(None) not in p.HTTP_JSON_ACCEPTED


def test_request_headers() -> None:
    assert p.request_headers("http+json", body=True, version="1.0") == [
        ("A2A-Version", "1.0"),
        ("Content-Type", "application/a2a+json"),
    ]
    assert p.request_headers("jsonrpc", body=True, version="1.0") == [
        ("A2A-Version", "1.0"),
        ("Content-Type", "application/json"),
    ]
    assert p.request_headers("http+json", body=False, version="1.0") == [
        ("A2A-Version", "1.0")
    ]
    headers = p.request_headers(
        "jsonrpc",
        body=False,
        version="1.0",
        extensions=["https://e/a", "https://e/b", "https://e/a"],
    )
    assert headers == [
        ("A2A-Version", "1.0"),
        ("A2A-Extensions", "https://e/a, https://e/b"),
    ]
    # What a client sends, a server reads back.
    params = p.service_params(headers)
    assert params == p.ServiceParams("1.0", ("https://e/a", "https://e/b"))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"binding": "grpc"}, "binding"),
        ({"version": "1.0\r\nX: y"}, "A2A-Version"),
        ({"version": ""}, "A2A-Version"),
        ({"extensions": ["https://e/a,b"]}, r"extensions\[0\]"),
        ({"extensions": ["ok", ""]}, r"extensions\[1\]"),
        ({"extensions": ["https://e/a\r\n"]}, r"extensions\[0\]"),
        ({"extensions": [" https://e/a"]}, r"extensions\[0\]"),
    ],
)
def test_request_headers_refuses_what_a_header_cannot_carry(
    kwargs: dict[str, Any], match: str
) -> None:
    arguments: dict[str, Any] = {"binding": "http+json", "body": True, "version": "1.0"}
    with pytest.raises(ValueError, match=match):
        p.request_headers(**{**arguments, **kwargs})


# ------------------------------------------------------------ agent card caching

CARD = b'{"name": "agent"}'
MODIFIED = datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC)


def test_agent_card_headers() -> None:
    headers = dict(p.agent_card_headers(CARD, MODIFIED))
    assert headers["Cache-Control"] == "public, max-age=3600"
    assert headers["Last-Modified"] == "Wed, 04 Mar 2026 05:06:07 GMT"
    etag = headers["ETag"]
    assert re.fullmatch(r'"[0-9a-f]{32}"', etag)
    assert (
        etag == dict(p.agent_card_headers(CARD, MODIFIED + timedelta(days=1)))["ETag"]
    )
    assert etag != dict(p.agent_card_headers(CARD + b" ", MODIFIED))["ETag"]
    assert dict(p.agent_card_headers(CARD, MODIFIED, max_age=0))["Cache-Control"] == (
        "public, max-age=0"
    )
    # Another zone is the same instant.
    plus_two = MODIFIED.astimezone(timezone(timedelta(hours=2)))
    assert (
        dict(p.agent_card_headers(CARD, plus_two))["Last-Modified"]
        == headers["Last-Modified"]
    )


def test_agent_card_headers_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="last_modified"):
        p.agent_card_headers(CARD, datetime(2026, 1, 1))
    for bad in (-1, True, 1.5):
        with pytest.raises(ValueError, match="max_age"):
            p.agent_card_headers(CARD, MODIFIED, max_age=bad)  # type: ignore[arg-type]


ETAG = '"abc"'


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, False),
        ({"If-None-Match": '"abc"'}, True),
        ({"if-none-match": 'W/"abc"'}, True),
        ({"If-None-Match": '"x", W/"abc"'}, True),
        ([("If-None-Match", '"x"'), ("If-None-Match", '"abc"')], True),
        ({"If-None-Match": '"x", "y"'}, False),
        ({"If-None-Match": '"ABC"'}, False),
        ({"If-None-Match": "abc"}, False),
        ({"If-None-Match": 'w/"abc"'}, False),
        ({"If-None-Match": '"a,b", "abc"'}, True),
        ({"If-None-Match": '"abc" junk'}, False),
        ({"If-None-Match": '"abc'}, False),
        ({"If-None-Match": '"a b", "abc"'}, True),
        ({"If-None-Match": ',, "abc" ,'}, True),
        ({"If-None-Match": "*"}, True),
        ({"If-None-Match": " * "}, True),
        ({"If-None-Match": '*, "x"'}, False),
        ({"If-None-Match": ""}, False),
        ([("If-None-Match", " "), ("If-None-Match", "*")], True),
        # If-None-Match decides alone, even when it does not match.
        (
            {
                "If-None-Match": '"x"',
                "If-Modified-Since": "Wed, 04 Mar 2026 05:06:07 GMT",
            },
            False,
        ),
        (
            {"If-None-Match": "", "If-Modified-Since": "Wed, 04 Mar 2026 05:06:07 GMT"},
            False,
        ),
        ({"If-Modified-Since": "Wed, 04 Mar 2026 05:06:07 GMT"}, True),
        ({"If-Modified-Since": "Wed, 04 Mar 2026 05:06:06 GMT"}, False),
        ({"If-Modified-Since": "Thu, 05 Mar 2026 00:00:00 GMT"}, True),
        ({"If-Modified-Since": " Wed, 04 Mar 2026 05:06:07 GMT "}, True),
        ({"If-Modified-Since": "Wednesday, 04-Mar-26 05:06:07 GMT"}, True),
        ({"If-Modified-Since": "Wed Mar  4 05:06:07 2026"}, True),
        ({"If-Modified-Since": "Wed Mar  4 05:06:06 2026"}, False),
        ({"If-Modified-Since": "Wed, 04 Mar 2026 05:06:60 GMT"}, True),
        # Not one valid HTTP-date: ignored.
        ({"If-Modified-Since": "yesterday"}, False),
        ({"If-Modified-Since": "Wed, 04 Mar 2026 05:06:07 +0000"}, False),
        ({"If-Modified-Since": "wed, 04 mar 2026 05:06:07 gmt"}, False),
        ({"If-Modified-Since": "Wed, 31 Feb 2026 05:06:07 GMT"}, False),
        ({"If-Modified-Since": "Wed, 04 Mar 2026 25:06:07 GMT"}, False),
        ([("If-Modified-Since", "Thu, 05 Mar 2026 00:00:00 GMT")] * 2, False),
        ([(b"if-modified-since", b"Thu, 05 Mar 2026 00:00:00 GMT")], True),
    ],
)
def test_not_modified(headers: Any, expected: bool) -> None:
    assert p.not_modified(headers, ETAG, MODIFIED) is expected


def test_not_modified_with_a_weak_card_tag_and_real_headers() -> None:
    assert p.not_modified({"If-None-Match": '"abc"'}, 'W/"abc"', MODIFIED)
    headers = dict(p.agent_card_headers(CARD, MODIFIED))
    echo = {
        "If-None-Match": headers["ETag"],
        "If-Modified-Since": headers["Last-Modified"],
    }
    assert p.not_modified(echo, headers["ETag"], MODIFIED)
    assert p.not_modified(
        {"If-Modified-Since": headers["Last-Modified"]}, headers["ETag"], MODIFIED
    )
    assert not p.not_modified(
        {"If-Modified-Since": headers["Last-Modified"]},
        headers["ETag"],
        MODIFIED + timedelta(seconds=1),
    )


def test_not_modified_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="last_modified"):
        p.not_modified({}, ETAG, datetime(2026, 1, 1))
    for bad in ("abc", '"a", "b"', "", "*"):
        with pytest.raises(ValueError, match="etag"):
            p.not_modified({}, bad, MODIFIED)


def test_rfc850_two_digit_years_are_the_nearest_past() -> None:
    now = datetime.now(UTC).year
    ahead = (now + 60) % 100  # more than 50 years ahead: a past year is meant
    date = f"Monday, 01-Jan-{ahead:02d} 00:00:00 GMT"
    assert not p.not_modified({"If-Modified-Since": date}, ETAG, MODIFIED)
    soon = (now + 10) % 100
    date = f"Monday, 01-Jan-{soon:02d} 00:00:00 GMT"
    assert p.not_modified({"If-Modified-Since": date}, ETAG, MODIFIED)


_DAY_NAMES = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
]
_MONTHS = [
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
]


def _http_date(moment: datetime, form: str) -> str:
    if form == "imf":
        return format_datetime(moment, usegmt=True)
    day = _DAY_NAMES[moment.weekday()]
    month = _MONTHS[moment.month - 1]
    if form == "rfc850":
        return f"{day}, {moment:%d}-{month}-{moment:%y %H:%M:%S} GMT"
    return f"{day[:3]} {month} {moment.day:2d} {moment:%H:%M:%S} {moment.year}"


_TAGS = ['"a"', 'W/"a"', '"b"', 'W/"b"', '""', "junk", "W/a", "*", '"open']
_MOMENTS = st.datetimes(
    min_value=datetime(2020, 1, 1),
    max_value=datetime(2030, 1, 1),
    timezones=st.just(UTC),
)


@st.composite
def _conditional_headers(draw: st.DrawFn) -> tuple[list[tuple[str, str]], Any]:
    """Request headers, and what the RFC says about them in brute-force form."""
    lines: list[tuple[str, str]] = []
    inm: list[list[str]] = []
    for _ in range(draw(st.integers(0, 2))):
        members = draw(st.lists(st.sampled_from(_TAGS), max_size=3))
        inm.append(members)
        lines.append(
            (
                draw(st.sampled_from(["If-None-Match", "if-none-match"])),
                ", ".join(members),
            )
        )
    ims: list[datetime | None] = []
    for _ in range(draw(st.integers(0, 2))):
        if draw(st.booleans()):
            moment = draw(_MOMENTS)
            ims.append(moment.replace(microsecond=0))
            value = _http_date(
                moment, draw(st.sampled_from(["imf", "rfc850", "asctime"]))
            )
        else:
            ims.append(None)
            value = draw(
                st.sampled_from(["", "0", "garbage", "Mon, 01 Jan 2024 00:00:00 UTC"])
            )
        lines.append(
            (draw(st.sampled_from(["If-Modified-Since", "IF-MODIFIED-SINCE"])), value)
        )
    order = draw(st.permutations(range(len(lines))))
    return [lines[i] for i in order], (inm, ims)


def _reference(
    inm: list[list[str]], ims: list[datetime | None], tag: str, modified: datetime
) -> bool:
    """RFC 9110 §13.2.2 steps 3 and 4 for GET, spelled out on the generated parts."""
    if inm:  # step 3: If-None-Match present, If-Modified-Since not looked at
        members = [m for line in inm for m in line]
        if members == ["*"]:
            return True  # "*" matches any current representation
        return any(m in (tag, "W/" + tag) for m in members)  # weak comparison
    if len(ims) == 1 and ims[0] is not None:  # step 4: one valid HTTP-date
        return modified.replace(microsecond=0) <= ims[0]
    return False


@given(_conditional_headers(), st.sampled_from(['"a"', 'W/"a"', '"c"']), _MOMENTS)
def test_not_modified_agrees_with_the_rfc(
    case: Any, etag: str, modified: datetime
) -> None:
    lines, (inm, ims) = case
    strong = etag.removeprefix("W/")
    assert p.not_modified(lines, etag, modified) is _reference(
        inm, ims, strong, modified
    )


# ---------------------------------------------------------------------------- SSE


def _parse(*chunks: bytes) -> list[p.SseEvent]:
    return list(p.parse_sse(chunks))


def _aparse(*chunks: bytes) -> list[p.SseEvent]:
    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            await asyncio.sleep(0)
            yield chunk

    async def collect() -> list[p.SseEvent]:
        return [event async for event in p.aparse_sse(source())]

    return asyncio.run(collect())


E = p.SseEvent


@pytest.mark.parametrize(
    ("chunks", "events"),
    [
        ((b"data: x\n\n",), [E("", "message", "x")]),
        ((b"data:x\r\n\r\n",), [E("", "message", "x")]),
        ((b"data:  x\r\r",), [E("", "message", " x")]),
        ((b"data\n\n",), [E("", "message", "")]),
        ((b"data:\n\n",), [E("", "message", "")]),
        ((b"data: a\ndata: b\ndata:\n\n",), [E("", "message", "a\nb\n")]),
        ((b": comment\ndata: x\n:\n\n",), [E("", "message", "x")]),
        ((b"event: ping\nid: 7\ndata: {}\n\n",), [E("7", "ping", "{}")]),
        ((b"event: ping\n\ndata: x\n\n",), [E("", "message", "x")]),
        (
            (b"id: 1\ndata: a\n\ndata: b\n\n",),
            [E("1", "message", "a"), E("1", "message", "b")],
        ),
        (
            (b"id: 1\ndata: a\n\nid\ndata: b\n\n",),
            [E("1", "message", "a"), E("", "message", "b")],
        ),
        ((b"id: 1\n\ndata: b\n\n",), [E("1", "message", "b")]),
        (
            (b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",),
            [E("1", "message", "a"), E("1", "message", "b")],
        ),
        ((b"retry: 10\nfoo: bar\ndata: x\n\n",), [E("", "message", "x")]),
        ((b"data : x\n\ndata: y\n\n",), [E("", "message", "y")]),
        ((b"Data: x\n\n",), []),
        ((b"event:\ndata: x\n\n",), [E("", "message", "x")]),
        ((b"data: a:b\n\n",), [E("", "message", "a:b")]),
        ((b"\n\n\n",), []),
        ((b"data: unfinished\n",), []),
        ((b"data: x\n\ndata: tail",), [E("", "message", "x")]),
        ((b"\xef\xbb\xbfdata: x\n\n",), [E("", "message", "x")]),
        ((b"\xef\xbb", b"\xbfdata: x\n\n"), [E("", "message", "x")]),
        ((b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\n",), []),
        ((b"data: \xef\xbb\xbfx\n\n",), [E("", "message", "\ufeffx")]),
        ((b"data: \xff\n\n",), [E("", "message", "\ufffd")]),
        ((b"data: \xc3", b"\xa9\n\n"), [E("", "message", "é")]),
        ((b"data: a\r", b"\ndata: b\r\n\r\n"), [E("", "message", "a\nb")]),
        ((b"data: a\r", b"", b"\n", b"\r\n"), [E("", "message", "a")]),
        ((b"data: a\r", b"\r"), [E("", "message", "a")]),
        (
            (b"data: a\n\r\n\rdata: b\r\n\n",),
            [E("", "message", "a"), E("", "message", "b")],
        ),
        ((b"da", b"ta: x", b"\n", b"\n"), [E("", "message", "x")]),
        ((), []),
    ],
)
def test_parse_sse(chunks: tuple[bytes, ...], events: list[p.SseEvent]) -> None:
    assert _parse(*chunks) == events
    assert _aparse(*chunks) == events


def test_decoder_close_drops_the_unfinished_event_only() -> None:
    decoder = p.SseDecoder()
    assert decoder.feed(b"id: 4\ndata: a\n\ndata: half") == [E("4", "message", "a")]
    decoder.close()
    assert decoder.feed(b"\n\n") == []
    assert decoder.feed(b"data: b\n\n") == [E("4", "message", "b")]


def test_sse_frame() -> None:
    assert p.sse_frame("x") == b"data: x\n\n"
    assert p.sse_frame("a\nb\r\nc\rd", event_id="0", event="update") == (
        b"id: 0\nevent: update\ndata: a\ndata: b\ndata: c\ndata: d\n\n"
    )
    assert p.sse_frame("", event_id="") == b"id: \ndata: \n\n"
    assert p.sse_frame("é") == "data: é\n\n".encode()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"event_id": "1\n2"}, "event_id"),
        ({"event_id": "1\r"}, "event_id"),
        ({"event_id": "1\x00"}, "event_id"),
        ({"event": "a\nb"}, "event"),
        ({"event": "\r"}, "event"),
    ],
)
def test_sse_frame_refuses_what_would_break_the_stream(
    kwargs: dict[str, str], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        p.sse_frame("x", **kwargs)


_SSE_TEXT = st.text(st.characters(codec="utf-8"), max_size=30)
_SSE_EVENTS = st.lists(
    st.tuples(
        st.none() | _SSE_TEXT.filter(lambda s: not any(c in s for c in "\r\n\0")),
        st.none() | _SSE_TEXT.filter(lambda s: not any(c in s for c in "\r\n")),
        _SSE_TEXT,
    ),
    max_size=6,
)


def _expected(events: list[tuple[str | None, str | None, str]]) -> list[p.SseEvent]:
    expected, last_id = [], ""
    for event_id, event, data in events:
        last_id = last_id if event_id is None else event_id
        expected.append(E(last_id, event or "message", re.sub(r"\r\n|\r", "\n", data)))
    return expected


def _split(stream: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(stream)) for c in cuts})
    return [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)])]


@given(_SSE_EVENTS, st.lists(st.integers(0, 400), max_size=12), st.booleans())
def test_sse_round_trip_over_any_chunking(
    events: list[tuple[str | None, str | None, str]], cuts: list[int], bom: bool
) -> None:
    stream = (b"\xef\xbb\xbf" if bom else b"") + b"".join(
        p.sse_frame(data, event_id=event_id, event=event)
        for event_id, event, data in events
    )
    chunks = _split(stream, cuts)
    assert _parse(*chunks) == _expected(events)
    assert _aparse(*chunks) == _expected(events)
    # One byte at a time: every CR/LF and UTF-8 sequence is split somewhere.
    assert _parse(*[stream[i : i + 1] for i in range(len(stream))]) == _expected(events)


@given(
    _SSE_EVENTS,
    st.lists(st.integers(0, 400), max_size=12),
    st.sampled_from(["\r\n", "\n", "\r"]),
    st.none() | _SSE_TEXT,
)
def test_parser_reads_sse_starlette_frames(
    events: list[tuple[str | None, str | None, str]],
    cuts: list[int],
    separator: str,
    comment: str | None,
) -> None:
    # a2a-sdk's servers stream through sse-starlette (CRLF by default, comments, retry).
    event_module = pytest.importorskip(
        "sse_starlette.event", reason="sse-starlette is not installed"
    )
    stream = b"".join(
        event_module.ServerSentEvent(
            data, id=event_id, event=event, comment=comment, retry=1000, sep=separator
        ).encode()
        for event_id, event, data in events
    )
    assert _parse(*_split(stream, cuts)) == _expected(events)


def test_an_event_or_line_beyond_the_bound_is_refused() -> None:
    """A peer that never ends a line, or never ends an event, cannot grow memory."""
    decoder = p.SseDecoder(max_event_chars=100)
    assert decoder.feed(b"data: " + b"x" * 50 + b"\n\n")[0].data == "x" * 50
    with pytest.raises(p.SseTooLarge):
        for _ in range(20):
            decoder.feed(b"y" * 10)  # one line that never ends
    decoder = p.SseDecoder(max_event_chars=100)
    with pytest.raises(p.SseTooLarge):
        for _ in range(20):
            decoder.feed(b"data: zzzzzzzz\n")  # one event that never ends
    assert p.MAX_SSE_EVENT_CHARS >= 1024 * 1024


def test_a_long_line_in_many_chunks_is_read_once() -> None:
    decoder = p.SseDecoder()
    for _ in range(2000):
        assert decoder.feed(b"a" * 100) == []
    events = decoder.feed(b"\n\n")
    assert events == []  # a line without a field name "aaaa..." is a field named so
    assert decoder.feed(b"data: " + b"b" * 100_000 + b"\n\n")[0].data == "b" * 100_000

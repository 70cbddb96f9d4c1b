"""What the server reads of a request (``codegen/runtime/wire/_request.py``): the path below
the mount, the body within its limit, the context a handler gets."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codegen.runtime._headers import RequestHead
from codegen.runtime._params import ServiceParams
from codegen.runtime._request import CallContext, Disconnected, raw_path, read_body


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        ({"raw_path": b"/a/b%2Fc"}, "/a/b%2Fc"),
        ({"raw_path": b"/a/b?x=1"}, "/a/b"),  # a server that leaves the query on
        ({"path": "/a b/é"}, "/a%20b/%C3%A9"),
        ({"raw_path": b"/mount/a", "root_path": "/mount"}, "/a"),
        ({"raw_path": b"/mount", "root_path": "/mount"}, "/"),
        ({"raw_path": b"/my%20mount/a", "root_path": "/my mount"}, "/a"),
        ({"raw_path": b"/other/a", "root_path": "/mount"}, "/other/a"),
        ({"raw_path": b"/mountain", "root_path": "/mount"}, "/mountain"),
    ],
)
def test_raw_path_below_the_mount(scope: dict[str, Any], expected: str) -> None:
    assert raw_path(scope) == expected


def _receiver(messages: list[dict[str, Any]]) -> Any:
    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    return receive


def _read(messages: list[dict[str, Any]], length: str | None, limit: int) -> Any:
    return asyncio.run(read_body(_receiver(messages), length, limit))


def chunks(*parts: bytes) -> list[dict[str, Any]]:
    return [
        {"type": "http.request", "body": part, "more_body": i < len(parts) - 1}
        for i, part in enumerate(parts)
    ]


def test_read_body_in_one_message_and_in_chunks() -> None:
    assert _read(chunks(b"abc"), "3", 3) == b"abc"
    assert _read(chunks(b"ab", b"", b"c"), None, 3) == b"abc"
    assert _read([{"type": "http.request"}], None, 3) == b""


def test_read_body_refuses_what_is_over_the_limit() -> None:
    assert _read(chunks(b"abcd"), None, 3) is None  # no Content-Length
    assert _read(chunks(b"ab", b"cd"), None, 3) is None  # the last chunk goes over
    assert _read(chunks(b"abcd", b"e"), None, 3) is None  # an early chunk goes over
    assert _read([], "4", 3) is None  # refused by Content-Length, nothing read
    assert _read(chunks(b"ab"), "not a number", 3) == b"ab"


def test_read_body_notices_a_client_that_leaves() -> None:
    gone = {"type": "http.disconnect"}
    with pytest.raises(Disconnected):
        _read([gone], None, 3)
    with pytest.raises(Disconnected):
        _read([*chunks(b"a", b"b")[:1], gone], None, 3)


def test_call_context_reads_headers_and_base_url_when_asked() -> None:
    scope = {"scheme": "https", "server": ("10.0.0.1", 8443), "root_path": "/agent"}
    head = RequestHead([(b"Host", b"agents.example:8443"), (b"x-trace", b"\xe9")])
    context = CallContext.of_request(
        "t1", "jsonrpc", ServiceParams("1.0", ()), scope, head
    )
    assert context.tenant == "t1" and context.binding == "jsonrpc"
    assert context.headers == (("host", "agents.example:8443"), ("x-trace", "é"))
    assert context.header("X-TRACE") == "é" and context.header("nope") is None
    assert context.base_url == "https://agents.example:8443/agent"
    assert "base_url='https://agents.example:8443/agent'" in repr(context)
    with pytest.raises(AttributeError):
        context.tenant = "other"  # type: ignore[misc]
    given = CallContext("", "http+json", ServiceParams("1.0", ()), (("a", "b"),), "u")
    assert given.headers == (("a", "b"),) and given.base_url == "u"


def test_call_contexts_compare_and_hash_by_what_they_carry() -> None:
    params = ServiceParams("1.0", ())
    lazy = CallContext.of_request(
        "t", "jsonrpc", params, {"server": ("h", 80)}, RequestHead([(b"a", b"b")])
    )
    given = CallContext("t", "jsonrpc", params, (("a", "b"),), "http://h")
    assert lazy == given and hash(lazy) == hash(given) and len({lazy, given}) == 1
    assert lazy != CallContext("u", "jsonrpc", params, (("a", "b"),), "http://h")
    assert lazy != "t"


def test_request_head_takes_any_bytes_like_names_and_values() -> None:
    head = RequestHead(
        iter([(bytearray(b"A2A-Version"), bytearray(b"1.0")), (memoryview(b"x"), b"y")])
    )
    assert head.versions == ["1.0"]
    assert head.pairs == (("a2a-version", "1.0"), ("x", "y"))  # the list is kept


def test_request_head_reads_names_in_any_case_however_many_names_came_before() -> None:
    from codegen.runtime import _headers

    # Clients making up names (each a new one) fill the names remembered; a name in
    # another case, met for the first time after that, is still read.
    for number in range(2 * _headers._MOST_SEEN):
        RequestHead([(b"x-made-up-%d" % number, b"1")])
    assert len(_headers._SEEN) <= _headers._MOST_SEEN
    head = RequestHead(
        [
            (b"A2A-VERSION", b"1.0"),
            (b"a2A-Version", b"0.3"),
            (b"Content-Type", b"application/json"),
            (b"Transfer-Encoding", b"chunked"),
            (b"HOST", b"h"),
            (b"x-" + b"long" * 40, b"v"),  # never remembered: longer than a usual name
        ]
    )
    assert head.versions == ["1.0", "0.3"]
    assert (head.content_type, head.host, head.declares_body) == (
        "application/json",
        "h",
        True,
    )
    assert all(len(name) <= _headers._LONGEST_SEEN for name in _headers._SEEN)

"""Large messages on the gRPC side (``_proto.is_large``, ``_proto.off_loop``): the
binding and ``GrpcBackend`` convert a message too large for about a millisecond of work
on a worker thread, so that the event loop goes on serving other calls meanwhile, and
the binding refuses a request over its ``max_message_bytes`` unread.

"The loop goes on" is measured by a ticker on the serving loop: the longest it waited
for its turn while one large message of a million parts crossed, as a share of the
whole call. Reading such a message on the loop holds it for the whole conversion, so
the share is close to 1 (``json_format.ParseDict`` takes seconds); on a worker thread
the loop gets its turn every few milliseconds (Python hands the GIL over every 5 ms):
a few per cent of the call. A share keeps the test's meaning on a loaded machine, where
both times stretch. Building one is bound by the message class's constructor (C,
holding the GIL for the whole message: about 0.13 s of the 0.3 s a million parts take
here), so its bound is wider (``BUILD_SHARE``).
"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Any

import grpc
import grpc.aio
import pytest
from a2a.types import a2a_pb2 as pb

from codegen.runtime._grpc import DEFAULT_MAX_MESSAGE_BYTES, GrpcBackend, GrpcBinding
from codegen.runtime._proto import (
    CONVERSION_THREADS,
    LARGE_MESSAGE_BYTES,
    LARGE_VALUE_ITEMS,
    is_large,
    off_loop,
)

from .test_grpc import SCHEMA, SERVICE, SERVICES, V1, Handler, failed, run, serving
from .test_grpc import status, unary

READ_SHARE = 0.5
"""The share of a call reading a large message the loop may wait at once (off the
loop, measured under 0.12; on it, 0.9 and more)."""

BUILD_SHARE = 0.7
"""The share of a call building a large request the loop may wait at once (off the
loop, measured 0.4-0.45; on it, 0.9 and more)."""

PARTS = 1_000_000


def _request(parts: int) -> dict[str, Any]:
    return {
        "message": {
            "messageId": "m",
            "role": "ROLE_USER",
            "parts": [{} for _ in range(parts)],
        }
    }


async def _longest_wait(work: Awaitable[Any]) -> tuple[Any, float, float]:
    """``work``'s result, the longest the loop made a 1 ms sleeper wait past its
    time while ``work`` ran, and how long ``work`` took."""
    waits: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        while not done.is_set():
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            waits.append(time.perf_counter() - start - 0.001)

    ticking = asyncio.ensure_future(ticker())
    await asyncio.sleep(0)
    gc.disable()  # a full collection holds whichever thread runs it: not the point
    start = time.perf_counter()
    try:
        result = await work
    finally:
        took = time.perf_counter() - start
        gc.enable()
        done.set()
        await ticking
    return result, max(waits, default=0.0), took


# ------------------------------------------------------------------ the helpers


def test_is_large_counts_members_and_elements_at_any_depth() -> None:
    assert not is_large({}, 0) and not is_large("x" * 10**6, 0) and not is_large(7, 0)
    assert not is_large({"a": 1, "b": 2}, 2) and is_large({"a": 1, "b": 2}, 1)
    nested = {"a": [{"b": [1, 2, 3]}, {}], "c": {"d": {"e": None}}}
    # members a, c, b, d, e (5) and elements of a (2) and of b (3): 10 values
    assert not is_large(nested, 10) and is_large(nested, 9)
    assert not is_large(_request(LARGE_VALUE_ITEMS - 4))
    assert is_large(_request(LARGE_VALUE_ITEMS))


def test_off_loop_runs_on_a_worker_thread_and_gives_its_result_or_error() -> None:
    def where(value: int) -> tuple[int, str]:
        return value * 2, threading.current_thread().name

    def fails() -> None:
        raise KeyError("k")

    async def scenario() -> list[tuple[int, str]]:
        with pytest.raises(KeyError):
            await off_loop(fails)
        return list(await asyncio.gather(*(off_loop(where, i) for i in range(5))))

    found = run(scenario)
    assert [value for value, _ in found] == [0, 2, 4, 6, 8]
    names = {name for _, name in found}
    assert all(name.startswith("a2a-convert") for name in names)
    assert threading.current_thread().name not in names
    assert len(names) <= CONVERSION_THREADS


FORKED = """
import asyncio, os, sys
from codegen.runtime._proto import off_loop

async def twice(value):
    return await asyncio.wait_for(off_loop(lambda: value * 2), 10)

assert asyncio.run(twice(1)) == 2  # the parent's workers are running now
child = os.fork()
if child == 0:
    os._exit(0 if asyncio.run(twice(2)) == 4 else 1)
_, status = os.waitpid(child, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform has no fork")
def test_off_loop_works_in_a_process_forked_after_it_ran() -> None:
    """A pre-forking server's child converts large messages too: the pool it
    inherits has no threads in it, so the child gets its own."""
    done = subprocess.run(
        [sys.executable, "-c", FORKED], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------------- the hop


@asynccontextmanager
async def agent(answer: bytes) -> AsyncIterator[grpc.aio.Channel]:
    """A gRPC service answering SendMessage with ``answer`` as it is (no parsing:
    what the loop spends is the backend's)."""

    async def send_message(raw: bytes, context: Any) -> bytes:
        return answer

    server = grpc.aio.server(
        options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)]
    )
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                SERVICE,
                {"SendMessage": grpc.unary_unary_rpc_method_handler(send_message)},
            ),
        )
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        options = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
        async with grpc.aio.insecure_channel(
            f"127.0.0.1:{port}", options=options
        ) as channel:
            yield channel
    finally:
        await server.stop(None)


def _backend(channel: grpc.aio.Channel) -> GrpcBackend:
    return GrpcBackend(
        channel,
        services=SERVICES,
        pb2_module="a2a.types.a2a_pb2",
        version="1.0",
        schema=SCHEMA,
    )


def test_the_backend_builds_a_large_request_off_the_loop() -> None:
    small = pb.SendMessageResponse(task=pb.Task(id="t", context_id="c"))

    async def scenario() -> tuple[Any, float, float]:
        async with agent(small.SerializeToString()) as channel:
            backend = _backend(channel)
            await backend.call("SendMessage", _request(1))  # connected, compiled
            return await _longest_wait(backend.call("SendMessage", _request(PARTS)))

    answer, longest, took = run(scenario)
    assert answer["task"]["id"] == "t"
    assert longest < BUILD_SHARE * took, (longest, took)


def test_the_backend_reads_a_large_answer_off_the_loop() -> None:
    parts = [pb.Part(text="") for _ in range(PARTS)]
    message = pb.Message(message_id="m", role=pb.ROLE_AGENT, parts=parts)
    large = pb.SendMessageResponse(message=message).SerializeToString()
    assert len(large) > LARGE_MESSAGE_BYTES

    async def scenario() -> tuple[Any, float, float]:
        async with agent(large) as channel:
            backend = _backend(channel)
            await backend.call("SendMessage", _request(1))  # read once: compiled
            return await _longest_wait(backend.call("SendMessage", _request(1)))

    answer, longest, took = run(scenario)
    assert len(answer["message"]["parts"]) == PARTS
    assert longest < READ_SHARE * took, (longest, took)


def test_the_backend_converts_as_json_format_does_on_either_side() -> None:
    from google.protobuf import json_format

    request = {
        "message": {
            "messageId": "m",
            "role": "ROLE_USER",
            "parts": [{"text": "a"}, {"data": {"k": [1, "x", None]}}],
            "metadata": {"n": 1.5},
        },
        "configuration": {"historyLength": 3, "acceptedOutputModes": ["text/plain"]},
    }
    expected = json_format.ParseDict(request, pb.SendMessageRequest())
    backend = _backend(None)  # type: ignore[arg-type]  # converting needs no channel
    remote = backend._remotes["SendMessage"]
    for value in (request, _request(LARGE_VALUE_ITEMS * 2)):
        sent = backend._encode(remote, value)
        parsed = json_format.ParseDict(value, pb.SendMessageRequest())
        assert pb.SendMessageRequest.FromString(sent) == parsed
    assert pb.SendMessageRequest.FromString(backend._encode(remote, request)) == (
        expected
    )
    raw = pb.SendMessageResponse(message=expected.message).SerializeToString()
    assert backend._decode(remote, raw) == json_format.MessageToDict(
        pb.SendMessageResponse.FromString(raw)
    )


# ------------------------------------------------------------------ the binding


def _sent(parts: int) -> pb.SendMessageRequest:
    return pb.SendMessageRequest(
        message=pb.Message(
            message_id="m", role=pb.ROLE_USER, parts=[pb.Part() for _ in range(parts)]
        )
    )


async def _small() -> dict[str, Any]:
    return {
        "task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}
    }


@asynccontextmanager
async def large_serving(handler: Any, **options: Any) -> AsyncIterator[Any]:
    options.setdefault("supported_versions", ("1.0",))
    server = grpc.aio.server(
        options=[("grpc.max_receive_message_length", 16 * 1024 * 1024)]
    )
    GrpcBinding(
        handler,
        services=SERVICES,
        pb2_module="a2a.types.a2a_pb2",
        tenant_field="tenant",
        schema=SCHEMA,
        **options,
    ).add_to(server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        channel_options = [("grpc.max_send_message_length", 16 * 1024 * 1024)]
        async with grpc.aio.insecure_channel(
            f"127.0.0.1:{port}", options=channel_options
        ) as channel:
            yield channel
    finally:
        await server.stop(None)


def test_the_binding_reads_a_large_request_off_the_loop() -> None:
    handler = Handler()  # answering a small message: the request is what is large
    handler.override["send_message"] = lambda request, context: _small()
    sent = _sent(PARTS).SerializeToString()
    assert LARGE_MESSAGE_BYTES < len(sent) < DEFAULT_MAX_MESSAGE_BYTES

    async def scenario() -> tuple[Any, float, float]:
        async with serving(handler) as channel:
            call = unary(channel, "SendMessage")
            await call(_sent(1), metadata=V1)
            return await _longest_wait(call(sent, metadata=V1))

    answer, longest, took = run(scenario)
    assert answer.task.id == "t"
    assert len(handler.seen[-1][1]["message"]["parts"]) == PARTS
    assert longest < READ_SHARE * took, (longest, took)


def test_the_binding_refuses_a_request_over_its_limit_unread() -> None:
    handler = Handler()
    fits, over = _sent(400), _sent(600)
    assert fits.ByteSize() <= 1000 < over.ByteSize()

    async def scenario() -> tuple[Any, grpc.aio.AioRpcError]:
        async with large_serving(handler, max_message_bytes=1000) as channel:
            call = unary(channel, "SendMessage")
            return await call(fits, metadata=V1), await failed(call(over, metadata=V1))

    answer, error = run(scenario)
    assert len(answer.message.parts) == 400 and len(handler.seen) == 1
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.details() == "the request is larger than 1000 bytes"
    assert status(error).message == error.details()


def test_the_default_limit_holds_where_grpc_would_take_more() -> None:
    handler = Handler()
    message = pb.SendMessageRequest(
        message=pb.Message(
            message_id="m",
            role=pb.ROLE_USER,
            parts=[pb.Part(text="x" * (DEFAULT_MAX_MESSAGE_BYTES // 4))] * 5,
        )
    )
    over = message.SerializeToString()
    assert DEFAULT_MAX_MESSAGE_BYTES < len(over) < 16 * 1024 * 1024

    async def scenario() -> grpc.aio.AioRpcError:
        async with large_serving(handler) as channel:
            return await failed(unary(channel, "SendMessage")(over, metadata=V1))

    error = run(scenario)
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert handler.seen == []
    with pytest.raises(ValueError, match="max_message_bytes"):
        GrpcBinding(
            handler,
            services=SERVICES,
            pb2_module="a2a.types.a2a_pb2",
            tenant_field="tenant",
            supported_versions=("1.0",),
            max_message_bytes=-1,
        )

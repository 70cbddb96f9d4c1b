"""The gRPC binding alone: ``grpc_binding.add_to_server`` against a2a-sdk's ``GrpcHandler``
and a hand-written floor, over loopback.

Three ``grpc.aio`` servers answer the same calls over a trivial handler (fixed answers,
no task store, no executor), each in a process of its own on 127.0.0.1:

* generated: ``a2a_binding.grpc_binding.add_to_server`` over bench_serving's
  ``TrivialAgent`` (requests converted to ProtoJSON dicts, validated, answers converted
  back);
* a2a-sdk 1.3.0: its ``GrpcHandler`` over bench_serving's ``TrivialSdkHandler`` (its
  abstract ``RequestHandler`` with fixed protobuf answers), registered with its own
  ``a2a_pb2_grpc.add_A2AServiceServicer_to_server``;
* floor: generic method handlers written by hand that parse the request with protobuf,
  read ``a2a-version`` (refusing other versions) and answer fixed messages: what any
  gRPC binding must do at least.

Two calls, with ``a2a-version: 1.0`` metadata, from one client process (a2a-sdk's
generated stub on one channel per server): the unary ``GetTask`` and the short stream
``SendStreamingMessage`` (two events, read to the end). Calls go one at a time, in
interleaved rounds (in each round, each server takes each call for a batch of about
0.2 s, in an order that changes from round to round), so a drift of the machine's speed
hits all of them alike. The table gives the median over the rounds of microseconds per
call, with min-max, and sdk/generated (goal: >= 1, at least as fast) and
generated/floor. The client's own cost is in every row alike.

Numbers are printed, never asserted. About half a minute:

    .venv/bin/python bench/bench_grpc.py
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "generated"), str(ROOT), str(ROOT / "bench")]

ROUNDS = 12
BATCH_SECONDS = 0.2
SERVERS = ("generated", "sdk", "floor")
METADATA = (("a2a-version", "1.0"),)


# --- the servers, one per process ----------------------------------------------------


def floor_handlers() -> Any:
    """The floor: fixed protobuf answers behind generic handlers, the version read."""
    import grpc
    from a2a.types import a2a_pb2 as pb

    task = pb.Task(
        id="task-123",
        context_id="ctx",
        status=pb.TaskStatus(state=pb.TASK_STATE_WORKING),
    )
    events = [
        pb.StreamResponse(task=task),
        pb.StreamResponse(
            status_update=pb.TaskStatusUpdateEvent(
                task_id="task-123",
                context_id="ctx",
                status=pb.TaskStatus(state=pb.TASK_STATE_COMPLETED),
            )
        ),
    ]

    def version(context: Any) -> None:
        for key, value in context.invocation_metadata():
            if key == "a2a-version" and value != "1.0":
                raise ValueError(value)

    async def get_task(request: Any, context: Any) -> Any:
        version(context)
        if request.id != "task-123":
            await context.abort(grpc.StatusCode.NOT_FOUND, "not found")
        return task

    async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
        version(context)
        for event in events:
            yield event

    return grpc.method_handlers_generic_handler(
        "lf.a2a.v1.A2AService",
        {
            "GetTask": grpc.unary_unary_rpc_method_handler(
                get_task,
                request_deserializer=pb.GetTaskRequest.FromString,
                response_serializer=pb.Task.SerializeToString,
            ),
            "SendStreamingMessage": grpc.unary_stream_rpc_method_handler(
                stream,
                request_deserializer=pb.SendMessageRequest.FromString,
                response_serializer=pb.StreamResponse.SerializeToString,
            ),
        },
    )


async def serve(kind: str) -> None:
    """Serve ``kind`` on a free loopback port, print the port, run until stdin closes."""
    import grpc.aio

    server = grpc.aio.server()
    if kind == "generated":
        from a2a_binding import grpc_binding
        from bench_serving import TrivialAgent

        grpc_binding.add_to_server(TrivialAgent(), server)
    elif kind == "sdk":
        from a2a.server.request_handlers import GrpcHandler
        from a2a.types import a2a_pb2_grpc
        from bench_serving import trivial_sdk_handler

        a2a_pb2_grpc.add_A2AServiceServicer_to_server(
            GrpcHandler(trivial_sdk_handler()), server
        )
    else:
        server.add_generic_rpc_handlers((floor_handlers(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(None)


# --- the client -------------------------------------------------------------------------


def start(kind: str) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", kind],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, int(process.stdout.readline())


async def measure(ports: dict[str, int]) -> dict[tuple[str, str], list[float]]:
    import grpc.aio
    from a2a.types import a2a_pb2 as pb
    from a2a.types import a2a_pb2_grpc

    channels = {
        kind: grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        for kind, port in ports.items()
    }
    stubs = {kind: a2a_pb2_grpc.A2AServiceStub(ch) for kind, ch in channels.items()}
    get = pb.GetTaskRequest(id="task-123")
    send = pb.SendMessageRequest(
        message=pb.Message(
            message_id="m1", role=pb.ROLE_USER, parts=[pb.Part(text="hi")]
        )
    )

    def unary(stub: Any) -> Callable[[], Awaitable[Any]]:
        return lambda: stub.GetTask(get, metadata=METADATA)

    def streaming(stub: Any) -> Callable[[], Awaitable[Any]]:
        async def call() -> list[Any]:
            return [e async for e in stub.SendStreamingMessage(send, metadata=METADATA)]

        return call

    calls = {
        "unary GetTask": unary,
        "stream SendStreamingMessage (2 events)": streaming,
    }
    # Each server answers alike before anything is timed.
    for label, make in calls.items():
        answers = {kind: await make(stub)() for kind, stub in stubs.items()}
        if len({repr(answer) for answer in answers.values()}) != 1:
            raise SystemExit(f"{label}: the servers answer differently: {answers}")
    counts: dict[tuple[str, str], int] = {}
    for label, make in calls.items():
        for kind, stub in stubs.items():
            call = make(stub)
            for _ in range(50):  # warm-up
                await call()
            begin, n = time.perf_counter(), 0
            while time.perf_counter() - begin < BATCH_SECONDS:
                await call()
                n += 1
            counts[label, kind] = n
    samples: dict[tuple[str, str], list[float]] = {key: [] for key in counts}
    order = list(SERVERS)
    for round_number in range(ROUNDS):
        shift = round_number % len(order)
        for label, make in calls.items():
            for kind in order[shift:] + order[:shift]:
                call, n = make(stubs[kind]), counts[label, kind]
                begin = time.perf_counter()
                for _ in range(n):
                    await call()
                samples[label, kind].append((time.perf_counter() - begin) / n * 1e6)
    for channel in channels.values():
        await channel.close()
    return samples


def main() -> None:
    import importlib.metadata

    started = {kind: start(kind) for kind in SERVERS}
    try:
        samples = asyncio.run(measure({k: port for k, (_, port) in started.items()}))
    finally:
        for process, _ in started.values():
            assert process.stdin is not None
            process.stdin.close()
            process.wait(10)
    print(
        f"\nThe gRPC binding alone, over loopback: each server in its own process over a "
        f"trivial handler, one call at a time, {ROUNDS} interleaved rounds of "
        f"~{BATCH_SECONDS} s batches (grpcio {importlib.metadata.version('grpcio')}, "
        f"a2a-sdk {importlib.metadata.version('a2a-sdk')})"
    )
    rows = [
        ("generated", "generated grpc_binding.add_to_server"),
        ("sdk", "a2a-sdk 1.3.0 GrpcHandler"),
        ("floor", "floor: hand-written generic handlers, fixed answers"),
    ]
    print("  us per call: median over rounds (min-max)")
    for label in dict.fromkeys(label for label, _ in samples):
        print(f"  {label}")
        medians = {}
        for kind, text in rows:
            values = samples[label, kind]
            medians[kind] = statistics.median(values)
            print(
                f"    {text:<56} {medians[kind]:8.1f} ({min(values):.1f}-{max(values):.1f})"
            )
        print(
            f"    sdk/generated = {medians['sdk'] / medians['generated']:4.2f}x (goal >= 1);"
            f" generated/floor = {medians['generated'] / medians['floor']:4.2f}x"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        asyncio.run(serve(sys.argv[2]))
    else:
        main()

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
hits all of them alike. Where the machine has two CPUs or more, the client is pinned to
one and the servers to another: a server sharing the client's CPU by the scheduler's
choice, for a whole run, is slower by as much as the differences measured. The table
gives, per call, the median over the rounds (with min-max) of the wall time at the
client and of the CPU time the server process used (user and system, all its threads,
read from the server between batches: the binding's own cost, without the client's),
and sdk/generated and generated/floor of each. The client's own cost is in every wall
row alike.

Times on a shared machine spread by more than the binding's own share of a call, so
where valgrind is installed the servers' work is also counted in instructions, which
the machine's speed does not move: each server runs under callgrind four times,
answering the same warm-up calls and then, for each call, 100 of it in one run and 800
in another; the difference of a call's two runs over the 700 calls between them is
its instructions per call (the binding, grpcio's Python and C, the interpreter), the
server's start and end, alike in both runs, taken out. They still vary by about one
per cent from run to run (grpc's threads poll on timers, the collector runs when it
runs), far less than times. The goal is in instructions: sdk/generated >= 1.1x per
call.

Numbers are printed, never asserted. About half a minute, two more with valgrind:

    .venv/bin/python bench/bench_grpc.py
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import resource
import shutil
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
CALLS = ("unary GetTask", "stream SendStreamingMessage (2 events)")
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
    loop = asyncio.get_running_loop()
    while await loop.run_in_executor(None, sys.stdin.readline):  # "cpu": the time used
        usage = resource.getrusage(resource.RUSAGE_SELF)
        print(usage.ru_utime + usage.ru_stime, flush=True)
    await server.stop(None)


# --- the client -------------------------------------------------------------------------


def cpus() -> tuple[set[int], set[int]] | None:
    """The CPU of the client and the CPU of the servers, where there are two to pin
    them to (Linux); None otherwise."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    return ({allowed[0]}, {allowed[1]}) if len(allowed) >= 2 else None


def start(kind: str, server_cpu: set[int] | None) -> tuple[subprocess.Popen[str], int]:
    pin = None if server_cpu is None else (lambda: os.sched_setaffinity(0, server_cpu))
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", kind],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=pin,
    )
    assert process.stdout is not None
    return process, int(process.stdout.readline())


def cpu_seconds(process: subprocess.Popen[str]) -> float:
    """The CPU time (user and system, all threads) ``process`` has used so far."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("cpu\n")
    process.stdin.flush()
    return float(process.stdout.readline())


Samples = dict[tuple[str, str], list[float]]


def stubs_and_calls(
    ports: dict[str, int],
) -> tuple[
    list[Any], dict[str, Any], dict[str, Callable[[Any], Callable[[], Awaitable[Any]]]]
]:
    """A channel per server, a2a-sdk's generated stub on each, and the two calls."""
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

    return list(channels.values()), stubs, dict(zip(CALLS, (unary, streaming)))


async def measure(
    servers: dict[str, tuple[subprocess.Popen[str], int]],
) -> tuple[Samples, Samples]:
    """Per round, for each call and server: wall and server CPU microseconds per call."""
    channels, stubs, calls = stubs_and_calls(
        {kind: port for kind, (_, port) in servers.items()}
    )
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
    wall: Samples = {key: [] for key in counts}
    cpu: Samples = {key: [] for key in counts}
    order = list(SERVERS)
    for round_number in range(ROUNDS):
        shift = round_number % len(order)
        for label, make in calls.items():
            for kind in order[shift:] + order[:shift]:
                call, n = make(stubs[kind]), counts[label, kind]
                process = servers[kind][0]
                used = cpu_seconds(process)
                begin = time.perf_counter()
                for _ in range(n):
                    await call()
                wall[label, kind].append((time.perf_counter() - begin) / n * 1e6)
                cpu[label, kind].append((cpu_seconds(process) - used) / n * 1e6)
    for channel in channels:
        await channel.close()
    return wall, cpu


COUNTED_CALLS = (100, 800)
WARM_UP_CALLS = 20


async def counted_run(port: int, extra: str, count: int) -> None:
    """The calls of one callgrind run: the warm-up of both calls, then ``count``
    more of ``extra``."""
    channels, stubs, calls = stubs_and_calls({"counted": port})
    stub = stubs["counted"]
    for make in calls.values():
        for _ in range(WARM_UP_CALLS):
            await make(stub)()
    call = calls[extra](stub)
    for _ in range(count):
        await call()
    await channels[0].close()


def instructions(kind: str, server_cpu: set[int] | None) -> dict[str, float]:
    """The instructions ``kind``'s server process executes per call of each call,
    counted by callgrind (see the module docstring)."""
    totals: dict[tuple[str, int], int] = {}
    for extra, count in itertools.product(CALLS, COUNTED_CALLS):
        pin = (
            None
            if server_cpu is None
            else (lambda: os.sched_setaffinity(0, server_cpu))
        )
        process = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
            + [sys.executable, __file__, "--serve", kind],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=pin,
        )
        assert process.stdin and process.stdout and process.stderr
        asyncio.run(counted_run(int(process.stdout.readline()), extra, count))
        process.stdin.close()
        found = re.search(r"Collected : (\d+)", process.stderr.read())
        process.wait(60)
        if found is None:
            raise SystemExit(f"callgrind counted nothing for {kind}")
        totals[extra, count] = int(found.group(1))
    fewer, more = COUNTED_CALLS
    return {
        label: (totals[label, more] - totals[label, fewer]) / (more - fewer)
        for label in CALLS
    }


def main() -> None:
    import importlib.metadata

    pinned = cpus()
    if pinned is not None:
        os.sched_setaffinity(0, pinned[0])
    started = {kind: start(kind, pinned and pinned[1]) for kind in SERVERS}
    try:
        wall, cpu = asyncio.run(measure(started))
    finally:
        for process, _ in started.values():
            assert process.stdin is not None
            process.stdin.close()
            process.wait(10)
    print(
        f"\nThe gRPC binding alone, over loopback: each server in its own process over a "
        f"trivial handler, one call at a time, {ROUNDS} interleaved rounds of "
        f"~{BATCH_SECONDS} s batches (grpcio {importlib.metadata.version('grpcio')}, "
        f"a2a-sdk {importlib.metadata.version('a2a-sdk')}); "
        + (
            f"the client on CPU {min(pinned[0])}, the servers on CPU {min(pinned[1])}"
            if pinned
            else "processes not pinned"
        )
    )
    rows = [
        ("generated", "generated grpc_binding.add_to_server"),
        ("sdk", "a2a-sdk 1.3.0 GrpcHandler"),
        ("floor", "floor: hand-written generic handlers, fixed answers"),
    ]
    print(
        "  us per call, median over rounds (min-max): wall time at the client, and the"
        " server process's CPU time"
    )
    for label in dict.fromkeys(label for label, _ in wall):
        print(f"  {label}{'wall':>{66 - len(label)}}{'server CPU':>26}")
        medians: dict[str, float] = {}
        spent: dict[str, float] = {}
        for kind, text in rows:
            values, used = wall[label, kind], cpu[label, kind]
            medians[kind] = statistics.median(values)
            spent[kind] = statistics.median(used)
            print(
                f"    {text:<52} {medians[kind]:7.1f} ({min(values):5.1f}-"
                f"{max(values):5.1f}) {spent[kind]:7.1f} ({min(used):5.1f}-"
                f"{max(used):5.1f})"
            )
        print(
            f"    sdk/generated = {medians['sdk'] / medians['generated']:4.2f}x wall"
            f", {spent['sdk'] / spent['generated']:4.2f}x server CPU;"
            f" generated/floor = {medians['generated'] / medians['floor']:4.2f}x wall,"
            f" {spent['generated'] / spent['floor']:4.2f}x server CPU"
        )
    if shutil.which("valgrind") is None:
        print("\n  (valgrind is not installed: no instruction counts)")
        return
    counts = {kind: instructions(kind, pinned and pinned[1]) for kind in SERVERS}
    print(
        f"\n  server instructions per call (callgrind: {COUNTED_CALLS[1]} calls against"
        f" {COUNTED_CALLS[0]} after a warm-up; about one per cent apart from run to"
        " run)"
    )
    for label in counts["generated"]:
        row = {kind: counts[kind][label] for kind in SERVERS}
        print(
            f"  {label}: generated {row['generated'] / 1e3:,.1f}k, a2a-sdk"
            f" {row['sdk'] / 1e3:,.1f}k, floor {row['floor'] / 1e3:,.1f}k;"
            f" sdk/generated = {row['sdk'] / row['generated']:5.3f}x (goal >= 1.1x),"
            f" generated/floor = {row['generated'] / row['floor']:5.3f}x"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        asyncio.run(serve(sys.argv[2]))
    else:
        main()

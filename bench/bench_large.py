"""One large request through the gateway: how long it takes, and how long the other
clients of the same server wait meanwhile.

The request is a valid 4 MiB ``SendMessage`` (``POST /message:send``) whose message
holds about 1.4 million empty parts, the most values a body within the app's
``max_body_bytes`` can carry. Each server runs in a process of its own on 127.0.0.1:

* app: the generated app alone over ``bench_serving.TrivialAgent`` (no hop);
* gateway: the generated app in front of a2a-sdk's gRPC agent (``GrpcHandler`` over
  ``bench_serving.trivial_sdk_handler``, a process of its own), as
  ``a2a-codegen gateway`` serves it;
* the generated gRPC binding over ``TrivialAgent``, sent one and then four requests of
  4 MiB at once (two-byte empty parts: about 2.1 million).

While the large request is under way a second client sends ``GET /tasks/task-123``
one after another; the table gives, per server, the large request's time and the
longest and median time of those small calls (the median of ``--rounds`` rounds).
Numbers are printed, never asserted. About half a minute:

    .venv/bin/python bench/bench_large.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "generated"), str(ROOT), str(ROOT / "bench")]

import httpx  # noqa: E402

HEADERS = {"A2A-Version": "1.0", "Content-Type": "application/json"}
LIMIT = 4 * 1024 * 1024


def large_body() -> bytes:
    """The largest SendMessage body of empty parts within ``LIMIT``."""
    head = b'{"message":{"messageId":"m","role":"ROLE_USER","parts":['
    tail = b"]}}"
    count = (LIMIT - len(head) - len(tail) + 1) // 3
    body = head + b",".join([b"{}"] * count) + tail
    assert len(body) <= LIMIT
    json.loads(body)
    return body


async def serve_agent(kind: str) -> None:
    """a2a-sdk's gRPC agent (``agent``), or the generated gRPC binding over
    ``TrivialAgent`` (``binding``)."""
    import grpc.aio

    server = grpc.aio.server(options=[("grpc.max_receive_message_length", 2 * LIMIT)])
    if kind == "agent":
        from a2a.server.request_handlers import GrpcHandler
        from a2a.types import a2a_pb2_grpc
        from bench_serving import trivial_sdk_handler

        a2a_pb2_grpc.add_A2AServiceServicer_to_server(
            GrpcHandler(trivial_sdk_handler()), server
        )
    else:
        from a2a_binding import grpc_binding
        from bench_serving import TrivialAgent

        grpc_binding.add_to_server(TrivialAgent(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(None)


def serve_http(kind: str, target: str) -> None:
    import socket

    import uvicorn
    from a2a_binding import asgi, grpc_binding
    from bench_serving import CARD, TrivialAgent

    from codegen.gateway import Gateway

    app: Any
    if kind == "app":
        app = asgi.create_app(TrivialAgent(), agent_card=CARD, jsonrpc_path=None)
    else:
        app = Gateway(
            target,
            lambda channel: asgi.create_app(
                grpc_binding.Backend(channel), agent_card=CARD, jsonrpc_path=None
            ),
        )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


def start(*arguments: str) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        [sys.executable, __file__, *arguments],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, int(process.stdout.readline())


async def round_trip(base: str, body: bytes) -> tuple[float, list[float]]:
    """The large request's seconds, and the seconds of each small call meanwhile."""
    small: list[float] = []
    done = asyncio.Event()
    async with (
        httpx.AsyncClient(headers=HEADERS, timeout=120) as large,
        httpx.AsyncClient(headers=HEADERS, timeout=120) as poller,
    ):
        assert (await poller.get(f"{base}/tasks/task-123")).status_code == 200

        async def poll() -> None:
            while not done.is_set():
                started = time.perf_counter()
                answer = await poller.get(f"{base}/tasks/task-123")
                assert answer.status_code == 200, answer.text
                small.append(time.perf_counter() - started)

        polling = asyncio.ensure_future(poll())
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        answer = await large.post(f"{base}/message:send", content=body)
        took = time.perf_counter() - started
        done.set()
        await polling
        assert answer.status_code == 200, answer.text[:200]
    return took, small


async def grpc_round_trip(port: int, count: int) -> tuple[float, list[float]]:
    """The seconds ``count`` concurrent SendMessage calls of ``LIMIT`` bytes (two-byte
    empty parts) take over gRPC, and the seconds of each GetTask call meanwhile."""
    import grpc.aio
    from a2a.types import a2a_pb2 as pb
    from a2a.types import a2a_pb2_grpc

    parts = [pb.Part() for _ in range((LIMIT - 64) // 2)]
    large = pb.SendMessageRequest(
        message=pb.Message(message_id="m", role=pb.ROLE_USER, parts=parts)
    )
    assert large.ByteSize() <= LIMIT
    metadata = (("a2a-version", "1.0"),)
    small: list[float] = []
    done = asyncio.Event()
    options = [("grpc.max_send_message_length", 2 * LIMIT)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) as (
        channel
    ):
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        await stub.GetTask(pb.GetTaskRequest(id="task-123"), metadata=metadata)

        async def poll() -> None:
            while not done.is_set():
                started = time.perf_counter()
                await stub.GetTask(pb.GetTaskRequest(id="task-123"), metadata=metadata)
                small.append(time.perf_counter() - started)

        polling = asyncio.ensure_future(poll())
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        await asyncio.gather(
            *(stub.SendMessage(large, metadata=metadata) for _ in range(count))
        )
        took = time.perf_counter() - started
        done.set()
        await polling
    return took, small


async def main(rounds: int) -> None:
    body = large_body()
    agent, agent_port = start("--serve", "agent")
    binding, binding_port = start("--serve", "binding")
    servers = {
        "app": start("--serve", "app"),
        "gateway": start("--serve", "gateway", "--target", f"127.0.0.1:{agent_port}"),
    }
    results: dict[str, list[tuple[float, float, float]]] = {
        name: [] for name in servers
    }
    try:
        for number in range(rounds):
            names = list(servers) if number % 2 == 0 else list(servers)[::-1]
            for name in names:
                took, small = await round_trip(
                    f"http://127.0.0.1:{servers[name][1]}", body
                )
                results[name].append((took, max(small), statistics.median(small)))
            for count in (1, 4):
                took, small = await grpc_round_trip(binding_port, count)
                results.setdefault(f"gRPC binding, {count} at once", []).append(
                    (took, max(small), statistics.median(small))
                )
    finally:
        for process, _ in (*servers.values(), (agent, 0), (binding, 0)):
            assert process.stdin is not None
            process.stdin.close()
            process.terminate()
            process.wait(10)
    print(
        f"\none SendMessage of {len(body):,} bytes ({(len(body) - 60) // 3:,} empty"
        " parts) over HTTP+JSON and GET /tasks/task-123 meanwhile; over gRPC, one or"
        f" four at once of {LIMIT:,} bytes ({(LIMIT - 64) // 2:,} empty parts) and"
        f" GetTask meanwhile; seconds, median of {rounds} rounds (min-max)\n"
    )
    print("| server | the large calls | longest small call | median small call |")
    print("|---|---|---|---|")
    for name, rows in results.items():
        cells = []
        for column in range(3):
            found = [row[column] for row in rows]
            cells.append(
                f"{statistics.median(found):.3f} ({min(found):.3f}-{max(found):.3f})"
            )
        print(f"| {name} | {' | '.join(cells)} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serve", choices=("agent", "binding", "app", "gateway"))
    parser.add_argument("--target", default="")
    arguments = parser.parse_args()
    if arguments.serve in ("agent", "binding"):
        asyncio.run(serve_agent(arguments.serve))
    elif arguments.serve:
        serve_http(arguments.serve, arguments.target)
    else:
        asyncio.run(main(arguments.rounds))

"""The gateway's cost per call: ``create_app(grpc_binding.Backend(channel))`` in front of
a2a-sdk's gRPC agent, against calling that agent directly and against a2a-sdk's own REST
server over the same agent.

The agent is bench_serving's ``trivial_sdk_handler`` (a2a-sdk's ``RequestHandler`` with
fixed protobuf answers), served three ways, all on 127.0.0.1 and in one event loop (so
each call's time is all the work on its path, client included, on one core):

* direct: a2a-sdk's ``GrpcHandler`` on a ``grpc.aio`` server, called by a grpc.aio
  channel with a2a-sdk's message classes;
* gateway: the generated app under uvicorn, its ``Backend`` calling that same gRPC
  server, driven over HTTP+JSON by an ``httpx.AsyncClient`` (keep-alive);
* sdk-rest: a2a-sdk's REST routes (``create_rest_routes``, Starlette) over the same
  handler under uvicorn, driven by the same client.

Two calls: ``GetTask`` (``GET /tasks/task-123``) and ``SendMessage`` (``POST
/message:send``). Interleaved rounds: in each round each path runs each call for a fixed
batch, in an order that changes from round to round; the table gives the median over
the rounds of microseconds per call (min-max), then gateway - direct (what the gateway
adds: JSON in, the gRPC hop, JSON out), gateway/direct and gateway/sdk-rest. Numbers
are printed, never asserted. About half a minute:

    .venv/bin/python bench/bench_gateway.py [--rounds N] [--batch N]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "generated"), str(ROOT), str(ROOT / "bench")]

import grpc  # noqa: E402
import grpc.aio  # noqa: E402
import httpx  # noqa: E402
import uvicorn  # noqa: E402
from a2a.server.request_handlers import GrpcHandler  # noqa: E402
from a2a.types import a2a_pb2 as pb  # noqa: E402
from a2a.types import a2a_pb2_grpc  # noqa: E402
from a2a_binding import asgi, grpc_binding  # noqa: E402
from bench_serving import starlette_app, trivial_sdk_handler  # noqa: E402

from codegen.gateway import Gateway  # noqa: E402

CARD = {"name": "bench-gateway", "version": "1", "capabilities": {}}
HEADERS = {"A2A-Version": "1.0", "Content-Type": "application/json"}
MESSAGE = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def serve(app: Any) -> tuple[uvicorn.Server, asyncio.Task[None], str]:
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    return server, task, f"http://127.0.0.1:{port}"


Call = Callable[[], Awaitable[Any]]


def rest(http: httpx.AsyncClient, base: str) -> dict[str, Call]:
    """The two calls over HTTP+JSON to the app or server at ``base``."""
    return {
        "GetTask": lambda: http.get(f"{base}/tasks/task-123"),
        "SendMessage": lambda: http.post(
            f"{base}/message:send", json={"message": MESSAGE}
        ),
    }


async def interleaved(
    paths: dict[str, dict[str, Call]], rounds: int, batch: int
) -> dict[tuple[str, str], list[float]]:
    """Microseconds per call of each path's each call, one figure a round: in each
    round every path runs each call for ``batch`` (after a tenth as many to warm),
    in an order that turns from round to round."""
    times: dict[tuple[str, str], list[float]] = {
        (path, name): [] for path in paths for name in paths[path]
    }
    order = list(paths)
    for number in range(rounds):
        shift = number % len(order)
        for path in order[shift:] + order[:shift]:
            for name, call in paths[path].items():
                for _ in range(batch // 10):  # warm
                    await call()
                started = time.perf_counter()
                for _ in range(batch):
                    await call()
                elapsed = time.perf_counter() - started
                times[path, name].append(elapsed / batch * 1e6)
    return times


async def main(rounds: int, batch: int) -> None:
    handler = trivial_sdk_handler()
    agent = grpc.aio.server()
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), agent)
    grpc_port = agent.add_insecure_port("127.0.0.1:0")
    await agent.start()
    target = f"127.0.0.1:{grpc_port}"
    gateway = Gateway(
        target,
        lambda channel: asgi.create_app(
            grpc_binding.Backend(channel), agent_card=CARD, jsonrpc_path=None
        ),
    )
    servers = [await serve(gateway), await serve(starlette_app(handler))]
    (_, _, gateway_url), (_, _, sdk_url) = servers
    channel = grpc.aio.insecure_channel(target)
    stub = a2a_pb2_grpc.A2AServiceStub(channel)
    metadata = (("a2a-version", "1.0"),)
    sent = pb.SendMessageRequest(
        message=pb.Message(
            message_id="m1", role=pb.ROLE_USER, parts=[pb.Part(text="hi")]
        )
    )
    http = httpx.AsyncClient(headers=HEADERS, timeout=30)

    paths: dict[str, dict[str, Call]] = {
        "direct": {
            "GetTask": lambda: stub.GetTask(
                pb.GetTaskRequest(id="task-123"), metadata=metadata
            ),
            "SendMessage": lambda: stub.SendMessage(sent, metadata=metadata),
        },
        "gateway": rest(http, gateway_url),
        "sdk-rest": rest(http, sdk_url),
    }
    try:
        for path in ("gateway", "sdk-rest"):  # every path answers, and alike
            for name, call in paths[path].items():
                answer = await call()
                assert answer.status_code == 200, (path, name, answer.text)
        times = await interleaved(paths, rounds, batch)
    finally:
        await http.aclose()
        await channel.close()
        for server, task, _ in servers:
            server.should_exit = True
            await task
        await agent.stop(None)

    print(
        f"\nper call, microseconds (median over {rounds} rounds of {batch}; min-max),"
        " one event loop on 127.0.0.1\n"
    )
    print(
        "| call | direct gRPC | gateway | a2a-sdk REST | gateway - direct"
        " | gateway/direct | gateway/sdk-rest |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in ("GetTask", "SendMessage"):
        cells, medians = [], {}
        for path in paths:
            found = times[path, name]
            medians[path] = statistics.median(found)
            cells.append(f"{medians[path]:.0f} ({min(found):.0f}-{max(found):.0f})")
        added = medians["gateway"] - medians["direct"]
        print(
            f"| {name} | {' | '.join(cells)} | {added:.0f}"
            f" | {medians['gateway'] / medians['direct']:.2f}x"
            f" | {medians['gateway'] / medians['sdk-rest']:.2f}x |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--batch", type=int, default=300)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.rounds, arguments.batch))

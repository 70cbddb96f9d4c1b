"""The gateway's cost per call in front of an agent over HTTP, against the two exchanges
it cannot avoid: ``create_app(http_backend.Backend(url))`` in front of a2a-sdk's REST
server, beside the generated app alone over a trivial handler (its front) and a direct
call to that REST server (its back).

The agent is bench_serving's ``trivial_sdk_handler`` (a2a-sdk's ``RequestHandler`` with
fixed protobuf answers) under a2a-sdk's REST routes; every server runs under uvicorn on
127.0.0.1, all in one event loop (so each call's time is all the work on its path,
client included, on one core), each driven over HTTP+JSON by an ``httpx.AsyncClient``
(keep-alive):

* front: the generated app over bench_serving's ``TrivialAgent``;
* back: a2a-sdk's REST server, called directly;
* gateway: the generated app over ``http_backend.Backend`` calling that REST server over
  HTTP+JSON (its own keep-alive client).

Two calls: ``GetTask`` (``GET /tasks/task-123``) and ``SendMessage`` (``POST
/message:send``). Interleaved rounds: in each round each path runs each call for a fixed
batch, in an order that changes from round to round; the table gives the median over
the rounds of microseconds per call (min-max), then gateway / (front + back), the goal
being at most 1.15x. Numbers are printed, never asserted. About half a minute:

    .venv/bin/python bench/bench_gateway_http.py [--rounds N] [--batch N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "generated"), str(ROOT), str(ROOT / "bench")]

import httpx  # noqa: E402
from a2a_binding import asgi, http_backend  # noqa: E402
from bench_gateway import interleaved, rest, serve  # noqa: E402
from bench_serving import CARD, TrivialAgent, starlette_app  # noqa: E402
from bench_serving import trivial_sdk_handler  # noqa: E402

HEADERS = {"A2A-Version": "1.0", "Content-Type": "application/json"}


async def main(rounds: int, batch: int) -> None:
    agent = await serve(starlette_app(trivial_sdk_handler()))
    agent_url = agent[2]
    backend = http_backend.Backend(agent_url, binding="http+json")
    servers = [
        agent,
        await serve(asgi.create_app(TrivialAgent(), agent_card=CARD)),
        await serve(asgi.create_app(backend, agent_card=CARD)),
    ]
    (_, _, back_url), (_, _, front_url), (_, _, gateway_url) = servers
    http = httpx.AsyncClient(headers=HEADERS, timeout=30)

    paths = {"front": rest(http, front_url), "back": rest(http, back_url)}
    paths["gateway"] = rest(http, gateway_url)
    try:
        for path, calls in paths.items():  # every path answers
            for name, call in calls.items():
                answer = await call()
                assert answer.status_code == 200, (path, name, answer.text)
        times = await interleaved(paths, rounds, batch)
    finally:
        await http.aclose()
        for server, task, _ in reversed(servers):
            server.should_exit = True
            await task
        await backend.aclose()

    print(
        f"\nper call, microseconds (median over {rounds} rounds of {batch}; min-max),"
        " one event loop on 127.0.0.1\n"
    )
    print(
        "| call | front (app alone) | back (agent directly) | gateway"
        " | gateway / (front + back) |"
    )
    print("|---|---|---|---|---|")
    for name in ("GetTask", "SendMessage"):
        cells, medians = [], {}
        for path in paths:
            found = times[path, name]
            medians[path] = statistics.median(found)
            cells.append(f"{medians[path]:.0f} ({min(found):.0f}-{max(found):.0f})")
        ratio = medians["gateway"] / (medians["front"] + medians["back"])
        print(f"| {name} | {' | '.join(cells)} | {ratio:.2f}x |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--batch", type=int, default=300)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.rounds, arguments.batch))

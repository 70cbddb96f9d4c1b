"""Real servers on loopback for the interop tests: uvicorn in a thread, a free port,
bounded start and stop, nothing left running."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from codegen.gateway import Gateway as GrpcGateway

__all__ = ["GrpcGateway", "GrpcServer", "running"]


@contextmanager
def running(app: Any, timeout: float = 15.0) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 at a free port; yields the base URL."""
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"
        )
    )
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout)
        assert not thread.is_alive(), "the test server did not stop"


class GrpcServer:
    """A ``grpc.aio`` server on a loop of its own in a thread, for ``with``:
    ``register(server)`` adds the services (on that loop, before it starts);
    ``target`` is its ``host:port``."""

    def __init__(self, register: Callable[[Any], object]) -> None:
        self.register = register
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="test-grpc-server", daemon=True
        )

    def __enter__(self) -> Any:
        self.thread.start()
        self.target = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(
            30
        )
        return self

    async def _start(self) -> str:
        import grpc.aio

        self.server = grpc.aio.server()
        self.register(self.server)
        port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()
        return f"127.0.0.1:{port}"

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(None), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)

"""Real servers on loopback for the interop tests: uvicorn in a thread, a free port,
bounded start and stop, nothing left running."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from codegen.gateway import Gateway as GrpcGateway

__all__ = ["GrpcGateway", "running"]


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

"""The conformance kit's target for the gateway (``run.py --target gateway``): a2a-sdk
1.3.0's gRPC agent behind ``asgi.create_app(grpc_binding.Backend(channel))``, one process.

    python conformance/gateway_agent.py PORT

The agent is a2a-sdk's ``GrpcHandler`` over a ``DefaultRequestHandler`` (in-memory task
and push config stores) with a small executor that keeps every task working until it
is cancelled (as the example is run for the kit: tests that cancel, subscribe or list
need a task that has not ended), on a free loopback gRPC port. The gateway serves
HTTP+JSON at the root and JSON-RPC at ``/`` on ``PORT``, with the example's card (its
interfaces where the gateway is reached; no gRPC interface: the kit is run over
JSON-RPC and HTTP+JSON here), the example's versions (no ``A2A-Version`` is 0.3, served as
1.0 is: the kit sends none), and forwards ``authorization``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "generated"), str(ROOT)]

import grpc.aio  # noqa: E402
import uvicorn  # noqa: E402
from a2a.helpers.proto_helpers import new_task_from_user_message  # noqa: E402
from a2a.server.agent_execution import AgentExecutor  # noqa: E402
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler  # noqa: E402
from a2a.server.tasks import InMemoryPushNotificationConfigStore  # noqa: E402
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater  # noqa: E402
from a2a.types import a2a_pb2_grpc  # noqa: E402
from a2a_binding import asgi, grpc_binding  # noqa: E402
from google.protobuf import json_format  # noqa: E402

from codegen.gateway import Gateway  # noqa: E402
from examples.a2a_server import SUPPORTED_VERSIONS, agent_card  # noqa: E402


class Holder(AgentExecutor):  # type: ignore[misc]
    """Every task is created and left working; cancel cancels it."""

    async def execute(self, context: Any, event_queue: Any) -> None:
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        await TaskUpdater(event_queue, task.id, task.context_id).start_work()

    async def cancel(self, context: Any, event_queue: Any) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def card(base_url: str) -> dict[str, Any]:
    found: dict[str, Any] = json_format.MessageToDict(
        agent_card(base_url, rest="", rpc="/")
    )
    return found


async def main(port: int) -> None:
    sdk_card = agent_card("http://127.0.0.1", rest="", rpc="/", extended=True)
    handler = DefaultRequestHandler(
        agent_executor=Holder(),
        task_store=InMemoryTaskStore(),
        agent_card=sdk_card,
        push_config_store=InMemoryPushNotificationConfigStore(),
        extended_agent_card=sdk_card,
    )
    agent = grpc.aio.server()
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), agent)
    grpc_port = agent.add_insecure_port("127.0.0.1:0")
    await agent.start()
    app = Gateway(
        f"127.0.0.1:{grpc_port}",
        lambda channel: asgi.create_app(
            grpc_binding.Backend(channel, timeout=30),
            agent_card=card,
            http_json_prefix="",
            jsonrpc_path="/",
            supported_versions=SUPPORTED_VERSIONS,
        ),
    )
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    try:
        await uvicorn.Server(config).serve()
    finally:
        await agent.stop(None)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))

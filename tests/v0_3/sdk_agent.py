"""A small agent on a2a-sdk 0.3.26's own servers, run in the 0.3 venv (.venv-v0_3) by
tests/test_v0_3_client.py: ``python sdk_agent.py jsonrpc|rest PORT`` serves the
JSON-RPC app (A2AStarletteApplication) or the REST app (A2ARESTFastAPIApplication) on
127.0.0.1:PORT with uvicorn, over one DefaultRequestHandler with in-memory stores.

What the executor does, by the text of the first part: ``message`` answers a Message;
``hold`` starts a task and waits (up to 10 s) for a cancel; ``slow`` works for 0.7 s
before it ends like any other text: a task that reports working, adds an artifact
``echo`` holding the text, and completes."""

from __future__ import annotations

import asyncio
import sys

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import (
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentSkill,
    Part,
    TextPart,
)
from a2a.utils import new_agent_text_message, new_task

HOLDS: dict[str, asyncio.Event] = {}


class Executor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        if text == "message":
            await event_queue.enqueue_event(
                new_agent_text_message("a message", context.context_id, None)
            )
            return
        task = context.current_task or new_task(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        if text == "hold":
            held = HOLDS.setdefault(task.id, asyncio.Event())
            try:
                await asyncio.wait_for(held.wait(), 10)
                return  # cancelled: cancel() said so
            except asyncio.TimeoutError:
                pass
        if text == "slow":
            await asyncio.sleep(0.7)
        await updater.add_artifact(
            [Part(root=TextPart(text=text))], artifact_id="a-1", name="echo"
        )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        assert task is not None
        HOLDS.setdefault(task.id, asyncio.Event()).set()
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.cancel()


def main() -> None:
    kind, port = sys.argv[1], int(sys.argv[2])
    url = f"http://127.0.0.1:{port}/"
    card = AgentCard(
        name="sdk-0.3-agent",
        description="a2a-sdk 0.3.26's own server",
        url=url,
        version="1.0.0",
        protocol_version="0.3.0",
        preferred_transport="JSONRPC" if kind == "jsonrpc" else "HTTP+JSON",
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="echo", description="echo", tags=["t"])],
        supports_authenticated_extended_card=True,
    )
    extended = card.model_copy(update={"name": "sdk-0.3-agent (extended)"})
    handler = DefaultRequestHandler(
        agent_executor=Executor(),
        task_store=InMemoryTaskStore(),
        push_config_store=InMemoryPushNotificationConfigStore(),
    )
    if kind == "jsonrpc":
        app = A2AStarletteApplication(
            agent_card=card, http_handler=handler, extended_agent_card=extended
        ).build()
    else:
        app = A2ARESTFastAPIApplication(
            agent_card=card, http_handler=handler, extended_agent_card=extended
        ).build()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()

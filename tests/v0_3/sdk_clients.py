"""a2a-sdk 0.3.26's own clients against a server, every 0.3 operation: run in the 0.3
venv (``tests/v0_3_env.py``), reading ``{"base": URL, "token": T, "transport": T}``
on stdin and printing one JSON report of what the client got.

``transport`` is ``"jsonrpc"`` or ``"rest"``: the client is made by a2a-sdk's
``ClientFactory`` from the server's agent card, allowed only that transport, so the
card must name it where a 0.3 client looks (``url``/``preferredTransport``,
``additionalInterfaces``). What a2a-sdk 0.3.26's clients lack (listing and deleting
push-notification configs) is sent with its own pydantic request models over JSON-RPC
and its answers read back with its response models. Every answer is parsed by
a2a-sdk's types on the way in; the report holds them dumped back to JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from typing import Any

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import A2ACardResolver
from a2a.client.errors import A2AClientHTTPError, A2AClientJSONRPCError
from a2a.types import (
    DeleteTaskPushNotificationConfigParams,
    DeleteTaskPushNotificationConfigRequest,
    DeleteTaskPushNotificationConfigResponse,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigResponse,
    Message,
    PushNotificationConfig,
    Role,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TextPart,
    TransportProtocol,
)

TRANSPORTS = {"jsonrpc": TransportProtocol.jsonrpc, "rest": TransportProtocol.http_json}


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _message(text: str) -> Message:
    return Message(
        role=Role.user,
        parts=[TextPart(text=text)],
        message_id=str(uuid.uuid4()),
    )


def _event(item: Any) -> Any:
    """One item a 0.3 client yields: a Message, or (Task, update event or None)."""
    if isinstance(item, tuple):
        task, update = item
        return {"task": _dump(task), "update": _dump(update) if update else None}
    return {"message": _dump(item)}


async def _error(call: Any) -> Any:
    try:
        await call
    except A2AClientJSONRPCError as exc:
        return {"jsonrpc": _dump(exc.error)}
    except A2AClientHTTPError as exc:
        return {"http": exc.status_code, "message": exc.message}
    return None


async def scenario(base: str, token: str, transport: str) -> dict[str, Any]:
    report: dict[str, Any] = {}
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        report["card"] = _dump(card)
        config = ClientConfig(
            httpx_client=http,
            supported_transports=[TRANSPORTS[transport]],
            streaming=True,
        )
        client = ClientFactory(config).create(card)
        unary = ClientFactory(
            ClientConfig(
                httpx_client=http,
                supported_transports=[TRANSPORTS[transport]],
                streaming=False,
            )
        ).create(card)
        report["extended_card"] = _dump(await client.get_card())

        report["send"] = [_event(e) async for e in unary.send_message(_message("hi"))]
        report["stream"] = [
            _event(e) async for e in client.send_message(_message("stream"))
        ]
        held = [_event(e) async for e in unary.send_message(_message("hold"))]
        report["held"] = held
        task_id = held[0]["task"]["id"]
        got = await client.get_task(TaskQueryParams(id=task_id, history_length=1))
        report["get"] = _dump(got)

        # Resubscribe to the held task, then cancel it: the stream ends with its
        # final status update.
        resubscribed: list[Any] = []

        async def follow() -> None:
            async for item in client.resubscribe(TaskIdParams(id=task_id)):
                resubscribed.append(_event(item))

        following = asyncio.create_task(follow())
        for _ in range(100):
            if resubscribed:
                break
            await asyncio.sleep(0.05)
        report["cancel"] = _dump(await client.cancel_task(TaskIdParams(id=task_id)))
        await asyncio.wait_for(following, 10)
        report["resubscribe"] = resubscribed

        push = TaskPushNotificationConfig(
            task_id=task_id,
            push_notification_config=PushNotificationConfig(
                id="cfg-1", url="http://127.0.0.1:9/hook", token="tok"
            ),
        )
        report["set_config"] = _dump(await client.set_task_callback(push))
        report["get_config"] = _dump(
            await client.get_task_callback(
                GetTaskPushNotificationConfigParams(
                    id=task_id, push_notification_config_id="cfg-1"
                )
            )
        )
        if transport == "jsonrpc":
            rpc_url = next(
                i.url
                for i in [card, *(card.additional_interfaces or [])]
                if (
                    getattr(i, "preferred_transport", None)
                    or getattr(i, "transport", None)
                )
                == "JSONRPC"
            )
            listed = await http.post(
                rpc_url,
                json=_dump(
                    ListTaskPushNotificationConfigRequest(
                        id=1, params=ListTaskPushNotificationConfigParams(id=task_id)
                    )
                ),
            )
            report["list_configs"] = _dump(
                ListTaskPushNotificationConfigResponse.model_validate(listed.json())
            )
            deleted = await http.post(
                rpc_url,
                json=_dump(
                    DeleteTaskPushNotificationConfigRequest(
                        id=2,
                        params=DeleteTaskPushNotificationConfigParams(
                            id=task_id, push_notification_config_id="cfg-1"
                        ),
                    )
                ),
            )
            DeleteTaskPushNotificationConfigResponse.model_validate(deleted.json())
            report["delete_config"] = deleted.json()  # its result is null
        report["not_found"] = await _error(
            client.get_task(TaskQueryParams(id="no-such-task"))
        )
        await client.close()
        await unary.close()
    return report


def main() -> None:
    given = json.load(sys.stdin)
    report = asyncio.run(scenario(given["base"], given["token"], given["transport"]))
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()

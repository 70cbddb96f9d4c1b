"""An A2A server: the agent of examples/agent.py as a handler of the generated package,
over all three bindings from one process.

``AgentHandler`` is an ``A2AServiceHandler``: each method turns the request dict into
a2a-sdk's protobuf message (``ParseDict``), runs the agent and turns its answer back
(``MessageToDict``). ``a2a_binding.asgi.create_app`` does the rest over HTTP: both
bindings with tenants, the card (built per request, so its URLs are the ones the client
reached), errors, streams, the OpenAPI document. With a gRPC port, the application's
ASGI lifespan also starts a ``grpc.aio`` server on it serving the same handler
(``a2a_binding.grpc_binding.add_to_server``), and the card lists it. The extended card
needs a bearer token (``Unauthenticated``: 401 / JSON-RPC -31001 / gRPC
UNAUTHENTICATED); push goes to loopback only (push.py).

    A2A_EXAMPLE_GRPC_PORT=50051 PYTHONPATH=generated uvicorn examples.a2a_server:app

``A2A_EXAMPLE_TOKEN`` is the bearer token (default :data:`DEFAULT_TOKEN`);
``A2A_EXAMPLE_HOLD=1`` keeps every task working until cancelled or told ``done``;
``A2A_EXAMPLE_GRPC_PORT`` is the gRPC port (0: a free one; unset: no gRPC), bound on
``A2A_EXAMPLE_GRPC_HOST`` (default ``localhost``: IPv4 and IPv6 loopback).

The card's GRPC interface URL is ``host:port``, the gRPC target a2a-sdk and
@a2a-js/sdk dial as it is (both fail on a URL with a scheme), and the form the proto's
comment asks of a gRPC interface since A2A #1997; ``A2A_EXAMPLE_GRPC_URL=absolute``
lists ``grpc://host:port`` instead, the only form the conformance kit reads a host from.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import AsyncIterator
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from a2a.types import a2a_pb2 as pb
from a2a_binding import asgi, jsonrpc
from a2a_binding import messages as m
from a2a_binding.handler import UNAUTHENTICATED_CODE, Unauthenticated
from a2a_binding.handler import CallContext as Ctx
from a2a_binding.protocol import PROTOCOL_VERSION
from google.protobuf import json_format

from examples.agent import Agent
from examples.push import WebhookSender

REST, RPC = "/rest", "/jsonrpc"
DEFAULT_TOKEN = "a2a-example-token"
"""The extended card's bearer token when ``A2A_EXAMPLE_TOKEN`` is unset (tests use it)."""
BEARER = "bearer"
"""Name of the security scheme the card declares for the extended card."""
UNAUTHENTICATED = UNAUTHENTICATED_CODE
"""JSON-RPC code of a missing or wrong bearer token (docs/conformance.md)."""
T = TypeVar("T")


def agent_card(
    base_url: str,
    *,
    rest: str = REST,
    rpc: str = RPC,
    extended: bool = False,
    grpc_port: int | None = None,
    grpc_host: str = "",
) -> pb.AgentCard:
    """The card for a server reached at ``base_url`` (scheme, host and port; ``""``
    over gRPC, which names no HTTP address: then no HTTP interface is listed).

    Interfaces name where this server really listens (§8.3.1): the GRPC one, when
    ``grpc_port`` is given, on ``grpc_host`` (default: the host of ``base_url``) in
    the URL form the module docstring explains. Capabilities are what it serves
    (§3.3.4). The bearer scheme is declared for the extended card only: the card lists
    no ``securityRequirements``, so every other operation stays public.
    """
    card = pb.AgentCard(
        name="generated-tables",
        description="An A2A server on protoc-gen-a2a tables: echoes each message"
        " as an artifact; a message saying 'hold' keeps its task working.",
        version="1.0.0",
        capabilities=pb.AgentCapabilities(
            streaming=True, push_notifications=True, extended_agent_card=True
        ),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        provider=pb.AgentProvider(
            organization="protoc-gen-a2a", url="https://github.com/a2aproject/A2A"
        ),
    )
    card.skills.add(
        id="echo",
        name="Echo",
        description="Answers every message with an artifact holding its parts.",
        tags=["echo", "example"],
        examples=["hello", "hold", "done"],
    )
    if extended:
        card.skills.add(
            id="hold",
            name="Hold",
            description="Keeps a task working until cancelled or told 'done'.",
            tags=["tasks"],
        )
    card.security_schemes[BEARER].http_auth_security_scheme.scheme = "Bearer"
    card.security_schemes[BEARER].http_auth_security_scheme.description = (
        "Needed for the extended agent card only."
    )
    if base_url:
        card.supported_interfaces.add(
            url=base_url + rest, protocol_binding="HTTP+JSON", protocol_version="1.0"
        )
        card.supported_interfaces.add(
            url=base_url + rpc, protocol_binding="JSONRPC", protocol_version="1.0"
        )
    if grpc_port is not None:
        host = grpc_host or urlsplit(base_url).hostname or "localhost"
        target = f"[{host}]:{grpc_port}" if ":" in host else f"{host}:{grpc_port}"
        absolute = os.environ.get("A2A_EXAMPLE_GRPC_URL", "") == "absolute"
        card.supported_interfaces.add(
            url=f"grpc://{target}" if absolute else target,
            protocol_binding="GRPC",
            protocol_version="1.0",
        )
    return card


class AgentHandler:
    """The generated ``A2AServiceHandler`` over an :class:`~examples.agent.Agent`."""

    def __init__(self, agent: Agent, *, rest: str, rpc: str, token: str) -> None:
        self.agent, self.rest, self.rpc, self.token = agent, rest, rpc, token
        self.grpc: tuple[str, int] | None = None  # (host, port) once gRPC is served

    def _run(self, rpc: str, request: Any) -> Any:
        """The agent's answer to a request dict: a message, or an async iterator. The
        request is valid ProtoJSON of its message (``create_app`` validates every
        request), so ``ParseDict`` takes it as it is."""
        message = getattr(pb, jsonrpc.METHODS[rpc].request_type.split(".")[-1])()
        json_format.ParseDict(request, message)
        return getattr(self.agent, rpc)(message)

    def _call(self, rpc: str, request: Any, answer: type[T]) -> T:
        return cast(T, json_format.MessageToDict(self._run(rpc, request)))

    async def _stream(self, rpc: str, request: Any) -> AsyncIterator[m.StreamResponse]:
        async for event in self._run(rpc, request):
            yield cast(m.StreamResponse, json_format.MessageToDict(event))

    async def send_message(
        self, request: m.SendMessageRequest, context: Ctx
    ) -> m.SendMessageResponse:
        return self._call("SendMessage", request, m.SendMessageResponse)

    def send_streaming_message(
        self, request: m.SendMessageRequest, context: Ctx
    ) -> AsyncIterator[m.StreamResponse]:
        return self._stream("SendStreamingMessage", request)

    async def get_task(self, request: m.GetTaskRequest, context: Ctx) -> m.Task:
        return self._call("GetTask", request, m.Task)

    async def list_tasks(
        self, request: m.ListTasksRequest, context: Ctx
    ) -> m.ListTasksResponse:
        # REQUIRED in the proto and always present (§3.1.4), though ProtoJSON omits
        # them when empty; printing the default is valid ProtoJSON too.
        empty: m.ListTasksResponse = {
            "tasks": [],
            "nextPageToken": "",
            "pageSize": 0,
            "totalSize": 0,
        }
        return {**empty, **self._call("ListTasks", request, m.ListTasksResponse)}

    async def cancel_task(self, request: m.CancelTaskRequest, context: Ctx) -> m.Task:
        return self._call("CancelTask", request, m.Task)

    def subscribe_to_task(
        self, request: m.SubscribeToTaskRequest, context: Ctx
    ) -> AsyncIterator[m.StreamResponse]:
        return self._stream("SubscribeToTask", request)

    async def create_task_push_notification_config(
        self, request: m.TaskPushNotificationConfig, context: Ctx
    ) -> m.TaskPushNotificationConfig:
        rpc = "CreateTaskPushNotificationConfig"
        return self._call(rpc, request, m.TaskPushNotificationConfig)

    async def get_task_push_notification_config(
        self, request: m.GetTaskPushNotificationConfigRequest, context: Ctx
    ) -> m.TaskPushNotificationConfig:
        rpc = "GetTaskPushNotificationConfig"
        return self._call(rpc, request, m.TaskPushNotificationConfig)

    async def list_task_push_notification_configs(
        self, request: m.ListTaskPushNotificationConfigsRequest, context: Ctx
    ) -> m.ListTaskPushNotificationConfigsResponse:
        answer = m.ListTaskPushNotificationConfigsResponse
        return self._call("ListTaskPushNotificationConfigs", request, answer)

    async def delete_task_push_notification_config(
        self, request: m.DeleteTaskPushNotificationConfigRequest, context: Ctx
    ) -> None:
        self._run("DeleteTaskPushNotificationConfig", request)

    async def get_extended_agent_card(
        self, request: m.GetExtendedAgentCardRequest, context: Ctx
    ) -> m.AgentCard:
        """The extended card for the bearer token only (§3.1.11, §13.3)."""
        scheme, _, token = (context.header("authorization") or "").partition(" ")
        given, wanted = token.strip().encode("latin-1"), self.token.encode("utf-8")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given, wanted):
            raise Unauthenticated(
                "GetExtendedAgentCard needs 'Authorization: Bearer <token>'",
                challenge='Bearer realm="a2a-example"',
            )
        host, port = self.grpc or ("", None)
        card = agent_card(
            context.base_url,
            rest=self.rest,
            rpc=self.rpc,
            extended=True,
            grpc_port=port,
            grpc_host="" if context.base_url else host,
        )
        return cast(m.AgentCard, json_format.MessageToDict(card))


SUPPORTED_VERSIONS = (PROTOCOL_VERSION, "0.3")
"""1.0 and 0.3 clients, from the one 1.0 handler: 0.3's JSON-RPC methods and ``/v1``
routes are converted to 1.0 and back; a 1.0 request naming no version is 1.0 (the
conformance kit names none). gRPC serves 1.0 only."""


class ExampleApp:
    """The ASGI application: ``http`` (the generated app) serves both HTTP bindings;
    with a ``grpc_port``, lifespan startup also starts a ``grpc.aio`` server on
    ``grpc_host:grpc_port`` (0: a free port, then ``grpc_port`` is the bound one)
    serving the same handler, and shutdown stops it (in-flight calls get 5 s)."""

    def __init__(
        self,
        http: asgi.A2AApplication,
        handler: AgentHandler,
        *,
        grpc_port: int | None,
        grpc_host: str,
    ) -> None:
        self.http, self.handler = http, handler
        self.grpc_port, self.grpc_host = grpc_port, grpc_host
        self.grpc_server: Any = None  # the grpc.aio.Server while it runs

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan" and self.grpc_port is not None:
            await self._lifespan(receive, send)
        else:
            await self.http(scope, receive, send)

    async def start_grpc(self) -> None:
        """Serve the handler over gRPC (grpcio only imported here)."""
        import grpc.aio
        from a2a_binding import grpc_binding

        assert self.grpc_port is not None
        server = grpc.aio.server()
        grpc_binding.add_to_server(
            self.handler,
            server,
            supported_versions=SUPPORTED_VERSIONS,
            check_responses=True,
        )
        self.grpc_port = server.add_insecure_port(f"{self.grpc_host}:{self.grpc_port}")
        await server.start()
        self.grpc_server = server
        self.handler.grpc = (self.grpc_host, self.grpc_port)

    async def stop_grpc(self) -> None:
        if self.grpc_server is not None:
            await self.grpc_server.stop(5)
            self.grpc_server = None

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.start_grpc()
                except Exception as exc:  # a taken port, say: the server must not start
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.stop_grpc()
                await send({"type": "lifespan.shutdown.complete"})
                return


def create_app(
    *,
    hold: bool | None = None,
    rest_prefix: str = REST,
    rpc_path: str = RPC,
    push_sender: WebhookSender | None = None,
    token: str | None = None,
    grpc_port: int | None = None,
    grpc_host: str | None = None,
) -> ExampleApp:
    """A fresh server with an empty store; ``rest_prefix=""`` serves HTTP+JSON at the
    root. ``hold``, ``token``, ``grpc_port`` (None: no gRPC; 0: a free port) and
    ``grpc_host`` default to the environment; push notifications go through
    ``push_sender`` (default: a new loopback-only ``WebhookSender``)."""
    if hold is None:
        hold = os.environ.get("A2A_EXAMPLE_HOLD", "") == "1"
    token = token or os.environ.get("A2A_EXAMPLE_TOKEN", DEFAULT_TOKEN)
    if grpc_port is None and os.environ.get("A2A_EXAMPLE_GRPC_PORT"):
        grpc_port = int(os.environ["A2A_EXAMPLE_GRPC_PORT"])
    grpc_host = grpc_host or os.environ.get("A2A_EXAMPLE_GRPC_HOST") or "localhost"
    agent = Agent(hold=hold, push_sender=push_sender or WebhookSender())
    handler = AgentHandler(agent, rest=rest_prefix, rpc=rpc_path, token=token)

    def card(base_url: str) -> m.AgentCard:
        port = handler.grpc[1] if handler.grpc else None
        found = agent_card(base_url, rest=rest_prefix, rpc=rpc_path, grpc_port=port)
        return cast(m.AgentCard, json_format.MessageToDict(found))

    openapi = asgi.openapi_document()
    http = asgi.create_app(
        handler,
        agent_card=card,
        http_json_prefix=rest_prefix,
        jsonrpc_path=rpc_path,
        supported_versions=SUPPORTED_VERSIONS,
        openapi=openapi,
        link_openapi_in_card=openapi is not None,
        # What the agent answers is checked against the response messages too: a bad
        # answer is a logged 500, not a client's problem.
        check_responses=True,
    )
    return ExampleApp(http, handler, grpc_port=grpc_port, grpc_host=grpc_host)


app = create_app()

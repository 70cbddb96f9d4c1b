"""The agent behind examples/a2a_server.py: a small, faithful A2A agent on a2a-sdk's
protobuf messages, with no HTTP in it (the server turns requests into messages and
errors into answers).

What it does, in the spec's terms (section numbers of the A2A v1.0 specification):

- Every message makes or continues a task. Its artifact echoes the message's parts.
  A message naming a ``taskId`` continues that task and appends to its history
  (§3.4.2): an unknown id is TaskNotFoundError, a task in a terminal state is
  UnsupportedOperationError (§3.1.1), a ``contextId`` that is not the task's is
  InvalidParams (§3.4.3). A ``contextId`` without ``taskId`` starts a new task in that
  context (§3.4.3).
- **Hold mode.** A task stays ``TASK_STATE_WORKING`` when the message text is ``hold``,
  when its metadata says ``{"hold": true}``, or for every task when the agent is built
  with ``hold=True`` (the server's ``A2A_EXAMPLE_HOLD=1``, used by ``make conformance``).
  A held task takes follow-up messages (history grows) and ends when a message to it
  says ``done`` (completed) or when it is cancelled. Otherwise a task completes at
  once. A held task is answered while still working even on a blocking SendMessage
  (§3.2.2 asks a blocking send to wait for a terminal or interrupted state): the hold
  stands for work that outlives the request, so that cancel, subscribe and streaming
  have something to act on. Over a stream a held task goes on to
  ``TASK_STATE_INPUT_REQUIRED``: the agent waits for the next message, and the stream
  closes there while the task lives on.
- Streams: SendStreamingMessage and SubscribeToTask start with the Task and then carry
  every status update until the task reaches a terminal or an interrupted state,
  where they close (§3.1.2, §3.1.6, §11.7); subscribing to a task that already waits
  for input gives the Task and closes.
- ListTasks: newest update first, ``pageSize`` 1..100 with 50 by default (proto
  comments), opaque page tokens signed with HMAC-SHA256 over the filters and the
  position, so a changed, truncated or replayed-with-other-filters token is refused.
- Every parameter is checked; a bad one is :class:`InvalidParams` naming the field.
- Push notification configs are kept per task, from CreateTaskPushNotificationConfig
  or from a SendMessage's ``configuration.taskPushNotificationConfig`` (§3.2.2), and
  every task update is handed to ``push_sender`` (the server's posts only to loopback
  webhooks, examples/push.py), so the card may declare ``pushNotifications`` (§3.3.4).
  A stream reports an update no sooner than the task's webhooks have been told of it,
  waiting at most ``PUSH_WAIT_SECONDS`` for their deliveries (a slower webhook is not
  waited for): a client that learns of a task from its stream finds the webhook
  already told.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import secrets
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from a2a.types import a2a_pb2 as pb
from a2a_binding.handler import InvalidArgument
from a2a_binding.protocol import A2AError
from google.protobuf import empty_pb2
from google.protobuf.message import Message

DEFAULT_PAGE_SIZE = 50
"""ListTasks page size when the request sets none (ListTasksRequest.page_size)."""
MAX_PAGE_SIZE = 100
"""Largest ListTasks page size a request may ask for (ListTasksRequest.page_size)."""
TERMINAL_STATES = frozenset(
    {
        pb.TASK_STATE_COMPLETED,
        pb.TASK_STATE_FAILED,
        pb.TASK_STATE_CANCELED,
        pb.TASK_STATE_REJECTED,
    }
)
"""States a task never leaves (TaskState comments in the proto)."""
INTERRUPTED_STATES = frozenset(
    {pb.TASK_STATE_INPUT_REQUIRED, pb.TASK_STATE_AUTH_REQUIRED}
)
"""States where a task waits for the client (TaskState comments in the proto)."""
STREAM_END_STATES = TERMINAL_STATES | INTERRUPTED_STATES
"""States at which a stream closes (§11.7: at a terminal or an interrupted state)."""

PUSH_WAIT_SECONDS = 1.0
"""How long a stream waits for the push deliveries of the update it reports."""

PushSender = Callable[
    [pb.TaskPushNotificationConfig, pb.StreamResponse], "asyncio.Future[Any] | None"
]
"""Hands one update to a push config's webhook; its delivery, if there is one to wait
for."""


class InvalidParams(InvalidArgument):
    """A request field with a bad value: JSON-RPC -32602, HTTP 400 INVALID_ARGUMENT,
    with a ``google.rpc.BadRequest`` naming the field (the generated app renders it)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}", [(field, reason)])
        self.field, self.reason = field, reason


@dataclass
class _Entry:
    """A task with what the agent knows about it beyond the proto."""

    tenant: str
    task: pb.Task
    held: bool
    sequence: int
    watchers: list[asyncio.Queue[pb.StreamResponse | None]] = field(
        default_factory=list
    )
    deliveries: list[asyncio.Future[Any]] = field(default_factory=list)


class Agent:
    """The A2A rpcs, protobuf in and out, over an in-memory store kept per tenant."""

    def __init__(
        self,
        *,
        hold: bool = False,
        page_token_key: bytes | None = None,
        push_sender: PushSender | None = None,
    ) -> None:
        self.hold = hold
        self.push_sender = push_sender
        # A fresh key per process: tokens from another run or another agent are refused.
        self._key = page_token_key or secrets.token_bytes(32)
        self._tasks: dict[tuple[str, str], _Entry] = {}
        self._configs: dict[
            tuple[str, str], dict[str, pb.TaskPushNotificationConfig]
        ] = {}
        self._sequence = 0

    # --- the store -------------------------------------------------------------------

    def _entry(self, tenant: str, task_id: str, field: str = "id") -> _Entry:
        if not task_id:
            raise InvalidParams(field, "required")
        entry = self._tasks.get((tenant, task_id))
        if entry is None:
            raise A2AError("TaskNotFoundError", f"task {task_id!r} not found")
        return entry

    def _touch(self, entry: _Entry, state: int) -> None:
        """Set the task's state, stamp it, and tell its watchers and push configs."""
        self._sequence += 1
        entry.sequence = self._sequence
        entry.task.status.state = state  # type: ignore[assignment]
        entry.task.status.timestamp.GetCurrentTime()
        event = pb.StreamResponse(
            status_update=pb.TaskStatusUpdateEvent(
                task_id=entry.task.id,
                context_id=entry.task.context_id,
                status=entry.task.status,
            )
        )
        ended = state in STREAM_END_STATES
        for queue in entry.watchers:
            queue.put_nowait(event)
            if ended:
                queue.put_nowait(None)
        if ended:
            entry.watchers.clear()
        if self.push_sender is not None:
            key = (entry.tenant, entry.task.id)
            entry.deliveries = [d for d in entry.deliveries if not d.done()]
            for config in self._configs.get(key, {}).values():
                delivery = self.push_sender(config, event)
                if delivery is not None:
                    entry.deliveries.append(delivery)

    @staticmethod
    async def _pushed(entry: _Entry) -> None:
        """Wait (``PUSH_WAIT_SECONDS`` at most) for the task's deliveries under way."""
        pending = [d for d in entry.deliveries if not d.done()]
        if pending:
            await asyncio.wait(pending, timeout=PUSH_WAIT_SECONDS)

    # --- messages ----------------------------------------------------------------------

    @staticmethod
    def _check_message(request: pb.SendMessageRequest) -> None:
        if not request.HasField("message"):
            raise InvalidParams("message", "required")
        message = request.message
        if not message.message_id:
            raise InvalidParams("message.messageId", "required")
        if message.role not in (pb.ROLE_USER, pb.ROLE_AGENT):
            raise InvalidParams("message.role", "required: ROLE_USER or ROLE_AGENT")
        if not message.parts:
            raise InvalidParams("message.parts", "required: at least one part")
        for index, part in enumerate(message.parts):
            if part.WhichOneof("content") is None:
                raise InvalidParams(
                    f"message.parts[{index}]", "needs text, raw, url or data"
                )
        config = request.configuration
        if config.HasField("history_length") and config.history_length < 0:
            raise InvalidParams("configuration.historyLength", "must be >= 0")
        if config.HasField("task_push_notification_config"):
            _check_push_url(
                config.task_push_notification_config,
                "configuration.taskPushNotificationConfig.url",
            )

    @staticmethod
    def _text(message: pb.Message) -> str:
        return " ".join(part.text for part in message.parts if part.text).strip()

    def _wants_hold(self, message: pb.Message) -> bool:
        flag = message.metadata.fields.get("hold")
        return (
            self.hold
            or self._text(message) == "hold"
            or (flag is not None and flag.bool_value)
        )

    def _receive(
        self, request: pb.SendMessageRequest, *, streaming: bool = False
    ) -> _Entry:
        """Create or continue the task the message belongs to; the task after it.

        Over a stream a held task ends the exchange in TASK_STATE_INPUT_REQUIRED, an
        interrupted state where the stream closes (§3.1.2, §11.7) while the task lives
        on for follow-up messages, cancel and subscribe.
        """
        self._check_message(request)
        entry = self._take(request)
        if (
            streaming
            and entry.held
            and entry.task.status.state == pb.TASK_STATE_WORKING
        ):
            self._touch(entry, pb.TASK_STATE_INPUT_REQUIRED)
        return entry

    def _keep_push_config(self, entry: _Entry, request: pb.SendMessageRequest) -> None:
        """The push config a SendMessage carries applies to its task (§3.2.2)."""
        if request.configuration.HasField("task_push_notification_config"):
            config = pb.TaskPushNotificationConfig()
            config.CopyFrom(request.configuration.task_push_notification_config)
            config.tenant, config.task_id = entry.tenant, entry.task.id
            config.id = config.id or str(uuid.uuid4())
            self._configs.setdefault((entry.tenant, entry.task.id), {})[
                config.id
            ] = config

    def _take(self, request: pb.SendMessageRequest) -> _Entry:
        message = request.message
        if message.task_id:
            entry = self._entry(request.tenant, message.task_id, "message.taskId")
            task = entry.task
            if task.status.state in TERMINAL_STATES:
                raise A2AError(
                    "UnsupportedOperationError",
                    f"task {task.id!r} is {pb.TaskState.Name(task.status.state)}"
                    " and takes no more messages",
                )
            if message.context_id and message.context_id != task.context_id:
                raise InvalidParams(
                    "message.contextId", f"task {task.id!r} is in another context"
                )
            stored = task.history.add()
            stored.CopyFrom(message)
            stored.context_id = task.context_id
            task.artifacts.add(
                artifact_id=f"echo-{len(task.history)}", parts=message.parts
            )
            self._keep_push_config(entry, request)
            done = self._text(message) == "done" or not entry.held
            self._touch(
                entry, pb.TASK_STATE_COMPLETED if done else pb.TASK_STATE_WORKING
            )
            return entry
        task = pb.Task(id=str(uuid.uuid4()), context_id=message.context_id)
        task.context_id = task.context_id or str(uuid.uuid4())
        stored = task.history.add()
        stored.CopyFrom(message)
        stored.task_id, stored.context_id = task.id, task.context_id
        task.artifacts.add(artifact_id="echo-1", parts=message.parts)
        entry = _Entry(request.tenant, task, self._wants_hold(message), 0)
        self._tasks[(request.tenant, task.id)] = entry
        self._keep_push_config(entry, request)
        self._touch(entry, pb.TASK_STATE_WORKING)
        if not entry.held:
            self._touch(entry, pb.TASK_STATE_COMPLETED)
        return entry

    def SendMessage(self, request: pb.SendMessageRequest) -> pb.SendMessageResponse:
        """Create or continue a task; answers the task as it stands."""
        entry = self._receive(request)
        config = request.configuration
        limit = config.history_length if config.HasField("history_length") else None
        return pb.SendMessageResponse(task=_view(entry.task, limit, artifacts=True))

    async def SendStreamingMessage(
        self, request: pb.SendMessageRequest
    ) -> AsyncIterator[pb.StreamResponse]:
        """The task while working, then its updates until it ends or waits for input."""
        entry = self._receive(request, streaming=True)
        if entry.task.status.state in STREAM_END_STATES:
            # It got there within this call: the working task, then its last status.
            working = _view(entry.task, None, artifacts=True)
            working.status.state = pb.TASK_STATE_WORKING
            await self._pushed(entry)
            yield pb.StreamResponse(task=working)
            yield pb.StreamResponse(
                status_update=pb.TaskStatusUpdateEvent(
                    task_id=entry.task.id,
                    context_id=entry.task.context_id,
                    status=entry.task.status,
                )
            )
            return
        async for event in self._follow(entry):
            yield event

    async def _follow(self, entry: _Entry) -> AsyncIterator[pb.StreamResponse]:
        task = pb.StreamResponse(task=_view(entry.task, None, artifacts=True))
        if entry.task.status.state in STREAM_END_STATES:
            await self._pushed(entry)
            yield task  # waiting for input already: the stream closes at once (§11.7)
            return
        # Watch before the first yield: no update may fall between the Task and them.
        queue: asyncio.Queue[pb.StreamResponse | None] = asyncio.Queue()
        entry.watchers.append(queue)
        try:
            await self._pushed(entry)
            yield task
            while (event := await queue.get()) is not None:
                await self._pushed(entry)
                yield event
        finally:
            if queue in entry.watchers:
                entry.watchers.remove(queue)

    # --- tasks -------------------------------------------------------------------------

    def GetTask(self, request: pb.GetTaskRequest) -> pb.Task:
        """The task, its history cut to ``historyLength`` (§3.2.4)."""
        limit = _history_length(request)
        return _view(
            self._entry(request.tenant, request.id).task, limit, artifacts=True
        )

    def ListTasks(self, request: pb.ListTasksRequest) -> pb.ListTasksResponse:
        """Tasks of the tenant, newest update first, one page at a time."""
        page_size = DEFAULT_PAGE_SIZE
        if request.HasField("page_size"):
            if not 1 <= request.page_size <= MAX_PAGE_SIZE:
                raise InvalidParams("pageSize", f"must be 1..{MAX_PAGE_SIZE}")
            page_size = request.page_size
        limit = _history_length(request)
        if request.status not in pb.TaskState.values():
            raise InvalidParams("status", f"no TaskState {request.status}")
        after = (
            request.status_timestamp_after.ToNanoseconds()
            if request.HasField("status_timestamp_after")
            else None
        )
        scope = json.dumps(
            [request.tenant, request.context_id, request.status, after or 0]
        )
        cursor = (
            self._read_token(request.page_token, scope) if request.page_token else None
        )
        found = sorted(
            (
                e
                for (tenant, _), e in self._tasks.items()
                if tenant == request.tenant
                and request.context_id in ("", e.task.context_id)
                and request.status in (pb.TASK_STATE_UNSPECIFIED, e.task.status.state)
                and (after is None or e.task.status.timestamp.ToNanoseconds() >= after)
            ),
            key=lambda e: e.sequence,
            reverse=True,
        )
        rest = [e for e in found if cursor is None or e.sequence < cursor]
        page = rest[:page_size]
        more = len(rest) > page_size
        include = request.HasField("include_artifacts") and request.include_artifacts
        return pb.ListTasksResponse(
            tasks=[_view(e.task, limit, artifacts=include) for e in page],
            next_page_token=self._token(page[-1].sequence, scope) if more else "",
            page_size=len(page),
            total_size=len(found),
        )

    def _token(self, position: int, scope: str) -> str:
        body = str(position).encode()
        mac = hmac.new(self._key, scope.encode() + b"\0" + body, hashlib.sha256)
        return base64.urlsafe_b64encode(body + b"." + mac.digest()).decode().rstrip("=")

    def _read_token(self, token: str, scope: str) -> int:
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            body, _, mac = raw.partition(b".")
            expected = hmac.new(
                self._key, scope.encode() + b"\0" + body, hashlib.sha256
            )
            if hmac.compare_digest(mac, expected.digest()) and body.isdigit():
                return int(body)
        except ValueError:
            pass
        raise InvalidParams("pageToken", "not a token this agent issued for this query")

    def CancelTask(self, request: pb.CancelTaskRequest) -> pb.Task:
        """Cancel a task that has not ended (TaskNotCancelableError otherwise)."""
        entry = self._entry(request.tenant, request.id)
        if entry.task.status.state in TERMINAL_STATES:
            state = pb.TaskState.Name(entry.task.status.state)
            raise A2AError("TaskNotCancelableError", f"task {request.id!r} is {state}")
        self._touch(entry, pb.TASK_STATE_CANCELED)
        return _view(entry.task, None, artifacts=True)

    async def SubscribeToTask(
        self, request: pb.SubscribeToTaskRequest
    ) -> AsyncIterator[pb.StreamResponse]:
        """The task, then its updates until it ends (§3.1.6)."""
        entry = self._entry(request.tenant, request.id)
        if entry.task.status.state in TERMINAL_STATES:
            state = pb.TaskState.Name(entry.task.status.state)
            raise A2AError(
                "UnsupportedOperationError", f"task {request.id!r} is {state}"
            )
        async for event in self._follow(entry):
            yield event

    # --- push notification configs ----------------------------------------------------

    def CreateTaskPushNotificationConfig(
        self, request: pb.TaskPushNotificationConfig
    ) -> pb.TaskPushNotificationConfig:
        """Keep a webhook for the task; its updates are posted there from now on."""
        self._entry(request.tenant, request.task_id, "taskId")
        _check_push_url(request, "url")
        config = pb.TaskPushNotificationConfig()
        config.CopyFrom(request)
        config.id = config.id or str(uuid.uuid4())
        self._configs.setdefault((request.tenant, request.task_id), {})[
            config.id
        ] = config
        return config

    def GetTaskPushNotificationConfig(
        self, request: pb.GetTaskPushNotificationConfigRequest
    ) -> pb.TaskPushNotificationConfig:
        """One config of a task."""
        self._entry(request.tenant, request.task_id, "taskId")
        configs = self._configs.get((request.tenant, request.task_id), {})
        if request.id not in configs:
            raise A2AError(
                "TaskNotFoundError",
                f"no push config {request.id!r} for task {request.task_id!r}",
            )
        return configs[request.id]

    def ListTaskPushNotificationConfigs(
        self, request: pb.ListTaskPushNotificationConfigsRequest
    ) -> pb.ListTaskPushNotificationConfigsResponse:
        """Every config of a task (few enough per task that one page holds them)."""
        self._entry(request.tenant, request.task_id, "taskId")
        if request.page_size < 0:
            raise InvalidParams("pageSize", "must be >= 0")
        configs = self._configs.get((request.tenant, request.task_id), {})
        return pb.ListTaskPushNotificationConfigsResponse(configs=configs.values())

    def DeleteTaskPushNotificationConfig(
        self, request: pb.DeleteTaskPushNotificationConfigRequest
    ) -> Message:
        """Forget one config of a task."""
        self.GetTaskPushNotificationConfig(
            pb.GetTaskPushNotificationConfigRequest(
                tenant=request.tenant, task_id=request.task_id, id=request.id
            )
        )
        del self._configs[(request.tenant, request.task_id)][request.id]
        return empty_pb2.Empty()


def _check_push_url(config: pb.TaskPushNotificationConfig, field: str) -> None:
    # Which hosts are actually posted to is the sender's business (examples/push.py);
    # a URL that does not parse is refused here, before a task or config is stored.
    if not config.url.startswith(("https://", "http://")):
        raise InvalidParams(field, "required: an http or https URL")
    try:
        parts = urllib.parse.urlsplit(config.url)
        parts.port  # a port that is no number raises only when read
    except ValueError as exc:
        raise InvalidParams(field, f"not a URL: {exc}") from None
    if not parts.hostname:
        raise InvalidParams(field, "the URL names no host")


def _history_length(
    request: pb.GetTaskRequest | pb.ListTasksRequest,
) -> int | None:
    if not request.HasField("history_length"):
        return None
    if request.history_length < 0:
        raise InvalidParams("historyLength", "must be >= 0")
    return request.history_length


def _view(task: pb.Task, history: int | None, *, artifacts: bool) -> pb.Task:
    """A copy of the task with at most ``history`` messages, artifacts if asked."""
    view = pb.Task()
    view.CopyFrom(task)
    if history is not None:
        del view.history[: max(len(view.history) - history, 0)]
    if not artifacts:
        del view.artifacts[:]
    return view

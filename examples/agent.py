"""The agent behind examples/a2a_server.py: an in-memory task store answering the eleven
A2A rpcs with a2a-sdk's protobuf messages. Tasks complete at once unless the message
text is "hold", which leaves them working (so they can be cancelled or subscribed to)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

from a2a.types import a2a_pb2 as pb
from a2a_binding.jsonrpc import A2A_ERRORS
from google.protobuf import empty_pb2
from google.protobuf.message import Message


class A2AError(Exception):
    """An A2A error by name (``TaskNotFoundError``...), answered per binding."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = A2A_ERRORS[name], message


class Agent:
    """The rpcs, protobuf in and out: tasks complete at once unless the text says "hold"."""

    def __init__(self) -> None:
        self.tasks: dict[tuple[str, str], pb.Task] = {}
        self.configs: dict[tuple[str, str, str], pb.TaskPushNotificationConfig] = {}

    def task(self, tenant: str, task_id: str) -> pb.Task:
        if (tenant, task_id) not in self.tasks:
            raise A2AError("TaskNotFoundError", f"no task {task_id!r}")
        return self.tasks[(tenant, task_id)]

    def SendMessage(self, req: pb.SendMessageRequest) -> pb.SendMessageResponse:
        hold = any(part.text == "hold" for part in req.message.parts)
        state = pb.TASK_STATE_WORKING if hold else pb.TASK_STATE_COMPLETED
        task = pb.Task(
            id=str(uuid.uuid4()),
            context_id=req.message.context_id or str(uuid.uuid4()),
            status=pb.TaskStatus(state=state),
            history=[req.message],
        )
        task.artifacts.add(artifact_id="echo", parts=req.message.parts)
        self.tasks[(req.tenant, task.id)] = task
        return pb.SendMessageResponse(task=task)

    def SendStreamingMessage(self, req: pb.SendMessageRequest) -> Iterator[pb.StreamResponse]:
        task = self.SendMessage(req).task
        yield pb.StreamResponse(task=task)
        yield pb.StreamResponse(
            status_update=pb.TaskStatusUpdateEvent(
                task_id=task.id, context_id=task.context_id, status=task.status
            )
        )

    def GetTask(self, req: pb.GetTaskRequest) -> pb.Task:
        task = pb.Task()
        task.CopyFrom(self.task(req.tenant, req.id))
        if req.HasField("history_length"):
            del task.history[: max(len(task.history) - req.history_length, 0)]
        return task

    def ListTasks(self, req: pb.ListTasksRequest) -> pb.ListTasksResponse:
        found = [
            t
            for (tenant, _), t in self.tasks.items()
            if tenant == req.tenant
            and req.context_id in ("", t.context_id)
            and req.status in (0, t.status.state)
        ]
        return pb.ListTasksResponse(tasks=found, total_size=len(found), page_size=len(found))

    def CancelTask(self, req: pb.CancelTaskRequest) -> pb.Task:
        task = self.task(req.tenant, req.id)
        if task.status.state != pb.TASK_STATE_WORKING:
            raise A2AError("TaskNotCancelableError", f"task {req.id!r} is not running")
        task.status.state = pb.TASK_STATE_CANCELED
        return task

    def SubscribeToTask(self, req: pb.SubscribeToTaskRequest) -> Iterator[pb.StreamResponse]:
        task = self.task(req.tenant, req.id)
        if task.status.state != pb.TASK_STATE_WORKING:
            raise A2AError("UnsupportedOperationError", f"task {req.id!r} has ended")
        yield pb.StreamResponse(task=task)

    def CreateTaskPushNotificationConfig(
        self, req: pb.TaskPushNotificationConfig
    ) -> pb.TaskPushNotificationConfig:
        self.task(req.tenant, req.task_id)
        config = pb.TaskPushNotificationConfig()
        config.CopyFrom(req)
        config.id = config.id or str(uuid.uuid4())
        self.configs[(req.tenant, req.task_id, config.id)] = config
        return config

    def GetTaskPushNotificationConfig(
        self, req: pb.GetTaskPushNotificationConfigRequest
    ) -> pb.TaskPushNotificationConfig:
        if (req.tenant, req.task_id, req.id) not in self.configs:
            raise A2AError("TaskNotFoundError", f"no config {req.id!r} for task {req.task_id!r}")
        return self.configs[(req.tenant, req.task_id, req.id)]

    def ListTaskPushNotificationConfigs(
        self, req: pb.ListTaskPushNotificationConfigsRequest
    ) -> pb.ListTaskPushNotificationConfigsResponse:
        configs = [
            c for (t, task, _), c in self.configs.items() if (t, task) == (req.tenant, req.task_id)
        ]
        return pb.ListTaskPushNotificationConfigsResponse(configs=configs)

    def DeleteTaskPushNotificationConfig(
        self, req: pb.DeleteTaskPushNotificationConfigRequest
    ) -> Message:
        self.GetTaskPushNotificationConfig(
            pb.GetTaskPushNotificationConfigRequest(
                tenant=req.tenant, task_id=req.task_id, id=req.id
            )
        )
        del self.configs[(req.tenant, req.task_id, req.id)]
        return empty_pb2.Empty()

    def GetExtendedAgentCard(self, req: pb.GetExtendedAgentCardRequest) -> pb.AgentCard:
        return CARD


CARD = pb.AgentCard(
    name="generated-tables",
    description="An A2A server on protoc-gen-a2a tables",
    version="1.0.0",
    capabilities=pb.AgentCapabilities(streaming=True, extended_agent_card=True),
)
CARD.supported_interfaces.add(
    url="http://127.0.0.1/rest", protocol_binding="HTTP+JSON", protocol_version="1.0"
)
CARD.supported_interfaces.add(
    url="http://127.0.0.1/jsonrpc", protocol_binding="JSONRPC", protocol_version="1.0"
)

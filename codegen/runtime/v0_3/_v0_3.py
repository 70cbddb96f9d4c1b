"""A2A 0.3 beside 1.0: what the v0.3.0 proto does not say (its JSON-RPC method names and
the enum spellings of its JSON-RPC shapes), as tables from 0.3 to 1.0 and back.

The 0.3 HTTP+JSON routes, query codecs and TypedDicts are generated from the v0.3.0 proto
into the ``v0_3`` subpackage; this module is the same in every A2A package.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple, TypeGuard

__all__ = [
    "V0_3",
    "V0_3_METHODS",
    "V0_3_RPCS",
    "V0_3_ROLES",
    "V0_3_TASK_STATES",
    "V0_3_STREAMING",
    "V0_3Method",
    "V0_3_ERROR_CODES",
    "error_code_to_v0_3",
    "final_update",
    "is_v0_3_method",
    "role_from_v0_3",
    "role_to_v0_3",
    "task_state_from_v0_3",
    "task_state_to_v0_3",
]

V0_3 = "0.3"
"""The protocol version a 0.3 client speaks (and a request without ``A2A-Version``)."""


class V0_3Method(NamedTuple):
    """One 0.3 JSON-RPC method: the rpc of the v0.3.0 proto it stands for, and the
    1.0 rpc (the 1.0 JSON-RPC method name) the handler serves it with."""

    v0_3_rpc: str
    rpc: str
    streaming: bool


V0_3_METHODS: Mapping[str, V0_3Method] = MappingProxyType(
    {
        "message/send": V0_3Method("SendMessage", "SendMessage", False),
        "message/stream": V0_3Method(
            "SendStreamingMessage", "SendStreamingMessage", True
        ),
        "tasks/get": V0_3Method("GetTask", "GetTask", False),
        "tasks/cancel": V0_3Method("CancelTask", "CancelTask", False),
        "tasks/resubscribe": V0_3Method("TaskSubscription", "SubscribeToTask", True),
        "tasks/pushNotificationConfig/set": V0_3Method(
            "CreateTaskPushNotificationConfig",
            "CreateTaskPushNotificationConfig",
            False,
        ),
        "tasks/pushNotificationConfig/get": V0_3Method(
            "GetTaskPushNotificationConfig", "GetTaskPushNotificationConfig", False
        ),
        "tasks/pushNotificationConfig/list": V0_3Method(
            "ListTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", False
        ),
        "tasks/pushNotificationConfig/delete": V0_3Method(
            "DeleteTaskPushNotificationConfig",
            "DeleteTaskPushNotificationConfig",
            False,
        ),
        "agent/getAuthenticatedExtendedCard": V0_3Method(
            "GetAgentCard", "GetExtendedAgentCard", False
        ),
    }
)
"""The 0.3 JSON-RPC methods, by method name. 1.0's ListTasks has no 0.3 method."""

V0_3_RPCS: Mapping[str, str] = MappingProxyType(
    {method.rpc: name for name, method in V0_3_METHODS.items()}
)
"""The 0.3 JSON-RPC method name of each 1.0 rpc that 0.3 has (a client's view)."""

V0_3_STREAMING = frozenset(
    name for name, method in V0_3_METHODS.items() if method.streaming
)
"""The 0.3 methods answered with a stream of events."""

# The 0.3 JSON-RPC shapes spell enum values in lower case (``"working"``); the 0.3
# HTTP+JSON binding (ProtoJSON of the v0.3.0 proto) and 1.0 spell them as the proto
# does (``"TASK_STATE_WORKING"``).
V0_3_TASK_STATES: Mapping[str, str] = MappingProxyType(
    {
        "submitted": "TASK_STATE_SUBMITTED",
        "working": "TASK_STATE_WORKING",
        "input-required": "TASK_STATE_INPUT_REQUIRED",
        "completed": "TASK_STATE_COMPLETED",
        "canceled": "TASK_STATE_CANCELED",
        "failed": "TASK_STATE_FAILED",
        "rejected": "TASK_STATE_REJECTED",
        "auth-required": "TASK_STATE_AUTH_REQUIRED",
        "unknown": "TASK_STATE_UNSPECIFIED",
    }
)
"""0.3 JSON-RPC task state to the proto's value name."""

V0_3_ROLES: Mapping[str, str] = MappingProxyType(
    {"user": "ROLE_USER", "agent": "ROLE_AGENT"}
)
"""0.3 JSON-RPC message role to the proto's value name."""

V0_3_ERROR_CODES = frozenset(
    (-32700, -32600, -32601, -32602, -32603, *range(-32007, -32000))
)
"""The JSON-RPC error codes 0.3 has: JSON-RPC's own and the A2A errors -32001 (task not
found) to -32007 (extended card not configured), which mean in 1.0 what they meant."""

_INTERNAL_ERROR = -32603

# The states a 1.0 stream ends on: terminal, or waiting on the client.
_LAST_STATES = frozenset(
    (
        "TASK_STATE_COMPLETED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_FAILED",
        "TASK_STATE_REJECTED",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_AUTH_REQUIRED",
    )
)

_STATES_BACK = {proto: name for name, proto in V0_3_TASK_STATES.items()}
_ROLES_BACK = {proto: name for name, proto in V0_3_ROLES.items()}


def is_v0_3_method(method: object) -> TypeGuard[str]:
    """Whether a JSON-RPC ``method`` member is a 0.3 method name."""
    return isinstance(method, str) and method in V0_3_METHODS


def task_state_from_v0_3(state: str) -> str:
    """The proto's value name of a 0.3 JSON-RPC task state; ``KeyError`` for a state
    0.3 does not have."""
    return V0_3_TASK_STATES[state]


def task_state_to_v0_3(state: str) -> str:
    """The 0.3 JSON-RPC task state of a proto value name; ``KeyError`` for one 0.3
    cannot say."""
    return _STATES_BACK[state]


def role_from_v0_3(role: str) -> str:
    """The proto's value name of a 0.3 JSON-RPC role; ``KeyError`` for another."""
    return V0_3_ROLES[role]


def role_to_v0_3(role: str) -> str:
    """The 0.3 JSON-RPC role of a proto value name; ``KeyError`` for
    ``ROLE_UNSPECIFIED``, which 0.3 cannot say."""
    return _ROLES_BACK[role]


def error_code_to_v0_3(code: int) -> int:
    """The code a 0.3 client gets for a 1.0 JSON-RPC error ``code``: the same where 0.3
    has it; an error 1.0 added (-32008 extension support required, -32009 version not
    supported) is an internal error (-32603), which 0.3 clients know, as a2a-sdk's
    adapter answers; the message and ``data`` are kept."""
    return code if code in V0_3_ERROR_CODES else _INTERNAL_ERROR


def final_update(update: Mapping[str, Any]) -> bool:
    """What 0.3's ``final`` says of a 1.0 ``TaskStatusUpdateEvent``: whether a 1.0
    stream ends on its state (terminal, input or auth required). Said from the state,
    events go out as they come instead of each waiting for the next; a2a-sdk's
    adapter says false for the last two, though its streams of either version end
    there too."""
    status = update.get("status")
    return isinstance(status, Mapping) and status.get("state") in _LAST_STATES

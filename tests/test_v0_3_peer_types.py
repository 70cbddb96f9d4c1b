"""The 0.3 JSON the runtime writes, checked by a2a-sdk 0.3.26's OWN types (in the 0.3
venv, ``tests/v0_3/validate_shapes.py``): every 0.3 JSON-RPC request the client sends
(``_v0_3_rpc.params_from_v1``) validates as the ``a2a.types`` request of its method,
every 0.3 result a server answers (``result_from_v1``, ``stream_event_from_v1``, the
card of ``_v0_3_card``) as its ``a2a.types`` model, and every 0.3 HTTP+JSON body
(``_v0_3_rest``) parses, unknown fields refused, as its message of 0.3.26's
``a2a.grpc.a2a_pb2``; each model dumped back by that library equals what we sent, so no
field of ours is one it drops."""

from __future__ import annotations

import json
from typing import Any

import pytest

from codegen.runtime import _v0_3_card as card
from codegen.runtime import _v0_3_rest as rest
from codegen.runtime import _v0_3_rpc as rpc
from tests import v0_3_env

PARTS = [
    {"text": "hi", "metadata": {"k": 1}},
    {"raw": "aGk=", "mediaType": "text/plain", "filename": "a.txt"},
    {"url": "https://x.test/f"},
    {"data": {"a": [1, 2]}},
    {"data": [1, "two"]},
]
MESSAGE = {
    "messageId": "m1",
    "contextId": "c1",
    "taskId": "t1",
    "role": "ROLE_USER",
    "parts": PARTS,
    "metadata": {"trace": "x"},
    "extensions": ["urn:e"],
    "referenceTaskIds": ["t0"],
}
AGENT = {"messageId": "m2", "role": "ROLE_AGENT", "parts": [{"text": "ok"}]}
STATUS = {
    "state": "TASK_STATE_INPUT_REQUIRED",
    "message": AGENT,
    "timestamp": "2025-01-02T03:04:05Z",
}
ARTIFACT = {"artifactId": "a1", "name": "n", "description": "d", "parts": PARTS}
TASK = {
    "id": "t1",
    "contextId": "c1",
    "status": STATUS,
    "artifacts": [ARTIFACT],
    "history": [MESSAGE, AGENT],
    "metadata": {"z": True},
}
CANCELED = {"id": "t2", "contextId": "c", "status": {"state": "TASK_STATE_CANCELED"}}
STATUS_UPDATE = {
    "taskId": "t1",
    "contextId": "c1",
    "status": {"state": "TASK_STATE_COMPLETED"},
    "metadata": {"s": 1},
}
ARTIFACT_UPDATE = {
    "taskId": "t1",
    "contextId": "c1",
    "artifact": ARTIFACT,
    "append": True,
    "lastChunk": True,
}
PUSH = {
    "taskId": "t1",
    "id": "p1",
    "url": "https://hook.test/",
    "token": "tok",
    "authentication": {"scheme": "Bearer", "credentials": "c"},
}
SEND = {
    "message": MESSAGE,
    "configuration": {
        "acceptedOutputModes": ["text/plain"],
        "historyLength": 3,
        "returnImmediately": True,
        "taskPushNotificationConfig": PUSH,
    },
    "metadata": {"r": 1},
}
CARD = {
    "name": "agent",
    "description": "d",
    "version": "1.0",
    "supportedInterfaces": [
        {"url": "http://x/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        {"url": "http://x/rest", "protocolBinding": "HTTP+JSON"},
        {"url": "http://x/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    ],
    "provider": {"organization": "o", "url": "http://o/"},
    "documentationUrl": "http://doc/",
    "iconUrl": "http://icon/",
    "capabilities": {
        "streaming": True,
        "pushNotifications": True,
        "extendedAgentCard": True,
        "extensions": [{"uri": "urn:x", "required": True, "params": {"a": 1}}],
    },
    "securitySchemes": {
        "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}},
        "bearer": {
            "httpAuthSecurityScheme": {"scheme": "bearer", "bearerFormat": "JWT"}
        },
        "oauth": {
            "oauth2SecurityScheme": {
                "flows": {
                    "authorizationCode": {
                        "authorizationUrl": "http://a/",
                        "tokenUrl": "http://t/",
                        "scopes": {"read": "r"},
                    }
                }
            }
        },
        "oidc": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "http://oidc/"}},
        "mtls": {"mtlsSecurityScheme": {"description": "m"}},
    },
    "securityRequirements": [{"schemes": {"key": {}, "oauth": {"list": ["read"]}}}],
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [
        {
            "id": "s",
            "name": "S",
            "description": "sd",
            "tags": ["t"],
            "securityRequirements": [{"schemes": {"bearer": {}}}],
        }
    ],
    "signatures": [{"protected": "p", "signature": "s", "header": {"kid": "1"}}],
}

REQUESTS = [
    ("SendMessage", SEND, "SendMessageRequest"),
    ("SendStreamingMessage", {"message": AGENT}, "SendStreamingMessageRequest"),
    ("GetTask", {"id": "t1", "historyLength": 2}, "GetTaskRequest"),
    ("CancelTask", {"id": "t1", "metadata": {"m": 1}}, "CancelTaskRequest"),
    ("SubscribeToTask", {"id": "t1"}, "TaskResubscriptionRequest"),
    ("CreateTaskPushNotificationConfig", PUSH, "SetTaskPushNotificationConfigRequest"),
    (
        "GetTaskPushNotificationConfig",
        {"taskId": "t1", "id": "p1"},
        "GetTaskPushNotificationConfigRequest",
    ),
    (
        "ListTaskPushNotificationConfigs",
        {"taskId": "t1"},
        "ListTaskPushNotificationConfigRequest",
    ),
    (
        "DeleteTaskPushNotificationConfig",
        {"taskId": "t1", "id": "p1"},
        "DeleteTaskPushNotificationConfigRequest",
    ),
    ("GetExtendedAgentCard", {}, "GetAuthenticatedExtendedCardRequest"),
]


def _cases() -> list[tuple[str, dict[str, Any], Any]]:
    """(what it is, the case for the script, what its dump must equal)."""
    cases: list[tuple[str, dict[str, Any], Any]] = []
    for name, request, model in REQUESTS:
        method, params = rpc.params_from_v1(name, request)
        envelope: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
        if params is not None:
            envelope["params"] = params
        cases.append(
            (f"{method} request", {"model": model, "value": envelope}, envelope)
        )
    results = [
        ("message/send", {"task": TASK}, "Task"),
        ("message/send", {"message": AGENT}, "Message"),
        ("tasks/get", CANCELED, "Task"),
        ("message/stream", {"statusUpdate": STATUS_UPDATE}, "TaskStatusUpdateEvent"),
        (
            "message/stream",
            {"artifactUpdate": ARTIFACT_UPDATE},
            "TaskArtifactUpdateEvent",
        ),
        ("tasks/pushNotificationConfig/get", PUSH, "TaskPushNotificationConfig"),
    ]
    for method, answer, model in results:
        result = rpc.result_from_v1(method, answer)
        cases.append((f"{method} result", {"model": model, "value": result}, result))
    for result in rpc.result_from_v1(
        "tasks/pushNotificationConfig/list", {"configs": [PUSH]}
    ):
        cases.append(
            (
                "list item",
                {"model": "TaskPushNotificationConfig", "value": result},
                result,
            )
        )
    final = rpc.stream_event_from_v1({"statusUpdate": STATUS_UPDATE}, final=True)
    cases.append(
        ("final event", {"model": "TaskStatusUpdateEvent", "value": final}, final)
    )
    converted = card.card_from_v1(CARD)
    cases.append(("card", {"model": "AgentCard", "value": converted}, converted))
    # HTTP+JSON: what a client sends, what a server answers
    for name, proto in (
        ("SendMessage", "SendMessageRequest"),
        ("CreateTaskPushNotificationConfig", "CreateTaskPushNotificationConfigRequest"),
    ):
        request = SEND if name == "SendMessage" else PUSH
        _, body = rest.request_from_v1(name, request)
        cases.append((f"REST {name} body", {"proto": proto, "value": body}, body))
    answers = [
        ("SendMessage", {"task": TASK}, "SendMessageResponse"),
        ("SendMessage", {"message": MESSAGE}, "SendMessageResponse"),
        ("GetTask", TASK, "Task"),
        ("CancelTask", CANCELED, "Task"),
        ("SendStreamingMessage", {"statusUpdate": STATUS_UPDATE}, "StreamResponse"),
        ("SubscribeToTask", {"artifactUpdate": ARTIFACT_UPDATE}, "StreamResponse"),
        ("GetTaskPushNotificationConfig", PUSH, "TaskPushNotificationConfig"),
        (
            "ListTaskPushNotificationConfigs",
            {"configs": [PUSH, PUSH]},
            "ListTaskPushNotificationConfigResponse",
        ),
    ]
    for name, answer, proto in answers:
        body = rest.response_from_v1(name, answer, final=True)
        cases.append((f"REST {name} answer", {"proto": proto, "value": body}, body))
    return cases


def test_our_0_3_json_is_what_a2a_sdk_0_3_26_reads() -> None:
    cases = _cases()
    done = v0_3_env.run("validate_shapes.py", json.dumps([c for _, c, _ in cases]))
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert len(results) == len(cases)
    for (what, case, sent), result in zip(cases, results):
        assert result["ok"], f"{what}: {result['error']}"
        if "model" in case:  # a proto message parsed strictly has every field we sent
            assert result["dump"] == sent, what
        if case.get("model", "").endswith("Request"):
            assert result["type"] == case["model"], what


@pytest.mark.parametrize(
    ("case", "error"),
    [
        ({"model": "Task", "value": {"kind": "task", "id": "t"}}, "ValidationError"),
        ({"proto": "Task", "value": {"unknownField": 1}}, "ParseError"),
    ],
)
def test_the_checker_can_fail(case: dict[str, Any], error: str) -> None:
    done = v0_3_env.run("validate_shapes.py", json.dumps([case]))
    (result,) = json.loads(done.stdout)
    assert not result["ok"] and result["error"].startswith(error)

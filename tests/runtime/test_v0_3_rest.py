"""The 0.3 HTTP+JSON bodies and 1.0 ProtoJSON, both ways (``codegen/runtime/v0_3/_v0_3_rest``
and ``_v0_3_card``), differentially against a2a-sdk 1.3.0's own 0.3 REST adapter: a 0.3
protobuf message of ``a2a.compat.v0_3.a2a_v0_3_pb2`` as ``MessageToDict`` writes it,
converted by us, must equal what ``proto_utils.FromProto`` + ``conversions.to_core_*``
make of the same message (after ``MessageToDict`` of its 1.0 result); and the way back
through ``conversions.to_compat_*`` + ``proto_utils.ToProto``. Requests go through the
generated 0.3 route table's ``transcode`` first, as a server receives them."""

from __future__ import annotations

import base64
import importlib
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.runtime import _v0_3_card as card
from codegen.runtime import _v0_3_rest as rest
from codegen.runtime import _v0_3_rpc as rpc_module
from codegen.runtime._v0_3_shapes import ShapeError

compat = pytest.importorskip("a2a.compat.v0_3.conversions")
from a2a.compat.v0_3 import a2a_v0_3_pb2 as pb03  # noqa: E402
from a2a.compat.v0_3 import proto_utils  # noqa: E402
from a2a.compat.v0_3 import types as t03  # noqa: E402
from a2a.types import a2a_pb2 as pb10  # noqa: E402
from google.protobuf.json_format import MessageToDict, ParseDict  # noqa: E402

FromProto, ToProto = proto_utils.FromProto, proto_utils.ToProto


@pytest.fixture(scope="module")
def routes03(a2a: ModuleType) -> ModuleType:
    """The committed package's 0.3 route table."""
    return importlib.import_module("a2a_binding.v0_3.routes")


def _d(message: Any) -> dict[str, Any]:
    out: dict[str, Any] = MessageToDict(message)
    return out


PARTS = [
    pb03.Part(text="hi", metadata={"a": 1}),
    pb03.Part(
        file=pb03.FilePart(file_with_bytes=b"aGk=", mime_type="text/plain", name="a")
    ),
    pb03.Part(file=pb03.FilePart(file_with_uri="https://x.test/f")),
    pb03.Part(data=pb03.DataPart(data={"k": [1, 2]})),
    pb03.Part(
        data=pb03.DataPart(data={"value": "s"}),
        metadata={"data_part_compat": True, "m": 1},
    ),
]
MESSAGE = pb03.Message(
    message_id="m1",
    context_id="c1",
    task_id="t1",
    role=pb03.ROLE_USER,
    content=PARTS,
    metadata={"x": "y"},
    extensions=["urn:e"],
)
AGENT_MESSAGE = pb03.Message(message_id="m2", role=pb03.ROLE_AGENT, content=PARTS[:1])
STATUS = pb03.TaskStatus(state=pb03.TASK_STATE_CANCELLED, update=AGENT_MESSAGE)
STATUS.timestamp.FromJsonString("2025-01-02T03:04:05Z")
ARTIFACT = pb03.Artifact(
    artifact_id="a1", name="n", description="d", parts=PARTS, metadata={"q": 1}
)
TASK = pb03.Task(
    id="t1",
    context_id="c1",
    status=STATUS,
    artifacts=[ARTIFACT],
    history=[MESSAGE, AGENT_MESSAGE],
    metadata={"z": True},
)
PUSH = pb03.PushNotificationConfig(
    id="p1",
    url="https://hook.test/",
    token="tok",
    authentication=pb03.AuthenticationInfo(
        schemes=["Bearer", "Basic"], credentials="c"
    ),
)
TASK_PUSH = pb03.TaskPushNotificationConfig(
    name="tasks/t1/pushNotificationConfigs/p1", push_notification_config=PUSH
)
STATUS_UPDATE = pb03.TaskStatusUpdateEvent(
    task_id="t1",
    context_id="c1",
    status=pb03.TaskStatus(state=pb03.TASK_STATE_WORKING),
    final=True,
    metadata={"s": 1},
)
ARTIFACT_UPDATE = pb03.TaskArtifactUpdateEvent(
    task_id="t1", context_id="c1", artifact=ARTIFACT, append=True, last_chunk=True
)
EVENTS = [
    pb03.StreamResponse(task=TASK),
    pb03.StreamResponse(msg=MESSAGE),
    pb03.StreamResponse(status_update=STATUS_UPDATE),
    pb03.StreamResponse(artifact_update=ARTIFACT_UPDATE),
]


def _core_event(event: Any) -> dict[str, Any]:
    result = FromProto.stream_response(event)
    success = t03.SendStreamingMessageSuccessResponse(id=0, result=result)
    return _d(compat.to_core_stream_response(success))


def test_messages_tasks_and_parts_as_a2a_sdk_converts_them() -> None:
    for message in (MESSAGE, AGENT_MESSAGE):
        core = _d(compat.to_core_message(FromProto.message(message)))
        assert rest.message_to_v1(_d(message)) == core
        back = ToProto.message(
            compat.to_compat_message(ParseDict(core, pb10.Message()))
        )
        assert rest.message_from_v1(core) == _d(back)
    core_task = _d(compat.to_core_task(FromProto.task(TASK)))
    assert core_task["status"]["state"] == "TASK_STATE_CANCELED"
    assert rest.task_to_v1(_d(TASK)) == core_task
    back_task = ToProto.task(compat.to_compat_task(ParseDict(core_task, pb10.Task())))
    assert rest.task_from_v1(core_task) == _d(back_task)
    assert _d(TASK)["status"]["state"] == "TASK_STATE_CANCELLED"


def test_file_bytes_are_the_base64_text_as_a2a_sdk_sends_them() -> None:
    # a2a-sdk's 0.3 proto layer puts the base64 text in the bytes field.
    part = rest.part_from_v1({"raw": "aGk=", "filename": "a"})
    assert part == {"file": {"fileWithBytes": "YUdrPQ==", "name": "a"}}
    assert base64.b64decode(part["file"]["fileWithBytes"]) == b"aGk="
    assert rest.part_to_v1(part) == {"raw": "aGk=", "filename": "a"}


def test_stream_events_and_send_responses_as_a2a_sdk_converts_them() -> None:
    for event in EVENTS:
        core = _core_event(event)
        assert rest.stream_event_to_v1(_d(event)) == core
        assert rest.response_to_v1("SendStreamingMessage", _d(event)) == core
        compat_event = compat.to_compat_stream_response(
            ParseDict(core, pb10.StreamResponse())
        )
        expected = _d(ToProto.stream_response(compat_event.result))
        final = expected.get("statusUpdate", {}).get("final", False)
        assert rest.response_from_v1("SendStreamingMessage", core, final=final) == (
            expected
        )
    for answer in (
        pb03.SendMessageResponse(task=TASK),
        pb03.SendMessageResponse(msg=MESSAGE),
    ):
        core = _d(
            compat.to_core_send_message_response(
                t03.SendMessageResponse(
                    root=t03.SendMessageSuccessResponse(
                        id=0, result=FromProto.task_or_message(answer)
                    )
                )
            )
        )
        assert rest.response_to_v1("SendMessage", _d(answer)) == core
        assert rest.response_from_v1("SendMessage", core) == _d(answer)


def test_final_is_the_callers_to_say() -> None:
    core = {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}}
    assert "final" not in rest.response_from_v1("SubscribeToTask", core)["statusUpdate"]
    event = rest.response_from_v1("SubscribeToTask", core, final=True)
    assert event["statusUpdate"]["final"] is True
    assert rest.response_to_v1("SubscribeToTask", event) == core


def test_push_configs_as_a2a_sdk_converts_them() -> None:
    core = _d(
        compat.to_core_task_push_notification_config(
            FromProto.task_push_notification_config(TASK_PUSH)
        )
    )
    assert core["authentication"] == {"scheme": "Bearer", "credentials": "c"}
    for rpc in ("CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig"):
        assert rest.response_to_v1(rpc, _d(TASK_PUSH)) == core
        compat_config = compat.to_compat_task_push_notification_config(
            ParseDict(core, pb10.TaskPushNotificationConfig())
        )
        expected = _d(ToProto.task_push_notification_config(compat_config))
        assert rest.response_from_v1(rpc, core) == expected
    listed = pb03.ListTaskPushNotificationConfigResponse(
        configs=[TASK_PUSH], next_page_token="n"
    )
    answer = rest.response_to_v1("ListTaskPushNotificationConfigs", _d(listed))
    assert answer == {"configs": [core], "nextPageToken": "n"}
    assert rest.response_from_v1("ListTaskPushNotificationConfigs", answer) == {
        "configs": [expected],  # 1.0 keeps the first scheme
        "nextPageToken": "n",
    }
    assert rest.response_from_v1("DeleteTaskPushNotificationConfig", None) == {}
    assert rest.response_to_v1("DeleteTaskPushNotificationConfig", {}) == {}


def test_requests_as_a2a_sdk_reads_them(routes03: ModuleType) -> None:
    def _transcoded(verb: str, path: str, query: str = "", body: Any = None) -> Any:
        route, request = routes03.transcode(verb, path, query, body)
        return route.rpc, request

    send = pb03.SendMessageRequest(
        request=MESSAGE,
        configuration=pb03.SendMessageConfiguration(
            accepted_output_modes=["text/plain"],
            push_notification=PUSH,
            history_length=3,
            blocking=True,
        ),
        metadata={"r": 1},
    )
    for body in (_d(send), MessageToDict(send, preserving_proto_field_name=True)):
        for path, rpc10 in (
            ("/v1/message:send", "SendMessage"),
            ("/v1/message:stream", "SendStreamingMessage"),
        ):
            rpc, request = _transcoded("POST", path, body=body)
            params = FromProto.message_send_params(send)
            expected = compat.to_core_send_message_request(
                t03.SendMessageRequest(id=0, params=params)
            )
            assert rest.request_to_v1(rpc, request) == (rpc10, _d(expected))
    # A configuration without blocking is non-blocking (proto3's false), as a2a-sdk reads it.
    _, request = _transcoded("POST", "/v1/message:send", body={"configuration": {}})
    assert rest.request_to_v1("SendMessage", request)[1] == {
        "configuration": {"returnImmediately": True}
    }
    rpc, request = _transcoded("GET", "/v1/tasks/t1", "historyLength=2")
    expected = compat.to_core_get_task_request(
        t03.GetTaskRequest(id=0, params=t03.TaskQueryParams(id="t1", history_length=2))
    )
    assert rest.request_to_v1(rpc, request) == ("GetTask", _d(expected))
    rpc, request = _transcoded("GET", "/v1/tasks/t1", "historyLength=0")
    assert rest.request_to_v1(rpc, request) == ("GetTask", {"id": "t1"})
    for zero in (0, "0"):  # ProtoJSON writes an int32 as a number or a string
        body = {
            "message": {},
            "configuration": {"historyLength": zero, "blocking": True},
        }
        assert rest.request_to_v1("SendMessage", body)[1]["configuration"] == {}
        listed = {"parent": "tasks/t", "pageSize": zero}
        assert rest.request_to_v1("ListTaskPushNotificationConfig", listed)[1] == {
            "taskId": "t"
        }
    for verb, path, rpc10 in (
        ("POST", "/v1/tasks/t1:cancel", "CancelTask"),
        ("GET", "/v1/tasks/t1:subscribe", "SubscribeToTask"),
    ):
        rpc, request = _transcoded(verb, path, body={} if verb == "POST" else None)
        assert rest.request_to_v1(rpc, request) == (rpc10, {"id": "t1"})
    create = pb03.CreateTaskPushNotificationConfigRequest(
        parent="tasks/t1", config_id="p1", config=TASK_PUSH
    )
    rpc, request = _transcoded(
        "POST", "/v1/tasks/t1/pushNotificationConfigs", body=_d(create)["config"]
    )
    params = FromProto.task_push_notification_config_request(create)
    expected = compat.to_core_create_task_push_notification_config_request(
        t03.SetTaskPushNotificationConfigRequest(id=0, params=params)
    )
    assert rest.request_to_v1(rpc, request) == (
        "CreateTaskPushNotificationConfig",
        _d(expected),
    )
    # a2a-sdk's 0.3 clients send the whole request as the body
    whole = MessageToDict(create, preserving_proto_field_name=True)
    rpc, request = _transcoded(
        "POST", "/v1/tasks/t1/pushNotificationConfigs", body=whole
    )
    assert rest.request_to_v1(rpc, request) == (
        "CreateTaskPushNotificationConfig",
        _d(expected),
    )
    bare = {"parent": "tasks/t1", "config": {"configId": "p9", "config": {}}}
    assert rest.request_to_v1("CreateTaskPushNotificationConfig", bare) == (
        "CreateTaskPushNotificationConfig",
        {"taskId": "t1", "id": "p9"},
    )
    for verb, rpc10 in (
        ("GET", "GetTaskPushNotificationConfig"),
        ("DELETE", "DeleteTaskPushNotificationConfig"),
    ):
        rpc, request = _transcoded(verb, "/v1/tasks/t1/pushNotificationConfigs/p1")
        assert rest.request_to_v1(rpc, request) == (rpc10, {"taskId": "t1", "id": "p1"})
    rpc, request = _transcoded("GET", "/v1/tasks/t1/pushNotificationConfigs")
    expected = compat.to_core_list_task_push_notification_config_request(
        t03.ListTaskPushNotificationConfigRequest(
            id=0, params=t03.ListTaskPushNotificationConfigParams(id="t1")
        )
    )
    assert rest.request_to_v1(rpc, request) == (
        "ListTaskPushNotificationConfigs",
        _d(expected),
    )
    rpc, request = _transcoded("GET", "/v1/card")
    assert rest.request_to_v1(rpc, request) == ("GetExtendedAgentCard", {})


V1_REQUESTS: list[tuple[str, dict[str, Any]]] = [
    (
        "SendMessage",
        {
            "message": {
                "messageId": "m1",
                "role": "ROLE_USER",
                "parts": [{"text": "hi"}],
                "referenceTaskIds": ["t0"],
            },
            "configuration": {
                "acceptedOutputModes": ["text/plain"],
                "historyLength": 2,
                "taskPushNotificationConfig": {
                    "url": "https://hook.test/",
                    "authentication": {"scheme": "Bearer"},
                },
            },
            "metadata": {"k": "v"},
        },
    ),
    ("SendStreamingMessage", {"message": {"messageId": "m", "parts": []}}),
    ("GetTask", {"id": "t1", "historyLength": 4}),
    ("CancelTask", {"id": "t1"}),
    ("SubscribeToTask", {"id": "t1"}),
    (
        "CreateTaskPushNotificationConfig",
        {"taskId": "t1", "id": "p1", "url": "https://hook.test/", "token": "x"},
    ),
    ("GetTaskPushNotificationConfig", {"taskId": "t1", "id": "p1"}),
    ("ListTaskPushNotificationConfigs", {"taskId": "t1", "pageSize": 5}),
    ("DeleteTaskPushNotificationConfig", {"taskId": "t1", "id": "p1"}),
    ("GetExtendedAgentCard", {}),
]


def test_ids_in_resource_names_are_decoded_once(routes03: ModuleType) -> None:
    """A request's path values as sent (``RouteTable.raw_params``) hold each id
    percent-encoded, decoded here once; a name in a body is not encoded at all."""
    for path, task_id in (
        ("/v1/tasks/a%2Fb", "a/b"),
        ("/v1/tasks/a%252Fb", "a%2Fb"),
        ("/v1/tasks/100%25", "100%"),
    ):
        found = routes03.match("GET", path)
        request = {**routes03.TABLE.request(found), **routes03.TABLE.raw_params(found)}
        assert rest.request_to_v1(found.route.rpc, request) == (
            "GetTask",
            {"id": task_id},
        )
    named = {
        "name": "tasks/a%2Fb/pushNotificationConfigs/p%25",
        "pushNotificationConfig": {"url": "https://h"},
    }
    assert rest.response_to_v1("GetTaskPushNotificationConfig", named) == {
        "taskId": "a%2Fb",
        "id": "p%25",
        "url": "https://h",
    }


@pytest.mark.parametrize(("rpc", "request_"), V1_REQUESTS)
def test_client_requests_round_trip_through_the_0_3_routes(
    rpc: str, request_: dict[str, Any], routes03: ModuleType
) -> None:
    v0_3_rpc, converted = rest.request_from_v1(rpc, request_)
    built = routes03.build(v0_3_rpc, converted)  # type: ignore[call-overload]
    query = "&".join(f"{k}={v}" for k, v in built.query)
    route, transcoded = routes03.transcode(built.verb, built.path, query, built.body)
    assert route.rpc == v0_3_rpc
    again_rpc, again = rest.request_to_v1(v0_3_rpc, transcoded)
    assert again_rpc == rpc
    expected = {k: v for k, v in request_.items()}
    if rpc.startswith("Send"):  # 0.3 REST says blocking: always a configuration
        expected.setdefault("configuration", {})
    if rpc == "SendMessage":
        expected["message"] = {
            k: v for k, v in request_["message"].items() if k != "referenceTaskIds"
        }
    assert again == expected


def test_client_send_request_as_a2a_sdk_writes_it() -> None:
    _, request = V1_REQUESTS[0]
    compat_request = compat.to_compat_send_message_request(
        ParseDict(request, pb10.SendMessageRequest()), request_id=0
    )
    expected = pb03.SendMessageRequest(
        request=ToProto.message(compat_request.params.message),
        configuration=ToProto.message_send_configuration(
            compat_request.params.configuration
        ),
        metadata=ToProto.metadata(compat_request.params.metadata),
    )
    assert rest.request_from_v1("SendMessage", request) == ("SendMessage", _d(expected))


def test_list_tasks_has_no_0_3_operation() -> None:
    with pytest.raises(ValueError, match="ListTasks: A2A 0.3 has no such operation"):
        rest.request_from_v1("ListTasks", {})


@pytest.mark.parametrize(
    "message",
    [
        {"messageId": "a", "message_id": "b", "content": [{"text": "x"}]},
        {"message_id": "b", "messageId": "a", "content": [{"text": "x"}]},
    ],
)
def test_a_field_under_both_names_is_read_under_its_json_name(
    message: dict[str, Any],
) -> None:
    """As the JSON-RPC side reads it: the json name wins, whichever comes first."""
    rpc, request = rest.request_to_v1("SendMessage", {"message": message})
    assert rpc == "SendMessage" and request["message"]["messageId"] == "a"


@pytest.mark.parametrize(
    ("rpc", "request_", "field"),
    [
        ("GetTask", {"name": "task/x"}, "name"),
        ("GetTask", {}, "name"),
        ("GetTaskPushNotificationConfig", {"name": "tasks/x"}, "name"),
        ("CreateTaskPushNotificationConfig", {"parent": 3}, "parent"),
        ("SendMessage", {"message": {"content": [{}]}}, "message.content[0]"),
        ("SendMessage", {"message": {"content": {}}}, "message.content"),
        ("SendMessage", {"message": {"role": "user"}}, "message.role"),
        ("SendMessage", {"message": {"role": 7}}, "message.role"),
        (
            "SendMessage",
            {"message": {"content": [{"file": {"fileWithBytes": "*"}}]}},
            "message.content[0].file.fileWithBytes",
        ),
        (
            "SendMessage",
            {"message": {"content": [{"file": {}}]}},
            "message.content[0].file",
        ),
        (
            "SendMessage",
            {"message": {"content": [{"text": 1}]}},
            "message.content[0].text",
        ),
        (
            "SendMessage",
            {"message": {"content": [{"data": {"data": 5}}]}},
            "message.content[0].data.data",
        ),
        (
            "SendMessage",
            {"configuration": {"blocking": "yes"}},
            "configuration.blocking",
        ),
        ("SendMessage", {"request": []}, "message"),
        (
            "CreateTaskPushNotificationConfig",
            {
                "parent": "tasks/t",
                "config": {
                    "pushNotificationConfig": {"authentication": {"schemes": "x"}}
                },
            },
            "config.pushNotificationConfig.authentication.schemes",
        ),
    ],
)
def test_malformed_requests_are_refused_by_field(
    rpc: str, request_: dict[str, Any], field: str
) -> None:
    with pytest.raises(ShapeError) as caught:
        rest.request_to_v1(rpc, request_)
    assert caught.value.field == field


def test_malformed_answers_are_refused_by_field() -> None:
    with pytest.raises(ShapeError) as caught:
        rest.response_to_v1("SendStreamingMessage", {"task": {}, "msg": {}})
    assert caught.value.field == "event"
    with pytest.raises(ShapeError) as caught:
        rest.response_to_v1("GetTask", {"status": {"state": "working"}})
    assert caught.value.field == "response.status.state"
    with pytest.raises(ShapeError) as caught:
        rest.response_to_v1(
            "ListTaskPushNotificationConfigs", {"configs": [{"name": "x"}]}
        )
    assert caught.value.field == "configs[0].name"
    with pytest.raises(ShapeError):
        rest.response_from_v1("SendStreamingMessage", {})


# The card: a2a-sdk serves the 0.3 JSON-RPC form of it on every 0.3 binding.

CARD_03: dict[str, Any] = {
    "name": "agent",
    "description": "d",
    "url": "http://x.test/rpc",
    "preferredTransport": "JSONRPC",
    "protocolVersion": "0.3.0",
    "additionalInterfaces": [{"url": "http://x.test/rest", "transport": "HTTP+JSON"}],
    "version": "1.2",
    "provider": {"organization": "o", "url": "http://o.test"},
    "documentationUrl": "http://doc.test",
    "iconUrl": "http://icon.test",
    "capabilities": {
        "streaming": True,
        "pushNotifications": False,
        "extensions": [{"uri": "urn:x", "required": True, "params": {"a": 1}}],
    },
    "supportsAuthenticatedExtendedCard": True,
    "securitySchemes": {
        "key": {"type": "apiKey", "in": "header", "name": "X-Key", "description": "k"},
        "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
        "oauth": {
            "type": "oauth2",
            "flows": {
                "clientCredentials": {
                    "tokenUrl": "http://t.test",
                    "scopes": {"read": "r"},
                }
            },
            "oauth2MetadataUrl": "http://m.test",
        },
        "oidc": {"type": "openIdConnect", "openIdConnectUrl": "http://oidc.test"},
        "mtls": {"type": "mutualTLS"},
    },
    "security": [{"key": []}, {"oauth": ["read"]}],
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["application/json"],
    "skills": [
        {
            "id": "s",
            "name": "S",
            "description": "sd",
            "tags": ["t"],
            "examples": ["e"],
            "inputModes": ["text/plain"],
            "security": [{"bearer": []}],
        }
    ],
    "signatures": [{"protected": "p", "signature": "s", "header": {"kid": "1"}}],
}


def test_the_card_as_a2a_sdk_converts_it() -> None:
    model = t03.AgentCard.model_validate(CARD_03)
    core = _d(compat.to_core_agent_card(model))
    assert card.card_to_v1(CARD_03) == core
    back = compat.to_compat_agent_card(ParseDict(core, pb10.AgentCard()))
    expected = back.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert card.card_from_v1(core) == expected
    assert rest.response_from_v1("GetExtendedAgentCard", core) == expected
    assert rest.response_to_v1("GetExtendedAgentCard", expected) == core


def test_the_card_picks_the_0_3_interfaces() -> None:
    core = {
        "name": "a",
        "supportedInterfaces": [
            {
                "url": "http://x/v1",
                "protocolBinding": "JSONRPC",
                "protocolVersion": "1.0",
            },
            {
                "url": "http://x/",
                "protocolBinding": "HTTP+JSON",
                "protocolVersion": "0.3",
            },
        ],
    }
    out = card.card_from_v1(core)
    assert (out["url"], out["preferredTransport"]) == ("http://x/", "HTTP+JSON")
    assert "additionalInterfaces" not in out
    # Listing 1.0 interfaces only, the card's JSON-RPC one is the 0.3 one (the app
    # serves 0.3 there too); listing nothing 0.3 can call, it has no 0.3 form.
    derived = card.card_from_v1(
        {"supportedInterfaces": core["supportedInterfaces"][:1]}
    )
    assert derived is not None
    assert (derived["url"], derived["protocolVersion"]) == ("http://x/v1", "0.3.0")
    grpc = {"url": "x:1", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
    assert card.card_from_v1({"supportedInterfaces": [grpc]}) is None
    assert rest.response_from_v1(
        "GetExtendedAgentCard", {"name": "g", "supportedInterfaces": [grpc]}
    ) == {"name": "g", "supportedInterfaces": [grpc]}


def test_the_card_in_the_0_3_protos_form_is_read_too() -> None:
    proto_card = pb03.AgentCard(name="a", url="http://x/")
    proto_card.security_schemes["k"].api_key_security_scheme.name = "X"
    proto_card.security.add().schemes["k"].list.append("s")
    core = card.card_to_v1(_d(proto_card))
    assert core["securitySchemes"] == {"k": {"apiKeySecurityScheme": {"name": "X"}}}
    assert core["securityRequirements"] == [{"schemes": {"k": {"list": ["s"]}}}]


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"securitySchemes": {"k": {"type": "magic"}}}, "card.securitySchemes.k.type"),
        ({"securitySchemes": {"k": {"type": ["x"]}}}, "card.securitySchemes.k.type"),
        (
            {"securitySchemes": {"k": {"type": "oauth2", "flows": {"implicit": 1}}}},
            "card.securitySchemes.k.flows.implicit",
        ),
        ({"securitySchemes": {"k": []}}, "card.securitySchemes.k"),
        ({"security": [{"k": "x"}]}, "card.security[0].k"),
        ({"skills": {}}, "card.skills"),
        ({"additionalInterfaces": [1]}, "card.additionalInterfaces[0]"),
        ({"capabilities": []}, "card.capabilities"),
    ],
)
def test_a_malformed_card_is_refused_by_field(
    value: dict[str, Any], field: str
) -> None:
    with pytest.raises(ShapeError) as caught:
        card.card_to_v1({"name": "a", **value})
    assert caught.value.field == field


def test_error_bodies_are_the_same_status_on_both_versions() -> None:
    # a2a-sdk 1.3.0's 0.3 REST adapter renders errors with its 1.0 rest_error_handler:
    # the google.rpc.Status we write (it adds an empty ErrorInfo metadata), read back
    # by us as the same error; so response_from_v1 has no error to convert.
    from a2a.utils import errors
    from a2a.utils.error_handlers import build_rest_error_payload

    from codegen.runtime._errors import A2A_ERRORS, A2AError

    for name in A2A_ERRORS:
        theirs = build_rest_error_payload(getattr(errors, name)("boom"))
        status, ours = A2AError(name, "boom").to_http()
        for detail in theirs["error"]["details"]:
            assert detail.pop("metadata") == {}
        assert (theirs, theirs["error"]["code"]) == (ours, status)
        read = A2AError.from_status(
            build_rest_error_payload(getattr(errors, name)("x"))
        )
        assert read is not None and (read.kind.name, read.message) == (name, "x")


_KEYS = st.sampled_from(
    [
        "message",
        "request",
        "msg",
        "content",
        "parts",
        "text",
        "file",
        "data",
        "fileWithBytes",
        "fileWithUri",
        "file_with_uri",
        "mimeType",
        "role",
        "state",
        "status",
        "update",
        "task",
        "statusUpdate",
        "artifactUpdate",
        "artifact",
        "artifacts",
        "history",
        "name",
        "parent",
        "config",
        "configId",
        "pushNotificationConfig",
        "authentication",
        "schemes",
        "configuration",
        "blocking",
        "pushNotification",
        "historyLength",
        "configs",
        "metadata",
        "securitySchemes",
        "security",
        "type",
        "flows",
        "skills",
        "capabilities",
        "additionalInterfaces",
        "kind",
        "implicit",
        "id",
        "taskId",
    ]
)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 9)
    | st.sampled_from(
        [
            "",
            "x",
            "tasks/t",
            "tasks/t/pushNotificationConfigs/p",
            "ROLE_USER",
            "TASK_STATE_CANCELLED",
            "aGk=",
            "apiKey",
            "oauth2",
            "task",
            "message",
            "status-update",
        ]
    ),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(value=_JSON, which=st.integers(0, 40))
def test_any_0_3_input_converts_or_is_a_shape_error(value: Any, which: int) -> None:
    rest_rpcs = sorted(rest.V0_3_REST_RPCS)
    answers = sorted(rest.V0_3_REST_RPCS.values())
    calls = (
        [lambda v, r=r: rest.request_to_v1(r, v) for r in rest_rpcs]
        + [lambda v, r=r: rest.response_to_v1(r, v) for r in answers]
        + [lambda v, r=r: rpc_module.result_to_v1(r, v) for r in answers]
        + [card.card_to_v1]
    )
    try:
        calls[which % len(calls)](value)
    except ShapeError:
        pass

"""The OpenAPI 3.1 document of the HTTP+JSON binding (codegen/openapi.py, issue 16).

1. It is a valid OpenAPI 3.1 document (openapi-spec-validator) for the embedded A2A
   default, every feature proto and every upstream spec tag, and its bytes are stable.
2. It says what the model says: every route is an operation, parameters and bodies have
   the ProtoJSON types the codecs read, comments and deprecation are carried over.
3. Its schemas tell the truth about ProtoJSON: what a2a-sdk's protobuf runtime prints
   validates, what the schemas allow a2a-sdk parses, and broken values do not validate.
4. It tells the truth about a server: schemathesis drives the example server on
   loopback from the document (no 5xx, every response conforms), and a known-good
   request per operation succeeds and conforms.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from a2a.types import a2a_pb2 as pb
from google.protobuf import json_format, struct_pb2, timestamp_pb2
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from codegen.inputs import request_from_module
from codegen.model import BindingFile, Field, Method, build_files
from codegen.openapi import openapi_document
from codegen.options import Options

from .conftest import PROTO, SPEC_TAGS, compile_request, spec_proto
from .servers import running

FEATURES = sorted((PROTO / "features").glob("*.proto"))
HEADERS = {"A2A-Version": "1.0"}
REST = "/rest"
EXAMPLES_PER_OPERATION = 25


def _files(request: Any, parameter: str = "") -> tuple[BindingFile, ...]:
    return build_files(request, Options.parse(parameter)).files


@pytest.fixture(scope="module")
def a2a_file() -> BindingFile:
    """The model of the embedded A2A default (what generated/ is made from)."""
    (binding_file,) = _files(request_from_module())
    return binding_file


@pytest.fixture(scope="module")
def a2a_doc(a2a_file: BindingFile) -> dict[str, Any]:
    return json.loads(openapi_document(a2a_file))


def _operations(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in doc["paths"].items():
        for verb, operation in item.items():
            yield path, verb, operation


def _parameter(operation: dict[str, Any], name: str, where: str) -> dict[str, Any]:
    found = [
        p
        for p in operation.get("parameters", [])
        if p.get("name") == name and p["in"] == where
    ]
    assert (
        len(found) == 1
    ), f"{operation['operationId']}: {where} parameter {name!r}: {found}"
    return found[0]


def _validator(doc: dict[str, Any], name: str) -> Draft202012Validator:
    """A JSON Schema 2020-12 validator (formats checked) for one component schema."""
    resource = Resource.from_contents(doc, default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource("urn:openapi", resource)
    schema = {"$ref": f"urn:openapi#/components/schemas/{name}"}
    return Draft202012Validator(
        schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )


# 1. Valid and deterministic.


def test_a2a_default_is_valid_openapi_31(a2a_doc: dict[str, Any]) -> None:
    validate(a2a_doc)
    assert a2a_doc["openapi"] == "3.1.0"


@pytest.mark.parametrize("proto", FEATURES, ids=lambda p: p.name)
def test_feature_protos_are_valid_openapi(proto: Path) -> None:
    parameter = "tenant_field=tenant" if proto.name == "tenancy.proto" else ""
    files = _files(compile_request(proto, parameter), parameter)
    assert files, proto
    for binding_file in files:
        validate(json.loads(openapi_document(binding_file)))


@pytest.mark.parametrize("tag", SPEC_TAGS)
def test_upstream_spec_tags_are_valid_openapi(tag: str) -> None:
    proto = spec_proto(tag)
    (binding_file,) = _files(compile_request(proto))
    doc = json.loads(openapi_document(binding_file))
    validate(doc)
    # The upstream protos carry comments: they become descriptions.
    assert any("description" in op for _, _, op in _operations(doc)), tag


def test_bytes_are_deterministic(a2a_file: BindingFile) -> None:
    first = openapi_document(a2a_file)
    (again,) = _files(request_from_module())
    assert openapi_document(again) == first
    assert first.endswith("}\n") and not first.endswith("\n\n")
    assert first == json.dumps(json.loads(first), indent=2, ensure_ascii=False) + "\n"
    doc = json.loads(first)
    assert list(doc["paths"]) == sorted(doc["paths"])
    assert list(doc["components"]["schemas"]) == sorted(doc["components"]["schemas"])


# 2. The document says what the model says.


def test_every_route_is_one_operation_with_a_unique_id(
    a2a_file: BindingFile, a2a_doc: dict[str, Any]
) -> None:
    ops = {(verb.upper(), path): op for path, verb, op in _operations(a2a_doc)}
    assert len(ops) == len(a2a_file.routes) == 24
    ids = [op["operationId"] for op in ops.values()]
    assert len(set(ids)) == len(ids)
    assert ops[("POST", "/tasks/{id}:cancel")]["operationId"] == "CancelTask"
    assert (
        ops[("POST", "/{tenant}/tasks/{id}:cancel")]["operationId"]
        == "CancelTask_tenant"
    )
    # The POST alias of the proto's GET :subscribe rule (decision D1), and its tenant form.
    assert (
        ops[("POST", "/tasks/{id}:subscribe")]["operationId"] == "SubscribeToTask_post"
    )
    assert ops[("GET", "/tasks/{id}:subscribe")]["operationId"] == "SubscribeToTask"
    assert ("POST", "/{tenant}/tasks/{id}:subscribe") in ops
    for (verb, path), op in ops.items():
        names = {p["name"] for p in op["parameters"] if "name" in p}
        for name in names & {"tenant", "id", "taskId"}:
            if "{" + name + "}" in path:
                assert _parameter(op, name, "path")["required"] is True
        refs = [p["$ref"] for p in op["parameters"] if "$ref" in p]
        assert refs == [
            "#/components/parameters/A2AVersion",
            "#/components/parameters/A2AExtensions",
        ]
        assert set(op["responses"]) == {"200", "400", "401", "403", "404", "405", "500"}
    headers = a2a_doc["components"]["parameters"]
    assert (headers["A2AVersion"]["name"], headers["A2AVersion"]["in"]) == (
        "A2A-Version",
        "header",
    )
    assert headers["A2AExtensions"]["name"] == "A2A-Extensions"


def test_a2a_bodies_responses_and_content_types(a2a_doc: dict[str, Any]) -> None:
    paths = a2a_doc["paths"]
    send = paths["/message:send"]["post"]
    assert list(send["requestBody"]["content"]) == [
        "application/a2a+json",
        "application/json",
    ]
    assert send["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/lf.a2a.v1.SendMessageRequest"
    }
    # body "*" on a tenant route: the request without the field the path sets.
    tenant_send = paths["/{tenant}/message:send"]["post"]["requestBody"]["content"]
    properties = tenant_send["application/a2a+json"]["schema"]["properties"]
    assert "tenant" not in properties and {"message", "configuration"} <= set(
        properties
    )
    # GET carries no body; its other fields are query parameters.
    get_task = paths["/tasks/{id}"]["get"]
    assert "requestBody" not in get_task
    assert _parameter(get_task, "historyLength", "query")["schema"]["format"] == "int32"
    assert get_task["responses"]["200"]["content"]["application/a2a+json"][
        "schema"
    ] == {"$ref": "#/components/schemas/lf.a2a.v1.Task"}
    # Server streaming: each event's data is a StreamResponse.
    stream = paths["/message:stream"]["post"]["responses"]["200"]["content"]
    assert list(stream) == ["text/event-stream"]
    data = stream["text/event-stream"]["schema"]["properties"]["data"]
    assert data["contentMediaType"] == "application/json"
    assert data["contentSchema"] == {
        "$ref": "#/components/schemas/lf.a2a.v1.StreamResponse"
    }
    # Errors: google.rpc.Status under "error", with the A2A reasons named per status.
    responses = a2a_doc["components"]["responses"]
    assert "TASK_NOT_FOUND" in responses["NotFound"]["description"]
    assert "INVALID_AGENT_RESPONSE" in responses["InternalError"]["description"]
    assert "VERSION_NOT_SUPPORTED" in responses["BadRequest"]["description"]
    assert "Allow" in responses["MethodNotAllowed"]["headers"]


def test_list_tasks_query_types(a2a_doc: dict[str, Any]) -> None:
    list_tasks = a2a_doc["paths"]["/tasks"]["get"]
    status = _parameter(list_tasks, "status", "query")
    assert status["schema"] == {"$ref": "#/components/schemas/lf.a2a.v1.TaskState"}
    assert (
        "TASK_STATE_WORKING"
        in a2a_doc["components"]["schemas"]["lf.a2a.v1.TaskState"]["enum"]
    )
    after = _parameter(list_tasks, "statusTimestampAfter", "query")["schema"]
    assert (after["type"], after["format"]) == ("string", "date-time")
    assert (
        _parameter(list_tasks, "includeArtifacts", "query")["schema"]["type"]
        == "boolean"
    )
    # On the tenant variant the tenant is in the path, never also in the query.
    tenant_list = a2a_doc["paths"]["/{tenant}/tasks"]["get"]
    assert [
        p["in"] for p in tenant_list["parameters"] if p.get("name") == "tenant"
    ] == ["path"]


def _scalars_get() -> tuple[dict[str, Any], dict[str, Any]]:
    (binding_file,) = _files(compile_request(PROTO / "features" / "scalars.proto"))
    doc = json.loads(openapi_document(binding_file))
    return doc, doc["paths"]["/scalars/{id}"]["get"]


def test_query_parameters_follow_the_codecs() -> None:
    doc, op = _scalars_get()
    schema = {p["name"]: p["schema"] for p in op["parameters"] if p["in"] == "query"}
    assert schema["i64"] == {
        "type": "string",
        "format": "int64",
        "pattern": "^-?[0-9]+$",
    }
    assert schema["u64"]["pattern"] == "^[0-9]+$"
    assert (
        schema["i32"]["minimum"] == -(2**31) and schema["u32"]["maximum"] == 2**32 - 1
    )
    assert schema["blob"]["format"] == "byte"
    assert schema["flag"]["type"] == "boolean"
    assert schema["at"]["format"] == "date-time"
    assert schema["wait"]["pattern"] == "^-?[0-9]+(\\.[0-9]{1,9})?s$"
    assert schema["mask"]["type"] == "string"
    assert schema["colour"] == {
        "$ref": "#/components/schemas/example.scalars.v1.Colour"
    }
    assert doc["components"]["schemas"]["example.scalars.v1.Colour"]["enum"] == [
        "COLOUR_UNSPECIFIED",
        "COLOUR_RED",
        "COLOUR_GREEN",
        "COLOUR_BLUE",
    ]
    assert {"NaN", "Infinity", "-Infinity"} <= set(schema["dbl"]["anyOf"][1]["enum"])
    # Wrappers are read as their scalar in a query.
    assert schema["boxedI64"]["pattern"] == "^-?[0-9]+$"
    many = _parameter(op, "manyI64", "query")
    assert (many["style"], many["explode"]) == ("form", True)
    assert (
        many["schema"]["type"] == "array"
        and many["schema"]["items"]["format"] == "int64"
    )
    # Nested singular messages are dotted names; maps and Struct have no query form.
    assert "window.pageSize" in schema and "window.inner" not in schema
    assert "labels" not in schema and "extra" not in schema
    assert "id" not in schema  # bound by the path
    assert "oneof choice" in _parameter(op, "choiceText", "query")["description"]


def test_message_schemas_follow_protojson() -> None:
    doc, _ = _scalars_get()
    schemas = doc["components"]["schemas"]
    fields = schemas["example.scalars.v1.Scalars"]["properties"]
    assert fields["labels"] == {
        "type": "object",
        "additionalProperties": {"type": "string"},
    }
    assert fields["manyI64"]["items"]["type"] == "string"
    assert schemas["google.protobuf.Int64Value"]["type"] == ["string", "null"]
    assert schemas["google.protobuf.BoolValue"]["type"] == ["boolean", "null"]
    assert schemas["google.protobuf.Struct"]["type"] == "object"
    assert schemas["google.protobuf.Timestamp"]["format"] == "date-time"
    validator = _validator(doc, "example.scalars.v1.Scalars")
    good = {
        "i64": "-9223372036854775808",
        "dbl": "NaN",
        "boxedI64": None,
        "at": "2025-11-09T10:30:00Z",
        "wait": "1.5s",
        "colours": ["COLOUR_RED"],
        "labels": {"a": "b"},
        "extra": {"any": [1, {"x": None}]},
        "choiceText": "x",
    }
    assert not list(validator.iter_errors(good))
    for bad in (
        {"i64": 1.5},
        {"colour": 1},  # printed by name
        {"choiceText": "x", "choiceNumber": 1},  # two members of one oneof
        {"unknownName": 1},
        {"at": "yesterday"},
        {"wait": "5m"},
    ):
        assert list(validator.iter_errors(bad)), bad


def test_paths_of_library_templates() -> None:
    (binding_file,) = _files(compile_request(PROTO / "features" / "library.proto"))
    doc = json.loads(openapi_document(binding_file))
    paths = doc["paths"]
    # Multi-segment and ** variables: one parameter each, the rule in its description.
    get_book = paths["/v1/{name}"]["get"]
    name = _parameter(get_book, "name", "path")
    assert name["x-path-pattern"] == "shelves/*/books/*"
    assert "shelves/*/books/*" in name["description"] and "%2F" in name["description"]
    assert get_book["description"] == "Gets one book."
    read = paths["/v1/files/{path}"]
    assert _parameter(read["get"], "path", "path")["x-path-pattern"] == "**"
    assert set(read) == {"get", "head"}  # the custom HEAD rule
    # response_body: the field, not the message.
    content = read["get"]["responses"]["200"]["content"]["application/json"]
    assert content["schema"]["format"] == "byte"
    # Custom verb kept in the path; a field body is that field's message.
    assert "post" in paths["/v1/{name}:move"]
    create = paths["/v1/{parent}/books"]["post"]
    assert create["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/example.library.v1.Book"
    }
    assert {p["name"] for p in create["parameters"]} == {"parent", "requestId"}
    # Nested path field (book.name) on PATCH, and its PUT additional binding.
    update = paths["/v1/{book.name}"]
    assert update["patch"]["operationId"] == "UpdateBook"
    assert update["put"]["operationId"] == "UpdateBook_2"
    typed = paths["/v1/shelfNumbers/{number}/genres/{genre}"]["get"]
    assert _parameter(typed, "number", "path")["schema"]["pattern"] == "^-?[0-9]+$"
    assert _parameter(typed, "genre", "path")["schema"]["$ref"].endswith(".Genre")
    assert "/" in paths and "/admin/ping" in paths


HOSTILE = """syntax = "proto3";
package hostile.v1;
import "google/api/annotations.proto";

// Says "quotes", \\backslashes\\, </script>, ${x} and {{ y }}: kept as text.
//   Indented line.
message Thing {
  // The name; "escape" me.
  string name = 1;
  int32 old = 2 [deprecated = true];
}

service Things {
  // Reads a thing.
  rpc Get(Thing) returns (Thing) {
    option deprecated = true;
    option (google.api.http) = { get: "/things/{name}" };
  }
  rpc Watch(Thing) returns (stream Thing) {
    option (google.api.http) = { get: "/things/{name}:watch" };
  }
}
"""


def _hostile(tmp_path: Path) -> dict[str, Any]:
    proto = tmp_path / "hostile.proto"
    proto.write_text(HOSTILE)
    (binding_file,) = _files(compile_request(proto))
    text = openapi_document(binding_file)
    doc = json.loads(text)
    validate(doc)
    return doc


def test_comments_become_descriptions_as_text(tmp_path: Path) -> None:
    doc = _hostile(tmp_path)
    thing = doc["components"]["schemas"]["hostile.v1.Thing"]
    assert thing["description"] == (
        'Says "quotes", \\backslashes\\, </script>, ${x} and {{ y }}: kept as text.\n'
        "  Indented line."
    )
    assert thing["properties"]["name"]["description"] == 'The name; "escape" me.'
    get = doc["paths"]["/things/{name}"]["get"]
    assert get["description"] == "Reads a thing."
    assert _parameter(get, "name", "path")["description"] == 'The name; "escape" me.'
    # Not A2A: plain JSON, no A2A headers.
    assert "parameters" not in doc["components"]
    watch = doc["paths"]["/things/{name}:watch"]["get"]["responses"]["200"]["content"]
    assert list(watch) == ["text/event-stream"]


def _has_deprecated_flag(cls: type) -> bool:
    return "deprecated" in {f.name for f in dataclasses.fields(cls)}


@pytest.mark.skipif(
    not (_has_deprecated_flag(Field) and _has_deprecated_flag(Method)),
    reason="the model does not carry the proto's deprecated option yet "
    "(Field.deprecated and Method.deprecated)",
)
def test_deprecated_is_carried_over(tmp_path: Path) -> None:
    doc = _hostile(tmp_path)
    get = doc["paths"]["/things/{name}"]["get"]
    assert get["deprecated"] is True
    assert "deprecated" not in doc["paths"]["/things/{name}:watch"]["get"]
    assert _parameter(get, "old", "query")["deprecated"] is True
    assert doc["components"]["schemas"]["hostile.v1.Thing"]["properties"]["old"][
        "deprecated"
    ]


# 3. The schemas tell the truth about ProtoJSON (a2a-sdk's protobuf runtime).


def _printed_examples() -> list[tuple[str, Any]]:
    data = struct_pb2.Value()
    data.struct_value.update({"k": [1, "two", None, {"n": True}]})
    when = timestamp_pb2.Timestamp(seconds=1_762_684_200, nanos=120_000_000)
    task = pb.Task(
        id="t-1",
        context_id="c-1",
        status=pb.TaskStatus(state=pb.TASK_STATE_WORKING, timestamp=when),
        history=[
            pb.Message(
                message_id="m-1",
                role=pb.ROLE_USER,
                parts=[pb.Part(text="hi"), pb.Part(raw=b"\x00\xff", media_type="x/y")],
            )
        ],
    )
    task.artifacts.add(artifact_id="a", parts=[pb.Part(data=data)])
    task.metadata.update({"trace": "x", "n": 2})
    return [
        ("lf.a2a.v1.Task", task),
        ("lf.a2a.v1.SendMessageResponse", pb.SendMessageResponse(task=task)),
        (
            "lf.a2a.v1.StreamResponse",
            pb.StreamResponse(
                status_update=pb.TaskStatusUpdateEvent(
                    task_id="t-1", context_id="c-1", status=task.status
                )
            ),
        ),
        (
            "lf.a2a.v1.ListTasksResponse",
            pb.ListTasksResponse(tasks=[task], total_size=1),
        ),
    ]


@pytest.mark.parametrize("name,message", _printed_examples(), ids=lambda v: str(v)[:30])
def test_printed_protojson_validates(
    a2a_doc: dict[str, Any], name: str, message: Any
) -> None:
    printed = json_format.MessageToDict(message)
    errors = [e.message for e in _validator(a2a_doc, name).iter_errors(printed)]
    assert not errors, errors


def test_part_oneof_and_unknown_names_are_refused(a2a_doc: dict[str, Any]) -> None:
    validator = _validator(a2a_doc, "lf.a2a.v1.Part")
    assert not list(validator.iter_errors({"text": "a", "mediaType": "text/plain"}))
    assert not list(validator.iter_errors({}))  # ProtoJSON leaves a oneof unset
    assert list(validator.iter_errors({"text": "a", "url": "https://x"}))
    assert list(validator.iter_errors({"txt": "a"}))


def _body_operations(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (path, verb)
        for path, verb, op in _operations(doc)
        if "requestBody" in op and not path.startswith("/{tenant}")
    ]


def test_bodies_the_document_allows_parse_as_protojson(a2a_doc: dict[str, Any]) -> None:
    """Every request body schemathesis draws from the document, a2a-sdk's ParseDict reads
    as the rpc's request message: the document never allows what ProtoJSON refuses."""
    schema = schemathesis.openapi.from_dict(a2a_doc)
    requests = {
        "/message:send": pb.SendMessageRequest,
        "/message:stream": pb.SendMessageRequest,
        "/tasks/{id}:cancel": pb.CancelTaskRequest,
        "/tasks/{taskId}/pushNotificationConfigs": pb.TaskPushNotificationConfig,
    }
    assert {path for path, _ in _body_operations(a2a_doc)} == set(requests)
    for path, verb in _body_operations(a2a_doc):
        operation = schema[path][verb.upper()]
        message_type = requests[path]

        @given(case=operation.as_strategy())
        @_settings()
        def parses(case: Any) -> None:
            if isinstance(case.body, dict):
                json_format.ParseDict(case.body, message_type())

        parses()


# 4. The document tells the truth about a live server.


def _settings() -> Callable[[Any], Any]:
    return settings(
        max_examples=EXAMPLES_PER_OPERATION,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


@pytest.fixture(scope="module")
def example_server(example: Any) -> Iterator[str]:
    """The example server on loopback; yields its HTTP+JSON base URL."""
    with running(example.create_app()) as base:
        yield base + REST


def _served_schema(doc: dict[str, Any], base_url: str) -> Any:
    served = {**doc, "servers": [{"url": base_url}]}
    schema = schemathesis.openapi.from_dict(served)
    schema.config.update(base_url=base_url)
    return schema


# What the document promises about every answer. schemathesis's positive_data_acceptance
# is left out: a schema-valid request may rightly fail on state the document cannot
# know (a task that has ended is not cancelable: 400 by the A2A error table).
CONFORMANCE = [
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def _send(base_url: str, text: str, tenant: str = "") -> dict[str, Any]:
    prefix = f"/{tenant}" if tenant else ""
    body = {
        "message": {
            "messageId": f"m-{text}",
            "role": "ROLE_USER",
            "parts": [{"text": text}],
        }
    }
    answer = httpx.post(f"{base_url}{prefix}/message:send", json=body, headers=HEADERS)
    assert answer.status_code == 200, answer.text
    task: dict[str, Any] = answer.json()["task"]
    return task


def test_schemathesis_finds_no_5xx_and_no_nonconformance(
    a2a_doc: dict[str, Any], example_server: str
) -> None:
    schema = _served_schema(a2a_doc, example_server)
    # Real ids, so that part of the run reaches existing tasks and configs (completed
    # tasks: a stream on a working one stays open until the task ends).
    plain = _send(example_server, "fuzz")["id"]
    tenant = _send(example_server, "fuzz", "t1")["id"]
    for task_id, prefix in ((plain, ""), (tenant, "/t1")):
        created = httpx.post(
            f"{example_server}{prefix}/tasks/{task_id}/pushNotificationConfigs",
            json={"id": "cfg", "url": f"{example_server}/hook"},
            headers=HEADERS,
        )
        assert created.status_code == 200, created.text
    failures: dict[str, str] = {}
    statuses: dict[str, set[int]] = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        label = operation.label
        known = {
            "tenant": "t1",
            "taskId": tenant if "{tenant}" in operation.path else plain,
        }
        known["id"] = (
            "cfg"
            if operation.path.endswith("{id}") and "push" in operation.path
            else known["taskId"]
        )
        names = {p.name for p in operation.path_parameters}
        pinned = {k: v for k, v in known.items() if k in names}
        strategy = operation.as_strategy()
        if pinned:
            strategy = st.one_of(
                strategy, operation.as_strategy(path_parameters=pinned)
            )

        @given(case=strategy)
        @_settings()
        def conforms(case: Any) -> None:
            response = case.call(headers=HEADERS, timeout=10)
            statuses.setdefault(label, set()).add(response.status_code)
            assert (
                response.status_code < 500
            ), f"{label}: {response.status_code} {response.text[:500]}"
            case.validate_response(response, checks=CONFORMANCE)

        try:
            conforms()
        except (
            Exception,
            FailureGroup,
        ) as exc:  # report every operation, not the first

            failures[label] = str(exc)[:3000]
    assert not failures, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())
    assert len(statuses) == 24
    assert all(codes for codes in statuses.values())
    # The run reached real resources, not only 404s.
    assert (
        200 in statuses["GET /tasks/{id}"]
        and 200 in statuses["GET /{tenant}/tasks/{id}"]
    )


def test_known_good_requests_succeed_and_conform(
    a2a_doc: dict[str, Any], example_server: str, example: Any
) -> None:
    schema = _served_schema(a2a_doc, example_server)
    # The extended card needs the example's bearer token (its card declares it).
    token = getattr(example, "DEFAULT_TOKEN", "")
    headers = {**HEADERS, "Authorization": f"Bearer {token}"} if token else HEADERS

    def call(path: str, verb: str, **parts: Any) -> Any:
        if "body" in parts:
            parts["media_type"] = "application/a2a+json"
        case = schema[path][verb].Case(headers=dict(headers), **parts)
        response = case.call(timeout=10)
        assert (
            200 <= response.status_code < 300
        ), f"{verb} {path}: {response.text[:500]}"
        case.validate_response(response, checks=CONFORMANCE)
        return response

    seen: set[str] = set()
    for prefix, tenant in (("", {}), ("/{tenant}", {"tenant": "t1"})):
        message = {
            "messageId": "m-1",
            "role": "ROLE_USER",
            "parts": [{"text": "hello"}],
        }
        body = {"message": message}
        sent = call(f"{prefix}/message:send", "POST", path_parameters=tenant, body=body)
        task = sent.json()["task"]
        held = call(
            f"{prefix}/message:send",
            "POST",
            path_parameters=tenant,
            body={
                "message": {**message, "messageId": "m-2", "parts": [{"text": "hold"}]}
            },
        ).json()["task"]
        events = call(
            f"{prefix}/message:stream", "POST", path_parameters=tenant, body=body
        )
        assert events.headers["content-type"][0].startswith("text/event-stream")
        ids = {**tenant, "id": task["id"]}
        got = call(
            f"{prefix}/tasks/{{id}}",
            "GET",
            path_parameters=ids,
            query={"historyLength": 1},
        )
        assert got.json()["id"] == task["id"]
        listed = call(
            f"{prefix}/tasks", "GET", path_parameters=tenant, query={"pageSize": 10}
        )
        assert task["id"] in {t["id"] for t in listed.json()["tasks"]}
        call(f"{prefix}/extendedAgentCard", "GET", path_parameters=tenant)
        config_ids = {**tenant, "taskId": task["id"]}
        # Loopback: the example server posts task updates to the config's URL.
        config = {"id": "c1", "url": f"{example_server}/hook"}
        configs = f"{prefix}/tasks/{{taskId}}/pushNotificationConfigs"
        call(configs, "POST", path_parameters=config_ids, body=config)
        call(configs, "GET", path_parameters=config_ids)
        call(configs + "/{id}", "GET", path_parameters={**config_ids, "id": "c1"})
        call(configs + "/{id}", "DELETE", path_parameters={**config_ids, "id": "c1"})
        held_ids = {**tenant, "id": held["id"]}
        for verb in ("GET", "POST"):
            _first_event(
                schema, a2a_doc, f"{prefix}/tasks/{{id}}:subscribe", verb, held_ids
            )
        cancelled = call(
            f"{prefix}/tasks/{{id}}:cancel", "POST", path_parameters=held_ids
        )
        assert cancelled.json()["status"]["state"] == "TASK_STATE_CANCELED"
        seen |= {
            f"{verb} {path}"
            for path, verb in (
                (f"{prefix}/message:send", "POST"),
                (f"{prefix}/message:stream", "POST"),
                (f"{prefix}/tasks/{{id}}", "GET"),
                (f"{prefix}/tasks", "GET"),
                (f"{prefix}/extendedAgentCard", "GET"),
                (configs, "POST"),
                (configs, "GET"),
                (configs + "/{id}", "GET"),
                (configs + "/{id}", "DELETE"),
                (f"{prefix}/tasks/{{id}}:subscribe", "GET"),
                (f"{prefix}/tasks/{{id}}:subscribe", "POST"),
                (f"{prefix}/tasks/{{id}}:cancel", "POST"),
            )
        }
    assert seen == {f"{v.upper()} {p}" for p, v, _ in _operations(a2a_doc)}


def _first_event(
    schema: Any, doc: dict[str, Any], path: str, verb: str, params: dict[str, str]
) -> None:
    """Subscribe to a working task and check the first event against the document: the
    stream stays open while the task works, so only its start is read."""
    case = schema[path][verb].Case(path_parameters=params, headers=dict(HEADERS))
    url = case.as_transport_kwargs(base_url=None)["url"]
    with httpx.stream(verb, url, headers=HEADERS, timeout=10) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("data:"):
                event = json.loads(line[len("data:") :])
                errors = [
                    e.message
                    for e in _validator(doc, "lf.a2a.v1.StreamResponse").iter_errors(
                        event
                    )
                ]
                assert not errors, errors
                assert event["task"]["id"] == params["id"]
                return
    raise AssertionError(f"{verb} {path}: the stream ended without an event")

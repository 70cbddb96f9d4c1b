"""An OpenAPI 3.1 document of a binding file's HTTP+JSON routes, from the model alone.

``openapi_document(binding_file)`` gives the JSON text the plugin writes as
``<module>/openapi.json``: every route (tenant variants and generated aliases included) as
an operation, path and query parameters typed the way the query codecs read them, request
and response bodies and every reachable message and enum as JSON Schema 2020-12 under the
ProtoJSON rules, and the ``google.rpc.Status`` error body. Schemas describe what a
ProtoJSON printer writes and stay open enough that what a ProtoJSON parser accepts
validates too: objects allow other properties (the proto field names are accepted as
well as the json names) and nothing is ``required``.

The output is deterministic: the same model gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .http_rule import SegmentKind
from .model import (
    Binding,
    BindingFile,
    Enum,
    Field,
    Message,
    Method,
    PathField,
    QueryParam,
    Service,
)
from .model.naming import WRAPPERS

__all__ = ["OPENAPI_VERSION", "openapi_document", "openapi_object"]

OPENAPI_VERSION = "3.1.0"
"""The OpenAPI version the document declares (JSON Schema 2020-12 dialect)."""

JSON = dict[str, Any]

_A2A_CONTENT_TYPES = ("application/a2a+json", "application/json")
_PLAIN_CONTENT_TYPES = ("application/json",)
_EVENT_STREAM = "text/event-stream"
_NDJSON = "application/x-ndjson"
_OPENAPI_VERBS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

_STATUS = "google.rpc.Status"
_ERROR_INFO = "google.rpc.ErrorInfo"
_BAD_REQUEST = "google.rpc.BadRequest"
_FIELD_VIOLATION = "google.rpc.BadRequest.FieldViolation"
_ERROR_BODY = "google.rpc.ErrorBody"
_TYPE_URL = "type.googleapis.com/"

# The A2A error table (spec §5.4): name, HTTP status, google.rpc.Code name, ErrorInfo
# reason. It names which reasons each error status stands for in the document.
_A2A_ERRORS = (
    ("TaskNotFoundError", 404, "NOT_FOUND", "TASK_NOT_FOUND"),
    ("TaskNotCancelableError", 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"),
    (
        "PushNotificationNotSupportedError",
        400,
        "FAILED_PRECONDITION",
        "PUSH_NOTIFICATION_NOT_SUPPORTED",
    ),
    ("UnsupportedOperationError", 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"),
    (
        "ContentTypeNotSupportedError",
        400,
        "INVALID_ARGUMENT",
        "CONTENT_TYPE_NOT_SUPPORTED",
    ),
    ("InvalidAgentResponseError", 500, "INTERNAL", "INVALID_AGENT_RESPONSE"),
    (
        "ExtendedAgentCardNotConfiguredError",
        400,
        "FAILED_PRECONDITION",
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    ),
    (
        "ExtensionSupportRequiredError",
        400,
        "FAILED_PRECONDITION",
        "EXTENSION_SUPPORT_REQUIRED",
    ),
    ("VersionNotSupportedError", 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"),
)

# Every error status an operation documents, with its reusable response's name.
_ERROR_RESPONSES = (
    (
        400,
        "BadRequest",
        "The request is malformed: a path, query or body value the codecs refuse "
        "(INVALID_ARGUMENT with a google.rpc.BadRequest naming the field), or a "
        "precondition the service checks.",
    ),
    (404, "NotFound", "No route matches the path, or the resource does not exist."),
    (
        405,
        "MethodNotAllowed",
        "The path matches a route of another verb; the Allow header lists them.",
    ),
    (500, "InternalError", "The server failed; the message says no more than that."),
)
# A2A agents declare their credentials in the agent card (securitySchemes), which the
# proto does not hold; any operation may answer these.
_A2A_AUTH_RESPONSES = (
    (
        401,
        "Unauthenticated",
        "Credentials are missing or wrong (UNAUTHENTICATED); the agent card's "
        "securitySchemes say which to send, and WWW-Authenticate names the scheme.",
    ),
    (
        403,
        "PermissionDenied",
        "The credentials do not allow this operation (PERMISSION_DENIED).",
    ),
)

_INT64_PATTERN = "^-?[0-9]+$"
_UINT64_PATTERN = "^[0-9]+$"
_DURATION_PATTERN = "^-?[0-9]+(\\.[0-9]{1,9})?s$"
_NON_FINITE = ("NaN", "Infinity", "-Infinity")

_INT32_RANGE = (-(2**31), 2**31 - 1)
_UINT32_RANGE = (0, 2**32 - 1)

# Scalar kinds (descriptor.proto type names) by the ProtoJSON shape they print as.
_INT32_KINDS = frozenset({"int32", "sint32", "sfixed32"})
_UINT32_KINDS = frozenset({"uint32", "fixed32"})
_INT64_KINDS = frozenset({"int64", "sint64", "sfixed64"})
_UINT64_KINDS = frozenset({"uint64", "fixed64"})

# Query codecs (QueryParam.codec) that read a scalar kind, and the rest by their WKT.
_CODEC_KINDS = {
    "int32": "int32",
    "uint32": "uint32",
    "int64": "int64",
    "uint64": "uint64",
    "float": "float",
    "double": "double",
    "bool": "bool",
    "string": "string",
    "bytes": "bytes",
}
_CODEC_WKTS = {
    "timestamp": "google.protobuf.Timestamp",
    "duration": "google.protobuf.Duration",
    "field_mask": "google.protobuf.FieldMask",
}


def openapi_document(binding_file: BindingFile) -> str:
    """The OpenAPI 3.1 document of ``binding_file``'s HTTP+JSON binding, as JSON text
    (two-space indent, UTF-8 characters kept, a trailing newline)."""
    text = json.dumps(openapi_object(binding_file), indent=2, ensure_ascii=False)
    return text + "\n"


def openapi_object(binding_file: BindingFile) -> JSON:
    """The document as a JSON-ready dict (what ``openapi_document`` serialises)."""
    return _Document(binding_file).build()


def _scalar_schema(kind: str) -> JSON:
    """The ProtoJSON form of a scalar field of ``kind`` (descriptor.proto type name)."""
    if kind in _INT32_KINDS:
        low, high = _INT32_RANGE
        return {"type": "integer", "format": "int32", "minimum": low, "maximum": high}
    if kind in _UINT32_KINDS:
        low, high = _UINT32_RANGE
        return {"type": "integer", "format": "uint32", "minimum": low, "maximum": high}
    if kind in _INT64_KINDS:
        return {"type": "string", "format": "int64", "pattern": _INT64_PATTERN}
    if kind in _UINT64_KINDS:
        return {"type": "string", "format": "uint64", "pattern": _UINT64_PATTERN}
    if kind in ("double", "float"):
        # ProtoJSON prints the non-finite values as these strings.
        return {
            "anyOf": [
                {"type": "number", "format": kind},
                {"type": "string", "enum": list(_NON_FINITE)},
            ]
        }
    if kind == "bool":
        return {"type": "boolean"}
    if kind == "bytes":
        return {"type": "string", "format": "byte", "contentEncoding": "base64"}
    if kind == "string":
        return {"type": "string"}
    raise ValueError(f"no scalar schema for field kind {kind!r}")


def _well_known_schema(full_name: str) -> JSON:
    """The JSON form ProtoJSON gives a google.protobuf type."""
    if full_name in WRAPPERS:
        boxed = _scalar_schema(WRAPPERS[full_name])
        # A wrapper is its value, or null for "not set".
        if "anyOf" in boxed:
            return {"anyOf": boxed["anyOf"] + [{"type": "null"}]}
        return {**boxed, "type": [boxed["type"], "null"]}
    forms: dict[str, JSON] = {
        "google.protobuf.Timestamp": {
            "type": "string",
            "format": "date-time",
            "description": "RFC 3339, UTC with Z as printed, 0, 3, 6 or 9 fractional "
            "digits; an offset is accepted on input.",
        },
        "google.protobuf.Duration": {
            "type": "string",
            "pattern": _DURATION_PATTERN,
            "description": "Seconds with up to 9 fractional digits and the suffix s "
            '("1.5s").',
        },
        "google.protobuf.FieldMask": {
            "type": "string",
            "description": "Comma-separated field paths in camelCase "
            '("displayName,config.pageSize").',
        },
        "google.protobuf.Struct": {"type": "object"},
        "google.protobuf.Value": {"description": "Any JSON value."},
        "google.protobuf.ListValue": {"type": "array"},
        "google.protobuf.Any": {
            "type": "object",
            "properties": {"@type": {"type": "string"}},
            "required": ["@type"],
            "description": "The message's fields with its type URL in @type (a "
            "well-known type puts its JSON form in value).",
        },
        "google.protobuf.Empty": {"type": "object"},
    }
    return forms.get(full_name, {"type": "object"})


def _ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


def _described(schema: JSON, description: str) -> JSON:
    text = description.strip()
    return {**schema, "description": text} if text else schema


def _deprecated(element: object) -> bool:
    """The proto's ``deprecated`` option, where the model carries it."""
    return getattr(element, "deprecated", False) is True


class _Document:
    """Builds one document; holds the binding file and what it has put in components."""

    def __init__(self, binding_file: BindingFile) -> None:
        self.file = binding_file
        self.a2a = binding_file.a2a
        self.content_types = _A2A_CONTENT_TYPES if self.a2a else _PLAIN_CONTENT_TYPES
        self.messages = {m.full_name: m for m in binding_file.messages}
        self.enums = {e.full_name: e for e in binding_file.enums}

    def build(self) -> JSON:
        document: JSON = {
            "openapi": OPENAPI_VERSION,
            "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
            "info": self.info(),
            "tags": [self.tag(service) for service in self.file.services],
            "paths": self.paths(),
            "components": self.components(),
        }
        return document

    def info(self) -> JSON:
        names = ", ".join(s.full_name for s in self.file.services)
        lines = [
            f"The HTTP+JSON binding of {names}, from the google.api.http rules of "
            f"{self.file.proto_file}.",
            "",
            "Request and response bodies are ProtoJSON: json field names (the proto "
            "names are accepted too), 64-bit integers as strings, enums by name, "
            "well-known types in their JSON forms. Path variables that span several "
            "segments, and ** variables, are described on their parameter.",
        ]
        if self.a2a:
            lines += [
                "",
                "A2A: send A2A-Version (a header, or a query parameter of that name) "
                "with every request; content type application/a2a+json "
                "(application/json is accepted).",
            ]
        return {
            "title": names,
            "version": self.file.proto_package or self.file.proto_file,
            "description": "\n".join(lines),
            "x-generator": f"protoc-gen-a2a {self.file.generator_version}",
            "x-descriptor-sha256": self.file.descriptor_sha256,
        }

    def tag(self, service: Service) -> JSON:
        return _described({"name": service.full_name}, service.comment)

    # Paths and operations.

    def paths(self) -> JSON:
        items: dict[str, JSON] = {}
        used_ids: set[str] = set()
        for service in self.file.services:
            for method in service.methods:
                for binding, operation_id in _operation_ids(method):
                    unique = operation_id
                    counter = 2
                    while unique in used_ids:
                        unique = f"{operation_id}_{counter}"
                        counter += 1
                    used_ids.add(unique)
                    path, wildcards = _openapi_path(binding)
                    verb = binding.verb.lower()
                    key = verb if verb in _OPENAPI_VERBS else f"x-verb-{verb}"
                    operation = self.operation(
                        service, method, binding, unique, wildcards
                    )
                    items.setdefault(path, {})[key] = operation
        return {
            path: {verb: item[verb] for verb in _verb_order(item)}
            for path, item in sorted(items.items())
        }

    def operation(
        self,
        service: Service,
        method: Method,
        binding: Binding,
        operation_id: str,
        wildcards: Sequence[tuple[str, str]],
    ) -> JSON:
        operation: JSON = {
            "operationId": operation_id,
            "tags": [service.full_name],
            "summary": self.summary(method, binding),
        }
        if method.comment.strip():
            operation["description"] = method.comment.strip()
        parameters = self.path_parameters(binding, wildcards)
        parameters += self.query_parameters(method, binding)
        if self.a2a:
            parameters += [
                {"$ref": "#/components/parameters/A2AVersion"},
                {"$ref": "#/components/parameters/A2AExtensions"},
            ]
        if parameters:
            operation["parameters"] = parameters
        body = self.request_body(method, binding)
        if body is not None:
            operation["requestBody"] = body
        operation["responses"] = self.responses(method, binding)
        if _deprecated(method):
            operation["deprecated"] = True
        return operation

    def summary(self, method: Method, binding: Binding) -> str:
        text = f"{method.name}: {binding.verb} {binding.template.source}"
        if binding.alias:
            text += f" ({binding.verb} alias of the proto's rule)"
        elif binding.tenant:
            text += " (tenant variant)"
        return text

    def path_parameters(
        self, binding: Binding, wildcards: Sequence[tuple[str, str]]
    ) -> list[JSON]:
        parameters = []
        for path_field in binding.path_fields:
            parameters.append(self.path_parameter(binding, path_field))
        for name, kind in wildcards:
            what = "one segment" if kind == "*" else "the rest of the path"
            parameters.append(
                {
                    "name": name,
                    "in": "path",
                    "required": True,
                    "description": f"The template's unnamed {kind}: {what}, bound to "
                    "no field.",
                    "schema": {"type": "string", "minLength": 1},
                }
            )
        return parameters

    def path_parameter(self, binding: Binding, path_field: PathField) -> JSON:
        variable = binding.template.variable(path_field.proto_name)
        field = path_field.field
        lines = [field.comment.strip()] if field.comment.strip() else []
        if len(path_field.json_path) > 1:
            lines.append(f"Sets the request field {path_field.json_name}.")
        schema = self.value_schema(field)
        if path_field.single_segment:
            if schema.get("type") == "string" and "format" not in schema:
                # An empty segment matches no route, and clients normalise . and ..
                # segments away, so neither value can reach the server.
                schema = {**schema, "minLength": 1, "not": {"enum": [".", ".."]}}
        else:
            pattern = variable.pattern if variable is not None else "**"
            lines.append(
                f"Spans several path segments: the value matches {pattern} and its "
                "/ characters are sent as they are (not as %2F). An OpenAPI path "
                "parameter cannot express that, so a client must build this part of "
                "the path itself; %2F inside a segment stays encoded."
            )
            schema = {"type": "string", "minLength": 1}
        parameter: JSON = {
            "name": path_field.json_name,
            "in": "path",
            "required": True,
        }
        if lines:
            parameter["description"] = "\n\n".join(lines)
        parameter["schema"] = schema
        if not path_field.single_segment and variable is not None:
            parameter["x-path-pattern"] = variable.pattern
        if _deprecated(field):
            parameter["deprecated"] = True
        return parameter

    def query_parameters(self, method: Method, binding: Binding) -> list[JSON]:
        if binding.body == "*":
            return []
        bound = set(binding.path_json_names)
        return [
            self.query_parameter(method, param)
            for param in method.query
            if param.json_name not in bound
        ]

    def query_parameter(self, method: Method, param: QueryParam) -> JSON:
        field = _leaf_field(method.request, param, self.messages)
        element = self.codec_schema(param)
        lines = [field.comment.strip()] if field and field.comment.strip() else []
        if len(param.json_path) > 1:
            lines.append(
                f"The field {param.json_name} of a nested message; the proto name "
                f"{'.'.join(param.proto_path)} is accepted too."
            )
        if param.oneof is not None:
            lines.append(f"Part of oneof {param.oneof.lstrip(':')}: set at most one.")
        parameter: JSON = {"name": param.json_name, "in": "query", "required": False}
        if param.repeated:
            lines.append(
                "Repeated: the name once per value, or one comma-separated value."
            )
            schema: JSON = {"type": "array", "items": element}
            parameter.update({"style": "form", "explode": True})
        else:
            schema = element
        if lines:
            parameter["description"] = "\n\n".join(lines)
        parameter["schema"] = schema
        if field is not None and _deprecated(field):
            parameter["deprecated"] = True
        return parameter

    def codec_schema(self, param: QueryParam) -> JSON:
        """The value one query codec accepts (its canonical text, typed)."""
        if param.codec == "enum" and param.enum is not None:
            return _ref(param.enum.full_name)
        if param.codec in _CODEC_WKTS:
            return dict(_well_known_schema(_CODEC_WKTS[param.codec]))
        if param.codec == "bool":
            return {
                "type": "boolean",
                "description": "true or false in any case, or 1 or 0.",
            }
        return _scalar_schema(_CODEC_KINDS[param.codec])

    def request_body(self, method: Method, binding: Binding) -> JSON | None:
        if binding.body is None:
            return None
        if binding.body == "*":
            schema = self.star_body_schema(method.request, binding)
            description = f"The {method.request.full_name} request"
            if binding.path_fields:
                description += " without the fields the path sets"
        else:
            field = method.request.field(binding.body)
            assert field is not None, binding.body  # the model checked the body field
            schema = self.field_schema(field)
            description = f"The request field {field.json_name}"
        if method.client_streaming:
            return self.stream_body(method, schema, description)
        return {
            "description": description + ".",
            "required": False,
            "content": {ct: {"schema": schema} for ct in self.content_types},
        }

    def stream_body(self, method: Method, item: JSON, description: str) -> JSON:
        """A client stream's body: its requests as a JSON array of ``item``, or as
        newline-delimited JSON, one ``item`` a line (whose schema, as for the
        event-stream answers, describes each line)."""
        text = (
            f"The stream of requests of this {method.kind} rpc, each: "
            f"{description[0].lower()}{description[1:]}. A JSON array of them, or "
            f"newline-delimited JSON ({_NDJSON}, one a line). The path and query "
            "fields apply to every request; the call starts once the whole body is "
            "read."
        )
        content: JSON = {
            ct: {"schema": {"type": "array", "items": item}}
            for ct in self.content_types
        }
        content[_NDJSON] = {"schema": item}
        return {"description": text, "required": False, "content": content}

    def star_body_schema(self, request: Message, binding: Binding) -> JSON:
        top_level = {
            pf.json_path[0] for pf in binding.path_fields if len(pf.json_path) == 1
        }
        if not top_level or request.well_known:
            return _ref(request.full_name)
        fields = [f for f in request.fields if f.json_name not in top_level]
        return self.object_schema(request, fields)

    def responses(self, method: Method, binding: Binding) -> JSON:
        schema: JSON
        if binding.response_body is not None:
            field = method.response.field(binding.response_body)
            assert field is not None, binding.response_body  # checked by the model
            schema = self.field_schema(field)
            description = (
                f"The response field {field.json_name} of {method.response.full_name}."
            )
        else:
            schema = _ref(method.response.full_name)
            description = f"A {method.response.full_name}."
        if method.server_streaming:
            content = {_EVENT_STREAM: {"schema": _event_schema(schema)}}
            description = (
                f"A stream of {method.response.full_name} events (text/event-stream, "
                "ids from 0); an error before the first event is answered as JSON."
            )
            if method.client_streaming:
                description += " The stream starts once the request body is read."
        else:
            content = {ct: {"schema": schema} for ct in self.content_types}
        responses: JSON = {"200": {"description": description, "content": content}}
        for status, name, _ in self.error_statuses:
            responses[str(status)] = {"$ref": f"#/components/responses/{name}"}
        return responses

    @property
    def error_statuses(self) -> tuple[tuple[int, str, str], ...]:
        """(status, response name, description) of every error an operation documents."""
        extra = _A2A_AUTH_RESPONSES if self.a2a else ()
        return tuple(sorted(_ERROR_RESPONSES + extra))

    # Schemas.

    def value_schema(self, field: Field) -> JSON:
        """One value of ``field`` (a list element or a map value; not the container)."""
        if field.kind == "enum":
            return _ref(field.type_name)
        if field.kind == "message":
            return _ref(field.type_name)
        return _scalar_schema(field.kind)

    def field_schema(self, field: Field) -> JSON:
        if field.map_value is not None:
            schema: JSON = {
                "type": "object",
                "additionalProperties": self.value_schema(field.map_value),
            }
            key_names = _map_key_schema(field.map_key_kind or "string")
            if key_names is not None:
                schema["propertyNames"] = key_names
        elif field.repeated:
            schema = {"type": "array", "items": self.value_schema(field)}
        else:
            schema = self.value_schema(field)
        schema = _described(schema, field.comment)
        if _deprecated(field):
            schema = {**schema, "deprecated": True}
        return schema

    def object_schema(self, message: Message, fields: Iterable[Field]) -> JSON:
        chosen = list(fields)
        schema: JSON = {"type": "object"}
        description = message.comment.strip()
        groups = _oneof_groups(chosen)
        if groups:
            notes = [
                f"Oneof {name}: at most one of {', '.join(members)}."
                for name, members in groups.items()
            ]
            description = "\n\n".join(filter(None, [description, *notes]))
        if description:
            schema["description"] = description
        schema["properties"] = {f.json_name: self.field_schema(f) for f in chosen}
        # ProtoJSON parsers refuse unknown names (they also take the proto names, which a
        # client has no reason to send: printers write the json names).
        schema["additionalProperties"] = False
        if groups:
            schema["allOf"] = [_at_most_one(members) for members in groups.values()]
        return schema

    def message_schema(self, message: Message) -> JSON:
        if message.well_known:
            return _described(_well_known_schema(message.full_name), message.comment)
        return self.object_schema(message, message.fields)

    def enum_schema(self, enum: Enum) -> JSON:
        schema: JSON = {
            "type": "string",
            "enum": list(dict.fromkeys(value.name for value in enum.values)),
        }
        return _described(schema, enum.comment)

    def components(self) -> JSON:
        schemas: dict[str, JSON] = {}
        for message in self.file.messages:
            schemas[message.full_name] = self.message_schema(message)
        for enum in self.file.enums:
            schemas[enum.full_name] = self.enum_schema(enum)
        for name, schema in self.error_schemas().items():
            schemas.setdefault(name, schema)
        components: JSON = {"schemas": {k: schemas[k] for k in sorted(schemas)}}
        components["responses"] = self.error_responses()
        if self.a2a:
            components["parameters"] = {
                "A2AExtensions": {
                    "name": "A2A-Extensions",
                    "in": "header",
                    "required": False,
                    "description": "URIs of the extensions the client asks for, "
                    "comma-separated (the header may also be repeated).",
                    "schema": {"type": "string"},
                },
                "A2AVersion": {
                    "name": "A2A-Version",
                    "in": "header",
                    "required": False,
                    "description": "The protocol version the request speaks, "
                    "Major.Minor (a patch part is ignored). Clients must send it; "
                    "a missing version means 0.3. It may be sent as a query "
                    "parameter of the same name instead. A version the server does "
                    "not support is 400 VERSION_NOT_SUPPORTED.",
                    "schema": {
                        "type": "string",
                        "pattern": "^[0-9]+\\.[0-9]+(\\.[0-9]+)?$",
                    },
                },
            }
        return components

    def error_schemas(self) -> dict[str, JSON]:
        return {
            _STATUS: {
                "type": "object",
                "description": "google.rpc.Status in its JSON form over HTTP: code is "
                "the HTTP status, status the google.rpc.Code name.",
                "properties": {
                    "code": {"type": "integer", "format": "int32"},
                    "status": {"type": "string"},
                    "message": {"type": "string"},
                    "details": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"@type": {"type": "string"}},
                            "required": ["@type"],
                            # ErrorInfo and BadRequest have a shape of their own; other
                            # detail types are any object with a type URL.
                            "allOf": [
                                _detail_case(_ERROR_INFO),
                                _detail_case(_BAD_REQUEST),
                            ],
                        },
                    },
                },
            },
            _ERROR_INFO: {
                "type": "object",
                "description": "Why the request failed: a reason in UPPER_SNAKE_CASE "
                "within a domain, with metadata.",
                "properties": {
                    "@type": {"const": _TYPE_URL + _ERROR_INFO},
                    "reason": {"type": "string"},
                    "domain": {"type": "string"},
                    "metadata": {
                        "type": "object",
                        "additionalProperties": {"type": "string"},
                    },
                },
            },
            _BAD_REQUEST: {
                "type": "object",
                "description": "The request fields that were refused and why.",
                "properties": {
                    "@type": {"const": _TYPE_URL + _BAD_REQUEST},
                    "fieldViolations": {
                        "type": "array",
                        "items": _ref(_FIELD_VIOLATION),
                    },
                },
            },
            _FIELD_VIOLATION: {
                "type": "object",
                "properties": {
                    "field": {"type": "string"},
                    "description": {"type": "string"},
                    "reason": {"type": "string"},
                },
            },
            _ERROR_BODY: {
                "type": "object",
                "description": "What an HTTP+JSON error answers.",
                "properties": {"error": _ref(_STATUS)},
                "required": ["error"],
            },
        }

    def error_responses(self) -> JSON:
        responses: JSON = {}
        for status, name, description in sorted(
            self.error_statuses, key=lambda r: r[1]
        ):
            text = description
            if self.a2a:
                reasons = [
                    f"{reason} ({grpc}, {error})"
                    for error, http, grpc, reason in _A2A_ERRORS
                    if http == status
                ]
                if reasons:
                    text += " A2A errors with this status: " + "; ".join(reasons) + "."
            response: JSON = {
                "description": text,
                "content": {
                    ct: {"schema": _ref(_ERROR_BODY)} for ct in self.content_types
                },
            }
            if status == 401:
                response["headers"] = {
                    "WWW-Authenticate": {
                        "description": "The authentication scheme to use.",
                        "schema": {"type": "string"},
                    }
                }
            if status == 405:
                response["headers"] = {
                    "Allow": {
                        "description": "The verbs the path has routes for.",
                        "schema": {"type": "string"},
                    }
                }
            responses[name] = response
        return responses


def _event_schema(data: JSON) -> JSON:
    """One server-sent event whose data is a JSON value of schema ``data`` (in OpenAPI
    3.1 a ``text/event-stream`` schema describes each event, as 3.2's itemSchema does).
    """
    return {
        "type": "object",
        "description": "One server-sent event: data holds one response message.",
        "properties": {
            "event": {"type": "string"},
            "id": {"type": "string", "pattern": "^[0-9]+$"},
            "retry": {"type": "integer", "minimum": 0},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": data,
            },
        },
        "required": ["data"],
    }


def _detail_case(full_name: str) -> JSON:
    return {
        "if": {"properties": {"@type": {"const": _TYPE_URL + full_name}}},
        "then": _ref(full_name),
    }


def _map_key_schema(kind: str) -> JSON | None:
    """ProtoJSON map keys are strings; integer and bool keys have a fixed spelling."""
    if kind in _INT32_KINDS or kind in _INT64_KINDS:
        return {"pattern": _INT64_PATTERN}
    if kind in _UINT32_KINDS or kind in _UINT64_KINDS:
        return {"pattern": _UINT64_PATTERN}
    if kind == "bool":
        return {"enum": ["true", "false"]}
    return None


def _oneof_groups(fields: Iterable[Field]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for field in fields:
        if field.oneof is not None:
            groups.setdefault(field.oneof, []).append(field.json_name)
    return groups


def _at_most_one(members: Sequence[str]) -> JSON:
    """Valid when at most one member of a oneof is present: exactly one branch holds."""
    present = [{"required": [name]} for name in members]
    return {"oneOf": [*present, {"not": {"anyOf": present}}]}


def _leaf_field(
    request: Message, param: QueryParam, messages: Mapping[str, Message]
) -> Field | None:
    message: Message | None = request
    field: Field | None = None
    for name in param.proto_path:
        if message is None:
            return None
        field = next((f for f in message.fields if f.name == name), None)
        if field is None:
            return None
        message = messages.get(field.type_name) if field.kind == "message" else None
    return field


def _openapi_path(binding: Binding) -> tuple[str, list[tuple[str, str]]]:
    """The OpenAPI path of a route, and the synthetic parameters (name, ``*`` or
    ``**``) it needs for the template's unnamed wildcards."""
    template = binding.template
    by_start = {v.start: v for v in template.variables}
    json_names = {pf.proto_name: pf.json_name for pf in binding.path_fields}
    taken = set(json_names.values())
    wildcards: list[tuple[str, str]] = []
    parts: list[str] = []
    index = 0
    while index < len(template.segments):
        variable = by_start.get(index)
        if variable is not None:
            parts.append("{" + json_names[variable.name] + "}")
            index = len(template.segments) if variable.end is None else variable.end
            continue
        segment = template.segments[index]
        if segment.kind is SegmentKind.LITERAL:
            parts.append(segment.literal)
        else:
            name = f"segment{index + 1}"
            while name in taken:
                name = "_" + name
            taken.add(name)
            wildcards.append((name, str(segment)))
            parts.append("{" + name + "}")
        index += 1
    path = "/" + "/".join(parts)
    if template.verb is not None:
        path += ":" + template.verb
    return path, wildcards


def _operation_ids(method: Method) -> list[tuple[Binding, str]]:
    """Each binding of an rpc with an operationId: the rpc name for its first rule,
    ``_2``, ``_3``... for additional bindings, ``_tenant`` for the tenant variant of a
    route and ``_<verb>`` for a generated alias of one."""
    names: dict[int, str] = {}
    rules = [b for b in method.bindings if not b.tenant and not b.alias]
    for position, binding in enumerate(rules):
        names[id(binding)] = method.name + (f"_{position + 1}" if position else "")
    for binding in method.bindings:
        if binding.tenant and not binding.alias:
            plain = next(
                (
                    p
                    for p in rules
                    if p.verb == binding.verb
                    and p.template.source == binding.plain_template
                ),
                None,
            )
            base = names[id(plain)] if plain is not None else method.name
            names[id(binding)] = base + "_tenant"
    for binding in method.bindings:
        if binding.alias:
            origin = next(
                (
                    b
                    for b in method.bindings
                    if not b.alias and b.template.source == binding.template.source
                ),
                None,
            )
            base = names.get(id(origin), method.name) if origin else method.name
            names[id(binding)] = f"{base}_{binding.verb.lower()}"
    return [(b, names.get(id(b), method.name)) for b in method.bindings]


def _verb_order(item: Mapping[str, JSON]) -> list[str]:
    known = [verb for verb in _OPENAPI_VERBS if verb in item]
    return known + sorted(verb for verb in item if verb not in _OPENAPI_VERBS)

"""What the application's refusals say, read as a new user reads them: the answer to a
request that names no ``A2A-Version`` where 0.3 is not served, and to a body whose
misspelled field leaves a REQUIRED one missing, on both bindings.

The application is the runtime's (``codegen/runtime/serve/_asgi.py``) over the tables of
the committed A2A package (``generated/a2a_binding``), as ``test_asgi_v0_3.py`` builds
it, driven over httpx's ASGI transport. (The 415 of a service without the A2A profile
is in ``test_gateway_profile.py``; gRPC's version refusal in ``test_grpc.py``.)
"""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.runtime.apps import application
from codegen.runtime._asgi import A2AApplication
from codegen.runtime._jsonrpc import JsonRpcBinding
from codegen.runtime._validate import Schema

from .test_asgi_v0_3 import CARD, Store

V1 = {"A2A-Version": "1.0"}
MESSAGE = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
NO_VERSION = (
    "no A2A-Version was sent, and a request naming no version is taken as 0.3"
    " (A2A §3.6.2), which this server does not serve (supported: 1.0):"
    " send A2A-Version: 1.0"
)


@pytest.fixture
def app(a2a: ModuleType) -> A2AApplication:
    """The A2A application serving 1.0 alone (the default of ``create_app``)."""
    asgi = importlib.import_module("a2a_binding.asgi")
    tables = a2a.messages.SCHEMA
    return application(
        Store(),
        methods=asgi.HANDLER_METHODS,
        routes=a2a.routes.TABLE,
        jsonrpc=JsonRpcBinding(a2a.jsonrpc.METHODS, tenant_field="tenant"),
        tenant_field="tenant",
        agent_card_path=a2a.routes.AGENT_CARD_PATH,
        agent_card=CARD,
        supported_versions=("1.0",),
        schema=Schema(tables._rules, tables._enum_values),
        message_types=asgi.MESSAGE_TYPES,
    )


def post(app: A2AApplication, path: str, body: Any, headers: Any = None) -> Any:
    async def main() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://a") as c:
            return await c.post(path, json=body, headers=headers)

    return asyncio.run(main())


def rpc(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def test_a_request_naming_no_version_is_told_so_on_both_bindings(
    app: A2AApplication,
) -> None:
    http_json = post(app, "/message:send", {"message": MESSAGE})
    error = http_json.json()["error"]
    assert (http_json.status_code, error["message"]) == (400, NO_VERSION)
    assert error["details"][0]["reason"] == "VERSION_NOT_SUPPORTED"
    assert error["details"][0]["metadata"] == {
        "requestedVersion": "0.3",
        "supportedVersions": "1.0",
    }
    jsonrpc = post(app, "/", rpc("SendMessage", {"message": MESSAGE})).json()["error"]
    assert (jsonrpc["code"], jsonrpc["message"]) == (-32009, NO_VERSION)
    assert jsonrpc["data"][0]["metadata"] == error["details"][0]["metadata"]
    # Sending what it says is served.
    served = post(app, "/message:send", {"message": MESSAGE}, V1)
    assert served.status_code == 200, served.text


def test_a_misspelled_field_is_named_beside_the_missing_one(
    app: A2AApplication,
) -> None:
    expected = [
        {"field": "message", "description": "a REQUIRED field is missing"},
        {
            "field": "mesage",
            "description": "unknown field (did you mean 'message'?)",
        },
    ]
    http_json = post(app, "/message:send", {"mesage": MESSAGE}, V1)
    error = http_json.json()["error"]
    assert (http_json.status_code, error["status"]) == (400, "INVALID_ARGUMENT")
    assert error["details"][0]["fieldViolations"] == expected
    assert error["message"].endswith(
        "message: a REQUIRED field is missing;"
        " mesage: unknown field (did you mean 'message'?)"
    )
    jsonrpc = post(app, "/", rpc("SendMessage", {"mesage": MESSAGE}), V1).json()
    assert jsonrpc["error"]["code"] == -32602
    assert jsonrpc["error"]["data"][0]["fieldViolations"] == expected
    # Nested, and the unknown key of an object that lacks nothing is dropped unseen.
    nested = {**MESSAGE, "rolle": MESSAGE["role"]}
    del nested["role"]
    inner = post(app, "/message:send", {"message": nested, "extra": 1}, V1)
    assert inner.json()["error"]["details"][0]["fieldViolations"] == [
        {"field": "message.role", "description": "a REQUIRED field is missing"},
        {
            "field": "message.rolle",
            "description": "unknown field (did you mean 'role'?)",
        },
    ]
    dropped = post(app, "/message:send", {"message": MESSAGE, "mesage": 1}, V1)
    assert dropped.status_code == 200, dropped.text

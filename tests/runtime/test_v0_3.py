"""The A2A 0.3 tables of ``codegen/runtime/v0_3/_v0_3.py`` (what the v0.3.0 proto does not
say), cross-checked against the 0.3 pydantic types a2a-sdk 1.3.0 keeps in
``a2a.compat.v0_3.types``, the 0.3 route table generated from the v0.3.0 proto, and the
1.0 JSON-RPC method map and enums generated from the 1.0 proto."""

from __future__ import annotations

import enum
import importlib
import typing
from types import ModuleType

import pytest

from codegen.runtime import _v0_3

types = pytest.importorskip("a2a.compat.v0_3.types")


def _request_methods() -> dict[str, str]:
    """Every 0.3 JSON-RPC request model's method name, by model name."""
    found = {}
    for name, model in vars(types).items():
        fields = getattr(model, "model_fields", None)
        if not name.endswith("Request") or not fields or "method" not in fields:
            continue
        annotation = fields["method"].annotation
        if typing.get_origin(annotation) is typing.Literal:  # not JSONRPCRequest's str
            (found[name],) = typing.get_args(annotation)
    return found


def test_the_method_table_is_every_0_3_request_a2a_sdk_knows() -> None:
    methods = _request_methods()
    assert set(methods.values()) == set(_v0_3.V0_3_METHODS)
    assert methods["SendStreamingMessageRequest"] in _v0_3.V0_3_STREAMING
    assert methods["TaskResubscriptionRequest"] in _v0_3.V0_3_STREAMING
    assert len(_v0_3.V0_3_STREAMING) == 2


def test_each_0_3_method_names_a_0_3_rpc_and_a_1_0_rpc(a2a: ModuleType) -> None:
    jsonrpc = a2a.jsonrpc
    routes_v0_3 = importlib.import_module("a2a_binding.v0_3.routes")

    rpcs_v0_3 = {route.rpc for route in routes_v0_3.ROUTES}
    for name, method in _v0_3.V0_3_METHODS.items():
        assert method.v0_3_rpc in rpcs_v0_3, name
        assert method.rpc in jsonrpc.METHODS, name
        assert (method.rpc in jsonrpc.STREAMING_METHODS) == method.streaming, name
        streams_v0_3 = {
            r.server_streaming for r in routes_v0_3.ROUTES if r.rpc == method.v0_3_rpc
        }
        assert streams_v0_3 == {method.streaming}, name
    # Every 1.0 rpc but ListTasks (which 0.3 lacks) has a 0.3 method, once.
    assert set(jsonrpc.METHODS) - set(_v0_3.V0_3_RPCS) == {"ListTasks"}
    assert len(_v0_3.V0_3_RPCS) == len(_v0_3.V0_3_METHODS)
    assert {_v0_3.V0_3_RPCS[m.rpc] for m in _v0_3.V0_3_METHODS.values()} == set(
        _v0_3.V0_3_METHODS
    )


def test_is_v0_3_method() -> None:
    assert _v0_3.is_v0_3_method("message/send")
    assert not _v0_3.is_v0_3_method("SendMessage")
    assert not _v0_3.is_v0_3_method(None)
    assert not _v0_3.is_v0_3_method(["message/send"])
    assert _v0_3.V0_3 == "0.3"


def _values(enumeration: type[enum.Enum]) -> set[str]:
    return {member.value for member in enumeration}


def test_task_states_both_ways(a2a: ModuleType) -> None:
    messages = a2a.messages

    assert set(_v0_3.V0_3_TASK_STATES) == _values(types.TaskState)
    assert set(_v0_3.V0_3_TASK_STATES.values()) == set(
        typing.get_args(messages.TaskState)
    )
    for state in _values(types.TaskState):
        assert _v0_3.task_state_to_v0_3(_v0_3.task_state_from_v0_3(state)) == state
    # The name says what the proto value means: "input-required" is INPUT_REQUIRED.
    for state, proto in _v0_3.V0_3_TASK_STATES.items():
        if state != "unknown":
            assert proto == "TASK_STATE_" + state.upper().replace("-", "_")
    with pytest.raises(KeyError):
        _v0_3.task_state_from_v0_3("TASK_STATE_WORKING")
    with pytest.raises(KeyError):
        _v0_3.task_state_to_v0_3("working")


def test_roles_both_ways(a2a: ModuleType) -> None:
    messages = a2a.messages

    assert set(_v0_3.V0_3_ROLES) == _values(types.Role)
    assert set(_v0_3.V0_3_ROLES.values()) == set(typing.get_args(messages.Role)) - {
        "ROLE_UNSPECIFIED"
    }
    for role in _values(types.Role):
        assert _v0_3.role_to_v0_3(_v0_3.role_from_v0_3(role)) == role
    with pytest.raises(KeyError):
        _v0_3.role_to_v0_3("ROLE_UNSPECIFIED")
    with pytest.raises(KeyError):
        _v0_3.role_from_v0_3("ROLE_USER")


def test_error_codes_are_the_0_3_errors_a2a_sdk_knows() -> None:
    from codegen.runtime._errors import A2A_ERRORS

    a2a_codes = {
        model.model_fields["code"].default
        for model in typing.get_args(types.A2AError.model_fields["root"].annotation)
    }
    jsonrpc_codes = {
        model.model_fields["code"].default
        for name, model in vars(types).items()
        if name
        in (
            "JSONParseError",
            "InvalidRequestError",
            "MethodNotFoundError",
            "InvalidParamsError",
            "InternalError",
        )
    }
    assert _v0_3.V0_3_ERROR_CODES == a2a_codes | jsonrpc_codes
    assert len(jsonrpc_codes) == 5
    for kind in A2A_ERRORS.values():
        expected = kind.code if kind.code in a2a_codes else -32603
        assert _v0_3.error_code_to_v0_3(kind.code) == expected
    assert {k.code for k in A2A_ERRORS.values()} - a2a_codes == {-32008, -32009}
    assert _v0_3.error_code_to_v0_3(-32602) == -32602
    assert _v0_3.error_code_to_v0_3(-32000) == -32603

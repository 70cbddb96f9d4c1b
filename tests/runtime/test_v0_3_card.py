"""The agent card for 0.3 clients (``codegen/runtime/v0_3/_v0_3_card``), differentially against
a2a-sdk 1.3.0: its ``to_compat_agent_card`` (the 0.3 card of a 1.0 card, dumped as
pydantic writes it) and ``agent_card_to_dict`` (the card its server serves, which both
kinds of its clients read); and read back by both kinds of client model: the 1.0
protobuf parser a2a-sdk's card resolver uses, and the 0.3 pydantic ``AgentCard``."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from codegen.runtime import _v0_3_card as card03
from codegen.runtime import _v0_3_rpc as rpc

compat = pytest.importorskip("a2a.compat.v0_3.conversions")
types = pytest.importorskip("a2a.compat.v0_3.types")
helpers = pytest.importorskip("a2a.server.request_handlers.response_helpers")
from a2a.client.card_resolver import parse_agent_card  # noqa: E402
from a2a.types import a2a_pb2  # noqa: E402
from google.protobuf.json_format import MessageToDict, ParseDict  # noqa: E402

SCOPES = {"schemes": {"oauth": {"list": ["read", "write"]}, "key": {"list": []}}}

CARD: dict[str, Any] = {
    "name": "Echo",
    "description": "Echoes what it is told",
    "version": "2.1.0",
    "supportedInterfaces": [
        {
            "url": "https://a.test/rpc",
            "protocolBinding": "JSONRPC",
            "protocolVersion": "0.3",
        },
        {
            "url": "https://a.test/rest",
            "protocolBinding": "HTTP+JSON",
            "protocolVersion": "0.3.0",
        },
        {
            "url": "https://a.test/v1",
            "protocolBinding": "JSONRPC",
            "protocolVersion": "1.0",
        },
    ],
    "provider": {"organization": "Org", "url": "https://org.test"},
    "documentationUrl": "https://a.test/docs",
    "iconUrl": "https://a.test/icon.png",
    "capabilities": {
        "streaming": True,
        "pushNotifications": False,
        "extendedAgentCard": True,
        "extensions": [
            {"uri": "urn:x", "description": "x", "required": True, "params": {"a": 1}}
        ],
    },
    "securitySchemes": {
        "key": {
            "apiKeySecurityScheme": {
                "description": "a key",
                "location": "header",
                "name": "X-Key",
            }
        },
        "bearer": {
            "httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}
        },
        "oauth": {
            "oauth2SecurityScheme": {
                "description": "o",
                "oauth2MetadataUrl": "https://a.test/.well-known/oauth",
                "flows": {
                    "authorizationCode": {
                        "authorizationUrl": "https://a.test/auth",
                        "tokenUrl": "https://a.test/token",
                        "refreshUrl": "https://a.test/refresh",
                        "scopes": {"read": "r", "write": "w"},
                        "pkceRequired": True,
                    }
                },
            }
        },
        "oidc": {
            "openIdConnectSecurityScheme": {
                "openIdConnectUrl": "https://a.test/.well-known/openid"
            }
        },
        "mtls": {"mtlsSecurityScheme": {"description": "certs"}},
    },
    "securityRequirements": [SCOPES],
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain", "application/json"],
    "skills": [
        {
            "id": "echo",
            "name": "Echo",
            "description": "echoes",
            "tags": ["a", "b"],
            "examples": ["hi"],
            "inputModes": ["text/plain"],
            "outputModes": ["text/plain"],
            "securityRequirements": [SCOPES],
        },
        {"id": "bare", "name": "Bare", "description": "d", "tags": []},
    ],
    "signatures": [{"protected": "eyJh", "signature": "c2ln", "header": {"kid": "k1"}}],
}

MINIMAL: dict[str, Any] = {
    "name": "Min",
    "description": "d",
    "version": "1",
    "supportedInterfaces": [
        {"url": "https://m.test/", "protocolBinding": "JSONRPC", "protocolVersion": ""}
    ],
    "capabilities": {},
    "defaultInputModes": [],
    "defaultOutputModes": [],
    "skills": [],
}


def _sdk_v0_3(card: dict[str, Any]) -> dict[str, Any]:
    model = compat.to_compat_agent_card(ParseDict(card, a2a_pb2.AgentCard()))
    dumped: dict[str, Any] = model.model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    return dumped


@pytest.mark.parametrize("card", [CARD, MINIMAL], ids=["full", "minimal"])
def test_the_0_3_card_is_what_a2a_sdk_makes_of_it(card: dict[str, Any]) -> None:
    ours = card03.card_from_v1(card)
    sdk = _sdk_v0_3(card)
    if not card["supportedInterfaces"][0]["protocolVersion"]:
        # For an interface naming no version a2a-sdk writes "0.3"; ours is the 0.3
        # schema's own default, the form 0.3 cards use.
        assert (sdk["protocolVersion"], ours and ours["protocolVersion"]) == (
            "0.3",
            "0.3.0",
        )
        sdk["protocolVersion"] = "0.3.0"
    # a2a-sdk writes the 0.3 defaults it holds (an empty extension list, say); a
    # 0.3 client reads either alike, so both are read back by its model to compare.
    assert ours is not None
    assert types.AgentCard.model_validate(ours) == types.AgentCard.model_validate(sdk)
    assert ours["url"] == card["supportedInterfaces"][0]["url"]


def test_the_card_both_read_is_the_one_a2a_sdk_serves() -> None:
    given = copy.deepcopy(CARD)
    served = card03.card_for_both(given)
    assert given == CARD  # not changed in place
    sdk = helpers.agent_card_to_dict(ParseDict(CARD, a2a_pb2.AgentCard()))
    # Read by a 1.0 client (a2a-sdk's resolver, which pops what it reads: copies)
    # and by a 0.3 one, both see the same.
    assert parse_agent_card(copy.deepcopy(served)) == parse_agent_card(
        copy.deepcopy(sdk)
    )
    assert types.AgentCard.model_validate(served) == types.AgentCard.model_validate(sdk)
    # And the 1.0 client sees the 1.0 card it was given, but for what 1.0 added to
    # a security scheme: a2a-sdk's resolver, seeing a scheme's 0.3 form (which 0.3
    # clients need to read the card at all), reads the scheme from that, as it does
    # with its own server's card.
    expected = copy.deepcopy(CARD)
    del expected["securitySchemes"]["oauth"]["oauth2SecurityScheme"]["flows"][
        "authorizationCode"
    ]["pkceRequired"]
    assert MessageToDict(parse_agent_card(copy.deepcopy(served))) == MessageToDict(
        ParseDict(expected, a2a_pb2.AgentCard())
    )


def test_a_card_listing_1_0_interfaces_only_gets_its_jsonrpc_and_http_json_ones() -> (
    None
):
    card = dict(
        MINIMAL,
        supportedInterfaces=[
            {"url": "https://x/g", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {
                "url": "https://x/t",
                "protocolBinding": "JSONRPC",
                "protocolVersion": "1.0",
                "tenant": "t",
            },
            {
                "url": "https://x/r",
                "protocolBinding": "HTTP+JSON",
                "protocolVersion": "1.0",
            },
            {
                "url": "https://x/j",
                "protocolBinding": "JSONRPC",
                "protocolVersion": "1.0",
            },
        ],
    )
    ours = card03.card_from_v1(card)
    assert ours is not None
    assert (ours["url"], ours["preferredTransport"], ours["protocolVersion"]) == (
        "https://x/r",
        "HTTP+JSON",
        "0.3.0",
    )
    assert ours["additionalInterfaces"] == [
        {"url": "https://x/j", "transport": "JSONRPC"}
    ]
    types.AgentCard.model_validate(ours)


def test_a_card_with_nothing_0_3_can_call_gets_no_0_3_fields() -> None:
    card = dict(
        MINIMAL,
        supportedInterfaces=[
            {"url": "https://x/g", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        ],
    )
    assert card03.card_from_v1(card) is None
    assert card03.card_for_both(card) is card


def test_the_extended_card_method_answers_the_0_3_card() -> None:
    assert rpc.result_from_v1("agent/getAuthenticatedExtendedCard", CARD) == (
        card03.card_from_v1(CARD)
    )
    grpc_only = dict(
        MINIMAL,
        supportedInterfaces=[
            {"url": "https://x/g", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        ],
    )
    assert rpc.result_from_v1("agent/getAuthenticatedExtendedCard", grpc_only) == (
        grpc_only
    )

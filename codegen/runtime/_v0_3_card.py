"""The A2A 0.3 agent card and the 1.0 one (ProtoJSON), both ways.

0.3 peers read and write one card form on every binding: the JSON of the 0.3 JSON-RPC
schema (a2a-sdk 0.3.26 serves it at ``/.well-known/agent-card.json``, as the
``agent/getAuthenticatedExtendedCard`` result and at ``GET /v1/card``; a2a-sdk 1.3.0's
0.3 adapter too). It says one primary interface (``url``, ``preferredTransport``,
``protocolVersion``) and ``additionalInterfaces`` where 1.0 lists
``supportedInterfaces``; a security scheme is an OpenAPI object with ``type``
(``apiKey``, ``http``, ``oauth2``, ``openIdConnect``, ``mutualTLS``) where 1.0 has a
oneof; a security requirement is ``{scheme: [scopes]}`` where 1.0 nests
``{"schemes": {scheme: {"list": [scopes]}}}``; ``supportsAuthenticatedExtendedCard`` is
1.0's ``capabilities.extendedAgentCard``.

Choices (a2a-sdk 1.3.0's ``compat.v0_3`` makes the same): to 0.3, the interfaces are
the 1.0 ones whose ``protocolVersion`` is empty or 0.x, the first of them primary (none:
``ShapeError``); from 0.3 each interface gets ``protocolVersion`` "0.3" unless the card
says its own for the primary one; a 1.0 ``deviceCode`` flow and ``pkceRequired`` have no
0.3 place and are dropped; of several 0.3 OAuth flows 1.0 keeps one (the last of
authorizationCode, clientCredentials, implicit, password given); 0.3's
``stateTransitionHistory`` has no 1.0 place.
"""

from __future__ import annotations

from typing import Any

from ._v0_3_shapes import ShapeError, _list, _object

__all__ = ["card_from_v1", "card_to_v1"]

Json = dict[str, Any]

_SCHEME_TYPES = (
    ("apiKey", "apiKeySecurityScheme"),
    ("http", "httpAuthSecurityScheme"),
    ("oauth2", "oauth2SecurityScheme"),
    ("openIdConnect", "openIdConnectSecurityScheme"),
    ("mutualTLS", "mtlsSecurityScheme"),
)
_FLOWS = ("authorizationCode", "clientCredentials", "implicit", "password")
_FLOW_FIELDS = ("authorizationUrl", "tokenUrl", "refreshUrl", "scopes")
_SKILL_FIELDS = ("id", "name", "description", "tags", "examples")
_SKILL_MODES = ("inputModes", "outputModes")
_CARD_FIELDS = ("name", "description", "version")


def _copy(source: Json, target: Json, names: tuple[str, ...]) -> None:
    for name in names:
        if source.get(name) is not None:
            target[name] = source[name]


def _is_legacy(version: object) -> bool:
    """Whether a 1.0 interface's ``protocolVersion`` is one a 0.3 client speaks."""
    if not version:
        return True
    major, _, _ = str(version).partition(".")
    return major == "0"


def _scheme_to_v1(scheme: object, where: str) -> Json:
    value = _object(scheme, where)
    if "type" not in value:  # the 0.3 proto's ProtoJSON form is 1.0's
        return dict(value)
    kind = value["type"]
    names = dict(_SCHEME_TYPES)
    if not isinstance(kind, str) or kind not in names:
        raise ShapeError(f"{where}.type", f"no such security scheme type {kind!r}")
    out: Json = {}
    _copy(value, out, ("description",))
    if kind == "apiKey":
        if value.get("in") is not None:
            out["location"] = value["in"]
        _copy(value, out, ("name",))
    elif kind == "http":
        _copy(value, out, ("scheme", "bearerFormat"))
    elif kind == "oauth2":
        flows = _object(value.get("flows", {}), f"{where}.flows")
        chosen = [name for name in _FLOWS if flows.get(name) is not None]
        converted: Json = {}
        if chosen:  # 1.0's flows are a oneof: the last given
            flow = _object(flows[chosen[-1]], f"{where}.flows.{chosen[-1]}")
            converted[chosen[-1]] = {k: flow[k] for k in _FLOW_FIELDS if k in flow}
        out["flows"] = converted
        _copy(value, out, ("oauth2MetadataUrl",))
    elif kind == "openIdConnect":
        _copy(value, out, ("openIdConnectUrl",))
    return {names[kind]: out}


def _scheme_from_v1(scheme: Json) -> Json:
    for kind, member in _SCHEME_TYPES:
        if member in scheme:
            value = scheme[member]
            out: Json = {"type": kind}
            _copy(value, out, ("description",))
            if kind == "apiKey":
                out["in"] = value.get("location", "")
                out["name"] = value.get("name", "")
            elif kind == "http":
                out["scheme"] = value.get("scheme", "")
                _copy(value, out, ("bearerFormat",))
            elif kind == "oauth2":
                flows = value.get("flows", {})
                out["flows"] = {
                    name: {k: flows[name][k] for k in _FLOW_FIELDS if k in flows[name]}
                    for name in _FLOWS
                    if name in flows
                }
                _copy(value, out, ("oauth2MetadataUrl",))
            elif kind == "openIdConnect":
                out["openIdConnectUrl"] = value.get("openIdConnectUrl", "")
            return out
    raise ShapeError("securitySchemes", "a security scheme of no kind")


def _requirements_to_v1(value: object, where: str) -> list[Json]:
    out: list[Json] = []
    for i, item in enumerate(_list(value, where)):
        requirement = _object(item, f"{where}[{i}]")
        if "schemes" in requirement and isinstance(requirement["schemes"], dict):
            out.append(requirement)  # the 0.3 proto's form is 1.0's
            continue
        schemes: Json = {}
        for name, scopes in requirement.items():
            listed = _list(scopes, f"{where}[{i}].{name}")
            schemes[name] = {"list": listed} if listed else {}  # as ProtoJSON writes
        out.append({"schemes": schemes})
    return out


def _requirements_from_v1(requirements: list[Json]) -> list[Json]:
    return [
        {
            name: list(scopes.get("list", ()))
            for name, scopes in r.get("schemes", {}).items()
        }
        for r in requirements
    ]


def _skill_to_v1(skill: object, where: str) -> Json:
    value = _object(skill, where)
    out: Json = {}
    _copy(value, out, (*_SKILL_FIELDS, *_SKILL_MODES))
    if value.get("security"):
        out["securityRequirements"] = _requirements_to_v1(
            value["security"], f"{where}.security"
        )
    return out


def _skill_from_v1(skill: Json) -> Json:
    out: Json = {}
    _copy(skill, out, ("id", "name", "description"))
    out["tags"] = list(skill.get("tags", ()))
    _copy(skill, out, ("examples", *_SKILL_MODES))
    if skill.get("securityRequirements"):
        out["security"] = _requirements_from_v1(skill["securityRequirements"])
    return out


def card_to_v1(card: object, where: str = "card") -> Json:
    """A 0.3 agent card (its JSON-RPC form, or the 0.3 proto's ProtoJSON) as a 1.0
    ``AgentCard``."""
    value = _object(card, where)
    out: Json = {}
    _copy(value, out, _CARD_FIELDS)
    primary: Json = {"url": value.get("url", "")}
    primary["protocolBinding"] = value.get("preferredTransport") or "JSONRPC"
    primary["protocolVersion"] = value.get("protocolVersion") or "0.3"
    interfaces = [primary]
    extra = value.get("additionalInterfaces") or []
    for i, item in enumerate(_list(extra, f"{where}.additionalInterfaces")):
        interface = _object(item, f"{where}.additionalInterfaces[{i}]")
        interfaces.append(
            {
                "url": interface.get("url", ""),
                "protocolBinding": interface.get("transport", ""),
                "protocolVersion": "0.3",
            }
        )
    out["supportedInterfaces"] = interfaces
    if value.get("provider") is not None:
        out["provider"] = _object(value["provider"], f"{where}.provider")
    _copy(value, out, ("documentationUrl", "iconUrl"))
    given = _object(value.get("capabilities", {}), f"{where}.capabilities")
    capabilities: Json = {}
    _copy(given, capabilities, ("streaming", "pushNotifications", "extensions"))
    if value.get("supportsAuthenticatedExtendedCard") is not None:
        capabilities["extendedAgentCard"] = value["supportsAuthenticatedExtendedCard"]
    out["capabilities"] = capabilities
    if value.get("securitySchemes"):
        schemes = _object(value["securitySchemes"], f"{where}.securitySchemes")
        out["securitySchemes"] = {
            name: _scheme_to_v1(scheme, f"{where}.securitySchemes.{name}")
            for name, scheme in schemes.items()
        }
    if value.get("security"):
        out["securityRequirements"] = _requirements_to_v1(
            value["security"], f"{where}.security"
        )
    _copy(value, out, ("defaultInputModes", "defaultOutputModes"))
    skills = value.get("skills", [])
    out["skills"] = [
        _skill_to_v1(s, f"{where}.skills[{i}]")
        for i, s in enumerate(_list(skills, f"{where}.skills"))
    ]
    if value.get("signatures"):
        out["signatures"] = _list(value["signatures"], f"{where}.signatures")
    return out


def card_from_v1(card: Json) -> Json:
    """A 1.0 ``AgentCard`` as the 0.3 card (the JSON-RPC form every 0.3 binding
    serves); ``ShapeError`` when no interface of the card speaks 0.3."""
    interfaces = [
        i
        for i in card.get("supportedInterfaces", ())
        if _is_legacy(i.get("protocolVersion"))
    ]
    if not interfaces:
        raise ShapeError(
            "supportedInterfaces", "no interface with a 0.3 (or no) protocolVersion"
        )
    primary = interfaces[0]
    out: Json = {
        "name": card.get("name", ""),
        "description": card.get("description", ""),
        "url": primary.get("url", ""),
        "preferredTransport": primary.get("protocolBinding", ""),
        "protocolVersion": primary.get("protocolVersion") or "0.3",
        "version": card.get("version", ""),
    }
    if len(interfaces) > 1:
        out["additionalInterfaces"] = [
            {"url": i.get("url", ""), "transport": i.get("protocolBinding", "")}
            for i in interfaces[1:]
        ]
    _copy(card, out, ("provider", "documentationUrl", "iconUrl"))
    given = card.get("capabilities", {})
    capabilities: Json = {}
    _copy(given, capabilities, ("streaming", "pushNotifications", "extensions"))
    out["capabilities"] = capabilities
    if "extendedAgentCard" in given:
        out["supportsAuthenticatedExtendedCard"] = given["extendedAgentCard"]
    if card.get("securitySchemes"):
        out["securitySchemes"] = {
            name: _scheme_from_v1(scheme)
            for name, scheme in card["securitySchemes"].items()
        }
    if card.get("securityRequirements"):
        out["security"] = _requirements_from_v1(card["securityRequirements"])
    out["defaultInputModes"] = list(card.get("defaultInputModes", ()))
    out["defaultOutputModes"] = list(card.get("defaultOutputModes", ()))
    out["skills"] = [_skill_from_v1(s) for s in card.get("skills", ())]
    _copy(card, out, ("signatures",))
    return out

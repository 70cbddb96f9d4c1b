"""The A2A 0.3 agent card and the 1.0 one (ProtoJSON), both ways, and the one card
both kinds of client read.

0.3 peers read and write one card form on every binding: the JSON of the 0.3 JSON-RPC
schema (a2a-sdk 0.3.26 serves it at ``/.well-known/agent-card.json``, as the
``agent/getAuthenticatedExtendedCard`` result and at ``GET /v1/card``). It says one
main interface (``url``, ``preferredTransport``, ``protocolVersion``) and
``additionalInterfaces`` where 1.0 lists ``supportedInterfaces``; a security scheme is
an OpenAPI object with ``type`` (``apiKey``, ``http``, ``oauth2``, ``openIdConnect``,
``mutualTLS``) where 1.0 names the scheme's kind as a field
(``{"httpAuthSecurityScheme": {...}}``); a security requirement is ``{name: [scopes]}``
where 1.0 nests ``{"schemes": {name: {"list": [scopes]}}}``;
``supportsAuthenticatedExtendedCard`` is 1.0's ``capabilities.extendedAgentCard``.

To 0.3 (``card_from_v1``): the 0.3 interfaces are the card's interfaces whose
``protocolVersion`` is 0.3 (or empty), the first one the main ``url``; a card that
lists none (its author listed the 1.0 interfaces only) gets them from its JSON-RPC and
HTTP+JSON interfaces without a tenant, which the application serves 0.3 on as well
(the same URLs: the 0.3 JSON-RPC methods beside the 1.0 ones, the 0.3 HTTP+JSON routes
under ``/v1`` beside the 1.0 ones). A card with neither has nothing a 0.3 client can
call: None. A 1.0 ``deviceCode`` flow and ``pkceRequired`` have no 0.3 place.

From 0.3 (``card_to_v1``, a2a-sdk 1.3.0's ``compat.v0_3`` makes the same choices): each
interface gets ``protocolVersion`` "0.3" unless the card says its own for the main one;
of several 0.3 OAuth flows 1.0 keeps one (the last of authorizationCode,
clientCredentials, implicit, password given); 0.3's ``stateTransitionHistory`` has no
1.0 place.

``card_for_both`` is the one card both kinds of client read (the decision a2a-sdk
1.3.0 made as well, whose clients of either version read it): the 1.0 card with the
0.3 fields merged in, the 1.0 value kept where both name a field.
"""

from __future__ import annotations

from typing import Any

from ._quoting import excerpt
from ._v0_3_shapes import ShapeError, _list, _object

__all__ = ["card_answer_from_v1", "card_for_both", "card_from_v1", "card_to_v1"]

Json = dict[str, Any]

_BINDINGS_SERVED = ("JSONRPC", "HTTP+JSON")  # what the application serves 0.3 on
_VERSION = "0.3.0"  # what a 0.3 card says when its interface names no version

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
_MORE_CARD_FIELDS = ("provider", "documentationUrl", "iconUrl", "signatures")
_CAPABILITIES = ("streaming", "pushNotifications", "extensions")


def _copy(source: Json, target: Json, names: tuple[str, ...]) -> None:
    for name in names:
        if source.get(name) is not None:
            target[name] = source[name]


def _is_v0_3(version: object) -> bool:
    """An interface's ``protocolVersion`` naming 0.3 (``0.3``, ``0.3.0``) or none."""
    if not version:
        return True
    return isinstance(version, str) and (version == "0.3" or version.startswith("0.3."))


def _interfaces(card: Json) -> tuple[list[Json], str]:
    """The 0.3 interfaces of ``card`` and the ``protocolVersion`` of the first."""
    listed = [i for i in card.get("supportedInterfaces", ()) if isinstance(i, dict)]
    v0_3 = [i for i in listed if _is_v0_3(i.get("protocolVersion"))]
    if v0_3:
        return v0_3, v0_3[0].get("protocolVersion") or _VERSION
    served = [
        i
        for i in listed
        if i.get("protocolBinding") in _BINDINGS_SERVED and not i.get("tenant")
    ]
    return served, _VERSION


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


def _requirements_from_v1(requirements: list[Json]) -> list[Json]:
    return [
        {
            name: list(scopes.get("list", ()))
            for name, scopes in r.get("schemes", {}).items()
        }
        for r in requirements
    ]


def _skill_from_v1(skill: Json) -> Json:
    out: Json = {}
    _copy(skill, out, ("id", "name", "description"))
    out["tags"] = list(skill.get("tags", ()))
    _copy(skill, out, ("examples", *_SKILL_MODES))
    if skill.get("securityRequirements"):
        out["security"] = _requirements_from_v1(skill["securityRequirements"])
    return out


def card_from_v1(card: Json) -> Json | None:
    """The 0.3 agent card of a 1.0 ProtoJSON ``card`` (the JSON-RPC form every 0.3
    binding serves); None when the card lists no interface a 0.3 client can call
    (see the module docstring)."""
    interfaces, version = _interfaces(card)
    if not interfaces:
        return None
    main, *more = interfaces
    out: Json = {}
    _copy(card, out, _CARD_FIELDS)
    out["url"] = main.get("url", "")
    out["preferredTransport"] = main.get("protocolBinding", "JSONRPC")
    out["protocolVersion"] = version
    if more:
        out["additionalInterfaces"] = [
            {"url": i.get("url", ""), "transport": i.get("protocolBinding", "")}
            for i in more
        ]
    _copy(card, out, _MORE_CARD_FIELDS)
    given = card.get("capabilities", {})
    capabilities: Json = {}
    _copy(given, capabilities, _CAPABILITIES)
    out["capabilities"] = capabilities
    if given.get("extendedAgentCard"):
        out["supportsAuthenticatedExtendedCard"] = True
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
    return out


def _scheme_to_v1(scheme: object, where: str) -> Json:
    value = _object(scheme, where)
    if "type" not in value:  # the 0.3 proto's ProtoJSON form is 1.0's
        return dict(value)
    kind = value["type"]
    names = dict(_SCHEME_TYPES)
    if not isinstance(kind, str) or kind not in names:
        raise ShapeError(
            f"{where}.type", f"no such security scheme type {excerpt(kind)}"
        )
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


def _skill_to_v1(skill: object, where: str) -> Json:
    value = _object(skill, where)
    out: Json = {}
    _copy(value, out, (*_SKILL_FIELDS, *_SKILL_MODES))
    if value.get("security"):
        out["securityRequirements"] = _requirements_to_v1(
            value["security"], f"{where}.security"
        )
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


def card_answer_from_v1(card: Json) -> Json:
    """A handler's 1.0 card (the extended card) as a 0.3 answer: its 0.3 form, or the
    card as it is when it lists no interface a 0.3 client can call."""
    return card_from_v1(card) or card


def _merge(into: Json, extra: Json) -> Json:
    """``extra``'s fields added to ``into`` where it lacks them, objects and the
    objects of lists at the same position merged the same way."""
    for key, value in extra.items():
        if key not in into:
            into[key] = value
        elif isinstance(value, dict) and isinstance(into[key], dict):
            into[key] = _merge(dict(into[key]), value)
        elif isinstance(value, list) and isinstance(into[key], list):
            into[key] = [
                (
                    _merge(dict(mine), theirs)
                    if isinstance(mine, dict) and isinstance(theirs, dict)
                    else mine
                )
                for mine, theirs in zip(into[key], value)
            ] + into[key][len(value) :]
    return into


def card_for_both(card: Json) -> Json:
    """The card 1.0 and 0.3 clients both read: ``card`` with the fields of its 0.3
    form merged in (a new dict; ``card`` is not changed)."""
    v0_3 = card_from_v1(card)
    if v0_3 is None:
        return card
    return _merge(dict(card), v0_3)

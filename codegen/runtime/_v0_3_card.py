"""The agent card for 0.3 clients: what a 0.3 client reads, from the 1.0 card.

A 0.3 client reads ``url``, ``preferredTransport``, ``protocolVersion`` and
``additionalInterfaces`` where a 1.0 client reads ``supportedInterfaces``; security
schemes are objects discriminated by ``type`` (``{"type": "http", "scheme": ...}``)
where 1.0 names the scheme's kind as a field (``{"httpAuthSecurityScheme": {...}}``);
security requirements are ``{name: [scopes]}`` where 1.0 nests them under ``schemes``
and ``list``; ``supportsAuthenticatedExtendedCard`` is 1.0's
``capabilities.extendedAgentCard``.

The 0.3 interfaces are the card's interfaces whose ``protocolVersion`` is 0.3 (or
empty), the first one the main ``url``; a card that lists none (its author listed the
1.0 interfaces only) gets them from its JSON-RPC and HTTP+JSON interfaces without a
tenant, which the application serves 0.3 on as well (the same URLs: the 0.3 JSON-RPC
methods beside the 1.0 ones, the 0.3 HTTP+JSON routes under ``/v1`` beside the 1.0
ones). A card with neither has nothing a 0.3 client can call: it gets no 0.3 fields.

``card_for_both`` is the one card both kinds of client read (the decision a2a-sdk
1.3.0 made as well, whose clients of either version read it): the 1.0 card with the
0.3 fields merged in, the 1.0 value kept where both name a field.
"""

from __future__ import annotations

from typing import Any

__all__ = ["card_for_both", "card_from_v1"]

Json = dict[str, Any]

_BINDINGS_SERVED = ("JSONRPC", "HTTP+JSON")  # what the application serves 0.3 on
_VERSION = "0.3.0"  # what a 0.3 card says when its interface names no version

# 1.0 scheme field -> the 0.3 ``type`` and the 1.0 fields -> 0.3 fields it keeps.
_SCHEMES: dict[str, tuple[str, dict[str, str]]] = {
    "apiKeySecurityScheme": (
        "apiKey",
        {"description": "description", "location": "in", "name": "name"},
    ),
    "httpAuthSecurityScheme": (
        "http",
        {
            "description": "description",
            "scheme": "scheme",
            "bearerFormat": "bearerFormat",
        },
    ),
    "oauth2SecurityScheme": (
        "oauth2",
        {"description": "description", "oauth2MetadataUrl": "oauth2MetadataUrl"},
    ),
    "openIdConnectSecurityScheme": (
        "openIdConnect",
        {"description": "description", "openIdConnectUrl": "openIdConnectUrl"},
    ),
    "mtlsSecurityScheme": ("mutualTLS", {"description": "description"}),
}

# The flows 0.3 has (1.0's deviceCode is new) and the fields 0.3 keeps of each.
_FLOWS: dict[str, tuple[str, ...]] = {
    "authorizationCode": ("authorizationUrl", "tokenUrl", "refreshUrl", "scopes"),
    "clientCredentials": ("tokenUrl", "refreshUrl", "scopes"),
    "implicit": ("authorizationUrl", "refreshUrl", "scopes"),
    "password": ("tokenUrl", "refreshUrl", "scopes"),
}

_SKILL_FIELDS = (
    "id",
    "name",
    "description",
    "tags",
    "examples",
    "inputModes",
    "outputModes",
)
_CARD_FIELDS = (
    "name",
    "description",
    "version",
    "provider",
    "documentationUrl",
    "iconUrl",
    "signatures",
)
_CAPABILITIES = ("streaming", "pushNotifications", "extensions")


def _copy(source: Json, target: Json, names: tuple[str, ...]) -> None:
    for name in names:
        if name in source:
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


def _scheme(scheme: Json) -> Json:
    for field, (kind, names) in _SCHEMES.items():
        if field in scheme:
            given = scheme[field]
            out: Json = {"type": kind}
            for old, new in names.items():
                if old in given:
                    out[new] = given[old]
            if kind == "oauth2":
                out["flows"] = _flows(given.get("flows", {}))
            return out
    return {}


def _flows(flows: Json) -> Json:
    out: Json = {}
    for name, fields in _FLOWS.items():
        if name in flows:
            flow: Json = {}
            _copy(flows[name], flow, fields)
            out[name] = flow
    return out


def _requirements(requirements: list[Json]) -> list[dict[str, list[str]]]:
    return [
        {
            name: list(scopes.get("list", ()))
            for name, scopes in requirement.get("schemes", {}).items()
        }
        for requirement in requirements
    ]


def _skill(skill: Json) -> Json:
    out: Json = {}
    _copy(skill, out, _SKILL_FIELDS)
    if skill.get("securityRequirements"):
        out["security"] = _requirements(skill["securityRequirements"])
    return out


def card_from_v1(card: Json) -> Json | None:
    """The 0.3 agent card of a 1.0 ProtoJSON ``card``; None when the card lists no
    interface a 0.3 client can call (see the module docstring)."""
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
    given = card.get("capabilities", {})
    capabilities: Json = {}
    _copy(given, capabilities, _CAPABILITIES)
    out["capabilities"] = capabilities
    if given.get("extendedAgentCard"):
        out["supportsAuthenticatedExtendedCard"] = True
    if card.get("securitySchemes"):
        out["securitySchemes"] = {
            name: _scheme(scheme) for name, scheme in card["securitySchemes"].items()
        }
    if card.get("securityRequirements"):
        out["security"] = _requirements(card["securityRequirements"])
    out["defaultInputModes"] = list(card.get("defaultInputModes", ()))
    out["defaultOutputModes"] = list(card.get("defaultOutputModes", ()))
    out["skills"] = [_skill(skill) for skill in card.get("skills", ())]
    return out


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

"""What changed between two versions of a service, at the level its users see.

Compares two models (``codegen.model``): services, rpcs and their JSON-RPC method names,
routes (verb, template, path fields, body, tenant variants), query parameters and
streaming. Each change is marked breaking (an existing client or server stops working)
or compatible.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from .model import Binding, BindingFile, Method, Service

__all__ = ["Change", "diff_files", "format_changes"]


@dataclass(frozen=True)
class Change:
    """One user-visible change. ``subject`` names what changed (an rpc, a route)."""

    service: str
    subject: str
    description: str
    breaking: bool


def _relative(full_name: str, package: str) -> str:
    return (
        full_name[len(package) + 1 :]
        if package and full_name.startswith(package + ".")
        else full_name
    )


def _package(service: Service) -> str:
    return service.full_name.rpartition(".")[0]


def _route_label(binding: Binding) -> str:
    return f"{binding.verb} {binding.template.source}"


def _shape(binding: Binding) -> tuple[str, tuple[str, ...]]:
    """What a route matches, ignoring variable names."""
    return binding.verb, binding.template.shape


def _rename_score(
    old: Method, new: Method, old_package: str, new_package: str
) -> float:
    """How likely ``new`` is ``old`` renamed: same route shape, same request type, or a
    similar name."""
    score = difflib.SequenceMatcher(None, old.name, new.name).ratio()
    old_shapes = {_shape(b) for b in old.bindings if not b.tenant and not b.alias}
    new_shapes = {_shape(b) for b in new.bindings if not b.tenant and not b.alias}
    if old_shapes & new_shapes:
        score += 1.0
    old_verbs = {b.template.verb for b in old.bindings if b.template.verb}
    if old_verbs & {b.template.verb for b in new.bindings if b.template.verb}:
        score += 1.0  # the same custom verb (":subscribe") is the same operation
    if _relative(old.request.full_name, old_package) == _relative(
        new.request.full_name, new_package
    ):
        score += 0.5
    if old.server_streaming == new.server_streaming:
        score += 0.2
    return score


def _pair_renames(
    removed: list[Method], added: list[Method], old_package: str, new_package: str
) -> list[tuple[Method, Method]]:
    candidates = sorted(
        (
            (
                _rename_score(old, new, old_package, new_package),
                old.name,
                new.name,
                old,
                new,
            )
            for old in removed
            for new in added
        ),
        key=lambda item: (-item[0], item[1], item[2]),
    )
    pairs: list[tuple[Method, Method]] = []
    taken_old: set[str] = set()
    taken_new: set[str] = set()
    for score, old_name, new_name, old, new in candidates:
        if score >= 0.9 and old_name not in taken_old and new_name not in taken_new:
            pairs.append((old, new))
            taken_old.add(old_name)
            taken_new.add(new_name)
    return pairs


def _query_params(method: Method) -> dict[str, str]:
    """Query parameters a client sets (not bound by the path of every route), with their
    type as ``codec`` or ``repeated codec``."""
    if not method.has_query:
        return {}
    always_bound = set.intersection(
        *({pf.proto_path for pf in binding.path_fields} for binding in method.bindings)
    )
    return {
        param.json_name: ("repeated " if param.repeated else "")
        + param.codec
        + (f" {param.enum.full_name.rpartition('.')[2]}" if param.enum else "")
        for param in method.query
        if param.proto_path not in always_bound
    }


def _route_key(binding: Binding) -> tuple[str, bool, bool]:
    return binding.verb, binding.tenant, binding.alias


def _compare_routes(
    service: str, rpc: str, old: Method, new: Method
) -> Iterable[Change]:
    old_routes: dict[tuple[str, bool, bool], list[Binding]] = {}
    for binding in old.bindings:
        old_routes.setdefault(_route_key(binding), []).append(binding)
    new_routes: dict[tuple[str, bool, bool], list[Binding]] = {}
    for binding in new.bindings:
        new_routes.setdefault(_route_key(binding), []).append(binding)
    for key in sorted(set(old_routes) | set(new_routes)):
        before, after = old_routes.get(key, []), new_routes.get(key, [])
        for old_route, new_route in zip(before, after):
            yield from _compare_route(service, rpc, old_route, new_route)
        for removed in before[len(after) :]:
            yield Change(
                service, f"rpc {rpc}", f"route {_route_label(removed)} removed", True
            )
        for added in after[len(before) :]:
            what = (
                "tenant route"
                if added.tenant
                else "alias route" if added.alias else "route"
            )
            yield Change(
                service, f"rpc {rpc}", f"{what} {_route_label(added)} added", False
            )


def _compare_route(
    service: str, rpc: str, old: Binding, new: Binding
) -> Iterable[Change]:
    subject = f"rpc {rpc}: {_route_label(old)}"
    if old.template.source != new.template.source:
        yield Change(
            service,
            subject,
            f"template {old.template.source} -> {new.template.source}",
            old.template.shape != new.template.shape
            or old.path_json_names != new.path_json_names,
        )
    if old.path_json_names != new.path_json_names:
        yield Change(
            service,
            subject,
            f"path fields {', '.join(old.path_json_names) or '-'} -> {', '.join(new.path_json_names) or '-'}",
            True,
        )
    if old.body != new.body:
        yield Change(
            service, subject, f"body {old.body or '-'} -> {new.body or '-'}", True
        )
    if old.response_body != new.response_body:
        yield Change(
            service,
            subject,
            f"response_body {old.response_body or '-'} -> {new.response_body or '-'}",
            True,
        )


def _compare_methods(
    service: str, old: Method, new: Method, old_package: str, new_package: str
) -> Iterable[Change]:
    rpc = new.name
    if old.name != new.name:
        yield Change(
            service,
            f"rpc {old.name}",
            f"renamed to {new.name}, judging by its routes and types (JSON-RPC and gRPC method "
            f"{old.name} -> {new.name})",
            True,
        )
    for label, before, after in (
        ("request type", old.request.full_name, new.request.full_name),
        ("response type", old.response.full_name, new.response.full_name),
    ):
        if _relative(before, old_package) != _relative(after, new_package):
            yield Change(service, f"rpc {rpc}", f"{label} {before} -> {after}", True)
    if old.server_streaming != new.server_streaming:
        state = "now streams" if new.server_streaming else "no longer streams"
        yield Change(service, f"rpc {rpc}", f"{state} its response", True)
    yield from _compare_routes(service, rpc, old, new)
    old_query, new_query = _query_params(old), _query_params(new)
    for name in sorted(set(old_query) | set(new_query)):
        old_type, new_type = old_query.get(name), new_query.get(name)
        if old_type == new_type:
            continue
        if old_type is None:
            yield Change(
                service,
                f"rpc {rpc}",
                f"query parameter {name} ({new_type}) added",
                False,
            )
        elif new_type is None:
            yield Change(
                service,
                f"rpc {rpc}",
                f"query parameter {name} ({old_type}) removed",
                True,
            )
        else:
            yield Change(
                service,
                f"rpc {rpc}",
                f"query parameter {name} retyped {old_type} -> {new_type}",
                True,
            )


def _compare_services(old: Service, new: Service) -> Iterable[Change]:
    service = new.name
    old_package, new_package = _package(old), _package(new)
    if old.full_name != new.full_name:
        yield Change(
            service,
            f"service {old.name}",
            f"full name {old.full_name} -> {new.full_name} (gRPC paths change)",
            True,
        )
    old_methods = {m.name: m for m in old.methods}
    new_methods = {m.name: m for m in new.methods}
    removed = [old_methods[n] for n in old_methods if n not in new_methods]
    added = [new_methods[n] for n in new_methods if n not in old_methods]
    renames = _pair_renames(removed, added, old_package, new_package)
    renamed_old = {o.name for o, _ in renames}
    renamed_new = {n.name for _, n in renames}
    pairs = [(old_methods[n], new_methods[n]) for n in old_methods if n in new_methods]
    for old_method, new_method in sorted(pairs + renames, key=lambda p: p[1].name):
        yield from _compare_methods(
            service, old_method, new_method, old_package, new_package
        )
    for method in removed:
        if method.name not in renamed_old:
            yield Change(
                service, f"rpc {method.name}", "removed (and its JSON-RPC method)", True
            )
    for method in added:
        if method.name not in renamed_new:
            yield Change(
                service, f"rpc {method.name}", "added (and its JSON-RPC method)", False
            )


def diff_files(old: Sequence[BindingFile], new: Sequence[BindingFile]) -> list[Change]:
    """Every change between two generations, services matched by their short name."""
    old_services = {s.name: s for f in old for s in f.services}
    new_services = {s.name: s for f in new for s in f.services}
    changes: list[Change] = []
    for name in sorted(set(old_services) | set(new_services)):
        if name not in new_services:
            changes.append(Change(name, f"service {name}", "removed", True))
        elif name not in old_services:
            changes.append(Change(name, f"service {name}", "added", False))
        else:
            changes.extend(_compare_services(old_services[name], new_services[name]))
    return changes


def format_changes(
    changes: Sequence[Change], fmt: str, old_label: str, new_label: str
) -> str:
    """The changes as ``text``, ``json`` or ``markdown``."""
    breaking = sum(c.breaking for c in changes)
    compatible = len(changes) - breaking
    if fmt == "json":
        return json.dumps(
            {
                "old": old_label,
                "new": new_label,
                "breaking": breaking,
                "compatible": compatible,
                "changes": [asdict(c) for c in changes],
            },
            indent=2,
        )
    summary = (
        f"{breaking} breaking, {compatible} compatible change{'s' if len(changes) != 1 else ''}"
        if changes
        else "no binding change: routes, JSON-RPC methods, query parameters and streaming are the same"
    )
    if fmt == "markdown":
        lines = [f"### {old_label} -> {new_label}", "", summary]
        if changes:
            lines += ["", "| | service | what | change |", "|---|---|---|---|"]
            lines += [
                f"| {'**breaking**' if c.breaking else 'compatible'} | {c.service} | {c.subject} | {c.description} |"
                for c in changes
            ]
        return "\n".join(lines)
    lines = [f"{old_label} -> {new_label}: {summary}"]
    lines += [
        f"  {'BREAKING  ' if c.breaking else 'compatible'}  {c.service}: {c.subject}: {c.description}"
        for c in changes
    ]
    return "\n".join(lines)

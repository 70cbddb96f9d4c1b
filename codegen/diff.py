"""What changed between two versions of a service, at the level its JSON peers see.

Compares two models (``codegen.model``) at two levels:

- bindings: services, rpcs and their JSON-RPC method names, routes (verb, template,
  path fields, body, response_body, tenant variants, aliases), query parameters (a new
  REQUIRED one), streaming, and the package (gRPC paths);
- messages and enums (``diff_messages``): fields added, removed, renamed, renumbered,
  retyped (with the ProtoJSON consequence), cardinality, presence, REQUIRED, oneofs,
  defaults, enum values, and types renamed or moved, each judged for requests and
  responses.

Each change says who it breaks (``diff_change``): old clients, old servers, both, only
gRPC peers, or nobody. ``diff_report`` prints them.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable, Mapping, Sequence

from .diff_change import (
    BOTH,
    CLIENTS,
    GRPC,
    NONE,
    SERVERS,
    Change,
    Effect,
    Impact,
    Role,
    effect_of,
)
from .diff_json import misread, scalar_form
from .diff_messages import Schema, TypeComparison, relative_name
from .diff_report import format_changes
from .diff_routes import (
    Answers,
    RoutePairs,
    pair_routes,
    route_kind,
    route_label,
    route_query,
)
from .model import Binding, BindingFile, Field, Message, Method, QueryParam, Service

__all__ = ["Change", "Impact", "diff_files", "format_changes", "pair_files"]


_KIND_NOTES = {
    "server streaming": "server streaming: answers with SSE",
    "client streaming": "client streaming: its requests a JSON array over HTTP+JSON, "
    "refused over JSON-RPC",
    "bidirectional streaming": "bidirectional streaming: its requests a JSON array "
    "over HTTP+JSON, answers with SSE, refused over JSON-RPC",
}
"""What each streaming kind means for a JSON peer, as ``diff`` reports it."""


def _rpc_kind(method: Method) -> str:
    """How the rpc takes its requests and answers (``Method.kind``), for JSON peers."""
    return _KIND_NOTES.get(method.kind, method.kind)


def _route_list(method: Method) -> str:
    return ", ".join(route_label(b) for b in method.bindings)


def _shape(binding: Binding) -> tuple[str, tuple[str, ...]]:
    """What a route matches, ignoring variable names."""
    return binding.verb, binding.template.shape


def _package(service: Service) -> str:
    return service.full_name.rpartition(".")[0]


def _rename_score(
    old: Method, new: Method, old_package: str, new_package: str
) -> float:
    """How likely ``new`` is ``old`` renamed: same route shape, same custom verb, same
    request type, or a similar name."""
    score = difflib.SequenceMatcher(None, old.name, new.name).ratio()
    old_shapes = {_shape(b) for b in old.bindings if not b.tenant and not b.alias}
    new_shapes = {_shape(b) for b in new.bindings if not b.tenant and not b.alias}
    if old_shapes & new_shapes:
        score += 1.0
    old_verbs = {b.template.verb for b in old.bindings if b.template.verb}
    if old_verbs & {b.template.verb for b in new.bindings if b.template.verb}:
        score += 1.0  # the same custom verb (":subscribe") is the same operation
    if relative_name(old.request.full_name, old_package) == relative_name(
        new.request.full_name, new_package
    ):
        score += 0.5
    if old.kind == new.kind:
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


class _Bindings:
    """The binding-level comparison of one pair of services."""

    def __init__(
        self,
        old: Service,
        new: Service,
        old_schema: Schema,
        new_schema: Schema,
        types: TypeComparison,
        answers: Answers,
    ) -> None:
        self.old = old
        self.new = new
        self.answers = answers  # the new version's table, for routes that go
        self.old_schema = old_schema
        self.new_schema = new_schema
        self.types = types
        self.service = new.name

    def change(
        self,
        old: Method,
        new: Method,
        description: str,
        effect: Effect,
        code: str,
        old_binding: Binding | None = None,
        new_binding: Binding | None = None,
    ) -> Change:
        return Change(
            f"rpc {self.service}.{new.name}",
            description,
            effect.impact,
            (code,),
            f"{self.old.full_name}.{old.name}",
            f"{self.new.full_name}.{new.name}",
            old_binding.location if old_binding else old.location,
            new_binding.location if new_binding else new.location,
            service=self.service,
        )

    def changes(self) -> Iterable[Change]:
        old_package, new_package = _package(self.old), _package(self.new)
        old_methods = {m.name: m for m in self.old.methods}
        new_methods = {m.name: m for m in self.new.methods}
        removed = [old_methods[n] for n in old_methods if n not in new_methods]
        added = [new_methods[n] for n in new_methods if n not in old_methods]
        renames = _pair_renames(removed, added, old_package, new_package)
        renamed_old = {o.name for o, _ in renames}
        renamed_new = {n.name for _, n in renames}
        pairs = [
            (old_methods[n], new_methods[n]) for n in old_methods if n in new_methods
        ]
        order = {m.name: i for i, m in enumerate(self.new.methods)}
        for old_method, new_method in sorted(
            pairs + renames, key=lambda p: order[p[1].name]
        ):
            yield from self.methods(old_method, new_method)
        for method in removed:
            if method.name not in renamed_old:
                yield Change(
                    f"rpc {self.service}.{method.name}",
                    f"removed ({_rpc_kind(method)}), and its JSON-RPC method and "
                    "routes: old clients that call it get -32601 over JSON-RPC; "
                    + "; ".join(
                        f"on {route_label(b)} they "
                        + self.answers.answer(b.verb, b.template)
                        for b in method.bindings
                    ),
                    "clients",
                    ("rpc-removed",),
                    f"{self.old.full_name}.{method.name}",
                    "",
                    method.location,
                    self.new.location,
                    service=self.service,
                )
        for method in added:
            if method.name not in renamed_new:
                yield Change(
                    f"rpc {self.service}.{method.name}",
                    f"added ({_rpc_kind(method)}), with its JSON-RPC method and "
                    f"routes ({_route_list(method)})",
                    "none",
                    ("rpc-added",),
                    "",
                    f"{self.new.full_name}.{method.name}",
                    self.old.location,
                    method.location,
                    service=self.service,
                )

    def methods(self, old: Method, new: Method) -> Iterable[Change]:
        if old.name != new.name:
            yield self.change(
                old,
                new,
                f"renamed from {old.name}, judging by its routes and types (JSON-RPC "
                f"and gRPC method {old.name} -> {new.name})",
                BOTH,
                "rpc-renamed",
            )
        for label, before, after in (
            ("request", old.request, new.request),
            ("response", old.response, new.response),
        ):
            yield from self.message_type(old, new, label, before, after)
        if old.server_streaming != new.server_streaming:
            state = (
                "now streams its response (SSE)"
                if new.server_streaming
                else "no longer streams its response"
            )
            yield self.change(old, new, state, BOTH, "rpc-streaming-changed")
        if old.client_streaming != new.client_streaming:
            state = (
                "now takes a stream of requests (a JSON array over HTTP+JSON; "
                "JSON-RPC refuses it)"
                if new.client_streaming
                else "no longer takes a stream of requests (one request, not a JSON "
                "array)"
            )
            yield self.change(old, new, state, BOTH, "rpc-streaming-changed")
        if new.deprecated and not old.deprecated:
            yield self.change(old, new, "now deprecated", NONE, "rpc-deprecated")
        pairs = pair_routes(old.bindings, new.bindings)
        yield from self.routes(old, new, pairs)
        yield from self.query(old, new, pairs)

    def message_type(
        self, old: Method, new: Method, label: str, before: Message, after: Message
    ) -> Iterable[Change]:
        """A request or response type that is another type, compared field by field
        in that role (a renamed type is compared under its own name)."""
        if self.types.same_type(before.full_name, after.full_name):
            return
        role: Role = "request" if label == "request" else "response"
        subject = f"rpc {self.service}.{new.name} {label}"
        details = list(self.types.messages(before, after, frozenset((role,)), subject))
        old_name = relative_name(before.full_name, before.package)
        new_name = relative_name(after.full_name, after.package)
        yield Change(
            f"rpc {self.service}.{new.name}",
            f"{label} type {old_name} -> {new_name} (the JSON-RPC "
            f"{'params' if label == 'request' else 'result'} and the gRPC message)"
            + (
                f": {len(details)} field change(s) under '{subject}'"
                if details
                else ": the same fields"
            ),
            effect_of(details).impact,
            (f"rpc-{label}-type-changed",),
            f"{self.old.full_name}.{old.name}",
            f"{self.new.full_name}.{new.name}",
            old.location,
            new.location,
            service=self.service,
        )
        yield from (dataclasses.replace(c, service=self.service) for c in details)

    def routes(self, old: Method, new: Method, pairs: RoutePairs) -> Iterable[Change]:
        """Each route an old client sends, as the new table answers it
        (``diff_routes``); then the routes only new clients know."""
        for old_route, new_route in pairs.kept:
            yield from self.route(old, new, old_route, new_route)
        for old_route, new_route in pairs.moved:
            yield from self.route(old, new, old_route, new_route)
        answered = pairs.answered
        for old_route, twin in pairs.verb_changed:
            yield self.verb_change(old, new, old_route, twin)
            if (old_route, twin) in answered:
                yield from self.route(old, new, old_route, twin, verb_changed=True)
        for binding in pairs.removed:
            answer = self.answers.answer(binding.verb, binding.template, new.name)
            yield self.change(
                old,
                new,
                f"{route_kind(binding)} {route_label(binding)} removed: old clients "
                f"that use it {answer}",
                CLIENTS,
                "route-removed",
                binding,
                None,
            )
        for binding in pairs.added:
            yield self.change(
                old,
                new,
                f"{route_kind(binding)} {route_label(binding)} added",
                NONE,
                "route-added",
                None,
                binding,
            )

    def verb_change(
        self, old: Method, new: Method, old_route: Binding, twin: Binding
    ) -> Change:
        """A route whose paths now take another verb: old clients that send the old
        verb are refused; new clients send the new one, which old servers take only
        where the old rpc had a route for it too (the generated POST alias)."""
        answer = self.answers.answer(old_route.verb, old_route.template, new.name)
        served = any(
            b.verb == twin.verb and b.template.shape == twin.template.shape
            for b in old.bindings
        )
        text = (
            f"{route_label(old_route)}: verb {old_route.verb} -> {twin.verb}: old "
            f"clients that send {old_route.verb} {answer}"
        )
        text += (
            f"; old servers take {twin.verb} there too"
            if served
            else f"; old servers do not take {twin.verb} there"
        )
        return self.change(
            old,
            new,
            text,
            Effect(clients=True, servers=not served),
            "route-verb-changed",
            old_route,
            twin,
        )

    def route(
        self,
        old: Method,
        new: Method,
        old_route: Binding,
        new_route: Binding,
        *,
        verb_changed: bool = False,
    ) -> Iterable[Change]:
        label = route_label(old_route)
        if old_route.template.source != new_route.template.source:
            moved = (
                old_route.template.shape != new_route.template.shape
                or old_route.path_json_names != new_route.path_json_names
            )
            yield self.change(
                old,
                new,
                f"{label}: template {old_route.template.source} -> "
                f"{new_route.template.source}"
                + (
                    " (the same paths match)"
                    if not moved
                    else (
                        ""
                        if old_route.template.shape == new_route.template.shape
                        else ": old clients that use it "
                        + self.answers.answer(
                            old_route.verb, old_route.template, new.name
                        )
                    )
                ),
                BOTH if moved else NONE,
                "route-template-changed",
                old_route,
                new_route,
            )
        if old_route.path_json_names != new_route.path_json_names:
            yield self.change(
                old,
                new,
                f"{label}: path fields {', '.join(old_route.path_json_names) or '-'} -> "
                f"{', '.join(new_route.path_json_names) or '-'}",
                BOTH,
                "route-path-fields-changed",
                old_route,
                new_route,
            )
        if old_route.alias != new_route.alias and not verb_changed:
            yield self.change(
                old,
                new,
                (
                    f"alias route {label}: now the rule's own route (old clients "
                    "that use it are answered as before)"
                    if old_route.alias
                    else f"route {label}: now a generated alias of the rule (answered "
                    "as before)"
                ),
                NONE,
                "route-alias-changed",
                old_route,
                new_route,
            )
        # Across a verb change old clients are refused and old servers lack the
        # route, or take it (an alias) and are compared there: the body is moot.
        if old_route.body != new_route.body and not verb_changed:
            yield from self.body(old, new, old_route, new_route)
        if old_route.response_body != new_route.response_body:
            yield self.change(
                old,
                new,
                f"{label}: response_body {old_route.response_body or '-'} -> "
                f"{new_route.response_body or '-'}",
                BOTH,
                "route-response-body-changed",
                old_route,
                new_route,
            )

    def body(
        self, old: Method, new: Method, old_route: Binding, new_route: Binding
    ) -> Iterable[Change]:
        """A route whose body is another field: what the body holds on each side,
        compared field by field (``config`` -> ``*`` may leave the JSON as it was)."""
        label = (
            f"{route_label(old_route)}: body {old_route.body or '-'} -> "
            f"{new_route.body or '-'}"
        )
        old_body = _body_message(old, old_route, self.old_schema.messages)
        new_body = _body_message(new, new_route, self.new_schema.messages)
        if old_route.body is None or new_route.body is None:
            change = self.body_given_or_taken(old, new, old_route, new_route, label)
            if change is not None:
                yield change
            return
        if old_body is None or new_body is None:
            yield self.change(
                old, new, label, BOTH, "route-body-changed", old_route, new_route
            )
            return
        subject = f"rpc {self.service}.{new.name}: {route_label(new_route)} body"
        # Field numbers are not in a JSON body: renumbering alone is no change here.
        details = [
            dataclasses.replace(c, service=self.service)
            for c in self.types.messages(
                old_body, new_body, frozenset(("request",)), subject
            )
            if c.impact != "gRPC"
        ]
        effect = effect_of(details)
        held = (
            f"the body held {_body_text(old_route, old_body)}, now "
            f"{_body_text(new_route, new_body)}"
        )
        yield self.change(
            old,
            new,
            f"{label}: {held}: "
            + (
                f"{len(details)} change(s) under '{subject}'"
                if details
                else "the same JSON fields"
            ),
            Effect(effect.clients, effect.servers),
            "route-body-changed",
            old_route,
            new_route,
        )
        yield from details

    def body_given_or_taken(
        self,
        old: Method,
        new: Method,
        old_route: Binding,
        new_route: Binding,
        label: str,
    ) -> Change | None:
        """A route that starts or stops taking a body. A server refuses a body on a
        route without one (400); fields that leave the query for the body are the
        query's report (``query``). None when the body can hold no field (the path
        binds them all): nothing changes on the wire."""
        if old_route.body is None:
            body = _body_message(new, new_route, self.new_schema.messages)
            names = [f.json_name for f in body.fields] if body else []
            if not names:
                return None
            return self.change(
                old,
                new,
                f"{label}: new clients send {', '.join(names)} in the body, which old "
                "servers refuse (the route took no body: 400)",
                SERVERS,
                "route-body-changed",
                old_route,
                new_route,
            )
        body = _body_message(old, old_route, self.old_schema.messages)
        names = [f.json_name for f in body.fields] if body else []
        moved = sorted(
            set(route_query(new, new_route)) - set(route_query(old, old_route))
        )
        if not names and not moved:
            return None
        parts = []
        if names:
            parts.append(
                f"old clients send {', '.join(names)} in the body, which new servers "
                "refuse (the route takes no body: 400)"
            )
        if moved:
            parts.append(
                f"new clients send {', '.join(moved)} in the query, which old servers "
                + (
                    "refuse (400)"
                    if old_route.body == "*"
                    else "do not read there (the value is lost)"
                )
            )
        return self.change(
            old,
            new,
            f"{label}: " + "; ".join(parts),
            Effect(clients=bool(names), servers=bool(moved)),
            "route-body-changed",
            old_route,
            new_route,
        )

    def query(self, old: Method, new: Method, pairs: RoutePairs) -> Iterable[Change]:
        """Query parameters added, retyped or made REQUIRED (for the rpc), and those
        an answered route no longer takes (named with the routes)."""
        lost: dict[str, list[Binding]] = {}
        for old_route, new_route in pairs.answered:
            # A field the path now binds is still read from a query that agrees.
            taken = {*route_query(new, new_route), *new_route.path_json_names}
            for name in route_query(old, old_route):
                if name not in taken:
                    lost.setdefault(name, []).append(new_route)
        old_query = _query_params(old, self.old_schema.messages)
        new_query = _query_params(new, self.new_schema.messages)
        for name in sorted(set(old_query) | set(new_query)):
            before, after = old_query.get(name), new_query.get(name)
            if after is not None and before is None:
                required = after.required
                yield self.change(
                    old,
                    new,
                    f"query parameter {name} ({after.type_text}) added"
                    + (", REQUIRED: old clients never send it" if required else ""),
                    CLIENTS if required else NONE,
                    "query-param-required" if required else "query-param-added",
                )
            elif before is not None and name in lost:
                yield self.query_lost(old, new, name, before, after, lost[name])
            if before is not None and after is not None:
                if before.type_text != after.type_text:
                    effect = self.query_type_effect(before, after)
                    yield self.change(
                        old,
                        new,
                        f"query parameter {name} retyped {before.type_text} -> "
                        f"{after.type_text}",
                        effect,
                        "query-param-retyped",
                    )
                if after.required and not before.required:
                    yield self.change(
                        old,
                        new,
                        f"query parameter {name} now REQUIRED: old clients may leave "
                        "it out",
                        CLIENTS,
                        "query-param-required",
                    )
                elif before.required and not after.required:
                    yield self.change(
                        old,
                        new,
                        f"query parameter {name} no longer REQUIRED: old servers refuse "
                        "new clients that leave it out",
                        SERVERS,
                        "query-param-required",
                    )

    def query_lost(
        self,
        old: Method,
        new: Method,
        name: str,
        before: _Query,
        after: _Query | None,
        routes: Sequence[Binding],
    ) -> Change:
        """A query parameter some answered routes no longer take: under ``body: "*"``
        the server refuses it (400); elsewhere an unknown parameter is ignored, or
        refused where the server is strict."""
        whole = [r for r in routes if r.body == "*"]
        other = [r for r in routes if r.body != "*"]
        text = f"query parameter {name} ({before.type_text}) " + (
            "removed"
            if after is None
            else f"no longer taken by {', '.join(route_label(r) for r in routes)}"
        )
        reasons = []
        if whole and not other and after is not None:  # the routes are named already
            reasons.append(
                'the whole request is the body there now (body "*"): old clients '
                "that send it get 400"
            )
        elif whole:
            reasons.append(
                f"{', '.join(route_label(r) for r in whole)} now "
                f"take{'s' if len(whole) == 1 else ''} the whole request as the body "
                '(body "*"): old clients that send it there get 400'
            )
        if other:
            reasons.append("old clients that send it are refused or ignored")
        return self.change(
            old, new, f"{text}: {'; '.join(reasons)}", CLIENTS, "query-param-removed"
        )

    def query_type_effect(self, before: _Query, after: _Query) -> Effect:
        """Query values are text the server parses: only the range and values of the
        type matter, never JSON's number/string forms."""
        if before.param.repeated != after.param.repeated:
            return BOTH
        old_form = scalar_form(*_codec_kind(before.param))
        new_form = scalar_form(*_codec_kind(after.param))
        old_to_new = misread(
            new_form,
            old_form,
            lenient=True,
            same_type=lambda r, w: self.types.same_type(w, r),
            names_missing=lambda r, w: _missing_names(after.param, before.param),
        )
        new_to_old = misread(
            old_form,
            new_form,
            lenient=True,
            same_type=lambda r, w: self.types.same_type(r, w),
            names_missing=lambda r, w: _missing_names(before.param, after.param),
        )
        return Effect(clients=old_to_new is not None, servers=new_to_old is not None)


class _Query:
    """A query parameter with what a diff reports of it."""

    def __init__(self, param: QueryParam, field: Field | None) -> None:
        self.param = param
        self.required = field is not None and (field.required or field.legacy_required)
        self.type_text = (
            ("repeated " if param.repeated else "")
            + param.codec
            + (f" {param.enum.full_name.rpartition('.')[2]}" if param.enum else "")
        )


def _codec_kind(param: QueryParam) -> tuple[str, str]:
    """The (kind, type name) a query codec reads, for ``scalar_form``."""
    wkt = {
        "timestamp": "google.protobuf.Timestamp",
        "duration": "google.protobuf.Duration",
        "field_mask": "google.protobuf.FieldMask",
    }
    if param.codec in wkt:
        return "message", wkt[param.codec]
    if param.enum is not None:
        return "enum", param.enum.full_name
    return param.codec, ""


def _missing_names(reader: QueryParam, writer: QueryParam) -> tuple[str, ...]:
    known = {v.name for v in reader.enum.values} if reader.enum else set()
    written = writer.enum.values if writer.enum else ()
    return tuple(v.name for v in written if v.name not in known)


def _body_message(
    method: Method, binding: Binding, messages: Mapping[str, Message]
) -> Message | None:
    """What a route's body holds, as a message: the request without its path-bound
    fields for ``*``, the body field's message otherwise; None without a body."""
    if binding.body is None:
        return None
    if binding.body == "*":
        bound = {
            pf.proto_path[0] for pf in binding.path_fields if len(pf.proto_path) == 1
        }
        return dataclasses.replace(
            method.request,
            fields=tuple(f for f in method.request.fields if f.name not in bound),
        )
    field = method.request.field(binding.body)
    if field is None:
        return None
    return messages.get(field.type_name)


def _body_text(binding: Binding, message: Message) -> str:
    name = relative_name(message.full_name, message.package)
    if binding.body == "*":
        return f"{name} without its path fields"
    return f"a {name}"


def _query_params(method: Method, messages: Mapping[str, Message]) -> dict[str, _Query]:
    """Query parameters a client sets (not bound by the path of every route)."""
    if not method.has_query:
        return {}
    always_bound = set.intersection(
        *({pf.proto_path for pf in binding.path_fields} for binding in method.bindings)
    )
    return {
        param.json_name: _Query(param, _query_field(method.request, param, messages))
        for param in method.query
        if param.proto_path not in always_bound
    }


def _query_field(
    request: Message, param: QueryParam, messages: Mapping[str, Message]
) -> Field | None:
    """The field a query parameter sets, through its nested messages."""
    message: Message | None = request
    found: Field | None = None
    for name in param.proto_path:
        if message is None:
            return None
        found = next((f for f in message.fields if f.name == name), None)
        if found is None:
            return None
        message = messages.get(found.type_name) if found.kind == "message" else None
    return found


def pair_files(
    old: Sequence[BindingFile], new: Sequence[BindingFile]
) -> list[tuple[BindingFile, BindingFile]]:
    """Files paired by proto file name, or the only file of each side."""
    new_by_name = {f.proto_file: f for f in new}
    pairs = [(f, new_by_name[f.proto_file]) for f in old if f.proto_file in new_by_name]
    if not pairs and len(old) == 1 and len(new) == 1:
        pairs = [(old[0], new[0])]
    return pairs


def diff_files(old: Sequence[BindingFile], new: Sequence[BindingFile]) -> list[Change]:
    """Every change between two generations: the files' packages, then services
    (matched by their short name) and their rpcs, then messages and enums."""
    old_schema, new_schema = Schema.of(old), Schema.of(new)
    types = TypeComparison(old_schema, new_schema)
    answers = Answers(new)
    changes: list[Change] = []
    renamed_packages: set[tuple[str, str]] = set()
    for old_file, new_file in pair_files(old, new):
        if old_file.proto_package != new_file.proto_package:
            renamed_packages.add((old_file.proto_package, new_file.proto_package))
            changes.append(
                Change(
                    f"file {new_file.proto_file}",
                    f"package {old_file.proto_package or '(none)'} -> "
                    f"{new_file.proto_package or '(none)'}: gRPC method paths and Any "
                    "type URLs change (JSON requests and answers do not)",
                    GRPC.impact,
                    ("package-changed",),
                    old_file.proto_package,
                    new_file.proto_package,
                    old_file.package_location,
                    new_file.package_location,
                )
            )
    old_services = {s.name: s for f in old for s in f.services}
    new_services = {s.name: s for f in new for s in f.services}
    for name in sorted(set(old_services) | set(new_services)):
        before, after = old_services.get(name), new_services.get(name)
        if after is None:
            assert before is not None
            changes.append(
                Change(
                    f"service {name}",
                    "removed, and every rpc in it",
                    "clients",
                    ("service-removed",),
                    before.full_name,
                    "",
                    before.location,
                    None,
                    service=name,
                )
            )
        elif before is None:
            changes.append(
                Change(
                    f"service {name}",
                    "added",
                    "none",
                    ("service-added",),
                    "",
                    after.full_name,
                    None,
                    after.location,
                    service=name,
                )
            )
        else:
            if before.full_name != after.full_name and (
                (_package(before), _package(after)) not in renamed_packages
            ):
                changes.append(
                    Change(
                        f"service {name}",
                        f"full name {before.full_name} -> {after.full_name} (gRPC "
                        "paths change)",
                        "gRPC",
                        ("service-renamed",),
                        before.full_name,
                        after.full_name,
                        before.location,
                        after.location,
                        service=name,
                    )
                )
            changes.extend(
                _Bindings(
                    before, after, old_schema, new_schema, types, answers
                ).changes()
            )
    changes.extend(types.changes())
    return changes

"""Routes as clients see them, for ``a2a-codegen diff``.

An old client sends one of its rpc's routes: a verb and a path its template matches,
with the query fields that route takes (none under ``body: "*"``). Whether the route
was the proto's rule, an additional binding, a ``/{tenant}`` variant or a generated
alias does not matter to it; what matters is how the new table answers that request:

- *kept*: a route of the same rpc takes the same verb and the same paths (an alias
  that became the rule's own route is kept; only its body and query may differ);
- *moved*: the rpc has a route of the same verb with another template;
- *verb changed*: the rpc takes the same paths with another verb only (the old verb
  gets 405);
- *removed*: the rpc has no such route; the table answers 404, 405, or routes the
  request to another rpc (``Answers``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .http_rule import PathTemplate, SegmentKind, overlap_example, precedence
from .model import Binding, BindingFile, Method, QueryParam

__all__ = [
    "Answers",
    "RoutePairs",
    "pair_routes",
    "route_kind",
    "route_label",
    "route_query",
]


def route_label(binding: Binding) -> str:
    """``VERB /template``, as the route table prints it."""
    return f"{binding.verb} {binding.template.source}"


def route_kind(binding: Binding) -> str:
    """What the generator made the route from: ``route``, ``tenant route``, ``alias
    route``."""
    if binding.tenant:
        return "tenant route"
    return "alias route" if binding.alias else "route"


def route_query(method: Method, binding: Binding) -> dict[str, QueryParam]:
    """The query parameters a client sends on this route, by json name: none for
    ``body: "*"`` (the server refuses a query naming a field, 400), else the rpc's
    parameters less the fields this route's path binds."""
    if binding.body == "*":
        return {}
    bound = {path_field.proto_path for path_field in binding.path_fields}
    return {p.json_name: p for p in method.query if p.proto_path not in bound}


def _same_paths(first: Binding, second: Binding) -> bool:
    return first.template.shape == second.template.shape


@dataclass(frozen=True)
class RoutePairs:
    """The routes of one rpc in two versions, paired as an old client meets them.

    ``verb_changed`` holds (old route, the new route on the same paths); that new
    route may also be the pair of another old route in ``kept`` (the POST alias of a
    GET rule that becomes the rule)."""

    kept: tuple[tuple[Binding, Binding], ...]
    moved: tuple[tuple[Binding, Binding], ...]
    verb_changed: tuple[tuple[Binding, Binding], ...]
    removed: tuple[Binding, ...]
    added: tuple[Binding, ...]

    @property
    def answered(self) -> tuple[tuple[Binding, Binding], ...]:
        """Each old route with the new route that answers it for the same rpc, once per
        new route: kept, moved, then a verb change whose new route pairs nothing else.
        """
        paired = [*self.kept, *self.moved]
        taken = {id(new) for _, new in paired}
        for old, new in self.verb_changed:
            if id(new) not in taken:
                paired.append((old, new))
                taken.add(id(new))
        return tuple(paired)


def pair_routes(old: Sequence[Binding], new: Sequence[Binding]) -> RoutePairs:
    """Pair the routes of one rpc: by verb and paths (kept), then by paths alone (a
    verb changed), then by verb and tenant-ness in order, with a new route whose paths
    no old route had (a template changed); the rest is removed or added."""
    unpaired = list(new)
    kept: list[tuple[Binding, Binding]] = []
    rest: list[Binding] = []
    for before in old:
        after = next(
            (b for b in unpaired if b.verb == before.verb and _same_paths(b, before)),
            None,
        )
        if after is None:
            rest.append(before)
        else:
            kept.append((before, after))
            unpaired.remove(after)
    moved: list[tuple[Binding, Binding]] = []
    verb_changed: list[tuple[Binding, Binding]] = []
    removed: list[Binding] = []
    for before in rest:
        # Same paths, another verb: an unpaired route first, else one already kept
        # (the POST alias that became the rule answers the old GET's paths).
        twins = [b for b in new if _same_paths(b, before) and b.verb != before.verb]
        twin = next((b for b in twins if b in unpaired), twins[0] if twins else None)
        if twin is not None:
            verb_changed.append((before, twin))
            if twin in unpaired:
                unpaired.remove(twin)
            continue
        after = next(
            (
                b
                for b in unpaired
                if b.verb == before.verb
                and b.tenant == before.tenant
                and not any(_same_paths(b, o) for o in old)
            ),
            None,
        )
        if after is None:
            removed.append(before)
        else:
            moved.append((before, after))
            unpaired.remove(after)
    return RoutePairs(
        tuple(kept), tuple(moved), tuple(verb_changed), tuple(removed), tuple(unpaired)
    )


class Answers:
    """What a version's route table answers a request, across all its services."""

    def __init__(self, files: Sequence[BindingFile]) -> None:
        self.routes = tuple(
            (method, binding)
            for binding_file in files
            for method in binding_file.methods
            for binding in method.bindings
        )

    def verbs(self, template: PathTemplate) -> tuple[str, ...]:
        """The verbs some route takes on some path ``template`` matches."""
        return tuple(
            sorted(
                {
                    binding.verb
                    for _, binding in self.routes
                    if overlap_example(binding.template, template) is not None
                }
            )
        )

    def answer(self, verb: str, template: PathTemplate, rpc: str = "") -> str:
        """What a client that sends ``verb`` to a path of ``template`` gets, as the end
        of "old clients that use it ...": a route of ``rpc`` that reads the path as
        other fields, another rpc's route, 405 or 404."""

        def reach(method: Method, binding: Binding) -> str:
            if method.name == rpc:
                return f"reach it through {route_label(binding)}, which reads the path as other fields"
            return f"reach rpc {method.name} ({route_label(binding)}) instead"

        catching = [
            (method, binding)
            for method, binding in self.routes
            if binding.verb == verb
            and overlap_example(binding.template, template) is not None
        ]
        exact = [(m, b) for m, b in catching if b.template.shape == template.shape]
        if exact:
            return reach(*exact[0])
        if catching:
            # Some of its paths, at least: the most specific route that takes them.
            method, binding = min(
                catching,
                key=lambda pair: _Specificity(pair[1].template),
            )
            if _covers(binding.template, template):
                return reach(method, binding)
            return f"may {reach(method, binding)}, or get 404"
        verbs = self.verbs(template)
        if verbs:
            return f"get 405 (the path takes {', '.join(verbs)})"
        return "get 404"


def _covers(general: PathTemplate, specific: PathTemplate) -> bool:
    """True when every path ``specific`` matches, ``general`` matches too (checked
    segment by segment, for templates without ``**``)."""
    if general.has_deep_wildcard or specific.has_deep_wildcard:
        return False
    if general.verb != specific.verb or len(general.segments) != len(specific.segments):
        return False
    return all(
        wide.kind is SegmentKind.WILDCARD
        or (wide.kind is SegmentKind.LITERAL and wide == narrow)
        for wide, narrow in zip(general.segments, specific.segments)
    )


class _Specificity:
    """Orders templates as the router picks among them (the most specific first)."""

    def __init__(self, template: PathTemplate) -> None:
        self.template = template

    def __lt__(self, other: _Specificity) -> bool:
        return precedence(self.template, other.template) < 0

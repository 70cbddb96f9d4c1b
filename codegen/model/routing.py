"""Route-table analysis: duplicate routes and overlapping routes with an example path."""

from __future__ import annotations

from collections.abc import Sequence

from ..http_rule import SegmentKind, overlap_example
from .domain import Binding, Diagnostic, Method, Overlap, Route, Service


def check_duplicates(services: Sequence[Service]) -> list[Diagnostic]:
    errors: list[Diagnostic] = []
    seen: dict[tuple[str, tuple[str, ...]], tuple[Method, Binding]] = {}
    names: dict[str, Service] = {}
    for service in services:
        for method in service.methods:
            other_service = names.setdefault(method.name, service)
            if other_service is not service:
                errors.append(
                    Diagnostic(
                        method.location,
                        f"rpc name is also used by service {other_service.full_name}; "
                        "JSON-RPC method names must be unique in one generated package",
                        method.name,
                    )
                )
            for binding in method.bindings:
                key = (binding.verb, binding.template.shape)
                previous = seen.setdefault(key, (method, binding))
                if previous[1] is not binding:
                    first_method, first = previous
                    errors.append(
                        Diagnostic(
                            binding.location,
                            f"{binding.verb} {binding.template.source} duplicates the route "
                            f"{first.verb} {first.template.source} of rpc {first_method.name} "
                            f"({first.location})",
                            method.name,
                        )
                    )
    return errors


def route_table(services: Sequence[Service]) -> tuple[Route, ...]:
    """Every route, in table order (rpcs as declared, each rpc's bindings as written, a
    generated alias right after the route it aliases), each plain route linked to its
    ``/{tenant}`` variant."""
    routes: list[Route] = []
    for service in services:
        for method in service.methods:
            start = len(routes)
            for binding in method.bindings:
                twin = method.tenant_variant(binding) if not binding.tenant else None
                position = None if twin is None else start + method.bindings.index(twin)
                routes.append(Route(method, binding, len(routes), position))
    return tuple(routes)


def find_overlaps(routes: Sequence[Route]) -> list[Overlap]:
    """Every pair of same-verb routes that some path matches both of, with one example,
    in table order.

    Routes of one verb, custom verb and length are split position by position by their
    literal: only routes whose literals agree (or that have a variable there) are ever
    compared, so a large table costs about what its real overlaps cost. Routes ending in
    ``**`` are compared with every route of their verb.
    """
    buckets: dict[tuple[str, str | None], list[Route]] = {}
    for route in routes:
        key = (route.binding.verb, route.binding.template.verb)
        buckets.setdefault(key, []).append(route)
    pairs: dict[tuple[int, int], tuple[Route, Route]] = {}

    def add(first: Route, second: Route) -> None:
        if first.index > second.index:
            first, second = second, first
        pairs[(first.index, second.index)] = (first, second)

    def split(group: list[Route], position: int) -> None:
        if len(group) < 2:
            return
        if position == len(group[0].binding.template.segments):
            for i, first in enumerate(group):
                for second in group[i + 1 :]:
                    add(first, second)
            return
        by_literal: dict[str, list[Route]] = {}
        variables: list[Route] = []
        for route in group:
            segment = route.binding.template.segments[position]
            if segment.kind is SegmentKind.LITERAL:
                by_literal.setdefault(segment.literal, []).append(route)
            else:
                variables.append(route)
        split(variables, position + 1)
        for same_literal in by_literal.values():
            split(same_literal + variables, position + 1)

    for bucket in buckets.values():
        deep = [route for route in bucket if route.binding.template.has_deep_wildcard]
        by_length: dict[int, list[Route]] = {}
        for route in bucket:
            if not route.binding.template.has_deep_wildcard:
                length = len(route.binding.template.segments)
                by_length.setdefault(length, []).append(route)
        for group in by_length.values():
            split(group, 0)
        for route in deep:
            for other in bucket:
                if other is not route:
                    add(route, other)
    found = []
    for pair in sorted(pairs):
        first, second = pairs[pair]
        example = overlap_example(first.binding.template, second.binding.template)
        if example is not None:
            found.append(Overlap(first, second, example))
    return found

"""The A2A profile: what the generator adds for ``A2AService`` beyond its http rules."""

from __future__ import annotations

from dataclasses import replace

from .domain import Binding


def with_subscribe_aliases(bindings: list[Binding]) -> list[Binding]:
    """A2A conflict D1: the proto says GET on ``:subscribe``, the spec says POST. Servers
    accept both, so every GET ``:subscribe`` route gets a POST alias."""
    result: list[Binding] = []
    existing = {(b.verb, b.template.shape) for b in bindings}
    for binding in bindings:
        result.append(binding)
        if (
            binding.verb == "GET"
            and binding.template.verb == "subscribe"
            and ("POST", binding.template.shape) not in existing
        ):
            result.append(replace(binding, verb="POST", alias=True))
    return result

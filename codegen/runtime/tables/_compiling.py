"""Functions compiled from fixed snippets, as ``dataclasses`` compiles ``__init__``.

The runtime specialises a few hot functions to the tables they serve (a message
type's check, builder and reader; a route table's matcher). Their source is built from
fixed snippets, numbered local names and integers only: every value that comes from a
proto (a name, a literal segment, an enum value) is bound to one of those locals as a
value, so nothing from a proto reaches the source text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["compiled"]


def compiled(name: str, body: Sequence[str], bound: dict[str, Any]) -> Any:
    """The function ``run`` that ``body`` (its source lines, from fixed snippets)
    defines, with ``bound``'s names as its free variables; ``name`` is the file name
    tracebacks give it."""
    source = "\n".join(
        [
            f"def make({', '.join(bound)}):",
            *("    " + line for line in body),
            "    return run",
        ]
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, name, "exec"), namespace)
    return namespace["make"](**bound)

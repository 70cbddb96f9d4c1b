"""``a2a-codegen diff``'s report: text for people, markdown for a pull request, JSON for
machines. Changes are grouped by who they break, each with its proto location in both
versions (``old -> new``); then what regenerating changes in the generated files
(``diff_output``), when both versions were rendered."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

from .diff_change import IMPACTS, Change, Impact
from .diff_output import OutputChange, describe
from .model import SourceLocation

__all__ = ["format_changes", "summary"]

_HEADINGS: dict[Impact, str] = {
    "clients and servers": "Breaking for clients and servers",
    "clients": "Breaking for clients (a client built from the old version fails "
    "against a server built from the new one)",
    "servers": "Breaking for servers (a server built from the old version fails a "
    "client built from the new one)",
    "gRPC": "Breaking for gRPC peers only (the JSON form is unchanged)",
    "none": "Compatible",
}
_SHORT: dict[Impact, str] = {
    "clients and servers": "clients and servers",
    "clients": "clients",
    "servers": "servers",
    "gRPC": "gRPC only",
    "none": "compatible",
}


def _where(location: SourceLocation | None) -> str:
    return str(location) if location is not None else "-"


def _locations(change: Change) -> str:
    return f"[{_where(change.old_location)} -> {_where(change.new_location)}]"


def summary(
    changes: Sequence[Change],
    acknowledged: Collection[int] = (),
    output: Sequence[OutputChange] | None = None,
) -> str:
    """``N breaking (who), M compatible``, and how many are acknowledged; without
    changes, that no peer sees one, and what regenerating changes (``output``, when
    compared)."""
    if not changes:
        return (
            "no change a JSON or gRPC peer sees: bindings, messages and enums are the "
            "same" + (f"; {describe(output)}" if output is not None else "")
        )
    counts = {impact: sum(c.impact == impact for c in changes) for impact in IMPACTS}
    breaking = len(changes) - counts["none"]
    who = ", ".join(f"{counts[i]} for {_SHORT[i]}" for i in IMPACTS[:-1] if counts[i])
    text = f"{breaking} breaking" + (f" ({who})" if who else "")
    text += f", {counts['none']} compatible"
    if acknowledged:
        text += f"; {len(acknowledged)} acknowledged"
    return text


def format_changes(
    changes: Sequence[Change],
    fmt: str,
    old_label: str,
    new_label: str,
    acknowledged: Collection[int] = (),
    output: Sequence[OutputChange] | None = None,
) -> str:
    """The changes as ``text``, ``json`` or ``markdown``; ``acknowledged`` holds the
    positions of reviewed ones; ``output``, the generated files regenerating changes
    (None: not compared), ends the report."""
    if fmt == "json":
        return json.dumps(
            _json(changes, old_label, new_label, acknowledged, output), indent=2
        )
    head = summary(changes, acknowledged, output)
    # Without changes the summary says it; else a closing line of its own.
    tail = [] if output is None or not changes else ["", _capital(describe(output))]
    groups = [
        (impact, [(i, c) for i, c in enumerate(changes) if c.impact == impact])
        for impact in IMPACTS
    ]
    if fmt == "markdown":
        lines = [f"### {old_label} -> {new_label}", "", head]
        if changes:
            lines += ["", "| who breaks | change | old | new |", "|---|---|---|---|"]
            for impact, members in groups:
                for index, change in members:
                    who = (
                        f"**{_SHORT[impact]}**" if impact != "none" else _SHORT[impact]
                    )
                    if index in acknowledged:
                        who += " (acknowledged)"
                    lines.append(
                        f"| {who} | {_cell(change.line)} | "
                        f"`{_where(change.old_location)}` | "
                        f"`{_where(change.new_location)}` |"
                    )
        return "\n".join(lines + tail)
    lines = [f"{old_label} -> {new_label}: {head}"]
    for impact, members in groups:
        if not members:
            continue
        lines += ["", f"{_HEADINGS[impact]} ({len(members)}):"]
        for index, change in members:
            mark = "  (acknowledged)" if index in acknowledged else ""
            lines.append(f"  {change.line}  {_locations(change)}{mark}")
    return "\n".join(lines + tail)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _json(
    changes: Sequence[Change],
    old_label: str,
    new_label: str,
    acknowledged: Collection[int],
    output: Sequence[OutputChange] | None,
) -> dict[str, Any]:
    return {
        "old": old_label,
        "new": new_label,
        "breaking": sum(c.breaking for c in changes),
        "compatible": sum(not c.breaking for c in changes),
        "acknowledged": len(acknowledged),
        "by_impact": {i: sum(c.impact == i for c in changes) for i in IMPACTS},
        "changes": [
            {
                "service": change.service,
                "subject": change.subject,
                "description": change.description,
                "impact": change.impact,
                "breaking": change.breaking,
                "acknowledged": index in acknowledged,
                "codes": list(change.codes),
                "role": change.role,
                "old": {
                    "element": change.old_element,
                    "location": _where(change.old_location),
                },
                "new": {
                    "element": change.new_element,
                    "location": _where(change.new_location),
                },
            }
            for index, change in enumerate(changes)
        ],
        # None when the versions were not both rendered.
        "generated": (
            None
            if output is None
            else [
                {
                    "name": o.name,
                    "state": o.state,
                    "comments_only": o.comments_only,
                }
                for o in output
            ]
        ),
    }

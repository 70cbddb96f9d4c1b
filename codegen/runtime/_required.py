"""REQUIRED fields (``google.api.field_behavior``) of a ProtoJSON message, checked.

The generated ``messages.py`` holds, per message type, the rules that matter: its
REQUIRED fields, and the message fields whose type has REQUIRED fields of its own
(checked inside when present, in every element of a repeated field). REQUIRED members
of one oneof ask for one member of the oneof, not all of them. A field is missing when
its key (json or proto name) is absent, ``null``, or an empty string or list (a
message given as ``{}`` is present: every field at its default).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

__all__ = ["Rule", "RequiredFields"]


class Rule(NamedTuple):
    """One field a check looks at: ``required`` when it must be present; ``message``
    names its message type when that type has rules of its own; ``oneof`` names the
    oneof a REQUIRED member belongs to (``""`` for none)."""

    json_name: str
    proto_name: str
    required: bool = False
    message: str = ""
    repeated: bool = False
    oneof: str = ""


def _present(value: object) -> bool:
    if value is None:
        return False
    if isinstance(value, (str, list, tuple)) and not value:
        return False
    return True


class RequiredFields:
    """The REQUIRED-field rules of one package, by message full name."""

    def __init__(self, rules: Mapping[str, Sequence[Rule]]) -> None:
        self._rules = rules

    def violations(
        self, message_type: str, value: Mapping[str, Any]
    ) -> list[tuple[str, str]]:
        """Every REQUIRED field missing in ``value`` (a ProtoJSON object of
        ``message_type``), nested ones included, as ``(field path, description)``
        pairs for a ``google.rpc.BadRequest``; empty when nothing is missing."""
        found: list[tuple[str, str]] = []
        pending: list[tuple[str, Mapping[str, Any], str]] = [(message_type, value, "")]
        while pending:
            type_name, message, prefix = pending.pop()
            oneofs: dict[str, list[str]] = {}
            satisfied: set[str] = set()
            for rule in self._rules.get(type_name, ()):
                field = prefix + rule.json_name
                item = message.get(rule.json_name)
                if item is None and rule.proto_name != rule.json_name:
                    item = message.get(rule.proto_name)
                present = _present(item)
                if rule.required and rule.oneof:
                    oneofs.setdefault(rule.oneof, []).append(field)
                    if present:
                        satisfied.add(rule.oneof)
                elif rule.required and not present:
                    found.append((field, "a REQUIRED field is missing"))
                if not present or not rule.message:
                    continue
                items = item if rule.repeated and isinstance(item, list) else [item]
                for index, element in enumerate(items):
                    if isinstance(element, Mapping):
                        where = f"{field}[{index}]" if rule.repeated else field
                        pending.append((rule.message, element, where + "."))
            for oneof, members in oneofs.items():
                if oneof not in satisfied:
                    found.append(
                        (
                            members[0],
                            f"one of {', '.join(members)} is REQUIRED (oneof {oneof})",
                        )
                    )
        return sorted(found)

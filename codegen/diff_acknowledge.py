"""Breaking changes a maintainer has reviewed, so that ``a2a-codegen diff`` and
``check --against`` fail only on the others.

An acknowledgement file (``--acknowledge-changes FILE``) holds one change a line, as
``diff`` prints it (its locations in ``[...]`` may stay); ``#`` starts a comment::

    # v1 -> v2, reviewed in #27
    message Book: field page_count: type int32 -> int64 (...): ...
    rpc LibraryService.GetBook          # every change of one element

A line is a change's whole text, or only its subject (everything before the first
``": "``), which acknowledges every change of that element. A line that matches no
change is stale and is warned about, as the overlaps' acknowledgement file does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .diff_change import Change

__all__ = [
    "ChangeAcknowledgement",
    "ChangeAcknowledgementError",
    "Settled",
    "load",
    "parse",
    "settle",
]

_SUBJECTS = ("rpc ", "message ", "enum ", "service ", "file ")
_LOCATIONS = re.compile(r"\s+\[[^\]]*\]\s*\Z")
_SPACE = re.compile(r"\s+")


class ChangeAcknowledgementError(ValueError):
    """A file or line that cannot be read; the message names ``file:line:col``."""


@dataclass(frozen=True)
class ChangeAcknowledgement:
    """One reviewed change (``text`` is a change's line or only its subject)."""

    source: str
    line: int
    text: str

    def matches(self, change: Change) -> bool:
        """True when this line covers ``change``."""
        return self.text in (_normal(change.line), _normal(change.subject))

    @property
    def stale_warning(self) -> str:
        return (
            f"warning: {self.source}:{self.line}: acknowledged change '{self.text}' "
            "matches no change in this diff (stale: remove the line)"
        )


@dataclass(frozen=True)
class Settled:
    """Which changes are acknowledged (by position) and which lines matched none."""

    acknowledged: frozenset[int]
    stale: tuple[ChangeAcknowledgement, ...]


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def parse(text: str, source: str) -> tuple[ChangeAcknowledgement, ...]:
    """Every acknowledgement in ``text`` (the content of file ``source``)."""
    found: list[ChangeAcknowledgement] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        content = _LOCATIONS.sub("", raw.partition("#")[0])
        if not content.strip():
            continue
        normal = _normal(content)
        if not normal.startswith(_SUBJECTS):
            column = len(content) - len(content.lstrip()) + 1
            raise ChangeAcknowledgementError(
                f"{source}:{number}:{column}: expected a change as a2a-codegen diff "
                f"prints it (starting with {', '.join(repr(s.strip()) for s in _SUBJECTS)}), "
                f"got {normal[:60]!r}"
            )
        found.append(ChangeAcknowledgement(source, number, normal))
    return tuple(found)


def load(path: str) -> tuple[ChangeAcknowledgement, ...]:
    """Read and parse the acknowledgement file at ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise ChangeAcknowledgementError(
            f"--acknowledge-changes {path}: cannot read the file ({reason})"
        ) from exc
    return parse(text, path)


def settle(
    changes: Sequence[Change], acknowledgements: Sequence[ChangeAcknowledgement]
) -> Settled:
    """The changes some line covers, and the lines that cover none."""
    acknowledged: set[int] = set()
    used: set[int] = set()
    for index, change in enumerate(changes):
        hits = [i for i, ack in enumerate(acknowledgements) if ack.matches(change)]
        if hits:
            acknowledged.add(index)
            used.update(hits)
    stale = tuple(a for i, a in enumerate(acknowledgements) if i not in used)
    return Settled(frozenset(acknowledged), stale)

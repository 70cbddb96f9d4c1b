"""The code blocks of README.md and docs/**/*.md, each under a marker that says how the
tests check it (tests/test_docs.py holds the checks; docs/tests.md tells a reader):

    <!-- check: mypy -->        Python: passes mypy --strict against generated/
    <!-- check: run -->         Python: runs as a script (PYTHONPATH=generated) and passes
                                mypy --strict
    <!-- check: sh -->          shell: runs with bash in a folder holding spec/a2a.proto
                                and the other inputs it names (``sh_workspace``)
    <!-- check: test NAME -->   any: the test that reads ``block("NAME")`` checks it

The marker is the line just above the opening fence; a fence without one fails
``test_every_code_block_says_how_it_is_checked``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("mypy", "run", "sh", "test")

_FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
_MARKER = re.compile(r"^<!-- check: (mypy|run|sh|test ([a-z0-9-]+)) -->$")


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is, its language, how it is checked, its text."""

    page: str
    line: int
    language: str
    kind: str | None
    name: str | None
    text: str

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """README.md and every page of the documentation site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks_of(path: Path) -> list[Block]:
    """The fenced code blocks of ``path``, with the marker above each (if any)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    page = path.relative_to(ROOT).as_posix()
    found = []
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index].strip())
        if fence is None:
            index += 1
            continue
        opening, language = fence.group(1), fence.group(2).strip()
        marker = _MARKER.match(lines[index - 1]) if index else None
        end = index + 1
        while end < len(lines) and lines[end].strip() != opening:
            end += 1
        kind = name = None
        if marker is not None:
            kind, _, name = marker.group(1).partition(" ")
        found.append(
            Block(
                page,
                index + 1,
                language,
                kind,
                name or None,
                "".join(line + "\n" for line in lines[index + 1 : end]),
            )
        )
        index = end + 1
    return found


def blocks(kind: str | None = None) -> list[Block]:
    """Every block of README.md and docs/, or those checked as ``kind``."""
    every = [b for path in pages() for b in blocks_of(path)]
    return every if kind is None else [b for b in every if b.kind == kind]


def block(name: str) -> str:
    """The text of the block marked ``<!-- check: test NAME -->``; exactly one."""
    (found,) = [b for b in blocks("test") if b.name == name]
    return found.text

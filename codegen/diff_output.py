"""What regenerating changes, beside what peers see: ``a2a-codegen diff`` renders both
versions with the same options (as ``generate`` and ``check`` do) and compares the files.

A proto comment is a comment or docstring in the generated code, so a version that
only rewords its comments changes no peer and still changes files; the report says so,
and ``check`` on output generated from the old version names the same files.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["OutputChange", "changed_files", "compare_outputs", "describe"]

State = Literal["differs", "added", "removed"]


@dataclass(frozen=True)
class OutputChange:
    """One generated file that regenerating changes, named as ``generate`` writes it
    (``package/module.py``, under the new version's package name)."""

    name: str
    state: State
    comments_only: bool = False  # Python that differs in comments and docstrings only

    def __str__(self) -> str:
        notes = {"added": "new", "removed": "no longer written"}
        note = "comments only" if self.comments_only else notes.get(self.state, "")
        return f"{self.name} ({note})" if note else self.name


def changed_files(before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    """The names whose text differs, or that one side lacks, sorted."""
    return [
        name
        for name in sorted(set(before) | set(after))
        if before.get(name) != after.get(name)
    ]


def compare_outputs(
    old: Mapping[str, str],
    new: Mapping[str, str],
    packages: Mapping[str, str],
) -> list[OutputChange]:
    """The files of two renderings that differ; ``packages`` maps an old package
    folder to the new one it pairs with (the same proto file, or the only one), so
    ``old_binding/messages.py`` is compared with ``new_binding/messages.py``."""
    renamed: dict[str, str] = {}
    for name, text in old.items():
        package, _, rest = name.partition("/")
        renamed[f"{packages.get(package, package)}/{rest}"] = text
    found = []
    for name in changed_files(renamed, new):
        before, after = renamed.get(name), new.get(name)
        if before is None:
            found.append(OutputChange(name, "added"))
        elif after is None:
            found.append(OutputChange(name, "removed"))
        else:
            found.append(
                OutputChange(
                    name, "differs", name.endswith(".py") and _same_code(before, after)
                )
            )
    return found


def describe(changes: Sequence[OutputChange], listed: int = 5) -> str:
    """One sentence: which files regenerating changes. Files whose code changes are
    all named; those that differ in comments only (a reworded proto comment, the
    descriptor hash in every header) are named up to ``listed``, else counted."""
    if not changes:
        return "regenerating writes the same files"
    count = f"{len(changes)} file{'s' if len(changes) != 1 else ''}"
    code = [str(change) for change in changes if not change.comments_only]
    comments = [change.name for change in changes if change.comments_only]
    if len(comments) > listed:
        in_comments = f"{len(comments)} in comments only"
    else:
        in_comments = "in comments only: " + ", ".join(comments)
    if not code:
        return f"regenerating changes {count}, {in_comments}"
    return f"regenerating changes {count}: " + "; ".join(
        [", ".join(code)] + ([in_comments] if comments else [])
    )


def _same_code(first: str, second: str) -> bool:
    """True when two Python sources differ in comments and docstrings only."""
    try:
        return _code(first) == _code(second)
    except SyntaxError:
        return False


def _code(source: str) -> str:
    """The source's syntax tree with every docstring (any statement that is a bare
    string) emptied; comments are not in the tree at all."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            node.value.value = ""  # kept, emptied: a body is never left empty
    return ast.dump(tree)

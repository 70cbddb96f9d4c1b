"""The runtime the generated package runs is kept in small parts: no function over
80 lines and no class over 350, counted from the ``def`` or ``class`` line to the last
line of the body (its docstring included)."""

from __future__ import annotations

import ast
from pathlib import Path

from .conftest import ROOT

RUNTIME = ROOT / "codegen" / "runtime"
FUNCTION_LINES = 80
CLASS_LINES = 350


def _oversized(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            limit = CLASS_LINES
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            limit = FUNCTION_LINES
        else:
            continue
        assert node.end_lineno is not None
        lines = node.end_lineno - node.lineno + 1
        if lines > limit:
            where = f"{path.relative_to(root).as_posix()}:{node.lineno}"
            found.append(f"{where}: {node.name} is {lines} lines (at most {limit})")
    return found


def test_no_runtime_function_or_class_is_over_its_size() -> None:
    modules = sorted(RUNTIME.rglob("*.py"))
    assert len(modules) > 20, f"the runtime is not where it was looked for: {RUNTIME}"
    found = [problem for module in modules for problem in _oversized(module)]
    assert found == []


def test_the_count_finds_an_oversized_function(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(FUNCTION_LINES))
    module = tmp_path / "probe.py"
    module.write_text(
        f"def long() -> None:\n{body}\n\ndef short() -> None:\n    pass\n",
        encoding="utf-8",
    )
    assert _oversized(module, tmp_path) == [
        f"probe.py:1: long is {FUNCTION_LINES + 1} lines (at most {FUNCTION_LINES})"
    ]

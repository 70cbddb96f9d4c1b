"""The conformance runner's lists of expected failures (conformance/expected_failures*.json)
hold what a reader needs and still name tests the kits have.

Each entry names a test (an fnmatch pattern over the kit's node ids), the transports it
fails over, a kind (whose failure it is) and its evidence. A pattern that matches no test
function of the kit (a test renamed or removed upstream) would silently list nothing: it
fails here, read from the kit in ../shared/ (skipped, saying so, where it is absent).
"""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT

_SPEC = importlib.util.spec_from_file_location(
    "conformance_run", ROOT / "conformance" / "run.py"
)
assert _SPEC is not None and _SPEC.loader is not None
run = importlib.util.module_from_spec(_SPEC)  # conformance/run.py, the runner
sys.modules["conformance_run"] = run  # its dataclasses look their module up
_SPEC.loader.exec_module(run)

KINDS = {"the kit's", "spec decision", "kit wording check", "the agent's", "ours"}
TRANSPORTS = {"jsonrpc", "rest", "grpc", "all"}
LISTS = {
    "1.0": run.KITS["1.0"].expected,
    "gateway": run.EXPECTED_GATEWAY,
    "0.3": run.KITS["0.3"].expected,
}


def _entries(name: str) -> list[dict[str, Any]]:
    failures: list[dict[str, Any]] = json.loads(LISTS[name].read_text())["failures"]
    return failures


def _kit_tests(folder: Path) -> list[str]:
    """``path::name`` of every test function the kit defines (classes as ``path::Class::name``)."""
    found = []
    for path in sorted((folder / "tests").rglob("test_*.py")):
        relative = path.relative_to(folder).as_posix()
        klass = None
        for line in path.read_text(encoding="utf-8").splitlines():
            if match := re.match(r"class (Test\w*)", line):
                klass = match.group(1)
            elif match := re.match(r"( *)(?:async )?def (test_\w+)", line):
                method = klass and match.group(1)
                found.append(
                    f"{relative}::{klass}::{match.group(2)}"
                    if method
                    else f"{relative}::{match.group(2)}"
                )
                if not match.group(1):
                    klass = None
    return found


@pytest.mark.parametrize("name", sorted(LISTS))
def test_every_entry_says_what_fails_where_and_why(name: str) -> None:
    for entry in _entries(name):
        assert set(entry) == {"test", "transports", "kind", "evidence"}, entry
        assert entry["kind"] in KINDS, entry
        assert entry["transports"] and set(entry["transports"]) <= TRANSPORTS, entry
        assert len(entry["evidence"]) > 80, entry  # the evidence, not a label


@pytest.mark.parametrize("name", sorted(LISTS))
def test_every_entry_names_a_test_the_kit_has(name: str) -> None:
    kit = run.KITS["1.0" if name == "gateway" else name]
    if not (kit.folder / "run_tck.py").exists():
        pytest.skip(f"no kit at {kit.folder} (../shared/ is absent here)")
    tests = _kit_tests(kit.folder)
    for entry in _entries(name):
        pattern = entry["test"].split("[", 1)[0]  # parameters are the kit's data
        assert any(
            fnmatch.fnmatchcase(test, pattern) for test in tests
        ), f"{LISTS[name].name}: {entry['test']} names no test of {kit.folder.name}"


def _report(*outcomes: tuple[str, str]) -> dict[str, Any]:
    return {"tests": [{"nodeid": n, "outcome": o} for n, o in outcomes]}


def test_a_failure_is_one_that_fails_or_errs() -> None:
    report = _report(("a", "passed"), ("b", "failed"), ("c", "error"), ("d", "skipped"))
    assert run.failed(report) == ["b", "c"]


def test_an_unlisted_failure_that_passes_when_run_again_is_flaky() -> None:
    again = _report(("a", "passed"), ("b", "failed"), ("c", "error"))
    assert run.settle(["a", "b", "c", "gone"], again) == (["a"], ["b", "c", "gone"])

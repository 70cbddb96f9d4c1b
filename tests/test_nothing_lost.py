"""`generate` never leaves half-written output: failures midway keep the previous folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegen import writer
from codegen.cli import main

from .conftest import GENERATED, PROTO


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def previous(tmp_path: Path) -> Path:
    """An output folder holding an older generation (with a file no longer generated)."""
    shutil.copytree(
        GENERATED / "a2a_binding",
        tmp_path / "a2a_binding",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (tmp_path / "a2a_binding" / "routes.py").write_text("# an older generation\n")
    (tmp_path / "a2a_binding" / "gone.py").write_text("# no longer generated\n")
    return tmp_path


@pytest.mark.parametrize(
    ("failure", "raised"),
    [
        (OSError("disk full"), writer.WriteError),
        (KeyboardInterrupt(), KeyboardInterrupt),
    ],
)
def test_failure_after_some_files_keeps_the_previous_output(
    previous: Path,
    monkeypatch: pytest.MonkeyPatch,
    failure: BaseException,
    raised: type[BaseException],
) -> None:
    before = _snapshot(previous)
    real_write = writer._write_file
    written: list[str] = []

    def failing_write(path: Path, content: str) -> None:
        if len(written) == 3:
            raise failure
        written.append(path.name)
        real_write(path, content)

    monkeypatch.setattr(writer, "_write_file", failing_write)
    with pytest.raises(raised):
        writer.write_packages(
            previous,
            {
                f"a2a_binding/{n}": "x = 1\n"
                for n in ("a.py", "b.py", "c.py", "d.py", "e.py")
            },
        )
    assert len(written) == 3  # the failure really came midway
    assert _snapshot(previous) == before
    assert sorted(p.name for p in previous.iterdir()) == [
        "a2a_binding"
    ]  # no staging folder left


def test_failure_during_the_exchange_keeps_the_old_folder(
    previous: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _snapshot(previous)

    def failing_exchange(staging: Path, target: Path) -> bool:
        raise OSError("rename failed")

    monkeypatch.setattr(writer, "_exchange", failing_exchange)
    with pytest.raises(writer.WriteError, match="rename failed"):
        writer.write_packages(previous, {"a2a_binding/routes.py": "x = 1\n"})
    assert _snapshot(previous) == before
    assert sorted(p.name for p in previous.iterdir()) == ["a2a_binding"]


def test_failure_during_the_swap_restores_the_old_folder(
    previous: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where there is no atomic exchange, the swap is two renames (as everywhere before)."""
    monkeypatch.setattr(writer, "_renameat2", None)
    before = _snapshot(previous)
    real_replace = writer.os.replace
    calls: list[tuple[str, str]] = []

    def failing_replace(src: str, dst: str) -> None:
        calls.append((str(src), str(dst)))
        if len(calls) == 2:  # old folder moved aside, new one not yet in place
            raise OSError("rename failed")
        real_replace(src, dst)

    monkeypatch.setattr(writer.os, "replace", failing_replace)
    with pytest.raises(writer.WriteError, match="rename failed"):
        writer.write_packages(previous, {"a2a_binding/routes.py": "x = 1\n"})
    assert _snapshot(previous) == before
    assert sorted(p.name for p in previous.iterdir()) == ["a2a_binding"]


def test_a_failing_generation_writes_nothing(previous: Path) -> None:
    before = _snapshot(previous)
    result = CliRunner().invoke(
        main,
        [
            "generate",
            str(PROTO / "broken" / "duplicate_route.proto"),
            "-o",
            str(previous),
            "--module",
            "a2a_binding",
        ],
    )
    assert result.exit_code == 1
    assert _snapshot(previous) == before


def test_a_successful_generation_replaces_everything(previous: Path) -> None:
    result = CliRunner().invoke(
        main, ["generate", "-o", str(previous), "--module", "a2a_binding"]
    )
    assert result.exit_code == 0, result.output
    assert not (previous / "a2a_binding" / "gone.py").exists()
    assert (previous / "a2a_binding" / "routes.py").read_text() == (
        GENERATED / "a2a_binding" / "routes.py"
    ).read_text()

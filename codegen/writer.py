"""Writing generated packages so that nothing is ever half-written.

Each package folder is written in full to a sibling temp folder, then swapped in with
renames; an error or Ctrl-C before the swap leaves the old folder as it was, and files the
generator no longer emits disappear with the old folder.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["write_packages", "read_packages", "group_by_package"]


def group_by_package(files: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """``{"pkg/a.py": ...}`` as ``{"pkg": {"a.py": ...}}``."""
    packages: dict[str, dict[str, str]] = {}
    for name, content in files.items():
        package, _, rest = name.partition("/")
        packages.setdefault(package, {})[rest] = content
    return packages


def read_packages(out_dir: Path, packages: Iterable[str]) -> dict[str, str]:
    """What is on disk now under each package folder of ``out_dir``, by relative name."""
    found: dict[str, str] = {}
    for package in packages:
        root = out_dir / package
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                found[path.relative_to(out_dir).as_posix()] = path.read_text(encoding="utf-8")
    return found


def write_packages(out_dir: Path, files: Mapping[str, str]) -> list[Path]:
    """Replace each package folder named in ``files`` atomically; returns the folders."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for package, contents in sorted(group_by_package(files).items()):
        target = out_dir / package
        staging = Path(tempfile.mkdtemp(prefix=f".{package}.new-", dir=out_dir))
        try:
            for name, content in sorted(contents.items()):
                path = staging / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8", newline="\n")
            os.chmod(staging, 0o755)
            _swap(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        written.append(target)
    return written


def _swap(staging: Path, target: Path) -> None:
    if not target.exists():
        os.replace(staging, target)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rmdir(retired)
    os.replace(target, retired)
    try:
        os.replace(staging, target)
    except BaseException:
        os.replace(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)

"""Writing generated packages so that a kill at any instant loses nothing.

Each package folder is written in full to a hidden sibling, then put under its real name
in one step: on Linux an atomic exchange (``renameat2(RENAME_EXCHANGE)``) of the staged
folder and the old one, so at every instant the real name holds the old or the new
complete package. Where the platform has no exchange, two renames are used; a kill
between them leaves the old package under a hidden name, and the next run puts it back.

Hidden folders are named ``.a2a-codegen.<package>.<pid>.<token>.<new|old>``; the next
write into the same output folder removes those whose owner process is gone. Writers
into one output folder take turns on an ``flock`` of ``.a2a-codegen.lock`` in it, which
is removed again when the write ends. A symbolic link, a file or anything else that is
not a folder standing where a package goes is refused, never followed or moved away.

Files and folders are synced to disk before the swap, so the new package is whole
after a power cut too. Every failure is a :class:`WriteError` whose one-line message
names the path and the cause, and says whether the package was left as it was.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "HIDDEN_PREFIX",
    "LOCK_NAME",
    "PackageFiles",
    "SkippedEntry",
    "WriteError",
    "group_by_package",
    "read_packages",
    "write_packages",
]

#: Start of the name of every staging or retired folder this module creates.
HIDDEN_PREFIX = ".a2a-codegen."
#: The lock file taken in the output folder while a write runs.
LOCK_NAME = ".a2a-codegen.lock"
#: How long a write waits for another one into the same folder before giving up.
LOCK_TIMEOUT = 120.0

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
# The file system or kernel has no renameat2 flags: use two renames instead.
_NO_EXCHANGE = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP})
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class WriteError(Exception):
    """Writing a package failed; the one-line message names the path and the cause."""


@dataclass(frozen=True)
class SkippedEntry:
    """A path under a package folder that :func:`read_packages` did not read."""

    path: str  # relative to the output folder, with ``/``
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: skipped, {self.reason}"


class PackageFiles(Mapping[str, str]):
    """The text of each file read, by relative name, and what was skipped and why.

    Compares equal to a plain ``dict`` of the same files; check ``skipped`` as well,
    since a folder holding a link or an unreadable file is never what was generated.
    """

    def __init__(
        self, files: Mapping[str, str], skipped: Iterable[SkippedEntry]
    ) -> None:
        self._files = dict(files)
        self.skipped: tuple[SkippedEntry, ...] = tuple(skipped)

    def __getitem__(self, name: str) -> str:
        return self._files[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def __repr__(self) -> str:
        return f"PackageFiles({self._files!r}, skipped={self.skipped!r})"


def group_by_package(files: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """``{"pkg/a.py": ...}`` as ``{"pkg": {"a.py": ...}}``."""
    packages: dict[str, dict[str, str]] = {}
    for name, content in files.items():
        package, _, rest = name.partition("/")
        packages.setdefault(package, {})[rest] = content
    return packages


# ---------------------------------------------------------------------------- reading


def read_packages(out_dir: Path, packages: Iterable[str]) -> PackageFiles:
    """What is on disk now under each package folder of ``out_dir``, by relative name.

    Never follows a symbolic link (a linked package folder, sub-folder or file is
    skipped), never opens anything but regular files, and reports files that are not
    UTF-8 instead of raising. ``__pycache__`` folders are ignored.
    """
    found: dict[str, str] = {}
    skipped: list[SkippedEntry] = []
    for package in sorted(packages):
        root = out_dir / package
        try:
            mode = os.lstat(root).st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            skipped.append(SkippedEntry(package, _cause(exc)))
            continue
        if stat.S_ISLNK(mode):
            skipped.append(SkippedEntry(package, "a symbolic link, not followed"))
        elif not stat.S_ISDIR(mode):
            skipped.append(SkippedEntry(package, "not a folder"))
        elif os.open in os.supports_dir_fd and _O_NOFOLLOW:
            _read_tree_by_fd(root, package, found, skipped)
        else:  # pragma: no cover - platforms without openat
            _read_tree_by_path(root, package, found, skipped)
    return PackageFiles(dict(sorted(found.items())), sorted(skipped, key=str))


def _decode(
    data: bytes, rel: str, found: dict[str, str], skipped: list[SkippedEntry]
) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        skipped.append(SkippedEntry(rel, f"not UTF-8 (byte {exc.start})"))
        return
    # Universal newlines, as Path.read_text reads: a CRLF checkout is not stale.
    found[rel] = text.replace("\r\n", "\n").replace("\r", "\n")


def _read_tree_by_fd(
    root: Path, package: str, found: dict[str, str], skipped: list[SkippedEntry]
) -> None:
    """Walk by directory descriptors with O_NOFOLLOW: a link swapped in is refused."""
    try:
        top = os.open(root, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC)
    except OSError as exc:
        skipped.append(SkippedEntry(package, _cause(exc)))
        return
    stack = [(top, package)]
    while stack:
        dir_fd, rel_dir = stack.pop()
        try:
            with os.scandir(dir_fd) as listing:
                entries = sorted(listing, key=lambda entry: entry.name, reverse=True)
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}"
                try:
                    if entry.is_symlink():
                        skipped.append(
                            SkippedEntry(rel, "a symbolic link, not followed")
                        )
                    elif entry.is_dir(follow_symlinks=False):
                        if entry.name != "__pycache__":
                            flags = (
                                os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
                            )
                            stack.append(
                                (os.open(entry.name, flags, dir_fd=dir_fd), rel)
                            )
                    elif entry.is_file(follow_symlinks=False):
                        data = _read_regular(entry.name, dir_fd)
                        if data is None:
                            skipped.append(SkippedEntry(rel, "not a regular file"))
                        else:
                            _decode(data, rel, found, skipped)
                    else:
                        skipped.append(SkippedEntry(rel, "not a regular file"))
                except OSError as exc:
                    reason = "a symbolic link, not followed"
                    skipped.append(
                        SkippedEntry(
                            rel, reason if exc.errno == errno.ELOOP else _cause(exc)
                        )
                    )
        except OSError as exc:
            skipped.append(SkippedEntry(rel_dir, _cause(exc)))
        finally:
            os.close(dir_fd)


def _read_regular(name: str, dir_fd: int) -> bytes | None:
    """The bytes of a regular file, or None when something else stands there now."""
    flags = os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC
    fd = os.open(name, flags, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_tree_by_path(
    root: Path, package: str, found: dict[str, str], skipped: list[SkippedEntry]
) -> None:  # pragma: no cover - platforms without openat
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        below = here.relative_to(root).as_posix()
        rel_dir = package if below == "." else f"{package}/{below}"
        for name in sorted(dirnames):
            if (here / name).is_symlink():
                skipped.append(
                    SkippedEntry(f"{rel_dir}/{name}", "a symbolic link, not followed")
                )
        dirnames[:] = [
            n for n in dirnames if n != "__pycache__" and not (here / n).is_symlink()
        ]
        for name in sorted(filenames):
            path, rel = here / name, f"{rel_dir}/{name}"
            if path.is_symlink():
                skipped.append(SkippedEntry(rel, "a symbolic link, not followed"))
            elif not path.is_file():
                skipped.append(SkippedEntry(rel, "not a regular file"))
            else:
                try:
                    _decode(path.read_bytes(), rel, found, skipped)
                except OSError as exc:
                    skipped.append(SkippedEntry(rel, _cause(exc)))


# ---------------------------------------------------------------------------- writing


def write_packages(
    out_dir: Path, files: Mapping[str, str], *, lock_timeout: float = LOCK_TIMEOUT
) -> list[Path]:
    """Replace each package folder named in ``files`` atomically; returns the folders.

    Raises :class:`WriteError` (one line, naming the path and the cause) when the output
    folder, the lock or a package cannot be written; a package it names is unchanged.
    ``KeyboardInterrupt`` passes through, after the staged folder is removed.
    """
    packages = group_by_package(files)
    for package, contents in packages.items():
        _check_names(package, contents)
    _make_out_dir(out_dir)
    written = []
    with _locked(out_dir, lock_timeout):
        _remove_stale(out_dir)
        for package, contents in sorted(packages.items()):
            _replace_package(out_dir, package, contents)
            written.append(out_dir / package)
    return written


def _cause(exc: OSError) -> str:
    """The reason alone, without the (possibly hidden) file name Python adds."""
    return exc.strerror or str(exc) or type(exc).__name__


def _check_names(package: str, contents: Mapping[str, str]) -> None:
    """File names come from the plugin's response: none may leave the package folder."""
    if package in ("", ".", "..") or package.startswith(".") or "\0" in package:
        raise WriteError(f"{package!r}: not a usable package folder name")
    for name in contents:
        parts = name.split("/")
        if any(part in ("", ".", "..") or "\0" in part for part in parts):
            raise WriteError(
                f"{package}/{name}: not a usable file name inside the package"
            )


def _make_out_dir(out_dir: Path) -> None:
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        what = "a dangling symbolic link" if out_dir.is_symlink() else "not a folder"
        raise WriteError(
            f"{out_dir}: cannot write the output here, it is {what}"
        ) from None
    except OSError as exc:
        raise WriteError(
            f"{out_dir}: cannot create the output folder ({_cause(exc)})"
        ) from exc


# -- the lock


@contextmanager
def _locked(out_dir: Path, timeout: float) -> Iterator[None]:
    """Hold the output folder's lock; the lock file is removed when the block ends."""
    path = out_dir / LOCK_NAME
    fd = (
        _lock_by_flock(path, timeout)
        if fcntl is not None
        else _lock_by_msvcrt(path, timeout)
    )
    try:
        yield
    finally:
        # Unlinked while still held: a waiter then finds its file gone and starts over.
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)


def _open_lock(path: Path, flags: int) -> int:
    try:
        fd = os.open(path, flags | os.O_RDWR | _O_NOFOLLOW | _O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise WriteError(
                f"{path}: a symbolic link stands where the lock goes"
            ) from None
        raise WriteError(
            f"{path}: cannot create the lock file ({_cause(exc)})"
        ) from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise WriteError(
            f"{path}: something other than a file stands where the lock goes"
        )
    return fd


def _busy(path: Path) -> WriteError:
    return WriteError(
        f"{path.parent}: another a2a-codegen generate is writing here ({path.name})"
    )


def _lock_by_flock(path: Path, timeout: float) -> int:
    assert fcntl is not None
    deadline = time.monotonic() + timeout
    while True:
        fd = _open_lock(path, os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() >= deadline:
                raise _busy(path) from None
            time.sleep(0.02)
            continue
        # The holder before us may have unlinked the file we locked: only the file
        # still under the name counts.
        held = os.fstat(fd)
        try:
            now = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            now = None
        if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            return fd
        os.close(fd)


def _lock_by_msvcrt(path: Path, timeout: float) -> int:  # pragma: no cover
    """Windows: a byte-range lock, which the system also drops when its owner dies."""
    deadline = time.monotonic() + timeout
    fd = _open_lock(path, os.O_CREAT)
    if sys.platform == "win32":
        import msvcrt

        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return fd
            except OSError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise _busy(path) from None
                time.sleep(0.02)
    return fd


# -- stale hidden folders


def _alive(pid: int) -> bool:
    """Whether process ``pid`` may still be running (when unsure: yes)."""
    if pid == os.getpid():
        return False  # our own leftover: this process holds the lock now
    if os.name != "posix":  # pragma: no cover - os.kill would terminate it on Windows
        return False  # the lock we hold proves no writer is active
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _hidden_owner(name: str) -> tuple[str, int, str] | None:
    """``(package, pid, kind)`` of one of our hidden folders' names, else None."""
    if not name.startswith(HIDDEN_PREFIX):
        return None
    parts = name[len(HIDDEN_PREFIX) :].rsplit(".", 3)
    if len(parts) != 4 or not parts[1].isdigit() or parts[3] not in ("new", "old"):
        return None
    return parts[0], int(parts[1]), parts[3]


def _remove_stale(out_dir: Path) -> None:
    """Remove the hidden folders of writers that died; put back an old package that a
    kill between the two renames of the fallback swap left only under a hidden name."""
    try:
        names = sorted(os.listdir(out_dir))
    except OSError as exc:
        raise WriteError(
            f"{out_dir}: cannot list the output folder ({_cause(exc)})"
        ) from exc
    for name in names:
        owner = _hidden_owner(name)
        path = out_dir / name
        if owner is None or _alive(owner[1]) or not _is_real_dir(path):
            continue
        package, _, kind = owner
        try:
            if kind == "old" and not os.path.lexists(out_dir / package):
                os.replace(path, out_dir / package)
            else:
                _remove_tree(path)
        except OSError as exc:
            raise WriteError(
                f"{path}: cannot remove this stale folder ({_cause(exc)})"
            ) from exc


def _remove_tree(path: Path) -> None:
    """Remove one of our hidden folders, even an old package made read-only; what
    cannot go now is stale for the next run."""
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return
    # Unlinking needs write access to each folder: grant it to ourselves, no further.
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
    for dirpath, dirnames, _ in os.walk(path):
        for name in [".", *dirnames]:
            folder = os.path.join(dirpath, name)
            try:
                if stat.S_ISDIR(os.lstat(folder).st_mode):
                    os.chmod(folder, 0o700)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


# -- one package


def _target_state(target: Path) -> bool:
    """Whether a package folder stands at ``target``; refuses anything else there."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise WriteError(
            f"{target}: cannot look at the package folder ({_cause(exc)})"
        ) from exc
    if stat.S_ISLNK(mode):
        raise WriteError(
            f"{target}: a symbolic link stands where the package goes; not following "
            "it (remove it, or point -o at the folder it names)"
        )
    if not stat.S_ISDIR(mode):
        raise WriteError(
            f"{target}: a file stands where the package folder goes; remove it"
        )
    return True


def _replace_package(out_dir: Path, package: str, contents: Mapping[str, str]) -> None:
    target = out_dir / package
    exists = _target_state(target)
    try:
        staging = Path(
            tempfile.mkdtemp(
                prefix=f"{HIDDEN_PREFIX}{package}.{os.getpid()}.",
                suffix=".new",
                dir=out_dir,
            )
        )
    except OSError as exc:
        raise WriteError(
            f"{target}: cannot write ({_cause(exc)}); left as it was"
        ) from exc
    swapped = False
    try:
        try:
            _stage(staging, contents)
            if exists:
                swapped = _swap(staging, target)
            else:
                _move_new(staging, target)
            _fsync_dir(out_dir)
        except OSError as exc:
            state = "replaced" if swapped else "left as it was"
            raise WriteError(
                f"{target}: cannot write ({_cause(exc)}); {state}"
            ) from exc
    finally:
        # After an exchange the staging name holds the old package: removed either way.
        if _is_real_dir(staging):
            _remove_tree(staging)


def _stage(staging: Path, contents: Mapping[str, str]) -> None:
    folders = {staging}
    for name, content in sorted(contents.items()):
        path = staging / name
        if path.parent not in folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            folders.update(path.parents)
        _write_file(path, content)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder == staging or staging in folder.parents:
            os.chmod(folder, 0o755)
            _fsync_dir(folder)


def _write_file(path: Path, content: str) -> None:
    """A new file under the private staging folder, flushed to disk before the swap."""
    data = content.encode("utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC
    fd = os.open(path, flags, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    """Make the renames in ``path`` durable; not possible (nor needed) everywhere."""
    if os.name != "posix":  # pragma: no cover
        return
    fd = os.open(path, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _load_renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a C library older than glibc 2.28
        return None
    function.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    function.restype = ctypes.c_int
    return function


_renameat2 = _load_renameat2()


def _renameat2_flags(source: Path, target: Path, flags: int) -> bool:
    """``renameat2`` with ``flags``; False when this kernel or file system has no such
    flag (the caller falls back), an ``OSError`` for any other failure."""
    if _renameat2 is None:
        return False
    result = _renameat2(
        _AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), flags
    )
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(target))


def _exchange(staging: Path, target: Path) -> bool:
    """Swap the two folders in one step; False when the platform cannot."""
    return _renameat2_flags(staging, target, _RENAME_EXCHANGE)


def _move_new(staging: Path, target: Path) -> None:
    """Put the staged folder where no package stood, never over something that came
    there meanwhile."""
    if not _renameat2_flags(staging, target, _RENAME_NOREPLACE):
        os.replace(staging, target)


def _swap(staging: Path, target: Path) -> bool:
    """Put ``staging`` under ``target``'s name, and the old folder under ``staging``'s.

    Returns True once the new package stands under the real name.
    """
    if _exchange(staging, target):
        if not _is_real_dir(staging):
            # Something other than our old folder was swapped out: put it back.
            _exchange(staging, target)
            raise OSError(errno.EEXIST, "it changed while being written")
        return True
    # Two renames: the retired name marks it "old" so a kill in between is undone.
    retired = staging.with_name(staging.name[: -len(".new")] + ".old")
    os.replace(target, retired)
    try:
        os.replace(staging, target)
    except BaseException:
        os.replace(retired, target)
        raise
    _remove_tree(retired)  # a kill here: the next run removes it
    return True

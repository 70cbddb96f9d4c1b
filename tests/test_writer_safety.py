"""The writer under kills, races and hostile file systems (issue 12, item 4).

Every case is a real file-system set-up: real child processes killed by SIGKILL, two
real writers racing, a real full tmpfs, a real unprivileged user, real links and files
where the package goes. ``check``'s reader never follows a link out of the folder.
"""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import sys
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegen import writer

from .conftest import PROTO, ROOT

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file-system cases")

PACKAGE = "pkg"

# A child that writes versions "a" and "b" in turn until it is killed; its first line
# says how long one write takes, so the parent can aim its kill within a write.
WRITE_FOREVER = r"""
import json, sys, time
from pathlib import Path
from codegen import writer

out, versions = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
started = time.monotonic()
writer.write_packages(out, versions["a"])
print(time.monotonic() - started, flush=True)
while True:
    writer.write_packages(out, versions["b"])
    writer.write_packages(out, versions["a"])
"""

# A child that waits for a line on stdin, then writes one version many times; a marker
# file next to the output folder, made with O_EXCL, catches two writers at once.
WRITE_MANY = r"""
import json, os, sys
from pathlib import Path
from codegen import writer

out, versions, tag = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text()), sys.argv[3]
replace_package = writer._replace_package

def alone(out_dir, package, contents):
    try:
        marker = os.open(out_dir.parent / "inside", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        sys.exit(f"{tag}: another writer is inside at the same time")
    try:
        replace_package(out_dir, package, contents)
    finally:
        os.close(marker)
        os.unlink(out_dir.parent / "inside")

writer._replace_package = alone
print("ready", flush=True)
sys.stdin.readline()
for _ in range(30):
    writer.write_packages(out, versions[tag])
"""

# A child that holds the output folder's lock the way the writer takes it.
HOLD_LOCK = r"""
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
"""

# A child that writes and prints the WriteError it gets, as the CLI would.
WRITE_ONCE = r"""
import json, sys
from pathlib import Path
from codegen import writer

try:
    writer.write_packages(Path(sys.argv[1]), json.loads(sys.argv[2]))
except writer.WriteError as exc:
    print(exc)
    sys.exit(3)
"""


def _version(tag: str, count: int, size: int) -> dict[str, str]:
    """A package whose file set and contents both differ from other tags'."""
    files = {
        f"{PACKAGE}/{tag}_{i:03}.py": f"# {tag} {i}\n{'x' * size}\n"
        for i in range(count)
    }
    files[f"{PACKAGE}/__init__.py"] = f"VERSION = {tag!r}\n"
    files[f"{PACKAGE}/sub/{tag}.py"] = f"# {tag} nested\n"
    return files


def _expected(files: Mapping[str, str]) -> dict[str, bytes]:
    return {name.partition("/")[2]: text.encode() for name, text in files.items()}


def _tree(root: Path) -> dict[str, bytes]:
    """Every file below root by relative name, never following a link."""
    found: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            if path.is_symlink():
                found[path.relative_to(root).as_posix()] = os.readlink(path).encode()
            elif path.is_file():
                found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def _which_version(out: Path, versions: Mapping[str, Mapping[str, str]]) -> str:
    """The version standing complete under the package's real name, or a failure."""
    on_disk = _tree(out / PACKAGE)
    for tag, files in versions.items():
        if on_disk == _expected(files):
            return tag
    raise AssertionError(
        f"{out / PACKAGE} holds no complete version: {sorted(on_disk)}"
    )


def _leftovers(out: Path) -> list[str]:
    return sorted(name for name in os.listdir(out) if name != PACKAGE)


def _python(script: str, *args: str) -> list[str]:
    return [sys.executable, "-c", script, *args]


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _python(script, *args), cwd=ROOT, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def versions(tmp_path: Path) -> Iterator[tuple[dict[str, dict[str, str]], Path]]:
    """Two small versions, saved where child processes read them."""
    chosen = {"old": _version("old", 2, 10), "new": _version("new", 3, 10)}
    saved = tmp_path / "versions.json"
    saved.write_text(json.dumps(chosen))
    yield chosen, saved


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A folder on tmpfs where there is one: the kill and race tests write thousands of
    times, and each write syncs to disk, which is free only there."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="writer-safety-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------------ kills


# Every call that changes or syncs the disk is a place to be killed at.
_STEPS = "open write fsync close mkdir rename replace unlink rmdir chmod".split()


def _write_killed_at(
    step: int, out: Path, files: dict[str, str], exchange: bool
) -> int:
    """Write ``files`` in a forked child that SIGKILLs itself just before its
    ``step``-th file-system call; the number of calls when it was not killed, else -1.
    """
    reader, report = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: hooks every call that changes or syncs the disk
        try:
            os.close(reader)
            real_write, calls = os.write, [0]

            def hook(module: object, name: str) -> None:
                real = getattr(module, name)

                def counted(*args: object, **kwargs: object) -> object:
                    if calls[0] == step:
                        os.kill(os.getpid(), signal.SIGKILL)
                    calls[0] += 1
                    return real(*args, **kwargs)

                setattr(module, name, counted)

            if not exchange:
                writer._renameat2 = None
            for name in _STEPS:
                hook(os, name)
            hook(writer, "_renameat2_flags")
            writer.write_packages(out, files)
            real_write(report, str(calls[0]).encode())
        finally:
            os._exit(0)
    os.close(report)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(reader) as lines:
        total = lines.read()
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return -1
    assert total, f"the child writing {out} failed"
    return int(total)


@pytest.mark.parametrize(
    ("exchange", "old_first"),
    [(True, True), (True, False), (False, True)],
    ids=["exchange", "first-write", "two-renames"],
)
def test_a_kill_at_every_step_leaves_a_complete_package(
    scratch: Path,
    versions: tuple[dict[str, dict[str, str]], Path],
    exchange: bool,
    old_first: bool,
) -> None:
    chosen, _ = versions
    if exchange and writer._renameat2 is None:
        pytest.skip("this platform has no renameat2")
    step, total = 0, -1
    while total < 0 or step <= total:
        out = scratch / f"out{step}"
        out.mkdir()
        if old_first:
            writer.write_packages(out, chosen["old"])
        steps = _write_killed_at(step, out, chosen["new"], exchange)
        total = max(total, steps)
        if not exchange and not (out / PACKAGE).exists():
            # Killed between the two renames: the old package waits under a hidden
            # name, and the next run (here its first step alone) puts it back.
            writer._remove_stale(out)
        if (out / PACKAGE).exists():
            _which_version(out, chosen)
        else:
            assert not old_first, f"step {step}: no package under its name"
        assert all(n.startswith(writer.HIDDEN_PREFIX) for n in _leftovers(out)), step
        writer.write_packages(out, chosen["new"])  # the next run cleans up
        assert _which_version(out, chosen) == "new"
        assert _leftovers(out) == [], f"step {step}: left behind"
        step += 1
    assert total > 30  # the hooks really saw every step of the write


def test_kills_at_random_moments_of_repeated_writes(scratch: Path) -> None:
    chosen = {"a": _version("a", 60, 4000), "b": _version("b", 45, 6000)}
    saved = scratch / "versions.json"
    saved.write_text(json.dumps(chosen))
    out = scratch / "out"
    rng = random.Random(12)
    seen: set[str] = set()
    for _ in range(20):
        child = subprocess.Popen(
            _python(WRITE_FOREVER, str(out), str(saved)),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        one_write = float(child.stdout.readline())
        # Anywhere within the next three writes, so kills land in every phase.
        try:
            child.wait(timeout=rng.uniform(0, 3 * one_write))
        except subprocess.TimeoutExpired:
            pass
        child.send_signal(signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
        child.stdout.close()
        seen.add(_which_version(out, chosen))
        assert all(n.startswith(writer.HIDDEN_PREFIX) for n in _leftovers(out))
    assert seen  # at least one complete package was seen after each kill
    writer.write_packages(out, chosen["a"])
    assert _leftovers(out) == []


# ---------------------------------------------------------------------- concurrency


def test_two_writers_into_one_folder_take_turns(tmp_path: Path, scratch: Path) -> None:
    chosen = {"old": _version("old", 30, 2000), "new": _version("new", 20, 3000)}
    saved = scratch / "versions.json"
    saved.write_text(json.dumps(chosen))
    out = scratch / "out"
    logs = {tag: tmp_path / f"{tag}.stderr" for tag in ("old", "new")}
    writers = {}
    for tag, log in logs.items():
        with log.open("w") as stderr:
            writers[tag] = subprocess.Popen(
                _python(WRITE_MANY, str(out), str(saved), tag),
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )
    for child in writers.values():
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
    for child in writers.values():  # both start at once
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.close()
    for tag, child in writers.items():
        assert child.wait(timeout=60) == 0, logs[tag].read_text()
        assert child.stdout is not None
        child.stdout.close()
        assert logs[tag].read_text() == ""
    _which_version(out, chosen)
    assert _leftovers(out) == []  # no lock file, no hidden folder


def test_a_writer_that_cannot_get_the_lock_fails_in_one_line(
    tmp_path: Path, versions: tuple[dict[str, dict[str, str]], Path]
) -> None:
    chosen, _ = versions
    out = tmp_path / "out"
    writer.write_packages(out, chosen["old"])
    holder = subprocess.Popen(
        _python(HOLD_LOCK, str(out / writer.LOCK_NAME)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(writer.WriteError) as raised:
            writer.write_packages(out, chosen["new"], lock_timeout=0)
        message = str(raised.value)
        assert "\n" not in message
        assert message.startswith(
            f"{out}: another a2a-codegen generate is writing here"
        )
        assert _which_version(out, chosen) == "old"
        assert _leftovers(out) == [writer.LOCK_NAME]  # the holder's, nothing of ours
    finally:
        holder.communicate("done\n", timeout=10)
    writer.write_packages(out, chosen["new"])
    assert _which_version(out, chosen) == "new"
    assert _leftovers(out) == []


def test_only_stale_hidden_folders_are_removed(
    tmp_path: Path, versions: tuple[dict[str, dict[str, str]], Path]
) -> None:
    chosen, _ = versions
    out = tmp_path / "out"
    writer.write_packages(out, chosen["old"])
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid, live_pid = int(dead.stdout), os.getppid()
    stale = f"{writer.HIDDEN_PREFIX}{PACKAGE}.{dead_pid}.abc123.new"
    live = f"{writer.HIDDEN_PREFIX}{PACKAGE}.{live_pid}.def456.new"
    users = [".pkg.old-keep", f"{writer.HIDDEN_PREFIX}notes", ".a2a-codegen.x.1.y.z"]
    for name in [stale, live, *users]:
        (out / name).mkdir()
        (out / name / "f.py").write_text("kept?\n")
    writer.write_packages(out, chosen["new"])
    assert _leftovers(out) == sorted([live, *users])


# ------------------------------------------------------------ hostile file systems


def test_a_full_disk_is_one_line_and_leaves_the_old_package(
    tmp_path: Path, versions: tuple[dict[str, dict[str, str]], Path]
) -> None:
    chosen, _ = versions
    out = tmp_path / "small"
    out.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(out)],
        capture_output=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr!r}")
    try:
        writer.write_packages(out, chosen["old"])
        huge = _version("new", 4, 40_000)
        with pytest.raises(writer.WriteError) as raised:
            writer.write_packages(out, huge)
        assert str(raised.value) == (
            f"{out / PACKAGE}: cannot write (No space left on device); left as it was"
        )
        assert _which_version(out, chosen) == "old"
        assert _leftovers(out) == []
    finally:
        subprocess.run(["umount", str(out)], check=True)


def test_a_full_disk_on_any_platform(
    tmp_path: Path,
    versions: tuple[dict[str, dict[str, str]], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where no small file system can be mounted: ENOSPC from the write call itself."""
    chosen, _ = versions
    out = tmp_path / "out"
    writer.write_packages(out, chosen["old"])

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(writer.WriteError, match=r"No space left on device\); left as"):
        writer.write_packages(out, chosen["new"])
    assert _which_version(out, chosen) == "old"
    assert _leftovers(out) == []


@pytest.mark.parametrize(
    ("writable_out", "expected"),
    [
        (False, "lock: cannot create the lock file (Permission denied)"),
        (True, None),  # a read-only old package is replaced all the same
    ],
    ids=["read-only-output-folder", "read-only-package-folder"],
)
def test_permission_errors_are_one_line(
    tmp_path: Path,
    versions: tuple[dict[str, dict[str, str]], Path],
    writable_out: bool,
    expected: str | None,
) -> None:
    chosen, _ = versions
    unprivileged: list[str] = []
    if os.geteuid() == 0:  # root ignores modes: run the writer without that power
        if not shutil.which("setpriv"):
            pytest.skip("running as root and setpriv is not here to drop CAP_DAC_*")
        caps = "-dac_override,-dac_read_search,-fowner"
        unprivileged = ["setpriv", "--bounding-set", caps]
    out = tmp_path / "out"
    writer.write_packages(out, chosen["old"])
    (out if writable_out else out / PACKAGE).chmod(0o755)
    (out / PACKAGE if writable_out else out).chmod(0o555)
    before = _tree(out)
    try:
        done = subprocess.run(
            [*unprivileged, *_python(WRITE_ONCE, str(out), json.dumps(chosen["new"]))],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        (out / PACKAGE).chmod(0o755)
        out.chmod(0o755)
    if expected is None:
        assert done.returncode == 0, done.stdout + done.stderr
        assert _which_version(out, chosen) == "new"
    else:
        assert done.returncode == 3, done.stderr
        assert done.stdout.count("\n") == 1
        assert done.stdout.rstrip().endswith(expected)
        assert _tree(out) == before
    assert _leftovers(out) == []


def _dangling(place: Path, outside: Path) -> None:
    place.symlink_to(outside / "nowhere")


def _linked_dir(place: Path, outside: Path) -> None:
    (outside / "theirs").mkdir()
    (outside / "theirs" / "keep.txt").write_text("theirs\n")
    place.symlink_to(outside / "theirs")


def _file(place: Path, outside: Path) -> None:
    place.write_text("a user's file\n")


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (_dangling, "a symbolic link stands where the package goes; not following it"),
        (
            _linked_dir,
            "a symbolic link stands where the package goes; not following it",
        ),
        (_file, "a file stands where the package folder goes; remove it"),
    ],
    ids=["dangling-link", "link-to-a-folder", "file"],
)
def test_something_else_in_the_package_place_is_refused_and_left_alone(
    tmp_path: Path,
    versions: tuple[dict[str, dict[str, str]], Path],
    make: Callable[[Path, Path], None],
    expected: str,
) -> None:
    chosen, _ = versions
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    make(out / PACKAGE, outside)
    before = (_tree(out), _tree(outside), os.lstat(out / PACKAGE).st_mode)
    with pytest.raises(writer.WriteError) as raised:
        writer.write_packages(out, chosen["new"])
    assert str(raised.value).startswith(f"{out / PACKAGE}: {expected}")
    assert "\n" not in str(raised.value)
    assert (_tree(out), _tree(outside), os.lstat(out / PACKAGE).st_mode) == before
    assert _leftovers(out) == []  # nothing moved aside, no lock left


def test_a_link_where_the_lock_goes_is_not_followed(
    tmp_path: Path, versions: tuple[dict[str, dict[str, str]], Path]
) -> None:
    chosen, _ = versions
    out, target = tmp_path / "out", tmp_path / "precious.txt"
    out.mkdir()
    target.write_text("precious\n")
    (out / writer.LOCK_NAME).symlink_to(target)
    with pytest.raises(
        writer.WriteError, match="a symbolic link stands where the lock"
    ):
        writer.write_packages(out, chosen["new"])
    assert target.read_text() == "precious\n"
    assert os.listdir(out) == [writer.LOCK_NAME]


@pytest.mark.parametrize("kind", ["dangling-link", "file"])
def test_an_output_folder_that_is_not_a_folder(
    tmp_path: Path, versions: tuple[dict[str, dict[str, str]], Path], kind: str
) -> None:
    chosen, _ = versions
    out = tmp_path / "out"
    if kind == "file":
        out.write_text("x\n")
    else:
        out.symlink_to(tmp_path / "nowhere")
    with pytest.raises(writer.WriteError) as raised:
        writer.write_packages(out, chosen["new"])
    what = "a dangling symbolic link" if kind == "dangling-link" else "not a folder"
    assert str(raised.value) == f"{out}: cannot write the output here, it is {what}"
    assert sorted(os.listdir(tmp_path)) == ["out", "versions.json"]


@pytest.mark.parametrize(
    "name", ["pkg/../escape.py", "pkg//a.py", ".hidden/a.py", "/a.py"]
)
def test_file_names_cannot_leave_the_package(tmp_path: Path, name: str) -> None:
    with pytest.raises(writer.WriteError, match="not a usable"):
        writer.write_packages(tmp_path / "out", {name: "x = 1\n"})
    assert not (tmp_path / "out").exists() and not (tmp_path / "escape.py").exists()


# ---------------------------------------------------------------------- reading


def test_reading_never_follows_links_nor_reads_outside(tmp_path: Path) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET\n")
    (outside / "dir").mkdir()
    (outside / "dir" / "inner.py").write_text("SECRET\n")
    writer.write_packages(out, {"pkg/a.py": "a = 1\n", "pkg/sub/b.py": "b = 2\r\n"})
    package = out / PACKAGE
    (package / "linked.py").symlink_to(outside / "secret.txt")
    (package / "sub" / "linked_dir").symlink_to(outside / "dir")
    (package / "latin1.py").write_bytes(b"name = '\xe9'\n")
    os.mkfifo(package / "pipe")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "a.pyc").write_bytes(b"\x00\xff")
    (out / "other").symlink_to(outside)

    found = writer.read_packages(out, ["pkg", "other", "absent"])
    assert dict(found) == {"pkg/a.py": "a = 1\n", "pkg/sub/b.py": "b = 2\n"}
    assert found == {"pkg/a.py": "a = 1\n", "pkg/sub/b.py": "b = 2\n"}
    assert [str(entry) for entry in found.skipped] == [
        "other: skipped, a symbolic link, not followed",
        "pkg/latin1.py: skipped, not UTF-8 (byte 8)",
        "pkg/linked.py: skipped, a symbolic link, not followed",
        "pkg/pipe: skipped, not a regular file",
        "pkg/sub/linked_dir: skipped, a symbolic link, not followed",
    ]


def _library(out: Path, *args: str) -> tuple[int, str, str]:
    from codegen.cli import main  # here: the writer's own cases need no generator

    proto = PROTO / "features" / "library.proto"
    result = CliRunner().invoke(
        main, [*args, str(proto), "-I", str(proto.parent), "-o", str(out)]
    )
    return result.exit_code, result.stdout, result.stderr


def test_check_does_not_show_a_linked_file_and_says_it_skipped_it(
    tmp_path: Path,
) -> None:
    out, secret = tmp_path / "out", tmp_path / "secret.txt"
    code, _, stderr = _library(out, "generate")
    assert code == 0, stderr
    secret.write_text("SECRET-TOKEN\n")
    (package,) = [p for p in out.iterdir() if p.is_dir()]
    victim = sorted(package.glob("*.py"))[0]
    victim.unlink()
    victim.symlink_to(secret)
    code, stdout, stderr = _library(out, "check")
    assert code == 1
    assert "SECRET-TOKEN" not in stdout + stderr
    relative = victim.relative_to(out).as_posix()
    assert f"{out}/{relative}: skipped, a symbolic link, not followed" in stderr


def test_generate_reports_a_link_in_the_package_place_in_one_line(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    code, _, stderr = _library(out, "generate")
    assert code == 0, stderr
    (package,) = [p for p in out.iterdir() if p.is_dir()]
    moved = package.rename(tmp_path / "elsewhere")
    package.symlink_to(moved)
    code, _, stderr = _library(out, "generate")
    assert code == 1
    assert stderr.splitlines(keepends=True)[-1] == (
        f"a2a-codegen: {package}: a symbolic link stands where the package goes; "
        "not following it (remove it, or point -o at the folder it names)\n"
    )
    assert os.readlink(package) == str(moved)
    assert os.listdir(out) == [package.name]

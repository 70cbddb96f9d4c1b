"""Formatting workers end with the generator, even when it is killed mid-run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.synthetic import synthetic_proto


def _processes_mentioning(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in command:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's"
)
def test_killing_the_generator_ends_its_formatting_workers(tmp_path: Path) -> None:
    proto = tmp_path / "big.proto"
    proto.write_text(synthetic_proto(300))  # big enough for the parallel formatter
    out = tmp_path / "out-marker"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "codegen",
            "generate",
            str(proto),
            "-I",
            str(tmp_path),
            "-o",
            str(out),
            "--opt",
            "ambiguity=ignore",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while len(_processes_mentioning(str(out))) < 2:  # the parent and a worker
        assert process.poll() is None, "generation ended before its workers were seen"
        assert time.monotonic() < deadline, "no formatting worker started"
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(10)
    deadline = time.monotonic() + 10
    while _processes_mentioning(str(out)):
        assert (
            time.monotonic() < deadline
        ), "formatting workers outlived the killed generator"
        time.sleep(0.05)

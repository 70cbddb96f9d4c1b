"""Generation cost on hostile inputs (issue 12): does the generator grow linearly?

Three families, each at growing sizes, each row generated in a fresh interpreter with a
120 s bound (a row past it is reported as skipped, not waited for):

- large comments: 10 KB, 100 KB and 1 MB of ``(--`` (unclosed internal notes, which
  used to be cleaned in quadratic time), of ordinary text in 80-character lines, and
  10 K to 1 M lines of one character, on a message and a field;
- deep nesting: a GET rpc whose request holds a chain of N nested messages (N = 10, 100,
  500, 2000), with ``max_query_depth`` raised to N so the generator does the work
  rather than refusing at the default limit;
- many rpcs: the synthetic service of ``bench/synthetic.py`` with 100, 1000 and 5000 rpcs.

Each row prints the input size, generation time (protoc parse excluded: model, templates,
layout and the gate) and the output size of the templated modules (the verbatim runtime
is a constant). The last column compares growth with the previous row: time ratio over
input ratio, about 1.0 when growth is linear. Reported, never asserted.
Run: ``.venv/bin/python bench/bench_hostile.py`` (a few minutes).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.synthetic import synthetic_proto  # noqa: E402

ROW_SECONDS = 120
HEADER = 'syntax = "proto3";\n\npackage hostile.v1;\n\nimport "google/api/annotations.proto";\n\n'
SERVICE = (
    "service Hostile {\n  rpc Get(Request) returns (Request) {\n"
    '    option (google.api.http) = { get: "/items/{id}" };\n  }\n}\n'
)

# The child: compile, then time generation alone, then measure what it wrote.
CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from codegen.inputs import request_from_protos
from codegen.plugin import generate
request = request_from_protos([{proto!r}], [{folder!r}], {parameter!r})
start = time.perf_counter()
response = generate(request)
seconds = time.perf_counter() - start
templated = sum(
    len(f.content.encode()) for f in response.file if not f.name.split("/")[-1].startswith("_")
)
print(json.dumps({{"seconds": seconds, "bytes": templated, "error": response.error[:160]}}))
"""


def comment_proto(text: str, width: int = 80) -> str:
    """A message and one of its fields commented with ``text``, one ``//`` line per
    ``width`` characters (a proto comment is a run of ``//`` lines)."""
    lines = "".join(f"// {text[i:i + width]}\n" for i in range(0, len(text), width))
    return (
        HEADER
        + lines
        + "message Request {\n"
        + lines.replace("// ", "  // ")
        + "  string id = 1;\n  int32 count = 2;\n}\n\n"
        + SERVICE
    )


def chain_proto(depth: int) -> str:
    """Request -> L1 -> ... -> L<depth>, each level with a scalar and the next level."""
    parts = [HEADER, "message Request {\n  string id = 1;\n  L1 next = 2;\n}\n\n"]
    for level in range(1, depth + 1):
        nested = f"  L{level + 1} next = 2;\n" if level < depth else ""
        parts.append(f"message L{level} {{\n  string value = 1;\n{nested}}}\n\n")
    parts.append(SERVICE)
    return "".join(parts)


def measure(text: str, parameter: str, scratch: Path, name: str) -> dict[str, object]:
    """Generate ``text`` in a fresh interpreter; the row's numbers, or why there are none."""
    folder = scratch / name
    folder.mkdir()
    proto = folder / "hostile.proto"
    proto.write_text(text, encoding="utf-8")
    child = CHILD.format(
        root=str(ROOT), proto=str(proto), folder=str(folder), parameter=parameter
    )
    try:
        result = subprocess.run(
            [sys.executable, "-c", child],
            capture_output=True,
            text=True,
            timeout=ROW_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return {"skipped": f"skipped: still running after {ROW_SECONDS} s"}
    if result.returncode:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return {"skipped": f"failed: {last[:100]}"}
    row: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return row


def report(family: str, rows: list[tuple[str, int, str, str]], scratch: Path) -> None:
    """Measure and print one family: (label, input units, proto text, plugin parameter)."""
    print(f"\n{family}")
    print(
        f"  {'input':<24} {'proto bytes':>12} {'generation':>11} {'output bytes':>13}  growth"
    )
    previous: tuple[int, float] | None = None
    for label, units, text, parameter in rows:
        row = measure(text, parameter, scratch, f"row{len(list(scratch.iterdir()))}")
        size = len(text.encode())
        if "skipped" in row:
            print(f"  {label:<24} {size:>12,} {'':>11} {'':>13}  {row['skipped']}")
            previous = None
            continue
        seconds = float(row["seconds"])  # type: ignore[arg-type]
        note = f"  (diagnostic: {row['error']})" if row["error"] else ""
        growth = ""
        if row["error"]:
            print(
                f"  {label:<24} {size:>12,} {seconds:>10.2f}s {'':>13}  {note.strip()}"
            )
            previous = None
            continue
        if previous is not None and previous[1] > 0:
            growth = f"{(seconds / previous[1]) / (units / previous[0]):5.2f}"
        print(f"  {label:<24} {size:>12,} {seconds:>10.2f}s {int(row['bytes']):>13,}  {growth}{note}")  # type: ignore[call-overload]
        previous = (units, seconds)


def main() -> None:
    print(
        "Hostile-input generation (issue 12). growth = (time ratio) / (input ratio) against "
        "the row above: about 1 is linear, about 10 per 10x input is quadratic."
    )
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        sizes = (10_000, 100_000, 1_000_000)
        report(
            "Large comments: '(--' repeated (unclosed internal notes)",
            [
                (f"{n // 1000:,} KB of '(--'", n, comment_proto(("(--" * n)[:n]), "")
                for n in sizes
            ],
            scratch,
        )
        report(
            "Large comments: ordinary text",
            [
                (
                    f"{n // 1000:,} KB of text",
                    n,
                    comment_proto(("lorem ipsum " * n)[:n]),
                    "",
                )
                for n in sizes
            ],
            scratch,
        )
        report(
            "Large comments: one character a line",
            [
                (f"{n // 1000:,} K lines", n, comment_proto("a" * n, width=1), "")
                for n in sizes
            ],
            scratch,
        )
        report(
            "Deep nesting: a chain of N request messages (max_query_depth=N)",
            [
                (f"N = {n:,}", n, chain_proto(n), f"max_query_depth={n + 1}")
                for n in (10, 100, 500, 2000)
            ],
            scratch,
        )
        report(
            "Many rpcs: synthetic service, 2 routes per rpc",
            [
                (f"{n:,} rpcs", n, synthetic_proto(n), "ambiguity=ignore")
                for n in (100, 1000, 5000)
            ],
            scratch,
        )


if __name__ == "__main__":
    main()

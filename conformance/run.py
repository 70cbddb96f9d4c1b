"""Run the official A2A conformance kit (a2aproject/a2a-tck) against the example server.

    .venv/bin/python conformance/run.py [--kit 1.0|0.3] [--categories mandatory,...] [--transports jsonrpc,rest,grpc]

``--kit`` picks the kit: ``1.0`` (``../shared/a2a-tck``, the default) or ``0.3``
(``../shared/a2a-tck-v0.3``, the kit's ``0.3.x`` branch: 0.3 method names, shapes and
card; its failures listed in ``conformance/expected_failures_v0_3.json``). It copies the
kit to a temporary folder (the kit writes reports next to itself), keeps a venv with
the kit's requirements under ``.conformance/`` (one per requirements, so kits that ask
for the same share it), serves
``examples/a2a_server.py`` on loopback at a free port (both HTTP bindings at the root:
the kit drops a base path and posts raw JSON-RPC to the root; gRPC on another free
port, which the card names; every task held, see examples/agent.py) with a fresh bearer
token that the kit also gets (its documented ``A2A_AUTH_TYPE``/``A2A_AUTH_TOKEN``),
runs each category over each transport with the kit's own pytest selection (the
transport-equivalence category once, over every transport together: it compares
them), and fails on any failed test not listed in the kit's list
(``conformance/expected_failures.json`` for 1.0; an entry's ``transports`` name the
transport, or ``all`` for that category). A failure not listed is run once more on its
own first: one that passes then is reported FLAKY and does not fail the run (some kit
tests draw random ids; one fails when its id happens to contain "501", which it takes
for "not implemented" in the error that quotes the id). ``--sut-url`` runs the kit against a server
already listening there instead (to learn a kit against a reference implementation).
Exit status: 0 all failures listed, 1 an unlisted failure, 2 the kit or its venv is
missing.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".conformance"
# --target gateway: a2a-sdk's gRPC agent behind the generated app, its own list.
GATEWAY = Path(__file__).with_name("gateway_agent.py")
EXPECTED_GATEWAY = Path(__file__).with_name("expected_failures_gateway.json")
# Extras the kit imports that its requirements.txt leaves out (its pyproject lists them).
EXTRAS = [
    "python-dotenv",
    "pyOpenSSL",
    "aiohttp",
    "grpcio-status",
    "proto-plus",
    "protobuf",
]
# Each kit's own selection per category (its run_tck.py, category_configs).
OPTIONAL = {
    "capabilities": ("tests/optional/capabilities/", None),
    "quality": ("tests/optional/quality/", None),
    "features": ("tests/optional/features/", None),
    "transport-equivalence": (
        "tests/optional/multi_transport/",
        "transport_equivalence",
    ),
}


@dataclass(frozen=True)
class Kit:
    """One conformance kit: where it is, its list of expected failures, and how its
    run_tck.py selects the tests of a category (mandatory over JSON-RPC on its own)."""

    folder: Path
    expected: Path
    categories: dict[str, tuple[str, str | None]]
    mandatory_jsonrpc: tuple[str, str]
    reports: str  # folder under .conformance/ keeping the last run's reports

    def selection(self, category: str, transport: str) -> tuple[str, str | None]:
        """The kit's test folder and marker expression for a category and transport."""
        if category == "mandatory" and transport == "jsonrpc":
            return self.mandatory_jsonrpc
        return self.categories[category]


KITS = {
    "1.0": Kit(
        folder=ROOT.parent / "shared" / "a2a-tck",
        expected=Path(__file__).with_name("expected_failures.json"),
        categories={
            "mandatory": ("tests/mandatory/", "mandatory or mandatory_protocol"),
            **OPTIONAL,
        },
        # run_tck.py adds mandatory_jsonrpc for JSON-RPC
        mandatory_jsonrpc=(
            "tests/mandatory/",
            "mandatory or mandatory_protocol or mandatory_jsonrpc",
        ),
        reports="reports",
    ),
    # The 0.3.x branch's run_tck.py: the JSON-RPC compliance tests over JSON-RPC only,
    # the protocol tests alone over any other transport.
    "0.3": Kit(
        folder=ROOT.parent / "shared" / "a2a-tck-v0.3",
        expected=Path(__file__).with_name("expected_failures_v0_3.json"),
        categories={
            "mandatory": ("tests/mandatory/protocol/", "mandatory_protocol"),
            **OPTIONAL,
        },
        mandatory_jsonrpc=(
            "tests/mandatory/",
            "mandatory_jsonrpc or mandatory_protocol",
        ),
        reports="reports-v0_3",
    ),
}
# Categories run once over all the transports together, reported as transport "all".
TOGETHER = frozenset({"transport-equivalence"})
SERVE = (
    "import uvicorn, examples.a2a_server as s;"
    "uvicorn.run(s.create_app(hold=True, rest_prefix='', rpc_path='/'), host='127.0.0.1',"
    " port={port}, log_level='warning')"
)


def kit_venv(kit: Kit) -> Path:
    """The venv holding the kit's requirements, made once per requirements file: the
    1.0 kit's in ``.conformance/venv``, another kit's there too when it asks for the
    same (the 0.3 kit does), else in a venv named by its requirements' hash."""
    requirements = (kit.folder / "requirements.txt").read_bytes()
    wanted = hashlib.sha256(requirements).hexdigest()
    first = KITS["1.0"].folder / "requirements.txt"
    same = first.exists() and first.read_bytes() == requirements
    venv = CACHE / ("venv" if same else f"venv-{wanted[:12]}")
    python = venv / "bin" / "python"
    stamp = venv / ".requirements"
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    CACHE.mkdir(exist_ok=True)
    (CACHE / ".gitignore").write_text("*\n")  # the cache ignores itself
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "-r",
            str(kit.folder / "requirements.txt"),
            *EXTRAS,
        ],
        check=True,
    )
    stamp.write_text(wanted)
    return python


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve(port: int, token: str, target: str = "example") -> subprocess.Popen[bytes]:
    """The example server (or, for ``target="gateway"``, conformance/gateway_agent.py:
    a2a-sdk's gRPC agent behind the gateway) in its own process, with the repo's venv.
    """
    env = dict(
        os.environ,
        PYTHONPATH=f"{ROOT / 'generated'}{os.pathsep}{ROOT}",
        A2A_EXAMPLE_TOKEN=token,
        # a free port on localhost (IPv4 and IPv6: the card names localhost)
        A2A_EXAMPLE_GRPC_PORT="0",
        A2A_EXAMPLE_GRPC_HOST="localhost",
        # the kit reads the gRPC host from a URL with a scheme only (grpc://host:port)
        A2A_EXAMPLE_GRPC_URL="absolute",
    )
    command = (
        [sys.executable, "-c", SERVE.format(port=port)]
        if target == "example"
        else [sys.executable, str(GATEWAY), str(port)]
    )
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(
                f"http://127.0.0.1:{port}/.well-known/agent-card.json", timeout=1
            ).close()
            return server
        except OSError:
            if server.poll() is not None:
                break
            time.sleep(0.1)
    server.kill()
    raise SystemExit("conformance: the example server did not start")


def run_kit(
    python: Path,
    kit: Kit,
    copy: Path,
    url: str,
    category: str,
    transport: str,
    token: str,
    nodeids: list[str] | None = None,
) -> dict[str, Any]:
    """One category over one transport (or several, comma-separated, for a category
    that compares them) of the kit copied to ``copy``; the kit's JSON report.
    ``nodeids``: only these tests of the category (its run again)."""
    path, markers = kit.selection(category, transport)
    name = f"{category}-{transport.replace(',', '+')}{'-again' if nodeids else ''}"
    report = copy / "reports" / f"{name}.json"
    command = [
        str(python),
        "-m",
        "pytest",
        *(nodeids or [path]),
        f"--sut-url={url}",
        "--test-scope=all",
        "--tb=line",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--transports={transport}",
        "--json-report",
        f"--json-report-file={report}",
    ]
    if markers:
        command += ["-m", markers]
    # The kit's documented way to authenticate (docs/AUTHENTICATION_SETUP.md): it adds
    # the header to its requests, and leaves it off where a test checks refusal.
    env = dict(os.environ, A2A_AUTH_TYPE="bearer", A2A_AUTH_TOKEN=token)
    subprocess.run(
        command,
        cwd=copy,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    result: dict[str, Any] = json.loads(report.read_text())
    kept = CACHE / kit.reports  # kept for reading the failures afterwards
    kept.mkdir(parents=True, exist_ok=True)
    shutil.copy(report, kept / report.name)
    return result


def listed(
    expected: list[dict[str, Any]], nodeid: str, transport: str
) -> dict[str, Any] | None:
    for entry in expected:
        if (
            fnmatch.fnmatchcase(nodeid, entry["test"])
            and transport in entry["transports"]
        ):
            return entry
    return None


def outcome_of(test: dict[str, Any]) -> str:
    """A kit test's outcome: passed, failed (an error in a fixture too), skipped."""
    return "failed" if test["outcome"] == "error" else str(test["outcome"])


def failed(result: dict[str, Any]) -> list[str]:
    """The tests a kit report has failing."""
    return [t["nodeid"] for t in result["tests"] if outcome_of(t) == "failed"]


def settle(unlisted: list[str], again: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The tests of ``unlisted`` (failed, not listed) that passed when run once more
    (``again``, the re-run's report): flaky; and those that did not: failures."""
    passed = {t["nodeid"] for t in again["tests"] if t["outcome"] == "passed"}
    return (
        [nodeid for nodeid in unlisted if nodeid in passed],
        [nodeid for nodeid in unlisted if nodeid not in passed],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--categories", default="mandatory,capabilities,quality,features"
    )
    parser.add_argument("--transports", default="jsonrpc,rest,grpc")
    parser.add_argument("--report", type=Path, help="write the outcomes as JSON here")
    parser.add_argument(
        "--target",
        choices=("example", "gateway"),
        default="example",
        help="the example server, or a2a-sdk's gRPC agent behind the gateway",
    )
    parser.add_argument(
        "--kit", choices=sorted(KITS), default="1.0", help="the kit's protocol version"
    )
    parser.add_argument(
        "--sut-url",
        help="run against a server already listening at this URL (none is started)",
    )
    args = parser.parse_args()
    kit = KITS[args.kit]
    if not (kit.folder / "run_tck.py").exists():
        print(f"conformance: no kit at {kit.folder}", file=sys.stderr)
        return 2
    if args.target == "gateway" and args.kit != "1.0":
        parser.error("the gateway is run with the 1.0 kit only")
    listing = kit.expected if args.target == "example" else EXPECTED_GATEWAY
    expected: list[dict[str, Any]] = json.loads(listing.read_text())["failures"]
    started = time.monotonic()
    python = kit_venv(kit)
    token = secrets.token_urlsafe(24)  # the extended card's bearer token for this run
    if args.sut_url:
        url, server = args.sut_url, None
    else:
        port = free_port()
        # localhost, not 127.0.0.1: the card echoes the host the client used.
        url, server = f"http://localhost:{port}", serve(port, token, args.target)
    unexpected: list[str] = []
    flaky: list[str] = []
    used: set[int] = set()
    rows: list[tuple[str, str, dict[str, int]]] = []
    outcomes: dict[str, str] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="a2a-tck-") as folder:
            copy = Path(folder) / "a2a-tck"
            shutil.copytree(
                kit.folder, copy, ignore=shutil.ignore_patterns(".git", "__pycache__")
            )
            for category in args.categories.split(","):
                runs = (
                    [("all", args.transports)]
                    if category in TOGETHER
                    else [(t, t) for t in args.transports.split(",")]
                )
                for transport, selected in runs:
                    result = run_kit(python, kit, copy, url, category, selected, token)
                    counts = {"passed": 0, "failed": 0, "skipped": 0}
                    for test in result["tests"]:
                        outcome = outcome_of(test)
                        counts[outcome] = counts.get(outcome, 0) + 1
                        outcomes[f"{transport} {test['nodeid']}"] = outcome
                    unlisted = []
                    for nodeid in failed(result):
                        entry = listed(expected, nodeid, transport)
                        if entry is None:
                            unlisted.append(nodeid)
                        else:
                            used.add(id(entry))
                    if unlisted:  # once more: a kit test can fail by chance
                        again = run_kit(
                            python, kit, copy, url, category, selected, token, unlisted
                        )
                        once, still = settle(unlisted, again)
                        flaky += [f"{category}/{transport}: {n}" for n in once]
                        unexpected += [f"{category}/{transport}: {n}" for n in still]
                    rows.append((category, transport, counts))
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
    print("\n| category | binding | passed | failed | skipped |\n|---|---|---|---|---|")
    for category, transport, counts in rows:
        print(
            f"| {category} | {transport} | {counts['passed']} | {counts['failed']} | {counts['skipped']} |"
        )
    print(f"\nconformance: {time.monotonic() - started:.0f} s")
    if args.report:
        args.report.write_text(json.dumps(outcomes, indent=1, sort_keys=True))
    for entry in expected:
        if id(entry) not in used:
            print(
                f"conformance: listed but not failing now (remove it?): {entry['test']}"
            )
    for line in flaky:
        print(f"conformance: FLAKY (failed, then passed when run again) {line}")
    for line in unexpected:
        print(f"conformance: UNLISTED FAILURE {line}")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())

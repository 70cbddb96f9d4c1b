"""``a2a-codegen diff`` against ``buf breaking --use WIRE_JSON``: on every change pair under
proto/changes and on the upstream spec history, each buf finding is a finding of diff
(or one of the rules listed in OUT_OF_SCOPE, with the reason), and diff's findings that
buf cannot see are counted beside (``comparison`` makes the table of docs/diff.md)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pb2

from codegen.diff import Change, diff_files
from codegen.inputs import request_from_protos
from codegen.model import BindingFile, build_files
from codegen.options import Options

from .conftest import PROTO, spec_proto

BUF = shutil.which("buf", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(
    BUF is None,
    reason="buf is not installed next to the test interpreter (buf-bin, a dev dependency)",
)
CHANGES = PROTO / "changes"
PAIRS = sorted(p.name for p in CHANGES.iterdir() if p.is_dir())
HISTORY = [
    ("v0.3.0", "v1.0.0-rc"),
    ("v1.0.0-rc", "v1.0.0"),
    ("v1.0.0", "v1.0.1"),
    ("v1.0.1", "main-2026-08"),
    ("v0.3.0", "v1.0.0"),
]
# The pairs whose package changed, again with the old package renamed for buf only: buf pairs
# types by full name, so across a package rename it sees nothing but the package.
RENAMED = [("v1.0.0-rc", "v1.0.0"), ("v0.3.0", "v1.0.0")]

OUT_OF_SCOPE = {
    "RESERVED_MESSAGE_NO_DELETE": "a reserved number or name is on no wire: removing the reservation breaks no "
    "peer now, it only lets a later version reuse it (which diff then reports)",
    "RESERVED_ENUM_NO_DELETE": "the same, for enums",
    "RPC_SAME_IDEMPOTENCY_LEVEL": "a gRPC call option: HTTP+JSON and JSON-RPC take their verb from the http rule",
    "MESSAGE_SAME_JSON_FORMAT": "editions' json_format only relaxes compile-time JSON name checks; a message "
    "that compiles either way has one JSON form",
    "ENUM_SAME_JSON_FORMAT": "the same, for enums",
}
FIELD = {
    "field-renamed",
    "field-proto-name-changed",
    "field-renumbered",
    "field-added",
    "field-removed",
}
# For each buf rule, the diff codes that report the same change. A renumbered field is the
# name, type and cardinality changes of its old number to buf, and a renumbering to diff.
COVERS: dict[str, set[str]] = {
    "FIELD_SAME_NAME": FIELD,
    "FIELD_SAME_JSON_NAME": FIELD,
    "FIELD_WIRE_JSON_COMPATIBLE_TYPE": FIELD
    | {"field-type-changed", "message-renamed", "enum-renamed"},
    "FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY": FIELD
    | {"field-cardinality-changed", "field-presence-changed"},
    "FIELD_SAME_ONEOF": FIELD | {"field-oneof-changed"},
    "FIELD_SAME_DEFAULT": {"field-default-changed"},
    "FIELD_NO_DELETE_UNLESS_NAME_RESERVED": {"field-removed", "field-renumbered"},
    "FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED": {"field-removed", "field-renumbered"},
    "MESSAGE_SAME_REQUIRED_FIELDS": {
        "field-added",
        "field-removed",
        "field-required-added",
        "field-required-removed",
    },
    "ENUM_VALUE_SAME_NAME": {
        "enum-value-renamed",
        "enum-value-renumbered",
        "enum-value-added",
        "enum-value-removed",
    },
    "ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED": {
        "enum-value-removed",
        "enum-value-renumbered",
    },
    "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED": {
        "enum-value-removed",
        "enum-value-renumbered",
    },
    "RPC_SAME_REQUEST_TYPE": {"rpc-request-type-changed"},
    "RPC_SAME_RESPONSE_TYPE": {"rpc-response-type-changed"},
    "RPC_SAME_SERVER_STREAMING": {"rpc-streaming-changed"},
    "RPC_SAME_CLIENT_STREAMING": {"rpc-streaming-changed"},
    "FILE_SAME_PACKAGE": {"package-changed"},
}
BINDING = (
    "route-",
    "query-",
    "rpc-renamed",
    "rpc-removed",
    "rpc-added",
    "rpc-streaming-changed",
)


@dataclass(frozen=True)
class Finding:
    rule: str
    line: int
    message: str


@dataclass
class Side:
    files: list[BindingFile]
    image: Path


def _side(
    proto: Path, image: Path, *, name: str = "change.proto", package: str | None = None
) -> Side:
    """The model of ``proto``, and a buf image of it (under ``name``, the same on both sides, as buf
    pairs files by name) with its imports."""
    request = request_from_protos([str(proto)], [str(proto.parent)], "ambiguity=ignore")
    files = list(build_files(request, Options(ambiguity="ignore")).files)
    images = descriptor_pb2.FileDescriptorSet()
    for file in request.proto_file:
        copy = images.file.add()
        copy.CopyFrom(file)
        if file.name == proto.name:
            copy.name = name
            if package is not None:
                copy.package = package
                _requalify(copy, file.package, package)
    image.write_bytes(images.SerializeToString())
    return Side(files, image)


def _requalify(file: descriptor_pb2.FileDescriptorProto, old: str, new: str) -> None:
    """Type references of ``file`` from package ``old`` moved to ``new`` (its package renamed)."""

    def fix(name: str) -> str:
        return (
            "." + new + name[len(old) + 1 :]
            if name.startswith("." + old + ".")
            else name
        )

    def message(descriptor: descriptor_pb2.DescriptorProto) -> None:
        for field in descriptor.field:
            field.type_name = fix(field.type_name)
        for nested in descriptor.nested_type:
            message(nested)

    for descriptor in file.message_type:
        message(descriptor)
    for service in file.service:
        for method in service.method:
            method.input_type, method.output_type = fix(method.input_type), fix(
                method.output_type
            )


def buf_breaking(old: Side, new: Side, tmp: Path) -> list[Finding]:
    assert BUF is not None
    config = json.dumps({"version": "v2", "breaking": {"use": ["WIRE_JSON"]}})
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp),
        "BUF_CACHE_DIR": str(tmp / "buf-cache"),
    }
    result = subprocess.run(
        [
            BUF,
            "breaking",
            str(new.image),
            "--against",
            str(old.image),
            "--config",
            config,
            "--error-format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp,
        env=env,
    )
    assert result.returncode in (0, 100), result.stderr  # 100: breaking changes found
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return [Finding(r["type"], r.get("start_line", 0), r["message"]) for r in rows]


def _quoted(pattern: str, text: str) -> str | None:
    found = re.search(pattern, text)
    return found.group(1) if found else None


def covers(change: Change, finding: Finding) -> bool:
    """True when ``change`` reports what buf's ``finding`` does."""
    rule, text = finding.rule, finding.message
    if not COVERS.get(rule, set()) & set(change.codes):
        return False
    if rule == "FILE_SAME_PACKAGE":
        return True
    elements = [e for e in (change.old_element, change.new_element) if e]
    rpc = re.search(r'RPC "(\w+)" on service "(\w+)"', text)
    if rpc:
        return any(e.endswith(f".{rpc.group(2)}.{rpc.group(1)}") for e in elements)
    types = re.search(r'changed type from "([\w.]+)" to "([\w.]+)"', text)
    if types and set(change.codes) & {"message-renamed", "enum-renamed"}:
        return (change.old_element, change.new_element) == types.groups()
    owner = _quoted(r'on (?:message|enum) "([\w.]+)"', text) or _quoted(
        r'^Message "([\w.]+)"', text
    )
    if owner is None:
        return False
    in_owner = [
        e
        for e in elements
        if e.rpartition(".")[0].endswith("." + owner) or e.rpartition(".")[0] == owner
    ]
    if rule == "MESSAGE_SAME_REQUIRED_FIELDS":
        return bool(in_owner)
    renamed = re.search(r'changed name from "(\w+)" to "(\w+)"', text)
    names = set(renamed.groups()) if renamed else set()
    names |= {
        n
        for n in (
            _quoted(r'with name "(\w+)"', text),
            _quoted(r'reserving the name "(\w+)"', text),
        )
        if n
    }
    if names:
        return any(e.rpartition(".")[2] in names for e in in_owner)
    number = _quoted(
        r'(?:value|field) "(\d+)"', text
    )  # an enum value deleted, by number only
    return (
        bool(in_owner)
        and number is not None
        and re.search(rf"\b{number}\b", change.description) is not None
    )


def _reached(name: str, sides: tuple[Side, Side]) -> bool:
    return any(
        m.full_name.endswith("." + name) or m.full_name == name
        for side in sides
        for f in side.files
        for m in (*f.messages, *f.enums)
    )


@dataclass
class Comparison:
    """One pair of versions seen by both tools."""

    label: str
    findings: list[Finding]
    changes: list[Change]
    missed: list[
        Finding
    ]  # buf findings no diff change reports (each must be out of scope)
    out_of_scope: list[Finding]

    @property
    def diff_only(self) -> list[Change]:
        return [c for c in self.changes if not any(covers(c, f) for f in self.findings)]

    def row(self) -> dict[str, Any]:
        binding = [c for c in self.changes if c.codes[0].startswith(BINDING)]
        return {
            "pair": self.label,
            "buf": len(self.findings),
            "buf_rules": dict(Counter(f.rule for f in self.findings)),
            "buf_covered": len(self.findings)
            - len(self.missed)
            - len(self.out_of_scope),
            "buf_out_of_scope": len(self.out_of_scope),
            "diff": len(self.changes),
            "diff_impacts": dict(Counter(c.impact for c in self.changes)),
            "diff_binding": len(binding),
            "diff_only": len(self.diff_only),
            "diff_only_breaking": sum(c.breaking for c in self.diff_only),
            "diff_only_breaking_binding": sum(
                c.breaking and c in binding for c in self.diff_only
            ),
            "diff_only_breaking_required": sum(
                c.breaking
                and bool(
                    {
                        "field-required-added",
                        "field-required-removed",
                        "query-param-required",
                    }
                    & set(c.codes)
                )
                for c in self.diff_only
            ),
        }


def compare(
    label: str,
    old: Side,
    new: Side,
    tmp: Path,
    buf_sides: tuple[Side, Side] | None = None,
) -> Comparison:
    changes = diff_files(old.files, new.files)
    findings = buf_breaking(*(buf_sides or (old, new)), tmp)
    missed, out_of_scope = [], []
    for finding in findings:
        if any(covers(c, finding) for c in changes):
            continue
        owner = _quoted(r'on message "([\w.]+)"', finding.message)
        if finding.rule in OUT_OF_SCOPE or (
            owner is not None and not _reached(owner, (old, new))
        ):
            out_of_scope.append(finding)
        else:
            missed.append(finding)
    return Comparison(label, findings, changes, missed, out_of_scope)


def _pair(name: str, tmp: Path) -> Comparison:
    old = _side(CHANGES / name / "old.proto", tmp / "old.binpb")
    new = _side(CHANGES / name / "new.proto", tmp / "new.binpb")
    return compare(name, old, new, tmp)


def _history(
    old_tag: str, new_tag: str, tmp: Path, *, rename: bool = False
) -> Comparison:
    old_proto, new_proto = spec_proto(old_tag), spec_proto(new_tag)
    old = _side(old_proto, tmp / "old.binpb", name="a2a.proto")
    new = _side(new_proto, tmp / "new.binpb", name="a2a.proto")
    label = f"{old_tag} -> {new_tag}"
    if not rename:
        return compare(label, old, new, tmp)
    package = new.files[0].proto_package
    renamed = _side(old_proto, tmp / "renamed.binpb", name="a2a.proto", package=package)
    return compare(
        f"{label} (buf: old package renamed {package})", old, new, tmp, (renamed, new)
    )


@pytest.mark.parametrize("name", PAIRS)
def test_every_buf_finding_on_a_change_pair_is_a_diff_finding(
    name: str, tmp_path: Path
) -> None:
    result = _pair(name, tmp_path)
    header = next(
        line
        for line in (CHANGES / name / "new.proto").read_text().splitlines()
        if line.startswith("// buf: ")
    )
    rules = sorted({f.rule for f in result.findings})
    assert (
        header == f"// buf: {' '.join(rules) or 'none'}"
    ), "update the // buf: line of the pair"
    assert result.missed == [] and result.out_of_scope == [], (
        result.missed + result.out_of_scope
    )


@pytest.mark.parametrize(("old", "new"), HISTORY)
def test_every_buf_finding_on_the_spec_history_is_a_diff_finding(
    old: str, new: str, tmp_path: Path
) -> None:
    result = _history(old, new, tmp_path)
    assert result.missed == [], "\n".join(
        f"{f.rule} {f.line}: {f.message}" for f in result.missed
    )
    if (old, new) in RENAMED:
        # buf sees the package alone; diff pairs every type across it.
        assert [f.rule for f in result.findings] == ["FILE_SAME_PACKAGE"]
        assert sum(c.codes[0].startswith("field-") for c in result.changes) > 20
    if old in ("v1.0.0", "v1.0.1"):  # comments only: the descriptors are the same
        assert result.findings == [] and result.changes == []


@pytest.mark.parametrize(("old", "new"), RENAMED)
def test_across_a_package_rename_buf_with_the_package_aligned_agrees_too(
    old: str, new: str, tmp_path: Path
) -> None:
    result = _history(old, new, tmp_path, rename=True)
    assert len(result.findings) > 40
    assert result.missed == [], "\n".join(
        f"{f.rule} {f.line}: {f.message}" for f in result.missed
    )
    assert {f.rule for f in result.out_of_scope} <= set(OUT_OF_SCOPE)


def comparison(tmp: Path) -> list[dict[str, Any]]:
    """Every row of the table in docs/diff.md (run by hand: python -m tests.test_diff_buf)."""
    rows = []
    for old, new in HISTORY:
        rows.append(_history(old, new, tmp).row())
        if (old, new) in RENAMED:
            rows.append(_history(old, new, tmp, rename=True).row())
    corpus = [_pair(name, tmp) for name in PAIRS]
    rows.append(
        {
            "pair": f"proto/changes ({len(PAIRS)} pairs)",
            "buf": sum(len(c.findings) for c in corpus),
            "buf_covered": sum(
                len(c.findings) - len(c.missed) - len(c.out_of_scope) for c in corpus
            ),
            "buf_out_of_scope": sum(len(c.out_of_scope) for c in corpus),
            "diff": sum(len(c.changes) for c in corpus),
            "diff_only": sum(len(c.diff_only) for c in corpus),
            "diff_only_breaking": sum(d.breaking for c in corpus for d in c.diff_only),
            "pairs_buf_silent": [c.label for c in corpus if not c.findings],
        }
    )
    return rows


if __name__ == "__main__":  # python -m tests.test_diff_buf: print the table's rows
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        for row in comparison(Path(scratch)):
            print(json.dumps(row))

"""``a2a-codegen diff``: the change pairs under proto/changes (one per rule, each with its
expected report in its header), the ProtoJSON form rules, the report formats, the
acknowledgement file, and ``check --against``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegen.cli import main
from codegen.diff import Change, diff_files
from codegen.diff_acknowledge import ChangeAcknowledgementError, parse, settle
from codegen.diff_change import IMPACTS
from codegen.diff_json import misread, scalar_form
from codegen.diff_output import compare_outputs, describe
from codegen.diff_report import format_changes
from codegen.model import BindingFile, build_files
from codegen.options import Options

from .conftest import PROTO, compile_request, spec_proto

CHANGES = PROTO / "changes"
PAIRS = sorted(p.name for p in CHANGES.iterdir() if p.is_dir())


def model(proto: Path) -> list[BindingFile]:
    return list(build_files(compile_request(proto), Options(ambiguity="ignore")).files)


def pair_changes(name: str) -> list[Change]:
    return diff_files(
        model(CHANGES / name / "old.proto"), model(CHANGES / name / "new.proto")
    )


def expectations(name: str) -> list[tuple[str, str]] | None:
    """The ``// expect: IMPACT: TEXT`` lines of a pair's new.proto, in order; empty for
    ``// expect: no change``, None without any."""
    found = []
    for line in (CHANGES / name / "new.proto").read_text().splitlines():
        if line == "// expect: no change":
            return []
        if line.startswith("// expect: "):
            body = line.removeprefix("// expect: ")
            impact = next(
                i
                for i in sorted(IMPACTS, key=len, reverse=True)
                if body.startswith(i + ": ")
            )
            found.append((impact, body[len(impact) + 2 :]))
    return found or None


@pytest.mark.parametrize("name", PAIRS)
def test_change_pair_reports_what_its_header_expects(name: str) -> None:
    changes = pair_changes(name)
    expected = expectations(name)
    assert (
        expected is not None
    ), f"proto/changes/{name}/new.proto has no // expect: lines"
    got = [(c.impact, c.line) for c in changes]
    assert len(got) == len(expected), "\n".join(f"{i}: {t}" for i, t in got)
    for (impact, text), (got_impact, line) in zip(expected, got):
        assert (
            line.startswith(text) and got_impact == impact
        ), f"expected {impact}: {text}\n     got {got_impact}: {line}"
    for change in changes:  # every line says where, in both versions
        assert change.old_location is not None or change.codes[0].endswith("-added")
        assert change.new_location is not None or change.codes[0].endswith("-removed")


def test_the_corpus_covers_every_rule_the_issue_names() -> None:
    codes = {code for name in PAIRS for c in pair_changes(name) for code in c.codes}
    assert codes >= {
        "field-added",
        "field-removed",
        "field-renamed",
        "field-renumbered",
        "field-type-changed",
        "field-cardinality-changed",
        "field-presence-changed",
        "field-required-added",
        "field-required-removed",
        "field-oneof-changed",
        "field-default-changed",
        "enum-value-added",
        "enum-value-removed",
        "enum-value-renamed",
        "enum-value-renumbered",
        "message-renamed",
        "enum-renamed",
        "package-changed",
        "route-verb-changed",
        "route-template-changed",
        "route-body-changed",
        "route-response-body-changed",
        "route-removed",
        "route-alias-changed",
        "query-param-required",
        "query-param-removed",
        "rpc-renamed",
        "rpc-streaming-changed",
        "rpc-request-type-changed",
        "rpc-added",
        "rpc-removed",
    }


def test_the_issue_example_is_no_longer_silent(tmp_path: Path) -> None:
    """Library v1 -> v2: a verb renamed, a query parameter removed, a REQUIRED body field added, an int32
    become int64, a response field removed, a field and an enum value renamed."""
    old = (CHANGES / "field_added" / "old.proto").read_text()
    new = (
        old.replace('post: "/books"', 'put: "/books"')
        .replace("  string filter = 2;\n", "")
        .replace(
            "  Genre genre = 4;\n}",
            "  Genre genre = 4;\n  string author = 5 [(google.api.field_behavior) = REQUIRED];\n}",
        )
        .replace("  int32 total = 2;", "  int64 total = 2;")
        .replace("  string next_page_token = 3;", "")
        .replace("  string title = 2;", "  string book_title = 2;")
        .replace("GENRE_POETRY", "GENRE_VERSE")
    )
    (tmp_path / "v1.proto").write_text(old)
    (tmp_path / "v2.proto").write_text(new)
    changes = diff_files(model(tmp_path / "v1.proto"), model(tmp_path / "v2.proto"))
    lines = {(c.impact, c.description) for c in changes}
    text = "\n".join(f"{i}: {t}" for i, t in sorted(lines))
    for impact, start in [
        ("clients and servers", "POST /books"),
        ("clients", "query parameter filter (string) removed"),
        ("clients and servers", "field author added (string, number 5), REQUIRED"),
        ("clients and servers", "field total"),
        ("clients", "field next_page_token removed"),
        (
            "clients and servers",
            "field title -> book_title: renamed (JSON title -> bookTitle)",
        ),
        ("clients and servers", "value GENRE_POETRY -> GENRE_VERSE"),
    ]:
        assert any(
            i == impact and t.startswith(start) for i, t in lines
        ), f"{impact}: {start}\n{text}"
    total = next(t for i, t in lines if t.startswith("field total"))
    assert (
        "a number (signed 32-bit integer) -> a string (signed 64-bit integer)" in total
    )
    assert "a plain JSON reader gets a string where it read a number" in total


@pytest.mark.parametrize(
    ("reader", "writer", "lenient", "problem"),
    [
        (
            "int64",
            "int32",
            True,
            None,
        ),  # a server parsing ProtoJSON takes numbers for int64
        (
            "int64",
            "int32",
            False,
            "a plain JSON reader gets a number where it read a string",
        ),
        ("int32", "int64", True, "values outside -2147483648..2147483647 are refused"),
        ("uint32", "int32", True, "values outside 0..4294967295 are refused"),
        ("double", "int32", False, None),
        ("double", "int64", True, "integers beyond 2^53 lose precision as a float"),
        (
            "float",
            "double",
            True,
            "a 64-bit float loses precision or overflows as a 32-bit float",
        ),
        ("int32", "double", True, "a number with a fraction is refused"),
        ("string", "int64", False, None),  # 64-bit integers are strings already
        ("string", "bytes", True, "readers refuse the other form"),
        ("bytes", "string", True, "readers refuse the other form"),
        ("bool", "bool", False, None),
    ],
)
def test_protojson_forms(
    reader: str, writer: str, lenient: bool, problem: str | None
) -> None:
    got = misread(
        scalar_form(reader, ""),
        scalar_form(writer, ""),
        lenient=lenient,
        same_type=lambda r, w: r == w,
        names_missing=lambda r, w: (),
    )
    assert got == problem


def test_well_known_forms() -> None:
    def form(type_name: str) -> object:
        return scalar_form("message", type_name)

    def read(reader: str, writer: str, lenient: bool = False) -> str | None:
        return misread(
            form(reader),
            form(writer),
            lenient=lenient,  # type: ignore[arg-type]
            same_type=lambda r, w: r == w,
            names_missing=lambda r, w: (),
        )

    assert read("google.protobuf.Value", "a.B") is None  # Value reads any JSON
    assert read("google.protobuf.Struct", "a.B") is None  # any object is a Struct
    assert read("a.B", "google.protobuf.Struct") == "readers refuse the other form"
    assert read("a.B", "a.C") == "another message"
    # A wrapper may be null: ProtoJSON reads null as unset, a plain reader does not.
    wrapped, plain = scalar_form("message", "google.protobuf.Int32Value"), scalar_form(
        "int32", ""
    )
    assert (
        misread(
            plain,
            wrapped,
            lenient=True,
            same_type=str.__eq__,
            names_missing=lambda r, w: (),
        )
        is None
    )
    assert misread(
        plain,
        wrapped,
        lenient=False,
        same_type=str.__eq__,
        names_missing=lambda r, w: (),
    ) == ("a plain JSON reader gets null where it read a value")
    timestamp = scalar_form("message", "google.protobuf.Timestamp")
    assert (
        misread(
            scalar_form("string", ""),
            timestamp,
            lenient=False,
            same_type=str.__eq__,
            names_missing=lambda r, w: (),
        )
        is None
    )
    assert (
        misread(
            timestamp,
            scalar_form("string", ""),
            lenient=True,
            same_type=str.__eq__,
            names_missing=lambda r, w: (),
        )
        == "readers refuse the other form"
    )


def test_model_records_what_the_diff_reads() -> None:
    features = PROTO / "features"
    legacy = model(features / "legacy.proto")[0]
    lookup = next(m for m in legacy.messages if m.name == "Lookup")
    key, limit = lookup.fields
    assert (key.legacy_required, key.explicit_presence, limit.default) == (
        True,
        True,
        "10",
    )
    assert str(limit.location) == "legacy.proto:10:3"
    editions = model(features / "editions.proto")[0]
    query = next(m for m in editions.messages if m.name == "Query")
    assert [f.explicit_presence for f in query.fields] == [
        True,
        True,
        False,
    ]  # features.field_presence
    tenancy = model(features / "tenancy.proto")[0]
    item = next(m for m in tenancy.messages if m.name == "Item")
    assert [f.explicit_presence for f in item.fields] == [
        False,
        False,
        True,
    ]  # proto3 `optional`
    assert str(tenancy.package_location) == "tenancy.proto:5:1"
    assert str(tenancy.services[0].location).startswith("tenancy.proto:")
    library = model(features / "library.proto")[0]
    genre = next(e for e in library.enums if e.name == "Genre")
    assert [str(v.location) for v in genre.values][0].startswith("library.proto:14:")
    # The new facts stay out of equality: a field equal before is equal now.
    assert key == type(key)(
        **{**key.__dict__, "location": limit.location, "default": "x"}
    )


def test_text_report_groups_by_who_breaks_with_both_locations() -> None:
    changes = diff_files(
        model(CHANGES / "oneof_joined" / "old.proto"),
        model(CHANGES / "rpc_renamed" / "new.proto"),
    )
    text = format_changes(changes, "text", "old.proto", "new.proto")
    lines = text.splitlines()
    assert lines[0].startswith("old.proto -> new.proto: ") and "breaking (" in lines[0]
    headings = [
        line for line in lines if line and not line.startswith(" ") and line != lines[0]
    ]
    order = [
        "Breaking for clients and servers",
        "Breaking for clients",
        "Breaking for servers",
        "Breaking for gRPC",
        "Compatible",
    ]
    assert headings and [
        next(o for o in order if h.startswith(o)) for h in headings
    ] == sorted(
        (next(o for o in order if h.startswith(o)) for h in headings), key=order.index
    )
    entries = [line for line in lines if line.startswith("  ")]
    assert len(entries) == len(changes)
    assert all(
        re.search(r"  \[(old\.proto:\d+:\d+|-) -> (new\.proto:\d+:\d+|-)\]$", e)
        for e in entries
    ), entries


def test_json_and_markdown_reports() -> None:
    changes = pair_changes("field_added_required")
    report = json.loads(format_changes(changes, "json", "a", "b"))
    assert (
        report["breaking"] == 1
        and report["compatible"] == 0
        and report["acknowledged"] == 0
    )
    assert report["by_impact"]["clients and servers"] == 1
    (entry,) = report["changes"]
    assert entry["impact"] == "clients and servers" and entry["breaking"] is True
    assert entry["codes"] == ["field-added", "field-required-added"]
    assert entry["role"] == "request and response"
    assert entry["old"] == {"element": "", "location": "old.proto:15:1"}
    assert entry["new"]["element"] == "changes.v1.Book.author" and entry["new"][
        "location"
    ].startswith("new.proto:")
    markdown = format_changes(changes, "markdown", "a", "b", acknowledged={0})
    assert (
        "| **clients and servers** (acknowledged) | message Book: field author added"
        in markdown
    )
    assert "no change a JSON or gRPC peer sees" in format_changes([], "text", "a", "b")


def test_acknowledgements_match_a_whole_line_or_a_subject() -> None:
    changes = pair_changes("field_removed_request")
    assert [c.subject for c in changes] == [
        "rpc LibraryService.ListBooks",
        "message ListBooksRequest",
    ]
    text = (
        "# reviewed\n"
        f"  {changes[0].line}   [x.proto:1:1 -> y.proto:2:2]   # copied with its locations\n"
        "message   ListBooksRequest\n"
        "message Gone: field x removed\n"
    )
    acks = parse(text, "a.changes")
    settled = settle(changes, acks)
    assert settled.acknowledged == {0, 1}
    assert [a.line for a in settled.stale] == [4]
    assert (
        "a.changes:4: acknowledged change 'message Gone: field x removed' matches no change"
        in (settled.stale[0].stale_warning)
    )
    with pytest.raises(
        ChangeAcknowledgementError,
        match=r"a\.changes:2:3: expected a change as a2a-codegen diff",
    ):
        parse("# ok\n  GET /books\n", "a.changes")


def _write_pair(tmp_path: Path, name: str) -> tuple[str, str]:
    return str(CHANGES / name / "old.proto"), str(CHANGES / name / "new.proto")


def test_diff_exit_codes_and_acknowledgements(tmp_path: Path) -> None:
    runner = CliRunner()
    old, new = _write_pair(tmp_path, "field_removed_response")
    breaking = runner.invoke(main, ["diff", old, new])
    assert breaking.exit_code == 1, breaking.output
    line = next(
        line.strip()
        for line in breaking.stdout.splitlines()
        if "field total removed" in line
    )
    acks = tmp_path / "a.changes"
    acks.write_text(line + "\nmessage Nowhere\n")
    quiet = runner.invoke(main, ["diff", old, new, "--acknowledge-changes", str(acks)])
    assert quiet.exit_code == 0, quiet.output
    assert "(acknowledged)" in quiet.stdout and "1 acknowledged" in quiet.stdout
    assert (
        "a.changes:2: acknowledged change 'message Nowhere' matches no change"
        in quiet.stderr
    )
    assert runner.invoke(main, ["diff", old, new, "--fail-on", "never"]).exit_code == 0
    compatible = _write_pair(tmp_path, "field_added")
    assert runner.invoke(main, ["diff", *compatible]).exit_code == 0
    assert runner.invoke(main, ["diff", *compatible, "--fail-on", "any"]).exit_code == 1
    unreadable = runner.invoke(
        main, ["diff", old, new, "--acknowledge-changes", str(tmp_path / "none")]
    )
    assert unreadable.exit_code == 1 and "cannot read the file" in unreadable.stderr


def test_check_against_fails_on_unacknowledged_breaking_changes_and_never_writes(
    tmp_path: Path,
) -> None:
    runner = CliRunner()
    old, new = _write_pair(tmp_path, "field_added_required")
    before = sorted(p.name for p in tmp_path.iterdir())
    failed = runner.invoke(main, ["check", new, "--against", old])
    assert failed.exit_code == 1
    assert "message Book: field author added" in failed.stdout
    assert (
        "1 breaking change(s) against" in failed.stderr
        and "--acknowledge-changes" in failed.stderr
    )
    acks = tmp_path / "book.changes"
    acks.write_text("message Book   # the author is REQUIRED from v2 on\n")
    passed = runner.invoke(
        main, ["check", new, "--against", old, "--acknowledge-changes", str(acks)]
    )
    assert passed.exit_code == 0, passed.output
    assert "no unacknowledged breaking change against" in passed.stderr
    assert (
        runner.invoke(
            main,
            [
                "check",
                *_write_pair(tmp_path, "field_added")[::-1][:1],
                "--against",
                _write_pair(tmp_path, "field_added")[0],
            ],
        ).exit_code
        == 0
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == before + ["book.changes"]
    usage = runner.invoke(main, ["check", new])
    assert (
        usage.exit_code == 2 and "give -o OUT, --against OLD, or both" in usage.output
    )
    lone = runner.invoke(
        main, ["check", new, "-o", str(tmp_path), "--acknowledge-changes", str(acks)]
    )
    assert (
        lone.exit_code == 2 and "--acknowledge-changes needs --against" in lone.output
    )


def test_check_against_and_out_report_both(tmp_path: Path) -> None:
    runner = CliRunner()
    old, new = _write_pair(tmp_path, "field_removed_response")
    out = tmp_path / "out"
    written = runner.invoke(main, ["generate", old, "-o", str(out), "--module", "pkg"])
    assert written.exit_code == 0, written.stderr
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = runner.invoke(
        main, ["check", new, "--against", old, "-o", str(out), "--module", "pkg"]
    )
    assert result.exit_code == 1
    assert "is stale" in result.stderr and "breaking change(s) against" in result.stderr
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_the_spec_history_reads_as_a_list() -> None:
    """v1.0.0-rc -> v1.0.0: buf sees only the package; diff pairs the types across it."""
    rc, v100 = model(spec_proto("v1.0.0-rc")), model(spec_proto("v1.0.0"))
    lines = [f"{c.impact}: {c.line}" for c in diff_files(rc, v100)]
    for start in [
        "gRPC: file a2a.proto: package a2a.v1 -> lf.a2a.v1",
        # An unrelated name on the same number is a field removed and one added (here the meaning flips).
        "clients: message SendMessageConfiguration: field blocking removed (bool, number 4)",
        "none: message SendMessageConfiguration: field return_immediately added (bool, number 4)",
        "clients and servers: rpc A2AService.ListTaskPushNotificationConfigs: renamed from "
        "ListTaskPushNotificationConfig",
        "none: message ListTaskPushNotificationConfigsRequest: renamed ListTaskPushNotificationConfigRequest",
        "clients: message Task: field context_id: no longer REQUIRED",
        "gRPC: message GetTaskRequest: field id: number 1 -> 2",
        # The HTTP body holds the same JSON after body: "config" -> "*"; JSON-RPC params do not.
        "none: rpc A2AService.CreateTaskPushNotificationConfig: POST /{tenant}/tasks/{task_id=*}/"
        "pushNotificationConfigs: body config -> *: the body held a PushNotificationConfig, now "
        "TaskPushNotificationConfig without its path fields: the same JSON fields",
        "clients: rpc A2AService.CreateTaskPushNotificationConfig: query parameter configId (string) removed",
        "clients and servers: rpc A2AService.CreateTaskPushNotificationConfig request: field config removed",
    ]:
        assert any(line.startswith(start) for line in lines), start
    assert diff_files(model(spec_proto("v1.0.0")), model(spec_proto("v1.0.1"))) == []
    assert (
        diff_files(model(spec_proto("v1.0.1")), model(spec_proto("main-2026-08"))) == []
    )


def test_routes_are_read_as_old_clients_send_them() -> None:
    """The subscribe rule moved from GET (with its POST alias) to POST with body "*":
    the POST route is kept, not removed; GET is what breaks, and the query."""
    changes = pair_changes("subscribe_verb_changed")
    assert not any("route-removed" in c.codes for c in changes)
    verbs = [c for c in changes if "route-verb-changed" in c.codes]
    assert [c.impact for c in verbs] == ["clients", "clients"]  # old servers take POST
    assert all("old clients that send GET get 405" in c.description for c in verbs)
    (query,) = [c for c in changes if "query-param-removed" in c.codes]
    assert query.description.startswith("query parameter tenant (string) removed")
    assert "get 400" in query.description
    # Without the alias, old servers do not take the new verb: both sides break.
    (plain,) = [
        c
        for c in pair_changes("verb_get_to_post_body")
        if "route-verb-changed" in c.codes
    ]
    assert plain.impact == "clients and servers"


def _same_name(tmp_path: Path, pair: Path) -> tuple[str, str]:
    """A pair's two versions as one file name in two folders, as a spec update is."""
    sides = []
    for side in ("old", "new"):
        folder = tmp_path / side
        folder.mkdir()
        (folder / "library.proto").write_text((pair / f"{side}.proto").read_text())
        sides.append(str(folder / "library.proto"))
    return sides[0], sides[1]


def _stale_files(check_stderr: str, out: Path) -> set[str]:
    return set(
        re.findall(rf"a2a-codegen: {re.escape(str(out))}/(\S+): differs", check_stderr)
    )


def test_a_comment_change_changes_no_peer_but_the_generated_files(
    tmp_path: Path,
) -> None:
    """diff and check tell one story: the files diff says regenerating changes are the
    ones check finds stale in output generated from the old version."""
    runner = CliRunner()
    old, new = _same_name(tmp_path, CHANGES / "comment_changed")
    result = runner.invoke(main, ["diff", old, new])
    assert result.exit_code == 0, result.output  # no peer breaks
    assert result.stdout.strip().endswith(
        "no change a JSON or gRPC peer sees: bindings, messages and enums are the "
        "same; regenerating changes 1 file, in comments only: library_binding/messages.py"
    ), result.stdout
    # No peer sees it: even --fail-on any exits 0 (check is what fails stale output).
    assert runner.invoke(main, ["diff", old, new, "--fail-on", "any"]).exit_code == 0
    report = json.loads(
        runner.invoke(main, ["diff", old, new, "--format", "json"]).stdout
    )
    assert report["changes"] == [] and report["generated"] == [
        {
            "name": "library_binding/messages.py",
            "state": "differs",
            "comments_only": True,
        }
    ]
    out = tmp_path / "out"
    assert runner.invoke(main, ["generate", old, "-o", str(out)]).exit_code == 0
    stale = runner.invoke(main, ["check", new, "-o", str(out)])
    assert stale.exit_code == 1
    assert _stale_files(stale.stderr, out) == {"library_binding/messages.py"}
    same = runner.invoke(main, ["diff", old, old])
    assert same.stdout.strip().endswith("; regenerating writes the same files")


def test_a_binding_change_ends_with_the_files_it_changes(tmp_path: Path) -> None:
    runner = CliRunner()
    old, new = _same_name(tmp_path, CHANGES / "verb_get_to_post_body")
    result = runner.invoke(main, ["diff", old, new])
    assert result.exit_code == 1
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("Regenerating changes "), last
    named = set(last.partition(": ")[2].partition(";")[0].split(", "))
    assert "library_binding/routes.py" in named
    out = tmp_path / "out"
    assert runner.invoke(main, ["generate", old, "-o", str(out)]).exit_code == 0
    stale = _stale_files(
        runner.invoke(main, ["check", new, "-o", str(out)]).stderr, out
    )
    assert named <= stale  # the rest differ in comments only (the descriptor hash)
    assert f"; {len(stale - named)} in comments only" in last


def test_compare_outputs_tells_comments_from_code() -> None:
    old = {
        "a/m.py": '"""Old words."""\n\nX = 1  # a comment\n',
        "a/n.py": "X = 1\n",
        "a/gone.py": "",
        "a/openapi.json": "{}",
    }
    new = {
        "b/m.py": '"""New words."""\n\nX = 1  # another comment\n',
        "b/n.py": "X = 2\n",
        "b/added.py": "",
        "b/openapi.json": '{"description": "x"}',
    }
    found = compare_outputs(old, new, {"a": "b"})
    assert [(o.name, o.state, o.comments_only) for o in found] == [
        ("b/added.py", "added", False),
        ("b/gone.py", "removed", False),
        ("b/m.py", "differs", True),
        ("b/n.py", "differs", False),
        ("b/openapi.json", "differs", False),
    ]
    assert describe(found) == (
        "regenerating changes 5 files: b/added.py (new), b/gone.py (no longer "
        "written), b/n.py, b/openapi.json; in comments only: b/m.py"
    )


def test_the_spec_history_comment_change_is_what_check_finds(tmp_path: Path) -> None:
    """v1.0.1 -> main-2026-08 rewords comments only: no peer change (exit 0), and
    regenerating changes the file check then finds stale."""
    runner = CliRunner()
    old, new = str(spec_proto("v1.0.1")), str(spec_proto("main-2026-08"))
    result = runner.invoke(main, ["diff", old, new])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith(
        "; regenerating changes 1 file, in comments only: a2a_binding/messages.py"
    ), result.stdout
    out = tmp_path / "out"
    assert runner.invoke(main, ["generate", old, "-o", str(out)]).exit_code == 0
    stale = runner.invoke(main, ["check", new, "-o", str(out)])
    assert _stale_files(stale.stderr, out) == {"a2a_binding/messages.py"}


def test_the_spec_history_names_each_rpc_added_with_its_kind() -> None:
    lines = [
        f"{c.impact}: {c.line}"
        for c in diff_files(model(spec_proto("v0.3.0")), model(spec_proto("v1.0.0-rc")))
    ]
    assert (
        "none: rpc A2AService.ListTasks: added (unary), with its JSON-RPC method and "
        "routes (GET /tasks, GET /{tenant}/tasks)" in lines
    )
    # A moved route says where old clients' requests now go: /v1 reads as a tenant.
    assert any(
        line.startswith(
            "clients and servers: rpc A2AService.SendMessage: POST /v1/message:send: "
            "template /v1/message:send -> /message:send: old clients that use it reach "
            "it through POST /{tenant}/message:send"
        )
        for line in lines
    )

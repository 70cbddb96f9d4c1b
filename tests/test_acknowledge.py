"""Acknowledged overlaps: the file's grammar, matching, stale lines, and the plugin's
warnings and errors around them (on the A2A service, whose tenant routes overlap)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codegen.acknowledge import A2A_OVERLAPS, AcknowledgementError, load, parse, settle
from codegen.inputs import request_from_module
from codegen.model import Overlap, build_files
from codegen.options import Options
from codegen.plugin import generate

from .test_plugin import protoc


@pytest.fixture(scope="module")
def overlaps() -> tuple[Overlap, ...]:
    """The four overlaps of the embedded A2A descriptor, from the real model."""
    files = build_files(request_from_module(), Options()).files
    return files[0].overlaps


def _examples(found: tuple[Overlap, ...]) -> list[str]:
    return sorted(o.example for o in found)


def test_the_project_file_acknowledges_exactly_the_four_a2a_overlaps(
    overlaps: tuple[Overlap, ...],
) -> None:
    settled = settle(overlaps, load(str(A2A_OVERLAPS)))
    assert len(overlaps) == 4
    assert settled.new == () and settled.stale == ()
    assert _examples(settled.acknowledged) == _examples(overlaps)


def test_route_pair_in_either_order_and_template_spelling(
    overlaps: tuple[Overlap, ...],
) -> None:
    # {id} means {id=*}; the pair may be written in either order; verbs in any case.
    acks = parse("get /{tenant}/tasks and GET /tasks/{id}\n", "a.overlaps")
    settled = settle(overlaps, acks)
    assert [o.example for o in settled.acknowledged] == ["/tasks/tasks"]
    assert len(settled.new) == 3 and settled.stale == ()


def test_example_path_covers_every_overlap_whose_routes_match_it(
    overlaps: tuple[Overlap, ...],
) -> None:
    acks = parse(
        "GET /tasks/extendedAgentCard   # reviewed\n"
        "GET /tasks/tasks/pushNotificationConfigs\n",
        "a.overlaps",
    )
    settled = settle(overlaps, acks)
    assert _examples(settled.acknowledged) == [
        "/tasks/extendedAgentCard",
        "/tasks/tasks/pushNotificationConfigs",
    ]
    # A path one route matches but not the other acknowledges nothing.
    other = settle(overlaps, parse("GET /tasks/acme/pushNotificationConfigs\n", "a"))
    assert other.acknowledged == () and len(other.stale) == 1


def test_a_line_that_matches_nothing_is_stale(overlaps: tuple[Overlap, ...]) -> None:
    acks = parse(
        "# comment\n\nGET /tasks/{id=*} and GET /{tenant}/tasks\n"
        "POST /tasks/tasks\n"  # wrong verb: no POST overlap
        "GET /message:send\n",
        "spec/a2a.overlaps",
    )
    settled = settle(overlaps, acks)
    assert [(a.line, a.text) for a in settled.stale] == [
        (4, "POST /tasks/tasks"),
        (5, "GET /message:send"),
    ]
    assert settled.stale[0].stale_warning == (
        "warning: spec/a2a.overlaps:4: acknowledged overlap 'POST /tasks/tasks' matches no "
        "overlap in this run (stale: remove the line)"
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("GET", "a.overlaps:2:1: expected 'VERB /example/path' or 'VERB TEMPLATE and"),
        (
            "GET tasks/x",
            "a.overlaps:2:5: expected an example path such as /tasks/tasks",
        ),
        ("GET /tasks/{id}", "a.overlaps:2:5: expected an example path"),
        (
            "G3T /tasks/x",
            "a.overlaps:2:1: expected an HTTP verb such as GET, got 'G3T'",
        ),
        ("GET /a and POST /b", "a.overlaps:2:12: GET and POST cannot overlap"),
        ("GET /a/{id and GET /b", "a.overlaps:2:"),
        ("GET /a or GET /b", "a.overlaps:2:1: expected"),
    ],
)
def test_bad_lines_name_file_line_and_column(line: str, message: str) -> None:
    with pytest.raises(AcknowledgementError, match=re.escape(message)):
        parse(f"# first line\n{line}\n", "a.overlaps")


def test_bad_template_column_points_into_the_template() -> None:
    with pytest.raises(AcknowledgementError) as caught:
        parse("GET /a/{id and GET /b\n", "a.overlaps")
    # The template starts at column 5; its unclosed "{" is at column 8.
    assert (
        str(caught.value) == "a.overlaps:1:8: template '/a/{id': unclosed variable 'id'"
    )


def test_unreadable_file_names_the_option(tmp_path: Path) -> None:
    with pytest.raises(
        AcknowledgementError, match="option acknowledge=.*nope: cannot read"
    ):
        load(str(tmp_path / "nope"))


def _run(parameter: str) -> tuple[str, list[str]]:
    warnings: list[str] = []
    response = generate(request_from_module(parameter=parameter), warnings.append)
    return response.error, warnings


def test_plugin_is_quiet_about_acknowledged_and_warns_on_the_rest(
    tmp_path: Path,
) -> None:
    error, warnings = _run("")
    assert error == "" and sum("overlaps" in w for w in warnings) == 4  # once each
    error, warnings = _run(f"acknowledge={A2A_OVERLAPS}")
    assert error == "" and warnings == []
    partial = tmp_path / "partial.overlaps"
    partial.write_text("GET /tasks/tasks\nGET /nowhere\n")
    error, warnings = _run(f"acknowledge={partial}")
    assert error == ""
    assert sum("overlaps" in w and "matches both" in w for w in warnings) == 3
    assert not any("GET /tasks/tasks matches both" in w for w in warnings)
    assert any(
        f"{partial}:2: acknowledged overlap 'GET /nowhere'" in w for w in warnings
    )


def test_ambiguity_error_fails_only_on_unacknowledged_overlaps(tmp_path: Path) -> None:
    error, _ = _run(f"ambiguity=error,acknowledge={A2A_OVERLAPS}")
    assert error == ""
    partial = tmp_path / "partial.overlaps"
    lines = A2A_OVERLAPS.read_text().splitlines()
    partial.write_text(next(x for x in lines if x and not x.startswith("#")) + "\n")
    error, _ = _run(f"ambiguity=error,acknowledge={partial}")
    assert error.count("matches both") == 3, error
    assert "GET /tasks/tasks matches both" not in error


@pytest.mark.parametrize("policy", ["warn", "error", "ignore"])
def test_the_model_lists_overlaps_under_every_policy(
    policy: str, overlaps: tuple[Overlap, ...]
) -> None:
    """The model never judges overlaps: same list, no error, no warning, whatever
    ``ambiguity`` says (the plugin applies it, once)."""
    generation = build_files(
        request_from_module(), Options.parse(f"ambiguity={policy}")
    )
    assert generation.files[0].overlaps == overlaps
    assert not any("overlaps" in w for w in generation.warnings)


@pytest.mark.parametrize(
    ("policy", "errors", "warnings"),
    [("warn", 0, 4), ("error", 4, 0), ("ignore", 0, 0)],
)
def test_the_plugin_applies_each_policy_once(
    policy: str, errors: int, warnings: int
) -> None:
    error, warned = _run(f"ambiguity={policy}")
    assert error.count("matches both") == errors, error
    assert sum("matches both" in w for w in warned) == warnings, warned
    if errors:
        assert all(line.startswith("a2a.proto:") for line in error.splitlines()), error


def test_protoc_reads_the_option_relative_to_its_folder(
    tmp_path: Path, sdk_a2a: Path
) -> None:
    proto = sdk_a2a
    quiet = protoc(proto, tmp_path / "out", opt=f"acknowledge={A2A_OVERLAPS}")
    assert quiet.returncode == 0, quiet.stderr
    assert "matches both" not in quiet.stderr and "stale" not in quiet.stderr
    broken = tmp_path / "broken.overlaps"
    broken.write_text("GET /a and\n")
    failed = protoc(proto, tmp_path / "failed", opt=f"acknowledge={broken}")
    assert failed.returncode != 0
    assert f"{broken}:1:1: expected" in failed.stderr
    assert not any((tmp_path / "failed").rglob("*.py"))

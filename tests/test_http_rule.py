"""The path-template grammar: table-driven cases and properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.http_rule import (
    SegmentKind,
    TemplateError,
    overlap_example,
    parse_template,
)


@pytest.mark.parametrize(
    ("text", "shape", "variables", "verb"),
    [
        ("/", (), [], None),
        ("/tasks", ("tasks",), [], None),
        ("/tasks/{id}", ("tasks", "*"), [("id", 1, 2, True)], None),
        ("/tasks/{id=*}", ("tasks", "*"), [("id", 1, 2, True)], None),
        ("/message:send", ("message", ":send"), [], "send"),
        (
            "/{tenant}/tasks/{id=*}:cancel",
            ("*", "tasks", "*", ":cancel"),
            [("tenant", 0, 1, True), ("id", 2, 3, True)],
            "cancel",
        ),
        ("/v1/{name=tasks/*}", ("v1", "tasks", "*"), [("name", 1, 3, False)], None),
        (
            "/v1/{name=shelves/*/books/*}:move",
            ("v1", "shelves", "*", "books", "*", ":move"),
            [("name", 1, 5, False)],
            "move",
        ),
        (
            "/v1/{book.name=shelves/*}",
            ("v1", "shelves", "*"),
            [("book.name", 1, 3, False)],
            None,
        ),
        ("/files/{path=**}", ("files", "**"), [("path", 1, None, False)], None),
        ("/a/**", ("a", "**"), [], None),
        # http.proto: "**" is the last part of the path "except the Verb".
        ("/a/**:run", ("a", "**", ":run"), [], "run"),
        ("/v1/{name=**}:run", ("v1", "**", ":run"), [("name", 1, None, False)], "run"),
        ("/{x=a/**}:run", ("a", "**", ":run"), [("x", 0, None, False)], "run"),
        ("/a/*/b", ("a", "*", "b"), [], None),
        ("/v1/{x=foo}", ("v1", "foo"), [("x", 1, 2, False)], None),
        ("/a%20b/{id}", ("a%20b", "*"), [("id", 1, 2, True)], None),
        ("/a-b.c_d~e/{_x1}", ("a-b.c_d~e", "*"), [("_x1", 1, 2, True)], None),
    ],
)
def test_parses(
    text: str,
    shape: tuple[str, ...],
    variables: list[tuple[object, ...]],
    verb: str | None,
) -> None:
    template = parse_template(text)
    assert template.source == text
    assert template.shape == shape
    assert [
        (v.name, v.start, v.end, v.single_segment) for v in template.variables
    ] == variables
    assert template.verb == verb


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("", "must start with '/'", 1),
        ("tasks", "must start with '/'", 1),
        ("/a/**/b", "'**' must be the last segment", 7),
        ("/{x=**}/y", "'**' must be the last segment", 9),
        ("/{x=**}:run/a", "unexpected '/'", 12),
        ("/a/**:run:b", "unexpected ':'", 10),
        ("/{a}/{a}", "variable 'a' is bound twice", 6),
        ("/a//b", "empty path segment", 4),
        ("/a/", "empty path segment", 4),
        ("/{a=b/{c}}", "variables cannot nest", 7),
        ("/a:", "empty custom verb", 4),
        ("/a:b:c", "unexpected ':'", 5),
        ("/{1}", "expected a field name", 3),
        ("/{a.}", "expected a field name", 5),
        ("/{}", "expected a field name", 3),
        ("/a*", "unexpected '*'", 3),
        ("/*a", "a wildcard must be a whole segment", 3),
        ("/{a", "unclosed variable 'a'", 2),
        ("/{a=b", "unclosed variable 'a'", 2),
        ("/a}", "unexpected '}'", 3),
        ("/a/%zz", "malformed percent escape", 4),
        ("/a%2", "malformed percent escape", 3),
        ("/a b", "unexpected ' '", 3),
        ("/a?b", "unexpected '?'", 3),
    ],
)
def test_rejects(text: str, message: str, column: int) -> None:
    with pytest.raises(TemplateError) as info:
        parse_template(text)
    assert message in info.value.message
    assert info.value.column + 1 == column
    assert repr(text) in str(info.value)


def test_pieces_for_building() -> None:
    template = parse_template("/{tenant}/tasks/{id}:cancel")
    pieces = template.pieces
    assert pieces[0] == "/" and pieces[2] == "/tasks/" and pieces[4] == ":cancel"
    assert [p.name for p in pieces if not isinstance(p, str)] == ["tenant", "id"]
    assert parse_template("/").pieces == ("/",)
    assert parse_template("/v1/{name=tasks/*}").pieces[0] == "/v1/"


@pytest.mark.parametrize(
    ("first", "second", "example"),
    [
        ("/tasks/{id}", "/{tenant}/tasks", "/tasks/tasks"),
        ("/tasks/{id}", "/{tenant}/extendedAgentCard", "/tasks/extendedAgentCard"),
        (
            "/{tenant}/tasks/{id}",
            "/tasks/{task_id}/pushNotificationConfigs",
            "/tasks/tasks/pushNotificationConfigs",
        ),
        ("/tasks/{id}", "/tasks", None),
        ("/tasks/{id}:cancel", "/tasks/{id}", None),
        ("/a/{x=**}", "/a", None),  # a variable never matches empty
        ("/a/**", "/a", "/a"),
        ("/a/**", "/{x=**}", "/a"),
        # A custom verb after `**`: only routes with the same verb overlap.
        ("/a/{x=**}:run", "/a/b:run", "/a/b:run"),
        ("/a/{x=**}:run", "/a/{x=**}", None),
        ("/a/**:run", "/{y=**}:run", "/a:run"),
        ("/a/{x=**}:run", "/a:run", None),
        ("/a/{x=**}:run", "/b/{x=**}:run", None),
        ("/a/b", "/a/c", None),
        (
            "/v1/{name=tasks/*}:cancel",
            "/v1/{parent=tasks/*}:cancel",
            "/v1/tasks/x:cancel",
        ),
    ],
)
def test_overlap_example(first: str, second: str, example: str | None) -> None:
    assert overlap_example(parse_template(first), parse_template(second)) == example
    assert overlap_example(parse_template(second), parse_template(first)) == example


# "." and ".." are refused: clients and servers remove such segments before routing.
_literal = st.text(alphabet="abcXYZ019-._~", min_size=1, max_size=6).filter(
    lambda text: text not in (".", "..")
)
_idents = ["id", "name", "parent", "tenant", "task_id", "x1", "_y"]


@st.composite
def _templates(draw: st.DrawFn) -> str:
    parts: list[str] = []
    names: set[str] = set()
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["lit", "star", "var", "multi"]))
        if kind == "lit":
            parts.append(draw(_literal))
        elif kind == "star":
            parts.append("*")
        else:
            name = draw(
                st.sampled_from([n for n in _idents if n not in names] or ["last"])
            )
            if name in names:
                continue
            names.add(name)
            inner = "" if kind == "var" else "=" + draw(_literal) + "/*"
            parts.append("{" + name + inner + "}")
    text = "/" + "/".join(parts)
    if draw(st.booleans()):
        text += "/**" if draw(st.booleans()) else "/{rest=**}"
    if draw(st.booleans()):  # a custom verb may follow `**` too
        text += ":" + draw(_literal)
    return text


@given(_templates())
def test_valid_templates_parse_and_rebuild(text: str) -> None:
    template = parse_template(text)
    rebuilt = "".join(
        p if isinstance(p, str) else "{" + p.name + "=" + p.pattern + "}"
        for p in template.pieces
    )
    assert parse_template(rebuilt).shape == template.shape
    for variable in template.variables:
        assert variable.segments == template.segments[variable.start : variable.end]


@given(st.text(max_size=40))
def test_arbitrary_text_parses_or_raises_template_error(text: str) -> None:
    try:
        template = parse_template(text)
    except TemplateError as exc:
        assert 0 <= exc.column <= len(text)
    else:
        assert template.source == text
        assert all(
            s.kind is not SegmentKind.DEEP_WILDCARD for s in template.segments[:-1]
        )


@pytest.mark.parametrize(
    "text", ["/../{id}", "/./x", "/a/..", "/v1/{name=a/../*}", "/x:.."]
)
def test_dot_segments_are_refused(text: str) -> None:
    if text == "/x:..":
        assert parse_template(text).verb == ".."  # a custom verb is not a segment
        return
    with pytest.raises(TemplateError, match="never reaches a server"):
        parse_template(text)

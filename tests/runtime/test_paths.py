"""The route runtime (``codegen/runtime/tables/_paths.py``), imported directly.

Unit tests build small tables by hand from template strings (parsed by
``codegen.http_rule.parse_template``, as the generator does) and check each rule of
DESIGN.md "Precise rules" and the ``routes.py`` contract. The matcher oracle compares
``match``, ``allowed_verbs``, ``build`` and ``http_rule.precedence`` with a brute-force
regex reading of the precedence rule over random template sets and random paths.
"""

from __future__ import annotations

import dataclasses
import pickle

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from codegen.http_rule import PathTemplate, SegmentKind, parse_template, precedence
from codegen.model.naming import proto_json_name
from codegen.runtime._json import DuplicateKeys, decode
from codegen.runtime import _paths
from codegen.runtime._paths import (
    Capture,
    ClientPiece,
    Match,
    Route,
    RouteNotFound,
    RouteTable,
)
from codegen.runtime._query import Param, QueryCodecs, QueryError

# ------------------------------------------------------------------ table helpers


@dataclass(frozen=True)
class Spec:
    """One route to put in a hand-built table."""

    rpc: str
    verb: str
    template: str
    body: str | None = None
    tenant: bool = False
    codecs: Mapping[str, tuple[str, str]] | None = None  # field -> (codec, enum)


def _route(spec: Spec, *, client: int = -1, recheck: bool = True) -> Route[str]:
    """``spec`` as the generator prints a route: matched by its segments and
    captures, built from its pieces (``client``: its place among its rpc's routes
    ``build`` tries, -1 for none)."""
    parsed = parse_template(spec.template)
    codecs = spec.codecs or {}
    captures = []
    pieces: list[str | ClientPiece] = []
    for variable in parsed.variables:
        codec, enum = codecs.get(variable.name, ("", ""))
        end = variable.start + 1 if variable.single_segment else variable.end
        captures.append(
            Capture(variable.name, variable.start, end, variable.single_segment)
            if not codec
            else Capture(
                variable.name, variable.start, end, variable.single_segment, codec, enum
            )
        )
    for piece in parsed.pieces:
        pieces.append(
            piece
            if isinstance(piece, str)
            else ClientPiece(piece.name, piece.field_path, piece.single_segment)
        )
    return Route(
        rpc=spec.rpc,
        verb=spec.verb,
        template=spec.template,
        path_fields=tuple(v.name for v in parsed.variables),
        body=spec.body,
        response_body=None,
        request_type=f"test.{spec.rpc}Request",
        response_type=f"test.{spec.rpc}Response",
        server_streaming=False,
        tenant=spec.tenant,
        alias=False,
        segments=tuple(str(s) for s in parsed.segments),
        custom_verb=parsed.verb or "",
        captures=tuple(captures),
        pieces=tuple(pieces),
        recheck=recheck,
        client=client,
    )


def make_table(
    specs: Sequence[Spec],
    *,
    recheck: bool = True,
    query: QueryCodecs | None = None,
    max_segments: int | None = None,
    headers: Any = None,
) -> RouteTable:
    """A table as the generator would print it: the first route of each rpc (with its
    first tenant route as the tenant variant) is the client's; the segment limit is the
    generator's rule."""
    routes: list[Route[str]] = []
    first: set[str] = set()  # the rpcs whose client route is chosen
    plain = {(s.rpc, s.verb, s.template) for s in specs if not s.tenant}
    for spec in specs:
        route = _route(spec, recheck=recheck)
        if spec.tenant:  # a /{tenant} variant only where it prefixes a route
            rest = (
                "/" + spec.template.split("/", 2)[2]
                if spec.template.count("/") > 1
                else "/"
            )
            route = dataclasses.replace(
                route, tenant=(spec.rpc, spec.verb, rest) in plain
            )
        elif spec.rpc not in first:
            first.add(spec.rpc)
            route = dataclasses.replace(route, client=0)
        routes.append(route)
    if max_segments is None:
        deep = any("**" in r.segments for r in routes)
        max_segments = 256 if deep else max([1] + [len(r.segments) for r in routes])
    if query is None:
        # As the generator does: every field not in the body is a query parameter,
        # path fields included.
        params: dict[str, dict[tuple[str, ...], Param]] = {}
        for spec in specs:
            fields = params.setdefault(spec.rpc, {})
            for variable in parse_template(spec.template).variables:
                path = variable.field_path
                fields[path] = Param(path, path, "string")
            fields[("tenant",)] = Param(("tenant",), ("tenant",), "string")
        query = QueryCodecs(
            {rpc: tuple(fields.values()) for rpc, fields in params.items()}, {}, {}
        )
    return RouteTable(
        routes,
        query=query,
        tenant_field="tenant",
        max_segments=max_segments,
        headers=headers,
    )


TASK_STATE = {
    "TASK_STATE_UNSPECIFIED": "TASK_STATE_UNSPECIFIED",
    "TASK_STATE_WORKING": "TASK_STATE_WORKING",
    "0": "TASK_STATE_UNSPECIFIED",
    "2": "TASK_STATE_WORKING",
}

A2A_LIKE = [
    Spec("SendMessage", "POST", "/message:send", body="*"),
    Spec("SendMessage", "POST", "/{tenant}/message:send", body="*", tenant=True),
    Spec("GetTask", "GET", "/tasks/{id}"),
    Spec("GetTask", "GET", "/{tenant}/tasks/{id}", tenant=True),
    Spec("ListTasks", "GET", "/tasks"),
    Spec("ListTasks", "GET", "/{tenant}/tasks", tenant=True),
    Spec("CancelTask", "POST", "/tasks/{id}:cancel", body="*"),
    Spec("CancelTask", "POST", "/{tenant}/tasks/{id}:cancel", body="*", tenant=True),
    Spec("GetBook", "GET", "/v1/{book.name=shelves/*/books/*}"),
    Spec("UpdateBook", "PATCH", "/v1/{book.name=shelves/*/books/*}", body="book"),
    Spec("DeleteBook", "DELETE", "/v1/{book.name=shelves/*/books/*}:purge"),
    Spec("ReadFile", "GET", "/files/**"),
    Spec("GetObject", "GET", "/objects/{path=**}"),
    Spec("GetPage", "GET", "/pages/{page}", codecs={"page": ("int32", "")}),
    Spec("GetSerial", "GET", "/serials/{serial}", codecs={"serial": ("int64", "")}),
    Spec(
        "GetByState",
        "GET",
        "/states/{state}",
        codecs={"state": ("enum", "test.TaskState")},
    ),
]

A2A_QUERY = QueryCodecs(
    {
        "GetTask": (
            Param(("tenant",), ("tenant",), "string"),
            Param(("id",), ("id",), "string"),
            Param(("historyLength",), ("history_length",), "int32"),
        ),
        "ListTasks": (
            Param(("tenant",), ("tenant",), "string"),
            Param(("pageSize",), ("page_size",), "int32"),
            Param(("status",), ("status",), "enum", enum="test.TaskState"),
        ),
        "GetBook": (
            Param(("book", "name"), ("book", "name"), "string"),
            Param(("book", "title"), ("book", "title"), "string"),
        ),
        "UpdateBook": (Param(("updateMask",), ("update_mask",), "field_mask"),),
        "DeleteBook": (Param(("force",), ("force",), "bool"),),
        "ReadFile": (),
        "GetObject": (),
        "GetPage": (
            Param(("tenant",), ("tenant",), "string"),
            Param(("page",), ("page",), "int32"),
        ),
        "GetSerial": (Param(("serial",), ("serial",), "int64"),),
        "GetByState": (),
    },
    {"test.TaskState": TASK_STATE},
    {
        "SendMessage": frozenset({"tenant", "message", "metadata"}),
        "CancelTask": frozenset({"tenant", "id", "metadata"}),
    },
    service_params=frozenset({"a2a-version"}),
)


@pytest.fixture(scope="module")
def table() -> RouteTable:
    return make_table(
        A2A_LIKE,
        query=A2A_QUERY,
        recheck=True,
        headers=lambda has_body: [("A2A-Version", "1.0")]
        + ([("Content-Type", "application/a2a+json")] if has_body else []),
    )


def rpc_of(table: RouteTable, verb: str, path: str) -> str | None:
    found = table.match(verb, path)
    return None if found is None else found.route.rpc


# ------------------------------------------------------------------ the path split


def test_well_formed() -> None:
    assert _paths.well_formed("plain")
    assert _paths.well_formed("%41%c3%a9")
    for bad in ("%", "%4", "%zz", "a%g1", "%FF", "%C3", "%C3%28", "%ED%A0%80"):
        assert not _paths.well_formed(bad), bad


def test_decode_segment_single_and_multi() -> None:
    assert _paths.decode_segment("a%2Fb%20c") == "a/b c"
    assert _paths.decode_segment("a%2Fb%2fc%20d", single_segment=False) == (
        "a%2Fb%2fc d"
    )
    assert _paths.decode_segment("plain", single_segment=False) == "plain"
    assert _paths.decode_segment("%C3%A9") == "é"


def test_split_path() -> None:
    verbs = frozenset({"cancel"})
    assert _paths.split_path("/", verbs, 3) == ([], "")
    assert _paths.split_path("/tasks/x:cancel", verbs, 3) == (["tasks", "x"], "cancel")
    # Only a known verb is split off; the last colon is the one that counts.
    assert _paths.split_path("/tasks/x:other", verbs, 3) == (["tasks", "x:other"], "")
    assert _paths.split_path("/a:b:cancel", verbs, 3) == (["a:b"], "cancel")
    assert _paths.split_path("/a:cancel/b", verbs, 3) == (["a:cancel", "b"], "")
    assert _paths.split_path("/a/b/c", frozenset(), 3) == (["a", "b", "c"], "")
    for refused in ("", "tasks", "/a/b/c/d", "/a%zz", "/%FF"):
        assert _paths.split_path(refused, verbs, 3) is None, refused


# ------------------------------------------------------------------ match


@pytest.mark.parametrize(
    ("verb", "path", "rpc", "params"),
    [
        ("GET", "/tasks/abc", "GetTask", {"id": "abc"}),
        ("GET", "/tasks", "ListTasks", {}),
        ("GET", "/t1/tasks", "ListTasks", {"tenant": "t1"}),
        # The plain route beats its tenant twin: literal beats variable from the left.
        ("GET", "/tasks/tasks", "GetTask", {"id": "tasks"}),
        ("GET", "/t1/tasks/abc", "GetTask", {"tenant": "t1", "id": "abc"}),
        ("POST", "/tasks/abc:cancel", "CancelTask", {"id": "abc"}),
        (
            "POST",
            "/t%2F1/tasks/a%3Ab:cancel",
            "CancelTask",
            {"tenant": "t/1", "id": "a:b"},
        ),
        # A colon that is no route's verb belongs to the segment.
        ("GET", "/tasks/a:b", "GetTask", {"id": "a:b"}),
        ("GET", "/tasks/a%2Fb", "GetTask", {"id": "a/b"}),
        ("GET", "/tasks/%C3%A9t%C3%A9", "GetTask", {"id": "été"}),
        # Multi-segment variables keep %2F (either case) as sent, decode the rest.
        (
            "GET",
            "/v1/shelves/s%2F1/books/b%2fx%20y",
            "GetBook",
            {"book.name": "shelves/s%2F1/books/b%2fx y"},
        ),
        (
            "DELETE",
            "/v1/shelves/s/books/b:purge",
            "DeleteBook",
            {"book.name": "shelves/s/books/b"},
        ),
        # A bare ** takes zero or more non-empty segments.
        ("GET", "/files", "ReadFile", {}),
        ("GET", "/files/a/b/c", "ReadFile", {}),
        # {path=**} takes at least one segment.
        ("GET", "/objects/a", "GetObject", {"path": "a"}),
        ("GET", "/objects/a/b%2Fc/d", "GetObject", {"path": "a/b%2Fc/d"}),
        # Typed path fields stay strings in match.
        ("GET", "/pages/0012", "GetPage", {"page": "0012"}),
    ],
)
def test_match(
    table: RouteTable, verb: str, path: str, rpc: str, params: dict[str, str]
) -> None:
    found = table.match(verb, path)
    assert found is not None, path
    assert (found.route.rpc, found.params) == (rpc, params)


@pytest.mark.parametrize(
    ("verb", "path", "raw"),
    [
        # A multi-segment value's %2F and %252F read alike in params: not as sent.
        (
            "GET",
            "/v1/shelves/s%2F1/books/b%252Fx%20y",
            {"book.name": "shelves/s%2F1/books/b%252Fx%20y"},
        ),
        (
            "DELETE",
            "/v1/shelves/s/books/b%25:purge",
            {"book.name": "shelves/s/books/b%25"},
        ),
        ("POST", "/t%2F1/tasks/a%3Ab:cancel", {"tenant": "t%2F1", "id": "a%3Ab"}),
        ("GET", "/objects/a/b%2Fc/d", {"path": "a/b%2Fc/d"}),
        ("GET", "/tasks", {}),
    ],
)
def test_raw_params_are_the_path_values_as_sent(
    table: RouteTable, verb: str, path: str, raw: dict[str, str]
) -> None:
    found = table.match(verb, path)
    assert found is not None, path
    assert table.raw_params(found) == raw
    assert found.params.keys() == raw.keys()


def test_raw_params_want_a_match_the_table_made(table: RouteTable) -> None:
    found = table.match("GET", "/tasks/abc")
    assert found is not None
    with pytest.raises(ValueError, match="not made by RouteTable.match"):
        table.raw_params(Match(found.route, found.params))


@pytest.mark.parametrize(
    ("verb", "path", "allowed"),
    [
        ("GET", "/tasks/", set()),  # a variable never matches an empty segment
        ("GET", "//tasks", set()),
        ("GET", "/tasks//x", set()),
        ("GET", "", set()),
        ("GET", "tasks", set()),
        ("GET", "/tasks/x:cancel", {"POST"}),
        ("POST", "/tasks/x", {"GET"}),
        ("GET", "/tasks/%zz", set()),
        ("GET", "/tasks/%4", set()),
        ("GET", "/tasks/%FF", set()),
        ("GET", "/tasks/%C3", set()),
        ("GET", "/tasks%/x", set()),
        ("GET", "/objects", set()),
        ("GET", "/files/a//b", set()),
        ("GET", "/files/a/", set()),
        ("GET", "/v1/shelves/s/books/b/c", set()),
        ("GET", "/a/b/c/d/e/f/g", set()),
    ],
)
def test_no_match(table: RouteTable, verb: str, path: str, allowed: set[str]) -> None:
    assert table.match(verb, path) is None, path
    assert table.allowed_verbs(path) == allowed


def test_empty_segment_never_matches_a_variable(table: RouteTable) -> None:
    assert table.match("GET", "/tasks/") is None
    assert table.allowed_verbs("/tasks/") == frozenset()
    assert table.match("GET", "//tasks") is None


def test_literals_compare_raw(table: RouteTable) -> None:
    assert table.match("GET", "/%74asks") is None
    assert table.match("GET", "/%74asks/x") is None
    # The variable decodes; the literal after it is compared as sent.
    found = table.match("GET", "/%74asks/tasks")
    assert found is not None and found.route.tenant
    assert found.params == {"tenant": "tasks"}
    assert table.match("GET", "/t1/%74asks") is None


def test_max_segments_refuses_long_paths() -> None:
    small = make_table([Spec("A", "GET", "/{a}/{b}")])
    assert small.max_segments == 2
    assert small.match("GET", "/x/y") is not None
    assert small.match("GET", "/x/y/z") is None
    assert small.allowed_verbs("/x/y/z") == frozenset()
    deep = make_table([Spec("A", "GET", "/{a}/**")], max_segments=3)
    assert deep.match("GET", "/x/y/z") is not None
    assert deep.match("GET", "/x/y/z/w") is None


def test_root_template() -> None:
    root = make_table([Spec("Root", "GET", "/"), Spec("Any", "GET", "/**")])
    assert rpc_of(root, "GET", "/") == "Root"
    assert rpc_of(root, "GET", "/x") == "Any"
    assert rpc_of(root, "GET", "") is None
    # Without ``**`` (the flat index) the root is still the empty path.
    flat = make_table([Spec("Root", "GET", "/"), Spec("One", "GET", "/{x}")])
    assert rpc_of(flat, "GET", "/") == "Root"
    assert rpc_of(flat, "GET", "/a") == "One"
    assert rpc_of(flat, "GET", "//") is None
    assert rpc_of(flat, "GET", "") is None
    assert rpc_of(flat, "POST", "/") is None


def test_deep_wildcard_inside_a_variable_may_be_empty() -> None:
    routes = make_table([Spec("A", "GET", "/{b=x/**}")])
    assert routes.match("GET", "/x") == _paths.Match(routes.routes[0], {"b": "x"})
    found = routes.match("GET", "/x/y/z")
    assert found is not None and found.params == {"b": "x/y/z"}
    assert routes.match("GET", "/y") is None


def test_precedence_examples() -> None:
    routes = make_table(
        [
            Spec("Deep", "GET", "/a/**"),
            Spec("Star", "GET", "/a/*"),
            Spec("Lit", "GET", "/a/b"),
            Spec("Exact", "GET", "/a"),
            Spec("StarFirst", "GET", "/*/c"),
        ]
    )
    assert rpc_of(routes, "GET", "/a/b") == "Lit"
    assert rpc_of(routes, "GET", "/a/x") == "Star"
    assert rpc_of(routes, "GET", "/a/x/y") == "Deep"
    # A template that is used up beats a ** that would take nothing.
    assert rpc_of(routes, "GET", "/a") == "Exact"
    # The literal at the first differing position wins, whatever comes after.
    assert rpc_of(routes, "GET", "/a/c") == "Star"
    assert rpc_of(routes, "GET", "/b/c") == "StarFirst"


def test_same_shape_earlier_route_wins() -> None:
    routes = make_table([Spec("First", "GET", "/{a}"), Spec("Second", "GET", "/{b}")])
    found = routes.match("GET", "/x")
    assert (
        found is not None and found.route.rpc == "First" and found.params == {"a": "x"}
    )


def test_a_route_without_variables_is_found_by_its_whole_path() -> None:
    """A route of literals alone is looked up by the path as sent (no split): it wins
    over any route with a variable there, other verbs on that path still reach the
    variable routes, and a path whose escapes are not UTF-8 matches nothing."""
    routes = make_table(
        [
            Spec("Get", "GET", "/tasks/{id}"),
            Spec("Special", "POST", "/tasks/special"),
            Spec("Root", "GET", "/"),
            Spec("Odd", "GET", "/a%FF"),
            Spec("Run", "POST", "/tasks/special:run", body="*"),
        ]
    )
    assert rpc_of(routes, "POST", "/tasks/special") == "Special"
    found = routes.match("GET", "/tasks/special")
    assert found is not None and found.params == {"id": "special"}
    assert rpc_of(routes, "GET", "/") == "Root"
    assert rpc_of(routes, "POST", "/tasks/special:run") == "Run"
    assert rpc_of(routes, "GET", "/a%FF") is None
    assert rpc_of(routes, "POST", "/tasks/%73pecial") is None  # literals compare raw
    first = routes.match("POST", "/tasks/special")
    assert first is not None
    first.params["x"] = "changed"  # each match's values are its own
    again = routes.match("POST", "/tasks/special")
    assert again is not None and again.params == {}


def test_literals_and_names_reach_the_compiled_matcher_as_values() -> None:
    """The flat index is compiled (``_compiling``); a literal with quotes and
    parentheses, which http.proto allows, is compared as a value, not written as
    source."""
    literal = "it's(x)"
    routes = make_table(
        [
            Spec("Get", "GET", f"/{literal}/{{id}}"),
            Spec("Other", "GET", "/{tenant}/{id}", tenant=True),
        ]
    )
    found = routes.match("GET", f"/{literal}/a%20b")
    assert found is not None and found.route.rpc == "Get"
    assert found.params == {"id": "a b"}
    other = routes.match("GET", "/its(x)/b")
    assert other is not None and other.params == {"tenant": "its(x)", "id": "b"}


def test_many_routes_of_one_shape_are_found_by_their_literals() -> None:
    """Routes sharing a shape and the places of their literals are found by a lookup
    (the flat index's groups), with the walk's answers, and their values decoded."""
    specs = [Spec(f"Get{i}", "GET", f"/v1/c{i}/{{id}}") for i in range(40)]
    specs += [Spec(f"Name{i}", "GET", f"/v1/{{name=n{i}/*}}") for i in range(3)]
    specs += [Spec(f"Pair{i}", "GET", f"/v{i}/x/{{id}}/y") for i in range(3)]
    specs.append(Spec("Any", "GET", "/v1/{a}/{b}"))
    flat = make_table(specs)
    walked = make_table([*specs, Spec("Deep", "GET", "/z/**")])
    paths = {
        "/v1/c7/x%20y": ("Get7", {"id": "x y"}),
        "/v1/c39/a": ("Get39", {"id": "a"}),
        "/v1/n1/z": ("Name1", {"name": "n1/z"}),
        "/v1/zz/q": ("Any", {"a": "zz", "b": "q"}),
        "/v2/x/7/y": ("Pair2", {"id": "7"}),
        "/v2/x/7/z": None,
        "/v1/c40/a": ("Any", {"a": "c40", "b": "a"}),
    }
    for path, expected in paths.items():
        for table in (flat, walked):
            found = table.match("GET", path)
            got = None if found is None else (found.route.rpc, found.params)
            assert got == expected, (path, table is flat)


class _Compared(str):
    """A literal segment that counts the comparisons made with it."""

    made = 0

    def __eq__(self, other: object) -> bool:
        type(self).made += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_a_shape_many_routes_share_costs_a_lookup_not_a_test_per_route() -> None:
    """Matching does not grow with the table: 500 routes of one shape are not tried
    one by one (each literal here counts the comparisons made with it)."""
    routes = [_route(Spec(f"Get{i}", "GET", f"/v1/c{i}/{{id}}")) for i in range(500)]
    counted = [
        dataclasses.replace(
            route,
            segments=tuple(s if s == "*" else _Compared(s) for s in route.segments),
        )
        for route in routes
    ]
    table = RouteTable(counted, query=QueryCodecs({}, {}, {}), max_segments=3)
    _Compared.made = 0
    found = table.match("GET", "/v1/c499/x")
    assert found is not None and found.route.rpc == "Get499"
    assert found.params == {"id": "x"}
    assert _Compared.made <= 4


def test_route_table_refuses_two_routes_of_one_verb_and_template() -> None:
    route = _route(Spec("A", "GET", "/a"))
    other = dataclasses.replace(route, rpc="B")
    with pytest.raises(ValueError, match="two routes have one verb and template"):
        RouteTable([route, other], query=QueryCodecs({}, {}, {}), max_segments=1)


def test_match_never_raises_on_odd_input(table: RouteTable) -> None:
    for path in ("/\x00", "/%00", "/\ud800", "/" + "a/" * 10, "/tasks/%", "%"):
        table.match("GET", path)
        table.allowed_verbs(path)


# ------------------------------------------------------------------ RouteNotFound


def test_route_not_found_404_and_405(table: RouteTable) -> None:
    with pytest.raises(RouteNotFound) as missing:
        table.transcode("GET", "/nowhere/at/all")
    assert isinstance(missing.value, LookupError)
    assert missing.value.status == 404
    assert missing.value.allowed_verbs == frozenset()
    assert (missing.value.verb, missing.value.raw_path) == ("GET", "/nowhere/at/all")
    assert str(missing.value) == "GET /nowhere/at/all: no route has this path"
    with pytest.raises(RouteNotFound) as wrong_verb:
        table.transcode("DELETE", "/tasks/x:cancel")
    assert wrong_verb.value.status == 405
    assert wrong_verb.value.allowed_verbs == {"POST"}
    assert "(allowed: POST)" in str(wrong_verb.value)
    # Raised by hand it has no table: a 404.
    assert RouteNotFound("GET", "/x").status == 404
    # The table's own, as the ASGI app takes it, looks the verbs up when asked.
    made = table.not_found("DELETE", "/tasks/x:cancel")
    assert isinstance(made, RouteNotFound) and type(made) is type(wrong_verb.value)
    assert made.status == 405 and made.allowed_verbs == {"POST"}
    assert type(made).__qualname__ == "RouteNotFound"
    assert repr(made) == "RouteNotFound('DELETE', '/tasks/x:cancel')"
    # Pickled (to another process), a plain RouteNotFound with its verbs.
    again = pickle.loads(pickle.dumps(made))
    assert type(again) is RouteNotFound and again.args == made.args
    assert again.status == 405 and again.allowed_verbs == {"POST"}


# ------------------------------------------------------------------ transcode


def test_transcode_plain_path(table: RouteTable) -> None:
    route, request = table.transcode("GET", "/t1/tasks/a%20b")
    assert route.rpc == "GetTask" and route.tenant
    assert request == {"tenant": "t1", "id": "a b"}


def test_transcode_query_merges_with_path(table: RouteTable) -> None:
    _, request = table.transcode("GET", "/tasks/x", "historyLength=3&id=x")
    assert request == {"historyLength": 3, "id": "x"}
    with pytest.raises(QueryError) as conflict:
        table.transcode("GET", "/tasks/x", "id=y")
    assert conflict.value.field == "id"
    assert isinstance(conflict.value, ValueError)


def test_transcode_nested_path_field_is_nested_without_query(
    table: RouteTable,
) -> None:
    # A dotted path field is a nested message in the request, query or not.
    _, bare = table.transcode("GET", "/v1/shelves/s/books/b")
    assert bare == {"book": {"name": "shelves/s/books/b"}}
    _, with_query = table.transcode("GET", "/v1/shelves/s/books/b", "book.title=T")
    assert with_query == {"book": {"name": "shelves/s/books/b", "title": "T"}}


def test_transcode_field_body(table: RouteTable) -> None:
    route, request = table.transcode(
        "PATCH",
        "/v1/shelves/s/books/b",
        "updateMask=title,author_name",
        {"title": "T", "name": ""},
    )
    assert route.rpc == "UpdateBook"
    assert request == {
        "updateMask": "title,authorName",
        "book": {"title": "T", "name": "shelves/s/books/b"},
    }
    _, empty = table.transcode("PATCH", "/v1/shelves/s/books/b")
    assert empty == {"book": {"name": "shelves/s/books/b"}}
    with pytest.raises(QueryError, match="book.name"):
        table.transcode("PATCH", "/v1/shelves/s/books/b", "", {"name": "other"})


def test_transcode_star_body(table: RouteTable) -> None:
    route, request = table.transcode(
        "POST", "/t1/tasks/x:cancel", "", {"metadata": {"k": 1}}
    )
    assert route.rpc == "CancelTask"
    assert request == {"metadata": {"k": 1}, "tenant": "t1", "id": "x"}
    # The body's default value gives way to the path; a different one is an error.
    _, request = table.transcode("POST", "/tasks/x:cancel", "", {"id": ""})
    assert request == {"id": "x"}
    _, request = table.transcode("POST", "/tasks/x:cancel", "", {"id": "x"})
    assert request == {"id": "x"}
    with pytest.raises(QueryError) as conflict:
        table.transcode("POST", "/tasks/x:cancel", "", {"id": "y"})
    assert conflict.value.field == "id" and conflict.value.value == "y"
    # No body at all is the empty request.
    assert table.transcode("POST", "/message:send")[1] == {}
    # A query naming a field of a body "*" route is an error, others are ignored...
    with pytest.raises(QueryError, match="whole request as its body"):
        table.transcode("POST", "/message:send", "message=x", {})
    assert table.transcode("POST", "/message:send", "other=1", {})[1] == {}
    # ...or rejected; the protocol's own parameters never count as fields.
    with pytest.raises(QueryError, match="unknown query parameter"):
        table.transcode("POST", "/message:send", "other=1", {}, unknown="reject")
    assert (
        table.transcode("POST", "/message:send", "a2a-VERSION=1.0", unknown="reject")[1]
        == {}
    )


def test_transcode_copies_the_body(table: RouteTable) -> None:
    body = {"metadata": {"k": 1}}
    _, request = table.transcode("POST", "/t1/tasks/x:cancel", "", body)
    assert body == {"metadata": {"k": 1}}  # the tenant and id went into a copy
    # Any mapping is a body; the request is a dict of its own.
    frozen = MappingProxyType({"metadata": {"k": 1}})
    _, request = table.transcode("POST", "/tasks/x:cancel", "", frozen)
    assert type(request) is dict and request == {"metadata": {"k": 1}, "id": "x"}
    _, request = table.transcode("PATCH", "/v1/shelves/s/books/b", "", frozen)
    assert type(request["book"]) is dict


def test_transcode_refuses_bodies(table: RouteTable) -> None:
    with pytest.raises(ValueError, match="must be a JSON object"):
        table.transcode("POST", "/message:send", "", [1])
    with pytest.raises(ValueError, match="takes no body"):
        table.transcode("GET", "/tasks/x", "", {"a": 1})
    assert table.transcode("GET", "/tasks/x", "", {})[1] == {"id": "x"}


def test_transcode_typed_path_fields(table: RouteTable) -> None:
    assert table.transcode("GET", "/pages/0012")[1] == {"page": 12}
    assert table.transcode("GET", "/serials/-5")[1] == {"serial": "-5"}
    assert table.transcode("GET", "/states/2")[1] == {"state": "TASK_STATE_WORKING"}
    assert table.transcode("GET", "/pages/7", "page=7")[1] == {"page": 7}
    with pytest.raises(QueryError) as bad:
        table.transcode("GET", "/pages/1e3")
    assert bad.value.field == "page"
    with pytest.raises(QueryError, match="not a value of test.TaskState"):
        table.transcode("GET", "/states/NOPE")
    with pytest.raises(QueryError, match="out of range"):
        table.transcode("GET", "/pages/99999999999")
    with pytest.raises(QueryError):
        table.transcode("GET", "/pages/8", "page=7")


def test_transcode_max_pairs(table: RouteTable) -> None:
    with pytest.raises(QueryError, match="more than 2"):
        table.transcode("GET", "/tasks", "a=1&b=2&c=3", max_pairs=2)
    with pytest.raises(QueryError, match="more than 1"):
        table.transcode("POST", "/message:send", "a=1&b=2", {}, max_pairs=1)


def test_merge_into_nested_and_non_mapping_parents() -> None:
    request: dict[str, Any] = {"book": {"title": "T"}}
    _paths._merge(request, ("book", "name"), "book.name", "n")
    assert request == {"book": {"title": "T", "name": "n"}}
    odd: dict[str, Any] = {"book": 5}
    _paths._merge(odd, ("book", "name"), "book.name", "n")
    assert odd == {"book": {"name": "n"}}
    with pytest.raises(QueryError) as error:
        _paths._merge({"x": {"k": 1}}, ("x",), "x", "v")
    assert error.value.value == "{'k': 1}"


# ------------------------------------------------------------------ build


def test_build_plain_and_tenant(table: RouteTable) -> None:
    built = table.build("GetTask", {"id": "a/b c:é", "historyLength": 2})
    assert (built.verb, built.path) == ("GET", "/tasks/a%2Fb%20c%3A%C3%A9")
    assert built.query == [("historyLength", "2")] and built.body is None
    assert built.headers == [("A2A-Version", "1.0")]
    by_argument = table.build("GetTask", {"id": "x"}, tenant="t 1")
    assert by_argument.path == "/t%201/tasks/x"
    by_field = table.build("GetTask", {"id": "x", "tenant": "t1"})
    assert by_field.path == "/t1/tasks/x"
    same = table.build("GetTask", {"id": "x", "tenant": "t1"}, tenant="t1")
    assert same.path == "/t1/tasks/x"
    # An empty tenant is the plain route, and the field does not travel.
    plain = table.build("ListTasks", {"tenant": "", "pageSize": 5})
    assert (plain.path, plain.query) == ("/tasks", [("pageSize", "5")])
    with pytest.raises(ValueError, match="differs from the request's tenant"):
        table.build("GetTask", {"id": "x", "tenant": "a"}, tenant="b")


def test_build_tenant_without_tenant_route(table: RouteTable) -> None:
    with pytest.raises(ValueError, match="no tenant route"):
        table.build("GetPage", {"page": 1}, tenant="t1")
    # As a request field it is just a field: it travels in the query.
    built = table.build("GetPage", {"page": 1, "tenant": "t1"})
    assert (built.path, built.query) == ("/pages/1", [("tenant", "t1")])
    no_tenants = make_table([Spec("A", "GET", "/a")])
    no_tenants.tenant_field = ""
    with pytest.raises(ValueError, match="no tenant route"):
        no_tenants.build("A", {}, tenant="t")
    assert no_tenants.build("A", {}).path == "/a"


def test_build_bodies(table: RouteTable) -> None:
    cancel = table.build("CancelTask", {"id": "x", "metadata": {"k": 1}})
    assert (cancel.verb, cancel.path) == ("POST", "/tasks/x:cancel")
    assert cancel.body == {"metadata": {"k": 1}} and cancel.query == []
    assert cancel.headers == [
        ("A2A-Version", "1.0"),
        ("Content-Type", "application/a2a+json"),
    ]
    request = {"book": {"name": "shelves/s/books/b", "title": "T"}, "updateMask": "a"}
    update = table.build("UpdateBook", request)
    assert update.path == "/v1/shelves/s/books/b"
    assert update.body == {"title": "T"}
    assert update.query == [("updateMask", "a")]
    # The caller's request is not changed.
    assert request["book"] == {"name": "shelves/s/books/b", "title": "T"}


def test_build_path_values(table: RouteTable) -> None:
    assert table.build("GetPage", {"page": 12}).path == "/pages/12"
    assert table.build("GetPage", {"page": True}).path == "/pages/true"
    assert table.build("GetTask", {"id": "AZaz09-_.~"}).path == "/tasks/AZaz09-_.~"
    book = table.build("GetBook", {"book": {"name": "shelves/a b/books/%2F"}})
    assert book.path == "/v1/shelves/a%20b/books/%252F"
    for value, reason in [
        (None, "is missing"),
        ("", "is empty"),
        (".", "may not be '.' or '..'"),
        ("..", "may not be '.' or '..'"),
        (1.5, "must be a string or an integer"),
        ("\ud800", "not valid Unicode"),
    ]:
        with pytest.raises(ValueError, match=re.escape(reason)) as error:
            table.build("GetTask", {} if value is None else {"id": value})
        assert "'id'" in str(error.value)
    for value in ("shelves/../books/b", "shelves/./books/b", "./x", "x/.."):
        with pytest.raises(ValueError, match="book.name"):
            table.build("GetBook", {"book": {"name": value}})
    with pytest.raises(ValueError, match="is missing"):
        table.build("GetBook", {"book": "not an object"})
    with pytest.raises(ValueError, match="unknown rpc"):
        table.build("Nope", {})


def test_build_recheck(table: RouteTable) -> None:
    # "/tasks/tasks" is GetTask's: ListTasks for tenant "tasks" cannot be sent.
    with pytest.raises(ValueError, match="matches rpc GetTask"):
        table.build("ListTasks", {}, tenant="tasks")
    # A multi-segment value must fit its variable's pattern.
    with pytest.raises(ValueError, match="does not route back"):
        table.build("GetBook", {"book": {"name": "shelves/s"}})
    with pytest.raises(ValueError, match="does not route back"):
        table.build("GetBook", {"book": {"name": "shelves//books/b"}})
    # Without the recheck flag the path is sent as built.
    unchecked = make_table(A2A_LIKE, query=A2A_QUERY, recheck=False)
    assert unchecked.build("ListTasks", {}, tenant="tasks").path == "/tasks/tasks"


def test_tenant_of() -> None:
    suffix = "/.well-known/agent-card.json"
    assert _paths.tenant_of(suffix, suffix) == ""
    assert _paths.tenant_of("/t1" + suffix, suffix) == "t1"
    assert _paths.tenant_of("/t%201" + suffix, suffix) == "t 1"
    for other in ("//" + suffix[1:], "/a/b" + suffix, "x" + suffix, "/%zz" + suffix):
        assert _paths.tenant_of(other, suffix) is None, other
    assert _paths.tenant_of("/t1/other", suffix) is None


# ------------------------------------------------------------------ the oracle

LITERALS = ("a", "b")
VERBS = ("GET", "POST", "DELETE")
CUSTOM_VERBS = ("go", "do")


@st.composite
def templates(draw: st.DrawFn) -> str:
    """A valid template over a tiny alphabet, so that templates overlap."""
    count = draw(st.integers(0, 4))
    parts: list[str] = []
    for i in range(count):
        last = i == count - 1
        kinds = ["lit", "lit", "star", "var", "nested", "multi"]
        if last:
            kinds += ["deep", "deepvar", "multideep"]
        kind = draw(st.sampled_from(kinds))
        literal = draw(st.sampled_from(LITERALS))
        parts.append(
            {
                "lit": literal,
                "star": "*",
                "var": f"{{v{i}}}",
                "nested": f"{{m{i}.n}}",
                "multi": f"{{w{i}={literal}/*}}",
                "deep": "**",
                "deepvar": f"{{d{i}=**}}",
                "multideep": f"{{e{i}={literal}/**}}",
            }[kind]
        )
    text = "/" + "/".join(parts)
    if text != "/" and draw(st.booleans()):  # after `**` too, as http.proto allows
        text += ":" + draw(st.sampled_from(CUSTOM_VERBS))
    return text


@st.composite
def route_sets(draw: st.DrawFn) -> list[Spec]:
    specs: list[Spec] = []
    for number in range(draw(st.integers(1, 5))):
        template = draw(templates())
        verb = draw(st.sampled_from(VERBS))
        rpc = f"R{number}"
        specs.append(Spec(rpc, verb, template))
        if draw(st.booleans()):
            tenant_template = "/{tenant}" + (template if template != "/" else "")
            specs.append(Spec(rpc, verb, tenant_template, tenant=True))
    shapes = [(s.verb, parse_template(s.template).shape) for s in specs]
    assume(len(set(shapes)) == len(shapes))
    return specs


_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


def oracle_decode(raw: str, single_segment: bool) -> str:
    """Percent-decoding written out byte by byte: %2F stays in multi-segment values."""
    out = bytearray()
    index = 0
    while index < len(raw):
        escape = _ESCAPE.match(raw, index)
        if escape is None:
            out += raw[index].encode()
            index += 1
        elif not single_segment and escape.group(1).upper() == "2F":
            out += escape.group(0).encode()
            index += 3
        else:
            out.append(int(escape.group(1), 16))
            index += 3
    return out.decode("utf-8")


def template_regex(template: PathTemplate) -> re.Pattern[str]:
    """The template as a regex over the raw path "/seg/seg..." without its custom verb,
    one group per variable (its text starts with the "/" before it). A bare ``**``
    takes zero or more non-empty segments, one that starts a variable at least one."""
    starts = {v.start for v in template.variables}
    last = len(template.segments) - 1
    closes = [0] * len(template.segments)
    for variable in template.variables:
        closes[last if variable.end is None else variable.end - 1] += 1
    pieces = []
    for position, segment in enumerate(template.segments):
        if position in starts:
            pieces.append(f"(?P<g{position}>")
        if segment.kind is SegmentKind.LITERAL:
            pieces.append("/" + re.escape(segment.literal))
        elif segment.kind is SegmentKind.WILDCARD:
            pieces.append("/[^/]+")
        else:
            pieces.append("(?:/[^/]+)" + ("+" if position in starts else "*"))
        pieces.append(")" * closes[position])
    return re.compile("".join(pieces) + r"\Z")


def oracle_matches(
    specs: Sequence[Spec], verb: str | None, raw_path: str, max_segments: int
) -> list[tuple[int, dict[str, str]]]:
    """Every route (index, params) that matches, by a reading of DESIGN.md."""
    if not raw_path.startswith("/") or raw_path.count("/") > max_segments:
        return []
    if re.search(r"%(?![0-9A-Fa-f]{2})", raw_path):
        return []
    try:
        oracle_decode(raw_path, True)
    except UnicodeDecodeError:
        return []
    parsed = [parse_template(s.template) for s in specs]
    custom = ""
    text = raw_path if raw_path != "/" else ""
    head, colon, tail = text.rpartition(":")
    known = {p.verb for p in parsed if p.verb}
    if colon and "/" not in tail and tail in known:
        text, custom = head, tail
    found = []
    for index, (spec, template) in enumerate(zip(specs, parsed)):
        if (template.verb or "") != custom or verb not in (None, spec.verb):
            continue
        hit = template_regex(template).match(text)
        if hit is None:
            continue
        params = {}
        for variable in template.variables:
            raw = hit.group(f"g{variable.start}")[1:]
            params[variable.name] = oracle_decode(raw, variable.single_segment)
        found.append((index, params))
    return found


def rank(template: PathTemplate) -> tuple[int, ...]:
    order = {
        SegmentKind.LITERAL: 0,
        SegmentKind.WILDCARD: 1,
        SegmentKind.DEEP_WILDCARD: 2,
    }
    return tuple(order[s.kind] for s in template.segments)


def oracle_winner(
    specs: Sequence[Spec], matches: list[tuple[int, dict[str, str]]]
) -> tuple[int, dict[str, str]] | None:
    """Segment by segment from the left, literal < * < ** (a template that ends first
    wins against **); equal shape: earlier in the table."""
    if not matches:
        return None
    return min(
        matches, key=lambda m: (rank(parse_template(specs[m[0]].template)), m[0])
    )


PATH_SEGMENTS = st.sampled_from(
    ["a", "b", "x", "", "%61", "%2F", "%2f", "%zz", "%C3%A9", "%FF", "é", "a:b", "*"]
)


@st.composite
def raw_paths(draw: st.DrawFn, specs: Sequence[Spec]) -> str:
    """A path built from a template of the set (so matches happen), or any path."""
    if draw(st.booleans()):
        template = parse_template(draw(st.sampled_from(specs)).template)
        segments = []
        for segment in template.segments:
            if segment.kind is SegmentKind.LITERAL:
                segments.append(segment.literal)
            elif segment.kind is SegmentKind.WILDCARD:
                segments.append(draw(PATH_SEGMENTS))
            else:
                segments += draw(st.lists(PATH_SEGMENTS, max_size=3))
        path = "/" + "/".join(segments)
        if template.verb and draw(st.integers(0, 3)):
            path += ":" + template.verb
    else:
        path = "/" + "/".join(draw(st.lists(PATH_SEGMENTS, max_size=5)))
    if draw(st.integers(0, 4)) == 0:
        path += ":" + draw(st.sampled_from(CUSTOM_VERBS + ("zz",)))
    if draw(st.integers(0, 20)) == 0:
        path = path[1:]
    return path


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_oracle_match_and_allowed_verbs(data: st.DataObject) -> None:
    specs = data.draw(route_sets())
    table = make_table(specs)
    for _ in range(5):
        path = data.draw(raw_paths(specs))
        everything = oracle_matches(specs, None, path, table.max_segments)
        assert table.allowed_verbs(path) == {specs[i].verb for i, _ in everything}
        for verb in VERBS:
            expected = oracle_winner(
                specs, oracle_matches(specs, verb, path, table.max_segments)
            )
            found = table.match(verb, path)
            if expected is None:
                assert found is None, (verb, path)
                continue
            assert found is not None, (verb, path, expected)
            assert found.route is table.routes[expected[0]], (verb, path)
            assert found.params == expected[1]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_oracle_precedence_agrees(data: st.DataObject) -> None:
    specs = data.draw(route_sets())
    table = make_table(specs)
    path = data.draw(raw_paths(specs))
    for verb in VERBS:
        matches = oracle_matches(specs, verb, path, table.max_segments)
        winner = oracle_winner(specs, matches)
        if winner is None:
            continue
        best = parse_template(specs[winner[0]].template)
        for index, _ in matches:
            if index == winner[0]:
                continue
            other = parse_template(specs[index].template)
            order = precedence(best, other)
            assert order == -1 or (order == 0 and winner[0] < index), (best, other)
            assert precedence(other, best) == -order


def test_precedence_of_a_template_and_its_deep_extension() -> None:
    deep, exact = parse_template("/a/**"), parse_template("/a")
    routes = make_table([Spec("Deep", "GET", "/a/**"), Spec("Exact", "GET", "/a")])
    assert rpc_of(routes, "GET", "/a") == "Exact"
    assert precedence(exact, deep) == -1


VALUES = st.one_of(
    st.text(max_size=6),
    st.text(alphabet="ab/%:é.", max_size=6),
    st.sampled_from(["a", "b", "a/b", "a/x", "b/a/b", ".", "..", "a/./b"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_oracle_build_then_match(data: st.DataObject) -> None:
    specs = data.draw(route_sets())
    unchecked = make_table(specs, recheck=False)
    checked = make_table(specs, recheck=True)
    rpc = data.draw(st.sampled_from(sorted({s.rpc for s in specs})))
    has_twin = any(s.rpc == rpc and s.tenant for s in specs)
    index = next(
        i for i, s in enumerate(specs) if s.rpc == rpc and (s.tenant == has_twin)
    )
    tenant = data.draw(VALUES) if has_twin else None
    if not tenant:
        index = next(i for i, s in enumerate(specs) if s.rpc == rpc)
    template = parse_template(specs[index].template)
    request: dict[str, Any] = {}
    values: dict[str, str] = {}
    for variable in template.variables:
        if variable.name == "tenant":
            continue
        value = data.draw(VALUES)
        values[variable.name] = value
        holder = request
        for part in variable.field_path[:-1]:
            holder = holder.setdefault(part, {})
        holder[variable.field_path[-1]] = value
    if tenant:
        values["tenant"] = tenant
    use_argument = data.draw(st.booleans())
    if tenant and not use_argument:
        request["tenant"] = tenant
    argument = tenant if tenant and use_argument else None

    def refused(variable_name: str, single: bool) -> bool:
        value = values[variable_name]
        if not value or value in (".", ".."):
            return True
        return not single and any(part in (".", "..") for part in value.split("/"))

    expect_refusal = any(refused(v.name, v.single_segment) for v in template.variables)
    if expect_refusal:
        with pytest.raises(ValueError):
            unchecked.build(rpc, request, tenant=argument)
        return
    built = unchecked.build(rpc, request, tenant=argument)
    assert built.verb == specs[index].verb
    winner = oracle_winner(
        specs,
        oracle_matches(specs, built.verb, built.path, unchecked.max_segments),
    )
    # The path must come back as this route with these values; the same route
    # reading other values (a multi-segment variable taking more) is refused too.
    if winner == (index, values):
        assert checked.build(rpc, request, tenant=argument).path == built.path
        found = checked.match(built.verb, built.path)
        assert found is not None and found.route is checked.routes[index]
        assert found.params == values
    else:
        with pytest.raises(ValueError, match="does not route back"):
            checked.build(rpc, request, tenant=argument)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "x", "%41"]), min_size=2000, max_size=2000))
def test_two_thousand_segments_no_recursion(segments: list[str]) -> None:
    routes = make_table(
        [
            Spec("Deep", "GET", "/a/**"),
            Spec("Var", "GET", "/{c=**}"),
            Spec("Star", "POST", "/*/*/**"),
        ],
        max_segments=4096,
    )
    path = "/" + "/".join(segments)
    found = routes.match("GET", path)
    assert found is not None
    if segments[0] == "a":
        assert found.route.rpc == "Deep" and found.params == {}
    else:
        assert found.route.rpc == "Var"
        assert found.params == {"c": "/".join(segments).replace("%41", "A")}
    assert routes.allowed_verbs(path) == {"GET", "POST"}
    assert routes.match("GET", path + "/") is None


def test_build_recheck_refuses_values_read_back_differently() -> None:
    # The path routes back to the same route, but splits into other values.
    routes = make_table([Spec("Get", "GET", "/{x=b/*}/{y=**}")])
    with pytest.raises(ValueError, match="does not route back"):
        routes.build("Get", {"x": "b", "y": "c/e"})
    built = routes.build("Get", {"x": "b/c", "y": "e/%2F"})
    assert built.path == "/b/c/e/%252F"
    found = routes.match("GET", built.path)
    assert found is not None and found.params == {"x": "b/c", "y": "e/%2F"}


# ------------------------------------------- request: transcode without a second match


@pytest.mark.parametrize(
    ("verb", "path", "query", "body"),
    [
        ("GET", "/tasks/t1", "historyLength=3", None),
        ("GET", "/acme/tasks/t%2F1", "", None),
        ("POST", "/message:send", "", {"text": "x"}),
        ("POST", "/acme/tasks/t1:cancel", "", {}),
        ("GET", "/tasks", "", None),
    ],
)
def test_request_is_transcode_without_matching_again(
    verb: str, path: str, query: str, body: Any
) -> None:
    table = make_table(A2A_LIKE)
    found = table.match(verb, path)
    assert found is not None
    assert (found.route, table.request(found, query, body)) == table.transcode(
        verb, path, query, body
    )


@pytest.mark.parametrize("owned", [False, True])
def test_a_body_given_away_is_the_request_and_a_lent_one_is_left_as_it_was(
    owned: bool,
) -> None:
    """``owned_body=True`` (a body decoded for the call alone) makes the body the
    request, path fields merged in; otherwise the caller's body is never changed.
    Either way the request is the same, a key given twice still marked on it."""
    table = make_table(A2A_LIKE)
    found = table.match("POST", "/acme/tasks/t1:cancel")
    assert found is not None
    body = decode(b'{"metadata": {}, "metadata": {"a": 1}}', mark_duplicates=True)
    request = table.request(found, "", body, owned_body=owned)
    assert request == {"metadata": {"a": 1}, "tenant": "acme", "id": "t1"}
    assert isinstance(request, DuplicateKeys)
    assert request.duplicates == ("metadata",)
    assert (request is body) is owned
    assert (body == {"metadata": {"a": 1}}) is not owned


def test_request_refuses_a_match_it_did_not_make() -> None:
    table = make_table(A2A_LIKE)
    found = table.match("GET", "/tasks/t1")
    assert found is not None
    for forged in (
        Match(found.route, {"id": "t1"}),
        Match(table.routes[0], {"id": "t1"}, found.target),
    ):
        with pytest.raises(ValueError, match="not made by RouteTable.match"):
            table.request(forged)


def test_the_flat_index_keeps_the_first_of_two_equal_templates() -> None:
    """Without ``**`` the table matches through its flat index: the same answers as
    the walk, the first of two routes with one template and verb winning."""
    specs = [Spec("First", "GET", "/a/{x}"), Spec("Second", "GET", "/a/{y}")]
    table = make_table(specs)
    found = table.match("GET", "/a/b")
    assert found is not None and found.route.rpc == "First"
    assert found.params == {"x": "b"}
    walked = make_table([*specs, Spec("Deep", "GET", "/z/**")])  # walks the tree
    again = walked.match("GET", "/a/b")
    assert again is not None and again.route.rpc == "First"


# ------------------------------------------------------ a custom verb after **


def test_custom_verb_after_deep_wildcard_matches_and_builds() -> None:
    # http.proto lets the verb follow `**`; grpc-gateway and Envoy's path matcher split
    # it off the last segment and let `**` take the segments before it.
    table = make_table(
        [
            Spec("Run", "POST", "/v1/{name=**}:run", body="*"),
            Spec("Get", "GET", "/v1/{name=**}"),
            Spec("Deep", "POST", "/a/**:go", body="*"),
        ]
    )
    assert table.match("POST", "/v1/x:run").params == {"name": "x"}  # type: ignore[union-attr]
    assert table.match("POST", "/v1/x/y%2Fz:run").params == {  # type: ignore[union-attr]
        "name": "x/y%2Fz"
    }
    assert table.match("GET", "/v1/x/y:run") is None  # the verb picks the route
    assert table.allowed_verbs("/v1/x/y:run") == {"POST"}
    assert table.match("GET", "/v1/x/y:walk").params == {  # type: ignore[union-attr]
        "name": "x/y:walk"
    }
    assert table.match("POST", "/a/b/c:go").route.rpc == "Deep"  # type: ignore[union-attr]
    # A bare `**` may take nothing, as without a verb; a variable never captures nothing.
    assert table.match("POST", "/a:go").route.rpc == "Deep"  # type: ignore[union-attr]
    for path in ("/v1:run", "/v1/:run", "/v1/x/:run", "/v1//x:run", "/a/:go"):
        assert table.match("POST", path) is None, path
    for name in ("x", "x/y", "a:b/c d"):
        built = table.build("Run", {"name": name})
        assert built.path.endswith(":run") and built.body == {}
        assert table.match("POST", built.path).params == {  # type: ignore[union-attr]
            "name": name
        }
    assert table.build("Run", {"name": "x/y z"}).path == "/v1/x/y%20z:run"


def test_a_tenant_variant_is_the_route_its_template_prefixes() -> None:
    route = _route(Spec("Get", "GET", "/tasks/{id}"), client=0)
    codecs = QueryCodecs({}, {}, {})
    table = RouteTable([route], query=codecs, max_segments=2)
    assert table.build("Get", {"id": "a"}).path == "/tasks/a"
    assert table.tenant_variants == {}
    twin = _route(Spec("Get", "GET", "/{tenant}/tasks/{id}", tenant=True))
    table = RouteTable(
        [route, twin], query=codecs, tenant_field="tenant", max_segments=3
    )
    assert table.tenant_variants == {route: twin}
    # its pieces derived: "/", the tenant, then the route's own
    assert dataclasses.replace(twin, pieces=()).pieces != twin.pieces
    derived = RouteTable(
        [route, dataclasses.replace(twin, pieces=())],
        query=codecs,
        tenant_field="tenant",
        max_segments=3,
    )
    for built in (table, derived):
        assert built.build("Get", {"id": "a", "tenant": "t"}).path == "/t/tasks/a"
    root = _route(Spec("Root", "GET", "/"), client=0)
    root_twin = dataclasses.replace(
        _route(Spec("Root", "GET", "/{tenant}", tenant=True)), pieces=()
    )
    rooted = RouteTable(
        [root, root_twin], query=codecs, tenant_field="tenant", max_segments=1
    )
    assert rooted.build("Root", {}).path == "/"
    assert rooted.build("Root", {"tenant": "t"}).path == "/t"
    for stray in (
        _route(Spec("Get", "GET", "/{tenant}/other/{id}", tenant=True)),
        _route(Spec("Other", "GET", "/{tenant}/tasks/{id}", tenant=True)),
    ):
        with pytest.raises(ValueError, match="a tenant variant of no route"):
            RouteTable([route, stray], query=codecs, max_segments=3)
    with pytest.raises(ValueError, match="no pieces to build"):
        RouteTable(
            [dataclasses.replace(route, pieces=())], query=codecs, max_segments=2
        )


def test_build_tries_the_bindings_in_order() -> None:
    table = make_table(
        [
            Spec("Get", "GET", "/v1/{name=shelves/*}"),
            Spec("Get", "GET", "/{tenant}/v1/{name=shelves/*}", tenant=True),
            Spec("Get", "GET", "/v2/{id}"),
        ]
    )
    table = RouteTable(
        [
            (
                dataclasses.replace(route, client=1)
                if route.template == "/v2/{id}"
                else route
            )
            for route in table.routes
        ],
        query=table.query,
        tenant_field="tenant",
        max_segments=4,
    )
    assert table.build("Get", {"name": "shelves/s"}).path == "/v1/shelves/s"
    assert (
        table.build("Get", {"name": "shelves/s", "tenant": "t"}).path
        == "/t/v1/shelves/s"
    )
    assert table.build("Get", {"id": "i"}).path == "/v2/i"
    assert table.build("Get", {"id": "i", "name": "nope"}).path == "/v2/i"
    # The second binding has no tenant variant: a tenant= argument fails there too,
    # and the first binding's error is the one raised.
    with pytest.raises(ValueError, match="'name' is missing"):
        table.build("Get", {"id": "i"}, tenant="t")


@pytest.mark.parametrize(
    "template",
    sorted({spec.template for spec in A2A_LIKE})
    + ["/", "/tasks/{task_id}/runs/{run.page_id=pages/*}:go", "/a/{deep_path=x/**}"],
)
def test_template_fields_read_what_the_generator_prints(template: str) -> None:
    # What routes.py leaves out of a row, route() reads in the template: the same
    # segments, verb, fields, captures and client pieces as the generator's parser
    # gives, with protoc's json names.
    parsed = parse_template(template)

    def json(path: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(proto_json_name(step) for step in path)

    captures = tuple(
        Capture(
            ".".join(json(v.field_path)),
            v.start,
            v.start + 1 if v.single_segment else v.end,
            v.single_segment,
        )
        for v in parsed.variables
    )
    pieces = tuple(
        (
            piece
            if isinstance(piece, str)
            else ClientPiece(
                ".".join(json(piece.field_path)),
                json(piece.field_path),
                piece.single_segment,
            )
        )
        for piece in parsed.pieces
    )
    fields = _paths.template_fields(template, client=True)
    assert fields.pop("pieces", ()) == (pieces if captures else ())
    assert fields == {
        "segments": tuple(str(s) for s in parsed.segments),
        "custom_verb": parsed.verb or "",
        "path_fields": tuple(capture.field for capture in captures),
        "captures": captures,
        "tenant": captures[:1] == (Capture("tenant", 0, 1),),
    }
    assert "pieces" not in _paths.template_fields(template)

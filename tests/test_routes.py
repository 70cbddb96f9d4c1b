"""Generated routes.py: the table, match precedence, percent rules, build."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import PROTO

A2A_RPCS = [
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "GetExtendedAgentCard",
    "DeleteTaskPushNotificationConfig",
]


def test_a2a_table_has_22_proto_routes_and_2_aliases(a2a: ModuleType) -> None:
    routes = a2a.routes.ROUTES
    assert len(routes) == 24
    proto_routes = [r for r in routes if not r.alias]
    assert len(proto_routes) == 22
    assert sum(r.tenant for r in proto_routes) == 11
    assert sorted({r.rpc for r in routes}) == sorted(A2A_RPCS)
    aliases = [(r.verb, r.template) for r in routes if r.alias]
    assert aliases == [
        ("POST", "/tasks/{id=*}:subscribe"),
        ("POST", "/{tenant}/tasks/{id=*}:subscribe"),
    ]
    # Each tenant route is linked to its plain twin.
    variants = a2a.routes.TENANT_VARIANTS
    assert len(variants) == 12
    for plain, tenant in variants.items():
        assert not plain.tenant and tenant.tenant
        assert tenant.template == "/{tenant}" + plain.template
        assert (plain.rpc, plain.verb, plain.alias) == (
            tenant.rpc,
            tenant.verb,
            tenant.alias,
        )
        assert tenant.path_fields == ("tenant",) + plain.path_fields


def test_a2a_route_fields(a2a: ModuleType) -> None:
    by_key = {(r.verb, r.template): r for r in a2a.routes.ROUTES}
    get_task = by_key[("GET", "/tasks/{id=*}")]
    assert get_task.rpc == "GetTask"
    assert get_task.request_type == "lf.a2a.v1.GetTaskRequest"
    assert get_task.response_type == "lf.a2a.v1.Task"
    assert get_task.body is None and get_task.response_body is None
    assert not get_task.server_streaming
    send = by_key[("POST", "/{tenant}/message:stream")]
    assert send.body == "*" and send.server_streaming and send.tenant
    config = by_key[("DELETE", "/tasks/{task_id=*}/pushNotificationConfigs/{id=*}")]
    assert config.path_fields == ("taskId", "id")
    assert a2a.routes.CONTENT_TYPE == "application/a2a+json"
    assert a2a.routes.ACCEPTED_CONTENT_TYPES == {
        "application/a2a+json",
        "application/json",
    }


@pytest.mark.parametrize(
    ("verb", "path", "rpc", "params"),
    [
        ("POST", "/message:send", "SendMessage", {}),
        ("POST", "/t1/message:send", "SendMessage", {"tenant": "t1"}),
        ("GET", "/tasks/abc", "GetTask", {"id": "abc"}),
        ("GET", "/tasks", "ListTasks", {}),
        ("GET", "/t1/tasks", "ListTasks", {"tenant": "t1"}),
        # Literal beats variable from the left: these are GetTask, not tenant variants.
        ("GET", "/tasks/tasks", "GetTask", {"id": "tasks"}),
        ("GET", "/tasks/extendedAgentCard", "GetTask", {"id": "extendedAgentCard"}),
        (
            "GET",
            "/tasks/tasks/pushNotificationConfigs",
            "ListTaskPushNotificationConfigs",
            {"taskId": "tasks"},
        ),
        ("GET", "/t1/tasks/abc", "GetTask", {"tenant": "t1", "id": "abc"}),
        ("POST", "/tasks/abc:cancel", "CancelTask", {"id": "abc"}),
        ("GET", "/tasks/abc:subscribe", "SubscribeToTask", {"id": "abc"}),
        ("POST", "/tasks/abc:subscribe", "SubscribeToTask", {"id": "abc"}),
        (
            "POST",
            "/t1/tasks/abc:subscribe",
            "SubscribeToTask",
            {"tenant": "t1", "id": "abc"},
        ),
        (
            "POST",
            "/tasks/t/pushNotificationConfigs",
            "CreateTaskPushNotificationConfig",
            {"taskId": "t"},
        ),
        (
            "GET",
            "/tasks/t/pushNotificationConfigs/c",
            "GetTaskPushNotificationConfig",
            {"taskId": "t", "id": "c"},
        ),
        (
            "DELETE",
            "/x/tasks/t/pushNotificationConfigs/c",
            "DeleteTaskPushNotificationConfig",
            {"tenant": "x", "taskId": "t", "id": "c"},
        ),
        ("GET", "/extendedAgentCard", "GetExtendedAgentCard", {}),
        # A colon that is no registered verb belongs to the segment.
        ("GET", "/tasks/a:b", "GetTask", {"id": "a:b"}),
        # Single-segment variables decode fully, %2F included; literals are not decoded.
        ("GET", "/tasks/a%2Fb%20c", "GetTask", {"id": "a/b c"}),
        ("GET", "/tasks/%E2%9C%93", "GetTask", {"id": "\u2713"}),
        ("GET", "/tasks/a%3Acancel", "GetTask", {"id": "a:cancel"}),
        ("GET", "/t%2F1/tasks", "ListTasks", {"tenant": "t/1"}),
        ("GET", "/tasks/a+b", "GetTask", {"id": "a+b"}),
    ],
)
def test_a2a_match(
    a2a: ModuleType, verb: str, path: str, rpc: str, params: dict[str, str]
) -> None:
    found = a2a.routes.match(verb, path)
    assert found is not None
    assert (found.route.rpc, found.params) == (rpc, params)


@pytest.mark.parametrize(
    ("verb", "path", "allowed"),
    [
        (
            "GET",
            "/tasks/x:cancel",
            {"POST"},
        ),  # verb split only for routes with that verb
        ("GET", "/message:send", {"POST"}),
        ("PUT", "/tasks/abc", {"GET"}),
        ("DELETE", "/t1/tasks", {"GET"}),
        ("GET", "/tasks/", set()),  # a variable never matches an empty segment
        ("GET", "//tasks", set()),
        ("GET", "/tasks//x", set()),
        ("GET", "tasks/abc", set()),  # no leading slash
        ("GET", "", set()),
        ("GET", "/tasks/%zz", set()),  # malformed escape
        ("GET", "/tasks/%4", set()),
        ("GET", "/tasks/%FF", set()),  # not UTF-8
        ("GET", "/tasks/%C3", set()),
        ("GET", "/%74asks", set()),  # literals are compared raw, never decoded
        ("POST", "/%74asks/x:cancel", set()),
        ("GET", "/nope", set()),
        ("GET", "/t1/tasks/task-123/artifacts", set()),
        ("GET", "/tasks/:cancel", set()),
    ],
)
def test_a2a_no_match(a2a: ModuleType, verb: str, path: str, allowed: set[str]) -> None:
    assert a2a.routes.match(verb, path) is None
    assert a2a.routes.allowed_verbs(path) == allowed


def test_raw_literal_is_not_decoded(a2a: ModuleType) -> None:
    # "%74asks" is not the literal "tasks", but a tenant variable takes it as it decodes.
    found = a2a.routes.match("GET", "/%74asks/tasks")
    assert (
        found is not None
        and found.route.rpc == "ListTasks"
        and found.params == {"tenant": "tasks"}
    )
    assert a2a.routes.match("GET", "/%74asks") is None


def test_allowed_verbs_for_405(a2a: ModuleType) -> None:
    assert a2a.routes.allowed_verbs("/tasks/abc:subscribe") == {"GET", "POST"}
    assert a2a.routes.allowed_verbs("/tasks/t/pushNotificationConfigs/c") == {
        "GET",
        "DELETE",
    }
    assert a2a.routes.allowed_verbs("/tasks/t/pushNotificationConfigs") == {
        "GET",
        "POST",
    }
    assert a2a.routes.allowed_verbs("/tasks/tasks") == {"GET"}


def test_agent_card_paths(a2a: ModuleType) -> None:
    card = a2a.routes.agent_card_tenant
    assert a2a.routes.AGENT_CARD_PATH == "/.well-known/agent-card.json"
    assert card("/.well-known/agent-card.json") == ""
    assert card("/t1/.well-known/agent-card.json") == "t1"
    assert card("/t%201/.well-known/agent-card.json") == "t 1"
    for path in [
        "/a/b/.well-known/agent-card.json",
        "//.well-known/agent-card.json",
        "/.well-known/agent-card.json/",
        "/t%zz/.well-known/agent-card.json",
        "x",
        "",
    ]:
        assert card(path) is None, path


@pytest.mark.parametrize(
    ("rpc", "request_", "tenant", "verb", "path", "query", "body"),
    [
        (
            "GetTask",
            {"id": "a/b?c#d e%"},
            None,
            "GET",
            "/tasks/a%2Fb%3Fc%23d%20e%25",
            [],
            None,
        ),
        (
            "GetTask",
            {"id": "x", "historyLength": 3},
            None,
            "GET",
            "/tasks/x",
            [("historyLength", "3")],
            None,
        ),
        (
            "GetTask",
            {"id": "x", "tenant": "t 1"},
            None,
            "GET",
            "/t%201/tasks/x",
            [],
            None,
        ),
        ("GetTask", {"id": "x", "tenant": ""}, None, "GET", "/tasks/x", [], None),
        ("GetTask", {"id": "\u00e9"}, "t", "GET", "/t/tasks/%C3%A9", [], None),
        ("SubscribeToTask", {"id": "x"}, None, "POST", "/tasks/x:subscribe", [], None),
        (
            "SendMessage",
            {"message": {"messageId": "m"}},
            "t",
            "POST",
            "/t/message:send",
            [],
            {"message": {"messageId": "m"}},
        ),  # path-bound fields leave the body
        (
            "CancelTask",
            {"id": "x", "metadata": {}},
            None,
            "POST",
            "/tasks/x:cancel",
            [],
            {"metadata": {}},
        ),
        (
            "CreateTaskPushNotificationConfig",
            {"taskId": "t", "url": "u"},
            None,
            "POST",
            "/tasks/t/pushNotificationConfigs",
            [],
            {"url": "u"},
        ),
        (
            "DeleteTaskPushNotificationConfig",
            {"taskId": "t", "id": "c"},
            "x",
            "DELETE",
            "/x/tasks/t/pushNotificationConfigs/c",
            [],
            None,
        ),
        (
            "ListTasks",
            {"pageSize": 5},
            None,
            "GET",
            "/tasks",
            [("pageSize", "5")],
            None,
        ),
    ],
)
def test_a2a_build(
    a2a: ModuleType,
    rpc: str,
    request_: dict[str, Any],
    tenant: str | None,
    verb: str,
    path: str,
    query: list[tuple[str, str]],
    body: Any,
) -> None:
    built = a2a.routes.build(rpc, request_, tenant=tenant)
    assert (built.verb, built.path, built.query, built.body) == (
        verb,
        path,
        query,
        body,
    )


@pytest.mark.parametrize(
    ("rpc", "request_", "tenant", "message"),
    [
        ("GetTask", {}, None, "path field 'id' is missing"),
        ("GetTask", {"id": ""}, None, "path field 'id' is empty"),
        ("GetTask", {"id": "."}, None, "path field 'id' may not be '.' or '..'"),
        ("GetTask", {"id": ".."}, None, "path field 'id' may not be '.' or '..'"),
        (
            "GetTask",
            {"id": ["x"]},
            None,
            "path field 'id' must be a string or an integer",
        ),
        (
            "GetTask",
            {"id": "\ud800"},
            None,
            "path field 'id' is not valid Unicode text",
        ),
        (
            "GetTask",
            {"id": "x", "tenant": "a"},
            "b",
            "tenant='b' differs from the request's tenant 'a'",
        ),
        (
            "ListTasks",
            {},
            "tasks",
            "does not route back to /{tenant}/tasks (it matches rpc GetTask",
        ),
        ("GetExtendedAgentCard", {}, "tasks", "does not route back"),
        ("GetTask", {"id": "x"}, "..", "path field 'tenant' may not be '.' or '..'"),
        ("Nope", {}, None, "unknown rpc 'Nope'"),
    ],
)
def test_a2a_build_refuses(
    a2a: ModuleType,
    rpc: str,
    request_: dict[str, Any],
    tenant: str | None,
    message: str,
) -> None:
    with pytest.raises(ValueError) as info:
        a2a.routes.build(rpc, request_, tenant=tenant)
    assert message in str(info.value)


def test_build_does_not_mutate_the_request(a2a: ModuleType) -> None:
    request = {"id": "x", "tenant": "t", "metadata": {"k": 1}}
    a2a.routes.build("CancelTask", request)
    assert request == {"id": "x", "tenant": "t", "metadata": {"k": 1}}


_ids = st.one_of(
    st.text(min_size=1, max_size=12),
    st.sampled_from(
        [
            "a/b",
            "a?b",
            "a#b",
            "a%b",
            "a:b",
            "..",
            ".",
            "a b",
            "%2F",
            "tasks",
            "extendedAgentCard",
            ":cancel",
            "x:subscribe",
            "\U0001f600",
            "\x00",
        ]
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    rpc=st.sampled_from(A2A_RPCS),
    ident=_ids,
    other=_ids,
    tenant=st.one_of(st.none(), _ids),
)
def test_match_inverts_build(
    a2a: ModuleType, rpc: str, ident: str, other: str, tenant: str | None
) -> None:
    route = next(r for r in a2a.routes.ROUTES if r.rpc == rpc and not r.tenant)
    request = {
        name: (ident if i == 0 else other) for i, name in enumerate(route.path_fields)
    }
    try:
        built = a2a.routes.build(rpc, request, tenant=tenant)
    except ValueError:
        return  # refused: allowed, as long as nothing else escapes
    found = a2a.routes.match(built.verb, built.path)
    assert found is not None
    assert found.route.rpc == rpc
    expected = dict(request, **({"tenant": tenant} if tenant else {}))
    assert found.params == expected
    assert built.path.isascii() and " " not in built.path


@given(
    verb=st.sampled_from(["GET", "POST", "DELETE", "PUT"]), path=st.text(max_size=60)
)
def test_match_never_raises(a2a: ModuleType, verb: str, path: str) -> None:
    found = a2a.routes.match(verb, path)
    allowed = a2a.routes.allowed_verbs(path)
    assert found is None or found.route.verb in allowed


# --- every grammar feature, on proto/features/library.proto ---------------------------


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    import importlib
    import sys

    from .conftest import run_plugin

    out = tmp_path_factory.mktemp("library")
    response, _ = run_plugin(
        PROTO / "features" / "library.proto", "module=library_routes_test"
    )
    assert not response.error
    for file in response.file:
        (out / file.name).parent.mkdir(parents=True, exist_ok=True)
        (out / file.name).write_text(file.content)
    sys.path.insert(0, str(out))
    try:
        return importlib.import_module("library_routes_test.routes")
    finally:
        sys.path.remove(str(out))


@pytest.mark.parametrize(
    ("verb", "path", "rpc", "params"),
    [
        ("GET", "/v1/shelves/s1/books/b1", "GetBook", {"name": "shelves/s1/books/b1"}),
        # Multi-segment variables keep an escaped slash as sent, decode the rest.
        (
            "GET",
            "/v1/shelves/s%2F1/books/b%201",
            "GetBook",
            {"name": "shelves/s%2F1/books/b 1"},
        ),
        ("GET", "/v1/shelves/s1/books", "ListBooks", {"parent": "shelves/s1"}),
        ("POST", "/v1/shelves/s1/books", "CreateBook", {"parent": "shelves/s1"}),
        (
            "PATCH",
            "/v1/shelves/s1/books/b1",
            "UpdateBook",
            {"book.name": "shelves/s1/books/b1"},
        ),
        (
            "PUT",
            "/v1/shelves/s1/books/b1",
            "UpdateBook",
            {"book.name": "shelves/s1/books/b1"},
        ),
        (
            "DELETE",
            "/v1/shelves/s1/books/b1",
            "DeleteBook",
            {"name": "shelves/s1/books/b1"},
        ),
        (
            "POST",
            "/v1/shelves/s1/books/b1:move",
            "MoveBook",
            {"name": "shelves/s1/books/b1"},
        ),
        (
            "GET",
            "/v1/shelfNumbers/42/genres/GENRE_POETRY",
            "GetShelfByNumber",
            {"number": "42", "genre": "GENRE_POETRY"},
        ),
        ("GET", "/v1/files/a/b/c.txt", "ReadFile", {"path": "a/b/c.txt"}),
        ("HEAD", "/v1/files/a", "ReadFile", {"path": "a"}),
        ("GET", "/admin/ping", "Ping", {}),
        ("GET", "/", "Ping", {}),
        ("POST", "/admin/x/y", "Purge", {"path": "x/y"}),
        ("GET", "/v1/books/b1", "GetBook", {"bookId": "b1"}),
    ],
)
def test_library_match(
    library: ModuleType, verb: str, path: str, rpc: str, params: dict[str, str]
) -> None:
    found = library.match(verb, path)
    assert found is not None, (verb, path)
    assert (found.route.rpc, found.params) == (rpc, params)


@pytest.mark.parametrize(
    ("verb", "path"),
    [
        ("GET", "/v1/files"),  # `{path=**}` may not capture nothing
        ("GET", "/v1/files/a//b"),
        ("GET", "/v1/shelves/s1/books/b1/x"),
        ("GET", "/v1/other/s1/books/b1"),  # the variable's own literals must match
        ("POST", "/v1/shelves/s1/books/b1:nope"),
    ],
)
def test_library_no_match(library: ModuleType, verb: str, path: str) -> None:
    assert library.match(verb, path) is None


@pytest.mark.parametrize(
    ("path", "template", "params"),
    [
        # A custom verb after `**` (http.proto: `**` is last "except the Verb"), as
        # grpc-gateway (runtime/pattern.go, mux.go) and Envoy's path_matcher take it:
        # the verb is split off the last segment, `**` takes the segments before it.
        ("/admin/x:now", "/admin/{path=**}:now", {"path": "x"}),
        ("/admin/x/y:now", "/admin/{path=**}:now", {"path": "x/y"}),
        ("/admin/x%2Fy/z%20:now", "/admin/{path=**}:now", {"path": "x%2Fy/z "}),
        ("/admin/a:b/c:now", "/admin/{path=**}:now", {"path": "a:b/c"}),
        # Without the verb, or with one no route has, the plain `**` route.
        ("/admin/x/y", "/admin/{path=**}", {"path": "x/y"}),
        ("/admin/x/y:later", "/admin/{path=**}", {"path": "x/y:later"}),
        ("/admin/x:now:now", "/admin/{path=**}:now", {"path": "x:now"}),
    ],
)
def test_library_custom_verb_after_deep_wildcard(
    library: ModuleType, path: str, template: str, params: dict[str, str]
) -> None:
    found = library.match("POST", path)
    assert found is not None, path
    assert (found.route.template, found.params) == (template, params)
    assert library.allowed_verbs(path) == {"POST"}


@pytest.mark.parametrize(
    "path", ["/admin:now", "/admin/:now", "/admin//x:now", "/admin/x/:now"]
)
def test_library_custom_verb_after_deep_wildcard_needs_segments(
    library: ModuleType, path: str
) -> None:
    assert library.match("POST", path) is None


def test_library_build_picks_the_first_binding_the_request_fits(
    library: ModuleType,
) -> None:
    # GetBook: `/v1/{name=shelves/*/books/*}`, then `/v1/books/{book_id}`.
    assert library.build("GetBook", {"bookId": "b 1"}).path == "/v1/books/b%201"
    both = library.build("GetBook", {"name": "shelves/s/books/b", "bookId": "b"})
    assert (both.path, both.query) == ("/v1/shelves/s/books/b", [("bookId", "b")])
    # A name that does not fit its variable's pattern falls to the next binding.
    short = library.build("GetBook", {"name": "authors/a", "bookId": "b"})
    assert (short.path, short.query) == ("/v1/books/b", [("name", "authors/a")])
    for built in (both, short):
        found = library.match(built.verb, built.path)
        assert found is not None and found.route.rpc == "GetBook"
    # Neither fits: the first binding's error.
    with pytest.raises(ValueError, match="path field 'name' is missing"):
        library.build("GetBook", {})
    with pytest.raises(ValueError, match="does not route back"):
        library.build("GetBook", {"name": "authors/a/books/b"})
    # Another verb on the same template is never tried: PATCH stays UpdateBook's.
    assert (
        library.build("UpdateBook", {"book": {"name": "shelves/s/books/b"}}).verb
        == "PATCH"
    )
    # ReadFile's HEAD rule is not tried either; Ping's `/` is, but `/admin/ping` fits first.
    assert library.build("ReadFile", {"path": "a/b"}).verb == "GET"
    assert library.build("Ping", {}).path == "/admin/ping"


@pytest.mark.parametrize(
    "request_",
    [
        {"book_id": "b1"},
        {"name": "shelves/s/books/b", "book_id": "b"},
        {"name": "authors/a", "book_id": "b"},
        {"name": "shelves/s/books/b"},
        {"name": "shelves/s/books/b", "book_id": ""},
        {"name": "", "book_id": "b"},
    ],
)
def test_library_build_chooses_as_google_api_core(
    library: ModuleType, request_: dict[str, str]
) -> None:
    """Differential: google-api-core's ``path_template.transcode`` (what gapic clients
    use to pick an http rule) sends the same path for the same request."""
    path_template = pytest.importorskip("google.api_core.path_template")
    options = [
        {"method": "get", "uri": "/v1/{name=shelves/*/books/*}"},
        {"method": "get", "uri": "/v1/books/{book_id}"},
    ]
    expected = path_template.transcode(options, **request_)["uri"]
    json_request = {"bookId" if k == "book_id" else k: v for k, v in request_.items()}
    assert library.build("GetBook", json_request).path == expected


def test_library_build(library: ModuleType) -> None:
    built = library.build("GetBook", {"name": "shelves/s 1/books/b?1"})
    assert built.path == "/v1/shelves/s%201/books/b%3F1"
    updated = library.build(
        "UpdateBook", {"book": {"name": "shelves/s/books/b", "title": "T"}}
    )
    assert (updated.verb, updated.path, updated.body) == (
        "PATCH",
        "/v1/shelves/s/books/b",
        {"title": "T"},
    )
    created = library.build(
        "CreateBook", {"parent": "shelves/s", "book": {"title": "T"}, "requestId": "r"}
    )
    assert created.body == {"title": "T"} and created.query == [("requestId", "r")]
    number = library.build(
        "GetShelfByNumber", {"number": "42", "genre": "GENRE_POETRY"}
    )
    assert number.path == "/v1/shelfNumbers/42/genres/GENRE_POETRY"
    with pytest.raises(ValueError, match="does not route back"):
        library.build(
            "GetBook", {"name": "authors/a/books/b"}
        )  # not the variable's pattern
    with pytest.raises(ValueError, match="may not be"):
        library.build("GetBook", {"name": "shelves/../books/b"})


def test_tenant_field_option_synthesises_variants(
    load_package: Callable[..., ModuleType],
) -> None:
    plain = load_package(PROTO / "features" / "tenancy.proto")
    assert [(r.verb, r.template, r.tenant) for r in plain.routes.ROUTES] == [
        ("GET", "/items/{id}", False),
        ("PUT", "/items/{id}", False),
        ("PUT", "/{tenant}/items/{id}", True),
        ("GET", "/count/{id}", False),
    ]
    synthesised = load_package(
        PROTO / "features" / "tenancy.proto", "tenant_field=tenant"
    )
    assert [(r.verb, r.template, r.tenant) for r in synthesised.routes.ROUTES] == [
        ("GET", "/items/{id}", False),
        ("GET", "/{tenant}/items/{id}", True),
        ("PUT", "/items/{id}", False),
        ("PUT", "/{tenant}/items/{id}", True),  # the explicit one, not a second copy
        ("GET", "/count/{id}", False),  # NoTenant has no tenant field
    ]
    built = synthesised.routes.build("GetItem", {"id": "i", "tenant": "acme"})
    assert built.path == "/acme/items/i"
    found = synthesised.routes.match("GET", "/acme/items/i")
    assert found.params == {"tenant": "acme", "id": "i"}


def test_public_functions_take_the_contract_keyword_names(a2a: ModuleType) -> None:
    """Callers may use the parameter names DESIGN.md gives."""
    routes, query, jsonrpc = a2a.routes, a2a.query, a2a.jsonrpc
    assert routes.match(verb="GET", raw_path="/tasks").route.rpc == "ListTasks"
    assert routes.allowed_verbs(raw_path="/tasks") == {"GET"}
    assert routes.agent_card_tenant(raw_path="/.well-known/agent-card.json") == ""
    assert (
        routes.build(rpc="GetTask", request={"id": "x"}, tenant="t").path
        == "/t/tasks/x"
    )
    route, request = routes.transcode(
        verb="GET", raw_path="/tasks", query="pageSize=5", body=None
    )
    assert request == {"pageSize": 5}
    assert query.decode(rpc="ListTasks", query="pageSize=5", unknown="reject") == {
        "pageSize": 5
    }
    assert query.encode(rpc="ListTasks", request={"pageSize": 5}) == [("pageSize", "5")]
    assert (
        jsonrpc.parse_request(
            payload='{"jsonrpc":"2.0","id":1,"method":"GetTask"}', tenant=None
        ).id
        == 1
    )
    assert jsonrpc.endpoint_tenant(path="/t1", base="/") == "t1"
    assert (
        jsonrpc.request(
            method="GetTask", params={}, id=1, tenant=None, tenant_in_path=False
        )[0]
        == "/"
    )
    error = jsonrpc.JsonRpcError(code=-32603, message="m", data=None)
    assert jsonrpc.failure(id=1, error=error)["error"] == {
        "code": -32603,
        "message": "m",
    }
    assert jsonrpc.success(id=1, result={})["result"] == {}


def test_python_keywords_as_field_and_rpc_names(
    load_package: Callable[..., ModuleType],
) -> None:
    package = load_package(PROTO / "features" / "keywords.proto")
    built = package.routes.build("Import", {"from": "a b", "class": "c", "lambda": 3})
    assert (built.path, built.query) == (
        "/items/a%20b",
        [("class", "c"), ("lambda", "3")],
    )
    route, request = package.routes.transcode(
        "GET", "/items/x", "class=c&lambda=4&state=1"
    )
    assert (route.rpc, request) == (
        "Import",
        {"class": "c", "lambda": 4, "state": "STATE_ON", "from": "x"},
    )
    assert (
        package.routes.transcode("POST", "/items/x:none", "", {"from": "f"})[0].rpc
        == "None"
    )
    assert "from" in package.query.ImportQuery.__annotations__

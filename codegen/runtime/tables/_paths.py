"""HTTP+JSON routes: the path split, the route tree, ``match``, ``build``, ``transcode``.

The generated ``routes.py`` holds the tables (every route, its segments and captures, the
route a client sends for each rpc) and hands them to ``RouteTable``; everything here is
the same for every service. Paths follow google/api/http.proto: a single-segment
variable's value is percent-encoded in full and fully decoded; a multi-segment one keeps
its ``/`` and is decoded except for ``%2F``; literals are compared as sent. Where several
routes match, the one with a literal at the first position where their templates differ
wins (a literal beats ``*``, which beats ``**``), and at equal shape the first in the
table (the plain route before its ``/{tenant}`` variant).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, NamedTuple, TypeVar, Union
from urllib.parse import quote, unquote, unquote_to_bytes

from ._compiling import compiled
from ._query import QueryCodecs, QueryError, QueryInput, Unknown, json_name
from ._quoting import excerpt

__all__ = [
    "Capture",
    "ClientPiece",
    "HttpRequest",
    "Match",
    "QueryPairs",
    "Route",
    "RouteNotFound",
    "RouteTable",
    "Rpc",
    "decode_segment",
    "route",
    "split_path",
    "template_fields",
    "tenant_of",
    "well_formed",
]


class Capture(NamedTuple):
    """Where one path field sits among the segments of a matched path.

    ``end`` is the index after its last segment, None when it runs to the end (``**``);
    ``codec`` names the query codec of a field that is not a plain string (``""`` for a
    string) and ``enum`` the enum type of the ``enum`` codec.
    """

    field: str
    start: int
    end: int | None
    single_segment: bool = True
    codec: str = ""
    enum: str = ""


class ClientPiece(NamedTuple):
    """A path field in the template a client fills in."""

    name: str  # dotted json name
    json_path: tuple[str, ...]
    single_segment: bool


Name = TypeVar("Name", bound=str, covariant=True)
"""An rpc name: in a generated package, its ``RpcName`` literal."""


@dataclass(frozen=True)
class Route(Generic[Name]):
    """One HTTP route of an rpc, with all that matching and building it needs.

    ``template`` is the path template as written in the proto; ``path_fields`` are the json
    names of the fields it binds, in order; ``body`` is ``"*"``, the json name of the body
    field, or None. ``tenant`` marks a ``/{tenant}`` variant, ``alias`` a verb the
    generator added beside the proto's own, ``deprecated`` an rpc the proto marks so.
    ``server_streaming`` and ``client_streaming`` are the rpc's kind: a client stream's
    body holds its requests (a JSON array, or newline-delimited JSON), each merged with
    the path and query fields as one request is.

    How a server matches it: its raw ``segments`` (``*`` and ``**`` for wildcards), its
    ``custom_verb`` (``""`` for none) and its ``captures``. How a client builds it:
    ``pieces`` (raw text, and the fields to fill in; empty for a route no client sends,
    for a template without variables, which is its own path, and for a ``/{tenant}``
    variant: ``/``, the tenant, then its route's pieces), ``recheck`` (the
    built path must be matched again, since another route could take it or a value
    could break out of its variable), and ``client``, its place among the routes
    ``build`` tries for its rpc (-1: not one of them). A ``/{tenant}`` variant is the
    route of the same rpc and verb whose template is its own without the first
    segment, and is built in place of that route for a request with a tenant. These
    follow from the template, so they take no part in comparing routes.
    """

    rpc: Name
    verb: str
    template: str
    path_fields: tuple[str, ...]
    body: str | None
    response_body: str | None
    request_type: str
    response_type: str
    server_streaming: bool
    tenant: bool
    alias: bool
    deprecated: bool = False
    client_streaming: bool = field(default=False, kw_only=True)
    segments: tuple[str, ...] = field(
        default=(), repr=False, compare=False, kw_only=True
    )
    custom_verb: str = field(default="", repr=False, compare=False, kw_only=True)
    captures: tuple[Capture, ...] = field(
        default=(), repr=False, compare=False, kw_only=True
    )
    pieces: tuple[str | ClientPiece, ...] = field(
        default=(), repr=False, compare=False, kw_only=True
    )
    recheck: bool = field(default=False, repr=False, compare=False, kw_only=True)
    client: int = field(default=-1, repr=False, compare=False, kw_only=True)


@dataclass(frozen=True)
class Rpc(Generic[Name]):
    """One rpc: ``name`` as written in the proto (its JSON-RPC method name too), the
    full name of its ``service``, the full names of its request and response
    messages, ``method``, the name of the handler method that answers it; whether it
    streams its answer, takes a stream of requests (both: a bidirectional rpc), is
    deprecated. ``route`` makes its HTTP routes."""

    name: Name
    service: str
    request_type: str
    response_type: str
    method: str
    server_streaming: bool = False
    client_streaming: bool = False
    deprecated: bool = False


def route(rpc: Rpc[Name], verb: str, template: str, **fields: Any) -> Route[Name]:
    """The route of ``rpc`` with ``verb`` and ``template``: a row of a generated
    ``ROUTES``, its types taken from the rpc's record, its other ``fields`` (those of
    ``Route``) given where they differ from a plain route's or from what
    ``template_fields`` reads in the template."""
    plain = {"path_fields": (), "body": None, "response_body": None, "tenant": False}
    derived = template_fields(template, client=fields.get("client", -1) >= 0)
    return Route(
        rpc.name,
        verb,
        template,
        request_type=rpc.request_type,
        response_type=rpc.response_type,
        server_streaming=rpc.server_streaming,
        deprecated=rpc.deprecated,
        client_streaming=rpc.client_streaming,
        **{**plain, "alias": False, **derived, **fields},
    )


_VARIABLE = re.compile(r"(\{[^}]*\})")


def template_fields(template: str, *, client: bool = False) -> dict[str, Any]:
    """What a path template (valid: the generator checked it) says of its route: the
    ``segments``, ``custom_verb``, ``path_fields`` and ``captures``, each variable's
    field by protoc's json names; ``tenant`` for a template whose first segment is
    ``{tenant}``; for a route a ``client`` builds, its ``pieces``. What it cannot say
    (a json name the proto sets, a typed field's codec, another tenant field),
    ``routes.py`` gives."""
    path, _, verb = template.partition(":")  # a literal holds no ":"
    segments: list[str] = []
    captures: list[Capture] = []
    pieces: list[str | ClientPiece] = []
    text = ""  # the raw text since the last variable
    for part in _VARIABLE.split(path):
        if not part.startswith("{"):
            segments += [segment for segment in part.split("/") if segment]
            text += part
            continue
        name, _, pattern = part[1:-1].partition("=")
        json_path = tuple(json_name(step) for step in name.split("."))
        start, single = len(segments), pattern in ("", "*")
        segments += pattern.split("/") if pattern else ["*"]
        end = None if segments[-1] == "**" else len(segments)
        captures.append(Capture(".".join(json_path), start, end, single))
        pieces += [text, ClientPiece(captures[-1].field, json_path, single)]
        text = ""
    pieces.append(text + (":" + verb if verb else ""))
    fields: dict[str, Any] = {
        "segments": tuple(segments),
        "custom_verb": verb,
        "path_fields": tuple(capture.field for capture in captures),
        "captures": tuple(captures),
        "tenant": captures[:1] == [Capture("tenant", 0, 1)],
    }
    if client and captures:
        fields["pieces"] = tuple(piece for piece in pieces if piece != "")
    return fields


Pieces = tuple[Union[str, ClientPiece], ...]
"""A path as a client fills it in: raw text, and the fields that go between."""


class _Choice(NamedTuple):
    """A route ``build`` tries, the pieces it is built from, and its tenant
    variant's (the variant's own, or ``/``, the tenant and the route's)."""

    route: Route[Any]
    pieces: Pieces
    variant: Route[Any] | None
    variant_pieces: Pieces


@dataclass(slots=True)
class Match(Generic[Name]):
    """A matched route and its path parameters (json field name to decoded value)."""

    route: Route[Name]
    params: dict[str, str]
    # Where the route ends in its table's tree, for ``RouteTable.request``.
    target: _Target | None = field(default=None, repr=False, compare=False)
    # The path matched, as sent, for ``RouteTable.raw_params``.
    raw_path: str = field(default="", repr=False, compare=False)


QueryPairs = list[tuple[str, Union[str, int, float, bool, None]]]
"""Query pairs as ``HttpRequest`` holds them. The values are always ``str``; the
annotation is the one httpx gives its ``params`` (a list is invariant), so
``httpx.request(..., params=built.query)`` passes ``mypy --strict`` as it is."""


@dataclass(slots=True)
class HttpRequest:
    """What a client sends: ``path`` is percent-encoded; ``query`` pairs and ``body`` are
    decoded values for the HTTP library to encode; ``headers`` are the protocol's own
    (``A2A-Version``, ``Content-Type``) where the binding has any."""

    verb: str
    path: str
    query: QueryPairs
    body: dict[str, Any] | None
    headers: list[tuple[str, str]] = field(default_factory=list)


_MALFORMED_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_ENCODED_SLASH = re.compile(r"(%2[Ff])")
_UNRESERVED = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~"
)


def well_formed(raw: str) -> bool:
    """Every ``%`` starts a hex escape and the escapes decode to UTF-8."""
    if "%" not in raw:
        return True
    if _MALFORMED_ESCAPE.search(raw):
        return False
    try:
        unquote_to_bytes(raw).decode("utf-8")
    except UnicodeError:
        return False
    return True


def decode_segment(raw: str, single_segment: bool = True) -> str:
    """Percent-decode a captured value: fully for a single segment; a multi-segment
    value keeps ``%2F`` (an escaped ``/``) as sent. ``raw`` must be ``well_formed``."""
    if "%" not in raw:
        return raw
    if single_segment:
        return unquote(raw)
    parts = _ENCODED_SLASH.split(raw)
    return "".join(part if i % 2 else unquote(part) for i, part in enumerate(parts))


def split_path(
    raw_path: str, custom_verbs: frozenset[str], max_segments: int
) -> tuple[list[str], str] | None:
    """The raw segments and the custom verb of a path; None when no route can match it
    (no leading ``/``, too many segments, a malformed escape, bytes that are not UTF-8).
    The colon starts a custom verb only when some route has that verb."""
    if raw_path[:1] != "/" or raw_path.count("/") > max_segments:
        return None
    if "%" in raw_path and not well_formed(raw_path):
        return None
    segments = raw_path[1:].split("/") if raw_path != "/" else []
    if custom_verbs and segments and ":" in segments[-1]:
        head, _, custom_verb = segments[-1].rpartition(":")
        if custom_verb in custom_verbs:
            segments[-1] = head
            return segments, custom_verb
    return segments, ""


_WILDCARD, _DEEP = 1, 2  # the choices a walk can come back to at a node


class _Target(NamedTuple):
    """A route where it ends in the tree, with its captures."""

    route: Route[Any]
    captures: tuple[Capture, ...]
    # Some capture is typed or nested (``book.name``): the params are not the request.
    merge: bool
    # (field, segment index) of each capture when all are single segments, else None.
    singles: tuple[tuple[str, int], ...] | None
    # Each capture's field as its path of names in the request.
    paths: tuple[tuple[str, ...], ...]


_Shape = Union[int, tuple[int, str]]
"""A path's shape in the flat index: its segment count, with its custom verb if any."""


def _wildcards(segments: tuple[str, ...]) -> tuple[bool, ...]:
    """Where a template has ``*``: sorted by it, the templates of one shape come in
    the order the walk reaches them (a literal before ``*`` at the first position
    where two differ)."""
    return tuple(segment == "*" for segment in segments)


_ShapeMatch = Callable[[list[str], bool], "tuple[_Target, dict[str, str]] | None"]
"""The flat index's routes of one verb and shape, compiled: given a path's segments
(its custom verb split off) and whether the path holds an escape, the target of the
first route whose literals fit and the path's values by field, or None."""


class _Node:
    """One level of the route tree: children by literal segment, by ``*`` and by ``**``,
    and the routes that end here by (custom verb, HTTP verb)."""

    __slots__ = ("literals", "wildcard", "deep", "targets")

    def __init__(self) -> None:
        self.literals: dict[str, _Node] = {}
        self.wildcard: _Node | None = None
        self.deep: _Node | None = None
        self.targets: dict[tuple[str, str], _Target] = {}


class RouteNotFound(LookupError):
    """No route for a verb and path: a 404 when ``allowed_verbs`` is empty, otherwise a
    405 whose Allow header lists them (worked out on first use). Raised as
    ``RouteNotFound(verb, raw_path)``."""

    _allowed: frozenset[str] | None = None
    _table: RouteTable[str] | None = None  # set by the subclass each table raises

    @property
    def verb(self) -> str:
        """The request's verb."""
        return str(self.args[0])

    @property
    def raw_path(self) -> str:
        """The request's path, as sent."""
        return str(self.args[1])

    @property
    def allowed_verbs(self) -> frozenset[str]:
        """The verbs some route accepts for this path."""
        if self._allowed is None:
            table = self._table
            self._allowed = table.allowed_verbs(self.raw_path) if table else frozenset()
        return self._allowed

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as a plain ``RouteNotFound`` that keeps its allowed verbs (the
        class a table raises is its own)."""
        return (_route_not_found, (self.verb, self.raw_path, self.allowed_verbs))

    @property
    def status(self) -> int:
        """The HTTP status to answer with: 404 or 405."""
        return 405 if self.allowed_verbs else 404

    def __str__(self) -> str:
        verb = excerpt(self.verb, quoted=False)
        where = f"{verb} {excerpt(self.raw_path, quoted=False)}"
        if self.allowed_verbs:
            allowed = ", ".join(sorted(self.allowed_verbs))
            return f"{where}: {verb} is not allowed here (allowed: {allowed})"
        return f"{where}: no route has this path"


def _route_not_found(
    verb: str, raw_path: str, allowed: frozenset[str]
) -> RouteNotFound:
    error = RouteNotFound(verb, raw_path)
    error._allowed = allowed
    return error


def _spanning_values(target: _Target, segments: list[str]) -> dict[str, str]:
    """The path's values of a route with a capture of several segments."""
    params: dict[str, str] = {}
    for capture in target.captures:
        if capture.single_segment:
            raw = segments[capture.start]
            params[capture.field] = unquote(raw) if "%" in raw else raw
        else:
            raw = "/".join(segments[capture.start : capture.end])
            params[capture.field] = decode_segment(raw, False)
    return params


def _path_values(target: _Target, segments: list[str], escaped: bool) -> dict[str, str]:
    """The path's values of the route ``target`` for ``segments`` (``escaped``: the
    path holds a ``%``)."""
    singles = target.singles
    if singles is None:
        return _spanning_values(target, segments)
    if escaped:
        return {name: decode_segment(segments[start]) for name, start in singles}
    return {name: segments[start] for name, start in singles}


_Literals = tuple[str, ...]
_ShapeGroup = tuple[tuple[int, ...], Sequence[tuple[_Literals, _Target]]]
"""The routes of one shape with literals at the same positions: the positions, and
each route's literals there (no two alike) with its target."""


def _shape_match(groups: Sequence[_ShapeGroup]) -> _ShapeMatch:
    """One entry of the flat index compiled (see ``_compiling``): ``groups`` in the
    order they are tried. A group of one route compares its literals and builds the
    values at once; a larger one finds its route by its literals in a dict, so a
    shape that many routes share costs one lookup, not one test per route. At most
    one route of a group fits a path; a group with no literal takes every path left,
    so none after it is written."""
    bound: dict[str, Any] = {"value": decode_segment, "values": _path_values}
    body = ["def run(s, escaped):"]
    for k, (positions, routes) in enumerate(groups):
        if len(routes) > 1:
            bound[f"g{k}"] = {
                literals[0] if len(positions) == 1 else literals: target
                for literals, target in routes
            }
            key = ", ".join(f"s[{at}]" for at in positions)
            body += [
                f"    t = g{k}.get({key if len(positions) == 1 else f'({key},)'})",
                "    if t is not None:",
                "        return t, values(t, s, escaped)",
            ]
            continue
        ((literals, target),) = routes
        bound[f"t{k}"] = target
        test = []
        for j, (at, literal) in enumerate(zip(positions, literals)):
            bound[f"l{k}_{j}"] = literal
            test.append(f"s[{at}] == l{k}_{j}")
        indent = "    "
        if test:
            body.append(f"    if {' and '.join(test)}:")
            indent = "        "
        if target.singles is None:  # a variable of several segments
            body.append(f"{indent}return t{k}, values(t{k}, s, escaped)")
        elif not target.singles:
            body.append(f"{indent}return t{k}, {{}}")
        else:
            for j, (name, _) in enumerate(target.singles):
                bound[f"f{k}_{j}"] = name
            raw = ", ".join(
                f"f{k}_{j}: s[{start}]" for j, (_, start) in enumerate(target.singles)
            )
            decoded = ", ".join(
                f"f{k}_{j}: value(s[{start}])"
                for j, (_, start) in enumerate(target.singles)
            )
            body += [
                f"{indent}if escaped:",
                f"{indent}    return t{k}, {{{decoded}}}",
                f"{indent}return t{k}, {{{raw}}}",
            ]
        if not test:
            break
    else:
        body.append("    return None")
    made: _ShapeMatch = compiled("<routes of one shape>", body, bound)
    return made


def _target(route: Route[Any]) -> _Target:
    """Where ``route`` ends in the tree, with how its path values are read."""
    captures = route.captures
    return _Target(
        route,
        captures,
        any(c.codec or "." in c.field for c in captures),
        (
            tuple((c.field, c.start) for c in captures)
            if all(c.single_segment for c in captures)
            else None
        ),
        tuple(tuple(c.field.split(".")) for c in captures),
    )


def _tenant_variants(routes: Sequence[Route[Name]]) -> dict[Route[Name], Route[Name]]:
    """Each plain route to its ``/{tenant}`` variant; ``ValueError`` when two routes
    have one verb and template, or a tenant variant prefixes no route of its rpc."""
    by_key = {(route.verb, route.template): route for route in routes}
    if len(by_key) != len(routes):
        raise ValueError("two routes have one verb and template")
    variants: dict[Route[Name], Route[Name]] = {}
    for route in routes:
        if not route.tenant:
            continue
        plain = by_key.get((route.verb, _without_tenant(route.template)))
        if plain is None or plain.rpc != route.rpc or plain.tenant:
            raise ValueError(
                f"{route.verb} {route.template}: a tenant variant of no route"
            )
        variants.setdefault(plain, route)
    return variants


def _client_choices(
    routes: Sequence[Route[Name]],
    variants: Mapping[Route[Name], Route[Name]],
    tenant_field: str,
) -> dict[str, tuple[_Choice, ...]]:
    """The routes ``build`` tries for each rpc, in order, with their pieces and their
    tenant variants'; ``ValueError`` for a route with variables and no pieces."""
    built: dict[str, list[_Choice]] = {}
    for route in sorted((r for r in routes if r.client >= 0), key=lambda r: r.client):
        if route.path_fields and not route.pieces:
            raise ValueError(f"{route.verb} {route.template}: no pieces to build")
        pieces = route.pieces or (route.template,)
        variant = variants.get(route)
        tenant_pieces: Pieces = ()
        if variant is not None:
            tenant_pieces = variant.pieces or (
                "/",
                ClientPiece(tenant_field, (tenant_field,), True),
                *(pieces if route.template != "/" else ()),
            )
        built.setdefault(route.rpc, []).append(
            _Choice(route, pieces, variant, tenant_pieces)
        )
    return {rpc: tuple(choices) for rpc, choices in built.items()}


def _flat_index(
    targets: Sequence[_Target],
) -> dict[str, dict[_Shape, _ShapeMatch]] | None:
    """Without ``**`` a path's segment count is its routes' length: per verb, then per
    (length, custom verb), the routes in the walk's order, grouped by where their
    literals are and compiled into one function (``_shape_match``) whose first fit is
    the walk's answer. None when some template has ``**`` or an empty literal (a path
    with an empty segment, which no ``*`` takes, could still match: the walk decides).
    """
    if any("**" in t.route.segments or "" in t.route.segments for t in targets):
        return None
    found: dict[str, dict[_Shape, dict[tuple[str, ...], _Target]]] = {}
    for target in targets:
        segments, custom_verb = target.route.segments, target.route.custom_verb
        key: _Shape = (len(segments), custom_verb) if custom_verb else len(segments)
        by_shape = found.setdefault(target.route.verb, {}).setdefault(key, {})
        by_shape.setdefault(segments, target)  # first wins
    compiled_shapes: dict[str, dict[_Shape, _ShapeMatch]] = {}
    for verb, keys in found.items():
        for key, shapes in keys.items():
            groups: dict[tuple[int, ...], list[tuple[_Literals, _Target]]] = {}
            for segments in sorted(shapes, key=_wildcards):  # stable: table order
                positions = tuple(i for i, s in enumerate(segments) if s != "*")
                literals = tuple(segments[i] for i in positions)
                groups.setdefault(positions, []).append((literals, shapes[segments]))
            compiled_shapes.setdefault(verb, {})[key] = _shape_match(
                list(groups.items())
            )
    return compiled_shapes


def _static_index(targets: Sequence[_Target]) -> dict[str, dict[str, _Target]]:
    """The routes without a variable or a wildcard, by their whole raw path, then
    by verb: such a route is the most specific of all for the one path that
    matches it (a literal beats a variable wherever they differ), so that path
    needs no split and no walk."""
    static: dict[str, dict[str, _Target]] = {}
    for target in targets:
        segments = target.route.segments
        if "*" in segments or "**" in segments:
            continue
        path = "/" + "/".join(segments)
        if target.route.custom_verb:
            path += ":" + target.route.custom_verb
        if well_formed(path):
            static.setdefault(path, {}).setdefault(target.route.verb, target)
    return static


class _Tree:
    """The routes as a tree of segments: a literal child, a ``*`` child and a ``**``
    child a node, and at each node the routes ending there by (custom verb, verb)."""

    def __init__(self, targets: Sequence[_Target]) -> None:
        self.root = _Node()
        for target in targets:
            node = self.root
            for segment in target.route.segments:
                if segment == "*":
                    node.wildcard = node.wildcard or _Node()
                    node = node.wildcard
                elif segment == "**":
                    node.deep = node.deep or _Node()
                    node = node.deep
                else:
                    node = node.literals.setdefault(segment, _Node())
            key = (target.route.custom_verb, target.route.verb)
            node.targets.setdefault(key, target)

    def walk(
        self, segments: list[str], key: tuple[str, str], verbs: set[str] | None
    ) -> _Target | None:
        """The one walk of the tree, depth first: a literal child before ``*`` before
        ``**``, so the first target found for ``key`` is the most specific route. With
        ``verbs`` given, it walks every branch instead and collects the HTTP verbs of
        the targets with ``key``'s custom verb. Iterative: a branch not taken is kept in
        ``pending`` as (node, index, next choice), ``_WILDCARD`` or ``_DEEP``."""
        count = len(segments)
        node, index = self.root, 0
        pending: list[tuple[_Node, int, int]] = []
        while True:
            # Down: at each node take the literal child, keeping the other choices.
            if index == count:
                if verbs is None:
                    target = node.targets.get(key)
                    if target is not None:
                        return target
                elif node.targets:
                    verbs.update(v for (c, v) in node.targets if c == key[0])
                choice = _DEEP
            else:
                segment = segments[index]
                child = node.literals.get(segment)
                if child is not None:
                    if node.wildcard is not None or node.deep is not None:
                        pending.append((node, index, _WILDCARD))
                    node, index = child, index + 1
                    continue
                choice = _WILDCARD
            # Across: the ``*`` of this node, then its ``**``, then back up.
            while True:
                if choice == _WILDCARD:
                    wildcard = node.wildcard
                    if wildcard is not None and segments[index]:
                        if node.deep is not None:
                            pending.append((node, index, _DEEP))
                        node, index = wildcard, index + 1
                        break
                if node.deep is not None:
                    found = self._deep(node.deep, segments, index, key, verbs)
                    if found is not None:
                        return found
                if not pending:
                    return None
                node, index, choice = pending.pop()

    @staticmethod
    def _deep(
        deep: _Node,
        segments: list[str],
        index: int,
        key: tuple[str, str],
        verbs: set[str] | None,
    ) -> _Target | None:
        """The route ending in ``**`` below a node for the rest of the path: every
        remaining segment must be non-empty, and no variable may capture nothing."""
        if not all(segments[index:]):
            return None
        count = len(segments)
        if verbs is None:
            target = deep.targets.get(key)
            if target is not None and all(c.start < count for c in target.captures):
                return target
            return None
        verbs.update(
            v
            for (c, v), found in deep.targets.items()
            if c == key[0] and all(x.start < count for x in found.captures)
        )
        return None


class RouteTable(Generic[Name]):
    """The routes of one package, their tree, and the routes a client builds for each
    rpc.

    Each ``Route`` carries how it is matched and built; ``tenant_variants`` maps a
    plain route to its ``/{tenant}`` variant, and ``build`` tries an rpc's routes whose
    ``client`` is set, in that order. ``tenant_field`` is the json name of the field
    the tenant variants bind (``""`` when there are none). ``max_segments`` bounds the
    segments a matching path can have. ``routes_by_rpc`` holds each rpc's routes in
    table order. ``ValueError`` when two routes have one verb and template, a tenant
    variant prefixes no route of its rpc, or a route a client builds has variables
    and no pieces.
    """

    def __init__(
        self,
        routes: Sequence[Route[Name]],
        *,
        query: QueryCodecs,
        tenant_field: str = "",
        max_segments: int,
        headers: Callable[[bool], list[tuple[str, str]]] | None = None,
    ) -> None:
        self.routes = tuple(routes)
        self.tenant_variants: Mapping[Route[Name], Route[Name]] = MappingProxyType(
            _tenant_variants(self.routes)
        )
        grouped: dict[str, list[Route[Name]]] = {}
        for route in self.routes:
            grouped.setdefault(route.rpc, []).append(route)
        self.routes_by_rpc: Mapping[str, tuple[Route[Name], ...]] = MappingProxyType(
            {rpc: tuple(found) for rpc, found in grouped.items()}
        )
        self.query = query
        self.tenant_field = tenant_field
        self.max_segments = max_segments
        self.custom_verbs = frozenset(
            r.custom_verb for r in self.routes if r.custom_verb
        )
        self._headers = headers
        targets = [_target(route) for route in self.routes]
        self._tree = _Tree(targets)
        self._client = _client_choices(self.routes, self.tenant_variants, tenant_field)
        self._flat = _flat_index(targets)
        self._static = _static_index(targets)
        table = self

        class _NotFound(RouteNotFound):
            # The error this table raises: one class per table, so that raising it
            # sets no attribute (as Django gives each model its own DoesNotExist).
            _table = table

        _NotFound.__name__ = _NotFound.__qualname__ = "RouteNotFound"
        self._not_found = _NotFound

    # The server side.

    def _match(self, verb: str, raw_path: str) -> tuple[_Target, dict[str, str]] | None:
        """The route's target and the path's values by field (``split_path`` written
        out: this runs for every request)."""
        static = self._static.get(raw_path)
        if static is not None:
            target = static.get(verb)
            if target is not None:
                return target, {}
        flat = self._flat
        shapes = None if flat is None else flat.get(verb)
        if flat is not None and shapes is None:
            return None  # no route takes this verb
        max_segments = self.max_segments
        segments = raw_path[1:].split("/", max_segments)
        count = len(segments)
        escaped = "%" in raw_path
        if (
            raw_path[:1] != "/"
            or count > max_segments
            or (escaped and not well_formed(raw_path))
        ):
            return None
        shape: _Shape = count
        custom_verb = ""
        last = segments[-1]
        if ":" in last:
            head, _, verb_text = last.rpartition(":")
            if verb_text in self.custom_verbs:
                segments[-1] = head
                custom_verb = verb_text
                shape = (count, custom_verb)
        if "" in segments:
            if raw_path == "/":
                segments, count, shape = [], 0, 0
            elif shapes is not None:
                return None  # no literal is empty and no ``*`` takes an empty segment
        if shapes is not None:
            routes = shapes.get(shape)
            return None if routes is None else routes(segments, escaped)
        target = self._tree.walk(segments, (custom_verb, verb), None)
        if target is None:
            return None
        return target, _path_values(target, segments, escaped)

    def match(self, verb: str, raw_path: str) -> Match[Name] | None:
        """The route for ``verb`` and ``raw_path`` (the path as sent, still
        percent-encoded, without query or fragment), or None. Never raises."""
        found = self._match(verb, raw_path)
        if found is None:
            return None
        target, params = found
        return Match(target.route, params, target, raw_path)

    def raw_params(self, match: Match[str]) -> dict[str, str]:
        """The path values of a request ``match`` found as they were sent (still
        percent-encoded), for a reader that decodes them itself: in ``params`` a
        multi-segment value keeps ``%2F`` as sent and decodes the rest, so an escaped
        ``/`` and an escaped ``%2F`` (``%252F``) read alike there. ``ValueError`` for
        a ``Match`` that ``match`` did not make."""
        target = match.target
        split = split_path(match.raw_path, self.custom_verbs, self.max_segments)
        if target is None or target.route is not match.route or split is None:
            raise ValueError("the match was not made by RouteTable.match")
        segments = split[0]
        return {c.field: "/".join(segments[c.start : c.end]) for c in target.captures}

    def allowed_verbs(self, raw_path: str) -> frozenset[str]:
        """Every HTTP verb some route accepts for ``raw_path`` (for a 405 and its Allow
        header); empty when no route has this path."""
        split = split_path(raw_path, self.custom_verbs, self.max_segments)
        if split is None:
            return frozenset()
        segments, custom_verb = split
        verbs: set[str] = set()
        self._tree.walk(segments, (custom_verb, ""), verbs)
        return frozenset(verbs)

    def not_found(self, verb: str, raw_path: str) -> RouteNotFound:
        """The ``RouteNotFound`` for a request no route takes."""
        return self._not_found(verb, raw_path)

    def transcode(
        self,
        verb: str,
        raw_path: str,
        query: QueryInput = "",
        body: object = None,
        *,
        unknown: Unknown = "ignore",
        max_pairs: int | None = None,
    ) -> tuple[Route[Name], dict[str, Any]]:
        """The route of a received request and its ProtoJSON request dict, ready for
        ``google.protobuf.json_format.ParseDict`` (the generated ``routes.transcode``).

        ``query`` is the raw query string (or decoded pairs), ``body`` the decoded JSON
        body or None. Path values, the query and the body are merged per the route's
        rule: for ``body: "*"`` the body is the request and the query may name no
        field; for a field body the body is that field; otherwise the query holds the
        fields. ``max_pairs`` bounds the query's pairs (None: the codecs' limit,
        ``MAX_QUERY_PAIRS`` unless they set another). Raises ``RouteNotFound``
        (404/405), ``QueryError`` for a bad value or a field given twice with
        different values, ``ValueError`` for a body the route does not take.
        """
        found = self._match(verb, raw_path)
        if found is None:
            raise self._not_found(verb, raw_path)
        target, params = found
        if not query and body is None and not target.merge:
            return target.route, params  # the path is the whole request
        return target.route, self._request(
            target, params, query, body, unknown, max_pairs
        )

    def request(
        self,
        match: Match[str],
        query: QueryInput = "",
        body: object = None,
        *,
        unknown: Unknown = "ignore",
        max_pairs: int | None = None,
        owned_body: bool = False,
    ) -> dict[str, Any]:
        """The ProtoJSON request dict of a request ``match`` found: ``transcode``
        without matching again. ``ValueError`` for a ``Match`` that ``match`` did not
        make (one built by hand carries no route target). ``owned_body``: ``body``
        is the caller's to give away (a dict just decoded), so it becomes (part of)
        the request itself rather than a copy."""
        target = match.target
        if target is None or target.route is not match.route:
            raise ValueError("the match was not made by RouteTable.match")
        params = match.params
        if not query and not target.merge:
            if body is None:
                return params  # the path is the whole request
            if owned_body and type(body) is dict and not params:
                if target.route.body == "*":
                    return body  # the body is the whole request
        return self._request(
            target, params, query, body, unknown, max_pairs, owned_body
        )

    def _request(
        self,
        target: _Target,
        params: dict[str, str],
        query: QueryInput,
        body: object,
        unknown: Unknown,
        max_pairs: int | None,
        owned_body: bool = False,
    ) -> dict[str, Any]:
        route = target.route
        copied: dict[str, Any] | None
        if body is None:
            copied = None
        elif isinstance(body, dict):
            # The caller's to give away (``owned_body``) is the request; else its own
            # copy keeps what the decoder marked on it (keys given twice, for
            # validation to refuse), and the caller's body is never changed.
            copied = body if owned_body else body.copy()
        elif isinstance(body, Mapping):
            copied = dict(body)
        else:
            raise ValueError(
                f"{route.verb} {route.template}: the body must be a JSON object"
            )
        request: dict[str, Any]
        body_field = route.body
        if body_field == "*":
            if query:
                self.query.reject_fields(
                    route.rpc, query, unknown=unknown, max_pairs=max_pairs
                )
            request = {} if copied is None else copied
        else:
            request = (
                self.query.decode(
                    route.rpc, query, unknown=unknown, max_pairs=max_pairs
                )
                if query
                else {}
            )
            if body_field is not None:
                request[body_field] = {} if copied is None else copied
            elif body:
                raise ValueError(f"{route.verb} {route.template} takes no body")
        if not target.merge:
            if not request:
                return params  # nothing to merge with: the path is the request
            for name, text in params.items():
                if request.setdefault(name, text) is not text:
                    _merge(request, (name,), name, text)  # already there: compare
            return request
        for capture, path in zip(target.captures, target.paths):
            text = params[capture.field]
            value: object = text
            if capture.codec:
                value = self.query.parse_value(
                    capture.codec, capture.field, text, capture.enum
                )
            _merge(request, path, capture.field, value)
        return request

    # The client side.

    def build(
        self,
        rpc: str,
        request: Mapping[str, Any],
        *,
        tenant: str | None = None,
    ) -> HttpRequest:
        """The HTTP request a client sends (see the generated ``routes.build``): the
        first of the rpc's bindings the request fits (its path fields set, their
        values fitting the variables), else the first binding's error."""
        choices = self._client.get(rpc)
        if choices is None:
            raise ValueError(f"unknown rpc {rpc!r}")
        if len(choices) == 1:
            return self._build(rpc, request, tenant, choices[0])
        failure: ValueError | None = None
        for choice in choices:
            try:
                return self._build(rpc, request, tenant, choice)
            except ValueError as error:
                failure = failure or error
        assert failure is not None
        raise failure

    def _build(
        self, rpc: str, request: Mapping[str, Any], tenant: str | None, choice: _Choice
    ) -> HttpRequest:
        """The request for one binding: its route, or its tenant variant for a
        request with a tenant."""
        fields = dict(request)
        route, pieces = _tenant_choice(rpc, choice, fields, tenant, self.tenant_field)
        parts: list[str] = []
        sent: dict[str, str] = {}
        for piece in pieces:
            if isinstance(piece, str):
                parts.append(piece)
                continue
            value = _pop_field(fields, piece.json_path)
            if value is None:
                raise ValueError(f"{rpc}: path field {piece.name!r} is missing")
            encoded = _path_value(rpc, piece, value)
            parts.append(encoded)
            sent[piece.name] = encoded
        path = "".join(parts)
        if route.recheck:
            self._recheck(rpc, route, path, sent)
        has_body = route.body is not None
        headers = self._headers(has_body) if self._headers is not None else []
        if route.body == "*":
            return HttpRequest(route.verb, path, [], fields, headers)
        body: dict[str, Any] | None = None
        if route.body is not None:
            value = fields.pop(route.body, None)
            body = dict(value) if isinstance(value, Mapping) else {}
        query: QueryPairs = []
        if fields:
            query.extend(self.query.encode(rpc, fields))
        return HttpRequest(route.verb, path, query, body, headers)

    def _recheck(
        self, rpc: str, route: Route[Name], path: str, sent: Mapping[str, str]
    ) -> None:
        """Refuse a built path that another route would take, or whose values do not
        fit their variables' patterns (``sent`` holds each field's encoded value)."""
        found = self._match(route.verb, path)
        if found is not None and found[0].route is route:
            split = split_path(path, self.custom_verbs, self.max_segments)
            assert split is not None  # the path matched: it splits
            target, segments = found[0], split[0]
            # The same route can still split the path differently: "/b/c/e" for
            # "/{x=b/*}/{y=**}" with x="b", y="c/e" reads back as x="b/c", y="e".
            if all(
                capture.field not in sent
                or _raw_capture(capture, segments) == sent[capture.field]
                for capture in target.captures
            ):
                return
        other = found[0].route if found else None
        where = f" (it matches rpc {other.rpc} {other.template})" if other else ""
        raise ValueError(
            f"{rpc}: the path {path!r} does not route back to {route.template}{where}"
        )


def _tenant_choice(
    rpc: str,
    choice: _Choice,
    fields: dict[str, Any],
    tenant: str | None,
    tenant_field: str,
) -> tuple[Route[Any], Pieces]:
    """The route ``build`` sends and its pieces: the tenant variant when ``tenant`` is
    given or ``fields`` (the request, changed to match) holds one, the plain route
    otherwise. ``ValueError`` for two different tenants, or a tenant and no variant."""
    given = (fields.get(tenant_field) or "") if tenant_field else ""
    if tenant and given and tenant != given:
        raise ValueError(
            f"{rpc}: tenant={tenant!r} differs from the request's "
            f"{tenant_field} {given!r}"
        )
    chosen = tenant or given
    if chosen and tenant_field and choice.variant is not None:
        fields[tenant_field] = chosen
        return choice.variant, choice.variant_pieces
    if tenant:
        raise ValueError(f"{rpc}: this rpc has no tenant route")
    if tenant_field and not chosen:
        fields.pop(tenant_field, None)  # empty: the plain route has no tenant
    return choice.route, choice.pieces


def _without_tenant(template: str) -> str:
    """The template a ``/{tenant}`` variant prefixes: ``template`` without its first
    segment (``/{tenant}/tasks/{id}`` gives ``/tasks/{id}``, ``/{tenant}`` gives
    ``/``)."""
    rest = template.split("/", 2)
    return "/" + rest[2] if len(rest) == 3 else "/"


def _raw_capture(capture: Capture, segments: list[str]) -> str:
    """The raw (still percent-encoded) text a capture takes from a matched path."""
    if capture.single_segment:
        return segments[capture.start]
    return "/".join(segments[capture.start : capture.end])


def _path_value(rpc: str, piece: ClientPiece, value: object) -> str:
    """One path field, percent-encoded per http.proto (uppercase hex)."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (str, int)):
        text = str(value)
    else:
        raise ValueError(
            f"{rpc}: path field {piece.name!r} must be a string or an integer"
        )
    if not text:
        raise ValueError(f"{rpc}: path field {piece.name!r} is empty")
    if text in (".", "..") or (
        not piece.single_segment and ("/./" in f"/{text}/" or "/../" in f"/{text}/")
    ):
        raise ValueError(
            f"{rpc}: path field {piece.name!r} may not be '.' or '..' "
            "(clients and servers drop such segments)"
        )
    if _UNRESERVED.issuperset(text):
        return text
    try:
        return quote(text, safe="" if piece.single_segment else "/")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{rpc}: path field {piece.name!r} is not valid Unicode text"
        ) from exc


def _pop_field(fields: dict[str, Any], json_path: tuple[str, ...]) -> object:
    """Remove and return the value at ``json_path``, copying the nested objects it goes
    through; None when it is absent."""
    holder = fields
    for name in json_path[:-1]:
        inner = holder.get(name)
        if not isinstance(inner, Mapping):
            return None
        holder[name] = holder = dict(inner)
    return holder.pop(json_path[-1], None)


def _merge(
    request: dict[str, Any], path: tuple[str, ...], field: str, value: object
) -> None:
    """Put a path value into the request (``path`` is ``field`` split at its dots); a
    different non-default value already there (from the query or the body) is an
    error, never silently overwritten."""
    target = request
    for key in path[:-1]:
        child = target.get(key)
        target[key] = target = dict(child) if isinstance(child, Mapping) else {}
    name = path[-1]
    previous = target.get(name)
    if previous is not None and previous != value and previous not in ("", 0):
        raise QueryError(
            field,
            (
                str(previous)
                if isinstance(previous, (str, int, float))
                else repr(previous)
            ),
            f"the path gives {excerpt(value)} but the request gives "
            f"{excerpt(previous)}",
        )
    target[name] = value


def tenant_of(raw_path: str, suffix: str) -> str | None:
    """The tenant of ``/{tenant}`` + ``suffix``: ``""`` for ``suffix`` itself, the decoded
    first segment for ``/t1`` + ``suffix``, None for anything else."""
    if raw_path == suffix:
        return ""
    head, slash, rest = raw_path[1:].partition("/")
    if not raw_path.startswith("/") or not slash or not head or "/" + rest != suffix:
        return None
    return decode_segment(head) if well_formed(head) else None

"""The domain: frozen dataclasses for services, rpcs, their HTTP bindings and routes,
the messages and enums they reach, and diagnostics with source locations."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass

from ..http_rule import PathTemplate, precedence
from .naming import (
    SCALAR_PYTHON_TYPES,
    WELL_KNOWN_TYPES,
    WKT_PYTHON_TYPES,
    handler_method_name,
)


@dataclass(frozen=True, order=True)
class SourceLocation:
    """Where something is written: 1-based line and column, 0 when the input has no
    source info (a descriptor compiled into a module, say)."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        # Diagnostics reach terminals: a file name's control characters (a newline that
        # forges another diagnostic, an escape sequence) are written as escapes.
        file = "".join(
            c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
            for c in self.file
        )
        if self.line:
            return f"{file}:{self.line}:{self.column}"
        return file


@dataclass(frozen=True)
class Diagnostic:
    """One problem in the input, rendered as ``file:line:col: rpc Name: message``."""

    location: SourceLocation
    message: str
    rpc: str | None = None

    def __str__(self) -> str:
        where = f"rpc {self.rpc}: " if self.rpc else ""
        return f"{self.location}: {where}{self.message}"


class GenerationError(Exception):
    """The input cannot be generated; holds every diagnostic found."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        super().__init__("\n".join(str(d) for d in diagnostics))
        self.diagnostics = tuple(diagnostics)


@dataclass(frozen=True)
class Field:
    """A message field with its ProtoJSON facts."""

    name: str
    json_name: str
    number: int
    kind: str  # "string", "int64", "enum", "message", ... (descriptor.proto type names)
    type_name: str  # full name of the message or enum type, "" for scalars
    repeated: bool
    oneof: str | None
    map_key_kind: str | None = None  # set for map fields
    map_value: Field | None = None  # the value field of a map entry
    comment: str = ""
    required: bool = False  # google.api.field_behavior REQUIRED
    deprecated: bool = False
    # Facts for ``a2a-codegen diff``, left out of equality (two fields that compared
    # equal before these were recorded still do).
    location: SourceLocation = dataclasses.field(
        default=SourceLocation(""), compare=False
    )
    # ``optional`` in proto3, any singular field in proto2, a message or oneof member,
    # or editions' EXPLICIT: a set zero value is written, and absent means unset.
    explicit_presence: bool = dataclasses.field(default=False, compare=False)
    # proto2 `required` (editions: LEGACY_REQUIRED): a parser refuses a message without it.
    legacy_required: bool = dataclasses.field(default=False, compare=False)
    # proto2 `[default = ...]` as written in the descriptor, "" when none.
    default: str = dataclasses.field(default="", compare=False)

    @property
    def is_map(self) -> bool:
        """True for ``map<K, V>`` fields."""
        return self.map_value is not None

    @property
    def is_message(self) -> bool:
        """True for singular or repeated message fields (not maps)."""
        return self.kind == "message" and not self.is_map


@dataclass(frozen=True)
class EnumValue:
    """One value of an enum."""

    name: str
    number: int
    location: SourceLocation = dataclasses.field(
        default=SourceLocation(""), compare=False
    )


@dataclass(frozen=True)
class Enum:
    """An enum type; ProtoJSON writes its values by name."""

    full_name: str
    name: str
    values: tuple[EnumValue, ...]
    comment: str = ""
    package: str = ""
    location: SourceLocation = SourceLocation("")

    @property
    def by_number(self) -> tuple[EnumValue, ...]:
        """One value per number, the first declared (what ProtoJSON prints for aliases)."""
        seen: dict[int, EnumValue] = {}
        for value in self.values:
            seen.setdefault(value.number, value)
        return tuple(seen.values())


@dataclass(frozen=True)
class Message:
    """A message type with its fields in declaration order."""

    full_name: str
    name: str
    fields: tuple[Field, ...]
    comment: str = ""
    package: str = ""
    location: SourceLocation = SourceLocation("")

    @property
    def well_known(self) -> bool:
        """True for the google.protobuf types with a JSON form of their own."""
        return self.full_name in WELL_KNOWN_TYPES

    def field(self, name: str) -> Field | None:
        """The field with this proto name or json name, if any."""
        for candidate in self.fields:
            if name in (candidate.name, candidate.json_name):
                return candidate
        return None


@dataclass(frozen=True)
class QueryParam:
    """One query parameter of an rpc: a scalar, enum or well-known-scalar field, possibly
    inside singular nested messages (``config.pageSize``)."""

    json_path: tuple[str, ...]
    proto_path: tuple[str, ...]
    codec: (
        str  # int32, uint32, int64, uint64, float, double, bool, string, bytes, enum,
    )
    # timestamp, duration, field_mask
    repeated: bool
    enum: Enum | None
    oneof: str | None  # the oneof it belongs to, qualified by its parent path

    @property
    def json_name(self) -> str:
        """The dotted json name ``encode`` writes, e.g. ``config.pageSize``."""
        return ".".join(self.json_path)

    @property
    def names(self) -> tuple[str, ...]:
        """Every spelling ``decode`` accepts: json or proto name at each level."""
        spellings = [""]
        for json_part, proto_part in zip(self.json_path, self.proto_path):
            spellings = [
                f"{prefix}.{part}" if prefix else part
                for prefix in spellings
                for part in dict.fromkeys((json_part, proto_part))
            ]
        return tuple(dict.fromkeys(spellings))


@dataclass(frozen=True)
class PathField:
    """A request field bound by a path variable, possibly through nested messages."""

    proto_path: tuple[str, ...]
    json_path: tuple[str, ...]
    field: Field
    single_segment: bool  # `{x}` / `{x=*}`: fully percent-encoded, fully decoded

    @property
    def json_name(self) -> str:
        """Dotted json path, e.g. ``config.taskId``."""
        return ".".join(self.json_path)

    @property
    def proto_name(self) -> str:
        """Dotted proto path, e.g. ``config.task_id``."""
        return ".".join(self.proto_path)


@dataclass(frozen=True)
class Binding:
    """One HTTP route of an rpc: the main rule, an additional binding, a synthesised
    tenant variant, or a generated verb alias."""

    verb: str
    template: PathTemplate
    path_fields: tuple[PathField, ...]
    body: str | None  # "*", the json name of the body field, or None
    response_body: str | None  # json name of the response field sent as body
    tenant: bool
    alias: bool
    location: SourceLocation
    plain_template: str | None = None  # for a tenant variant: the template it prefixes

    @property
    def pieces(self) -> tuple[str | PathField, ...]:
        """Raw template text and path fields in order, for building a path."""
        by_name = {pf.proto_name: pf for pf in self.path_fields}
        return tuple(
            piece if isinstance(piece, str) else by_name[piece.name]
            for piece in self.template.pieces
        )

    @property
    def captures(self) -> tuple[tuple[PathField, int, int | None], ...]:
        """Each path field with the span of flattened segments it captures."""
        by_name = {v.name: v for v in self.template.variables}
        return tuple(
            (pf, by_name[pf.proto_name].start, by_name[pf.proto_name].end)
            for pf in self.path_fields
        )

    @property
    def path_json_names(self) -> tuple[str, ...]:
        """Json names of the path-bound fields, in template order."""
        return tuple(path_field.json_name for path_field in self.path_fields)


@dataclass(frozen=True)
class Method:
    """An rpc with its HTTP bindings."""

    name: str
    service: str
    request: Message
    response: Message
    client_streaming: bool
    server_streaming: bool
    bindings: tuple[Binding, ...]
    location: SourceLocation
    comment: str = ""
    query: tuple[QueryParam, ...] = ()
    deprecated: bool = False

    @property
    def handler_name(self) -> str:
        """The rpc's method on the handler Protocol (and the gRPC binding's table)."""
        return handler_method_name(self.name)

    @property
    def kind(self) -> str:
        """How the rpc streams, in words: ``unary``, ``server streaming``, ``client
        streaming`` or ``bidirectional streaming``."""
        if self.client_streaming:
            if self.server_streaming:
                return "bidirectional streaming"
            return "client streaming"
        return "server streaming" if self.server_streaming else "unary"

    @property
    def has_query(self) -> bool:
        """True when some route of the rpc can carry a query string (no ``body: "*"``)."""
        return any(binding.body != "*" for binding in self.bindings)

    @property
    def query_by_field(self) -> tuple[tuple[Field, tuple[QueryParam, ...]], ...]:
        """Top-level request fields that reach the query, each with its parameters."""
        grouped: list[tuple[Field, tuple[QueryParam, ...]]] = []
        for field in self.request.fields:
            params = tuple(p for p in self.query if p.proto_path[0] == field.name)
            if params:
                grouped.append((field, params))
        return tuple(grouped)

    def tenant_variant(self, binding: Binding) -> Binding | None:
        """The ``/{tenant}`` variant of a plain route of this rpc (same verb), if any."""
        for candidate in self.bindings:
            if (
                candidate.tenant
                and candidate.verb == binding.verb
                and candidate.plain_template == binding.template.source
            ):
                return candidate
        return None


@dataclass(frozen=True)
class Service:
    """A service that has at least one rpc with an http rule."""

    full_name: str
    name: str
    methods: tuple[Method, ...]
    a2a: bool
    comment: str = ""
    location: SourceLocation = dataclasses.field(
        default=SourceLocation(""), compare=False
    )


@dataclass(frozen=True)
class Route:
    """One row of a package's route table: a binding of an rpc at its position, with
    the position of its ``/{tenant}`` variant when it is a plain route that has one."""

    method: Method
    binding: Binding
    index: int
    twin: int | None = None


@dataclass(frozen=True)
class Overlap:
    """Two routes of one verb that some path matches both of; ``loser`` is the one
    ``match`` does not pick for ``example``."""

    first: Route
    second: Route
    example: str

    @property
    def loser(self) -> Route:
        """The route that does not get ``example`` (the other one is more specific)."""
        first, second = self.first, self.second
        if precedence(first.binding.template, second.binding.template) <= 0:
            return second
        return first

    @property
    def diagnostic(self) -> Diagnostic:
        """The overlap as a diagnostic at the later of the two routes."""
        m1, b1 = self.first.method, self.first.binding
        m2, b2 = self.second.method, self.second.binding
        message = (
            f"{b2.verb} {b2.template.source} overlaps {b1.verb} {b1.template.source} "
            f"(rpc {m1.name}): {b1.verb} {self.example} matches both"
        )
        return Diagnostic(b2.location, message, m2.name)

    def __str__(self) -> str:
        return str(self.diagnostic)


@dataclass(frozen=True)
class BindingFile:
    """Everything generated for one proto file: one output package."""

    proto_file: str
    proto_package: str
    module: str
    services: tuple[Service, ...]
    messages: tuple[Message, ...]  # reachable from the services, sorted by full name
    enums: tuple[Enum, ...]  # reachable from the services, sorted by full name
    descriptor_sha256: str
    generator_version: str
    tenant_field: str  # json name of the request field the tenant routes bind
    routes: tuple[
        Route, ...
    ] = ()  # in table order: rpcs as declared, bindings as written
    overlaps: tuple[Overlap, ...] = ()
    python_names: tuple[
        tuple[str, str], ...
    ] = ()  # full proto name -> Python identifier
    protocol_version: str = "1.0"  # the A2A version a binding speaks (A2A profile)
    openapi: bool = False  # also write openapi.json
    # Where the `package` statement is (for ``a2a-codegen diff``).
    package_location: SourceLocation = dataclasses.field(
        default=SourceLocation(""), compare=False
    )

    def python_name(self, full_name: str) -> str:
        """The identifier of a message's TypedDict or an enum's Literal alias."""
        for name, python in self.python_names:
            if name == full_name:
                return python
        raise KeyError(full_name)

    def python_type(self, field: Field, prefix: str = "") -> str:
        """The annotation of a field's ProtoJSON value; ``prefix`` qualifies names defined
        in messages.py (``"messages."`` from the other modules)."""
        if field.map_value is not None:
            return f"dict[str, {self.python_type(field.map_value, prefix)}]"
        single = self._element_type(field, prefix)
        return f"list[{single}]" if field.repeated else single

    def _element_type(self, field: Field, prefix: str) -> str:
        if field.kind == "enum":
            return prefix + self.python_name(field.type_name)
        if field.kind == "message":
            wkt = WKT_PYTHON_TYPES.get(field.type_name)
            return (
                wkt if wkt is not None else prefix + self.python_name(field.type_name)
            )
        return SCALAR_PYTHON_TYPES[field.kind]

    @property
    def query_enums(self) -> tuple[Enum, ...]:
        """Enums read from a query or a path, sorted by full name."""
        found = {
            p.enum.full_name: p.enum for m in self.methods for p in m.query if p.enum
        }
        for route in self.routes:
            binding = route.binding
            for path_field in binding.path_fields:
                if path_field.field.kind == "enum":
                    enum = self.enum(path_field.field.type_name)
                    found[enum.full_name] = enum
        return tuple(found[name] for name in sorted(found))

    @property
    def bindings(self) -> tuple[Binding, ...]:
        """The binding of every route, in table order."""
        return tuple(route.binding for route in self.routes)

    @functools.cached_property
    def methods(self) -> tuple[Method, ...]:
        """Every rpc of every service, in declaration order."""
        return tuple(m for s in self.services for m in s.methods)

    @property
    def a2a(self) -> bool:
        """True when any service gets the A2A extras."""
        return any(service.a2a for service in self.services)

    def method_routes(self, method: Method) -> tuple[Route, ...]:
        """The routes of one rpc, in table order."""
        return self._routes_by_rpc.get(method.name, ())

    @functools.cached_property
    def _routes_by_rpc(self) -> dict[str, tuple[Route, ...]]:
        grouped: dict[str, list[Route]] = {}
        for route in self.routes:
            grouped.setdefault(route.method.name, []).append(route)
        return {name: tuple(routes) for name, routes in grouped.items()}

    def client_routes(self, method: Method) -> tuple[Route, ...]:
        """The route a client sends for an rpc (a generated alias when there is one:
        A2A sends POST to ``:subscribe``; otherwise the main rule), then its tenant
        variant when it has one."""
        routes = self.method_routes(method)
        plain = [r for r in routes if not r.binding.tenant] or list(routes)
        chosen = next((r for r in plain if r.binding.alias), plain[0])
        if chosen.twin is None:
            return (chosen,)
        return (chosen, self.routes[chosen.twin])

    def client_bindings(self, method: Method) -> tuple[tuple[Route, Route | None], ...]:
        """The routes ``build`` tries for an rpc, in order, each with its tenant
        variant: the one ``client_routes`` gives, then each other binding with a
        template of its own (another verb on the same template would take the same
        fields, so it is never the better fit)."""
        chosen = [self.client_routes(method)[0]]
        for route in self.method_routes(method):
            template = route.binding.template.source
            if not route.binding.tenant and all(
                template != c.binding.template.source for c in chosen
            ):
                chosen.append(route)
        return tuple(
            (route, None if route.twin is None else self.routes[route.twin])
            for route in chosen
        )

    def rechecked(self, route: Route) -> bool:
        """True when a path built for ``route`` might route elsewhere, so ``build`` must
        match it again: the route loses some overlap, or a variable spans several
        segments (its value must fit the variable's own pattern)."""
        return route.index in self._rechecked

    @functools.cached_property
    def _rechecked(self) -> frozenset[int]:
        checked = {overlap.loser.index for overlap in self.overlaps}
        for route in self.routes:
            if any(not pf.single_segment for pf in route.binding.path_fields):
                checked.add(route.index)
        return frozenset(checked)

    @property
    def has_tenant_routes(self) -> bool:
        """True when some route is a ``/{tenant}`` variant."""
        return any(b.tenant for b in self.bindings)

    @property
    def has_multi_segment_variables(self) -> bool:
        """True when some path variable spans several segments (``{name=tasks/*}``)."""
        return any(not pf.single_segment for b in self.bindings for pf in b.path_fields)

    @property
    def has_deep_wildcards(self) -> bool:
        """True when some template ends with ``**``."""
        return any(b.template.has_deep_wildcard for b in self.bindings)

    @property
    def max_path_segments(self) -> int:
        """The most segments a path can have and still match (without ``**``); the root
        path ``/`` counts as one."""
        return max([1] + [len(b.template.segments) for b in self.bindings])

    def enum(self, full_name: str) -> Enum:
        """The reachable enum with this full name."""
        for enum in self.enums:
            if enum.full_name == full_name:
                return enum
        raise KeyError(full_name)


@dataclass(frozen=True)
class Generation:
    """The model of one plugin run: the files to write and the warnings for stderr."""

    files: tuple[BindingFile, ...]
    warnings: tuple[str, ...]
    # The A2A 0.3 file (option ``v0_3_proto``), written into the ``v0_3`` subpackage of
    # the one A2A package of ``files`` (its ``module`` names that package).
    v0_3: BindingFile | None = None

"""What each generated module prints, computed from the model: one view per module.

Templates loop over these, branch on their booleans and print their values through the
escaping filter of the place they land (``py`` for literals, ``docstring``, ``comment``);
every fact (an index, a Python annotation, a name) is computed here, never in Jinja.
"""

from __future__ import annotations

import functools
import keyword
import unicodedata
from collections.abc import Iterable
from typing import NamedTuple

from .model import Binding, BindingFile, Field, Method, QueryParam, Route, query_codec
from .model import validation_kind
from .model.naming import MESSAGES_IMPORTS, WKT_PYTHON_TYPES, private_base, snake_case
from .model.naming import proto_json_name
from .runtime._params import VERSION_HEADER
from .runtime._paths import Capture, ClientPiece, template_fields

__all__ = [
    "Call",
    "FileView",
    "InitView",
    "Item",
    "JsonRpcView",
    "MessagesView",
    "QueryView",
    "RouteView",
    "RoutesView",
    "snake_case",
]


class FileView:
    """What every module's header and docstring print."""

    # Where the runtime modules (``_paths`` ...) and ``protocol`` are, relative to the
    # module: its own package, or the parent for the ``v0_3`` subpackage's tables.
    runtime = "."

    def __init__(self, file: BindingFile) -> None:
        self.file = file

    @property
    def proto_file(self) -> str:
        return self.file.proto_file

    @property
    def proto_package(self) -> str:
        return self.file.proto_package

    @property
    def generator_version(self) -> str:
        return self.file.generator_version

    @property
    def descriptor_sha256(self) -> str:
        return self.file.descriptor_sha256

    @property
    def service_names(self) -> str:
        """The services' full names, comma-separated, for docstrings."""
        return ", ".join(service.full_name for service in self.file.services)

    @property
    def service_comments(self) -> tuple[tuple[str, str], ...]:
        """(name, comment) of each service that has a comment."""
        return tuple((s.name, s.comment) for s in self.file.services if s.comment)

    @property
    def a2a(self) -> bool:
        return self.file.a2a

    @property
    def tenant_field(self) -> str:
        return self.file.tenant_field

    @property
    def rpc_names(self) -> tuple[str, ...]:
        return tuple(method.name for method in self.file.methods)

    def request_annotation(self, method: Method) -> str:
        """The annotation of an rpc's request in a module that imports ``messages``."""
        if method.request.well_known:
            return "Mapping[str, Any]"
        return "messages." + self.file.python_name(method.request.full_name)

    @property
    def request_overloads(self) -> tuple[tuple[tuple[str, ...], str], ...]:
        """The rpcs by request annotation, for one ``Literal`` overload each (rpcs that
        share a request message, as SendMessage and SendStreamingMessage do, share it),
        in declaration order."""
        rpcs: dict[str, list[str]] = {}
        for method in self.file.methods:
            rpcs.setdefault(self.request_annotation(method), []).append(method.name)
        return tuple((tuple(names), annotation) for annotation, names in rpcs.items())


_MODULE_TEXTS = {
    "routes": "the route table, ``match`` (server side) and ``build`` (client side).",
    "query": "query-string codecs for the rpcs whose routes carry a query.",
    "jsonrpc": "the JSON-RPC 2.0 method map and envelope helpers.",
    "messages": "a ``TypedDict`` per message, with ProtoJSON field names.",
    "handler": "the typed handler a server implements.",
    "asgi": "the ASGI application serving HTTP+JSON and JSON-RPC.",
    "protocol": "the A2A rules the proto does not carry (versions, errors, SSE).",
    "client": "the client helpers: requests to send, answers read back.",
    "grpc_binding": "the gRPC binding: ``add_to_server`` and ``Backend``.",
    "http_backend": "``Backend``, a handler answered by an A2A agent over HTTP.",
    "v0_3": "the A2A 0.3 tables, beside the 1.0 ones.",
}


class InitView(FileView):
    """What ``__init__.py`` prints: the package's modules, those of its layers."""

    def __init__(self, file: BindingFile, modules: Iterable[str]) -> None:
        super().__init__(file)
        present = set(modules)
        self.modules = tuple(
            (name, text) for name, text in _MODULE_TEXTS.items() if name in present
        )
        self.grpc = "grpc_binding" in present


class Call(NamedTuple):
    """``name(*args, **keywords)`` as the ``py`` filter prints it: ``name`` is a class
    of the runtime (fixed text), ``args`` are literals, ``keywords`` (name, literal)
    pairs with fixed names. Tables hold these so a template prints a whole entry as one
    expression."""

    name: str
    args: tuple[object, ...]
    keywords: tuple[tuple[str, object], ...] = ()


class Item(NamedTuple):
    """``table[key]`` as the ``py`` filter prints it: a row of a table the module
    defines or imports (``table`` is fixed text; ``key`` an index, or a name printed
    as a string literal)."""

    table: str
    position: int | str


class RouteView(NamedTuple):
    """One row of ``ROUTES``: the route, how a server matches it and how a client
    builds it."""

    method: Method
    binding: Binding
    comment: str  # the rpc's comment, on its first route only
    captures: tuple[Call, ...]  # its ``Capture`` rows
    pieces: tuple[object, ...]  # raw text and ``ClientPiece`` rows; () if not built
    recheck: bool  # a built path is matched again
    client: int  # its place among the routes ``build`` tries, -1 for none

    @property
    def call(self) -> Call:
        """The row, ``route(rpc, verb, template, ...)``: the keywords whose values
        differ from a plain route's and from what the runtime's ``template_fields``
        reads in the template."""
        binding, template = self.binding, self.binding.template
        derived = {
            name: _as_call(value)
            for name, value in template_fields(
                template.source, client=self.client >= 0
            ).items()
        }
        keywords: tuple[tuple[str, object, object], ...] = (
            ("path_fields", binding.path_json_names, ()),
            ("body", binding.body, None),
            ("response_body", binding.response_body, None),
            ("tenant", binding.tenant, False),
            ("alias", binding.alias, False),
            ("segments", tuple(str(segment) for segment in template.segments), ()),
            ("custom_verb", template.verb or "", ""),
            ("captures", self.captures, ()),
            ("pieces", self.pieces, ()),
            ("recheck", self.recheck, False),
            ("client", self.client, -1),
        )
        return Call(
            "route",
            (Item("RPCS", self.method.name), binding.verb, template.source),
            tuple(
                (name, value)
                for name, value, default in keywords
                if value != derived.get(name, default)
            ),
        )


def _capture(
    field: str, start: int, end: int | None, single: bool, codec: str, enum: str
) -> Call:
    """The ``Capture`` row of a path field, its defaults left out."""
    keywords: tuple[tuple[str, object], ...] = ()
    if not single:
        keywords += (("single_segment", False),)
    if codec:
        keywords += (("codec", codec),) + ((("enum", enum),) if enum else ())
    return Call("Capture", (field, start, end), keywords)


def _as_call(value: object) -> object:
    """A value ``template_fields`` derives as the view prints it (``Capture`` and
    ``ClientPiece`` records as ``Call`` rows), to compare with the printed one."""
    if isinstance(value, Capture):
        return _capture(*value)
    if isinstance(value, ClientPiece):
        return _client_piece(*value)
    if type(value) is tuple:
        return tuple(_as_call(item) for item in value)
    return value


def _client_piece(name: str, json_path: tuple[str, ...], single_segment: bool) -> Call:
    """The ``ClientPiece`` row of a path field a client fills in."""
    return Call("ClientPiece", (name, json_path, single_segment))


def _path_codec(field: Field) -> tuple[str, str]:
    """(codec, enum type) of a path field whose value is not a plain string."""
    codec = query_codec(field)
    if codec in (None, "string"):
        return "", ""
    return codec or "", field.type_name if codec == "enum" else ""


class RoutesView(FileView):
    """What ``routes.py`` prints."""

    version_header: str = VERSION_HEADER
    """The header ``build`` names the protocol version in (the version is the file's
    own: the ``v0_3`` tables send ``0.3``)."""

    @functools.cached_property
    def routes(self) -> tuple[RouteView, ...]:
        rows = []
        for route in self.file.routes:
            method, binding = route.method, route.binding
            first = binding is method.bindings[0]
            captures = []
            for path_field, start, end in binding.captures:
                single = path_field.single_segment
                end = start + 1 if single else end
                place = (path_field.json_name, start, end, single)
                captures.append(_capture(*place, *_path_codec(path_field.field)))
            comment = method.comment if first else ""
            built = route.index in self._built
            rows.append(
                RouteView(
                    method,
                    binding,
                    comment,
                    tuple(captures),
                    self._printed_pieces(route) if built else (),
                    built and self.file.rechecked(route),
                    self._clients.get(route.index, -1),
                )
            )
        return tuple(rows)

    @property
    def row_classes(self) -> frozenset[str]:
        """The runtime classes the ``ROUTES`` rows name (``Capture``, ``ClientPiece``):
        none where every route's template says it all."""
        names: set[str] = set()
        pending: list[object] = [row.call for row in self.routes]
        while pending:
            value = pending.pop()
            if isinstance(value, Call):
                names.add(value.name)
                pending += [*value.args, *(item for _, item in value.keywords)]
            elif type(value) is tuple:
                pending += value
        return frozenset(names & {"Capture", "ClientPiece"})

    @functools.cached_property
    def _clients(self) -> dict[int, int]:
        """The routes ``build`` tries (by index): their place among their rpc's."""
        return {
            route.index: place
            for method in self.file.methods
            for place, (route, _) in enumerate(self.file.client_bindings(method))
        }

    @functools.cached_property
    def _built(self) -> frozenset[int]:
        """The routes a client builds (by index): those ``build`` tries and their
        tenant variants."""
        return frozenset(
            found.index
            for method in self.file.methods
            for route, twin in self.file.client_bindings(method)
            for found in (route, twin)
            if found is not None
        )

    def _printed_pieces(self, route: Route) -> tuple[object, ...]:
        """The pieces ``routes.py`` prints for a route a client builds: none where
        the runtime derives the same (a template without variables is its own path;
        a ``/{tenant}`` variant is ``/``, the tenant, then its plain route's pieces)."""
        pieces = self._pieces(route)
        if pieces == (route.binding.template.source,):
            return ()
        plain = next((r for r in self.file.routes if r.twin == route.index), None)
        if plain is not None:
            tenant = _client_piece(self.tenant_field, (self.tenant_field,), True)
            rest = self._pieces(plain) if plain.binding.template.source != "/" else ()
            if pieces == ("/", tenant, *rest):
                return ()
        return pieces

    @staticmethod
    def _pieces(route: Route) -> tuple[object, ...]:
        """Its path as a client fills it in: raw text as a string, a field as a
        ``ClientPiece`` row."""
        return tuple(
            (
                piece
                if isinstance(piece, str)
                else _client_piece(
                    piece.json_name, piece.json_path, piece.single_segment
                )
            )
            for piece in route.binding.pieces
        )

    @property
    def has_tenant_routes(self) -> bool:
        return self.file.has_tenant_routes

    @property
    def has_multi_segment_variables(self) -> bool:
        return self.file.has_multi_segment_variables

    @property
    def has_deep_wildcards(self) -> bool:
        return self.file.has_deep_wildcards

    @property
    def max_path_segments(self) -> int:
        """The most segments a matching path has; 256 when some route ends in ``**``."""
        return 256 if self.file.has_deep_wildcards else self.file.max_path_segments

    @property
    def names_any(self) -> bool:
        """Whether the module names ``typing.Any``: in the dynamic ``build`` overload
        (several rpcs) or in a well-known request's ``Mapping[str, Any]``."""
        methods = self.file.methods
        return len(methods) > 1 or any(m.request.well_known for m in methods)


class QueryShape(NamedTuple):
    """The ``<Rpc>Query`` TypedDict of one rpc."""

    rpc: str
    request_type: str
    fields: tuple[tuple[str, str], ...]  # (json name, annotation)

    @property
    def class_form(self) -> bool:
        """True when every key is an identifier (else the functional form)."""
        return all(_identifier(name) for name, _ in self.fields)


def _identifier(text: str) -> bool:
    """True when ``text`` can stand as a key in a class-form ``TypedDict`` and stay
    itself: an identifier, not a keyword, unchanged by the NFKC normalisation Python
    applies to identifiers (``ｉｄ`` would become ``id``), and not mangled in a class
    body (``__x`` would become ``_Name__x``). Other keys take the functional form."""
    return (
        text.isidentifier()
        and not keyword.iskeyword(text)
        and unicodedata.normalize("NFKC", text) == text
        and not text.startswith("__")
    )


def _param(param: QueryParam) -> Call:
    """A query parameter's ``Param`` row, the columns at their defaults left out."""
    flags: tuple[tuple[str, object], ...] = (
        ("repeated", param.repeated),
        ("enum", param.enum.full_name if param.enum else ""),
        ("oneof", param.oneof or ""),
    )
    return Call(
        "Param",
        (param.json_path, param.proto_path, param.codec),
        tuple((name, value) for name, value in flags if value),
    )


class QueryView(FileView):
    """What ``query.py`` prints."""

    @functools.cached_property
    def query_methods(self) -> tuple[Method, ...]:
        return tuple(m for m in self.file.methods if m.has_query)

    @property
    def shapes(self) -> tuple[QueryShape, ...]:
        shapes = []
        for method in self.query_methods:
            fields = tuple(
                (field.json_name, self._annotation(field))
                for field, _ in method.query_by_field
            )
            shapes.append(QueryShape(method.name, method.request.full_name, fields))
        return tuple(shapes)

    def _annotation(self, field: Field) -> str:
        """A query field's annotation, naming no module: ``typing.get_type_hints``
        resolves it in ``query.py``, which does not import ``messages`` (an enum is
        the ``Literal`` of its value names, a message ``dict[str, Any]``)."""
        value = field.map_value or field
        if value.kind == "enum":
            # value names are identifiers (the model refuses others): quoted as they are
            values = self.file.enum(value.type_name).values
            names = ", ".join(f'"{v.name}"' for v in values)
            single = f"Literal[{names}]"
        elif value.kind == "message" and value.type_name not in WKT_PYTHON_TYPES:
            single = "dict[str, Any]"
        else:
            return self.file.python_type(field)
        if field.map_value is not None:
            return f"dict[str, {single}]"
        return f"list[{single}]" if field.repeated else single

    @property
    def params(self) -> tuple[tuple[str, tuple[Call, ...]], ...]:
        """Per rpc with a query: its ``Param`` rows, in field order."""
        return tuple(
            (method.name, tuple(_param(param) for param in method.query))
            for method in self.query_methods
        )

    @property
    def enums(self) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
        """Each enum read from a query or a path: (full name, (spelling, value name))."""
        rows = []
        for enum in self.file.query_enums:
            values = [(value.name, value.name) for value in enum.values]
            values += [(str(value.number), value.name) for value in enum.by_number]
            rows.append((enum.full_name, tuple(values)))
        return tuple(rows)

    @property
    def body_fields(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Per rpc with a ``body: "*"`` route: its request's json and proto names."""
        rows = []
        for method in self.file.methods:
            if not any(binding.body == "*" for binding in method.bindings):
                continue
            names: dict[str, None] = {}
            for field in method.request.fields:
                names[field.json_name] = None
                names[field.name] = None
            rows.append((method.name, tuple(names)))
        return tuple(rows)

    @property
    def service_params(self) -> tuple[str, ...]:
        """Query names that are the protocol's, never fields (lower case)."""
        return ("a2a-version",) if self.file.a2a else ()


class JsonRpcView(FileView):
    """What ``jsonrpc.py`` prints."""

    @property
    def methods(self) -> tuple[tuple[Method, Item | tuple[()], str], ...]:
        """Each rpc with its routes (its row of ``ROUTES_BY_RPC``, by name; ``()`` for
        an rpc without any) and its request annotation."""
        return tuple(
            (
                method,
                (
                    Item("ROUTES_BY_RPC", method.name)
                    if self.file.method_routes(method)
                    else ()
                ),
                self.request_annotation(method),
            )
            for method in self.file.methods
        )

    @property
    def uses_messages(self) -> bool:
        """Some request annotation names ``messages`` (imported for type checkers)."""
        return any("messages." in annotation for _, _, annotation in self.methods)


class FieldRow(NamedTuple):
    """One key of a message's TypedDict."""

    json_name: str
    annotation: str
    comment: str


class MessageShape(NamedTuple):
    """A message's TypedDict: the keys it must have, and the rest. In class form the
    required keys sit in a private total base class (``typing.Required`` would need
    Python 3.11); in functional form (keys that are not identifiers) every key is
    optional."""

    name: str
    base: str  # the private base class of the required keys
    doc: str
    class_form: bool
    required: tuple[FieldRow, ...]
    optional: tuple[FieldRow, ...]

    @property
    def fields(self) -> tuple[FieldRow, ...]:
        return self.required + self.optional

    @property
    def has_base(self) -> bool:
        return self.class_form and bool(self.required)


def _field_rule(field: Field, package: str) -> Call:
    """A field's ``FieldRule`` row: a map field is described by its value, and its
    key kind; a type of ``package`` is named within it."""
    value = field.map_value or field
    kind = validation_kind(value.kind, value.type_name)
    map_key = validation_kind(field.map_key_kind, "") if field.map_key_kind else ""
    type_name = value.type_name if kind in ("message", "enum") else ""
    if package and type_name.startswith(package + "."):
        type_name = type_name[len(package) + 1 :]
    custom = "" if field.json_name == proto_json_name(field.name) else field.json_name
    flags: tuple[tuple[str, object], ...] = (
        ("json_name", custom),
        ("repeated", field.repeated and not field.is_map),
        ("map_key", map_key),
        ("required", field.required),
        ("oneof", field.oneof or ""),
    )
    return Call(
        "FieldRule",
        (field.name, kind) + ((type_name,) if type_name else ()),
        tuple((name, value) for name, value in flags if value),
    )


class MessagesView(FileView):
    """What ``messages.py`` prints."""

    @functools.cached_property
    def schema_rows(self) -> tuple[tuple[str, tuple[Call, ...]], ...]:
        """Per message type (Empty included: an object without fields), its fields
        as ``FieldRule(proto name, kind, type, json name, repeated, map key kind,
        required, oneof)`` rows, defaults left out (the json name is protoc's
        default unless the proto gives another)."""
        rows = []
        for message in self.file.messages:
            if message.well_known and message.full_name != "google.protobuf.Empty":
                continue
            rules = tuple(_field_rule(f, self.schema_package) for f in message.fields)
            rows.append((message.full_name, rules))
        return tuple(sorted(rows))

    @functools.cached_property
    def schema_package(self) -> str:
        """The package ``SCHEMA``'s rules name types within: the proto's, unless a
        full name read within it would name another type (then none)."""
        package = self.file.proto_package
        known = {m.full_name for m in self.file.messages}
        known |= {enum.full_name for enum in self.file.enums}
        if not package or any(f"{package}.{name}" in known for name in known):
            return ""
        return package

    @property
    def enum_rows(self) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
        """Per enum type, its values as (name, number) pairs in declaration order."""
        return tuple(
            sorted(
                (enum.full_name, tuple((v.name, v.number) for v in enum.values))
                for enum in self.file.enums
            )
        )

    @property
    def imports(self) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], ...]:
        """``(module, names)`` groups the module imports: the model's list, which the
        types' names keep clear of, its runtime modules where this module finds them
        (``runtime``), and ``Literal`` only where an enum uses it."""
        unused = () if self.file.enums else ("Literal",)
        return tuple(
            tuple(
                (
                    self.runtime + module[1:] if module[:2] == "._" else module,
                    tuple(name for name in names if name not in unused),
                )
                for module, names in group
            )
            for group in MESSAGES_IMPORTS
        )

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for _, name in self.file.python_names)

    @property
    def enums(self) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        """(identifier, docstring text, value names) of every enum."""
        return tuple(
            (
                self.file.python_name(enum.full_name),
                enum.comment or f"Values of {enum.full_name}.",
                tuple(value.name for value in enum.values),
            )
            for enum in self.file.enums
        )

    @functools.cached_property
    def _path_bound(self) -> frozenset[tuple[str, str]]:
        """(request type, json name) of the top-level fields a client's plain route
        binds in its path: ``build`` cannot do without them."""
        bound = set()
        for method in self.file.methods:
            route = self.file.client_routes(method)[0]
            for path_field in route.binding.path_fields:
                if len(path_field.json_path) == 1:
                    bound.add((method.request.full_name, path_field.json_name))
        return frozenset(bound)

    @property
    def messages(self) -> tuple[MessageShape, ...]:
        """Every message that is not a well-known type, its fields split into the
        keys it must have (REQUIRED, or bound by a client's path) and the rest."""
        rows = []
        for message in self.file.messages:
            if message.well_known:
                continue
            required: list[FieldRow] = []
            optional: list[FieldRow] = []
            for field in message.fields:
                notes = [field.comment] if field.comment else []
                if field.oneof:
                    notes.append(f"Member of oneof {field.oneof}: set at most one.")
                if field.deprecated:
                    notes.append("Deprecated.")
                row = FieldRow(
                    field.json_name, self.file.python_type(field), "\n".join(notes)
                )
                must = field.required and not field.oneof
                key = (message.full_name, field.json_name)
                (required if must or key in self._path_bound else optional).append(row)
            names = [row.json_name for row in required + optional]
            identifier = self.file.python_name(message.full_name)
            rows.append(
                MessageShape(
                    identifier,
                    private_base(identifier),
                    message.comment or f"{message.full_name}.",
                    all(_identifier(name) for name in names),
                    tuple(required),
                    tuple(optional),
                )
            )
        return tuple(rows)


class ProtocolView(FileView):
    """What ``protocol.py`` prints (A2A services only)."""

    @property
    def protocol_version(self) -> str:
        return self.file.protocol_version

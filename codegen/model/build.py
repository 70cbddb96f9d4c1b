"""Building and validating the model from a ``CodeGeneratorRequest``."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

from .. import __version__
from ..http_rule import TemplateError, parse_template
from ..options import Options
from .a2a import with_subscribe_aliases
from .descriptors import (
    FILE_PACKAGE,
    FILE_SERVICE,
    HTTP_ADDITIONAL,
    HTTP_BODY,
    HTTP_RESPONSE_BODY,
    HTTP_VERB_FIELDS,
    METHOD_OPTIONS,
    SERVICE_METHOD,
    Index,
    check_names,
    check_references,
    descriptor_sha256,
)
from .domain import (
    Binding,
    BindingFile,
    Diagnostic,
    Enum,
    Field,
    Generation,
    GenerationError,
    Message,
    Method,
    PathField,
    QueryParam,
    Service,
    SourceLocation,
)
from .naming import (
    NO_QUERY_FORM,
    module_name,
    proto_json_name,
    python_names,
    query_codec,
)
from .routing import check_duplicates, find_overlaps, route_table


def _dotted(path: tuple[str, ...]) -> str:
    """A dotted field path for a message, shortened in the middle when it is long."""
    if len(path) <= 6:
        return ".".join(path)
    return ".".join(path[:3]) + f".(...{len(path) - 5} more...)." + ".".join(path[-2:])


# RFC 9110 §5.6.2: a method name is a token.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+\Z")


def _http_rule_verb(rule: http_pb2.HttpRule) -> tuple[str, str, str] | None:
    """(verb, template, oneof field name) of a rule, or None when the pattern is unset."""
    which = rule.WhichOneof("pattern")
    if which is None:
        return None
    if which == "custom":
        return rule.custom.kind.upper(), rule.custom.path, which
    return which.upper(), getattr(rule, which), which


class _ServiceBuilder:
    """Builds and validates the methods of one file's services."""

    def __init__(
        self, index: Index, file: descriptor_pb2.FileDescriptorProto, options: Options
    ) -> None:
        self.index = index
        self.file = file
        self.options = options
        self.info = index.infos[file.name]
        self.errors: list[Diagnostic] = []
        self.warnings: list[str] = []
        self.skipped: list[Diagnostic] = []  # services without http rules

    def services(self) -> list[Service]:
        services = []
        prefix = self.file.package + "." if self.file.package else ""
        for si, descriptor in enumerate(self.file.service):
            path = (FILE_SERVICE, si)
            a2a = self.options.profile == "a2a" or (
                self.options.profile == "auto" and descriptor.name == "A2AService"
            )
            methods = []
            for mi, method in enumerate(descriptor.method):
                built = self.method(
                    prefix + descriptor.name, method, path + (SERVICE_METHOD, mi), a2a
                )
                if built is not None:
                    methods.append(built)
            if methods:
                services.append(
                    Service(
                        prefix + descriptor.name,
                        descriptor.name,
                        tuple(methods),
                        a2a,
                        self.info.comment(path),
                        self.info.location(path),
                    )
                )
            elif not any(
                m.options.HasExtension(annotations_pb2.http) for m in descriptor.method
            ):
                self.skipped.append(
                    Diagnostic(
                        self.info.location(path),
                        f"service {descriptor.name} has no google.api.http rules; skipped",
                    )
                )
        return services

    def method(
        self,
        service: str,
        descriptor: descriptor_pb2.MethodDescriptorProto,
        path: tuple[int, ...],
        a2a: bool,
    ) -> Method | None:
        if not descriptor.options.HasExtension(annotations_pb2.http):
            return None
        location = self.info.location(path)
        rule_path = path + (METHOD_OPTIONS, annotations_pb2.http.number)
        request = self.index.message(descriptor.input_type.lstrip("."))
        response = self.index.message(descriptor.output_type.lstrip("."))
        rule = descriptor.options.Extensions[annotations_pb2.http]
        rules = [(rule, rule_path, "")]
        for i, extra in enumerate(rule.additional_bindings):
            extra_path = rule_path + (HTTP_ADDITIONAL, i)
            where = f"additional_bindings[{i}]: "
            if extra.additional_bindings:
                self.error(
                    extra_path,
                    descriptor.name,
                    where + "additional_bindings may not nest",
                )
                return None
            rules.append((extra, extra_path, where))
        bindings: list[Binding] = []
        for one_rule, one_path, where in rules:
            binding = self.binding(
                descriptor.name, one_rule, one_path, where, request, response
            )
            if binding is None:
                return None
            bindings.append(binding)
        bindings = self.link_tenant_variants(descriptor.name, request, bindings)
        if a2a:
            bindings = with_subscribe_aliases(bindings)
        query = self.query_params(request, bindings, descriptor.name, path)
        return Method(
            descriptor.name,
            service,
            request,
            response,
            descriptor.client_streaming,
            descriptor.server_streaming,
            tuple(bindings),
            location,
            self.info.comment(path),
            query,
            descriptor.options.deprecated,
        )

    def error(self, path: Sequence[int], rpc: str | None, message: str) -> None:
        self.errors.append(Diagnostic(self.info.location(path), message, rpc))

    def binding(
        self,
        rpc: str,
        rule: http_pb2.HttpRule,
        path: tuple[int, ...],
        where: str,
        request: Message,
        response: Message,
    ) -> Binding | None:
        """One rule as a binding; ``where`` names it inside the option for messages, since
        protoc records no location below ``option (google.api.http)``."""

        def error(at: Sequence[int], message: str) -> None:
            self.error(at, rpc, where + message)

        pattern = _http_rule_verb(rule)
        if pattern is None:
            error(
                path, "http rule sets no verb (get, put, post, delete, patch or custom)"
            )
            return None
        verb, text, which = pattern
        verb_path = path + (HTTP_VERB_FIELDS[which],)
        if not verb:
            error(verb_path, "custom http rule has an empty kind")
            return None
        if not _TOKEN.match(verb):
            error(
                verb_path,
                f"custom http rule kind {verb!r} is not an HTTP method name "
                "(RFC 9110 token characters only)",
            )
            return None
        try:
            template = parse_template(text)
        except TemplateError as exc:
            error(verb_path, str(exc))
            return None
        path_fields = []
        for variable in template.variables:
            bound = self.resolve_path_field(request, variable.field_path)
            if isinstance(bound, str):
                error(
                    verb_path, f"path variable {{{variable.name}}} in {text!r}: {bound}"
                )
                return None
            proto_path, json_path, leaf = bound
            path_fields.append(
                PathField(proto_path, json_path, leaf, variable.single_segment)
            )
        body: str | None = rule.body or None
        if body is not None:
            body_path = path + (HTTP_BODY,)
            if verb == "GET":
                error(
                    body_path, f"GET {text} has a body ({body!r}); GET carries no body"
                )
                return None
            if body != "*":
                body_field = request.field(body)
                if body_field is None or body_field.name != body:
                    error(
                        body_path,
                        f"body {body!r} is not a field of {request.full_name}",
                    )
                    return None
                if not body_field.is_message or body_field.repeated:
                    error(
                        body_path,
                        f"body {body!r} must be a singular message field (the body is a JSON object)",
                    )
                    return None
                body = body_field.json_name
        response_body: str | None = rule.response_body or None
        if response_body is not None:
            response_field = response.field(response_body)
            if response_field is None or response_field.name != response_body:
                error(
                    path + (HTTP_RESPONSE_BODY,),
                    f"response_body {response_body!r} is not a field of {response.full_name}",
                )
                return None
            response_body = response_field.json_name
        return Binding(
            verb,
            template,
            tuple(path_fields),
            body,
            response_body,
            tenant=False,
            alias=False,
            location=self.info.location(verb_path),
        )

    def query_params(
        self,
        request: Message,
        bindings: list[Binding],
        rpc: str,
        path: tuple[int, ...],
    ) -> tuple[QueryParam, ...]:
        """The parameters a query string may set: every scalar-like field, through singular
        nested messages, except body fields. Path-bound fields are included so that a
        query value that contradicts the path is caught, not ignored. Maps, repeated
        messages and Struct-like types have no query form."""
        if all(binding.body == "*" for binding in bindings):
            return ()
        body_fields = {b.body for b in bindings if b.body not in (None, "*")}
        params: list[QueryParam] = []

        problem = self._walk_query(request, body_fields, params)
        if problem is not None:
            self.error(path, rpc, problem)
        return tuple(params)

    def _walk_query(
        self, request: Message, body_fields: set[str], params: list[QueryParam]
    ) -> str | None:
        """Collect the query parameters below ``request`` in field order, depth first,
        without recursion (a chain of nested messages can be long); a string is the
        error that stopped the walk."""
        max_depth = self.options.max_query_depth
        max_count = self.options.max_query_params
        Frame = tuple[Iterator[Field], tuple[str, ...], tuple[str, ...], frozenset[str]]
        stack: list[Frame] = [
            (iter(request.fields), (), (), frozenset({request.full_name}))
        ]
        while stack:
            fields, json_prefix, proto_prefix, visiting = stack[-1]
            field = next(fields, None)
            if field is None:
                stack.pop()
                continue
            json_path = json_prefix + (field.json_name,)
            proto_path = proto_prefix + (field.name,)
            if (not proto_prefix and field.json_name in body_fields) or field.is_map:
                continue
            codec = query_codec(field)
            if codec is not None:
                if len(params) == max_count:
                    return (
                        f"more than max_query_params={max_count} query parameters "
                        f"(at {_dotted(json_path)}); raise the option, or send "
                        "the nested messages in a body"
                    )
                enum = (
                    self.index.enum(field.type_name) if field.kind == "enum" else None
                )
                oneof = (
                    f"{'.'.join(json_prefix)}:{field.oneof}" if field.oneof else None
                )
                params.append(
                    QueryParam(
                        json_path, proto_path, codec, field.repeated, enum, oneof
                    )
                )
            elif (
                field.kind == "message"
                and not field.repeated
                and field.type_name not in NO_QUERY_FORM
                and field.type_name not in visiting
            ):
                if len(json_path) >= max_depth:
                    return (
                        f"query parameters under {_dotted(json_path)} are nested "
                        f"deeper than max_query_depth={max_depth}; raise the "
                        "option, or send the nested messages in a body"
                    )
                nested = self.index.message(field.type_name)
                stack.append(
                    (
                        iter(nested.fields),
                        json_path,
                        proto_path,
                        visiting | {field.type_name},
                    )
                )
        return None

    def resolve_path_field(
        self, request: Message, field_path: tuple[str, ...]
    ) -> tuple[tuple[str, ...], tuple[str, ...], Field] | str:
        """Resolve a dotted path through singular message fields; a string is the error."""
        message = request
        json_path: list[str] = []
        found: Field | None = None
        for depth, name in enumerate(field_path):
            found = next((f for f in message.fields if f.name == name), None)
            if found is None:
                return f"no field {name!r} in {message.full_name}"
            json_path.append(found.json_name)
            if found.repeated:
                return f"field {name!r} of {message.full_name} is repeated; path variables must be singular"
            last = depth == len(field_path) - 1
            if found.kind == "message":
                if last:
                    return (
                        f"field {name!r} of {message.full_name} is a message "
                        f"({found.type_name}); path variables must be scalars or enums"
                    )
                message = self.index.message(found.type_name)
            elif not last:
                return f"field {name!r} of {message.full_name} is not a message; cannot select {field_path[depth + 1]!r} in it"
        assert found is not None  # field_path has at least one name (grammar)
        return field_path, tuple(json_path), found

    def link_tenant_variants(
        self, rpc: str, request: Message, bindings: list[Binding]
    ) -> list[Binding]:
        """Mark the additional bindings that are ``/{tenant}`` + another binding of the same
        verb, and synthesise missing ones when the ``tenant_field`` option asks for it.
        """
        tenant_name = self.options.tenant_field or "tenant"
        tenant = request.field(tenant_name)
        if (
            tenant is None
            or tenant.name != tenant_name
            or tenant.kind != "string"
            or tenant.repeated
        ):
            return bindings
        prefixes = (f"/{{{tenant_name}}}", f"/{{{tenant_name}=*}}")
        by_shape = {(b.verb, b.template.source): b for b in bindings}
        linked: list[Binding] = []
        has_variant: set[tuple[str, str]] = set()
        for binding in bindings:
            source = binding.template.source
            for prefix in prefixes:
                rest = source[len(prefix) :] or "/"
                if (
                    source.startswith(prefix)
                    and (binding.verb, rest) in by_shape
                    and rest != source
                ):
                    if by_shape[(binding.verb, rest)].body == binding.body:
                        binding = replace(binding, tenant=True, plain_template=rest)
                        has_variant.add((binding.verb, rest))
                        break
            linked.append(binding)
        if self.options.tenant_field is None:
            return linked
        result: list[Binding] = []
        for binding in linked:
            result.append(binding)
            key = (binding.verb, binding.template.source)
            if binding.tenant or key in has_variant:
                continue
            if binding.template.variable(tenant_name) is not None:
                continue
            source = binding.template.source
            text = f"/{{{tenant_name}}}" + ("" if source == "/" else source)
            template = parse_template(text)
            tenant_path = PathField((tenant.name,), (tenant.json_name,), tenant, True)
            result.append(
                replace(
                    binding,
                    template=template,
                    path_fields=(tenant_path,) + binding.path_fields,
                    tenant=True,
                    plain_template=source,
                )
            )
        return result


def _reachable(
    index: Index, services: Sequence[Service]
) -> tuple[list[Message], list[Enum]]:
    seen: dict[str, Message] = {}
    enums: dict[str, Enum] = {}
    pending = [m.request.full_name for s in services for m in s.methods]
    pending += [m.response.full_name for s in services for m in s.methods]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        message = index.message(name)
        seen[name] = message
        if message.well_known:
            continue
        for f in message.fields:
            target = f.map_value if f.map_value is not None else f
            if target.kind == "message" and target.type_name not in seen:
                pending.append(target.type_name)
            elif target.kind == "enum" and target.type_name not in enums:
                enums[target.type_name] = index.enum(target.type_name)
    return (
        sorted(seen.values(), key=lambda m: m.full_name),
        sorted(enums.values(), key=lambda e: e.full_name),
    )


def build_files(
    request: plugin_pb2.CodeGeneratorRequest, options: Options
) -> Generation:
    """The model of every ``file_to_generate`` that has a service with http rules.

    Raises ``GenerationError`` with every problem found; nothing is partially returned.
    Overlapping routes are listed in ``BindingFile.overlaps``, never judged here: the
    plugin applies ``options.ambiguity`` to them, against the acknowledgements.
    """
    if options.v0_3_proto is not None:
        return _with_v0_3(request, options, options.v0_3_proto)
    index = Index(request.proto_file)
    results: list[BindingFile] = []
    errors: list[Diagnostic] = []
    warnings: list[str] = []
    for file in request.proto_file:
        errors.extend(check_names(file, index.infos[file.name]))
        errors.extend(
            check_references(file, index.infos[file.name], index.messages, index.enums)
        )
    if errors:
        raise GenerationError(errors)
    for name in sorted(request.file_to_generate):
        file = index.files[name]
        builder = _ServiceBuilder(index, file, options)
        services = builder.services()
        errors.extend(builder.errors)
        warnings.extend(builder.warnings)
        if not services:
            # A file without services (an import buf lists, say) is nothing to do; a file
            # whose services all lack http rules was almost certainly meant to have them.
            if builder.skipped and not builder.errors:
                first = builder.skipped[0]
                errors.append(
                    replace(
                        first,
                        message=first.message.replace(
                            "; skipped", "; nothing to generate"
                        ),
                    )
                )
            continue
        warnings.extend(f"warning: {skipped}" for skipped in builder.skipped)
        errors.extend(check_duplicates(services))
        routes = route_table(services)
        overlaps = find_overlaps(routes)
        messages, enums = _reachable(index, services)
        names, clashes = python_names(messages, enums)
        errors.extend(_clash_diagnostics(clashes, messages, enums))
        errors.extend(_handler_clashes(services))
        stem = name.rsplit("/", 1)[-1].removesuffix(".proto")
        results.append(
            BindingFile(
                proto_file=name,
                proto_package=file.package,
                module=options.module or module_name(stem),
                services=tuple(services),
                messages=tuple(messages),
                enums=tuple(enums),
                descriptor_sha256=descriptor_sha256(file),
                generator_version=__version__,
                tenant_field=proto_json_name(options.tenant_field or "tenant"),
                routes=routes,
                overlaps=tuple(overlaps),
                python_names=names,
                protocol_version=options.protocol_version,
                openapi=options.openapi,
                package_location=index.infos[name].location((FILE_PACKAGE,)),
            )
        )
    packages: dict[str, str] = {}
    for binding_file in results:
        other = packages.setdefault(binding_file.module, binding_file.proto_file)
        if other != binding_file.proto_file:
            errors.append(
                Diagnostic(
                    SourceLocation(binding_file.proto_file),
                    f"would be generated as package {binding_file.module}, like {other}; "
                    "generate them in separate runs, each with its own module=NAME",
                )
            )
    if errors:
        raise GenerationError(errors)
    return Generation(tuple(results), tuple(warnings))


def _with_v0_3(
    request: plugin_pb2.CodeGeneratorRequest, options: Options, name: str
) -> Generation:
    """The model of a run with option ``v0_3_proto``: the other files as usual, and
    ``name``, the A2A 0.3 proto, built apart (protocol version 0.3, named after the one
    A2A package of the others, whose ``v0_3`` subpackage it becomes)."""

    def refused(why: str) -> GenerationError:
        return GenerationError(
            [Diagnostic(SourceLocation(name), f"option v0_3_proto={name}: {why}")]
        )

    if name not in request.file_to_generate:
        listed = ", ".join(sorted(request.file_to_generate)) or "none"
        raise refused(f"no such file to generate (the files are: {listed})")
    plain = replace(options, v0_3_proto=None)
    main = build_files(
        _only(request, [f for f in request.file_to_generate if f != name]), plain
    )
    a2a = [file for file in main.files if file.a2a]
    if len(a2a) != 1:
        found = ", ".join(f.proto_file for f in a2a) or "none"
        raise refused(
            "the 0.3 tables go beside exactly one A2A package, and the other files "
            f"make {len(a2a)} ({found})"
        )
    legacy = build_files(
        _only(request, [name]),
        replace(plain, protocol_version="0.3", module=a2a[0].module, openapi=False),
    )
    if not legacy.files or not legacy.files[0].a2a:
        raise refused(
            "the file has no A2A service "
            "(profile=a2a applies the A2A profile to other service names)"
        )
    return Generation(main.files, main.warnings + legacy.warnings, legacy.files[0])


def _only(
    request: plugin_pb2.CodeGeneratorRequest, names: Sequence[str]
) -> plugin_pb2.CodeGeneratorRequest:
    """``request`` with only ``names`` to generate."""
    copy = plugin_pb2.CodeGeneratorRequest()
    copy.CopyFrom(request)
    del copy.file_to_generate[:]
    copy.file_to_generate.extend(names)
    return copy


def _clash_diagnostics(
    clashes: Sequence[tuple[str, str, str]],
    messages: Sequence[Message],
    enums: Sequence[Enum],
) -> list[Diagnostic]:
    """Two types that would become one Python identifier, with both locations."""
    where = {m.full_name: m.location for m in messages}
    where.update({e.full_name: e.location for e in enums})
    return [
        Diagnostic(
            where[second],
            f"{second} and {first} ({where[first]}) would both be generated as "
            f"{identifier!r} in messages.py; rename one of them",
        )
        for identifier, first, second in clashes
    ]


def _handler_clashes(services: Sequence[Service]) -> list[Diagnostic]:
    """Names ``handler.py`` cannot write for an A2A file: two rpcs whose handler methods
    would share a snake_case name, a handler method that Python would mangle (a leading
    ``__`` in a class body), and a service whose ``<Service>Handler`` Protocol would be
    ``ServiceHandler``, the name of the Protocol that joins several services."""
    errors: list[Diagnostic] = []
    if not any(service.a2a for service in services):
        return errors
    for service in services:
        if service.name == "Service" and len(services) > 1:
            first = service.methods[0]
            errors.append(
                Diagnostic(
                    first.location,
                    f"service {service.full_name} would be generated as ServiceHandler, "
                    "the Protocol that joins the file's services; rename the service",
                )
            )
        seen: dict[str, Method] = {}
        for method in service.methods:
            attribute = method.handler_name
            if attribute.startswith("__"):
                errors.append(
                    Diagnostic(
                        method.location,
                        f"the handler method of rpc {method.name} would be "
                        f"{attribute!r}, which Python mangles inside a class; rename "
                        "the rpc",
                        method.name,
                    )
                )
            other = seen.setdefault(attribute, method)
            if other is not method:
                errors.append(
                    Diagnostic(
                        method.location,
                        f"the handler method of rpc {method.name} would be "
                        f"{attribute!r}, like rpc {other.name}'s "
                        f"({other.location}); rename one of them",
                        method.name,
                    )
                )
    return errors

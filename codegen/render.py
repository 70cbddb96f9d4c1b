"""Templates in, formatted Python out: jinja2 with StrictUndefined, then black's layout
(``layout``, which splits long lines as black does; black itself only for a module with a
line ``layout`` leaves to it).

Templates see only the model (``codegen.model``). Output is byte-for-byte deterministic:
inputs are iterated in model order (sorted or declaration order), nothing reads the clock.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
import jinja2.bccache

from .gate import GateError, check_module
from .layout import LINE_LENGTH, Unformattable, layout
from .model import BindingFile
from .runtime import LAYERS
from .serving_views import AsgiView, ClientView, GrpcView, HandlerView
from .views import (
    Call,
    FileView,
    InitView,
    Item,
    JsonRpcView,
    MessagesView,
    ProtocolView,
    QueryView,
    RoutesView,
)

# Printable ASCII but for the quotes and the backslash: such text is its own literal.
_PLAIN = re.compile(r"[ !#-&(-\[\]-~]*")

if TYPE_CHECKING:
    from black.mode import Mode

__all__ = [
    "RenderError",
    "TemplateCache",
    "black_mode",
    "new_environment",
    "render_file",
    "render_v0_3",
    "V0_3_PACKAGE",
    "render_sources",
    "format_source",
    "template_dir",
    "runtime_dir",
    "runtime_files",
    "runtime_layers",
    "CLIENT_MODULE",
    "MODULES",
    "GRPC_MODULE",
    "TRANSLATE_MODULE",
    "SERVE_MODULES",
]

# One template per emitted module, in the order they are written.
MODULES = ("__init__.py", "routes.py", "query.py", "jsonrpc.py", "messages.py")

# The subpackage holding the A2A 0.3 tables (option ``v0_3_proto``), and its modules:
# the tables only; the runtime and ``protocol`` are the parent package's.
V0_3_PACKAGE = "v0_3"
V0_3_MODULES = ("routes.py", "query.py", "messages.py")

# The modules of the layers beyond the tables (options ``serve``, ``client``): the
# serving layer's (``protocol.py`` for A2A only), and the client helpers (A2A only).
SERVE_MODULES = ("handler.py", "asgi.py", "protocol.py")
CLIENT_MODULE = "client.py"
GRPC_MODULE = "grpc_binding.py"
TRANSLATE_MODULE = "http_backend.py"


class RenderError(RuntimeError):
    """A template that failed to render or produced code that does not parse: a
    generator bug, never an input problem. The message names the template."""


def runtime_dir() -> Path:
    """The runtime (``codegen/runtime``), shipped inside the generator package: one
    folder a layer (see ``runtime_layers``)."""
    return Path(__file__).with_name("runtime")


def runtime_layers(
    *,
    a2a: bool = False,
    serve: bool = False,
    client: bool = False,
    grpc: bool = False,
    translate: bool = False,
) -> tuple[str, ...]:
    """The runtime folders a package carries whole, in ``LAYERS`` order: ``tables``
    always; ``errors`` (A2A's error table) for an ``a2a`` service and with serving or
    calling; ``wire`` (what both ends of a call share) with serving or calling;
    ``v0_3`` with calling or serving an ``a2a`` service (both speak to 0.3 peers
    too); ``serve``, ``client``, ``grpc`` and ``translate`` with their options
    (``grpc`` implies ``serve``; ``translate`` both ``serve`` and ``client``)."""
    serve = serve or grpc or translate
    client = client or translate
    wanted = {
        "tables": True,
        "errors": a2a or serve or client,
        "wire": serve or client,
        "v0_3": client or (serve and a2a),
        "serve": serve,
        "client": client,
        "grpc": grpc,
        "translate": translate,
    }
    return tuple(layer for layer in LAYERS if wanted[layer])


def runtime_files(layers: Iterable[str]) -> dict[str, Path]:
    """The runtime modules of ``layers``, by the file name they have in a package."""
    folder = runtime_dir()
    return {
        path.name: path
        for layer in layers
        for path in sorted((folder / layer).glob("_*.py"))
    }


def template_dir() -> Path:
    """Templates ship inside the wheel as ``codegen/templates``; in a source checkout they
    are the top-level ``templates/`` folder."""
    packaged = Path(__file__).with_name("templates")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "templates"


class TemplateCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between runs: compiling them took 55 ms of a 0.23 s run
    on the A2A proto. jinja2 keys each entry by the template's path and checks it against the
    template's source and the jinja2 and Python versions, so an edited template is
    compiled again; an entry that cannot be read or written only means compiling."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # unreadable or corrupt, whatever pickle or marshal raise
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _template_cache() -> TemplateCache | None:
    """jinja2's per-user cache directory (under the temporary directory, mode 0700,
    owner checked by jinja2), or None where there is no safe one."""
    try:
        return TemplateCache()
    except (OSError, RuntimeError):
        return None


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return new_environment(_template_cache())


def new_environment(cache: jinja2.BytecodeCache | None) -> jinja2.Environment:
    """The templates' environment, with ``cache`` for their compiled code."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        bytecode_cache=cache,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["py"] = _python_literal
    env.filters["docstring"] = _docstring
    env.filters["comment"] = _comment
    env.filters["comment_line"] = _comment_line
    return env


def _python_literal(value: object) -> str:
    """A Python literal for a str, int, bool, None or a tuple of those; a ``Call`` or an
    ``Item`` of the views as the expression it stands for."""
    if isinstance(value, Call):
        arguments = [_python_literal(arg) for arg in value.args] + [
            f"{name}={_python_literal(arg)}" for name, arg in value.keywords
        ]
        return f"{value.name}({', '.join(arguments)})"
    if isinstance(value, Item):
        key = value.position
        return (
            f"{value.table}[{key:d}]"
            if type(key) is int
            else f"{value.table}[{_python_literal(key)}]"
        )
    if type(value) is tuple:  # a plain tuple: a record (a NamedTuple) is no literal
        inner = ", ".join(_python_literal(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, str):
        return _string_literal(value)
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    raise TypeError(f"no Python literal for {type(value).__name__}")


def _string_literal(text: str) -> str:
    """A quoted literal that is printable ASCII whatever ``text`` holds: the quote and
    backslashes escaped, everything outside ``" "..."~"`` as an escape sequence. Double
    quotes unless single ones need fewer escapes (black's choice, so black leaves it).
    """
    if _PLAIN.fullmatch(text):
        return f'"{text}"'
    quote = "'" if text.count('"') > text.count("'") else '"'
    out = []
    for char in text:
        if char == "\\" or char == quote:
            out.append("\\" + char)
        elif " " <= char <= "~":
            out.append(char)
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    return quote + "".join(out) + quote


def _comment(text: str) -> str:
    """Text made safe after ``#`` on one line: control characters (line ends included)
    and anything else not printable are written as escapes."""
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
        for c in text
    )


def _docstring(text: str, indent: int = 0, whole: bool = True) -> str:
    """Text made safe inside a ``\"\"\"`` docstring at ``indent``: backslashes doubled,
    a quote escaped wherever it would make three in a row (so the output never holds
    three quotes in a row, and nothing can end the string early), and characters
    Python would not keep as they are in source (NUL, CR, the Unicode line separators,
    other control characters) written as escapes.

    Lines are laid out as black lays out a docstring: leading tabs expanded to four
    columns, trailing space dropped; with ``whole`` (the text is the whole docstring:
    the closing quotes follow it) the common indentation of the lines after the first
    is removed before indenting them to ``indent``, and a last quote is padded with a
    space. Inside a longer docstring (``whole=False``) lines keep their indentation and
    a last quote is escaped."""
    lines = [
        _expand_leading_tabs(line).rstrip()
        for line in _docstring_text(text.replace("\r\n", "\n")).split("\n")
    ]
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        return ""
    pad = " " * indent
    margin = 0
    if whole:
        indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line]
        margin = min(indents, default=0)
    lines = [lines[0].lstrip()] + [
        (pad + line[margin:]) if line else "" for line in lines[1:]
    ]
    if lines[-1].endswith('"'):
        if whole:  # black's padding: the quote would run into the closing ones
            lines[-1] += " "
        else:  # more text follows on the next line: the quote is escaped instead
            head = lines[-1][:-1]
            if (len(head) - len(head.rstrip("\\"))) % 2 == 0:  # not escaped yet
                lines[-1] = head + '\\"'
    body = "\n".join(lines)
    if body.startswith('"'):
        body = " " + body
    if len(lines) > 1 and len(lines[-1]) + 3 > LINE_LENGTH:
        body += "\n" + pad
    return body


def _docstring_text(text: str) -> str:
    """``text`` with the escapes ``_docstring`` describes (line ends and tabs kept)."""
    if (
        "\\" not in text
        and '"""' not in text  # then no quote makes three in a row
        and text.replace("\n", "").replace("\t", "").isprintable()
    ):
        return text  # the common case: nothing to escape
    out: list[str] = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char == '"' and len(out) > 1 and out[-1][-1:] == out[-2][-1:] == '"':
            out.append('\\"')
        elif char in '\n\t"' or char.isprintable():
            out.append(char)
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def _expand_leading_tabs(line: str) -> str:
    """Tabs in a line's indentation as black expands them in a docstring (to four
    columns); tabs after the first other character stay."""
    stripped = line.lstrip()
    if not stripped or stripped == line:
        return line
    return line[: len(line) - len(stripped)].expandtabs(4) + stripped


def _comment_line(text: str) -> str:
    """A whole ``#`` comment line holding ``text`` (``#`` alone for an empty line, as
    black writes it)."""
    text = _comment(text).rstrip()
    return "# " + text if text else "#"


def black_mode() -> Mode:
    """The black configuration generated modules follow (the layout's, and the one the
    tests hold it to)."""
    from black.mode import Mode, TargetVersion  # only here: see _black

    return Mode(
        target_versions={TargetVersion.PY310},
        line_length=LINE_LENGTH,
        magic_trailing_comma=True,
    )


def _black(source: str) -> str:
    """Black itself over one module, for a line ``layout`` leaves to it."""
    import black  # only here: generation of ordinary protos never needs it
    from black.parsing import InvalidInput

    try:
        return black.format_str(source, mode=black_mode())
    except InvalidInput as exc:
        raise RenderError(f"invalid Python: {exc}") from exc


def _views(
    binding_file: BindingFile,
    pb2_module: str | None,
    v0_3: bool = False,
    *,
    serve: bool = False,
    client: bool = False,
    translate: bool = False,
) -> dict[str, FileView]:
    """One view per template, by module file name: the tables always; with ``serve``
    the handler and the ASGI app; with ``client`` the client helpers (A2A only); for
    A2A with either, ``protocol`` (its rules: both sides use them); with a
    ``pb2_module`` (option ``grpc=true``, which implies ``serve``) the gRPC binding's;
    with ``translate`` (A2A only; implies ``serve`` and ``client``) the HTTP backend.
    ``v0_3``: the package has the ``v0_3`` subpackage, which its application
    serves."""
    found: dict[str, FileView] = {
        "__init__.py": FileView(binding_file),
        "routes.py": RoutesView(binding_file),
        "query.py": QueryView(binding_file),
        "jsonrpc.py": JsonRpcView(binding_file),
        "messages.py": MessagesView(binding_file),
    }
    translate = translate and binding_file.a2a
    serve = serve or pb2_module is not None or translate
    client = client or translate
    if serve:
        found["handler.py"] = HandlerView(binding_file)
        found["asgi.py"] = AsgiView(binding_file, v0_3=v0_3)
    if binding_file.a2a and (serve or client):  # A2A's rules, for either side
        found["protocol.py"] = ProtocolView(binding_file)
    if client and binding_file.a2a:
        found[CLIENT_MODULE] = ClientView(binding_file)
    if pb2_module is not None:
        found[GRPC_MODULE] = GrpcView(binding_file, pb2_module)
    if translate:
        found[TRANSLATE_MODULE] = ClientView(binding_file)
    modules = [name.removesuffix(".py") for name in found] + ["v0_3"] * v0_3
    found["__init__.py"] = InitView(binding_file, modules)
    return found


def render_sources(
    binding_file: BindingFile,
    env: jinja2.Environment | None = None,
    *,
    pb2_module: str | None = None,
    v0_3: bool = False,
    serve: bool = False,
    client: bool = False,
    translate: bool = False,
) -> dict[str, str]:
    """Every module's source as the templates write it, before ``layout``: the
    tables, and the layers asked for (see ``_views``); ``v0_3``: the package has the
    ``v0_3`` subpackage."""
    env = env or _environment()
    sources: dict[str, str] = {}
    layers = _views(
        binding_file,
        pb2_module,
        v0_3,
        serve=serve,
        client=client,
        translate=translate,
    )
    for module, view in layers.items():
        name = module + ".j2"
        try:
            sources[module] = env.get_template(name).render(view=view)
        except jinja2.TemplateError as exc:
            raise RenderError(f"template {name}: {exc}") from exc
    return sources


def format_source(source: str) -> str:
    """One module in black's layout: ``layout`` splits the long lines as black does,
    and black itself formats a module holding a line ``layout`` does not decide."""
    try:
        return layout(source)
    except Unformattable:
        return _black(source)


def render_file(
    binding_file: BindingFile,
    *,
    pb2_module: str | None = None,
    v0_3: bool = False,
    serve: bool = False,
    client: bool = False,
    translate: bool = False,
) -> dict[str, str]:
    """Every module of one output package, by file name relative to the package: the
    tables; with ``serve`` the serving layer, with ``client`` the client helpers, with
    ``pb2_module`` (option ``grpc=true``: the module of the message classes) the gRPC
    binding, with ``translate`` the HTTP backend; and the runtime folders of those layers (``runtime_layers``). ``v0_3``:
    the package has the ``v0_3`` subpackage (option ``v0_3_proto``), which its
    ``asgi.py`` serves."""
    rendered = {}
    sources = render_sources(
        binding_file,
        pb2_module=pb2_module,
        v0_3=v0_3,
        serve=serve,
        client=client,
        translate=translate,
    )
    for module, source in sources.items():
        try:
            rendered[module] = format_source(source)
        except RenderError as exc:
            raise RenderError(f"template {module}.j2 produced {exc}") from exc
    for module, source in rendered.items():
        try:
            check_module(module, source)
        except GateError as exc:
            raise RenderError(f"template {module}.j2: {exc}") from exc
    header = (
        _environment().get_template("_header.j2").render(view=FileView(binding_file))
    )
    layers = runtime_layers(
        a2a=binding_file.a2a,
        serve=serve,
        client=client,
        grpc=pb2_module is not None,
        translate=translate and binding_file.a2a,
    )
    for module, path in runtime_files(layers).items():
        rendered[module] = header + path.read_text(encoding="utf-8")
    if binding_file.openapi:
        from .openapi import openapi_document  # only here: an option most runs lack

        rendered["openapi.json"] = openapi_document(binding_file)
    rendered["py.typed"] = ""
    return rendered


def render_v0_3(binding_file: BindingFile) -> dict[str, str]:
    """The ``v0_3`` subpackage for the A2A 0.3 file, by file name relative to it: its
    route table, query codecs and TypedDicts, importing the runtime from the parent."""
    found = _views(binding_file, None)
    chosen: dict[str, FileView] = {"__init__.py": FileView(binding_file)}
    chosen.update((module, found[module]) for module in V0_3_MODULES)
    env = _environment()
    rendered: dict[str, str] = {}
    for module, view in chosen.items():
        view.runtime = ".."
        name = "v0_3_init.py.j2" if module == "__init__.py" else module + ".j2"
        try:
            source = env.get_template(name).render(view=view)
        except jinja2.TemplateError as exc:
            raise RenderError(f"template {name}: {exc}") from exc
        try:
            rendered[module] = format_source(source)
            check_module(module, rendered[module], subpackage=True)
        except (RenderError, GateError) as exc:
            raise RenderError(f"template {name}: {exc}") from exc
    return rendered

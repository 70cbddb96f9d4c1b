"""Templates in, formatted Python out: jinja2 with StrictUndefined, then black.

Templates see only the model (``codegen.model``). Output is byte-for-byte deterministic:
inputs are iterated in model order (sorted or declaration order), nothing reads the clock.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import functools
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import black
import jinja2
from black.mode import Mode, TargetVersion
from black.parsing import InvalidInput

from .gate import GateError, check_module
from .model import BindingFile
from .openapi import openapi_document
from .views import views

__all__ = [
    "RenderError",
    "render_file",
    "render_sources",
    "format_sources",
    "template_dir",
    "runtime_dir",
    "runtime_modules",
    "MODULES",
]

# One template per emitted module, in the order they are written.
MODULES = ("__init__.py", "routes.py", "query.py", "jsonrpc.py", "messages.py")

# The runtime every package carries verbatim, and what only A2A packages carry.
RUNTIME = ("_query.py", "_paths.py", "_jsonrpc.py", "_required.py")
A2A_RUNTIME = ("_protocol.py", "_asgi.py", "_client.py")

_LINE_LENGTH = 88
_BLACK_MODE = Mode(
    target_versions={TargetVersion.PY310},
    line_length=_LINE_LENGTH,
    magic_trailing_comma=True,
)


class RenderError(RuntimeError):
    """A template that failed to render or produced code black cannot parse: a generator
    bug, never an input problem. The message names the template."""


def runtime_dir() -> Path:
    """The runtime modules (``codegen/runtime``), shipped inside the generator package."""
    return Path(__file__).with_name("runtime")


def runtime_modules(binding_file: BindingFile) -> tuple[str, ...]:
    """The runtime modules a package carries, by file name."""
    return RUNTIME + (A2A_RUNTIME if binding_file.a2a else ())


def template_dir() -> Path:
    """Templates ship inside the wheel as ``codegen/templates``; in a source checkout they
    are the top-level ``templates/`` folder."""
    packaged = Path(__file__).with_name("templates")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "templates"


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["py"] = _python_literal
    env.filters["docstring"] = _docstring
    env.filters["comment"] = _comment
    return env


def _python_literal(value: object) -> str:
    """A Python literal for a str, int, bool, None or a tuple of those."""
    if isinstance(value, tuple):
        inner = ", ".join(_python_literal(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, str):
        return _string_literal(value)
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    raise TypeError(f"no Python literal for {type(value).__name__}")


def _string_literal(text: str) -> str:
    """A double-quoted literal that is printable ASCII whatever ``text`` holds: quotes
    and backslashes escaped, everything outside ``" "..."~"`` as an escape sequence."""
    out = []
    for char in text:
        if char == "\\" or char == '"':
            out.append("\\" + char)
        elif " " <= char <= "~":
            out.append(char)
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    return '"' + "".join(out) + '"'


def _comment(text: str) -> str:
    """Text made safe after ``#`` on one line: control characters (line ends included)
    and anything else not printable are written as escapes."""
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
        for c in text
    )


def _docstring(text: str, indent: int = 0) -> str:
    """Text made safe inside a ``\"\"\"`` docstring at ``indent``: backslashes doubled,
    every quote that could close the string escaped, and characters Python would not
    keep as they are in source (NUL, CR, the Unicode line separators, other control
    characters) written as escapes, so the docstring holds the text and nothing can end
    it early. Lines are indented as black indents them."""
    out: list[str] = []
    quotes = 0  # unescaped quotes just written: a third would close the string
    for char in text.replace("\r\n", "\n"):
        if char == '"':
            quotes += 1
            if quotes == 3:
                out.append('\\"')
                quotes = 0
                continue
        else:
            quotes = 0
        if char == "\\":
            out.append("\\\\")
        elif char in '\n\t"' or char.isprintable():
            out.append(char)
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    pad = " " * indent
    lines = [
        (pad + line.rstrip()) if line.strip() else ""
        for line in "".join(out).split("\n")
    ]
    while lines and not lines[-1]:
        lines.pop()
    if lines and lines[-1].endswith('"'):
        head = lines[-1][:-1]
        if (len(head) - len(head.rstrip("\\"))) % 2 == 0:  # the quote is not escaped
            lines[-1] = head + '\\"'  # it would run into the closing quotes
    body = "\n".join(lines).lstrip()
    if len(lines) > 1 and len(lines[-1]) + 3 > _LINE_LENGTH:
        body += "\n" + pad
    return body


# Above this many lines, the modules are formatted in parallel processes.
_PARALLEL_LINES = 20_000


def _format(source: str) -> str:
    return black.format_str(source, mode=_BLACK_MODE)


def render_sources(binding_file: BindingFile) -> dict[str, str]:
    """Every module's source as the templates write it, before black."""
    env = _environment()
    sources: dict[str, str] = {}
    for module, view in views(binding_file).items():
        name = module + ".j2"
        try:
            sources[module] = env.get_template(name).render(view=view)
        except jinja2.TemplateError as exc:
            raise RenderError(f"template {name}: {exc}") from exc
    return sources


def format_sources(sources: dict[str, str]) -> dict[str, str]:
    """Black over every module. The templates already write black's layout, so this is
    one pass that changes nothing; big outputs are formatted in parallel processes."""
    workers = min(len(sources), os.cpu_count() or 1)
    parallel = (
        workers > 1 and sum(s.count("\n") for s in sources.values()) > _PARALLEL_LINES
    )
    formatted: dict[str, str] = {}
    with (
        concurrent.futures.ProcessPoolExecutor(
            workers, initializer=_die_with_parent, initargs=(os.getpid(),)
        )
        if parallel
        else _Inline()
    ) as pool:
        jobs = {
            module: pool.submit(_format, source) for module, source in sources.items()
        }
        for module, job in jobs.items():
            try:
                formatted[module] = job.result()
            except InvalidInput as exc:
                raise RenderError(
                    f"template {module}.j2 produced invalid Python: {exc}"
                ) from exc
    return formatted


def _die_with_parent(parent: int) -> None:
    """In a formatting worker: end when the generator process ends, even when it is
    killed (a timeout, Ctrl-C), instead of running on as an orphan. Linux only."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            return  # no prctl: the worker still ends when its work queue closes
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)


class _Inline:
    """A stand-in executor that runs each job at once, in this process."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def submit(
        self, function: Callable[[str], str], source: str
    ) -> concurrent.futures.Future[str]:
        future: concurrent.futures.Future[str] = concurrent.futures.Future()
        try:
            future.set_result(function(source))
        except (
            Exception
        ) as exc:  # handed to the caller through the future, as a pool would
            future.set_exception(exc)
        return future


def render_file(binding_file: BindingFile) -> dict[str, str]:
    """Every module of one output package, by file name relative to the package."""
    rendered = format_sources(render_sources(binding_file))
    for module, source in rendered.items():
        try:
            check_module(module, source)
        except GateError as exc:
            raise RenderError(f"template {module}.j2: {exc}") from exc
    header = (
        _environment()
        .get_template("_header.j2")
        .render(view=views(binding_file)["__init__.py"])
    )
    for module in runtime_modules(binding_file):
        rendered[module] = header + (runtime_dir() / module).read_text(encoding="utf-8")
    if binding_file.openapi:
        rendered["openapi.json"] = openapi_document(binding_file)
    rendered["py.typed"] = ""
    return rendered

"""Templates in, formatted Python out: jinja2 with StrictUndefined, then black.

Templates see only the model (``codegen.model``). Output is byte-for-byte deterministic:
inputs are iterated in model order (sorted or declaration order), nothing reads the clock.
"""

from __future__ import annotations

import functools
import keyword
from pathlib import Path

import black
import jinja2
from black.mode import Mode, TargetVersion
from black.parsing import InvalidInput

from codegen.model import BindingFile

__all__ = ["RenderError", "render_file", "template_dir", "MODULES"]

# One template per emitted module, in the order they are written.
MODULES = ("__init__.py", "routes.py", "query.py", "jsonrpc.py", "messages.py")

_BLACK_MODE = Mode(target_versions={TargetVersion.PY310}, line_length=88, magic_trailing_comma=True)


class RenderError(RuntimeError):
    """A template that failed to render or produced code black cannot parse: a generator
    bug, never an input problem. The message names the template."""


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
    env.filters["tuple_"] = tuple
    env.filters["snake"] = _snake_case
    env.tests["identifier"] = _is_identifier
    return env


def _snake_case(name: str) -> str:
    """``GetTaskPushNotificationConfig`` -> ``get_task_push_notification_config``."""
    out: list[str] = []
    for i, char in enumerate(name):
        if char.isupper() and i and (not name[i - 1].isupper() or name[i + 1 : i + 2].islower()):
            if name[i - 1] != "_":
                out.append("_")
        out.append(char.lower())
    return "".join(out)


def _is_identifier(text: str) -> bool:
    return text.isidentifier() and not keyword.iskeyword(text)


def _python_literal(value: object) -> str:
    """A Python literal for a str, int, bool, None or a tuple of those."""
    if isinstance(value, tuple):
        inner = ", ".join(_python_literal(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, str):
        return (
            '"'
            + value.replace("\\", "\\\\")
            .replace('"', '\\"')
            .encode("ascii", "backslashreplace")
            .decode("ascii")
            .replace("\n", "\\n")
            + '"'
        )
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    raise TypeError(f"no Python literal for {type(value).__name__}")


def _docstring(text: str, indent: int = 0) -> str:
    """Proto comment text made safe inside a triple-quoted docstring."""
    cleaned = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').rstrip()
    if cleaned.endswith('"'):
        cleaned += " "
    pad = " " * indent
    return "\n".join((pad + line) if line.strip() else "" for line in cleaned.splitlines()).lstrip()


def render_file(binding_file: BindingFile) -> dict[str, str]:
    """Every module of one output package, by file name relative to the package."""
    env = _environment()
    rendered: dict[str, str] = {}
    for module in MODULES:
        name = module + ".j2"
        try:
            source = env.get_template(name).render(file=binding_file, module=module)
        except jinja2.TemplateError as exc:
            raise RenderError(f"template {name}: {exc}") from exc
        try:
            rendered[module] = black.format_str(source, mode=_BLACK_MODE)
        except InvalidInput as exc:
            raise RenderError(f"template {name} produced invalid Python: {exc}") from exc
    rendered["py.typed"] = ""
    return rendered

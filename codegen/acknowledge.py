"""Overlaps a user has reviewed, so that only new ones are warned about (or fail).

An acknowledgement file (plugin option ``acknowledge=FILE``) holds one overlap a line,
in either of two forms; ``#`` starts a comment, blank lines are ignored::

    # a route pair: verb and both templates, in either order
    GET /tasks/{id=*} and GET /{tenant}/tasks
    # an example path: every overlap whose two routes both match it
    GET /tasks/extendedAgentCard

The first form is what ``a2a-codegen routes`` prints under "overlapping routes", so a
reviewed line can be copied as it is. Templates compare by meaning (``{id}`` is
``{id=*}``). An acknowledgement that matches no overlap is stale and is itself warned
about, so the file cannot silently outlive the overlaps it was written for.

Everything here but ``load`` is pure: the plugin reads the file, the model finds the
overlaps, and ``settle`` says which are new.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, NamedTuple, Protocol, TypeVar

from .http_rule import PathTemplate, SegmentKind, TemplateError, parse_template

__all__ = [
    "A2A_OVERLAPS",
    "Acknowledgement",
    "AcknowledgementError",
    "Settled",
    "load",
    "overlap_line",
    "parse",
    "settle",
]

A2A_OVERLAPS = Path(__file__).with_name("a2a.overlaps")
"""The overlaps of ``lf.a2a.v1.A2AService`` (v1.0.x) this project reviewed, shipped
with the package (docs/generating.md, "Overlapping routes", explains each)."""

_VERB = re.compile(r"[A-Za-z]+\Z")
# How a segment prints (``str(Segment)``): a literal never holds "*".
_ONE = str(SegmentKind.WILDCARD.value)
_DEEP = str(SegmentKind.DEEP_WILDCARD.value)


class AcknowledgementError(ValueError):
    """A line of an acknowledgement file that cannot be read; the message names
    ``file:line:col``."""


class _Route(Protocol):
    @property
    def verb(self) -> str: ...

    @property
    def template(self) -> PathTemplate: ...


class _RouteRow(Protocol):
    """What ``settle`` reads of ``codegen.model.Route``: its binding."""

    @property
    def binding(self) -> _Route: ...


class _Overlap(Protocol):
    """What ``settle`` needs of ``codegen.model.Overlap``: the two routes; only their
    bindings' verb and template are read."""

    @property
    def first(self) -> _RouteRow: ...

    @property
    def second(self) -> _RouteRow: ...


class Acknowledgement(NamedTuple):
    """One reviewed overlap: a route pair (``templates``) or an example ``path``."""

    source: str  # the file, as named in the option
    line: int
    text: str  # the line without its comment, for messages
    verb: str  # upper case
    templates: tuple[PathTemplate, PathTemplate] | None = None
    path: str | None = None

    def matches(self, overlap: _Overlap) -> bool:
        """True when this acknowledgement covers ``overlap``."""
        first, second = overlap.first.binding, overlap.second.binding
        if first.verb.upper() != self.verb or second.verb.upper() != self.verb:
            return False
        if self.templates is not None:
            mine = {_meaning(t) for t in self.templates}
            return mine == {_meaning(first.template), _meaning(second.template)}
        assert self.path is not None
        return _path_matches(first.template, self.path) and _path_matches(
            second.template, self.path
        )

    @property
    def stale_warning(self) -> str:
        """The warning for an acknowledgement that matched no overlap."""
        return (
            f"warning: {self.source}:{self.line}: acknowledged overlap '{self.text}' "
            "matches no overlap in this run (stale: remove the line)"
        )


O = TypeVar("O", bound=_Overlap)


@dataclass(frozen=True)
class Settled(Generic[O]):
    """Overlaps split by the acknowledgements, and the acknowledgements left over."""

    new: tuple[O, ...]
    acknowledged: tuple[O, ...]
    stale: tuple[Acknowledgement, ...]


def parse(text: str, source: str) -> tuple[Acknowledgement, ...]:
    """Every acknowledgement in ``text`` (the content of file ``source``)."""
    found: list[Acknowledgement] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        content = raw.partition("#")[0].rstrip()
        if content.strip():
            found.append(_parse_line(content, source, number))
    return tuple(found)


def load(path: str) -> tuple[Acknowledgement, ...]:
    """Read and parse the acknowledgement file at ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise AcknowledgementError(
            f"option acknowledge={path}: cannot read the file ({reason})"
        ) from exc
    return parse(text, path)


def settle(
    overlaps: Iterable[O], acknowledgements: Sequence[Acknowledgement]
) -> Settled[O]:
    """Split ``overlaps`` into new and acknowledged ones; an acknowledgement that
    matches none of them is stale."""
    new: list[O] = []
    acknowledged: list[O] = []
    used: set[int] = set()
    for overlap in overlaps:
        hits = [i for i, ack in enumerate(acknowledgements) if ack.matches(overlap)]
        used.update(hits)
        (acknowledged if hits else new).append(overlap)
    stale = tuple(ack for i, ack in enumerate(acknowledgements) if i not in used)
    return Settled(tuple(new), tuple(acknowledged), stale)


def overlap_line(overlap: _Overlap) -> str:
    """The overlap as an acknowledgement line (the route-pair form)."""
    first, second = overlap.first.binding, overlap.second.binding
    return f"{first.verb} {first.template.source} and {second.verb} {second.template.source}"


def _parse_line(content: str, source: str, number: int) -> Acknowledgement:
    tokens = [(m.group(), m.start() + 1) for m in re.finditer(r"\S+", content)]
    text = " ".join(token for token, _ in tokens)

    def error(message: str, column: int) -> AcknowledgementError:
        return AcknowledgementError(f"{source}:{number}:{column}: {message}")

    if len(tokens) == 2:
        (verb, verb_column), (path, path_column) = tokens
        _check_verb(verb, verb_column, error)
        if not path.startswith("/") or "{" in path or "?" in path:
            raise error(
                f"expected an example path such as /tasks/tasks, got {path!r}",
                path_column,
            )
        return Acknowledgement(source, number, text, verb.upper(), path=path)
    if len(tokens) == 5 and tokens[2][0].lower() == "and":
        (verb1, column1), (source1, template_column1) = tokens[0], tokens[1]
        (verb2, column2), (source2, template_column2) = tokens[3], tokens[4]
        _check_verb(verb1, column1, error)
        _check_verb(verb2, column2, error)
        if verb1.upper() != verb2.upper():
            raise error(
                f"{verb1} and {verb2} cannot overlap: an overlap is between routes of one verb",
                column2,
            )
        templates = (
            _template(source1, template_column1, error),
            _template(source2, template_column2, error),
        )
        return Acknowledgement(source, number, text, verb1.upper(), templates=templates)
    raise error(
        "expected 'VERB /example/path' or 'VERB TEMPLATE and VERB TEMPLATE', "
        f"got {len(tokens)} words",
        tokens[0][1],
    )


def _check_verb(verb: str, column: int, error: _ErrorFactory) -> None:
    if not _VERB.match(verb):
        raise error(f"expected an HTTP verb such as GET, got {verb!r}", column)


def _template(text: str, column: int, error: _ErrorFactory) -> PathTemplate:
    try:
        return parse_template(text)
    except TemplateError as exc:
        raise error(f"template {text!r}: {exc.message}", column + exc.column) from exc


class _ErrorFactory(Protocol):
    def __call__(self, message: str, column: int) -> AcknowledgementError: ...


def _meaning(template: PathTemplate) -> tuple[object, ...]:
    """What a template matches and binds, whatever its spelling (``{id}`` = ``{id=*}``).

    Plain strings and numbers, so that templates parsed by another copy of the grammar
    module (an editable install imports it under two names) still compare."""
    variables = tuple((v.name, v.start, v.end) for v in template.variables)
    return (template.shape, variables)


def _path_matches(template: PathTemplate, path: str) -> bool:
    """True when the raw ``path`` matches ``template`` (a variable never matches an
    empty segment, as in the generated matcher)."""
    if template.verb is not None:
        suffix = ":" + template.verb
        if not path.endswith(suffix):
            return False
        path = path[: -len(suffix)]
    segments = path[1:].split("/") if path != "/" else []
    pattern = [str(segment) for segment in template.segments]
    for index, segment in enumerate(pattern):
        if segment == _DEEP:
            rest = segments[index:]
            return all(rest) and (bool(rest) or not _starts_variable(template, index))
        if index >= len(segments) or not segments[index]:
            return False
        if segment != _ONE and segment != segments[index]:
            return False
    return len(segments) == len(pattern)


def _starts_variable(template: PathTemplate, index: int) -> bool:
    return any(variable.start == index for variable in template.variables)

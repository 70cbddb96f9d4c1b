"""The ``google.api.http`` path-template grammar, as plain data.

Grammar (google/api/http.proto)::

    Template = "/" Segments [ Verb ] ;
    Segments = Segment { "/" Segment } ;
    Segment  = "*" | "**" | LITERAL | Variable ;
    Variable = "{" FieldPath [ "=" Segments ] "}" ;
    FieldPath = IDENT { "." IDENT } ;
    Verb     = ":" LITERAL ;

The template ``/`` (no segments) is accepted as the root path. This module knows nothing of
protobuf: it checks syntax only; whether a variable names a real field is the model's job.
"""

from __future__ import annotations

import enum
import string
from typing import NamedTuple

__all__ = [
    "SegmentKind",
    "Segment",
    "Variable",
    "PathTemplate",
    "TemplateError",
    "parse_template",
    "overlap_example",
    "precedence",
]


class TemplateError(ValueError):
    """A path template that does not follow the grammar.

    ``column`` is the 0-based offset in the template text where the problem is.
    """

    def __init__(self, message: str, template: str, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.template = template
        self.column = column

    def __str__(self) -> str:
        return f"{self.message} in path template {self.template!r} at column {self.column + 1}"


class SegmentKind(enum.Enum):
    """What one segment of a template matches."""

    LITERAL = "literal"
    WILDCARD = "*"
    DEEP_WILDCARD = "**"


class Segment(NamedTuple):
    """One ``/``-separated piece of a template, after variables are flattened."""

    kind: SegmentKind
    literal: str = ""

    def __str__(self) -> str:
        return self.literal if self.kind is SegmentKind.LITERAL else self.kind.value


class Variable(NamedTuple):
    """A ``{field.path=segments}`` capture.

    ``start`` and ``end`` index the flattened segments of the template; ``end`` is None when
    the variable ends with ``**`` and so runs to the end of the path.
    """

    field_path: tuple[str, ...]
    start: int
    end: int | None
    segments: tuple[Segment, ...]

    @property
    def name(self) -> str:
        """The field path as written, e.g. ``config.id``."""
        return ".".join(self.field_path)

    @property
    def single_segment(self) -> bool:
        """True for ``{x}`` and ``{x=*}``: the value is one fully percent-encoded segment."""
        return len(self.segments) == 1 and self.segments[0].kind is SegmentKind.WILDCARD

    @property
    def pattern(self) -> str:
        """The variable's segments as written after ``=``."""
        return "/".join(str(segment) for segment in self.segments)


class PathTemplate(NamedTuple):
    """A parsed template: flattened segments, the variables over them, the custom verb."""

    source: str
    segments: tuple[Segment, ...]
    variables: tuple[Variable, ...]
    verb: str | None

    @property
    def shape(self) -> tuple[str, ...]:
        """What the template matches, ignoring variable names: two templates of one shape
        match exactly the same paths."""
        parts = tuple(str(segment) for segment in self.segments)
        return parts + ((":" + self.verb,) if self.verb is not None else ())

    @property
    def has_deep_wildcard(self) -> bool:
        """True when the last segment is ``**``."""
        return (
            bool(self.segments) and self.segments[-1].kind is SegmentKind.DEEP_WILDCARD
        )

    @property
    def pieces(self) -> tuple[str | Variable, ...]:
        """The template as raw text pieces and variables, in order, for building a path:
        ``/tasks/{id}:cancel`` is ``("/tasks/", <id>, ":cancel")``."""
        pieces: list[str | Variable] = []
        text = ""
        index = 0
        while index < len(self.segments):
            text += "/"
            variable = next((v for v in self.variables if v.start == index), None)
            if variable is None:
                text += str(self.segments[index])
                index += 1
                continue
            pieces.append(text)
            pieces.append(variable)
            text = ""
            index = len(self.segments) if variable.end is None else variable.end
        if not self.segments:
            text = "/"
        if self.verb is not None:
            text += ":" + self.verb
        if text:
            pieces.append(text)
        return tuple(pieces)

    def variable(self, name: str) -> Variable | None:
        """The variable bound to the dotted field path ``name``, if any."""
        for variable in self.variables:
            if variable.name == name:
                return variable
        return None


# RFC 3986 pchar, without ":" (it starts the custom verb) and without the characters the
# grammar itself uses ("*", "=", "{", "}", "/").
_LITERAL_CHARS = frozenset(string.ascii_letters + string.digits + "-._~!$&'()+,;@%")
_IDENT_START = frozenset(string.ascii_letters + "_")
_IDENT_CHARS = frozenset(string.ascii_letters + string.digits + "_")
_HEX = frozenset(string.hexdigits)


class _Parser:
    """Recursive-descent parser over one template string."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.segments: list[Segment] = []
        self.variables: list[Variable] = []

    def error(self, message: str, column: int | None = None) -> TemplateError:
        return TemplateError(message, self.text, self.pos if column is None else column)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def parse(self) -> PathTemplate:
        if not self.text.startswith("/"):
            raise self.error("a path template must start with '/'", 0)
        self.pos = 1
        verb: str | None = None
        if self.text == "/":
            return PathTemplate(self.text, (), (), None)
        self.parse_segments(in_variable=False)
        if self.peek() == ":":
            # http.proto: "**" must be the last part of the path "except the Verb",
            # and both reference transcoders match ``/a/**:verb``.
            self.pos += 1
            verb = self.parse_literal("custom verb")
        if self.pos != len(self.text):
            raise self.error(f"unexpected {self.peek()!r}")
        return PathTemplate(
            self.text, tuple(self.segments), tuple(self.variables), verb
        )

    def has_deep_wildcard(self) -> bool:
        return any(s.kind is SegmentKind.DEEP_WILDCARD for s in self.segments)

    def parse_segments(self, *, in_variable: bool) -> None:
        while True:
            if self.has_deep_wildcard():
                raise self.error("'**' must be the last segment of a path template")
            self.parse_segment(in_variable=in_variable)
            if self.peek() != "/":
                return
            self.pos += 1

    def parse_segment(self, *, in_variable: bool) -> None:
        char = self.peek()
        if char == "*":
            if self.text.startswith("**", self.pos):
                self.pos += 2
                self.segments.append(Segment(SegmentKind.DEEP_WILDCARD))
            else:
                self.pos += 1
                self.segments.append(Segment(SegmentKind.WILDCARD))
            if self.peek() not in ("", "/", ":", "}"):
                raise self.error("a wildcard must be a whole segment")
        elif char == "{":
            if in_variable:
                raise self.error("variables cannot nest")
            self.parse_variable()
        elif char in ("", "/", ":", "}"):
            raise self.error("empty path segment")
        else:
            start = self.pos
            literal = self.parse_literal("segment")
            if literal in (".", ".."):
                # Clients and servers remove dot segments before routing (RFC 3986 §5.2.4).
                raise self.error(f"a {literal!r} segment never reaches a server", start)
            self.segments.append(Segment(SegmentKind.LITERAL, literal))

    def parse_literal(self, what: str) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _LITERAL_CHARS:
            if self.text[self.pos] == "%":
                if not set(self.text[self.pos + 1 : self.pos + 3]) <= _HEX or (
                    self.pos + 3 > len(self.text)
                ):
                    raise self.error("malformed percent escape")
                self.pos += 3
            else:
                self.pos += 1
        if self.pos == start:
            if self.peek():
                raise self.error(f"unexpected {self.peek()!r} in {what}")
            raise self.error(f"empty {what}")
        return self.text[start : self.pos]

    def parse_variable(self) -> None:
        open_brace = self.pos
        self.pos += 1
        field_path = self.parse_field_path()
        name = ".".join(field_path)
        if any(v.name == name for v in self.variables):
            raise self.error(f"variable {name!r} is bound twice", open_brace)
        start = len(self.segments)
        if self.peek() == "=":
            self.pos += 1
            self.parse_segments(in_variable=True)
        else:
            self.segments.append(Segment(SegmentKind.WILDCARD))
        if self.peek() != "}":
            if not self.peek():
                raise self.error(f"unclosed variable {name!r}", open_brace)
            raise self.error(f"unexpected {self.peek()!r} in variable {name!r}")
        self.pos += 1
        segments = tuple(self.segments[start:])
        end = (
            None
            if segments[-1].kind is SegmentKind.DEEP_WILDCARD
            else len(self.segments)
        )
        self.variables.append(Variable(field_path, start, end, segments))

    def parse_field_path(self) -> tuple[str, ...]:
        parts = [self.parse_ident()]
        while self.peek() == ".":
            self.pos += 1
            parts.append(self.parse_ident())
        return tuple(parts)

    def parse_ident(self) -> str:
        start = self.pos
        if self.peek() not in _IDENT_START or not self.peek():
            raise self.error("expected a field name")
        while self.pos < len(self.text) and self.text[self.pos] in _IDENT_CHARS:
            self.pos += 1
        return self.text[start : self.pos]


def parse_template(text: str) -> PathTemplate:
    """Parse one path template, raising ``TemplateError`` with the column of the problem."""
    return _Parser(text).parse()


def overlap_example(first: PathTemplate, second: PathTemplate) -> str | None:
    """A raw path that both templates match, or None when no path matches both.

    Wildcards are filled with the other template's literal where it has one, else ``x``;
    ``**`` takes whatever the other template has left (at least one segment when it is a
    variable of its own, since a variable never matches empty).
    """
    if first.verb != second.verb:
        return None
    a, b = first.segments, second.segments
    a_deep, b_deep = first.has_deep_wildcard, second.has_deep_wildcard
    a_fixed = a[:-1] if a_deep else a
    b_fixed = b[:-1] if b_deep else b
    if not a_deep and not b_deep and len(a) != len(b):
        return None
    if a_deep and not b_deep and len(b) < len(a_fixed) + _deep_minimum(first):
        return None
    if b_deep and not a_deep and len(a) < len(b_fixed) + _deep_minimum(second):
        return None
    parts: list[str] = []
    for i in range(max(len(a_fixed), len(b_fixed))):
        left = a_fixed[i] if i < len(a_fixed) else None
        right = b_fixed[i] if i < len(b_fixed) else None
        literals = {
            s.literal
            for s in (left, right)
            if s is not None and s.kind is SegmentKind.LITERAL
        }
        if len(literals) > 1:
            return None
        parts.append(literals.pop() if literals else "x")
    if (
        a_deep
        and b_deep
        and len(parts)
        < max(len(a_fixed) + _deep_minimum(first), len(b_fixed) + _deep_minimum(second))
    ):
        parts.append("x")
    path = "/" + "/".join(parts)
    return path + (":" + first.verb if first.verb is not None else "")


def _deep_minimum(template: PathTemplate) -> int:
    """Segments ``**`` must take: one when it starts a variable (no empty values)."""
    last = len(template.segments) - 1
    return 1 if any(v.start == last for v in template.variables) else 0


def precedence(first: PathTemplate, second: PathTemplate) -> int:
    """-1 when ``first`` wins a path both match, 1 when ``second`` does, 0 for the same
    shape: at the first position where they differ a literal beats ``*``, which beats
    ``**``; a template that ends where the other goes on with ``**`` wins."""
    rank = {
        SegmentKind.LITERAL: 0,
        SegmentKind.WILDCARD: 1,
        SegmentKind.DEEP_WILDCARD: 2,
    }
    for left, right in zip(first.segments, second.segments):
        if rank[left.kind] != rank[right.kind]:
            return -1 if rank[left.kind] < rank[right.kind] else 1
    # Alike up to where one ends: the other goes on with a ``**`` that takes nothing
    # there, and a template that is used up beats it (``/a`` wins ``/a`` from ``/a/**``).
    if len(first.segments) != len(second.segments):
        return -1 if len(first.segments) < len(second.segments) else 1
    return 0

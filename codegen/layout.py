"""Black's layout for the lines the templates print, computed without running black.

Templates print every logical line whose length depends on the input (a table entry, a
class header, a signature) on one physical line. ``layout`` splits each line that is too
long the way black splits it: a ``def`` at its first bracket (``left_hand_split``),
anything else at its last bracket (``right_hand_split``); a body that fits stays on one
line ("hugged"), unless it is a collection display of several items; a body that does
not fit is split at its commas, one item per line with a trailing comma, and each piece
is laid out again. That is the part of black's algorithm the generated code exercises.

Where black would take a path this module does not follow (an assignment, whose right
side black may wrap in parentheses; a split at an operator; a head that stays too long),
``layout`` raises ``Unformattable`` and the caller formats that module with black
itself. Black stays the reference: the tests format every output with black and require
that nothing changes.
"""

from __future__ import annotations

import re

__all__ = ["LINE_LENGTH", "Unformattable", "layout", "layout_line"]

LINE_LENGTH = 88
_INDENT = "    "

# A string (one line: the generator writes escapes), a bracket, a comma, a comment, or
# a run of anything else.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_TOKEN = re.compile(_STRING.pattern + r"""|[(\[{]|[)\]}]|,|#.*|[^"'(\[{)\]},#]+""")
_BRACKETS = re.compile(r"[()\[\]{}]")
_CLOSE = {"(": ")", "[": "]", "{": "}"}


class Unformattable(Exception):
    """A line whose split this module does not decide; the module goes to black."""


class _Tokens:
    """One line as tokens, with the index of each bracket's partner."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[tuple[int, int]] = []
        self.kinds: list[str] = []
        self.partner: dict[int, int] = {}
        stack: list[int] = []
        for found in _TOKEN.finditer(text):
            value = found.group()
            if value.isspace():
                continue
            index = len(self.spans)
            self.spans.append(found.span())
            if value in _CLOSE:
                kind = "open"
                stack.append(index)
            elif value in ")]}":
                kind = "close"
                if stack and _CLOSE[text[self.spans[stack[-1]][0]]] == value:
                    opening = stack.pop()
                    self.partner[opening] = index
                    self.partner[index] = opening
                else:
                    kind = "other"  # its partner is on an earlier line
            elif value == ",":
                kind = "comma"
            elif value.startswith("#"):
                raise Unformattable("a comment after code")
            else:
                kind = "string" if value[0] in "\"'" else "other"
            self.kinds.append(kind)
        if stack:
            raise Unformattable("a bracket that closes on a later line")

    def value(self, index: int) -> str:
        start, end = self.spans[index]
        return self.text[start:end]

    def top_level(self) -> list[int]:
        """Indexes of the tokens outside every bracket pair of the line."""
        indexes = []
        index = 0
        while index < len(self.kinds):
            indexes.append(index)
            if self.kinds[index] == "open":
                index = self.partner[index]
                indexes.append(index)
            index += 1
        return indexes

    def is_display(self, opening: int) -> bool:
        """Whether the bracket opens a tuple, list, dict or set display rather than a
        call or a subscript (black explodes a display of several items)."""
        if opening == 0:
            return True
        before = self.text[: self.spans[opening][0]]
        if before != before.rstrip():
            return True  # a space before the bracket: an operator or a keyword precedes
        previous = self.kinds[opening - 1]
        if previous in ("close", "string"):
            return False
        if previous in ("open", "comma"):
            return True
        return not (before[-1].isalnum() or before[-1] == "_")


def _commas(tokens: _Tokens) -> list[int]:
    """The top-level commas of a line, without a trailing one."""
    commas = [i for i in tokens.top_level() if tokens.kinds[i] == "comma"]
    if commas and commas[-1] == len(tokens.kinds) - 1:
        commas.pop()
    return commas


def _magic_comma(tokens: _Tokens) -> bool:
    """A comma right before a closing bracket, other than in a one-element tuple."""
    for index, kind in enumerate(tokens.kinds):
        if kind == "close" and index and tokens.kinds[index - 1] == "comma":
            opening = tokens.partner[index]
            single = not any(
                tokens.kinds[i] == "comma"
                for i in range(opening + 1, index - 1)
                if _depth_zero(tokens, opening, i)
            )
            if not (tokens.value(opening) == "(" and tokens.is_display(opening)):
                return True
            if not single:
                return True
    return False


def _depth_zero(tokens: _Tokens, opening: int, index: int) -> bool:
    depth = 0
    for i in range(opening + 1, index):
        if tokens.kinds[i] == "open":
            depth += 1
        elif tokens.kinds[i] == "close":
            depth -= 1
    return depth == 0


def _assigns(tokens: _Tokens) -> bool:
    """An assignment or a return at statement level: black may put its right side in
    parentheses, a decision this module leaves to black."""
    if tokens.text.startswith("return "):
        return True
    return any(
        " = " in tokens.value(i) or tokens.value(i).endswith(" =")
        for i in tokens.top_level()
        if tokens.kinds[i] == "other"
    )


_OPERATOR = re.compile(r" (?:[-+*/%|&^<>]|[=!<>]=|and|or|not|in|is|if|else|\*\*|//) ")


def _operators(tokens: _Tokens) -> bool:
    """An operator outside the brackets of a line: black splits there before it
    splits at a bracket."""
    return any(
        _OPERATOR.search(tokens.value(i))
        for i in tokens.top_level()
        if tokens.kinds[i] == "other"
    )


def _fits(indent: int, text: str) -> bool:
    return indent * 4 + len(text) <= LINE_LENGTH


def layout_line(
    text: str, indent: int, inside: bool, explode: bool = False
) -> list[str]:
    """The physical lines black writes for one logical line ``text`` (no indentation,
    no line end) at ``indent`` levels; ``inside`` when the line is inside brackets."""
    tokens = _Tokens(text)
    if not explode and _fits(indent, text) and not _magic_comma(tokens):
        return [_INDENT * indent + text]
    if text.startswith(("def ", "async def ")):
        return _split_def(tokens, indent)
    commas = _commas(tokens)
    if inside and commas:
        pieces = []
        start = 0
        for comma in commas + [len(tokens.kinds)]:
            begin = tokens.spans[start][0]
            end = tokens.spans[comma - 1][1] if comma > start else begin
            pieces.append(text[begin:end].strip() + ",")
            start = comma + 1
        lines: list[str] = []
        for piece in pieces:
            lines.extend(layout_line(piece, indent, inside=True))
        return lines
    if inside and _operators(tokens):
        raise Unformattable("a line black would split at an operator")
    if not inside and _assigns(tokens):
        raise Unformattable("an assignment or return black may parenthesize")
    return _split_right(tokens, indent, inside)


def _split_right(tokens: _Tokens, indent: int, inside: bool) -> list[str]:
    """Black's right_hand_split: at the line's last bracket pair."""
    closing = next(
        (i for i in reversed(tokens.top_level()) if tokens.kinds[i] == "close"), None
    )
    if closing is None:
        if inside:
            return [_INDENT * indent + tokens.text]  # nothing to split: black keeps it
        raise Unformattable("a statement without brackets")
    opening = tokens.partner[closing]
    if opening == 0 and not inside:
        raise Unformattable("a statement that is one bracketed expression")
    return _split_at(tokens, opening, closing, indent, trailing_comma=False)


def _split_def(tokens: _Tokens, indent: int) -> list[str]:
    """Black's left_hand_split of a ``def``: at its parameter list."""
    opening = tokens.kinds.index("open")
    if tokens.value(opening) != "(":
        raise Unformattable("a def with type parameters")
    closing = tokens.partner[opening]
    parameters = tokens.text[tokens.spans[opening][1] : tokens.spans[closing][0]]
    # Black adds a trailing comma to a lone parameter: one with no comma outside its
    # annotation (a comma in a default value would count, so those are left to black).
    several = _commas(_Tokens(parameters))
    if not several and "=" in parameters:
        raise Unformattable("a lone parameter with a default value")
    if not _fits(indent, tokens.text[tokens.spans[closing][0] :]):
        # black would split the return annotation too, and its second pass then sees
        # the trailing comma it added there
        raise Unformattable("a return annotation that does not fit")
    return _split_at(tokens, opening, closing, indent, trailing_comma=not several)


def _split_at(
    tokens: _Tokens, opening: int, closing: int, indent: int, trailing_comma: bool
) -> list[str]:
    text = tokens.text
    head = text[: tokens.spans[opening][1]]
    body = text[tokens.spans[opening][1] : tokens.spans[closing][0]].strip()
    tail = text[tokens.spans[closing][0] :]
    if not body:
        raise Unformattable("an empty bracket pair")
    if not _fits(indent, head):
        raise Unformattable("a head that does not fit")
    if trailing_comma:
        body += ","
    body_tokens = _Tokens(body)
    explode = tokens.is_display(opening) and bool(_commas(body_tokens))
    return [
        _INDENT * indent + head,
        *layout_line(body, indent + 1, inside=True, explode=explode),
        *layout_line(tail, indent, inside=False),
    ]


def layout(source: str) -> str:
    """``source`` with every line longer than black allows split as black splits it.
    Raises ``Unformattable`` for a line whose split black decides another way."""
    out: list[str] = []
    depth = 0
    docstring = False
    for line in source.split("\n"):
        stripped = line.lstrip()
        if docstring:  # its text holds no three quotes in a row: they close it
            docstring = '"""' not in line
            out.append(line)
            continue
        if stripped.startswith('"""'):  # docstrings are the only such lines
            docstring = '"""' not in stripped[3:]
            out.append(line)
            continue
        if not stripped or stripped.startswith("#"):
            out.append(line)
            continue
        if len(line) > LINE_LENGTH:
            indent, extra = divmod(len(line) - len(stripped), 4)
            if extra:
                raise Unformattable("indentation that is not four spaces a level")
            out.extend(layout_line(stripped, indent, inside=depth > 0))
        else:
            out.append(line)
        if _BRACKETS.search(line):
            code = _STRING.sub("", line) if '"' in line or "'" in line else line
            code = code.split("#", 1)[0]
            depth += sum(map(code.count, "([{")) - sum(map(code.count, ")]}"))
    return "\n".join(out)

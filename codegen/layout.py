"""Black's layout for the lines the templates print, computed without running black.

Templates print every logical line whose length depends on the input (a table entry, a
class header, a signature) on one physical line. ``layout`` splits each line that is too
long the way black splits it: a ``def`` at its first bracket (``left_hand_split``),
anything else at its last bracket (``right_hand_split``); a body that fits stays on one
line ("hugged"), unless it is a collection display of several items; a body that does
not fit is split at its commas, one item per line with a trailing comma, and each piece
is laid out again. That is the part of black's algorithm the generated code exercises.
Docstrings and comments pass through as they are: ``render``'s filters write them as
black would.

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
# a run of anything else; the token is group 1, after any white space.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_TOKEN = re.compile(
    r"\s*("
    + _STRING.pattern
    + r"""|[(\[{)\]},]|#.*|[^\s"'(\[{)\]},#][^"'(\[{)\]},#]*)"""
)
# A token's kind by its first character.
_KINDS = {
    **dict.fromkeys("([{", "open"),
    **dict.fromkeys(")]}", "close"),
    ",": "comma",
    "#": "comment",
    '"': "string",
    "'": "string",
}
_BRACKETS = re.compile(r"[()\[\]{}]")
# The start of a line longer than black allows; a character that is not ASCII.
_LONG = re.compile(rf"^.{{{LINE_LENGTH + 1}}}", re.MULTILINE)
_WIDE = re.compile(r"[^\x00-\x7f]")
_CLOSE = {"(": ")", "[": "]", "{": "}"}


class Unformattable(Exception):
    """A line whose split this module does not decide; the module goes to black."""


class _Line:
    """One logical line as tokens, with the index of each bracket's partner. The
    functions below work on a range ``[lo, hi)`` of its tokens: head, body and tail of a
    split are ranges of the one line, never tokenized again."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[tuple[int, int]] = []
        self.kinds: list[str] = []
        self.partner: dict[int, int] = {}
        stack: list[int] = []
        for index, found in enumerate(_TOKEN.finditer(text)):
            span = found.span(1)
            first = text[span[0]]
            kind = _KINDS.get(first, "other")
            if kind == "open":
                stack.append(index)
            elif kind == "close":
                if not stack or _CLOSE[text[self.spans[stack[-1]][0]]] != first:
                    raise Unformattable("a bracket that opened on an earlier line")
                opening = stack.pop()
                self.partner[opening] = index
                self.partner[index] = opening
            elif kind == "comment":
                raise Unformattable("a comment after code")
            self.spans.append(span)
            self.kinds.append(kind)
        if stack:
            raise Unformattable("a bracket that closes on a later line")

    def text_of(self, lo: int, hi: int) -> str:
        return self.text[self.spans[lo][0] : self.spans[hi - 1][1]] if hi > lo else ""

    def top_level(self, lo: int, hi: int) -> list[int]:
        """Indexes of the tokens of the range outside its bracket pairs (a closing
        bracket whose partner is before the range counts as outside)."""
        indexes = []
        index = lo
        while index < hi:
            indexes.append(index)
            if self.kinds[index] == "open":
                index = self.partner[index]
                indexes.append(index)
            index += 1
        return indexes

    def commas(self, lo: int, hi: int) -> list[int]:
        """The top-level commas of the range, without a trailing one."""
        commas = [i for i in self.top_level(lo, hi) if self.kinds[i] == "comma"]
        if commas and commas[-1] == hi - 1:
            commas.pop()
        return commas

    def words(self, lo: int, hi: int) -> list[str]:
        """The top-level text of the range that is no bracket, comma or string."""
        return [
            self.text[slice(*self.spans[i])]
            for i in self.top_level(lo, hi)
            if self.kinds[i] == "other"
        ]

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

    def magic_comma(self, lo: int, hi: int) -> bool:
        """A comma right before a closing bracket in the range, other than in a
        one-element tuple (black explodes the brackets of such a comma; a one-element
        subscript is black's to judge)."""
        for index in range(lo + 1, hi):
            if self.kinds[index] != "close" or self.kinds[index - 1] != "comma":
                continue
            opening = self.partner[index]
            several = bool(self.commas(opening + 1, index))
            bracket = self.text[self.spans[opening][0]]
            if bracket == "(" and self.is_display(opening) and not several:
                continue  # a one-element tuple
            if bracket == "[" and not self.is_display(opening) and not several:
                raise Unformattable("a subscript of one element with a comma")
            return True
        return False


_OPERATOR = re.compile(r" (?:[-+*/%|&^<>]|[=!<>]=|and|or|not|in|is|if|else|\*\*|//) ")


def _fits(indent: int, text: str) -> bool:
    return indent * 4 + len(text) <= LINE_LENGTH


def layout_line(text: str, indent: int, inside: bool) -> list[str]:
    """The physical lines black writes for one logical line ``text`` (no indentation,
    no line end) at ``indent`` levels; ``inside`` when the line is inside brackets."""
    line = _Line(text)
    return _lay(line, 0, len(line.kinds), indent, inside)


def _lay(
    line: _Line,
    lo: int,
    hi: int,
    indent: int,
    inside: bool,
    suffix: str = "",
    explode: bool = False,
) -> list[str]:
    """The tokens ``[lo, hi)`` of ``line`` followed by ``suffix``, laid out."""
    text = line.text_of(lo, hi) + suffix
    if not explode and _fits(indent, text) and not line.magic_comma(lo, hi):
        return [_INDENT * indent + text]
    if text.startswith(("def ", "async def ")):
        return _split_def(line, lo, hi, indent, suffix)
    commas = line.commas(lo, hi)
    if inside and commas:  # black's delimiter_split, at the commas
        end = hi - 1 if line.kinds[hi - 1] == "comma" else hi
        lines: list[str] = []
        start = lo
        for comma in commas + [end]:
            lines.extend(_lay(line, start, comma, indent, True, ","))
            start = comma + 1
        return lines
    if inside and any(_OPERATOR.search(word) for word in line.words(lo, hi)):
        raise Unformattable("a line black would split at an operator")
    if not inside and (
        text.startswith("return ")
        or any(" = " in word or word.endswith(" =") for word in line.words(lo, hi))
    ):
        raise Unformattable("an assignment or return black may parenthesize")
    # black's right_hand_split: at the last bracket pair
    closing = next(
        (
            i
            for i in reversed(line.top_level(lo, hi))
            if line.kinds[i] == "close" and line.partner[i] >= lo
        ),
        None,
    )
    if closing is None:
        if inside:
            return [_INDENT * indent + text]  # nothing to split: black keeps it
        raise Unformattable("a statement without brackets")
    opening = line.partner[closing]
    if opening == lo and not inside:
        raise Unformattable("a statement that is one bracketed expression")
    return _split_at(line, lo, hi, opening, closing, indent, suffix, False)


def _split_def(line: _Line, lo: int, hi: int, indent: int, suffix: str) -> list[str]:
    """Black's left_hand_split of a ``def``: at its parameter list."""
    opening = line.kinds.index("open", lo, hi)
    if line.text[line.spans[opening][0]] != "(":
        raise Unformattable("a def with type parameters")
    closing = line.partner[opening]
    # Black adds a trailing comma to a lone parameter: one with no comma outside its
    # annotation (a comma in a default value would count, so those are left to black).
    several = line.commas(opening + 1, closing)
    if not several and "=" in line.text_of(opening + 1, closing):
        raise Unformattable("a lone parameter with a default value")
    if not _fits(indent, line.text_of(closing, hi) + suffix):
        # black would split the return annotation too, and its second pass then sees
        # the trailing comma it added there
        raise Unformattable("a return annotation that does not fit")
    return _split_at(line, lo, hi, opening, closing, indent, suffix, not several)


def _split_at(
    line: _Line,
    lo: int,
    hi: int,
    opening: int,
    closing: int,
    indent: int,
    suffix: str,
    trailing_comma: bool,
) -> list[str]:
    head = line.text_of(lo, opening + 1)
    if closing == opening + 1:
        raise Unformattable("an empty bracket pair")
    if not _fits(indent, head):
        raise Unformattable("a head that does not fit")
    explode = line.is_display(opening) and bool(line.commas(opening + 1, closing))
    return [
        _INDENT * indent + head,
        *_lay(
            line,
            opening + 1,
            closing,
            indent + 1,
            True,
            "," if trailing_comma else "",
            explode,
        ),
        *_lay(line, closing, hi, indent, False, suffix),
    ]


def layout(source: str) -> str:
    """``source`` with every line longer than black allows split as black splits it.
    Raises ``Unformattable`` for a line whose split black decides another way."""
    # Only a line too long or not ASCII can need anything: the lines after the last
    # such line are kept as they are, unread.
    last = -1
    for pattern in (_LONG, _WIDE) if not source.isascii() else (_LONG,):
        for found in pattern.finditer(source, last + 1):
            last = found.start()
    if last < 0:
        return source
    lines = source.split("\n")
    end = source.count("\n", 0, last) + 1
    out: list[str] = []
    depth = 0
    docstring = False
    for line in lines[:end]:
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
        if (
            not line.isascii()
            and len(line) + sum(not char.isascii() for char in line) > LINE_LENGTH
        ):
            # a name from the proto: black measures a wide character as two columns
            raise Unformattable("a line of code that may be wider than it is long")
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
    return "\n".join(out + lines[end:])

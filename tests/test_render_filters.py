"""The escaping filters that put text from a proto into generated source, read back by
Python's own parser: whatever the text, the literal or docstring holds exactly it."""

from __future__ import annotations

import ast

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from codegen.http_rule import parse_template
from codegen.render import _docstring_text, _python_literal, _string_literal
from codegen.views import Call, Item

# Plain words (the common case, taken without a scan) and text with every kind of
# character the filters escape.
_text = st.one_of(
    st.from_regex(r"[A-Za-z0-9_ ./{}=*:-]*", fullmatch=True),
    st.text(),
    st.text(st.sampled_from("ab \"'\\\n\r\t\x00\x0b\x7f\u00e9\u2028\u200b")),
)


@given(_text)
@example('say "hi"')
@example("it's")
@example("\\")
def test_string_literal_reads_back_as_the_text(text: str) -> None:
    literal = _string_literal(text)
    assert ast.literal_eval(literal) == text
    assert literal.isascii() and literal.isprintable()
    # Black's choice of quotes: double ones unless single ones need fewer escapes.
    assert literal[0] == ("'" if text.count('"') > text.count("'") else '"')


@given(_text)
@example('a ""quoted"" word')
@example('"""')
@example('""""""')
@example("tab\tand line\nend")
def test_docstring_text_reads_back_and_never_holds_three_quotes(text: str) -> None:
    body = _docstring_text(text)
    assert '"""' not in body
    # A space before the closing quotes, as _docstring pads a last quote.
    assert ast.literal_eval(f'"""{body} """') == text + " "


def test_python_literal_prints_tables_and_refuses_records() -> None:
    row = Call("Param", (("a",), 1, None, True, Item("ROUTES", 3)))
    assert _python_literal(row) == 'Param(("a",), 1, None, True, ROUTES[3])'
    # A row by name: the name is a string literal, escaped as any other.
    assert _python_literal(Item("BY_RPC", 'Get"\n')) == "BY_RPC['Get\"\\n']"
    # A record of the generator (a NamedTuple) is a tuple too, but never a literal.
    with pytest.raises(TypeError):
        _python_literal(parse_template("/tasks/{id}"))

"""The generator's own layout is black's: ``codegen.layout`` against black itself.

Generation does not run black: templates print each data-dependent logical line on one
line and ``layout`` splits the long ones as black would (black runs only for a module
with a line ``layout`` leaves to it). These tests hold it to black's output: random
lines of the shapes the templates print, every input of the test corpus, and the
fallback for lines ``layout`` does not decide.
"""

from __future__ import annotations

import dataclasses
import keyword
import os
from pathlib import Path

import black
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.inputs import request_from_protos
from codegen.layout import Unformattable, layout, layout_line
from codegen.model import GenerationError, build_files
from codegen.options import Options
from codegen.render import _string_literal, black_mode, format_source, render_sources

from .conftest import PROTO, SPEC, SPEC_TAGS

MODE = black_mode()


def black_of(source: str) -> str:
    return black.format_str(source, mode=MODE)


# --- random lines of the shapes the templates print --------------------------------------

_word = st.from_regex(r"[a-z][a-zA-Z0-9_]{0,40}", fullmatch=True).filter(
    lambda word: not keyword.iskeyword(word) and not keyword.issoftkeyword(word)
)
# Literals as the ``py`` filter prints them (black's choice of quotes included).
_string = st.text(
    st.sampled_from("abcXYZ019_ ./{}=*:-'\"\\\n\x00\u00e9\u2028"), max_size=70
).map(_string_literal)
_atom = st.one_of(
    _string,
    st.integers(0, 10_000).map(str),
    st.sampled_from(["True", "False", "None"]),
    st.builds(lambda w: f"messages.{w[:1].upper()}{w[1:]}", _word),
    st.builds(lambda n: f"ROUTES[{n}]", st.integers(0, 3000)),
)


def _call(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(
        lambda name, args: f"{name}({', '.join(args)})",
        st.sampled_from(["Param", "Capture", "ClientRoute", "Rule", "frozenset"]),
        st.lists(children, min_size=1, max_size=7),
    )


def _tuple(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(children, max_size=7).map(
        lambda items: f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    )


def _subscript(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(
        lambda name, args: f"{name}[{', '.join(args)}]",
        st.sampled_from(["Literal", "NotRequired", "list", "dict"]),
        st.lists(children, min_size=1, max_size=3),
    )


_expression = st.recursive(
    _atom,
    lambda children: st.one_of(_call(children), _tuple(children), _subscript(children)),
    max_leaves=24,
)
_item = st.one_of(
    st.tuples(_expression, st.just("f(")),
    st.tuples(st.builds(lambda k, v: f"{k}: {v}", _string, _expression), st.just("{")),
    st.tuples(st.builds(lambda k, v: f"{k}={v}", _word, _expression), st.just("f(")),
)
_parameters = st.lists(
    st.builds(lambda name, annotation: f"{name}: {annotation}", _word, _expression),
    min_size=1,
    max_size=5,
)
SHAPES = settings(
    max_examples=int(os.environ.get("LAYOUT_EXAMPLES", "300")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _nested(line: str, depth: int, innermost: str) -> str:
    """``line`` as an item ``depth`` levels deep in brackets that stay exploded (the
    innermost one is ``innermost``, the others are calls)."""
    brackets = ["f("] * (depth - 1) + [innermost]
    closers = [")" if b == "f(" else "}" for b in brackets]
    opening = "".join(f"{'    ' * level}{b}\n" for level, b in enumerate(brackets))
    closing = "".join(
        f"{'    ' * level}{closers[level]},\n" for level in reversed(range(1, depth))
    )
    end = closers[0] + "\n"
    return "X = " + opening.lstrip() + "    " * depth + line + "\n" + closing + end


def _assert_like_black(source: str) -> None:
    try:
        mine = layout(source)
    except Unformattable:
        return  # black decides this one; test_fallback_is_black covers that path
    assert mine == black_of(source), f"layout differs from black for:\n{source}"


@SHAPES
@given(item=_item, depth=st.integers(1, 4))
def test_an_item_inside_brackets_is_split_as_black_splits_it(
    item: tuple[str, str], depth: int
) -> None:
    line, innermost = item
    _assert_like_black(_nested(line + ",", depth, innermost))


@SHAPES
@given(
    name=_word,
    parameters=_parameters,
    returns=_expression,
    is_async=st.booleans(),
    in_class=st.booleans(),
)
def test_a_def_is_split_as_black_splits_it(
    name: str, parameters: list[str], returns: str, is_async: bool, in_class: bool
) -> None:
    keyword = "async def" if is_async else "def"
    line = f"{keyword} {name}({', '.join(parameters)}) -> {returns}: ..."
    source = f"class A:\n    {line}\n" if in_class else line + "\n"
    _assert_like_black(source)


@SHAPES
@given(name=_word, bases=st.lists(_expression, min_size=1, max_size=3))
def test_a_class_header_is_split_as_black_splits_it(
    name: str, bases: list[str]
) -> None:
    header = f"class {name.capitalize()}({', '.join(bases)}, total=False):"
    _assert_like_black(f'{header}\n    """Doc."""\n')


@SHAPES
@given(name=_word, annotation=_subscript(_expression))
def test_an_annotated_key_is_split_as_black_splits_it(
    name: str, annotation: str
) -> None:
    _assert_like_black(f"class A(TypedDict):\n    {name}: {annotation}\n")


def test_lines_that_fit_are_left_alone() -> None:
    line = 'Param(("a",), ("a",), "string", False, "", ""),'
    assert layout_line(line, 3, inside=True) == ["            " + line]


def test_a_collection_of_several_items_explodes_and_a_call_hugs() -> None:
    long = "x" * 30
    assert layout_line(f'"k": frozenset(("{long}", "{long}")),', 2, inside=True) == [
        '        "k": frozenset(',
        f'            ("{long}", "{long}")',
        "        ),",
    ]
    assert layout_line(f'"k": ("{long}", "{long}", "{long}"),', 2, inside=True) == [
        '        "k": (',
        f'            "{long}",',
        f'            "{long}",',
        f'            "{long}",',
        "        ),",
    ]


@pytest.mark.parametrize(
    "source",
    [
        'PROTOCOL_VERSION = "' + "1" * 100 + '"\n',  # black may parenthesize the value
        "X = f(\n    a,  # " + "c" * 90 + "\n)\n",  # a comment after code
        "X = f(\n    Literal[" + "a" * 95 + " | b],\n)\n",  # an operator split
    ],
)
def test_fallback_is_black(source: str) -> None:
    """What ``layout`` leaves to black comes out as black writes it."""
    with pytest.raises(Unformattable):
        layout(source)
    assert format_source(source) == black_of(source)


# --- every input of the corpus -------------------------------------------------------------

_CORPUS = sorted((PROTO / "features").glob("*.proto")) + sorted(
    (PROTO / "hostile").glob("*.proto")
)
_OPTIONS = ("", "profile=none", "module=renamed_pkg")


def _rendered(proto: Path, parameter: str) -> dict[str, str]:
    request = request_from_protos([str(proto)], [str(proto.parent)], parameter)
    options = dataclasses.replace(Options.parse(parameter), ambiguity="ignore")
    sources: dict[str, str] = {}
    for binding_file in build_files(request, options).files:
        for module, source in render_sources(binding_file).items():
            sources[f"{binding_file.module}/{module}"] = source
    return sources


def _spec_protos() -> list[Path]:
    protos = [SPEC / tag / "a2a.proto" for tag in SPEC_TAGS]
    return [p for p in protos if p.is_file()]


@pytest.mark.parametrize("parameter", _OPTIONS)
@pytest.mark.parametrize("proto", _CORPUS, ids=[p.stem for p in _CORPUS])
def test_corpus_output_is_black_stable(proto: Path, parameter: str) -> None:
    try:
        sources = _rendered(proto, parameter)
    except GenerationError:  # a diagnostic: tests of the corpus itself check those
        pytest.skip("this input is refused")
    for module, source in sources.items():
        # black over the template output itself: the layout must not change what the
        # code (or a docstring) says, only where its lines break
        assert format_source(source) == black_of(source), module


@pytest.mark.parametrize("parameter", _OPTIONS)
def test_the_a2a_protos_need_no_black(parameter: str) -> None:
    """Every upstream A2A proto is laid out without running black, and as black would."""
    protos = _spec_protos()
    if not protos:
        pytest.skip(
            f"upstream A2A protos are not here ({SPEC}); they live in ../shared"
        )
    for proto in protos:
        for module, source in _rendered(proto, parameter).items():
            formatted = layout(source)  # raises Unformattable if black were needed
            assert formatted == black_of(source), f"{proto.parent.name}: {module}"


def test_names_too_long_for_any_split_fall_back_to_black(tmp_path: Path) -> None:
    """An rpc name so long that black keeps lines over the limit: layout leaves those
    modules to black, and the output is what black writes."""
    rpc = "Get" + "VeryLong" * 12
    message = "Request" + "Field" * 16
    proto = tmp_path / "long.proto"
    proto.write_text(
        'syntax = "proto3";\n'
        "package long.v1;\n"
        'import "google/api/annotations.proto";\n'
        f"message {message} {{ string id = 1; int32 page_size_{'x' * 60} = 2; }}\n"
        "service Long {\n"
        f"  rpc {rpc}({message}) returns ({message}) {{\n"
        '    option (google.api.http) = { get: "/items/{id}" };\n'
        "  }\n"
        "}\n"
    )
    sources = _rendered(proto, "")
    fell_back = []
    for module, source in sources.items():
        try:
            layout(source)
        except Unformattable:
            fell_back.append(module)
        formatted = format_source(source)
        assert black_of(formatted) == formatted, module
        compile(formatted, module, "exec")
    assert fell_back, "no module needed black: make the names longer"


_noise = st.text(st.sampled_from("ab_ (),[]{}:='\"\\#.|*-0 \t"), max_size=140)


@settings(max_examples=500, deadline=None, database=None)
@given(
    lines=st.lists(
        st.one_of(
            _noise,
            st.builds(
                lambda indent, item: "    " * indent + item + ",",
                st.integers(0, 3),
                _expression,
            ),
        ),
        max_size=6,
    )
)
def test_any_text_is_laid_out_or_left_to_black(lines: list[str]) -> None:
    """Whatever the text, ``layout`` returns lines or raises ``Unformattable``; no other
    error reaches the renderer, and it only moves line breaks, spaces and commas."""
    source = "\n".join(lines) + "\n"
    try:
        out = layout(source)
    except Unformattable:
        return

    def essence(text: str) -> str:
        return "".join(text.split()).replace(",", "")

    assert essence(out) == essence(source)

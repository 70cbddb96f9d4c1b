"""The generator's own layout is black's: ``codegen.layout`` against black itself.

Generation does not run black: templates print each data-dependent logical line on one
line and ``layout`` splits the long ones as black would (black runs only for a module
with a line ``layout`` leaves to it). These tests hold it to black's output: random
lines of the shapes the templates print, every input of the test corpus, and the
fallback for lines ``layout`` does not decide.
"""

from __future__ import annotations

import keyword
import os
import sys
from pathlib import Path

import black
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.requirements import Requirement

from codegen.inputs import request_from_protos
from codegen.layout import Unformattable, layout, layout_line
from codegen.model import GenerationError, build_files
from codegen.options import Options
from codegen.render import _string_literal, black_mode, format_source, render_sources

from .conftest import PROTO, ROOT, SPEC, SPEC_TAGS
from .sdk_protos import sdk_proto

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


class Tally:
    """What ``layout`` did with the lines one property test gave it: the count of lines
    it laid out, and of those it refused by reason. A property test whose layout refused
    every line would test nothing: ``check`` requires a minimum share laid out and that
    every refusal is one the test expects for its shapes."""

    def __init__(self) -> None:
        self.accepted = 0
        self.refused: dict[str, int] = {}

    def lay(self, source: str) -> str | None:
        """``layout`` of ``source``, or None where it refuses (counted by reason)."""
        try:
            mine = layout(source)
        except Unformattable as exc:
            self.refused[str(exc)] = self.refused.get(str(exc), 0) + 1
            return None
        self.accepted += 1
        return mine

    def like_black(self, source: str) -> None:
        """``layout`` of ``source`` is black's, or ``layout`` refuses it (the fallback,
        which test_fallback_is_black covers)."""
        mine = self.lay(source)
        if mine is not None:
            assert mine == black_of(source), f"layout differs from black for:\n{source}"

    def check(
        self, minimum: float, expected: frozenset[str] | None = frozenset()
    ) -> None:
        """At least ``minimum`` of the lines laid out, and every refusal's reason in
        ``expected`` (None: any reason)."""
        total = self.accepted + sum(self.refused.values())
        assert total, "no example ran"
        if expected is not None:
            unexpected = set(self.refused) - expected
            assert not unexpected, f"refusals this shape never needs: {self.refused}"
        share = self.accepted / total
        assert share >= minimum, (
            f"layout laid out {self.accepted} of {total} lines ({share:.0%}, "
            f"at least {minimum:.0%} expected); refused: {self.refused}"
        )


def test_an_item_inside_brackets_is_split_as_black_splits_it() -> None:
    tally = Tally()

    @SHAPES
    @given(item=_item, depth=st.integers(1, 4))
    def check(item: tuple[str, str], depth: int) -> None:
        line, innermost = item
        tally.like_black(_nested(line + ",", depth, innermost))

    check()
    # Rarely, a long key deep in brackets leaves no room for the bracket's head:
    # layout leaves that line to black.
    tally.check(minimum=0.98, expected=frozenset({"a head that does not fit"}))


# A def whose return annotation alone is too long, or whose lone parameter holds an "=",
# is black's to lay out (its second pass sees the commas it added).
_DEF_REFUSALS = frozenset(
    {"a return annotation that does not fit", "a lone parameter with a default value"}
)


def test_a_def_is_split_as_black_splits_it() -> None:
    tally = Tally()

    @SHAPES
    @given(
        name=_word,
        parameters=_parameters,
        returns=_expression,
        is_async=st.booleans(),
        in_class=st.booleans(),
    )
    def check(
        name: str, parameters: list[str], returns: str, is_async: bool, in_class: bool
    ) -> None:
        keyword = "async def" if is_async else "def"
        line = f"{keyword} {name}({', '.join(parameters)}) -> {returns}: ..."
        tally.like_black(f"class A:\n    {line}\n" if in_class else line + "\n")

    check()
    tally.check(minimum=0.5, expected=_DEF_REFUSALS)


def test_a_class_header_is_split_as_black_splits_it() -> None:
    tally = Tally()

    @SHAPES
    @given(name=_word, bases=st.lists(_expression, min_size=1, max_size=3))
    def check(name: str, bases: list[str]) -> None:
        header = f"class {name.capitalize()}({', '.join(bases)}, total=False):"
        tally.like_black(f'{header}\n    """Doc."""\n')

    check()
    tally.check(minimum=1.0)


def test_an_annotated_key_is_split_as_black_splits_it() -> None:
    tally = Tally()

    @SHAPES
    @given(name=_word, annotation=_subscript(_expression))
    def check(name: str, annotation: str) -> None:
        tally.like_black(f"class A(TypedDict):\n    {name}: {annotation}\n")

    check()
    tally.check(minimum=1.0)


def test_a_layout_that_refuses_every_line_fails_the_tally(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The tally is what makes the properties able to fail: a layout that refused
    everything (or refused for a reason the shape never needs) would fail them."""

    def refuse(source: str) -> str:
        raise Unformattable("a line black would split at an operator")

    monkeypatch.setattr(sys.modules[__name__], "layout", refuse)
    with pytest.raises(AssertionError, match="never needs"):
        test_an_item_inside_brackets_is_split_as_black_splits_it()
    tally = Tally()
    tally.refused = {"a return annotation that does not fit": 3}
    with pytest.raises(AssertionError, match="laid out 0 of 3 lines"):
        tally.check(minimum=0.5, expected=_DEF_REFUSALS)


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


def test_the_installed_black_is_the_pinned_major() -> None:
    """The layout copies one major of black; pyproject pins it, and the black these
    tests compare with (the one the fallback runs) is that one."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pins = [
        Requirement(r)
        for r in pyproject["project"]["dependencies"]
        if Requirement(r).name == "black"
    ]
    assert len(pins) == 1, pins
    (pin,) = pins
    assert pin.specifier.contains(black.__version__), (pin, black.__version__)
    major = black.__version__.split(".")[0]
    assert not pin.specifier.contains(f"{int(major) + 1}.1.0"), pin
    assert not pin.specifier.contains(f"{int(major) - 1}.12.0"), pin


# --- every input of the corpus -------------------------------------------------------------

_CORPUS = sorted((PROTO / "features").glob("*.proto")) + sorted(
    (PROTO / "hostile").glob("*.proto")
)
_OPTIONS = ("", "profile=none", "module=renamed_pkg")
# The inputs the model refuses (a diagnostic, whatever the options): they print nothing
# to lay out. test_hostile_inputs checks their diagnostics; here only that they stay
# refused, so that a row of the corpus test is never a skip.
_REFUSED = frozenset(
    {
        "custom_kind_colon",
        "custom_kind_cr",
        "custom_kind_escape",
        "custom_kind_newline",
        "custom_kind_nul",
        "custom_kind_space",
        "custom_kind_tab",
        "json_name_dot",
        "keyword_rename_clash",
        "nested_message_clash",
        "template_dot",
        "template_dot_dot",
        "template_dot_dot_additional",
    }
)
_GENERATED = [p for p in _CORPUS if p.stem not in _REFUSED]


def _rendered(proto: Path, parameter: str) -> dict[str, str]:
    request = request_from_protos([str(proto)], [str(proto.parent)], parameter)
    sources: dict[str, str] = {}
    for binding_file in build_files(request, Options.parse(parameter)).files:
        for module, source in render_sources(binding_file).items():
            sources[f"{binding_file.module}/{module}"] = source
    return sources


def test_the_refused_inputs_are_refused() -> None:
    assert _REFUSED <= {p.stem for p in _CORPUS}, "a refused input is gone"
    for proto in _CORPUS:
        if proto.stem in _REFUSED:
            with pytest.raises(GenerationError):
                _rendered(proto, "")


def _spec_protos(folder: Path) -> list[Path]:
    """The upstream A2A protos that are here (../shared), and the two a2a-sdk ships,
    written out into ``folder`` (tests/sdk_protos.py)."""
    protos = [SPEC / tag / "a2a.proto" for tag in SPEC_TAGS]
    return [p for p in protos if p.is_file()] + [
        sdk_proto(folder, version) for version in ("1.0", "0.3")
    ]


@pytest.mark.parametrize("parameter", _OPTIONS)
@pytest.mark.parametrize("proto", _GENERATED, ids=[p.stem for p in _GENERATED])
def test_corpus_output_is_black_stable(proto: Path, parameter: str) -> None:
    sources = _rendered(proto, parameter)
    assert sources, "nothing was rendered"
    for module, source in sources.items():
        # black over the template output itself: the layout must not change what the
        # code (or a docstring) says, only where its lines break
        assert format_source(source) == black_of(source), module


@pytest.mark.parametrize("parameter", _OPTIONS)
def test_the_a2a_protos_need_no_black(parameter: str, tmp_path: Path) -> None:
    """Every A2A proto is laid out without running black, and as black would."""
    for proto in _spec_protos(tmp_path):
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


def test_any_text_is_laid_out_or_left_to_black() -> None:
    """Whatever the text, ``layout`` returns lines or raises ``Unformattable``; no other
    error reaches the renderer, and it only moves line breaks, spaces and commas. Most
    such text is laid out (short lines, items in brackets), so most examples check the
    text's essence, not only that no other error escapes."""
    tally = Tally()

    def essence(text: str) -> str:
        return "".join(text.split()).replace(",", "")

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
    def check(lines: list[str]) -> None:
        source = "\n".join(lines) + "\n"
        out = tally.lay(source)
        if out is not None:
            assert essence(out) == essence(source)

    check()
    tally.check(minimum=0.5, expected=None)

"""The common case of request validation, specialised per message type: what the
serving layers check requests with (``validator``).

Most requests are plain: every key a json name, no ``null``, strings that are ASCII,
enums by name, no oneof given twice, nothing missing. For each message type a check
function is compiled on first use (as ``dataclasses`` compiles ``__init__``) that
returns the canonical form of such a value and raises ``Fallback`` at the first thing
that is not plain; ``validator`` then has ``_validate.Schema`` walk the value with its
general walk, which decides and reports. So the function never refuses anything
itself: it is correct when what it returns is what the general walk returns, which the
validation oracle checks against protobuf on every run.

The compiled source is built from fixed snippets and numbered local names only: the
json names, enum names and checks of the message arrive as values bound to those
locals, so nothing from a proto reaches the source text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ._compiling import compiled
from ._validate import _BAD, _TEXT_CHECKS, Schema, UnknownFields, _Field, _Walk

__all__ = [
    "Fallback",
    "FastCheck",
    "FieldPlan",
    "Target",
    "compile_message",
    "target",
    "validator",
]

FastCheck = Callable[[Any, int], "dict[str, Any]"]
"""A compiled check: ``(value, depth) -> canonical form``, or ``Fallback``."""

MAX_DEPTH = 100  # as _validate's: a message deeper than this falls back
_SURROGATE = re.compile("[\ud800-\udfff]")


class Fallback(Exception):
    """The value is not plain: the general walk decides."""


class FieldPlan(NamedTuple):
    """How the compiled check takes one field.

    ``shape``: ``string``, ``enum`` or ``bool`` (checked inline, ``check`` for the
    rest), ``scalar`` (``check`` gives the canonical value or ``bad``), ``scalars``
    (a list of those), ``message`` and ``messages`` (of ``target``), ``struct``,
    ``value``, ``list_value`` (JSON as sent). ``names`` are an enum's value names,
    ``oneof`` the field's oneof (``""`` for none)."""

    json_name: str
    shape: str
    check: Callable[[object], Any] | None = None
    names: frozenset[str] = frozenset()
    target: str = ""
    oneof: str = ""


class Target:
    """A message type's compiled function (a check here; ``_proto`` compiles its
    builder and reader alike), compiled when first called, so that a type can hold
    itself."""

    __slots__ = ("check", "_compile")

    def __init__(self, compile: Callable[[], Callable[..., Any]]) -> None:
        self._compile = compile
        self.check: Callable[..., Any] = self._first

    def _first(self, *arguments: Any) -> Any:
        check = self.check = self._compile()
        return check(*arguments)


# --- JSON taken as sent (Struct, Value, ListValue), as _validate's walk takes it ----


def json_value(item: Any, depth: int) -> Any:
    """A ``google.protobuf.Value`` at ``depth``: ``item``, or ``Fallback``."""
    if depth > MAX_DEPTH:
        raise Fallback
    kind = type(item)
    if kind is str:
        if item.isascii() or not _SURROGATE.search(item):
            return item
        raise Fallback
    if kind is dict:
        return json_struct(item, depth + 1)
    if kind is list:
        return json_list(item, depth + 1)
    if item is None or item is True or item is False or kind is float:
        return item
    if kind is int:
        try:
            float(item)
        except OverflowError:
            raise Fallback from None
        return item
    raise Fallback


def json_struct(item: Any, depth: int) -> Any:
    """A ``google.protobuf.Struct`` at ``depth``: ``item``, or ``Fallback``."""
    if type(item) is not dict or depth > MAX_DEPTH:
        raise Fallback
    for key, element in item.items():
        if not key.isascii() and _SURROGATE.search(key):
            raise Fallback
        json_value(element, depth + 1)
    return item


def json_list(item: Any, depth: int) -> Any:
    """A ``google.protobuf.ListValue`` at ``depth``: ``item``, or ``Fallback``."""
    if type(item) is not list or depth > MAX_DEPTH:
        raise Fallback
    for element in item:
        json_value(element, depth + 1)
    return item


_JSON = {"struct": json_struct, "value": json_value, "list_value": json_list}

# --- the compiler -------------------------------------------------------------------

_GENERAL = [
    "r = c{i}(item)",
    "if r is bad:",
    "    raise Fallback",
    "out[k{i}] = r",
]
_STORE: dict[str, list[str]] = {
    "string": [
        "if type(item) is str and item.isascii():",
        "    out[k{i}] = item",
        "else:",
        *("    " + line for line in _GENERAL),
    ],
    "enum": [
        "if type(item) is str and item in n{i}:",
        "    out[k{i}] = item",
        "else:",
        *("    " + line for line in _GENERAL),
    ],
    "bool": [
        "if item is not True and item is not False:",
        "    raise Fallback",
        "out[k{i}] = item",
    ],
    "scalar": _GENERAL,
    "scalars": [
        "if type(item) is not list:",
        "    raise Fallback",
        "r = [c{i}(element) for element in item]",
        "if bad in r:",
        "    raise Fallback",
        "out[k{i}] = r",
    ],
    "message": ["out[k{i}] = t{i}.check(item, depth + 1)"],
    "messages": [
        "if type(item) is not list:",
        "    raise Fallback",
        "out[k{i}] = [t{i}.check(element, depth + 1) for element in item]",
    ],
    "json": ["out[k{i}] = j{i}(item, depth + 1)"],
}
# The same checks for a value that is the caller's to give away (``in_place``): the
# canonical form is the value itself, with the few values a check changes (a number
# where a 64-bit integer's text goes, an enum's number) replaced where they are.
_GENERAL_IN_PLACE = [
    "r = c{i}(item)",
    "if r is bad:",
    "    raise Fallback",
    "if r is not item:",
    "    value[key] = r",  # the key is there already: the dict keeps its size
]
_IN_PLACE: dict[str, list[str]] = {
    "string": [
        "if type(item) is not str or not item.isascii():",
        *("    " + line for line in _GENERAL_IN_PLACE),
    ],
    "enum": [
        "if type(item) is not str or item not in n{i}:",
        *("    " + line for line in _GENERAL_IN_PLACE),
    ],
    "bool": [
        "if item is not True and item is not False:",
        "    raise Fallback",
    ],
    "scalar": _GENERAL_IN_PLACE,
    "scalars": [
        "if type(item) is not list:",
        "    raise Fallback",
        "for at, element in enumerate(item):",
        "    r = c{i}(element)",
        "    if r is bad:",
        "        raise Fallback",
        "    if r is not element:",
        "        item[at] = r",
    ],
    "message": ["t{i}.check(item, depth + 1)"],
    "messages": [
        "if type(item) is not list:",
        "    raise Fallback",
        "for element in item:",
        "    t{i}.check(element, depth + 1)",
    ],
    "json": ["j{i}(item, depth + 1)"],
}


def compile_message(
    plans: Sequence[FieldPlan],
    required: Sequence[str],
    oneof_required: Sequence[Sequence[str]],
    *,
    bad: object,
    target: Callable[[str], Target],
    in_place: bool = False,
) -> FastCheck:
    """The check of one message type: its fields' plans (a field without one
    falls back), the json names that must hold a value, the oneofs one of whose
    members must; ``bad`` is what a field's ``check`` returns for a value it
    refuses, ``target`` gives the ``Target`` of a message type (of the same
    ``in_place``). ``in_place``: the value given is brought to canonical form where
    it is and returned (a value that falls back may have been changed so far, each
    change to its canonical form), else the canonical form is a new value."""
    names = {plan.json_name: i for i, plan in enumerate(plans)}
    flags: dict[str, str] = {}  # a local per oneof: a member was given
    for plan in plans:
        if plan.oneof:
            flags.setdefault(plan.oneof, f"o{len(flags)}")
    bound: dict[str, Any] = {"bad": bad, "Fallback": Fallback}
    body = [
        "def run(value, depth):",
        "    if type(value) is not dict or depth >= MAX_DEPTH:",
        "        raise Fallback",
        *(() if in_place else ("    out = {}",)),
        *(f"    {flag} = False" for flag in flags.values()),
        "    for key, item in value.items():",
        "        if item is None:",
        "            raise Fallback",
    ]
    for i, plan in enumerate(plans):
        bound[f"k{i}"] = plan.json_name
        shape = plan.shape
        if plan.check is not None:
            bound[f"c{i}"] = plan.check
        if shape == "enum":
            bound[f"n{i}"] = plan.names
        if shape in ("message", "messages"):
            bound[f"t{i}"] = target(plan.target)
        elif shape in _JSON:
            bound[f"j{i}"] = _JSON[shape]
            shape = "json"
        body.append(f"        {'if' if i == 0 else 'elif'} key == k{i}:")
        if plan.oneof:
            flag = flags[plan.oneof]
            body += [
                f"            if {flag}:",
                "                raise Fallback",
                f"            {flag} = True",
            ]
        store = (_IN_PLACE if in_place else _STORE)[shape]
        body += ["            " + line.format(i=i) for line in store]
    if plans:  # a key that names no field with a plan
        body += ["        else:", "            raise Fallback"]
    else:
        body.append("        raise Fallback")
    if any(name not in names for name in required) or any(
        not any(member in names for member in members) for members in oneof_required
    ):
        # a REQUIRED field that is never plain: such a value never is
        body.append("    raise Fallback")
    else:
        out = "value" if in_place else "out"
        for name in required:
            body += [f"    if not {out}.get(k{names[name]}):", "        raise Fallback"]
        for members in oneof_required:
            held = " or ".join(
                f"{out}.get(k{names[member]})" for member in members if member in names
            )
            body += [f"    if not ({held}):", "        raise Fallback"]
        body.append(f"    return {out}")
    bound["MAX_DEPTH"] = MAX_DEPTH
    made: FastCheck = compiled("<validation of one message type>", body, bound)
    return made


def validator(
    schema: Schema,
    message_type: str,
    *,
    unknown_fields: UnknownFields = "drop",
    in_place: bool = False,
) -> Callable[[object], dict[str, Any]]:
    """``schema.validate`` of requests of ``message_type`` as a function of the value,
    its arguments checked once (a server holds one per method): the compiled check
    first, the general walk where it falls back. ``in_place=True``: the value is the
    caller's to give away (a request just decoded), so a plain one is brought to
    canonical form where it is and returned itself, its values changed in place where
    the canonical form differs (even when it is then refused)."""
    schema._arguments(message_type, unknown_fields)
    compiled_check = target(schema, message_type, in_place)
    reject = unknown_fields == "reject"
    walked = schema._walked

    def validate(value: object) -> dict[str, Any]:
        try:  # the plain case first, compiled (on the first call: read ``check`` each
            # time, since the first call replaces it with the compiled function)
            plain: dict[str, Any] = compiled_check.check(value, 1)
            return plain
        except Fallback:
            return walked(message_type, value, reject, False)

    return validate


def target(schema: Schema, type_name: str, in_place: bool = False) -> Target:
    """The compiled check of ``type_name`` in ``schema``, made once (kept by the
    schema, so it goes with it). Each copy of this module keeps its own: a schema
    that two copies share (a vendored package beside another) never runs the other
    copy's checks, whose refusals this copy would not know."""
    targets: dict[tuple[str, bool, str], Target] = schema.compiled
    key = (type_name, in_place, __name__)
    found = targets.get(key)
    if found is None:
        found = targets[key] = Target(lambda: _compile(schema, type_name, in_place))
    return found


def _compile(schema: Schema, type_name: str, in_place: bool) -> FastCheck:
    message = schema._message(type_name)
    plans = [
        plan
        for plan in (_plan(schema, field) for field in message.fields.values())
        if plan is not None
    ]
    return compile_message(
        plans,
        [field.json_name for field in message.required],
        [members for _, members in message.oneof_required],
        bad=_BAD,
        target=lambda name: target(schema, name, in_place),
        in_place=in_place,
    )


def _plan(schema: Schema, field: _Field) -> FieldPlan | None:
    """How the compiled check takes ``field`` (``_validate_fast``); None for a
    field it leaves to the walk (a map, an ``Any``, a list of JSON values)."""
    kind, json_name = field.kind, field.json_name
    if field.outer is _Walk.map:
        return None
    if field.outer is _Walk.repeated:
        if field.messages:
            return FieldPlan(json_name, "messages", target=field.type_name)
        if field.convert is not None:
            return FieldPlan(json_name, "scalars", field.convert)
        return None
    if kind == "enum":
        assert field.convert is not None
        names = frozenset(name for name, _ in schema.enum_values(field.type_name))
        return FieldPlan(json_name, "enum", field.convert, names, oneof=field.oneof)
    if kind in ("string", "bool") or field.convert is not None:
        shape = kind if kind in ("string", "bool") else "scalar"
        return FieldPlan(json_name, shape, field.convert, oneof=field.oneof)
    if kind == "message":
        return FieldPlan(
            json_name, "message", target=field.type_name, oneof=field.oneof
        )
    if kind in _TEXT_CHECKS:
        return FieldPlan(json_name, "scalar", _TEXT_CHECKS[kind], oneof=field.oneof)
    if kind in ("struct", "value", "list_value"):
        return FieldPlan(json_name, kind, oneof=field.oneof)
    return None  # an Any

"""What changed in the messages and enums a service's JSON peers exchange.

Types pair across the two versions by full name, then by their name inside the package
(a package rename moves every type), then by likeness (a type renamed or moved keeps
most of its field or value names and a similar name). Fields pair as ProtoJSON reads
them: by json name, then by proto name (a ``json_name`` changed), then by number (a
rename). Enum values pair by name, then by number. A message is judged in each role it
plays (reached from an rpc's request, its response, or both; see ``diff_change`` for
who a change breaks): a REQUIRED field added to a request breaks old clients, added to
a response it breaks old servers (new clients expect what they never send).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from .diff_change import BOTH, CLIENTS, GRPC, NONE, SERVERS, Change, Effect, Role
from .diff_change import effect_of, impact_of
from .diff_json import JsonForm, element_form, misread, scalar_form, wire_compatible
from .model import BindingFile, Enum, EnumValue, Field, Message

__all__ = ["Schema", "TypeComparison", "relative_name"]

T = TypeVar("T", Message, Enum)
Aspect = tuple[str, str, Effect]  # code, text, who it breaks


def relative_name(full_name: str, package: str) -> str:
    """A type's name inside its package (``lf.a2a.v1.Part`` -> ``Part``)."""
    prefix = package + "." if package else ""
    return full_name[len(prefix) :] if full_name.startswith(prefix) else full_name


@dataclass(frozen=True)
class Schema:
    """The messages and enums one version's services reach, with the roles of each."""

    messages: Mapping[str, Message]
    enums: Mapping[str, Enum]
    roles: Mapping[str, frozenset[Role]]

    @classmethod
    def of(cls, files: Sequence[BindingFile]) -> Schema:
        messages = {m.full_name: m for f in files for m in f.messages}
        enums = {e.full_name: e for f in files for e in f.enums}
        roles: dict[str, set[Role]] = {}
        starts: list[tuple[str, Role]] = []
        for binding_file in files:
            for method in binding_file.methods:
                starts.append((method.request.full_name, "request"))
                starts.append((method.response.full_name, "response"))
        for start, role in starts:
            pending = [start]
            while pending:
                name = pending.pop()
                if role in roles.setdefault(name, set()):
                    continue
                roles[name].add(role)
                message = messages.get(name)
                if message is None or message.well_known:
                    continue
                for field in message.fields:
                    target = field.map_value if field.map_value is not None else field
                    if target.kind == "enum":
                        roles.setdefault(target.type_name, set()).add(role)
                    elif target.kind == "message":
                        pending.append(target.type_name)
        return cls(messages, enums, {k: frozenset(v) for k, v in roles.items()})

    def role(self, full_name: str) -> frozenset[Role]:
        return self.roles.get(full_name, frozenset())


def _role_text(roles: frozenset[Role]) -> str:
    return " and ".join(r for r in ("request", "response") if r in roles)


def _by_role(roles: frozenset[Role], request: Effect, response: Effect) -> Effect:
    """The effect of a change in each role the message plays."""
    return (request if "request" in roles else NONE) | (
        response if "response" in roles else NONE
    )


def _pair_types(
    old: Mapping[str, T], new: Mapping[str, T], names: Callable[[T], set[str]]
) -> tuple[list[tuple[T, T]], list[T], list[T]]:
    """Pairs by full name, then by name in the package, then by likeness."""
    pairs = [(old[n], new[n]) for n in old if n in new]
    left_old = [t for n, t in old.items() if n not in new]
    left_new = [t for n, t in new.items() if n not in old]
    by_relative: dict[str, list[T]] = {}
    for item in left_new:
        by_relative.setdefault(relative_name(item.full_name, item.package), []).append(
            item
        )
    still_old: list[T] = []
    for item in left_old:
        same = by_relative.get(relative_name(item.full_name, item.package), [])
        if len(same) == 1:
            pairs.append((item, same.pop()))
        else:
            still_old.append(item)
    taken = {id(n) for _, n in pairs}
    still_new = [t for t in left_new if id(t) not in taken]
    scored = []
    for o in still_old:
        for n in still_new:
            score = _likeness(o, n, names)
            if score is not None:
                scored.append((-score, o.full_name, n.full_name, o, n))
    used_old: set[str] = set()
    used_new: set[str] = set()
    for _, old_name, new_name, o, n in sorted(scored, key=lambda s: s[:3]):
        if old_name not in used_old and new_name not in used_new:
            pairs.append((o, n))
            used_old.add(old_name)
            used_new.add(new_name)
    removed = [o for o in still_old if o.full_name not in used_old]
    added = [n for n in still_new if n.full_name not in used_new]
    return pairs, removed, added


def _likeness(old: T, new: T, names: Callable[[T], set[str]]) -> float | None:
    """How surely ``new`` is ``old`` renamed or moved: most names in common and a
    similar name (or all names in common); None when it is not."""
    old_names, new_names = names(old), names(new)
    if not old_names or not new_names:
        return None
    jaccard = len(old_names & new_names) / len(old_names | new_names)
    ratio = difflib.SequenceMatcher(
        None, old.full_name.rsplit(".", 1)[-1], new.full_name.rsplit(".", 1)[-1]
    ).ratio()
    if jaccard >= 0.6 and (ratio >= 0.6 or (jaccard == 1.0 and len(old_names) >= 2)):
        return jaccard + ratio
    return None


def _field_names(message: Message) -> set[str]:
    return {f.json_name for f in message.fields}


def _value_names(enum: Enum) -> set[str]:
    return {v.name for v in enum.values}


def _pair_fields(
    old: Message, new: Message, same_type: Callable[[str, str], bool]
) -> tuple[list[tuple[Field, Field]], list[Field], list[Field]]:
    """Fields paired by json name, then proto name, then number: a rename keeps the
    number, the kind of value and a like name (``page_token`` -> ``next_page_token``)
    or the same message or enum type (``content`` -> ``parts``, both ``repeated Part``);
    a number reused for another value, or a scalar under an unrelated name, is a field
    removed and one added, which is what a JSON peer sees. Pairs come in the new
    declaration order."""

    def renamed(was: Field, now: Field) -> bool:
        if _like_names(was.name, now.name):
            return True
        if was.map_value is not None or now.map_value is not None:
            return False
        return was.kind in ("message", "enum") and same_type(
            was.type_name, now.type_name
        )

    left_old = list(old.fields)
    left_new = list(new.fields)
    pairs: list[tuple[Field, Field]] = []
    keys: tuple[Callable[[Field], object], ...] = (
        lambda f: f.json_name,
        lambda f: f.name,
        lambda f: (f.number, _cardinality(f), f.kind),
    )
    for step, key in enumerate(keys):
        by_key = {key(f): f for f in left_new}
        unmatched: list[Field] = []
        for field in left_old:
            match = by_key.get(key(field))
            if match is None or (step == 2 and not renamed(field, match)):
                unmatched.append(field)
            else:
                del by_key[key(field)]
                pairs.append((field, match))
        left_old = unmatched
        left_new = list(by_key.values())
    order = {id(f): i for i, f in enumerate(new.fields)}
    pairs.sort(key=lambda p: order[id(p[1])])
    return pairs, left_old, left_new


def _like_names(old: str, new: str) -> bool:
    """Names one could be renamed to the other: similar, or one's words all in the
    other's (``config_id`` -> ``id``)."""
    old_words, new_words = set(old.split("_")), set(new.split("_"))
    if old_words <= new_words or new_words <= old_words:
        return True
    return difflib.SequenceMatcher(None, old, new).ratio() >= 0.6


def _cardinality(field: Field) -> str:
    if field.is_map:
        return "map"
    return "repeated" if field.repeated else "singular"


_CARDINALITY_LABELS = {
    "map": "a map (a JSON object)",
    "repeated": "repeated (a JSON array)",
    "singular": "singular (one JSON value)",
}


class TypeComparison:
    """Compares the messages and enums of two versions (``Schema``s)."""

    def __init__(self, old: Schema, new: Schema) -> None:
        self.old = old
        self.new = new
        self.message_pairs, self.removed_messages, self.added_messages = _pair_types(
            {n: m for n, m in old.messages.items() if not m.well_known},
            {n: m for n, m in new.messages.items() if not m.well_known},
            _field_names,
        )
        self.enum_pairs, self.removed_enums, self.added_enums = _pair_types(
            dict(old.enums), dict(new.enums), _value_names
        )
        self._visiting: set[tuple[str, str]] = set()
        self._paired = {o.full_name: n.full_name for o, n in self.message_pairs}
        self._paired.update({o.full_name: n.full_name for o, n in self.enum_pairs})

    def same_type(self, old_type: str, new_type: str) -> bool:
        """True when ``old_type`` of the old version is ``new_type`` of the new one."""
        return self._paired.get(old_type, old_type) == new_type

    def changes(self) -> list[Change]:
        """Every change of every type, messages then enums, by name."""
        changes: list[Change] = []
        for old, new in sorted(self.message_pairs, key=lambda p: _label(p[1])):
            roles = self.old.role(old.full_name) | self.new.role(new.full_name)
            if _label(old) != _label(new):
                changes.append(
                    _type_change(
                        old,
                        new,
                        "message",
                        f"renamed {_label(old)} -> {_label(new)} (JSON unaffected; its "
                        "TypedDict in messages.py is renamed)",
                        "message-renamed",
                        roles,
                    )
                )
            changes.extend(self.messages(old, new, roles, f"message {_label(new)}"))
        for message in sorted(self.removed_messages, key=_label):
            changes.append(
                _type_change(
                    message,
                    None,
                    "message",
                    "no longer reached by any rpc (the fields and rpcs that held it "
                    "are listed)",
                    "message-removed",
                    self.old.role(message.full_name),
                )
            )
        for message in sorted(self.added_messages, key=_label):
            changes.append(
                _type_change(
                    None,
                    message,
                    "message",
                    "added",
                    "message-added",
                    self.new.role(message.full_name),
                )
            )
        for old_enum, new_enum in sorted(self.enum_pairs, key=lambda p: _label(p[1])):
            roles = self.old.role(old_enum.full_name) | self.new.role(
                new_enum.full_name
            )
            if _label(old_enum) != _label(new_enum):
                changes.append(
                    _type_change(
                        old_enum,
                        new_enum,
                        "enum",
                        f"renamed {_label(old_enum)} -> {_label(new_enum)} (JSON "
                        "unaffected: it writes value names)",
                        "enum-renamed",
                        roles,
                    )
                )
            changes.extend(self.enum_values(old_enum, new_enum, roles))
        for enum in sorted(self.removed_enums, key=_label):
            changes.append(
                _type_change(
                    enum,
                    None,
                    "enum",
                    "no longer reached by any rpc",
                    "enum-removed",
                    self.old.role(enum.full_name),
                )
            )
        for enum in sorted(self.added_enums, key=_label):
            changes.append(
                _type_change(
                    None,
                    enum,
                    "enum",
                    "added",
                    "enum-added",
                    self.new.role(enum.full_name),
                )
            )
        return changes

    def messages(
        self, old: Message, new: Message, roles: frozenset[Role], subject: str
    ) -> Iterator[Change]:
        """The field changes between two messages in ``roles``."""
        if not roles:
            roles = frozenset(("request", "response"))
        pairs, removed, added = _pair_fields(old, new, self.same_type)
        new_names = {o.name: n.name for o, n in pairs}
        for old_field, new_field in pairs:
            nested: list[Change] = []
            aspects = list(
                self._field_aspects(
                    old, new, old_field, new_field, new_names, roles, subject, nested
                )
            )
            if not aspects:
                continue
            head = (
                f"field {old_field.name} -> {new_field.name}"
                if old_field.name != new_field.name
                else f"field {new_field.name}"
            )
            yield Change(
                subject,
                f"{head}: " + "; ".join(text for _, text, _ in aspects),
                impact_of(effect for _, _, effect in aspects),
                tuple(dict.fromkeys(code for code, _, _ in aspects)),
                f"{old.full_name}.{old_field.name}",
                f"{new.full_name}.{new_field.name}",
                old_field.location,
                new_field.location,
                _role_text(roles),
            )
            yield from nested
        for field in added:
            required = field.required or field.legacy_required
            text = f"field {field.name} added ({self._type_label(field, new)}, number {field.number})"
            if field.legacy_required:
                text += ", required (proto2): old senders never set it"
            elif field.required:
                text += ", REQUIRED: old senders never set it"
            effect = (
                _by_role(roles, request=CLIENTS, response=SERVERS) if required else NONE
            )
            yield Change(
                subject,
                text,
                effect.impact,
                ("field-added",) + (("field-required-added",) if required else ()),
                "",
                f"{new.full_name}.{field.name}",
                old.location,
                field.location,
                _role_text(roles),
            )
        for field in removed:
            was_required = field.required or field.legacy_required
            text = (
                f"field {field.name} removed ({self._type_label(field, old)}, number "
                f"{field.number}): old clients "
                + (
                    "send it and lose it"
                    if roles == {"request"}
                    else (
                        "no longer get it"
                        if roles == {"response"}
                        else "send it and lose it, or no longer get it"
                    )
                )
            )
            if was_required and "request" in roles:
                text += "; old servers require it"
            effect = _by_role(
                roles,
                request=CLIENTS | (SERVERS if was_required else NONE),
                response=CLIENTS,
            )
            yield Change(
                subject,
                text,
                effect.impact,
                ("field-removed",),
                f"{old.full_name}.{field.name}",
                "",
                field.location,
                new.location,
                _role_text(roles),
            )

    def _field_aspects(
        self,
        old_message: Message,
        new_message: Message,
        old: Field,
        new: Field,
        new_names: Mapping[str, str],
        roles: frozenset[Role],
        subject: str,
        nested: list[Change],
    ) -> Iterator[Aspect]:
        """What changed in one field, aspect by aspect; the changes inside a field's
        value that became another message go to ``nested``."""
        if old.json_name != new.json_name:
            yield "field-renamed", (
                f"renamed (JSON {old.json_name} -> {new.json_name})"
            ), BOTH
        elif old.name != new.name:
            # ProtoJSON parsers accept the proto name too; writers use the json name.
            yield "field-proto-name-changed", f"proto name {old.name} -> {new.name} " + (
                "(JSON name unchanged; old clients that send the proto name are refused)"
                if "request" in roles
                else "(JSON name unchanged)"
            ), _by_role(
                roles, request=CLIENTS, response=NONE
            )
        if old.number != new.number:
            yield "field-renumbered", (
                f"number {old.number} -> {new.number} (binary peers read it as "
                "another field)"
            ), GRPC
        yield from self._type_aspects(
            old_message, new_message, old, new, roles, f"{subject}.{new.name}", nested
        )
        oneof = list(
            self._oneof_aspects(old_message, new_message, old, new, new_names, roles)
        )
        yield from oneof
        if (
            not oneof
            and _cardinality(old) == _cardinality(new) == "singular"
            and old.explicit_presence != new.explicit_presence
        ):
            if new.explicit_presence:
                yield "field-presence-changed", (
                    "now tracks presence (optional): a zero value that is set is "
                    "written"
                ), NONE
            else:
                yield "field-presence-changed", (
                    "no longer tracks presence: a zero value is left out, so it reads "
                    "as unset"
                ), _by_role(roles, request=SERVERS, response=CLIENTS)
        for was, now, label in (
            (old.required, new.required, "REQUIRED"),
            (old.legacy_required, new.legacy_required, "required (proto2)"),
        ):
            if now and not was:
                yield "field-required-added", (
                    f"now {label}: senders built from the old version may leave it out"
                ), _by_role(roles, request=CLIENTS, response=SERVERS)
            elif was and not now:
                yield "field-required-removed", (
                    f"no longer {label}: senders built from the new version may leave "
                    "it out"
                ), _by_role(roles, request=SERVERS, response=CLIENTS)
        if old.default != new.default:
            yield "field-default-changed", (
                f"default {old.default or '(none)'} -> {new.default or '(none)'}: an "
                "absent value reads differently on each side"
            ), BOTH
        if new.deprecated and not old.deprecated:
            yield "field-deprecated", "now deprecated", NONE

    def _type_label(self, field: Field, message: Message) -> str:
        def one(kind: str, type_name: str) -> str:
            return (
                relative_name(type_name, message.package)
                if kind in ("message", "enum")
                else kind
            )

        if field.map_value is not None:
            value = field.map_value
            return f"map<{field.map_key_kind}, {one(value.kind, value.type_name)}>"
        single = one(field.kind, field.type_name)
        return f"repeated {single}" if field.repeated else single

    def _type_aspects(
        self,
        old_message: Message,
        new_message: Message,
        old: Field,
        new: Field,
        roles: frozenset[Role],
        subject: str,
        nested: list[Change],
    ) -> Iterator[Aspect]:
        old_label = self._type_label(old, old_message)
        new_label = self._type_label(new, new_message)
        old_card, new_card = _cardinality(old), _cardinality(new)
        if old_card != new_card:
            yield "field-cardinality-changed", (
                f"{_CARDINALITY_LABELS[old_card]} -> {_CARDINALITY_LABELS[new_card]} "
                f"({old_label} -> {new_label}): readers refuse the other shape"
            ), BOTH
            return
        forms: list[tuple[JsonForm, JsonForm]] = []
        if old.map_value is not None and new.map_value is not None:
            if old.map_key_kind != new.map_key_kind:
                # JSON map keys are always strings; a key kind reads another's keys
                # when its values would.
                forms.append(
                    (
                        _key_form(old.map_key_kind or "string"),
                        _key_form(new.map_key_kind or "string"),
                    )
                )
        old_form = element_form(old, old_message.package)
        new_form = element_form(new, new_message.package)
        old_target = old.map_value or old
        new_target = new.map_value or new
        if old_target.kind != new_target.kind or not self.same_type(
            old_target.type_name, new_target.type_name
        ):
            forms.append((old_form, new_form))
        if not forms:
            return
        if (
            old_form.shape == new_form.shape == "object"
            and len(forms) == 1
            and old_form.type_name in self.old.messages
            and new_form.type_name in self.new.messages
        ):
            code, text, effect = self._other_message(
                old_form.type_name, new_form.type_name, roles, subject, nested
            )
            yield code, f"type {old_label} -> {new_label}: {text}", effect
            return
        effect = NONE
        reasons: list[str] = []
        for role in ("request", "response"):
            if role not in roles:
                continue
            lenient = role == "request"  # servers parse ProtoJSON
            for was, now in forms:
                # old writer, new reader; new writer, old reader
                old_to_new = self._misread(now, was, lenient, forward=True)
                new_to_old = self._misread(was, now, lenient, forward=False)
                if role == "request":
                    broken = Effect(
                        clients=old_to_new is not None, servers=new_to_old is not None
                    )
                else:
                    broken = Effect(
                        clients=new_to_old is not None, servers=old_to_new is not None
                    )
                effect = effect | broken
                reasons += [r for r in (new_to_old, old_to_new) if r is not None]
        wire_ok = wire_compatible(old_target, new_target) and (
            old.map_key_kind == new.map_key_kind
        )
        if not effect.clients and not effect.servers and not wire_ok:
            effect = GRPC
            reasons.append("the JSON form is the same; the binary encoding differs")
        json_change = (
            f" ({old_form.label} -> {new_form.label})"
            if old_form.label != new_form.label
            else ""
        )
        reason = f": {reasons[0]}" if reasons else ""
        yield "field-type-changed", f"type {old_label} -> {new_label}{json_change}{reason}", effect

    def _other_message(
        self,
        old_type: str,
        new_type: str,
        roles: frozenset[Role],
        subject: str,
        nested: list[Change],
    ) -> tuple[str, str, Effect]:
        """A field whose value became another message: the two compared field by
        field under ``subject`` (once per pair of types on the way down)."""
        pair = (old_type, new_type)
        if pair in self._visiting:
            return "field-type-changed", "another message (compared above)", NONE
        self._visiting.add(pair)
        try:
            details = list(
                self.messages(
                    self.old.messages[old_type],
                    self.new.messages[new_type],
                    roles,
                    subject,
                )
            )
        finally:
            self._visiting.discard(pair)
        nested.extend(details)
        text = (
            f"another message, {len(details)} change(s) under '{subject}'"
            if details
            else "another message with the same fields"
        )
        return "field-type-changed", text, effect_of(details)

    def _misread(
        self, reader: JsonForm, writer: JsonForm, lenient: bool, *, forward: bool
    ) -> str | None:
        """``forward``: the writer is of the old version and the reader of the new."""

        def same_type(reader_type: str, writer_type: str) -> bool:
            if forward:
                return self.same_type(writer_type, reader_type)
            return self.same_type(reader_type, writer_type)

        def names_missing(reader_enum: str, writer_enum: str) -> tuple[str, ...]:
            readers = self.new.enums if forward else self.old.enums
            writers = self.old.enums if forward else self.new.enums
            known = (
                {v.name for v in readers[reader_enum].values}
                if reader_enum in readers
                else set()
            )
            written = writers[writer_enum].values if writer_enum in writers else ()
            return tuple(v.name for v in written if v.name not in known)

        return misread(
            reader,
            writer,
            lenient=lenient,
            same_type=same_type,
            names_missing=names_missing,
        )

    def _oneof_aspects(
        self,
        old_message: Message,
        new_message: Message,
        old: Field,
        new: Field,
        new_names: Mapping[str, str],
        roles: frozenset[Role],
    ) -> Iterator[Aspect]:
        if old.oneof is None and new.oneof is None:
            return
        before = {
            new_names[f.name]
            for f in old_message.fields
            if old.oneof is not None
            and f.oneof == old.oneof
            and f is not old
            and f.name in new_names
        }
        survivors = set(new_names.values())
        after = {
            f.name
            for f in new_message.fields
            if new.oneof is not None
            and f.oneof == new.oneof
            and f is not new
            and f.name in survivors
        }
        joined = sorted(after - before)
        left = sorted(before - after)
        if old.oneof == new.oneof and not joined and not left:
            return
        parts: list[str] = []
        if old.oneof is None:
            parts.append(f"moved into oneof {new.oneof}")
        elif new.oneof is None:
            parts.append(f"moved out of oneof {old.oneof}")
        elif old.oneof != new.oneof:
            parts.append(f"oneof {old.oneof} -> {new.oneof}")
        effect = NONE
        if joined:
            parts.append(
                f"old senders may set it with {', '.join(joined)}, which new readers refuse"
            )
            effect = effect | _by_role(roles, request=CLIENTS, response=SERVERS)
        if left:
            parts.append(
                f"new senders may set it with {', '.join(left)}, which old readers refuse"
            )
            effect = effect | _by_role(roles, request=SERVERS, response=CLIENTS)
        if not joined and not left:
            parts.append("same members (JSON has no oneof names)")
        yield "field-oneof-changed", "; ".join(parts), effect

    def enum_values(
        self, old: Enum, new: Enum, roles: frozenset[Role]
    ) -> Iterator[Change]:
        """The value changes between two enums in ``roles``."""
        if not roles:
            roles = frozenset(("request", "response"))
        subject = f"enum {_label(new)}"
        left_old = list(old.values)
        left_new = list(new.values)
        pairs: list[tuple[EnumValue, EnumValue]] = []
        keys: tuple[Callable[[EnumValue], object], ...] = (
            lambda v: v.name,
            lambda v: v.number,
        )
        for key in keys:
            by_key: dict[object, EnumValue] = {}
            for value in left_new:
                by_key.setdefault(key(value), value)
            for value in list(left_old):
                match = by_key.get(key(value))
                if match is not None and any(match is v for v in left_new):
                    pairs.append((value, match))
                    left_old = [v for v in left_old if v is not value]
                    left_new = [v for v in left_new if v is not match]
        order = {id(v): i for i, v in enumerate(new.values)}
        pairs.sort(key=lambda p: order[id(p[1])])
        role = _role_text(roles)

        def change(
            text: str,
            effect: Effect,
            code: str,
            was: EnumValue | None,
            now: EnumValue | None,
        ) -> Change:
            return Change(
                subject,
                text,
                effect.impact,
                (code,),
                f"{old.full_name}.{was.name}" if was else "",
                f"{new.full_name}.{now.name}" if now else "",
                was.location if was else old.location,
                now.location if now else new.location,
                role,
            )

        for was, now in pairs:
            if was.name != now.name:
                yield change(
                    f"value {was.name} -> {now.name} (number {now.number}): JSON "
                    "writes the name, which the other side refuses",
                    BOTH,
                    "enum-value-renamed",
                    was,
                    now,
                )
            elif was.number != now.number:
                yield change(
                    f"value {now.name}: number {was.number} -> {now.number} (binary "
                    "peers read it as another value)",
                    GRPC,
                    "enum-value-renumbered",
                    was,
                    now,
                )
        for now in left_new:
            yield change(
                f"value {now.name} ({now.number}) added",
                NONE,
                "enum-value-added",
                None,
                now,
            )
        for was in left_old:
            yield change(
                f"value {was.name} ({was.number}) removed: "
                + (
                    "old clients that send it are refused"
                    if roles == {"request"}
                    else (
                        "old servers still send it to new clients"
                        if roles == {"response"}
                        else "old clients that send it are refused, and old servers "
                        "still send it"
                    )
                ),
                _by_role(roles, request=CLIENTS, response=SERVERS),
                "enum-value-removed",
                was,
                None,
            )


def _key_form(kind: str) -> JsonForm:
    """A map key's form: always a JSON string, which ProtoJSON parses by the key kind."""
    form = scalar_form(kind, "")
    if form.shape == "integer":
        return JsonForm("integer", f"{kind} keys", form.low, form.high, quoted=True)
    return JsonForm(form.shape, f"{kind} keys")


def _label(item: Message | Enum) -> str:
    return relative_name(item.full_name, item.package)


def _type_change(
    old: Message | Enum | None,
    new: Message | Enum | None,
    what: str,
    text: str,
    code: str,
    roles: Iterable[Role],
) -> Change:
    shown = new if new is not None else old
    assert shown is not None
    return Change(
        f"{what} {_label(shown)}",
        text,
        "none",
        (code,),
        old.full_name if old else "",
        new.full_name if new else "",
        old.location if old else None,
        new.location if new else None,
        _role_text(frozenset(roles)),
    )

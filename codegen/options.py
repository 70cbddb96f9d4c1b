"""The plugin parameter (``--a2a_opt=k=v,...``), parsed once into a frozen object."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Literal, cast

__all__ = ["Options", "OptionError"]

Ambiguity = Literal["warn", "error", "ignore"]
Profile = Literal["auto", "a2a", "none"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class OptionError(ValueError):
    """A plugin option that is unknown or has a bad value; the message names it."""


@dataclass(frozen=True)
class Options:
    """Everything the plugin can be told.

    module:        name of the generated package (default: ``<proto file stem>_binding``).
    tenant_field:  request field that carries the tenant; setting it also synthesises
                   ``/{field}`` route variants for bindings that lack one.
    ambiguity:     what to do about overlapping routes: ``warn`` (stderr), ``error``, ``ignore``.
    profile:       ``a2a`` adds the A2A extras (POST alias on ``:subscribe``, content types,
                   agent card path); ``auto`` applies it to services named ``A2AService``.
    """

    module: str | None = None
    tenant_field: str | None = None
    ambiguity: Ambiguity = "warn"
    profile: Profile = "auto"

    @classmethod
    def parse(cls, parameter: str) -> Options:
        """Parse ``k=v,k=v``; an unknown key or a bad value raises ``OptionError``."""
        known = {field.name for field in dataclasses.fields(cls)}
        values: dict[str, str] = {}
        for item in filter(None, (part.strip() for part in parameter.split(","))):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep:
                raise OptionError(f"option {key!r} needs a value (write {key}=VALUE)")
            if key not in known:
                raise OptionError(f"unknown option {key!r} (known: {', '.join(sorted(known))})")
            if key in values and values[key] != value:
                raise OptionError(f"option {key!r} given twice with different values")
            values[key] = value.strip()
        return cls.from_mapping(values)

    @classmethod
    def from_mapping(cls, values: dict[str, str]) -> Options:
        """Build options from already split key/value pairs, validating every value."""
        for key in ("module", "tenant_field"):
            if key in values and not _IDENTIFIER.match(values[key]):
                raise OptionError(f"option {key}={values[key]!r} is not a valid identifier")
        ambiguity = values.get("ambiguity", "warn")
        if ambiguity not in ("warn", "error", "ignore"):
            raise OptionError(f"option ambiguity={ambiguity!r}: expected warn, error or ignore")
        profile = values.get("profile", "auto")
        if profile not in ("auto", "a2a", "none"):
            raise OptionError(f"option profile={profile!r}: expected auto, a2a or none")
        return cls(
            module=values.get("module"),
            tenant_field=values.get("tenant_field"),
            ambiguity=cast(Ambiguity, ambiguity),
            profile=cast(Profile, profile),
        )

    def to_parameter(self) -> str:
        """The inverse of ``parse``: only the options that differ from the defaults."""
        default = Options()
        return ",".join(
            f"{field.name}={getattr(self, field.name)}"
            for field in dataclasses.fields(self)
            if getattr(self, field.name) != getattr(default, field.name)
        )

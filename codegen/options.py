"""The plugin parameter (``--a2a_opt=k=v,...``), parsed once into a frozen object."""

from __future__ import annotations

import dataclasses
import keyword
import re
from dataclasses import dataclass
from typing import Literal, cast

__all__ = ["Options", "OptionError"]

Ambiguity = Literal["warn", "error", "ignore"]
Profile = Literal["auto", "a2a", "none"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


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
    acknowledge:   a file listing reviewed overlaps (``codegen.acknowledge``), relative
                   to the folder protoc runs in; those are neither warned about nor errors.
    protocol_version: the A2A version the generated binding speaks (``Major.Minor``,
                   default ``1.0``); A2A profile only.
    max_query_depth: how deep nested messages may reach into a query string
                   (``a.b.c=1`` is depth 3; default 8); deeper fields are an error.
    max_query_params: how many query parameters one rpc may have (default 1000); more
                   is an error (nested messages multiply them).
    openapi:       ``true`` also writes ``openapi.json`` (OpenAPI 3.1 of the HTTP+JSON
                   binding) into the package.
    serve:         ``true`` adds the serving layer: ``handler.py`` (the typed handler)
                   and ``asgi.py`` (the ASGI app), and for A2A ``protocol.py`` (its
                   protocol rules). Without it a package holds the tables alone.
    client:        ``true`` adds ``client.py``, the client helpers, and ``protocol.py``
                   (A2A services only: elsewhere it is an error).
    grpc:          ``true`` also writes ``grpc_binding.py``, serving the handler on a
                   ``grpc.aio.Server`` and calling the service over a channel (any
                   service): the one module that needs more than the standard
                   library (grpcio, protobuf, the pb2 module). It serves the handler
                   of the serving layer, so it implies ``serve=true``
                   (``serve=false`` beside it is an error).
    translate:     ``true`` also writes ``http_backend.py``: a handler answered by an
                   A2A agent over JSON-RPC or HTTP+JSON, 1.0 or 0.3, which needs httpx
                   (A2A services only). It serves through the serving layer and
                   calls through the client helpers, so it implies ``serve=true``
                   and ``client=true`` (either ``false`` beside it is an error).
    pb2_module:    the module of the message classes ``protoc --python_out`` wrote for
                   the proto file (e.g. ``myproject.a2a_pb2``); default: the name
                   protoc gives it (``a2a_pb2`` for ``a2a.proto``, ``lf.a2a.v1.a2a_pb2``
                   for ``lf/a2a/v1/a2a.proto``), or ``a2a.types.a2a_pb2`` for the
                   embedded default input. Only with ``grpc=true``.
    v0_3_proto:    the name of a file in the request that is the A2A 0.3 proto (e.g.
                   ``a2a_v0_3.proto``, protoc's name for it): its routes, query codecs
                   and TypedDicts go into the ``v0_3`` subpackage of the one A2A
                   package the other files make, not into a package of their own.
    """

    module: str | None = None
    tenant_field: str | None = None
    ambiguity: Ambiguity = "warn"
    profile: Profile = "auto"
    acknowledge: str | None = None
    protocol_version: str = "1.0"
    max_query_depth: int = 8
    max_query_params: int = 1000
    openapi: bool = False
    serve: bool = False
    client: bool = False
    grpc: bool = False
    translate: bool = False
    pb2_module: str | None = None
    v0_3_proto: str | None = None

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
                raise OptionError(
                    f"unknown option {key!r} (known: {', '.join(sorted(known))})"
                )
            if key in values and values[key] != value:
                raise OptionError(f"option {key!r} given twice with different values")
            values[key] = value.strip()
        return cls.from_mapping(values)

    @classmethod
    def from_mapping(cls, values: dict[str, str]) -> Options:
        """Build options from already split key/value pairs, validating every value."""
        for key in ("module", "tenant_field"):
            if key in values and not _IDENTIFIER.match(values[key]):
                raise OptionError(
                    f"option {key}={values[key]!r} is not a valid identifier"
                )
        # The package is imported by this name: `import class` is a syntax error.
        if keyword.iskeyword(values.get("module", "")):
            raise OptionError(
                f"option module={values['module']!r} is a Python keyword; "
                "the package could not be imported"
            )
        if values.get("acknowledge") == "":
            raise OptionError("option acknowledge= needs a file name")
        ambiguity = values.get("ambiguity", "warn")
        if ambiguity not in ("warn", "error", "ignore"):
            raise OptionError(
                f"option ambiguity={ambiguity!r}: expected warn, error or ignore"
            )
        profile = values.get("profile", "auto")
        if profile not in ("auto", "a2a", "none"):
            raise OptionError(f"option profile={profile!r}: expected auto, a2a or none")
        version = values.get("protocol_version", "1.0")
        if not re.fullmatch(r"[0-9]{1,4}\.[0-9]{1,4}", version):
            raise OptionError(
                f"option protocol_version={version!r}: expected Major.Minor, e.g. 1.0"
            )
        limits = {}
        for key, default in (("max_query_depth", 8), ("max_query_params", 1000)):
            text = values.get(key, str(default))
            if not re.fullmatch(r"[0-9]{1,7}", text) or int(text) < 1:
                raise OptionError(f"option {key}={text!r}: expected a positive integer")
            limits[key] = int(text)
        flags = {}
        for key in ("openapi", "serve", "client", "grpc", "translate"):
            text = values.get(key, "false")
            if text not in ("true", "false"):
                raise OptionError(f"option {key}={text!r}: expected true or false")
            flags[key] = text == "true"
        if flags["grpc"] and values.get("serve") == "false":
            raise OptionError(
                "option serve=false contradicts grpc=true: the gRPC binding serves"
                " the handler of the serving layer (leave serve out, or set it true)"
            )
        for layer in ("serve", "client"):
            if flags["translate"] and values.get(layer) == "false":
                raise OptionError(
                    f"option {layer}=false contradicts translate=true: the HTTP"
                    " backend serves through the serving layer and calls through the"
                    f" client helpers (leave {layer} out, or set it true)"
                )
        pb2_module = values.get("pb2_module")
        if pb2_module is not None:
            if not _DOTTED.match(pb2_module) or any(
                keyword.iskeyword(part) for part in pb2_module.split(".")
            ):
                raise OptionError(
                    f"option pb2_module={pb2_module!r} is not a dotted module name"
                )
            if not flags["grpc"]:
                raise OptionError(
                    "option pb2_module= names the message classes of the gRPC binding;"
                    " it needs grpc=true"
                )
        if values.get("v0_3_proto") == "":
            raise OptionError("option v0_3_proto= needs a proto file name")
        return cls(
            module=values.get("module"),
            tenant_field=values.get("tenant_field"),
            ambiguity=cast(Ambiguity, ambiguity),
            profile=cast(Profile, profile),
            acknowledge=values.get("acknowledge"),
            protocol_version=version,
            max_query_depth=limits["max_query_depth"],
            max_query_params=limits["max_query_params"],
            openapi=flags["openapi"],
            serve=flags["serve"] or flags["grpc"] or flags["translate"],
            client=flags["client"] or flags["translate"],
            grpc=flags["grpc"],
            translate=flags["translate"],
            pb2_module=pb2_module,
            v0_3_proto=values.get("v0_3_proto"),
        )

    def to_parameter(self) -> str:
        """The inverse of ``parse``: only the options that differ from the defaults."""
        default = Options()
        return ",".join(
            f"{field.name}={_text(getattr(self, field.name))}"
            for field in dataclasses.fields(self)
            if getattr(self, field.name) != getattr(default, field.name)
        )


def _text(value: object) -> str:
    """An option value as the parameter writes it (booleans in lower case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)

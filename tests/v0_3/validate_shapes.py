"""Validate 0.3 JSON with a2a-sdk 0.3.26's own types, run in the 0.3 venv by
tests/test_v0_3_peer_types.py: reads a JSON list of cases from stdin, each
``{"model": NAME, "value": JSON}`` (a pydantic model of ``a2a.types``; the test
compares the dump with what it sent, which finds a field the model dropped) or ``{"proto": NAME, "value": JSON}`` (a message of
0.3.26's ``a2a.grpc.a2a_pb2``, parsed by ``json_format.ParseDict`` without ignoring
unknown fields), or ``{"aliases": [NAME...]}`` (those models); writes a JSON list of
results: ``{"ok": true, "dump": JSON}`` (the model dumped by alias without None, or the
message as ``MessageToDict``), ``{"ok": true, "aliases": {name: alias}}`` (each field of
those models and of every model they hold whose alias is not its Python name) or
``{"ok": false, "error": TEXT}``."""

from __future__ import annotations

import json
import sys
import typing
from typing import Any

from a2a import types
from a2a.grpc import a2a_pb2
from google.protobuf.json_format import MessageToDict, ParseDict
from pydantic import BaseModel


def aliases(annotation: Any, found: dict[str, str], seen: set[type]) -> None:
    """Each field's alias, where it is not its name, of the models ``annotation``
    names (through unions, lists, optionals) and of every model they hold."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return
        seen.add(annotation)
        for name, info in annotation.model_fields.items():
            if info.alias is not None and info.alias != name:
                found[name] = info.alias
            aliases(info.annotation, found, seen)
        return
    for argument in typing.get_args(annotation):
        aliases(argument, found, seen)


def check(case: dict[str, Any]) -> dict[str, Any]:
    try:
        if "aliases" in case:
            found: dict[str, str] = {}
            for name in case["aliases"]:
                aliases(getattr(types, name), found, set())
            return {"ok": True, "aliases": found}
        if "model" in case:
            model = getattr(types, case["model"])
            parsed = model.model_validate(case["value"])
            dump = parsed.model_dump(mode="json", by_alias=True, exclude_none=True)
            return {
                "ok": True,
                "dump": dump,
                "type": type(getattr(parsed, "root", parsed)).__name__,
            }
        message = ParseDict(case["value"], getattr(a2a_pb2, case["proto"])())
        return {"ok": True, "dump": MessageToDict(message)}
    except Exception as exc:  # noqa: BLE001 (reported to the test)
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


def main() -> None:
    cases = json.load(sys.stdin)
    json.dump([check(case) for case in cases], sys.stdout)


if __name__ == "__main__":
    main()

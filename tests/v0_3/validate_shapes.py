"""Validate 0.3 JSON with a2a-sdk 0.3.26's own types, run in the 0.3 venv by
tests/test_v0_3_peer_types.py: reads a JSON list of cases from stdin, each
``{"model": NAME, "value": JSON}`` (a pydantic model of ``a2a.types``; the test
compares the dump with what it sent, which finds a field the model dropped) or ``{"proto": NAME, "value": JSON}`` (a message of
0.3.26's ``a2a.grpc.a2a_pb2``, parsed by ``json_format.ParseDict`` without ignoring
unknown fields); writes a JSON list of results: ``{"ok": true, "dump": JSON}`` (the
model dumped by alias without None, or the message as ``MessageToDict``) or
``{"ok": false, "error": TEXT}``."""

from __future__ import annotations

import json
import sys
from typing import Any

from a2a import types
from a2a.grpc import a2a_pb2
from google.protobuf.json_format import MessageToDict, ParseDict


def check(case: dict[str, Any]) -> dict[str, Any]:
    try:
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

"""Coverage-guided fuzzing of the generated A2A tables (``make fuzz``).

One input picks a target (match, allowed_verbs, transcode, build, query decode, query
encode, parse_request) and feeds it bytes turned into paths, query strings, pairs and
JSON. Only the declared errors may escape; anything else is a crash atheris reports,
and a reproduced crash becomes a case in tests/test_robustness.py (FOUND).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "generated"))

with atheris.instrument_imports():
    from a2a_binding import jsonrpc, query, routes

RPCS = sorted(jsonrpc.METHODS)
VERBS = ["GET", "POST", "DELETE", "PUT", "PATCH", ""]
DECLARED: tuple[type[BaseException], ...] = (
    routes.RouteNotFound,
    ValueError,
    jsonrpc.JsonRpcError,
)


def _json(data: atheris.FuzzedDataProvider) -> Any:
    text = data.ConsumeUnicode(data.ConsumeIntInRange(0, 300))
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return {text[:8]: text[8:]}


def _pairs(data: atheris.FuzzedDataProvider) -> list[tuple[str, str]]:
    return [
        (data.ConsumeUnicode(10), data.ConsumeUnicode(20))
        for _ in range(data.ConsumeIntInRange(0, 6))
    ]


def test_one_input(raw: bytes) -> None:
    data = atheris.FuzzedDataProvider(raw)
    target = data.ConsumeIntInRange(0, 6)
    verb = VERBS[data.ConsumeIntInRange(0, len(VERBS) - 1)]
    rpc = RPCS[data.ConsumeIntInRange(0, len(RPCS) - 1)]
    try:
        if target == 0:
            found = routes.match(verb, data.ConsumeUnicode(200))
            assert found is None or isinstance(found.params, dict)
        elif target == 1:
            routes.allowed_verbs(data.ConsumeUnicode(200))
        elif target == 2:
            path = data.ConsumeUnicode(120)
            query_input: Any = (
                data.ConsumeBytes(100)
                if data.ConsumeBool()
                else data.ConsumeUnicode(100)
            )
            if data.ConsumeBool():
                query_input = _pairs(data)
            routes.transcode(
                verb, path, query_input, _json(data) if data.ConsumeBool() else None
            )
        elif target == 3:
            request = _json(data)
            tenant = data.ConsumeUnicode(10) if data.ConsumeBool() else None
            if isinstance(request, dict):
                built = routes.build(rpc, request, tenant=tenant)  # type: ignore[call-overload]
                assert routes.match(built.verb, built.path) is not None
        elif target == 4:
            if rpc in query.DECODERS:
                source: Any = (
                    data.ConsumeBytes(200)
                    if data.ConsumeBool()
                    else data.ConsumeUnicode(200)
                )
                query.decode(rpc, source, unknown="reject" if data.ConsumeBool() else "ignore")  # type: ignore[call-overload]
        elif target == 5:
            request = _json(data)
            if rpc in query.ENCODERS and isinstance(request, dict):
                query.encode(rpc, request)  # type: ignore[call-overload]
        else:
            payload: Any = data.ConsumeBytes(400) if data.ConsumeBool() else _json(data)
            jsonrpc.parse_request(
                payload, tenant=data.ConsumeUnicode(6) if data.ConsumeBool() else None
            )
    except DECLARED:
        pass


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

"""The reference for gRPC codes over HTTP: ``google/rpc/code.proto`` as
googleapis-common-protos installs it, each code's number and the status its "HTTP
Mapping" line documents."""

from __future__ import annotations

import re
from pathlib import Path

import google.rpc

__all__ = ["documented_http_mapping"]

_MAPPED_CODE = re.compile(r"HTTP Mapping: (\d{3})[^\n]*\n\s*([A-Z_]+) = (\d+);")


def documented_http_mapping() -> dict[str, tuple[int, int]] | None:
    """``{name: (number, HTTP status)}`` for every code ``code.proto`` maps; None when
    the installed googleapis-common-protos ships no ``code.proto``."""
    for folder in google.rpc.__path__:
        proto = Path(folder) / "code.proto"
        if proto.is_file():
            return {
                name: (int(number), int(status))
                for status, name, number in _MAPPED_CODE.findall(proto.read_text())
            }
    return None

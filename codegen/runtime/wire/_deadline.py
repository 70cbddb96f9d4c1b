"""A call's deadline as a header: ``grpc-timeout``, in gRPC's wire form.

An HTTP client names its deadline in a ``grpc-timeout`` header (as grpc-gateway reads
it), and the gRPC binding puts the deadline of the call it serves into the
``CallContext.headers`` under the same name, so that a backend behind the handler
(``GrpcBackend``, ``HttpBackend``) gives the call it makes the time the caller has
left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ._failure import InvalidArgument
from ._quoting import excerpt

__all__ = ["TIMEOUT_KEY", "caller_timeout", "format_timeout", "parse_timeout"]

TIMEOUT_KEY = "grpc-timeout"
"""The caller's deadline as a header: sent by an HTTP client as grpc-gateway reads it,
and put into a gRPC call's ``CallContext.headers`` from the call's deadline."""

_TIMEOUT_UNITS: Mapping[str, float] = {
    "H": 3600.0,
    "M": 60.0,
    "S": 1.0,
    "m": 1e-3,
    "u": 1e-6,
    "n": 1e-9,
}


def format_timeout(seconds: float) -> str:
    """``seconds`` in the gRPC wire form of a timeout (at most 8 digits and a unit),
    rounded up to the unit: the least unit that holds it."""
    nanoseconds = max(round(seconds * 1e9), 0)  # whole nanoseconds: no float residue
    for unit in "numSMH":
        size = round(_TIMEOUT_UNITS[unit] * 1e9)
        count = -(-nanoseconds // size)  # ceiling
        if count < 100_000_000:
            return f"{count}{unit}"
    return "99999999H"


def parse_timeout(value: str) -> float:
    """The seconds of a gRPC wire timeout (``"100m"``, ``"5S"``); ``InvalidArgument``
    naming the header when it is not one."""
    digits, unit = value[:-1], value[-1:]
    if not (0 < len(digits) <= 8 and digits.isascii() and digits.isdigit()) or (
        unit not in _TIMEOUT_UNITS
    ):
        raise InvalidArgument(
            f"the {TIMEOUT_KEY} header {excerpt(value)} is not a gRPC timeout"
            " (1 to 8 digits and a unit, one of H M S m u n)"
        )
    return int(digits) * _TIMEOUT_UNITS[unit]


def caller_timeout(
    timeout: float | None, headers: Iterable[tuple[str, str]]
) -> float | None:
    """The nearer of ``timeout`` (seconds; None: none) and each ``grpc-timeout`` of
    ``headers`` (lower-case names); None when neither names one. A malformed header
    is ``InvalidArgument``."""
    timeouts = [] if timeout is None else [timeout]
    timeouts.extend(
        parse_timeout(value) for key, value in headers if key == TIMEOUT_KEY
    )
    return min(timeouts) if timeouts else None

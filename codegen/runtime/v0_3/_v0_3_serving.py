"""The 0.3 side of an A2A application: what ``_asgi`` asks of it to serve 0.3 clients
from the one 1.0 handler.

The generated A2A ``asgi.py`` hands ``A2AApplication`` a ``V0_3Serving`` (with the
``v0_3`` subpackage's route table when the package has one); the application itself
knows no 0.3 shape, so a package without the A2A profile carries none of this. Each
method is one conversion of ``_v0_3_rpc`` (JSON-RPC), ``_v0_3_rest`` (HTTP+JSON) or
``_v0_3_card``, with a malformed 0.3 shape turned into the ``InvalidArgument`` the
application answers 400 / -32602, naming the 0.3 field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ._failure import InvalidArgument
from ._paths import Match
from ._v0_3 import V0_3_STREAMING, is_v0_3_method
from ._v0_3_card import card_for_both
from ._v0_3_rest import request_to_v1 as rest_request_to_v1
from ._v0_3_rest import response_from_v1 as rest_response_from_v1
from ._v0_3_rpc import error_from_v1, params_to_v1, result_from_v1, rpc_of
from ._v0_3_rpc import stream_event_from_v1
from ._v0_3_shapes import ShapeError

__all__ = ["V0_3Serving"]

Json = dict[str, Any]
T = TypeVar("T")


def _converted(what: str, convert: Callable[[], T]) -> T:
    """``convert()``, a ``ShapeError`` refused as invalid params naming its field
    (without the ``params.`` of a JSON-RPC envelope)."""
    try:
        return convert()
    except ShapeError as exc:
        field = exc.field.removeprefix("params").removeprefix(".")
        raise InvalidArgument(f"{what}: {exc}", [(field, exc.reason)]) from None


class V0_3Serving:
    """The conversions an application serving 0.3 clients makes; ``routes`` is the 0.3
    HTTP+JSON route table (the generated ``v0_3.routes.TABLE``), None where the
    package was generated without the 0.3 input (0.3 JSON-RPC only)."""

    def __init__(self, routes: Any = None) -> None:
        self.routes = routes

    @staticmethod
    def method(name: object) -> str | None:
        """The 0.3 JSON-RPC method ``name`` is, or None (a 1.0 one, or none)."""
        return name if is_v0_3_method(name) else None

    @staticmethod
    def rpc(method: str, params: object) -> str:
        """The 1.0 rpc (and JSON-RPC method) a 0.3 call is served as."""
        return rpc_of(method, params)

    @staticmethod
    def streams(method: str) -> bool:
        """Whether a 0.3 method answers with a stream (its errors too go as one)."""
        return method in V0_3_STREAMING

    @staticmethod
    def request(method: str, params: Json) -> Json:
        """A 0.3 method's params as the 1.0 request."""
        return _converted(method, lambda: params_to_v1(method, params)[1])

    @staticmethod
    def result(method: str, rpc: str, result: Json) -> Any:
        """The handler's 1.0 answer to ``rpc`` as the 0.3 method's result."""
        return result_from_v1(method, result, rpc)

    @staticmethod
    def event(event: Json) -> Json:
        """One 1.0 stream event as the 0.3 JSON-RPC result it is sent as."""
        return stream_event_from_v1(event)

    @staticmethod
    def error(error: Json) -> Json:
        """A JSON-RPC error object in the codes 0.3 has."""
        return error_from_v1(error)

    def route_request(self, found: Match[str], request: Json) -> tuple[str, Json]:
        """The request of a 0.3 route ``found`` (as its table transcoded it) as the
        1.0 rpc and request: its path values as sent, whose ids the conversion
        decodes once."""
        sent = {**request, **self.routes.raw_params(found)}
        rpc = found.route.rpc
        return _converted(rpc, lambda: rest_request_to_v1(rpc, sent))

    @staticmethod
    def route_answer(rpc: str, answer: Json) -> Json:
        """The handler's 1.0 answer (or one stream event) to ``rpc`` as the 0.3
        route's body."""
        return rest_response_from_v1(rpc, answer)

    @staticmethod
    def card(card: Json) -> Json:
        """The card both 1.0 and 0.3 clients read."""
        return card_for_both(card)

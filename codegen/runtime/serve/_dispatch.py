"""One call's steps, the same whatever wire form carried it.

A dialect (HTTP+JSON and JSON-RPC, each in 1.0 and 0.3, in the ASGI app's
``_dialects``; gRPC in ``_grpc.GrpcBinding``) reads a request into its rpc, its
ProtoJSON request and a ``CallContext``, and writes an answer, a stream's events and a
failure in its own form. Between the two, ``Dispatcher`` does what every dialect does,
once: the version check (``params``), the request's validation (``valid`` and the
``check_request`` hook, ``check``; both, with the request's tenant, in ``accept``),
the handler call within the call's deadline (``invoke``), the check of what the
handler answers (``answer``), a stream's iterator (``events``) and its closing
(``closing``), and the conversion of a failure (``failures``, see
``_failure.Failures``). Adding a dialect (a later version, another transport) is one
object that reads and writes its form and calls these.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from types import AsyncGeneratorType
from typing import Any

from ._cancellation import within
from ._failure import Failures, InvalidArgument
from ._options import ServeOptions
from ._params import NO_PARAMS, ServiceParams, VersionPolicy
from ._validate import Schema, ValidationError
from ._validate_fast import validator

__all__ = ["Dispatcher", "InvalidResponse"]


class InvalidResponse(Exception):
    """A handler's answer that is not its response message (``check_responses``)."""


class Dispatcher:
    """The steps of a call to ``handler``, whose methods ``methods`` names (rpc name to
    attribute; a missing one is a ``TypeError`` naming it).

    ``versions`` is the version policy (None: a service without the A2A profile, whose
    calls have no service parameters); ``schema`` the package's ``messages.SCHEMA``,
    used where ``options.validate`` says (else requests reach the handler as decoded),
    ``message_types`` each rpc's request and response message types; ``options`` says
    what validation does with a field the message lacks (``unknown_fields``), the hook
    of more violations (``check_request``), whether the handler's answers are checked
    (``check_responses``) and the deadline of a call (``call_timeout``); ``failures``
    is the one conversion of what a call raised; ``tenant_field`` the json name of the
    requests' tenant field.
    """

    def __init__(
        self,
        handler: object,
        methods: Mapping[str, str],
        *,
        versions: VersionPolicy | None,
        schema: Schema | None,
        message_types: Mapping[str, tuple[str, str]],
        failures: Failures,
        options: ServeOptions,
        tenant_field: str = "",
    ) -> None:
        missing = sorted(
            name for name in set(methods.values()) if not hasattr(handler, name)
        )
        if missing:
            raise TypeError(f"the handler lacks the methods {', '.join(missing)}")
        self.handler = handler
        self.methods = {rpc: getattr(handler, name) for rpc, name in methods.items()}
        if not options.validate:
            schema = None
        if schema is not None:
            untyped = sorted(set(self.methods) - set(message_types))
            if untyped:
                raise TypeError(f"no message types for {', '.join(untyped)}")
        if options.check_responses and schema is None:
            raise ValueError("check_responses needs the schema to check them with")
        self.versions = versions
        self.schema = schema
        self.types = dict(message_types)
        self.check_request = options.check_request
        self.check_responses = options.check_responses
        self.call_timeout = options.call_timeout
        self.failures = failures
        self.tenant_field = tenant_field
        # the request of each rpc is the call's own (just decoded): checked in place
        self._validators: dict[str, Callable[[object], dict[str, Any]]] = (
            {}
            if schema is None
            else {
                rpc: validator(
                    schema,
                    types[0],
                    unknown_fields=options.unknown_fields,
                    in_place=True,
                )
                for rpc, types in self.types.items()
            }
        )

    def params(self, read: ServiceParams, *, v0_3: bool = False) -> ServiceParams:
        """The service parameters ``read`` from a request, checked: the version sets
        what the request means, so it is checked before the request is read
        (``v0_3``: a request in 0.3's form; see ``VersionPolicy``)."""
        if self.versions is None:  # not an A2A service: no service parameters
            return NO_PARAMS
        return self.versions.check(read, v0_3=v0_3)

    def tenant(self, request: Mapping[str, Any] | None) -> str:
        """The tenant field of ``request`` (``""`` for none)."""
        if request is None or not self.tenant_field:
            return ""
        tenant = request.get(self.tenant_field)
        return tenant if isinstance(tenant, str) else ""

    def accept(self, rpc: str, request: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The request checked, in canonical form (``valid``, then ``check``), and its
        tenant (``tenant``): what a dialect does with each request it reads."""
        request = self.valid(rpc, request)
        if self.check_request is not None:
            self.check(rpc, request)
        return request, self.tenant(request)

    def valid(self, rpc: str, request: dict[str, Any]) -> dict[str, Any]:
        """The request in canonical form, or ``ValidationError`` (400 / -32602 /
        INVALID_ARGUMENT); brought to that form in place where it is plain."""
        check = self._validators.get(rpc)
        return request if check is None else check(request)

    def validator(self, rpc: str) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
        """``valid`` of ``rpc`` as a function of the request (None: requests are not
        validated), for a reader that validates what it reads."""
        return self._validators.get(rpc)

    def check(self, rpc: str, request: Mapping[str, Any]) -> None:
        """The ``check_request`` hook's violations, raised as ``InvalidArgument``."""
        if self.check_request is None:
            return
        violations = list(self.check_request(rpc, request))
        if violations:
            described = "; ".join(f"{field}: {text}" for field, text in violations)
            raise InvalidArgument(f"{rpc}: invalid request: {described}", violations)

    def invoke(self, rpc: str, request: object, context: object) -> Awaitable[Any]:
        """The handler's call of unary (or client-streaming) ``rpc``, bounded by
        ``call_timeout`` (``DeadlineExceeded`` past it, the handler cancelled);
        ``request``: the request, or a client stream's async iterator of them."""
        call = self.methods[rpc](request, context)
        return call if self.call_timeout is None else within(call, self.call_timeout)

    def answer(
        self, rpc: str, value: object, what: str, empty: bool = False
    ) -> dict[str, Any]:
        """What the handler ``what`` ("returned", "yielded") as a dict: None is
        ``google.protobuf.Empty`` where ``empty`` says it may be, a read-only mapping
        is copied, anything else is the handler's bug (``TypeError``); checked against
        the response message with ``check_responses`` (``InvalidResponse``)."""
        if type(value) is dict:
            answer = value
        elif value is None and empty:
            answer = {}
        elif isinstance(value, Mapping):
            answer = dict(value)
        else:
            raise TypeError(
                f"{rpc}: the handler {what} {type(value).__name__}, not a dict"
            )
        if self.check_responses:
            assert self.schema is not None
            try:
                self.schema.validate(self.types[rpc][1], answer, answer=True)
            except ValidationError as exc:
                raise InvalidResponse(f"{rpc} {what} {exc}") from None
        return answer

    def events(self, rpc: str, request: object, context: object) -> AsyncIterator[Any]:
        """The answers of streaming ``rpc``: what its handler method gave, an async
        generator or iterator, or an awaitable of one (an ``async def`` returning
        one, awaited when the first answer is asked for); for anything else,
        ``TypeError`` naming the rpc, raised then."""
        events = self.methods[rpc](request, context)
        if type(events) is AsyncGeneratorType or isinstance(events, AsyncIterator):
            return events  # the usual case, at once
        return self._awaited(rpc, events)

    @staticmethod
    async def _awaited(rpc: str, events: object) -> AsyncIterator[Any]:
        if isinstance(events, Awaitable):
            events = await events
        if not isinstance(events, AsyncIterator):
            raise TypeError(
                f"{rpc}: the handler returned {type(events).__name__}, "
                "not an async iterator"
            )
        try:
            async for event in events:
                yield event
        finally:  # closed, so is the handler's
            closing = Dispatcher.closing(events)
            if closing is not None:
                await closing

    @staticmethod
    def closing(events: AsyncIterator[Any]) -> Awaitable[None] | None:
        """What closes a handler's answers once the call is done with them (their
        ``aclose()``); None when there is nothing to close: an iterator without
        ``aclose``, or an async generator that ran to its end (it has no frame:
        it is closed already)."""
        close = getattr(events, "aclose", None)
        if close is None or getattr(events, "ag_frame", 1) is None:
            return None
        closed: Awaitable[None] = close()
        return closed

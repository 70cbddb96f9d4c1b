"""The gRPC binding: one handler served on a ``grpc.aio.Server`` (plugin option
``grpc=true``).

The only runtime module outside the standard library: it imports grpcio (``grpc.aio``)
and protobuf, and the message classes protoc's Python generator wrote for the same
proto (the package's ``PB2_MODULE``, imported by name when a service is registered).
No ``_pb2_grpc`` module is needed: each service is registered as a generic handler
taking and giving bytes, so that decoding a request and encoding an answer happen
inside the binding's own error handling (grpc answers UNKNOWN with the exception's
text for a failure in a (de)serializer).

One call, as the ASGI application serves the other two bindings:

1. The service parameters from the metadata (``a2a-version``, ``a2a-extensions``; keys
   arrive lower-case), the version checked.
2. The request message turned into its ProtoJSON dict (``_proto.MessageReader``: what
   ``json_format.MessageToDict`` prints) in the canonical form the package's
   ``messages`` tables validate, the same as over HTTP: bytes of the plain kinds that
   hold every REQUIRED field are read straight into it (nothing in such a dict can be
   refused), others parsed by protobuf, read and validated; a large message on a
   worker thread, one over the binding's ``max_message_bytes`` not at all
   (RESOURCE_EXHAUSTED).
3. ``handler.<method>(request, CallContext)``: ``binding="grpc"``, ``tenant`` the
   request's tenant field, ``headers`` the invocation metadata (``-bin`` values read
   as ISO-8859-1; worked out when first read), ``base_url`` ``""`` (a gRPC call names
   no URL).
4. The answer (a dict; None for ``google.protobuf.Empty``) written as the response
   message's bytes (``_proto.MessageEncoder``: bytes that parse to what
   ``json_format.ParseDict`` builds, written field by field where the answer is in
   canonical form and of the plain kinds, else built through the message class's
   constructor, ``_proto.MessageBuilder``); a server-streaming rpc's events one by
   one.

A client-streaming or bidirectional rpc's handler gets, in place of the request, an
async iterator of them (``_Requests``): each message is read and validated as the
handler asks for it, as in step 2, numbered from 0; a refused one ends the call with
its refusal (the number in the message and the fields, ``[1].message.role``) whatever
the handler did with it. The first request is read before the handler is called, so
that the ``CallContext``'s tenant is the first request's (none for an empty stream).

``GrpcBackend`` is the other direction: a handler whose answers come from a gRPC
service over a channel, raising for a failed call what the serving side raised (see
``error_of``), so that the ASGI app in front of it is a gateway and ``GrpcBinding``
over it a proxy (of client streams too: ``client_stream`` and ``bidirectional`` send
each request as it comes while the answers come back). The hop is where hostile input
meets grpc: a header name that must never be forwarded is refused when the backend is
made, a value gRPC metadata cannot carry is INVALID_ARGUMENT naming the header, a
deadline beyond what grpc can hold is the longest it can, and the text of a status the
service did not mean to publish (``PUBLISHED_CODES`` says which codes keep theirs) is
logged, not passed on.

Errors are converted once by ``_failure.failure_of`` and end the call with
``context.abort``: the ``Failure``'s gRPC code, its message as the status details, and
the ``google.rpc.Status`` (the same code and message, the details) in the
``grpc-status-details-bin`` trailer, as a2a-sdk and @a2a-js/sdk read it (a2a-sdk
refuses a Status whose code or message differs from the call's). An ``A2AError`` is
its table row's code with its ErrorInfo; ``Unauthenticated`` UNAUTHENTICATED, with its
challenge in a ``www-authenticate`` trailer; a refused request INVALID_ARGUMENT with
its ``google.rpc.BadRequest`` and an ErrorInfo of reason ``INVALID_PARAMS`` beside it
(as a2a-sdk's own server sends; both SDKs' clients map that reason to their
invalid-params error, and without it read a bare failure). Anything else is the
handler's bug: INTERNAL ``"internal error"`` without its text (``expose_errors=True``
shows it), logged on ``<package>.grpc``. An error after a stream's first events ends
the stream with that status.

Cancellation: a call the client cancels, or whose deadline passes, has its task
cancelled by grpc; the ``CancelledError`` reaches the handler where it awaits, and a
stream's iterator is closed (``aclose``) however the stream ends. Like the ASGI app,
a ``CancelledError`` the handler raised while the call was not being cancelled is a
handler failure; a real cancellation and ``KeyboardInterrupt`` propagate unanswered.

Any other gRPC service (no A2A profile) is served and called the same way without
the A2A rules: ``GrpcBinding(..., supported_versions=None)`` checks no version and
sends a refused request's INVALID_ARGUMENT without the A2A ErrorInfo;
``GrpcBackend(..., version=None)`` sends no ``a2a-version`` and raises every failed
call as the ``RpcError`` of its status, details kept (``error_of(error, a2a=False)``),
so the app in front answers it as grpc-gateway would.

``google.rpc.Status``, ``ErrorInfo`` and ``BadRequest`` are described here, in a
private descriptor pool, so the module needs nothing of googleapis-common-protos and
never meets another definition of them in protobuf's default pool.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple, NoReturn, TypeAlias

import grpc
import grpc.aio
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, json_format
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from ._dispatch import Dispatcher
from ._options import ServeOptions
from ._deadline import TIMEOUT_KEY, caller_timeout, format_timeout, parse_timeout
from ._errors import DOMAIN, ERROR_INFO_TYPE
from ._failure import PUBLISHED_CODES, Failure, Failures, InvalidArgument, Refusal
from ._failure import error_from_status, numbered, other_tenant
from ._jsonrpc import INVALID_REQUEST
from ._headers import allow_list
from ._params import NO_PARAMS, ServiceParams, VersionPolicy, read_service_params
from ._paths import Name, Rpc
from ._proto import (
    LARGE_MESSAGE_BYTES,
    MessageBuilder,
    MessageEncoder,
    MessageReader,
    is_large,
)
from ._proto import is_repeated, off_loop, read_varint
from ._request import CallContext
from ._validate import Schema, ValidationError

__all__ = [
    "Channel",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "GrpcBackend",
    "GrpcBinding",
    "GrpcMethod",
    "GrpcService",
    "INVALID_PARAMS_REASON",
    "PUBLISHED_CODES",
    "STATUS_DETAILS_KEY",
    "Server",
    "TIMEOUT_KEY",
    "check_forward_headers",
    "decode_status",
    "encode_status",
    "error_of",
    "format_timeout",
    "parse_timeout",
    "services_of",
    "status_of",
]

Server: TypeAlias = "grpc.aio.Server"
"""The server a service is registered on."""
Channel: TypeAlias = "grpc.aio.Channel"
"""A client channel."""
Context: TypeAlias = "grpc.aio.ServicerContext[bytes, bytes]"
"""The servicer context of a call registered without (de)serializers."""
Metadata: TypeAlias = "tuple[tuple[str, str | bytes], ...]"
"""Trailing metadata as the binding sends it."""

STATUS_DETAILS_KEY = "grpc-status-details-bin"
"""The trailer that carries the serialized ``google.rpc.Status`` of a failed call."""

INVALID_PARAMS_REASON = "INVALID_PARAMS"
"""The ErrorInfo reason sent beside the ``BadRequest`` of a refused request."""

VERSION_KEY = "a2a-version"
EXTENSIONS_KEY = "a2a-extensions"
_LATEST_DEADLINE = (2**63 - 1) / 1e9
"""The latest deadline grpc can hold, in seconds since the Unix epoch. grpc.aio makes a
call's ``timeout`` an absolute deadline on the wall clock in int64 nanoseconds, and a
call whose deadline lies beyond fails at once with DEADLINE_EXCEEDED without being
sent: bisecting ``timeout=`` on loopback (grpcio 1.85), the largest accepted was this
less ``time.time()`` to within 0.03 s, about 7.43e9 s (235 years) in 2026. The wire
allows more (``99999999H``, 11,400 years)."""

_PACKAGE = __name__.rpartition(".")[0]
log = logging.getLogger(f"{_PACKAGE}.grpc" if _PACKAGE else "grpc_binding")
"""The logger of the gRPC binding: ``<package>.grpc`` wherever the package is vendored."""

_CODES: Mapping[str, grpc.StatusCode] = {code.name: code for code in grpc.StatusCode}


# ------------------------------------------------------------------ google.rpc


def _rpc_file() -> descriptor_pb2.FileDescriptorProto:
    """``google.rpc.Status``, ``ErrorInfo`` and ``BadRequest`` (google/rpc/status.proto,
    error_details.proto): the fields the binding writes and reads, numbered as there."""
    kind = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name="protoc_gen_a2a/google_rpc.proto",
        package="google.rpc",
        syntax="proto3",
        dependency=["google/protobuf/any.proto"],
    )

    def add(
        message: descriptor_pb2.DescriptorProto,
        name: str,
        number: int,
        type_: descriptor_pb2.FieldDescriptorProto.Type.ValueType,
        *,
        json_name: str = "",
        type_name: str = "",
        repeated: bool = False,
    ) -> None:
        field = message.field.add(
            name=name,
            number=number,
            type=type_,
            json_name=json_name or name,
            label=kind.LABEL_REPEATED if repeated else kind.LABEL_OPTIONAL,
        )
        if type_name:  # set at all (even empty), it must name a message or enum
            field.type_name = type_name

    status = file.message_type.add(name="Status")
    add(status, "code", 1, kind.TYPE_INT32)
    add(status, "message", 2, kind.TYPE_STRING)
    any_type = ".google.protobuf.Any"
    add(status, "details", 3, kind.TYPE_MESSAGE, type_name=any_type, repeated=True)
    info = file.message_type.add(name="ErrorInfo")
    add(info, "reason", 1, kind.TYPE_STRING)
    add(info, "domain", 2, kind.TYPE_STRING)
    entry = info.nested_type.add(name="MetadataEntry")
    entry.options.map_entry = True
    add(entry, "key", 1, kind.TYPE_STRING)
    add(entry, "value", 2, kind.TYPE_STRING)
    entry_type = ".google.rpc.ErrorInfo.MetadataEntry"
    add(info, "metadata", 3, kind.TYPE_MESSAGE, type_name=entry_type, repeated=True)
    bad = file.message_type.add(name="BadRequest")
    violation = bad.nested_type.add(name="FieldViolation")
    add(violation, "field", 1, kind.TYPE_STRING)
    add(violation, "description", 2, kind.TYPE_STRING)
    add(violation, "reason", 3, kind.TYPE_STRING)
    violation_type = ".google.rpc.BadRequest.FieldViolation"
    add(
        bad,
        "field_violations",
        1,
        kind.TYPE_MESSAGE,
        json_name="fieldViolations",
        type_name=violation_type,
        repeated=True,
    )
    return file


def _pool() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    any_file = descriptor_pb2.FileDescriptorProto()
    any_pb2.DESCRIPTOR.CopyToProto(any_file)
    pool.Add(any_file)
    pool.Add(_rpc_file())
    return pool


_POOL = _pool()
_Status: type[Message] = GetMessageClass(
    _POOL.FindMessageTypeByName("google.rpc.Status")
)


def encode_status(code: grpc.StatusCode, message: str, details: Sequence[Any]) -> bytes:
    """The serialized ``google.rpc.Status`` of ``code`` and ``message`` with
    ``details`` (ProtoJSON ``ErrorInfo`` / ``BadRequest`` objects with ``@type``).
    ``json_format.ParseError`` when a detail is not one of those or not valid."""
    status = _Status()
    json_format.ParseDict(
        {"code": code.value[0], "message": message, "details": list(details)},
        status,
        descriptor_pool=_POOL,
    )
    blob: bytes = status.SerializeToString()  # typed here: protobuf may be unstubbed
    return blob


def decode_status(trailing_metadata: Iterable[tuple[str, Any]] | None) -> Any:
    """The ``google.rpc.Status`` (ProtoJSON: ``code``, ``message``, ``details`` with
    ``@type``) in a failed call's ``grpc-status-details-bin`` trailer; None when there
    is none or it does not decode. Details of other types stay out."""
    for key, value in trailing_metadata or ():
        if key != STATUS_DETAILS_KEY or not isinstance(value, bytes):
            continue
        try:
            status = _Status.FromString(value)
        except Exception:  # DecodeError, by backend
            return None
        found: dict[str, Any] = {"code": getattr(status, "code")}
        found["message"] = getattr(status, "message")
        details = []
        for detail in getattr(status, "details"):
            try:
                found_detail = json_format.MessageToDict(detail, descriptor_pool=_POOL)
            except Exception:  # a detail type this pool does not know
                continue
            details.append(dict(found_detail))  # an Any's contents come as OrderedDict
        found["details"] = details
        return found
    return None


def status_of(
    failure: Failure, *, a2a: bool = True
) -> tuple[grpc.StatusCode, str, Metadata]:
    """What ``context.abort`` is given for ``failure``: the code, the details string
    (the failure's message) and the trailers (the Status, and the failure's headers
    under lower-case names). With ``a2a`` an INVALID_ARGUMENT carries the A2A
    ErrorInfo ``INVALID_PARAMS``. ``json_format.ParseError`` when its details cannot
    be carried by a Status."""
    code = _CODES.get(failure.status, grpc.StatusCode.UNKNOWN)
    details = list(failure.details)
    if (
        a2a
        and code is grpc.StatusCode.INVALID_ARGUMENT
        and not any(
            isinstance(detail, Mapping) and detail.get("@type") == ERROR_INFO_TYPE
            for detail in details
        )
    ):
        details.append(
            {
                "@type": ERROR_INFO_TYPE,
                "reason": INVALID_PARAMS_REASON,
                "domain": DOMAIN,
            }
        )
    trailers: list[tuple[str, str | bytes]] = [
        (STATUS_DETAILS_KEY, encode_status(code, failure.message, details))
    ]
    trailers.extend((name.lower(), value) for name, value in failure.headers)
    return code, failure.message, tuple(trailers)


# ------------------------------------------------------------------- the tables


class GrpcMethod(NamedTuple):
    """One rpc as the binding serves it: ``rpc`` its name, ``attribute`` the handler
    method, the request and response message types (full proto names), and whether
    the server streams and the client streams (both: a bidirectional rpc)."""

    rpc: str
    attribute: str
    request_type: str
    response_type: str
    server_streaming: bool
    client_streaming: bool = False


class GrpcService(NamedTuple):
    """One service: its full proto name and its rpcs."""

    name: str
    methods: tuple[GrpcMethod, ...]


def services_of(rpcs: Mapping[Name, Rpc[Name]]) -> tuple[GrpcService, ...]:
    """Each service of ``rpcs`` (a package's ``RPCS``) with its rpcs, in the order
    of their first rpc."""
    grouped: dict[str, list[GrpcMethod]] = {}
    for rpc in rpcs.values():
        grouped.setdefault(rpc.service, []).append(
            GrpcMethod(
                rpc.name,
                rpc.method,
                rpc.request_type,
                rpc.response_type,
                rpc.server_streaming,
                rpc.client_streaming,
            )
        )
    return tuple(GrpcService(name, tuple(found)) for name, found in grouped.items())


class _Rpc(NamedTuple):
    """One rpc, resolved: its row, the handler's method, the message classes, the
    reading of its requests' bytes and the writing of its answers'."""

    method: GrpcMethod
    call: Callable[[Any, CallContext], Any]
    request_class: type[Message]
    response_class: type[Message]
    where: str  # the method path, for logs
    read: Callable[[bytes], Any]  # validated as read; bytes of no such message refused
    write: Callable[[object], bytes]  # of what the handler gives: ``_answers``


def _message_classes(
    pb2_module: str, services: Sequence[GrpcService]
) -> dict[tuple[str, str], tuple[type[Message], type[Message]]]:
    """Each rpc's request and response classes, from ``pb2_module``'s descriptors;
    ``TypeError`` when the module does not define the services as the tables do."""
    try:
        module = importlib.import_module(pb2_module)
    except ImportError as exc:
        raise ImportError(
            f"cannot import {pb2_module}, the message classes of this package's"
            f" gRPC binding (plugin option pb2_module=): {exc}"
        ) from exc
    pool = getattr(getattr(module, "DESCRIPTOR", None), "pool", None)
    if pool is None:
        raise TypeError(f"{pb2_module} is not a module protoc's Python generator wrote")
    classes = {}
    for service in services:
        try:
            descriptor = pool.FindServiceByName(service.name)
        except KeyError:
            raise TypeError(f"{pb2_module} does not define {service.name}") from None
        for method in service.methods:
            found = descriptor.methods_by_name.get(method.rpc)
            if (
                found is None
                or found.input_type.full_name != method.request_type
                or found.output_type.full_name != method.response_type
                or found.server_streaming != method.server_streaming
                or found.client_streaming != method.client_streaming
            ):
                raise TypeError(
                    f"{pb2_module} defines {service.name}.{method.rpc} otherwise than"
                    " this package (generated from another version of the proto?)"
                )
            classes[service.name, method.rpc] = (
                GetMessageClass(found.input_type),
                GetMessageClass(found.output_type),
            )
    return classes


def _headers(context: Context, remaining: float | None) -> tuple[tuple[str, str], ...]:
    """The call's headers as ``CallContext`` gives them: the invocation metadata as
    ``(name, value)`` (``-bin`` values as ISO-8859-1), and, for a call with a
    deadline, ``grpc-timeout`` (``remaining``: the time left as the call began), for
    a ``Backend`` behind the handler to pass on."""
    pairs = [
        (key, value if isinstance(value, str) else bytes(value).decode("latin-1"))
        for key, value in context.invocation_metadata() or ()
    ]
    if remaining is not None:
        pairs.append((TIMEOUT_KEY, format_timeout(remaining)))
    return tuple(pairs)


_SEEN_PARAMS = 64
"""How many distinct (version, extensions) metadata a binding keeps checked."""


DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""The largest request message a binding reads unless told otherwise: grpc's own
default receive limit, and the ASGI app's ``max_body_bytes``. A server whose
``grpc.max_receive_message_length`` is higher still gets no larger request read."""


class _Requests:
    """The requests of a client stream as its handler reads them (an async iterator
    of dicts): each message read and validated as it arrives, as a unary request
    is, numbered from 0. A refused one ends the iteration with ``InvalidArgument``
    (its number in the message and the fields, see ``_failure.numbered``), and is
    kept: the call ends with it whatever the handler made of it (``check``)."""

    def __init__(
        self,
        binding: GrpcBinding,
        rpc: _Rpc,
        raw: AsyncIterator[bytes],
        context: Context,
    ) -> None:
        self._binding = binding
        self._rpc = rpc
        self._raw = raw
        self._context = context
        self._tenant: str | None = None  # the stream's: its first request's
        self._read: dict[str, Any] | None = None  # read by ``first``, not yet handed
        self._ended = False
        self.count = 0
        """How many requests arrived (the number of the next one)."""
        self.refused: InvalidArgument | Refusal | None = None
        """The refusal of a request, when one was refused."""

    def __aiter__(self) -> _Requests:
        return self

    async def first(self) -> dict[str, Any] | None:
        """The first request, read ahead (and handed out first); None for an empty
        stream."""
        try:
            self._read = await self.__anext__()
        except StopAsyncIteration:
            return None
        return self._read

    async def __anext__(self) -> dict[str, Any]:
        if self.refused is not None:
            raise self.refused
        if self._read is not None:
            found, self._read = self._read, None
            return found
        if self._ended:
            raise StopAsyncIteration
        try:
            raw = await self._raw.__anext__()
        except StopAsyncIteration:
            # grpc ends the iteration alike when the client half-closes and when the
            # call is cancelled or its deadline passes: the cancellation is not an end
            await asyncio.sleep(0)
            if self._context.cancelled() or self._context.done():
                raise asyncio.CancelledError("the call was cancelled") from None
            self._ended = True
            raise
        index = self.count
        self.count += 1
        try:
            request = await self._binding._message(self._rpc, raw)
            self._same_tenant(request)
            return request
        except (InvalidArgument, ValidationError) as exc:
            self.refused = numbered(exc, index)
        except Refusal as exc:  # too large: the failure as it is, the request named
            failure = exc.failure
            message = f"request [{index}] of the stream: {failure.message}"
            self.refused = Refusal(failure._replace(message=message))
        raise self.refused

    def _same_tenant(self, request: Mapping[str, Any]) -> None:
        """The stream's tenant is its first request's: a later one naming another is
        refused (``_failure.other_tenant``)."""
        tenant = self._binding.dispatch.tenant(request)
        if self._tenant is None:
            self._tenant = tenant
            return
        refused = other_tenant(self._binding.tenant_field, self._tenant, tenant)
        if refused is not None:
            raise refused

    def check(self) -> None:
        """Raise the refusal of a request, if one was refused."""
        if self.refused is not None:
            raise self.refused


def _cause(requests: _Requests | None, exc: BaseException) -> BaseException:
    """What a client-streaming call ends with: the refusal of one of its requests
    when there was one (the handler may have raised something else on meeting it),
    else ``exc``; a cancellation or an interrupt is never replaced."""
    if requests is None or requests.refused is None or not isinstance(exc, Exception):
        return exc
    return requests.refused


# ------------------------------------------------------------------ the binding


class GrpcBinding:
    """The services of a package served over gRPC by one handler (see the module
    docstring).

    ``services`` and ``pb2_module`` are the generated ``grpc_binding`` tables,
    ``tenant_field`` the json name of the requests' tenant field, ``schema`` the
    package's ``messages.SCHEMA`` (None: requests reach the handler as decoded, and
    ``check_responses`` is not possible). ``handler`` has each rpc's method.
    ``supported_versions=None``: a service without the A2A profile (no version
    check, no A2A ErrorInfo, ``CallContext.params`` ``NO_PARAMS``). A request message
    over ``max_message_bytes`` is refused RESOURCE_EXHAUSTED before it is read (what
    one request may cost: reading and checking it takes about 0.3 us a value, and its
    dict some 80 times its bytes at the densest); one over ``LARGE_MESSAGE_BYTES`` is
    read and checked on a worker thread (``_proto.off_loop``), so that other calls go
    on meanwhile.
    """

    def __init__(
        self,
        handler: object,
        *,
        services: Sequence[GrpcService],
        pb2_module: str,
        tenant_field: str,
        supported_versions: Iterable[str] | None,
        schema: Schema | None = None,
        check_responses: bool = False,
        expose_errors: bool = False,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        if max_message_bytes < 0:
            raise ValueError("max_message_bytes must not be negative")
        rows = [method for service in services for method in service.methods]
        options = ServeOptions(
            supported_versions=(
                None if supported_versions is None else tuple(supported_versions)
            ),
            validate=schema is not None,
            check_responses=check_responses,
            expose_errors=expose_errors,
            max_body_bytes=max_message_bytes,
        )
        self._versions = VersionPolicy.of(
            options.supported_versions, parameter=f"metadata {VERSION_KEY}"
        )
        self.dispatch = Dispatcher(
            handler,
            {method.rpc: method.attribute for method in rows},
            versions=self._versions,
            schema=schema,
            message_types={
                method.rpc: (method.request_type, method.response_type)
                for method in rows
            },
            failures=Failures(log, expose_errors=expose_errors, answered=(SystemExit,)),
            options=options,
            tenant_field=tenant_field,
        )
        self.handler = handler
        self._seen: dict[tuple[tuple[str, ...], tuple[str, ...]], ServiceParams] = {}
        self.supported_versions = self._versions.names if self._versions else ()
        self.schema = schema
        self._encoder = MessageEncoder(
            MessageBuilder(schema) if schema is not None else None
        )
        self._reader = MessageReader(schema)
        self.tenant_field = tenant_field
        self.max_message_bytes = max_message_bytes
        self._read_at_once = min(max_message_bytes, LARGE_MESSAGE_BYTES)
        message = f"the request is larger than {max_message_bytes} bytes"
        self._too_large = Failure(429, "RESOURCE_EXHAUSTED", message, INVALID_REQUEST)
        classes = _message_classes(pb2_module, services)
        self.services: dict[str, tuple[_Rpc, ...]] = {
            service.name: tuple(
                _Rpc(
                    method,
                    self.dispatch.methods[method.rpc],
                    request_class,
                    response_class,
                    f"/{service.name}/{method.rpc}",
                    self._reader.parser(
                        request_class,
                        self.dispatch.validator(method.rpc),
                        self._not_a(method.request_type),
                    ),
                    self._answers(method, response_class),
                )
                for method in service.methods
                for request_class, response_class in [classes[service.name, method.rpc]]
            )
            for service in services
        }

    def add_to(self, server: Server) -> None:
        """Register every service on ``server`` (before it starts)."""
        for name, rpcs in self.services.items():
            handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
                rpc.method.rpc: self._handler(rpc) for rpc in rpcs
            }
            server.add_generic_rpc_handlers(
                (grpc.method_handlers_generic_handler(name, handlers),)
            )

    def _handler(self, rpc: _Rpc) -> grpc.RpcMethodHandler[bytes, bytes]:
        """The grpc handler of ``rpc``, by its kind."""
        method = rpc.method
        if method.server_streaming:
            return self._streaming(rpc)
        if method.client_streaming:
            return self._client_streaming(rpc)
        return self._unary(rpc)

    # -------------------------------------------------------------------- calls

    def _call_params(self, context: Context) -> ServiceParams:
        """The call's checked service parameters, from the values of
        ``a2a-version`` and ``a2a-extensions`` in its metadata: the version is
        checked before any request is read, since it sets what a request means.
        Those of the last few distinct values accepted are kept, since a client's
        calls carry the same."""
        if self._versions is None:
            return NO_PARAMS
        versions: tuple[str, ...] = ()
        extensions: tuple[str, ...] = ()
        metadata: Iterable[tuple[str, Any]] = context.invocation_metadata() or ()
        for key, value in metadata:  # neither key ends in -bin: values are str
            if key == VERSION_KEY:
                versions += (value,)
            elif key == EXTENSIONS_KEY:
                extensions += (value,)
        found = self._seen.get((versions, extensions))
        if found is None:
            found = self.dispatch.params(read_service_params(versions, extensions))
            if len(self._seen) >= _SEEN_PARAMS:
                self._seen.clear()
            self._seen[versions, extensions] = found
        return found

    async def _message(self, rpc: _Rpc, raw: bytes) -> dict[str, Any]:
        """One request message in canonical form: one over ``max_message_bytes`` is
        refused unread, one over ``LARGE_MESSAGE_BYTES`` read on a worker thread."""
        size = len(raw)
        if size > self.max_message_bytes:
            raise Refusal(self._too_large)
        if size > LARGE_MESSAGE_BYTES:
            return await off_loop(rpc.read, raw)
        request: dict[str, Any] = rpc.read(raw)  # validated as it is read
        return request

    def _read_now(
        self, rpc: _Rpc, raw: bytes, context: Context
    ) -> tuple[dict[str, Any], CallContext]:
        """The request in canonical form and its ``CallContext``, for the usual
        message (no larger than ``_read_at_once``: no refusal, no thread); a larger
        one is ``_read_later``'s."""
        params = self._call_params(context)
        request: dict[str, Any] = rpc.read(raw)  # validated as it is read
        return request, self._call_context(context, params, request)

    async def _read_later(
        self, rpc: _Rpc, raw: bytes, context: Context
    ) -> tuple[dict[str, Any], CallContext]:
        """``_read_now`` of a message that may be refused or read on a thread."""
        params = self._call_params(context)
        request = await self._message(rpc, raw)
        return request, self._call_context(context, params, request)

    def _call_context(
        self,
        context: Context,
        params: ServiceParams,
        request: Mapping[str, Any] | None,
    ) -> CallContext:
        """The ``CallContext`` of the call ``context`` with ``params`` (see
        ``_call_params``) whose (first) request is ``request``."""
        tenant = self.dispatch.tenant(request)
        headers = partial(_headers, context, context.time_remaining())  # when read
        return CallContext.of_call(tenant, "grpc", params, headers)

    async def _requests(
        self, rpc: _Rpc, raw: AsyncIterator[bytes], context: Context
    ) -> tuple[_Requests, CallContext]:
        """A client stream's requests and the call's ``CallContext``, whose tenant is
        the first request's: the first is read before the handler runs (an empty
        stream: no tenant)."""
        params = self._call_params(context)
        requests = _Requests(self, rpc, raw, context)
        return requests, self._call_context(context, params, await requests.first())

    @staticmethod
    def _not_a(request_type: str) -> Callable[[Exception], Exception]:
        """The refusal of request bytes that are no ``request_type`` message
        (``DecodeError``, or an ``Any`` of a type nobody knows)."""

        def refused(exc: Exception) -> Exception:
            text = f"the request is not a {request_type}: {exc}"
            return InvalidArgument(text, [("", text)])

        return refused

    def _answers(
        self, method: GrpcMethod, response_class: type[Message]
    ) -> Callable[[object], bytes]:
        """What ``method``'s handler returns (or yields) as the response message's
        bytes, taken as ``Dispatcher.answer`` takes it (a value that is no such
        message is the handler's bug): checked first when responses are checked,
        else only a value that is not a plain dict is passed to it."""
        name, dispatch = method.rpc, self.dispatch
        what = "yielded" if method.server_streaming else "returned"

        def answer(value: object) -> dict[str, Any]:
            return dispatch.answer(name, value, what, True)

        if dispatch.check_responses:
            write = self._encoder.writer(response_class)
            return lambda value: write(answer(value))
        return self._encoder.preparing_writer(response_class, answer)

    def _unary(self, rpc: _Rpc) -> grpc.RpcMethodHandler[bytes, bytes]:
        async def call(raw: bytes, context: Context) -> bytes:
            try:
                request, call_context = (
                    self._read_now(rpc, raw, context)
                    if len(raw) <= self._read_at_once
                    else await self._read_later(rpc, raw, context)
                )
                answer = await rpc.call(request, call_context)
                return rpc.write(answer)
            except BaseException as exc:  # _failure re-raises a real cancellation
                # ``context.abort`` (whose AbortError grpc must see) is only called
                # here, outside the ``try``: an AbortError inside it is the handler's
                # own (it has no servicer context), a failure like any other.
                await self._abort(context, exc, rpc)

        return grpc.unary_unary_rpc_method_handler(call)

    def _streaming(self, rpc: _Rpc) -> grpc.RpcMethodHandler[bytes, bytes]:
        """A server-streaming or bidirectional rpc, in grpc's reader/writer form:
        one coroutine per call reads the request (a stream's first), writes each of
        the handler's events as a response message, then closes them whatever
        happened: the call ended, failed or was cancelled, so does the handler. A
        failure (the handler's, an event that is no response message, a refused
        request of the stream, checked before each event and at the end) ends the
        call as in ``_unary``; a failed write is grpc's own (the client left, the
        server is stopping) and propagates as it is, as from grpc's loop over a
        generator."""
        name, bidirectional = rpc.method.rpc, rpc.method.client_streaming

        async def call(raw: Any, context: Context) -> None:
            requests: _Requests | None = None
            writing = False
            try:
                if bidirectional:
                    requests, call_context = await self._requests(rpc, raw, context)
                    events = self.dispatch.events(name, requests, call_context)
                else:
                    request, call_context = (
                        self._read_now(rpc, raw, context)
                        if len(raw) <= self._read_at_once
                        else await self._read_later(rpc, raw, context)
                    )
                    events = self.dispatch.events(name, request, call_context)
                try:
                    async for event in events:
                        if requests is not None:
                            requests.check()
                        data = rpc.write(event)
                        writing = True
                        await context.write(data)
                        writing = False
                    if requests is not None:
                        requests.check()
                finally:
                    closing = Dispatcher.closing(events)
                    if closing is not None:
                        await closing
            except BaseException as exc:  # as in _unary
                if writing:
                    raise
                await self._abort(context, _cause(requests, exc), rpc)

        if bidirectional:
            return grpc.stream_stream_rpc_method_handler(call)
        return grpc.unary_stream_rpc_method_handler(call)

    def _client_streaming(self, rpc: _Rpc) -> grpc.RpcMethodHandler[bytes, bytes]:
        async def call(raw: AsyncIterator[bytes], context: Context) -> bytes:
            requests: _Requests | None = None
            try:
                requests, call_context = await self._requests(rpc, raw, context)
                answer = await rpc.call(requests, call_context)
                requests.check()  # a refused request the handler let pass
                return rpc.write(answer)
            except BaseException as exc:  # as in _unary
                await self._abort(context, _cause(requests, exc), rpc)

        return grpc.stream_unary_rpc_method_handler(call)

    # ----------------------------------------------------------------- failures

    async def _abort(self, context: Context, exc: BaseException, rpc: _Rpc) -> NoReturn:
        failures = self.dispatch.failures
        failure = failures.of(exc, rpc.where)
        a2a = self._versions is not None
        try:
            code, details, trailers = status_of(failure, a2a=a2a)
        except Exception as failed:  # details a Status cannot carry
            code, details, trailers = status_of(
                failures.internal(failed, rpc.where), a2a=a2a
            )
        await context.abort(code, details, trailing_metadata=trailers)
        raise AssertionError("abort returned")  # pragma: no cover  (abort raises)


# ------------------------------------------------------------------ the client side


def error_of(
    error: grpc.aio.AioRpcError,
    *,
    a2a: bool = True,
    expose_errors: bool = False,
    where: str = "a call",
) -> Exception:
    """What the serving side raised, read back from a failed call: the ``A2AError``
    its Status' first A2A ErrorInfo names; ``Unauthenticated`` (the challenge from a
    ``www-authenticate`` trailer, else ``Bearer``); ``InvalidArgument`` with the
    ``BadRequest``'s violations; ``DeadlineExceeded``; else the ``RpcError`` of its
    code, message and Status details (``error`` itself for a code grpc gave that is
    no canonical one). With ``a2a=False`` (a service without the A2A profile) every
    failed call is that ``RpcError``: the status passes through as it came.

    A status the service did not mean to publish, one whose code is not in
    ``PUBLISHED_CODES`` and that names no A2A error, keeps its code but not its text:
    its message is a fixed one (``"internal error"``, ``"the service is
    unavailable"``...) and its details are dropped, unless ``expose_errors``. Its text
    is logged on ``<package>.grpc`` with ``where`` (the method path) either way: at
    ERROR, at INFO for CANCELLED and DEADLINE_EXCEEDED."""
    trailers = tuple(error.trailing_metadata() or ())
    challenge = next(
        (v for k, v in trailers if k == "www-authenticate" and isinstance(v, str)),
        None,
    )
    found = error_from_status(
        error.code().name,
        error.details() or "",
        decode_status(trailers),
        challenge=challenge,
        a2a=a2a,
        expose_errors=expose_errors,
        where=where,
        log=log,
    )
    if found is None:  # a code that is no error's (OK, which grpc never fails with)
        unread: Exception = error  # typed here: grpc may be unstubbed
        return unread
    return found


_FIELD_BEHAVIOR = 1052  # google.api.field_behavior, an extension of FieldOptions
_REQUIRED_BEHAVIOR = 2  # google.api.FieldBehavior.REQUIRED
_FieldDescriptor = Any  # protobuf's FieldDescriptor (upb or python)
_Fill = tuple[
    tuple[tuple[str, Callable[[], Any]], ...],  # REQUIRED fields without presence
    tuple[tuple[str, Any, int], ...],  # message fields to descend: json name, type, how
]
_ONE, _LIST, _MAP = 0, 1, 2


def _behaviors(options: bytes) -> set[int]:
    """The ``google.api.field_behavior`` values in serialized ``FieldOptions``, read
    off the wire: the extension may be registered in another pool than the options'
    class, or not at all. Empty for options that do not parse."""
    found: set[int] = set()
    at = 0
    try:
        while at < len(options):
            tag, at = read_varint(options, at)
            number, wire = tag >> 3, tag & 7
            if wire == 0:
                value, at = read_varint(options, at)
                if number == _FIELD_BEHAVIOR:
                    found.add(value)
            elif wire == 2:
                size, at = read_varint(options, at)
                end = at + size
                while number == _FIELD_BEHAVIOR and at < end:  # packed
                    value, at = read_varint(options, at)
                    found.add(value)
                at = end
            elif wire in (1, 5):
                at += 8 if wire == 1 else 4
            else:  # groups: not in FieldOptions as protoc writes them
                break
    except (IndexError, ValueError):
        return set()
    return found


def _default(field: _FieldDescriptor) -> Callable[[], Any]:
    """The ProtoJSON form of a field's default, as ``MessageToDict`` would print it."""
    kind = field.type
    if is_repeated(field):
        return (
            dict
            if field.message_type and field.message_type.GetOptions().map_entry
            else list
        )
    if kind == field.TYPE_ENUM:
        value = field.enum_type.values_by_number.get(0)
        name = value.name if value is not None else 0
        return lambda: name
    if kind in (field.TYPE_STRING, field.TYPE_BYTES):
        return str
    if kind == field.TYPE_BOOL:
        return bool
    if kind in (field.TYPE_DOUBLE, field.TYPE_FLOAT):
        return float
    if kind in (
        field.TYPE_INT64,
        field.TYPE_UINT64,
        field.TYPE_SINT64,
        field.TYPE_FIXED64,
        field.TYPE_SFIXED64,
    ):
        return lambda: "0"
    return int


class _RequiredDefaults:
    """Puts back the REQUIRED fields (``google.api.field_behavior``) that ProtoJSON
    leaves out at their default: proto3 scalars, lists and maps without presence, at
    any depth. ``MessageToDict`` omits them, yet an answer must carry them (a last
    page's ``nextPageToken: ""``, an empty ``tasks`` list), as a handler serving the
    same answer over HTTP writes them."""

    def __init__(self) -> None:
        self._plans: dict[str, _Fill] = {}

    def _plan(self, descriptor: Any) -> _Fill:
        found = self._plans.get(descriptor.full_name)
        if found is not None:
            return found
        defaults, nested = [], []
        for field in descriptor.fields:
            options = field.GetOptions().SerializeToString()
            required = _REQUIRED_BEHAVIOR in _behaviors(options)
            if required and not field.has_presence:
                defaults.append((field.json_name, _default(field)))
            message = field.message_type
            if message is None or message.full_name.startswith("google.protobuf."):
                continue  # well-known types print as their JSON value, not an object
            if message.GetOptions().map_entry:
                value = message.fields_by_name["value"].message_type
                if value is not None and not value.full_name.startswith(
                    "google.protobuf."
                ):
                    nested.append((field.json_name, value, _MAP))
            else:
                nested.append(
                    (field.json_name, message, _LIST if is_repeated(field) else _ONE)
                )
        plan: _Fill = (tuple(defaults), tuple(nested))
        self._plans[descriptor.full_name] = plan
        return plan

    def fill(self, descriptor: Any, value: dict[str, Any]) -> dict[str, Any]:
        """``value`` (a ``MessageToDict`` of a ``descriptor`` message) completed in place."""
        defaults, nested = self._plan(descriptor)
        for name, default in defaults:
            if name not in value:
                value[name] = default()
        for name, message, how in nested:
            inner = value.get(name)
            if inner is None:
                continue
            items = (
                inner if how == _LIST else inner.values() if how == _MAP else (inner,)
            )
            for item in items:
                if isinstance(item, dict):
                    self.fill(message, item)
        return value


_NEVER_FORWARDED: Mapping[str, str] = {
    **dict.fromkeys(
        (
            "connection",
            "keep-alive",
            "proxy-connection",
            "transfer-encoding",
            "upgrade",
            "te",
        ),
        "a hop-by-hop header, about the HTTP connection it came over (RFC 9110"
        " §7.6.1; RFC 9113 §8.2.2 makes an HTTP/2 request that carries it malformed)",
    ),
    "host": "the address the client reached, which HTTP/2 carries as :authority"
    " (RFC 9113 §8.3.1)",
    TIMEOUT_KEY: "read for the call's deadline, which grpc sends itself",
}
"""Header names never forwarded, whatever the allow-list says, and why."""

_METADATA_KEY_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")


def check_forward_headers(names: Iterable[str]) -> frozenset[str]:
    """The allow-list of headers a ``GrpcBackend`` passes on, lower-case.
    ``ValueError`` naming a header that must never be forwarded and why: a hop-by-hop
    header or ``Host``, an HTTP/2 pseudo-header (``:path``), a name gRPC reserves
    (``grpc-*``: ``grpc-status`` would end every call), or one that is no gRPC
    metadata key (grpc refuses to send it)."""
    return allow_list(names, _never_forwarded)


def _never_forwarded(key: str) -> str | None:
    """Why gRPC metadata never carries the header ``key`` on; None when it may."""
    why = _NEVER_FORWARDED.get(key)
    if why is None and key.startswith(":"):
        why = "an HTTP/2 pseudo-header, not a header"
    if why is None and key.startswith("grpc-"):
        why = "reserved by gRPC for its own use"
    if why is None and not (key and set(key) <= _METADATA_KEY_CHARACTERS):
        why = "no gRPC metadata key (lower-case letters, digits, '-', '_', '.')"
    return why


def _metadata_value(key: str, value: str) -> str:
    """``value`` of header ``key``, checked to be what gRPC metadata carries (printable
    ASCII: grpc refuses to send anything else); ``InvalidArgument`` naming the header
    otherwise."""
    if value.isascii() and value.isprintable():
        return value
    raise InvalidArgument(
        f"the {key} header cannot be passed on as gRPC metadata: it holds a character"
        " outside printable ASCII"
    )


_StreamingCall: TypeAlias = (
    "grpc.aio.StreamUnaryCall[bytes, bytes] | grpc.aio.StreamStreamCall[bytes, bytes]"
)
"""A call whose requests are sent one by one."""


def _writing(sending: Awaitable[None]) -> asyncio.Future[None]:
    """``sending`` run beside the call that reads the answers; its exception is read
    there, or dropped once the call is over (never logged as lost)."""
    writer = asyncio.ensure_future(sending)
    writer.add_done_callback(lambda done: done.cancelled() or done.exception())
    return writer


class _Remote(NamedTuple):
    path: str
    request_class: type[Message]
    response_class: type[Message]
    empty: bool  # answers google.protobuf.Empty: the handler's None


class GrpcBackend:
    """The services of a package called over ``channel`` (a ``grpc.aio.Channel``), in
    the shape of their handler: ``call`` and ``stream`` take the request dict and the
    ``CallContext`` of the call being served and give the answer dicts.

    Each call sends ``a2a-version: version``, the context's extensions as
    ``a2a-extensions`` (neither with ``version=None``: a service without the A2A
    profile, whose failed calls all raise their ``RpcError``), and the context's
    headers named in ``forward_headers`` (any case; a ``-bin`` value as its
    ISO-8859-1 bytes). A name that must never be forwarded is a ``ValueError`` here
    (see ``check_forward_headers``); a value gRPC metadata cannot carry (a byte over
    0x7F, a control character), in a forwarded header or in the extensions, is
    ``InvalidArgument`` naming the header, and nothing is sent. Its deadline is the
    nearer of ``timeout`` (seconds) and the caller's: the context's ``grpc-timeout``
    header (an HTTP client's, as grpc-gateway reads it, or the deadline of a gRPC call
    being served); a malformed one is ``InvalidArgument``; one beyond what grpc can
    hold (about 235 years, see ``_LATEST_DEADLINE``) is the longest it can. A failed
    call raises what ``error_of`` reads from it, with the text of a status the service
    did not mean to publish kept back unless ``expose_errors``. Answers are
    ``MessageToDict``'s ProtoJSON with the REQUIRED fields it leaves out at their
    default put back (``_RequiredDefaults``).

    Requests are built with the package's ``schema`` (``_proto.MessageBuilder``; None:
    ``json_format.ParseDict``) and answers read by ``_proto.MessageReader``; a request
    of more than ``LARGE_VALUE_ITEMS`` values or an answer of more than
    ``LARGE_MESSAGE_BYTES`` is converted on a worker thread (``_proto.off_loop``), so
    that one large message does not hold up the other calls on the loop.
    """

    def __init__(
        self,
        channel: Channel,
        *,
        services: Sequence[GrpcService],
        pb2_module: str,
        version: str | None,
        forward_headers: Iterable[str] = ("authorization",),
        timeout: float | None = None,
        expose_errors: bool = False,
        schema: Schema | None = None,
    ) -> None:
        self.channel = channel
        self.version = version
        self.forward_headers = check_forward_headers(forward_headers)
        self.timeout = timeout
        self.expose_errors = expose_errors
        classes = _message_classes(pb2_module, services)
        self._required = _RequiredDefaults()
        self._encoder = MessageEncoder(
            MessageBuilder(schema) if schema is not None else None
        )
        self._reader = MessageReader()
        self._remotes: dict[str, _Remote] = {}
        for service in services:
            for method in service.methods:
                request_class, response_class = classes[service.name, method.rpc]
                self._remotes[method.rpc] = _Remote(
                    f"/{service.name}/{method.rpc}",
                    request_class,
                    response_class,
                    response_class.DESCRIPTOR.full_name == "google.protobuf.Empty",
                )

    def metadata(self, context: CallContext | None) -> list[tuple[str, str | bytes]]:
        """What a call made for ``context`` sends as metadata (keys lower-case: grpc
        refuses others); ``InvalidArgument`` naming a header whose value gRPC
        metadata cannot carry."""
        sent: list[tuple[str, str | bytes]] = []
        if self.version is not None:
            sent.append((VERSION_KEY, self.version))
        if context is None:
            return sent
        if self.version is not None and context.params.extensions:
            extensions = ", ".join(context.params.extensions)
            sent.append((EXTENSIONS_KEY, _metadata_value(EXTENSIONS_KEY, extensions)))
        for key, value in context.headers:
            if key in self.forward_headers:
                if key.endswith("-bin"):
                    sent.append((key, value.encode("latin-1")))
                else:
                    sent.append((key, _metadata_value(key, value)))
        return sent

    def deadline(self, context: CallContext | None) -> float | None:
        """The timeout (seconds) of a call made for ``context``: the nearer of the
        ``timeout`` option and the context's ``grpc-timeout``, at most the longest
        grpc can hold (a call given more would fail at once); None when neither."""
        headers = () if context is None else context.headers
        timeout = caller_timeout(self.timeout, headers)
        if timeout is None:
            return None
        # less a second: grpc reads the clock again when the call starts
        return min(timeout, _LATEST_DEADLINE - time.time() - 1.0)

    def _encode(self, remote: _Remote, request: Mapping[str, Any]) -> bytes:
        return self._encoder.encode(remote.request_class, request)

    def _decode(self, remote: _Remote, raw: bytes) -> Any:
        answer = self._reader.parser(remote.response_class)(raw)
        return self._required.fill(remote.response_class.DESCRIPTOR, answer)

    async def _sent(self, remote: _Remote, request: Mapping[str, Any]) -> bytes:
        """``request`` as its message's bytes; a large one built off the loop."""
        if is_large(request):
            return await off_loop(self._encode, remote, request)
        return self._encode(remote, request)

    async def _answer(self, remote: _Remote, raw: bytes) -> Any:
        """The answer dict of ``raw``; a large one read off the loop."""
        if remote.empty:
            return None
        if len(raw) > LARGE_MESSAGE_BYTES:
            return await off_loop(self._decode, remote, raw)
        return self._decode(remote, raw)

    def _error(self, error: grpc.aio.AioRpcError, remote: _Remote) -> Exception:
        return error_of(
            error,
            a2a=self.version is not None,
            expose_errors=self.expose_errors,
            where=remote.path,
        )

    async def call(
        self, rpc: str, request: Mapping[str, Any], context: CallContext | None = None
    ) -> Any:
        """The answer of unary ``rpc`` (None for ``google.protobuf.Empty``)."""
        remote = self._remotes[rpc]
        send: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = self.channel.unary_unary(
            remote.path
        )
        sent = await self._sent(remote, request)
        try:
            raw = await send(
                sent, metadata=self.metadata(context), timeout=self.deadline(context)
            )
        except grpc.aio.AioRpcError as error:
            raise self._error(error, remote) from None
        return await self._answer(remote, raw)

    async def stream(
        self, rpc: str, request: Mapping[str, Any], context: CallContext | None = None
    ) -> AsyncIterator[Any]:
        """The events of server-streaming ``rpc``; leaving early cancels the call."""
        remote = self._remotes[rpc]
        open_stream: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = (
            self.channel.unary_stream(remote.path)
        )
        sent = await self._sent(remote, request)
        call = open_stream(
            sent, metadata=self.metadata(context), timeout=self.deadline(context)
        )
        try:
            async for raw in call:
                yield await self._answer(remote, raw)
        except grpc.aio.AioRpcError as error:
            raise self._error(error, remote) from None
        finally:
            call.cancel()  # nothing when the call is over; else the server stops too

    async def client_stream(
        self,
        rpc: str,
        requests: AsyncIterable[Mapping[str, Any]],
        context: CallContext | None = None,
    ) -> Any:
        """The answer of client-streaming ``rpc`` to ``requests``, each sent as it
        comes (None for ``google.protobuf.Empty``). An exception of ``requests``, or
        a request that cannot be built, cancels the call and is raised."""
        remote = self._remotes[rpc]
        open_call: grpc.aio.StreamUnaryMultiCallable[bytes, bytes] = (
            self.channel.stream_unary(remote.path)
        )
        call = open_call(
            metadata=self.metadata(context), timeout=self.deadline(context)
        )
        writer = _writing(self._write(call, remote, requests))
        try:
            raw = await call
        except (grpc.aio.AioRpcError, asyncio.CancelledError) as error:
            raise self._stream_error(error, writer, remote)
        finally:
            writer.cancel()  # nothing when it is done
        return await self._answer(remote, raw)

    async def bidirectional(
        self,
        rpc: str,
        requests: AsyncIterable[Mapping[str, Any]],
        context: CallContext | None = None,
    ) -> AsyncIterator[Any]:
        """The answers of bidirectional ``rpc`` as they come, while ``requests`` are
        sent as they come; leaving early cancels the call. An exception of
        ``requests``, or a request that cannot be built, cancels the call and is
        raised."""
        remote = self._remotes[rpc]
        open_call: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = (
            self.channel.stream_stream(remote.path)
        )
        call = open_call(
            metadata=self.metadata(context), timeout=self.deadline(context)
        )
        writer = _writing(self._write(call, remote, requests))
        try:
            async for raw in call:
                yield await self._answer(remote, raw)
        except (grpc.aio.AioRpcError, asyncio.CancelledError) as error:
            raise self._stream_error(error, writer, remote)
        finally:
            writer.cancel()
            call.cancel()

    async def _write(
        self,
        call: _StreamingCall,
        remote: _Remote,
        requests: AsyncIterable[Mapping[str, Any]],
    ) -> None:
        """Send ``requests`` on ``call``, then close the sending side. Once the call
        is over (the service answered or failed: its status says why) nothing more is
        sent; an exception of ``requests`` or of building one, or the caller's
        cancellation, cancels the call."""
        try:
            async for request in requests:
                sent = await self._sent(remote, request)
                if call.done():
                    return
                try:
                    await call.write(sent)
                except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    return  # the call ended meanwhile
        except BaseException:  # a cancelled caller too: never a clean half-close
            call.cancel()
            raise
        try:
            await call.done_writing()
        except Exception:  # grpc's own, as the call ended meanwhile: its status tells
            pass

    def _stream_error(
        self,
        error: grpc.aio.AioRpcError | asyncio.CancelledError,
        writer: asyncio.Future[None],
        remote: _Remote,
    ) -> BaseException:
        """What a client-streaming call that failed raises: the exception that made
        its requests stop (the call was cancelled for it), else what ``error_of``
        reads from the status, else the cancellation itself."""
        if writer.done() and not writer.cancelled():
            failed = writer.exception()
            if failed is not None:
                return failed
        if isinstance(error, grpc.aio.AioRpcError):
            return self._error(error, remote)
        return error

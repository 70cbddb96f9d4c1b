"""What ``handler.py``, ``asgi.py`` and ``client.py`` print (A2A packages only).

One view per template, computed from the model like the views in ``codegen.views``:
the handler method names, the annotations of requests and responses, which rpcs
stream. The templates only loop, branch and print.
"""

from __future__ import annotations

from typing import NamedTuple

from .model import BindingFile, Method
from .views import FileView

__all__ = [
    "AsgiView",
    "ClientView",
    "GrpcView",
    "HandlerMethod",
    "HandlerView",
    "protoc_python_module",
]


class HandlerMethod(NamedTuple):
    """One rpc as a handler method and a client call."""

    rpc: str
    attribute: str  # the handler method: snake_case, ``_`` after a keyword
    request: str  # the request annotation, in a module that imports ``messages``
    response: str  # the response TypedDict; "None" for google.protobuf.Empty
    returns: str  # the handler method's return annotation
    streaming: bool  # the server streams: the method returns an async iterator
    empty: bool  # answers google.protobuf.Empty
    comment: str
    read: str  # what ``client.read_response`` returns: an empty dict's type for Empty
    # The client streams: the method takes ``requests``, an async iterator of requests.
    client_streaming: bool = False
    parameter: str = "request"  # the name of the handler method's first parameter
    argument: str = ""  # its annotation: ``request``, or an async iterator of it


class _ServingView(FileView):
    """The rpcs of every service, as handler methods."""

    def _method(self, method: Method) -> HandlerMethod:
        empty = method.response.well_known
        if empty:
            response = "None"
        else:
            response = "messages." + self.file.python_name(method.response.full_name)
        if method.server_streaming:
            returns = f"AsyncIterator[{response}]"
        else:
            returns = response
        request = self.request_annotation(method)
        return HandlerMethod(
            method.name,
            method.handler_name,
            request,
            response,
            returns,
            method.server_streaming,
            empty,
            method.comment or f"The {method.name} rpc.",
            "dict[str, Any]" if empty else response,
            method.client_streaming,
            "requests" if method.client_streaming else "request",
            f"AsyncIterator[{request}]" if method.client_streaming else request,
        )

    @property
    def methods(self) -> tuple[HandlerMethod, ...]:
        return tuple(self._method(method) for method in self.file.methods)

    @property
    def uses_iterator(self) -> bool:
        """Some rpc streams: the module names ``AsyncIterator``."""
        return any(
            method.server_streaming or method.client_streaming
            for method in self.file.methods
        )

    @property
    def uses_mapping(self) -> bool:
        """Some request is a well-known type: the module names ``Mapping``."""
        return any(method.request.well_known for method in self.file.methods)

    @property
    def handler_class(self) -> str:
        """The ``Protocol`` a served handler implements."""
        if len(self.file.services) == 1:
            return self.file.services[0].name + "Handler"
        return "ServiceHandler"


class HandlerView(_ServingView):
    """What ``handler.py`` prints."""

    @property
    def services(self) -> tuple[tuple[str, str, tuple[HandlerMethod, ...]], ...]:
        """(Protocol name, docstring text, methods) of each service."""
        rows = []
        for service in self.file.services:
            rows.append(
                (
                    service.name + "Handler",
                    f"A server of {service.full_name}: one async method per rpc.",
                    tuple(self._method(method) for method in service.methods),
                )
            )
        return tuple(rows)

    @property
    def combined(self) -> bool:
        """True when several services need one ``ServiceHandler`` joining them."""
        return len(self.file.services) > 1

    @property
    def service_handlers(self) -> tuple[str, ...]:
        return tuple(service.name + "Handler" for service in self.file.services)


class AsgiView(_ServingView):
    """What ``asgi.py`` prints; ``v0_3``: the package has the ``v0_3`` subpackage,
    whose routes and schema the application serves 0.3 clients with."""

    def __init__(self, file: BindingFile, *, v0_3: bool = False) -> None:
        super().__init__(file)
        self.v0_3 = v0_3

    @property
    def served_tenant_field(self) -> str:
        """The tenant field a service without the A2A profile serves: the file's when
        some route binds it, else ``""`` (no tenants: no JSON-RPC tenant endpoint)."""
        if any(route.binding.tenant for route in self.file.routes):
            return self.file.tenant_field
        return ""

    @property
    def agent_card_type(self) -> str:
        """The annotation of the served card: the ``AgentCard`` message of a service's
        package when the package has one (A2A's does), else any JSON object (a service
        served with ``profile=a2a`` need not define or reach one)."""
        packages = {
            service.full_name.rpartition(".")[0] for service in self.file.services
        }
        for message in self.file.messages:
            if message.name == "AgentCard" and message.package in packages:
                return "messages." + self.file.python_name(message.full_name)
        return "Mapping[str, Any]"


class ClientView(_ServingView):
    """What ``client.py`` and ``http_backend.py`` print."""

    @property
    def streaming_methods(self) -> tuple[HandlerMethod, ...]:
        return tuple(m for m in self.methods if m.streaming)

    @property
    def protocol_version(self) -> str:
        """The A2A version the package speaks (``http_backend.py`` names it)."""
        return self.file.protocol_version

    @property
    def unary_methods(self) -> tuple[HandlerMethod, ...]:
        return tuple(m for m in self.methods if not m.streaming)


def protoc_python_module(proto_file: str) -> str:
    """The module ``protoc --python_out`` writes for ``proto_file`` (its generator's
    rule: ``.proto`` dropped, ``-`` to ``_``, ``/`` to ``.``, then ``_pb2``)."""
    stem = proto_file[: -len(".proto")] if proto_file.endswith(".proto") else proto_file
    return stem.replace("-", "_").replace("/", ".") + "_pb2"


class GrpcView(_ServingView):
    """What ``grpc_binding.py`` prints (option ``grpc=true``): the module of the
    message classes (the services and their rpcs are ``routes.RPCS``)."""

    def __init__(self, file: BindingFile, pb2_module: str) -> None:
        super().__init__(file)
        self.pb2_module = pb2_module

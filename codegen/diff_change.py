"""One change ``a2a-codegen diff`` reports, and who it breaks.

Who a change breaks, between a version OLD and a version NEW of a service:

- *clients*: a client built from OLD fails against a server built from NEW (the server
  upgraded first: it refuses the request, or the client misreads the answer);
- *servers*: a server built from OLD fails a client built from NEW doing what an OLD
  client did (the client upgraded first); a new client using something new needs a new
  server, which is no break;
- *gRPC*: the JSON form is unchanged but the binary one is not (a field renumbered, the
  package renamed): only gRPC and binary protobuf peers break;
- *none*: compatible.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from .model import SourceLocation

__all__ = ["Change", "Effect", "IMPACTS", "Impact", "Role", "effect_of", "impact_of"]

Impact = Literal["clients and servers", "clients", "servers", "gRPC", "none"]
# In the order a report lists them.
IMPACTS: tuple[Impact, ...] = (
    "clients and servers",
    "clients",
    "servers",
    "gRPC",
    "none",
)
Role = Literal["request", "response"]


@dataclass(frozen=True)
class Effect:
    """Who one aspect of a change breaks."""

    clients: bool = False
    servers: bool = False
    grpc: bool = False

    def __or__(self, other: Effect) -> Effect:
        return Effect(
            self.clients or other.clients,
            self.servers or other.servers,
            self.grpc or other.grpc,
        )

    @classmethod
    def of(cls, impact: Impact) -> Effect:
        """The effect that has ``impact``."""
        return cls(
            clients=impact in ("clients", "clients and servers"),
            servers=impact in ("servers", "clients and servers"),
            grpc=impact == "gRPC",
        )

    @property
    def impact(self) -> Impact:
        """The class of the change in the report."""
        if self.clients and self.servers:
            return "clients and servers"
        if self.clients:
            return "clients"
        if self.servers:
            return "servers"
        return "gRPC" if self.grpc else "none"


CLIENTS = Effect(clients=True)
SERVERS = Effect(servers=True)
BOTH = Effect(clients=True, servers=True)
GRPC = Effect(grpc=True)
NONE = Effect()


def effect_of(changes: Iterable[Change]) -> Effect:
    """Who several changes together break."""
    total = NONE
    for change in changes:
        total = total | Effect.of(change.impact)
    return total


def impact_of(effects: Iterable[Effect]) -> Impact:
    """The impact of several aspects together."""
    total = NONE
    for effect in effects:
        total = total | effect
    return total.impact


@dataclass(frozen=True)
class Change:
    """One change between two versions, as a maintainer acts on it.

    ``subject`` names the element in the protocol's words (``rpc A2AService.GetTask``,
    ``message Part``, ``enum TaskState``, ``file a2a.proto``); ``old_element`` and
    ``new_element`` are its full proto names on each side ("" where it does not exist),
    with its source locations. ``codes`` say what kind of change it is
    (``field-removed``, ``route-template-changed``, ...), one per aspect of a field or
    route that changed together. ``role`` says whether the message travels in requests,
    responses or both ("" for bindings)."""

    subject: str
    description: str
    impact: Impact
    codes: tuple[str, ...]
    old_element: str = ""
    new_element: str = ""
    old_location: SourceLocation | None = None
    new_location: SourceLocation | None = None
    role: str = ""
    service: str = ""  # the service of a binding-level change

    @property
    def breaking(self) -> bool:
        """True unless the change is compatible."""
        return self.impact != "none"

    @property
    def line(self) -> str:
        """The change in one line without locations: what an acknowledgement quotes."""
        return f"{self.subject}: {self.description}"

"""A2A service parameters and protocol versions (A2A §3.2.6, §3.6).

``A2A-Version`` and ``A2A-Extensions`` read from a request, the version check a server
makes, and the headers a client sends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal
from urllib.parse import unquote

from ._errors import A2AError
from ._headers import (
    OWS,
    RequestHeaders,
    field_lines,
    header_text,
    list_items,
    unique,
)
from ._media import HTTP_JSON_CONTENT_TYPE, JSONRPC_CONTENT_TYPE
from ._quoting import excerpt

__all__ = [
    "Binding",
    "DEFAULT_VERSION",
    "EXTENSIONS_HEADER",
    "NO_PARAMS",
    "ServiceParams",
    "SupportedVersions",
    "VersionPolicy",
    "VERSION_HEADER",
    "check_version",
    "read_service_params",
    "request_headers",
    "service_params",
]

VERSION_HEADER = "A2A-Version"
"""The service parameter naming the protocol version a request speaks (§3.2.6)."""

EXTENSIONS_HEADER = "A2A-Extensions"
"""The service parameter listing the extension URIs a request uses (§3.2.6)."""

DEFAULT_VERSION = "0.3"
"""The version of a request that names none (§3.6: a missing version means 0.3)."""

Binding = Literal["http+json", "jsonrpc", "grpc"]
"""The three bindings of A2A: the two over HTTP and gRPC."""

# Bounded so int() never meets a huge digit string (Python limits those).
_VERSION = re.compile(r"([0-9]{1,9})\.([0-9]{1,9})(?:\.[0-9]{1,9})?")


def _query_values(query: str | bytes, name: str) -> list[str]:
    """Values of ``name`` (any case) in a raw form-urlencoded query string."""
    text = header_text(query, "query string")
    wanted = name.lower()
    found: list[str] = []
    for pair in text.split("&"):
        key, _, value = pair.partition("=")
        key = unquote(key.replace("+", " "), errors="replace")
        if key.lower() == wanted:
            found.append(unquote(value.replace("+", " "), errors="replace"))
    return found


@dataclass(frozen=True)
class ServiceParams:
    """The A2A service parameters of one request (§3.2.6).

    ``version`` is the requested protocol version as sent (``"0.3"`` when none is);
    ``extensions`` the extension URIs in first-seen order, without duplicates;
    ``version_named`` whether the request named its version (not compared).
    """

    version: str
    extensions: tuple[str, ...]
    version_named: bool = field(default=True, compare=False)


NO_PARAMS = ServiceParams("", ())
"""The service parameters of a call to a service without the A2A profile: it has
none (no version, no extensions)."""


def service_params(headers: RequestHeaders, query: str | bytes = "") -> ServiceParams:
    """Read ``A2A-Version`` and ``A2A-Extensions`` from a request.

    Field names match in any case; repeated fields and comma-separated values both
    count; members are trimmed and empty ones dropped. ``A2A-Version`` comes from the
    headers, or from the raw query string (name in any case) when no header carries
    it; a header wins over the query. A missing version is ``"0.3"``.

    Raises ``A2AError`` of kind ``VersionNotSupportedError`` when one source names two
    different versions (``A2A-Version: 1.0, 0.3``): a singleton field with conflicting
    values (RFC 9110 §5.3) says nothing a server can act on, and picking one would
    process the request under semantics the client may not have meant. Repeats of one
    value are fine.
    """
    return read_service_params(
        field_lines(headers, VERSION_HEADER),
        field_lines(headers, EXTENSIONS_HEADER),
        query,
    )


def read_service_params(
    version_lines: Sequence[str],
    extension_lines: Sequence[str],
    query: str | bytes = "",
) -> ServiceParams:
    """``service_params`` from the field lines already picked out of the headers."""
    extensions = unique(list_items(extension_lines)) if extension_lines else ()
    if len(version_lines) == 1 and "," not in version_lines[0]:
        versions: tuple[str, ...] = (version_lines[0].strip(OWS),)  # the usual case
        if not versions[0]:
            versions = ()
        source = "header"
    else:
        versions = unique(list_items(version_lines))
        source = "header"
    if not versions:
        source = "query parameter"
        versions = unique(list_items(_query_values(query, VERSION_HEADER)))
    if len(versions) > 1:
        raise A2AError(
            "VersionNotSupportedError",
            f"{VERSION_HEADER} {source} names several versions: "
            f"{excerpt(', '.join(versions), quoted=False)}",
            metadata={"requestedVersion": excerpt(", ".join(versions), quoted=False)},
        )
    if not versions:
        return ServiceParams(DEFAULT_VERSION, extensions, version_named=False)
    return ServiceParams(versions[0], extensions)


def _major_minor(version: str) -> tuple[int, int] | None:
    match = _VERSION.fullmatch(version)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def check_version(version: str, supported: Iterable[str]) -> None:
    """Refuse a version whose Major.Minor is not one of ``supported`` (§3.6).

    The minor must match (``1.1`` is refused where only ``1.0`` is supported); a patch
    part is ignored (``1.0.2`` is ``1.0``). Anything that is not ``Major.Minor`` or
    ``Major.Minor.Patch`` in ASCII digits (``""``, ``"1"``, ``" 1.0"``) is refused.
    Raises ``A2AError`` of kind ``VersionNotSupportedError`` with the metadata
    ``requestedVersion`` and ``supportedVersions``; ``ValueError`` when an entry of
    ``supported`` is itself not a version (a server's configuration bug).
    """
    SupportedVersions(supported).check(version)


class SupportedVersions:
    """The versions a server accepts, parsed once: ``check`` is ``check_version``
    against them, with the versions as listed accepted without parsing."""

    def __init__(self, supported: Iterable[str]) -> None:
        self.names = tuple(supported)
        self._allowed: list[tuple[int, int]] = []
        for entry in self.names:
            parsed = _major_minor(entry)
            if parsed is None:
                raise ValueError(f"supported version {entry!r} is not Major.Minor")
            self._allowed.append(parsed)
        self._as_listed = frozenset(self.names)

    def supports(self, version: str) -> bool:
        """Whether ``version`` names a supported Major.Minor."""
        return version in self._as_listed or _major_minor(version) in self._allowed

    def excluding(self, version: str) -> SupportedVersions:
        """These versions but the ones of ``version``'s Major.Minor."""
        other = _major_minor(version)
        return SupportedVersions(
            name for name in self.names if _major_minor(name) != other
        )

    def check(self, version: str, *, note: str = "") -> None:
        """Raise ``A2AError`` ``VersionNotSupportedError`` unless ``version`` names a
        supported Major.Minor; ``note`` ends its message (what to do instead)."""
        if self.supports(version):
            return
        listed = ", ".join(self.names)
        raise A2AError(
            "VersionNotSupportedError",
            f"{VERSION_HEADER} {excerpt(version)} is not supported"
            f" (supported: {listed or 'none'}){note}",
            metadata={
                "requestedVersion": excerpt(version, quoted=False),
                "supportedVersions": listed,
            },
        )


class VersionPolicy:
    """Which versions a server serves, and the version check of each request (§3.6).

    A request names its version in ``A2A-Version``; one that names none is 0.3
    (§3.6.2). A request in 0.3's form (a 0.3 JSON-RPC method, a 0.3 route) must name
    0.3 or nothing. One in a later version's form must name a supported version but
    0.3; where 0.3 is served too, one that names none is in that form all the same and
    is served as the first later version supported (the 0.3 form is what a 0.3
    client sends, and the official 1.0 conformance kit names no version). Where 0.3
    is not served, a request naming none is refused, as 0.3 is, by a message that
    says it named none and which version to send. ``parameter`` is how the binding
    carries the version, as that message names it (``A2A-Version`` over HTTP,
    ``metadata a2a-version`` over gRPC).
    """

    def __init__(
        self, supported: Iterable[str], *, parameter: str = VERSION_HEADER
    ) -> None:
        versions = SupportedVersions(supported)
        versions.check(versions.names[0])
        self.names = versions.names
        self.parameter = parameter
        self.serves_v0_3 = versions.supports(DEFAULT_VERSION)
        self._v0_3 = SupportedVersions((DEFAULT_VERSION,))
        self._later = versions.excluding(DEFAULT_VERSION)
        # What ``check`` gives the usual request, which names one version exactly as
        # listed and no extension: by (version, in 0.3's form).
        self.usual: Mapping[tuple[str, bool], ServiceParams] = {
            (name, name not in self._later.names): ServiceParams(name, ())
            for name in self.names
        }

    @classmethod
    def of(
        cls, supported: Iterable[str] | None, *, parameter: str = VERSION_HEADER
    ) -> VersionPolicy | None:
        """The policy of a server's ``supported`` versions; None for None (a service
        without the A2A profile checks no version)."""
        return None if supported is None else cls(supported, parameter=parameter)

    def speaks_v0_3(self, params: ServiceParams) -> bool:
        """Whether a request without a form of its own (the agent card) is 0.3's: it
        names 0.3 or no version."""
        return not params.version_named or self._v0_3.supports(params.version)

    def check(self, params: ServiceParams, *, v0_3: bool = False) -> ServiceParams:
        """``params`` with the version the request is served as, or ``A2AError``
        ``VersionNotSupportedError``; ``v0_3``: the request is in 0.3's form."""
        if v0_3:
            self._v0_3.check(params.version, note=" (a 0.3 method or route)")
        elif params.version_named:
            self._later.check(params.version)
        elif self.serves_v0_3 and self._later.names:
            return replace(params, version=self._later.names[0])
        else:
            raise self._unnamed(params)
        return params

    def _unnamed(self, params: ServiceParams) -> A2AError:
        """The refusal of a request in a later version's form that names no version:
        it is 0.3's (§3.6.2), which is not served, or not in that form."""
        listed = ", ".join(self.names)
        if self._later.names:  # then 0.3 is not served (else it was served as later)
            why = (
                f"which this server does not serve (supported: {listed}): "
                f"send {self.parameter}: {self._later.names[0]}"
            )
        else:  # 0.3 alone is served, and this is no 0.3 method or route
            why = f"but this is no 0.3 method or route (supported: {listed})"
        return A2AError(
            "VersionNotSupportedError",
            f"no {self.parameter} was sent, and a request naming no version is "
            f"taken as {DEFAULT_VERSION} (A2A §3.6.2), {why}",
            metadata={
                "requestedVersion": excerpt(params.version, quoted=False),
                "supportedVersions": listed,
            },
        )


def request_headers(
    binding: Binding,
    *,
    body: bool,
    version: str,
    extensions: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """The A2A headers a client sends on one request.

    ``A2A-Version`` always (§3.6: clients MUST send it); ``Content-Type`` of the
    binding when the request has a body; ``A2A-Extensions`` (one comma-separated
    field, duplicates dropped) when ``extensions`` is not empty. Raises ``ValueError``
    for an unknown binding, or a version or extension that a header cannot carry.
    """
    if binding == "http+json":
        content_type = HTTP_JSON_CONTENT_TYPE
    elif binding == "jsonrpc":
        content_type = JSONRPC_CONTENT_TYPE
    else:
        raise ValueError(f"binding must be 'http+json' or 'jsonrpc', not {binding!r}")
    if _major_minor(version) is None:
        raise ValueError(f"{VERSION_HEADER} {version!r} is not Major.Minor")
    headers = [(VERSION_HEADER, version)]
    if body:
        headers.append(("Content-Type", content_type))
    for index, uri in enumerate(extensions):
        # A comma would split the URI in two at the server; CR/LF would end the field.
        if not uri or uri != uri.strip(OWS) or any(c in uri for c in ",\r\n\0"):
            raise ValueError(
                f"extensions[{index}] {uri!r} cannot travel in {EXTENSIONS_HEADER}"
            )
    if extensions:
        headers.append((EXTENSIONS_HEADER, ", ".join(unique(extensions))))
    return headers

"""The documents the server answers GET and HEAD with at fixed paths: the agent card
(and its ``/{tenant}/`` form) and the OpenAPI document, with caching headers and 304s.

A document that is the same for every request (a card given as an object, an OpenAPI
document naming its ``servers``) is rendered once. One that names the URLs a client
reached (a card callable, ``link_openapi_in_card``, an OpenAPI document without
``servers``) is rendered per request, for the base URL the client reached (and, for a
card callable that takes it, the tenant of the card's path), and its
``Last-Modified`` follows its bytes as the ``ETag`` does: per base URL and tenant (the
most recent 256), the first rendering has the configured time, and a rendering that differs from
the last one for that URL has the second it was first served. When that second is not
later than the one before (two changes within a second), ``Last-Modified`` is left
out and the ``ETag`` alone validates, so ``If-Modified-Since`` never hides a change
and no date lies ahead of the clock.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any, NamedTuple, Protocol, TypeVar, Union, cast

from ._caching import cache_headers, entity_tag
from ._json import encode

__all__ = ["AgentCardSource", "Document", "Documents", "TenantCardSource"]

Card_co = TypeVar("Card_co", covariant=True)


class TenantCardSource(Protocol[Card_co]):
    """A card callable that also takes the tenant of the card's path: ``""`` for
    ``/.well-known/agent-card.json``, ``"t1"`` for ``/t1/.well-known/...``."""

    def __call__(self, base_url: str, tenant: str, /) -> Card_co: ...


AgentCardSource = Union[
    Mapping[str, Any],
    Callable[[str], Mapping[str, Any]],
    TenantCardSource[Mapping[str, Any]],
]
"""The agent card as a ProtoJSON object, or a callable from a request's base URL to
it, or one from the base URL and the tenant (a callable that takes two positional
arguments)."""

_URLS_REMEMBERED = 256  # base URLs whose last rendering is kept (one per host, say)


class Document(NamedTuple):
    """A document as served: its bytes, caching headers, ``ETag`` and modification
    time."""

    body: bytes
    headers: list[tuple[str, str]]
    etag: str
    last_modified: datetime | None


class Documents:
    """The agent card and the OpenAPI document of one application.

    ``openapi`` is the document's JSON text (None: not served); without ``servers`` it
    is given one, the base URL followed by ``http_json_prefix``. ``link_openapi``
    sets the card's ``documentationUrl`` to the base URL followed by
    ``openapi_path``. ``compose`` makes a second form of the card, served where
    ``card`` is asked for it (the one 0.3 clients read as well, say); the card then
    varies by ``vary`` (a request header's name), said in each answer's ``Vary``.
    """

    def __init__(
        self,
        card: AgentCardSource,
        *,
        last_modified: datetime | None,
        max_age: int,
        openapi: str | bytes | None,
        openapi_path: str | None,
        http_json_prefix: str | None,
        link_openapi: bool,
        compose: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        vary: str = "",
    ) -> None:
        self._created = last_modified or datetime.now(timezone.utc)
        self._max_age = max_age
        # Per base URL, tenant and form, most recent last: the last rendering's ETag
        # and time.
        self._renderings: dict[tuple[str, str, bool], tuple[str, datetime | None]] = {}
        self._card_source = card
        self._card_for_tenant = callable(card) and _takes_two(card)
        self._link_openapi = link_openapi
        self._compose = compose
        self._vary = (("Vary", vary),) if compose and vary else ()
        self._openapi_path = openapi_path
        self._prefix = http_json_prefix
        self._openapi: dict[str, Any] = {}
        if openapi is not None:
            try:
                document = json.loads(openapi)
            except ValueError as exc:
                raise ValueError(f"openapi: the document is not JSON: {exc}") from None
            if not isinstance(document, dict):
                raise ValueError("openapi: the document is not a JSON object")
            self._openapi = document
        elif link_openapi:
            raise ValueError("link_openapi_in_card needs an openapi document")
        # A fixed answer is rendered once; one that names URLs, per request.
        self._fixed_cards: dict[bool, Document] = {}
        if not callable(card) and not link_openapi:
            self._fixed_cards = {
                composed: self._varied(
                    self._fixed(encode(self._composed(dict(card), composed)))
                )
                for composed in ((False, True) if compose else (False,))
            }
        self._fixed_openapi: Document | None = None
        if openapi is not None and (
            "servers" in self._openapi or http_json_prefix is None
        ):
            raw = openapi.encode("utf-8") if isinstance(openapi, str) else openapi
            self._fixed_openapi = self._fixed(raw)

    def _fixed(self, body: bytes) -> Document:
        return self._document(body, entity_tag(body), self._created)

    def _document(self, body: bytes, etag: str, modified: datetime | None) -> Document:
        headers = cache_headers(etag, modified, max_age=self._max_age)
        return Document(body, headers, etag, modified)

    def _rendered(self, key: tuple[str, str, bool], body: bytes) -> Document:
        """A rendering for ``key`` (base URL, tenant, form), with its modification
        time."""
        etag = entity_tag(body)
        last = self._renderings.pop(key, None)  # put back below: most recent last
        modified: datetime | None
        if last is None:
            modified = self._created
        elif last[0] == etag:
            modified = last[1]
        else:
            modified = datetime.now(timezone.utc).replace(microsecond=0)
            if last[1] is not None and modified <= last[1].replace(microsecond=0):
                modified = None  # not later than the last change: the ETag decides
        if len(self._renderings) >= _URLS_REMEMBERED:
            del self._renderings[next(iter(self._renderings))]
        self._renderings[key] = (etag, modified)
        return self._document(body, etag, modified)

    def card(
        self, base: Callable[[], str], tenant: str = "", composed: bool = True
    ) -> Document:
        """The agent card of ``tenant`` (``""``: the root's); ``base`` gives the
        request's base URL; ``composed``: in the form ``compose`` makes (when there is
        one)."""
        composed = composed and self._compose is not None
        if self._fixed_cards:
            return self._fixed_cards[composed]
        url = base()
        source = self._card_source
        if not self._card_for_tenant:
            tenant = ""  # the same card for every tenant: one rendering
            one = cast(Callable[[str], Mapping[str, Any]], source)
            card = dict(one(url) if callable(source) else source)
        else:
            card = dict(cast(TenantCardSource[Mapping[str, Any]], source)(url, tenant))
        if self._link_openapi:
            card["documentationUrl"] = url + (self._openapi_path or "")
        return self._varied(
            self._rendered(
                (url, tenant, composed), encode(self._composed(card, composed))
            )
        )

    def _varied(self, card: Document) -> Document:
        """A card with the ``Vary`` of its forms (when it has two)."""
        return card._replace(headers=card.headers + list(self._vary))

    def _composed(self, card: dict[str, Any], composed: bool) -> dict[str, Any]:
        """``card`` in the form ``compose`` makes when ``composed`` (and there is one)."""
        return self._compose(card) if composed and self._compose else card

    def openapi(self, base: Callable[[], str]) -> Document:
        """The OpenAPI document; ``base`` gives the request's base URL."""
        if self._fixed_openapi is not None:
            return self._fixed_openapi
        url = base()
        server = {"url": url + (self._prefix or "")}
        document: dict[str, Any] = {}
        for key, value in self._openapi.items():
            document[key] = value
            if key == "info":  # where OpenAPI documents usually put it
                document["servers"] = [server]
        document.setdefault("servers", [server])
        return self._rendered((url, "", False), encode(document))


def _takes_two(function: Callable[..., Any]) -> bool:
    """Whether ``function`` takes two positional arguments (a callable whose signature
    Python cannot tell, a builtin say, is taken to take one)."""
    try:
        inspect.signature(function).bind("", "")
    except (TypeError, ValueError):
        return False
    return True

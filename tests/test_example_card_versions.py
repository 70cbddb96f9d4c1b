"""The example's agent card by the version a client names, since it serves 0.3 beside
1.0 (issue 24).

A client naming ``A2A-Version: 1.0`` reads the 1.0 card as given: the 1.0 conformance
kit holds every ``securitySchemes`` value to one member of the proto's oneof
(``assert len(security_scheme.keys()) == 1`` in its
test_security_scheme_structure_compliance and three more tests). A request naming no
version is 0.3 (§3.6.2), and 0.3 clients send none: it gets the card both kinds of
client read, each scheme in its 0.3 form (``type``, ``scheme``) as well, and the 0.3
fields (``url``, ``preferredTransport``, ...). The two forms have their own ``ETag``,
and both say ``Vary: A2A-Version``.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import httpx
import pytest

from .servers import running

CARD = "/.well-known/agent-card.json"


@pytest.fixture(scope="module")
def base(example_module: ModuleType) -> Iterator[str]:
    with running(example_module.create_app()) as url:
        yield url


def test_a_1_0_client_reads_one_member_per_security_scheme(base: str) -> None:
    answer = httpx.get(base + CARD, headers={"A2A-Version": "1.0"})
    card = answer.json()
    schemes = card["securitySchemes"]
    assert schemes, card
    for name, scheme in schemes.items():
        assert len(scheme) == 1, (name, scheme)  # one member of the oneof
        assert next(iter(scheme)).endswith("SecurityScheme"), (name, scheme)
    assert "url" not in card and "preferredTransport" not in card
    assert answer.headers["vary"] == "A2A-Version"


def test_a_request_naming_no_version_reads_the_card_0_3_clients_read(base: str) -> None:
    plain = httpx.get(base + CARD, headers={"A2A-Version": "1.0"})
    answer = httpx.get(base + CARD)
    card = answer.json()
    assert card["protocolVersion"].startswith("0.3") and card["url"]
    assert card["supportedInterfaces"] == plain.json()["supportedInterfaces"]
    bearer = card["securitySchemes"]["bearer"]
    assert bearer["type"] == "http" and "httpAuthSecurityScheme" in bearer
    assert answer.headers["vary"] == "A2A-Version"
    assert answer.headers["etag"] != plain.headers["etag"]
    assert httpx.get(base + CARD, headers={"A2A-Version": "0.3"}).json() == card
    # Each form's ETag validates that form only.
    current = httpx.get(base + CARD, headers={"If-None-Match": answer.headers["etag"]})
    assert current.status_code == 304
    other = httpx.get(
        base + CARD,
        headers={"If-None-Match": answer.headers["etag"], "A2A-Version": "1.0"},
    )
    assert other.status_code == 200

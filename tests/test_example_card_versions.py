"""The example's agent card as a 1.0 client reads it, since it serves 0.3 beside 1.0
(issue 24).

A 1.0 client that says ``A2A-Version: 1.0`` should read a 1.0 card: the 1.0
conformance kit holds every ``securitySchemes`` value to one member of the proto's oneof
(``assert len(security_scheme.keys()) == 1`` in its
test_security_scheme_structure_compliance and three more tests), where a 0.3 client
reads the 0.3 form (``type``, ``scheme``) of the same scheme.
"""

from __future__ import annotations

from types import ModuleType

import httpx
import pytest

from .servers import running

# Found by the conformance run (issue 24); the 1.0 kit itself sends no A2A-Version, which
# is a 0.3 request, so for it the choice stays open: see the report / README.
MERGED_SCHEMES = (
    "the card the example serves (codegen/runtime/_v0_3_card.card_for_both) merges each "
    "security scheme's 0.3 form into its 1.0 form, {'httpAuthSecurityScheme': {...}, "
    "'type': 'http', 'description': ..., 'scheme': 'Bearer'}, even to a request with "
    "A2A-Version: 1.0; on that card the 1.0 kit (which sends no version) fails "
    "test_security_scheme_structure_compliance, test_authentication_scheme_consistency, "
    "test_security_scheme_consistency and test_invalid_authentication over every "
    "transport (make conformance: unlisted). a2a-sdk 1.3.0's agent_card_to_dict merges "
    "the same way"
)


@pytest.mark.xfail(strict=True, reason=MERGED_SCHEMES)
def test_a_1_0_client_reads_one_member_per_security_scheme(example: ModuleType) -> None:
    with running(example.create_app()) as base:
        card = httpx.get(
            f"{base}/.well-known/agent-card.json", headers={"A2A-Version": "1.0"}
        ).json()
    schemes = card["securitySchemes"]
    assert schemes, card
    for name, scheme in schemes.items():
        assert len(scheme) == 1, (name, scheme)  # one member of the oneof
        assert next(iter(scheme)).endswith("SecurityScheme"), (name, scheme)

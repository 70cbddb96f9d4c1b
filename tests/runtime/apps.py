"""``A2AApplication`` as the runtime's tests make it: one set of keywords, the
package's tables and the ``ServeOptions`` apart (as ``create_app`` does)."""

from __future__ import annotations

from typing import Any

from codegen.runtime._asgi import A2AApplication, ServeOptions

_TABLES = frozenset(
    {
        "methods",
        "routes",
        "jsonrpc",
        "tenant_field",
        "agent_card_path",
        "agent_card",
        "schema",
        "message_types",
        "v0_3",
        "profile",
    }
)


def application(
    handler: object, *, kind: type[A2AApplication] = A2AApplication, **settings: Any
) -> A2AApplication:
    """``kind(handler, <tables>, options=ServeOptions(<the rest>))``."""
    tables = {k: v for k, v in settings.items() if k in _TABLES}
    options = ServeOptions(**{k: v for k, v in settings.items() if k not in _TABLES})
    return kind(handler, **tables, options=options)

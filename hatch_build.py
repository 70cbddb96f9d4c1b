"""Build hook: the editable install exposes the checkout's ``codegen/`` as ``protoc_gen_a2a``.

The wheel renames ``codegen`` to ``protoc_gen_a2a`` with a ``sources`` mapping, which
hatchling cannot express in an editable install (it only adds folders to ``sys.path``).
So the editable wheel gets a one-file package ``protoc_gen_a2a`` whose ``__path__`` is
the checkout's ``codegen/`` folder: the console scripts and ``python -m protoc_gen_a2a``
then run the checkout's code, and tests keep importing ``codegen`` from the checkout.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

_ALIAS = '''"""protoc_gen_a2a, installed in editable mode: its modules are {folder!r}."""

import os as _os

__path__ = [{folder!r}]
with open(_os.path.join({folder!r}, "__init__.py"), encoding="utf-8") as _init:
    exec(compile(_init.read(), _init.name, "exec"))
'''


class EditableAlias(BuildHookInterface):  # type: ignore[misc]
    """Adds ``protoc_gen_a2a/__init__.py`` to the editable wheel only."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version != "editable":
            return
        self._scratch = tempfile.mkdtemp(prefix="protoc-gen-a2a-editable-")
        alias = os.path.join(self._scratch, "__init__.py")
        with open(alias, "w", encoding="utf-8") as file:
            file.write(_ALIAS.format(folder=os.path.join(self.root, "codegen")))
        build_data["force_include_editable"][alias] = "protoc_gen_a2a/__init__.py"

    def finalize(
        self, version: str, build_data: dict[str, Any], artifact_path: str
    ) -> None:
        if version == "editable":
            shutil.rmtree(self._scratch, ignore_errors=True)

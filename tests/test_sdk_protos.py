"""The A2A protos a2a-sdk ships, written back out (tests/sdk_protos.py), compile to the
descriptors they came from: the tests that take them stand on the same proto."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.inputs import request_from_protos

from .sdk_protos import descriptor, sdk_proto


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_sdk_protos_compile_back_to_their_descriptors(
    tmp_path: Path, version: str
) -> None:
    proto = sdk_proto(tmp_path, version)
    request = request_from_protos([str(proto)], [str(tmp_path)])
    (compiled,) = [f for f in request.proto_file if f.name == proto.name]
    compiled.ClearField("source_code_info")
    assert compiled == descriptor(version)

"""Compiled templates are cached between runs (jinja2's bytecode cache): the output is
the same cold, warm, with a corrupt cache and without a writable one."""

from __future__ import annotations

from pathlib import Path

from codegen.render import TemplateCache, new_environment, render_sources

from .conftest import PROTO


def _sources(cache: TemplateCache | None) -> dict[str, str]:
    from codegen.inputs import request_from_protos
    from codegen.model import build_files
    from codegen.options import Options

    proto = PROTO / "features" / "tenancy.proto"
    request = request_from_protos([str(proto)], [str(proto.parent)], "")
    (binding_file,) = build_files(request, Options.parse("")).files
    return render_sources(binding_file, new_environment(cache))


def test_cold_warm_and_uncached_output_are_the_same(tmp_path: Path) -> None:
    uncached = _sources(None)
    cold = _sources(TemplateCache(str(tmp_path)))
    entries = sorted(tmp_path.iterdir())
    assert entries, "nothing was cached"
    warm = _sources(TemplateCache(str(tmp_path)))
    assert cold == uncached and warm == uncached


def test_a_corrupt_cache_is_compiled_again(tmp_path: Path) -> None:
    expected = _sources(TemplateCache(str(tmp_path)))
    for entry in tmp_path.iterdir():
        data = entry.read_bytes()
        entry.write_bytes(data[:20] + b"\x00garbage" * 3)  # magic kept, body broken
    assert _sources(TemplateCache(str(tmp_path))) == expected
    for entry in tmp_path.iterdir():
        entry.write_bytes(b"")
    assert _sources(TemplateCache(str(tmp_path))) == expected


def test_a_cache_that_cannot_be_written_only_means_compiling(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("a file where the cache folder would be")
    assert _sources(TemplateCache(str(not_a_folder))) == _sources(None)
    assert not_a_folder.read_text() == "a file where the cache folder would be"

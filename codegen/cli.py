"""``a2a-codegen``: the generator as a build step, a CI check and a route listing.

A thin shell over ``codegen.plugin.generate``: it turns the user's inputs into the request
protoc would send, runs the plugin in-process and writes (or compares, or prints) what it
returns. Exit status: 0 ok, 1 a failed check or generation error, 2 a usage error.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import click
from google.protobuf.compiler import plugin_pb2

from . import __version__
from .acknowledge import A2A_OVERLAPS, AcknowledgementError, load, settle
from .diff import Change, diff_files, pair_files
from .diff_acknowledge import ChangeAcknowledgementError
from .diff_acknowledge import load as load_change_acknowledgements
from .diff_acknowledge import settle as settle_changes
from .diff_output import OutputChange, changed_files, compare_outputs
from .diff_report import format_changes, summary
from .inputs import (
    DEFAULT_MODULE,
    V0_3_MODULE,
    InputError,
    request_from_descriptor_set,
    request_from_module,
    request_from_protos,
    with_v0_3,
)
from .model import BindingFile, GenerationError, Overlap, Route, build_files
from .options import OptionError, Options
from .plugin import Run
from .plugin import run as run_plugin
from .writer import WriteError, read_packages, write_packages

__all__ = ["main"]

F = TypeVar("F", bound=Callable[..., Any])


class CliError(click.ClickException):
    """A failure to report in one line on stderr with exit status 1."""

    exit_code = 1

    def show(self, file: Any = None) -> None:
        click.echo(f"a2a-codegen: {self.format_message()}", err=True)


def _input_options(func: F) -> F:
    """The options every command shares to name its input."""
    decorators = [
        click.argument("protos", nargs=-1, type=click.Path(dir_okay=False)),
        click.option(
            "-I",
            "--include",
            "includes",
            multiple=True,
            type=click.Path(file_okay=False),
            help="Import path for protoc (the google/* protos are added for you).",
        ),
        click.option(
            "--descriptor-set",
            type=click.Path(dir_okay=False),
            help="A FileDescriptorSet (protoc -o / buf build -o) with its imports.",
        ),
        click.option(
            "--from-module",
            metavar="MODULE",
            help="A compiled _pb2 module, e.g. a2a.types.a2a_pb2.",
        ),
        click.option(
            "--module",
            metavar="NAME",
            help="Name of the generated package (plugin option module=).",
        ),
        click.option(
            "--acknowledge",
            metavar="FILE",
            help="Overlaps reviewed by hand, one a line (plugin option acknowledge=).",
        ),
        click.option(
            "--v0-3",
            "v0_3",
            metavar="SOURCE",
            help="The A2A 0.3 proto, generated beside the 1.0 one into the package's "
            "v0_3 subpackage: a .proto, a descriptor set or a module, e.g. "
            "a2a.compat.v0_3.a2a_v0_3_pb2 (plugin option v0_3_proto=).",
        ),
        click.option(
            "--opt",
            "opts",
            multiple=True,
            metavar="KEY=VALUE",
            help="A plugin option, as in --a2a_opt (repeatable).",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def _request(
    protos: tuple[str, ...],
    includes: tuple[str, ...],
    descriptor_set: str | None,
    from_module: str | None,
    module: str | None,
    acknowledge: str | None,
    opts: tuple[str, ...],
    v0_3: str | None = None,
    *,
    quiet: bool = False,
) -> plugin_pb2.CodeGeneratorRequest:
    sources = sum(bool(x) for x in (protos, descriptor_set, from_module))
    if sources > 1:
        raise click.UsageError(
            "give proto files, --descriptor-set or --from-module, not several"
        )
    if not (protos or descriptor_set or from_module or acknowledge):
        acknowledge = str(A2A_OVERLAPS)  # the embedded default comes reviewed
    parameter_items = list(opts) + ([f"module={module}"] if module else [])
    parameter_items += [f"acknowledge={acknowledge}"] if acknowledge else []
    parameter = ",".join(parameter_items)
    try:
        Options.parse(parameter)
    except OptionError as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        if protos:
            request = request_from_protos(protos, includes, parameter)
        elif descriptor_set:
            request = request_from_descriptor_set(descriptor_set, (), parameter)
        else:
            if not from_module and not quiet:
                click.echo(
                    f"a2a-codegen: no input given; using the embedded default ({DEFAULT_MODULE} from a2a-sdk)",
                    err=True,
                )
            request = request_from_module(from_module or DEFAULT_MODULE, parameter)
        if v0_3 is not None:
            request = with_v0_3(request, _source_request(v0_3, includes, ""))
    except InputError as exc:
        raise CliError(str(exc)) from exc
    return request


def _run(
    request: plugin_pb2.CodeGeneratorRequest, *, quiet: bool = False
) -> tuple[Run, dict[str, str]]:
    """Run the plugin once: its model and the files it generates, by relative name;
    ``quiet`` keeps its warnings off stderr."""
    result = run_plugin(
        request,
        (
            (lambda message: None)
            if quiet
            else (lambda message: click.echo(f"a2a-codegen: {message}", err=True))
        ),
    )
    if result.response.error:
        raise CliError(result.response.error)
    if not result.response.file:
        raise CliError("nothing to generate: no service with google.api.http rules")
    return result, {f.name: f.content for f in result.response.file}


def _model(
    request: plugin_pb2.CodeGeneratorRequest, *, with_v0_3: bool = False
) -> list[BindingFile]:
    """The model alone, without rendering; overlaps are listed, never an error here.
    ``with_v0_3``: the 0.3 file (option ``v0_3_proto``) too, last."""
    try:
        generation = build_files(request, Options.parse(request.parameter))
        legacy = [generation.v0_3] if with_v0_3 and generation.v0_3 else []
        return list(generation.files) + legacy
    except GenerationError as exc:
        raise CliError(str(exc)) from exc


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="a2a-codegen")
def main() -> None:
    """Generate typed HTTP+JSON and JSON-RPC binding tables from google.api.http rules."""


@main.command()
@_input_options
@click.option(
    "-o",
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Output folder; each generated package inside it is replaced atomically.",
)
@click.option(
    "--print-routes", is_flag=True, help="Print the route table that was written."
)
def generate(out_dir: str, print_routes: bool, **inputs: Any) -> None:
    """Generate the binding package(s), exactly as `protoc --a2a_out` would.

    \b
    Examples:
      a2a-codegen generate -o generated                      # embedded A2A default
      a2a-codegen generate a2a.proto -I proto -o src/vendor --module a2a_binding
      a2a-codegen generate --descriptor-set a2a.pb -o out
    """
    result, files = _run(_request(**inputs))
    try:
        written = write_packages(Path(out_dir), files)
    except WriteError as exc:
        raise CliError(str(exc)) from exc
    for folder in written:
        click.echo(f"a2a-codegen: wrote {folder}", err=True)
    if print_routes:
        for binding_file in result.files:
            click.echo(
                format_routes(binding_file, "text", acknowledged=result.acknowledged)
            )


@main.command()
@_input_options
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="The folder holding the committed output to compare with.",
)
@click.option(
    "--against",
    metavar="OLD",
    help="Also fail on a breaking change against OLD (a .proto, descriptor set or "
    "module, as for diff), unless acknowledged.",
)
@click.option(
    "--acknowledge-changes",
    metavar="FILE",
    help="With --against: reviewed changes, one a line as diff prints them.",
)
def check(
    out_dir: str | None,
    against: str | None,
    acknowledge_changes: str | None,
    **inputs: Any,
) -> None:
    """Exit 1 with a diff when OUT is not what `generate` would write, or (with
    --against) when the input breaks a peer of OLD; never writes.

    \b
    Examples (in CI, or as a pre-commit hook):
      a2a-codegen check a2a.proto -I proto -o src/vendor --module a2a_binding
      a2a-codegen check a2a.proto --against released/a2a.pb \\
          --acknowledge-changes a2a.changes
    """
    if out_dir is None and against is None:
        raise click.UsageError("give -o OUT, --against OLD, or both")
    if acknowledge_changes and against is None:
        raise click.UsageError("--acknowledge-changes needs --against OLD")
    if out_dir is not None and not Path(out_dir).is_dir():
        raise CliError(
            f"{out_dir}: no such folder (a2a-codegen generate -o {out_dir} with the "
            "same inputs writes it)"
        )
    request = _request(**inputs, quiet=True)
    failures: list[str] = []
    if out_dir is not None:
        failures += _check_output(out_dir, request)
    if against is not None:
        includes, opts = inputs["includes"], inputs["opts"]
        old_files = _load_version(against, includes, opts)
        changes = diff_files(old_files, _model(request))
        acknowledged = _acknowledged(changes, acknowledge_changes)
        breaking = [
            i for i, c in enumerate(changes) if c.breaking and i not in acknowledged
        ]
        if breaking:
            click.echo(
                format_changes(
                    [changes[i] for i in breaking], "text", against, "this input"
                )
            )
            hint = (
                f"add the lines to {acknowledge_changes}"
                if acknowledge_changes
                else "list them in a file passed with --acknowledge-changes"
            )
            failures.append(
                f"{len(breaking)} breaking change(s) against {against} not "
                f"acknowledged (printed above; once reviewed, {hint})"
            )
        else:
            click.echo(
                f"a2a-codegen: no unacknowledged breaking change against {against} "
                f"({summary(changes, acknowledged)})",
                err=True,
            )
    if failures:
        raise CliError("; ".join(failures))


def _acknowledged(changes: list[Change], path: str | None) -> frozenset[int]:
    """The positions of the acknowledged changes; stale lines are warned about."""
    if path is None:
        return frozenset()
    try:
        settled = settle_changes(changes, load_change_acknowledgements(path))
    except ChangeAcknowledgementError as exc:
        raise CliError(str(exc)) from exc
    for stale in settled.stale:
        click.echo(f"a2a-codegen: {stale.stale_warning}", err=True)
    return settled.acknowledged


def _check_output(out_dir: str, request: plugin_pb2.CodeGeneratorRequest) -> list[str]:
    """Compare the committed output with what `generate` would write: the failure, if
    any, after naming each stale file on stderr and printing its diff."""
    _, generated = _run(request)
    packages = {name.partition("/")[0] for name in generated}
    absent = [p for p in sorted(packages) if not os.path.lexists(Path(out_dir) / p)]
    if absent:
        # A package never generated there: one line, not a diff of every file.
        names = ", ".join(f"{out_dir}/{p}" for p in absent)
        return [
            f"{names}: no such folder (a2a-codegen generate -o {out_dir} with the "
            "same inputs writes it)"
        ]
    on_disk = read_packages(Path(out_dir), packages)
    # Links, unreadable and non-UTF-8 entries: never what was generated, so stale.
    skipped = {entry.path: entry for entry in on_disk.skipped}
    changed = [
        name for name in changed_files(on_disk, generated) if name not in skipped
    ]
    if not changed and not skipped:
        click.echo(f"a2a-codegen: {out_dir} is up to date", err=True)
        return []
    for entry in skipped.values():
        click.echo(f"a2a-codegen: {out_dir}/{entry}", err=True)
    for name in changed:
        old, new = on_disk.get(name), generated.get(name)
        path = f"{out_dir}/{name}"
        if old is None:
            state = "missing"
        elif new is None:
            state = "extra (the generator does not write it)"
        else:
            state = "differs"
        click.echo(f"a2a-codegen: {path}: {state}", err=True)
        sys.stdout.writelines(
            difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                (new or "").splitlines(keepends=True),
                fromfile=path if old is not None else "/dev/null",
                tofile=f"{path} (generated)" if new is not None else "/dev/null",
            )
        )
    return [
        f"{out_dir} is stale ({len(changed) + len(skipped)} file(s) named above): "
        "run a2a-codegen generate with the same inputs"
    ]


@main.command("a2a-overlaps")
def a2a_overlaps() -> None:
    """Print the overlaps of the A2A proto (v1.0.x) this project reviewed, as an
    acknowledgement file; the embedded default input uses it unless --acknowledge
    names another.

    \b
    Example:
      a2a-codegen a2a-overlaps > spec/a2a.overlaps
      a2a-codegen generate spec/a2a.proto -o src/vendor --acknowledge spec/a2a.overlaps
    """
    click.echo(A2A_OVERLAPS.read_text(encoding="utf-8"), nl=False)


@main.command()
@_input_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
)
@click.option(
    "--width",
    type=click.IntRange(min=40),
    default=100,
    show_default=True,
    help="Columns for the text format: a wider table is printed one route a block.",
)
def routes(fmt: str, width: int, **inputs: Any) -> None:
    """Print the route table and the overlapping routes.

    \b
    Example:
      a2a-codegen routes a2a.proto -I proto --format markdown
    """
    request = _request(**inputs, quiet=True)
    files = _model(request, with_v0_3=True)
    acknowledged: tuple[Overlap, ...] = ()
    acknowledge = Options.parse(request.parameter).acknowledge
    if acknowledge:
        try:
            overlaps = [o for binding_file in files for o in binding_file.overlaps]
            acknowledged = settle(overlaps, load(acknowledge)).acknowledged
        except AcknowledgementError as exc:
            raise CliError(str(exc)) from exc
    for binding_file in files:
        click.echo(
            format_routes(binding_file, fmt, width=width, acknowledged=acknowledged)
        )


def _version_request(
    spec: str, includes: tuple[str, ...], opts: tuple[str, ...]
) -> plugin_pb2.CodeGeneratorRequest:
    """One side of a diff: a .proto file, a descriptor set file, or a module name."""
    try:
        return _source_request(spec, includes, ",".join(opts))
    except InputError as exc:
        raise CliError(str(exc)) from exc


def _load_version(
    spec: str, includes: tuple[str, ...], opts: tuple[str, ...]
) -> list[BindingFile]:
    """The model of one side of a diff."""
    return _model(_version_request(spec, includes, opts))


class _Version(NamedTuple):
    """One side of a diff: as named, its request, and its model."""

    spec: str
    request: plugin_pb2.CodeGeneratorRequest
    files: list[BindingFile]


def _regenerated(old: _Version, new: _Version) -> list[OutputChange] | None:
    """The generated files that differ between the two versions, each rendered as
    `generate` would (None, said on stderr, when a side does not generate)."""
    pairs = pair_files(old.files, new.files)
    old_request = old.request
    if len(pairs) == 1 and Options.parse(old_request.parameter).module is None:
        # The same options on both sides: the new side's package name, under which
        # `check` compares output generated from the old side.
        old_request = plugin_pb2.CodeGeneratorRequest()
        old_request.CopyFrom(old.request)
        old_request.parameter = ",".join(
            filter(None, (old.request.parameter, f"module={pairs[0][1].module}"))
        )
    outputs = []
    for spec, request in ((old.spec, old_request), (new.spec, new.request)):
        try:
            outputs.append(_run(request, quiet=True)[1])
        except CliError as exc:
            click.echo(
                f"a2a-codegen: generated files not compared: {spec}: "
                f"{exc.format_message()}",
                err=True,
            )
            return None
    packages = {o.module: n.module for o, n in pairs}
    return compare_outputs(outputs[0], outputs[1], packages)


def _source_request(
    spec: str, includes: tuple[str, ...], parameter: str
) -> plugin_pb2.CodeGeneratorRequest:
    """The request for one input named by a string: a .proto file, a descriptor set
    file, or a module name."""
    path = Path(spec)
    if path.suffix == ".proto":
        return request_from_protos([spec], includes, parameter)
    if path.is_file():
        return request_from_descriptor_set(path, (), parameter)
    if all(part.isidentifier() for part in spec.split(".")):
        return request_from_module(spec, parameter)
    raise InputError(f"{spec}: no such file, and not a module name")


@main.command()
@click.argument("old")
@click.argument("new")
@click.option(
    "-I",
    "--include",
    "includes",
    multiple=True,
    type=click.Path(file_okay=False),
    help="Import path for protoc, for .proto inputs.",
)
@click.option(
    "--opt",
    "opts",
    multiple=True,
    metavar="KEY=VALUE",
    help="A plugin option for both sides.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
)
@click.option(
    "--fail-on",
    type=click.Choice(["breaking", "any", "never"]),
    default="breaking",
    show_default=True,
    help="Which changes a peer sees, unless acknowledged, make the exit status 1 "
    "(comments alone never do).",
)
@click.option(
    "--acknowledge-changes",
    metavar="FILE",
    help="Reviewed changes, one a line as diff prints them (or only their subject).",
)
def diff(
    old: str,
    new: str,
    includes: tuple[str, ...],
    opts: tuple[str, ...],
    fmt: str,
    fail_on: str,
    acknowledge_changes: str | None,
) -> None:
    """Report what changed between two versions of a service, for its JSON peers,
    and what regenerating changes.

    OLD and NEW are each a .proto file, a descriptor set (protoc -o / buf build -o) or a
    compiled module name. Bindings (rpcs, JSON-RPC methods, routes as old clients send
    them, query parameters, streaming) and the messages and enums they reach are
    compared; each change says whom it breaks (old clients, old servers, both, gRPC
    peers only) or that it is compatible, with its location in both versions. Both
    versions are then rendered with the same options, and the report ends with the
    generated files that differ (a comment reworded in the proto is a comment in the
    output: no peer sees it, `check` does).

    Exit status: 1 when a change not acknowledged breaks a peer (--fail-on breaking),
    or is any change a peer sees (--fail-on any); 0 otherwise, so a version that only
    rewords comments exits 0 though regenerating changes files; 2 for a usage error.

    \b
    Examples:
      a2a-codegen diff spec/v1.0.0/a2a.proto spec/v1.0.1/a2a.proto
      a2a-codegen diff old.pb a2a.types.a2a_pb2 --format markdown --fail-on any
      a2a-codegen diff old.pb new.proto --acknowledge-changes spec/a2a.changes
    """
    old_request = _version_request(old, includes, opts)
    new_request = _version_request(new, includes, opts)
    old_files, new_files = _model(old_request), _model(new_request)
    changes = diff_files(old_files, new_files)
    acknowledged = _acknowledged(changes, acknowledge_changes)
    output = _regenerated(
        _Version(old, old_request, old_files), _Version(new, new_request, new_files)
    )
    click.echo(format_changes(changes, fmt, old, new, acknowledged, output))
    counted = [c for i, c in enumerate(changes) if i not in acknowledged]
    if (fail_on == "breaking" and any(c.breaking for c in counted)) or (
        fail_on == "any" and counted
    ):
        sys.exit(1)


_STREAM_COLUMN = {
    "unary": "-",
    "server streaming": "server",
    "client streaming": "client",
    "bidirectional streaming": "bidi",
}
"""The route table's ``stream`` column for each rpc kind (``Method.kind``)."""

_STREAM_TAG = {
    "server streaming": "server stream",
    "client streaming": "client stream",
    "bidirectional streaming": "bidirectional stream",
}
"""The tag of a streaming rpc's route where the routes are listed one a block."""


def _route_rows(binding_file: BindingFile) -> list[dict[str, Any]]:
    rows = []
    for route in binding_file.routes:
        method, binding = route.method, route.binding
        query = (
            []
            if binding.body == "*"
            else [
                p.json_name
                for p in method.query
                if p.json_name not in binding.path_json_names
            ]
        )
        rows.append(
            {
                "verb": binding.verb,
                "path": binding.template.source,
                "rpc": method.name,
                "path_fields": list(binding.path_json_names),
                "query_fields": query,
                "body": binding.body,
                "server_streaming": method.server_streaming,
                "client_streaming": method.client_streaming,
                "kind": method.kind,
                "tenant": binding.tenant,
                "alias": binding.alias,
            }
        )
    return rows


def format_routes(
    binding_file: BindingFile,
    fmt: str,
    *,
    width: int = 100,
    acknowledged: tuple[Overlap, ...] = (),
) -> str:
    """The route table as text, json or markdown, followed by the overlaps.

    Text is a table when it fits in ``width`` columns, else one block per route; each
    overlap starts with its example path in acknowledgement-file form.
    """
    rows = _route_rows(binding_file)
    overlaps = [
        {
            "first": f"{o.first.binding.verb} {o.first.binding.template.source}",
            "second": f"{o.second.binding.verb} {o.second.binding.template.source}",
            "example": o.example,
            "winner": f"{_winner(o).binding.verb} {_winner(o).binding.template.source}",
            "acknowledged": any(o is a for a in acknowledged),
        }
        for o in binding_file.overlaps
    ]
    if fmt == "json":
        return json.dumps(
            {
                "file": binding_file.proto_file,
                "module": binding_file.module,
                "routes": rows,
                "overlaps": overlaps,
            },
            indent=2,
        )
    headers = [
        "verb",
        "path",
        "rpc",
        "path fields",
        "query",
        "body",
        "stream",
        "tenant",
        "alias",
    ]
    table = [
        [
            r["verb"],
            r["path"],
            r["rpc"],
            ", ".join(r["path_fields"]) or "-",
            ", ".join(r["query_fields"]) or "-",
            r["body"] or "-",
            _STREAM_COLUMN[r["kind"]],
            "yes" if r["tenant"] else "-",
            "yes" if r["alias"] else "-",
        ]
        for r in rows
    ]
    lines: list[str] = []
    if fmt == "markdown":
        lines.append(f"### {binding_file.module} ({binding_file.proto_file})\n")
        lines.append("| " + " | ".join(headers) + " |")
        lines.append("|" + "---|" * len(headers))
        lines += [
            "| "
            + " | ".join(f"`{c}`" if i == 1 else c for i, c in enumerate(row))
            + " |"
            for row in table
        ]
        if overlaps:
            lines.append("\nOverlapping routes (the more specific template wins):\n")
            lines += [
                f"- `{o['first']}` and `{o['second']}`: e.g. `{o['example']}`"
                + (" (acknowledged)" if o["acknowledged"] else "")
                for o in overlaps
            ]
        return "\n".join(lines)
    lines.append(
        f"{binding_file.module} ({binding_file.proto_file}): {len(rows)} routes"
    )
    widths = [
        max(len(str(row[i])) for row in [headers] + table) for i in range(len(headers))
    ]
    if sum(widths) + 2 * (len(widths) - 1) <= width:
        for row in [headers] + table:
            lines.append(
                "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip()
            )
    else:
        lines += _route_blocks(rows, width)
    if binding_file.overlaps:
        lines.append(
            "overlapping routes (an example path both match; the first route listed gets it):"
        )
        for overlap, shown in zip(binding_file.overlaps, overlaps):
            mark = "  # acknowledged" if shown["acknowledged"] else ""
            lines.append(f"  {overlap.first.binding.verb} {overlap.example}{mark}")
            for route in (_winner(overlap), _loser(overlap)):
                binding = route.binding
                lines.append(
                    f"      {route.method.name}  {binding.verb} {binding.template.source}"
                )
    return "\n".join(lines)


def _route_blocks(rows: list[dict[str, Any]], width: int) -> list[str]:
    """One route a block: verb, path and rpc, then its fields wrapped to ``width``."""
    lines: list[str] = []
    indent = " " * 10
    for r in rows:
        tags = [
            name
            for name, on in (
                (_STREAM_TAG.get(r["kind"], ""), r["kind"] in _STREAM_TAG),
                ("tenant", r["tenant"]),
                ("alias", r["alias"]),
            )
            if on
        ]
        rpc = r["rpc"] + (f"  ({', '.join(tags)})" if tags else "")
        head = f"{r['verb']:<8}{r['path']}"
        details = []
        if len(head) + 2 + len(rpc) <= width:
            lines.append(f"{head}  {rpc}")
        else:
            lines.append(head)
            details.append(f"rpc: {rpc}")
        details += [
            f"{label}: {', '.join(values)}"
            for label, values in (
                ("path", r["path_fields"]),
                ("query", r["query_fields"]),
            )
            if values
        ]
        if r["body"]:
            details.append(f"body: {r['body']}")
        for detail in details:
            lines += textwrap.wrap(
                detail,
                width,
                initial_indent=indent,
                subsequent_indent=indent + " " * (detail.index(":") + 2),
                break_on_hyphens=False,
            )
    return lines


def _winner(overlap: Overlap) -> Route:
    """The route that ``match`` picks for the overlap's example path."""
    return overlap.second if overlap.loser is overlap.first else overlap.first


def _loser(overlap: Overlap) -> Route:
    return overlap.loser


# ------------------------------------------------------------------- the gateway


@main.command()
@_input_options
@click.option(
    "--target",
    required=True,
    metavar="HOST:PORT|URL",
    help="What to put the gateway in front of: a gRPC service at HOST:PORT "
    "(plaintext), or the A2A agent at an http:// or https:// URL (its card is read "
    "there, at /.well-known/agent-card.json).",
)
@click.option(
    "--target-binding",
    type=click.Choice(["JSONRPC", "HTTP+JSON"]),
    help="With a URL target: the binding to speak to the agent over (default: the "
    "first its card lists, in 1.0 before 0.3).",
)
@click.option(
    "--grpc-port",
    type=int,
    metavar="N",
    help="With a URL target: serve gRPC too, on --host at port N.",
)
@click.option(
    "--card",
    "card_path",
    type=click.Path(dir_okay=False),
    help="The agent card (ProtoJSON) of an A2A service (required in front of a gRPC "
    "one; no other service has one); its JSON-RPC and HTTP+JSON URLs are rewritten. "
    "With a URL target it replaces the card read from the agent.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to bind.")
@click.option(
    "--public-url",
    metavar="URL",
    help="Where clients reach the gateway, for the card (default: each request's).",
)
@click.option(
    "--http-json-prefix", default="", show_default=True, help="HTTP+JSON mount path."
)
@click.option(
    "--jsonrpc-path",
    metavar="PATH",
    help="JSON-RPC path (default: / for an A2A service, none for any other).",
)
@click.option(
    "--forward-header",
    "forward_headers",
    multiple=True,
    metavar="NAME",
    help="A request header passed on to the target (repeatable; default "
    "authorization). Hop-by-hop headers, Host, pseudo-headers, grpc-* names (and, "
    "to an agent over HTTP, the body's and A2A's own headers) are refused.",
)
@click.option(
    "--timeout",
    type=float,
    metavar="SECONDS",
    help="Each call's deadline (a caller's nearer grpc-timeout wins).",
)
@click.option(
    "--expose-errors",
    is_flag=True,
    help="Pass the text of the target's unexpected failures (UNKNOWN, INTERNAL, "
    "UNAVAILABLE...) on to clients, for debugging; by default they are only logged.",
)
def gateway(target: str, **settings: Any) -> None:
    """Serve HTTP+JSON and JSON-RPC in front of a gRPC service with http rules, or
    every binding and both A2A versions in front of an A2A agent over HTTP.

    In front of a gRPC service: an A2A service (the embedded default, a2a.proto) is
    served with the agent card given by --card; any other service gets no card, and
    JSON-RPC only when --jsonrpc-path is given.

    In front of an A2A agent (an http:// or https:// target): its card is read at
    start-up, the gateway speaks the agent's binding and version (1.0 before 0.3;
    --target-binding forces the binding) and serves JSON-RPC and HTTP+JSON in 1.0
    and 0.3, and gRPC on --grpc-port. The card it serves is the agent's with the
    gateway's interfaces in place of the agent's.

    The generated package lives in a temporary folder, removed when the command
    ends.

    \b
    Examples:
      a2a-codegen gateway --target 127.0.0.1:50051 --card card.json --port 8000
      a2a-codegen gateway a2a.proto -I proto --target agent:50051 --card card.json
      a2a-codegen gateway library.proto -I proto --target books:50051
      a2a-codegen gateway --target http://127.0.0.1:9999/ --grpc-port 50051
    """
    import importlib.util

    if importlib.util.find_spec("uvicorn") is None:
        raise CliError(
            "the gateway needs uvicorn: pip install 'protoc-gen-a2a[gateway]'"
        )
    if target.startswith(("http://", "https://")):
        _http_gateway(target, **settings)
        return
    for option in ("target_binding", "grpc_port"):
        if settings.pop(option) is not None:
            flag = "--" + option.replace("_", "-")
            raise CliError(
                f"{flag} is for an agent over HTTP (an http:// or https:// --target);"
                f" {target} is a gRPC service: drop {flag}"
            )
    _grpc_gateway(target, **settings)


_V0_3_ONLY_FIELDS = (
    "url",
    "preferredTransport",
    "additionalInterfaces",
    "protocolVersion",
    "supportsAuthenticatedExtendedCard",
)
"""The fields of a card that both kinds of client read that only 0.3 has: they name
the agent's own interfaces, which the gateway's replace."""


def _http_gateway(
    target: str,
    target_binding: str | None,
    grpc_port: int | None,
    card_path: str | None,
    host: str,
    port: int,
    public_url: str | None,
    http_json_prefix: str,
    jsonrpc_path: str | None,
    forward_headers: tuple[str, ...],
    timeout: float | None,
    expose_errors: bool,
    **inputs: Any,
) -> None:
    """``gateway`` in front of the A2A agent at the URL ``target``."""
    import uvicorn

    from .gateway import (
        GatewayError,
        GrpcListener,
        HttpGateway,
        fetch_card,
        fronted,
        gateway_interfaces,
        load_card,
        load_package,
        package_folder,
        pick_interface,
        served_package,
    )
    from .runtime._http_backend import check_http_forward_headers

    try:
        check_http_forward_headers(forward_headers)
    except ValueError as exc:
        raise CliError(f"--forward-header: {exc}") from None
    embedded = not (
        inputs["protos"] or inputs["descriptor_set"] or inputs["from_module"]
    )
    if embedded and inputs["v0_3"] is None:
        inputs["v0_3"] = V0_3_MODULE
    from_module = not inputs["protos"] and not inputs["descriptor_set"]
    inputs["opts"] = (*inputs["opts"], "grpc=true", "translate=true")
    request = _request(**inputs, quiet=True)
    _, files = _run(request)
    try:
        name, a2a = served_package(files)
        if not a2a:
            raise GatewayError(
                f"{target} is an A2A agent, and {name} has no A2A service: give the"
                " A2A proto (or none, for the embedded default)"
            )
        agent_card, interfaces = fetch_card(target)
        card = load_card(card_path) if card_path is not None else agent_card
    except GatewayError as exc:
        raise CliError(str(exc)) from exc
    served_card = {k: v for k, v in card.items() if k not in _V0_3_ONLY_FIELDS}
    with package_folder() as folder:
        try:
            package = load_package(
                request, files, from_module=from_module, folder=folder
            )
            version = package.grpc_binding.PROTOCOL_VERSION
            chosen = pick_interface(
                interfaces,
                package_version=version,
                binding=target_binding,
                where=f"the agent card of {target}",
            )
        except GatewayError as exc:
            raise CliError(str(exc)) from exc
        jsonrpc = jsonrpc_path or "/"

        def interfaces_at(base_url: str) -> list[dict[str, Any]]:
            return gateway_interfaces(
                public_url or base_url,
                jsonrpc_path=jsonrpc,
                http_json_prefix=http_json_prefix,
                version=version,
                grpc_port=grpc_port,
            )

        assert package.http_backend is not None  # translate=true writes it
        backend_class = fronted(
            package.http_backend.Backend, interfaces_at, f"http://{host}:{port}"
        )
        backend: dict[str, Any] = {
            **chosen.backend(version),
            "timeout": timeout,
            "expose_errors": expose_errors,
        }
        if forward_headers:
            backend["forward_headers"] = forward_headers
        versions = (version, "0.3") if f"{name}/v0_3/routes.py" in files else (version,)
        app = HttpGateway(
            lambda: backend_class(chosen.url, **backend),
            lambda handler: package.asgi.create_app(
                handler,
                agent_card=lambda base: {
                    **served_card,
                    "supportedInterfaces": interfaces_at(base),
                },
                http_json_prefix=http_json_prefix,
                jsonrpc_path=jsonrpc,
                supported_versions=versions,
                expose_errors=expose_errors,
            ),
            grpc=(
                GrpcListener(package.grpc_binding.add_to_server, f"{host}:{grpc_port}")
                if grpc_port is not None
                else None
            ),
        )
        grpc_note = f" and gRPC on {host}:{grpc_port}" if grpc_port is not None else ""
        click.echo(
            f"a2a-codegen: gateway on http://{host}:{port}{grpc_note} in front of"
            f" {chosen.url} ({chosen.binding} {chosen.version or version}; package in"
            f" {folder}, removed on exit)",
            err=True,
        )
        uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")


def _grpc_gateway(
    target: str,
    card_path: str | None,
    host: str,
    port: int,
    public_url: str | None,
    http_json_prefix: str,
    jsonrpc_path: str | None,
    forward_headers: tuple[str, ...],
    timeout: float | None,
    expose_errors: bool,
    **inputs: Any,
) -> None:
    """``gateway`` in front of the gRPC service at ``target``."""
    import uvicorn

    from .gateway import (
        Gateway,
        GatewayError,
        card_rewriter,
        load_card,
        load_package,
        package_folder,
        served_package,
    )
    from .runtime._grpc import check_forward_headers  # grpcio: grpcio-tools needs it

    check: Callable[[tuple[str, ...]], object] = check_forward_headers
    try:  # the package's Backend checks them again when the server starts
        check(forward_headers)
    except ValueError as exc:
        raise CliError(f"--forward-header: {exc}") from None
    from_module = not inputs["protos"] and not inputs["descriptor_set"]
    inputs["opts"] = (*inputs["opts"], "grpc=true")
    request = _request(**inputs, quiet=True)
    _, files = _run(request)
    try:
        name, a2a = served_package(files)
    except GatewayError as exc:
        raise CliError(str(exc)) from exc
    if a2a and card_path is None:
        raise CliError(
            f"{name} is an A2A service: give its agent card with --card FILE "
            "(ProtoJSON), which the gateway serves"
        )
    if not a2a and (card_path is not None or public_url is not None):
        option = "--card" if card_path is not None else "--public-url"
        raise CliError(
            f"{option} is for an A2A service's agent card; {name} has no A2A "
            f"profile, so no card is served: drop {option}"
        )
    try:
        card = load_card(card_path) if card_path is not None else None
    except GatewayError as exc:
        raise CliError(str(exc)) from exc
    if jsonrpc_path is None and a2a:
        jsonrpc_path = "/"
    backend: dict[str, Any] = {"timeout": timeout, "expose_errors": expose_errors}
    if forward_headers:
        backend["forward_headers"] = forward_headers
    with package_folder() as folder:
        try:
            package = load_package(
                request, files, from_module=from_module, folder=folder
            )
        except GatewayError as exc:
            raise CliError(str(exc)) from exc
        asgi, grpc_binding = package.asgi, package.grpc_binding
        served_app: dict[str, Any] = {
            "http_json_prefix": http_json_prefix,
            "jsonrpc_path": jsonrpc_path,
            "expose_errors": expose_errors,
        }
        if card is not None:
            served = [("JSONRPC", jsonrpc_path)] if jsonrpc_path else []
            served += [("HTTP+JSON", http_json_prefix)]
            version = grpc_binding.PROTOCOL_VERSION
            served_app["agent_card"] = card_rewriter(card, served, version, public_url)
        app = Gateway(
            target,
            lambda channel: asgi.create_app(
                grpc_binding.Backend(channel, **backend), **served_app
            ),
        )
        click.echo(
            f"a2a-codegen: gateway on http://{host}:{port} in front of {target}"
            f" ({name}{', A2A' if a2a else ''}; package in {folder}, removed on exit)",
            err=True,
        )
        uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")

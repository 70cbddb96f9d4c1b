"""The A2A 0.3 proto as a second input (plugin option ``v0_3_proto``, CLI ``--v0-3``):
its tables in the ``v0_3`` subpackage beside the 1.0 ones, read back against the http
rules of the proto (through protobuf, not the generator), and refused clearly, with no
file written, when the inputs do not fit."""

from __future__ import annotations

import dataclasses
import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor_pb2

from codegen.inputs import (
    V0_3_MODULE,
    InputError,
    include_paths,
    request_from_module,
    request_from_protos,
    with_v0_3,
)
from codegen.options import OptionError, Options
from codegen.plugin import generate

from .conftest import GENERATED, PROTO, plugin_executable, spec_proto
from .sdk_protos import descriptor, proto_source

V0_3_FILES = ["__init__.py", "messages.py", "query.py", "routes.py"]


@pytest.fixture(scope="module")
def sdk_spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder laid out as the spec's: ``v1.0/a2a.proto`` and ``v0.3/a2a.proto``, the
    A2A protos a2a-sdk ships (tests/sdk_protos.py), one ``-I`` above both."""
    spec = tmp_path_factory.mktemp("spec")
    for folder, version in (("v1.0", "1.0"), ("v0.3", "0.3")):
        (spec / folder).mkdir()
        (spec / folder / "a2a.proto").write_text(proto_source(descriptor(version)))
    return spec


def _protoc(
    spec: Path, out: Path, *names: str, opt: str
) -> subprocess.CompletedProcess[str]:
    out.mkdir(parents=True, exist_ok=True)
    args = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"-I{spec}",
        *[f"-I{p}" for p in include_paths()],
    ]
    args += [
        f"--plugin=protoc-gen-a2a={plugin_executable()}",
        f"--a2a_out={out}",
        f"--a2a_opt={opt}",
        *names,
    ]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def _own(name: str) -> bool:
    return name == "a2a_binding" or name.startswith("a2a_binding.")


def _import(root: Path, name: str) -> ModuleType:
    """``name`` imported from ``root``; the ``a2a_binding`` modules loaded before (the
    committed package other tests hold) are put back afterwards."""
    saved = {m: module for m, module in sys.modules.items() if _own(m)}
    sys.path.insert(0, str(root))
    try:
        for loaded in saved:
            del sys.modules[loaded]
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(root))
        for loaded in [m for m in sys.modules if _own(m)]:
            del sys.modules[loaded]
        sys.modules.update(saved)


def _http_rules(file: descriptor_pb2.FileDescriptorProto) -> set[tuple[str, str, str]]:
    """(rpc, VERB, template) of every http rule, additional bindings included."""
    rules = set()
    for service in file.service:
        for method in service.method:
            rule = method.options.Extensions[annotations_pb2.http]
            for one in [rule, *rule.additional_bindings]:
                verb = one.WhichOneof("pattern")
                assert verb and verb != "custom"
                rules.add((method.name, verb.upper(), getattr(one, verb)))
    return rules


def test_protoc_writes_the_0_3_tables_beside_the_1_0_package(
    tmp_path: Path, sdk_spec: Path
) -> None:
    result = _protoc(
        sdk_spec,
        tmp_path,
        "v1.0/a2a.proto",
        "v0.3/a2a.proto",
        opt="v0_3_proto=v0.3/a2a.proto,serve=true",
    )
    assert result.returncode == 0, result.stderr
    package = tmp_path / "a2a_binding"
    assert sorted(p.name for p in (package / "v0_3").iterdir()) == V0_3_FILES
    assert (package / "routes.py").is_file() and (package / "_v0_3.py").is_file()
    assert not (tmp_path / "a2a_binding" / "v0_3" / "jsonrpc.py").exists()
    # The 1.0 tables are what a run without the option writes; the application
    # serves the 0.3 routes besides, and the package's docstring lists them.
    alone = _protoc(
        sdk_spec,
        tmp_path / "alone",
        "v1.0/a2a.proto",
        opt="module=a2a_binding,serve=true",
    )
    assert alone.returncode == 0, alone.stderr
    for path in (tmp_path / "alone" / "a2a_binding").iterdir():
        if path.name not in ("protocol.py", "asgi.py", "__init__.py"):
            assert (package / path.name).read_text() == path.read_text(), path.name
    serving = "v0_3=V0_3Serving(routes_v0_3.TABLE)"
    assert serving in (package / "asgi.py").read_text()
    assert serving not in (tmp_path / "alone" / "a2a_binding" / "asgi.py").read_text()
    assert "    v0_3: " in (package / "__init__.py").read_text()
    assert (
        "    v0_3: "
        not in (tmp_path / "alone" / "a2a_binding" / "__init__.py").read_text()
    )
    routes = _import(tmp_path, "a2a_binding.v0_3.routes")
    # The route table is the proto's http rules (the POST alias on :subscribe besides,
    # which the A2A profile adds as for 1.0).
    file = descriptor_pb2.FileDescriptorProto()
    request = request_from_protos([str(sdk_spec / "v0.3" / "a2a.proto")])
    file.CopyFrom(next(f for f in request.proto_file if f.name == "a2a.proto"))
    table = {(r.rpc, r.verb, r.template) for r in routes.ROUTES if not r.alias}
    assert table == _http_rules(file)
    assert [(r.rpc, r.verb) for r in routes.ROUTES if r.alias] == [
        ("TaskSubscription", "POST")
    ]
    built = routes.build("GetTask", {"name": "tasks/t-1", "historyLength": 2})
    assert (built.verb, built.path, built.query) == (
        "GET",
        "/v1/tasks/t-1",
        [("historyLength", "2")],
    )
    assert ("A2A-Version", "0.3") in built.headers
    # a2a-sdk's copy says tasks/* here (v0.3.0 as tagged says task/*: see below).
    matched = routes.match("POST", "/v1/tasks/t-1/pushNotificationConfigs")
    assert matched.route.rpc == "CreateTaskPushNotificationConfig"
    assert matched.params == {"parent": "tasks/t-1/pushNotificationConfigs"}
    assert routes.match("POST", "/v1/task/t-1/pushNotificationConfigs") is None


def test_the_embedded_0_3_input_is_the_v0_3_0_proto_fixed_and_grown(
    tmp_path: Path,
) -> None:
    """a2a-sdk's a2a_v0_3.proto (the embedded 0.3 input, which make generate uses) is
    v0.3.0 with the route of CreateTaskPushNotificationConfig fixed (v0.3.0 says
    ``task/*``, a2a-sdk ``tasks/*``, as its 0.3 REST clients send and the other routes
    say) and three fields the 0.3 line added later."""
    spec = spec_proto("v0.3.0")
    request = request_from_protos([str(spec)], [str(spec.parent.parent)])
    from_spec = generate(with_v0_3(request_from_module(), request))
    embedded = generate(
        with_v0_3(request_from_module(), request_from_module(V0_3_MODULE))
    )
    assert not from_spec.error and not embedded.error
    tables = []
    for response, root in (
        (from_spec, tmp_path / "spec"),
        (embedded, tmp_path / "embedded"),
    ):
        for file in response.file:
            (root / file.name).parent.mkdir(parents=True, exist_ok=True)
            (root / file.name).write_text(file.content)
        routes = _import(root, "a2a_binding.v0_3.routes")
        messages = _import(root, "a2a_binding.v0_3.messages")
        shapes = {}
        for name in messages.__all__:
            value = getattr(messages, name)
            fields = getattr(value, "__annotations__", None)
            shapes[name] = (
                {k: getattr(v, "__forward_arg__", v) for k, v in fields.items()}
                if fields
                else repr(value)
            )
        rows = [dataclasses.astuple(r) for r in routes.ROUTES]
        tables.append(
            (
                [
                    tuple(
                        str(v)
                        .replace("{parent=task/*/", "{parent=tasks/*/")
                        .replace("'task', '*', 'push", "'tasks', '*', 'push")
                        for v in row
                    )
                    for row in rows
                ],
                shapes,
                [
                    line
                    for line in (root / "a2a_binding/v0_3/query.py")
                    .read_text()
                    .splitlines()
                    if not line.startswith("#")
                ],
            )
        )
    (spec_routes, spec_shapes, spec_query), (sdk_routes, sdk_shapes, sdk_query) = tables
    assert spec_routes == sdk_routes and spec_query == sdk_query
    assert spec_shapes.keys() == sdk_shapes.keys()
    added = set()
    for name, shape in spec_shapes.items():
        if isinstance(shape, dict):
            assert shape.items() <= sdk_shapes[name].items(), name
            added |= {
                f"{name}.{field}" for field in sdk_shapes[name].keys() - shape.keys()
            }
        elif not shape.startswith("<"):  # a Literal of enum values; not SCHEMA's object
            assert shape == sdk_shapes[name], name
    # Fields the 0.3 line gained after v0.3.0 (a2a-sdk 0.3.26's types have them).
    assert added == {"AgentCard.iconUrl", "FilePart.name", "Part.metadata"}
    assert (
        sum(
            "{parent=task/*/" in r.template
            for r in _import(tmp_path / "spec", "a2a_binding.v0_3.routes").ROUTES
        )
        == 1
    )


def test_committed_v0_3_package_is_what_make_generate_writes() -> None:
    response = generate(
        with_v0_3(request_from_module(), request_from_module(V0_3_MODULE))
    )
    written = {
        f.name: f.content
        for f in response.file
        if f.name.startswith("a2a_binding/v0_3/")
    }
    assert sorted(written) == [f"a2a_binding/v0_3/{n}" for n in V0_3_FILES]
    for name, content in written.items():
        assert (GENERATED / name).read_text() == content, name


@pytest.mark.parametrize(
    ("names", "opt", "message"),
    [
        (
            ["v1.0/a2a.proto"],
            "v0_3_proto=v0.3/a2a.proto",
            "option v0_3_proto=v0.3/a2a.proto: no such file to generate (the files are: v1.0/a2a.proto)",
        ),
        (
            ["v0.3/a2a.proto"],
            "v0_3_proto=v0.3/a2a.proto",
            "the other files make 0 (none)",
        ),
        (
            ["v1.0/a2a.proto", "v0.3/a2a.proto"],
            "v0_3_proto=",
            "option v0_3_proto= needs a proto file name",
        ),
    ],
)
def test_refused_runs_write_nothing(
    tmp_path: Path, sdk_spec: Path, names: list[str], opt: str, message: str
) -> None:
    result = _protoc(sdk_spec, tmp_path, *names, opt=opt)
    assert result.returncode != 0
    assert message in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_0_3_file_without_an_a2a_service_is_refused(tmp_path: Path) -> None:
    plain = PROTO / "features" / "library.proto"
    if not plain.is_file():
        plain = next(
            p
            for p in sorted((PROTO / "features").glob("*.proto"))
            if "A2AService" not in p.read_text()
        )
    request = with_v0_3(request_from_module(), request_from_protos([str(plain)]))
    response = generate(request)
    assert (
        f"option v0_3_proto={plain.name}: the file has no A2A service" in response.error
    )
    assert not response.file


def test_the_0_3_tables_need_exactly_one_a2a_package(sdk_a2a: Path) -> None:
    spec = sdk_a2a
    library = PROTO / "features" / "library.proto"
    two = request_from_protos([str(spec), str(library)], parameter="profile=a2a")
    response = generate(with_v0_3(two, request_from_module(V0_3_MODULE)))
    assert (
        "the 0.3 tables go beside exactly one A2A package, and the other files make 2"
        in response.error
    )
    assert not response.file


def test_with_v0_3_refuses_what_cannot_be_one_request() -> None:
    one = request_from_module()
    with pytest.raises(InputError, match="both named 'a2a.proto'"):
        with_v0_3(one, request_from_module())
    twice = request_from_module(V0_3_MODULE)
    twice.file_to_generate.append("google/api/http.proto")
    with pytest.raises(InputError, match="must be one proto file, not 2"):
        with_v0_3(one, twice)
    merged = with_v0_3(one, request_from_module(V0_3_MODULE))
    names = [f.name for f in merged.proto_file]
    assert len(names) == len(set(names)) and names[-1] == "a2a_v0_3.proto"
    assert list(merged.file_to_generate) == ["a2a.proto", "a2a_v0_3.proto"]
    assert merged.parameter == "v0_3_proto=a2a_v0_3.proto"


def test_the_option_round_trips() -> None:
    options = Options.parse("v0_3_proto=v0.3.0/a2a.proto")
    assert options.v0_3_proto == "v0.3.0/a2a.proto"
    assert Options.parse(options.to_parameter()) == options
    with pytest.raises(OptionError, match="needs a proto file name"):
        Options.parse("v0_3_proto=")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_generate_and_check_with_two_proto_files(
    tmp_path: Path, sdk_spec: Path
) -> None:
    spec = sdk_spec
    out = tmp_path / "out"
    args = [
        str(spec / "v1.0" / "a2a.proto"),
        "-I",
        str(spec),
        "--v0-3",
        str(spec / "v0.3" / "a2a.proto"),
    ]
    written = _cli("generate", *args, "-o", str(out))
    assert written.returncode == 0, written.stderr
    assert (
        sorted(p.name for p in (out / "a2a_binding" / "v0_3").iterdir()) == V0_3_FILES
    )
    assert "v0.3/a2a.proto" in (out / "a2a_binding" / "v0_3" / "routes.py").read_text()
    assert _cli("check", *args, "-o", str(out)).returncode == 0
    listed = _cli("routes", *args)
    assert listed.returncode == 0, listed.stderr
    assert "a2a_binding (v0.3/a2a.proto): 11 routes" in listed.stdout
    assert "POST    /v1/message:send  SendMessage" in listed.stdout
    (out / "a2a_binding" / "v0_3" / "query.py").unlink()
    stale = _cli("check", *args, "-o", str(out))
    assert stale.returncode == 1
    assert "a2a_binding/v0_3/query.py: missing" in stale.stderr
    # Without -I above both folders both files are named a2a.proto: a clear refusal.
    clash = _cli(
        "generate",
        str(spec / "v1.0" / "a2a.proto"),
        "--v0-3",
        str(spec / "v0.3" / "a2a.proto"),
        "-o",
        str(tmp_path / "clash"),
    )
    assert clash.returncode == 1
    assert "the 0.3 proto and the input are both named 'a2a.proto'" in clash.stderr
    assert not (tmp_path / "clash").exists()
    missing = _cli(
        "generate", "--v0-3", "no/such.proto", "-o", str(tmp_path / "missing")
    )
    assert missing.returncode == 1 and "no/such.proto: no such file" in missing.stderr

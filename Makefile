# Every target bootstraps .venv on a fresh machine; nothing outside it is needed but python3.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# a2a-sdk 0.3.26 (the 0.3 peer of the tests) cannot share a venv with 1.3.0.
VENV_V0_3 := .venv-v0_3
STAMP_V0_3 := $(VENV_V0_3)/.installed

.PHONY: generate test docs bench bench-hostile fuzz fuzz-generator clean conformance

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(STAMP_V0_3): Makefile
	test -x $(VENV_V0_3)/bin/python || $(PYTHON) -m venv $(VENV_V0_3)
	$(VENV_V0_3)/bin/python -m pip install --quiet 'a2a-sdk[http-server]==0.3.26' 'uvicorn'
	touch $(STAMP_V0_3)

generate: $(STAMP)
	$(VENV)/bin/a2a-codegen generate -o generated --module a2a_binding --opt serve=true --opt client=true --opt grpc=true --opt translate=true --opt openapi=true --v0-3 a2a.compat.v0_3.a2a_v0_3_pb2 --print-routes

# The runtime's own tests first, under coverage.py (at least 95 % of codegen/runtime/),
# then everything else, on TEST_WORKERS processes (pytest-xdist; 1 runs them in one).
TEST_WORKERS ?= 2
test: $(STAMP) $(STAMP_V0_3)
	$(PY) -m coverage run --branch --include='codegen/runtime/*' -m pytest -q -p no:cacheprovider tests/runtime
	$(PY) -m coverage report --fail-under=95 --skip-covered --show-missing
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --ignore=tests/runtime

# The documentation site (docs/, mkdocs.yml) into site/, with --strict: a broken link or
# anchor, or a page not in the nav, fails. make test builds it too (tests/test_docs.py).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

clean:
	rm -rf $(VENV) $(VENV_V0_3) build dist site

# Speed against the peers, measured in one run (ratios printed): the tables and generation
# (bench.py); the binding alone, the generated ASGI app against a2a-sdk's routes and a
# hand-written floor app, each over a trivial handler, in process and under uvicorn on
# 127.0.0.1 (bench_serving.py, about 1.5 minutes); the gRPC binding against a2a-sdk's
# GrpcHandler and a hand-written floor over loopback (bench_grpc.py, half a minute, and
# two more for its instruction counts where valgrind is installed); the
# gateway's cost per call against calling a2a-sdk's gRPC agent directly and a2a-sdk's
# REST server over it (bench_gateway.py, about half a minute); the gateway in front of
# a2a-sdk's REST server against the app alone plus a direct call to that server
# (bench_gateway_http.py, about half a minute); one 4 MiB request through
# the app and the gateway, and how long other clients wait meanwhile (bench_large.py,
# half a minute).
bench: $(STAMP)
	$(PY) bench/bench.py
	$(PY) bench/bench_serving.py
	$(PY) bench/bench_grpc.py
	$(PY) bench/bench_gateway.py
	$(PY) bench/bench_gateway_http.py
	$(PY) bench/bench_large.py

# Generation on hostile inputs (large comments, deep nesting, many rpcs): about 6 minutes.
bench-hostile: $(STAMP)
	$(PY) bench/bench_hostile.py

# Coverage-guided fuzzing of the generated code; FUZZ_SECONDS=600 for the full run.
# First the request validator against protobuf's own parser at 20x the examples of
# make test (VALIDATION_EXAMPLES scales them).
FUZZ_SECONDS ?= 60
VALIDATION_EXAMPLES ?= 20
fuzz: $(STAMP)
	VALIDATION_EXAMPLES=$(VALIDATION_EXAMPLES) $(PY) -m pytest -q -p no:cacheprovider -n 2 tests/test_validation_oracle.py
	$(PY) -m pip install --quiet 'atheris==3.0.0'
	mkdir -p .fuzz/corpus .fuzz/crashes
	$(PY) fuzz/fuzz_generated.py .fuzz/corpus -dict=fuzz/a2a.dict -max_total_time=$(FUZZ_SECONDS) \
		-rss_limit_mb=4096 -artifact_prefix=.fuzz/crashes/ -print_final_stats=1

# The generator itself under atheris: random names, comments, templates and file names
# through the plugin; the output must compile and import without side effects.
fuzz-generator: $(STAMP)
	$(PY) -m pip install --quiet 'atheris==3.0.0'
	mkdir -p .fuzz/generator-corpus .fuzz/crashes
	$(PY) fuzz/fuzz_generator.py .fuzz/generator-corpus -max_len=1024 -len_control=0 \
		-max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -artifact_prefix=.fuzz/crashes/generator- -print_final_stats=1

# The official A2A conformance kit (../shared/a2a-tck) against examples/a2a_server.py over
# JSON-RPC, HTTP+JSON and gRPC, and its transport-equivalence category over the three;
# fails on a failure not in conformance/expected_failures.json.
# Then the kit over JSON-RPC and HTTP+JSON against a2a-sdk's gRPC agent behind the gateway
# (conformance/gateway_agent.py; its list: conformance/expected_failures_gateway.json).
# Last, the kit's 0.3 branch (../shared/a2a-tck-v0.3) against the example's 0.3 side over
# JSON-RPC and HTTP+JSON (the example serves no 0.3 gRPC), and its transport-equivalence
# category over the two; its list: conformance/expected_failures_v0_3.json. About a minute.
# Its venv is cached in .conformance/ (ignored by git). About four minutes in all.
conformance: $(STAMP)
	$(PY) conformance/run.py --categories mandatory,capabilities,quality,features,transport-equivalence --transports jsonrpc,rest,grpc
	$(PY) conformance/run.py --target gateway --categories mandatory,capabilities,quality,features --transports jsonrpc,rest
	$(PY) conformance/run.py --kit 0.3 --categories mandatory,capabilities,quality,features,transport-equivalence --transports jsonrpc,rest

# Every target bootstraps .venv on a fresh machine; nothing outside it is needed but python3.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: generate test bench fuzz clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

generate: $(STAMP)
	$(VENV)/bin/a2a-codegen generate -o generated --module a2a_binding --print-routes

test: $(STAMP)
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) build dist

bench: $(STAMP)
	$(PY) bench/bench.py

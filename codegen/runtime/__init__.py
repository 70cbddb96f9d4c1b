"""The code every generated package runs, as real Python.

Each ``_*.py`` module here is standard-library only, mypy-strict and black-clean, and is
copied unchanged (under the generated header) into every generated package that needs it,
where the public modules (``routes.py``, ``query.py``, ``jsonrpc.py``, ...) hold the
tables it reads. Modules here import each other relatively (``from ._query import ...``)
so the same text works in this repository and inside a generated package. This
``__init__`` is not shipped.
"""

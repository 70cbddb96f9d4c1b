"""The code every generated package runs, as real Python.

Each ``_*.py`` module here is standard-library only, mypy-strict and black-clean, and is
copied unchanged (under the generated header) into every generated package that needs it,
where the public modules (``routes.py``, ``query.py``, ``jsonrpc.py``, ...) hold the
tables it reads. The modules are laid out by layer, one folder each, and a package
carries the folders of its layers whole, side by side in its own folder:

- ``tables/``: matching, building and transcoding routes, the query codecs, JSON-RPC
  envelopes, the JSON encoder, request validation (every package);
- ``errors/``: A2A's error table (the tables of an A2A service re-export it; serving
  and calling use it for any service);
- ``wire/``: what both ends of a call share: headers and service parameters, media
  types, failures and their statuses, deadlines and cancellation, caching rules, the
  event-stream reader (with serving or calling);
- ``serve/``: the ASGI application and the A2A serving rules (option ``serve``);
- ``client/``: the client helpers (option ``client``);
- ``grpc/``: the gRPC binding (option ``grpc``);
- ``translate/``: the HTTP backends, a handler answered by an A2A agent over HTTP
  (option ``translate``; the one layer that needs httpx);
- ``v0_3/``: A2A 0.3 beside 1.0 (with calling, or serving an A2A service).

Modules import each other relatively (``from ._query import ...``) as if in one folder,
so the same text works in a generated package, and here: this package's ``__path__``
lists the layer folders, so ``codegen.runtime._paths`` is ``tables/_paths.py``. This
``__init__`` is not shipped.
"""

from pathlib import Path

LAYERS = ("tables", "errors", "wire", "v0_3", "serve", "client", "grpc", "translate")
"""The layer folders, each depending on those before it only."""

__path__ += [str(Path(__file__).with_name(layer)) for layer in LAYERS]

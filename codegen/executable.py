"""The ``protoc-gen-a2a`` executable: ``plugin.main`` in a process made for one short run.

protoc starts the plugin once per generation, so most of a run is Python starting up,
importing and tearing down rather than generating. Two things shorten it without
changing a byte of what it writes:

- The cycle collector is paused while the generator's modules load: imports allocate
  many long-lived objects, which trigger collections that free nothing. Those objects
  are then frozen out of later collections and the collector runs again as usual, so a
  large proto does not grow memory without bound.
- Once the response is written and flushed, the process ends with ``os._exit`` instead
  of freeing every object of the model one by one (mypy ends its runs the same way).
  Only a normal return ends so: a usage error or a generator bug leaves through the
  interpreter's usual exit, with its status and traceback.

Tests and other code call ``plugin.main`` or ``plugin.generate``, never this.
"""

from __future__ import annotations

import gc
import os
import sys

__all__ = ["main"]


def main() -> None:
    """Run the plugin on stdin and stdout, then end the process at once."""
    gc.disable()
    try:
        from . import plugin
    finally:
        gc.freeze()
        gc.enable()
    plugin.main()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:  # None: the stream was closed when the process started
            stream.flush()
    os._exit(0)

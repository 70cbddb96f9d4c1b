"""``python -m protoc_gen_a2a`` (``python -m codegen`` in a checkout) runs ``a2a-codegen``."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    main()

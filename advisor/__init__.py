"""advisor: a terminal knowledge base and decision assistant for renting and orchestrating GPUs.

The package root imports nothing heavy, so `advisor ask` pays only for what it uses.
"""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("advisor")
        except PackageNotFoundError:  # running from a source tree that was never installed
            return "0.0.0+source"
    raise AttributeError(name)

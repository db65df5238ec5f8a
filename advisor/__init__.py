"""advisor: a terminal knowledge base and decision assistant for renting and orchestrating GPUs.

The package root imports nothing heavy, so `advisor ask` pays only for what it uses. The version
is written here, and pyproject reads it from here (`[tool.hatch.version]`): asking
`importlib.metadata` would cost `advisor --version` three times the rest of its run.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"

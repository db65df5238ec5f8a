"""Where advisor's data, cache and configuration live.

The bundled knowledge and trees are package data in an installed wheel (mapped there by
pyproject's force-include) and top-level folders in a source checkout; both are found here so
that no other module needs to know which case it is in.
"""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _bundled(folder: str) -> Path:
    inside = _PACKAGE_DIR / folder
    if inside.is_dir():
        return inside
    return _PACKAGE_DIR.parent / folder


def bundled_knowledge_dir() -> Path:
    return _bundled("knowledge")


def bundled_trees_dir() -> Path:
    return _bundled("decision_trees")


def knowledge_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The knowledge folder: `--kb`, else `ADVISOR_KB`, else the bundled one."""
    chosen = override or os.environ.get("ADVISOR_KB")
    return Path(chosen).expanduser() if chosen else bundled_knowledge_dir()


def cache_dir() -> Path:
    """`ADVISOR_CACHE_DIR`, else the platform's user cache folder."""
    chosen = os.environ.get("ADVISOR_CACHE_DIR")
    if chosen:
        return Path(chosen).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("advisor", appauthor=False))


def config_dir() -> Path:
    """`ADVISOR_CONFIG_DIR`, else the platform's user config folder."""
    chosen = os.environ.get("ADVISOR_CONFIG_DIR")
    if chosen:
        return Path(chosen).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("advisor", appauthor=False))

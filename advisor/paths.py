"""Where advisor's data, cache and configuration live.

The bundled knowledge and trees are package data in an installed wheel (mapped there by
pyproject's force-include) and top-level folders in a source checkout; both are found here so
that no other module needs to know which case it is in. The `*_root` functions return strings
and use `os.path`: `advisor ask` needs only them, and importing pathlib would cost it about 5 ms.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from pathlib import Path

_PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))


def _bundled(folder: str) -> str:
    inside = os.path.join(_PACKAGE_DIR, "data", folder)
    if os.path.isdir(inside):
        return inside
    return os.path.join(os.path.dirname(_PACKAGE_DIR), folder)


def _path(text: str) -> Path:
    from pathlib import Path

    return Path(text)


def bundled_knowledge_dir() -> Path:
    return _path(_bundled("knowledge"))


def bundled_trees_dir() -> Path:
    return _path(bundled_trees_root())


def bundled_trees_root() -> str:
    """The bundled decision trees' folder, as a string (no pathlib for `advisor recommend`)."""
    return _bundled("decision_trees")


# The decision tree every command uses unless given another.
BUNDLED_TREE = "gpu-orchestration.yaml"


def knowledge_root(override: str | os.PathLike[str] | None = None) -> str:
    """The knowledge folder: `--kb`, else `ADVISOR_KB`, else the bundled one."""
    chosen = override or os.environ.get("ADVISOR_KB")
    return os.path.expanduser(os.fspath(chosen)) if chosen else _bundled("knowledge")


def knowledge_dir(override: str | os.PathLike[str] | None = None) -> Path:
    return _path(knowledge_root(override))


def cache_root() -> str:
    """`ADVISOR_CACHE_DIR`, else the platform's user cache folder.

    On Linux that folder is `$XDG_CACHE_HOME/advisor` (an absolute `XDG_CACHE_HOME` only, as the
    XDG spec says), else `~/.cache/advisor`: worked out here because importing platformdirs costs
    every command about 12 ms, a quarter of `advisor ask`. Elsewhere platformdirs knows best.
    """
    return _user_folder("ADVISOR_CACHE_DIR", "XDG_CACHE_HOME", "~/.cache", "user_cache_dir")


def config_root() -> str:
    """`ADVISOR_CONFIG_DIR`, else the platform's user config folder (on Linux
    `$XDG_CONFIG_HOME/advisor` or `~/.config/advisor`, found as `cache_root` finds its folder)."""
    return _user_folder("ADVISOR_CONFIG_DIR", "XDG_CONFIG_HOME", "~/.config", "user_config_dir")


def config_dir() -> Path:
    return _path(config_root())


def _user_folder(override: str, xdg_variable: str, xdg_default: str, platformdirs_function: str) -> str:
    chosen = os.environ.get(override)
    if chosen:
        return os.path.expanduser(chosen)
    if sys.platform.startswith("linux"):
        xdg = os.environ.get(xdg_variable, "")
        base = xdg if os.path.isabs(xdg) else os.path.expanduser(xdg_default)
        if os.path.isabs(base):
            return os.path.join(base, "advisor")
    import platformdirs

    return str(getattr(platformdirs, platformdirs_function)("advisor", appauthor=False))

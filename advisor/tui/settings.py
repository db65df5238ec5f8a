"""The TUI's remembered preferences (language and theme), kept as JSON in the config folder.

Plain data and file I/O only, no Textual: the app reads them once at start-up and writes them
when the user changes language or theme. A missing, unreadable or hand-mangled file is never an
error; the defaults win and the next save repairs it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from advisor.files import atomic_write
from advisor.i18n import LANGUAGES
from advisor.problems import OutputError

SETTINGS_FILE = "tui-settings.json"


@dataclass(frozen=True)
class Settings:
    """What the app remembers between runs.

    Attributes:
        lang: Interface language, one of `advisor.knowledge.entry.LANGUAGES`.
        theme: Name of the Textual theme, or "" for Textual's default.
    """

    lang: str = "en"
    theme: str = ""


def settings_path(folder: Path | None = None) -> Path:
    """Where the settings live: `folder`, else the user's config folder."""
    if folder is None:
        from advisor.paths import config_dir

        folder = config_dir()
    return folder / SETTINGS_FILE


def load_settings(path: Path, default_lang: str = "en") -> Settings:
    """Settings read from `path`; anything missing or invalid falls back to the defaults."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        raw = {}
    if not isinstance(raw, dict):
        raw = {}
    lang = raw.get("lang")
    theme = raw.get("theme")
    return Settings(
        lang=lang if lang in LANGUAGES else default_lang,
        theme=theme if isinstance(theme, str) else "",
    )


def save_settings(path: Path, settings: Settings) -> bool:
    """Write `settings` atomically. Returns False (and changes nothing) when the folder is not writable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(asdict(settings), ensure_ascii=False, indent=2) + "\n", force=True)
    except (OSError, OutputError):
        return False
    return True

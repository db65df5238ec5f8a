"""The TUI's remembered preferences (language and theme), kept as JSON in the config folder.

Plain data and file I/O only, no Textual: the app reads them once at start-up and writes them
when the user changes language or theme. A missing setting or a value of the wrong kind is never
an error: the defaults win and the next save repairs it. A file that is not JSON at all (or not a
regular file, or absurdly large or nested) is moved aside, so the app can say so and the next
save does not destroy what the user may want to look at.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from advisor.files import atomic_write, move_aside, read_text
from advisor.i18n import LANGUAGES
from advisor.problems import OutputError

SETTINGS_FILE = "tui-settings.json"
# Two short strings; anything much bigger is not a settings file.
MAX_SETTINGS_BYTES = 64_000


@dataclass(frozen=True)
class Settings:
    """What the app remembers between runs.

    Attributes:
        lang: Interface language, one of `advisor.knowledge.entry.LANGUAGES`.
        theme: Name of the Textual theme, or "" for Textual's default.
    """

    lang: str = "en"
    theme: str = ""


@dataclass(frozen=True)
class LoadedSettings:
    """What `load_settings` found.

    Attributes:
        settings: The settings to use (the defaults where the file had nothing usable).
        moved_to: Where an unreadable file was moved, when it was.
        problem: Why the file was unreadable.
    """

    settings: Settings
    moved_to: Path | None = None
    problem: str | None = None


def settings_path(folder: Path | None = None) -> Path:
    """Where the settings live: `folder`, else the user's config folder."""
    if folder is None:
        from advisor.paths import config_dir

        folder = config_dir()
    return folder / SETTINGS_FILE


def load_settings(path: Path, default_lang: str = "en") -> LoadedSettings:
    """Settings read from `path`; a missing or invalid value falls back to its default, and an
    unreadable file to all of them (moved aside, with the reason)."""
    defaults = Settings(lang=default_lang)
    if not os.path.lexists(path):
        return LoadedSettings(defaults)
    try:
        raw = json.loads(read_text(path, MAX_SETTINGS_BYTES))
        if not isinstance(raw, dict):
            raise ValueError("expected a JSON object")
    except (ValueError, RecursionError) as error:  # RecursionError: json on deep nesting
        problem = "nested too deeply" if isinstance(error, RecursionError) else str(error).removeprefix("cannot read file: ")
        aside = move_aside(path)
        return LoadedSettings(defaults, Path(aside) if aside else None, problem)
    lang = raw.get("lang")
    theme = raw.get("theme")
    return LoadedSettings(Settings(lang=lang if lang in LANGUAGES else default_lang, theme=theme if isinstance(theme, str) else ""))


def save_settings(path: Path, settings: Settings) -> bool:
    """Write `settings` atomically. Returns False (and changes nothing) when the folder is not writable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(asdict(settings), ensure_ascii=False, indent=2) + "\n", force=True)
    except (OSError, OutputError):
        return False
    return True

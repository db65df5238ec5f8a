"""Translating key-binding descriptions: ours are label keys, Textual's built-in ones are English.

Pure helpers (no Textual), used by the footer and the help screen so both say the same thing.
"""

from __future__ import annotations

import re

from advisor.i18n import labels, t


def binding_label(description: str, lang: str) -> str:
    """The text for a binding `description` in `lang`.

    Our bindings use label keys ("tui_key_help"). Textual's own ("palette", "Quit") are looked up
    as "tui_textual_<slug>" and shown unchanged when there is no such label.
    """
    if description.startswith("tui_"):
        return t(description, lang)
    key = "tui_textual_" + re.sub(r"[^a-z0-9]+", "_", description.lower()).strip("_")
    return labels(lang).get(key) or labels("en").get(key) or description


def key_display(key: str) -> str:
    """A binding's key written for people: "ctrl+q" → "Ctrl+Q", "question_mark" → "?"."""
    names = {"question_mark": "?", "escape": "Esc", "enter": "Enter", "up": "↑", "down": "↓", "left": "←", "right": "→",
             "tab": "Tab", "shift+tab": "Shift+Tab", "backspace": "Backspace", "space": "Space", "pageup": "PgUp",
             "pagedown": "PgDn", "home": "Home", "end": "End", "delete": "Del"}
    shown = []
    for one in key.split(","):
        one = one.strip()
        if one in names:
            shown.append(names[one])
            continue
        parts = one.split("+")
        if len(parts) == 1 and len(one) == 1:  # a plain letter is typed as shown: "e", not "E"
            shown.append(one)
            continue
        shown.append("+".join(names.get(part, part.upper() if len(part) == 1 else part.capitalize()) for part in parts))
    return " / ".join(shown)

"""The key reference (`?` or F1): every key of every screen, generated from their bindings."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from advisor.i18n import labels, t
from advisor.tui.key_labels import binding_label, key_display

HelpSection = tuple[str, list[tuple[str, str]]]
"""A section title label and its (key, description label) rows."""

KEY_COLUMN = 14


def describe(description: str, lang: str) -> str:
    """A binding's description for the help: the longer "tui_help_*" wording when there is one.

    The footer has room for "Guide"; the help can say "Start or continue the guided wizard".
    """
    if description.startswith("tui_key_"):
        longer = "tui_help_key_" + description.removeprefix("tui_key_")
        if labels("en").get(longer):
            return t(longer, lang)
    return binding_label(description, lang)


def help_rows(sections: list[HelpSection], lang: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Section titles with their (key as shown, what it does) rows, duplicates dropped."""
    out: list[tuple[str, list[tuple[str, str]]]] = []
    for title, rows in sections:
        seen: list[tuple[str, str]] = []
        for key, description in rows:
            shown, action = key_display(key), describe(description, lang)
            same = next((n for n, (_, known) in enumerate(seen) if known == action), None)
            if same is None:
                seen.append((shown, action))
            elif shown not in seen[same][0].split(" / "):  # F1 and ? do the same: one row
                seen[same] = (f"{seen[same][0]} / {shown}", action)
        out.append((t(title, lang), seen))
    return out


def help_markdown(sections: list[HelpSection], lang: str) -> str:
    """The same reference as Markdown tables (for the README)."""
    out: list[str] = []
    for title, rows in help_rows(sections, lang):
        out += [f"**{title}**", "", f"| {t('tui_help_key', lang)} | {t('tui_help_action', lang)} |", "|---|---|"]
        out += ["| " + key.replace("|", "\\|") + f" | {action} |" for key, action in rows]
        out.append("")
    return "\n".join(out)


class HelpScreen(ModalScreen[None]):
    """Lists every key, grouped by screen; Escape, F1, `?` or `q` closes it.

    Args:
        sections: What to list (the app builds it from the screens' `BINDINGS`).
        lang: Interface language.
    """

    CSS_PATH = "help_screen.tcss"
    AUTO_FOCUS = "#help-body"

    BINDINGS = [
        Binding("escape,f1,question_mark,q", "close", "tui_key_close"),
    ]

    def __init__(self, sections: list[HelpSection], lang: str) -> None:
        super().__init__()
        self.sections = sections
        self.lang = lang

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static(t("tui_help_title", self.lang), id="help-title", markup=False)
            yield Static(t("tui_help_intro", self.lang), id="help-intro", markup=False)
            for title, rows in help_rows(self.sections, self.lang):
                yield Static(title, classes="help-section", markup=False)
                lines = [f"{key:<{KEY_COLUMN}}{action}" if len(key) < KEY_COLUMN else f"{key}  {action}" for key, action in rows]
                yield Static("\n".join(lines), classes="help-keys", markup=False)
            yield Static(t("tui_help_close_hint", self.lang), id="help-hint", markup=False)

    @property
    def text(self) -> str:
        """Everything the help shows, as plain text."""
        return "\n".join(str(static.content) for static in self.query(Static))

    def action_close(self) -> None:
        self.dismiss()

"""Textual's footer with the binding descriptions translated into the interface language."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer

from advisor.tui.key_labels import binding_label

# Shown last (before the palette key) whatever the binding chain's order: where people look for it.
LAST_ACTIONS = ("help", "quit")


class LocalizedFooter(Footer):
    """A `Footer` whose key descriptions are label keys, looked up in the app's `lang`.

    Bindings across the TUI are declared with label keys (e.g. "tui_key_help") as descriptions,
    so the footer and the help screen translate them the same way, and switching language
    recomposes the footer at once.
    """

    # Textual's compact footer leaves a margin right of the palette key, through which the end of
    # a row of keys too long for a narrow terminal shows as a stray character: cover it.
    DEFAULT_CSS = """
    LocalizedFooter.-compact FooterKey.-command-palette {
        margin-right: 0;
        padding-right: 1;
    }
    """

    def __init__(self) -> None:
        # Compact: at 80 columns the full-width style fits only five or six keys.
        super().__init__(compact=True)

    def compose(self) -> ComposeResult:
        lang = getattr(self.app, "lang", "en")
        widgets = list(super().compose())
        for widget in widgets:
            description = getattr(widget, "description", None)
            if isinstance(description, str) and description:
                widget.description = binding_label(description, lang)  # type: ignore[attr-defined]

        def rank(widget: object) -> int:
            if widget.has_class("-command-palette"):  # type: ignore[attr-defined]
                return len(LAST_ACTIONS) + 1
            action = getattr(widget, "action", "")
            return LAST_ACTIONS.index(action) + 1 if action in LAST_ACTIONS else 0

        yield from sorted(widgets, key=rank)

    def on_mount(self) -> None:
        super().on_mount()
        self.watch(self.app, "lang", self._language_changed, init=False)

    def _language_changed(self, _lang: str) -> None:
        self.call_after_refresh(self.recompose)

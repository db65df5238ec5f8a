"""Asks where to export the recommendation and in which format."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, RadioSet, Static

from advisor.export import FORMATS, format_for_path
from advisor.i18n import t
from advisor.tui.widgets.format_choice import FormatChoice


@dataclass(frozen=True)
class ExportRequest:
    """Where and how to export.

    Attributes:
        path: The file to write (relative names are resolved against `folder`).
        fmt: "md", "html" or "json".
    """

    path: Path
    fmt: str


class ExportDialog(ModalScreen[ExportRequest | None]):
    """Format choice and file name; dismisses an `ExportRequest`, or None when cancelled.

    Keyboard first: the formats have focus when it opens, so ←/→ (or m, h, j) choose one and
    Enter saves in it; Tab reaches the file name, whose extension follows the format. The Save
    button names the chosen format, so the choice never rests on colour alone. It never writes
    anything itself: the summary screen checks for an existing file (and asks before replacing
    it) and writes.

    Args:
        stem: File name without extension to suggest.
        folder: Where relative names are saved (shown to the user).
        lang: Interface language.
        fmt: The format chosen at first (the one used last time).
        name: The file name to show instead of `stem` with the format's extension.
    """

    CSS_PATH = "export_dialog.tcss"
    AUTO_FOCUS = "#export-format"

    BINDINGS = [
        Binding("escape", "cancel", "tui_key_cancel"),
        Binding("enter", "save", "tui_key_save", show=False),
        *(Binding(name[0], f"choose('{name}')", "tui_key_choose_format", show=False) for name in FORMATS),
    ]

    def __init__(self, stem: str, folder: Path, lang: str, fmt: str = "md", name: str | None = None) -> None:
        super().__init__()
        self.stem = stem
        self.folder = folder
        self.lang = lang
        self.fmt = fmt if fmt in FORMATS else "md"
        self.file_name = name or f"{stem}.{self.fmt}"

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="export-box"):
            yield Static(t("tui_export_title", lang), id="export-title", markup=False)
            yield Static(t("tui_export_format", lang), markup=False)
            yield FormatChoice([(fmt.name, t(fmt.label, lang)) for fmt in FORMATS.values()], self.fmt, id="export-format")
            yield Static(t("tui_export_format_hint", lang, keys=", ".join(name[0] for name in FORMATS)), id="export-hint", markup=False)
            yield Static(t("tui_export_name", lang), markup=False)
            yield Input(self.file_name, id="export-name", select_on_focus=False)
            yield Static(t("tui_export_folder", lang, folder=str(self.folder)), id="export-folder", markup=False)
            with Horizontal(id="export-buttons"):
                yield Button(self._save_label(), variant="primary", id="export-save")
                yield Button(t("tui_cancel", lang), id="export-cancel")

    def _save_label(self) -> str:
        return t("tui_export_save_as", self.lang, format=t(FORMATS[self.fmt].label, self.lang))

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self.fmt = self.query_one(FormatChoice).chosen
        self.query_one("#export-save", Button).label = self._save_label()
        name = self.query_one("#export-name", Input)
        path = Path(name.value.strip() or self.stem)
        if format_for_path(path) is not None:
            path = path.with_suffix("")
        name.value = f"{path}.{self.fmt}"

    def action_choose(self, name: str) -> None:
        """m, h, j (away from the file name): choose that format."""
        self.query_one(FormatChoice).choose(name)

    @on(Input.Submitted, "#export-name")
    @on(Button.Pressed, "#export-save")
    def _save(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        """Enter: save in the chosen format under the name given."""
        name = self.query_one("#export-name", Input).value.strip()
        if not name:
            self.notify(t("tui_export_no_name", self.lang), severity="warning")
            return
        path = Path(name).expanduser()
        self.dismiss(ExportRequest(path if path.is_absolute() else self.folder / path, self.fmt))

    @on(Button.Pressed, "#export-cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

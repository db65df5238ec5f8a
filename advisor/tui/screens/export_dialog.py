"""Asks where to export the recommendation and in which format."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, RadioButton, RadioSet, Static

from advisor.export import FORMATS, format_for_path
from advisor.i18n import t


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

    Changing the format changes the file name's extension. It never writes anything itself: the
    summary screen checks for an existing file (and asks before replacing it) and writes.

    Args:
        stem: File name without extension to suggest.
        folder: Where relative names are saved (shown to the user).
        lang: Interface language.
    """

    CSS_PATH = "export_dialog.tcss"
    AUTO_FOCUS = "#export-name"

    BINDINGS = [
        Binding("escape", "cancel", "tui_key_cancel"),
    ]

    def __init__(self, stem: str, folder: Path, lang: str) -> None:
        super().__init__()
        self.stem = stem
        self.folder = folder
        self.lang = lang
        self.fmt = "md"

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="export-box"):
            yield Static(t("tui_export_title", lang), id="export-title", markup=False)
            with RadioSet(id="export-format"):
                for number, fmt in enumerate(FORMATS.values()):
                    yield RadioButton(t(fmt.label, lang), value=number == 0, id=f"export-{fmt.name}")
            yield Static(t("tui_export_name", lang), markup=False)
            yield Input(f"{self.stem}.md", id="export-name", select_on_focus=False)
            yield Static(t("tui_export_folder", lang, folder=str(self.folder)), id="export-folder", markup=False)
            with Horizontal(id="export-buttons"):
                yield Button(t("tui_export_save", lang), variant="primary", id="export-save")
                yield Button(t("tui_cancel", lang), id="export-cancel")

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self.fmt = list(FORMATS)[event.index]
        name = self.query_one("#export-name", Input)
        path = Path(name.value.strip() or self.stem)
        if format_for_path(path) is not None:
            path = path.with_suffix("")
        name.value = f"{path}.{self.fmt}"

    @on(Input.Submitted, "#export-name")
    @on(Button.Pressed, "#export-save")
    def _save(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
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

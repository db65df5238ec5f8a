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

from advisor.i18n import t

# Export formats as `advisor.export.formats.render` names them, with the label key shown for each.
FORMATS: tuple[tuple[str, str], ...] = (("md", "tui_export_markdown"), ("html", "tui_export_html"), ("json", "tui_export_json"))


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
                for number, (fmt, label) in enumerate(FORMATS):
                    yield RadioButton(t(label, lang), value=number == 0, id=f"export-{fmt}")
            yield Static(t("tui_export_name", lang), markup=False)
            yield Input(f"{self.stem}.md", id="export-name", select_on_focus=False)
            yield Static(t("tui_export_folder", lang, folder=str(self.folder)), id="export-folder", markup=False)
            with Horizontal(id="export-buttons"):
                yield Button(t("tui_export_save", lang), variant="primary", id="export-save")
                yield Button(t("tui_cancel", lang), id="export-cancel")

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self.fmt = FORMATS[event.index][0]
        name = self.query_one("#export-name", Input)
        path = Path(name.value.strip() or self.stem)
        if path.suffix.lower().lstrip(".") in {fmt for fmt, _ in FORMATS} | {"htm", "markdown"}:
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

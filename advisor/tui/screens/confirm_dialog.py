"""A yes/no question in a modal, dismissed with the answer."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmDialog(ModalScreen[bool]):
    """Asks `question`; dismisses True for yes, False for no or Escape.

    Args:
        title: Bold first line.
        question: The question, in plain text.
        yes: Label of the confirming button.
        no: Label of the declining button.
        default: Which button Enter presses at first: False for destructive questions
            (replace a file, forget answers), so a reflexive Enter is harmless.
    """

    CSS_PATH = "confirm_dialog.tcss"
    AUTO_FOCUS = ""  # the `default` button is focused in on_mount

    BINDINGS = [
        Binding("escape", "answer(False)", "tui_key_cancel"),
        Binding("y", "answer(True)", "tui_key_yes", show=False),
        Binding("n", "answer(False)", "tui_key_no", show=False),
        Binding("left,right", "switch", "tui_key_switch_button", show=False),
    ]

    def __init__(self, title: str, question: str, yes: str, no: str, *, default: bool = True) -> None:
        super().__init__()
        self.default = default
        self.title_text = title
        self.question = question
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(self.title_text, id="confirm-title", markup=False)
            yield Static(self.question, id="confirm-question", markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button(self.yes, variant="primary", id="confirm-yes")
                yield Button(self.no, id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-yes" if self.default else "#confirm-no").focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    def action_switch(self) -> None:
        target = "#confirm-no" if self.focused is not None and self.focused.id == "confirm-yes" else "#confirm-yes"
        self.query_one(target).focus()

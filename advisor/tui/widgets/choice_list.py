"""A compact option list for follow-ups and links, ready for Enter as soon as it has focus."""

from __future__ import annotations

from textual import events
from textual.widgets import OptionList


class ChoiceList(OptionList):
    """`OptionList` in its compact style that highlights its first option when focused.

    A plain `OptionList` reached with Tab has nothing highlighted, so Enter does nothing until
    an arrow is pressed; in a list of follow-up topics that reads as "broken".
    """

    DEFAULT_CSS = """
    ChoiceList {
        height: auto;
        background: transparent;
    }
    """

    def __init__(self, *content: object, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(*content, id=id, classes=classes, markup=False, compact=True)  # type: ignore[arg-type]

    def on_focus(self, event: events.Focus) -> None:
        if self.highlighted is None and self.option_count:
            self.highlighted = 0

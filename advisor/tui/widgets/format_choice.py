"""The export formats side by side, chosen with the arrow keys or a format's first letter."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import RadioButton, RadioSet


class FormatChoice(RadioSet, inherit_bindings=False):
    """A `RadioSet` whose arrows choose at once: the highlighted format is the chosen one.

    Textual's `RadioSet` moves a highlight with the arrows and waits for Enter or Space to choose;
    in the export dialog that made "→ then Enter" save the format still chosen, not the one
    shown under the cursor. Here there is one state, and Enter is left to the dialog (save).

    Args:
        formats: (name, label) of each format, in order; the name's first letter chooses it.
        chosen: The name of the format chosen at first.
    """

    BINDINGS = [
        Binding("right,down", "step(1)", "tui_key_next_format", show=False),
        Binding("left,up", "step(-1)", "tui_key_previous_format", show=False),
    ]

    def __init__(self, formats: list[tuple[str, str]], chosen: str, *, id: str | None = None) -> None:
        self.names = [name for name, _ in formats]
        buttons = [RadioButton(label, value=name == chosen, id=f"format-{name}") for name, label in formats]
        super().__init__(*buttons, id=id)

    @property
    def chosen(self) -> str:
        """The name of the chosen format."""
        return self.names[max(self.pressed_index, 0)]

    def choose(self, name: str) -> None:
        """Choose format `name` (posts `RadioSet.Changed` when it changes)."""
        button = self.query_one(f"#format-{name}", RadioButton)
        self._selected = self.names.index(name)
        if not button.value:
            button.value = True

    def action_step(self, by: int) -> None:
        """←/→: choose the previous or next format (wrapping around)."""
        self.choose(self.names[(self.names.index(self.chosen) + by) % len(self.names)])

"""The search-as-you-type list under the question input."""

from __future__ import annotations

from textual.widgets import OptionList
from textual.widgets.option_list import Option

from advisor.textnorm import strip_terminal_escapes
from advisor.search.suggest import Suggestion


class SuggestionList(OptionList, can_focus=False):
    """Suggested questions; never takes focus, so typing stays in the input while arrows pick.

    The input's owner moves the highlight; a mouse click selects an option directly.
    """

    DEFAULT_CSS = """
    SuggestionList {
        height: auto;
        max-height: 6;
        border: none;
        padding: 0 1;
        background: $boost;
        display: none;
        &.-shown { display: block; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.suggestions: list[Suggestion] = []

    def show(self, suggestions: list[Suggestion]) -> None:
        """Replace the list with `suggestions` (hidden when empty), nothing highlighted."""
        self.suggestions = list(suggestions)
        self.set_options(Option(strip_terminal_escapes(s.text), id=f"s{n}") for n, s in enumerate(suggestions))
        self.highlighted = None
        self.set_class(bool(suggestions), "-shown")

    def hide(self) -> None:
        """Empty and hide the list."""
        if self.suggestions:
            self.show([])

    @property
    def shown(self) -> bool:
        return bool(self.suggestions)

    @property
    def chosen(self) -> Suggestion | None:
        """The highlighted suggestion, if any."""
        if self.highlighted is None or not 0 <= self.highlighted < len(self.suggestions):
            return None
        return self.suggestions[self.highlighted]

    def move(self, step: int) -> bool:
        """Move the highlight by `step`; moving up from the first option clears it.

        Returns:
            True when the key was used (the list is shown and something moved).
        """
        if not self.suggestions:
            return False
        if self.highlighted is None:
            if step < 0:
                return False
            self.highlighted = 0
        elif self.highlighted + step < 0:
            self.highlighted = None
        else:
            self.highlighted = min(self.highlighted + step, len(self.suggestions) - 1)
        return True

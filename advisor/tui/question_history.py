"""Up-arrow recall of earlier questions, as a shell does it: pure state, no Textual."""

from __future__ import annotations


class QuestionHistory:
    """The questions asked so far and a cursor for walking back and forth through them.

    Walking starts below the newest question, where the user's unfinished draft lives; walking
    back down past the newest question returns that draft untouched.

    Args:
        limit: Most questions kept; the oldest are forgotten first.
    """

    def __init__(self, limit: int = 200) -> None:
        self.limit = limit
        self.items: list[str] = []
        self._cursor = 0
        self._draft = ""

    def add(self, question: str) -> None:
        """Remember `question` (not twice in a row) and reset the cursor below the newest."""
        if question and (not self.items or self.items[-1] != question):
            self.items.append(question)
            del self.items[: max(0, len(self.items) - self.limit)]
        self._cursor = len(self.items)
        self._draft = ""

    @property
    def browsing(self) -> bool:
        """True while an earlier question, not the draft, is shown."""
        return self._cursor < len(self.items)

    def previous(self, current: str) -> str | None:
        """The question before the one shown, or None at the oldest. `current` is kept as the draft."""
        if self._cursor == 0:
            return None
        if not self.browsing:
            self._draft = current
        self._cursor -= 1
        return self.items[self._cursor]

    def next(self) -> str | None:
        """The question after the one shown, the draft after the newest, or None when not browsing."""
        if not self.browsing:
            return None
        self._cursor += 1
        return self.items[self._cursor] if self.browsing else self._draft

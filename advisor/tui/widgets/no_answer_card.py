"""The reply when no entry answers confidently: "did you mean" choices instead of a guess."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from advisor.i18n import t
from advisor.textnorm import strip_terminal_escapes as clean
from advisor.tui.messages import TopicChosen
from advisor.tui.widgets.choice_list import ChoiceList


class NoAnswerCard(Vertical):
    """Says no confident answer was found and offers the closest topics; a choice posts `TopicChosen`.

    Args:
        choices: (id, title) of the closest topics, best first (may be empty).
        answer_lang: Language the choices are shown in.
        lang: Interface language of the labels.
        question: The question the choices are offered for.
        note: Why the question went unanswered, in a given language ("" when there is nothing to
            add: `advisor.reply.unanswered_note`); by default it says nothing, and no line is shown.
    """

    DEFAULT_CSS = """
    NoAnswerCard {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: thick $warning;
        background: $boost;
        .no-answer-title { text-style: bold; color: $text-warning; }
        ChoiceList { max-height: 5; }
        .no-answer-note { margin: 0 0 1 0; }
        .no-answer-hint { color: $text-muted; }
    }
    """

    def __init__(self, choices: list[tuple[str, str]], answer_lang: str | None, lang: str, question: str = "", note: Callable[[str], str] = lambda lang: "") -> None:
        super().__init__(classes="no-answer")
        self.choices = choices
        self.note = note
        self.question = question
        self.answer_lang = answer_lang
        self.lang = lang

    def compose(self) -> ComposeResult:
        yield Static(t("no_answer", self.lang), classes="no-answer-title", markup=False)
        if said := self.note(self.lang):
            yield Static(clean(said), classes="no-answer-note", markup=False)
        if self.choices:
            yield Static(t("did_you_mean", self.lang) + ":", classes="no-answer-did-you-mean", markup=False)
            yield ChoiceList(*(Option(f"› {clean(title)}", id=rid) for rid, title in self.choices))
        yield Static(t(self._hint, self.lang), classes="no-answer-hint", markup=False)

    @property
    def _hint(self) -> str:
        """With no choices listed, the hint must not point at topics "above"."""
        return "tui_try_guide" if self.choices else "tui_try_guide_no_choices"

    def relabel(self, lang: str) -> None:
        """Show the labels in `lang`."""
        self.lang = lang
        self.query_one(".no-answer-title", Static).update(t("no_answer", lang))
        for note in self.query(".no-answer-note").results(Static):
            note.update(clean(self.note(lang)))
        for label in self.query(".no-answer-did-you-mean").results(Static):
            label.update(t("did_you_mean", lang) + ":")
        self.query_one(".no-answer-hint", Static).update(t(self._hint, lang))

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(TopicChosen(event.option.id, self.answer_lang, self.question))

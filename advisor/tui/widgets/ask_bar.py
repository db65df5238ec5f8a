"""The question input with search-as-you-type suggestions under it and Up-arrow recall."""

from __future__ import annotations

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, OptionList
from textual.worker import get_current_worker

from advisor.i18n import t
from advisor.tui.messages import QuestionAsked
from advisor.tui.question_history import QuestionHistory
from advisor.search.suggest import QuestionSuggester, Suggestion
from advisor.tui.widgets.suggestion_list import SuggestionList

SUGGESTIONS = 5


class QuestionInput(Input):
    """The question field. A paste of several lines (a log, `kubectl describe` output) is asked
    whole, as `advisor ask -` asks it: `Input` itself keeps only the first line of a paste."""

    class LogPasted(Message):
        """Several lines were pasted: `text` holds all of them."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def _on_paste(self, event: events.Paste) -> None:
        lines = event.text.splitlines()  # terminals paste line ends as "\r", "\r\n" or "\n"
        if sum(1 for line in lines if line.strip()) > 1:
            event.prevent_default()  # Input's own handler would insert the first line
            event.stop()
            self.post_message(self.LogPasted("\n".join(lines)))


class AskBar(Vertical):
    """Where questions are typed: Enter asks, arrows pick a suggestion or recall earlier questions.

    Up and Down move through the suggestions while some are shown; otherwise Up recalls the
    previous question (and Down walks forward again to the unfinished draft). A paste of several
    lines is asked at once, as a log (`QuestionInput`). Suggestions are
    computed in an exclusive thread worker, so a fast typist never waits for a stale list.

    Args:
        suggester: Matcher for the suggestions; None turns them off.
    """

    DEFAULT_CSS = """
    AskBar {
        height: auto;
        Input { margin: 0; }
    }
    """

    BINDINGS = [
        Binding("up", "previous", "tui_key_previous", show=False),
        Binding("down", "next", "tui_key_next", show=False),
        Binding("escape", "dismiss", "tui_key_dismiss", show=False),
    ]

    lang: reactive[str] = reactive("en", init=False)
    """Interface language: the placeholder's, and the suggestions' when the typing shows none."""

    class SuggestionsReady(Message):
        """A worker finished matching `text`; stale results are dropped on arrival."""

        def __init__(self, text: str, suggestions: list[Suggestion]) -> None:
            super().__init__()
            self.text = text
            self.suggestions = suggestions

    def __init__(self, suggester: QuestionSuggester | None, *, lang: str = "en", id: str | None = None) -> None:
        super().__init__(id=id)
        self.suggester = suggester
        self.history = QuestionHistory()
        self._recalled: str | None = None
        self.set_reactive(AskBar.lang, lang)

    def compose(self) -> ComposeResult:
        yield QuestionInput(placeholder=t("tui_ask_placeholder", self.lang), id="question", select_on_focus=False)
        yield SuggestionList(id="suggestions")

    def use(self, suggester: QuestionSuggester | None) -> None:
        """Start suggesting with `suggester` (ready after the first paint), for what is typed already."""
        self.suggester = suggester
        value = self.input.value
        if suggester is not None and value.strip() and value != self._recalled:
            self._suggest(value, self.lang)

    @property
    def input(self) -> Input:
        return self.query_one("#question", Input)

    @property
    def suggestion_list(self) -> SuggestionList:
        return self.query_one(SuggestionList)

    def watch_lang(self, lang: str) -> None:
        self.input.placeholder = t("tui_ask_placeholder", lang)

    @on(Input.Changed, "#question")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        if event.value == self._recalled:  # set by recall, not typed: no suggestions for it
            self._recalled = None
            self.suggestion_list.hide()
            return
        self._recalled = None
        if event.value.strip() and self.suggester is not None:
            self._suggest(event.value, self.lang)
        else:
            self.workers.cancel_group(self, "suggest")
            self.suggestion_list.hide()

    @work(exclusive=True, thread=True, group="suggest")
    def _suggest(self, text: str, lang: str) -> None:
        """Match `text` off the event loop; a newer keystroke cancels this one."""
        assert self.suggester is not None
        found = self.suggester.suggest(text, lang, SUGGESTIONS)
        if not get_current_worker().is_cancelled:
            self.post_message(self.SuggestionsReady(text, found))

    @on(SuggestionsReady)
    def _show_suggestions(self, event: SuggestionsReady) -> None:
        event.stop()
        if event.text == self.input.value:
            self.suggestion_list.show(event.suggestions)

    @on(Input.Submitted, "#question")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        chosen = self.suggestion_list.chosen
        if chosen is not None:
            self._ask(chosen.text, chosen.topic)
        elif event.value.strip():
            self._ask(event.value.strip(), None)

    @on(QuestionInput.LogPasted)
    def _pasted(self, event: QuestionInput.LogPasted) -> None:
        event.stop()
        self._ask(event.text, None, typed=False)

    @on(OptionList.OptionSelected, "#suggestions")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        chosen = self.suggestion_list.chosen
        if chosen is not None:
            self._ask(chosen.text, chosen.topic)
        self.input.focus()

    def _ask(self, text: str, topic: str | None, *, typed: bool = True) -> None:
        """Ask `text`. A typed (or picked) question is recalled by Up and leaves the field empty; a
        pasted log is not recalled, and what was being typed stays in the field."""
        if typed:
            self.history.add(text)
            self.input.value = ""
        self.workers.cancel_group(self, "suggest")
        self.suggestion_list.hide()
        self.post_message(QuestionAsked(text, topic))

    def _show_recalled(self, text: str) -> None:
        self._recalled = text if text != self.input.value else None
        self.workers.cancel_group(self, "suggest")
        self.suggestion_list.hide()
        self.input.value = text
        self.input.cursor_position = len(text)

    def action_previous(self) -> None:
        """Up: move up the suggestions, else recall the previous question."""
        if self.suggestion_list.move(-1):
            return
        recalled = self.history.previous(self.input.value)
        if recalled is not None:
            self._show_recalled(recalled)

    def action_next(self) -> None:
        """Down: move down the suggestions, else walk forward through recalled questions."""
        if self.suggestion_list.move(1):
            return
        recalled = self.history.next()
        if recalled is not None:
            self._show_recalled(recalled)

    def action_dismiss(self) -> None:
        """Escape: hide the suggestions. It never clears the typed question (there is no undo);
        Ctrl+U does that."""
        self.workers.cancel_group(self, "suggest")
        self.suggestion_list.hide()

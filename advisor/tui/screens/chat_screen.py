"""The screen the app opens on: a conversation with the knowledge base."""

from __future__ import annotations

from functools import partial

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import QueryType
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Header, Static

from advisor.i18n import t
from advisor.question_log import note_answer, note_choice
from advisor.reply import Article, answer, answer_paste, entry_article, unanswered_note, wizard_answers
from advisor.search.rank import MAX_QUERY_CHARS
from advisor.textnorm import strip_terminal_escapes as clean
from advisor.tui.screens.advisor_screen import AdvisorScreen
from advisor.tui.messages import EntryOpenRequested, QuestionAsked, TopicChosen, WizardRequested
from advisor.tui.widgets.answer_card import AnswerCard
from advisor.tui.widgets.ask_bar import AskBar
from advisor.tui.widgets.localized_footer import LocalizedFooter
from advisor.tui.widgets.no_answer_card import NoAnswerCard


# Older exchanges are dropped beyond this many, so a long session stays light.
MAX_EXCHANGES = 40
# Only the newest answers are shown in full; older ones fold to their title and source (a click
# unfolds one). Each answer adds about a hundred widgets that are laid out again on every
# keystroke and every new answer: `benchmarks/long_chat.py` times answers 26-35 of a session.
FULL_ANSWERS = 3
# A pasted wall of text is shown shortened in the conversation (it is still asked in full).
SHOWN_QUESTION_CHARS = 300


class ChatScreen(AdvisorScreen[None]):
    """Conversation history above, the question input below.

    Enter asks; a confident answer appears as an `AnswerCard` (Markdown, confidence, source and
    related follow-ups), otherwise a `NoAnswerCard` offers "did you mean" choices. Choosing a
    follow-up asks that topic; Ctrl+O opens the latest answer full-screen.
    """

    CSS_PATH = "chat_screen.tcss"
    AUTO_FOCUS = "#question"

    BINDINGS = [
        Binding("ctrl+o", "open_latest", "tui_key_open"),
        Binding("ctrl+k", "focus_question", "tui_key_focus_question", show=False),
        Binding("pageup", "scroll_history(-1)", "tui_key_page_up", show=False),
        Binding("pagedown", "scroll_history(1)", "tui_key_page_down", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.latest: Article | None = None


    def compose(self) -> ComposeResult:
        lang = self.advisor.lang
        yield Header()
        with VerticalScroll(id="history", can_focus=False):
            yield Static(self._welcome(lang), id="welcome", markup=False)
        yield AskBar(self.advisor.suggester, lang=lang, id="ask")
        yield LocalizedFooter()

    def _welcome(self, lang: str) -> str:
        """The welcome, saying so when questions are being kept (the user should never wonder)."""
        return t("tui_welcome", lang) + ("\n\n" + t("tui_learning_on", lang) if self.advisor.learning else "")

    def _show_welcome(self, _: object = None) -> None:
        self.query_one("#welcome", Static).update(self._welcome(self.advisor.lang))

    def on_mount(self) -> None:
        self.watch(self.app, "lang", self._relabel, init=False)
        self.watch(self.app, "learning", self._show_welcome, init=False)
        if self.advisor.suggester is None:
            self.run_worker(self._suggestions_when_ready(), group="knowledge")

    async def _suggestions_when_ready(self) -> None:
        """Turn search-as-you-type on once the app has loaded the knowledge (after first paint)."""
        await self.advisor.knowledge_ready.wait()
        self.query_one(AskBar).use(self.advisor.suggester)

    def _relabel(self, lang: str) -> None:
        self._show_welcome()
        self.query_one(AskBar).lang = lang
        for card in self.query(AnswerCard):
            card.relabel(lang)
        for other in self.query(NoAnswerCard):
            other.relabel(lang)

    @property
    def history(self) -> VerticalScroll:
        return self.query_one("#history", VerticalScroll)

    @property
    def focus_chain(self) -> list[Widget]:
        """Tab order: the question input, then the answers from the latest up to the oldest.

        The conversation is read upwards from the input, so Tab must reach the answer just given
        (its "did you mean" choices, its follow-ups) before the first one of the session; inside
        each answer the order stays top to bottom.
        """
        outside, answers = self._focus_groups()
        return outside + [widget for answer in answers for widget in answer]

    def _focus_groups(self) -> tuple[list[Widget], list[list[Widget]]]:
        """Textual's focus chain split into the widgets outside the conversation and, latest
        first, those of each exchange in it."""
        history = self.history
        outside: list[Widget] = []
        exchanges: dict[DOMNode, list[Widget]] = {}
        for widget in super().focus_chain:
            exchange = next((node for node in widget.ancestors if node.parent is history), None)
            if exchange is None:
                outside.append(widget)
            else:
                exchanges.setdefault(exchange, []).append(widget)
        return outside, list(reversed(exchanges.values()))

    def focus_previous(self, selector: str | type[QueryType] = "*") -> Widget | None:
        """Shift+Tab from the question input goes to the latest answer too, to its last choices."""
        if self.focused is not None and self.focused.id == "question" and selector == "*":
            _, answers = self._focus_groups()
            if answers:
                self.set_focus(answers[0][-1])
                return self.focused
        return super().focus_previous(selector)

    @on(QuestionAsked)
    async def _asked(self, event: QuestionAsked) -> None:
        event.stop()
        await self.ask(event.text, event.topic)

    async def ask(self, text: str, topic: str | None = None) -> None:
        """Ask `text` and add the exchange to the conversation.

        Args:
            text: The question.
            topic: A topic the user already chose for it (from the suggestions); it is then shown
                whatever the search ranks first, with the confidence the search gives it.
        """
        if not self.advisor.knowledge_ready.is_set():  # asked before the knowledge is loaded
            waiting = Static(t("tui_loading_knowledge", self.advisor.lang), classes="loading", markup=False)
            await self._add_exchange(text, waiting)
            self.run_worker(self._answer_when_ready(text, topic, waiting), group="waiting")
            return
        await self._add_exchange(text, self._answer_card(text, topic))

    async def _answer_when_ready(self, text: str, topic: str | None, waiting: Static) -> None:
        """Answer a question asked while the knowledge was loading, in place of its notice (the
        screen keeps handling keys meanwhile)."""
        await self.advisor.knowledge_ready.wait()
        card = self._answer_card(text, topic)
        if waiting.parent is not None:  # still shown (not dropped as an old exchange)
            await self.history.mount(card, after=waiting)
            await waiting.remove()
            self._fold_older()
            self.refresh_bindings()

    def _answer_card(self, text: str, topic: str | None) -> Widget:
        lang = self.advisor.lang
        pasted = "\n" in text.strip()  # a log or `kubectl describe` output: its error line answers
        if pasted:
            reply = answer_paste(self.advisor.index, text, default_lang=lang)
        else:
            reply = answer(self.advisor.index, text, default_lang=lang, topic=topic)
        if topic is None and not pasted:  # typed, not a known phrasing picked while typing; pastes are never kept
            note_answer(reply, str(self.advisor.config_folder))
        if reply.outcome.truncated:
            self.notify(t("query_truncated", lang, limit=MAX_QUERY_CHARS), severity="warning")
        if reply.article is not None:
            self.latest = reply.article
            hints = self.advisor.tree_hints
            return AnswerCard(reply.article, lang, reply.close, reply.aside, reply.log_line, wizard_answers(self.advisor.index, reply, hints), hints)
        return NoAnswerCard(list(reply.suggestions), reply.lang, lang, text, partial(unanswered_note, reply))

    @on(TopicChosen)
    async def _topic_chosen(self, event: TopicChosen) -> None:
        event.stop()
        if event.question:
            note_choice(event.question, event.lang, event.topic, str(self.advisor.config_folder))
        await self.show_topic(event.topic, event.lang)

    async def show_topic(self, topic: str, lang: str | None) -> None:
        """Answer with entry `topic` directly, as a follow-up the user chose."""
        index = self.advisor.index
        entry = index.entry_index(topic, lang or self.advisor.lang)
        if entry is None:
            return
        self.latest = entry_article(index, entry, None, lang)
        await self._add_exchange(index.meta(entry).title, AnswerCard(self.latest, self.advisor.lang))

    async def _add_exchange(self, question: str, card: Widget) -> None:
        shown = question if len(question) <= SHOWN_QUESTION_CHARS else question[:SHOWN_QUESTION_CHARS] + "…"
        line = Static(f"❯ {clean(shown)}", classes="question", markup=False)
        history = self.history
        await history.mount_all([line, card])
        self._fold_older()
        self.refresh_bindings()
        exchanges = history.query(".question")
        if len(exchanges) > MAX_EXCHANGES:
            stale: list[Widget] = []
            for old in list(exchanges)[: len(exchanges) - MAX_EXCHANGES]:
                stale.append(old)
                following = history.children[history.children.index(old) + 1]
                stale.append(following)
            await history.remove_children(stale)
        self.call_after_refresh(history.scroll_to_widget, line, animate=False, top=True)
        self.query_one("#question").focus()  # the conversation goes on: typing asks the next question

    def _fold_older(self) -> None:
        """Fold every answer but the `FULL_ANSWERS` newest (see there why)."""
        for older in list(self.history.query(AnswerCard))[:-FULL_ANSWERS]:
            older.folded = True

    @on(WizardRequested)
    def _go_on_in_wizard(self, event: WizardRequested) -> None:
        event.stop()
        self.advisor.open_wizard_with(event.answers)

    @on(EntryOpenRequested)
    def _open(self, event: EntryOpenRequested) -> None:
        event.stop()
        self.advisor.open_entry(event.topic, event.lang)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show Ctrl+O (open) in the footer only once there is an answer to open."""
        if action == "open_latest":
            return self.latest is not None
        return True

    def action_open_latest(self) -> None:
        """Ctrl+O: read the latest answer full-screen."""
        if self.latest is None:
            self.notify(t("tui_nothing_to_open", self.advisor.lang))
            return
        if self.latest.source:
            self.advisor.open_entry(self.latest.id, self.latest.lang)
        elif self.latest.related:  # a catalogue answer: open the entry behind it
            self.advisor.open_entry(self.latest.related[0][0], self.latest.lang)

    def action_scroll_history(self, pages: int) -> None:
        """PgUp/PgDn: scroll the conversation while typing stays in the input."""
        history = self.history
        if pages < 0:
            history.scroll_page_up(animate=False)
        else:
            history.scroll_page_down(animate=False)

    def action_focus_question(self) -> None:
        self.query_one("#question").focus()

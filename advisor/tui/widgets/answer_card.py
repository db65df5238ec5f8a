"""One answer in the conversation: the entry as Markdown, its confidence and source, follow-ups."""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.reactive import reactive
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from advisor.decision.hints import NO_HINTS
from advisor.i18n import t
from advisor.textnorm import strip_terminal_escapes as clean
from advisor.reply import Article, short_answer
from advisor.tui.markdown_source import markdown_sources
from advisor.tui.messages import EntryOpenRequested, TopicChosen, WizardRequested
from advisor.tui.widgets.choice_list import ChoiceList

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from advisor.catalogue.replies import ProviderAnswer
    from advisor.decision.hints import Hints
    from advisor.search.logs import LogMatch


class AnswerCard(Vertical):
    """Shows one `Article`; choosing a related topic posts `TopicChosen`, the open button `EntryOpenRequested`.

    A `folded` card shows only its title and source line: the chat folds older answers, because
    every widget of every answer is laid out again on each keystroke and each new answer. A click
    unfolds it.

    Args:
        answer: The answer to show.
        lang: Interface language of the labels (the body keeps the entry's language).
        close: (id, title) of the entries ranked nearly as high, offered first as follow-ups.
        aside: The catalogue's facts about a provider the question names, shown after the answer
            ("install the GPU Operator on EKS": the entry answers, EKS's facts come beside it).
        log_line: For a pasted log, the line the answer rests on, shown above it.
        wizard: (key, value) of the wizard's questions the question already settles: a button
            goes on to the wizard with them given (`WizardRequested`); () offers the wizard from
            its start, None offers nothing.
        hints: The tree's hints (`advisor.decision.hints`), which name those questions and answers.
    """

    DEFAULT_CSS = """
    AnswerCard {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: thick $success;
        background: $boost;
        &.-folded { border-left: thick $success-muted; }
        .answer-title { text-style: bold; color: $text-success; }
        .answer-meta { height: 1; }
        .answer-meta Static { width: 1fr; color: $text-muted; }
        .answer-meta Button { min-width: 0; margin-left: 1; }
        .answer-notice { color: $text-warning; }
        .answer-log-line { color: $text-muted; }
        Markdown { padding: 0; margin: 0; }
        /* The label that follows keeps its own margin: two blank lines were one too many. */
        Markdown > *:last-child { margin-bottom: 0; }
        .answer-close-label, .answer-related-label, .answer-sources-label, .answer-aside-title { text-style: bold; margin-top: 1; }
        .answer-sources { color: $text-muted; }
        .answer-wizard-given { margin-top: 1; color: $text-muted; }
        ChoiceList { max-height: 8; }
        /* A provider comparison's columns share the width: sized to their text, the first
           provider's column was squeezed to 8 cells and the table grew twice as tall. */
        &.-catalogue MarkdownTableContent, .answer-aside MarkdownTableContent { grid-columns: 1fr; }
    }
    """

    folded: reactive[bool] = reactive(False, recompose=True)

    def __init__(
        self,
        answer: Article,
        lang: str,
        close: tuple[tuple[str, str], ...] = (),
        aside: ProviderAnswer | None = None,
        log_line: LogMatch | None = None,
        wizard: tuple[tuple[str, str], ...] | None = None,
        hints: Hints | None = None,
    ) -> None:
        super().__init__(classes="answer" if answer.source else "answer -catalogue")
        self.answer = answer
        self.lang = lang
        self.close = close
        self.aside = aside
        self.log_line = log_line
        self.wizard = wizard
        self.hints = hints or NO_HINTS

    def compose(self) -> ComposeResult:
        answer = self.answer
        yield Static(clean(answer.title), classes="answer-title", markup=False)
        with Horizontal(classes="answer-meta"):
            yield Static(self._meta_text(), classes="answer-meta-text", markup=False)
            if not self.catalogue:
                yield Button(t("tui_open_full", self.lang), compact=True, classes="answer-open")
        if self.log_line is not None:
            yield Static(self._log_line_text(), classes="answer-log-line", markup=False)
        if self.folded:
            return
        if answer.wanted_lang:
            yield Static(t("language_fallback", self.lang, wanted=answer.wanted_lang, shown=answer.lang), classes="answer-notice", markup=False)
        yield Markdown(clean(short_answer(answer)).strip(), open_links=False, classes="answer-body")
        if self.aside is not None:
            yield Static(clean(self.aside.title), classes="answer-aside-title", markup=False)
            yield Markdown(clean(self.aside.answer).strip(), open_links=False, classes="answer-aside")
        if answer.sources:
            yield Static(t("sources", self.lang) + ":", classes="answer-sources-label", markup=False)
            yield Markdown(markdown_sources(answer.sources), open_links=False, classes="answer-sources")
        if self.wizard is not None:
            yield Static(self._wizard_text(), classes="answer-wizard-given", markup=False)
            yield Button(t("tui_wizard_go_on", self.lang), compact=True, classes="answer-wizard")
        if self.close:
            yield Static(t("also_close", self.lang) + ":", classes="answer-close-label", markup=False)
            yield ChoiceList(*(Option(f"› {clean(title)}", id=rid) for rid, title in self.close), classes="answer-related answer-close")
        if answer.related:
            yield Static(t("related", self.lang) + ":", classes="answer-related-label", markup=False)
            yield ChoiceList(*(Option(f"› {clean(title)}", id=rid) for rid, title in answer.related), classes="answer-related")

    @property
    def catalogue(self) -> bool:
        """Whether the answer comes from the provider catalogue, which has no entry file to open or name."""
        return not self.answer.source

    def watch_folded(self, folded: bool) -> None:
        self.set_class(folded, "-folded")

    def on_click(self, event: events.Click) -> None:
        if self.folded:
            event.stop()
            self.folded = False

    def _meta_text(self) -> str:
        parts = []
        if self.answer.score is not None:
            parts.append(f"{t('confidence', self.lang)} {self.answer.score:.0f}")
        parts.append(f"{t('tui_source', self.lang)}: {'providers.yaml' if self.catalogue else clean(self.answer.source)}")  # a folder name can hold escapes
        if self.folded:
            parts.append(t("tui_folded", self.lang))
        return " · ".join(parts)

    def _wizard_text(self) -> str:
        from advisor.decision.hints import described

        if not self.wizard:
            return t("tui_wizard_offer_start", self.lang)
        return t("tui_wizard_offer", self.lang, answers=described(self.hints[0], self.wizard, self.lang))

    def _log_line_text(self) -> str:
        assert self.log_line is not None
        return f"{t('log_line', self.lang, number=self.log_line.number)} {clean(self.log_line.line)}"

    def relabel(self, lang: str) -> None:
        """Show the labels in `lang`; the entry itself stays in its own language."""
        self.lang = lang
        self.query_one(".answer-meta-text", Static).update(self._meta_text())
        for button in self.query(".answer-open").results(Button):
            button.label = t("tui_open_full", lang)
        for matched in self.query(".answer-log-line").results(Static):
            matched.update(self._log_line_text())
        for notice in self.query(".answer-notice").results(Static):
            notice.update(t("language_fallback", lang, wanted=self.answer.wanted_lang, shown=self.answer.lang))
        for label in self.query(".answer-close-label").results(Static):
            label.update(t("also_close", lang) + ":")
        for label in self.query(".answer-related-label").results(Static):
            label.update(t("related", lang) + ":")
        for label in self.query(".answer-sources-label").results(Static):
            label.update(t("sources", lang) + ":")
        for given in self.query(".answer-wizard-given").results(Static):
            given.update(self._wizard_text())
        for button in self.query(".answer-wizard").results(Button):
            button.label = t("tui_wizard_go_on", lang)

    @on(OptionList.OptionSelected, ".answer-related")
    def _follow(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(TopicChosen(event.option.id, self.answer.lang))

    @on(Button.Pressed, ".answer-open")
    def _open(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(EntryOpenRequested(self.answer.id, self.answer.lang))

    @on(Button.Pressed, ".answer-wizard")
    def _go_on_in_wizard(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(WizardRequested(self.wizard or ()))

    @on(Markdown.LinkClicked)
    def _link(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        if event.href.startswith(("http://", "https://")):
            self.app.open_url(event.href)

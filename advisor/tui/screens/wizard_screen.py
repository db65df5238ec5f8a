"""The guided wizard: one question at a time, the answers so far beside it, help under it."""

from __future__ import annotations


from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Header, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from advisor.i18n import t
from advisor.decision.session import NOT_SURE, Session
from advisor.textnorm import strip_terminal_escapes as clean
from advisor.tui.screens.advisor_screen import AdvisorScreen
from advisor.decision.tree import Question
from advisor.tui.screens.confirm_dialog import ConfirmDialog
from advisor.tui.widgets.choice_list import ChoiceList
from advisor.tui.widgets.localized_footer import LocalizedFooter



class WizardScreen(AdvisorScreen[None]):
    """Walks the decision tree through `advisor.decision.session.Session`, which owns every rule of the walk.

    Choosing an option answers the question shown; Escape goes back one question; choosing an
    earlier answer in the side list asks that question again, and the session drops the later
    answers that no longer apply. Every change is autosaved. When the walk reaches an outcome,
    the summary screen opens.

    Args:
        session: Where to start (a fresh session, or one restored from the autosave).
    """

    CSS_PATH = "wizard_screen.tcss"
    AUTO_FOCUS = "#wizard-options"
    # Below 70 columns the answers so far move under the question (see wizard_screen.tcss).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (70, "-wide")]
    # Below 20 rows the help panel (and, when also narrow, the answers) give way to the options.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (20, "-tall")]

    BINDINGS = [
        Binding("escape", "back", "tui_key_back"),
        Binding("o", "open_entry", "tui_key_read_entry"),
        Binding("ctrl+t", "app.ask", "tui_key_chat"),  # Esc walks back through the answers; this leaves them saved
        Binding("ctrl+r", "restart", "tui_key_restart", show=False),  # in F1's list: the footer is full at 80 columns
        Binding("a", "focus_answers", "tui_key_answers", show=False),
        *(Binding(str(number), f"choose({number})", "tui_key_choose_number", show=False) for number in range(1, 10)),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.editing: str | None = None
        """Key of the earlier answer being changed, if any."""


    @property
    def question(self) -> Question | None:
        """The question on screen."""
        if self.editing is not None:
            return self.session.tree.question(self.editing)
        return self.session.next_question

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="wizard-progress-row"):
            yield Static("", id="wizard-progress", markup=False)
            yield ProgressBar(id="wizard-bar", show_eta=False, show_percentage=False)
        with Horizontal(id="wizard-body"):
            with Vertical(id="wizard-main"):
                yield Static("", id="wizard-editing", markup=False)
                yield Static("", id="wizard-title", markup=False)
                yield Static("", id="wizard-text", markup=False)
                yield OptionList(id="wizard-options", markup=False, compact=True)
                with VerticalScroll(id="wizard-help"):
                    yield Static("", id="wizard-help-text", markup=False)
                    yield ChoiceList(id="wizard-kb")
            with Vertical(id="wizard-side"):
                yield Static("", id="wizard-answers-label", markup=False)
                yield ChoiceList(id="wizard-answers")
        yield LocalizedFooter()

    async def on_mount(self) -> None:
        self.watch(self.app, "lang", self._language_changed, init=False)
        await self.refresh_view()
        if self.session.done:
            self.call_after_refresh(self.advisor.show_summary, self.session)

    def _language_changed(self, _lang: str) -> None:
        self.call_later(self.refresh_view)

    # Rendering ----------------------------------------------------------------------------------

    async def refresh_view(self) -> None:
        """Show the current question, its help, the progress and the answers so far."""
        tree = self.session.tree
        lang = self.advisor.lang
        self.sub_title = tree.title.get(lang)
        question = self.question
        # Counted along the walk: after an earlier answer changes, the session still holds answers
        # for questions the new path may reach later, and they are not "answered so far".
        answered = len(self.session.walked)
        pending = 1 if question is not None and self.editing is None else 0
        total = max(len(self.session.with_defaults().walked), answered + pending)
        number = answered + 1 if self.editing is None else self._position(self.editing)
        self.query_one("#wizard-progress", Static).update(t("tui_wizard_progress", lang, number=min(number, total), total=total))
        self.query_one("#wizard-bar", ProgressBar).update(total=total, progress=answered)
        editing = self.query_one("#wizard-editing", Static)
        editing.update(t("tui_wizard_editing", lang) if self.editing else "")
        editing.display = self.editing is not None
        self._show_answers(lang)
        options = self.query_one("#wizard-options", OptionList)
        if question is None:
            options.clear_options()
            return
        self.query_one("#wizard-title", Static).update(clean(question.title.get(lang)))
        self.query_one("#wizard-text", Static).update(clean(question.text.get(lang)))
        default = question.option(question.default)
        prompts = [Option(f"{n}. {clean(option.label.get(lang))}", id=option.value) for n, option in enumerate(question.options, start=1)]
        not_sure = t("rec_not_sure_option", lang, label=default.label.get(lang) if default else question.default)
        prompts.append(Option(f"{len(prompts) + 1}. {clean(not_sure)}", id=NOT_SURE))
        options.set_options(prompts)
        current = next((answer for answer in self.session.answers if answer.key == question.key), None)
        values = [option.value for option in question.options]
        if current is None:
            options.highlighted = 0
        elif current.assumed:  # it was "not sure": keep that choice highlighted
            options.highlighted = len(values)
        else:
            options.highlighted = values.index(current.value) if current.value in values else 0
        self._show_help(question, lang)

    def _position(self, key: str) -> int:
        for number, answer in enumerate(self.session.walked, start=1):
            if answer.key == key:
                return number
        return len(self.session.walked) + 1

    def _show_answers(self, lang: str) -> None:
        tree = self.session.tree
        self.query_one("#wizard-answers-label", Static).update(t("rec_answers", lang))
        listing = self.query_one("#wizard-answers", OptionList)
        highlighted = listing.highlighted
        rows = []
        for answer in self.session.walked:
            question = tree.question(answer.key)
            if question is None:
                continue
            option = question.option(answer.value)
            shown = option.label.get(lang) if option else answer.value
            if answer.assumed:
                shown += f" ({t('rec_assumed', lang)})"
            marker = "▸ " if answer.key == self.editing else ""
            # Title on its own bold line, the answer under it: wrapped pairs stay easy to tell apart.
            prompt = Content.assemble((f"{marker}{clean(question.title.get(lang))}", "bold"), "\n", clean(shown))
            rows.append(Option(prompt, id=answer.key))
        listing.set_options(rows)
        if not rows:
            listing.add_option(Option(t("tui_wizard_no_answers", lang), disabled=True))
        elif highlighted is not None:
            listing.highlighted = min(highlighted, len(rows) - 1)

    def _show_help(self, question: Question, lang: str) -> None:
        # Plain text in a Static: the tree's help is prose, and a Markdown widget per question
        # would cost tens of milliseconds on every answer.
        index = self.advisor.index
        text = clean(question.help.get(lang))
        entries: list[tuple[str, str]] = []
        for kb_id in question.kb:
            found = index.entry_index(kb_id, lang)
            if found is not None:
                entries.append((kb_id, index.meta(found).title))
        if entries:  # the links below name the entries; their summaries would repeat the help
            text += f"\n\n{clean(t('guide_help_kb', lang))}:"
        self.query_one("#wizard-help-text", Static).update(text)
        kb = self.query_one("#wizard-kb", OptionList)
        kb.set_options(Option(f"› {clean(title)}", id=kb_id) for kb_id, title in entries)
        kb.display = bool(entries)
        self.query_one("#wizard-help", VerticalScroll).scroll_home(animate=False)

    # Answering ----------------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#wizard-options")
    async def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            await self.choose(event.option.id)

    async def choose(self, value: str) -> None:
        """Answer the question on screen with option `value` (or "not-sure")."""
        question = self.question
        if question is None:
            return
        lang = self.advisor.lang
        if self.editing is not None:
            before = len(self.session.answers)
            self.session = self.session.change(self.editing, value)
            self.editing = None
            dropped = before - len(self.session.answers)
            if dropped > 0:
                self.notify(t("tui_wizard_dropped", lang, count=dropped))
        else:
            self.session = self.session.answer(value)
        self.advisor.autosave(self.session)
        if self.session.done:
            await self.refresh_view()
            self.advisor.show_summary(self.session)
        else:
            await self.refresh_view()
            self.query_one("#wizard-options").focus()

    async def action_choose(self, number: int) -> None:
        """1-9: choose that option directly."""
        options = self.query_one("#wizard-options", OptionList)
        if 1 <= number <= options.option_count:
            option = options.get_option_at_index(number - 1)
            if option.id:
                await self.choose(option.id)

    @on(OptionList.OptionSelected, "#wizard-answers")
    async def _change(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            await self.edit(event.option.id)

    async def edit(self, key: str) -> None:
        """Ask the earlier question `key` again, its current answer highlighted."""
        if self.session.value(key) is None:
            return
        self.editing = key
        await self.refresh_view()
        self.query_one("#wizard-options").focus()

    async def action_back(self) -> None:
        """Escape: stop changing an earlier answer, else undo the last answer, else leave."""
        if self.editing is not None:
            self.editing = None
            if self.session.done:  # nothing changed: back to the recommendation
                await self.refresh_view()
                self.advisor.show_summary(self.session)
                return
        elif self.session.answers:
            self.session = self.session.back()
            self.advisor.autosave(self.session)
        else:
            self.dismiss()
            return
        await self.refresh_view()
        self.query_one("#wizard-options").focus()

    def action_restart(self) -> None:
        """Ctrl+R: after confirming, forget every answer and start again."""
        lang = self.advisor.lang
        if not self.session.answers:
            return

        async def confirmed(yes: bool | None) -> None:
            if yes:
                await self.restart()

        self.app.push_screen(
            ConfirmDialog(t("tui_restart_title", lang), t("tui_restart_question", lang), t("tui_restart_yes", lang), t("tui_cancel", lang), default=False),
            confirmed,
        )

    async def restart(self) -> None:
        """Start the walk again from the first question."""
        self.session = Session.start(self.session.tree)
        self.editing = None
        self.advisor.autosave(self.session)
        await self.refresh_view()
        self.query_one("#wizard-options").focus()

    async def resume_from_summary(self) -> None:
        """Back from the summary: show the last question again, its answer highlighted."""
        if self.session.done and self.session.walked:
            self.editing = self.session.walked[-1].key
        await self.refresh_view()
        self.query_one("#wizard-options").focus()

    # Reading --------------------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#wizard-kb")
    def _open_kb(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.advisor.open_entry(event.option.id, self.advisor.lang)

    def action_open_entry(self) -> None:
        """o: read the knowledge entry behind the question full-screen."""
        question = self.question
        if question is not None and question.kb:
            self.advisor.open_entry(question.kb[0], self.advisor.lang)

    def action_focus_answers(self) -> None:
        answers = self.query_one("#wizard-answers", OptionList)
        if self.session.walked:
            answers.focus()
            if answers.highlighted is None:
                answers.highlighted = 0

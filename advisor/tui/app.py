"""The Textual app: chat first, the guided wizard a key away, both thin layers over the engine.

Knowledge search, recommendation and export live in Textual-free modules that the CLI also uses;
this package only arranges them on screen. Start it with `advisor` (on a terminal) or
`advisor tui`; tests drive it with `AdvisorApp(...).run_test()`.
"""

from __future__ import annotations

import asyncio
import os
import threading
from functools import cached_property
from pathlib import Path

from textual.app import App
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.reactive import reactive

from advisor import question_log
from advisor.i18n import default_language, t
from advisor.search.index import SearchIndex
from advisor.problems import AdvisorError, DataError
from advisor.textnorm import strip_terminal_escapes as clean
from advisor.decision.session import Session
from advisor.decision.tree import Tree
from advisor.tui.advisor_commands import AdvisorCommands
from advisor.search.suggest import QuestionSuggester
from advisor.tui.screens.chat_screen import ChatScreen
from advisor.tui.screens.confirm_dialog import ConfirmDialog
from advisor.tui.screens.entry_screen import EntryScreen
from advisor.tui.screens.help_screen import HelpScreen, HelpSection
from advisor.tui.screens.summary_screen import SummaryScreen
from advisor.tui.screens.wizard_screen import WizardScreen
from advisor.tui.session_store import SESSION_FILE, SessionStore
from advisor.tui.settings import Settings, load_settings, save_settings, settings_path
from advisor.tui.widgets.ask_bar import AskBar

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from advisor.decision.hints import Hints


class AdvisorApp(App[None]):
    """advisor's interactive front end.

    Args:
        kb: Knowledge folder (default: `ADVISOR_KB`, else the bundled one).
        lang: Interface language; None uses the one remembered from the last run, else the
            environment's.
        index: An already loaded search index (tests share one); loaded from `kb` otherwise.
        config: Folder for settings and the autosaved session (default: the user's config folder).
        tree: Decision tree file for the wizard (default: the bundled one).
    """

    CSS_PATH = "app.tcss"
    # The chat is the app's one mode; a mode (rather than `get_default_screen`) also loads the
    # screen's own CSS_PATH.
    MODES = {"chat": ChatScreen}
    DEFAULT_MODE = "chat"
    COMMANDS = {AdvisorCommands}
    TITLE = "advisor"

    BINDINGS = [
        Binding("ctrl+g", "guide", "tui_key_guide"),
        Binding("ctrl+l", "toggle_language", "tui_key_language"),
        Binding("f1", "help", "tui_key_help"),
        Binding("question_mark", "help", "tui_key_help", show=False),
        Binding("ctrl+q", "quit", "tui_key_quit", priority=True),
    ]

    lang: reactive[str] = reactive("en", init=False)
    """Interface language ("en" or "vi"); screens and the footer watch it."""

    learning: reactive[bool] = reactive(False, init=False)
    """Whether questions answered poorly are kept for review (`advisor learn`); the chat watches it."""

    def __init__(
        self,
        kb: Path | None = None,
        lang: str | None = None,
        *,
        index: SearchIndex | None = None,
        config: Path | None = None,
        tree: Path | None = None,
    ) -> None:
        super().__init__()
        self.kb = kb
        self.tree_path = tree
        self._index = index
        self._tree: Tree | None = None
        self._store: SessionStore | None = None
        self._autosave_failed = False
        self._suggester: QuestionSuggester | None = None
        self.export_format = "md"
        """The format the last export used: the export dialog offers it first."""
        self._index_lock = threading.Lock()
        self.knowledge_ready = asyncio.Event()
        """Set once the index is open and the suggester built (after the first paint)."""
        self.settings_file = settings_path(config)
        self.config_folder = self.settings_file.parent
        loaded = load_settings(self.settings_file, default_lang=default_language())
        self.settings = loaded.settings
        self._loaded_settings = loaded  # its problem is shown once the app is up
        self.set_reactive(AdvisorApp.lang, lang or self.settings.lang)
        self.set_reactive(AdvisorApp.learning, question_log.is_on(str(self.config_folder)))
        if self.settings.theme and self.settings.theme in self.available_themes:
            self.theme = self.settings.theme

    # The engine -------------------------------------------------------------------------------

    @property
    def index(self) -> SearchIndex:
        """The search index, loaded on first use (by the loading worker, unless asked sooner)."""
        with self._index_lock:
            if self._index is None:
                from advisor.library import open_index

                self._index = open_index(self.kb_root)
            return self._index

    @property
    def kb_root(self) -> Path:
        """The knowledge folder in use."""
        from advisor.paths import knowledge_dir

        return self.kb or knowledge_dir()

    @property
    def decision_tree(self) -> Tree:
        """The decision tree, loaded on first use (`DataError` when it cannot be used)."""
        if self._tree is None:
            from advisor.library import open_tree

            self._tree = open_tree(self.tree_path)
        return self._tree

    @cached_property
    def tree_hints(self) -> Hints:
        """The phrases by which a question settles the wizard's answers (`advisor.decision.hints`);
        none when the tree cannot be used (the wizard then says why when it is opened). Kept: a
        tree that cannot be loaded would otherwise be read and checked again for every answer."""
        from advisor.decision.hints import NO_HINTS, hints_of

        try:
            return hints_of(self.decision_tree)
        except DataError:
            return NO_HINTS

    @property
    def store(self) -> SessionStore:
        """Where the wizard's session is autosaved."""
        if self._store is None:
            self._store = SessionStore(self.config_folder, self.decision_tree)
        return self._store

    @property
    def suggester(self) -> QuestionSuggester | None:
        """Search-as-you-type, once `knowledge_ready` is set."""
        return self._suggester

    # Start-up ---------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.title = t("tui_title", self.lang)
        self.watch(self, "theme", self._theme_changed, init=False)
        self._exit_on_signals()
        if self._loaded_settings.problem is not None:
            where = self._loaded_settings.moved_to or self.settings_file
            self.notify(t("tui_settings_corrupt", self.lang, path=str(where), reason=self._loaded_settings.problem), severity="warning", timeout=15)
        self.call_after_refresh(self._after_first_paint)

    def _after_first_paint(self) -> None:
        """Open the knowledge in a thread: a large folder takes seconds to index the first time,
        and even a cached one should not hold back the first screen or a keystroke."""
        self.run_worker(self._load_knowledge, thread=True, group="knowledge", exit_on_error=False)
        self.offer_resume()

    def _load_knowledge(self) -> None:
        try:
            suggester = QuestionSuggester(self.index)
        except AdvisorError as error:  # a cache that cannot be used: answered without suggestions
            self.call_from_thread(self.notify, error.text(self.lang), severity="error", timeout=10)
            suggester = None
        self._suggester = suggester
        self.call_from_thread(self.knowledge_ready.set)

    def _exit_on_signals(self) -> None:
        """SIGTERM and SIGHUP (`kill`, a closed terminal window) end the app the way Ctrl+Q does,
        so Textual leaves the alternate screen and turns mouse reporting off again."""
        import asyncio
        import signal

        loop = asyncio.get_running_loop()
        for name in ("SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is not None:
                try:
                    loop.add_signal_handler(number, self._end_by_signal, number)
                except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no Unix signals
                    pass

    def _end_by_signal(self, number: int) -> None:
        self.exit(return_code=128 + number)  # the shell's convention for "ended by signal N"

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None, markup: bool = False) -> None:
        """Every notification, with markup off and escape sequences removed, whatever the caller
        asked: advisor's notices carry file names, paths, error text and session values, and a
        `[` in a file name must not crash the app or turn into an action."""
        super().notify(clean(message), title=clean(title), severity=severity, timeout=timeout, markup=False)

    def offer_resume(self) -> None:
        """If the last run left an unfinished (or finished) wizard session, offer to resume it.

        A saved session that cannot be read is moved aside with a notice; the app starts fresh.
        Nothing is loaded when there is no saved session (the usual start).
        """
        if not os.path.lexists(self.config_folder / SESSION_FILE):  # as `SessionStore.load`: a dangling link is reported too
            return
        try:
            loaded = self.store.load()
        except DataError:
            return  # no usable tree: the guide says so when asked for
        lang = self.lang
        if loaded.problem is not None:
            where = str(loaded.moved_to) if loaded.moved_to else str(self.store.path)
            self.notify(t("tui_session_corrupt", lang, path=where, reason=loaded.problem), severity="warning", timeout=15)
            return
        session = loaded.session
        if session is None or not session.answers:
            return

        def answered(resume: bool | None) -> None:
            if resume:
                self.open_wizard(session)
            else:
                self.store.clear()

        count = len(session.answers)
        self.push_screen(
            ConfirmDialog(
                t("tui_resume_title", lang),
                t("tui_resume_question", lang, count=count),
                t("tui_resume_yes", lang),
                t("tui_resume_no", lang),
            ),
            answered,
        )

    # Language and theme -----------------------------------------------------------------------

    def watch_lang(self, lang: str) -> None:
        self.title = t("tui_title", lang)
        self._remember(lang=lang)

    def _theme_changed(self, theme: str) -> None:
        self._remember(theme=theme)

    def _remember(self, **changes: str) -> None:
        values = {"lang": self.lang, "theme": self.settings.theme, **changes}
        self.settings = Settings(**values)
        if not save_settings(self.settings_file, self.settings):
            self.notify(t("tui_settings_not_saved", self.lang, path=str(self.settings_file)), severity="warning")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide "Guide" from the footer where the guide is already on screen (it saves room at 80 columns)."""
        if action == "guide" and isinstance(self.screen, (WizardScreen, SummaryScreen)):
            return False
        return True

    def action_command_palette(self) -> None:
        """Ctrl+P: Textual's command palette, with its prompt in the interface language."""
        from textual.command import CommandPalette

        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]  # App[None] is an App
            self.push_screen(CommandPalette(id="--command-palette", placeholder=t("tui_palette_placeholder", self.lang)))

    def action_help_quit(self) -> None:
        """Ctrl+C: Textual's reminder that Ctrl+Q quits, in the interface language."""
        self.notify(t("tui_quit_hint", self.lang, keys="Ctrl+Q"), title=t("tui_quit_title", self.lang), markup=False)

    def action_change_theme(self) -> None:
        """The theme picker (command palette): Textual's, with the prompt translated."""
        from textual.command import CommandPalette
        from textual.theme import ThemeProvider

        self.push_screen(CommandPalette(providers=[ThemeProvider], placeholder=t("tui_theme_placeholder", self.lang)))

    def action_toggle_language(self) -> None:
        """Ctrl+L: switch between English and Vietnamese (remembered for next time)."""
        self.lang = "vi" if self.lang == "en" else "en"
        self.notify(t("tui_language_now", self.lang))

    def action_toggle_learning(self) -> None:
        """From the palette: keep the questions answered poorly, or stop (as `advisor learn on/off`)."""
        try:
            question_log.switch(not self.learning, str(self.config_folder))
        except OSError as error:
            self.notify(f"{error.strerror or error}: {self.config_folder}", severity="error")
            return
        self.learning = not self.learning
        self.notify(t("tui_learning_now_on" if self.learning else "tui_learning_now_off", self.lang, path=question_log.log_path(str(self.config_folder))))

    # Navigation -------------------------------------------------------------------------------

    def open_entry(self, topic: str, lang: str | None) -> None:
        """Show entry `topic` full-screen."""
        self.push_screen(EntryScreen(topic, lang))

    def action_help(self) -> None:
        """F1 or `?`: the key reference."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.help_sections(), self.lang))

    def help_sections(self) -> list[HelpSection]:
        """Every key of every screen, read from the classes' bindings so it cannot drift."""

        def rows(*sources: object) -> list[tuple[str, str]]:
            out: list[tuple[str, str]] = []
            for source in sources:
                if isinstance(source, tuple):
                    out.append(source)  # an extra row: (key, label key)
                    continue
                for binding in getattr(source, "BINDINGS", []):
                    if isinstance(binding, Binding) and binding.description:
                        if binding.description == "tui_key_choose_number":  # nine keys, one row
                            if ("1-9", binding.description) not in out:
                                out.append(("1-9", binding.description))
                            continue
                        out.append((binding.key, binding.description))
            return out

        everywhere = rows(AdvisorApp, ("ctrl+p", "tui_key_palette"), ("tab", "tui_key_focus_next"), ("shift+tab", "tui_key_focus_previous"))
        chat = rows(("enter", "tui_key_ask"), AskBar, ("ctrl+u", "tui_key_clear_input"), ChatScreen, ("enter", "tui_key_choose_followup"))
        wizard = rows(("up,down", "tui_key_move"), ("enter", "tui_key_choose"), WizardScreen, ("tab", "tui_key_focus_next"), ("enter", "tui_key_change_answer"))
        return [
            ("tui_help_everywhere", everywhere),
            ("tui_help_chat", chat),
            ("tui_help_entry", rows(EntryScreen)),
            ("tui_help_wizard", wizard),
            ("tui_help_summary", rows(SummaryScreen, ("enter", "tui_key_open_cited"))),
            ("tui_help_dialogs", rows(ConfirmDialog, ("enter", "tui_key_confirm"))),
        ]

    def action_ask(self) -> None:
        """Back to the chat with the question input focused."""
        while not isinstance(self.screen, ChatScreen) and len(self.screen_stack) > 1:
            self.pop_screen()
        self.call_after_refresh(lambda: self.screen.query_one("#question").focus())

    def ask_question(self, question: str) -> None:
        """Ask `question` in the chat (used by the command palette)."""
        self.action_ask()

        async def ask() -> None:
            screen = self.screen
            if isinstance(screen, ChatScreen):
                await screen.ask(question)

        self.call_after_refresh(ask)

    def action_guide(self) -> None:
        """Ctrl+G: the guided wizard (where it was left, or from the start)."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, (WizardScreen, SummaryScreen)):  # already open: go back to it
                while self.screen is not screen:
                    self.pop_screen()
                return
        try:
            loaded = self.store.load()
        except DataError as error:
            self.notify(t("tui_guide_unavailable", self.lang, problem=str(error.problem)), severity="error", timeout=10)
            return
        if loaded.problem is not None:
            where = str(loaded.moved_to) if loaded.moved_to else str(self.store.path)
            self.notify(t("tui_session_corrupt", self.lang, path=where, reason=loaded.problem), severity="warning", timeout=15)
        self.open_wizard(loaded.session or Session.start(self.decision_tree))

    def open_wizard(self, session: Session) -> None:
        """Show the wizard at `session` (its summary too, when the session is finished)."""
        self.push_screen(WizardScreen(session))

    def open_wizard_with(self, answers: tuple[tuple[str, str], ...]) -> None:
        """The wizard from the start, with the `answers` an asked question settles given; a saved
        session with answers is replaced only once the user confirms it. With none given, the
        wizard opens as Ctrl+G opens it, where it was left."""
        if not answers:
            self.action_guide()
            return
        from advisor.decision.session import checked_answers

        lang = self.lang
        try:
            session = Session.of(self.decision_tree, checked_answers(self.decision_tree, dict(answers)))
            saved = self.store.load().session
        except AdvisorError as error:
            self.notify(t("tui_guide_unavailable", lang, problem=error.text(lang)), severity="error", timeout=10)
            return

        def start(yes: bool | None) -> None:
            if yes:
                self.autosave(session)
                self.open_wizard(session)

        if saved is None or not saved.answers:
            start(True)
            return
        self.push_screen(ConfirmDialog(t("tui_restart_title", lang), t("tui_restart_question", lang), t("tui_restart_yes", lang), t("tui_cancel", lang), default=False), start)

    def autosave(self, session: Session) -> None:
        """Save the wizard's session; the first failure is reported, later ones stay quiet."""
        problem = self.store.save(session)
        if problem is None:
            self._autosave_failed = False
        elif not self._autosave_failed:
            self._autosave_failed = True
            self.notify(t("tui_autosave_failed", self.lang, reason=problem), severity="warning", timeout=10)

    def show_summary(self, session: Session) -> None:
        """The recommendation for a finished session, over the wizard."""
        if isinstance(self.screen, SummaryScreen):
            return

        async def returned(result: str | None) -> None:
            wizard = self.screen
            if not isinstance(wizard, WizardScreen):
                return
            if result == "restart":
                await wizard.restart()
            else:
                await wizard.resume_from_summary()

        self.push_screen(SummaryScreen(session), returned)

    def action_export(self) -> None:
        """Export the finished wizard's recommendation (from the summary screen)."""
        summary = next((screen for screen in reversed(self.screen_stack) if isinstance(screen, SummaryScreen)), None)
        if summary is None:
            self.notify(t("tui_export_needs_summary", self.lang), severity="warning")
            return
        while self.screen is not summary:
            self.pop_screen()
        summary.action_export()

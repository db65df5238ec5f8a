"""The command palette's commands (Ctrl+P): ask, guide, export, language, theme, learning, help, quit."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from advisor.i18n import t

if TYPE_CHECKING:
    from advisor.tui.app import AdvisorApp


class AdvisorCommands(Provider):
    """Offers the app's main actions, in the interface language.

    Whatever is typed that is not a command can be asked as a question: the last hit is always
    "Ask: <what was typed>".
    """

    @property
    def advisor(self) -> AdvisorApp:
        return cast("AdvisorApp", self.app)

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app = self.advisor
        lang = app.lang
        return [
            (t("tui_cmd_ask", lang), app.action_ask, t("tui_cmd_ask_help", lang)),
            (t("tui_cmd_guide", lang), app.action_guide, t("tui_cmd_guide_help", lang)),
            (t("tui_cmd_export", lang), app.action_export, t("tui_cmd_export_help", lang)),
            (t("tui_cmd_language", lang), app.action_toggle_language, t("tui_cmd_language_help", lang)),
            (t("tui_cmd_theme", lang), app.action_change_theme, t("tui_cmd_theme_help", lang)),
            (t("tui_cmd_learning_off" if app.learning else "tui_cmd_learning_on", lang), app.action_toggle_learning, t("tui_cmd_learning_help", lang)),
            (t("tui_cmd_help", lang), app.action_help, t("tui_cmd_help_help", lang)),
            (t("tui_cmd_quit", lang), app.action_quit, t("tui_cmd_quit_help", lang)),
        ]

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
        question = query.strip()
        if question:
            lang = self.advisor.lang
            label = f"{t('tui_cmd_ask', lang)}: {question}"
            yield Hit(0.01, Content(label), partial(self.advisor.ask_question, question), text=label, help=t("tui_cmd_ask_help", lang))

"""The wizard's end: the recommendation, its reasons and checklist, cited entries, export."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from advisor.decision.recommend import Recommendation, recommend
from advisor.decision.session import Session
from advisor.export import recommendation_view, render
from advisor.export.view import AnswerView, RecommendationView, because_text
from advisor.files import atomic_write
from advisor.i18n import t
from advisor.problems import OutputError
from advisor.textnorm import strip_terminal_escapes as clean
from advisor.tui.screens.advisor_screen import AdvisorScreen
from advisor.tui.screens.confirm_dialog import ConfirmDialog
from advisor.tui.screens.export_dialog import ExportDialog, ExportRequest
from advisor.tui.widgets.choice_list import ChoiceList
from advisor.tui.widgets.localized_footer import LocalizedFooter


EXPORT_STEM = "advisor-recommendation"


class SummaryScreen(AdvisorScreen[str | None]):
    """Shows the recommendation (deployment, reasons, checklist, assumptions) and the cited entries.

    Escape leaves for the chat (the session stays saved: Ctrl+G comes back here). Dismisses
    "back" (a: change answers) or "restart" (Ctrl+R); the wizard underneath acts on it. It lays out the same `RecommendationView` the exports render, and exports with the
    functions the CLI uses.

    Args:
        session: A finished session.
    """

    CSS_PATH = "summary_screen.tcss"
    AUTO_FOCUS = "#summary-body"
    # Below 30 rows the cited entries give their room to the recommendation (see the .tcss).
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]

    BINDINGS = [
        Binding("escape", "chat", "tui_key_chat"),
        Binding("e", "export", "tui_key_export"),
        Binding("a", "back", "tui_key_change_answers"),
        Binding("ctrl+r", "restart", "tui_key_restart", show=False),  # in F1's list: the footer is full at 80 columns
        Binding("r", "focus_cited", "tui_key_cited", show=False),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.recommendation: Recommendation = recommend(session)
        self.exported: list[Path] = []
        self._views: dict[str, RecommendationView] = {}


    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(id="summary-body")
        yield Static("", id="summary-cited-label", markup=False)
        yield ChoiceList(id="summary-cited")
        yield LocalizedFooter()

    async def on_mount(self) -> None:
        self.watch(self.app, "lang", self._language_changed, init=False)
        await self.refresh_view()

    def _language_changed(self, _lang: str) -> None:
        self.call_later(self.refresh_view)

    def view(self, lang: str) -> RecommendationView:
        """The recommendation in `lang`, with titles and the providers that fit, as every export has it."""
        if lang not in self._views:
            self._views[lang] = recommendation_view(self.recommendation, lang, self.advisor.index, self.advisor.kb_root)
        return self._views[lang]

    def export_text(self, fmt: str, lang: str) -> str:
        """The export in `fmt`, built by the same function as `advisor recommend`'s."""
        return render(self.view(lang), fmt)

    async def refresh_view(self) -> None:
        """Lay out the recommendation as plain widgets, in the interface language.

        The Markdown export of a recommendation builds some 600 widgets in Textual's Markdown
        viewer (about a second at 80x24); these few dozen Statics say the same, styled by the
        theme, from the same view the exports render.
        """
        lang = self.advisor.lang
        view = self.view(lang)
        word = view.word
        self.sub_title = word("recommendation")
        sharing = ", ".join(label for _, label in view.sharing) or word("whole_gpus")
        headline = [(word("deployment"), view.deployment_label), *([(word("card"), view.card[1])] if view.card else []), (word("gpu_sharing"), sharing)]
        titles = dict(view.kb)
        rows: list[Static] = [
            Static("\n".join(f"{name}: {clean(value)}" for name, value in headline), id="summary-headline", markup=False),
            Static(word("reasons"), classes="summary-heading", markup=False),
        ]
        topic = None
        for point in view.points:
            if point.topic != topic:
                topic = point.topic
                rows.append(Static(clean(point.topic_label), classes="summary-topic", markup=False))
            rows.append(Static(f"• {clean(point.text)}", classes="summary-point", markup=False))
            rows.append(Static(f"{word('because')}: {self._because(view, point.because)}", classes="summary-because", markup=False))
            if point.kb:
                cited = ", ".join(clean(titles.get(kb_id) or kb_id) for kb_id in point.kb)
                rows.append(Static(f"{word('read_more')}: {cited}", classes="summary-because", markup=False))
        if view.checklist:
            rows.append(Static(word("checklist"), classes="summary-heading", markup=False))
            rows.extend(Static(f"☐ {clean(item.text)}", classes="summary-check", markup=False) for item in view.checklist)
        rows.extend(self._provider_rows(view))
        if view.assumptions:
            rows.append(Static(word("assumptions"), classes="summary-heading", markup=False))
            rows.append(Static(word("assumptions_note"), classes="summary-because", markup=False))
            rows.extend(Static(f"• {self._because(view, (answer,))}", classes="summary-point", markup=False) for answer in view.assumptions)
        body = self.query_one("#summary-body", VerticalScroll)
        await body.remove_children()
        await body.mount_all(rows)
        self.query_one("#summary-cited-label", Static).update(t("tui_summary_cited", lang))
        cited_list = self.query_one("#summary-cited", OptionList)
        cited_list.set_options(Option(f"› {clean(title or kb_id)}", id=kb_id) for kb_id, title in view.kb)

    def _provider_rows(self, view: RecommendationView) -> list[Static]:
        """The providers-that-fit section."""
        providers, lang = view.providers, view.lang
        if providers is None:
            return []
        rows = [Static(t("prov_fit_heading", lang), classes="summary-heading", markup=False)]
        if not providers.needs:
            return rows + [Static(providers.none_needed(lang), classes="summary-because", markup=False)]
        rows.append(Static(t("prov_fit_needs", lang, needs=providers.needs_text), classes="summary-because", markup=False))
        if not providers.providers:
            rows.append(Static(t("prov_none_fit", lang), classes="summary-point", markup=False))
        for found in providers.providers:
            note = providers.card_note(found, lang)
            rows.append(Static(f"• {clean(found.name)}: {clean(found.status_text)}" + (f" · {clean(note)}" if note else ""), classes="summary-point", markup=False))
            for check in found.verify:
                rows.append(Static(clean(t("prov_verify_item", lang, what=check.need_text, url=check.link or "")), classes="summary-because", markup=False))
        rows.append(Static(clean(providers.reminder), classes="summary-because", markup=False))
        return rows

    @staticmethod
    def _because(view: RecommendationView, answers: tuple[AnswerView, ...]) -> str:
        assumed = f" ({view.word('assumed')})"
        return "; ".join(clean(text) + (assumed if is_assumed else "") for text, is_assumed in because_text(view, answers))

    # Reading cited entries --------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#summary-cited")
    def _open_cited(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.advisor.open_entry(event.option.id, self.advisor.lang)

    def action_focus_cited(self) -> None:
        cited = self.query_one("#summary-cited", OptionList)
        if cited.option_count:
            cited.focus()
            if cited.highlighted is None:
                cited.highlighted = 0

    # Export --------------------------------------------------------------------------------------------

    def action_export(self, name: str | None = None) -> None:
        """e: ask for a format and a file name (the last format chosen comes first), then write."""
        dialog = ExportDialog(EXPORT_STEM, Path.cwd(), self.advisor.lang, self.advisor.export_format, name)
        self.app.push_screen(dialog, self._export_chosen)

    def _export_chosen(self, request: ExportRequest | None) -> None:
        if request is None:
            return
        self.advisor.export_format = request.fmt
        lang = self.advisor.lang
        if request.path.exists() and not request.path.is_dir():

            def confirmed(replace: bool | None) -> None:
                if replace:
                    self.export(request, force=True)
                else:  # keep the file: back to the dialog to give another name
                    self.notify(t("tui_export_kept", lang, path=str(request.path)))
                    self.action_export(_shown_name(request.path))

            self.app.push_screen(
                ConfirmDialog(
                    t("tui_overwrite_title", lang),
                    t("tui_overwrite_question", lang, path=str(request.path)),
                    t("tui_overwrite_yes", lang),
                    t("tui_overwrite_no", lang),
                    default=False,
                ),
                confirmed,
            )
        else:
            self.export(request, force=False)

    def export(self, request: ExportRequest, force: bool) -> bool:
        """Render and write `request`; a failure is a notification, never a crash.

        Returns:
            True when the file was written.
        """
        lang = self.advisor.lang
        try:
            atomic_write(request.path, self.export_text(request.fmt, lang), force=force)
        except (OutputError, OSError, ValueError) as error:
            reason = error.text(lang) if isinstance(error, OutputError) else str(error)
            self.notify(t("tui_export_failed", lang, reason=reason), severity="error", timeout=10)
            return False
        self.exported.append(request.path)
        self.notify(t("tui_export_saved", lang, path=str(request.path)), timeout=10)
        return True

    # Leaving ------------------------------------------------------------------------------------------

    def action_back(self) -> None:
        """a: back to the wizard to change answers."""
        self.dismiss("back")

    def action_chat(self) -> None:
        """Escape: back to the chat; the wizard and this summary are left, their session saved."""
        self.advisor.action_ask()

    def action_restart(self) -> None:
        """Ctrl+R: after confirming, start the wizard again."""
        lang = self.advisor.lang

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.dismiss("restart")

        self.app.push_screen(
            ConfirmDialog(t("tui_restart_title", lang), t("tui_restart_question", lang), t("tui_restart_yes", lang), t("tui_cancel", lang), default=False),
            confirmed,
        )


def _shown_name(path: Path) -> str:
    """`path` as the export dialog shows it: relative to the working folder when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)

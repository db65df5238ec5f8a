"""The wizard's end: the recommendation, its reasons and checklist, cited entries, export."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from advisor.export.formats import knowledge_titles, providers_that_fit, render
from advisor.files import atomic_write
from advisor.i18n import t
from advisor.problems import OutputError
from advisor.decision.recommend import Recommendation, recommend
from advisor.decision.session import Answer, Session
from advisor.textnorm import strip_terminal_escapes as clean
from advisor.tui.screens.confirm_dialog import ConfirmDialog
from advisor.tui.screens.export_dialog import ExportDialog, ExportRequest
from advisor.tui.widgets.choice_list import ChoiceList
from advisor.tui.widgets.localized_footer import LocalizedFooter

if TYPE_CHECKING:
    from advisor.tui.app import AdvisorApp

EXPORT_STEM = "advisor-recommendation"


class SummaryScreen(Screen[str | None]):
    """Shows the recommendation (deployment, reasons, checklist, assumptions) and the cited entries.

    Dismisses "back" (Escape: change answers) or "restart" (Ctrl+R); the wizard underneath acts
    on it. Export renders and writes with `advisor.export.formats`, the functions the CLI uses.

    Args:
        session: A finished session.
    """

    CSS_PATH = "summary_screen.tcss"
    AUTO_FOCUS = "#summary-body"

    BINDINGS = [
        Binding("e", "export", "tui_key_export"),
        Binding("escape", "back", "tui_key_change_answers"),
        Binding("ctrl+r", "restart", "tui_key_restart"),
        Binding("r", "focus_cited", "tui_key_cited", show=False),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.recommendation: Recommendation = recommend(session)
        self.exported: list[Path] = []
        self._providers: dict[str, dict[str, Any] | None] = {}
        self._titles: dict[str, dict[str, str]] = {}

    @property
    def advisor(self) -> AdvisorApp:
        return cast("AdvisorApp", self.app)

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

    def titles(self, lang: str) -> dict[str, str]:
        """Knowledge id → entry title, for the ids the recommendation cites."""
        if lang not in self._titles:
            self._titles[lang] = knowledge_titles(self.recommendation, lang, self.advisor.index)
        return self._titles[lang]

    def providers(self, lang: str) -> dict[str, Any] | None:
        """The providers that fit, exactly as `advisor recommend` adds them; None without a catalogue."""
        if lang not in self._providers:
            self._providers[lang] = providers_that_fit(self.recommendation, lang, self.advisor.kb_root)
        return self._providers[lang]

    def export_text(self, fmt: str, lang: str) -> str:
        """The export in `fmt`, built by the same function as `advisor recommend`'s."""
        return render(self.recommendation, fmt, lang, self.titles(lang), self.providers(lang))

    async def refresh_view(self) -> None:
        """Lay out the recommendation as plain widgets, in the interface language.

        The Markdown export of a recommendation builds some 600 widgets in Textual's Markdown
        viewer (about a second at 80x24); these few dozen Statics say the same, styled by the
        theme. The files themselves come from `advisor.export.formats`, like the CLI's.
        """
        rec = self.recommendation
        tree = rec.tree
        lang = self.advisor.lang
        label = tree.label
        self.sub_title = label("recommendation", lang)
        deployment = tree.choice_label(tree.deployments, rec.deployment, lang)
        if rec.gpu_sharing:
            sharing = ", ".join(tree.choice_label(tree.sharing_modes, mode, lang) for mode in rec.gpu_sharing)
        else:
            sharing = label("whole_gpus", lang)
        titles = self.titles(lang)
        rows: list[Static] = [
            Static(f"{label('deployment', lang)}: {clean(deployment)}\n{label('gpu_sharing', lang)}: {clean(sharing)}", id="summary-headline", markup=False),
            Static(label("reasons", lang), classes="summary-heading", markup=False),
        ]
        topic = None
        for point in rec.points:
            if point.topic != topic:
                topic = point.topic
                rows.append(Static(clean(tree.choice_label(tree.topics, topic, lang)), classes="summary-topic", markup=False))
            rows.append(Static(f"• {clean(point.text.get(lang))}", classes="summary-point", markup=False))
            rows.append(Static(f"{label('because', lang)}: {self._because(point.because, lang)}", classes="summary-because", markup=False))
            if point.kb:
                cited = ", ".join(clean(titles.get(kb_id, kb_id)) for kb_id in point.kb)
                rows.append(Static(f"{label('read_more', lang)}: {cited}", classes="summary-because", markup=False))
        if rec.checklist:
            rows.append(Static(label("checklist", lang), classes="summary-heading", markup=False))
            rows.extend(Static(f"☐ {clean(item.text.get(lang))}", classes="summary-check", markup=False) for item in rec.checklist)
        rows.extend(self._provider_rows(lang))
        if rec.assumptions:
            rows.append(Static(label("assumptions", lang), classes="summary-heading", markup=False))
            rows.append(Static(label("assumptions_note", lang), classes="summary-because", markup=False))
            rows.extend(Static(f"• {self._because((answer,), lang)}", classes="summary-point", markup=False) for answer in rec.assumptions)
        body = self.query_one("#summary-body", VerticalScroll)
        await body.remove_children()
        await body.mount_all(rows)
        self.query_one("#summary-cited-label", Static).update(t("tui_summary_cited", lang))
        cited_list = self.query_one("#summary-cited", OptionList)
        cited_list.set_options(Option(f"› {clean(titles.get(kb_id, kb_id))}", id=kb_id) for kb_id in rec.kb)

    def _provider_rows(self, lang: str) -> list[Static]:
        """The providers-that-fit section, from the same data the exports show."""
        providers = self.providers(lang)
        if providers is None:
            return []
        rows = [Static(t("prov_fit_heading", lang), classes="summary-heading", markup=False)]
        if not providers["needs"]:
            return rows + [Static(t("prov_fit_none_needed", lang), classes="summary-because", markup=False)]
        rows.append(Static(t("prov_fit_needs", lang, needs=providers["needs_text"]), classes="summary-because", markup=False))
        if not providers["providers"]:
            rows.append(Static(t("prov_none_fit", lang), classes="summary-point", markup=False))
        for found in providers["providers"]:
            rows.append(Static(f"• {clean(found['name'])}: {clean(found['status_text'])}", classes="summary-point", markup=False))
            for check in found["verify"]:
                rows.append(Static(clean(t("prov_verify_item", lang, what=check["need_text"], url=check["link"] or "")), classes="summary-because", markup=False))
        rows.append(Static(clean(providers["reminder"]), classes="summary-because", markup=False))
        return rows

    def _because(self, answers: tuple[Answer, ...], lang: str) -> str:
        tree = self.recommendation.tree
        if not answers:
            return tree.label("always", lang)
        parts = []
        for answer in answers:
            question = tree.question(answer.key)
            option = question.option(answer.value) if question else None
            part = f"{clean(question.title.get(lang)) if question else answer.key}: {clean(option.label.get(lang)) if option else answer.value}"
            if answer.assumed:
                part += f" ({tree.label('assumed', lang)})"
            parts.append(part)
        return "; ".join(parts)

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

    def action_export(self) -> None:
        """e: ask for a file name and format, then write the export."""
        self.app.push_screen(ExportDialog(EXPORT_STEM, Path.cwd(), self.advisor.lang), self._export_chosen)

    def _export_chosen(self, request: ExportRequest | None) -> None:
        if request is None:
            return
        lang = self.advisor.lang
        if request.path.exists() and not request.path.is_dir():

            def confirmed(replace: bool | None) -> None:
                if replace:
                    self.export(request, force=True)
                else:
                    self.notify(t("tui_export_kept", lang, path=str(request.path)))

            self.app.push_screen(
                ConfirmDialog(
                    t("tui_overwrite_title", lang),
                    t("tui_overwrite_question", lang, path=str(request.path)),
                    t("tui_overwrite_yes", lang),
                    t("tui_cancel", lang),
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
            self.notify(t("tui_export_failed", lang, reason=str(error)), severity="error", timeout=10)
            return False
        self.exported.append(request.path)
        self.notify(t("tui_export_saved", lang, path=str(request.path)), timeout=10)
        return True

    # Leaving ------------------------------------------------------------------------------------------

    def action_back(self) -> None:
        """Escape: back to the wizard to change answers."""
        self.dismiss("back")

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

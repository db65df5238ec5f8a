"""Keyboard flows a newcomer tripped over (the usability review): Tab reaches the latest answer,
the summary has a way back to the chat, the export dialog saves the format chosen from the keys."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Button, Input

from advisor.decision.session import complete, save_session
from advisor.decision.validate import bundled_tree_path, load_tree
from advisor.search.index import SearchIndex
from advisor.tui.app import AdvisorApp
from advisor.tui.screens.chat_screen import ChatScreen
from advisor.tui.screens.confirm_dialog import ConfirmDialog
from advisor.tui.screens.export_dialog import ExportDialog
from advisor.tui.screens.summary_screen import SummaryScreen
from advisor.tui.screens.wizard_screen import WizardScreen
from advisor.tui.session_store import SESSION_FILE
from advisor.tui.widgets.answer_card import AnswerCard
from advisor.tui.widgets.format_choice import FormatChoice
from advisor.tui.widgets.no_answer_card import NoAnswerCard

from .helpers import ask, start_wizard

NOTEBOOK = {"workload": "notebook", "growth": "no", "gpu_memory": "24gb", "drivers": "preinstalled", "idle": "yes"}


def _card_of(widget: object) -> object:
    return next((node for node in getattr(widget, "ancestors", []) if isinstance(node, (AnswerCard, NoAnswerCard))), None)


async def test_tab_and_shift_tab_from_the_question_reach_the_latest_answer(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, "what is MIG")
        await ask(pilot, "gpu")  # no confident answer: "did you mean" choices
        latest = app.screen.query(NoAnswerCard).last()
        assert app.focused is not None and app.focused.id == "question"
        await pilot.press("tab")
        assert _card_of(app.focused) is latest
        await pilot.press("down", "enter")  # the second choice of the latest answer
        await pilot.pause()
        chosen = app.screen.query(AnswerCard).last()
        assert chosen.answer.id == latest.choices[1][0]
        await pilot.press("shift+tab")
        assert _card_of(app.focused) is chosen and app.focused is chosen.query_one(".answer-related")  # its follow-ups
        await pilot.press("shift+tab", "shift+tab")  # up through it, back to the question
        assert app.focused is not None and app.focused.id == "question"
        await pilot.press("tab")
        assert app.focused is chosen.query_one(".answer-open")  # the top of the latest answer
        await pilot.press("tab", "tab")  # on through it, then up to the answer before
        assert _card_of(app.focused) is latest


def _footer_actions(app: AdvisorApp) -> dict[str, str]:
    """What the footer shows: action -> key."""
    return {binding.action: binding.key for _, binding, enabled, _ in app.active_bindings.values() if binding.show and enabled}


async def test_escape_on_a_resumed_summary_goes_to_the_chat_and_ctrl_g_comes_back(kb_index: SearchIndex, config_dir: Path) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    save_session(complete(load_tree(bundled_tree_path()), NOTEBOOK).session, config_dir / SESSION_FILE)
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")  # resume: the recommendation
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        assert _footer_actions(app)["chat"] == "escape"  # the way out is on screen
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ChatScreen) and len(app.screen_stack) == 1
        assert app.focused is not None and app.focused.id == "question"
        await pilot.press("ctrl+g")  # and back to where the guide was left
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        assert app.screen.session.answers == complete(load_tree(bundled_tree_path()), NOTEBOOK).session.answers


async def test_ctrl_t_leaves_the_wizard_for_the_chat_keeping_the_answers(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await start_wizard(pilot)
        await pilot.press("1", "1")  # two answers
        assert _footer_actions(app)["app.ask"] == "ctrl+t"
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert isinstance(app.screen, ChatScreen)
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert isinstance(app.screen, WizardScreen) and len(app.screen.session.answers) == 2


async def _summary(pilot, answers: dict[str, str]) -> SummaryScreen:  # type: ignore[no-untyped-def]
    from .helpers import walk

    await pilot.press("ctrl+g")
    await pilot.pause()
    await walk(pilot, answers)
    assert isinstance(pilot.app.screen, SummaryScreen)
    return pilot.app.screen


async def test_export_right_then_enter_saves_html_under_an_html_name(kb_index: SearchIndex, tmp_path: Path) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await _summary(pilot, NOTEBOOK)
        await pilot.press("e")
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        assert isinstance(app.focused, FormatChoice)  # the format first, from the keyboard
        await pilot.press("right")
        name = dialog.query_one("#export-name", Input)
        assert dialog.fmt == "html" and name.value == "advisor-recommendation.html"
        assert "HTML" in str(dialog.query_one("#export-save", Button).label)  # not colour alone
        await pilot.press("enter")
        await pilot.pause()
        saved = tmp_path / "advisor-recommendation.html"
        assert saved.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        await pilot.press("e")  # the format chosen last comes first
        assert app.screen.query_one(FormatChoice).chosen == "html"


async def test_export_letters_choose_the_format_and_the_name_follows(kb_index: SearchIndex, tmp_path: Path) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await _summary(pilot, NOTEBOOK)
        await pilot.press("e", "j")
        dialog = app.screen
        assert isinstance(dialog, ExportDialog) and dialog.fmt == "json"
        name = dialog.query_one("#export-name", Input)
        await pilot.press("tab")
        assert app.focused is name
        await pilot.press("end", *"-mhj")
        assert name.value == "advisor-recommendation.json-mhj" and dialog.fmt == "json"  # typed, not format keys
        name.value = "plan.json"
        await pilot.press("enter")
        await pilot.pause()
        assert json.loads((tmp_path / "plan.json").read_text(encoding="utf-8"))["schema"] == 1


async def test_declining_to_replace_goes_back_to_the_name(kb_index: SearchIndex, tmp_path: Path) -> None:
    target = tmp_path / "advisor-recommendation.md"
    target.write_text("mine", encoding="utf-8")
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await _summary(pilot, NOTEBOOK)
        await pilot.press("e", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        assert dialog.query_one("#export-name", Input).value == "advisor-recommendation.md"
        dialog.query_one("#export-name", Input).value = "other.md"
        await pilot.press("enter")
        await pilot.pause()
        assert target.read_text(encoding="utf-8") == "mine"
        assert (tmp_path / "other.md").read_text(encoding="utf-8").startswith("# ")


async def test_escape_hides_suggestions_but_never_clears_the_question(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        field = app.screen.query_one("#question", Input)
        await pilot.press(*"slurm vs kubernetes for training")
        await app.workers.wait_for_complete()
        await pilot.press("escape", "escape")
        assert field.value == "slurm vs kubernetes for training"
        await pilot.press("ctrl+u")
        assert field.value == ""


async def test_ctrl_c_says_how_to_quit_in_vietnamese(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="vi")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("ctrl+g")
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
        note = list(app._notifications)[-1]
        assert note.title == "Bạn muốn thoát?" and "Ctrl+Q" in note.message
        assert "quit" not in note.message.lower()


async def test_the_footer_leaves_no_stray_character_on_a_narrow_terminal(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        palette = app.screen.query_one(".-command-palette")
        assert palette.region.right == app.size.width  # nothing of the keys behind it shows past it


async def test_after_changing_the_first_answer_the_progress_counts_the_new_path(kb_index: SearchIndex) -> None:
    from textual.widgets import OptionList, Static

    from .helpers import choose

    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        wizard = await start_wizard(pilot)
        for value in ("batch", "80gb", "yes", "hard", "yes"):
            await choose(pilot, value)
        await pilot.press("a", "enter")  # change the first answer
        assert wizard.editing == "workload"
        await choose(pilot, "notebook")
        assert wizard.question is not None and wizard.question.key == "growth"
        total = len(wizard.session.with_defaults().walked)
        assert str(wizard.query_one("#wizard-progress", Static).render()) == f"Question 2 of about {total}"
        shown = [option.id for option in wizard.query_one("#wizard-answers", OptionList).options]
        assert shown == ["workload"]  # not the inference answers the new path has not reached


async def test_at_80x24_the_recommendation_keeps_most_of_the_screen(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        summary = await _summary(pilot, NOTEBOOK)
        assert summary.query_one("#summary-cited").region.height <= 2
        assert summary.query_one("#summary-body").region.height >= 16
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        summary = await _summary(pilot, NOTEBOOK)
        assert summary.query_one("#summary-cited").region.height == 4  # room enough: more of them

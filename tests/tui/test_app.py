"""Everywhere: language switch (remembered), help, command palette, quitting, robustness."""

from __future__ import annotations

import json
from pathlib import Path

from textual import events
from textual.command import CommandPalette
from textual.widgets import Input, Static

from advisor.i18n import labels, t
from advisor.search.index import SearchIndex
from advisor.tui.app import AdvisorApp
from advisor.tui.screens.chat_screen import ChatScreen
from advisor.tui.screens.help_screen import HelpScreen
from advisor.tui.screens.wizard_screen import WizardScreen
from advisor.tui.settings import SETTINGS_FILE
from advisor.tui.widgets.answer_card import AnswerCard
from advisor.tui.widgets.ask_bar import AskBar
from advisor.tui.widgets.localized_footer import LocalizedFooter
from advisor.tui.widgets.no_answer_card import NoAnswerCard
from advisor.tui.widgets.suggestion_list import SuggestionList

from .helpers import ask, settle


def footer_text(app: AdvisorApp) -> str:
    return " ".join(getattr(key, "description", "") for key in app.screen.query_one(LocalizedFooter).children)


async def test_switch_language_relabels_everything_and_is_remembered(kb_index: SearchIndex, config_dir: Path) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "what is MIG?")
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert app.lang == "vi"
        assert t("tui_key_help", "vi") in footer_text(app)
        assert app.screen.query_one("#question", Input).placeholder == t("tui_ask_placeholder", "vi")
        card = app.screen.query_one(AnswerCard)
        assert t("tui_source", "vi") in str(card.query_one(".answer-meta-text").render())
        await ask(pilot, "mig là gì")
        assert app.screen.query(AnswerCard).last().answer.lang == "vi"
    assert json.loads((config_dir / SETTINGS_FILE).read_text(encoding="utf-8"))["lang"] == "vi"

    again = AdvisorApp(index=kb_index)  # no --lang: the remembered choice wins
    async with again.run_test(size=(80, 24)):
        assert again.lang == "vi"
        assert again.title == t("tui_title", "vi")


async def test_a_question_that_names_too_little_says_so_in_either_language(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "is my gpu being used")
        card = app.screen.query_one(NoAnswerCard)
        note = card.query_one(".no-answer-note", Static)
        assert str(note.render()) == t("no_answer_vague", "en", words="gpu")
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert str(note.render()) == t("no_answer_vague", "vi", words="gpu")
        await ask(pilot, "nấu phở bò")  # off the subject: nothing to say more about
        assert not app.screen.query(NoAnswerCard).last().query(".no-answer-note")


def test_every_tui_label_is_translated() -> None:
    english = {key: value for key, value in labels("en").items() if key.startswith("tui_") and not key.endswith("_one")}  # singulars: English only
    vietnamese = labels("vi")
    assert english, "no TUI labels found"
    missing = sorted(key for key in english if not vietnamese.get(key))
    assert not missing
    for key, value in english.items():
        assert value.count("{") == vietnamese[key].count("{"), key


def test_every_label_the_tui_uses_exists() -> None:
    import re

    root = Path(__file__).resolve().parents[2] / "advisor"
    used: set[str] = set()
    for path in [*root.joinpath("tui").rglob("*.py"), root / "commands" / "tui.py"]:
        used.update(re.findall(r'"(tui_[a-z_]+[a-z])"', path.read_text(encoding="utf-8")))
    known = labels("en")
    assert sorted(key for key in used if key not in known) == []


async def test_help_lists_every_key(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        keys = {key.strip() for line in text.splitlines() for key in line.strip().split("  ")[0].split(" / ")}
        for key in ("F1", "?", "Ctrl+G", "Ctrl+L", "Ctrl+Q", "Ctrl+P", "Ctrl+O", "Esc", "Ctrl+R", "1-9", "↑", "↓", "Enter", "Tab", "PgUp", "e"):
            assert key in keys, key
        for section in ("tui_help_chat", "tui_help_wizard", "tui_help_summary", "tui_help_entry"):
            assert t(section, "en") in text
        await pilot.press("escape")
        assert isinstance(app.screen, ChatScreen)
        app.screen.set_focus(None)  # `?` types into the input, so leave it first
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


async def test_command_palette_switches_language(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        app.screen.query_one(Input).value = t("tui_cmd_language", "en")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.lang == "vi"


async def test_command_palette_turns_learning_on_and_off(kb_index: SearchIndex, tmp_path: Path) -> None:
    from textual.widgets import Static

    from advisor import question_log

    app = AdvisorApp(index=kb_index, lang="en", config=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        for command, now_on in (("tui_cmd_learning_on", True), ("tui_cmd_learning_off", False)):
            await pilot.press("ctrl+p")
            await pilot.pause()
            app.screen.query_one(Input).value = t(command, "en")
            await pilot.pause(0.3)
            await pilot.press("enter")
            await pilot.pause()
            assert app.learning is now_on and question_log.is_on(str(tmp_path)) is now_on
            welcome = str(app.screen.query_one("#welcome", Static).render())
            assert ("Learning is on" in welcome) is now_on


async def test_command_palette_offers_ask_guide_export_language_theme(kb_index: SearchIndex) -> None:
    from advisor.tui.advisor_commands import AdvisorCommands

    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)):
        provider = AdvisorCommands(app.screen)
        names = [hit.text async for hit in provider.discover()]
        for key in ("tui_cmd_ask", "tui_cmd_guide", "tui_cmd_export", "tui_cmd_language", "tui_cmd_theme"):
            assert t(key, "en") in names


async def test_ctrl_q_quits_cleanly(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+g")
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


# Robustness ------------------------------------------------------------------------------------


async def test_two_hundred_rapid_keystrokes(kb_index: SearchIndex) -> None:
    """Keys arrive faster than they are handled (no waiting between them), as with key repeat."""
    app = AdvisorApp(index=kb_index, lang="en")
    text = ("how do I share one gpu between several jobs " * 5)[:200]
    async with app.run_test(size=(80, 24)) as pilot:
        for character in text:
            key = "space" if character == " " else character
            app._driver.send_message(events.Key(key, character))  # type: ignore[union-attr]
        await settle(pilot)
        await settle(pilot)
        field = app.screen.query_one("#question", Input)
        assert field.value == text
        suggestions = app.screen.query_one(SuggestionList)
        assert suggestions.shown and suggestions.suggestions[0].topic == "faq-multiple-jobs-one-gpu"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query(AnswerCard) or app.screen.query(NoAnswerCard)


async def test_resize_to_40x10_and_back(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "what is MIG?")
        await pilot.resize_terminal(40, 10)
        await pilot.pause()
        await ask(pilot, "what is MPS?")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert isinstance(app.screen, WizardScreen)
        assert app.screen.has_class("-narrow")
        await pilot.press("1")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not app.screen.has_class("-narrow")
        await pilot.press("escape", "escape", "escape")
        await pilot.pause()
        assert isinstance(app.screen, ChatScreen)
        assert [card.answer.id for card in app.screen.query(AnswerCard)] == ["mig", "mps"]


async def test_paste_ten_thousand_characters(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    pasted = ("GPU sharing with MIG on Kubernetes " * 300)[:10_000]
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        field = app.screen.query_one("#question", Input)
        field.post_message(events.Paste(pasted))
        await settle(pilot)
        assert field.value == pasted
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query(AnswerCard) or app.screen.query(NoAnswerCard)
        shown = app.screen.query(".question").last().render().plain
        assert len(shown) < 400  # the conversation shows it shortened
        assert any("2000" in n.message for n in app._notifications)  # and says it was cut for the search
        await ask(pilot, "what is MIG?")  # still responsive
        assert app.screen.query(AnswerCard).last().answer.id == "mig"


async def test_askbar_is_the_only_thing_typing_reaches(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("q", "question_mark")  # letters bound elsewhere must type, not act
        assert app.screen.query_one(AskBar).input.value == "q?"
        assert isinstance(app.screen, ChatScreen)


async def test_theme_choice_is_remembered(kb_index: SearchIndex, config_dir: Path) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_change_theme()
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")
        app.theme = "nord"  # what choosing it in the picker does
        await pilot.pause()
    assert json.loads((config_dir / SETTINGS_FILE).read_text(encoding="utf-8"))["theme"] == "nord"
    again = AdvisorApp(index=kb_index)
    async with again.run_test(size=(80, 24)):
        assert again.theme == "nord"


async def test_a_burst_of_keys_in_the_wizard(kb_index: SearchIndex) -> None:
    """Number keys, arrows, Enter and Escape arriving unprocessed: no crash, a consistent state."""
    app = AdvisorApp(index=kb_index, lang="en")
    burst = ["1", "down", "2", "enter", "escape", "3", "up", "1", "2", "enter"] * 10
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+g")
        for key in burst:
            app._driver.send_message(events.Key(key, key if len(key) == 1 else None))  # type: ignore[union-attr]
        await settle(pilot)
        await settle(pilot)
        for screen in app.screen_stack:
            if isinstance(screen, WizardScreen):
                session = screen.session
                assert session.answers == type(session).of(session.tree, session.answers).answers  # a valid walk
        await pilot.press("ctrl+q")
    assert app.return_code == 0

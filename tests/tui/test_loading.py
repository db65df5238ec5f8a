"""The knowledge is loaded after the first paint, in a thread: the screen, the input and typing
never wait for it; a question asked before it is ready says so, then is answered."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Static

from advisor.i18n import t
from advisor.search.index import SearchIndex
from advisor.tui.app import AdvisorApp
from advisor.tui.screens import chat_screen
from advisor.tui.widgets.answer_card import AnswerCard
from advisor.tui.widgets.suggestion_list import SuggestionList

from .helpers import settle


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Holds the loading worker until the test opens the gate (as a large folder would)."""
    opened = threading.Event()
    load = AdvisorApp._load_knowledge

    def held(self: AdvisorApp) -> None:
        opened.wait(30)
        load(self)

    monkeypatch.setattr(AdvisorApp, "_load_knowledge", held)
    return opened


async def test_typing_before_the_knowledge_is_loaded_gets_suggestions_once_it_is(kb_index: SearchIndex, gate: threading.Event) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"what is time sl")
        await pilot.pause()
        suggestions = app.screen.query_one(SuggestionList)
        assert app.screen.query_one("#question").value == "what is time sl"  # typing was not held up
        assert not app.knowledge_ready.is_set() and not suggestions.shown
        gate.set()
        await settle(pilot)
        await settle(pilot)
        assert suggestions.shown and suggestions.suggestions[0].topic == "time-slicing"


async def test_a_question_asked_before_the_knowledge_is_loaded_waits_for_it(kb_index: SearchIndex, gate: threading.Event) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        app.screen.query_one("#question").value = "what is MIG?"
        await pilot.press("enter")
        await pilot.pause()
        loading = app.screen.query(".loading")
        assert len(loading) == 1 and str(loading.first(Static).render()) == t("tui_loading_knowledge", "en")
        assert not app.screen.query(AnswerCard)
        gate.set()
        await settle(pilot)
        await settle(pilot)
        assert [card.answer.id for card in app.screen.query(AnswerCard)] == ["mig"]
        assert not app.screen.query(".loading")


async def test_the_index_is_opened_after_the_first_paint(tiny_kb, gate: threading.Event) -> None:  # type: ignore[no-untyped-def]
    app = AdvisorApp(kb=tiny_kb, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#question") and app._index is None  # painted, nothing loaded
        gate.set()
        await settle(pilot)
        assert app._index is not None and app.suggester is not None


async def test_questions_answered_once_the_knowledge_is_loaded_fold_like_the_others(kb_index: SearchIndex, gate: threading.Event, monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers that waited for the knowledge come in place of their notices, not through the usual
    path, and still leave only the newest in full."""
    monkeypatch.setattr(chat_screen, "FULL_ANSWERS", 1)
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        for question in ("what is MIG?", "time slicing vs mps"):
            app.screen.query_one("#question").value = question
            await pilot.press("enter")
            await pilot.pause()
        assert len(app.screen.query(".loading")) == 2
        gate.set()
        await settle(pilot)
        await settle(pilot)
        assert [card.folded for card in app.screen.query(AnswerCard)] == [True, False]

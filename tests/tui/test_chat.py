"""Chat flows: ask and see an answer, the "did you mean" path, follow-ups, suggestions, recall."""

from __future__ import annotations

import pytest
from textual import events
from textual.widgets import Input, Markdown, OptionList, Static

from advisor.search.index import SearchIndex
from advisor.search.rank import search
from advisor.tui.app import AdvisorApp
from advisor.tui.screens import chat_screen
from advisor.tui.screens.chat_screen import ChatScreen
from advisor.tui.screens import entry_screen
from advisor.tui.screens.entry_screen import EntryScreen
from advisor.tui.widgets.answer_card import AnswerCard
from advisor.tui.widgets.no_answer_card import NoAnswerCard
from advisor.tui.widgets.suggestion_list import SuggestionList

from .helpers import ask, settle, until


async def test_opens_on_the_chat_with_the_question_input_focused(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)):
        assert isinstance(app.screen, ChatScreen)
        assert isinstance(app.focused, Input) and app.focused.id == "question"


async def test_ask_and_see_an_answer_with_confidence_and_source(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "how do I share one GPU between several jobs?")
        cards = app.screen.query(AnswerCard)
        assert len(cards) == 1
        card = cards.first()
        expected = search(kb_index, "how do I share one GPU between several jobs?", lang="en")
        assert card.answer.id == expected.best.topic
        meta = str(card.query_one(".answer-meta-text").render())
        assert "confidence" in meta and f"en/{card.answer.id}.md" in meta
        assert "Kubernetes" in card.query_one(".answer-body", Markdown).source
        assert app.screen.query_one("#question", Input).value == ""


async def test_an_answers_sources_are_one_line_each_and_a_click_opens_a_link(kb_index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sources are one paragraph (a Markdown list cost three widgets a source), still a line
    and a link each."""
    app = AdvisorApp(index=kb_index, lang="en")
    opened: list[str] = []
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test(size=(100, 40)) as pilot:
        await ask(pilot, "what is MIG?")
        card = app.screen.query(AnswerCard).last()
        sources = card.query_one(".answer-sources", Markdown)
        assert len(list(sources.walk_children())) == 1
        assert sources.children[0].size.height == len(card.answer.sources)
        line, url = next((number, url) for number, (_, url) in enumerate(card.answer.sources) if url)
        sources.scroll_visible(animate=False)
        await settle(pilot)
        await pilot.click(sources, offset=(4, line))
        await settle(pilot)
    assert opened == [url]


async def test_older_answers_fold_to_their_title_and_a_click_unfolds_one(kb_index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat_screen, "FULL_ANSWERS", 2)
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        for question in ("what is MIG?", "time slicing vs mps", "nvidia-smi not found inside my container"):
            await ask(pilot, question)
        first, second, third = app.screen.query(AnswerCard)
        assert (first.folded, second.folded, third.folded) == (True, False, False)
        assert not first.query(Markdown) and first.has_class("-folded")
        assert "MIG" in str(first.query_one(".answer-title", Static).render())  # the title stays, to find it again
        assert str(first.query_one(".answer-meta-text", Static).render()).endswith("· click to unfold")
        assert second.query(Markdown) and third.query(Markdown)
        first.scroll_visible(animate=False)
        await settle(pilot)
        await pilot.click(first.query_one(".answer-title"))
        await settle(pilot)
        assert not first.folded and "MIG" in first.query_one(".answer-body", Markdown).source
        assert "unfold" not in str(first.query_one(".answer-meta-text", Static).render())


async def test_a_provider_comparison_shares_the_width_between_its_columns(kb_index: SearchIndex) -> None:
    """Sized to their text, Textual's table columns squeezed the first provider to 8 cells."""
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, "compare gke and aks")
        await settle(pilot)
        card = app.screen.query_one(AnswerCard)
        assert card.answer.id == "provider:gke+aks" and card.has_class("-catalogue")
        headers = [cell for cell in card.query(".answer-body Static.header")]
        widths = [cell.region.width for cell in headers]
        assert len(widths) == 3 and max(widths) - min(widths) <= 2, widths


async def test_a_pasted_log_is_asked_whole_and_names_the_line_it_matched(kb_index: SearchIndex) -> None:
    """An Input keeps only the first line of a paste: a `kubectl describe` output would be asked
    as "Name: trainer-0". The question field asks a paste of several lines whole, as `ask -` does."""
    log = "\r".join(  # as a terminal pastes it: line ends are carriage returns
        [f"I1203 kubelet.go:{n}] SyncLoop (PLEG): event for pod ml/trainer-{n}" for n in range(30)]
        + ["Warning  FailedScheduling  default-scheduler  0/5 nodes are available: 5 Insufficient nvidia.com/gpu."]
    )
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        field = app.screen.query_one("#question", Input)
        field.value = "why is my pod"  # a question being typed when the log is pasted
        field.post_message(events.Paste(log))
        await settle(pilot)
        card = app.screen.query(AnswerCard).first()
        assert card.answer.id == "pods-pending-gpu"
        assert str(card.query_one(".answer-log-line", Static).render()).startswith("Matched line 31: Warning FailedScheduling")
        assert field.value == "why is my pod"  # what was typed is not lost
        field.value = ""
        field.post_message(events.Paste("one line only"))  # a one-line paste is typed in, not asked
        await settle(pilot)
        assert field.value == "one line only" and len(app.screen.query(AnswerCard)) == 1


async def test_an_entry_answering_beside_a_provider_shows_the_provider_facts_after_it(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await ask(pilot, "cluster autoscaler never scales up the gpu node group on eks")
        card = app.screen.query(AnswerCard).first()
        assert card.answer.id == "gpu-node-autoscaling"
        assert "(EKS)" in str(card.query_one(".answer-aside-title", Static).render())
        assert "Source:" in card.query_one(".answer-aside", Markdown).source
        await ask(pilot, "how do I share one GPU between several jobs?")  # no provider named: no aside
        assert not app.screen.query(AnswerCard).last().query(".answer-aside")


async def test_no_confident_answer_offers_did_you_mean_choices(kb_index: SearchIndex) -> None:
    question = "gpu"
    outcome = search(kb_index, question, lang="en")
    assert not outcome.answered and outcome.suggestions  # the premise of this test
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, question)
        assert not app.screen.query(AnswerCard)
        card = app.screen.query_one(NoAnswerCard)
        choices = card.query_one(OptionList)
        assert [option.id for option in choices.options] == [hit.topic for hit in outcome.suggestions]
        choices.focus()
        choices.highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
        answer = app.screen.query_one(AnswerCard)
        assert answer.answer.id == outcome.suggestions[0].topic
        assert answer.answer.score is None  # chosen, not guessed


async def test_an_off_topic_question_gets_no_choices_and_a_hint_that_names_none(kb_index: SearchIndex) -> None:
    question = "nấu phở bò"
    outcome = search(kb_index, question)
    assert not outcome.answered and outcome.hits and not outcome.suggestions  # the premise
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, question)
        card = app.screen.query_one(NoAnswerCard)
        assert not card.query(OptionList)
        hint = str(card.query_one(".no-answer-hint", Static).render())
        assert "Ctrl+G" in hint and "above" not in hint


async def test_with_learning_on_the_question_and_the_choice_made_for_it_are_kept(kb_index: SearchIndex) -> None:
    import json
    from pathlib import Path

    from advisor import question_log

    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)):
        assert "Learning is on" not in str(app.screen.query_one("#welcome", Static).render())
    question_log.switch(True)
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        assert "Learning is on" in str(app.screen.query_one("#welcome", Static).render())
        await ask(pilot, "gpu")  # no confident answer: "did you mean" choices
        choices = app.screen.query_one(NoAnswerCard).query_one(OptionList)
        choices.focus()
        choices.highlighted = 1
        await pilot.press("enter")
        await pilot.pause()
        chosen = choices.options[1].id
    kept = [json.loads(line) for line in Path(question_log.log_path()).read_text(encoding="utf-8").splitlines()]
    assert [(record["q"], record["picked"]) for record in kept] == [("gpu", None), ("gpu", chosen)]


async def test_follow_a_related_topic(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "what is MIG?")
        first = app.screen.query_one(AnswerCard)
        assert first.answer.id == "mig"
        related = first.query_one(".answer-related", OptionList)
        target = related.options[0].id
        app.screen.query_one("#history").scroll_to_widget(related, animate=False)  # the reader scrolls down
        await pilot.pause()
        await pilot.click(related, offset=(4, 0))
        await pilot.pause()
        cards = list(app.screen.query(AnswerCard))
        assert [card.answer.id for card in cards] == ["mig", target]


async def test_open_an_entry_full_screen_browse_related_and_come_back(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "what is MIG?")
        await pilot.press("ctrl+o")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, EntryScreen) and screen.topic == "mig"
        await pilot.press("r")  # to the related list
        await pilot.press("enter")
        await pilot.pause()
        assert len(screen.trail) == 2 and screen.topic != "mig"
        assert screen.query_one("#entry-trail").render().plain.startswith("MIG")
        await pilot.press("escape")
        await pilot.pause()
        assert screen.topic == "mig"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ChatScreen)


async def test_a_long_entry_opens_on_its_first_screenful_and_fills_in_the_rest(kb_index: SearchIndex) -> None:
    """The reader paints the top of a long entry first; the rest and the sources follow, and
    a rest still pending when the reader moves on is dropped, not added to the next entry."""
    from advisor.reply import entry_body
    from advisor.textnorm import strip_terminal_escapes

    def full_text(topic: str) -> str:
        return strip_terminal_escapes(entry_body(kb_index.meta(kb_index.entry_index(topic, "en")))).strip()  # type: ignore[arg-type]

    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_entry("kueue-gpu-queues", "en")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, EntryScreen)
        markdown = screen.query_one("#entry-markdown", Markdown)
        assert len(full_text("kueue-gpu-queues").splitlines()) > 2 * entry_screen.FIRST_LINES
        await until(pilot, lambda: markdown.source == full_text("kueue-gpu-queues"))
        assert markdown.source == full_text("kueue-gpu-queues")
        assert screen.query_one("#entry-sources-label", Static).display
        await screen.go("mig")
        await screen._show_rest(1, "## Late\nthe rest of kueue-gpu-queues", "")  # arrives after the move
        await until(pilot, lambda: markdown.source == full_text("mig"))
        assert markdown.source == full_text("mig")


async def test_suggestions_appear_while_typing_and_arrows_pick_one(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"what is time sl")  # typing is what is under test here
        await settle(pilot)
        suggestions = app.screen.query_one(SuggestionList)
        assert suggestions.shown and suggestions.suggestions[0].topic == "time-slicing"
        await pilot.press("down")
        assert suggestions.chosen is suggestions.suggestions[0]
        await pilot.press("enter")
        await settle(pilot)
        card = app.screen.query_one(AnswerCard)
        assert card.answer.id == "time-slicing"
        assert not suggestions.shown


async def test_up_arrow_recalls_earlier_questions(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "what is MIG?")
        await ask(pilot, "what is MPS?")
        field = app.screen.query_one("#question", Input)
        field.value = "draft"
        await settle(pilot)
        await pilot.press("up")
        assert field.value == "what is MPS?"
        await pilot.press("up")
        assert field.value == "what is MIG?"
        await pilot.press("down", "down")
        assert field.value == "draft"


async def test_command_palette_asks_a_question(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        app.ask_question("what is MIG?")
        await pilot.pause()
        await pilot.pause()
        assert app.screen.query_one(AnswerCard).answer.id == "mig"


async def test_entries_ranked_nearly_as_high_are_offered_and_can_be_asked(kb_index: SearchIndex) -> None:
    from advisor.reply import answer

    question = "infiniband rdma k8s"
    close = answer(kb_index, question).close
    assert close  # the premise of this test
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, question)
        card = app.screen.query_one(AnswerCard)
        assert str(card.query_one(".answer-close-label").render()) == "Also close:"
        offered = card.query_one(".answer-close", OptionList)
        assert [option.id for option in offered.options] == [entry_id for entry_id, _ in close]
        offered.focus()
        offered.highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
        assert [c.answer.id for c in app.screen.query(AnswerCard)][-1] == close[0][0]

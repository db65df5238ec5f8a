"""How the main screens look at 80x24, as committed SVGs (tests/tui/__snapshots__).

Regenerate with `pytest tests/tui/test_snapshots.py --snapshot-update` and look at the result;
Textual is pinned exactly in pyproject.toml because its rendering decides these files.
"""

from __future__ import annotations

from textual.pilot import Pilot

from advisor.search.index import SearchIndex
from advisor.tui.app import AdvisorApp

from .helpers import ask, walk
from .test_wizard import PERSONAS


def test_chat_with_an_answer(snap_compare, kb_index: SearchIndex) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot) -> None:
        await ask(pilot, "what is MIG?")

    assert snap_compare(AdvisorApp(index=kb_index, lang="en"), terminal_size=(80, 24), run_before=run_before)


def test_chat_with_suggestions_in_vietnamese(snap_compare, kb_index: SearchIndex) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot) -> None:
        while not pilot.app.screen.query("#question"):  # the first key must reach the input
            await pilot.pause(0.01)
        await pilot.press(*"chia se gpu")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(AdvisorApp(index=kb_index, lang="vi"), terminal_size=(80, 24), run_before=run_before)


def test_wizard_question(snap_compare, kb_index: SearchIndex) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot) -> None:
        await pilot.press("ctrl+g", "4", "2", "3", "1")  # inference, scaled, up to 80 GB, fits in part of a GPU: now "isolation"

    assert snap_compare(AdvisorApp(index=kb_index, lang="en"), terminal_size=(80, 24), run_before=run_before)


def test_summary(snap_compare, kb_index: SearchIndex) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot) -> None:
        await pilot.press("ctrl+g")
        await walk(pilot, PERSONAS["inference"])

    assert snap_compare(AdvisorApp(index=kb_index, lang="en"), terminal_size=(80, 24), run_before=run_before)

"""Search as you type must fit in a frame: every keystroke's suggestions in well under 16 ms."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from advisor.search.index import SearchIndex
from advisor.search.suggest import QuestionSuggester

FRAME_MS = 16.0


def keystroke_timings(index: SearchIndex, questions: list[str]) -> list[float]:
    """Milliseconds per call, one call per prefix of each question (what typing it would cost)."""
    suggester = QuestionSuggester(index)
    timings: list[float] = []
    for question in questions:
        for end in range(1, len(question) + 1):
            started = time.perf_counter()
            suggester.suggest(question[:end], "en")
            timings.append((time.perf_counter() - started) * 1000)
    return timings


def test_suggestions_take_well_under_a_frame_per_keystroke(kb_index: SearchIndex) -> None:
    dev = Path(__file__).resolve().parents[1] / "eval" / "dev.jsonl"
    questions = [json.loads(line)["q"] for line in dev.read_text(encoding="utf-8").splitlines()[:40] if line.strip()]
    timings = keystroke_timings(kb_index, questions)
    assert len(timings) > 1000
    assert statistics.median(timings) < FRAME_MS / 4
    assert statistics.quantiles(timings, n=100)[98] < FRAME_MS  # 99th percentile

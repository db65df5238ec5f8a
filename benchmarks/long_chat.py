"""How long an answer takes to appear late in a long chat session, with every answer shown in full
against the app's folding of older answers, side by side in one run:

    python benchmarks/long_chat.py            # 35 questions per session, four sessions (~4 min)

Each session asks the first 35 questions of `tests/eval/dev.jsonl` in one app (`App.run_test`, a
100x30 test terminal), timing each from Enter until the answer is on screen. The sessions alternate
between `FULL_ANSWERS` = 40 (nothing folds) and the app's own value. Prints the medians of the first
five answers and of answers 26-35, and the widget count at the end of a session.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from textual.widgets import Input

from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from advisor.search.index import SearchIndex
from advisor.tui.app import AdvisorApp
from advisor.tui.screens import chat_screen

ROOT = Path(__file__).resolve().parents[1]

QUESTIONS = [json.loads(line)["q"] for line in (ROOT / "tests" / "eval" / "dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()][:35]


async def session(index: SearchIndex, full_answers: int) -> tuple[list[float], int]:
    chat_screen.FULL_ANSWERS = full_answers
    app = AdvisorApp(index=index, lang="en", config=Path(tempfile.mkdtemp()))  # no saved session to resume
    times: list[float] = []
    async with app.run_test(size=(100, 30)) as pilot:
        for question in QUESTIONS:
            app.screen.query_one("#question", Input).value = question
            await app.workers.wait_for_complete()
            await pilot.pause()
            started = time.perf_counter()
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            times.append(time.perf_counter() - started)
        widgets = len(app.screen.query("*"))
    return times, widgets


async def main() -> None:
    index = open_index(bundled_knowledge_dir())
    folded = chat_screen.FULL_ANSWERS
    results: dict[int, list[tuple[list[float], int]]] = {40: [], folded: []}
    for order in ((40, folded), (folded, 40)):
        for full_answers in order:
            results[full_answers].append(await session(index, full_answers))
    for full_answers, runs in results.items():
        early = [t for times, _ in runs for t in times[:5]]
        late = [t for times, _ in runs for t in times[25:]]
        print(f"FULL_ANSWERS={full_answers}: answers 1-5 median {1000 * statistics.median(early):.0f} ms, "
              f"answers 26-35 median {1000 * statistics.median(late):.0f} ms (max {1000 * max(late):.0f}), "
              f"{runs[0][1]} widgets at the end")


if __name__ == "__main__":
    asyncio.run(main())

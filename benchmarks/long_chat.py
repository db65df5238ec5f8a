"""How long an answer takes to appear late in a long chat session, with every answer shown in full
against the app's folding of older answers, side by side in one run:

    python benchmarks/long_chat.py            # 35 questions per session, four sessions (~4 min)
    python benchmarks/long_chat.py --smoke    # 3 questions per session (the test suite)

Each session asks the first questions of `tests/eval/dev.jsonl` in one app (`App.run_test`, a
100x30 test terminal), timing each from Enter until the answer is on screen. The sessions alternate
between every kept answer shown in full (`FULL_ANSWERS` = `MAX_EXCHANGES`) and the app's own value.
Prints the medians of the first five answers and of the last ten, and the widget count at the end
of a session.
"""

from __future__ import annotations

import argparse
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

QUESTIONS = [json.loads(line)["q"] for line in (ROOT / "tests" / "eval" / "dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
LATE = 10  # the last answers of a session, timed against the first five


async def session(index: SearchIndex, full_answers: int, questions: list[str]) -> tuple[list[float], int]:
    chat_screen.FULL_ANSWERS = full_answers
    app = AdvisorApp(index=index, lang="en", config=Path(tempfile.mkdtemp()))  # no saved session to resume
    times: list[float] = []
    async with app.run_test(size=(100, 30)) as pilot:
        for question in questions:
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


async def main(count: int) -> None:
    index = open_index(bundled_knowledge_dir())
    questions = QUESTIONS[:count]
    unfolded, folded = chat_screen.MAX_EXCHANGES, chat_screen.FULL_ANSWERS
    results: dict[int, list[tuple[list[float], int]]] = {unfolded: [], folded: []}
    for order in ((unfolded, folded), (folded, unfolded)):
        for full_answers in order:
            results[full_answers].append(await session(index, full_answers, questions))
    late_from = max(count - LATE, 0)
    for full_answers, runs in results.items():
        early = [t for times, _ in runs for t in times[:5]]
        late = [t for times, _ in runs for t in times[late_from:]]
        print(f"FULL_ANSWERS={full_answers}: answers 1-{min(count, 5)} median {1000 * statistics.median(early):.0f} ms, "
              f"answers {late_from + 1}-{count} median {1000 * statistics.median(late):.0f} ms (max {1000 * max(late):.0f}), "
              f"{runs[0][1]} widgets at the end")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=35, help="questions per session (default 35)")
    parser.add_argument("--smoke", action="store_true", help="3 questions per session: it runs, no more")
    args = parser.parse_args()
    asyncio.run(main(3 if args.smoke else args.questions))

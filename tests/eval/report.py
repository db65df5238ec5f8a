"""Answer-quality report over the labelled questions in tests/eval/*.jsonl.

    python -m tests.eval.report              # dev, holdout and fresh, per slice
    python -m tests.eval.report --misses     # also list every miss (dev only, for tuning)

Top-1 counts a question as right only when it is answered with the expected entry; top-3 when
the expected entry is among the three best matches. Off-topic questions are right when nothing
is answered.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from advisor.library import open_index
from advisor.search.index import SearchIndex
from advisor.paths import bundled_knowledge_dir
from advisor.search.rank import search

EVAL_DIR = Path(__file__).resolve().parent
# dev: tuned on. holdout: written with dev, never tuned on. fresh: written later by someone who saw
# neither the knowledge nor the other sets, to measure generalisation; never tuned on.
SETS = ("dev", "holdout", "fresh")
SLICES = ("en", "vi", "vi_nodiac", "typo", "keyword", "long", "issue", "offtopic")


@dataclass(frozen=True)
class SliceScore:
    total: int
    top1: int
    top3: int

    @property
    def top1_rate(self) -> float:
        return 100.0 * self.top1 / self.total if self.total else 0.0

    @property
    def top3_rate(self) -> float:
        return 100.0 * self.top3 / self.total if self.total else 0.0


def load_questions(name: str) -> list[dict]:
    with open(EVAL_DIR / f"{name}.jsonl", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def evaluate(index: SearchIndex, questions: list[dict]) -> tuple[dict[str, SliceScore], list[tuple[dict, list[str], bool]]]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    misses: list[tuple[dict, list[str], bool]] = []
    for item in questions:
        outcome = search(index, item["q"])
        ranked = [hit.topic for hit in outcome.hits[:3]]
        expect = item["expect"]
        if expect is None:
            right = right3 = not outcome.answered
        else:
            right = outcome.answered and ranked[:1] == [expect]
            right3 = expect in ranked
        for key in (item["slice"], "all_on_topic" if expect else "all_off_topic"):
            counts[key][0] += 1
            counts[key][1] += right
            counts[key][2] += right3
        if not right:
            misses.append((item, ranked, outcome.answered))
    return {name: SliceScore(*values) for name, values in counts.items()}, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--misses", action="store_true", help="list the dev misses")
    args = parser.parse_args()
    index = open_index(bundled_knowledge_dir(), use_cache=False)
    for name in SETS:
        scores, misses = evaluate(index, load_questions(name))
        print(f"\n{name}: {sum(s.total for k, s in scores.items() if k in SLICES)} questions")
        print(f"  {'slice':<14}{'n':>5}{'top-1':>9}{'top-3':>9}")
        for key in (*SLICES, "all_on_topic", "all_off_topic"):
            if key in scores:
                s = scores[key]
                label = "answered %" if key in ("offtopic", "all_off_topic") else ""
                if label:
                    print(f"  {key:<14}{s.total:>5}{100 - s.top1_rate:>8.1f}%  (off-topic answered)")
                else:
                    print(f"  {key:<14}{s.total:>5}{s.top1_rate:>8.1f}%{s.top3_rate:>8.1f}%")
        if args.misses and name == "dev":
            for item, ranked, answered in misses:
                print(f"    MISS [{item['slice']}] {item['q'][:90]!r} expect={item['expect']} got={ranked} answered={answered}")


if __name__ == "__main__":
    main()

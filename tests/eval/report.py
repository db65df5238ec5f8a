"""Answer quality over the labelled questions in tests/eval/*.jsonl, through `advisor.reply.answer`.

    python -m tests.eval.report                    # every set, per slice and language
    python -m tests.eval.report --set real-dev --misses          # what went wrong (tune on dev only)
    python -m tests.eval.report --set real-dev --reliability     # is the confidence honest?
    python -m tests.eval.report --markdown         # the README's tables

The real sets (`real-dev`, `real-check`, `real-test`) hold questions copied from public issue
trackers and forums; `real-test` and `real-check` are reported, never tuned on (only the scale of
the confidence is fitted on `real-check`: `tests.eval.calibrate`). The older sets
(`dev`, `holdout`, `fresh`) were written here. A question is labelled with the entry that answers it (`expect`, plus rare equally
good `also`), or null when nothing should answer. Measures:

- answered right: answered, and with an acceptable entry;
- top-3: an acceptable entry is among the three best-ranked entries;
- confidently wrong: answered, with another entry (or from the provider catalogue);
- of those, named beside: the acceptable entry is among the "also close" ones shown with it;
- off-topic answered: a null question got an answer.

The slice "independent" leaves out the questions whose issue or thread a knowledge entry cites as a
source or a `real-dev` question comes from: an entry written from the very thread a question came
from, or tuned on its other language's form, answers it more easily than a stranger's question, so
on the held-out sets that slice is the fairer figure.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from advisor.reply import KNOWLEDGE, answer
from advisor.search.build import available_cores
from advisor.search.confidence import ANSWER_CONFIDENCE
from advisor.search.index import SearchIndex

EVAL_DIR = Path(__file__).resolve().parent
SETS = ("real-dev", "real-check", "real-test", "dev", "holdout", "fresh")
REAL_SLICES = ("en", "vi", "vi_nodiac", "long", "offtopic", "independent")
AUTHORED_SLICES = ("en", "vi", "vi_nodiac", "typo", "keyword", "long", "issue", "offtopic")
# Fewer questions than this are judged in one process: starting workers would cost more.
MIN_PARALLEL = 200
LANG_OF_SLICE = {"en": "en", "typo": "en", "keyword": "en", "issue": "en", "vi": "vi", "vi_nodiac": "vi"}


@dataclass
class Tally:
    """Counts over a group of questions."""

    total: int = 0
    on_topic: int = 0
    right: int = 0
    top3: int = 0
    wrong: int = 0
    wrong_close: int = 0
    off_topic: int = 0
    off_answered: int = 0

    def rate(self, part: int, whole: int) -> float:
        return part / whole if whole else 0.0

    @property
    def right_rate(self) -> float:
        return self.rate(self.right, self.on_topic)

    @property
    def top3_rate(self) -> float:
        return self.rate(self.top3, self.on_topic)

    @property
    def wrong_rate(self) -> float:
        return self.rate(self.wrong, self.on_topic)

    @property
    def off_answered_rate(self) -> float:
        return self.rate(self.off_answered, self.off_topic)


@dataclass(frozen=True)
class Judged:
    item: dict
    predicted: str | None
    answered: bool
    confidence: float | None
    ranked: tuple[str, ...]
    right: bool
    in_top3: bool
    close: bool


@dataclass
class Evaluation:
    groups: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    judged: list[Judged] = field(default_factory=list)


def load_questions(name: str) -> list[dict]:
    with open(EVAL_DIR / f"{name}.jsonl", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def language(item: dict) -> str:
    return item.get("lang") or LANG_OF_SLICE.get(item["slice"], "en")


def judge(index: SearchIndex, item: dict) -> Judged:
    reply = answer(index, item["q"])
    acceptable = {item["expect"], *item.get("also", ())} - {None}
    ranked = tuple(hit.topic for hit in reply.outcome.hits[:3])
    predicted = reply.article.id if reply.article is not None else None
    confidence = reply.article.score if reply.article is not None else None
    right = reply.answered and reply.kind == KNOWLEDGE and predicted in acceptable
    close = bool(acceptable & {entry_id for entry_id, _ in reply.close})
    return Judged(item, predicted, reply.answered, confidence, ranked, right, bool(acceptable & set(ranked)), close)


def thread(url: str) -> str:
    """A source address as the sets and the entries are compared by (no trailing slash)."""
    return url.rstrip("/")


def cited_sources(index: SearchIndex) -> frozenset[str]:
    """Every source address the knowledge entries cite."""
    return frozenset(thread(url) for entry in range(len(index.entries)) for _, url in index.meta(entry).sources if url)


def tuned_sources(index: SearchIndex) -> frozenset[str]:
    """The sources the engine and the knowledge may have learnt from: those the entries cite and
    those of the tuning set's questions (`real-dev`)."""
    return cited_sources(index) | {thread(item["source"]) for item in load_questions("real-dev")}


def judge_all(index: SearchIndex, questions: list[dict], processes: int = 1) -> list[Judged]:
    """Each question judged, in order; by `processes` forked workers when more than one (the
    questions are independent, and the floor test judges about six thousand)."""
    if processes <= 1 or len(questions) < MIN_PARALLEL or "fork" not in multiprocessing.get_all_start_methods():
        return [judge(index, item) for item in questions]
    size = -(-len(questions) // processes)
    # Forked, the workers are handed the index itself (nothing is pickled) and open nothing again.
    with multiprocessing.get_context("fork").Pool(processes, initializer=_adopt, initargs=(index,)) as pool:
        parts = pool.map(_judge_part, [questions[start : start + size] for start in range(0, len(questions), size)])
    return [judged for part in parts for judged in part]


_worker_index: SearchIndex | None = None


def _adopt(index: SearchIndex) -> None:
    global _worker_index
    _worker_index = index


def _judge_part(questions: list[dict]) -> list[Judged]:
    assert _worker_index is not None
    return [judge(_worker_index, item) for item in questions]


def evaluate(index: SearchIndex, questions: list[dict], processes: int = 1) -> Evaluation:
    result = Evaluation()
    tuned = tuned_sources(index) if any("source" in item for item in questions) else frozenset()  # the real sets only
    for item, judged in zip(questions, judge_all(index, questions, processes)):
        result.judged.append(judged)
        independent = ("independent",) if "source" in item and thread(item["source"]) not in tuned else ()
        for key in ("all", item["slice"], f"lang:{language(item)}", *independent):
            tally = result.groups[key]
            tally.total += 1
            if item["expect"] is None:
                tally.off_topic += 1
                tally.off_answered += judged.answered
            else:
                tally.on_topic += 1
                tally.right += judged.right
                tally.top3 += judged.in_top3
                tally.wrong += judged.answered and not judged.right
                tally.wrong_close += judged.answered and not judged.right and judged.close
    return result


def reliability(judged: list[Judged], bins: tuple[float, ...] = (ANSWER_CONFIDENCE, 50, 60, 70, 80, 90, 100.1)) -> list[tuple[str, int, float]]:
    """(confidence range, answers shown in it, share of them right), for answered questions."""
    rows = []
    for low, high in zip(bins, bins[1:]):
        shown = [j for j in judged if j.answered and j.confidence is not None and low <= j.confidence < high]
        if shown:
            rows.append((f"{low:.0f}-{min(high, 100):.0f}", len(shown), sum(j.right for j in shown) / len(shown)))
    return rows


def print_set(name: str, result: Evaluation) -> None:
    slices = REAL_SLICES if name.startswith("real") else AUTHORED_SLICES
    print(f"\n{name}: {result.groups['all'].total} questions")
    print(f"  {'slice':<12}{'n':>5}{'right':>8}{'top-3':>8}{'wrong':>8}{'(named beside)':>16}{'off-topic answered':>20}")
    for key in (*slices, "lang:en", "lang:vi", "all"):
        tally = result.groups.get(key)
        if tally is None or not tally.total:
            continue
        if tally.on_topic:
            beside = f"{tally.wrong_close} of {tally.wrong}"
            line = f"  {key:<12}{tally.total:>5}{100 * tally.right_rate:>7.1f}%{100 * tally.top3_rate:>7.1f}%{100 * tally.wrong_rate:>7.1f}%{beside:>16}"
        else:
            line = f"  {key:<12}{tally.total:>5}{'':>40}"
        if tally.off_topic:
            line += f"{100 * tally.off_answered_rate:>13.1f}% of {tally.off_topic}"
        print(line)


SLICE_NAMES = {
    "en": "English", "vi": "Vietnamese with diacritics", "vi_nodiac": "Vietnamese without diacritics",
    "typo": "typos", "keyword": "keywords", "long": "long, quoting errors or logs", "issue": "issue titles",
    "offtopic": "off-topic", "independent": "independent (source neither cited nor tuned on)", "lang:en": "all English", "lang:vi": "all Vietnamese", "all": "**all**",
}


def markdown_table(results: dict[str, Evaluation]) -> str:
    """One row per set and slice: the README's quality table."""
    rows = ["| set | slice | questions | answered right | top-3 | confidently wrong (right one named beside) | off-topic answered |", "|---|---|---|---|---|---|---|"]
    for name, result in results.items():
        slices = REAL_SLICES if name.startswith("real") else ()
        for key in (*slices, "lang:en", "lang:vi", "all"):
            tally = result.groups.get(key)
            if tally is None or not tally.total:
                continue
            cells = [f"{100 * tally.right_rate:.1f} %", f"{100 * tally.top3_rate:.1f} %", f"{100 * tally.wrong_rate:.1f} % ({tally.wrong_close} of {tally.wrong})"] if tally.on_topic else ["", "", ""]
            off = f"{100 * tally.off_answered_rate:.1f} % of {tally.off_topic}" if tally.off_topic else ""
            rows.append(f"| {name} | {SLICE_NAMES[key]} | {tally.total} | " + " | ".join(cells) + f" | {off} |")
    return "\n".join(rows)


def reliability_table(results: dict[str, Evaluation]) -> str:
    """Confidence shown against share right, per real set: the README's reliability table."""
    names = [name for name in results if name.startswith("real")]
    rows = ["| confidence shown | " + " | ".join(f"{name}: answers, right" for name in names) + " |", "|---" * (len(names) + 1) + "|"]
    spans = {name: {span: (count, share) for span, count, share in reliability(results[name].judged)} for name in names}
    for span in dict.fromkeys(span for name in names for span in spans[name]):
        cells = [f"{spans[name][span][0]}, {100 * spans[name][span][1]:.0f} %" if span in spans[name] else "" for name in names]
        rows.append(f"| {span} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", action="append", choices=SETS, help="only these sets (default: all)")
    parser.add_argument("--misses", action="store_true", help="list every question not answered right")
    parser.add_argument("--reliability", action="store_true", help="confidence against share right")
    parser.add_argument("--kb", help="knowledge folder (default: the bundled one)")
    parser.add_argument("--markdown", action="store_true", help="print the README's tables")
    args = parser.parse_args()
    index = open_index(args.kb or bundled_knowledge_dir(), use_cache=False)
    if args.markdown:
        results = {name: evaluate(index, load_questions(name), available_cores()) for name in args.set or SETS}
        print(markdown_table(results) + "\n\n" + reliability_table(results))
        return
    for name in args.set or SETS:
        result = evaluate(index, load_questions(name), available_cores())
        print_set(name, result)
        if args.reliability:
            print("  confidence   shown   right")
            for span, count, share in reliability(result.judged):
                print(f"  {span:<12}{count:>6}{100 * share:>7.1f}%")
        if args.misses:
            for j in result.judged:
                if not j.right and (j.item["expect"] is not None or j.answered):
                    state = "WRONG" if j.answered else "DECLINED"
                    print(f"    {state:<8} [{j.item['slice']}] {j.item['q'][:100]!r} expect={j.item['expect']} got={j.predicted} top3={list(j.ranked)} conf={j.confidence}")


if __name__ == "__main__":
    main()

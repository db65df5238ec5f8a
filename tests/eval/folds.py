"""Choose the weight of the learned model's lead in the confidence, on rankings by models that
never saw the question.

    python -m tests.eval.folds      # about two minutes: five trainings, 4,000 questions ranked

The learned model (`advisor.search.learned`) is trained on real-dev's and dev's questions, so on
them its lead over every other entry looks surer than on a question it has not seen, and a
weight fitted there would trust it too much. Here real-dev and dev are cut into `FOLDS` parts
(the questions of one thread stay together), and each part is ranked by a model trained on the
entries and the other parts. Each weight of `LEAD_WEIGHTS` is tried on those rankings, the
confidence's other weights and its threshold kept, and the one printed for `CONFIDENCE_WEIGHTS`
is the one whose answers are worth most: right answers less wrong ones less off-topic questions
answered, the trade the threshold itself stands for (an answer is shown when it is more likely
right than not). On a tie, the smaller weight. real-check and real-test take no part.
"""

from __future__ import annotations

import math
import shutil
import tempfile
import zlib
from pathlib import Path
from typing import NamedTuple

from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from advisor.search import rank
from advisor.search.confidence import ANSWER_CONFIDENCE, CONFIDENCE_WEIGHTS
from advisor.search.index import SearchIndex
from advisor.search.learned import WEIGHTS_FILE
from tests.eval.report import load_questions, thread
from tests.eval.train import TRAIN, examples, train

FOLDS = 5
LEAD_WEIGHTS = tuple(0.25 * step for step in range(13))


class Ranked(NamedTuple):
    """What the confidence reads of one question's ranking, and how it should have ended."""

    features: tuple[float, ...]
    right: bool
    off_topic: bool
    tied: bool


class Tally(NamedTuple):
    """How many questions were answered right, answered wrong, and off-topic ones answered, of how
    many on-topic and off-topic questions."""

    right: int
    wrong: int
    off_topic: int
    on_topic_questions: int
    off_topic_questions: int

    @property
    def worth(self) -> int:
        return self.right - self.wrong - self.off_topic

    def __str__(self) -> str:
        on, off = max(self.on_topic_questions, 1), max(self.off_topic_questions, 1)
        return f"right {100 * self.right / on:.1f}%  wrong {100 * self.wrong / on:.1f}%  off-topic answered {100 * self.off_topic / off:.1f}%"


def fold_of(item: dict, position: int) -> int:
    """The part a question falls in: by its thread, or by its place in its set when it has none."""
    source = item.get("source")
    return zlib.crc32(thread(source).encode()) % FOLDS if source else position % FOLDS


def ranked(index: SearchIndex, item: dict) -> Ranked | None:
    outcome = rank.search(index, item["q"])
    if outcome.signals is None:
        return None
    hits = outcome.hits
    acceptable = {item["expect"], *item.get("also", ())} - {None}
    return Ranked(outcome.signals.features(), hits[0].topic in acceptable, item["expect"] is None, len(hits) > 1 and hits[0].score <= hits[1].score)


def out_of_fold() -> list[Ranked]:
    """Every question of `TRAIN`, ranked by a model trained without its part."""
    root = bundled_knowledge_dir()
    index = open_index(root, use_cache=False)
    questions = [(fold_of(item, position), item) for name in TRAIN for position, item in enumerate(load_questions(name))]
    found: list[Ranked | None] = []
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "knowledge"
        shutil.copytree(root, copy)
        for fold in range(FOLDS):
            kept = [item for part, item in questions if part != fold]
            (copy / WEIGHTS_FILE).write_text(train(*examples(root, index, kept)), encoding="utf-8")
            fold_index = open_index(copy, use_cache=False)
            found += [ranked(fold_index, item) for part, item in questions if part == fold]
    return [row for row in found if row is not None]


def tally(rows: list[Ranked], weights: tuple[float, ...]) -> Tally:
    """What the confidence with `weights` answers at `ANSWER_CONFIDENCE` (never a tie)."""
    threshold = math.log(ANSWER_CONFIDENCE / (100 - ANSWER_CONFIDENCE))
    answered = [row for row in rows if not row.tied and sum(w * v for w, v in zip(weights, row.features)) >= threshold]
    return Tally(
        sum(1 for row in answered if not row.off_topic and row.right),
        sum(1 for row in answered if not row.off_topic and not row.right),
        sum(1 for row in answered if row.off_topic),
        sum(1 for row in rows if not row.off_topic),
        sum(1 for row in rows if row.off_topic),
    )


def with_lead(weights: tuple[float, ...], lead: float) -> tuple[float, ...]:
    """`weights` with `lead` as the lead's weight (the one before the intercept)."""
    return (*weights[:-2], lead, weights[-1])


def choose(rows: list[Ranked], weights: tuple[float, ...] = CONFIDENCE_WEIGHTS) -> tuple[tuple[float, ...], dict[float, Tally]]:
    """The weights with the lead's weight whose answers are worth most, and what each weight tried answers."""
    tried = {lead: tally(rows, with_lead(weights, lead)) for lead in LEAD_WEIGHTS}
    best = max(tried, key=lambda lead: (tried[lead].worth, -lead))
    return with_lead(weights, best), tried


def main() -> None:
    weights, tried = choose(out_of_fold())
    for lead, measured in tried.items():
        print(f"lead weight {lead:4.2f}: {measured}  worth {measured.worth}")
    print("CONFIDENCE_WEIGHTS = (" + ", ".join(f"{weight:.3f}" for weight in weights) + ")")


if __name__ == "__main__":
    main()

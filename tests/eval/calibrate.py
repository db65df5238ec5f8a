"""Fit the answer confidence, and show what each threshold gives.

    python -m tests.eval.calibrate              # fit weights and scale, print the weights
    python -m tests.eval.calibrate --rescale    # keep the current weights, fit their scale only
    python -m tests.eval.calibrate --check      # the current weights on every set

`advisor.search.confidence` is a logistic model of the ranking's own numbers (see `Signals`),
fitted by gradient descent on whether the best entry was right (off-topic questions count as
"not right") in two steps. The weights are fitted on the development sets (real-dev and dev),
which tell apart best entries that are right from those that are not; but the knowledge was
written from real-dev's questions, so there the ranking looks surer than it is on a question
nobody here has seen. The model's scale is then fitted on `real-check` (`SCALE_ON`), whose
questions no entry was written from: one slope and one offset of the weighted sum (Platt
scaling), so the order of the confidences stays and their level becomes what new questions
bear out. Two weights were chosen apart from this fit: the first clause's agreement (`clause`,
on real-dev and dev) and the learned model's lead (`learned_lead`, `tests.eval.folds`): on
real-dev and dev the learned model has seen every question, so a fit here would trust its lead
far too much. It prints the weights for `CONFIDENCE_WEIGHTS` and, for thresholds around the
current one, how many questions would be answered right, answered wrong, and off-topic
questions answered.
"""

from __future__ import annotations

import argparse
import math

from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from advisor.search import rank
from advisor.search.confidence import ANSWER_CONFIDENCE, CONFIDENCE_WEIGHTS
from advisor.search.index import SearchIndex
from tests.eval.report import SETS, load_questions

TRAIN = ("real-dev", "dev")
SCALE_ON = ("real-check",)


def features(index: SearchIndex, question: str) -> tuple[list[float], str | None]:
    """The confidence model's inputs for `question`, and the best entry's id."""
    outcome = rank.search(index, question)
    if outcome.signals is None:
        return [], None
    return list(outcome.signals.features()), outcome.hits[0].topic


def examples(index: SearchIndex, names: tuple[str, ...]) -> list[tuple[list[float], bool, bool]]:
    """(features, best entry right, question off-topic) for every question of the sets."""
    out = []
    for name in names:
        for item in load_questions(name):
            values, best = features(index, item["q"])
            if values:
                acceptable = {item["expect"], *item.get("also", ())} - {None}
                out.append((values, best in acceptable, item["expect"] is None))
    return out


def fit(data: list[tuple[list[float], bool, bool]], steps: int = 4000, rate: float = 0.5, l2: float = 0.01) -> list[float]:
    weights = [0.0] * len(data[0][0])
    for _ in range(steps):
        gradient = [0.0] * len(weights)
        for values, right, _ in data:
            p = 1 / (1 + math.exp(-sum(w * v for w, v in zip(weights, values))))
            for i, value in enumerate(values):
                gradient[i] += (p - right) * value
        weights = [w - rate * (g / len(data) + l2 * w) for w, g in zip(weights, gradient)]
    return weights


def scale(data: list[tuple[list[float], bool, bool]], weights: list[float], steps: int = 4000, rate: float = 0.5) -> tuple[float, float]:
    """The slope and offset that fit the weighted sum of `weights` to the outcomes of `data`."""
    sums = [sum(w * v for w, v in zip(weights, values)) for values, _, _ in data]
    slope, offset = fit([([total, 1.0], right, off) for total, (_, right, off) in zip(sums, data)], steps, rate, l2=0.0)
    return slope, offset


def show(name: str, data: list[tuple[list[float], bool, bool]], weights: list[float]) -> None:
    confidence = [100 / (1 + math.exp(-sum(w * v for w, v in zip(weights, values)))) for values, _, _ in data]
    on_topic = sum(1 for _, _, off in data if not off) or 1
    off_topic = sum(1 for _, _, off in data if off) or 1
    print(f"{name}: {len(data)} questions")
    for threshold in (40, 45, 50, 55, 60, 65, 70):
        right = sum(1 for c, (_, r, off) in zip(confidence, data) if c >= threshold and r and not off)
        wrong = sum(1 for c, (_, r, off) in zip(confidence, data) if c >= threshold and not r and not off)
        answered_off = sum(1 for c, (_, _, off) in zip(confidence, data) if c >= threshold and off)
        print(f"  from {threshold}: right {100 * right / on_topic:5.1f}%  wrong {100 * wrong / on_topic:5.1f}%  off-topic answered {100 * answered_off / off_topic:5.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="show the current weights on every set instead of fitting")
    parser.add_argument("--rescale", action="store_true", help="keep the current weights, fit their scale on real-check")
    args = parser.parse_args()
    index = open_index(bundled_knowledge_dir(), use_cache=False)
    if args.check:
        for name in SETS:
            show(name, examples(index, (name,)), list(CONFIDENCE_WEIGHTS))
        return
    fitted = list(CONFIDENCE_WEIGHTS) if args.rescale else fit(examples(index, TRAIN))
    slope, offset = scale(examples(index, SCALE_ON), fitted)
    weights = [slope * w for w in fitted[:-1]] + [slope * fitted[-1] + offset]
    print("CONFIDENCE_WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in weights) + ")")
    if args.rescale:  # where the current threshold goes on the new scale: the same questions answered
        moved = slope * math.log(ANSWER_CONFIDENCE / (100 - ANSWER_CONFIDENCE)) + offset
        print(f"ANSWER_CONFIDENCE = {100 / (1 + math.exp(-moved)):.1f}")
    for name in (*TRAIN, *SCALE_ON):
        show(name, examples(index, (name,)), weights)


if __name__ == "__main__":
    main()

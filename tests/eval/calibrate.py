"""Fit the answer confidence on the development questions, and show what each threshold gives.

    python -m tests.eval.calibrate            # fit on real-dev + dev, print the weights
    python -m tests.eval.calibrate --check    # the current weights on every set

`advisor.search.confidence` is a logistic model of the ranking's own numbers (see `Signals`).
This fits its weights by gradient descent on whether the best entry was right, over
the development sets only (real-dev and dev; off-topic questions count as "not right"), then
prints them for `CONFIDENCE_WEIGHTS` and, for thresholds around the current one, how many
questions would be answered right, answered wrong, and off-topic questions answered.
"""

from __future__ import annotations

import argparse
import math

from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from advisor.search import rank
from advisor.search.confidence import CONFIDENCE_WEIGHTS
from advisor.search.index import SearchIndex
from tests.eval.report import SETS, load_questions

TRAIN = ("real-dev", "dev")


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


def show(name: str, data: list[tuple[list[float], bool, bool]], weights: list[float]) -> None:
    confidence = [100 / (1 + math.exp(-sum(w * v for w, v in zip(weights, values)))) for values, _, _ in data]
    on_topic = sum(1 for _, _, off in data if not off) or 1
    off_topic = sum(1 for _, _, off in data if off) or 1
    print(f"{name}: {len(data)} questions")
    for threshold in (50, 55, 60, 65, 70):
        right = sum(1 for c, (_, r, off) in zip(confidence, data) if c >= threshold and r and not off)
        wrong = sum(1 for c, (_, r, off) in zip(confidence, data) if c >= threshold and not r and not off)
        answered_off = sum(1 for c, (_, _, off) in zip(confidence, data) if c >= threshold and off)
        print(f"  from {threshold}: right {100 * right / on_topic:5.1f}%  wrong {100 * wrong / on_topic:5.1f}%  off-topic answered {100 * answered_off / off_topic:5.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="show the current weights on every set instead of fitting")
    args = parser.parse_args()
    index = open_index(bundled_knowledge_dir(), use_cache=False)
    if args.check:
        for name in SETS:
            show(name, examples(index, (name,)), list(CONFIDENCE_WEIGHTS))
        return
    weights = fit(examples(index, TRAIN))
    print("CONFIDENCE_WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in weights) + ")")
    for name in TRAIN:
        show(name, examples(index, (name,)), weights)


if __name__ == "__main__":
    main()

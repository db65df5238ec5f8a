"""How sure the engine is that its best entry answers the question.

A logistic model of the ranking's own numbers (`python -m tests.eval.calibrate`, never on
real-test). Its weights were fitted on the development questions; its scale on `real-check`,
whose questions no entry was written from, because on the questions the knowledge was tuned on
the ranking looks surer than it is on a new one. On questions nobody here has seen, answers
shown at confidence X are right about X% of the time (the README's reliability table).
"""

from __future__ import annotations

import math
from collections import namedtuple

# Weights of `Signals.features()` in order, the last one the intercept.
# The first clause's agreement (`clause`) and the learned model's lead (`learned_lead`) were
# added later, each weight chosen on real-dev and dev with the others kept; the lead's on real-dev
# and dev ranked by models trained without their threads
# (docs/answer-quality.md: "The first clause's agreement, built" and "The learned model's lead").
CONFIDENCE_WEIGHTS = (1.589, 1.223, 1.527, 1.640, 1.293, 0.397, -1.080, -0.470, 1.525, 0.3, 0.75, -3.171)
# Below this, "did you mean" choices are offered instead of an answer: an answer is shown when it
# is more likely right than wrong, which on calibrated confidences is also where answering more
# questions stops adding more right answers than wrong ones.
ANSWER_CONFIDENCE = 50.0
EVIDENCE_SCALE = 15.0
# The learned model's lead is read up to this far either way (its decisions are mostly -1..1).
LEARNED_LEAD_SCALE = 2.0


# A namedtuple, not a dataclass: the `ask` hot path never imports dataclasses (see `advisor.problems`).
class Signals(namedtuple("Signals", ("score", "lead", "lexical", "fuzzy", "evidence", "quoted", "unknown_share", "plain_vietnamese", "likelihood", "clause", "learned_lead"), defaults=(0.0, 0.0))):
    """What the ranking saw for its best entry.

    `score` (0-100) and its `lead` over the runner-up, how much of the question the entry
    explains (`lexical`, 0-1) and how closely one of its phrasings matches (`fuzzy`, 0-100), the
    bulk of rare terms it shares (`evidence`), whether the question `quoted` one of its error
    lines, how much of the question no entry knows (`unknown_share`), and whether it is
    Vietnamese without a single technical term (`plain_vietnamese`: small talk is, questions
    about GPUs almost never are), and its share (0-1) of the `likelihood` that its text wrote the
    question among the best entries (`advisor.search.likelihood`), whether the question's first
    clause alone ranks it first too (`clause`: 1, -1, or 0 without one; `advisor.search.clauses`),
    and how far the learned model prefers it to every other entry and to none (`learned_lead`,
    `advisor.search.learned.lead`; 0 without learned weights).
    """

    __slots__ = ()

    def features(self) -> tuple[float, ...]:
        """The model's inputs, each scaled to about 0-1, and the constant 1 for the intercept."""
        score, lead, lexical, fuzzy, evidence, quoted, unknown_share, plain_vietnamese, likelihood, clause, learned_lead = self
        return (score / 100, lead / 100, lexical, fuzzy / 100, min(evidence, EVIDENCE_SCALE) / EVIDENCE_SCALE,
                float(quoted), unknown_share, float(plain_vietnamese), likelihood, clause,
                max(-LEARNED_LEAD_SCALE, min(learned_lead, LEARNED_LEAD_SCALE)) / LEARNED_LEAD_SCALE, 1.0)


def answer_confidence(signals: Signals, weights: tuple[float, ...] = CONFIDENCE_WEIGHTS) -> float:
    """How likely (0-100) the best entry is the one that answers the question."""
    logit = sum(weight * value for weight, value in zip(weights, signals.features()))
    return round(100.0 / (1.0 + math.exp(-logit)), 1)

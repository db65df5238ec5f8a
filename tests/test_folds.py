"""Choosing the learned model's lead weight on out-of-fold rankings (`tests.eval.folds`)."""

from __future__ import annotations

from tests.eval.folds import LEAD_WEIGHTS, Ranked, choose, fold_of

# Features: one signal, the learned model's lead, and the intercept's constant.
WEIGHTS = (1.0, 0.0, 0.0)


def rows(right_lead: float, wrong_lead: float) -> list[Ranked]:
    """Right answers the signal alone leaves just under the threshold, wrong and off-topic ones
    just over it."""
    return ([Ranked((-0.1, right_lead, 1.0), True, False, False)] * 6 + [Ranked((0.1, wrong_lead, 1.0), False, False, False)] * 3
            + [Ranked((0.1, wrong_lead, 1.0), False, True, False)] * 2)


def test_a_lead_that_tells_right_from_wrong_is_weighed_in() -> None:
    weights, tried = choose(rows(0.5, -0.5), WEIGHTS)
    assert weights == (1.0, LEAD_WEIGHTS[1], 0.0)  # the smallest weight that sorts them all
    assert tried[0.0][:3] == (0, 3, 2) and tried[weights[1]][:3] == (6, 0, 0)


def test_a_lead_that_tells_nothing_is_left_out() -> None:
    alike = [Ranked((signal, 0.5, 1.0), right, False, False) for signal in (-0.3, 0.1) for right in (True, False, False)]
    weights, tried = choose(alike, WEIGHTS)
    assert weights == WEIGHTS  # weighing it answers more questions, more of them wrong than right
    assert tried[LEAD_WEIGHTS[-1]].right > tried[0.0].right


def test_a_tie_is_never_answered() -> None:
    tied = [Ranked((-0.1, 0.5, 1.0), True, False, True)] * 4
    _, tried = choose(rows(0.5, -0.5) + tied, WEIGHTS)
    assert tried[LEAD_WEIGHTS[-1]].right == 6


def test_the_questions_of_one_thread_fall_in_one_part() -> None:
    first = {"source": "https://github.com/o/r/issues/1"}
    assert fold_of(first, 0) == fold_of({"source": "https://github.com/o/r/issues/1/"}, 7)
    assert {fold_of({}, position) for position in range(5)} == set(range(5))

"""Answer quality may not regress below these floors (figures in the README are the current ones;
`python -m tests.eval.report` prints them per slice)."""

from __future__ import annotations

import pytest

from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from tests.eval.report import evaluate, load_questions

FLOORS = {
    # set: (top-1 on topic, top-3 on topic, most off-topic answered)
    "dev": (94.0, 98.0, 5.0),
    "holdout": (90.0, 97.0, 10.0),
    "fresh": (90.0, 97.0, 5.0),
}


@pytest.fixture(scope="module")
def index():
    return open_index(bundled_knowledge_dir(), use_cache=False)


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_quality_floor(index, name: str) -> None:
    scores, _ = evaluate(index, load_questions(name))
    top1, top3, off = FLOORS[name]
    on_topic, off_topic = scores["all_on_topic"], scores["all_off_topic"]
    assert on_topic.top1_rate >= top1
    assert on_topic.top3_rate >= top3
    assert 100 - off_topic.top1_rate <= off
    assert scores["vi"].top1_rate - scores["vi_nodiac"].top1_rate <= 5.0


def test_every_slice_and_id_is_represented() -> None:
    questions = load_questions("dev") + load_questions("holdout")
    slices = {q["slice"] for q in questions}
    assert slices == {"en", "vi", "vi_nodiac", "typo", "keyword", "long", "issue", "offtopic"}
    assert len(questions) >= 250
    assert sum(q["expect"] is None for q in questions) >= 40


@pytest.mark.parametrize(("slice_name", "lang"), [("en", "en"), ("vi", "vi"), ("vi_nodiac", "vi")])
def test_answer_language_is_detected(index, slice_name: str, lang: str) -> None:
    from advisor.search.rank import detect_language
    from tests.eval.report import SETS

    questions = [q["q"] for name in SETS for q in load_questions(name) if q["slice"] == slice_name]
    right = sum(detect_language(index, q) == lang for q in questions)
    assert right / len(questions) >= 0.95

"""The learned opinion (`advisor.search.learned`): its file, how it reads a question, and the
trainer that writes it (`tests.eval.train`)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.cli import main
from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from advisor.search.learned import INTERCEPT, OFF_TOPIC, WEIGHTS_FILE, Weights, blended, features, lead, read_weights
from advisor.search.rank import MAX_QUERY_CHARS, question_words, search
from tests.eval.report import load_questions
from tests.eval.train import examples, inputs_digest, train, trained_digest

WEIGHTS = f"# a comment\n{INTERCEPT}\t\tpizza-oven:0.5 bread-dough:-0.5\noven\t2.0\tbread-dough:0.8\nsourdough\t3.0\tbread-dough:1.5\n"


def test_features_are_words_and_pairs_counted_sublinearly() -> None:
    found = features(["oven", "oven", "pizza"])
    assert found == {"oven": 1.0 + math.log(2), "pizza": 1.0, "oven_oven": 1.0, "oven_pizza": 1.0}


@given(st.floats(0, 100), st.floats(allow_nan=False, allow_infinity=True))
def test_a_blended_score_stays_a_score(score: float, decision: float) -> None:
    assert 0.0 <= blended(score, decision) <= 100.0


def test_the_model_is_trained_on_the_words_a_question_is_ranked_by() -> None:
    """The trainer reads its examples with `question_words`; the model is asked about the words
    `search` ranks by (`Outcome.normalized`): the two must be the same words."""
    index = open_index(bundled_knowledge_dir())
    questions = [item["q"] for item in load_questions("dev")] + ["kubernets gpu pdo pendng", "x " * MAX_QUERY_CHARS + "mig"]
    for question in questions:
        assert question_words(index, question) == search(index, question).normalized.split(), question


def test_a_folder_without_weights_ranks_without_them(tiny_kb: Path) -> None:
    index = open_index(tiny_kb, use_cache=False)
    assert not index.learned
    assert index.learned.decisions(["oven"]) == []


def test_the_weights_move_each_hit_by_the_model_decision(tiny_kb: Path, tmp_path: Path) -> None:
    question = "pizza oven"
    plain = {hit.topic: hit.score for hit in search(open_index(tiny_kb, use_cache=False), question).hits}
    learned_kb = tmp_path / "learned" / "kb"
    shutil.copytree(tiny_kb, learned_kb)
    (learned_kb / WEIGHTS_FILE).write_text(WEIGHTS, encoding="utf-8")
    index = open_index(learned_kb, use_cache=False)
    assert index.learned and not index.problems
    # "oven" is the only word of the question the model knows: its vector is (oven: 1) once
    # normalised, so each decision is the intercept plus the weight of "oven".
    expected = {"pizza-oven": 0.5, "bread-dough": -0.5 + 0.8}
    hits = search(index, question).hits
    assert {hit.topic: hit.score for hit in hits} == {topic: round(blended(plain[topic], expected[topic]), 1) for topic in plain}
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("oven 2.0 pizza-oven:1", "expected 'feature<TAB>idf<TAB>entry:weight"),
        ("oven\tmany\tpizza-oven:1", "idf 'many' is not a number"),
        ("oven\t-1\tpizza-oven:1", "idf '-1' is not a non-negative number"),
        ("oven\t2\tpizza-oven=1", "'pizza-oven=1' is not 'entry:weight'"),
        ("oven\t2\tpizza-oven:nan", "'pizza-oven:nan' is not 'entry:weight'"),
        ("sourdough\t2\tbread-dough:1", "feature 'sourdough' is listed twice"),
    ],
)
def test_a_line_that_cannot_be_read_is_a_problem_with_its_line(tiny_kb: Path, capsys: pytest.CaptureFixture[str], line: str, message: str) -> None:
    (tiny_kb / WEIGHTS_FILE).write_text(WEIGHTS + line + "\n", encoding="utf-8")
    assert main(["ask", "--kb", str(tiny_kb), "pizza oven temperature"]) == 0  # the rest of the file still counts
    assert main(["check", "--kb", str(tiny_kb)]) == 1
    captured = capsys.readouterr()
    assert f"kb/{WEIGHTS_FILE}:5: {message}" in captured.err


def test_weights_for_an_entry_the_folder_lacks_are_skipped(tmp_path: Path) -> None:
    problems: list = []
    path = tmp_path / WEIGHTS_FILE
    path.write_text(f"{INTERCEPT}\t\tgone:3 kept:1\nword\t1.5\tgone:2 kept:0.5\n", encoding="utf-8")
    sections = read_weights(str(path), WEIGHTS_FILE, ["kept"], problems)
    assert not problems
    assert sections["learned_intercepts"] and len(sections["learned_weights"]) == 4  # one float: kept's


def test_weights_without_an_intercept_line_are_not_used(tmp_path: Path) -> None:
    problems: list = []
    path = tmp_path / WEIGHTS_FILE
    path.write_text("word\t1.5\tkept:0.5\n", encoding="utf-8")
    sections = read_weights(str(path), WEIGHTS_FILE, ["kept"], problems)
    assert [problem.message for problem in problems] == [f"no intercept line ('{INTERCEPT}<TAB><TAB>entry:weight ...'): the learned weights are not used"]
    assert not sections["learned_weights"] and not sections["learned_intercepts"]


def _sections(tmp_path: Path, text: str, topics: list[str]) -> Weights:
    """The weights of `text` for `topics`, as an index holds them."""
    path = tmp_path / WEIGHTS_FILE
    path.write_text(text, encoding="utf-8")
    problems: list = []
    sections = {name: memoryview(data) for name, data in read_weights(str(path), WEIGHTS_FILE, topics, problems).items()}
    assert not problems
    return Weights(sections)


def test_the_off_topic_class_is_decided_after_the_topics_and_only_when_trained(tmp_path: Path) -> None:
    with_class = _sections(tmp_path, f"{INTERCEPT}\t\tpizza-oven:0.5 bread-dough:-0.5 {OFF_TOPIC}:-0.2\noven\t2.0\tbread-dough:0.8 {OFF_TOPIC}:0.6\n", ["pizza-oven", "bread-dough"])
    assert with_class.decisions(["oven"]) == pytest.approx([0.5, 0.3, 0.4])
    assert with_class.decisions(["dough"]) == pytest.approx([0.5, -0.5, -0.2])  # a word it does not know: the intercepts
    without = _sections(tmp_path, WEIGHTS, ["pizza-oven", "bread-dough"])
    assert without.decisions(["oven"]) == pytest.approx([0.5, 0.3])


def test_the_lead_is_over_the_best_other_entry_or_the_off_topic_class() -> None:
    assert lead([0.5, 0.3, 0.4], 0) == pytest.approx(0.1)  # the off-topic class is the closest
    assert lead([0.5, 0.3, 0.4], 1) == pytest.approx(-0.2)
    assert lead([0.9, -1.0], 0) == pytest.approx(1.9)
    assert lead([], 0) == 0.0  # no learned weights


def test_the_off_topic_class_never_becomes_a_hit(tiny_kb: Path, tmp_path: Path) -> None:
    """It is sure of "pizza oven" far more than either entry, and only lowers their confidence."""
    learned_kb = tmp_path / "learned" / "kb"
    shutil.copytree(tiny_kb, learned_kb)
    (learned_kb / WEIGHTS_FILE).write_text(WEIGHTS + f"pizza\t2.0\t{OFF_TOPIC}:5\n", encoding="utf-8")
    plain = search(open_index(tiny_kb, use_cache=False), "pizza oven")
    outcome = search(open_index(learned_kb, use_cache=False), "pizza oven")
    assert {hit.topic for hit in outcome.hits} == {hit.topic for hit in plain.hits}
    assert outcome.signals.learned_lead < 0


def test_the_trainer_learns_questions_no_entry_answers_as_a_class_of_their_own() -> None:
    index = open_index(bundled_knowledge_dir())
    _, labels, _ = examples(bundled_knowledge_dir(), index)
    assert labels.count(OFF_TOPIC) == sum(1 for name in ("real-dev", "dev") for item in load_questions(name) if item["expect"] is None and question_words(index, item["q"]))


def test_the_trainer_learns_which_words_mean_which_entry() -> None:
    examples = [["pizza", "oven", "hot"], ["pizza", "oven", "wood"], ["pizza", "fuel"], ["dough", "knead"], ["sourdough", "dough", "wet"], ["yeast", "proof"]]
    labels = ["pizza-oven"] * 3 + ["bread-dough"] * 3
    weights: dict[str, dict[str, float]] = {}
    for line in train(examples, labels, [1.0] * len(examples)).splitlines():
        if not line.startswith("#"):
            feature, _, pairs = line.split("\t")
            weights[feature] = {entry: float(weight) for entry, _, weight in (pair.rpartition(":") for pair in pairs.split())}
    assert weights["oven"]["pizza-oven"] > 0 > weights["oven"]["bread-dough"]
    assert weights["dough"]["bread-dough"] > 0 > weights["dough"]["pizza-oven"]
    assert "pizza_oven" in weights and "pizza_fuel" not in weights  # pairs are features too, once met twice


def test_the_bundled_weights_are_read_whole() -> None:
    """Every line of the shipped file is read, and it names only entries the knowledge holds."""
    index = open_index(bundled_knowledge_dir())
    assert index.learned
    assert not [problem for problem in index.problems if WEIGHTS_FILE in problem.path]
    path = bundled_knowledge_dir() / WEIGHTS_FILE
    named = {pair.rpartition(":")[0] for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#") for pair in line.split("\t")[2].split()}
    assert named == set(index.topics) | {OFF_TOPIC}


def test_the_weights_file_records_what_it_was_trained_on() -> None:
    """The digest in the header changes with any word, entry or weight of an example."""
    words = [["pizza", "oven"], ["pizza", "oven", "hot"], ["dough", "knead"], ["dough", "wet"]]
    labels, weights = ["pizza-oven", "pizza-oven", "bread-dough", "bread-dough"], [1.0, 1.0, 3.0, 1.0]
    digest = inputs_digest(words, labels, weights)
    assert trained_digest(train(words, labels, weights)) == digest
    assert len({digest, inputs_digest([["pizza", "ovens"], *words[1:]], labels, weights),
                inputs_digest(words, ["bread-dough", *labels[1:]], weights), inputs_digest(words, labels, [1.0] * 4)}) == 4
    assert trained_digest(WEIGHTS) is None  # a file written by hand, or before digests


def test_the_bundled_weights_were_trained_on_the_entries_and_questions_as_they_are() -> None:
    """An edited entry or a new real-dev question without training again fails here."""
    root = bundled_knowledge_dir()
    recorded = trained_digest((root / WEIGHTS_FILE).read_text(encoding="utf-8"))
    assert recorded == inputs_digest(*examples(root, open_index(root))), "the entries or questions changed since the weights were trained: run python -m tests.eval.train"

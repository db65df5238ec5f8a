"""From a typed question to the guided wizard (`advisor.decision.hints`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.decision.hints import Hints, described, given_answers, hints_of, offer
from advisor.decision.tree import Tree
from advisor.decision.validate import bundled_tree_path, load_tree
from advisor.library import open_index, tree_hints
from advisor.paths import bundled_knowledge_dir
from advisor.search.index import SearchIndex


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return open_index(bundled_knowledge_dir(), use_cache=False)


@pytest.fixture(scope="module")
def tree() -> Tree:
    return load_tree(bundled_tree_path())


@pytest.fixture(scope="module")
def hints(tree: Tree) -> Hints:
    return hints_of(tree)


@pytest.mark.parametrize(
    ("question", "entry", "answers"),
    [
        ("k8s for 1 notebook?", "faq-k8s-single-job", (("workload", "notebook"),)),
        ("k8s co dang dung cho 1 notebook ko", "faq-k8s-single-job", (("workload", "notebook"),)),
        ("should i use kubernetes for inference serving", "inference-serving", (("workload", "inference"),)),
        ("có nên dùng k8s cho huấn luyện phân tán không", "when-k8s-worth-it", (("workload", "distributed-training"),)),
        # The wizard does not cite this entry for the workload: no decision to go on to.
        ("jupyter notebook kernel dies with CUDA out of memory", "gpu-memory-sizing", None),
        # Two workloads named: neither is given, and this entry offers the guide only with one.
        ("kubernetes for inference serving or for a notebook?", "inference-serving", None),
        # The guide answers these entries' question whole: it is offered from its start.
        ("k8s for a notebook or for inference serving?", "when-k8s-worth-it", ()),
        ("nen dung k8s khong", "when-k8s-worth-it", ()),
        ("should we run our own cluster or managed kubernetes", "managed-vs-self-run", ()),  # what it asks is not given
    ],
)
def test_an_answer_offers_the_guide_with_the_answers_its_question_settles(
    index: SearchIndex, hints: Hints, question: str, entry: str, answers: tuple[tuple[str, str], ...] | None
) -> None:
    assert offer(hints, index.analyzer, question, entry) == answers


def test_the_cached_hints_are_the_trees(hints: Hints) -> None:
    assert hints[1] == {"when-k8s-worth-it", "faq-k8s-single-job", "managed-vs-self-run"}
    assert tree_hints() == hints  # read from the tree's cache the second time
    assert tree_hints() == hints


def test_given_answers_are_described_as_the_wizard_words_them(hints: Hints) -> None:
    assert described(hints[0], (("workload", "notebook"),), "en") == "Workload: One interactive notebook (Jupyter)"
    assert described(hints[0], (("workload", "notebook"),), "vi") == "Loại công việc: Một notebook tương tác (Jupyter)"


@given(question=st.text(max_size=120))
def test_any_question_gives_only_real_answers(index: SearchIndex, tree: Tree, hints: Hints, question: str) -> None:
    for key, value in given_answers(hints[0], index.analyzer, question, "when-k8s-worth-it"):
        found = tree.question(key)
        assert found is not None and found.option(value) is not None

"""The first clause of a question, and whether it agrees with the whole (`advisor.search.clauses`)."""

from __future__ import annotations

import re
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from advisor.search.clauses import _BOUNDARY, clause_agreement, first_clause
from advisor.search.confidence import answer_confidence
from advisor.search.index import SearchIndex
from advisor.search.rank import search


@pytest.mark.parametrize(
    ("question", "clause"),
    [
        ("Pods stuck in Pending on GPU nodes - 0/3 nodes are available: 3 Insufficient nvidia.com/gpu", "Pods stuck in Pending on GPU nodes"),
        ("nvidia-smi works on the host. Inside the pod it says command not found", "nvidia-smi works on the host"),
        ("Can two pods share one T4? We only have one card in the cluster", "Can two pods share one T4"),
        ("dcgm-exporter crashes\nlevel=fatal msg=failed to initialize NVML", "dcgm-exporter crashes"),
        ("how do I split an A100 into MIG instances?", None),  # a question mark at the end ends nothing
        ("upgrade from v2.4.1 to v2.5.0 broke the device plugin", None),  # version dots are not sentences
        ("MIG? yes please tell me", None),  # one word is not a clause
        ("time slicing vs MPS. Which one?", None),  # too little after it to weigh against
    ],
)
def test_the_first_clause_ends_at_a_dash_a_sentence_or_a_line(question: str, clause: str | None) -> None:
    assert first_clause(question) == clause


@given(st.text())
def test_a_first_clause_opens_the_question_and_holds_no_boundary(question: str) -> None:
    clause = first_clause(question)
    if clause is not None:
        assert question.lstrip().startswith(clause)
        assert re.search(_BOUNDARY, clause) is None
        assert len(clause.split()) >= 2


@given(st.lists(st.sampled_from(["gpu", "pod", " ", "-", ".", "?", "!", "\n", "\t", "\u00a0", "x"])).map("".join) | st.text())
def test_a_question_without_a_boundary_is_never_split_and_one_with_it_may_be(question: str) -> None:
    """`first_clause` skips the pattern when no boundary can match; it must never skip one that does."""
    if re.search(_BOUNDARY, question) is None:
        assert first_clause(question) is None
    else:
        end = re.search(_BOUNDARY, question)
        assert end is not None
        clause = question[: end.start()].strip()
        long_enough = len(clause.split()) >= 2 and len(question[end.end() :].split()) >= 3
        assert first_clause(question) == (clause if long_enough else None)


class _Hit(NamedTuple):
    topic: str


class _Outcome(NamedTuple):
    best: _Hit | None


def test_agreement_ranks_only_the_clause() -> None:
    asked: list[str] = []

    def ask(text: str) -> _Outcome:
        asked.append(text)
        return _Outcome(_Hit("mig") if "MIG" in text else None)

    assert clause_agreement(ask, "Splitting an A100 with MIG - we want seven pods on one card", "mig") == 1.0  # type: ignore[arg-type]
    assert clause_agreement(ask, "Sharing one card with MPS - we want seven pods on one card", "mig") == -1.0  # type: ignore[arg-type]
    assert clause_agreement(ask, "how do I split an A100 into MIG instances?", "mig") == 0.0  # type: ignore[arg-type]
    assert asked == ["Splitting an A100 with MIG", "Sharing one card with MPS"]


@pytest.fixture(scope="module")
def bundled() -> SearchIndex:
    return open_index(bundled_knowledge_dir(), use_cache=False)


def test_a_title_that_names_the_answer_makes_the_search_surer(bundled: SearchIndex) -> None:
    body = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu on every scheduling attempt"
    agreeing = search(bundled, f"Pods stuck in Pending on GPU nodes - {body}")
    disagreeing = search(bundled, f"Grafana dashboard for DCGM metrics - {body}")
    assert agreeing.best is not None and agreeing.best.topic == "pods-pending-gpu"
    assert agreeing.signals is not None and agreeing.signals.clause == 1.0
    assert disagreeing.signals is not None and disagreeing.signals.clause == -1.0
    assert answer_confidence(agreeing.signals) > answer_confidence(agreeing.signals._replace(clause=0.0))
    assert answer_confidence(disagreeing.signals) < answer_confidence(disagreeing.signals._replace(clause=0.0))

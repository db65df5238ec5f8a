"""The shortcuts taken for speed never change an answer.

Fuzzy scoring is bounded and pruned, and a large index is read from disk on demand; both must
give exactly what scoring every phrase of every candidate, from memory, gives.
"""

from __future__ import annotations

import heapq
import json
from pathlib import Path

import pytest
from rapidfuzz import fuzz, process

import advisor.search.rank as engine
from advisor.search import features, storage
from advisor.search.phrases import phrase_similarity
from advisor.library import open_index
from advisor.search.index import FULL_WEIGHT, PHRASE_FIELDS, SearchIndex, decode_posting
from advisor.paths import bundled_knowledge_dir

EVAL = Path(__file__).resolve().parent / "eval"


# The labelled sets grow every round (4,130 distinct questions now) and these checks must not
# grow with them: CI took 14 minutes when they still ran all of them.
SPREAD = 1200


def _questions() -> list[str]:
    """An even spread of `SPREAD` labelled questions across every set, each once (the section set
    repeats real-dev's and real-check's), with a few short ones that take the engine's other paths."""
    questions = []
    for path in sorted(EVAL.glob("*.jsonl")):
        questions += [json.loads(line)["q"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    distinct = list(dict.fromkeys(questions))
    step = max(len(distinct) / SPREAD, 1.0)
    spread = [distinct[int(place * step)] for place in range(min(SPREAD, len(distinct)))]
    return spread + ["gpu", "mig", "kubernets timeslicing", "how to stop paying for idle gpu nodes at night"]


def _exhaustive_hits(index: SearchIndex, normalized: str, candidates: list[int], scores: dict[int, float], total: float, lang: str | None, keep: int, quoted: dict[int, int]) -> list[engine.Hit]:
    """Every phrase of every candidate scored, as before the bounds: the reference."""
    best: dict[int, tuple[float, int]] = {}
    choices: list[tuple[int, int]] = []
    starts = index.topic_phrase_start
    for topic in candidates:
        choices += [(topic, phrase) for phrase in range(starts[topic], starts[topic + 1])]
    if choices and normalized:
        strings = [index.phrases[phrase] for _, phrase in choices]
        sort_scores = process.extract(normalized, strings, scorer=fuzz.token_sort_ratio, limit=None)
        set_scores = {position: score for _, score, position in process.extract(normalized, strings, scorer=fuzz.token_set_ratio, limit=None)}
        for _, sort_score, position in sort_scores:  # best score first, then first written
            topic, phrase = choices[position]
            score = phrase_similarity(sort_score, set_scores[position])
            if score > best.get(topic, (-1.0, -1))[0]:
                best[topic] = (score, phrase)
    hits = []
    for topic in candidates:
        lexical = min(scores[topic] / total, 1.0) if total else 0.0
        fuzzy_score, phrase = best.get(topic, (0.0, -1))
        score = max(engine.combined_score(lexical, fuzzy_score, scores[topic]), engine._error_floor(quoted, topic))
        matched = index.phrase_text[phrase] if phrase >= 0 else ""
        field_name = PHRASE_FIELDS[index.phrase_field[phrase]] if phrase >= 0 else "body"
        entry = engine._entry_for(index, topic, lang)
        hits.append(engine.Hit(index.topics[topic], entry, round(score, 1), round(lexical, 3), round(fuzzy_score, 1), round(scores[topic], 2), matched, field_name))
    hits.sort(key=lambda hit: (-hit.score, hit.topic))
    return hits[:keep]


@pytest.fixture(scope="module")
def bundled() -> SearchIndex:
    return open_index(bundled_knowledge_dir(), use_cache=False)


@pytest.mark.parametrize(("limit", "start"), [(1, 0), (5, 1), (12, 2)])
def test_bounded_fuzzy_scoring_gives_the_exhaustive_hits(bundled: SearchIndex, limit: int, start: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sixth of the questions at each limit: the reference scores every phrase of 40 topics,
    about 40 ms a question, and all of them at every limit took six minutes of CI."""
    questions = _questions()[start::6]
    fast = [engine.search(bundled, question, limit=limit) for question in questions]
    monkeypatch.setattr(engine, "_best_hits", _exhaustive_hits)
    slow = [engine.search(bundled, question, limit=limit) for question in questions]
    assert fast == slow


def _walk_common(index: SearchIndex, scores: dict[int, float], common: list[tuple[str, float, float]]) -> None:
    """The common tokens' postings walked in full, as before the binary search: the reference."""
    shortlist = set(heapq.nlargest(engine.CANDIDATES * 4, scores, key=scores.__getitem__))
    for token, idf, confidence in common:
        gain = idf * confidence / FULL_WEIGHT
        for packed in index.posting(token):
            topic, weight = decode_posting(packed)
            if topic in shortlist:
                scores[topic] += gain * weight


def test_common_token_lookup_gives_the_walk_it_replaces(bundled: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above PREFILTER_TOPICS topics, common tokens only rescore a shortlist (forced on here).
    Half of the questions; the other half checks the repeated phrasings below."""
    questions = _questions()[0::2]
    monkeypatch.setattr(engine, "PREFILTER_TOPICS", 0)
    monkeypatch.setattr(engine, "COMMON_TOKEN_SHARE", 0.2)
    fast = [engine.search(bundled, question) for question in questions]
    monkeypatch.setattr(engine, "_rescore_common", _walk_common)
    assert [engine.search(bundled, question) for question in questions] == fast


def test_an_index_read_from_disk_answers_as_one_in_memory(bundled: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "READ_WHOLE_BYTES", 0)  # as for a large folder
    on_disk = open_index(bundled_knowledge_dir())
    assert isinstance(on_disk.postings.lookup.names._blob, storage.FileSection)
    for question in _questions()[:150]:
        assert engine.search(on_disk, question) == engine.search(bundled, question)
    assert [on_disk.meta(i) for i in range(len(on_disk.entries))] == [bundled.meta(i) for i in range(len(bundled.entries))]
    assert on_disk.entry_index("mig", "vi") == bundled.entry_index("mig", "vi")


def test_phrasings_repeated_across_languages_are_kept_once_without_changing_an_answer(bundled: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(features, "KEEP_REPEATS", frozenset(PHRASE_FIELDS))
    every_repeat = open_index(bundled_knowledge_dir(), use_cache=False)
    assert len(bundled.phrase_text) < 0.8 * len(every_repeat.phrase_text)
    questions = _questions()[1::2]
    assert [engine.search(bundled, question) for question in questions] == [engine.search(every_repeat, question) for question in questions]

"""Typo repair for one word of a question, against the words the index knows.

Split off from the ranking (`advisor.search.rank`), which repairs each unknown word of a question
with it before scoring.
"""

from __future__ import annotations

from rapidfuzz import process
from rapidfuzz.distance import OSA

from advisor.search.index import SearchIndex

TYPO_CUTOFF = 0.8
SHORT_TYPO_CUTOFF = 0.75
PHRASE_BONUS = 0.1


def correct(index: SearchIndex, token: str, known: frozenset[str], before: str, after: str, phrase_only: bool = False) -> list[str]:
    """Repair a token the index does not know: split run-together words, else nearest spelling.

    Among equally close spellings, the one that forms a known phrase with a neighbouring word
    wins ("tiem slicing" becomes "time slicing", not "tim slicing"). With `phrase_only` (a word
    of its own language, "tiệm"), only a repair that forms such a phrase is made. A repair may
    drop a number ("gpu2", "server1": names of things) but never change one: "16gb" is a size,
    and "186gb" (a MIG profile) another question.
    """
    phrases = index.analyzer.phrases

    def joins(first: str, last: str) -> bool:
        return f"{before} {first}" in phrases or f"{last} {after}" in phrases

    if len(token) >= 6:  # words typed together: "timeslicing", "gpuoperator"
        for cut in range(3, len(token) - 2):
            head, tail = token[:cut], token[cut:]
            if (head in index.postings or head in known) and (tail in index.postings or tail in known):
                return [head, tail] if not phrase_only or joins(head, tail) else [token]
    if len(token) < 4 or token.isdigit():
        return [token]
    cutoff = TYPO_CUTOFF if len(token) >= 6 else SHORT_TYPO_CUTOFF
    candidates = process.extract(token, index.vocabulary(len(token)), scorer=OSA.normalized_similarity, score_cutoff=cutoff, limit=8)
    digits = _digits(token)
    candidates = [candidate for candidate in candidates if _digits(candidate[0]) in (digits, "")]
    if not candidates:
        return [token]

    def fit(candidate: tuple[str, float, int]) -> float:
        word, similarity, _ = candidate
        in_bigram = f"{before}_{word}" in index.postings or f"{word}_{after}" in index.postings
        return similarity + (PHRASE_BONUS if joins(word, word) or in_bigram else 0.0)

    best = max(candidates, key=fit)[0]
    return [best] if not phrase_only or joins(best, best) else [token]


def _digits(word: str) -> str:
    return "".join(filter(str.isdigit, word))

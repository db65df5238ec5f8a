"""Fuzzy phrase similarity: how close a question is to one of a topic's authored phrasings."""

from __future__ import annotations

from typing import Any

from rapidfuzz import fuzz, process

# Token-sort's share of a phrase's similarity; token-set has the rest.
SORT_SHARE = 0.7


def best_phrase(normalized: str, texts: list[str], first: int, sort_score: dict[str, float], set_score: dict[str, float]) -> tuple[float, int]:
    """(fuzzy score, phrase number) of a topic's best phrase; (0.0, -1) when it has none.

    The best has the highest mean of the two ratios, then the highest token-sort ratio, then
    comes first. `set_score` caches token-set ratios across topics.
    """
    if not texts:
        return 0.0, -1
    leader = max(range(len(texts)), key=lambda i: sort_score[texts[i]])
    lead = texts[leader]
    if lead not in set_score:
        set_score[lead] = fuzz.token_set_ratio(normalized, lead)
    floor = phrase_similarity(sort_score[lead], set_score[lead])
    pending = {text: 0.0 for text in texts if text not in set_score and phrase_similarity(sort_score[text], 100.0) >= floor}
    if len(pending) > 8:
        batch(normalized, pending, fuzz.token_set_ratio)
    else:
        for text in pending:
            pending[text] = fuzz.token_set_ratio(normalized, text)
    set_score.update(pending)
    best = (floor, sort_score[lead], -(first + leader))
    for offset, text in enumerate(texts):
        if phrase_similarity(sort_score[text], 100.0) >= floor:  # the others cannot beat the leader
            candidate = (phrase_similarity(sort_score[text], set_score[text]), sort_score[text], -(first + offset))
            if candidate > best:
                best = candidate
    return best[0], -best[2]


def phrase_similarity(sort_ratio: float, set_ratio: float) -> float:
    """How close a phrasing is to the question: token-sort rewards the same words overall,
    token-set a phrasing whose words the question contains."""
    return SORT_SHARE * sort_ratio + (1 - SORT_SHARE) * set_ratio


def batch(query: str, scores: dict[str, float], scorer: Any) -> None:
    """Fill `scores` (choice -> 0.0) with `scorer(query, choice)`, in one rapidfuzz call."""
    if scores:
        strings = list(scores)
        for _, score, position in process.extract(query, strings, scorer=scorer, limit=None):
            scores[strings[position]] = score

"""Fuzzy phrase similarity: how close a question is to one of a topic's authored phrasings."""

from __future__ import annotations

from typing import Any

from rapidfuzz import fuzz, process

# Token-sort's share of a phrase's similarity; token-set has the rest.
SORT_SHARE = 0.7


def best_phrase(normalized: str, texts: list[str], first: int, sort_score: dict[str, float], set_score: dict[str, float]) -> tuple[float, int]:
    """(fuzzy score, phrase number) of a topic's best phrase; (0.0, -1) when it has none.

    The best has the highest mean of the two ratios, then the highest token-sort ratio, then
    comes first. `set_score` caches token-set ratios across topics. Only the phrases whose
    token-sort ratio could reach the leader's score with a perfect token-set ratio are scored:
    a topic has a hundred or more phrases, and a long question rules out all but a few.
    """
    if not texts:
        return 0.0, -1
    missing = [text for text in texts if text not in sort_score]  # below a cutoff the caller gave rapidfuzz
    if missing:
        sort_score.update(batch(" ".join(sorted(normalized.split())), missing, fuzz.ratio))
    sorts = list(map(sort_score.__getitem__, texts))
    leader = sorts.index(max(sorts))
    lead = texts[leader]
    if lead not in set_score:
        set_score[lead] = fuzz.token_set_ratio(normalized, lead)
    floor = phrase_similarity(sorts[leader], set_score[lead])
    # A hair lower, so that rounding can only let in a phrase that is then scored exactly.
    least = least_sort_ratio(floor) - 1e-6
    hopeful = [offset for offset, sort in enumerate(sorts) if sort >= least]
    # No phrase ranked below the leader by token-sort beats it with a lower token-set ratio, so
    # rapidfuzz may give up on any below the leader's, which it does in a fraction of the time.
    # Those are not kept in `set_score`: another topic's leader may need its exact ratio.
    pending = list(dict.fromkeys(texts[offset] for offset in hopeful if texts[offset] not in set_score))
    set_score.update(batch(normalized, pending, fuzz.token_set_ratio, max(set_score[lead] - 0.01, 0.0)))
    best = (floor, sorts[leader], -(first + leader))
    for offset in hopeful:
        set_ratio = set_score.get(texts[offset])
        if set_ratio is None:  # below the leader's token-set ratio
            continue
        candidate = (phrase_similarity(sorts[offset], set_ratio), sorts[offset], -(first + offset))
        if candidate > best:
            best = candidate
    return best[0], -best[2]


def phrase_similarity(sort_ratio: float, set_ratio: float) -> float:
    """How close a phrasing is to the question: token-sort rewards the same words overall,
    token-set a phrasing whose words the question contains."""
    return SORT_SHARE * sort_ratio + (1 - SORT_SHARE) * set_ratio


def least_sort_ratio(similarity: float) -> float:
    """The token-sort ratio a phrase needs for its `phrase_similarity` to reach `similarity`, even
    with a perfect token-set ratio."""
    return (similarity - (1 - SORT_SHARE) * 100.0) / SORT_SHARE


def batch(query: str, strings: list[str], scorer: Any, cutoff: float = 0.0) -> dict[str, float]:
    """`scorer(query, string)` of each of `strings` that scores at least `cutoff`, in one rapidfuzz call."""
    if len(strings) <= 8:  # fewer than this are quicker one by one than through `process.extract`
        found = {string: scorer(query, string, score_cutoff=cutoff) for string in strings}
        return {string: score for string, score in found.items() if score >= cutoff}  # below it, rapidfuzz gives 0
    return {strings[position]: score for _, score, position in process.extract(query, strings, scorer=scorer, limit=None, score_cutoff=cutoff)}

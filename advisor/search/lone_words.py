"""Whether a question of one word names a topic.

One word is a question too ("mig", "kueue", "taint"), answered when it is what an entry is about.
Two kinds of lone word name no topic, however sure the ranking is: a word nearly every topic holds
("gpu", "pod"), and a word the best topic holds only in passing. With one word, the ranking's
surest signals mislead: when few topics hold the word, the best leads by most of its score and
owns most of the likelihood, so "world" (from the `WORLD_SIZE` variable a training entry names),
"book" (from "the examples of a book or course", one alternate question of many) or "chair"
(repaired into a Vietnamese syllable) came out at confidence 74-84. Both kinds get choices
instead of an answer.
"""

from __future__ import annotations

from bisect import bisect_left

from advisor.search.index import FIELD_WEIGHTS, POSTING_BITS, WEIGHT_MASK, SearchIndex

# A word nearly every topic holds names none of them; judged only where there are enough topics
# to tell.
VAGUE_TOKEN_SHARE = 0.9
VAGUE_MIN_TOPICS = 20
# A word that weighs no more than this in a topic is held there in passing: it is in neither the
# title nor a listed error line, and too few of the topic's phrasings hold it (under one in 18) to
# earn the focus bonus (`advisor.search.index.FOCUS_BONUS`). The domain's own terms weigh more
# where they are answered: "coreweave", "deepspeed" and "toolkit" 9, "mig" and "kueue" 13 or more.
IN_PASSING_WEIGHT = FIELD_WEIGHTS["question"]


# Why a lone word names no topic (`lone_word`).
VAGUE, IN_PASSING = "vague", "in_passing"


def lone_word(index: SearchIndex, resolved: list[tuple[str, float]], topic: int) -> str:
    """VAGUE or IN_PASSING when the question's words (`resolved`: each known word and how surely
    it was typed) are one word that names no topic, the best-ranked being `topic`; else ""."""
    if len(resolved) != 1:
        return ""
    word = resolved[0][0]
    if is_vague(index, word):
        return VAGUE
    return IN_PASSING if weight_in(index, word, topic) <= IN_PASSING_WEIGHT else ""


def is_vague(index: SearchIndex, word: str) -> bool:
    """Whether nearly all topics hold `word`: "gpu" alone names no topic."""
    return index.topic_count >= VAGUE_MIN_TOPICS and index.document_frequency(word) >= index.topic_count * VAGUE_TOKEN_SHARE


def weight_in(index: SearchIndex, word: str, topic: int) -> int:
    """The weight of `word` in `topic` (its best field and focus bonus); 0 when the topic lacks it."""
    postings = index.posting(word)
    at = bisect_left(postings, topic << POSTING_BITS)
    if at < len(postings) and postings[at] >> POSTING_BITS == topic:
        return postings[at] & WEIGHT_MASK
    return 0

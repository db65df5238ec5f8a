"""Whether a question of one or two words names a topic.

A word or two is a question too ("mig", "kueue", "spot gpu"), answered when it is what an entry
is about. Two kinds name no topic, however sure the ranking is: one word nearly every topic holds
("gpu", "pod"), and words the best topic holds only in passing. With so few words, the ranking's
surest signals mislead: when few topics hold them, the best leads by most of its score and owns
most of the likelihood, so "world" (from the `WORLD_SIZE` variable a training entry names), "book"
(from "the examples of a book or course", one alternate question of many), "chair" (repaired into
a Vietnamese syllable) and "how to install windows 11" (`local-k8s-gpu` mentions both words) came
out at confidence 71-84. Both kinds get choices instead of an answer.
"""

from __future__ import annotations

from advisor.search.index import FIELD_WEIGHTS, SearchIndex, posting_weight

# A word nearly every topic holds names none of them; judged only where there are enough topics
# to tell.
VAGUE_TOKEN_SHARE = 0.9
VAGUE_MIN_TOPICS = 20
# A word that weighs no more than this in a topic is held there in passing: it is in neither the
# title nor a listed error line, and too few of the topic's phrasings hold it (under one in 18) to
# earn the focus bonus (`advisor.search.index.FOCUS_BONUS`). The domain's own terms weigh more
# where they are answered: "coreweave", "deepspeed" and "toolkit" 9, "mig" and "kueue" 13 or more.
IN_PASSING_WEIGHT = FIELD_WEIGHTS["question"]
# Questions of more words than this are judged as a whole: a longer question's words in passing
# add up to evidence (with three, "h100 vs a100" would be held back).
FEW_WORDS = 2
# Why a question of few words names no topic (`held_back`).
VAGUE, IN_PASSING = "vague", "in_passing"


def held_back(index: SearchIndex, resolved: list[tuple[str, float]], topic: int) -> str:
    """VAGUE or IN_PASSING when the question's words (`resolved`: each known word once, and how
    surely it was typed) name no topic, the best-ranked being `topic`; else ""."""
    words = [word for word, _ in resolved]
    if len(words) == 1 and is_vague(index, words[0]):
        return VAGUE
    if 1 <= len(words) <= FEW_WORDS and all(posting_weight(index.posting(word), topic) <= IN_PASSING_WEIGHT for word in words):
        return IN_PASSING
    return ""


def is_vague(index: SearchIndex, word: str) -> bool:
    """Whether nearly all topics hold `word`: "gpu" alone names no topic."""
    return index.topic_count >= VAGUE_MIN_TOPICS and index.document_frequency(word) >= index.topic_count * VAGUE_TOKEN_SHARE


"""A second opinion on the best entries: which one's own text most likely wrote the question.

The ranking's score says how much of the question an entry's fields explain, a title counting
more than a paragraph, and how close one of its phrasings comes; both lean on the phrasings the
authors wrote, and a question put in other words can go to the entry that names its rarest word
in a heading over the one whose text is about it. A multinomial naive Bayes model reads the
question as words drawn from the text of one of the best topics: each piece of a topic's text (a
title, a question, a section) gives its words a mass (`advisor.search.features`), smoothed by one,
and the rarer a word the more it counts. Blended into the score, its share among the best topics
picks the right entry more often on questions no entry was written from, and how much of it the
best entry holds tells the confidence whether the two readings agree (`advisor.search.confidence`).
Its form and constants were chosen on real-dev and real-check together (`python -m
tests.eval.report`), each judged by its effect on both; never on real-test.
"""

from __future__ import annotations

import math
from bisect import bisect_left

from advisor.search.index import POSTING_BITS, SearchIndex, posting_mass

# How many of the best entries the model chooses among: the right one is among the first three
# for nine real questions in ten (the README's top-3 column), and each costs a lookup per word;
# three or eight did worse than five.
LIKELIHOOD_HITS = 5
# Log-likelihoods are divided by this before they become shares: the model is sure of itself far
# beyond what it knows, and undivided its share would be all or nothing.
TEMPERATURE = 4.0
# The score is this much the model's share (times 100) and the rest the ranking's own.
LIKELIHOOD_SHARE = 0.1


def shares(index: SearchIndex, topics: list[int], words: list[tuple[str, float]]) -> list[float]:
    """The share (0-1, summing to 1) of each topic number in `topics` of the chance that its text
    wrote the question's `words` (each word with its weight: its rarity)."""
    vocabulary = len(index.postings.lookup)
    scores = [0.0] * len(topics)
    total = 0.0
    for word, weight in words:
        postings = index.posting(word)
        total += weight
        for place, topic in enumerate(topics):
            at = bisect_left(postings, topic << POSTING_BITS)
            if at < len(postings) and postings[at] >> POSTING_BITS == topic:
                scores[place] += weight * posting_mass(postings[at])
    scores = [(score - total * math.log(index.topic_size[topic] + vocabulary)) / TEMPERATURE for score, topic in zip(scores, topics)]
    best = max(scores, default=0.0)
    odds = [math.exp(score - best) for score in scores]
    whole = sum(odds)
    return [value / whole for value in odds]


def blended(score: float, share: float) -> float:
    """The ranking's `score` (0-100) with the model's `share` (0-1) of it blended in."""
    return (1 - LIKELIHOOD_SHARE) * score + LIKELIHOOD_SHARE * 100.0 * share

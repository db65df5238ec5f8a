"""Which section of an entry answers the question: the entry's `##` sections ranked like entries.

A question about "pods stuck Pending with Insufficient nvidia.com/gpu" should open on the section
about that message, not on the entry's first section. Sections are scored on the question's
meaningful words by their rarity in the knowledge and within the entry (a word every section of
the entry uses tells them apart no better than its title does), a word in the heading counting
double, so the one that speaks of what was asked comes first; when none shares a word with the
question, the first one leads. Pairs of neighbouring words count at the share the entry ranking
gives them (`BIGRAM_SHARE`): at full weight a pair outweighed the words it is made of, and
sections sharing one stock phrase with the question ("nvidia.com/gpu", "pod 1") won over the one
about what was asked (`python -m tests.eval.sections`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from advisor.knowledge.body import sections
from advisor.search.analysis import bigrams
from advisor.search.index import SearchIndex
from advisor.search.rank import BIGRAM_SHARE

HEADING_WEIGHT = 2.0


def rank_sections(index: SearchIndex, body: str, words: list[str], stored: Sequence[str] = ()) -> list[tuple[float, str, str]]:
    """(score, heading, text) of every section of `body`, best first (ties keep their order).

    `stored`: the sections' words as the index holds them (`SearchIndex.section_words`), which
    spares analysing the text again; they are used when they still fit the body.
    """
    pairs = set(bigrams(words))
    wanted = set(words) | pairs
    parts = sections(body)
    if len(stored) == 2 * len(parts):
        pieces = list(stored)
    else:  # no stored words, or the file changed since the index was built
        pieces = [" ".join(index.analyzer.content(piece)) for part in parts for piece in part]
    # A pair "a_b" is " a b " among a piece's words (split at each underscore: a word may hold one).
    spaced = [(token, f" {token[:at]} {token[at + 1:]} ") for token in wanted for at, mark in enumerate(token) if mark == "_"]
    held = [_held(wanted, spaced, piece) for piece in pieces]
    analysed = list(zip(held[0::2], held[1::2]))
    spread = {token: sum(1 for in_heading, in_text in analysed if token in in_heading or token in in_text) for token in wanted}
    scored: list[tuple[float, int, str, str]] = []
    for number, ((heading, text), (in_heading, in_text)) in enumerate(zip(parts, analysed)):
        score = 0.0
        for token in wanted:
            if token in in_heading or token in in_text:
                local = math.log(1 + len(parts) / spread[token])
                weight = index.idf(token) * (BIGRAM_SHARE if token in pairs else 1.0)
                score += weight * local * (HEADING_WEIGHT if token in in_heading else 1.0)
        scored.append((score, number, heading, text))
    # Rounded: sections that score the same keep their order, whatever order the sums were made
    # in (a set's, which changes with each process's string hashing).
    scored.sort(key=lambda item: (-round(item[0], 9), item[1]))
    return [(score, heading, text) for score, _, heading, text in scored]


def _held(tokens: set[str], spaced: list[tuple[str, str]], words: str) -> set[str]:
    """Those of `tokens` that are among the space-separated `words` or their `bigrams`, found
    without building every pair of a section."""
    split = words.split()
    found = tokens.intersection(split)
    padded = f" {' '.join(split)} "
    found.update(token for token, pair in spaced if pair in padded)
    return found

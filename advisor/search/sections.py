"""Which section of an entry answers the question: the entry's `##` sections ranked like entries.

A question about "pods stuck Pending with Insufficient nvidia.com/gpu" should open on the section
about that message, not on the entry's first section. Sections are scored on the question's
meaningful words by their rarity, a word in the heading counting double, so the one that speaks
of what was asked comes first; when none shares a word with the question, the first one leads.
"""

from __future__ import annotations

from advisor.knowledge.body import sections
from advisor.search.analysis import bigrams
from advisor.search.index import SearchIndex

HEADING_WEIGHT = 2.0


def rank_sections(index: SearchIndex, body: str, words: list[str]) -> list[tuple[float, str, str]]:
    """(score, heading, text) of every section of `body`, best first (ties keep their order)."""
    wanted = set(words) | set(bigrams(words))
    scored: list[tuple[float, int, str, str]] = []
    for number, (heading, text) in enumerate(sections(body)):
        in_heading = set(index.analyzer.content(heading))
        in_text = set(index.analyzer.content(text))
        in_heading |= set(bigrams(index.analyzer.content(heading)))
        score = 0.0
        for token in wanted:
            if token in in_heading:
                score += HEADING_WEIGHT * index.idf(token)
            elif token in in_text:
                score += index.idf(token)
        scored.append((score, number, heading, text))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(score, heading, text) for score, _, heading, text in scored]

"""What one topic gives the index: its entries' records, its phrasings, and its features (words
and pairs of neighbouring words) with their weights, which `advisor.search.build` puts in the
index's tables.
"""

from __future__ import annotations

import marshal
from array import array
from collections import Counter
from itertools import accumulate, chain, count, repeat
from operator import add, itemgetter
from typing import Any

import numpy

from advisor.knowledge.body import opening, sections
from advisor.search import tables
from advisor.search.analysis import Analyzer
from advisor.search.index import FIELD_WEIGHTS, FOCUS_BONUS, FULL_WEIGHT, MASS_MAX, MASS_STEPS, MIN_ERROR_WORDS, PHRASE_FIELDS

# Keywords and error lines repeat across a topic's languages (the Vietnamese file keeps the
# English terms): a repeat is scored like the phrasing before it and never wins over it, so only
# the first is kept for fuzzy matching (a quarter of the bundled phrasings). Questions and titles
# are kept, repeated or not: each is the suggestion shown for its own entry.
KEEP_REPEATS = frozenset({"title", "question"})

# One topic, read and analysed, in few objects: its id, its
# entries' records (one blob and where each ends) and languages, its error lines' signatures,
# its phrasings (words, words sorted, text, each packed; field and entry number as bytes), its words
# and their weights, its pairs of neighbouring words (two word positions) and their weights, and
# its entries' sections analysed (one blob and where each entry's ends: `SearchIndex.section_words`),
# and each word's mass and the topic's size (`advisor.search.likelihood`).
# A weight is the best field weight plus the focus bonus (capped at FULL_WEIGHT); the builder
# numbers the words and adds the topic number.
Run = tuple[bytes, list[int]]  # strings packed by `tables.run`
Analysed = tuple[str, bytes, list[int], list[str], list[tuple[str, ...]], Run, Run, Run, bytes, bytes, list[str], bytes, bytes, bytes, bytes, bytes, list[int], bytes, int]


def analyse(entries: list[Any], analyzer: Analyzer) -> Analysed:
    """The analysis of one topic's entries (all of one id, by language).

    A feature's weight is the best weight of the fields it occurs in: the fields' words are
    laid over one another lightest first, so that the heaviest stays, in whole-list operations.
    """
    texts: list[tuple[int, list[str], list[tuple[str, str]]]] = []  # (field weight, words, pairs), in the order written
    held: list[set[Any]] = []  # the features of each phrasing
    phrasings: list[tuple[str, str, str, int, int]] = []
    phrasing_count = 0  # the focus bonus counts repeats too
    sorted_seen: set[str] = set()
    signatures: list[tuple[str, ...]] = []
    records = [marshal.dumps([e.id, e.lang, e.title, e.summary, list(e.related), [list(pair) for pair in e.sources], e.path, e.topic]) for e in entries]
    fields: list[tuple[int, str, str]] = []  # (entry number, field, text), in the order written
    # The body is analysed as its opening and then each section's heading and text, which give
    # the same words as the whole, and each section's words are kept for ranking the sections of
    # an answer without analysing its text again (`advisor.search.sections`).
    section_spans: list[tuple[int, int]] = []  # where each entry's section pieces are in `fields`
    for number, entry in enumerate(entries):
        fields += [(number, "title", entry.title)] + [(number, "question", q) for q in entry.questions] + [(number, "keyword", k) for k in entry.keywords]
        fields += [(number, "error", line) for line in entry.errors] + [(number, "heading", heading) for heading in entry.headings]
        fields += [(number, "summary", entry.summary), (number, "body", opening(entry.body))]
        pieces = [piece for part in sections(entry.body) for piece in part]
        section_spans.append((len(fields), len(fields) + len(pieces)))
        fields += [(number, "body", piece) for piece in pieces]
    analysed = analyzer.content_all(list(map(itemgetter(2), fields)))
    section_words = [marshal.dumps([" ".join(words) for words in analysed[begin:end]]) for begin, end in section_spans]
    for (number, field, text), words in zip(fields, analysed):
        if field == "error" and len(words) >= MIN_ERROR_WORDS and tuple(words) not in signatures:
            signatures.append(tuple(words))
        pairs = list(zip(words, words[1:])) if field != "body" else []
        texts.append((FIELD_WEIGHTS[field], words, pairs))
        if field in PHRASE_FIELDS:
            held.append({*words, *pairs})
            if words:
                phrasing_count += 1
                sorted_words = " ".join(sorted(words))
                if field in KEEP_REPEATS or sorted_words not in sorted_seen:
                    phrasings.append((" ".join(words), sorted_words, text, PHRASE_FIELDS.index(field), number))
                sorted_seen.add(sorted_words)
    counts = Counter(chain.from_iterable(held))  # feature -> how many of the topic's phrasings hold it
    weights = _best(texts, 1)
    pair_weights = _best(texts, 2)
    phrases = max(phrasing_count, 1)
    bonus = [round(FOCUS_BONUS * min(holding / phrases, 1.0)) for holding in range(max(counts.values(), default=0) + 1)]

    def final(table: dict[Any, int]) -> bytes:
        return bytes(map(add, table.values(), map(bonus.__getitem__, map(counts.get, table, repeat(0))))).translate(_CAPPED)

    position = dict(zip(weights, count()))
    masses, size = _masses(fields, analysed, position)
    return (
        entries[0].id,
        b"".join(records),
        list(accumulate(map(len, records))),
        [entry.lang for entry in entries],
        signatures,
        tables.run(list(map(itemgetter(0), phrasings)), lines=True),
        tables.run(list(map(itemgetter(1), phrasings)), lines=True),
        tables.run(list(map(itemgetter(2), phrasings))),
        bytes(map(itemgetter(3), phrasings)),
        array("i", map(itemgetter(4), phrasings)).tobytes(),
        list(weights),
        final(weights),
        array("i", map(position.__getitem__, map(itemgetter(0), pair_weights))).tobytes(),
        array("i", map(position.__getitem__, map(itemgetter(1), pair_weights))).tobytes(),
        final(pair_weights),
        b"".join(section_words),
        list(accumulate(map(len, section_words))),
        masses,
        size,
    )


def _masses(fields: list[tuple[int, str, str]], analysed: list[list[str]], position: dict[str, int]) -> tuple[bytes, int]:
    """Each word's mass in the topic's text, as ln(1 + mass) in MASS_STEPS steps (a byte a word, in
    the order of `position`), and the mass of all its words (its size, kept whole: it is added to the
    thousands of words of a vocabulary).

    Each piece of text (a title, a question, a keyword, a section's heading or text) gives each of
    its distinct words 1/sqrt(their count), so that a long section weighs little more than a few
    short lines; its size grows by sqrt(count). Headings are counted once, as their sections' first
    piece. Summed by numpy in one pass: a Python loop per word cost a large folder's build a fifth.
    """
    pieces = [set(words) for (_, field, _), words in zip(fields, analysed) if field != "heading" and words]
    counts = numpy.fromiter(map(len, pieces), numpy.intp, len(pieces))
    shares = counts ** -0.5
    words = numpy.fromiter(map(position.__getitem__, chain.from_iterable(pieces)), numpy.intp, int(counts.sum()))
    mass = numpy.bincount(words, numpy.repeat(shares, counts), len(position))
    numpy.log1p(mass, out=mass)
    mass *= MASS_STEPS
    numpy.minimum(numpy.rint(mass, out=mass), MASS_MAX, out=mass)
    return mass.astype(numpy.uint8).tobytes(), round(float(numpy.dot(counts, shares)))


# Weights over FULL_WEIGHT brought down to it, by `bytes.translate`.
_CAPPED = bytes(map(min, range(256), repeat(FULL_WEIGHT)))


def _best(texts: list[tuple[int, list[str], list[tuple[str, str]]]], part: int) -> dict[Any, int]:
    """Each feature (words: `part` 1, pairs: 2) with the best weight of the texts holding it, in
    the order first written."""
    order: dict[Any, int] = dict.fromkeys(chain.from_iterable(map(itemgetter(part), texts)), 0)
    for text in sorted(texts, key=itemgetter(0)):  # lightest first: the heaviest is laid last
        features: list[Any] = text[part]  # type: ignore[assignment]  # `part` picks a list
        order.update(zip(features, repeat(text[0])))  # keeps the order of the keys, takes the values
    return order

"""Building the search index from a loaded knowledge base, as plain data and packed sections.

Each feature (a token, or a bigram of neighbouring tokens in a phrase) gets a posting list of the
topics it occurs in, weighted by the best field it occurs in. Alternate questions, titles and
keywords are also kept whole as phrases for fuzzy matching. Topic by topic, so that only one
topic's tables are alive at a time and building 100,000 entries stays within memory.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable
from itertools import groupby
from typing import Any

from advisor.search import storage, tables
from advisor.search.analysis import Analyzer, bigrams
from advisor.search.index import FIELD_WEIGHTS, FOCUS_BONUS, FULL_WEIGHT, INDEX_VERSION, MIN_ERROR_WORDS, PHRASE_FIELDS, encode_posting

# Extra plain data to store beside the index: given the analyzer and a feature's topic count.
Attach = Callable[[Analyzer, Callable[[str], int]], dict[str, Any]]


def build(root: str | os.PathLike[str], attach: Attach | None, progress: Callable[[int, int], None] | None = None) -> tuple[dict[str, Any], dict[str, bytes]]:
    """(header, sections) of the index of the knowledge folder `root`."""
    from pathlib import Path

    from advisor.knowledge.load import load_knowledge

    data = build_index(load_knowledge(Path(root)), attach)
    return data, data.pop("sections")


def build_index(kb: Any, attach: Attach | None = None) -> dict[str, Any]:
    """Plain-data index of a loaded `KnowledgeBase`, with `attach`'s data stored beside it.

    `attach` lets a domain above search (the provider catalogue) keep its own plain data in the
    cached index, so a warm `advisor ask` reads it without YAML; its `problems` join the knowledge's.
    """
    lexicon = kb.lexicon
    analyzer = Analyzer.build(lexicon.stopwords, lexicon.synonyms or {})
    topics = sorted({entry.id for entry in kb.entries})
    topic_number = {topic: i for i, topic in enumerate(topics)}
    ordered = sorted(kb.entries, key=lambda e: (topic_number[e.id], e.lang))
    langs = sorted({entry.lang for entry in ordered})
    phrases = tables.StringPacker(lines=True)
    sorted_phrases = tables.StringPacker(lines=True)  # tokens sorted: token_sort_ratio is a ratio of these
    phrase_text = tables.StringPacker()
    phrase_field = bytearray()
    phrase_entry = array("i")
    topic_phrase_start = [0] * (len(topics) + 1)
    topic_entry_start = [0] * (len(topics) + 1)
    # Feature -> number, in first-seen order, and each feature's postings in topic order. A
    # topic's weights are folded into the postings as soon as its entries are done, so only one
    # topic's tables are alive at a time: building 100,000 entries stays within memory.
    feature_number: dict[str, int] = {}
    posting_lists: list[array] = []
    error_lines: dict[tuple[str, ...], list[int]] = {}

    for topic, group in groupby(enumerate(ordered), key=lambda item: topic_number[item[1].id]):
        table: dict[str, int] = {}
        counts: dict[str, int] = {}
        first_phrase = len(phrases)

        def add(text: str, field: str) -> list[str]:
            words = analyzer.content(text)
            weight = FIELD_WEIGHTS[field]
            features = words + (bigrams(words) if field != "body" else [])
            for feature in features:
                if table.get(feature, 0) < weight:
                    table[feature] = weight
            if field in PHRASE_FIELDS:
                for feature in set(features):
                    counts[feature] = counts.get(feature, 0) + 1
            return words

        for entry_index, entry in group:
            texts = [("title", entry.title)] + [("question", q) for q in entry.questions] + [("keyword", k) for k in entry.keywords]
            texts += [("error", line) for line in entry.errors]
            for line in entry.errors:
                signature = tuple(analyzer.content(line))
                if len(signature) >= MIN_ERROR_WORDS and topic not in error_lines.setdefault(signature, []):
                    error_lines[signature].append(topic)
            for field, text in texts:
                words = add(text, field)
                if words:
                    phrases.add(" ".join(words))
                    sorted_phrases.add(" ".join(sorted(words)))
                    phrase_text.add(text)
                    phrase_field.append(PHRASE_FIELDS.index(field))
                    phrase_entry.append(entry_index)
            for heading in entry.headings:
                add(heading, "heading")
            add(entry.summary, "summary")
            add(entry.body, "body")
            topic_phrase_start[topic + 1] = len(phrases)
            topic_entry_start[topic + 1] = entry_index + 1
        phrase_count = max(len(phrases) - first_phrase, 1)
        for feature, weight in table.items():
            bonus = round(FOCUS_BONUS * min(counts.get(feature, 0) / phrase_count, 1.0))
            number = feature_number.get(feature)
            if number is None:
                number = feature_number[feature] = len(posting_lists)
                posting_lists.append(array("i"))
            posting_lists[number].append(encode_posting(topic, min(weight + bonus, FULL_WEIGHT)))
    for topic in range(1, len(topics) + 1):  # topics without phrases keep an empty range
        topic_phrase_start[topic] = max(topic_phrase_start[topic], topic_phrase_start[topic - 1])

    features = list(feature_number)
    extra = attach(analyzer, lambda word: len(posting_lists[feature_number[word]]) if word in feature_number else 0) if attach else {}
    del feature_number
    vocabulary_text, vocabulary = _vocabulary(features, posting_lists, analyzer)
    sections: dict[str, bytes] = {"topics": "\n".join(topics).encode("utf-8")}
    sections["entries"], sections["entry_offsets"] = tables.pack_records(
        [e.id, e.lang, e.title, e.summary, list(e.related), [list(pair) for pair in e.sources], e.path, e.topic] for e in ordered
    )
    sections["entry_lang"] = bytes(langs.index(e.lang) for e in ordered)
    sections["topic_entry_start"] = tables.ints(topic_entry_start)
    sections["phrases"], sections["phrase_offsets"] = phrases.packed()
    sections["sorted_phrases"], sections["sorted_phrase_offsets"] = sorted_phrases.packed()
    sections["phrase_text"], sections["phrase_text_offsets"] = phrase_text.packed()
    del phrases, sorted_phrases, phrase_text
    sections["phrase_field"] = bytes(phrase_field)
    sections["phrase_entry"] = phrase_entry.tobytes()
    sections["topic_phrase_start"] = tables.ints(topic_phrase_start)
    sections["features"], sections["feature_offsets"], sections["feature_table"] = tables.pack_table(features)
    del features
    sections["posting_starts"], sections["postings"] = tables.pack_postings(posting_lists)
    del posting_lists
    sections["vocabulary"] = vocabulary_text
    return {
        "version": INDEX_VERSION,
        "langs": langs,
        "vocabulary": vocabulary,
        "stopwords": sorted(lexicon.stopwords),
        "synonyms": {k: list(v) for k, v in (lexicon.synonyms or {}).items()},
        "markers": {k: sorted(v) for k, v in (lexicon.markers or {}).items()},
        "errors": [[list(words), topic] for words, found in error_lines.items() for topic in found],
        **extra,
        "problems": [[p.path, p.line, p.message, p.warning] for p in kb.problems] + list(extra.get("problems", ())),
        "sections": sections,
    }


def _vocabulary(features: list[str], posting_lists: list[array], analyzer: Analyzer) -> tuple[bytes, dict[int, tuple[int, int]]]:
    """Typo-repair vocabulary bucketed by length, computed once here rather than on every start.

    Each bucket lists unigram features commonest first (on a tie, a typo is repaired to the
    commoner word), then the words that only occur inside synonym phrases. Returns the buckets'
    text, one word a line, and each length's (start, end) byte range in it.
    """
    buckets: dict[int, list[str]] = {}
    for number in sorted(range(len(features)), key=lambda n: -len(posting_lists[n])):
        token = features[number]
        if "_" not in token:
            buckets.setdefault(len(token), []).append(token)
    for token in sorted(analyzer.variant_words):
        buckets.setdefault(len(token), []).append(token)
    parts: list[bytes] = []
    ranges: dict[int, tuple[int, int]] = {}
    position = 0
    for length, words in sorted(buckets.items()):
        blob = "\n".join(words).encode("utf-8")
        ranges[length] = (position, position + len(blob))
        parts.append(blob)
        position += len(blob)
    return b"".join(parts), ranges

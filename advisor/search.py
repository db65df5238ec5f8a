"""The answer engine: rank knowledge topics for a free-text question and decide if it is answered.

Ranking blends two signals. A lexical score sums, over the query's meaningful tokens and
bigrams, each token's rarity (idf) times the weight of the field it matched in a topic; divided
by the query's own total it says how much of the question a topic explains, which is what
rejects off-topic questions. A fuzzy score (rapidfuzz over the topic's titles, alternate
questions and keywords) rewards phrasings close to one the authors wrote. Typos are repaired
token by token against the index vocabulary before scoring.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from advisor.index import FULL_WEIGHT, PHRASE_FIELDS, SearchIndex
from advisor.textnorm import has_vietnamese_letters

MAX_QUERY_CHARS = 2000
# Tuned on tests/eval/dev.jsonl with `python -m tests.eval.report --slices`; see README.
ANSWER_THRESHOLD = 50.0
AMBIGUITY_MARGIN = 2.0
SURE_SCORE = 65.0
LEXICAL_SHARE = 0.6
EVIDENCE_FLOOR = 4.6
EVIDENCE_BASE = 0.5
EVIDENCE_SLOPE = 0.04
EVIDENCE_CAP = 0.85
UNKNOWN_TOKEN_SHARE = 0.55
BIGRAM_SHARE = 0.5
TYPO_CUTOFF = 0.8
SHORT_TYPO_CUTOFF = 0.75
PHRASE_BONUS = 0.1
TYPO_CONFIDENCE = 0.9
CANDIDATES = 40
SUGGESTIONS = 3
# Above this many topics, very common tokens only rescore candidates found through rarer ones.
PREFILTER_TOPICS = 2000
COMMON_TOKEN_SHARE = 0.05


@dataclass(frozen=True)
class Hit:
    topic: str
    entry: int
    score: float
    lexical: float
    fuzzy: float
    evidence: float
    matched: str
    field: str


@dataclass(frozen=True)
class Outcome:
    query: str
    normalized: str
    lang: str | None
    answered: bool
    hits: tuple[Hit, ...]
    truncated: bool = False
    corrections: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    @property
    def best(self) -> Hit | None:
        return self.hits[0] if self.hits else None

    @property
    def margin(self) -> float:
        if len(self.hits) < 2:
            return self.hits[0].score if self.hits else 0.0
        return self.hits[0].score - self.hits[1].score

    @property
    def suggestions(self) -> tuple[Hit, ...]:
        return () if self.answered else self.hits[:SUGGESTIONS]


def detect_language(index: SearchIndex, query: str) -> str | None:
    """'vi' or 'en' from diacritics or marker words; None when the query gives no clue."""
    if has_vietnamese_letters(query):
        return "vi"
    words = index.analyzer.words(query)
    scores = {lang: sum(1 for w in words if w in markers) for lang, markers in index.markers.items()}
    if not scores:
        return None
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    if ranked[0][1] == 0 or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def _correct(index: SearchIndex, token: str, known: frozenset[str], before: str, after: str) -> list[str]:
    """Repair a token the index does not know: split run-together words, else nearest spelling.

    Among equally close spellings, the one that forms a known phrase with a neighbouring word
    wins ("tiem slicing" becomes "time slicing", not "tim slicing").
    """
    if len(token) >= 5:  # words typed together: "timeslicing", "gpuoperator"
        for cut in range(2, len(token) - 1):
            head, tail = token[:cut], token[cut:]
            if (head in index.postings or head in known) and (tail in index.postings or tail in known):
                return [head, tail]
    if len(token) < 4 or token.isdigit():
        return [token]
    cutoff = TYPO_CUTOFF if len(token) >= 6 else SHORT_TYPO_CUTOFF
    candidates = process.extract(token, index.vocabulary(len(token)), scorer=OSA.normalized_similarity, score_cutoff=cutoff, limit=8)
    if not candidates:
        return [token]
    phrases = index.analyzer.phrases

    def fit(candidate: tuple[str, float, int]) -> float:
        word, similarity, _ = candidate
        in_phrase = f"{before} {word}" in phrases or f"{word} {after}" in phrases
        in_bigram = f"{before}_{word}" in index.postings or f"{word}_{after}" in index.postings
        return similarity + (PHRASE_BONUS if in_phrase or in_bigram else 0.0)

    return [max(candidates, key=fit)[0]]


def _query_tokens(index: SearchIndex, query: str) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(content tokens as typed, tokens after typo repair, the repairs made)."""
    analyzer = index.analyzer
    words = analyzer.words(query)
    typed = [word for word in words if word not in analyzer.stopwords]
    known = analyzer.variant_words
    repaired: list[str] = []
    corrections: list[tuple[str, str]] = []
    for position, word in enumerate(words):
        if word in index.postings or word in known or word in analyzer.stopwords:
            repaired.append(word)
            continue
        before = words[position - 1] if position else ""
        after = words[position + 1] if position + 1 < len(words) else ""
        fixed = _correct(index, word, known, before, after)
        if fixed != [word]:
            corrections.append((word, " ".join(fixed)))
        repaired.extend(fixed)
    if corrections:  # a repaired word may complete a synonym phrase: "tiem slicing" → timeslicing
        repaired = analyzer.canonicalize(repaired)
    return typed, [word for word in repaired if word not in analyzer.stopwords], corrections


def search(index: SearchIndex, query: str, lang: str | None = None, limit: int = 5) -> Outcome:
    """Rank topics for `query`. `lang` forces the answer language; otherwise it is detected."""
    truncated = len(query) > MAX_QUERY_CHARS
    query = query[:MAX_QUERY_CHARS]
    answer_lang = lang or detect_language(index, query)
    typed, repaired, corrections = _query_tokens(index, query)
    typed_set = set(typed)
    resolved: list[tuple[str, float]] = []
    unknown_mass = 0.0
    seen: set[str] = set()
    for word in repaired:
        if word in seen:
            continue
        seen.add(word)
        if word in index.postings:
            resolved.append((word, 1.0 if word in typed_set else TYPO_CONFIDENCE))
        else:
            unknown_mass += index.unknown_idf * UNKNOWN_TOKEN_SHARE
    normalized = " ".join(repaired)
    if not resolved or index.topic_count == 0:
        return Outcome(query, normalized, answer_lang, False, (), truncated, tuple(corrections))

    features: list[tuple[str, float, float]] = []  # token, idf, confidence
    seen_features: set[str] = set()
    for token, confidence in resolved:
        if token not in seen_features:
            seen_features.add(token)
            features.append((token, index.idf(token), confidence))
    sequence = [token for token, _ in resolved]
    for first, second in zip(sequence, sequence[1:]):
        bigram = f"{first}_{second}"
        if bigram not in seen_features and bigram in index.postings:
            seen_features.add(bigram)
            features.append((bigram, index.idf(bigram) * BIGRAM_SHARE, 1.0))
    total = sum(idf for _, idf, _ in features) + unknown_mass

    scores: dict[int, float] = {}
    common: list[tuple[str, float, float]] = []
    limit_df = index.topic_count * COMMON_TOKEN_SHARE
    for token, idf, confidence in features:
        if index.topic_count > PREFILTER_TOPICS and index.document_frequency(token) > limit_df:
            common.append((token, idf, confidence))
            continue
        gain = idf * confidence / FULL_WEIGHT
        for packed in index.posting(token):
            topic = packed >> 4
            scores[topic] = scores.get(topic, 0.0) + gain * (packed & 15)
    if common:
        if not scores:  # nothing rare in the query: fall back to the common tokens themselves
            common.sort(key=lambda item: index.document_frequency(item[0]))
            token, idf, confidence = common.pop(0)
            for packed in index.posting(token):
                scores[packed >> 4] = idf * confidence / FULL_WEIGHT * (packed & 15)
        shortlist = set(heapq.nlargest(CANDIDATES * 4, scores, key=scores.__getitem__))
        for token, idf, confidence in common:
            gain = idf * confidence / FULL_WEIGHT
            for packed in index.posting(token):
                topic = packed >> 4
                if topic in shortlist:
                    scores[topic] += gain * (packed & 15)

    candidates = heapq.nlargest(CANDIDATES, scores, key=scores.__getitem__)
    fuzzy_best = _fuzzy(index, normalized, candidates)
    hits: list[Hit] = []
    for topic in candidates:
        lexical = min(scores[topic] / total, 1.0) if total else 0.0
        fuzzy_score, phrase = fuzzy_best.get(topic, (0.0, -1))
        score = combined_score(lexical, fuzzy_score, scores[topic])
        entry = _entry_for(index, topic, answer_lang)
        matched = index.phrase_text[phrase] if phrase >= 0 else ""
        field_name = PHRASE_FIELDS[index.phrase_field[phrase]] if phrase >= 0 else "body"
        hits.append(Hit(index.topics[topic], entry, round(score, 1), round(lexical, 3), round(fuzzy_score, 1), round(scores[topic], 2), matched, field_name))
    hits.sort(key=lambda hit: (-hit.score, hit.topic))
    hits = hits[: max(limit, SUGGESTIONS)]
    best = hits[0].score
    runner_up = hits[1].score if len(hits) > 1 else 0.0
    # A sure score skips the ambiguity margin, but never a tie: "gpu" alone names no one topic.
    answered = best >= ANSWER_THRESHOLD and (best - runner_up >= AMBIGUITY_MARGIN or (best >= SURE_SCORE and best > runner_up))
    return Outcome(query, normalized, answer_lang, answered, tuple(hits), truncated, tuple(corrections))


def combined_score(lexical: float, fuzzy_score: float, evidence: float) -> float:
    """Confidence 0-100: how much of the question a topic explains, or how much it says about it.

    Short questions are judged by coverage and phrase similarity. A long, rambling question
    dilutes coverage with words no topic knows, so rare domain terms matched in bulk (absolute
    evidence) can carry it instead.
    """
    phrased = LEXICAL_SHARE * lexical + (1 - LEXICAL_SHARE) * fuzzy_score / 100.0
    bulk = 0.0
    if evidence >= EVIDENCE_FLOOR:
        bulk = min(EVIDENCE_BASE + EVIDENCE_SLOPE * (evidence - EVIDENCE_FLOOR), EVIDENCE_CAP)
    return 100.0 * max(phrased, bulk)


def _fuzzy(index: SearchIndex, normalized: str, topics: list[int]) -> dict[int, tuple[float, int]]:
    """Best phrase similarity per topic: the mean of token-sort and token-set ratios."""
    choices: list[int] = []
    starts = index.topic_phrase_start
    for topic in topics:
        choices.extend(range(starts[topic], starts[topic + 1]))
    if not choices or not normalized:
        return {}
    strings = [index.phrases[i] for i in choices]
    sort_scores = process.extract(normalized, strings, scorer=fuzz.token_sort_ratio, limit=None)
    set_scores = {position: score for _, score, position in process.extract(normalized, strings, scorer=fuzz.token_set_ratio, limit=None)}
    best: dict[int, tuple[float, int]] = {}
    entry_topic = {entry: topic for topic in topics for entry in index.topic_entries[topic].values()}
    for _, sort_score, position in sort_scores:
        phrase = choices[position]
        topic = entry_topic[index.phrase_entry[phrase]]
        score = (sort_score + set_scores[position]) / 2.0
        if score > best.get(topic, (-1.0, -1))[0]:
            best[topic] = (score, phrase)
    return best


def _entry_for(index: SearchIndex, topic: int, lang: str | None) -> int:
    entries = index.topic_entries[topic]
    if lang is not None and lang in entries:
        return entries[lang]
    return entries.get("en", next(iter(entries.values())))

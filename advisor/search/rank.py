"""The answer engine: rank knowledge topics for a free-text question and decide if it is answered.

Ranking blends two signals, then two more. A lexical score sums, over the query's meaningful
tokens and bigrams, each token's rarity (idf) times the weight of the field it matched in a
topic; divided by the query's own total it says how much of the question a topic explains, which
is what rejects off-topic questions. A fuzzy score (rapidfuzz over the topic's titles, alternate
questions and keywords) rewards phrasings close to one the authors wrote. Both lean on what the
authors wrote where it weighs most, so a naive Bayes reading of each topic's whole text gives the
best few a second opinion, blended into their scores (`advisor.search.likelihood`), and a linear
model learnt from the questions real users asked a third (`advisor.search.learned`). Typos are
repaired token by token against the index vocabulary before scoring (`advisor.search.spelling`).
"""

from __future__ import annotations

import heapq
from bisect import insort
from collections import namedtuple
from itertools import chain, repeat

from rapidfuzz import fuzz

from advisor.search import learned
from advisor.search.clauses import clause_agreement
from advisor.search.confidence import ANSWER_CONFIDENCE, Signals, answer_confidence
from advisor.search.errors import quoted_errors
from advisor.search.few_words import held_back
from advisor.search.index import FULL_WEIGHT, PHRASE_FIELDS, POSTING_BITS, WEIGHT_MASK, SearchIndex, posting_weight
from advisor.search.language import detect_language
from advisor.search.likelihood import LIKELIHOOD_HITS, blended, shares
from advisor.search.phrases import batch, best_phrase, least_sort_ratio, phrase_similarity
from advisor.search.spelling import correct
from advisor.textnorm import is_vietnamese_syllable

MAX_QUERY_CHARS = 2000
# Ranking parameters, tuned on the development questions (tests/eval/real-dev.jsonl and dev.jsonl)
# with `python -m tests.eval.report --set real-dev --misses`; never on real-test.
AMBIGUITY_MARGIN = 2.0
# A question that names one term only ("what is MPS?") asks about its topic as a whole: the
# topic's home entry leads unless another of its entries is this far ahead.
LONE_TERM_MARGIN = 8.0
LEXICAL_SHARE = 0.6
EVIDENCE_FLOOR = 5.5
EVIDENCE_BASE = 0.5
EVIDENCE_SLOPE = 0.04
EVIDENCE_CAP = 0.85
UNKNOWN_TOKEN_SHARE = 0.55
BIGRAM_SHARE = 0.2
# Vietnamese words are mostly pairs of syllables: a syllable that pairs with none of its
# neighbours the way the knowledge does counts for this much.
LONE_SYLLABLE_SHARE = 0.5
# A question that quotes an error line an entry lists scores at least this, plus a point a word.
ERROR_SCORE = 80.0
ERROR_WORDS_CAP = 12
TYPO_CONFIDENCE = 0.9
CANDIDATES = 40
# Topics whose phrases are ranked in one rapidfuzz call: most questions need only the first chunks.
TOPIC_CHUNK = 8
SUGGESTIONS = 3
# An entry offered instead of an answer needs rare-term mass (`Hit.evidence`) of this share of the
# rarest word's weight (one rare word in a title, or a few in its text) or this share of the question
# explained (`Hit.lexical`): "nấu phở bò" gets no list of unrelated entries, "gpu" keeps its choices.
# Without either were 40 of the 78 off-topic development questions' lists, and none of the 75 lists
# that held the entry asked about.
SUGGESTION_EVIDENCE_SHARE = 0.35
SUGGESTION_COVERAGE = 0.5
# Above this many topics, very common tokens only rescore candidates found through rarer ones.
PREFILTER_TOPICS = 2000
COMMON_TOKEN_SHARE = 0.05


# namedtuples, not dataclasses or typing.NamedTuple: see `advisor.problems.Problem`.
class Hit(namedtuple("Hit", ("topic", "entry", "score", "lexical", "fuzzy", "evidence", "matched", "field"))):
    """One ranked topic: `topic` id, `entry` index (in the answer language), `score` 0-100 and
    its parts (`lexical` coverage 0-1, `fuzzy` phrase similarity 0-100, `evidence` rare-term mass),
    the best `matched` phrasing and its `field` (title, question, keyword or body)."""

    __slots__ = ()


class Outcome(namedtuple("Outcome", ("query", "normalized", "lang", "answered", "hits", "truncated", "corrections", "confidence", "quoted", "signals", "offered", "held_back"), defaults=(False, (), 0.0, (), None, (), ""))):
    """The result of `search()`: the `query` and its `normalized` tokens, the answer `lang`
    (None when undetected), whether it is `answered`, the ranked `hits`, whether the query was
    `truncated`, the typo `corrections` made ((typed, repaired) pairs), the `confidence` (0-100)
    that the best hit is the right answer and the `signals` it was judged on, and the topics
    whose error lines the query `quoted`; the hits `offered` when it is not answered, and why it
    was `held_back` however sure: its word or two name no topic (`advisor.search.few_words`:
    "vague" or "in_passing"; "" otherwise)."""

    __slots__ = ()

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
        return () if self.answered else self.offered


def _query_tokens(index: SearchIndex, query: str, lang: str | None = None) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(content tokens as typed, tokens after typo repair, the repairs made).

    In a Vietnamese question, a word that reads as a Vietnamese syllable is a word, not a typo:
    "thủ đô của pháp" must not become "phan" (a syllable of a domain phrase) and so look like a
    question about GPUs; unless its repair completes a phrase with the word beside it ("tiem
    slicing co cach ly bo nho ko": "tiệm" is a word, "time slicing" the question).
    """
    analyzer = index.analyzer
    words = analyzer.read_asking(analyzer.words(query))
    typed = [word for word in words if not analyzer.is_noise(word)]
    known = analyzer.variant_words
    repaired: list[str] = []
    corrections: list[tuple[str, str]] = []
    for position, word in enumerate(words):
        before = words[position - 1] if position else ""
        after = words[position + 1] if position + 1 < len(words) else ""
        syllable = lang == "vi" and is_vietnamese_syllable(word)
        if word in index.postings or word in known or analyzer.is_noise(word) or (syllable and before not in known and after not in known):
            repaired.append(word)
            continue
        fixed = correct(index, word, known, before, after, phrase_only=syllable)
        if fixed != [word]:
            corrections.append((word, " ".join(fixed)))
        repaired.extend(fixed)
    if corrections:  # a repaired word may complete a synonym phrase: "tiem slicing" → timeslicing
        repaired = analyzer.canonicalize(repaired)
    return typed, [word for word in repaired if not analyzer.is_noise(word)], corrections


def question_words(index: SearchIndex, query: str) -> list[str]:
    """The words `search` ranks `query` by (cut to `MAX_QUERY_CHARS`, typos repaired, stop words
    dropped), as the learned model must be trained on them (`tests.eval.train`)."""
    query = query[:MAX_QUERY_CHARS]
    return _query_tokens(index, query, detect_language(index, query))[1]


def search(index: SearchIndex, query: str, lang: str | None = None, limit: int = 5) -> Outcome:
    """Rank topics for `query`. `lang` forces the answer language; otherwise it is detected."""
    truncated = len(query) > MAX_QUERY_CHARS
    query = query[:MAX_QUERY_CHARS]
    answer_lang = lang or detect_language(index, query)
    typed, repaired, corrections = _query_tokens(index, query, answer_lang)
    typed_set = set(typed)
    resolved: list[tuple[str, float]] = []
    unknown_mass = 0.0
    seen: set[str] = set()
    # Words typed as a phrase of several ("gang scheduling"): terms, not lone Vietnamese syllables.
    terms = index.analyzer.phrase_terms(query) if answer_lang == "vi" else set()
    for word in repaired:
        if word in seen:
            continue
        seen.add(word)
        if word in index.postings:
            confidence = 1.0 if word in typed_set else TYPO_CONFIDENCE
            if answer_lang == "vi" and is_vietnamese_syllable(word) and word not in terms and not _in_bigram(index, word, repaired):
                confidence *= LONE_SYLLABLE_SHARE  # "thống" alone is not "băng thông"
            resolved.append((word, confidence))
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
    for token, idf, confidence in features:
        if index.topic_count > PREFILTER_TOPICS and is_common(index, token):
            common.append((token, idf, confidence))
            continue
        gain = idf * confidence / FULL_WEIGHT
        for packed in index.posting(token):  # `decode_posting`, inlined: a large folder walks thousands
            topic = packed >> POSTING_BITS
            scores[topic] = scores.get(topic, 0.0) + gain * (packed & WEIGHT_MASK)
    if common:
        if not scores:  # nothing rare in the query: fall back to the common tokens themselves
            common.sort(key=lambda item: index.document_frequency(item[0]))
            token, idf, confidence = common.pop(0)
            for packed in index.posting(token):
                scores[packed >> POSTING_BITS] = idf * confidence / FULL_WEIGHT * (packed & WEIGHT_MASK)
        _rescore_common(index, scores, common)

    quoted = quoted_errors(index, typed)
    candidates = heapq.nlargest(CANDIDATES, scores, key=scores.__getitem__)
    candidates += [topic for topic in quoted if topic not in candidates and topic in scores]
    hits = _best_hits(index, normalized, candidates, scores, total, answer_lang, max(limit, SUGGESTIONS, LIKELIHOOD_HITS), quoted)
    hits, share_of = _second_opinion(index, hits, [(word, index.idf(word) * confidence) for word, confidence in resolved])
    hits, decisions = _learned_opinion(index, hits, repaired)
    hits = _home_first(index, hits, AMBIGUITY_MARGIN if len(resolved) > 1 else LONE_TERM_MARGIN)
    known = sum(1 for token, _ in resolved if "_" not in token)
    unknown_share = 1.0 - known / max(known + round(unknown_mass / (index.unknown_idf * UNKNOWN_TOKEN_SHARE)), 1)
    best = hits[0]
    best_topic = index.topic_of(best.topic) or 0
    signals = Signals(
        score=best.score,
        lead=best.score - (hits[1].score if len(hits) > 1 else 0.0),
        lexical=best.lexical,
        fuzzy=best.fuzzy,
        evidence=best.evidence,
        quoted=index.topic_of(best.topic) in quoted,
        unknown_share=unknown_share,
        plain_vietnamese=answer_lang == "vi" and all(is_vietnamese_syllable(word) and word not in terms for word in typed),
        likelihood=share_of.get(best.topic, 0.0),
        clause=clause_agreement(lambda clause: search(index, clause), query, best.topic),
        learned_lead=learned.lead(decisions, best_topic),
    )
    confidence = answer_confidence(signals)
    # Never a tie, whatever the confidence, nor a word or two that name no topic; what they would
    # have been answered with is offered instead.
    held = held_back(index, resolved, best_topic) if confidence >= ANSWER_CONFIDENCE else ""
    answered = confidence >= ANSWER_CONFIDENCE and (len(hits) < 2 or hits[0].score > hits[1].score) and not held
    names = tuple(index.topics[topic] for topic in quoted)
    floor = SUGGESTION_EVIDENCE_SHARE * index.unknown_idf
    offered = tuple(hit for hit in hits[:SUGGESTIONS] if held or hit.evidence >= floor or hit.lexical >= SUGGESTION_COVERAGE)
    return Outcome(query, normalized, answer_lang, answered, tuple(hits), truncated, tuple(corrections), confidence, names, signals, offered, held)


def is_common(index: SearchIndex, token: str) -> bool:
    """Whether `token` is in so many topics that walking its postings costs more than it tells."""
    return index.document_frequency(token) > index.topic_count * COMMON_TOKEN_SHARE


def _rescore_common(index: SearchIndex, scores: dict[int, float], common: list[tuple[str, float, float]]) -> None:
    """Add the common tokens' weight to the best-scored topics only (large folders).

    Postings are sorted by topic, so each shortlisted topic is looked up by binary search rather
    than by walking a list as long as the folder; each topic gains once per token, in token
    order, exactly as the walk added it.
    """
    shortlist = heapq.nlargest(CANDIDATES * 4, scores, key=scores.__getitem__)
    for token, idf, confidence in common:
        gain = idf * confidence / FULL_WEIGHT
        postings = index.posting(token)
        for topic in shortlist:
            weight = posting_weight(postings, topic)
            if weight:
                scores[topic] += gain * weight


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


def _least_ratio(lexical: float, evidence: float, floor: float, target: float) -> float:
    """The token-sort ratio under which no phrase lifts its topic's score to `target`: `combined_score`
    solved for it, a point lower so rounding only lets more through (0 when no phrase is needed)."""
    if round(max(combined_score(lexical, phrase_similarity(0.0, 100.0), evidence), floor), 1) >= target:
        return 0.0
    fuzzy_needed = ((target - 0.05) / 100.0 - LEXICAL_SHARE * lexical) / (1 - LEXICAL_SHARE) * 100.0
    return max(least_sort_ratio(fuzzy_needed) - 1.0, 0.0)


def _second_opinion(index: SearchIndex, hits: list[Hit], words: list[tuple[str, float]]) -> tuple[list[Hit], dict[str, float]]:
    """The hits with the likelihood model's share blended into their scores, best first
    (`advisor.search.likelihood`), and the share of each of the best."""
    leading = hits[:LIKELIHOOD_HITS]
    share_of = dict(zip((hit.topic for hit in leading), shares(index, [index.topic_of(hit.topic) or 0 for hit in leading], words)))
    hits = [hit._replace(score=round(blended(hit.score, share_of.get(hit.topic, 0.0)), 1)) for hit in hits]
    hits.sort(key=lambda hit: (-hit.score, hit.topic))
    return hits, share_of


def _learned_opinion(index: SearchIndex, hits: list[Hit], words: list[str]) -> tuple[list[Hit], list[float]]:
    """The hits with the learned model's decision blended into their scores, best first, and its
    decision for every topic (`advisor.search.learned`); as they were, and none, without weights."""
    if not index.learned:
        return hits, []
    decisions = index.learned.decisions(words)
    hits = [hit._replace(score=round(learned.blended(hit.score, decisions[index.topic_of(hit.topic) or 0]), 1)) for hit in hits]
    hits.sort(key=lambda hit: (-hit.score, hit.topic))
    return hits, decisions


def _home_first(index: SearchIndex, hits: list[Hit], margin: float) -> list[Hit]:
    """When the best entries tie within `margin` inside one topic ("mig la gi": the MIG overview,
    its set-up and its strategies all match "mig" alone), the question is about the topic as a
    whole: its home entry leads, a hair ahead, and the entries of other topics keep their place."""
    if len(hits) < 2 or hits[0].score - hits[1].score >= margin:
        return hits
    tied = [hit for hit in hits if hits[0].score - hit.score < margin]
    homes = {index.home_of(index.topic_of(hit.topic) or 0) for hit in tied}
    if len(homes) != 1:
        return hits
    home = homes.pop()
    leader = next((hit for hit in tied if hit.topic == home), None)
    if leader is None:
        return hits
    lifted = leader._replace(score=round(hits[0].score + AMBIGUITY_MARGIN, 1))
    return [lifted, *(hit for hit in hits if hit is not leader)]


def _error_floor(quoted: dict[int, int], topic: int) -> float:
    return ERROR_SCORE + min(quoted[topic], ERROR_WORDS_CAP) if topic in quoted else 0.0


def _in_bigram(index: SearchIndex, word: str, words: list[str]) -> bool:
    """Whether `word` forms an indexed pair with a neighbour in `words`."""
    for position, other in enumerate(words):
        if other == word:
            before = words[position - 1] if position else ""
            after = words[position + 1] if position + 1 < len(words) else ""
            if f"{before}_{word}" in index.postings or f"{word}_{after}" in index.postings:
                return True
    return False


def _best_hits(index: SearchIndex, normalized: str, candidates: list[int], scores: dict[int, float], total: float, lang: str | None, keep: int, quoted: dict[int, int]) -> list[Hit]:
    """The `keep` best candidates as hits, best first, with their fuzzy phrase scores.

    Fuzzy scoring is most of a query's cost, so it is bounded before it is paid for. A topic's
    fuzzy score is the best, over its phrases, of a blend of token-sort and token-set ratios.
    Any fuzzy score is at most 100, which bounds each topic before a ratio is computed: topics
    are taken `TOPIC_CHUNK` at a time in that order, and none once the next bound cannot reach
    the `keep`-th best score. Token-sort is a plain ratio over tokens sorted at index time, one
    call for a chunk's phrases (once `keep` hits are in, only those that could lift their topic
    to the `keep`-th best); with token-set at most 100 it bounds each topic of the chunk, scored
    best bound first while a bound can reach the `keep`-th best score. Within a topic, the phrase
    with the best token-sort is scored first and only phrases that could beat it after it. The
    hits are exactly those of scoring every phrase of every candidate (tests/test_search_exact.py).
    """
    lexical = {topic: min(scores[topic] / total, 1.0) if total else 0.0 for topic in candidates}
    starts = index.topic_phrase_start
    sorted_question = " ".join(sorted(normalized.split()))

    def score_with(topic: int, fuzzy_score: float) -> float:
        return max(combined_score(lexical[topic], fuzzy_score, scores[topic]), _error_floor(quoted, topic))

    # Any fuzzy score is at most 100: a bound on each topic before a single ratio is computed.
    loose = {topic: round(score_with(topic, 100.0), 1) for topic in candidates}
    order = sorted(candidates, key=loose.__getitem__, reverse=True)
    sort_score: dict[str, float] = {}
    set_score: dict[str, float] = {}
    hits: list[Hit] = []
    top: list[float] = []  # the best `keep` scores so far, ascending
    for at in range(0, len(order), TOPIC_CHUNK):
        if len(top) >= keep and loose[order[at]] < top[0]:
            break
        chunk = order[at : at + TOPIC_CHUNK]
        texts: dict[int, list[str]] = {}
        for topic in chunk:
            begin, end = starts[topic : topic + 2]
            texts[topic] = index.sorted_phrases.span(begin, end) if normalized else []
        # Most of a later chunk's phrases fall under the cutoff: rapidfuzz never builds them as objects.
        cutoff = min(_least_ratio(lexical[topic], scores[topic], _error_floor(quoted, topic), top[0]) for topic in chunk) if len(top) >= keep else 0.0
        sort_score.update(batch(sorted_question, list(chain.from_iterable(texts.values())), fuzz.ratio, cutoff))  # a text two topics share is scored again
        ceiling: dict[int, float] = {}
        for topic in chunk:  # a topic with no phrase past the cutoff cannot reach the `keep` best
            reachable = phrase_similarity(max(map(sort_score.get, texts[topic], repeat(0.0))), 100.0) if texts[topic] else 0.0
            ceiling[topic] = round(score_with(topic, reachable), 1)
        for topic in sorted(chunk, key=ceiling.__getitem__, reverse=True):
            if len(top) >= keep and ceiling[topic] < top[0]:
                break
            fuzzy_score, phrase = best_phrase(normalized, texts[topic], starts[topic], sort_score, set_score)
            score = score_with(topic, fuzzy_score)
            entry = _entry_for(index, topic, lang)
            matched = index.phrase_text[phrase] if phrase >= 0 else ""
            field_name = PHRASE_FIELDS[index.phrase_field[phrase]] if phrase >= 0 else "body"
            hit = Hit(index.topics[topic], entry, round(score, 1), round(lexical[topic], 3), round(fuzzy_score, 1), round(scores[topic], 2), matched, field_name)
            hits.append(hit)
            insort(top, hit.score)
            del top[:-keep]
    hits.sort(key=lambda hit: (-hit.score, hit.topic))
    return hits[:keep]


def _entry_for(index: SearchIndex, topic: int, lang: str | None) -> int:
    entries = index.topic_entries[topic]
    if lang is not None and lang in entries:
        return entries[lang]
    return entries.get("en", next(iter(entries.values())))

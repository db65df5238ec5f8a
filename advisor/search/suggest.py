"""Search-as-you-type: the authored questions that best answer a half-typed question.

While the user types, the last word is usually incomplete ("how do I sha"). It is completed to
the word of the index it most likely becomes (one that forms a known phrase or pair with the word
before it, else the commonest), and the question so far is then ranked by the answer engine
itself (`advisor.search.rank.search`), which is tuned on real questions. Each suggestion shows the
authored question of the entry closest to what was typed, else the entry's title. One ranking per
keystroke keeps it within a frame at 100,000 entries; the chat screen calls it from an exclusive
worker and builds it after the first paint.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from advisor.search.index import PHRASE_FIELDS, SearchIndex
from advisor.search.language import detect_language
from advisor.search.rank import PREFILTER_TOPICS, Hit, is_common, question_words, search

# Only the start of a pasted wall of text is worth matching while typing.
MAX_CHARS = 200
# A last word shorter than this is not completed: "g" would stand for half the vocabulary.
MIN_PREFIX = 2
# A question of one word needs a little more of it ("wh" says nothing).
MIN_LONE_PREFIX = 3
# How many words starting with the typed letters are weighed as its completion.
PREFIX_CANDIDATES = 40
# Ranked topics below this score are not suggested (the engine's 0-100 score).
MIN_SCORE = 30.0
# Rankings kept: while a word is typed its completion rarely changes, so neither does the ranking.
_KEPT = 256
_QUESTION = PHRASE_FIELDS.index("question")


@dataclass(frozen=True)
class Suggestion:
    """One suggested question.

    Attributes:
        topic: Topic (entry id) the phrase belongs to.
        entry: Index of the entry (topic in one language) in the search index.
        text: The phrasing to show and ask: an authored question, else the entry title.
        score: 0-100, the answer engine's score for the question typed so far.
    """

    topic: str
    entry: int
    text: str
    score: float


class QuestionSuggester:
    """Completes the last word of a half-typed question and ranks the result with the engine.

    Args:
        index: The loaded search index. Building reads its vocabulary once (a few milliseconds
            for the bundled knowledge, about a tenth of a second at 100,000 entries).
    """

    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self._words = sorted(set(index.words()))
        self._known = frozenset(self._words) | index.analyzer.variant_words
        self._ranked: dict[tuple[str, str | None, int], list[Hit]] = {}
        self._folded: dict[int, str] = {}
        if self._words:  # the first ranking fills the index's lookup caches, before the first keystroke
            search(index, self._words[0])

    def complete(self, before: str, prefix: str) -> str | None:
        """The word `prefix` most likely becomes after the word `before`; None when no word of
        the index starts with it."""
        start = bisect.bisect_left(self._words, prefix)
        candidates = [word for word in self._words[start : start + PREFIX_CANDIDATES] if word.startswith(prefix)]
        if prefix in self._known and prefix not in candidates:
            candidates.append(prefix)
        if not candidates:
            return None
        index = self.index
        phrases = index.analyzer.phrases

        def fit(word: str) -> tuple[bool, bool, int]:
            paired = f"{before} {word}" in phrases or (bool(before) and f"{before}_{word}" in index.postings)
            return paired, word == prefix, index.document_frequency(word)

        return max(candidates, key=fit)

    def suggest(self, text: str, lang: str | None = None, limit: int = 5) -> list[Suggestion]:
        """The best `limit` suggestions for `text`, one per topic, best first.

        Args:
            text: What the user has typed so far.
            lang: Preferred language when the text itself does not reveal one.
            limit: Most suggestions to return.
        """
        text = text[:MAX_CHARS]
        index = self.index
        analyzer = index.analyzer
        words = analyzer.words(text)
        if limit < 1 or not any(not analyzer.is_noise(word) for word in words):
            return []
        if text[-1:].isalnum():  # still typing the last word
            *done, last = words
            if len(last) < (MIN_LONE_PREFIX if not done else MIN_PREFIX):
                last = ""
            else:
                before = next((word for word in reversed(done) if not analyzer.is_noise(word)), "")
                last = self.complete(before, last) or ""
            words = [*done, last] if last else done
            if not any(not analyzer.is_noise(word) for word in words):
                return []
        large = index.topic_count > PREFILTER_TOPICS
        if large and all(self._common(word) for word in words):
            return []  # nothing distinctive typed yet ("how much does"): no topic stands out
        wanted = detect_language(index, text) or lang
        key = (" ".join(words), wanted, limit)
        hits = self._ranked.get(key)
        if hits is None:
            if len(self._ranked) >= _KEPT:
                self._ranked.clear()
            if large and all(self._common(word) for word in question_words(index, key[0])):
                hits = []  # the same once typos are repaired ("kubernets"): ranking it walks a tenth of the index
            else:
                outcome = search(index, key[0], lang=wanted, limit=limit)
                hits = [hit for hit in outcome.hits[:limit] if hit.score >= MIN_SCORE and hit.lexical > 0]
            self._ranked[key] = hits
        typed = " ".join(analyzer.words(text))
        return [Suggestion(hit.topic, hit.entry, self._shown(hit.entry, typed), round(hit.score, 1)) for hit in hits]

    def _common(self, word: str) -> bool:
        """A stop word, or a word so common in a large folder that ranking on it alone means
        walking a tenth of the index, for a list no one would pick from."""
        index = self.index
        return index.analyzer.is_noise(word) or is_common(index, word)

    def _shown(self, entry: int, typed: str) -> str:
        """The entry's authored question closest to what was typed, else its title."""
        index = self.index
        topic = index.topic_of(index.meta(entry).id)
        if topic is None:
            return str(index.meta(entry).title)
        begin, end = index.topic_phrase_start[topic : topic + 2]
        questions = [phrase for phrase in range(begin, end) if index.phrase_entry[phrase] == entry and index.phrase_field[phrase] == _QUESTION]
        if not questions:
            return str(index.meta(entry).title)
        # One rapidfuzz call for all of them; of equal ratios the first (lowest numbered) wins.
        _, _, best = process.extractOne(typed, [self._fold(phrase) for phrase in questions], scorer=fuzz.token_set_ratio)
        return str(index.phrase_text[questions[best]])

    def _fold(self, phrase: int) -> str:
        """An authored phrase's words, stop words kept (closeness to what was typed)."""
        found = self._folded.get(phrase)
        if found is None:
            if len(self._folded) >= 50 * _KEPT:
                self._folded.clear()
            found = self._folded[phrase] = " ".join(self.index.analyzer.words(self.index.phrase_text[phrase]))
        return found

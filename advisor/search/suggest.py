"""Search-as-you-type: the authored questions and titles that best match a half-typed question.

`advisor.search.rank.search` ranks whole questions; while the user is still typing, the last word is
usually incomplete ("how do I sha"), so this matcher treats it as a prefix and every earlier word
as a whole token (typo-corrected like the search engine does). It works on the phrases the index
already holds, needs no Textual and is tested directly; the chat screen calls it from an exclusive
worker on every keystroke. On the bundled knowledge one call takes well under a millisecond.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from advisor.search.index import PHRASE_FIELDS, SearchIndex
from advisor.search.rank import detect_language

# Only the start of a pasted wall of text is worth matching while typing.
MAX_CHARS = 200
# A prefix as short as "g" would match half the vocabulary; below this it is not used.
MIN_PREFIX = 2
PREFIX_EXPANSIONS = 40
TYPO_CUTOFF = 80.0
EXACT, PREFIX, TYPO = 1.0, 0.9, 0.8
# At least this share of the typed words must be found in a phrase for it to be suggested.
MIN_SCORE = 50.0


@dataclass(frozen=True)
class Suggestion:
    """One suggested question.

    Attributes:
        topic: Topic (entry id) the phrase belongs to.
        entry: Index of the entry (topic in one language) in the search index.
        text: The phrasing to show and ask: an authored question, else the entry title.
        score: 0-100, how much of the typed text the phrase covers.
    """

    topic: str
    entry: int
    text: str
    score: float


class QuestionSuggester:
    """Prefix-aware matcher over the index's titles, questions and keywords.

    Args:
        index: The loaded search index; the token tables built here are reused for every call.
    """

    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self._tokens: dict[str, list[int]] = {}
        for phrase_number, phrase in enumerate(index.phrases):
            for token in set(phrase.split()):
                self._tokens.setdefault(token, []).append(phrase_number)
        self._vocabulary = sorted(self._tokens)
        self._topic_number = {topic: number for number, topic in enumerate(index.topics)}
        self._folded_cache: dict[int, str] = {}

    def _expand(self, word: str, partial: bool, min_prefix: int = MIN_PREFIX) -> list[tuple[str, float]]:
        """Index tokens that `word` stands for, each with how sure the match is."""
        found: list[tuple[str, float]] = []
        if word in self._tokens:
            found.append((word, EXACT))
        if partial and len(word) >= min_prefix:
            start = bisect.bisect_left(self._vocabulary, word)
            for token in self._vocabulary[start : start + PREFIX_EXPANSIONS]:
                if not token.startswith(word):
                    break
                if token != word:
                    found.append((token, PREFIX))
        if not found and len(word) >= 4 and not word.isdigit():
            best = process.extractOne(word, self._vocabulary, scorer=fuzz.ratio, score_cutoff=TYPO_CUTOFF)
            if best is not None:
                found.append((best[0], TYPO))
        return found

    def _folded(self, phrase: int) -> str:
        """The phrase as written, folded but with its stop words kept (for closeness to what was typed)."""
        found = self._folded_cache.get(phrase)
        if found is None:
            found = self._folded_cache[phrase] = " ".join(self.index.analyzer.words(self.index.phrase_text[phrase]))
        return found

    def _coverage(self, words: list[str], partial: bool) -> dict[int, float]:
        """Per phrase, the idf-weighted share (0-100) of the typed words it contains."""
        index = self.index
        unique = list(dict.fromkeys(words))
        last = len(unique) - 1 if partial and unique[-1] == words[-1] else -1
        if last > 0 and len(unique[last]) < MIN_PREFIX and unique[last] not in self._tokens:
            # One letter into a new word says nothing yet: match on the words before it.
            unique.pop()
            last = -1
        mass = [index.idf(word) if word in index.postings else index.unknown_idf for word in unique]
        found: dict[int, float] = {}
        joined_prefix: dict[int, float] = {}
        if last > 0:
            # "time sl" is on its way to "time slicing", which the lexicon folds into one token.
            for token, weight in self._expand(unique[last - 1] + unique[last], True):
                if weight != TYPO:
                    for phrase in self._tokens[token]:
                        joined_prefix[phrase] = mass[last - 1] + mass[last]
        for position, word in enumerate(unique):
            best: dict[int, float] = {}
            # A lone two-letter start ("wh") says too little; after other words it narrows enough.
            for token, weight in self._expand(word, position == last, MIN_PREFIX if len(unique) > 1 else MIN_PREFIX + 1):
                for phrase in self._tokens[token]:
                    if weight > best.get(phrase, 0.0):
                        best[phrase] = weight
            for phrase, weight in best.items():
                if position >= last - 1 and phrase in joined_prefix and last > 0:
                    continue
                found[phrase] = found.get(phrase, 0.0) + weight * mass[position]
        for phrase, gained in joined_prefix.items():
            found[phrase] = found.get(phrase, 0.0) + gained
        total = sum(mass)
        return {phrase: 100.0 * gained / total for phrase, gained in found.items()}

    def suggest(self, text: str, lang: str | None = None, limit: int = 5) -> list[Suggestion]:
        """The best `limit` suggestions for `text`, one per topic, best first.

        Args:
            text: What the user has typed so far.
            lang: Preferred language when the text itself does not reveal one.
            limit: Most suggestions to return.
        """
        text = text[:MAX_CHARS]
        index = self.index
        words = index.analyzer.content(text)
        if not words or limit < 1:
            return []
        coverage = self._coverage(words, partial=not text[-1:].isspace())
        wanted = detect_language(index, text) or lang
        typed = " ".join(index.analyzer.words(text))
        entries = index.entries
        # Per topic: the phrase to show (best coverage, then closest to the typed text) and how
        # many of its phrases matched at all, which is what separates the topic *about* MIG from
        # the ones that merely mention it.
        best_by_topic: dict[str, tuple[float, float, int]] = {}
        evidence: dict[str, int] = {}
        for phrase, share in coverage.items():
            if share < MIN_SCORE:
                continue
            entry = index.phrase_entry[phrase]
            topic, entry_lang = entries[entry][0], entries[entry][1]
            if wanted is not None and entry_lang != wanted and self._has_language(topic, wanted):
                continue
            evidence[topic] = evidence.get(topic, 0) + 1
            closeness = fuzz.partial_ratio(typed, self._folded(phrase)) if typed else 0.0
            field = PHRASE_FIELDS[index.phrase_field[phrase]]
            if field == "keyword":  # shown as the title, so it should not win the display
                closeness *= 0.5
            current = best_by_topic.get(topic)
            if current is None or (share, closeness) > (current[0], current[1]):
                best_by_topic[topic] = (share, closeness, phrase)
        ranked = sorted(
            best_by_topic.items(),
            key=lambda item: (-(item[1][0] + min(evidence[item[0]], 12) + item[1][1] / 20.0), item[0]),
        )[:limit]
        out: list[Suggestion] = []
        for topic, (share, _, phrase) in ranked:
            entry = index.phrase_entry[phrase]
            field = PHRASE_FIELDS[index.phrase_field[phrase]]
            shown = index.phrase_text[phrase] if field == "question" else entries[entry][2]
            out.append(Suggestion(topic, entry, shown, round(min(share, 100.0), 1)))
        return out

    def _has_language(self, topic: str, lang: str) -> bool:
        number = self._topic_number.get(topic)
        return number is not None and lang in self.index.topic_entries[number]

"""Turning text into matching tokens: folding, synonyms, stop words, bigrams.

The same analyzer runs over the knowledge (at index time) and over the query, so a synonym or a
stop word in `lexicon.yaml` changes both sides at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property
from itertools import compress, count

from advisor.textnorm import SEPARATE, fold, tokens

# Between the texts of `Analyzer.content_all`: survives folding, is a token of its own that no
# synonym phrase holds, and is kept by `_SEPARATE_KEEPING_BREAKS`.
_BREAK = " \x00 "
_SEPARATE_KEEPING_BREAKS = b"\x00" + SEPARATE[1:]
# A question of more words that carry meaning than this is not a choice between two things.
CHOICE_WORDS = 2
# Patterns compiled on first use (by `re`'s cache): compiling each costs 0.2 ms of every
# `advisor ask`, and few questions need them.
_PLAIN_TOKENS = r"[a-z0-9]+(?: [a-z0-9]+)*"
# An apostrophe inside a word joins it ("don't" -> "dont", a stop word), rather than leaving "t".
_APOSTROPHE = r"(?<=[a-z0-9])['’](?=[a-z])"


class Analyzer:
    """Folds, tokenises and canonicalises text; build one with `Analyzer.build`.

    A plain class, not a dataclass: see `advisor.problems.Problem`.
    """

    def __init__(
        self,
        stopwords: frozenset[str],
        synonyms: dict[str, tuple[str, ...]],
        canonical: dict[str, str],
        choices: dict[str, str] | None = None,
        whether: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]] | None = None,
    ) -> None:
        self.stopwords = stopwords
        self.synonyms = synonyms
        self._canonical = canonical
        self._choices = choices or {}  # folded stop word -> what it asks between two things named
        self._whether = whether or {}  # what is asked -> (the stop words asking it, what it is asked of, what may stand beside)

    @classmethod
    def build(cls, stopwords: frozenset[str] | set[str], synonyms: dict[str, tuple[str, ...]] | dict[str, list[str]]) -> "Analyzer":
        canonical: dict[str, str] = {}
        for target, variants in synonyms.items():
            for variant in variants:
                phrase = " ".join(tokens(variant))
                if phrase and phrase != target:
                    canonical.setdefault(phrase, target)
        return cls(frozenset(stopwords), {k: tuple(v) for k, v in synonyms.items()}, canonical)

    def words(self, text: str, separate: bytes = SEPARATE) -> list[str]:
        """All tokens after folding and synonym replacement (stop words kept)."""
        tokens = _folded_tokens(text, separate)
        if self._by_first_word.keys().isdisjoint(tokens):  # no synonym phrase can start here
            return tokens
        return self._replace(tokens)

    def written_words(self, text: str) -> list[str]:
        """All tokens after folding, before synonym replacement: the words as the asker wrote
        them, which tell the language ("rẻ" is Vietnamese before it becomes "cost")."""
        return _folded_tokens(text, SEPARATE)

    def phrase_terms(self, text: str) -> set[str]:
        """The canonical tokens that stand in `text` for a phrase of several words: "gang
        scheduling" is a term, where "gang" alone is a Vietnamese word (cast iron)."""
        terms: set[str] = set()
        self._replace(_folded_tokens(text, SEPARATE), terms)
        return terms

    def canonicalize(self, words: list[str]) -> list[str]:
        """Replace synonym phrases in an already folded token list by their canonical token."""
        spaced = " ".join(words)
        if not self._canonical:
            return spaced.split()
        if re.fullmatch(_PLAIN_TOKENS, spaced):
            return self._replace(spaced.split())
        return self._pattern.sub(lambda m: self._canonical[m.group(0)], spaced).split()

    def _replace(self, tokens: list[str], terms: set[str] | None = None) -> list[str]:
        """`canonicalize` for plain tokens ([a-z0-9]+), without the regular expression; the
        canonical tokens that replaced phrases of several words go to `terms`.

        Same result as the regex: a phrase matches whole tokens only, the leftmost match wins,
        then the phrase listed first in `_pattern` (longest first), and matches never overlap.
        """
        table = self._by_first_word
        out: list[str] = []
        position = 0
        # Only where a phrase can start, found in one pass: indexing calls this millions of times.
        for start in compress(count(), map(table.__contains__, tokens)):
            if start < position:  # inside the phrase just replaced
                continue
            for phrase, target in table[tokens[start]]:
                end = start + len(phrase)
                if tokens[start:end] == phrase:
                    out.extend(tokens[position:start])
                    out.extend(target.split())
                    position = end
                    if terms is not None and len(phrase) > 1:
                        terms.add(target)
                    break
        out.extend(tokens[position:])
        return out

    @cached_property
    def _pattern(self) -> re.Pattern[str]:
        """Every synonym phrase as one alternation, longest first (only needed for odd tokens)."""
        alternatives = sorted(self._canonical, key=len, reverse=True)
        return re.compile(r"\b(?:" + "|".join(re.escape(a) for a in alternatives) + r")\b")

    @cached_property
    def _by_first_word(self) -> dict[str, list[tuple[list[str], str]]]:
        """First word -> (phrase tokens, canonical token), in the order `_pattern` tries them."""
        table: dict[str, list[tuple[list[str], str]]] = {}
        for phrase in sorted(self._canonical, key=len, reverse=True):
            tokens = phrase.split()
            table.setdefault(tokens[0], []).append((tokens, self._canonical[phrase]))
        return table

    @property
    def phrases(self) -> dict[str, str]:
        """Every synonym phrase (folded) and the canonical token it stands for."""
        return self._canonical

    @cached_property
    def variant_words(self) -> frozenset[str]:
        """Words that only occur inside synonym phrases ("time" in "time slicing")."""
        return frozenset(word for phrase in self._canonical for word in phrase.split())

    def content(self, text: str) -> list[str]:
        """Tokens that carry meaning: `words` without stop words and bare numbers (counts, versions
        and ids say nothing of the topic), except numbers the lexicon gives a meaning ("1")."""
        return self._meaningful(self.words(text))

    def _meaningful(self, words: list[str]) -> list[str]:
        keep = self._keep  # a lookup per word, in C: indexing filters millions of words
        return list(compress(words, map(keep.__getitem__, words)))

    @cached_property
    def _keep(self) -> dict[str, bool]:
        """Word -> whether it carries meaning (not `is_noise`), filled as words are met."""
        return _Memo(lambda word: not self.is_noise(word))

    def content_all(self, texts: list[str]) -> list[list[str]]:
        """`content` of each of `texts`, in one pass over all of them: indexing a topic tokenises
        a few dozen short fields, and a call each would cost more than the tokenising."""
        if not texts:
            return []
        joined = _BREAK.join(text.replace("\x00", " ") for text in texts)
        words = self._meaningful(self.words(joined, _SEPARATE_KEEPING_BREAKS))
        breaks = list(compress(count(), map("\x00".__eq__, words)))
        return [words[start + 1 : end] for start, end in zip([-1, *breaks], [*breaks, len(words)])]

    def read_asking(self, words: list[str]) -> list[str]:
        """A question's `words` with the stop words that ask something read as what they ask
        (`read_choices`, `read_whether`)."""
        return self.read_whether(self.read_choices(words))

    def read_whether(self, words: list[str]) -> list[str]:
        """A question's `words`, plus what one of its stop words asks (the lexicon's `whether`)
        when it names what that is asked of and, besides, at most the words that may stand beside
        it: "nên dùng k8s không" and "do we need kubernetes for our gpus" ask whether Kubernetes
        is worth it, while "kubernetes" alone names no topic, "should we use gpus" does not name
        Kubernetes and "should we use k8s for inference" names its own topic."""
        for asked, (asked_by, about, beside) in self._whether.items():
            if asked_by.isdisjoint(words):
                continue
            named = {word for word in words if not self.is_noise(word)}
            if about <= named <= about | beside:
                return [*words, asked]
        return words

    def read_choices(self, words: list[str]) -> list[str]:
        """A question's `words` with an or-word read as what it asks (the lexicon's `choices`)
        where it stands between two words that carry meaning, in a question of at most
        `CHOICE_WORDS` of them: "l4 hay t4" and "mig or mps" ask which of the two, as "vs" does,
        while "pods pending or crashing, restarted or not" stays as it was."""
        choices = self._choices
        if not choices or choices.keys().isdisjoint(words):
            return words
        if sum(not self.is_noise(word) for word in words) > CHOICE_WORDS:
            return words
        read = list(words)
        for position in range(1, len(words) - 1):
            if words[position] in choices and not self.is_noise(words[position - 1]) and not self.is_noise(words[position + 1]):
                read[position] = choices[words[position]]
        return read

    def is_noise(self, word: str) -> bool:
        return word in self.stopwords or (word.isdigit() and word not in self.synonyms)


class _Memo(dict[str, bool]):
    """A dict that computes a missing value once; lookups of known keys stay in C."""

    def __init__(self, compute: Callable[[str], bool]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, key: str) -> bool:
        value = self[key] = self._compute(key)
        return value


def bigrams(words: list[str]) -> list[str]:
    return [f"{a}_{b}" for a, b in zip(words, words[1:])]


def _folded_tokens(text: str, separate: bytes) -> list[str]:
    """`text` folded and split into plain tokens, before synonyms."""
    folded = fold(text)
    if "'" in folded or "’" in folded:
        folded = re.sub(_APOSTROPHE, "", folded)
    return folded.encode("utf-8", "surrogatepass").translate(separate).decode("ascii").split()

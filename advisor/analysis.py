"""Turning text into matching tokens: folding, synonyms, stop words, bigrams.

The same analyzer runs over the knowledge (at index time) and over the query, so a synonym or a
stop word in `lexicon.yaml` changes both sides at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from advisor.textnorm import fold

_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Analyzer:
    stopwords: frozenset[str]
    synonyms: dict[str, tuple[str, ...]]
    _pattern: re.Pattern[str] | None
    _canonical: dict[str, str]

    @classmethod
    def build(cls, stopwords: frozenset[str] | set[str], synonyms: dict[str, tuple[str, ...]] | dict[str, list[str]]) -> "Analyzer":
        canonical: dict[str, str] = {}
        for target, variants in synonyms.items():
            for variant in variants:
                phrase = " ".join(_TOKEN.findall(fold(variant)))
                if phrase and phrase != target:
                    canonical.setdefault(phrase, target)
        pattern = None
        if canonical:
            alternatives = sorted(canonical, key=len, reverse=True)
            pattern = re.compile(r"\b(?:" + "|".join(re.escape(a) for a in alternatives) + r")\b")
        return cls(frozenset(stopwords), {k: tuple(v) for k, v in synonyms.items()}, pattern, canonical)

    def words(self, text: str) -> list[str]:
        """All tokens after folding and synonym replacement (stop words kept)."""
        return self.canonicalize(_TOKEN.findall(fold(text)))

    def canonicalize(self, words: list[str]) -> list[str]:
        """Replace synonym phrases in an already folded token list by their canonical token."""
        spaced = " ".join(words)
        if self._pattern is not None:
            spaced = self._pattern.sub(lambda m: self._canonical[m.group(0)], spaced)
        return spaced.split()

    @property
    def phrases(self) -> dict[str, str]:
        """Every synonym phrase (folded) and the canonical token it stands for."""
        return self._canonical

    @cached_property
    def variant_words(self) -> frozenset[str]:
        """Words that only occur inside synonym phrases ("time" in "time slicing")."""
        return frozenset(word for phrase in self._canonical for word in phrase.split())

    def content(self, text: str) -> list[str]:
        """Tokens that carry meaning: `words` without stop words."""
        return [word for word in self.words(text) if word not in self.stopwords]


def bigrams(words: list[str]) -> list[str]:
    return [f"{a}_{b}" for a, b in zip(words, words[1:])]

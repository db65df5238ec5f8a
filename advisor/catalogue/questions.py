"""Reading a question against the provider catalogue: which providers, facts and needs it names.

"does GKE support MIG", "eks spot notice", "nha cung cap nao co infiniband": the answer is a fact
about a named provider, or a filter over all of them, so it comes from the catalogue (value,
detail, source, date) rather than from a knowledge entry. General questions ("how do I choose a
provider", "what is MIG") must stay with the knowledge entries, so this module fires only on:

- a provider alias, matched on whole folded tokens ("gke", "amazon eks", "core weave"); aliases
  that are everyday words ("google", "lambda", "gradient", "oci") count only beside a catalogue
  feature or the word provider/cloud, and a long question that merely mentions a provider (a
  troubleshooting story) is left to the knowledge entries;
- or "which provider(s) ... <feature>" / "nhà cung cấp nào ... <feature>", unless the question is
  about choosing criteria ("which provider features matter most").

Everything works on the cached index's plain data through the index's own analyzer, so synonyms
from `lexicon.yaml` (nhà cung cấp -> provider, roce -> rdma) apply and YAML is never imported.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from advisor.catalogue.model import GPU_NEED, Catalogue, from_data
from advisor.search.analysis import Analyzer
from advisor.textnorm import tokens as raw_tokens

# Which words make a provider question is data: `catalogue_questions` in knowledge/lexicon.yaml.
# Beyond this many words not explained by a provider, a feature or filler, the question is about
# something else that happens to mention a provider (a troubleshooting story, say).
MAX_OTHER_WORDS = 3
MAX_QUERY_WORDS = 40
# From this many unexplained words on, a confident entry answers and the catalogue comes beside it:
# one is enough ("gpus on gke autopilot" asks about Autopilot, which no catalogue fact explains).
DEFER_OTHER_WORDS = 1

# The word lists of `catalogue_questions`.
WORD_LISTS: tuple[str, ...] = (
    "filler",
    "provider_nouns",
    "which_before_noun",
    "which_after_noun",
    "plural_nouns",
    "after_plural_noun",
    "choosing_words",
    "everyday_aliases",
    "comparison_words",
    "guidance_words",
    "rent_words",
    "where_words",
    "gpu_nouns",
)
# "lambda's kubernetes", "GKE’s spot notice": the provider's own name, which the analyser would
# otherwise read as one word ("lambdas"). Only here: read so everywhere, it moved answers of the
# evaluation sets both ways (docs/answer-quality.md).
_POSSESSIVE = re.compile(r"(?<=[^\W_])['’]s\b", re.IGNORECASE)
# The lists matched against the question's raw tokens ("providers with efa"); the others meet its
# analysed words, so they are read through the same synonyms ("vs" is "compare" there).
RAW_WORD_LISTS = frozenset({"plural_nouns", "after_plural_noun"})


def alias_keys(catalogue: Catalogue, analyzer: Analyzer) -> dict[tuple[str, ...], str]:
    """Every provider alias (and id) as analysed tokens -> the provider's id."""
    aliases: dict[tuple[str, ...], str] = {}
    for provider in catalogue.providers:
        for alias in (provider.id.replace("_", " "), *provider.aliases):
            key = tuple(analyzer.content(alias))
            if key:
                aliases.setdefault(key, provider.id)
    return aliases


@dataclass(frozen=True)
class _Terms:
    """The index's analysed view of the catalogue and of `catalogue_questions` in lexicon.yaml."""

    catalogue: Catalogue
    aliases: dict[tuple[str, ...], str]
    features: dict[tuple[str, ...], tuple[tuple[str, ...], str | None]]
    longest: int
    words: dict[str, frozenset[str]]  # each list of `catalogue_questions`, folded, synonyms read (alias lists may hold phrases)
    choosing_phrases: tuple[tuple[str, ...], ...]  # multi-word `choosing_words`
    # Aliases whose stop words the analyser drops ("vast.ai" is "vast", as "ai" is Vietnamese for
    # who), as typed: written out in full, they name the provider even where "vast" would not.
    spelled_out: dict[tuple[str, ...], str]


# Built once per loaded index (its analyzer), on the first provider question.
_TERMS: weakref.WeakKeyDictionary[Analyzer, _Terms] = weakref.WeakKeyDictionary()


def _terms(index_data: Mapping[str, Any], analyzer: Analyzer) -> _Terms | None:
    cached = _TERMS.get(analyzer)
    if cached is not None:
        return cached
    catalogue = from_data(index_data.get("providers"))
    data = index_data.get("catalogue_terms")
    if not catalogue.providers or not data:
        return None
    words = {name: frozenset(data[name] if name in RAW_WORD_LISTS else (" ".join(analyzer.words(item)) for item in data[name])) for name in WORD_LISTS}
    aliases = alias_keys(catalogue, analyzer)
    features: dict[tuple[str, ...], tuple[tuple[str, ...], str | None]] = {}
    for phrases, facts, need in data["features"]:
        for phrase in phrases:
            key = tuple(analyzer.content(phrase))
            if key and key not in aliases and not (len(key) == 1 and key[0] in words["filler"]):
                features.setdefault(key, (tuple(facts), need))
    for provider in catalogue.providers:  # "which providers offer H200" asks for the need `gpu:H200`
        offered = provider.fact("gpu_models").value
        for model in offered if isinstance(offered, tuple) else ():
            key = tuple(_with_numbers(analyzer, model))
            if key and key not in aliases and features.get(key, (None, None))[1] is None:
                features[key] = (("gpu_models",), GPU_NEED + model)
    longest = max(len(key) for key in (*aliases, *features))
    choosing = tuple(tuple(phrase.split()) for phrase in words["choosing_words"] if " " in phrase)
    spelled_out = {
        tuple(raw_tokens(alias)): provider.id
        for provider in catalogue.providers
        for alias in provider.aliases
        if len(raw_tokens(alias)) > len(analyzer.content(alias)) > 0
    }
    terms = _Terms(catalogue, aliases, features, longest, words, choosing, spelled_out)
    _TERMS[analyzer] = terms
    return terms


@dataclass(frozen=True)
class ProviderQuestion:
    """What a question asks of the catalogue.

    Attributes:
        providers: Provider ids named, in the order named.
        facts: Catalogue facts asked about.
        needs: Needs asked for ("which provider has MIG").
        other_words: Content words explained by none of these: many of them mean the question is
            about something else that happens to mention a provider.
        which: Whether it asks which provider(s) have something.
        catalogue: The catalogue the question was read against.
        guidance: Whether it asks how to do something or what to choose ("install the GPU
            Operator on EKS", "nên dùng EKS hay tự dựng") rather than for a fact: a knowledge
            entry then answers, with the catalogue's facts beside it.
    """

    providers: tuple[str, ...]
    facts: tuple[str, ...]
    needs: tuple[str, ...]
    other_words: int
    which: bool
    catalogue: Catalogue = field(compare=False, repr=False)
    guidance: bool = False

    @property
    def defers_to_knowledge(self) -> bool:
        """Whether a confident knowledge entry should answer, with the catalogue's facts beside:
        the question asks for guidance, or says enough the catalogue does not explain that it is
        about something else and names a provider in passing ("node group does not use the EKS
        cluster autoscaler"). On the real development questions, every catalogue answer to such
        a question was a miss, and in seven of the eight the entry ranked first was right; with one
        such word instead of two, two more questions of the development sets are answered right
        and none that was right is lost (`python -m tests.eval.report`)."""
        return self.guidance or self.other_words >= DEFER_OTHER_WORDS

    @property
    def compares(self) -> bool:
        """Whether it names several providers: "should I use EKS or GKE" asks which, and the facts
        side by side are what it needs when no entry is sure of an answer."""
        return len(self.providers) > 1

    @property
    def answerable(self) -> bool:
        """Whether the catalogue alone can answer it (named providers, or "which provider has X")."""
        if self.other_words > MAX_OTHER_WORDS:
            return False
        return bool(self.providers) or bool(self.which and self.facts)


def read_question(index_data: Mapping[str, Any], analyzer: Analyzer, query: str) -> ProviderQuestion | None:
    """What `query` asks of the catalogue stored in `index_data`; None when it names no provider
    and asks no "which provider" question (or the index has no catalogue)."""
    terms = _terms(index_data, analyzer)
    if terms is None:
        return None
    query = _POSSESSIVE.sub("", query)
    words = _with_numbers(analyzer, query)
    if not words or len(words) > MAX_QUERY_WORDS:
        return None
    named: list[tuple[str, tuple[str, ...]]] = []
    facts: list[str] = []
    needs: list[str] = []
    other = 0
    position = 0
    while position < len(words):
        for size in range(min(terms.longest, len(words) - position), 0, -1):
            key = tuple(words[position : position + size])
            if key in terms.aliases:
                named.append((terms.aliases[key], key))
                break
            if key in terms.features:
                found_facts, need = terms.features[key]
                facts.extend(f for f in found_facts if f not in facts)
                if need and need not in needs:
                    needs.append(need)
                break
        else:
            size = 1
            word = words[position]
            if not (word.isdigit() or word in terms.words["filler"] or word in terms.words["provider_nouns"] or word in terms.words["rent_words"]):
                other += 1
        position += size
    all_words = analyzer.words(query)
    if not facts and _which_beside(terms, all_words, "gpu_nouns"):
        facts.append("gpu_models")  # "what gpus does lambda offer", "lambda có những gpu nào"
    noun = any(word in terms.words["provider_nouns"] for word in all_words)
    everyday = terms.words["everyday_aliases"]
    # "runpod vs lambda", "compare lambda and coreweave": beside another provider or a comparing
    # word, an everyday alias is a provider too; and beside another alias of its own provider
    # ("oracle oke").
    compared = bool(set(all_words) & terms.words["comparison_words"]) or any(" ".join(key) not in everyday for _, key in named)
    raw = raw_tokens(query)
    firmly_named = {provider_id for provider_id, _ in named if len({key for other_id, key in named if other_id == provider_id}) > 1}
    firmly_named.update(provider_id for key, provider_id in terms.spelled_out.items() if _has_phrase(raw, key))
    providers: list[str] = []
    for provider_id, key in named:
        # "google colab", "gradient accumulation", "vast amounts of data": an everyday word
        # names a provider only in a question that is plainly about the catalogue.
        if " ".join(key) in everyday and not (((facts or noun) and other == 0) or compared or provider_id in firmly_named):
            other += 1
            continue
        if provider_id not in providers:
            providers.append(provider_id)
    if "managed" in needs or "self-run" in needs:  # managed Kubernetes already implies Kubernetes
        needs = [need for need in needs if need != "kubernetes"]
    which = _asks_which(terms, all_words, raw)
    if not providers and not which:
        return None
    guidance = _has_any(all_words, terms.words["guidance_words"])
    return ProviderQuestion(tuple(providers), tuple(facts), tuple(needs), other, which, terms.catalogue, guidance)


def _with_numbers(analyzer: Analyzer, text: str) -> list[str]:
    """`analyzer.content(text)` with the numbers kept: "RTX 4090" is not "RTX 5090"."""
    return [word for word in analyzer.words(text) if word not in analyzer.stopwords]


def _has_any(words: list[str], wanted: frozenset[str]) -> bool:
    """Whether `words` hold one of `wanted`, a phrase of several words counting as a whole."""
    if wanted.intersection(words):
        return True
    return any(" " in phrase and _has_phrase(words, tuple(phrase.split())) for phrase in wanted)


def _asks_which(terms: _Terms, words: list[str], raw: list[str]) -> bool:
    """"which providers ...", "any provider ...", "nhà cung cấp nào ...", "providers with ...",
    "where can I rent ..."."""
    lists = terms.words
    if set(words) & lists["choosing_words"] or any(_has_phrase(words, phrase) for phrase in terms.choosing_phrases):
        return False
    if _has_any(words, lists["rent_words"]) and _has_any(words, lists["where_words"]):
        return True
    if _which_beside(terms, words, "provider_nouns"):
        return True
    return any(word in lists["plural_nouns"] and following in lists["after_plural_noun"] for word, following in zip(raw, raw[1:]))


def _which_beside(terms: _Terms, words: list[str], nouns: str) -> bool:
    """Whether a noun of the list `nouns` (a word, or a phrase such as "managed kubernetes") has a
    which-word before it ("which providers", "what kind of gpus") or after it ("nhà cung cấp
    nào", "gpu nào")."""
    lists = terms.words
    for noun in lists[nouns]:
        phrase = noun.split()
        size = len(phrase)
        for position in range(len(words) - size + 1):
            if words[position : position + size] == phrase and (
                lists["which_before_noun"] & set(words[max(0, position - 4) : position]) or lists["which_after_noun"] & set(words[position + size : position + size + 2])
            ):
                return True
    return False


def _has_phrase(words: list[str], phrase: tuple[str, ...]) -> bool:
    size = len(phrase)
    return any(tuple(words[i : i + size]) == phrase for i in range(len(words) - size + 1))

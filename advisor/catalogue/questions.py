"""Answering provider questions in `advisor ask` from the provider catalogue (issue 7).

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

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from advisor.i18n import t
from advisor.search.index import SearchIndex
from advisor.knowledge.entry import CATALOGUE_WORD_LISTS
from advisor.catalogue.model import (
    FACT_KEYS,
    Catalogue,
    Fact,
    Provider,
    ProviderMatch,
    catalogue_from_data,
    fact_label,
    match,
    need_label,
    note_text,
    value_text,
)
from advisor.textnorm import tokens as raw_tokens

# Which words make a provider question is data: `catalogue_questions` in knowledge/lexicon.yaml.
# Beyond this many words not explained by a provider, a feature or filler, the question is about
# something else that happens to mention a provider (a troubleshooting story, say).
MAX_OTHER_WORDS = 3
MAX_QUERY_WORDS = 40


@dataclass(frozen=True)
class ProviderAnswer:
    """A catalogue answer, shaped like a knowledge hit so every front end can show it."""

    id: str
    title: str
    lang: str
    summary: str
    answer: str
    sources: tuple[str, ...] = ()
    reason: dict[str, Any] = field(default_factory=dict, compare=False)

    def record(self, *, explain: bool = False) -> dict[str, Any]:
        """The `catalogue` object of `advisor ask --json`."""
        record: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "lang": self.lang,
            "summary": self.summary,
            "answer": self.answer,
            "sources": list(self.sources),
        }
        if explain:
            record["explain"] = dict(self.reason)
        return record


@dataclass(frozen=True)
class _Terms:
    """The index's analysed view of the catalogue and of `catalogue_questions` in lexicon.yaml."""

    catalogue: Catalogue
    aliases: dict[tuple[str, ...], str]
    features: dict[tuple[str, ...], tuple[tuple[str, ...], str | None]]
    longest: int
    words: dict[str, frozenset[str]]  # each list of `catalogue_questions`, folded (alias lists may hold phrases)
    choosing_phrases: tuple[tuple[str, ...], ...]  # multi-word `choosing_words`


_TERMS: "weakref.WeakKeyDictionary[SearchIndex, _Terms]" = weakref.WeakKeyDictionary()


def _alias_keys(catalogue: Catalogue, analyzer: Any) -> dict[tuple[str, ...], str]:
    """Every provider alias (and id) as analysed tokens -> the provider's id."""
    aliases: dict[tuple[str, ...], str] = {}
    for provider in catalogue.providers:
        for alias in (provider.id.replace("_", " "), *provider.aliases):
            key = tuple(analyzer.content(alias))
            if key:
                aliases.setdefault(key, provider.id)
    return aliases


def _terms(index: SearchIndex) -> _Terms | None:
    cached = _TERMS.get(index)
    if cached is not None:
        return cached
    catalogue = catalogue_from_data(index.data.get("providers"))
    data = index.data.get("catalogue_terms")
    if not catalogue.providers or not data:
        return None
    analyzer = index.analyzer
    words = {name: frozenset(data[name]) for name in CATALOGUE_WORD_LISTS}
    aliases = _alias_keys(catalogue, analyzer)
    features: dict[tuple[str, ...], tuple[tuple[str, ...], str | None]] = {}
    for phrases, facts, need in data["features"]:
        for phrase in phrases:
            key = tuple(analyzer.content(phrase))
            if key and key not in aliases and not (len(key) == 1 and key[0] in words["filler"]):
                features.setdefault(key, (tuple(facts), need))
    longest = max(len(key) for key in (*aliases, *features))
    choosing = tuple(tuple(phrase.split()) for phrase in data["choosing_words"] if " " in phrase)
    terms = _Terms(catalogue, aliases, features, longest, words, choosing)
    _TERMS[index] = terms
    return terms


@dataclass(frozen=True)
class _Question:
    providers: tuple[str, ...]
    facts: tuple[str, ...]
    needs: tuple[str, ...]
    other_words: int
    which: bool


def _parse(terms: _Terms, index: SearchIndex, query: str) -> _Question | None:
    """Split the query into providers named, facts and needs asked, and everything else."""
    analyzer = index.analyzer
    words = analyzer.content(query)
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
            if words[position] not in terms.words["filler"] and words[position] not in terms.words["provider_nouns"]:
                other += 1
        position += size
    all_words = analyzer.words(query)
    noun = any(word in terms.words["provider_nouns"] for word in all_words)
    providers: list[str] = []
    for provider_id, key in named:
        # "google colab", "gradient accumulation", "vast amounts of data": an everyday word
        # names a provider only in a question that is plainly about the catalogue.
        if " ".join(key) in terms.words["everyday_aliases"] and not ((facts or noun) and other == 0):
            other += 1
            continue
        if provider_id not in providers:
            providers.append(provider_id)
    if "managed" in needs or "self-run" in needs:  # managed Kubernetes already implies Kubernetes
        needs = [need for need in needs if need != "kubernetes"]
    return _Question(tuple(providers), tuple(facts), tuple(needs), other, _asks_which(terms, all_words, raw_tokens(query)))


def _asks_which(terms: _Terms, words: list[str], raw: list[str]) -> bool:
    """"which providers ...", "any provider ...", "nhà cung cấp nào ...", "providers with ..."."""
    lists = terms.words
    if set(words) & lists["choosing_words"] or any(_has_phrase(words, phrase) for phrase in terms.choosing_phrases):
        return False
    for position, word in enumerate(words):
        if word not in lists["provider_nouns"]:
            continue
        if lists["which_before_noun"] & set(words[max(0, position - 4) : position]) or lists["which_after_noun"] & set(words[position + 1 : position + 3]):
            return True
    return any(word in lists["plural_nouns"] and following in lists["after_plural_noun"] for word, following in zip(raw, raw[1:]))


def _has_phrase(words: list[str], phrase: tuple[str, ...]) -> bool:
    size = len(phrase)
    return any(tuple(words[i : i + size]) == phrase for i in range(len(words) - size + 1))


def trigger_tokens(catalogue: Catalogue, terms: dict[str, Any], analyzer: Any, frequency: Callable[[str], int]) -> list[str]:
    """Words without which no question is a catalogue question.

    A question fires only on a whole alias or on a provider noun, so it must hold, for some alias,
    that alias's rarest word (by `frequency` in the knowledge), or a provider noun. The index
    stores these words so that `advisor ask` can skip importing this module (and the catalogue's
    dataclasses) for the great majority of questions, which name no provider.
    """
    found: set[str] = {*terms["provider_nouns"], *terms["plural_nouns"]}
    for key in _alias_keys(catalogue, analyzer):
        found.add(min(key, key=lambda word: (frequency(word), word)))
    return sorted(found)


def answer_provider_question(index: SearchIndex, query: str, lang: str | None = None) -> ProviderAnswer | None:
    """A catalogue answer when `query` is a provider question, else None (the knowledge answers).

    `lang` forces the answer language; otherwise it is detected from the query (diacritics,
    marker words), then taken from the environment.
    """
    terms = _terms(index)
    if terms is None:
        return None
    question = _parse(terms, index, query)
    if question is None:
        return None
    if lang is None:
        from advisor.i18n import default_language
        from advisor.search.rank import detect_language

        lang = detect_language(index, query) or default_language()
    if question.providers and question.other_words <= MAX_OTHER_WORDS:
        return _about_providers(terms.catalogue, question, lang)
    if not question.providers and question.which and question.facts and question.other_words <= MAX_OTHER_WORDS:
        if question.needs:
            return _which_providers(terms.catalogue, question, lang)
        return _fact_table(terms.catalogue, question, lang)
    return None


# ---------------------------------------------------------------- rendering


def _fact_block(provider: Provider, fact: Fact, lang: str, *, detailed: bool) -> list[str]:
    lines = [f"- **{fact_label(fact.key, lang)}:** {value_text(fact, lang)}"]
    if detailed and fact.detail:
        lines.append(f"  {fact.detail}")
    if fact.source:
        lines.append("  " + t("prov_source_as_of", lang, url=fact.source, date=fact.checked or "?"))
    elif not fact.known:
        lines.append("  " + t("prov_unknown_check", lang, url=provider.docs_url or "?"))
    elif fact.checked:
        lines.append("  " + t("prov_as_of", lang, date=fact.checked))
    return lines


def _footer(lang: str, as_of: str | None) -> list[str]:
    from advisor.catalogue.model import reminder

    lines = ["", f"_{reminder(lang, as_of)}_"]
    if lang != "en":
        lines.append(f"_{t('prov_details_in_english', lang)}_")
    return lines


def _about_providers(catalogue: Catalogue, question: _Question, lang: str) -> ProviderAnswer:
    """One or more named providers: the facts asked about with detail, else an overview."""
    providers = [p for p in (catalogue.get(pid) for pid in question.providers) if p is not None]
    keys = [key for key in FACT_KEYS if key in question.facts] or list(FACT_KEYS)
    detailed = bool(question.facts)
    body: list[str] = []
    sources: list[str] = []
    summary: list[str] = []
    for provider in providers:
        if len(providers) > 1:  # one provider is named by the title already
            body.extend([*([""] if body else []), f"### {provider.name}", ""])
        for key in keys:
            fact = provider.fact(key)
            body.extend(_fact_block(provider, fact, lang, detailed=detailed))
            cited = fact.source or (None if fact.known else provider.docs_url)  # an unknown points to the docs
            if cited and cited not in sources:
                sources.append(cited)
        if not detailed and provider.notes:
            body.append("")
            body.append(f"**{t('prov_notes', lang)}:**")
            body.extend(f"- {note}" for note in provider.notes)
        if detailed:
            summary.append(f"{provider.name}: " + "; ".join(f"{fact_label(k, lang)}: {value_text(provider.fact(k), lang)}" for k in keys))
        else:
            summary.append(t("prov_overview_summary", lang, name=provider.name, kubernetes=value_text(provider.fact("kubernetes"), lang)))
    as_of = min((p.as_of for p in providers if p.as_of), default=catalogue.as_of)
    body.extend(_footer(lang, as_of))
    names = ", ".join(p.name for p in providers)
    title = f"{names}: {', '.join(fact_label(k, lang) for k in keys)}" if detailed else names
    reason = {"mode": "provider", "providers": list(question.providers), "facts": list(question.facts)}
    return ProviderAnswer("provider:" + "+".join(question.providers), title, lang, " | ".join(summary), "\n".join(body), tuple(sources), reason)


def _match_line(found: ProviderMatch, lang: str) -> str:
    provider = found.provider
    parts: list[str] = []
    seen: set[str] = set()
    for check in found.checks:
        if check.status == "unknown":
            parts.append(t("prov_verify_item", lang, what=need_label(check.need, lang), url=check.link or "?") + (f" ({note_text(check.note, lang)})" if check.note else ""))
        elif check.fact not in seen:
            seen.add(check.fact)
            parts.append(f"{fact_label(check.fact, lang)}: {value_text(provider.fact(check.fact), lang)}")
    return f"- **{provider.name}** (`{provider.id}`) — " + "; ".join(parts)


def _which_providers(catalogue: Catalogue, question: _Question, lang: str) -> ProviderAnswer:
    """"Which providers have X": the same ranking as `advisor providers --need X`."""
    everyone = match(catalogue, question.needs, include_failing=True)
    groups = {status: [m for m in everyone if m.status == status] for status in ("fits", "verify", "fails")}
    wanted = t("prov_and", lang).join(need_label(need, lang) for need in question.needs)
    body: list[str] = []
    sources: list[str] = []
    for status in ("fits", "verify"):
        if not groups[status]:
            continue
        if body:
            body.append("")
        body.append(f"**{t('prov_status_' + status, lang)} ({len(groups[status])})**")
        body.append("")
        for found in groups[status]:
            body.append(_match_line(found, lang))
            for check in found.checks:
                if check.link and check.link not in sources:
                    sources.append(check.link)
    if not groups["fits"] and not groups["verify"]:
        body.append(t("prov_none_fit", lang))
    if groups["fails"]:
        command = "advisor providers " + " ".join(f"--need {need}" for need in question.needs) + " --all"
        body.extend(["", t("prov_hidden_fails", lang, count=len(groups["fails"]), command=command)])
    body.extend(_footer(lang, catalogue.as_of))
    summary = t(
        "prov_which_summary",
        lang,
        fits=", ".join(m.provider.name for m in groups["fits"]) or "—",
        verify=", ".join(m.provider.name for m in groups["verify"]) or "—",
    )
    reason = {"mode": "which", "needs": list(question.needs), "facts": list(question.facts)}
    return ProviderAnswer("providers:" + "+".join(question.needs), t("prov_which_title", lang, needs=wanted), lang, summary, "\n".join(body), tuple(sources), reason)


def _fact_table(catalogue: Catalogue, question: _Question, lang: str) -> ProviderAnswer:
    """"Which providers offer which GPUs / sharing modes": one line per provider, no filter."""
    keys = [key for key in FACT_KEYS if key in question.facts]
    body: list[str] = []
    sources: list[str] = []
    for provider in sorted(catalogue.providers, key=lambda p: p.name.casefold()):
        body.append(f"- **{provider.name}** (`{provider.id}`) — " + "; ".join(f"{fact_label(k, lang)}: {value_text(provider.fact(k), lang)}" for k in keys))
        for key in keys:
            source = provider.fact(key).source
            if source and source not in sources:
                sources.append(source)
    body.extend(["", t("prov_fact_table_more", lang)])
    body.extend(_footer(lang, catalogue.as_of))
    labels = ", ".join(fact_label(k, lang) for k in keys)
    title = t("prov_fact_table_title", lang, facts=labels)
    reason = {"mode": "facts", "facts": keys}
    return ProviderAnswer("providers:" + "+".join(keys), title, lang, title, "\n".join(body), tuple(sources), reason)

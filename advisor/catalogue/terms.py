"""How questions talk about the catalogue: the `catalogue_questions` words of `lexicon.yaml`.

`advisor ask` answers from the catalogue only a question that names a provider, or asks which
provider has a feature; which words make such a question is data, validated here. The index
builder stores these words, the catalogue itself and the "trigger" words beside the knowledge
index (`attachment`), so a warm `ask` needs neither YAML nor this package for the great majority
of questions, which name no provider.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from advisor.catalogue.load import load_catalogue
from advisor.catalogue.model import FACT_KEYS, NEEDS, Catalogue, to_data
from advisor.catalogue.questions import WORD_LISTS, alias_keys
from advisor.knowledge.lexicon import read_lexicon, section, word_list
from advisor.problems import Problem
from advisor.search.analysis import Analyzer

SECTION = "catalogue_questions"
def load_terms(root: Path, problems: list[Problem]) -> dict[str, Any] | None:
    """The feature phrases (with the facts and need each means) and the word lists, as plain data."""
    found = read_lexicon(root, [])  # the knowledge loader reports problems of the file itself
    if found is None:
        return None
    doc, display = found
    raw = section(doc, display, SECTION, problems)
    if not raw:
        return None
    known = {"features", *WORD_LISTS}
    for key in raw:
        if key not in known:
            problems.append(Problem(display, doc.line(SECTION, key), f"unknown key '{SECTION}.{key}' (known: {', '.join(sorted(known))})"))
    features: list[list[Any]] = []
    raw_features = raw.get("features") or []
    if not isinstance(raw_features, list):
        problems.append(Problem(display, doc.line(SECTION, "features"), f"'{SECTION}.features' must be a list"))
        raw_features = []
    for index, item in enumerate(raw_features):
        where = (SECTION, "features", index)
        if not isinstance(item, dict) or not isinstance(item.get("phrases"), list) or not isinstance(item.get("facts"), list):
            problems.append(Problem(display, doc.line(*where), "a feature needs 'phrases' and 'facts' lists (and 'need': a need or null)"))
            continue
        phrases = [p for p in item["phrases"] if isinstance(p, str) and p.strip()]
        facts = [f for f in item["facts"] if f in FACT_KEYS]
        for number, fact in enumerate(item["facts"]):
            if fact not in FACT_KEYS:
                problems.append(Problem(display, doc.line(*where, "facts", number), f"unknown fact '{fact}' (facts: {', '.join(FACT_KEYS)})"))
        need = item.get("need")
        if need is not None and need not in NEEDS:
            problems.append(Problem(display, doc.line(*where, "need"), f"unknown need '{need}' (needs: {', '.join(NEEDS)})"))
            need = None
        features.append([phrases, facts, need])
    terms: dict[str, Any] = {"features": features}
    for name in WORD_LISTS:
        terms[name] = word_list(raw.get(name) or [], doc, display, (SECTION, name), problems)
    return terms


def trigger_tokens(catalogue: Catalogue, terms: dict[str, Any], analyzer: Analyzer, frequency: Callable[[str], int]) -> list[str]:
    """Words without which no question is a catalogue question.

    A question fires only on a whole alias, on a provider noun or on a word of renting, so it must
    hold, for some alias or noun of several words ("managed kubernetes"), its rarest word (by
    `frequency` in the knowledge), a provider noun or a renting word.
    """
    found: set[str] = {*terms["plural_nouns"], *terms["rent_words"]}
    phrases = [tuple(noun.split()) for noun in terms["provider_nouns"]]
    for key in [*alias_keys(catalogue, analyzer), *phrases]:
        found.add(min(key, key=lambda word: (frequency(word), word)))
    return sorted(found)


def attachment(root: Path, analyzer: Analyzer, frequency: Callable[[str], int]) -> dict[str, Any]:
    """What the search index carries for the catalogue: its records, question words and triggers.

    Problems of `providers.yaml` and of the lexicon's catalogue words ride along, so every command
    that opens the index reports them.
    """
    problems: list[Problem] = []
    catalogue = load_catalogue(root)
    terms = load_terms(root, problems)
    usable = bool(catalogue.providers) and terms is not None
    return {
        "providers": to_data(catalogue) if catalogue.providers else None,
        "catalogue_terms": terms,
        "catalogue_triggers": trigger_tokens(catalogue, terms, analyzer, frequency) if usable and terms else [],
        "problems": [[p.path, p.line, p.message, p.warning] for p in (*catalogue.problems, *problems)],
        # `providers.yaml`'s own, apart: `advisor providers` reports these, not the knowledge's.
        "catalogue_problems": [[p.path, p.line, p.message, p.warning] for p in catalogue.problems],
    }

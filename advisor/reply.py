"""Answers as data: what the CLI prints, `--json` emits and the TUI shows, built in one place."""

from __future__ import annotations


from advisor.search.index import EntryMeta, SearchIndex
from advisor.search.rank import Hit, Outcome

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (1.5 ms of `advisor ask`)
if TYPE_CHECKING:
    from typing import Any


def entry_body(meta: EntryMeta) -> str:
    """The Markdown body of an entry, read straight from its file (no YAML needed)."""
    from advisor.files import read_text
    from advisor.knowledge.body import body_of

    try:
        return body_of(read_text(meta.path))
    except ValueError:  # changed or removed since the index was built
        return meta.summary


def related_titles(index: SearchIndex, meta: EntryMeta) -> list[tuple[str, str]]:
    """(id, title) of each related entry that exists, in the entry's language when possible."""
    out: list[tuple[str, str]] = []
    for related in meta.related:
        found = index.entry_index(related, meta.lang)
        if found is not None:
            out.append((related, index.meta(found).title))
    return out


def hit_dict(index: SearchIndex, hit: Hit, *, with_answer: bool = True) -> dict[str, Any]:
    meta = index.meta(hit.entry)
    record: dict[str, Any] = {
        "id": meta.id,
        "title": meta.title,
        "lang": meta.lang,
        "score": hit.score,
        "summary": meta.summary,
    }
    if with_answer:
        record["answer"] = entry_body(meta)
    record["related"] = list(meta.related)
    record["sources"] = list(meta.sources)
    return record


def outcome_dict(index: SearchIndex, outcome: Outcome, top: int, *, explain: bool = False) -> dict[str, Any]:
    record: dict[str, Any] = {
        "query": outcome.query,
        "lang": outcome.lang or (index.meta(outcome.best.entry).lang if outcome.best else None),
        "answered": outcome.answered,
        "results": [hit_dict(index, hit) for hit in outcome.hits[:top]],
        "suggestions": [{"id": hit.topic, "title": index.meta(hit.entry).title} for hit in outcome.suggestions],
    }
    if outcome.truncated:
        record["truncated"] = True
    if explain:
        record["explain"] = explanation(outcome)
    return record


def explanation(outcome: Outcome) -> dict[str, Any]:
    from advisor.search.rank import AMBIGUITY_MARGIN, ANSWER_THRESHOLD

    best = outcome.best
    return {
        "normalized_query": outcome.normalized,
        "matched": best.matched if best else None,
        "field": best.field if best else None,
        "score": best.score if best else 0.0,
        "lexical": best.lexical if best else 0.0,
        "fuzzy": best.fuzzy if best else 0.0,
        "margin": round(outcome.margin, 1),
        "threshold": ANSWER_THRESHOLD,
        "ambiguity_margin": AMBIGUITY_MARGIN,
        "corrections": [list(pair) for pair in outcome.corrections],
    }

"""One call answers a question for every front end: `advisor ask`, `--json`, `--batch` and the chat.

`answer()` ranks the knowledge, reads the question against the provider catalogue, decides which
of the two answers (or neither), and returns a `Reply` of plain data. Front ends only lay it out:
the CLI prints it as text or JSON, the app shows it in a card. Nothing here imports Textual,
YAML or markdown-it, and the records are namedtuples rather than dataclasses: `advisor ask`
loads this module, and dataclasses would cost it more than the search (docs/architecture.md).
"""

from __future__ import annotations

import os
from collections import namedtuple
from typing import TYPE_CHECKING, Any

from advisor.search.index import EntryMeta, SearchIndex
from advisor.search.rank import AMBIGUITY_MARGIN, ANSWER_THRESHOLD, Outcome, detect_language, search

if TYPE_CHECKING:
    from advisor.catalogue.replies import ProviderAnswer

KNOWLEDGE, CATALOGUE, NONE = "knowledge", "catalogue", "none"


class Article(namedtuple("Article", ("id", "lang", "title", "summary", "body", "score", "path", "sources", "related", "wanted_lang"))):
    """What an answer shows, whichever domain gave it.

    Fields: `id` (an entry id, or a catalogue answer id such as `provider:gke`), `lang`, `title`,
    `summary` and `body` (Markdown), `score` (confidence 0-100, None when the user chose the
    entry), `path` (the knowledge file, "" for the catalogue), `sources` ((title, url) pairs), `related` ((id, title)
    pairs offered as follow-ups) and `wanted_lang` (the language asked for, when the entry had to
    fall back to another one).
    """

    __slots__ = ()

    @property
    def source(self) -> str:
        """The knowledge file as `lang/id.md`; "" for an answer from the catalogue."""
        if not self.path:
            return ""
        folder, name = os.path.split(self.path)
        return f"{os.path.basename(folder)}/{name}"


class Reply(namedtuple("Reply", ("question", "lang", "kind", "outcome", "article", "suggestions", "catalogue"))):
    """The answer to one question.

    Fields: `question` as asked, `lang` of the answer, `kind` (knowledge, catalogue or none),
    `outcome` (the knowledge ranking, always there), `article` (what to show; None when nothing
    answers), `suggestions` ((id, title) pairs to offer when nothing answers confidently) and
    `catalogue` (the `ProviderAnswer`, when the catalogue answered).
    """

    __slots__ = ()

    @property
    def answered(self) -> bool:
        return self.kind != NONE


def answer(index: SearchIndex, question: str, lang: str | None = None, *, default_lang: str | None = None, topic: str | None = None, limit: int = 5) -> Reply:
    """Answer `question` from the knowledge or the provider catalogue.

    Args:
        index: The index from `open_index`.
        question: What the user typed.
        lang: Forces the answer language; otherwise it is detected from the question.
        default_lang: The language to use when the question does not reveal one (the interface's).
        topic: An entry the user already chose for this question (a suggestion they picked): it
            is shown whatever ranks first, with the confidence the ranking gives it.
        limit: How many ranked entries to keep in `outcome`.
    """
    detected = lang or detect_language(index, question)
    outcome = search(index, question, lang=detected or default_lang, limit=max(limit, 3))
    answer_lang = detected or default_lang or _entry_lang(index, outcome)
    if topic is not None:
        entry = index.entry_index(topic, answer_lang)
        if entry is not None:
            score = next((hit.score for hit in outcome.hits if hit.topic == topic), None)
            return Reply(question, answer_lang, KNOWLEDGE, outcome, entry_article(index, entry, score, answer_lang), (), None)
    provided = _catalogue_answer(index, question, detected or default_lang)
    if provided is not None:
        see_also: tuple[tuple[str, str], ...] = ()
        if outcome.answered and outcome.best is not None:
            meta = index.meta(outcome.best.entry)
            see_also = ((meta.id, meta.title),)
        sources = tuple(("", url) for url in provided.sources)
        article = Article(provided.id, provided.lang, provided.title, provided.summary, provided.answer, None, "", sources, see_also, None)
        return Reply(question, answer_lang, CATALOGUE, outcome, article, (), provided)
    if outcome.answered and outcome.best is not None:
        article = entry_article(index, outcome.best.entry, outcome.best.score, answer_lang)
        return Reply(question, answer_lang, KNOWLEDGE, outcome, article, (), None)
    suggestions = tuple((hit.topic, index.meta(hit.entry).title) for hit in outcome.suggestions)
    return Reply(question, answer_lang, NONE, outcome, None, suggestions, None)


def _entry_lang(index: SearchIndex, outcome: Outcome) -> str:
    if outcome.best is not None:
        return str(index.meta(outcome.best.entry).lang)
    from advisor.i18n import default_language

    return default_language()


def _catalogue_answer(index: SearchIndex, question: str, lang: str | None) -> ProviderAnswer | None:
    """The catalogue's answer to a provider question ("does GKE support MIG"), else None.

    The catalogue package is imported only when the question holds one of the words every
    provider question needs (a provider's rarest alias word, or a word such as "provider"),
    which the index stores; most questions name no provider and skip it.
    """
    triggers = index.data.get("catalogue_triggers")
    if not triggers:
        return None
    from advisor.textnorm import tokens

    wanted = frozenset(triggers)
    if wanted.isdisjoint(index.analyzer.words(question)) and wanted.isdisjoint(tokens(question)):
        return None
    from advisor.catalogue.questions import read_question
    from advisor.catalogue.replies import answer_question

    parsed = read_question(index.data, index.analyzer, question)
    if parsed is None:
        return None
    if lang is None:
        from advisor.i18n import default_language

        lang = default_language()
    return answer_question(parsed, lang)


# ----------------------------------------------------------------------------- entries


def entry_body(meta: EntryMeta) -> str:
    """The Markdown body of an entry, read straight from its file (no YAML needed)."""
    from advisor.files import read_text
    from advisor.knowledge.body import body_of

    try:
        return body_of(read_text(meta.path))
    except ValueError:  # changed or removed since the index was built
        return str(meta.summary)


def related_titles(index: SearchIndex, meta: EntryMeta) -> list[tuple[str, str]]:
    """(id, title) of each related entry that exists, in the entry's language when possible."""
    out: list[tuple[str, str]] = []
    for related in meta.related:
        found = index.entry_index(related, meta.lang)
        if found is not None:
            out.append((related, index.meta(found).title))
    return out


def entry_article(index: SearchIndex, entry: int, score: float | None, wanted_lang: str | None = None) -> Article:
    """Entry number `entry` of `index` as an `Article`."""
    meta = index.meta(entry)
    return Article(
        meta.id,
        meta.lang,
        meta.title,
        meta.summary,
        entry_body(meta),
        score,
        meta.path,
        meta.sources,
        tuple(related_titles(index, meta)),
        wanted_lang if wanted_lang and wanted_lang != meta.lang else None,
    )


# ----------------------------------------------------------------------------- JSON


def reply_record(index: SearchIndex, reply: Reply, top: int, *, explain: bool = False) -> dict[str, Any]:
    """The documented `advisor ask --json` record: `results` rank knowledge entries; the reply's
    own choice is `reply` (kind and id); a catalogue answer rides beside in `catalogue`."""
    outcome = reply.outcome
    record: dict[str, Any] = {
        "query": outcome.query,
        "lang": reply.lang,
        "answered": reply.answered,
        "reply": {"kind": reply.kind, "id": reply.article.id if reply.article else None},
        "results": [hit_record(index, hit.entry, hit.score) for hit in outcome.hits[:top]],
        "suggestions": [{"id": entry_id, "title": title} for entry_id, title in reply.suggestions],
    }
    if reply.catalogue is not None:
        record["catalogue"] = reply.catalogue.record(explain=explain)
    if outcome.truncated:
        record["truncated"] = True
    if explain:
        record["explain"] = explanation(outcome)
    return record


def hit_record(index: SearchIndex, entry: int, score: float | None, *, with_answer: bool = True) -> dict[str, Any]:
    meta = index.meta(entry)
    record: dict[str, Any] = {"id": meta.id, "title": meta.title, "lang": meta.lang}
    if score is not None:
        record["score"] = score
    record["summary"] = meta.summary
    if with_answer:
        record["answer"] = entry_body(meta)
    record["related"] = list(meta.related)
    record["sources"] = [{"title": title, "url": url} for title, url in meta.sources]
    return record


def source_text(title: str, url: str) -> str:
    """A source on one line: its title and its address, or whichever it has."""
    return f"{title} — {url}" if title and url else title or url


def explanation(outcome: Outcome) -> dict[str, Any]:
    """Why the best entry ranked first and whether it cleared the bar: the `--explain` facts."""
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

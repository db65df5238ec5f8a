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

from advisor.search.index import EntryMeta, SearchIndex
from advisor.search.confidence import ANSWER_CONFIDENCE

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any

    from advisor.catalogue.replies import ProviderAnswer
    from advisor.decision.hints import Hints
    from advisor.search.rank import Outcome

KNOWLEDGE, CATALOGUE, NONE = "knowledge", "catalogue", "none"
# Entries ranked within this many points of the answer are named beside it ("also close"), and
# so are the two runners-up of an answer shown below this confidence: about one in three of
# those is wrong, and then the entry asked about is mostly among the two.
CLOSE_MARGIN = 12.0
CLOSE_CONFIDENCE = 70.0


class Section(namedtuple("Section", ("heading", "anchor", "text"))):
    """The `##` section of an entry that best answers the question: its `heading`, its link
    `anchor` and its Markdown `text`."""

    __slots__ = ()


class Article(namedtuple("Article", ("id", "lang", "title", "summary", "body", "score", "path", "sources", "related", "wanted_lang", "section"), defaults=(None,))):
    """What an answer shows, whichever domain gave it.

    Fields: `id` (an entry id, or a catalogue answer id such as `provider:gke`), `lang`, `title`,
    `summary` and `body` (Markdown), `score` (confidence 0-100, None when the user chose the
    entry), `path` (the knowledge file, "" for the catalogue), `sources` ((title, url) pairs), `related` ((id, title)
    pairs offered as follow-ups), `wanted_lang` (the language asked for, when the entry had to
    fall back to another one) and `section` (the `Section` that best answers the question, for
    an entry chosen by a question).
    """

    __slots__ = ()

    @property
    def source(self) -> str:
        """The knowledge file as `lang/id.md`; "" for an answer from the catalogue."""
        if not self.path:
            return ""
        folder, name = os.path.split(self.path)
        return f"{os.path.basename(folder)}/{name}"


class Reply(namedtuple("Reply", ("question", "lang", "kind", "outcome", "article", "suggestions", "catalogue", "log_line", "close"), defaults=(None, ()))):
    """The answer to one question.

    Fields: `question` as asked, `lang` of the answer, `kind` (knowledge, catalogue or none),
    `outcome` (the knowledge ranking, always there), `article` (what to show; None when nothing
    answers), `suggestions` ((id, title) pairs to offer when nothing answers confidently),
    `catalogue` (the `ProviderAnswer`, when the catalogue answered or its facts come beside the
    entry that did: see `aside`), `log_line` (for a
    pasted log, the `LogMatch` the answer rests on) and `close` ((id, title) pairs of the
    entries ranked nearly as high as the one shown, worth a look when it is not the one).
    """

    __slots__ = ()

    @property
    def answered(self) -> bool:
        return self.kind != NONE

    @property
    def aside(self) -> ProviderAnswer | None:
        """The provider facts shown after an entry's answer ("install the GPU Operator on EKS"):
        `catalogue` when an entry answers, None when the catalogue itself is the answer."""
        return self.catalogue if self.kind == KNOWLEDGE else None


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
    from advisor.search.language import detect_language
    from advisor.search.rank import search  # rapidfuzz: not for `advisor show`

    detected = lang or detect_language(index, question)
    outcome = search(index, question, lang=detected or default_lang, limit=max(limit, 3))
    answer_lang = detected or default_lang or _entry_lang(index, outcome)
    if topic is not None:
        entry = index.entry_index(topic, answer_lang)
        if entry is not None:
            score = outcome.confidence if outcome.best is not None and outcome.best.topic == topic else None
            article = answering_article(index, entry, score, answer_lang, outcome)
            return Reply(question, answer_lang, KNOWLEDGE, outcome, article, (), None)
    provided, defers = _catalogue_answer(index, question, detected or default_lang, entry_is_sure=outcome.answered)
    if provided is not None and defers and outcome.answered and outcome.best is not None:
        # "install the GPU Operator on EKS": the entry answers; the provider's facts come beside it.
        article = answering_article(index, outcome.best.entry, outcome.confidence, answer_lang, outcome)
        return Reply(question, answer_lang, KNOWLEDGE, outcome, article, (), provided)
    if provided is not None:
        see_also: tuple[tuple[str, str], ...] = ()
        if outcome.answered and outcome.best is not None:
            meta = index.meta(outcome.best.entry)
            see_also = ((meta.id, meta.title),)
        sources = tuple(("", url) for url in provided.sources)
        article = Article(provided.id, provided.lang, provided.title, provided.summary, provided.answer, None, "", sources, see_also, None)
        return Reply(question, answer_lang, CATALOGUE, outcome, article, (), provided)
    if outcome.answered and outcome.best is not None:
        article = answering_article(index, outcome.best.entry, outcome.confidence, answer_lang, outcome)
        return Reply(question, answer_lang, KNOWLEDGE, outcome, article, (), None, None, _close_entries(index, outcome))
    suggestions = tuple((hit.topic, index.meta(hit.entry).title) for hit in outcome.suggestions)
    return Reply(question, answer_lang, NONE, outcome, None, suggestions, None)


def unanswered_note(reply: Reply, lang: str) -> str:
    """Why a question of a word or two went unanswered, in `lang` ("" for any other reply): its
    suggestions are then only the entries that hold the word, so the user is asked for more."""
    held = reply.outcome.held_back
    if reply.article is not None or not held:
        return ""
    from advisor.i18n import t

    return t(f"no_answer_{held}", lang, words=reply.outcome.normalized)


def guide_command(given: tuple[tuple[str, str], ...]) -> str:
    """The command that starts the guide past the `given` answers."""
    return " ".join(["advisor guide", *(f"-a {key}={value}" for key, value in given)])


def wizard_answers(index: SearchIndex, reply: Reply, hints: Hints | None = None) -> tuple[tuple[str, str], ...] | None:
    """(key, value) of the guided wizard's questions that an answered question already settles
    ("k8s for 1 notebook?": workload=notebook), to go on to a recommendation from it; () when the
    answer offers the guide from its start ("nên dùng k8s không"); None when it offers no guide
    (`advisor.decision.hints`). `hints` are those of the tree in use, by default the bundled one's."""
    if reply.kind != KNOWLEDGE or reply.article is None or reply.log_line is not None:
        return None
    if hints is None:
        from advisor.library import tree_hints

        hints = tree_hints()
    entry_id = reply.article.id
    questions, offered_from = hints
    if entry_id not in offered_from and all(entry_id not in kb for _, _, kb, _ in questions):
        return None  # most answers: no phrase need be read, nor the module that reads them
    from advisor.decision.hints import offer

    return offer(hints, index.analyzer, reply.question, entry_id)


def _close_entries(index: SearchIndex, outcome: Outcome) -> tuple[tuple[str, str], ...]:
    """The runners-up within `CLOSE_MARGIN` of the answer, or both of them when it is unsure: on
    the real development questions, when the answer shown is not the labelled one, the labelled
    one is among these about half the time (26 of 50 on real-dev, 61 of 130 on real-check). The learned model's vote
    (`advisor.search.learned`) widens the gaps between the best entries: at 12 points as many
    runners-up are named as at 8 before it (0.77 an answer on real-check, against 0.80)."""
    best = outcome.hits[0]
    unsure = outcome.confidence < CLOSE_CONFIDENCE
    return tuple((hit.topic, index.meta(hit.entry).title) for hit in outcome.hits[1:3] if unsure or best.score - hit.score <= CLOSE_MARGIN)


def answer_paste(index: SearchIndex, text: str, lang: str | None = None, *, default_lang: str | None = None) -> Reply:
    """Answer a multi-line paste (a log, `kubectl describe` output) from the error lines it holds.

    The entry that lists the most telling error line answers, opened at its section about it, and
    the reply says which line matched; a paste with no known error line (or only known lines that
    report no failure beside one that does) is asked as a question, cut to its failing lines when
    it is too long to ask whole (`telling_part`).
    """
    from advisor.search.language import paste_language
    from advisor.search.logs import best_match, scan_log, telling_part

    lang = lang or paste_language(index, text)  # the asker's words, not the error line, say it
    match = best_match(scan_log(index, text), text)
    if match is None:
        from advisor.search.rank import MAX_QUERY_CHARS

        return answer(index, telling_part(text, MAX_QUERY_CHARS), lang, default_lang=default_lang)
    reply = answer(index, match.line, lang, default_lang=default_lang)
    if reply.kind != KNOWLEDGE or reply.article is None or reply.article.id not in reply.outcome.quoted:
        # Several entries may list the line; the ranking chose among them, unless it chose none.
        reply = answer(index, match.line, lang, default_lang=default_lang, topic=index.topics[match.topic])
    return reply._replace(log_line=match)


def _entry_lang(index: SearchIndex, outcome: Outcome) -> str:
    if outcome.best is not None:
        return str(index.meta(outcome.best.entry).lang)
    from advisor.i18n import default_language

    return default_language()


def _catalogue_answer(index: SearchIndex, question: str, lang: str | None, *, entry_is_sure: bool) -> tuple[ProviderAnswer | None, bool]:
    """The catalogue's answer to a provider question ("does GKE support MIG"), else None, and
    whether a confident entry should answer it instead (`ProviderQuestion.defers_to_knowledge`).

    A question that asks more than the provider's card explains ("azure portal dark mode", "AWS
    is too expensive, what alternatives") gets no card unless an entry is sure of it
    (`entry_is_sure`): alone, the card would answer something else. On real-dev every such
    catalogue answer was a miss. A question that names several providers ("should I use EKS or
    GKE") still gets their facts side by side.

    The catalogue package is imported only when the question holds one of the words every
    provider question needs (a provider's rarest alias word, or a word such as "provider"),
    which the index stores; most questions name no provider and skip it.
    """
    triggers = index.data.get("catalogue_triggers")
    if not triggers:
        return None, False
    from advisor.textnorm import tokens

    wanted = frozenset(triggers)
    if wanted.isdisjoint(index.analyzer.words(question)) and wanted.isdisjoint(tokens(question)):
        return None, False
    from advisor.catalogue.questions import read_question
    from advisor.catalogue.replies import answer_question

    parsed = read_question(index.data, index.analyzer, question)
    if parsed is None or (parsed.defers_to_knowledge and not entry_is_sure and not parsed.compares):
        return None, False
    if lang is None:
        from advisor.i18n import default_language

        lang = default_language()
    return answer_question(parsed, lang), parsed.defers_to_knowledge


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


def short_answer(article: Article) -> str:
    """What to show first: the entry's short answer and the one section that answers the
    question; the rest is a command or a key away, so an answer fits on a screen."""
    if not article.path:  # a catalogue answer is short already
        return str(article.body)
    from advisor.knowledge.body import opening

    text = opening(article.body)
    if article.section is not None:
        text += f"\n\n## {article.section.heading}\n\n{article.section.text}"
    return text


def answering_article(index: SearchIndex, entry: int, score: float | None, wanted_lang: str | None, outcome: Outcome) -> Article:
    """Entry number `entry` as an `Article`, with the section of its body that best answers the
    question of `outcome`."""
    from advisor.knowledge.body import anchor
    from advisor.search.sections import rank_sections

    article = entry_article(index, entry, score, wanted_lang)
    ranked = rank_sections(index, article.body, outcome.normalized.split(), index.section_words(entry))
    if not ranked:
        return article
    _, heading, text = ranked[0]
    return article._replace(section=Section(heading, anchor(heading), text))


# ----------------------------------------------------------------------------- JSON


def reply_record(index: SearchIndex, reply: Reply, top: int, *, explain: bool = False) -> dict[str, Any]:
    """The documented `advisor ask --json` record: `results` rank knowledge entries; the reply's
    own choice is `reply` (kind and id); a catalogue answer rides beside in `catalogue`."""
    outcome = reply.outcome
    record: dict[str, Any] = {
        "query": outcome.query,
        "lang": reply.lang,
        "answered": reply.answered,
        "confidence": outcome.confidence,
        "reply": _reply_record(reply),
        "results": [hit_record(index, hit.entry, hit.score) for hit in outcome.hits[:top]],
        "suggestions": [{"id": entry_id, "title": title} for entry_id, title in reply.suggestions],
        "close": [{"id": entry_id, "title": title} for entry_id, title in reply.close],
    }
    given = wizard_answers(index, reply)
    record["wizard"] = [{"key": key, "value": value} for key, value in given or ()]
    record["guide"] = None if given is None else guide_command(given)
    if reply.catalogue is not None:
        record["catalogue"] = reply.catalogue.record(explain=explain)
    if outcome.truncated:
        record["truncated"] = True
    if reply.log_line is not None:
        record["log_line"] = {"number": reply.log_line.number, "text": reply.log_line.line}
    if explain:
        record["explain"] = explanation(outcome)
    return record


def _reply_record(reply: Reply) -> dict[str, Any]:
    article = reply.article
    record: dict[str, Any] = {"kind": reply.kind, "id": article.id if article else None}
    if article is not None and article.section is not None:
        record["section"] = {"heading": article.section.heading, "anchor": article.section.anchor}
    return record


def hit_record(index: SearchIndex, entry: int, score: float | None, *, with_answer: bool = True) -> dict[str, Any]:
    meta = index.meta(entry)
    record: dict[str, Any] = {"id": meta.id, "title": meta.title, "lang": meta.lang, "topic": meta.topic}
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
        "likelihood": round(outcome.signals.likelihood, 2) if outcome.signals else 0.0,
        "margin": round(outcome.margin, 1),
        "confidence": outcome.confidence,
        "answer_confidence": ANSWER_CONFIDENCE,
        "quoted_errors": list(outcome.quoted),
        "corrections": [list(pair) for pair in outcome.corrections],
        "held_back": outcome.held_back,
    }

"""A provider question answered from the catalogue: facts with their source and date, as Markdown.

Three shapes: named providers (the facts asked about, else an overview), "which providers have
X" (the same ranking as `advisor providers --need X`) and "which providers offer which GPUs" (a
fact table). Every value says how it is known; an unknown is said as unknown, with the page to
check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor.catalogue.match import match
from advisor.catalogue.model import FACT_KEYS, Catalogue, Fact, Provider, ProviderMatch
from advisor.catalogue.questions import ProviderQuestion
from advisor.catalogue.wording import fact_label, need_label, note_text, reminder, source_line, value_text
from advisor.i18n import t


@dataclass(frozen=True)
class ProviderAnswer:
    """A catalogue answer: an id such as `provider:gke`, a title, a one-line summary and Markdown."""

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


def answer_question(question: ProviderQuestion, lang: str) -> ProviderAnswer | None:
    """The catalogue's answer to `question` in `lang`; None when the catalogue cannot answer it."""
    if not question.answerable:
        return None
    catalogue = question.catalogue
    if question.providers:
        return _about_providers(catalogue, question, lang)
    if question.needs:
        return _which_providers(catalogue, question, lang)
    return _fact_table(catalogue, question, lang)


def _fact_block(provider: Provider, fact: Fact, lang: str, *, detailed: bool) -> list[str]:
    """A list item: the value, then the detail and the source each on a line of its own (two
    trailing spaces are Markdown's line break, which the chat and the terminal both keep)."""
    lines = [f"- **{fact_label(fact.key, lang)}:** {value_text(fact, lang)}"]
    detail = fact.detail_in(lang)
    if detailed and detail:
        lines.append(f"  {detail}")
    lines.extend(f"  {line}" for line in _provenance(provider, fact, lang))
    return [line + "  " for line in lines[:-1]] + lines[-1:]


def _provenance(provider: Provider, fact: Fact, lang: str) -> list[str]:
    """The page a fact comes from and its date, or where to check an unknown."""
    if fact.source:
        return [source_line(fact.source, fact.source_date, fact.checked, lang)]
    if not fact.known:
        return [t("prov_unknown_check", lang, url=provider.docs_url or "?")]
    return [t("prov_as_of", lang, date=fact.checked)] if fact.checked else []


def _footer(lang: str, as_of: str | None) -> list[str]:
    return ["", f"_{reminder(lang, as_of)}_"]


def _comparison(providers: list[Provider], keys: list[str], lang: str) -> list[str]:
    """Several providers side by side: one row per fact, one column per provider."""
    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")

    rows = [
        "| " + " | ".join([t("prov_compare_fact", lang), *(cell(p.label) for p in providers)]) + " |",
        "|" + "---|" * (len(providers) + 1),
    ]
    for key in keys:
        rows.append("| " + " | ".join([fact_label(key, lang), *(cell(value_text(p.fact(key), lang)) for p in providers)]) + " |")
    for provider in providers:
        rows.extend(["", f"**{provider.name}**"])
        rows.extend(_cited_pages(provider, keys, lang))
    return rows


def _cited_pages(provider: Provider, keys: list[str], lang: str) -> list[str]:
    """One line per page a provider's facts cite, naming the facts it backs: in a comparison the
    same page often backs several, and a line a fact repeated its provider's name and its page."""
    pages: dict[str, list[str]] = {}
    for key in keys:
        fact = provider.fact(key)
        if fact.source:
            line = source_line(fact.source, fact.source_date, fact.checked, lang)
            pages.setdefault(line, []).append(fact_label(key, lang))
    return [f"- {', '.join(labels)}: {line}" for line, labels in pages.items()]


def _about_providers(catalogue: Catalogue, question: ProviderQuestion, lang: str) -> ProviderAnswer:
    """One or more named providers: the facts asked about with detail, else an overview."""
    providers = [p for p in (catalogue.get(pid) for pid in question.providers) if p is not None]
    keys = [key for key in FACT_KEYS if key in question.facts] or list(FACT_KEYS)
    detailed = bool(question.facts)
    body: list[str] = _comparison(providers, keys, lang) if len(providers) > 1 else []
    sources: list[str] = []
    summary: list[str] = []
    for provider in providers:
        for key in keys:
            fact = provider.fact(key)
            if len(providers) == 1:
                body.extend(_fact_block(provider, fact, lang, detailed=detailed))
            cited = fact.source or (None if fact.known else provider.docs_url)  # an unknown points to the docs
            if cited and cited not in sources:
                sources.append(cited)
        notes = provider.notes_in(lang)
        if not detailed and notes and len(providers) == 1:
            body.append("")
            body.append(f"**{t('prov_notes', lang)}:**")
            body.extend(f"- {note}" for note in notes)
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


def _which_providers(catalogue: Catalogue, question: ProviderQuestion, lang: str) -> ProviderAnswer:
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


def _fact_table(catalogue: Catalogue, question: ProviderQuestion, lang: str) -> ProviderAnswer:
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

"""A recommendation as Markdown.

Text from the tree or the knowledge base is data, never markup: `md_text` neutralises anything
that could start a heading, list, table cell, code span or HTML tag.
"""

from __future__ import annotations

import re

from advisor.export.view import AnswerView, ProvidersView, RecommendationView, because_text
from advisor.i18n import t

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#~])")
_MD_ORDERED = re.compile(r"^(\d+)([.)])")


def md_text(text: str) -> str:
    """Inline Markdown for untrusted text: one line, no markup, no raw HTML.

    Newlines are folded (so nothing can start a heading, list or table row), HTML is entity-encoded
    and every character with inline meaning is backslash-escaped, as is a leading list marker.
    """
    text = " ".join(str(text).split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    if text[:1] in ("-", "+"):
        text = "\\" + text
    return _MD_ORDERED.sub(r"\1\\\2", text)


def md_code(text: str) -> str:
    """A code span for identifiers; backticks cannot occur in validated ids but are removed anyway."""
    return "`" + str(text).replace("`", "").replace("\n", " ") + "`"


def _because(view: RecommendationView, answers: tuple[AnswerView, ...]) -> str:
    assumed = f" ({md_text(view.word('assumed'))})"
    return "; ".join(md_text(text) + (assumed if is_assumed else "") for text, is_assumed in because_text(view, answers))


def _refs(ids: tuple[str, ...]) -> str:
    return ", ".join(md_code(f"advisor show {kb_id}") for kb_id in ids)


def _answer_code(answer: AnswerView) -> str:
    return md_code(f"{answer.key}={answer.value}")


def render_markdown(view: RecommendationView) -> str:
    word = view.word
    out: list[str] = [f"# {md_text(view.title)}", ""]

    out += [f"## {md_text(word('recommendation'))}", ""]
    out.append(f"- **{md_text(word('deployment'))}:** {md_text(view.deployment_label)} ({md_code(view.deployment)})")
    if view.card:
        out.append(f"- **{md_text(word('card'))}:** {md_text(view.card[1])} ({md_code(view.card[0])})")
    if view.sharing:
        modes = ", ".join(f"{md_text(label)} ({md_code(mode)})" for mode, label in view.sharing)
    else:
        modes = md_text(word("whole_gpus"))
    out += [f"- **{md_text(word('gpu_sharing'))}:** {modes}", ""]

    out += [f"## {md_text(word('reasons'))}", ""]
    for index, point in enumerate(view.points):
        if index == 0 or view.points[index - 1].topic != point.topic:
            out += [f"### {md_text(point.topic_label)}", ""]
        out.append(f"- {md_text(point.text)}")
        out.append(f"  - {md_text(word('because'))}: {_because(view, point.because)}")
        if point.kb:
            out.append(f"  - {md_text(word('read_more'))}: {_refs(point.kb)}")
        if index + 1 == len(view.points) or view.points[index + 1].topic != point.topic:
            out.append("")

    if view.checklist:
        out += [f"## {md_text(word('checklist'))}", ""]
        for item in view.checklist:
            refs = f" ({_refs(item.kb)})" if item.kb else ""
            out.append(f"- [ ] {md_text(item.text)}{refs}")
        out.append("")

    if view.assumptions:
        out += [f"## {md_text(word('assumptions'))}", "", md_text(word("assumptions_note")), ""]
        for answer in view.assumptions:
            out.append(f"- {md_text(answer.title)}: {md_text(answer.label)} ({_answer_code(answer)})")
        out.append("")

    out += [f"## {md_text(word('answers'))}", ""]
    out += [f"| {md_text(word('question'))} | {md_text(word('answer'))} |", "|---|---|"]
    for answer in view.answers:
        note = f" *{md_text(word('assumed'))}*" if answer.assumed else ""
        out.append(f"| {md_text(answer.question)} | {md_text(answer.label)} ({_answer_code(answer)}){note} |")
    out.append("")

    if view.providers is not None:
        out += _providers(view.providers, view.lang)

    out += [f"## {md_text(word('decision_path'))}", ""]
    for number, answer in enumerate(view.answers, start=1):
        out.append(f"{number}. {md_text(answer.title)} → {md_text(answer.label)}")
    out += [f"{len(view.answers) + 1}. **{md_text(word('outcome'))}:** {md_text(view.deployment_label)}", ""]

    if view.kb:
        out += [f"## {md_text(word('read_more'))}", ""]
        for kb_id, title in view.kb:
            shown = f"{md_text(title)}: " if title else ""
            out.append(f"- {shown}{md_code(f'advisor show {kb_id}')}")
        out.append("")

    out += ["---", "", f"*{md_text(word('generated_by'))}: {md_code(view.tree_id)}*", ""]
    return "\n".join(out)


def _providers(providers: ProvidersView, lang: str) -> list[str]:
    out = [f"## {md_text(t('prov_fit_heading', lang))}", ""]
    if not providers.needs:
        return out + [md_text(providers.none_needed(lang)), ""]
    out += [md_text(t("prov_fit_needs", lang, needs=providers.needs_text)), ""]
    if not providers.providers:
        out.append(md_text(t("prov_none_fit", lang)))
    for found in providers.providers:
        note = providers.card_note(found, lang)
        out.append(f"- **{md_text(found.name)}** ({md_code(found.id)}): {md_text(found.status_text)}" + (f" · {md_text(note)}" if note else ""))
        for check in found.verify:
            link = f" <{check.link}>" if check.link and not re.search(r"[\s<>]", check.link) else ""
            out.append(f"  - {md_text(t('prov_verify_item', lang, what=check.need_text, url=''))}{link}".rstrip())
    return out + ["", f"*{md_text(providers.reminder)}*", ""]

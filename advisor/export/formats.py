"""Recommendations as shareable files: Markdown, JSON and a self-contained printable HTML page.

`render()` turns a recommendation into text in one language; the CLI, the guide and the TUI all
call it and write with `advisor.files.atomic_write`, so every front end exports the same thing. Text from the tree or the knowledge base is data, never markup: Markdown output neutralises
anything that could start a heading, list, table cell, code span or HTML tag, and HTML output
passes every value through `html.escape`.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from advisor.decision.recommend import Recommendation
from advisor.decision.session import Answer
from advisor.decision.tree import Node, Tree

EXPORT_SCHEMA = 1
FORMATS: tuple[str, ...] = ("md", "json", "html")


# ----------------------------------------------------------------------------- record


def _answer_label(rec: Recommendation, answer: Answer, lang: str) -> str:
    question = rec.tree.question(answer.key)
    option = question.option(answer.value) if question else None
    return option.label.get(lang) if option else answer.value


def _question_text(rec: Recommendation, key: str, lang: str) -> str:
    question = rec.tree.question(key)
    return question.text.get(lang) if question else key


def _question_title(rec: Recommendation, key: str, lang: str) -> str:
    question = rec.tree.question(key)
    return question.title.get(lang) if question else key


def record(rec: Recommendation, lang: str) -> dict[str, Any]:
    """The documented JSON shape (schema 1) of a recommendation in `lang`."""
    tree = rec.tree
    return {
        "schema": EXPORT_SCHEMA,
        "tree": tree.id,
        "lang": lang,
        "answers": [
            {
                "key": answer.key,
                "question": _question_text(rec, answer.key, lang),
                "value": answer.value,
                "label": _answer_label(rec, answer, lang),
                "assumed": answer.assumed,
            }
            for answer in rec.answers
        ],
        "recommendation": {
            "deployment": rec.deployment,
            "deployment_label": tree.choice_label(tree.deployments, rec.deployment, lang),
            "gpu_sharing": list(rec.gpu_sharing),
            "points": [
                {
                    "text": point.text.get(lang),
                    "because": [f"{answer.key}={answer.value}" for answer in point.because],
                    "kb": list(point.kb),
                    "topic": point.topic,
                    "rule": point.rule,
                }
                for point in rec.points
            ],
            "checklist": [{"id": item.id, "text": item.text.get(lang), "kb": list(item.kb)} for item in rec.checklist],
            "kb": list(rec.kb),
            "assumptions": [answer.key for answer in rec.assumptions],
        },
    }


def render(rec: Recommendation, fmt: str, lang: str, titles: Mapping[str, str] | None = None, providers: Mapping[str, Any] | None = None) -> str:
    """The recommendation as `fmt` (md, json or html) in `lang`.

    `titles` names knowledge ids; `providers` is `advisor.catalogue.model.fit_summary()` output, shown
    as a "providers that fit" section when given.
    """
    if fmt == "json":
        data = record(rec, lang)
        if providers is not None:
            data["providers"] = dict(providers)
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if fmt == "md":
        return _markdown(rec, lang, titles or {}, providers)
    if fmt == "html":
        return _html(rec, lang, titles or {}, providers)
    raise ValueError(f"unknown export format '{fmt}' (formats: {', '.join(FORMATS)})")


def knowledge_titles(rec: Recommendation, lang: str, index: Any) -> dict[str, str]:
    """Knowledge id -> entry title (in `lang` when it exists) for the ids `rec` cites, from a
    loaded `SearchIndex` (the app passes the one it already has)."""
    titles: dict[str, str] = {}
    for kb_id in rec.kb:
        entry = index.entry_index(kb_id, lang)
        if entry is not None:
            titles[kb_id] = index.meta(entry).title
    return titles


def providers_that_fit(rec: Recommendation, lang: str, kb_root: Path) -> dict[str, Any] | None:
    """`advisor.catalogue.model.fit_summary()` for `rec`; None when the folder has no catalogue."""
    from advisor.problems import DataError
    from advisor.catalogue.model import CATALOGUE_FILE, fit_summary, load_catalogue

    if not (kb_root / CATALOGUE_FILE).is_file():
        return None
    try:
        return fit_summary(load_catalogue(kb_root), record(rec, lang), lang)
    except (DataError, OSError, ValueError):  # the advice stands without the provider list
        return None


def render_for(rec: Recommendation, fmt: str, lang: str, kb_root: Path) -> str:
    """`render()` with the titles and providers of the knowledge folder: what every front end exports.

    Titles are decoration: a missing or broken knowledge folder leaves the export naming ids only.
    """
    from advisor.search.index import load_index

    titles: dict[str, str] = {}
    if kb_root.is_dir():
        try:
            titles = knowledge_titles(rec, lang, load_index(kb_root))
        except (OSError, ValueError):
            pass
    return render(rec, fmt, lang, titles, providers_that_fit(rec, lang, kb_root))


# ----------------------------------------------------------------------------- markdown

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


def _because_md(rec: Recommendation, answers: tuple[Answer, ...], lang: str) -> str:
    if not answers:
        return md_text(rec.tree.label("always", lang))
    parts = []
    for answer in answers:
        part = f"{md_text(_question_title(rec, answer.key, lang))}: {md_text(_answer_label(rec, answer, lang))}"
        if answer.assumed:
            part += f" ({md_text(rec.tree.label('assumed', lang))})"
        parts.append(part)
    return "; ".join(parts)


def _kb_refs_md(ids: tuple[str, ...]) -> str:
    return ", ".join(md_code(f"advisor show {kb_id}") for kb_id in ids)


def _markdown(rec: Recommendation, lang: str, titles: Mapping[str, str], providers: Mapping[str, Any] | None = None) -> str:
    tree = rec.tree
    label = tree.label
    out: list[str] = [f"# {md_text(tree.title.get(lang))}", ""]

    out += [f"## {md_text(label('recommendation', lang))}", ""]
    deployment = tree.choice_label(tree.deployments, rec.deployment, lang)
    out.append(f"- **{md_text(label('deployment', lang))}:** {md_text(deployment)} ({md_code(rec.deployment)})")
    if rec.gpu_sharing:
        modes = ", ".join(f"{md_text(tree.choice_label(tree.sharing_modes, mode, lang))} ({md_code(mode)})" for mode in rec.gpu_sharing)
    else:
        modes = md_text(label("whole_gpus", lang))
    out += [f"- **{md_text(label('gpu_sharing', lang))}:** {modes}", ""]

    out += [f"## {md_text(label('reasons', lang))}", ""]
    for index, point in enumerate(rec.points):
        if index == 0 or rec.points[index - 1].topic != point.topic:
            out += [f"### {md_text(tree.choice_label(tree.topics, point.topic, lang))}", ""]
        out.append(f"- {md_text(point.text.get(lang))}")
        out.append(f"  - {md_text(label('because', lang))}: {_because_md(rec, point.because, lang)}")
        if point.kb:
            out.append(f"  - {md_text(label('read_more', lang))}: {_kb_refs_md(point.kb)}")
        if index + 1 == len(rec.points) or rec.points[index + 1].topic != point.topic:
            out.append("")

    if rec.checklist:
        out += [f"## {md_text(label('checklist', lang))}", ""]
        for item in rec.checklist:
            refs = f" ({_kb_refs_md(item.kb)})" if item.kb else ""
            out.append(f"- [ ] {md_text(item.text.get(lang))}{refs}")
        out.append("")

    if rec.assumptions:
        out += [f"## {md_text(label('assumptions', lang))}", "", md_text(label("assumptions_note", lang)), ""]
        for answer in rec.assumptions:
            out.append(f"- {md_text(_question_title(rec, answer.key, lang))}: {md_text(_answer_label(rec, answer, lang))} ({md_code(f'{answer.key}={answer.value}')})")
        out.append("")

    out += [f"## {md_text(label('answers', lang))}", ""]
    out += [f"| {md_text(label('question', lang))} | {md_text(label('answer', lang))} |", "|---|---|"]
    for answer in rec.answers:
        note = f" *{md_text(label('assumed', lang))}*" if answer.assumed else ""
        out.append(
            f"| {md_text(_question_text(rec, answer.key, lang))} | {md_text(_answer_label(rec, answer, lang))} "
            f"({md_code(f'{answer.key}={answer.value}')}){note} |"
        )
    out.append("")

    if providers is not None:
        out += _providers_md(providers, lang)

    out += [f"## {md_text(label('decision_path', lang))}", ""]
    for number, answer in enumerate(rec.answers, start=1):
        out.append(f"{number}. {md_text(_question_title(rec, answer.key, lang))} → {md_text(_answer_label(rec, answer, lang))}")
    out += [f"{len(rec.answers) + 1}. **{md_text(label('outcome', lang))}:** {md_text(deployment)}", ""]

    if rec.kb:
        out += [f"## {md_text(label('read_more', lang))}", ""]
        for kb_id in rec.kb:
            title = f" {md_text(titles[kb_id])}:" if titles.get(kb_id) else ""
            path = f"knowledge/{lang}/{kb_id}.md"
            out.append(f"- {md_code(kb_id)}{title} {md_code(f'advisor show {kb_id}')}, [{md_text(path)}]({path})")
        out.append("")

    out += ["---", "", f"*{md_text(label('generated_by', lang))}: {md_code(tree.id)}*", ""]
    return "\n".join(out)


def _providers_md(providers: Mapping[str, Any], lang: str) -> list[str]:
    from advisor.i18n import t

    out = [f"## {md_text(t('prov_fit_heading', lang))}", ""]
    if not providers["needs"]:
        return out + [md_text(t("prov_fit_none_needed", lang)), ""]
    out += [md_text(t("prov_fit_needs", lang, needs=providers["needs_text"])), ""]
    if not providers["providers"]:
        out.append(md_text(t("prov_none_fit", lang)))
    for found in providers["providers"]:
        out.append(f"- **{md_text(found['name'])}** ({md_code(found['id'])}): {md_text(found['status_text'])}")
        for check in found["verify"]:
            link = f" <{check['link']}>" if check["link"] and not re.search(r"[\s<>]", check["link"]) else ""
            out.append(f"  - {md_text(t('prov_verify_item', lang, what=check['need_text'], url=''))}{link}".rstrip())
    return out + ["", f"*{md_text(providers['reminder'])}*", ""]


# ----------------------------------------------------------------------------- html

_CSS = """
:root { --ink: #1d2733; --muted: #5b6776; --line: #33506e; --soft: #eef3f8; --warn: #8a5a00; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--ink); margin: 0; }
main { max-width: 52rem; margin: 0 auto; padding: 2rem 1.25rem 3rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .6rem; border-bottom: 1px solid #d5dde6; padding-bottom: .2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em; background: var(--soft); padding: 0 .25em; border-radius: 3px; }
.summary { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; background: var(--soft); padding: .8rem 1rem; border-radius: 8px; }
.summary dt { font-weight: 600; }
.summary dd { margin: 0; }
.flow { list-style: none; padding: 0; margin: 1rem 0; display: flex; flex-direction: column; align-items: center; }
.flow li { position: relative; width: min(30rem, 100%); border: 2px solid var(--line); border-radius: 8px; padding: .35rem .8rem; text-align: center; background: #fff; }
.flow li + li { margin-top: 1.6rem; }
.flow li + li::before { content: ""; position: absolute; left: 50%; top: -1.6rem; height: calc(1.6rem - 6px); border-left: 2px solid var(--line); }
.flow li + li::after { content: ""; position: absolute; left: calc(50% - 6px); top: -8px; border: 6px solid transparent; border-top: 7px solid var(--line); border-bottom: 0; }
.flow .q { display: block; font-size: .8rem; color: var(--muted); }
.flow .a { font-weight: 600; }
.flow .assumed { border-style: dashed; }
.flow .outcome { background: var(--line); color: #fff; }
.flow .outcome .q { color: #dbe6f1; }
.tag { font-size: .75rem; color: var(--warn); font-weight: 600; }
.points li { margin-bottom: .7rem; }
.because, .refs { font-size: .85rem; color: var(--muted); margin: .15rem 0 0; }
.checklist { list-style: none; padding-left: 0; }
.checklist li { padding-left: 1.6rem; position: relative; margin-bottom: .45rem; }
.checklist li::before { content: ""; position: absolute; left: 0; top: .2rem; width: .95rem; height: .95rem; border: 1.5px solid var(--line); border-radius: 2px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid #d5dde6; padding: .35rem .5rem; }
footer { margin-top: 2.5rem; font-size: .8rem; color: var(--muted); }
@media print {
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; }
  .flow li, .points li, .checklist li, tr { break-inside: avoid; }
  .flow .outcome { background: #fff; color: var(--ink); border-width: 3px; }
  .flow .outcome .q { color: var(--muted); }
}
"""


def _html(rec: Recommendation, lang: str, titles: Mapping[str, str], providers: Mapping[str, Any] | None = None) -> str:
    tree = rec.tree

    def e(value: object) -> str:
        return html.escape(str(value), quote=True)

    def label(key: str) -> str:
        return e(tree.label(key, lang))

    deployment = tree.choice_label(tree.deployments, rec.deployment, lang)
    if rec.gpu_sharing:
        sharing = ", ".join(f"{e(tree.choice_label(tree.sharing_modes, mode, lang))} <code>{e(mode)}</code>" for mode in rec.gpu_sharing)
    else:
        sharing = label("whole_gpus")

    def refs(ids: tuple[str, ...]) -> str:
        return ", ".join(f"<code>advisor show {e(kb_id)}</code>" for kb_id in ids)

    body: list[str] = [f"<h1>{e(tree.title.get(lang))}</h1>"]
    body += [
        f'<section><h2>{label("recommendation")}</h2><dl class="summary">',
        f"<dt>{label('deployment')}</dt><dd>{e(deployment)} <code>{e(rec.deployment)}</code></dd>",
        f"<dt>{label('gpu_sharing')}</dt><dd>{sharing}</dd>",
        "</dl></section>",
    ]

    flow = [f'<section><h2>{label("decision_path")}</h2><ol class="flow">']
    for answer in rec.answers:
        css = ' class="assumed"' if answer.assumed else ""
        tag = f' <span class="tag">({label("assumed")})</span>' if answer.assumed else ""
        flow.append(
            f'<li{css}><span class="q">{e(_question_title(rec, answer.key, lang))}</span>'
            f'<span class="a">{e(_answer_label(rec, answer, lang))}</span>{tag}</li>'
        )
    flow.append(f'<li class="outcome"><span class="q">{label("outcome")}</span><span class="a">{e(deployment)}</span></li>')
    flow.append("</ol></section>")
    body += flow

    body.append(f'<section><h2>{label("reasons")}</h2>')
    topic = None
    for point in rec.points:
        if point.topic != topic:
            if topic is not None:
                body.append("</ul>")
            topic = point.topic
            body.append(f'<h3>{e(tree.choice_label(tree.topics, topic, lang))}</h3><ul class="points">')
        if point.because:
            reasons = "; ".join(
                f"{e(_question_title(rec, a.key, lang))}: {e(_answer_label(rec, a, lang))}"
                + (f' <span class="tag">({label("assumed")})</span>' if a.assumed else "")
                for a in point.because
            )
        else:
            reasons = label("always")
        item = f'<li><p>{e(point.text.get(lang))}</p><p class="because">{label("because")}: {reasons}</p>'
        if point.kb:
            item += f'<p class="refs">{label("read_more")}: {refs(point.kb)}</p>'
        body.append(item + "</li>")
    if topic is not None:
        body.append("</ul>")
    body.append("</section>")

    if rec.checklist:
        body.append(f'<section><h2>{label("checklist")}</h2><ul class="checklist">')
        for check in rec.checklist:
            extra = f' <span class="refs">({refs(check.kb)})</span>' if check.kb else ""
            body.append(f"<li>{e(check.text.get(lang))}{extra}</li>")
        body.append("</ul></section>")

    if rec.assumptions:
        body.append(f'<section><h2>{label("assumptions")}</h2><p>{label("assumptions_note")}</p><ul>')
        for answer in rec.assumptions:
            body.append(
                f"<li>{e(_question_title(rec, answer.key, lang))}: {e(_answer_label(rec, answer, lang))} "
                f"<code>{e(answer.key)}={e(answer.value)}</code></li>"
            )
        body.append("</ul></section>")

    if providers is not None:
        body += _providers_html(providers, lang, e)

    body.append(f'<section><h2>{label("answers")}</h2><table><thead><tr><th>{label("question")}</th><th>{label("answer")}</th></tr></thead><tbody>')
    for answer in rec.answers:
        tag = f' <span class="tag">({label("assumed")})</span>' if answer.assumed else ""
        body.append(
            f"<tr><td>{e(_question_text(rec, answer.key, lang))}</td><td>{e(_answer_label(rec, answer, lang))} "
            f"<code>{e(answer.key)}={e(answer.value)}</code>{tag}</td></tr>"
        )
    body.append("</tbody></table></section>")

    if rec.kb:
        body.append(f'<section><h2>{label("read_more")}</h2><ul>')
        for kb_id in rec.kb:
            title = f" {e(titles[kb_id])}:" if titles.get(kb_id) else ""
            body.append(f"<li><code>{e(kb_id)}</code>{title} <code>advisor show {e(kb_id)}</code>, <code>knowledge/{e(lang)}/{e(kb_id)}.md</code></li>")
        body.append("</ul></section>")

    body.append(f"<footer>{label('generated_by')}: <code>{e(tree.id)}</code></footer>")
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{e(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(tree.title.get(lang))}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )


def _providers_html(providers: Mapping[str, Any], lang: str, e: Any) -> list[str]:
    from advisor.i18n import t

    out = [f"<section><h2>{e(t('prov_fit_heading', lang))}</h2>"]
    if not providers["needs"]:
        return out + [f"<p>{e(t('prov_fit_none_needed', lang))}</p></section>"]
    out.append(f"<p>{e(t('prov_fit_needs', lang, needs=providers['needs_text']))}</p><ul>")
    if not providers["providers"]:
        out.append(f"<li>{e(t('prov_none_fit', lang))}</li>")
    for found in providers["providers"]:
        verify = "".join(
            f'<li>{e(t("prov_verify_item", lang, what=check["need_text"], url=""))} '
            + (f'<a href="{e(check["link"])}">{e(check["link"])}</a>' if check["link"] and check["link"].startswith(("https://", "http://")) else "")
            + "</li>"
            for check in found["verify"]
        )
        out.append(f"<li><strong>{e(found['name'])}</strong> <code>{e(found['id'])}</code>: {e(found['status_text'])}" + (f'<ul class="refs">{verify}</ul>' if verify else "") + "</li>")
    return out + [f'</ul><p class="because">{e(providers["reminder"])}</p></section>']


# ----------------------------------------------------------------------------- tree diagrams

DIAGRAM_FORMATS: tuple[str, ...] = ("mermaid", "dot", "text")


def _grouped_edges(node: Node) -> list[tuple[str, list[str]]]:
    """Edges of a node grouped by target, so answers leading to the same place share an arrow."""
    groups: dict[str, list[str]] = {}
    for edge in node.edges:
        groups.setdefault(edge.target, []).append(edge.value)
    return list(groups.items())


def _node_caption(tree: Tree, node: Node, lang: str) -> str:
    if node.outcome:
        return tree.label("outcome", lang)
    question = tree.question(node.ask or "")
    title = question.title.get(lang) if question else node.ask or node.id
    return f"{title} ({node.ask})"


def tree_diagram(tree: Tree, fmt: str, lang: str) -> str:
    """The flow of `tree` as Mermaid, Graphviz DOT or an indented text outline."""
    if fmt == "mermaid":
        return _mermaid(tree, lang)
    if fmt == "dot":
        return _dot(tree, lang)
    if fmt == "text":
        return _text_outline(tree, lang)
    raise ValueError(f"unknown diagram format '{fmt}' (formats: {', '.join(DIAGRAM_FORMATS)})")


def _mermaid_id(node_id: str) -> str:
    return "n_" + re.sub(r"[^A-Za-z0-9_]", "_", node_id)


def _mermaid_text(text: str) -> str:
    return " ".join(text.split()).replace('"', "#quot;")


def _mermaid(tree: Tree, lang: str) -> str:
    out = ["flowchart TD"]
    for node in tree.nodes:
        caption = _mermaid_text(_node_caption(tree, node, lang))
        shape = f'(["{caption}"])' if node.outcome else f'["{caption}"]'
        out.append(f"  {_mermaid_id(node.id)}{shape}")
    for node in tree.nodes:
        for target, values in _grouped_edges(node):
            arrow = "-->" if values == ["*"] else f'-->|"{_mermaid_text(", ".join(values))}"|'
            out.append(f"  {_mermaid_id(node.id)} {arrow} {_mermaid_id(target)}")
    return "\n".join(out) + "\n"


def _dot_text(text: str) -> str:
    return '"' + " ".join(text.split()).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dot(tree: Tree, lang: str) -> str:
    out = [f"digraph {_dot_text(tree.id)} {{", "  rankdir=TB;", '  node [shape=box, style=rounded, fontname="sans-serif"];']
    for node in tree.nodes:
        shape = ", shape=doubleoctagon" if node.outcome else ""
        out.append(f"  {_dot_text(node.id)} [label={_dot_text(_node_caption(tree, node, lang))}{shape}];")
    for node in tree.nodes:
        for target, values in _grouped_edges(node):
            label = "" if values == ["*"] else f" [label={_dot_text(', '.join(values))}]"
            out.append(f"  {_dot_text(node.id)} -> {_dot_text(target)}{label};")
    out.append("}")
    return "\n".join(out) + "\n"


def _text_outline(tree: Tree, lang: str) -> str:
    from advisor.textnorm import strip_terminal_escapes as clean

    out = [clean(tree.title.get(lang)), ""]
    for node in tree.nodes:
        out.append(f"[{node.id}] {clean(_node_caption(tree, node, lang))}")
        question = tree.question(node.ask or "")
        if question is not None:
            out.append(f"    {clean(question.text.get(lang))}")
        for target, values in _grouped_edges(node):
            out.append(f"    {', '.join(values)} → {target}")
    return "\n".join(out) + "\n"

"""A recommendation as a self-contained, printable HTML page: no scripts, every value escaped."""

from __future__ import annotations

import html
import os
from functools import lru_cache

from advisor.export.view import AnswerView, ProvidersView, RecommendationView, because_text
from advisor.i18n import t


def e(value: object) -> str:
    return html.escape(str(value), quote=True)


@lru_cache(maxsize=1)
def page_css() -> str:
    """The page's stylesheet (`page.css` beside this module, shipped in the wheel)."""
    with open(os.path.join(os.path.dirname(__file__), "page.css"), encoding="utf-8") as handle:
        return handle.read()


def _refs(ids: tuple[str, ...]) -> str:
    return ", ".join(f"<code>advisor show {e(kb_id)}</code>" for kb_id in ids)


def _assumed_tag(view: RecommendationView) -> str:
    return f' <span class="tag">({e(view.word("assumed"))})</span>'


def _because(view: RecommendationView, answers: tuple[AnswerView, ...]) -> str:
    return "; ".join(e(text) + (_assumed_tag(view) if assumed else "") for text, assumed in because_text(view, answers))


def render_html(view: RecommendationView) -> str:
    def word(key: str) -> str:
        return e(view.word(key))

    if view.sharing:
        sharing = ", ".join(f"{e(label)} <code>{e(mode)}</code>" for mode, label in view.sharing)
    else:
        sharing = word("whole_gpus")

    body: list[str] = [f"<h1>{e(view.title)}</h1>"]
    body += [
        f'<section><h2>{word("recommendation")}</h2><dl class="summary">',
        f"<dt>{word('deployment')}</dt><dd>{e(view.deployment_label)} <code>{e(view.deployment)}</code></dd>",
        *([f"<dt>{word('card')}</dt><dd>{e(view.card[1])} <code>{e(view.card[0])}</code></dd>"] if view.card else []),
        f"<dt>{word('gpu_sharing')}</dt><dd>{sharing}</dd>",
        "</dl></section>",
    ]

    body.append(f'<section><h2>{word("decision_path")}</h2><ol class="flow">')
    for answer in view.answers:
        css = ' class="assumed"' if answer.assumed else ""
        tag = _assumed_tag(view) if answer.assumed else ""
        body.append(f'<li{css}><span class="q">{e(answer.title)}</span><span class="a">{e(answer.label)}</span>{tag}</li>')
    body.append(f'<li class="outcome"><span class="q">{word("outcome")}</span><span class="a">{e(view.deployment_label)}</span></li>')
    body.append("</ol></section>")

    body.append(f'<section><h2>{word("reasons")}</h2>')
    topic = None
    for point in view.points:
        if point.topic != topic:
            if topic is not None:
                body.append("</ul>")
            topic = point.topic
            body.append(f'<h3>{e(point.topic_label)}</h3><ul class="points">')
        item = f'<li><p>{e(point.text)}</p><p class="because">{word("because")}: {_because(view, point.because)}</p>'
        if point.kb:
            item += f'<p class="refs">{word("read_more")}: {_refs(point.kb)}</p>'
        body.append(item + "</li>")
    if topic is not None:
        body.append("</ul>")
    body.append("</section>")

    if view.checklist:
        body.append(f'<section><h2>{word("checklist")}</h2><ul class="checklist">')
        for check in view.checklist:
            extra = f' <span class="refs">({_refs(check.kb)})</span>' if check.kb else ""
            body.append(f"<li>{e(check.text)}{extra}</li>")
        body.append("</ul></section>")

    if view.assumptions:
        body.append(f'<section><h2>{word("assumptions")}</h2><p>{word("assumptions_note")}</p><ul>')
        for answer in view.assumptions:
            body.append(f"<li>{e(answer.title)}: {e(answer.label)} <code>{e(answer.key)}={e(answer.value)}</code></li>")
        body.append("</ul></section>")

    if view.providers is not None:
        body += _providers(view.providers, view.lang)

    body.append(f'<section><h2>{word("answers")}</h2><table><thead><tr><th>{word("question")}</th><th>{word("answer")}</th></tr></thead><tbody>')
    for answer in view.answers:
        tag = _assumed_tag(view) if answer.assumed else ""
        body.append(f"<tr><td>{e(answer.question)}</td><td>{e(answer.label)} <code>{e(answer.key)}={e(answer.value)}</code>{tag}</td></tr>")
    body.append("</tbody></table></section>")

    if view.kb:
        body.append(f'<section><h2>{word("read_more")}</h2><ul>')
        for kb_id, title in view.kb:
            shown = f"{e(title)}: " if title else ""
            body.append(f"<li>{shown}<code>advisor show {e(kb_id)}</code></li>")
        body.append("</ul></section>")

    body.append(f"<footer>{word('generated_by')}: <code>{e(view.tree_id)}</code></footer>")
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{e(view.lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(view.title)}</title>\n<style>\n{page_css()}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )


def _providers(providers: ProvidersView, lang: str) -> list[str]:
    out = [f"<section><h2>{e(t('prov_fit_heading', lang))}</h2>"]
    if not providers.needs:
        return out + [f"<p>{e(providers.none_needed(lang))}</p></section>"]
    out.append(f"<p>{e(t('prov_fit_needs', lang, needs=providers.needs_text))}</p><ul>")
    if not providers.providers:
        out.append(f"<li>{e(t('prov_none_fit', lang))}</li>")
    for found in providers.providers:
        verify = "".join(
            f'<li>{e(t("prov_verify_item", lang, what=check.need_text, url=""))} '
            + (f'<a href="{e(check.link)}">{e(check.link)}</a>' if check.link and check.link.startswith(("https://", "http://")) else "")
            + "</li>"
            for check in found.verify
        )
        note = providers.card_note(found, lang)
        out.append(
            f"<li><strong>{e(found.name)}</strong> <code>{e(found.id)}</code>: {e(found.status_text)}"
            + (f" · {e(note)}" if note else "")
            + (f'<ul class="refs">{verify}</ul>' if verify else "")
            + "</li>"
        )
    return out + [f'</ul><p class="because">{e(providers.reminder)}</p></section>']

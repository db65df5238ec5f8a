"""Recommendations as shareable files: every export format, registered in one place.

`export_text()` is what every front end writes (`advisor recommend`, `advisor guide`, the app's
export dialog): the recommendation resolved into one view (`advisor.export.view`) with the
knowledge titles and the providers that fit, rendered by the format's renderer.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from advisor.export.view import RecommendationView, build_view
from advisor.textnorm import json_dumps

if TYPE_CHECKING:
    from advisor.catalogue.match import Fit
    from advisor.decision.recommend import Recommendation
    from advisor.search.index import SearchIndex


# A NamedTuple, not a dataclass: see `advisor.decision.tree`.
class Format(NamedTuple):
    """An export format: its name, the file suffixes that mean it, its label in the app, its renderer."""

    name: str
    suffixes: tuple[str, ...]
    label: str
    render: Callable[[RecommendationView], str]


def _render_json(view: RecommendationView) -> str:
    return json_dumps(view.record(), indent=2) + "\n"


# The other renderers are imported when used: markdown-it and the HTML page are not needed for JSON.
def _render_markdown(view: RecommendationView) -> str:
    from advisor.export.markdown import render_markdown

    return render_markdown(view)


def _render_html(view: RecommendationView) -> str:
    from advisor.export.html import render_html

    return render_html(view)


FORMATS: dict[str, Format] = {
    fmt.name: fmt
    for fmt in (
        Format("md", (".md", ".markdown"), "tui_export_markdown", _render_markdown),
        Format("html", (".html", ".htm"), "tui_export_html", _render_html),
        Format("json", (".json",), "tui_export_json", _render_json),
    )
}
DEFAULT_FORMAT = "md"


def format_for_path(path: str | os.PathLike[str]) -> str | None:
    """The format a file name's suffix asks for (`plan.html` -> html); None for any other suffix."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    return next((fmt.name for fmt in FORMATS.values() if suffix in fmt.suffixes), None)


def render(view: RecommendationView, fmt: str) -> str:
    """`view` as `fmt`; `ValueError` for a format not in `FORMATS`."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format '{fmt}' (formats: {', '.join(FORMATS)})")
    return FORMATS[fmt].render(view)


def knowledge_titles(rec: Recommendation, lang: str, index: SearchIndex) -> dict[str, str]:
    """Knowledge id -> entry title (in `lang` when it exists) for the ids `rec` cites."""
    titles: dict[str, str] = {}
    for kb_id in rec.kb:
        entry = index.entry_index(kb_id, lang)
        if entry is not None:
            titles[kb_id] = index.meta(entry).title
    return titles


def recommendation_view(rec: Recommendation, lang: str, index: SearchIndex | None, kb_root: str | os.PathLike[str] | None) -> RecommendationView:
    """`rec` in `lang` with the titles of `index` and the providers of `kb_root`'s catalogue.

    Both are decoration: without an index the view names ids only, and without a usable
    catalogue it lists no providers.
    """
    titles = knowledge_titles(rec, lang, index) if index is not None else {}
    return build_view(rec, lang, titles, _fit(rec, index, kb_root) if kb_root is not None else None)


def _fit(rec: Recommendation, index: SearchIndex | None, kb_root: str | os.PathLike[str]) -> Fit | None:
    """The providers that fit, from the catalogue the index carries (no YAML to read), else from
    `kb_root`'s file."""
    from advisor.catalogue.match import fit
    from advisor.catalogue.model import CATALOGUE_FILE
    from advisor.problems import DataError

    if not os.path.isfile(os.path.join(kb_root, CATALOGUE_FILE)):
        return None
    try:
        if index is not None:
            from advisor.library import catalogue_of

            return fit(catalogue_of(index), rec.needs, gpus=rec.card_models)
        from pathlib import Path

        from advisor.catalogue.load import load_catalogue

        return fit(load_catalogue(Path(kb_root)), rec.needs, gpus=rec.card_models)
    except (DataError, OSError, ValueError):  # the advice stands without the provider list
        return None


def export_text(rec: Recommendation, fmt: str, lang: str, index: SearchIndex | None, kb_root: str | os.PathLike[str] | None) -> str:
    """What every front end exports: `render()` of `recommendation_view()`."""
    return render(recommendation_view(rec, lang, index, kb_root), fmt)

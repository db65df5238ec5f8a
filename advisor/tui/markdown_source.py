"""An entry's sources as Markdown: a link for each source that has an address."""

from __future__ import annotations

from collections.abc import Iterable

from advisor.export.markdown import md_text
from advisor.textnorm import strip_terminal_escapes as clean


def markdown_source(title: str, url: str) -> str:
    """`[title](url)`, the bare address, or the title alone; the text can carry no markup."""
    url = clean(url)
    if url and " " not in url and ")" not in url:
        return f"[{md_text(clean(title) or url)}]({url})"
    return md_text(clean(title) or url)


def markdown_sources(sources: Iterable[tuple[str, str]]) -> str:
    """One paragraph with a line per source (hard line breaks), not a Markdown list: Textual makes
    three widgets of each list item, and the sources' were half the widgets of a chat answer."""
    return "\\\n".join(f"• {markdown_source(title, url)}" for title, url in sources)

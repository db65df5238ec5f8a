"""A knowledge source as one Markdown list item's text: a link when it has an address."""

from __future__ import annotations

from advisor.export.markdown import md_text
from advisor.textnorm import strip_terminal_escapes as clean


def markdown_source(title: str, url: str) -> str:
    """`[title](url)`, the bare address, or the title alone; the text can carry no markup."""
    url = clean(url)
    if url and " " not in url and ")" not in url:
        return f"[{md_text(clean(title) or url)}]({url})"
    return md_text(clean(title) or url)

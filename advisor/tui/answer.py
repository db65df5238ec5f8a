"""An answer as the chat shows it, built from the search index: plain data, no Textual."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from advisor.reply import entry_body, related_titles
from advisor.search.index import SearchIndex


@dataclass(frozen=True)
class Answer:
    """What an answer card shows.

    Attributes:
        topic: Entry id.
        lang: Language of the entry shown.
        title: Entry title.
        body: Entry body (Markdown).
        score: Search confidence 0-100, or None when the user chose the topic directly.
        source: The knowledge file the answer comes from, relative to the knowledge folder.
        sources: The entry's own references (URLs and seed notes).
        related: (id, title) of related entries, offered as follow-ups.
        wanted_lang: The language asked for, when the entry had to fall back to another one.
    """

    topic: str
    lang: str
    title: str
    body: str
    score: float | None
    source: str
    sources: tuple[str, ...]
    related: tuple[tuple[str, str], ...]
    wanted_lang: str | None = None

    @classmethod
    def from_entry(cls, index: SearchIndex, entry: int, score: float | None, wanted_lang: str | None = None) -> Answer:
        """The answer for entry number `entry` of `index`."""
        meta = index.meta(entry)
        path = Path(meta.path)
        return cls(
            topic=meta.id,
            lang=meta.lang,
            title=meta.title,
            body=entry_body(meta),
            score=score,
            source=f"{path.parent.name}/{path.name}",
            sources=meta.sources,
            related=tuple(related_titles(index, meta)),
            wanted_lang=wanted_lang if wanted_lang and wanted_lang != meta.lang else None,
        )

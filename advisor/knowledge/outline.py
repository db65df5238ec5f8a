"""What indexing needs of an entry's Markdown body: its short answer and its headings."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any


def outline(body: str) -> tuple[str, tuple[str, ...]]:
    """First paragraph (the short answer) and the section headings of a markdown body: read
    plainly when it is written plainly (`plain_outline`), else by the CommonMark parser."""
    plain = plain_outline(body)
    if plain is not None:
        return plain
    tokens = _block_parser().parse(body)
    summary = ""
    headings: list[str] = []
    for index, token in enumerate(tokens):
        if token.type == "paragraph_open" and not summary and token.level == 0:
            summary = " ".join(tokens[index + 1].content.split())
            if headings:  # a heading came first: the short answer is not first
                summary = ""
                break
        elif token.type == "heading_open":
            headings.append(tokens[index + 1].content.strip())
    return summary, tuple(headings)


@lru_cache(maxsize=1)
def _block_parser() -> Any:
    """One CommonMark parser for every entry (building one costs more than parsing an entry).

    Only block structure is needed: a paragraph's or heading's `content` is its raw inline
    source either way, so inline parsing is switched off (a third of the parse time).
    """
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable("inline")


_ATX = re.compile(r"(#{1,6})(?: (.*))?$")
_MARKER = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)])(?: |$)")
_ITEM = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)]) (?=[^ ])")
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)$")
_CLOSING = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*$")
# Lines the plain reading leaves to the CommonMark parser: indented or tab-holding lines, quotes,
# HTML, link definitions, thematic breaks and setext underlines.
_ELSEWHERE = re.compile(r"[ \t>\[<=]|[-*_](?: *[-*_]){2,} *$")


def plain_outline(body: str) -> tuple[str, tuple[str, ...]] | None:
    """The short answer and the headings of a body written plainly, or None for any other body.

    Indexing a large folder spent a third of its time in CommonMark parsing, only for these two
    things. Most bodies are plain: paragraphs, `#` headings, one-line list items and fenced code,
    a paragraph or a list ended by a blank line. For those, this reading gives exactly what the
    parser gives (a test compares the two on generated bodies); anything else returns None and
    goes to the parser. As the parser reads it, the short answer is the first top-level
    paragraph, or "" when a heading comes before it (the headings then stop there).
    """
    if "\r" in body or "\v" in body or "\f" in body or "\t" in body:
        return None
    headings: list[str] = []
    summary: str | None = None
    first: list[str] = []  # the first paragraph's lines while it is read
    previous = "blank"  # what the line before was: blank, paragraph, item, heading or fence
    fence = ""
    cut = -1  # headings kept, when one came before the first paragraph
    for line in body.split("\n"):
        if fence:
            closing = _CLOSING.match(line)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence, previous = "", "fence"
            continue
        if first and (previous != "paragraph" or not line.strip(" ") or not _is_paragraph_line(line)):
            summary, first = " ".join(" ".join(first).split()), []
        if not line.strip(" "):
            previous = "blank"
            continue
        if _ELSEWHERE.match(line):
            return None
        opened, heading = _FENCE.match(line), _ATX.match(line)
        if opened:
            if previous in ("paragraph", "item") or (opened.group(1)[0] == "`" and "`" in opened.group(2)):
                return None
            fence, previous = opened.group(1), "fence"
        elif heading:
            text = (heading.group(2) or "").strip(" ")
            if "#" in text:
                return None
            headings.append(text)
            previous = "heading"
        elif _MARKER.match(line):
            item = _ITEM.match(line)
            rest = line[item.end() :] if item else ""
            if not item or previous == "paragraph" or rest[0] in "#>`~<[" or _MARKER.match(rest) or _ELSEWHERE.match(rest):
                return None
            previous = "item"
        elif previous == "item":
            return None  # a lazy continuation of the item
        else:
            if previous == "paragraph":
                if first:
                    first.append(line)
            elif summary is None and cut < 0:
                if headings:  # a heading came first: no short answer, and no headings after it
                    cut = len(headings)
                else:
                    first = [line]
            previous = "paragraph"
    if first:
        summary = " ".join(" ".join(first).split())
    return (summary or "", tuple(headings)) if cut < 0 else ("", tuple(headings[:cut]))


def _is_paragraph_line(line: str) -> bool:
    return not (_ELSEWHERE.match(line) or _FENCE.match(line) or _ATX.match(line) or _MARKER.match(line))

"""Markdown laid out for a terminal with markdown-it-py: recommendations, guide results, entries.

`advisor recommend`, `advisor guide` and `advisor show` print Markdown with tables, nested lists,
task lists and links that the line-by-line layout of `Styler.markdown` (kept for `advisor ask`,
which must not pay markdown-it's import) does not understand. Here the Markdown is parsed, then
every block is laid out through a `Styler`: headings and bold styled, bullets as •, task items as
☐, code spans highlighted, links with their address dimmed, tables as aligned columns, and every
paragraph, list item and table cell wrapped at word boundaries to the Styler's width. With no
width, lines are left as long as written; with colour off, nothing but the layout changes.

Callers print the Markdown itself, not this, when standard output is not a terminal: scripts and
files get exactly what `--format md` promises.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from advisor.terminal import Styler
from advisor.textnorm import strip_terminal_escapes

# A run of text and the styles on it, innermost last: ("Because", ("bold",)).
Piece = tuple[str, tuple[str, ...]]
# A table column is never squeezed below this many cells (or its own width, when narrower).
MIN_COLUMN = 8
_COLUMN_GAP = " │ "
_TASK = re.compile(r"^\[([ xX])\] ")
# A code span this much narrower than the line is kept whole rather than broken at its spaces.
_CODE_SHARE = 2


def render_markdown(text: str, style: Styler) -> str:
    """`text` (Markdown) laid out for a terminal by `style`: styled, wrapped, tables aligned."""
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    root = SyntaxTreeNode(parser.parse(strip_terminal_escapes(text)))
    return "\n".join(_Layout(style).blocks(root.children, "")).rstrip() + "\n"


def cells(text: str) -> int:
    """How many terminal columns `text` takes: wide (CJK) characters two, combining marks none."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class _Layout:
    """Lays out block nodes as lines, each block's lines indented by the enclosing list items."""

    def __init__(self, style: Styler) -> None:
        self.style = style
        self.width = style.width

    # Blocks -----------------------------------------------------------------------------------

    def blocks(self, nodes: Iterable[SyntaxTreeNode], indent: str, tight: bool = False) -> list[str]:
        """Lines of `nodes` in order, a blank line between blocks (none inside a tight list)."""
        out: list[str] = []
        for node in nodes:
            lines = self.block(node, indent)
            if not lines:
                continue
            if out and not tight:
                out.append("")
            out.extend(lines)
        return out

    def block(self, node: SyntaxTreeNode, indent: str) -> list[str]:
        kind = node.type
        if kind == "heading":
            return self.heading(node, indent)
        if kind == "paragraph":
            return self.wrap(self.inline(node), indent, indent)
        if kind in ("bullet_list", "ordered_list"):
            return self.listing(node, indent)
        if kind == "table":
            return self.table(node, indent)
        if kind in ("fence", "code_block"):
            lines = node.content.rstrip("\n").split("\n")
            return [f"{indent}    {self.style.code(line)}" if self.style.color else f"{indent}    {line}" for line in lines]
        if kind == "hr":
            return [indent + self.style.dim("─" * min(self.width or 40, 40))]
        if kind == "blockquote":
            bar = self.style.dim("│") + " "
            return [bar + line if line else bar.rstrip() for line in self.blocks(node.children, "")]
        return [indent + line for line in node.content.rstrip("\n").split("\n")] if node.content else []

    def heading(self, node: SyntaxTreeNode, indent: str) -> list[str]:
        level = int(node.tag[1:])
        pieces = self.inline(node)
        if not self.style.color:  # no styles to tell a heading apart: keep its Markdown marks
            return self.wrap([("#" * level + " ", ()), *pieces], indent, indent)
        kind = "heading" if level <= 2 else "bold"
        return self.wrap([(text, (kind, *kinds)) for text, kinds in pieces], indent, indent)

    def listing(self, node: SyntaxTreeNode, indent: str) -> list[str]:
        ordered = node.type == "ordered_list"
        number = int(node.attrs.get("start", 1)) if ordered else 0
        tight = all(child.hidden for item in node.children for child in item.children if child.type == "paragraph")
        out: list[str] = []
        for item in node.children:
            marker = f"{number}. " if ordered else ("◦ " if indent else "• ") if self.style.color else "- "
            number += 1
            children = list(item.children)
            first = self._task_marker(children)
            marker = first or marker
            hanging = indent + " " * cells(marker)
            lines = self.blocks(children, hanging, tight)
            if lines:
                lines[0] = indent + marker + lines[0][len(hanging) :]
            else:
                lines = [indent + marker.rstrip()]
            if out and not tight:
                out.append("")
            out.extend(lines)
        return out

    def _task_marker(self, children: list[SyntaxTreeNode]) -> str | None:
        """☐ or ☑ for a task item ("- [ ] check the driver"), its "[ ]" taken off the text."""
        if not children or children[0].type != "paragraph" or not children[0].children:
            return None
        inline = children[0].children[0]
        token = inline.children[0].token if inline.children and inline.children[0].type == "text" else None
        found = _TASK.match(token.content) if token is not None else None
        if token is None or found is None:
            return None
        token.content = token.content[found.end() :]
        if not self.style.color:
            return f"- [{found.group(1)}] "
        return "☑ " if found.group(1) in "xX" else "☐ "

    # Tables -----------------------------------------------------------------------------------

    def table(self, node: SyntaxTreeNode, indent: str) -> list[str]:
        rows: list[list[list[Piece]]] = []
        for section in node.children:
            for tr in section.children:
                rows.append([self.inline(cell) for cell in tr.children])
        if not rows:
            return []
        count = max(len(row) for row in rows)
        rows = [row + [[] for _ in range(count - len(row))] for row in rows]
        widths = [max(cells(_plain(row[column])) for row in rows) for column in range(count)]
        if self.width is not None:
            widths = _fit(widths, self.width - cells(indent) - cells(_COLUMN_GAP) * (count - 1))
        gap = self.style.dim(_COLUMN_GAP)
        out: list[str] = []
        for number, row in enumerate(rows):
            if number == 0:  # the header
                row = [[(text, ("bold", *kinds)) for text, kinds in piece] for piece in row]
            wrapped = [self.wrap(pieces, "", "", widths[column], hard=True) for column, pieces in enumerate(row)]
            for line in range(max(len(cell) for cell in wrapped)):
                parts = []
                for column, cell in enumerate(wrapped):
                    text = cell[line] if line < len(cell) else ""
                    parts.append(text + " " * (widths[column] - cells(_visible(text))))
                out.append((indent + gap.join(parts)).rstrip())
            if number == 0:
                out.append(indent + self.style.dim("─┼─".join("─" * width for width in widths)))
        return out

    # Inline text ------------------------------------------------------------------------------

    def inline(self, node: SyntaxTreeNode) -> list[Piece]:
        """The inline content of a paragraph, heading or cell as styled pieces."""
        pieces: list[Piece] = []
        for child in node.children:
            self._inline(child, (), pieces)
        return pieces

    def _inline(self, node: SyntaxTreeNode, kinds: tuple[str, ...], out: list[Piece]) -> None:
        kind = node.type
        if kind in ("text", "html_inline"):
            out.append((node.content, kinds))
        elif kind == "code_inline":
            out.append((node.content, (*kinds, "code")))
        elif kind in ("softbreak", "hardbreak"):
            out.append(("\n" if kind == "hardbreak" else " ", kinds))
        elif kind == "link":
            href = str(node.attrs.get("href", ""))
            label = self._children(node, kinds)
            if node.markup == "autolink" or _plain(label) == href:
                out.append((href, (*kinds, "accent")))
            else:
                out.extend(label)
                out.append((f" ({href})", (*kinds, "dim")))
        elif kind == "image":
            out.append((f"[{node.content or node.attrs.get('alt', '')}]", (*kinds, "dim")))
        else:  # strong, em, and anything else that wraps other inline nodes
            extra = {"strong": ("bold",), "em": ("dim",)}.get(kind, ())
            for child in node.children:
                self._inline(child, (*kinds, *extra), out)

    def _children(self, node: SyntaxTreeNode, kinds: tuple[str, ...]) -> list[Piece]:
        found: list[Piece] = []
        for child in node.children:
            self._inline(child, kinds, found)
        return found

    def wrap(self, pieces: list[Piece], first: str, hanging: str, width: int | None = None, hard: bool = False) -> list[str]:
        """Styled lines of `pieces` at most `width` cells wide (the Styler's by default), broken
        between words; `hard` also breaks words longer than a line (table cells must not overflow)."""
        width = width if width is not None else self.width
        lines: list[list[Piece]] = [[]]
        used = [cells(first)]
        for word, space_before in _words(pieces, width):
            size = sum(cells(text) for text, _ in word)
            line = lines[-1]
            if word == [("\n", ())]:
                lines.append([])
                used.append(cells(hanging))
                continue
            if line and width is not None and used[-1] + 1 + size > width:
                lines.append([])
                used.append(cells(hanging))
                line = lines[-1]
            elif line and space_before:  # styled like its neighbours when both share a style
                line.append((" ", line[-1][1] if line[-1][1] == word[0][1] else ()))
                used[-1] += 1
            if hard and width is not None and size > width - used[-1]:
                word = _break(word, width, width - used[-1], lines, used, cells(hanging))
                line = lines[-1]
                size = sum(cells(text) for text, _ in word)
            line.extend(word)
            used[-1] += size
        return [(first if number == 0 else hanging) + self._styled(line) for number, line in enumerate(lines)]

    def _styled(self, line: list[Piece]) -> str:
        """One line's pieces with their styles, neighbours of the same style joined into one run."""
        runs: list[Piece] = []
        for text, kinds in line:
            if runs and runs[-1][1] == kinds:
                runs[-1] = (runs[-1][0] + text, kinds)
            else:
                runs.append((text, kinds))
        out = []
        for text, kinds in runs:
            for kind in reversed(kinds) if self.style.color else ():
                text = _STYLES[kind](self.style, text)
            out.append(text)
        return "".join(out)


_STYLES: dict[str, Callable[[Styler, str], str]] = {
    "heading": Styler.heading,
    "bold": Styler.bold,
    "dim": Styler.dim,
    "accent": Styler.accent,
    "code": Styler.code,
}
_ESCAPES = re.compile(r"\x1b\[[0-9;]*m")


def _visible(text: str) -> str:
    return _ESCAPES.sub("", text)


def _plain(pieces: list[Piece]) -> str:
    return "".join(text for text, _ in pieces)


def _words(pieces: list[Piece], width: int | None) -> list[tuple[list[Piece], bool]]:
    """Pieces regrouped into words (neighbouring pieces with no space between stay one word),
    each with whether a space came before it. A code span shorter than half the line is one word."""
    words: list[tuple[list[Piece], bool]] = []
    current: list[Piece] = []
    space = False

    def end() -> None:
        nonlocal current
        if current:
            words.append((current, space))
            current = []

    for text, kinds in pieces:
        whole = "code" in kinds and (width is None or cells(text) * _CODE_SHARE <= width)
        for part in [text] if whole else re.split(r"([ \t\n]+)", text):
            if not part:
                continue
            if not whole and part.isspace():
                end()
                if "\n" in part:  # a hard line break
                    words.append(([("\n", ())], False))
                space = "\n" not in part
                continue
            current.append((part, kinds))
    end()
    return words


def _break(word: list[Piece], width: int, room: int, lines: list[list[Piece]], used: list[int], hanging: int) -> list[Piece]:
    """Put the start of an over-long `word` on the current line and whole-width slices on new
    ones; returns the rest, which fits on the last line."""
    flat = [(ch, kinds) for text, kinds in word for ch in text]
    if room <= 0:
        lines.append([])
        used.append(hanging)
        room = width - hanging
    while len(flat) > room and room > 0:
        lines[-1].extend(flat[:room])
        used[-1] += room
        flat = flat[room:]
        lines.append([])
        used.append(hanging)
        room = width - hanging
    return flat


def _fit(widths: list[int], room: int) -> list[int]:
    """Column widths that add up to at most `room`: the widest column gives way first, and none
    goes below MIN_COLUMN (or its own width), even if the table then overflows."""
    widths = list(widths)
    floor = [min(width, MIN_COLUMN) for width in widths]
    while sum(widths) > room:
        widest = max(range(len(widths)), key=lambda column: widths[column] - floor[column])
        if widths[widest] <= floor[widest]:
            break
        widths[widest] -= 1
    return widths

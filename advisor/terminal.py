"""Printing for a terminal: Markdown styled and wrapped to its width, paged when long.

A full Markdown renderer (rich, markdown-it) costs more start-up time than the whole search, so
the small Markdown subset of answers and recommendations (headings, lists, code, emphasis,
links, tables) is laid out line by line here. On a terminal, paragraphs and list items are
wrapped to the width at word boundaries (code blocks and tables are left as written) and styled;
anything else (a pipe, a file, `NO_COLOR`) gets the Markdown unchanged. Everything passes
`strip_terminal_escapes` first: text from data files must not drive the terminal.
"""

from __future__ import annotations

import os
import re
import sys

from advisor.textnorm import strip_terminal_escapes

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"
_HEADING, _CODE, _ACCENT = "\x1b[1;36m", "\x1b[33m", "\x1b[32m"
# Inline Markdown, each beside a marker it cannot match without: a pattern is compiled (through
# `re`'s cache) only when a line holds its marker, and an answer seldom holds all of them.
_INLINE_CODE = (r"`([^`]+)`", "`")
_STRONG = (r"\*\*([^*]+)\*\*", "**")
_LINK = (r"\[([^\]]+)\]\(([^)\s]+)\)", "](")
_EMPHASIS = (r"(?<![\w_])_([^_\n]+)_(?![\w_])", "_")
_LIST_ITEM = r"^(\s*)([-*+]|\d+[.)]|- \[[ xX]\])\s+"
_LIST_MARKS = "-*+0123456789"
# Text never wraps narrower than this, however narrow the terminal.
MIN_WIDTH = 30
MAX_WIDTH = 120


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    return is_terminal(stream)


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def terminal_size(stream: TextIO | None = None) -> tuple[int, int]:
    """(columns, rows): `COLUMNS`/`LINES` when set, else the terminal's, else 80x24.

    Worked out without `shutil`, whose import (bz2, lzma) would cost every answer a millisecond.
    """
    try:
        size = os.get_terminal_size((stream or sys.__stdout__).fileno())  # type: ignore[union-attr]
        columns, rows = size.columns, size.lines
    except (AttributeError, ValueError, OSError):
        columns, rows = 80, 24
    for name, default in (("COLUMNS", columns), ("LINES", rows)):
        try:
            value = int(os.environ.get(name, default))
        except ValueError:
            value = default
        if name == "COLUMNS":
            columns = value if value > 0 else columns
        else:
            rows = value if value > 0 else rows
    return columns, rows


class Styler:
    """Styles text for `stream`: ANSI styles on a terminal, nothing elsewhere.

    Args:
        color: Whether to emit styles (usually `use_color(stream)`).
        width: Wrap Markdown to this many columns; None leaves lines as written.
    """

    def __init__(self, color: bool, width: int | None = None) -> None:
        self.color = color
        self.width = max(MIN_WIDTH, min(width, MAX_WIDTH)) if width else None

    @classmethod
    def for_stream(cls, stream: TextIO) -> Styler:
        """Colour and width for `stream`: a terminal's width, and no wrapping for a pipe."""
        terminal = is_terminal(stream)
        return cls(use_color(stream), terminal_size(stream)[0] - 1 if terminal else None)

    def __call__(self, text: str, style: str) -> str:
        return f"{style}{text}{_RESET}" if self.color else text

    def heading(self, text: str) -> str:
        return self(text, _HEADING)

    def bold(self, text: str) -> str:
        return self(text, _BOLD)

    def dim(self, text: str) -> str:
        return self(text, _DIM)

    def accent(self, text: str) -> str:
        return self(text, _ACCENT)

    def code(self, text: str) -> str:
        return self(text, _CODE)

    def wrap(self, text: str, indent: str = "", hanging: str = "") -> list[str]:
        """`text` as lines of at most the width (one line when there is no width)."""
        if self.width is None or len(indent) + len(text) <= self.width:
            return [indent + text]
        return wrap_words(text, self.width, indent, hanging or indent) or [indent]

    def with_aside(self, text: str, aside: str, look: Callable[[str], str] | None = None, first: str = "", hanging: str = "", gap: str = "  ") -> str:
        """`text` styled by `look` then `aside` dimmed ("• MIG (advisor show mig)", a title and its
        tag), wrapped to the width with the aside kept whole on the last line."""
        glued = aside.replace(" ", "\u00a0")  # wrapping never breaks at a no-break space
        lines = self.wrap(f"{text}{gap}{glued}", first, hanging)
        out = []
        for number, line in enumerate(lines):
            lead = first if number == 0 else hanging
            body = line[len(lead) :]
            tail = ""
            if number == len(lines) - 1 and body.endswith(glued):
                body = body[: -len(glued)].rstrip()
                tail = (gap if body else "") + self.dim(aside)
            out.append(lead + (look(body) if look and body else body) + tail)
        return "\n".join(out).replace("\u00a0", " ")

    def note(self, text: str) -> str:
        """A dimmed aside ("the whole entry: advisor show mig"), wrapped to the width."""
        return "\n".join(self.dim(line) for line in self.wrap(text))

    def item(self, text: str, aside: str) -> str:
        """A bullet of a list under a heading: "  • text (aside)", wrapped under its text."""
        return self.with_aside(text, f"({aside})", first="  • ", hanging="    ", gap=" ")

    def markdown(self, text: str) -> str:
        """Lay out a Markdown body for the terminal (the Markdown itself when colour is off and
        there is no width to wrap to)."""
        text = strip_terminal_escapes(text)
        if not self.color and self.width is None:
            return text
        out: list[str] = []
        in_code = False
        block: list[str] = []  # the lines of the paragraph or list item being read
        first = ""  # its first line's indent and marker, "" for a paragraph
        hanging = ""

        def flush() -> None:
            nonlocal first, hanging
            out.extend(self._block(block, first, hanging))
            block.clear()
            first = hanging = ""

        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith("```"):
                flush()
                in_code = not in_code
                if not self.color:
                    out.append(line)
                continue
            if in_code:
                out.append(f"    {self(line, _CODE)}" if self.color else line)
            elif not stripped:
                flush()
                out.append("")
            elif stripped.startswith("#"):
                flush()
                out.append(self.heading(stripped.lstrip("#").strip()) if self.color else stripped)
            elif stripped.startswith("|"):  # a table row: wrapping would break its columns
                flush()
                out.append(self._inline(line))
            elif stripped[0] in _LIST_MARKS and (item := re.match(_LIST_ITEM, line)) is not None:
                flush()
                lead, marker = item.group(1), item.group(2)
                shown = "•" if self.color and marker in "-*+" else marker
                first, hanging = f"{lead}{shown} ", lead + " " * (len(shown) + 1)
                block.append(line[item.end() :])
            else:
                block.append(line)  # a paragraph line, or the continuation of a list item
        flush()
        return "\n".join(out)

    def _block(self, block: list[str], first: str, hanging: str) -> list[str]:
        """A paragraph or list item: its lines joined, except at Markdown hard breaks (two
        trailing spaces), each run wrapped under `first` (then `hanging`) and styled."""
        segments: list[list[str]] = [[]]
        for part in block:
            segments[-1].append(part.strip())
            if part.endswith("  "):
                segments.append([])
        out: list[str] = []
        for index, joined in enumerate(" ".join(segment) for segment in segments if segment):
            out.extend(self._wrapped(joined, first if index == 0 else hanging or first, hanging))
        return out

    def _wrapped(self, joined: str, first: str, hanging: str) -> list[str]:
        """One line of Markdown wrapped and styled; a code span split across lines is closed and
        reopened, and a line wholly in _..._ is emphasised on every line it wraps to."""
        emphasised = re.fullmatch(_EMPHASIS[0], joined) if joined[:1] == joined[-1:] == "_" else None
        if emphasised is not None:
            joined = emphasised.group(1)
        if self.width is not None:
            joined = _keep_whole(joined, self.width)
        out: list[str] = []
        open_code = False
        for number, piece in enumerate(self.wrap(joined, first, hanging)):
            lead = first if number == 0 else hanging or first
            body = ("`" if open_code else "") + piece[len(lead) :]
            open_code = body.count("`") % 2 == 1
            body = body.replace("\u00a0", " ") + ("`" if open_code else "")
            out.append(self._inline(lead + (f"_{body}_" if emphasised else body)))
        return out

    def _inline(self, line: str) -> str:
        if not self.color:
            return line
        line = _sub(_LINK, lambda m: f"{m.group(1)} {_DIM}({m.group(2)}){_RESET}", line)
        line = _sub(_INLINE_CODE, lambda m: f"{_CODE}{m.group(1)}{_RESET}", line)
        line = _sub(_STRONG, lambda m: f"{_BOLD}{m.group(1)}{_RESET}", line)
        return _sub(_EMPHASIS, lambda m: f"{_DIM}{m.group(1)}{_RESET}", line)


def _sub(pattern: tuple[str, str], replace: Callable[[re.Match[str]], str], text: str) -> str:
    """`re.sub` of an inline `pattern` (with its marker), which is not compiled for text without the marker."""
    return re.sub(pattern[0], replace, text) if pattern[1] in text else text


# What `textwrap` turns into a space before wrapping (a tab is first expanded).
_SPACES = str.maketrans("\n\x0b\x0c\r", "    ")


def wrap_words(text: str, width: int, first: str = "", hanging: str = "") -> list[str]:
    """The lines of `textwrap.wrap(text, width, initial_indent=first, subsequent_indent=hanging,
    break_long_words=False, break_on_hyphens=False)`: lines break only at spaces, and a word
    longer than the width gets a line of its own.

    The same lines (a property test holds it to textwrap), without importing textwrap, whose
    import compiles five regular expressions: about 0.8 ms of every answer printed on a terminal.
    """
    parts = text.expandtabs().translate(_SPACES).split(" ")
    chunks: list[str] = []  # words and runs of spaces, in order
    spaces = 0  # the spaces since the last word: one separator before each part but the first
    for number, part in enumerate(parts):
        spaces += number > 0
        if part:
            if spaces:
                chunks.append(" " * spaces)
            chunks.append(part)
            spaces = 0
    if spaces:
        chunks.append(" " * spaces)
    chunks.reverse()
    lines: list[str] = []
    while chunks:
        indent = hanging if lines else first
        room = width - len(indent)
        if lines and not chunks[-1].strip():  # a line after the first never starts with spaces
            del chunks[-1]
        line: list[str] = []
        used = 0
        while chunks and used + len(chunks[-1]) <= room:
            used += len(chunks[-1])
            line.append(chunks.pop())
        if chunks and not line and len(chunks[-1]) > room:  # too long for any line: one of its own
            line.append(chunks.pop())
        if line and not line[-1].strip():
            del line[-1]
        if line:
            lines.append(indent + "".join(line))
    return lines


def _keep_whole(text: str, width: int) -> str:
    """Short code spans, links and bold runs joined by no-break spaces, so wrapping never splits
    one (its style is applied line by line, and half a span would show its backticks)."""

    def glue(found: re.Match[str]) -> str:
        span = found.group(0)
        return span.replace(" ", "\u00a0") if len(span) * 2 <= width else span

    for pattern in (_INLINE_CODE, _LINK, _STRONG):
        text = _sub(pattern, glue, text)
    return text


def page(text: str, stream: TextIO | None = None) -> None:
    """Print `text`; on a terminal, through the pager when it is taller than the screen.

    `$PAGER` when set (empty to turn paging off), else `less -FRX`, which quits at once for
    short text, keeps colours and leaves the text on screen; any failure prints instead.
    """
    stream = stream or sys.stdout
    if not is_terminal(stream) or text.count("\n") + 1 < terminal_size(stream)[1]:
        stream.write(text if text.endswith("\n") else text + "\n")
        return
    pager = os.environ.get("PAGER", "less -FRX")
    if pager.strip():
        import shlex
        import subprocess

        try:
            stream.flush()
            subprocess.run(shlex.split(pager), input=text.encode("utf-8", "replace"), check=False)
            return
        except (OSError, ValueError):
            pass
    stream.write(text if text.endswith("\n") else text + "\n")


class ProgressBar:
    """A one-line progress bar redrawn in place on a terminal: `label  done/total [####....] 45%`.

    Redrawn at most ten times a second, so that following a fast loop costs it nothing; cleared
    by `close()`. Only for a terminal: when output goes to a file or a pipe, show nothing.
    """

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self._shown = 0.0
        self._drawn = False

    def update(self, done: int, total: int) -> None:
        import time

        now = time.monotonic()
        if now - self._shown < 0.1 and done < total:
            return
        self._shown = now
        columns = terminal_size(self.stream)[0]
        share = done / total if total else 1.0
        counts = f"{done:,}/{total:,}"
        width = max(columns - len(self.label) - len(counts) - 12, 10)
        filled = round(width * share)
        self.stream.write(f"\r{self.label}  {counts} [{'#' * filled}{'.' * (width - filled)}] {share:4.0%}")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Clear the line (the caller then prints the outcome)."""
        if self._drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()

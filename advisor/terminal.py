"""Printing answers in a terminal: light Markdown styling on a TTY, plain text elsewhere.

A full Markdown renderer (rich, markdown-it) costs more start-up time than the whole search, so
the answers' small Markdown subset (headings, lists, code, emphasis, links) is styled line by line.
Everything that came from a knowledge file passes `strip_terminal_escapes` first.
"""

from __future__ import annotations

import os
import re
import sys

from advisor.textnorm import strip_terminal_escapes

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TextIO

_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"
_HEADING, _CODE, _ACCENT = "\x1b[1;36m", "\x1b[33m", "\x1b[32m"
_INLINE_CODE = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*([^*]+)\*\*")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Styler:
    def __init__(self, color: bool) -> None:
        self.color = color

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

    def markdown(self, text: str) -> str:
        """Style a Markdown body for a terminal (plain Markdown when colour is off)."""
        text = strip_terminal_escapes(text)
        if not self.color:
            return text
        out: list[str] = []
        in_code = False
        for line in text.splitlines():
            if line.lstrip().startswith("```"):
                in_code = not in_code
                continue
            if in_code:
                out.append(f"    {_CODE}{line}{_RESET}")
                continue
            stripped = line.lstrip()
            if stripped.startswith("#"):
                out.append(f"{_HEADING}{stripped.lstrip('#').strip()}{_RESET}")
                continue
            indent = line[: len(line) - len(stripped)]
            if stripped[:2] in ("- ", "* ", "+ "):
                line = f"{indent}• {stripped[2:]}"
            line = _LINK.sub(lambda m: f"{m.group(1)} {_DIM}({m.group(2)}){_RESET}", line)
            line = _INLINE_CODE.sub(lambda m: f"{_CODE}{m.group(1)}{_RESET}", line)
            line = _STRONG.sub(lambda m: f"{_BOLD}{m.group(1)}{_RESET}", line)
            out.append(line)
        return "\n".join(out)


def write(text: str, stream: TextIO | None = None) -> None:
    (stream or sys.stdout).write(text if text.endswith("\n") else text + "\n")

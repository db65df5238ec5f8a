"""argparse, sized and failing the way advisor documents, for every command but the quick ones.

Kept apart from `advisor.cli` so that the common `advisor ask`, `show` and `list` command lines,
which `advisor.cli.quick_args` reads without argparse, never import it.
"""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any


class Formatter(argparse.HelpFormatter):
    """argparse's formatter, sized without importing `shutil`.

    argparse makes a formatter for every `add_argument` and asks `shutil.get_terminal_size()`
    for its width; `shutil` imports bz2 and lzma, a millisecond of `advisor ask`. The width is
    worked out the same way: `COLUMNS`, else the terminal, else 80.
    """

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None) -> None:
        if width is None:
            width = _columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def _columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class Parser(argparse.ArgumentParser):
    """argparse that exits with status 2 and one line, the documented usage-error contract."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")

"""Options and helpers shared by several commands."""

from __future__ import annotations

import sys

from advisor.problems import UsageError

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable
    from typing import TextIO

    from advisor.problems import Problem

# The languages `--lang` accepts (the interface's and the knowledge's).
LANGS = ("vi", "en")


def add_kb_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kb", metavar="DIR", help="knowledge folder to use (default: $ADVISOR_KB, else the bundled one)")


def add_lang_option(parser: argparse.ArgumentParser, help_text: str = "answer language (default: detected)") -> None:
    parser.add_argument("--lang", choices=LANGS, help=help_text)


def kb_root(args: argparse.Namespace) -> str:
    """The knowledge folder the command should read, as a string (`advisor ask` avoids pathlib)."""
    import os

    from advisor.paths import knowledge_root

    root = knowledge_root(getattr(args, "kb", None))
    if not os.path.isdir(root):
        raise UsageError(f"knowledge folder not found: {root}")
    return root


def checked_text(text: str, what: str) -> str:
    """Refuse text that was not valid UTF-8 on the command line (argv keeps it as surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"{what} is not valid UTF-8") from None
    return text


def report_problems(problems: Iterable[Problem], stream: TextIO | None = None) -> None:
    from advisor.textnorm import strip_terminal_escapes

    for problem in problems:
        print(strip_terminal_escapes(str(problem)), file=stream or sys.stderr)

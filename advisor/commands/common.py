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
    parser.add_argument("--kb", metavar="DIR", help="cli_arg_kb")


def add_lang_option(parser: argparse.ArgumentParser, help_text: str = "cli_arg_lang_answer") -> None:
    """`--lang vi|en`; `help_text` is a label key (the CLI's help is in the interface language)."""
    parser.add_argument("--lang", choices=LANGS, help=help_text)


def kb_root(args: argparse.Namespace) -> str:
    """The knowledge folder the command should read, as a string (`advisor ask` avoids pathlib)."""
    import os

    from advisor.paths import knowledge_root

    root = knowledge_root(getattr(args, "kb", None))
    if not os.path.isdir(root):
        raise UsageError("err_kb_not_found", path=root)
    return root


def checked_text(text: str, error_key: str) -> str:
    """Refuse text that was not valid UTF-8 on the command line (argv keeps it as surrogates);
    `error_key` is the label that says which text."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(error_key) from None
    return text


def report_problems(problems: Iterable[Problem], stream: TextIO | None = None) -> None:
    from advisor.textnorm import strip_terminal_escapes

    for problem in problems:
        print(strip_terminal_escapes(str(problem)), file=stream or sys.stderr)

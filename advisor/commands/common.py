"""What each command takes, declared once, and helpers shared by several commands.

Each command module lists its commands as `Command` records (`COMMAND_LINES`): argparse builds
its parser from them (`advisor.commands.parsing.add_command`), and `advisor.cli.quick_args` reads
the everyday command lines from the same records without importing argparse.
"""

from __future__ import annotations

import sys

from advisor.problems import UsageError

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterable
    from typing import Any, TextIO

    from advisor.problems import Problem

# The languages `--lang` accepts (the interface's and the knowledge's).
LANGS = ("vi", "en")

# What an option takes, besides a type (str, int) or a tuple of choices.
FLAG = "flag"  # nothing: present or not
REPEATED = "repeated"  # a value each time it is given, collected in a list


# Plain classes with slots, not namedtuples or dataclasses: `advisor ask` imports this module, and
# making a namedtuple class costs a tenth of a millisecond (`advisor.problems.Problem`). Read-only
# by convention: they are declarations.
class Option:
    """An option: its `names` ("-o", "--output"), what it takes (`kind`: FLAG, REPEATED, str,
    int, or a tuple of choices), the label key of its `help`, its `metavar` and its `default`."""

    __slots__ = ("names", "kind", "help", "metavar", "default")

    def __init__(self, names: tuple[str, ...], kind: object, help: str, metavar: str | None = None, default: object = None) -> None:
        self.names = names
        self.kind = kind
        self.help = help
        self.metavar = metavar
        self.default = default

    @property
    def dest(self) -> str:
        """The attribute the value is stored under, as argparse names it."""
        return self.names[-1].lstrip("-").replace("-", "_")

    def initial(self) -> object:
        """The value when the option is not given (a new list for a repeated option)."""
        if self.default is not None:
            return self.default
        return False if self.kind == FLAG else [] if self.kind == REPEATED else None


class Command:
    """A command: its `name`, the function that `run`s it with the parsed arguments, its
    `options`, and the words it takes: stored under `words`, `count` of them (1, "+" for one or
    more, or "*" for any number; none when `words` is None). Its help texts are the label keys `cli_help_<name>`,
    `cli_desc_<name>`, `cli_arg_<name>_<words>` and `epilog`; `help_values` is a function giving
    values to fill into them, called only when the parser is built."""

    __slots__ = ("name", "run", "options", "words", "count", "epilog", "help_values")

    def __init__(self, name: str, run: Callable[[Any], int], options: tuple[Option, ...], words: str | None = None, count: int | str = 0,
                 epilog: str | None = None, help_values: Callable[[], dict[str, str]] | None = None) -> None:
        self.name = name
        self.run = run
        self.options = options
        self.words = words
        self.count = count
        self.epilog = epilog
        self.help_values = help_values


KB_OPTION = Option(("--kb",), str, "cli_arg_kb", "DIR")
JSON_OPTION = Option(("--json",), FLAG, "cli_arg_json")


def lang_option(help_text: str = "cli_arg_lang_answer") -> Option:
    """`--lang vi|en`; `help_text` is a label key (the CLI's help is in the interface language)."""
    return Option(("--lang",), LANGS, help_text)


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

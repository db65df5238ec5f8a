"""argparse for every command line but the quick ones, in the interface language and failing
the way advisor documents (one line, exit status 2).

Kept apart from `advisor.cli` so that the common command lines, which `advisor.cli.quick_args`
reads without argparse (from each command module's `COMMAND_LINES`), never import it.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys

from advisor.commands.common import FLAG, REPEATED

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any

    from advisor.commands.common import Command


class Formatter(argparse.HelpFormatter):
    """argparse's formatter in the interface language, sized without importing `shutil`.

    Help texts are label keys ("cli_help_ask") looked up only when help is printed, so parsing
    `advisor ask` never reads the locale files for them; argparse's own words (usage, section
    titles) are looked up the same way. Lines break at spaces only ("not-sure", "--json" stay
    whole). argparse makes a formatter for every `add_argument` and asks
    `shutil.get_terminal_size()` for its width; `shutil` imports bz2 and lzma, a millisecond of
    `advisor ask`. The width is worked out the same way: `COLUMNS`, else the terminal, else 80.

    Args:
        lang: The language of the help.
        values: Values to fill into the help texts (the list of provider needs).
    """

    SECTIONS = {"positional arguments": "cli_positionals", "options": "cli_options"}

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None,
                 *, lang: str = "en", values: dict[str, str] | None = None) -> None:
        if width is None:
            width = _columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)
        self.lang = lang
        self.values = values or {}

    def say(self, text: str | None) -> str | None:
        """`text` in the help's language when it is a label key, else as written."""
        if text and text.startswith("cli_"):
            from advisor.i18n import t

            return t(text, self.lang, **self.values)
        return text

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, prefix if prefix is not None else self.say("cli_usage"))

    def start_section(self, heading: str | None) -> None:
        super().start_section(self.say(self.SECTIONS.get(heading or "", heading)))

    def add_text(self, text: str | None) -> None:
        super().add_text(self.say(text))

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return self.say(action.help)

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)


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
    """argparse that exits with status 2 and one line, the documented usage-error contract, and
    writes its help in `lang` (help texts are label keys; `help_values` fill them in)."""

    def __init__(self, *args: Any, lang: str = "en", help_values: dict[str, str] | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", functools.partial(Formatter, lang=lang, values=help_values))
        kwargs["add_help"] = False  # added below, so its help is a label key too
        super().__init__(*args, **kwargs)
        self.lang = lang
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help="cli_help_help")

    def error(self, message: str) -> None:  # type: ignore[override]
        from advisor.cli import error_line

        self.exit(2, error_line(_argparse_message(message, self.lang), self.lang, self.prog) + "\n")


def add_command(subparsers: Any, command: Command) -> None:
    """The parser of `command`, as its record declares it, added to `subparsers`."""
    extra = {"help_values": command.help_values()} if command.help_values is not None else {}
    name = command.name
    parser = subparsers.add_parser(name, help=f"cli_help_{name}", description=f"cli_desc_{name}", epilog=command.epilog, **extra)
    if command.words is not None:
        parser.add_argument(command.words, nargs=command.count if command.count in ("*", "+") else None, help=f"cli_arg_{name}_{command.words}")
    for option in command.options:
        settings: dict[str, Any] = {"help": option.help, "default": option.initial()}
        if option.metavar is not None:
            settings["metavar"] = option.metavar
        if option.kind == FLAG:
            settings["action"] = "store_true"
        elif option.kind == REPEATED:
            settings["action"] = "append"
        elif isinstance(option.kind, tuple):
            settings["choices"] = option.kind
        elif option.kind is not str:
            settings["type"] = option.kind
        parser.add_argument(*option.names, **settings)
    parser.set_defaults(run=command.run)


# argparse's own error messages (its English wording) and the labels that say them.
_ARGPARSE_MESSAGES = (
    (r"argument (?P<argument>[^:]+): (?P<message>.*)", "cli_argparse_argument"),
    (r"invalid choice: (?P<value>.*) \(choose from (?P<choices>.*)\)", "cli_argparse_invalid_choice"),
    (r"invalid (?P<type>\w+) value: (?P<value>.*)", "cli_argparse_invalid_value"),
    (r"expected one argument", "cli_argparse_expected_argument"),
    (r"the following arguments are required: (?P<names>.*)", "cli_argparse_required"),
    (r"unrecognized arguments: (?P<names>.*)", "cli_argparse_unrecognized"),
    (r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)", "cli_argparse_ambiguous"),
)


def _argparse_message(message: str, lang: str) -> str:
    """An argparse error message in `lang` (as argparse wrote it when unknown)."""
    if lang == "en":
        return message
    import re

    from advisor.i18n import t

    for pattern, key in _ARGPARSE_MESSAGES:
        found = re.fullmatch(pattern, message)
        if found is not None:
            values = found.groupdict()
            if "message" in values:
                values["message"] = _argparse_message(values["message"], lang)
            return t(key, lang, **values)
    return message

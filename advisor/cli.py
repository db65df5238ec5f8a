"""The `advisor` command line: a thin argparse layer over the engine.

Each command lives in a module of `advisor/commands/` with `add_parser()` and a run function;
modules import their heavy dependencies inside the run function, so building the parser stays
cheap and `advisor ask` never loads Textual. This is the one place where engine errors become
exit statuses (docs/architecture.md).
"""

from __future__ import annotations

import argparse
import errno
import functools
import importlib
import io
import os
import sys
from collections.abc import Sequence
from typing import Any

from advisor.problems import AdvisorError, DataError

# Command -> the module of `advisor/commands/` that defines it, in the order `--help` lists them.
COMMANDS: dict[str, str] = {
    "ask": "ask",
    "show": "ask",
    "list": "ask",
    "check": "check",
    "recommend": "decide",
    "guide": "decide",
    "tree": "decide",
    "providers": "providers",
    "tui": "tui",
}


class _Formatter(argparse.HelpFormatter):
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


class _Parser(argparse.ArgumentParser):
    """argparse that exits with status 2 and one line, the documented usage-error contract, and
    writes its help in `lang` (help texts are label keys; `help_values` fill them in)."""

    def __init__(self, *args: Any, lang: str = "en", help_values: dict[str, str] | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", functools.partial(_Formatter, lang=lang, values=help_values))
        kwargs["add_help"] = False  # added below, so its help is a label key too
        super().__init__(*args, **kwargs)
        self.lang = lang
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help="cli_help_help")

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, error_line(_argparse_message(message, self.lang), self.lang, self.prog) + "\n")


# argparse's own error messages (its English wording) and the labels that say them.
_ARGPARSE_MESSAGES = (
    (r"argument (?P<argument>[^:]+): (?P<message>.*)", "cli_argparse_argument"),
    (r"invalid choice: (?P<value>.*) \(choose from (?P<choices>.*)\)", "cli_argparse_invalid_choice"),
    (r"invalid (?P<type>\w+) value: (?P<value>.*)", "cli_argparse_invalid_value"),
    (r"expected one argument", "cli_argparse_expected_one"),
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


def error_line(message: str, lang: str, prog: str = "advisor") -> str:
    """The one line a usage error prints: "advisor: error: ..." in the interface language."""
    from advisor.i18n import t

    return t("cli_error", lang, prog=prog, message=message)


def build_parser(only: str | None = None, lang: str = "en") -> argparse.ArgumentParser:
    """The full parser, or with `only` a command's name, one with just that command's module;
    its help is in `lang`.

    Importing every command module to parse `advisor ask` would cost more than the answer; the
    full parser is still built for `advisor --help` and for unknown commands.
    """
    parser = _Parser(prog="advisor", description="cli_description", epilog="cli_epilog", lang=lang)
    parser.add_argument("--version", action="store_true", help="cli_version_help")
    # argparse only calls `parser_class(**kwargs)`, so a partial carries the language to every command's parser.
    commands = functools.partial(_Parser, lang=lang)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=commands)  # type: ignore[call-overload]
    seen: set[str] = set()
    for command in COMMANDS if only is None else (only,):
        module_name = COMMANDS[command]
        if module_name not in seen:
            seen.add(module_name)
            importlib.import_module(f"advisor.commands.{module_name}").add_parser(sub)
    return parser


def help_language(argv: Sequence[str]) -> str:
    """The language `--help` is written in: `--lang` when given, else the interface language of
    the environment, as for everything else advisor prints."""
    from advisor.i18n import LANGUAGES, default_language

    for number, word in enumerate(argv):
        given = word.removeprefix("--lang=") if word.startswith("--lang=") else argv[number + 1] if word == "--lang" and number + 1 < len(argv) else None
        if given in LANGUAGES:
            return given

    return default_language()


def _looks_like_question(argv: Sequence[str]) -> bool:
    return bool(argv) and argv[0] not in COMMANDS and not argv[0].startswith("-")


def mistyped_command(argv: Sequence[str]) -> str | None:
    """The command `argv` most likely meant when its first word is a command misspelt
    ("recomend"): one letter off for short names, two for long ones, and followed by an option or
    nothing, since a word followed by more words is a question ("advisor chek my driver")."""
    if not argv or not argv[0].isalpha() or argv[0] in COMMANDS:
        return None
    if len(argv) > 1 and not argv[1].startswith("-"):
        return None
    word = argv[0].lower()
    for command in COMMANDS:
        if _distance(word, command) <= (1 if len(command) <= 5 else 2):
            return command
    return None


def _distance(a: str, b: str) -> int:
    """Edit distance counting a swap of neighbouring letters as one edit."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, start=1):
        row = [i] + [0] * len(b)
        for j, y in enumerate(b, start=1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


class _ClosedStream(io.TextIOBase):
    """Stands in for a standard stream the caller closed (`advisor list >&-`, `<&-`).

    Reading it or writing to it is the one-line error of a failed read or write; a closed
    standard error swallows what is written, as there is nowhere left to report to.
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name

    def _closed(self) -> OSError:
        return OSError(errno.EBADF, f"standard {self._name} is closed")

    def write(self, text: str) -> int:
        if self._name == "error":
            return len(text)
        raise self._closed()

    def read(self, size: int | None = -1) -> str:
        raise self._closed()

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        raise self._closed()

    @property
    def buffer(self) -> Any:
        raise self._closed()


def _error(line: str) -> None:
    """One error line on standard error; what the user or a data file wrote is in it, so escape
    sequences are removed (`unknown answer key '<ESC>]0;title'` must not retitle the terminal)."""
    from advisor.textnorm import strip_terminal_escapes

    print(strip_terminal_escapes(line), file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    for name, shown in (("stdin", "input"), ("stdout", "output"), ("stderr", "error")):
        if getattr(sys, name) is None:  # the stream was closed before advisor started
            setattr(sys, name, _ClosedStream(shown))
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            pass
    if argv[:1] == ["help"]:  # `advisor help`, `advisor help ask`
        argv = [*argv[1:2], "--help"]
    meant = mistyped_command(argv)
    if meant is not None:
        from advisor.i18n import t

        lang = help_language(argv)
        print(error_line(t("cli_unknown_command", lang, word=argv[0], meant=meant), lang), file=sys.stderr)
        return 2
    if _looks_like_question(argv):  # `advisor "mig la gi"` is a question
        argv = ["ask", *argv]
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None, help_language(argv))
    args = parser.parse_args(argv)
    if args.version:
        from advisor import __version__

        print(f"advisor {__version__}")
        return 0
    if args.command is None:
        if sys.stdin.isatty() and sys.stdout.isatty():
            args = parser.parse_args(["tui"])
        else:
            parser.print_help()
            return 2
    try:
        return int(args.run(args))
    except DataError as error:
        _error(str(error.problem))
        return 2
    except AdvisorError as error:  # usage, invalid answers or needs, output that cannot be written
        lang = getattr(args, "lang", None) or help_language(argv)
        _error(error_line(error.text(lang), lang))
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`advisor list | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as error:  # disk full, permission denied, a folder that vanished mid-run
        _error(f"advisor: error: {error.strerror or error}{f': {error.filename}' if error.filename else ''}")
        return 2


def run() -> None:
    """The console script and `python -m advisor`: `main()`, then exit without interpreter teardown.

    Once the answer is printed there is nothing left to do, yet tearing down every module and the
    index's buffers costs a one-shot `advisor ask` about 6 ms, a sixth of its run. Output is
    flushed first; the app has restored the terminal before `main()` returns.
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader went away, or a stream was closed
        pass
    os._exit(code)

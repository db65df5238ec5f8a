"""The `advisor` command line: a thin layer over the engine (argparse, or for the common command
lines `quick_args`, which reads them without it).

Each command lives in a module of `advisor/commands/` that declares what it takes
(`COMMAND_LINES`, `advisor.commands.common.Command`) beside its run function; modules import their
heavy dependencies inside the run function, so reading the command line stays cheap and
`advisor ask` never loads Textual. This is the one place where engine errors become
exit statuses (docs/architecture.md).
"""

from __future__ import annotations

import errno
import gc
import io
import os
import sys

from advisor.problems import AdvisorError, CacheDamaged, DataError

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import SimpleNamespace
    from typing import Any

# Command -> the module of `advisor/commands/` that defines it, in the order `--help` lists them.
COMMANDS: dict[str, str] = {
    "ask": "ask",
    "show": "ask",
    "list": "ask",
    "check": "check",
    "index": "index",
    "recommend": "decide",
    "guide": "decide",
    "tree": "decide",
    "providers": "providers",
    "learn": "learn",
    "tui": "tui",
}


# Options of `advisor tui` that `advisor` alone (the app) also takes.
APP_OPTIONS = ("--lang", "--kb")

# Commands that keep running (and collecting garbage) rather than answer once.
LONG_RUNNING = ("guide", "tui")


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
    import functools
    import importlib

    from advisor.commands.parsing import Parser, add_command

    parser = Parser(prog="advisor", description="cli_description", epilog="cli_epilog", lang=lang)
    parser.add_argument("--version", action="store_true", help="cli_version_help")
    # argparse only calls `parser_class(**kwargs)`, so a partial carries the language to every command's parser.
    commands = functools.partial(Parser, lang=lang)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=commands)  # type: ignore[call-overload]
    seen: set[str] = set()
    for command in COMMANDS if only is None else (only,):
        module_name = COMMANDS[command]
        if module_name not in seen:
            seen.add(module_name)
            for command_line in importlib.import_module(f"advisor.commands.{module_name}").COMMAND_LINES:
                add_command(sub, command_line)
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


def quick_args(argv: Sequence[str]) -> SimpleNamespace | None:
    """`argv` read without argparse, when it is a plain command line of a command that allows it.

    Importing argparse and building even one command's parser costs a one-shot `advisor ask`
    about 8 ms, a fifth of its run. The common forms (the command, its words, and before or after
    them exact options with plain values) are read here from the command's declaration (the
    module's `COMMAND_LINES`, from which argparse's parser is built too), to the same result
    argparse gives (a test holds the two together); anything else (help, an abbreviated or
    unknown option, a bad value, options between the words) returns None and is left to
    argparse, which also words the errors.
    """
    module = COMMANDS.get(argv[0]) if argv else None
    if module is None:
        return None
    __import__(f"advisor.commands.{module}")  # importlib itself would cost a quarter of a millisecond
    from advisor.commands.common import FLAG, REPEATED

    command = next(line for line in sys.modules[f"advisor.commands.{module}"].COMMAND_LINES if line.name == argv[0])
    from types import SimpleNamespace

    options = {name: option for option in command.options for name in option.names}
    values: dict[str, object] = {option.dest: option.initial() for option in command.options}
    words: list[str] = []
    closed = False  # an option after the words ends them: argparse refuses more words after it
    position = 1
    while position < len(argv):
        token = argv[position]
        position += 1
        if not token.startswith("-"):
            if closed:
                return None
            words.append(token)
            continue
        closed = bool(words)
        name, equals, value = token.partition("=")
        option = options.get(name)
        if option is None or (option.kind == FLAG and equals):
            return None
        kind = option.kind
        if kind != FLAG and not equals:
            if position >= len(argv):
                return None
            value = argv[position]
            position += 1
        if kind == FLAG:
            values[option.dest] = True
        elif value.startswith("-") or (isinstance(kind, tuple) and value not in kind):
            return None
        elif kind is int:
            try:
                values[option.dest] = int(value)
            except ValueError:
                return None
        elif kind == REPEATED:
            values[option.dest].append(value)  # type: ignore[attr-defined]  # a list, made above
        else:
            values[option.dest] = value
    if command.count == "*" or (command.count == "+" and words):
        values[command.words] = words
    elif command.count == 1 and len(words) == 1:
        values[command.words] = words[0]
    elif words or command.count in (1, "+"):
        return None
    return SimpleNamespace(version=False, command=argv[0], run=command.run, **values)


def _looks_like_question(argv: Sequence[str]) -> bool:
    return bool(argv) and argv[0] not in COMMANDS and not argv[0].startswith("-")


def mistyped_command(argv: Sequence[str]) -> str | None:
    """The command `argv` most likely meant when its first word is a command misspelt
    ("recomend"): one letter off for short names, two for long ones, and followed by an option or
    nothing, since a word followed by more words is a question ("advisor chek my driver"), unless
    those words spell an entry id after a misspelt `show` ("advisor shwo mig", `_misspelt_show`)."""
    if not argv or not argv[0].isalpha() or argv[0] in COMMANDS:
        return None
    from rapidfuzz.distance import OSA  # edit distance with a swap of neighbours as one edit

    from advisor.textnorm import typo_allowance

    word = argv[0].lower()
    meant = next((command for command in COMMANDS if OSA.distance(word, command) <= typo_allowance(command)), None)
    if meant is None or len(argv) == 1 or argv[1].startswith("-"):
        return meant
    return meant if meant == "show" and _misspelt_show(argv) else None


def _misspelt_show(argv: Sequence[str]) -> bool:
    """Whether `argv` is `advisor show` misspelt: the rest, read as `show` reads it, names an entry
    of the knowledge it would read, and the first word is no word that knowledge knows ("advisor
    slow storage" and "advisor how mig" are questions)."""
    args = quick_args(["show", *argv[1:]])
    if args is None:
        return False
    from advisor.commands.ask import spelt_id
    from advisor.commands.common import kb_root
    from advisor.library import open_index

    try:
        index = open_index(kb_root(args))  # type: ignore[arg-type]  # quick_args gives what argparse would
    except (AdvisorError, OSError):  # the command itself will say what is wrong with the folder
        return False
    analyzer = index.analyzer
    if any(word in index.postings or analyzer.is_noise(word) for word in analyzer.words(argv[0])):
        return False
    return index.topic_of(spelt_id(index, " ".join(args.id))) is not None


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


def _print_version() -> int:
    from advisor import __version__

    print(f"advisor {__version__}")
    return 0


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
    if argv == ["--version"]:  # before anything else: it needs nothing else
        return _print_version()
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
    elif argv and argv[0].partition("=")[0] in APP_OPTIONS:  # `advisor --lang vi` opens the app in Vietnamese
        argv = ["tui", *argv]
    args: argparse.Namespace | SimpleNamespace | None = quick_args(argv)
    if args is None:
        parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None, help_language(argv))
        args = parser.parse_args(argv)
        if args.command is None and not args.version:
            if not (sys.stdin.isatty() and sys.stdout.isatty()):
                parser.print_help()
                return 2
            args = parser.parse_args(["tui"])
    if args.version:  # `--version` among other options
        return _print_version()
    if args.command in LONG_RUNNING or getattr(args, "batch", None) is not None:
        gc.enable()
    try:
        try:
            return int(args.run(args))
        except CacheDamaged:
            # Found mid-answer in a large index (a small one is checked whole when opened): the
            # file is gone, and the command runs again on a rebuilt one, unless it has already
            # printed part of its output (`ask --batch`).
            if getattr(args, "batch", None) is not None:
                raise
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

    The cyclic garbage collector is off for the same reason: in a run of a few dozen
    milliseconds it only walks, thirty times over, the objects that imports and the index make
    (about 4 ms of `advisor ask`, and a one-shot command leaves little garbage). `main()` turns
    it back on for the commands that keep running (`LONG_RUNNING`, `ask --batch`).
    """
    gc.disable()
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader went away, or a stream was closed
        pass
    os._exit(code)

"""The `advisor` command line: a thin argparse layer over the engine.

Each command lives in a module of `advisor/commands/` with `add_parser()` and a run function;
modules import their heavy dependencies inside the run function, so building the parser stays
cheap and `advisor ask` never loads Textual. This is the one place where engine errors become
exit statuses (docs/architecture.md).
"""

from __future__ import annotations

import argparse
import errno
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


class _Parser(argparse.ArgumentParser):
    """argparse that exits with status 2 and one line, the documented usage-error contract."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or with `only` a command's name, one with just that command's module.

    Importing every command module to parse `advisor ask` would cost more than the answer; the
    full parser is still built for `advisor --help` and for unknown commands.
    """
    parser = _Parser(
        prog="advisor",
        description="Answers questions about renting and orchestrating cloud GPUs, and recommends a set-up.",
        epilog="Run `advisor` alone on a terminal to open the interactive app.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    seen: set[str] = set()
    for command in COMMANDS if only is None else (only,):
        module_name = COMMANDS[command]
        if module_name not in seen:
            seen.add(module_name)
            importlib.import_module(f"advisor.commands.{module_name}").add_parser(sub)
    return parser


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
        print(f"advisor: error: unknown command '{argv[0]}'; did you mean: {meant}", file=sys.stderr)
        return 2
    if _looks_like_question(argv):  # `advisor "mig la gi"` is a question
        argv = ["ask", *argv]
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
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
        _error(f"advisor: error: {error}")
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

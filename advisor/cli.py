"""The `advisor` command line: a thin argparse layer over the engine.

Each command lives in `advisor/commands/<name>.py` with `add_parser()` and `run()`; modules import
their heavy dependencies inside `run()`, so building the parser stays cheap and `advisor ask`
never loads Textual.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from advisor.problems import DataError, UsageError

COMMANDS: tuple[str, ...] = ("ask", "show", "list", "check", "recommend", "guide", "tree", "providers", "tui")
_MODULES = {"ask": "ask", "show": "ask", "list": "ask", "check": "check", "recommend": "decide", "guide": "decide", "tree": "decide", "providers": "providers", "tui": "tui"}


class _Parser(argparse.ArgumentParser):
    """argparse that exits with status 2 and one line, the documented usage-error contract."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="advisor",
        description="Answers questions about renting and orchestrating cloud GPUs, and recommends a set-up.",
        epilog="Run `advisor` alone on a terminal to open the interactive app.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    seen: set[str] = set()
    for command in COMMANDS:
        module_name = _MODULES[command]
        if module_name in seen:
            continue
        seen.add(module_name)
        try:
            module = importlib.import_module(f"advisor.commands.{module_name}")
        except ModuleNotFoundError:
            continue
        module.add_parser(sub)
    return parser


def _looks_like_question(argv: Sequence[str]) -> bool:
    return bool(argv) and argv[0] not in COMMANDS and not argv[0].startswith("-")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            pass
    if _looks_like_question(argv):  # `advisor "mig la gi"` is a question
        argv = ["ask", *argv]
    parser = build_parser()
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
    except UsageError as error:
        print(f"advisor: error: {error}", file=sys.stderr)
        return 2
    except DataError as error:
        print(error.problem, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`advisor list | head`): stop quietly, as Unix tools do.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as error:  # disk full, permission denied, a folder that vanished mid-run
        print(f"advisor: error: {error.strerror or error}{f': {error.filename}' if error.filename else ''}", file=sys.stderr)
        return 2

"""`advisor tui` (and `advisor` alone on a terminal): the interactive Textual app.

Textual costs about 300 ms to import, so it is imported inside `run()` only: building the
parser for `advisor ask` never touches it.
"""

from __future__ import annotations

from advisor.commands.common import KB_OPTION, Command, kb_root, lang_option
from advisor.problems import UsageError

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    import argparse


def run(args: argparse.Namespace) -> int:
    """Run the app; its exit status is non-zero when it crashed or was ended by a signal.

    Without a terminal (cron, CI, a pipe) Textual would draw into the void and spin, so that is
    refused with one line. Textual reads keys from standard input and draws on standard error.
    """
    import sys
    from pathlib import Path

    from advisor.i18n import default_language, t
    from advisor.terminal import is_terminal

    if not (is_terminal(sys.stdin) and is_terminal(sys.__stderr__)):  # type: ignore[arg-type]
        raise UsageError(t("tui_needs_terminal", args.lang or default_language()))
    root = Path(kb_root(args))
    from advisor.tui.app import AdvisorApp

    app = AdvisorApp(kb=root, lang=args.lang)
    app.run()
    return app.return_code or 0


COMMAND_LINES = (Command("tui", run, (lang_option("cli_arg_lang_tui"), KB_OPTION)),)

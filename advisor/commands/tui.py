"""`advisor tui` (and `advisor` alone on a terminal): the interactive Textual app.

Textual costs about 300 ms to import, so it is imported inside `run()` only: building the
parser for `advisor ask` never touches it.
"""

from __future__ import annotations

import argparse
from typing import Any

from advisor.commands.common import add_kb_option, add_lang_option, kb_root
from advisor.problems import UsageError


def add_parser(sub: Any) -> None:
    tui = sub.add_parser(
        "tui",
        help="cli_help_tui",
        description="cli_desc_tui",
    )
    add_lang_option(tui, "cli_arg_lang_tui")
    add_kb_option(tui)
    tui.set_defaults(run=run)


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

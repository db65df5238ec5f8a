"""`advisor tui` (and `advisor` alone on a terminal): the interactive Textual app.

Textual costs about 300 ms to import, so it is imported inside `run()` only: building the
parser for `advisor ask` never touches it.
"""

from __future__ import annotations

import argparse
from typing import Any

from advisor.commands.common import add_kb_option, add_lang_option, kb_root


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
    from pathlib import Path

    root = Path(kb_root(args))
    from advisor.tui.app import AdvisorApp

    AdvisorApp(kb=root, lang=args.lang).run()
    return 0

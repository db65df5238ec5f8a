"""`advisor index`: build (or check and refresh) a knowledge folder's search index ahead of time.

Any command builds the index when it needs it; for a folder of many thousand entries that first
build takes a while, so authors can run it here, with progress, and the first question is then
answered at once. It also checks every file even where a large folder is otherwise checked
through its folders (an entry rewritten in place), and removes the cache files of knowledge
folders and tree files that no longer exist.
"""

from __future__ import annotations

import os
import sys
import time

from advisor.commands.common import KB_OPTION, Command, kb_root, lang_option, report_problems

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    import argparse


def run(args: argparse.Namespace) -> int:
    from advisor.i18n import default_language, t
    from advisor.library import open_index
    from advisor.search.cache import cache_file, remove_stale
    from advisor.terminal import ProgressBar, is_terminal

    lang = args.lang or default_language()
    root = kb_root(args)
    path = cache_file(root)
    before = _stamp(path)
    removed = remove_stale()  # before the build, which would otherwise remove them unreported
    bar = ProgressBar(t("index_progress", lang)) if is_terminal(sys.stderr) else None
    started = time.perf_counter()
    try:
        index = open_index(root, refresh=True, progress=bar.update if bar else None)
    finally:
        if bar is not None:
            bar.close()
    seconds = f"{time.perf_counter() - started:.1f}"
    report_problems(index.problems)
    after = _stamp(path)
    if after is None:
        print(t("index_not_saved", lang, entries=len(index.entries), seconds=seconds, path=path))
    elif after == before:
        print(t("index_current", lang, entries=len(index.entries), seconds=seconds, path=path))
    else:
        print(t("index_built", lang, entries=len(index.entries), seconds=seconds, path=path))
    if removed:
        print(t("index_removed", lang, count=len(removed)))
    return 0


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_ino, stat.st_mtime_ns


COMMAND_LINES = (Command("index", run, (lang_option("cli_arg_lang_interface"), KB_OPTION)),)

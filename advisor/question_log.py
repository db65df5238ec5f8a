"""Keeping the questions the knowledge answered poorly, when the user has turned learning on
(`advisor learn on`): the side of `advisor.learning` that every question passes through, kept
apart so that `advisor ask` imports only this (`advisor.learning` reviews and edits entries).

Kept: each question that got no answer or a doubtful one (the confidence under
`WELL_ANSWERED`), and each "did you mean" choice made in the app, appended to a log in the
config folder. Nothing leaves the machine, and nothing is kept until the user turns it on:
questions can hold what users would not want kept.
"""

from __future__ import annotations

import os
import stat
import time

from advisor.paths import config_root

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from advisor.reply import Reply

LOG_FILE = "questions.jsonl"
SWITCH_FILE = "learning-on"
# Answers shown at this confidence or more were right 84 % of the time on the real questions
# never tuned on (README, "Answer quality"); below it, the right entry's words are worth adding.
WELL_ANSWERED = 80.0
# The log stops growing past this size (about 20,000 questions): a forgotten switch must not
# fill a disk. `advisor learn clear` empties it.
MAX_LOG_BYTES = 5_000_000
# What a logged question keeps: enough to review it, never the answer text.
MAX_QUESTION_CHARS = 500


def is_on(folder: str | None = None) -> bool:
    return os.path.exists(os.path.join(folder or config_root(), SWITCH_FILE))


def switch(on: bool, folder: str | None = None) -> None:
    """Turn learning on or off; the questions already logged stay until `clear`."""
    folder = folder or config_root()
    path = os.path.join(folder, SWITCH_FILE)
    if on:
        os.makedirs(folder, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass
    elif os.path.lexists(path):
        os.remove(path)


def log_path(folder: str | None = None) -> str:
    return os.path.join(folder or config_root(), LOG_FILE)


def note_answer(reply: Reply, folder: str | None = None) -> bool:
    """Log `reply`'s question when learning is on and its answer is worth an author's look (none,
    or a doubtful one). Never raises: a log that cannot be written costs the user nothing.
    Returns whether it was logged."""
    from advisor.reply import KNOWLEDGE, NONE

    if reply.kind == KNOWLEDGE:
        score = reply.article.score if reply.article is not None else None
        if score is None or score >= WELL_ANSWERED:
            return False
    elif reply.kind != NONE:
        return False  # the provider catalogue answered
    return _append(reply.question, reply.lang, None, folder)


def note_choice(question: str, lang: str | None, entry: str, folder: str | None = None) -> bool:
    """Log that the user chose `entry` among the suggestions offered for `question` (the
    strongest sign of where a question belongs), when learning is on."""
    return _append(question, lang, entry, folder)


def _append(question: str, lang: str | None, picked: str | None, folder: str | None) -> bool:
    folder = folder or config_root()
    if not is_on(folder):
        return False
    from advisor.textnorm import json_dumps

    record = {"when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "q": question[:MAX_QUESTION_CHARS], "lang": lang, "picked": picked}
    data = (json_dumps(record) + "\n").encode("utf-8")
    try:
        # Non-blocking: a FIFO in the log's place fails at once rather than hang the answer.
        handle = os.open(log_path(folder), os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
        try:
            info = os.fstat(handle)
            if not stat.S_ISREG(info.st_mode) or info.st_size + len(data) > MAX_LOG_BYTES:
                return False  # a device or a terminal in its place is never written to
            os.write(handle, data)  # one write in append mode: lines of two processes never mix
        finally:
            os.close(handle)
    except OSError:
        return False
    return True

"""Learning from the questions users really ask: the questions the knowledge answered poorly,
kept on this machine when the user turns it on, for authors to add as alternate questions.

A FAQ learns the words real users bring only when someone adds them to its entries. With
learning on (`advisor learn on`), every question that got no answer or a doubtful one (the
confidence under `WELL_ANSWERED`), and every "did you mean" choice made in the app, is appended
to a log in the config folder. `review` ranks the logged questions again with the current
knowledge (what is answered well by now drops out), groups them under the entry each one
belongs to (the one the user chose, else the best-ranked) and counts repeats; `add_question`
writes one into an entry's `questions:` list. Nothing leaves the machine, and learning is off
until the user turns it on: questions can hold what users would not want kept.
"""

from __future__ import annotations

import os
import time
from collections import namedtuple

from advisor.problems import Problem

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from pathlib import Path

    from advisor.reply import Reply
    from advisor.search.index import SearchIndex

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


# namedtuples, not dataclasses: see `advisor.problems.Problem`.
class Logged(namedtuple("Logged", ("line", "question", "lang", "picked", "when"))):
    """A logged question: its `line` in the log, the `question`, the answer language it was
    asked in, the entry the user `picked` from the suggestions (or None) and `when` (ISO 8601)."""

    __slots__ = ()


class Proposal(namedtuple("Proposal", ("entry", "lang", "question", "lines", "picked", "confidence"))):
    """A question to add to an entry: the `entry` id (None when nothing ranks), the language of
    the entry file it belongs in, the `question` as first asked, the log `lines` that asked it
    (repeats included), whether the user `picked` that entry, and the confidence it gets now."""

    __slots__ = ()


def config_folder() -> str:
    from advisor.paths import config_root

    return config_root()


def is_on(folder: str | None = None) -> bool:
    return os.path.exists(os.path.join(folder or config_folder(), SWITCH_FILE))


def switch(on: bool, folder: str | None = None) -> None:
    """Turn learning on or off; the questions already logged stay until `clear`."""
    folder = folder or config_folder()
    path = os.path.join(folder, SWITCH_FILE)
    if on:
        os.makedirs(folder, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass
    elif os.path.lexists(path):
        os.remove(path)


def log_path(folder: str | None = None) -> str:
    return os.path.join(folder or config_folder(), LOG_FILE)


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
    folder = folder or config_folder()
    if not is_on(folder):
        return False
    from advisor.textnorm import json_dumps

    record = {"when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "q": question[:MAX_QUESTION_CHARS], "lang": lang, "picked": picked}
    data = (json_dumps(record) + "\n").encode("utf-8")
    try:
        handle = os.open(log_path(folder), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            if os.fstat(handle).st_size + len(data) > MAX_LOG_BYTES:
                return False
            os.write(handle, data)  # one write in append mode: lines of two processes never mix
        finally:
            os.close(handle)
    except OSError:
        return False
    return True


def read_log(path: str) -> tuple[list[Logged], list[Problem]]:
    """The questions logged at `path` (none when there is no log), and a problem for each line
    that is not a record advisor wrote (skipped, never fatal)."""
    import json

    from advisor.files import read_text

    if not os.path.lexists(path):
        return [], []
    try:
        text = read_text(path, MAX_LOG_BYTES + 65_536)
    except ValueError as error:
        return [], [Problem(path, 1, str(error))]
    logged: list[Logged] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        question = record.get("q") if isinstance(record, dict) else None
        if not isinstance(question, str) or not question.strip():
            problems.append(Problem(path, number, "not a logged question; skipped", warning=True))
            continue
        lang, picked, when = (record.get(key) for key in ("lang", "picked", "when"))
        logged.append(Logged(number, question.strip(), lang if isinstance(lang, str) else None, picked if isinstance(picked, str) else None, when if isinstance(when, str) else ""))
    return logged, problems


def review(index: SearchIndex, logged: list[Logged]) -> tuple[list[Proposal], int]:
    """The logged questions worth adding, ranked again with `index`, and how many are answered
    well by now. A question asked again (the same words, marks and case aside) is one proposal
    with every line that asked it; proposals come entry by entry, the most asked first."""
    from advisor.reply import KNOWLEDGE, answer
    from advisor.textnorm import fold

    groups: dict[str, list[Logged]] = {}
    for item in logged:
        groups.setdefault(" ".join(fold(item.question).split()), []).append(item)
    proposals: list[Proposal] = []
    answered_now = 0
    for items in groups.values():
        first = items[0]
        picked = next((item.picked for item in reversed(items) if item.picked and index.entry_index(item.picked, None) is not None), None)
        reply = answer(index, first.question, first.lang)
        shown = reply.article.id if reply.kind == KNOWLEDGE and reply.article is not None else None
        confidence = reply.outcome.confidence if reply.outcome.best is not None else 0.0
        if shown is not None and confidence >= WELL_ANSWERED and picked in (None, shown):
            answered_now += len(items)
            continue
        # What the user would see now: the answer, else the first "did you mean" choice; a
        # question nothing is offered for ("thủ đô của pháp là gì") goes to no entry.
        offered = shown or next((topic for topic, _ in reply.suggestions), None)
        entry = picked or offered
        lang = first.lang or reply.lang or "en"
        best = reply.outcome.best
        score = confidence if best is not None and entry == best.topic else 0.0
        proposals.append(Proposal(entry, lang, first.question, tuple(item.line for item in items), picked is not None, round(score, 1)))
    proposals.sort(key=lambda p: (p.entry is None, p.entry or "", p.lang, -len(p.lines), p.lines[0]))
    return proposals, answered_now


def add_question(path: Path, question: str) -> None:
    """Add `question` to the `questions:` list in the front matter of the entry file at `path`,
    written atomically; the file is read back as an entry first, so a change that would break
    it is never written. Raises `InvalidInput` (one line, naming the file) when it cannot be done."""
    from advisor.files import atomic_write, read_text
    from advisor.knowledge.load import parse_entry
    from advisor.problems import InvalidInput
    from advisor.textnorm import json_dumps

    text = read_text(path)
    lines = text.splitlines(keepends=True)
    start = next((number for number, line in enumerate(lines) if line.rstrip() == "questions:"), None)
    if start is None:
        raise InvalidInput(f"{path}: no block 'questions:' list in the front matter; add the question by hand")
    end = start + 1
    while end < len(lines) and (lines[end].startswith((" ", "\t", "-")) or not lines[end].strip()):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    items = [line for line in lines[start + 1 : end] if line.lstrip().startswith("- ")]
    indent = items[-1][: len(items[-1]) - len(items[-1].lstrip())] if items else "  "
    one_line = " ".join(question.split())
    updated = "".join([*lines[:end], f"{indent}- {json_dumps(one_line)}\n", *lines[end:]])
    before, _ = parse_entry(path, text, str(path))
    if before is not None and one_line in before.questions:
        return
    after, problems = parse_entry(path, updated, str(path))
    if after is None or before is None or after.questions != (*before.questions, one_line):
        reason = problems[0].message if problems else "the list would not read back as it should"
        raise InvalidInput(f"{path}: cannot add the question ({reason}); add it by hand")
    atomic_write(path, updated, force=True)

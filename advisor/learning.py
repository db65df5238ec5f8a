"""Learning from the questions users really ask: reviewing the questions the knowledge answered
poorly (kept by `advisor.question_log` when the user turned learning on) and adding one to an
entry as an alternate question.

A FAQ learns the words real users bring only when someone adds them to its entries. `review`
ranks the kept questions again with the current knowledge (what is answered well by now drops
out), groups them under the entry each one belongs to (the one the user chose, else the one
offered first) and counts repeats; `add_question` writes one into an entry's `questions:` list.
"""

from __future__ import annotations

import os
from collections import namedtuple

from advisor.i18n import LANGUAGES
from advisor.problems import Problem
from advisor.question_log import MAX_LOG_BYTES, WELL_ANSWERED

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from pathlib import Path

    from advisor.search.index import SearchIndex


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
        logged.append(Logged(number, question.strip(), lang if lang in LANGUAGES else None, picked if isinstance(picked, str) else None, when if isinstance(when, str) else ""))
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

    try:
        text = read_text(path)
    except ValueError as error:  # removed or replaced since the index was built
        raise InvalidInput(f"{path}: {error}") from None
    lines = text.splitlines(keepends=True)
    # The front matter: from the first line to the next "---" line (the body is never touched).
    closing = next((number for number, line in enumerate(lines[1:], start=1) if line.strip() == "---"), 0)
    start = next((number for number in range(1, closing) if lines[number].rstrip() == "questions:"), None)
    if start is None:
        raise InvalidInput(f"{path}: no block 'questions:' list in the front matter; add the question by hand")
    end = start + 1
    while end < closing and (lines[end].startswith((" ", "\t", "- ")) or not lines[end].strip()):
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

"""Whether a question's first clause, asked alone, points at the entry the whole question does.

An issue's title, the sentence before the details: when it names the same entry as the whole
question, the answer is more often right (on `real-dev` and `dev`, answers near the threshold were
right 69-82 % of the time against 45-59 % when the two disagree), so the confidence hears it.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from collections.abc import Callable

    from advisor.search.rank import Outcome

# The end of a first clause: a dash between spaces (an issue's title and its text), a sentence's
# end followed by a space, or a line break. Compiled on first use, by `re`'s cache: a question of
# one sentence, ending in its question mark, needs no pattern at all.
_BOUNDARY = r" - |[.?!](?=\s)|\n"
MIN_CLAUSE_WORDS = 2
MIN_REST_WORDS = 3


def first_clause(question: str) -> str | None:
    """The question's first clause, when the question goes on for a few words after it."""
    if " - " not in question and "\n" not in question and not any(mark in question[:-1] for mark in ".?!"):
        return None  # no boundary can match
    end = re.search(_BOUNDARY, question)
    if end is None:
        return None
    clause, rest = question[: end.start()].strip(), question[end.end() :]
    if len(clause.split()) < MIN_CLAUSE_WORDS or len(rest.split()) < MIN_REST_WORDS:
        return None
    return clause


def clause_agreement(ask: Callable[[str], Outcome], question: str, topic: str) -> float:
    """1 when the first clause, ranked alone by `ask` (the search itself), puts `topic` first;
    -1 when it puts another entry first or none; 0 when the question has no first clause."""
    clause = first_clause(question)
    if clause is None:
        return 0.0
    best = ask(clause).best
    return 1.0 if best is not None and best.topic == topic else -1.0

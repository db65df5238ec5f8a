"""Problems found in data files, reported as `path:line: message`."""

# No `from __future__ import annotations`: typing.NamedTuple would compile each string annotation
# below at every start, ~0.1 ms a field, a tenth of the ask path's budget (issue 5).
from typing import NamedTuple


# A NamedTuple rather than a dataclass: `advisor ask` imports this module, and `dataclasses`
# (with the `inspect` and `ast` it pulls in) costs more start-up than the search (issue 5).
class Problem(NamedTuple):
    """One thing wrong with a data file; `line` is 1-based, 0 when no line applies.

    Immutable, compared and ordered field by field, as the frozen ordered dataclass it was.
    """

    path: str
    line: int
    message: str
    warning: bool = False

    def __str__(self) -> str:
        prefix = "warning: " if self.warning else ""
        return f"{self.path}:{self.line}: {prefix}{self.message}"


class DataError(Exception):
    """A data file that cannot be used at all; carries the problem to report."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


class UsageError(Exception):
    """Bad input from the user (arguments, answers files): exit status 2, one line."""

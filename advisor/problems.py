"""Problems found in data files, reported as `path:line: message`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with a data file; `line` is 1-based, 0 when no line applies."""

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

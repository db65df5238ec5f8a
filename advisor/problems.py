"""Problems found in data files, reported as `path:line: message`."""

from __future__ import annotations

from collections import namedtuple


# A `collections.namedtuple` rather than a dataclass or `typing.NamedTuple`: `advisor ask` imports
# this module, and `dataclasses` (with the `inspect` and `ast` it pulls in) or `typing` cost more
# start-up than the search itself (issue 5). The record stays immutable, compared and ordered
# field by field.
class Problem(namedtuple("Problem", ("path", "line", "message", "warning"), defaults=(False,))):
    """One thing wrong with a data file.

    Fields: `path` (str), `line` (int, 1-based; 0 when no line applies), `message` (str),
    `warning` (bool: reported, but not an error).
    """

    __slots__ = ()

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

"""What can go wrong, as the engine reports it: data-file problems and domain errors.

The engine raises these and never decides an exit status; `advisor.cli` maps every
`AdvisorError` to exit status 2 and one line on standard error, and the app shows the same line
as a notification.
"""

from __future__ import annotations

from collections import namedtuple


# A `collections.namedtuple`, not a dataclass or `typing.NamedTuple`: `advisor ask` imports this
# module, and dataclasses (with the inspect and ast it pulls in) cost it more than its search.
class Problem(namedtuple("Problem", ("path", "line", "message", "warning"), defaults=(False,))):
    """One thing wrong with a data file.

    Fields: `path` (str), `line` (int, 1-based; 0 when no line applies), `message` (str),
    `warning` (bool: reported, but not an error).
    """

    __slots__ = ()

    def __str__(self) -> str:
        prefix = "warning: " if self.warning else ""
        return f"{self.path}:{self.line}: {prefix}{self.message}"


class AdvisorError(Exception):
    """An error the user can act on; its message is one line.

    Raised with a label key of `advisor/locales` and the values it names
    (`UsageError("err_top_too_small")`), the error can say itself in any interface language
    (`text(lang)`); `str()` is the English. Any other first argument is the message itself.
    """

    def __init__(self, message: str = "", **values: object) -> None:
        self.key = message if message.startswith("err_") else None
        self.values = values
        if self.key is not None:
            from advisor.i18n import t

            message = t(self.key, "en", **values)
        super().__init__(message)

    def text(self, lang: str) -> str:
        """The message in `lang` (English when it was not raised with a label key)."""
        if self.key is None:
            return str(self)
        from advisor.i18n import t

        return t(self.key, lang, **self.values)


class DataError(AdvisorError):
    """A data file that cannot be used at all; carries the problem to report."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


class CacheDamaged(AdvisorError, ValueError):
    """A cache file (the index of a large knowledge folder) failed its checksum while in use."""

    def __init__(self, path: str) -> None:
        super().__init__(f"the cache file {path} is damaged; it has been removed and will be rebuilt")
        self.path = path


class InvalidInput(AdvisorError, ValueError):
    """A value the user gave the engine is not allowed: an answer, a need, a move in the guide."""


class OutputError(AdvisorError):
    """Output cannot be written where the user asked (a folder in the way, no space, no folder)."""


class OutputExists(OutputError):
    """The output file exists and replacing it was not asked for."""


class UsageError(AdvisorError):
    """Command-line misuse (arguments, files named on the command line); raised by `commands/` only."""

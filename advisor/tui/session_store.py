"""The wizard's autosave: one JSON file in the config folder, written after every answer.

No Textual here. Reading and writing go through `advisor.decision.session` (the same format `advisor
guide` uses); this class only adds the TUI's policy: a file that cannot be read is moved aside,
never deleted, so the app can start fresh and the user can still look at what went wrong.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from advisor.files import move_aside
from advisor.problems import OutputError
from advisor.decision.session import Session, SessionFileError, load_session, save_session
from advisor.decision.tree import Tree

SESSION_FILE = "tui-session.json"


@dataclass(frozen=True)
class Loaded:
    """What `SessionStore.load` found.

    Attributes:
        session: The saved session, or None when there was none (or it was unusable).
        moved_to: Where an unusable file was moved, when it was.
        problem: Why the file was unusable.
    """

    session: Session | None
    moved_to: Path | None = None
    problem: str | None = None


class SessionStore:
    """Saves and restores the wizard's session for `tree` in `folder`.

    Args:
        folder: The config folder.
        tree: The decision tree the session belongs to.
    """

    def __init__(self, folder: Path, tree: Tree) -> None:
        self.path = folder / SESSION_FILE
        self.tree = tree

    def load(self) -> Loaded:
        """The saved session; an unreadable file is moved aside and reported, not raised."""
        if not os.path.lexists(self.path):
            return Loaded(None)
        try:
            return Loaded(load_session(self.path, self.tree))
        except SessionFileError as error:
            problem = error.problem.message
        except (OSError, ValueError) as error:  # a folder in its place, a broken disk...
            problem = str(error)
        aside = move_aside(self.path)
        return Loaded(None, Path(aside) if aside else None, problem)

    def save(self, session: Session) -> str | None:
        """Write `session`; returns why it could not be saved, or None on success."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            save_session(session, self.path)
        except (OSError, ValueError, OutputError) as error:
            return str(error)
        return None

    def clear(self) -> None:
        """Forget the saved session (after the user declined to resume it)."""
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass

"""Reading entry files: size and encoding checks, and the front matter / body split.

Kept apart from `advisor.knowledge.load` so that printing an answer (which needs only the body) never
imports YAML or markdown-it.
"""

from __future__ import annotations

import os

MAX_FILE_BYTES = 1_000_000


class LineError(ValueError):
    """A file problem tied to a line (1-based)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def read_text(path: str | os.PathLike[str]) -> str:
    """Read a UTF-8 text file, raising `ValueError` with a precise reason otherwise."""
    try:
        if os.stat(path).st_size > MAX_FILE_BYTES:
            raise ValueError(f"file is larger than {MAX_FILE_BYTES:,} bytes")
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        raise ValueError(f"cannot read file: {error.strerror or error}") from None
    if b"\x00" in raw:
        raise ValueError("not a text file (contains NUL bytes)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise LineError(line, f"not valid UTF-8 (byte 0x{raw[error.start]:02x})") from None


def split_front_matter(text: str) -> tuple[str, str, int]:
    """Return (front matter, body, line where the body starts); `ValueError` if absent."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise LineError(1, "missing front matter: the file must start with a '---' line")
    for number, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return "".join(lines[1:number]), "".join(lines[number + 1 :]), number + 2
    raise LineError(1, "front matter is not closed by a '---' line")


def body_of(text: str) -> str:
    """The markdown body of an entry file, without parsing YAML (the fast path for answers)."""
    return split_front_matter(text)[1].strip()

"""An entry file's two parts, split without YAML: printing an answer needs only the body."""

from __future__ import annotations

from advisor.files import LineError


def split_front_matter(text: str) -> tuple[str, str, int]:
    """(front matter, body, line where the body starts); `LineError` when the front matter is absent."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise LineError(1, "missing front matter: the file must start with a '---' line")
    for number, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return "".join(lines[1:number]), "".join(lines[number + 1 :]), number + 2
    raise LineError(1, "front matter is not closed by a '---' line")


def body_of(text: str) -> str:
    """The Markdown body of an entry file."""
    return split_front_matter(text)[1].strip()

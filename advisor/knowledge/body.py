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


def sections(body: str) -> list[tuple[str, str]]:
    """The `##` sections of a body as (heading, text), after the opening answer; fenced code is
    kept whole, so a `## ` line inside a code block does not start a section."""
    found: list[tuple[str, list[str]]] = []
    fenced = False
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            found.append((line[3:].strip(), []))
        elif found:
            found[-1][1].append(line)
    return [(heading, "\n".join(lines).strip()) for heading, lines in found]


def opening(body: str) -> str:
    """The body before its first `##` section: the short answer."""
    fenced = False
    kept: list[str] = []
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            break
        kept.append(line)
    return "\n".join(kept).strip()


def anchor(heading: str) -> str:
    """The link anchor a Markdown renderer gives `heading` (GitHub's rule: lower case, spaces to
    hyphens, punctuation dropped), so `--json` can point at the section."""
    kept = "".join(ch for ch in heading.strip().lower() if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")

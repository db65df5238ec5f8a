"""An entry file's two parts, split without YAML: printing an answer needs only the body."""

from __future__ import annotations

from collections.abc import Iterator

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
    """The `##` sections of a body as (heading, text), after the opening answer."""
    lines = body.splitlines()
    starts = list(_section_starts(lines))
    return [(lines[start][3:].strip(), "\n".join(lines[start + 1 : end]).strip()) for start, end in zip(starts, [*starts[1:], len(lines)])]


def opening(body: str) -> str:
    """The body before its first `##` section: the short answer."""
    lines = body.splitlines()
    return "\n".join(lines[: next(_section_starts(lines), len(lines))]).strip()


def split_at_section(body: str, least_lines: int) -> tuple[str, str]:
    """`body` cut before the first `##` section that starts `least_lines` lines in or later, as
    (head, rest) with `head + "\n" + rest == body`; rest is "" when no section starts there.
    A reader shows the head at once and the rest after, so a long entry opens quickly."""
    lines = body.split("\n")  # not splitlines(): it drops a final newline, which the rest must keep
    cut = next((start for start in _section_starts(lines) if start >= max(least_lines, 1)), None)
    if cut is None:
        return body, ""
    return "\n".join(lines[:cut]), "\n".join(lines[cut:])


def _section_starts(lines: list[str]) -> Iterator[int]:
    """The numbers of the lines that open a `##` section; fenced code is kept whole, so a `## `
    line inside a code block does not start one."""
    fenced = False
    for number, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            yield number


def anchor(heading: str) -> str:
    """The link anchor a Markdown renderer gives `heading` (GitHub's rule: lower case, spaces to
    hyphens, punctuation dropped), so `--json` can point at the section."""
    kept = "".join(ch for ch in heading.strip().lower() if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")

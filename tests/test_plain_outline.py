"""A plainly written body is read without the CommonMark parser (`plain_outline`), to the same
short answer and headings the parser gives; whatever it is unsure of, it leaves to the parser."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import advisor.knowledge.outline as body_module
from advisor.knowledge.body import split_front_matter
from advisor.knowledge.outline import outline, plain_outline

REPO = Path(__file__).resolve().parent.parent
LINES = [
    "", " ", "Plain words here.", "more words, *emphasis* and `code`", "# Title", "## Section", "### Deep ##", "#no-space",
    "####### seven", "- item", "* star item", "+ plus item", "1. first", "2) second", "-  two spaces", "-", "1.", "- # heading in item",
    "- > quote in item", "  indented", "    code", "\tTab", "> quote", "<div>", "[ref]: https://example.com", "---", "***", "- - -",
    "===", "```", "```python", "~~~", "``` a`b", "    ```", "text with | pipes |", "\\# escaped", "| a | b |", "2024 was a year.",
    "+1 for this", "a line ending in two spaces  ", "  - nested", "**bold** start", "Ünïcödé wörds", "#", "## ",
]


def _parsed(body: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, tuple[str, ...]]:
    with monkeypatch.context() as patch:
        patch.setattr(body_module, "plain_outline", lambda body: None)
        return outline(body)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(LINES), min_size=1, max_size=12))
def test_the_plain_reading_agrees_with_the_parser(lines: list[str]) -> None:
    body = "\n".join(lines).strip()
    plain = plain_outline(body)
    if plain is not None:
        with pytest.MonkeyPatch.context() as monkeypatch:
            assert plain == _parsed(body, monkeypatch)


def test_generated_bodies_are_read_plainly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.generate import generate

    generate(200, tmp_path / "kb")
    for path in sorted((tmp_path / "kb" / "en").glob("*.md")):
        body = split_front_matter(path.read_text(encoding="utf-8"))[1].strip()
        assert plain_outline(body) == _parsed(body, monkeypatch) != ("", ())


def test_the_bundled_bodies_agree_whichever_way_they_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    for path in sorted((REPO / "knowledge").glob("*/*.md")):
        body = split_front_matter(path.read_text(encoding="utf-8"))[1].strip()
        assert outline(body) == _parsed(body, monkeypatch)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=40), st.integers(min_value=0, max_value=45))
@example(["", "## Section", ""], 0)  # a final newline after the cut: splitlines() lost it
def test_a_body_cut_for_the_reader_is_whole_again_and_cut_at_a_section(lines: list[str], least: int) -> None:
    """The reader shows the head of a long entry first and appends the rest: together they are
    the body, and the rest starts on a section's heading at or after `least` lines."""
    from advisor.knowledge.body import sections, split_at_section

    body = "\n".join(lines)
    head, rest = split_at_section(body, least)
    if not rest:
        assert head == body
        return
    assert head + "\n" + rest == body
    assert rest.startswith("## ") and len(head.split("\n")) >= least
    assert len(sections(rest)) >= 1 and sections(body)[-len(sections(rest)):] == sections(rest)

"""Nothing a user types or writes into a knowledge folder crashes advisor or escapes into the terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.cli import main
from advisor.index import load_index
from advisor.knowledge import collection_problems, load_knowledge
from tests.conftest import write_entry

PROBLEM_LINE = re.compile(r"^.+:\d+: .+$")

# Fragments that make YAML front matter go wrong in the ways people actually get it wrong.
FRAGMENTS = [
    "---\n", "id: x\n", "id: [\n", "lang: en\n", "lang: 5\n", "title:\n", "title: {a: 1}\n", "questions:\n",
    "  - q\n", "  - [nested]\n", "questions: 7\n", "keywords: [a, b\n", "related: [nope]\n", "sources: []\n",
    "!!python/object:os.system\n", "&a [*a]\n", "\t\tbad indent\n", ": :\n", "\x00", "\xff", "ü\n", "# comment\n",
    "Body paragraph.\n", "## Heading\n", "```\ncode\n", "\n",
]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=14), st.binary(max_size=40))
def test_loader_survives_generated_broken_files(tiny_kb: Path, pieces: list[str], noise: bytes) -> None:
    broken = tiny_kb / "en" / "broken.md"
    broken.write_bytes("".join(pieces).encode("utf-8", "surrogateescape") + noise)
    kb = load_knowledge(tiny_kb)
    problems = list(kb.problems) + collection_problems(kb, tiny_kb)
    assert all(PROBLEM_LINE.match(str(p)) and "\n" not in str(p) for p in problems)
    assert kb.get("pizza-oven", "en") is not None  # the rest still loads


@pytest.mark.parametrize(
    "content",
    [b"", b"\xef\xbb\xbf", b"---\n---\n", b"---\nid: broken\n" * 50_000, bytes(range(256)) * 10, b"---\n" + b"[" * 5000 + b"\n---\n"],
)
def test_pathological_files_are_problems_not_crashes(tiny_kb: Path, content: bytes) -> None:
    (tiny_kb / "en" / "broken.md").write_bytes(content)
    kb = load_knowledge(tiny_kb)
    assert any(str(p).startswith("kb/en/broken.md:") for p in kb.problems)


def test_terminal_escapes_in_a_users_knowledge_never_reach_the_terminal(tiny_kb: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    evil = "\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://evil\x1b\\click\x1b]8;;\x1b\\\x1b[2J"
    write_entry(tiny_kb, "en", "pizza-oven", title=f"Pizza {evil}ovens", body=f"Short answer {evil} here.\n\n## More\n\nText {evil}.")
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    for argv in (["ask", "--kb", str(tiny_kb), "pizza oven temperature"], ["show", "--kb", str(tiny_kb), "pizza-oven", "--lang", "en"], ["list", "--kb", str(tiny_kb)]):
        main(argv)
        out = capsys.readouterr().out
        assert "\x1b]" not in out and "\x1b[2J" not in out and "\x07" not in out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=200))
def test_json_output_is_always_valid_json(capsys: pytest.CaptureFixture[str], question: str) -> None:
    try:
        code = main(["ask", "--json", "--", question])
    except SystemExit as exit_:  # argparse on an option-looking argument
        code = exit_.code
    captured = capsys.readouterr()
    if code in (0, 1):
        data = json.loads(captured.out)
        assert data["answered"] is (code == 0)
    else:
        assert code == 2 and captured.err.count("\n") == 1


def test_over_long_question_is_cut_with_a_notice(capsys: pytest.CaptureFixture[str]) -> None:
    main(["ask", "--json", "mig " * 2000])
    captured = capsys.readouterr()
    assert "cut to 2000 characters" in captured.err
    assert json.loads(captured.out)["truncated"] is True


def test_index_of_an_empty_folder_answers_nothing(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    index = load_index(tmp_path / "empty")
    from advisor.search import search

    assert not search(index, "mig").answered

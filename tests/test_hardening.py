"""Nothing a user types or writes into a knowledge folder crashes advisor or escapes into the terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.cli import main
from advisor.library import open_index
from advisor.knowledge.load import collection_problems, load_knowledge
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
    index = open_index(tmp_path / "empty")
    from advisor.search.rank import search

    assert not search(index, "mig").answered


# ----------------------------------------------------------------------------- trees, answers, sessions

TREE_FRAGMENTS = [
    "id: t\n", "id: [\n", "version: 1\n", "questions:\n", "  - key: workload\n", "    options: []\n", "    options: 5\n",
    "    default: nope\n", "flow:\n", "  - id: a\n", "    ask: workload\n", "    next: {x: missing}\n", "    next: a\n",
    "rules:\n", "  - when: {workload: zzz}\n", "labels: {}\n", "!!python/object/apply:os.system ['true']\n", "\x00", "- - -\n",
]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from(TREE_FRAGMENTS), max_size=16), st.binary(max_size=30))
def test_tree_validator_survives_generated_broken_trees(pieces: list[str], noise: bytes) -> None:
    import tempfile

    from advisor.decision.validate import tree_problems

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tree.yaml"
        path.write_bytes("".join(pieces).encode() + noise)
        problems = tree_problems(path, {"mig"})
    assert problems, "a broken tree must report at least one problem"
    assert all(PROBLEM_LINE.match(str(p)) and "\n" not in str(p) for p in problems)


def test_python_tags_are_rejected_in_trees_and_answers_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.decision.validate import tree_problems

    marker = tmp_path / "pwned"
    payload = f"!!python/object/apply:os.system ['touch {marker}']"
    tree = tmp_path / "tree.yaml"
    tree.write_text(f"id: {payload}\n", encoding="utf-8")
    assert any("could not determine a constructor" in str(p) for p in tree_problems(tree, set()))
    answers = tmp_path / "answers.yaml"
    answers.write_text(f"workload: {payload}\n", encoding="utf-8")
    assert main(["recommend", "--answers", str(answers)]) == 2
    assert "constructor" in capsys.readouterr().err
    assert not marker.exists()


def test_future_version_session_is_moved_aside_not_deleted(tmp_path: Path) -> None:
    from advisor.decision.validate import bundled_tree_path, load_tree
    from advisor.tui.session_store import SESSION_FILE, SessionStore

    saved = tmp_path / SESSION_FILE
    saved.write_text(json.dumps({"schema": 99, "tree": "gpu-orchestration", "answers": []}), encoding="utf-8")
    loaded = SessionStore(tmp_path, load_tree(bundled_tree_path())).load()
    assert loaded.session is None and loaded.problem
    assert loaded.moved_to is not None and loaded.moved_to.read_text(encoding="utf-8").startswith('{"schema": 99')
    assert not saved.exists()


def test_export_to_a_missing_folder_or_over_an_existing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "plan.md"
    target.write_text("keep me", encoding="utf-8")
    assert main(["recommend", "-a", "workload=notebook", "-o", str(target)]) == 2
    assert target.read_text(encoding="utf-8") == "keep me"
    assert main(["recommend", "-a", "workload=notebook", "-o", str(tmp_path / "missing" / "plan.md")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("advisor: error:") for line in err)

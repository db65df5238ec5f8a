"""Learning from real questions: what is kept (and only when turned on), how the kept questions
are reviewed, and how one is written into an entry without breaking it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor import learning, question_log
from advisor.cli import main
from advisor.knowledge.load import parse_entry
from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir, config_root
from advisor.problems import InvalidInput
from advisor.reply import CATALOGUE, KNOWLEDGE, NONE, answer
from advisor.search.index import SearchIndex
from tests.conftest import write_entry

OFF_TOPIC = "thủ đô của pháp là gì"  # never answered (tests/test_reply.py)


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return open_index(bundled_knowledge_dir(), use_cache=False)


def _kept(folder: Path) -> list[dict[str, object]]:
    log = folder / question_log.LOG_FILE
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def test_nothing_is_kept_until_learning_is_turned_on(index: SearchIndex, tmp_path: Path) -> None:
    reply = answer(index, OFF_TOPIC)
    assert reply.kind == NONE
    assert not question_log.note_answer(reply, str(tmp_path))
    assert not question_log.note_choice(OFF_TOPIC, "vi", "mig", str(tmp_path))
    assert list(tmp_path.iterdir()) == []
    question_log.switch(True, str(tmp_path))
    assert question_log.note_answer(reply, str(tmp_path))
    question_log.switch(False, str(tmp_path))
    assert not question_log.note_answer(reply, str(tmp_path))
    assert [record["q"] for record in _kept(tmp_path)] == [OFF_TOPIC]  # turning off keeps what was kept


def test_only_poor_answers_and_choices_are_kept(index: SearchIndex, tmp_path: Path) -> None:
    folder = str(tmp_path)
    question_log.switch(True, folder)
    well = answer(index, "what is mig")
    assert well.kind == KNOWLEDGE and well.article is not None and well.article.score >= question_log.WELL_ANSWERED
    doubtful = answer(index, "pod ko len vi thieu gpu")
    assert doubtful.kind == KNOWLEDGE and doubtful.article is not None and doubtful.article.score < question_log.WELL_ANSWERED
    provider = answer(index, "does gke support mig")
    assert provider.kind == CATALOGUE
    assert [question_log.note_answer(reply, folder) for reply in (well, doubtful, provider, answer(index, OFF_TOPIC))] == [False, True, False, True]
    assert question_log.note_choice("gpu chia nho", "vi", "mig", folder)
    kept = _kept(tmp_path)
    assert [(record["q"], record["lang"], record["picked"]) for record in kept] == [
        ("pod ko len vi thieu gpu", "vi", None),
        (OFF_TOPIC, "vi", None),
        ("gpu chia nho", "vi", "mig"),
    ]
    assert all(str(record["when"]).startswith("20") for record in kept)
    assert (tmp_path / question_log.LOG_FILE).stat().st_mode & 0o077 == 0  # questions are the user's own


def test_the_log_stops_growing_at_its_cap_and_a_log_that_cannot_be_written_costs_nothing_and_never_hangs(index: SearchIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = str(tmp_path)
    question_log.switch(True, folder)
    monkeypatch.setattr(question_log, "MAX_LOG_BYTES", 200)
    reply = answer(index, OFF_TOPIC)
    assert question_log.note_answer(reply, folder)
    assert not question_log.note_answer(reply, folder)  # a second line would pass 200 bytes
    assert len(_kept(tmp_path)) == 1
    (tmp_path / question_log.LOG_FILE).unlink()
    (tmp_path / question_log.LOG_FILE).mkdir()  # in the way
    assert not question_log.note_answer(reply, folder)
    (tmp_path / question_log.LOG_FILE).rmdir()
    os.mkfifo(tmp_path / question_log.LOG_FILE)  # would block a plain open for writing forever
    assert not question_log.note_answer(reply, folder)
    (tmp_path / question_log.LOG_FILE).unlink()
    (tmp_path / question_log.LOG_FILE).symlink_to("/dev/null")  # not a regular file: never written
    assert not question_log.note_answer(reply, folder)


def test_a_damaged_line_is_skipped_with_its_line_number(tmp_path: Path) -> None:
    log = tmp_path / question_log.LOG_FILE
    log.write_text('{"q": "first", "lang": "en", "picked": null, "when": "x"}\nnot json\n\n{"q": 3}\n{"q": "second", "picked": "mig", "lang": "\\u001b[31mvi"}\n', encoding="utf-8")
    logged, problems = learning.read_log(str(log))
    assert [(item.line, item.question, item.lang, item.picked) for item in logged] == [(1, "first", "en", None), (5, "second", None, "mig")]
    assert [(problem.line, problem.warning) for problem in problems] == [(2, True), (4, True)]
    assert learning.read_log(str(tmp_path / "absent.jsonl")) == ([], [])


def test_review_groups_repeats_prefers_the_user_s_choice_and_drops_what_is_answered_well(index: SearchIndex) -> None:
    logged = [
        learning.Logged(1, "pod ko len vi thieu gpu", "vi", None, ""),
        learning.Logged(2, "how do i cook pho", "en", None, ""),
        learning.Logged(3, "Pod KO lên vì thiếu GPU", "vi", None, ""),
        learning.Logged(4, "gpu chia nho cho nhieu nguoi", "vi", "mig", ""),
        learning.Logged(5, "what is mig", "en", None, ""),
        learning.Logged(6, "gpu chia nho cho nhieu nguoi", "vi", None, ""),
        learning.Logged(7, "does the oven need wood", "en", "no-such-entry", ""),
    ]
    proposals, answered_now = learning.review(index, logged)
    assert answered_now == 1  # line 5
    by_first_line = {proposal.lines[0]: proposal for proposal in proposals}
    assert set(by_first_line) == {1, 2, 4, 7}
    assert by_first_line[1].lines == (1, 3) and by_first_line[1].entry == answer(index, "pod ko len vi thieu gpu").article.id  # type: ignore[union-attr]
    assert (by_first_line[4].entry, by_first_line[4].picked, by_first_line[4].lines) == ("mig", True, (4, 6))
    assert not by_first_line[7].picked  # a choice of an entry that no longer exists is ignored
    entries = [proposal.entry for proposal in proposals]
    assert entries == sorted(entries, key=lambda entry: entry is None)  # what nothing ranks for comes last


def test_an_added_question_lands_at_the_end_of_the_list_and_reads_back(tmp_path: Path) -> None:
    path = write_entry(tmp_path, "en", "pizza-oven", questions=["how hot is a pizza oven", "pizza oven fuel", "oven temperature", "wood or gas"])
    before = path.read_text(encoding="utf-8")
    question = 'my oven says "E3": what now? # not a comment'
    learning.add_question(path, question)
    after = path.read_text(encoding="utf-8")
    entry, problems = parse_entry(path, after, "x")
    assert problems == [] and entry is not None
    assert entry.questions == ("how hot is a pizza oven", "pizza oven fuel", "oven temperature", "wood or gas", question)
    assert after.replace(f'  - {json.dumps(question)}\n', "", 1) == before  # one line added, nothing else touched
    learning.add_question(path, question)  # already there: nothing changes
    assert path.read_text(encoding="utf-8") == after


def test_a_list_right_before_the_end_of_the_front_matter_is_extended_in_place(tmp_path: Path) -> None:
    path = tmp_path / "en" / "oven.md"
    path.parent.mkdir()
    path.write_text("---\nid: oven\nlang: en\ntitle: Oven\nkeywords: [oven]\nrelated: []\nsources:\n  - \"seed: test\"\nquestions:\n- how hot\n- fuel\n- temperature\n- wood\n---\nquestions:\n- not front matter\n", encoding="utf-8")
    learning.add_question(path, "gas or wood")
    text = path.read_text(encoding="utf-8")
    assert text.endswith('- wood\n- "gas or wood"\n---\nquestions:\n- not front matter\n')


@pytest.mark.parametrize(
    "front",
    ['questions: ["how hot", "fuel", "temperature", "wood"]\n', "keywords: [oven]\n"],
    ids=["flow-style", "no-list"],
)
def test_a_list_that_cannot_be_extended_safely_is_left_alone(tmp_path: Path, front: str) -> None:
    path = tmp_path / "en" / "oven.md"
    path.parent.mkdir()
    path.write_text(f"---\nid: oven\nlang: en\ntitle: Oven\n{front}related: []\nsources:\n  - \"seed: test\"\n---\nBody.\n", encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(InvalidInput, match="no block 'questions:' list"):
        learning.add_question(path, "a new question")
    assert path.read_bytes() == before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(question=st.text(min_size=1, max_size=80))
def test_any_question_is_added_exactly_or_refused_without_a_change(tmp_path: Path, question: str) -> None:
    path = write_entry(tmp_path, "vi", "lo-nuong", questions=["lò nóng bao nhiêu độ", "nhiên liệu", "nhiệt độ", "củi hay ga"])
    original = path.read_bytes()
    try:
        learning.add_question(path, question)
    except InvalidInput:
        assert path.read_bytes() == original
    else:
        entry, _ = parse_entry(path, path.read_text(encoding="utf-8"), "x")
        assert entry is not None
        wanted = " ".join(question.split())
        assert entry.questions[-1] == wanted or (wanted in entry.questions[:-1] and path.read_bytes() == original)
    finally:
        path.write_bytes(original)


# ----------------------------------------------------------------------------- the command


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["learn", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_on_ask_review_add_and_clear_from_the_command_line(capsys: pytest.CaptureFixture[str], tiny_kb: Path) -> None:
    config = Path(config_root())
    code, out, _ = _run(capsys, "--lang", "en")
    assert code == 0 and out.startswith("Learning is off")
    assert _run(capsys, "on", "--lang", "en")[1].startswith("Learning is on.")
    main(["ask", "--kb", str(tiny_kb), "oven too cold for neapolitan crust"])  # poorly answered
    main(["ask", "--kb", str(tiny_kb), "how hot is a pizza oven"])  # answered well: not kept
    capsys.readouterr()
    assert [record["q"] for record in _kept(config)] == ["oven too cold for neapolitan crust"]

    code, out, _ = _run(capsys, "--kb", str(tiny_kb), "--json")
    data = json.loads(out)
    assert code == 0 and data["learning"] is True and data["logged"] == 1
    (proposal,) = data["proposals"]
    assert proposal == {"number": 1, "question": "oven too cold for neapolitan crust", "entry": "pizza-oven", "lang": "en", "asked": 1, "picked": False, "confidence": proposal["confidence"]}

    code, out, _ = _run(capsys, "add", "1", "--kb", str(tiny_kb), "--lang", "en")
    assert code == 0 and "pizza-oven.md" in out
    assert "oven too cold for neapolitan crust" in (tiny_kb / "en" / "pizza-oven.md").read_text(encoding="utf-8")
    code, out, _ = _run(capsys, "--kb", str(tiny_kb), "--lang", "en")
    assert "1 answered well by now; 0 to review" in out  # the index was rebuilt with the new question

    assert _run(capsys, "off", "--lang", "en")[1].startswith("Learning is off. The question kept so far stays")
    assert _run(capsys, "clear", "--lang", "en")[1] == "Removed the question that was kept.\n"
    assert not (config / question_log.LOG_FILE).exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["frobnicate"], "'frobnicate' is not something learn does"),
        (["on", "now"], "'on now' is not something learn does"),
        (["add", "x"], "'add x' is not something learn does"),
        (["add", "7"], "no question kept has the number 7"),
    ],
)
def test_misuse_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tiny_kb: Path, argv: list[str], message: str) -> None:
    code, out, err = _run(capsys, *argv, "--kb", str(tiny_kb), "--lang", "en")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_an_entry_file_gone_or_replaced_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="cannot read file"):
        learning.add_question(tmp_path / "gone.md", "a question")
    (tmp_path / "folder.md").mkdir()
    with pytest.raises(InvalidInput, match="not a regular file|cannot read file"):
        learning.add_question(tmp_path / "folder.md", "a question")


def test_an_entry_that_cannot_take_the_question_is_one_error_line(capsys: pytest.CaptureFixture[str], tiny_kb: Path) -> None:
    question_log.switch(True)
    main(["ask", "--kb", str(tiny_kb), "oven too cold for neapolitan crust"])
    entry = tiny_kb / "en" / "pizza-oven.md"
    text = entry.read_text(encoding="utf-8")
    start, end = text.index("questions:"), text.index("keywords:")
    entry.write_text(text[:start] + 'questions: ["how hot is a pizza oven", "wood fired oven temperature", "pizza oven fuel", "neapolitan pizza baking"]\n' + text[end:], encoding="utf-8")
    capsys.readouterr()
    code, out, err = _run(capsys, "add", "1", "--kb", str(tiny_kb), "--lang", "en")
    assert code == 2 and out == ""
    assert err.startswith("advisor: error: ") and err.count("\n") == 1 and "add the question by hand" in err


def test_the_bundled_knowledge_is_never_written(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "add", "1", "--lang", "en")
    assert code == 2 and "bundled knowledge" in err and "--kb" in err


def test_asking_with_learning_off_creates_no_file(tmp_path: Path, tiny_kb: Path) -> None:
    main(["ask", "--kb", str(tiny_kb), "oven too cold for neapolitan crust"])
    assert not os.path.exists(os.path.join(config_root(), question_log.LOG_FILE))

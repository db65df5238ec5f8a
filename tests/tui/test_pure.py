"""The TUI's Textual-free helpers, tested directly with plain inputs and outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from advisor.search.index import SearchIndex
from advisor.decision.session import Session, save_session
from advisor.decision.validate import bundled_tree_path, load_tree
from advisor.reply import entry_article
from advisor.tui.key_labels import binding_label, key_display
from advisor.tui.question_history import QuestionHistory
from advisor.search.suggest import QuestionSuggester
from advisor.tui.session_store import SESSION_FILE, SessionStore
from advisor.tui.settings import Settings, load_settings, save_settings


@pytest.fixture(scope="module")
def suggester(kb_index: SearchIndex) -> QuestionSuggester:
    return QuestionSuggester(kb_index)


@pytest.mark.parametrize(
    ("typed", "lang", "topic"),
    [
        ("what is time sl", "en", "time-slicing"),  # "time slicing" is one token once complete
        ("what is mig", "en", "mig"),
        ("share one gpu betw", "en", "faq-multiple-jobs-one-gpu"),
        ("spot", "en", "spot-nodes"),
        # A bare "nvidia-smi" is mostly typed when it is missing; the entry about that leads
        # (the knowledge grew: driver-cuda-compat only names it as a way to read the version).
        ("nvidia-smi", "en", "container-cannot-see-gpu"),
        ("nvidia-smi shows cuda 12.2 but my im", "en", "driver-cuda-compat"),
        ("chia sẻ GPU cho nhi", "en", "gpu-sharing"),  # Vietnamese typing wins over the preference
        # "Do I need Kubernetes to run AI workloads?" is when-k8s-worth-it's, written since.
        ("do I need kub", "en", "when-k8s-worth-it"),
        ("one gpu, one model, do I need kub", "en", "faq-k8s-single-job"),
        ("how do I split an A100 into MIG inst", "en", "mig-setup-profiles"),
        ("pod pending insufficient nvidia.com/g", "en", "pods-pending-gpu"),
        ("gpu operator vs device pl", "en", "gpu-operator"),
        ("kubernets timesl", "en", "time-slicing"),  # a typo, then half a word
        ("mig la g", "en", "mig"),
        ("spot gpu bị thu h", "vi", "spot-nodes"),
        ("co the chay nhieu job tren mot g", "vi", "faq-multiple-jobs-one-gpu"),
    ],
)
def test_suggestions_put_the_intended_topic_first(suggester: QuestionSuggester, typed: str, lang: str, topic: str) -> None:
    found = suggester.suggest(typed, lang)
    assert found and found[0].topic == topic


# Half-typed questions judged: one development question in HALF_TYPED_EVERY, chosen by a hash of
# its text, so the sample keeps its questions as the sets grow every round (an even spread by
# position changed most of its 600 questions when 366 joined on 2026-12-08, and moved top-3 from
# 90.5 to 87.8 % with the suggestions unchanged: over all 3,827 questions 89.5 -> 89.7 %).
HALF_TYPED_EVERY = 6


def test_half_typed_development_questions_mostly_suggest_their_topic_first(suggester: QuestionSuggester) -> None:
    """The development questions with an expected topic, cut at 70% of their length (often in the
    middle of a word), as they are while being typed: the topic leads for most, and is among the
    first three for nearly all (85 % and 92 % of all 2,937 when this was written; 83 % and 90.5 %
    of the 609 judged on 2026-12-08)."""
    folder = Path(__file__).resolve().parents[1] / "eval"
    cases = [json.loads(line) for name in ("dev.jsonl", "real-dev.jsonl") for line in (folder / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    cases = [(case["q"][: int(len(case["q"]) * 0.7)], case["expect"]) for case in cases if case.get("expect") and zlib.crc32(case["q"].encode()) % HALF_TYPED_EVERY == 0]
    firsts = [[s.topic for s in suggester.suggest(typed, "en")[:3]] for typed, _ in cases]
    first = sum(bool(found) and found[0] == topic for found, (_, topic) in zip(firsts, cases)) / len(cases)
    top3 = sum(topic in found for found, (_, topic) in zip(firsts, cases)) / len(cases)
    assert first >= 0.78 and top3 >= 0.88


def test_in_a_large_folder_a_typo_of_a_common_word_suggests_nothing_as_the_word_does(kb_index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above PREFILTER_TOPICS topics (forced here), words most topics hold name no topic: ranking
    them walked a tenth of a 100,000-entry index on a keystroke. "kubernets" is that word too."""
    import advisor.search.suggest as suggest

    monkeypatch.setattr(suggest, "PREFILTER_TOPICS", 0)
    large = QuestionSuggester(kb_index)
    assert large.suggest("kubernetes ", "en") == large.suggest("kubernets ", "en") == []
    assert [s.topic for s in large.suggest("kubernets slurm ", "en")][:1] == ["slurm-on-kubernetes"]  # a rare word still ranks


@pytest.mark.parametrize("typed", ["", "   ", "xyzzy plugh", "wh", "the and of"])
def test_no_suggestions_for_noise_or_too_little(suggester: QuestionSuggester, typed: str) -> None:
    assert suggester.suggest(typed, "en") == []


def test_suggestions_are_one_per_topic_in_the_wanted_language(suggester: QuestionSuggester, kb_index: SearchIndex) -> None:
    found = suggester.suggest("gpu shar", "vi", limit=5)
    assert len({s.topic for s in found}) == len(found) == 5
    assert all(kb_index.meta(s.entry).lang == "vi" for s in found)


def test_a_huge_paste_is_matched_on_its_start_only(suggester: QuestionSuggester) -> None:
    import time

    started = time.perf_counter()
    suggester.suggest("mig " + "x" * 100_000, "en")
    assert time.perf_counter() - started < 0.05


def test_history_walks_back_and_returns_the_draft() -> None:
    history = QuestionHistory(limit=3)
    assert history.previous("draft") is None
    for question in ("a", "b", "b", "c", "d"):
        history.add(question)
    assert history.items == ["b", "c", "d"]  # no repeats in a row, oldest dropped
    assert [history.previous("draft"), history.previous("x"), history.previous("x"), history.previous("x")] == ["d", "c", "b", None]
    assert [history.next(), history.next(), history.next(), history.next()] == ["c", "d", "draft", None]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"lang": "vi", "theme": "nord"}', Settings("vi", "nord")),
        ('{"lang": "fr"}', Settings("en", "")),
        ('{"lang": ["vi"], "theme": 3}', Settings("en", "")),
        ("[1, 2]", Settings("en", "")),
        ("not json", Settings("en", "")),
        (None, Settings("en", "")),
    ],
)
def test_settings_fall_back_to_defaults(tmp_path: Path, content: str | None, expected: Settings) -> None:
    path = tmp_path / "settings.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert load_settings(path).settings == expected


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda path: path.write_text("[" * 20_000 + "]" * 20_000, encoding="utf-8"), "nested too deeply"),
        (lambda path: path.write_text("not json", encoding="utf-8"), "Expecting value"),
        (lambda path: path.write_text("[1, 2]", encoding="utf-8"), "expected a JSON object"),
        (lambda path: os.mkfifo(path), "not a regular file"),
        (lambda path: path.symlink_to("/dev/zero"), "not a regular file"),
    ],
    ids=["deep-nesting", "not-json", "not-an-object", "fifo", "dev-zero-link"],
)
def test_unreadable_settings_are_moved_aside_with_the_reason(tmp_path: Path, make: Callable[[Path], object], reason: str) -> None:
    path = tmp_path / "tui-settings.json"
    make(path)
    loaded = load_settings(path, default_lang="vi")
    assert loaded.settings == Settings("vi", "")
    assert reason in (loaded.problem or "")
    assert loaded.moved_to is not None and os.path.lexists(loaded.moved_to) and not os.path.lexists(path)


def test_settings_round_trip_and_unwritable_folder(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "settings.json"
    assert save_settings(path, Settings("vi", "gruvbox"))
    assert load_settings(path).settings == Settings("vi", "gruvbox")
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    assert not save_settings(blocker / "settings.json", Settings())


@pytest.mark.parametrize(
    ("key", "shown"),
    [("ctrl+q", "Ctrl+Q"), ("question_mark", "?"), ("escape,f1", "Esc / F1"), ("up", "↑"), ("e", "e"), ("ctrl+e", "Ctrl+E"), ("1-9", "1-9")],
)
def test_key_display(key: str, shown: str) -> None:
    assert key_display(key) == shown


def test_binding_labels_translate_ours_and_textuals() -> None:
    assert binding_label("tui_key_quit", "vi") == "Thoát"
    assert binding_label("palette", "vi") == "Lệnh"
    assert binding_label("Something Textual added", "vi") == "Something Textual added"


def test_session_store_round_trip_and_corrupt_file(tmp_path: Path) -> None:
    tree = load_tree(bundled_tree_path())
    store = SessionStore(tmp_path, tree)
    assert store.load().session is None
    session = Session.start(tree).answer("batch").answer("48gb").answer("yes")
    assert store.save(session) is None
    assert store.load().session == session
    (tmp_path / SESSION_FILE).write_text(json.dumps({"schema": 1, "tree": "other", "answers": []}), encoding="utf-8")
    loaded = store.load()
    assert loaded.session is None and loaded.moved_to is not None and loaded.moved_to.exists()
    assert "other" in (loaded.problem or "")
    assert not (tmp_path / SESSION_FILE).exists()
    save_session(session, tmp_path / SESSION_FILE)
    store.clear()
    assert not (tmp_path / SESSION_FILE).exists()


def test_session_store_reports_an_unwritable_folder(tmp_path: Path) -> None:
    tree = load_tree(bundled_tree_path())
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    assert SessionStore(blocker, tree).save(Session.start(tree).answer("batch")) is not None


def test_entry_article(kb_index: SearchIndex) -> None:
    answer = entry_article(kb_index, kb_index.entry_index("mig", "vi"), 88.0, wanted_lang="vi")
    assert (answer.id, answer.lang, answer.source, answer.score, answer.wanted_lang) == ("mig", "vi", "vi/mig.md", 88.0, None)
    assert answer.related and all(kb_index.entry_index(rid, "vi") is not None for rid, _ in answer.related)
    assert "MIG" in answer.body


def test_pure_modules_and_the_cli_parser_do_not_import_textual() -> None:
    code = (
        "import sys, advisor.tui, advisor.tui.settings, advisor.search.suggest, advisor.tui.question_history,"
        " advisor.tui.session_store, advisor.reply, advisor.tui.key_labels, advisor.commands.tui;"
        "from advisor.cli import build_parser; build_parser();"
        "print('textual' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=root)
    assert result.stdout.strip() == "False", result.stderr


def test_tui_command_is_registered() -> None:
    from advisor.cli import build_parser

    args = build_parser().parse_args(["tui", "--lang", "vi"])
    assert args.lang == "vi" and callable(args.run)

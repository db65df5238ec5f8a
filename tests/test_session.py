"""The engine: next question, back, changing answers, defaults, and saved sessions."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from advisor.problems import InvalidInput, OutputError
from advisor.decision.session import (
    NOT_SURE,
    Answer,
    Session,
    SessionFileError,
    complete,
    load_session,
    save_session,
)
from advisor.decision.tree import Tree
from advisor.decision.validate import bundled_tree_path, load_tree


@pytest.fixture(scope="module")
def tree() -> Tree:
    return load_tree(bundled_tree_path())


def _answer_all(tree: Tree, *values: str) -> Session:
    session = Session.start(tree)
    for value in values:
        session = session.answer(value)
    return session


def _keys(session: Session) -> list[str]:
    return [answer.key for answer in session.answers]


def test_a_new_session_asks_the_workload_first(tree: Tree) -> None:
    session = Session.start(tree)
    assert session.next_question is not None and session.next_question.key == "workload"
    assert not session.done and session.answers == ()


def test_next_question_follows_the_answers(tree: Tree) -> None:
    session = _answer_all(tree, "batch")
    assert session.next_question.key == "gpu_memory"  # type: ignore[union-attr]
    assert session.answer("multi-gpu").next_question.key == "shared_storage"  # type: ignore[union-attr]
    session = session.answer("80gb")
    assert session.next_question.key == "gpu_fraction"  # type: ignore[union-attr]
    session = session.answer("yes")
    assert session.next_question.key == "isolation"  # type: ignore[union-attr]
    session = _answer_all(tree, "notebook")
    assert session.next_question.key == "growth"  # type: ignore[union-attr]


def test_back_forgets_the_last_answer_and_is_safe_at_the_start(tree: Tree) -> None:
    session = _answer_all(tree, "batch", "80gb", "yes")
    assert _keys(session.back()) == ["workload", "gpu_memory"]
    assert session.back().next_question.key == "gpu_fraction"  # type: ignore[union-attr]
    assert Session.start(tree).back().answers == ()


def test_changing_an_answer_drops_the_answers_that_no_longer_apply(tree: Tree) -> None:
    session = _answer_all(tree, "batch", "24gb", "yes", "hard", "yes", "no", "self-run", "yes")
    assert _keys(session) == ["workload", "gpu_memory", "gpu_fraction", "isolation", "mig_cards", "shared_storage", "control_plane", "team_ops"]

    whole = session.change("gpu_fraction", "no")
    assert _keys(whole) == ["workload", "gpu_memory", "gpu_fraction", "shared_storage", "control_plane", "team_ops"]
    assert whole.value("shared_storage") == "no"

    managed = session.change("control_plane", "managed")
    assert "team_ops" not in _keys(managed)
    assert managed.next_question.key == "drivers"  # type: ignore[union-attr]

    distributed = session.change("workload", "distributed-training")
    assert _keys(distributed) == ["workload", "gpu_memory", "control_plane", "team_ops"]  # no sharing or storage questions there
    assert distributed.next_question.key == "framework"  # type: ignore[union-attr]
    assert _keys(distributed.answer("mpi")) == ["workload", "gpu_memory", "framework", "control_plane", "team_ops"]

    several = session.change("gpu_memory", "multi-gpu")  # one that needs several GPUs is not asked about sharing one
    assert _keys(several) == ["workload", "gpu_memory", "shared_storage", "control_plane", "team_ops"]


def test_answers_still_ahead_are_kept_and_used_once_reached(tree: Tree) -> None:
    session = _answer_all(tree, "batch", "24gb", "yes", "hard", "yes", "no", "managed")
    soft = session.change("isolation", "soft")
    assert _keys(soft) == ["workload", "gpu_memory", "gpu_fraction", "isolation", "shared_storage", "control_plane"]
    assert soft.next_question.key == "concurrent"  # type: ignore[union-attr]
    assert [node.ask for node, _ in soft.steps] == ["workload", "gpu_memory", "gpu_fraction", "isolation"]
    assert [answer.key for answer in soft.walked] == ["workload", "gpu_memory", "gpu_fraction", "isolation"]
    answered = soft.answer("yes")
    assert _keys(answered) == ["workload", "gpu_memory", "gpu_fraction", "isolation", "concurrent", "shared_storage", "control_plane"]
    assert answered.next_question.key == "drivers"  # type: ignore[union-attr]
    assert "mig_cards" not in _keys(answered)


def test_back_after_a_change_returns_to_the_previous_question(tree: Tree) -> None:
    soft = _answer_all(tree, "batch", "24gb", "yes", "hard", "yes", "no", "managed").change("isolation", "soft")
    back = soft.back()
    assert back.next_question.key == "isolation"  # type: ignore[union-attr]
    assert _keys(back) == ["workload", "gpu_memory", "gpu_fraction", "shared_storage", "control_plane"]


def test_change_refuses_unanswered_keys_and_bad_values(tree: Tree) -> None:
    session = _answer_all(tree, "batch")
    with pytest.raises(InvalidInput, match="has not been answered"):
        session.change("idle", "yes")
    with pytest.raises(InvalidInput, match="allowed values: notebook, single-job, batch, inference, distributed-training, not-sure"):
        session.change("workload", "laptop")


def test_not_sure_takes_the_default_as_an_assumption(tree: Tree) -> None:
    session = Session.start(tree).answer(None)
    assert session.answers == (Answer("workload", "single-job", assumed=True),)
    assert Session.start(tree).answer(NOT_SURE).answers == session.answers


def test_with_defaults_finishes_and_marks_every_default_assumed(tree: Tree) -> None:
    session = _answer_all(tree, "batch").with_defaults()
    assert session.done and session.next_question is None
    assert session.answers[0] == Answer("workload", "batch")
    assert all(answer.assumed for answer in session.answers[1:])
    assert session.path[0] == "workload" and session.path[-1] == "recommendation"
    with pytest.raises(InvalidInput):
        session.answer("yes")


def test_complete_uses_given_answers_and_reports_assumed_and_ignored(tree: Tree) -> None:
    result = complete(tree, {"workload": "notebook", "isolation": "hard", "idle": "no"})
    assert result.session.done
    assert result.ignored == ("isolation",)
    assert result.assumed == ("growth", "gpu_memory", "drivers")
    assert result.session.value("idle") == "no"


def test_complete_strict_and_unknown_keys(tree: Tree) -> None:
    with pytest.raises(InvalidInput, match="--strict: no answer for growth, gpu_memory, drivers, idle"):
        complete(tree, {"workload": "notebook"}, strict=True)
    with pytest.raises(InvalidInput, match="unknown answer key 'gpu'; allowed keys: workload, growth"):
        complete(tree, {"gpu": "yes"})
    full = {"workload": "notebook", "growth": "no", "gpu_memory": "24gb", "drivers": "own", "idle": "no"}
    assert complete(tree, full, strict=True).assumed == ()


# ----------------------------------------------------------------------------- files


def test_save_and_load_roundtrip(tree: Tree, tmp_path: Path) -> None:
    session = _answer_all(tree, "batch", "48gb", "yes").answer(None)
    path = tmp_path / "session.json"
    save_session(session, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema"] == 1 and data["tree"] == "gpu-orchestration"
    assert data["answers"][1] == {"key": "gpu_memory", "value": "48gb", "assumed": False}
    assert data["answers"][3] == {"key": "isolation", "value": "hard", "assumed": True}
    loaded = load_session(path, tree)
    assert loaded == session
    save_session(loaded.answer("no"), path)  # saving again replaces the file
    assert load_session(path, tree).value("mig_cards") == "no"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "corrupt session: not valid JSON"),
        ("[1, 2]", "corrupt session: expected a JSON object"),
        ('{"tree": "gpu-orchestration", "answers": []}', "'schema' must be a whole number"),
        ('{"schema": 2, "tree": "gpu-orchestration", "answers": []}', "saved by a newer advisor (schema 2; this version reads 1)"),
        ('{"schema": 1, "tree": "other", "answers": []}', "belongs to tree 'other'"),
        ('{"schema": 1, "tree": "gpu-orchestration", "answers": {}}', "'answers' must be a list"),
        ('{"schema": 1, "tree": "gpu-orchestration", "answers": [{"key": "workload"}]}', "answer 1 needs text 'key' and 'value'"),
        ('{"schema": 1, "tree": "gpu-orchestration", "answers": [{"key": "workload", "value": "laptop"}]}', "workload=laptop is not in tree"),
    ],
)
def test_unusable_session_files_raise_a_clear_error(tree: Tree, tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "session.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SessionFileError) as caught:
        load_session(path, tree)
    assert message in str(caught.value)
    assert caught.value.path == path
    assert str(caught.value).startswith(str(path) + ":")


def test_binary_or_missing_session_file(tree: Tree, tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SessionFileError, match="corrupt session"):
        load_session(path, tree)
    with pytest.raises(SessionFileError, match="cannot read session"):
        load_session(tmp_path / "missing.json", tree)


def test_a_failed_save_keeps_the_previous_session(tree: Tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "session.json"
    save_session(_answer_all(tree, "batch"), path)
    before = path.read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OutputError, match="No space left on device"):
        save_session(_answer_all(tree, "batch"), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["session.json"]

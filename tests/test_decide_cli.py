"""`advisor recommend`, `advisor guide` and `advisor tree` through `advisor.cli.main`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from advisor.cli import main

TREES = Path(__file__).parent / "data" / "trees"


@pytest.fixture(autouse=True)
def _english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGUAGE", "en")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------------- recommend


def test_recommend_prints_markdown_with_assumptions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "recommend", "--answer", "workload=notebook")
    assert code == 0 and err == ""
    assert out.startswith("# GPU orchestration")
    assert "(`plain-instance`)" in out
    assert "## Assumptions" in out and "(`growth=no`)" in out


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_a_plain_instance_recommendation_does_not_speak_of_pods(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recommend", "-a", "workload=notebook", "-a", "growth=no", "--lang", lang]) == 0
    out = capsys.readouterr().out
    headline = out.split("\n## ")[1]  # the recommendation itself, before the reasons
    assert "pod" not in headline.lower(), headline


def test_recommend_json_in_vietnamese(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "recommend", "-a", "workload=distributed-training", "-a", "framework=mpi", "--format", "json", "--lang", "vi")
    assert code == 0
    data = json.loads(out)
    assert data["lang"] == "vi" and data["recommendation"]["deployment"] == "managed-k8s"
    assert "operator-mpi" in [point["rule"] for point in data["recommendation"]["points"]]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--answer", "workload=laptop"],
            "advisor: error: workload=laptop is not allowed; allowed values: notebook, single-job, batch, inference, distributed-training, not-sure",
        ),
        (
            ["--answer", "gpu=yes"],
            "advisor: error: unknown answer key 'gpu'; allowed keys: workload, growth, serving, gpu_memory, gpu_fraction, isolation, mig_cards, concurrent, "
            "shared_storage, framework, control_plane, team_ops, drivers, interruptible, idle",
        ),
        (["--answer", "workload"], "advisor: error: --answer expects KEY=VALUE, got 'workload'"),
        (["-a", "workload=batch", "--strict"], "advisor: error: --strict: no answer for gpu_memory, gpu_fraction, shared_storage, control_plane, drivers, interruptible, idle (give --answer KEY=VALUE for each)"),
    ],
)
def test_bad_answers_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = _run(capsys, "recommend", *argv)
    assert code == 2 and out == ""
    assert err == message + "\n"


def test_strict_passes_when_every_relevant_question_is_answered(capsys: pytest.CaptureFixture[str]) -> None:
    answers = ["workload=notebook", "growth=no", "gpu_memory=48gb", "drivers=own", "idle=no"]
    code, out, err = _run(capsys, "recommend", "--strict", "--format", "json", *[f"--answer={a}" for a in answers])
    assert code == 0 and err == ""
    assert not any(answer["assumed"] for answer in json.loads(out)["answers"])


def test_answers_that_do_not_apply_are_reported_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "recommend", "-a", "workload=notebook", "-a", "isolation=hard")
    assert code == 0
    assert err == "note: these answers do not apply after your other answers and were ignored: isolation\n"


def test_answers_file_yaml_with_unquoted_yes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "answers.yaml"
    path.write_text("workload: inference\ngpu_fraction: yes\nisolation: soft\nconcurrent: no\n", encoding="utf-8")
    code, out, _ = _run(capsys, "recommend", "--answers", str(path), "--format", "json")
    assert code == 0
    assert json.loads(out)["recommendation"]["gpu_sharing"] == ["time-slicing"]


def test_command_line_answers_override_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"workload": "inference", "gpu_fraction": "yes", "isolation": "soft", "concurrent": "yes"}), encoding="utf-8")
    code, out, _ = _run(capsys, "recommend", "--answers", str(path), "-a", "concurrent=no", "--format", "json")
    assert code == 0
    assert json.loads(out)["recommendation"]["gpu_sharing"] == ["time-slicing"]


def test_an_exported_summary_can_be_fed_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, first, _ = _run(capsys, "recommend", "-a", "workload=batch", "-a", "control_plane=self-run", "--format", "json")
    assert code == 0
    path = tmp_path / "summary.json"
    path.write_text(first, encoding="utf-8")
    code, second, _ = _run(capsys, "recommend", "--answers", str(path), "--format", "json")
    assert code == 0 and json.loads(second) == json.loads(first)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("workload: [a, b]\n", "answers.yaml:1: the answer for 'workload' must be text such as yes or no, not a list"),
        ("workload: inference\nidle:\n", "answers.yaml:2: the answer for 'idle' must be text such as yes or no, not nothing"),
        ("workload: [inference\n", "answers.yaml:2: invalid YAML"),
        ("- workload\n", "answers.yaml:1: expected a mapping of answer keys to values"),
        ('{"answers": [1]}', "answers.yaml:1: each item of 'answers' needs a 'key' and a 'value'"),
        ('{"workload": 5}', "answers.yaml:1: the answer for 'workload' must be text such as yes or no, not int"),
        ('{"no_such_key": "x"}', "unknown answer key 'no_such_key'; allowed keys: workload, growth,"),
        ('{"workload": "gaming"}', "workload=gaming is not allowed; allowed values: notebook, single-job,"),
    ],
)
def test_malformed_answers_files_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str) -> None:
    path = tmp_path / "answers.yaml"
    path.write_text(content, encoding="utf-8")
    code, out, err = _run(capsys, "recommend", "--answers", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_missing_answers_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "recommend", "--answers", str(tmp_path / "nope.yaml"))
    assert code == 2 and "cannot read" in err and err.count("\n") == 1


def test_list_questions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "recommend", "--list-questions")
    assert code == 0
    assert "workload  What GPU work will you run?\n    values: notebook | single-job | batch | inference | distributed-training | not-sure\n    default: single-job" in out
    code, out, _ = _run(capsys, "recommend", "--list-questions", "--format", "json", "--lang", "vi")
    rows = json.loads(out)
    assert [row["key"] for row in rows][:4] == ["workload", "growth", "serving", "gpu_memory"]
    assert rows[0]["question"] == "Bạn sẽ chạy loại công việc GPU nào?" and rows[0]["default"] == "single-job"


def test_output_file_and_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "plan.html"
    code, out, err = _run(capsys, "recommend", "-a", "workload=inference", "-o", str(path))
    assert code == 0 and out == "" and err == f"Written to {path}\n"
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")  # format from the suffix
    code, _, err = _run(capsys, "recommend", "-a", "workload=batch", "-o", str(path))
    assert code == 2 and err == f"advisor: error: {path} already exists; use --force to overwrite it\n"
    assert "inference" in path.read_text(encoding="utf-8")
    code, _, _ = _run(capsys, "recommend", "-a", "workload=batch", "-o", str(path), "--force", "--format", "md")
    assert code == 0 and path.read_text(encoding="utf-8").startswith("# GPU orchestration")


def test_a_broken_tree_file_is_one_problem_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "recommend", "--tree", str(TREES / "cycle.yaml"))
    assert code == 2 and out == ""
    assert err == "trees/cycle.yaml:50: cycle in the flow: first → idle → first\n"


def test_a_custom_tree(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "recommend", "--tree", str(TREES / "valid.yaml"), "-a", "workload=inference", "--format", "json")
    assert code == 0 and json.loads(out)["tree"] == "mini"


# ----------------------------------------------------------------------------- guide


def _guide(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], typed: str, *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    return _run(capsys, "guide", *argv)


def test_guide_asks_and_ends_in_the_same_summary(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # notebook, will not grow, up to 24 GB, drivers preinstalled, often idle
    code, out, err = _guide(monkeypatch, capsys, "1\n2\n1\n1\n1\n", "--lang", "en", "--format", "json")
    assert code == 0 and err == ""
    assert "Question 1: What GPU work will you run?\n  1. One interactive notebook (Jupyter)" in out
    assert "  6. Not sure (assume: One job or fine-tune on one GPU)" in out
    summary = json.loads(out[out.index("{") :])
    assert summary["recommendation"]["deployment"] == "plain-instance"
    code, expected, _ = _run(capsys, "recommend", "--format", "json", "--lang", "en", "-a", "workload=notebook", "-a", "growth=no", "-a", "gpu_memory=24gb", "-a", "drivers=preinstalled", "-a", "idle=yes")
    assert json.loads(expected) == summary


def test_guide_starts_past_the_answers_given(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`advisor ask "k8s for 1 notebook?"` offers `advisor guide -a workload=notebook`: the same
    summary as answering the first question by hand."""
    code, out, err = _guide(monkeypatch, capsys, "2\n1\n1\n1\n", "--lang", "en", "--format", "json", "-a", "workload=notebook")
    assert code == 0 and err == ""
    assert "Given: Workload: One interactive notebook (Jupyter)\n" in out
    assert "Question 1:" not in out and "Question 2: Will this grow" in out
    summary = json.loads(out[out.index("{") :])
    code, by_hand, _ = _guide(monkeypatch, capsys, "1\n2\n1\n1\n1\n", "--lang", "en", "--format", "json")
    assert summary == json.loads(by_hand[by_hand.index("{") :])


def test_a_given_not_sure_is_shown_as_assumed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _guide(monkeypatch, capsys, "q\n", "--lang", "en", "-a", "workload=not-sure")
    assert code == 0 and "Assumed: Workload: One job or fine-tune on one GPU\n" in out and "Given:" not in out


@pytest.mark.parametrize(("answer", "message"), [("workload=bogus", "workload=bogus is not allowed"), ("nope=1", "unknown answer key 'nope'"), ("workload", "KEY=VALUE")])
def test_guide_refuses_a_bad_given_answer_before_asking(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], answer: str, message: str) -> None:
    code, out, err = _guide(monkeypatch, capsys, "1\n", "--lang", "en", "-a", answer)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_guide_back_help_not_sure_and_invalid_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    typed = "b\n4\n2\n?\nb\nb\nfive\n9\n4\n2\n2\n1\n3\n3\n1\n1\n1\n2\n2\n"
    code, out, _ = _guide(monkeypatch, capsys, typed, "--lang", "en")
    assert code == 0
    assert "This is the first question; there is nothing to go back to." in out
    assert "Explained in: advisor show gpu-memory-sizing\n" in out
    assert out.count("Question 1: What GPU work will you run?") == 2  # asked again after b
    assert "Please type a number from 1 to 6, or b, ? or q." in out
    assert "Assumed: Hard isolation (separate memory and compute)" in out
    assert "Assumed: No or not sure (for example L4, L40S, A10G or T4)" in out
    assert "**Deployment model:** Managed Kubernetes with GPU node pools" in out
    assert "(`mig`)" not in out  # not sure about the cards never leads to MIG


def test_guide_in_vietnamese_accepts_option_names(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    typed = "distributed-training\nmulti-gpu\npytorch\nself-run\nyes\nown\nyes\nno\n"
    code, out, _ = _guide(monkeypatch, capsys, typed, "--lang", "vi")
    assert code == 0
    assert "Câu hỏi 1: Bạn sẽ chạy loại công việc GPU nào?" in out
    assert "Máy GPU kết nối vào cụm Kubernetes do bạn tự vận hành" in out


def test_guide_quit_and_eof_exit_cleanly(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _guide(monkeypatch, capsys, "1\nq\n", "--lang", "en")
    assert code == 0 and out.rstrip().endswith("Stopped; nothing was recommended.") and err == ""
    code, out, err = _guide(monkeypatch, capsys, "1\n", "--lang", "en")
    assert code == 1 and err == "Input ended before the last question; nothing was recommended.\n"
    code, out, err = _guide(monkeypatch, capsys, "", "--lang", "en")
    assert code == 1 and "Traceback" not in out + err


def test_guide_writes_a_file_and_refuses_to_overwrite_before_asking(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "plan.md"
    code, _, err = _guide(monkeypatch, capsys, "6\n3\n5\n3\n3\n3\n", "--lang", "en", "-o", str(path))
    assert code == 0 and err == f"Written to {path}\n"
    assert "## Assumptions" in path.read_text(encoding="utf-8")
    code, out, err = _guide(monkeypatch, capsys, "1\n", "--lang", "en", "-o", str(path))
    assert code == 2 and out == "" and "already exists" in err


# ----------------------------------------------------------------------------- tree


@pytest.mark.parametrize(("fmt", "start"), [("mermaid", "flowchart TD\n"), ("dot", 'digraph "gpu-orchestration" {\n'), ("text", "GPU orchestration")])
def test_tree_formats(capsys: pytest.CaptureFixture[str], fmt: str, start: str) -> None:
    code, out, _ = _run(capsys, "tree", "--format", fmt, "--lang", "en")
    assert code == 0 and out.startswith(start)


def test_tree_text_in_vietnamese(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "tree", "--lang", "vi")
    assert code == 0
    assert "[workload] Loại công việc (workload)" in out
    assert "    batch → cluster-memory" in out and "    inference → serving-scale" in out


def test_every_new_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("recommend", "guide", "tree"):
        with pytest.raises(SystemExit) as caught:
            main([command, "--help"])
        assert caught.value.code == 0
        assert "usage: advisor " + command in capsys.readouterr().out

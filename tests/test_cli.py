from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.cli import main, mistyped_command
from advisor.search.confidence import ANSWER_CONFIDENCE
from tests.conftest import run_advisor, write_entry


def ask_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["ask", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_answered_question_exits_0_with_the_documented_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = ask_json(capsys, "mig la gi")
    assert code == 0
    assert set(data) >= {"query", "lang", "answered", "results", "suggestions"}
    assert data["query"] == "mig la gi" and data["lang"] == "vi" and data["answered"] is True
    first = data["results"][0]
    assert set(first) >= {"id", "title", "lang", "topic", "score", "summary", "answer", "related"}
    assert first["id"] == "mig" and first["lang"] == "vi" and first["topic"] == "mig"
    assert 0 <= first["score"] <= 100
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True)
    assert data["suggestions"] == []


def test_unanswered_question_exits_1_and_still_lists_results(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = ask_json(capsys, "gpu")
    assert code == 1
    assert data["answered"] is False
    assert data["results"] and 1 <= len(data["suggestions"]) <= 3
    assert set(data["suggestions"][0]) == {"id", "title"}


def test_off_topic_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = ask_json(capsys, "how do I center a div in CSS")
    assert code == 1 and data["answered"] is False


def test_lang_override_and_top(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = ask_json(capsys, "--lang", "en", "--top", "5", "mig la gi")
    assert code == 0
    assert data["results"][0]["lang"] == "en"
    assert len(data["results"]) == 5


def test_explain_names_the_matched_phrasing(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = ask_json(capsys, "--explain", "kubernets timeslicing")
    assert code == 0
    explain = data["explain"]
    assert explain["matched"] and explain["field"] in {"title", "question", "keyword"}
    assert explain["corrections"] and explain["margin"] >= 0


def test_text_output_on_a_pipe_has_no_escape_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "what is MIG?"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "MIG" in out and "advisor show" in out


def test_text_output_is_styled_on_a_terminal_unless_no_color(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    main(["ask", "what is MIG?"])
    assert "\x1b[" in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    main(["ask", "what is MIG?"])
    assert "\x1b" not in capsys.readouterr().out


def test_an_entry_answering_beside_a_provider_shows_its_short_answer_then_the_provider_facts(capsys: pytest.CaptureFixture[str]) -> None:
    """"install the GPU Operator on EKS": the entry answers as any entry does (title, confidence,
    the opening and the best section, `advisor show` for the rest), and EKS's facts follow it.
    The whole entry used to be printed, and the facts not at all."""
    assert main(["ask", "cluster autoscaler never scales up the gpu node group on eks"]) == 0
    out = capsys.readouterr().out
    assert "[gpu-node-autoscaling · confidence" in out and "advisor show gpu-node-autoscaling" in out
    assert "Amazon Elastic Kubernetes Service (EKS)" in out and "Source: https://" in out
    main(["show", "gpu-node-autoscaling"])
    assert len(out.splitlines()) < len(capsys.readouterr().out.splitlines()) / 2
    main(["ask", "--explain", "cluster autoscaler never scales up the gpu node group on eks"])
    explained = capsys.readouterr().out.split("Why this answer:")[1]
    assert "best matching phrasing" in explained and "answered from the provider catalogue" not in explained


def test_explain_says_why_a_sure_short_question_is_not_answered(capsys: pytest.CaptureFixture[str]) -> None:
    """Above the threshold yet unanswered: `--explain` says which rule held it back."""
    code, data = ask_json(capsys, "--explain", "hello world")
    assert code == 1 and data["confidence"] >= ANSWER_CONFIDENCE and data["explain"]["held_back"] == "in_passing"
    assert [item["id"] for item in data["suggestions"]][:1] == ["kubeflow-trainer"]
    assert main(["ask", "--lang", "en", "--explain", "gpu"]) == 1
    assert "not answered: one word that nearly every entry holds" in capsys.readouterr().out
    assert main(["ask", "--lang", "en", "--explain", "kueue"]) == 0 and "not answered" not in capsys.readouterr().out


def test_no_answer_text_offers_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--lang", "en", "gpu"]) == 1
    out = capsys.readouterr().out
    assert "No confident answer" in out and "Did you mean" in out


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("is my gpu being used", "Only “gpu” in the question points at a topic, and nearly every topic mentions it"),
        ("hello world", "mention it only in passing"),
        ("gpu la gi", "Trong câu hỏi chỉ có “gpu” gợi đến một chủ đề"),
        ("nấu phở bò", None),  # off the subject: nothing to narrow down
    ],
)
def test_a_question_held_back_for_naming_too_little_asks_for_more(capsys: pytest.CaptureFixture[str], question: str, said: str | None) -> None:
    assert main(["ask", question]) == 1
    lines = capsys.readouterr().out.splitlines()
    if said is None:
        assert lines[1] == ""
    else:
        assert said in " ".join(lines[1:3])


def test_batch_reads_lines_and_writes_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions = tmp_path / "q.txt"
    questions.write_text("mig la gi\n\nwhat is time-slicing?\nnấu phở bò\n", encoding="utf-8")
    assert main(["ask", "--batch", str(questions)]) == 0
    lines = capsys.readouterr().out.splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["query"] for r in records] == ["mig la gi", "", "what is time-slicing?", "nấu phở bò"]
    assert [r["answered"] for r in records] == [True, False, True, False]


def test_batch_with_invalid_utf8_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions = tmp_path / "q.txt"
    questions.write_bytes(b"mig\n\xff\xfe broken\n")
    assert main(["ask", "--batch", str(questions)]) == 2
    assert capsys.readouterr().err.strip() == f"advisor: error: {questions}:2: not valid UTF-8"


def test_batch_answers_every_line_so_output_lines_up_with_input() -> None:
    result = run_advisor("ask", "--batch", "-", input_bytes=b"mig\n\nmps\n")
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert [record["query"] for record in records] == ["mig", "", "mps"]
    assert records[1]["answered"] is False and records[1]["results"] == []


def test_batch_from_stdin() -> None:
    result = run_advisor("ask", "--batch", "-", input_bytes="mig la gi\ninfiniband\n".encode())
    assert result.returncode == 0
    assert [json.loads(line)["results"][0]["id"] for line in result.stdout.decode().splitlines()] == ["mig", "multinode-networking"]


def test_kb_option_and_environment_variable(tiny_kb: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, data = ask_json(capsys, "--kb", str(tiny_kb), "pizza oven temperature")
    assert code == 0 and data["results"][0]["id"] == "pizza-oven"
    monkeypatch.setenv("ADVISOR_KB", str(tiny_kb))
    code, data = ask_json(capsys, "nhồi bột bao lâu")
    assert code == 0 and data["results"][0]["id"] == "bread-dough" and data["lang"] == "vi"


def test_missing_kb_folder_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--kb", "/no/such/folder", "mig"]) == 2
    assert capsys.readouterr().err.startswith("advisor: error: knowledge folder not found")


def test_bad_files_in_kb_are_reported_once_and_skipped(tiny_kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tiny_kb / "en" / "broken.md").write_text("---\nid: [\n---\n", encoding="utf-8")
    assert main(["ask", "--json", "--kb", str(tiny_kb), "sourdough hydration"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("broken.md:") == 1
    data = json.loads(captured.out)
    assert data["results"][0]["id"] == "bread-dough"


def test_bad_file_warning_goes_to_stderr(tiny_kb: Path) -> None:
    (tiny_kb / "en" / "broken.md").write_text("---\nid: [\n---\n", encoding="utf-8")
    result = run_advisor("ask", "--kb", str(tiny_kb), "sourdough hydration")
    err = result.stderr.decode()
    assert result.returncode == 0
    assert err.count("broken.md:") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ask"], "no question given"),
        (["ask", "--top", "0", "mig"], "--top must be at least 1"),
        (["ask", "--lang", "fr", "mig"], "invalid choice"),
        (["show", "no-such-id"], "unknown entry id 'no-such-id'"),
        (["frobnicate", "--x"], ""),
    ],
)
def test_usage_errors_exit_2_with_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))  # nothing piped in either
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1]
    assert not any("Traceback" in line for line in err)


@pytest.mark.parametrize(("typed", "entry"), [(["MIG"], "mig"), (["gpu", "operator"], "gpu-operator"), (["timeslicing"], "time-slicing"), (["Time", "Slicing-Setup"], "time-slicing-setup")])
def test_an_id_is_found_however_it_is_spelt(typed: list[str], entry: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Case, spaces for hyphens and hyphens left out: `advisor show gpu operator` is gpu-operator."""
    assert main(["show", *typed, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == entry


@pytest.mark.parametrize(
    ("typed", "first", "also"),
    [
        ("mgi", "mig", "mig-setup-profiles"),  # two letters swapped: a short id is still found first
        ("MIG-STRATEGIS", "mig-strategies", ""),  # case and a dropped letter
        ("time-slice", "", "time-slicing"),  # a part of the id: time-slicing and time-slicing-setup
    ],
)
def test_an_unknown_id_suggests_the_nearest_ids(typed: str, first: str, also: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", typed, "--lang", "en"]) == 2
    err = capsys.readouterr().err.strip()
    assert "did you mean: " in err
    suggested = err.split("did you mean: ", 1)[1].split(", ")
    assert (not first or suggested[0] == first) and len(suggested) <= 3
    assert not also or also in suggested


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ask"], "advisor: lỗi: chưa có câu hỏi"),
        (["ask", "--top", "0", "mig"], "advisor: lỗi: --top phải từ 1 trở lên"),
        (["ask", "--lang", "fr", "mig"], "advisor ask: lỗi: đối số --lang: lựa chọn không hợp lệ: 'fr'"),
        (["show"], "advisor show: lỗi: thiếu các đối số bắt buộc: id"),
        (["recomend"], "advisor: lỗi: không có lệnh 'recomend'; có phải bạn muốn: recommend"),
        (["recommend", "-a", "workload=gpu"], "advisor: lỗi: workload=gpu không hợp lệ; các giá trị hợp lệ: notebook"),
        (["recommend", "-a", "gpu=yes"], "advisor: lỗi: không có khoá câu trả lời 'gpu'"),
        (["recommend", "-o", "plan.txt"], "advisor: lỗi: không biết định dạng của plan.txt"),
    ],
)
def test_usage_errors_follow_the_interface_language(argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    monkeypatch.setenv("LANG", "vi_VN.UTF-8")
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    assert capsys.readouterr().err.strip().startswith(message)


def test_every_label_the_command_line_uses_exists() -> None:
    import re

    from advisor.i18n import labels

    root = Path(__file__).resolve().parent.parent / "advisor"
    used = {key for path in root.rglob("*.py") for key in re.findall(r'"((?:err|cli)_[a-z_]+[a-z])"', path.read_text(encoding="utf-8"))}
    assert used and sorted(key for key in used if key not in labels("en")) == []


def test_recommend_values_and_keys_are_read_in_any_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recommend", "-a", "Workload=Inference", "--format", "json"]) == 0
    assert '"value": "inference"' in capsys.readouterr().out


def test_invalid_bytes_in_the_question_are_a_clear_error() -> None:
    import os
    import subprocess
    import sys

    result = subprocess.run([sys.executable.encode(), b"-m", b"advisor", b"ask", b"mig \xff\xfe"], capture_output=True, env=os.environ, timeout=60)
    assert result.returncode == 2
    assert result.stderr.decode().strip() == "advisor: error: the question is not valid UTF-8"


def test_bare_question_is_asked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mig", "la", "gi"]) == 0
    assert "MIG" in capsys.readouterr().out


def test_show_and_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "mig", "--lang", "vi"]) == 0
    assert "MIG" in capsys.readouterr().out
    assert main(["show", "mig", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["id"] == "mig" and shown["answer"]
    assert main(["list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {"id", "lang", "title", "topic"} <= set(listed[0])
    assert len({(e["id"], e["lang"]) for e in listed}) == len(listed) >= 44
    assert main(["list", "--lang", "vi"]) == 0
    entry_lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    assert len(entry_lines) == len(listed) // 2


@pytest.fixture
def topic_kb(tmp_path: Path) -> Path:
    """Two topics: ovens, whose entries are pizza-oven (its home) and bread-dough; and the
    stand-alone cheese entry, its own topic."""
    root = tmp_path / "kb"
    write_entry(root, "en", "pizza-oven", title="Ovens", questions=["how hot is a pizza oven", "wood fired oven temperature", "pizza oven fuel", "neapolitan pizza baking"])
    write_entry(root, "vi", "pizza-oven", title="Lò nướng", questions=["lò pizza nóng bao nhiêu độ", "nhiệt độ lò củi", "nhiên liệu cho lò pizza", "nướng pizza kiểu Napoli"])
    write_entry(root, "en", "bread-dough", title="Bread dough", topic="pizza-oven", questions=["how long to knead bread dough", "sourdough hydration", "why is my dough sticky", "proofing bread overnight"])
    write_entry(root, "vi", "bread-dough", title="Bột bánh mì", topic="pizza-oven", questions=["nhồi bột bánh mì bao lâu", "độ ẩm bột chua", "bột bị dính tay", "ủ bột qua đêm"])
    write_entry(root, "en", "cheese", title="Cheese", questions=["which cheese melts best", "mozzarella moisture", "aged cheese on pizza", "grating parmesan"])
    return root


def test_list_groups_entries_under_their_topic_titled_in_the_interface_language(topic_kb: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["list", "--kb", str(topic_kb)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Cheese  [cheese]",
        "  cheese       en  Cheese",
        "",
        "Ovens  [pizza-oven]",
        "  pizza-oven   en  Ovens",
        "  pizza-oven   vi  Lò nướng",
        "  bread-dough  en  Bread dough",
        "  bread-dough  vi  Bột bánh mì",
    ]
    monkeypatch.setenv("LANG", "vi_VN.UTF-8")
    assert main(["list", "--kb", str(topic_kb), "--lang", "vi"]) == 0
    assert capsys.readouterr().out.splitlines() == ["Lò nướng  [pizza-oven]", "  pizza-oven   vi  Lò nướng", "  bread-dough  vi  Bột bánh mì"]


def test_list_and_ask_json_carry_the_topic(topic_kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--kb", str(topic_kb), "--json", "--lang", "en"]) == 0
    assert [(e["id"], e["topic"]) for e in json.loads(capsys.readouterr().out)] == [("cheese", "cheese"), ("pizza-oven", "pizza-oven"), ("bread-dough", "pizza-oven")]
    code, data = ask_json(capsys, "--kb", str(topic_kb), "sourdough hydration")
    assert code == 0 and data["results"][0]["id"] == "bread-dough"
    assert {r["id"]: r["topic"] for r in data["results"]}["bread-dough"] == "pizza-oven"
    assert main(["show", "--kb", str(topic_kb), "--json", "cheese"]) == 0
    assert json.loads(capsys.readouterr().out)["topic"] == "cheese"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("advisor ")


def test_output_to_a_closed_pipe_is_quiet() -> None:
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "advisor", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.read(10)
    proc.stdout.close()
    proc.wait(timeout=60)
    assert b"Traceback" not in proc.stderr.read()


def test_the_collector_stays_off_for_one_answer_and_runs_for_long_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`run()` turns the cyclic collector off for a one-shot command; `main()` turns it back on
    for the commands that keep running, such as `ask --batch` over a long file."""
    import gc

    import advisor.reply

    seen: list[bool] = []
    answer = advisor.reply.answer

    def watched(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return answer(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(advisor.reply, "answer", watched)
    questions = tmp_path / "questions.txt"
    questions.write_text("what is mig\n", encoding="utf-8")
    was = gc.isenabled()
    gc.disable()
    try:
        main(["ask", "--json", "what is mig"])
        main(["ask", "--batch", str(questions)])
    finally:
        if was:
            gc.enable()
    capsys.readouterr()
    assert seen == [False, True]


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["recomend"], "recommend"),  # a letter missing
        (["chekc"], "check"),  # two letters swapped: one edit
        (["lsit", "--json"], "list"),
        (["providres"], "providers"),
        (["chek", "my", "driver"], None),  # more words: a question
        (["shwo", "mig"], "show"),  # ...unless they spell an entry id after a misspelt `show`
        (["sohw", "Time", "Slicing", "--lang", "vi"], "show"),
        (["shwo", "me", "gpu", "prices"], None),
        (["shwo", "mig", "--kb", "/no/such/folder"], None),  # no entry there: `show` would fail too
        (["slow", "storage"], None),  # a word the knowledge knows starts a question
        (["how", "mig"], None),  # so does a stop word
        (["chek", "mig"], None),  # only `show` takes an entry id
        (["mig"], None),  # too far from every command: a question
        (["ask"], None),
    ],
)
def test_a_mistyped_command_is_named(argv: list[str], meant: str | None) -> None:
    assert mistyped_command(argv) == meant


def test_an_answer_offers_the_guide_with_what_the_question_said(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = ask_json(capsys, "k8s for 1 notebook?")
    assert code == 0 and data["reply"]["id"] == "faq-k8s-single-job"
    assert data["wizard"] == [{"key": "workload", "value": "notebook"}]
    assert main(["ask", "--lang", "vi", "k8s co dang dung cho 1 notebook ko"]) == 0
    out = capsys.readouterr().out
    assert "“Loại công việc: Một notebook tương tác (Jupyter)” đã biết từ câu hỏi: advisor guide -a workload=notebook" in out
    assert data["guide"] == "advisor guide -a workload=notebook"
    code, data = ask_json(capsys, "pods stuck pending insufficient nvidia.com/gpu")  # states no setting
    assert data["wizard"] == [] and data["guide"] is None


def test_an_answer_to_the_question_the_guide_answers_offers_it_from_its_start(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = ask_json(capsys, "do we need kubernetes")
    assert code == 0 and data["reply"]["id"] == "when-k8s-worth-it"
    assert data["wizard"] == [] and data["guide"] == "advisor guide"
    assert main(["ask", "nen dung k8s khong"]) == 0
    out = capsys.readouterr().out
    assert "Để nhận đề xuất cấu hình hợp với trường hợp của bạn, hãy trả lời vài câu hỏi: advisor guide\n" in out

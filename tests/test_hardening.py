"""Nothing a user types or writes into a knowledge folder crashes advisor or escapes into the terminal."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.cli import main
from advisor.library import open_index
from advisor.knowledge.load import collection_problems, load_knowledge
from tests.conftest import run_advisor, write_entry

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


# ----------------------------------------------------------------------------- reliability (issue 13)
# Each test below failed before its fix; the review's finding is named in the docstring.

# A title retitling the terminal, a screen clear, an 8-bit CSI asking for the cursor position, a
# DCS asking for a capability (both answers would be typed into the guide), an ENQ: YAML escapes.
EVIL_YAML = r"\e]0;PWNTITLE\a\e[2J\x9b6n\eP+q544e\e\\\x05"
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _evil_tree(tmp_path: Path) -> Path:
    text = (Path(__file__).parent / "data" / "trees" / "valid.yaml").read_text(encoding="utf-8")
    path = tmp_path / "evil.yaml"
    path.write_text(text.replace('en: "', f'en: "{EVIL_YAML}'), encoding="utf-8")
    return path


def _billion_laughs(levels: int) -> list[str]:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, levels)]
    return lines


@pytest.mark.parametrize("where", ["entry", "lexicon", "catalogue", "tree", "answers"])
def test_yaml_aliases_are_refused_in_every_reader(tiny_kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str) -> None:
    """F1: a few hundred bytes of nested aliases cost 15 s and 2.2 GB in every YAML reader."""
    bomb = _billion_laughs(4)
    if where == "entry":
        path = tiny_kb / "en" / "bomb.md"
        path.write_text("---\nid: bomb\nlang: en\ntitle: Bomb\n" + "\n".join(bomb) + "\nkeywords: *a3\n---\nBody.\n", encoding="utf-8")
        argv = ["check", "--kb", str(tiny_kb)]
    elif where in ("lexicon", "catalogue"):
        path = tiny_kb / ("lexicon.yaml" if where == "lexicon" else "providers.yaml")
        path.write_text("\n".join(bomb) + "\nstopwords: *a3\n", encoding="utf-8")
        argv = ["check", "--kb", str(tiny_kb)]
    elif where == "tree":
        path = tmp_path / "tree.yaml"
        path.write_text("\n".join(bomb) + "\ntitle: *a3\n", encoding="utf-8")
        argv = ["tree", "--tree", str(path)]
    else:
        path = tmp_path / "answers.yaml"
        path.write_text("\n".join(bomb) + "\nworkload: *a3\n", encoding="utf-8")
        argv = ["recommend", "--answers", str(path)]
    assert main(argv) in (1, 2)
    captured = capsys.readouterr()
    assert re.search(rf"{re.escape(path.name)}:\d+: invalid YAML: aliases \(\*name\) are not supported", captured.out + captured.err)
    assert "Traceback" not in captured.err


def test_recursive_aliases_and_merge_keys_are_refused_too() -> None:
    from advisor import yamlsafe

    for text in ("a: &x [*x]\n", "base: &b {k: 1}\nother:\n  <<: *b\n", "a: &x 1\nb: [2, *x]\n"):
        with pytest.raises(yamlsafe.YamlError, match="aliases"):
            yamlsafe.load(text)
    assert yamlsafe.load("a: &x 1\n").data == {"a": 1}  # an anchor alone is harmless


def test_special_files_are_refused_without_hanging(tiny_kb: Path, tmp_path: Path) -> None:
    """F3: a FIFO entry hung every command for ever; /dev/zero as an entry, lexicon or answers
    file read until memory ran out. Run as a user would, so a hang fails on the timeout."""
    os.mkfifo(tiny_kb / "en" / "pipe.md")
    (tiny_kb / "en" / "zero.md").symlink_to("/dev/zero")
    (tiny_kb / "lexicon.yaml").symlink_to("/dev/zero")
    run = run_advisor("ask", "--kb", str(tiny_kb), "pizza oven temperature")
    err = run.stderr.decode()
    assert run.returncode == 0, err
    assert "en/pipe.md:1: not a regular file" in err and "en/zero.md:1: not a regular file" in err and "lexicon.yaml" in err
    run = run_advisor("recommend", "--answers", "/dev/zero")
    assert run.returncode == 2 and run.stderr.decode() == "advisor: error: cannot read /dev/zero: not a regular file\n"
    run = run_advisor("recommend", "--answers", "-", input_bytes=b"workload: notebook\n" + b"#" * 2_000_000)
    assert run.returncode == 2 and run.stderr.decode() == "advisor: error: cannot read -: input is larger than 1,000,000 bytes\n"


def test_a_saved_session_that_is_a_fifo_or_deeply_nested_is_moved_aside(tmp_path: Path) -> None:
    """F2, F3: json gives RecursionError (not ValueError) on deep nesting; a FIFO blocked the app."""
    from advisor.decision.validate import bundled_tree_path, load_tree
    from advisor.tui.session_store import SESSION_FILE, SessionStore

    tree = load_tree(bundled_tree_path())
    for make, reason in ((lambda p: p.write_text("[" * 100_000 + "]" * 100_000), "nested too deeply"), (os.mkfifo, "not a regular file")):
        folder = tmp_path / reason.replace(" ", "-")
        folder.mkdir()
        make(folder / SESSION_FILE)
        loaded = SessionStore(folder, tree).load()
        assert loaded.session is None and reason in (loaded.problem or "")
        assert loaded.moved_to is not None and not os.path.lexists(folder / SESSION_FILE)


def test_tree_text_never_reaches_the_terminal_raw(tmp_path: Path, tiny_kb: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """F4: tree labels in guide, --list-questions, mermaid and dot, and Markdown/HTML exports on
    stdout, carried escape sequences to the terminal."""
    import io

    tree = str(_evil_tree(tmp_path))
    write_entry(tiny_kb, "en", "when-k8s-worth-it", title=f"Cited {EVIL_YAML}title")
    runs = [
        ["tree", "--tree", tree, "--format", "mermaid"],
        ["tree", "--tree", tree, "--format", "dot"],
        ["tree", "--tree", tree, "--format", "text"],
        ["recommend", "--tree", tree, "--list-questions"],
        ["recommend", "--tree", tree, "--kb", str(tiny_kb), "-a", "workload=notebook", "--format", "md"],
        ["recommend", "--tree", tree, "--kb", str(tiny_kb), "-a", "workload=notebook", "--format", "html"],
        ["recommend", "--tree", tree, "--kb", str(tiny_kb), "-a", "workload=notebook", "--format", "json"],
        ["guide", "--tree", tree, "--kb", str(tiny_kb), "--lang", "en"],
    ]
    for argv in runs:
        monkeypatch.setattr("sys.stdin", io.StringIO("?\n\x1b]0;TYPED\x07\n2\n1\n"))
        assert main(argv) == 0, argv
        captured = capsys.readouterr()
        assert "Workload" in captured.out or "What will you run?" in captured.out, argv  # the text is there, defused
        assert not CONTROLS.search(captured.out) and not CONTROLS.search(captured.err), argv


def test_answers_file_values_are_echoed_defused_and_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """F18 (and C37): an answers file's key or value reached stderr raw, escapes and 900 KB alike."""
    cases = [
        ({"\x1b]0;PWNTITLE\x07": "yes"}, "advisor: error: unknown answer key '\\x1b]0;PWNTITLE\\x07'; allowed keys: "),
        ({"workload": "\x1b[2J"}, "advisor: error: workload=\\x1b[2J is not allowed; allowed values: "),
        ({"workload": "x" * 900_000}, "advisor: error: workload=" + "x" * 79 + "… is not allowed; allowed values: "),
    ]
    for answers, expected in cases:
        path = tmp_path / "answers.json"
        path.write_text(json.dumps(answers), encoding="utf-8")
        assert main(["recommend", "--answers", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(expected) and err.count("\n") == 1 and len(err) < 400


def test_json_output_escapes_c1_controls(tiny_kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """WARN E05-E19: ensure_ascii=False left U+009B (an 8-bit CSI) raw in JSON on a terminal."""
    write_entry(tiny_kb, "en", "pizza-oven", title=r"Pizza \x9b2J ovens")  # a YAML escape: the file itself may not hold C1
    for argv in (["show", "--json", "--kb", str(tiny_kb), "pizza-oven", "--lang", "en"], ["list", "--json", "--kb", str(tiny_kb)]):
        main(argv)
        out = capsys.readouterr().out
        assert "\\u009b2J" in out and not CONTROLS.search(out)


@pytest.mark.parametrize(
    "lexicon",
    ["stopwords: [a, b]", "synonyms: [a, b]", "language_markers: hello", "catalogue_questions: {features: 5}", "stopwords: {en: 5}"],
)
def test_a_lexicon_of_the_wrong_shape_is_a_problem_not_a_crash(tiny_kb: Path, capsys: pytest.CaptureFixture[str], lexicon: str) -> None:
    """F7: wrong types in lexicon.yaml crashed every command with a traceback."""
    (tiny_kb / "lexicon.yaml").write_text(lexicon + "\n", encoding="utf-8")
    assert main(["ask", "--kb", str(tiny_kb), "pizza oven temperature"]) == 0
    assert main(["check", "--kb", str(tiny_kb)]) == 1
    captured = capsys.readouterr()
    assert "kb/lexicon.yaml:1: " in captured.err and "kb/lexicon.yaml:1: " in captured.out


@pytest.mark.parametrize(
    "typed",
    [b"\xc2\xb2\nq\n", b"9" * 5000 + b"\nq\n", b"\xff\nq\n", b"\x1b[2J\x1b]52;c;UFdORUQ=\x07\nq\n"],
    ids=["superscript-two", "5000-digits", "invalid-utf8", "typed-escapes"],
)
def test_guide_survives_any_typed_line(typed: bytes) -> None:
    """F8 (and A97): '²' passed isdigit() but not int(), 5,000 digits passed neither limit, and
    invalid UTF-8 was a UnicodeDecodeError where stdin decodes strictly (a real UTF-8 locale,
    imitated here with PYTHONIOENCODING); typed escapes were echoed raw in the transcript."""
    run = run_advisor("guide", "--lang", "en", input_bytes=typed, env={"PYTHONIOENCODING": "utf-8"})
    out = run.stdout.decode()
    assert run.returncode == 0, run.stderr.decode()
    assert "Please type a number from 1 to 6" in out and not CONTROLS.search(out)


def test_output_never_replaces_a_special_file_and_writes_through_links(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """F9: `-o X --force` replaced FIFOs, device nodes and links to streams with a regular file."""
    fifo, device_link, link, real = tmp_path / "pipe.md", tmp_path / "null.md", tmp_path / "link.md", tmp_path / "real.md"
    os.mkfifo(fifo)
    device_link.symlink_to("/dev/null")
    real.write_text("old", encoding="utf-8")
    link.symlink_to(real)
    for target in (fifo, device_link):
        assert main(["recommend", "-a", "workload=notebook", "-o", str(target), "--force"]) == 2
        assert capsys.readouterr().err == f"advisor: error: {target} is not a regular file; refusing to replace it\n"
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and device_link.is_symlink()
    assert main(["recommend", "-a", "workload=notebook", "-o", str(link), "--force"]) == 0
    assert link.is_symlink() and real.read_text(encoding="utf-8").startswith("# ")


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_signal_during_a_write_leaves_no_temporary_file(tmp_path: Path, name: str) -> None:
    """F10: SIGTERM or SIGHUP while the temporary file existed left it behind."""
    script = (
        "import os, signal, sys\n"
        f"signal.signal(signal.{name}, signal.SIG_DFL)  # as in a terminal, whatever ran the tests (nohup ignores SIGHUP)\n"
        "from advisor.files import atomic_write\n"
        "def pieces():\n"
        "    yield b'first half, '\n"
        f"    os.kill(os.getpid(), signal.{name})\n"
        "    yield b'second half'\n"
        "atomic_write(sys.argv[1], pieces())\n"
    )
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path / "plan.md")], capture_output=True, timeout=60)
    assert run.returncode == -getattr(signal, name), run.stderr.decode()  # the signal still ends the process
    assert list(tmp_path.iterdir()) == []


def test_closed_standard_streams_are_one_line_not_a_traceback() -> None:
    """F14: `advisor list >&-` and friends ended in an AttributeError traceback."""
    python = f"{shlex.quote(sys.executable)} -m advisor"
    cases = [
        (f"{python} list >&-", "advisor: error: standard output is closed\n"),
        (f"echo mig | {python} ask --batch - >&-", "advisor: error: standard output is closed\n"),
        (f"{python} guide --lang en <&- >/dev/null", "advisor: error: standard input is closed\n"),
        (f"{python} recommend --answers - <&-", "advisor: error: standard input is closed\n"),
        (f"{python} ask --batch - <&-", "advisor: error: cannot read -: standard input is closed\n"),
    ]
    for command, message in cases:
        run = subprocess.run(["sh", "-c", command], capture_output=True, timeout=60, env={**os.environ})
        assert (run.returncode, run.stderr.decode()) == (2, message), command
    run = subprocess.run(["sh", "-c", f"{python} list 2>&-; echo $?"], capture_output=True, timeout=60)
    assert run.stdout.decode().endswith("0\n")


def test_check_refuses_a_missing_tree_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """F15: a mistyped `check --trees` folder validated nothing and passed."""
    assert main(["check", "--trees", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == f"advisor: error: tree folder not found: {tmp_path / 'nope'}\n"
    tree = _evil_tree(tmp_path)  # one tree file may be given instead of a folder
    assert main(["check", "--trees", str(tree)]) == 0


def test_output_to_a_missing_folder_name_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """F16: `-o newdir/` wrote a file named newdir."""
    monkeypatch.chdir(tmp_path)
    assert main(["recommend", "-a", "workload=notebook", "--format", "md", "-o", "newdir/"]) == 2
    assert capsys.readouterr().err == "advisor: error: newdir/ is a folder, not a file\n"
    assert list(tmp_path.iterdir()) == []


def test_exports_and_the_saved_session_follow_the_umask(tmp_path: Path) -> None:
    """F17: exports and the autosaved session were 0644 whatever the umask."""
    from advisor.decision.session import Session, save_session
    from advisor.decision.validate import bundled_tree_path, load_tree

    old = os.umask(0o077)
    try:
        assert main(["recommend", "-a", "workload=notebook", "-o", str(tmp_path / "plan.md")]) == 0
        save_session(Session.start(load_tree(bundled_tree_path())), tmp_path / "session.json")
    finally:
        os.umask(old)
    assert {stat.S_IMODE(path.stat().st_mode) for path in tmp_path.iterdir()} == {0o600}

"""The README documents every command, and every command explains itself (`--help`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from advisor.cli import COMMANDS, main

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_is_in_the_readme(command: str) -> None:
    assert re.search(rf"`advisor {command}\b|^\$? ?advisor {command}\b", README, re.MULTILINE), command


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: advisor " + command) and len(out.splitlines()) > 3


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_follows_the_interface_language(command: str | None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from advisor.i18n import t

    argv = [command, "--help"] if command else ["--help"]
    english = _help(argv, capsys)
    monkeypatch.setenv("LANG", "vi_VN.UTF-8")
    vietnamese = _help(argv, capsys)
    assert english.startswith("usage: advisor") and vietnamese.startswith("cách dùng: advisor")
    assert "tuỳ chọn:" in vietnamese and "hiện trợ giúp này rồi thoát" in vietnamese
    summary = " ".join(t(f"cli_desc_{command}" if command else "cli_description", "vi").split()[:4])
    assert summary in " ".join(vietnamese.split())
    assert "show this help" not in vietnamese and "cli_" not in vietnamese and "cli_" not in english
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert _help([*argv, "--lang", "vi"], capsys) == vietnamese  # --lang decides, as for the output


def _help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_every_help_text_is_an_interface_word() -> None:
    """Help texts are label keys (so they have a Vietnamese version), never English in Python."""
    from advisor.cli import build_parser
    from advisor.i18n import labels

    parser = build_parser()
    parsers = [parser, *parser._subparsers._group_actions[0].choices.values()]  # type: ignore[union-attr]
    texts = [p.description for p in parsers] + [action.help for p in parsers for action in p._actions if action.help != "==SUPPRESS=="]
    assert [text for text in texts if text is not None and text not in labels("vi")] == []


def test_readme_opens_with_exactly_two_setup_commands_and_ci_runs_the_test_one() -> None:
    first_block = re.search(r"```sh\n(.*?)```", README, re.DOTALL)
    assert first_block is not None
    commands = [line for line in first_block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2
    assert "pip install" in commands[0] and "advisor" in commands[0]
    assert "pytest" in commands[1]
    assert "python -m pytest" in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_every_interface_word_exists_in_every_language() -> None:
    import json

    from advisor.i18n import LANGUAGES

    folder = REPO / "advisor" / "locales"
    keys = {lang: set(json.loads((folder / f"{lang}.json").read_text(encoding="utf-8"))) for lang in LANGUAGES}
    # A singular (`key_one`) is needed only by a language with plurals, and only beside its key.
    assert all(found == {key for key in keys["en"] if not key.endswith("_one")} for found in keys.values() if found is not keys["en"])
    assert all(key.removesuffix("_one") in keys["en"] for key in keys["en"])


def test_the_architecture_page_is_linked_and_names_real_modules() -> None:
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "docs/architecture.md" in README
    for module in re.findall(r"`advisor\.([a-z_.]+)\.[a-z_]+\(", page):
        path = REPO / "advisor" / Path(*module.split("."))
        assert path.with_suffix(".py").exists() or (path / "__init__.py").exists(), module


@pytest.mark.parametrize(("count", "en", "vi"), [(1, "with 1 answer.", "với 1 câu trả lời."), (3, "with 3 answers.", "với 3 câu trả lời.")])
def test_a_count_of_one_reads_in_the_singular(count: int, en: str, vi: str) -> None:
    from advisor.i18n import t

    assert t("tui_resume_question", "en", count=count).endswith(en)
    assert t("tui_resume_question", "vi", count=count).endswith(vi)


def _targets(markdown: str) -> dict[str, tuple[str, str]]:
    """The benchmark's targets table: target -> (measured, met or MISSED)."""
    section = markdown[markdown.index("## Targets") :] if "## Targets" in markdown else markdown[markdown.index("| target |") :]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in section.splitlines() if line.startswith("| ")]
    return {cells[0]: (cells[1], cells[3]) for cells in rows if cells[0] != "target" and len(cells) >= 4}


def test_the_readme_speed_figures_are_the_benchmarks_last_run() -> None:
    results = _targets((REPO / "benchmarks" / "results.md").read_text(encoding="utf-8"))
    speed = README[README.index("## Speed") : README.index("## Errors and exit codes")]
    assert results and _targets(speed) == results

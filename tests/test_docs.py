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
    assert all(found == keys["en"] for found in keys.values())


def test_the_architecture_page_is_linked_and_names_real_modules() -> None:
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "docs/architecture.md" in README
    for module in re.findall(r"`advisor\.([a-z_.]+)\.[a-z_]+\(", page):
        path = REPO / "advisor" / Path(*module.split("."))
        assert path.with_suffix(".py").exists() or (path / "__init__.py").exists(), module

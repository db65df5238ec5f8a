"""The common command lines read without argparse (`advisor.cli.quick_args`) mean what argparse
reads them as: whenever the quick reader accepts a command line, argparse accepts it too, with
the same values; whatever it is unsure of, it leaves to argparse."""

from __future__ import annotations

import argparse
import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.cli import COMMANDS, build_parser, quick_args

DECLARED = {line.name: line for module in set(COMMANDS.values()) for line in importlib.import_module(f"advisor.commands.{module}").COMMAND_LINES}
WORDS = ["mig", "what", "is", "-", "--", "-5", "workload=notebook", "x=y", "vi", "en", "fr", "3", "0", "json", "md", "text", "a b"]


def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser(command)
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[command]  # type: ignore[no-any-return]


def _tokens(command: str) -> list[str]:
    options = [s for a in _subparser(command)._actions for s in a.option_strings]
    glued = [f"{option}={value}" for option in options for value in ("vi", "3", "k=v", "")]
    return [*WORDS, *options, *glued, "-h", "--js", "--la", "-ak=v", "--answ"]


def test_every_command_is_declared_once_in_its_module() -> None:
    assert set(DECLARED) == set(COMMANDS)
    for command, module in COMMANDS.items():
        assert DECLARED[command].run.__module__ == f"advisor.commands.{module}"


def test_the_declared_format_choices_are_the_engine_s() -> None:
    # Declared as literals so that reading `advisor recommend` imports neither module.
    from advisor.decision.diagram import DIAGRAM_FORMATS
    from advisor.export import FORMATS

    def choices(command: str) -> tuple[object, ...]:
        return next(option.kind for option in DECLARED[command].options if option.names == ("--format",))

    assert choices("recommend") == choices("guide") == tuple(FORMATS)
    assert choices("tree") == DIAGRAM_FORMATS


def test_help_shows_every_declared_option_with_its_text() -> None:
    from advisor.i18n import t

    for command, line in DECLARED.items():
        text = _subparser(command).format_help()
        for option in line.options:
            assert option.names[-1] in text, (command, option)
            assert " ".join(t(option.help, "en").split()[:3]) in " ".join(text.split()), (command, option)


@pytest.mark.parametrize("command", sorted(DECLARED))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_quick_reading_agrees_with_argparse(command: str, data: st.DataObject) -> None:
    argv = [command, *data.draw(st.lists(st.sampled_from(_tokens(command)), max_size=7))]
    quick = quick_args(argv)
    if quick is None:
        return  # argparse decides, and words any error
    assert vars(quick) == vars(build_parser(command).parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["ask", "--json", "what", "is", "mig"],
        ["ask", "what", "is", "mig", "--lang", "vi", "--top=2"],
        ["show", "mig", "--lang", "vi"],
        ["list", "--json"],
        ["providers", "--need", "mig", "--need=spot", "--json"],
        ["recommend", "-a", "workload=notebook", "--answer", "gpus=one", "--format", "json"],
    ],
)
def test_the_everyday_command_lines_are_read_quickly(argv: list[str]) -> None:
    quick = quick_args(argv)
    assert quick is not None and vars(quick) == vars(build_parser(argv[0]).parse_args(argv))

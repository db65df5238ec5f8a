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

QUICK = {command: spec for module in set(COMMANDS.values()) for command, spec in getattr(importlib.import_module(f"advisor.commands.{module}"), "QUICK", {}).items()}
WORDS = ["mig", "what", "is", "-", "--", "-5", "workload=notebook", "x=y", "vi", "en", "fr", "3", "0", "json", "md", "text", "a b"]


def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser(command)
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[command]  # type: ignore[no-any-return]


def _tokens(command: str) -> list[str]:
    options = [s for a in _subparser(command)._actions for s in a.option_strings]
    glued = [f"{option}={value}" for option in options for value in ("vi", "3", "k=v", "")]
    return [*WORDS, *options, *glued, "-h", "--js", "--la", "-ak=v", "--answ"]


def test_quick_commands_are_the_reading_commands() -> None:
    assert set(QUICK) == {"ask", "show", "list", "providers", "recommend"}


@pytest.mark.parametrize("command", sorted(QUICK))
def test_the_tables_name_argparse_s_options_and_choices(command: str) -> None:
    _, _, options, run = QUICK[command]
    declared = {s: a for a in _subparser(command)._actions for s in a.option_strings if s not in ("-h", "--help")}
    assert set(options) == set(declared)
    for name, action in declared.items():
        kind = options[name]
        if isinstance(kind, str) and kind.startswith("--"):
            kind = options[kind]
        if action.choices is not None:
            assert tuple(kind) == tuple(action.choices), name  # type: ignore[arg-type]
    assert _subparser(command).get_default("run") is run


@pytest.mark.parametrize("command", sorted(QUICK))
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

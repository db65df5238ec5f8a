"""`advisor recommend`, `advisor guide` and `advisor tree`: the decision tree on the command line.

The commands only parse arguments, read answers and print; walking the tree, evaluating rules and
rendering exports happen in `advisor.decision` and `advisor.export`, which the app calls too.
"""

from __future__ import annotations

import os
import sys

from advisor.commands.common import FLAG, KB_OPTION, REPEATED, Command, Option, checked_text, kb_root, lang_option
from advisor.i18n import t
from advisor.problems import UsageError
from advisor.textnorm import json_dumps, shown, strip_terminal_escapes

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    import argparse
    from typing import TextIO

    from advisor.decision.recommend import Recommendation
    from advisor.decision.tree import Question, Tree


# ----------------------------------------------------------------------------- shared


def _tree(args: argparse.Namespace) -> Tree:
    from advisor.library import open_tree

    if args.tree and not os.path.isfile(args.tree):
        raise UsageError("err_tree_not_found", path=args.tree)
    return open_tree(args.tree)


def _lang(args: argparse.Namespace) -> str:
    from advisor.i18n import default_language

    return args.lang or default_language()


def _format(args: argparse.Namespace) -> str:
    from advisor.export import DEFAULT_FORMAT, FORMATS, format_for_path

    if args.format:
        return str(args.format)
    if args.output and args.output != "-":
        found = format_for_path(args.output)
        if found is None:
            suffixes = ", ".join(suffix for fmt in FORMATS.values() for suffix in fmt.suffixes)
            raise UsageError("err_unknown_format", path=args.output, suffixes=suffixes)
        return found
    return DEFAULT_FORMAT


def _emit(args: argparse.Namespace, rec: Recommendation, lang: str, out: TextIO) -> int:
    from advisor.export import export_text
    from advisor.files import atomic_write
    from advisor.library import open_index

    root = kb_root(args)
    fmt = _format(args)
    text = export_text(rec, fmt, lang, open_index(root), root)
    if args.output and args.output != "-":
        atomic_write(args.output, text, force=args.force)
        print(t("rec_written", lang, path=shown(args.output, 1000)), file=sys.stderr)
    elif fmt == "md" and args.format is None and _is_terminal(out):  # for a person: styled, wrapped, paged
        from advisor.terminal import Styler, page
        from advisor.terminal_markdown import render_markdown

        page(render_markdown(strip_terminal_escapes(text), Styler.for_stream(out)), out)
    else:  # for a program or a file (`--format md` asks for the Markdown itself); knowledge titles and tree text must not drive a terminal
        out.write(strip_terminal_escapes(text))
        out.flush()
    return 0


def _is_terminal(stream: TextIO) -> bool:
    """`advisor.terminal.is_terminal`, imported only for Markdown: JSON and HTML never need it."""
    from advisor.terminal import is_terminal

    return is_terminal(stream)


def _check_output(args: argparse.Namespace) -> None:
    """Refuse an existing output file before any question is asked, not after."""
    if args.output and args.output != "-" and not args.force and os.path.exists(args.output):
        raise UsageError("err_output_exists", path=args.output)


# ----------------------------------------------------------------------------- recommend


def _parse_answer(text: str) -> tuple[str, str]:
    text = checked_text(text, "err_not_utf8_answer")
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise UsageError("err_answer_shape", text=shown(text))
    return key.strip().lower().replace("-", "_"), value.strip()


def run_recommend(args: argparse.Namespace) -> int:
    from advisor.decision.session import complete

    tree = _tree(args)
    lang = _lang(args)
    if args.list_questions:
        return _list_questions(tree, lang, as_json=args.format == "json")
    given: dict[str, str] = {}
    if args.answers:
        from advisor.decision.answers_file import read_answers

        from advisor.files import read_bytes, read_stream

        try:  # a regular file, or standard input; either way capped (`--answers /dev/zero`)
            raw = read_stream(sys.stdin.buffer) if args.answers == "-" else read_bytes(args.answers)
        except ValueError as error:
            raise UsageError("err_cannot_read", path=shown(args.answers), reason=str(error).removeprefix("cannot read file: ")) from None
        given.update(read_answers(raw, "<stdin>" if args.answers == "-" else args.answers))
    for item in args.answer:
        key, value = _parse_answer(item)
        given[key] = value
    completion = complete(tree, given, strict=args.strict)
    if completion.ignored:
        print(t("rec_ignored_answers", lang, keys=", ".join(completion.ignored)), file=sys.stderr)
    from advisor.decision.recommend import recommend

    _check_output(args)
    return _emit(args, recommend(completion.session), lang, sys.stdout)


def _list_questions(tree: Tree, lang: str, as_json: bool) -> int:
    from advisor.decision.session import NOT_SURE

    if as_json:
        rows = [
            {
                "key": q.key,
                "title": q.title.get(lang),
                "question": q.text.get(lang),
                "values": list(q.values),
                "labels": {option.value: option.label.get(lang) for option in q.options},
                "default": q.default,
                "kb": list(q.kb),
            }
            for q in tree.questions
        ]
        print(json_dumps(rows, indent=2))
        return 0
    values_word, default_word = t("rec_allowed_values", lang), t("rec_default", lang)
    blocks = []
    for q in tree.questions:
        blocks.append(
            "\n".join(
                [
                    f"{q.key}  {q.text.get(lang)}",
                    f"    {values_word}: {' | '.join((*q.values, NOT_SURE))}",
                    f"    {default_word}: {q.default}",
                ]
            )
        )
    print(strip_terminal_escapes("\n\n".join(blocks)))
    return 0


# ----------------------------------------------------------------------------- guide


def run_guide(args: argparse.Namespace) -> int:
    from advisor.decision.recommend import recommend
    from advisor.decision.session import Session, checked_answers
    from advisor.terminal import is_terminal

    tree = _tree(args)
    lang = _lang(args)
    given = checked_answers(tree, dict(_parse_answer(item) for item in args.answer))
    _check_output(args)
    out, stdin = sys.stdout, sys.stdin

    def label(key: str, lang: str, **values: object) -> str:
        return t(key if key.startswith("guide_") else f"rec_{key}", lang, **values)

    def say(text: str = "") -> None:  # everything the guide prints: tree text must not drive the terminal
        out.write(strip_terminal_escapes(text) + "\n")

    session = Session.of(tree, given)
    say(tree.title.get(lang))
    say(label("guide_intro", lang))
    for answer in given:  # `advisor ask` offers the guide with what a question already said
        question = tree.question(answer.key)
        option = question.option(answer.value) if question is not None else None
        if question is not None and option is not None:
            title, chosen = question.title.get(lang), option.label.get(lang)  # "not-sure" takes the default: assumed
            say(label("guide_assumed", lang, label=f"{title}: {chosen}") if answer.assumed else label("guide_given", lang, question=title, answer=chosen))
    while not session.done:
        question = session.next_question
        if question is None:  # cannot happen with a loaded tree; never spin
            break
        options = question.options
        count = len(options) + 1
        default = question.option(question.default)
        say()
        say(f"{label('question_number', lang, number=len(session.answers) + 1)}: {question.text.get(lang)}")
        for number, option in enumerate(options, start=1):
            say(f"  {number}. {option.label.get(lang)}")
        say(f"  {count}. {label('not_sure_option', lang, label=default.label.get(lang) if default else question.default)}")
        while True:
            try:  # the prompt is inside: a Ctrl+C that lands just after it is shown ends its line too
                out.write(label("guide_prompt", lang, count=count))
                out.flush()
                line = stdin.readline()
            except KeyboardInterrupt:  # Ctrl+C at the prompt: end its line, so the shell's starts afresh
                say()
                raise
            if line and not is_terminal(stdin):
                say(shown(line.rstrip("\n"), 200))  # a transcript shows what was chosen
            if not line:
                say()
                print(label("guide_eof", lang), file=sys.stderr)
                return 1
            choice = line.strip().lower()
            if choice in ("q", "quit", "exit"):
                say(label("guide_quit", lang))
                return 0
            if choice in ("b", "back"):
                if not session.answers:
                    say(label("guide_first", lang))
                    continue
                session = session.back()
                break
            if choice in ("?", "h", "help"):
                say()
                say(_wrap(strip_terminal_escapes(question.help.get(lang))))
                if question.kb:
                    say(f"{label('guide_help_kb', lang)}: " + ", ".join(f"advisor show {kb_id}" for kb_id in question.kb))
                say()
                continue
            valid, value = _choice_value(choice, question, count)
            if not valid:
                say(label("guide_invalid", lang, count=count))
                continue
            session = session.answer(value)
            if value is None:
                say(label("guide_assumed", lang, label=default.label.get(lang) if default else question.default))
            break
    say()
    return _emit(args, recommend(session), lang, out)


def _choice_value(choice: str, question: Question, count: int) -> tuple[bool, str | None]:
    """(valid, value) for an option chosen by number or by name; value None means "not sure"."""
    from advisor.decision.session import NOT_SURE

    if choice.isascii() and choice.isdigit() and len(choice) <= 6:  # not "²", not 5,000 digits
        number = int(choice)
        if 1 <= number < count:
            return True, str(question.options[number - 1].value)
        return number == count, None
    if choice == NOT_SURE:
        return True, None
    return question.option(choice) is not None, choice


def _wrap(text: str, width: int = 78) -> str:
    import textwrap

    return textwrap.fill(text, width=width)


# ----------------------------------------------------------------------------- tree


def run_tree(args: argparse.Namespace) -> int:
    from advisor.decision.diagram import tree_diagram

    tree = _tree(args)
    sys.stdout.write(strip_terminal_escapes(tree_diagram(tree, args.format, _lang(args))))
    return 0


# The options `recommend` and `guide` share. The choices of `--format` are the names of
# `advisor.export.FORMATS` and `advisor.decision.diagram.DIAGRAM_FORMATS` (a test holds them
# equal): importing those modules here would cost every `advisor recommend` their imports.
_EXPORT_OPTIONS = (
    Option(("--format",), ("md", "html", "json"), "cli_arg_export_format"),
    lang_option("cli_arg_lang_output"),
    Option(("-o", "--output"), str, "cli_arg_output", "FILE"),
    Option(("--force",), FLAG, "cli_arg_force"),
    Option(("--tree",), str, "cli_arg_tree_file", "FILE"),
    KB_OPTION,
)

COMMAND_LINES = (
    Command(
        "recommend",
        run_recommend,
        (
            Option(("-a", "--answer"), REPEATED, "cli_arg_recommend_answer", "KEY=VALUE"),
            Option(("--answers",), str, "cli_arg_recommend_answers", "FILE"),
            Option(("--strict",), FLAG, "cli_arg_recommend_strict"),
            Option(("--list-questions",), FLAG, "cli_arg_recommend_list_questions"),
            *_EXPORT_OPTIONS,
        ),
    ),
    Command("guide", run_guide, (Option(("-a", "--answer"), REPEATED, "cli_arg_guide_answer", "KEY=VALUE"), *_EXPORT_OPTIONS)),
    Command(
        "tree",
        run_tree,
        (
            Option(("--format",), ("mermaid", "dot", "text"), "cli_arg_tree_format", default="text"),
            lang_option("cli_arg_lang_labels"),
            Option(("--tree",), str, "cli_arg_tree_file", "FILE"),
        ),
    ),
)

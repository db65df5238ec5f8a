"""`advisor recommend`, `advisor guide` and `advisor tree`: the decision tree on the command line.

The commands only parse arguments, read answers and print; walking the tree, evaluating rules and
rendering exports happen in `advisor.decision` and `advisor.export`, which the app calls too.
"""

from __future__ import annotations

import json
import os
import sys

from advisor.commands.common import LANGS, add_kb_option, add_lang_option, checked_text, kb_root
from advisor.i18n import t
from advisor.problems import UsageError

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    import argparse
    from typing import Any, TextIO

    from advisor.decision.recommend import Recommendation
    from advisor.decision.tree import Question, Tree



def add_parser(sub: Any) -> None:
    recommend = sub.add_parser(
        "recommend",
        help="recommend a GPU set-up from answers given as options or a file",
        description="Recommend how to run GPU work from answers given non-interactively. "
        "Unanswered questions take their default and are listed as assumptions.",
    )
    recommend.add_argument("-a", "--answer", action="append", default=[], metavar="KEY=VALUE", help="one answer; repeat for more (VALUE may be not-sure)")
    recommend.add_argument("--answers", metavar="FILE", help="answers from a YAML or JSON file ('-' for stdin): a KEY: VALUE mapping, or an exported JSON summary")
    recommend.add_argument("--strict", action="store_true", help="fail instead of assuming defaults for unanswered questions")
    recommend.add_argument("--list-questions", action="store_true", help="list the answer keys, their values and defaults, then exit")
    _add_common(recommend)
    recommend.set_defaults(run=run_recommend)

    guide = sub.add_parser(
        "guide",
        help="answer the questions one by one on a plain terminal",
        description="Ask the decision questions on a plain terminal (numbered options; b back, ? help, q quit) "
        "and print the recommendation. Reads answers from stdin, so it also works in scripts.",
    )
    _add_common(guide)
    guide.set_defaults(run=run_guide)

    tree = sub.add_parser("tree", help="print the decision tree as a diagram", description="Print the decision tree as Mermaid, Graphviz DOT or text.")
    from advisor.decision.diagram import DIAGRAM_FORMATS

    tree.add_argument("--format", choices=DIAGRAM_FORMATS, default="text", help="diagram format (default: text)")
    add_lang_option(tree, "label language (default: from the environment)")
    tree.add_argument("--tree", metavar="FILE", help="decision tree file (default: the bundled one)")
    tree.set_defaults(run=run_tree)


def _add_common(parser: argparse.ArgumentParser) -> None:
    from advisor.export import FORMATS

    parser.add_argument("--format", choices=tuple(FORMATS), help="output format (default: from the -o suffix, else md)")
    add_lang_option(parser, "output language (default: from the environment)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    parser.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    parser.add_argument("--tree", metavar="FILE", help="decision tree file (default: the bundled one)")
    add_kb_option(parser)


# ----------------------------------------------------------------------------- shared


def _tree(args: argparse.Namespace) -> Tree:
    from advisor.library import open_tree

    if args.tree and not os.path.isfile(args.tree):
        raise UsageError(f"tree file not found: {args.tree}")
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
            raise UsageError(f"cannot tell the format of {args.output} from its name ({suffixes}); add --format")
        return found
    return DEFAULT_FORMAT


def _emit(args: argparse.Namespace, rec: Recommendation, lang: str, out: TextIO) -> int:
    from advisor.export import export_text
    from advisor.files import atomic_write
    from advisor.library import open_index

    root = kb_root(args)
    text = export_text(rec, _format(args), lang, open_index(root), root)
    if args.output and args.output != "-":
        atomic_write(args.output, text, force=args.force)
        print(t("rec_written", lang, path=args.output), file=sys.stderr)
    else:
        out.write(text)
        out.flush()
    return 0


def _check_output(args: argparse.Namespace) -> None:
    """Refuse an existing output file before any question is asked, not after."""
    if args.output and args.output != "-" and not args.force and os.path.exists(args.output):
        raise UsageError(f"{args.output} already exists; use --force to overwrite it")


# ----------------------------------------------------------------------------- recommend


def _parse_answer(text: str) -> tuple[str, str]:
    text = checked_text(text, "--answer")
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise UsageError(f"--answer expects KEY=VALUE, got '{text}'")
    return key.strip().replace("-", "_"), value.strip()


def run_recommend(args: argparse.Namespace) -> int:
    from advisor.decision.session import complete

    tree = _tree(args)
    lang = _lang(args)
    if args.list_questions:
        return _list_questions(tree, lang, as_json=args.format == "json")
    given: dict[str, str] = {}
    if args.answers:
        from advisor.decision.answers_file import read_answers

        if args.answers == "-":
            given.update(read_answers(sys.stdin.buffer.read(), "<stdin>"))
        else:
            from advisor.files import read_bytes

            try:
                raw = read_bytes(args.answers)
            except ValueError as error:
                raise UsageError(f"cannot read {args.answers}: {str(error).removeprefix('cannot read file: ')}") from None
            given.update(read_answers(raw, args.answers))
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
    from advisor.textnorm import strip_terminal_escapes as clean

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
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    values_word, default_word = t("rec_allowed_values", lang), t("rec_default", lang)
    blocks = []
    for q in tree.questions:
        blocks.append(
            "\n".join(
                [
                    f"{q.key}  {clean(q.text.get(lang))}",
                    f"    {values_word}: {' | '.join((*q.values, NOT_SURE))}",
                    f"    {default_word}: {q.default}",
                ]
            )
        )
    print("\n\n".join(blocks))
    return 0


# ----------------------------------------------------------------------------- guide


def run_guide(args: argparse.Namespace) -> int:
    from advisor.decision.recommend import recommend
    from advisor.decision.session import Session
    from advisor.textnorm import strip_terminal_escapes as clean

    tree = _tree(args)
    lang = _lang(args)
    _check_output(args)
    out, stdin = sys.stdout, sys.stdin

    def label(key: str, lang: str, **values: object) -> str:
        return t(key if key.startswith("guide_") else f"rec_{key}", lang, **values)

    def say(text: str = "") -> None:
        out.write(text + "\n")

    session = Session.start(tree)
    say(clean(tree.title.get(lang)))
    say(label("guide_intro", lang))
    while not session.done:
        question = session.next_question
        if question is None:  # cannot happen with a loaded tree; never spin
            break
        options = question.options
        count = len(options) + 1
        default = question.option(question.default)
        say()
        say(f"{label('question_number', lang, number=len(session.answers) + 1)}: {clean(question.text.get(lang))}")
        for number, option in enumerate(options, start=1):
            say(f"  {number}. {clean(option.label.get(lang))}")
        say(f"  {count}. {label('not_sure_option', lang, label=clean(default.label.get(lang)) if default else question.default)}")
        while True:
            out.write(label("guide_prompt", lang, count=count))
            out.flush()
            line = stdin.readline()
            if line and not _is_tty(stdin):
                out.write(line if line.endswith("\n") else line + "\n")  # a transcript shows what was chosen
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
                say(_wrap(clean(question.help.get(lang))))
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
                say(label("guide_assumed", lang, label=clean(default.label.get(lang)) if default else question.default))
            break
    say()
    return _emit(args, recommend(session), lang, out)


def _choice_value(choice: str, question: Question, count: int) -> tuple[bool, str | None]:
    """(valid, value) for an option chosen by number or by name; value None means "not sure"."""
    from advisor.decision.session import NOT_SURE

    if choice.isdigit():
        number = int(choice)
        if 1 <= number < count:
            return True, str(question.options[number - 1].value)
        return number == count, None
    if choice == NOT_SURE:
        return True, None
    return question.option(choice) is not None, choice


def _is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _wrap(text: str, width: int = 78) -> str:
    import textwrap

    return textwrap.fill(text, width=width)


# ----------------------------------------------------------------------------- tree


def run_tree(args: argparse.Namespace) -> int:
    from advisor.decision.diagram import tree_diagram

    tree = _tree(args)
    sys.stdout.write(tree_diagram(tree, args.format, _lang(args)))
    return 0


# `advisor recommend` read without argparse (`advisor.commands.ask.QUICK` says how); the formats
# are `advisor.export.FORMATS`, which the test that holds this table to `add_parser` compares.
QUICK: dict[str, tuple[str, int | str, dict[str, object], Any]] = {
    "recommend": (
        "",
        0,
        {
            "-a": "--answer",
            "--answer": list,
            "--answers": str,
            "--strict": "flag",
            "--list-questions": "flag",
            "--format": ("md", "html", "json"),
            "--lang": LANGS,
            "-o": "--output",
            "--output": str,
            "--force": "flag",
            "--tree": str,
            "--kb": str,
        },
        run_recommend,
    ),
}

"""`advisor learn`: turn learning on or off, review the questions it kept, add one to an entry.

The command only reads its words and prints; what is kept, how the questions are grouped and how
one is written into an entry are `advisor.learning`'s.
"""

from __future__ import annotations

import os

from advisor.commands.common import JSON_OPTION, KB_OPTION, Command, Option, kb_root, lang_option, report_problems
from advisor.problems import UsageError

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    import argparse

    from advisor.learning import Proposal
    from advisor.search.index import SearchIndex


def run(args: argparse.Namespace) -> int:
    from advisor import question_log
    from advisor.i18n import default_language, t
    from advisor.learning import read_log

    lang = args.lang or default_language()
    action, *rest = args.action or ["review"]
    if action in ("on", "off", "clear") and not rest:
        path = question_log.log_path()
        logged, _ = read_log(path)
        if action == "clear":
            if os.path.lexists(path):
                os.remove(path)
            print(t("learn_cleared", lang, count=len(logged)))
        else:
            question_log.switch(action == "on")
            key = "learn_turned_on" if action == "on" else "learn_turned_off"
            print(t(key, lang, path=path, threshold=round(question_log.WELL_ANSWERED), count=len(logged)))
        return 0
    if action == "add" and rest:
        return _add(args, rest, lang)
    if action != "review" or rest:
        raise UsageError("err_learn_action", word=" ".join(args.action))
    return _review(args, lang)


def _proposals(args: argparse.Namespace) -> tuple[SearchIndex, list[Proposal], int, int]:
    from advisor.learning import read_log, review
    from advisor.library import open_index
    from advisor.question_log import log_path

    logged, problems = read_log(log_path())
    report_problems(problems)
    index = open_index(kb_root(args))
    proposals, answered_now = review(index, logged)
    return index, proposals, len(logged), answered_now


def _review(args: argparse.Namespace, lang: str) -> int:
    from advisor import question_log
    from advisor.i18n import t
    from advisor.textnorm import json_dumps, strip_terminal_escapes

    on = question_log.is_on()
    _, proposals, logged, answered_now = _proposals(args)
    if args.json:
        print(json_dumps({
            "learning": on,
            "log": question_log.log_path(),
            "logged": logged,
            "answered_well_now": answered_now,
            "proposals": [
                {"number": p.lines[0], "question": p.question, "entry": p.entry, "lang": p.lang, "asked": len(p.lines), "picked": p.picked, "confidence": p.confidence}
                for p in proposals
            ],
        }, indent=2))
        return 0
    out = [t("learn_on" if on else "learn_off", lang, path=question_log.log_path())]
    out.append(t("learn_summary", lang, logged=logged, answered=answered_now, proposals=len(proposals)))
    heading: tuple[str | None, str] | None = None
    for proposal in proposals:
        if heading != (proposal.entry, proposal.lang):
            heading = (proposal.entry, proposal.lang)
            out += ["", f"{proposal.entry}  ({proposal.lang})" if proposal.entry else t("learn_unranked", lang)]
        notes = [t("learn_asked", lang, count=len(proposal.lines))] if len(proposal.lines) > 1 else []
        notes.append(t("learn_picked", lang) if proposal.picked else t("learn_confidence", lang, score=round(proposal.confidence)))
        out.append(f"  [{proposal.lines[0]}] {strip_terminal_escapes(proposal.question)}  ({', '.join(notes)})")
    if proposals:
        out += ["", t("learn_hint", lang)]
    print("\n".join(out))
    return 0


def _add(args: argparse.Namespace, numbers: list[str], lang: str) -> int:
    from pathlib import Path

    from advisor.i18n import t
    from advisor.learning import add_question
    from advisor.paths import bundled_knowledge_dir

    root = kb_root(args)
    if os.path.realpath(root) == os.path.realpath(bundled_knowledge_dir()):
        raise UsageError("err_learn_bundled")
    try:
        wanted = [int(number) for number in numbers]
    except ValueError:
        raise UsageError("err_learn_action", word=" ".join(args.action)) from None
    index, proposals, _, _ = _proposals(args)
    by_line = {line: proposal for proposal in proposals for line in proposal.lines}
    for number in wanted:
        proposal = by_line.get(number)
        if proposal is None:
            raise UsageError("err_learn_number", number=number)
        entry_id = args.entry or proposal.entry
        if entry_id is None:
            raise UsageError("err_learn_no_entry", number=number)
        entry = index.entry_index(entry_id, proposal.lang)
        if entry is None:
            raise UsageError("err_learn_unknown_entry", entry=entry_id, path=root)
        path = Path(index.meta(entry).path)
        add_question(path, proposal.question)  # InvalidInput: one error line, exit 2 (advisor.cli)
        print(t("learn_added", lang, path=path, question=proposal.question))
    return 0


COMMAND_LINES = (
    Command(
        "learn",
        run,
        (Option(("--entry",), str, "cli_arg_learn_entry", "ID"), JSON_OPTION, lang_option("cli_arg_lang_interface"), KB_OPTION),
        "action",
        "*",
    ),
)

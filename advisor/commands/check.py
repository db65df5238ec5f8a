"""`advisor check`: validate the knowledge base, the decision trees and the provider catalogue."""

from __future__ import annotations

import sys
from pathlib import Path

from advisor.commands.common import KB_OPTION, Command, Option, kb_root, report_problems
from advisor.problems import Problem, UsageError

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    import argparse


def collect_problems(kb: Path, trees: Path, max_age_days: int) -> list[Problem]:
    from advisor.catalogue.load import catalogue_problems
    from advisor.catalogue.model import CATALOGUE_FILE
    from advisor.catalogue.terms import load_terms
    from advisor.knowledge.load import collection_problems, load_knowledge
    from advisor.decision.validate import tree_files, tree_problems

    knowledge = load_knowledge(kb)
    problems = list(knowledge.problems) + collection_problems(knowledge, kb)
    load_terms(kb, problems)
    known_ids = set(knowledge.ids)
    for path in [trees] if trees.is_file() else tree_files(trees):
        problems.extend(tree_problems(path, known_ids))
    catalogue = kb / CATALOGUE_FILE
    if catalogue.exists():
        problems.extend(catalogue_problems(catalogue, max_age_days=max_age_days))
    return problems


def run_check(args: argparse.Namespace) -> int:
    from advisor.paths import bundled_trees_dir

    kb = Path(kb_root(args))
    trees = Path(args.trees) if args.trees else bundled_trees_dir()
    if not trees.exists():  # a mistyped folder must not pass as "0 errors"
        raise UsageError(f"tree folder not found: {trees}")
    problems = collect_problems(kb, trees, args.max_age)
    report_problems(problems, sys.stdout)
    errors = sum(1 for p in problems if not p.warning)
    warnings = len(problems) - errors
    print(f"{errors} error(s), {warnings} warning(s)", file=sys.stderr)
    return 1 if errors else 0


COMMAND_LINES = (
    Command(
        "check",
        run_check,
        (KB_OPTION, Option(("--trees",), str, "cli_arg_check_trees", "DIR"), Option(("--max-age",), int, "cli_arg_check_max_age", "DAYS", 180)),
    ),
)

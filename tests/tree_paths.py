"""Brute force over a decision tree's paths: the oracle the linear validation is checked against.

`advisor.decision.validate` never lists paths (a chain of n yes/no questions has 2^n); these
helpers do, one by one, so tests can walk every path of a small tree and compare.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from advisor.decision.parse import TreeReader
from advisor.decision.tree import Node, Rule, Tree


def paths(tree: Tree) -> Iterator[tuple[tuple[Node, str | None], ...]]:
    """Every path from the start to an outcome as (node, answer value) steps; needs a sound flow."""
    start = tree.node(tree.start)
    if start is None:
        return
    work: list[tuple[Node, tuple[tuple[Node, str | None], ...]]] = [(start, ())]
    while work:
        node, steps = work.pop()
        if node.outcome:
            yield (*steps, (node, None))
            continue
        question = tree.question(node.ask or "")
        if question is None:
            continue
        for option in reversed(question.options):
            target = tree.node(node.target(option.value) or "")
            if target is not None:
                work.append((target, (*steps, (node, option.value))))


def _describe(answers: Mapping[str, str]) -> str:
    return ", ".join(f"{key}={value}" for key, value in answers.items())


def check_paths_by_enumeration(tree: Tree, reader: TreeReader) -> None:
    """What `validate._check_paths` reports, found by walking every path (the code it replaced)."""
    fired: set[str] = set()
    without: list[dict[str, str]] = []
    conflicts: dict[tuple[str, str], dict[str, str]] = {}
    repeated: dict[tuple[str, str], int] = {}
    for steps in paths(tree):
        seen_keys: set[str] = set()
        for node, _ in steps:
            if node.ask is not None:
                if node.ask in seen_keys:
                    repeated.setdefault((node.id, node.ask), node.line)
                seen_keys.add(node.ask)
        answers = {node.ask: value for node, value in steps if node.ask is not None and value is not None}
        setters: list[Rule] = []
        for rule in tree.rules:
            if rule.matches(answers):
                fired.add(rule.id)
                if rule.deployment is not None:
                    setters.append(rule)
        if not setters:
            without.append(answers)
        for first, other in zip(setters, setters[1:]):
            if first.deployment != other.deployment:
                conflicts.setdefault((first.id, other.id), answers)
    for (node_id, key), line in repeated.items():
        reader.report(line, f"node '{node_id}' asks '{key}' again on a path that already answered it", fatal=True)
    if without:
        more = f" (and {len(without) - 1} more paths)" if len(without) > 1 else ""
        reader.report(tree.lines["rules"], f"no rule sets a deployment for the path {_describe(without[0])}{more}")
    for (first_id, other_id), answers in conflicts.items():
        line = next(rule.line for rule in tree.rules if rule.id == other_id)
        reader.report(line, f"rules '{first_id}' and '{other_id}' set different deployments for the path {_describe(answers)}")
    for rule in tree.rules:
        if rule.id not in fired:
            conditions = " or ".join(" and ".join(f"{c.key}={'|'.join(c.values)}" for c in alternative) for alternative in rule.when)
            reader.report(rule.line, f"rule '{rule.id}' can never fire: no path through the flow gives {conditions}")
    used = {check_id for rule in tree.rules if rule.id in fired for check_id in rule.checks}
    for item in tree.checklist:
        if item.id not in used:
            reader.report(item.line, f"checklist item '{item.id}' is never used by a rule that can fire", warning=True)

"""Proving a decision tree sound before anyone walks it.

Every name it uses must exist, the flow must be a DAG from the start node, every path must end in
a recommendation with one deployment model, and every rule must be able to fire; each finding is
a `path:line: message` problem. `load_tree` refuses a tree only for the fatal ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from advisor.decision.parse import parse_tree, TreeReader
from advisor.decision.tree import MAX_PATHS, Condition, Node, Rule, Tree
from advisor.problems import DataError, Problem


def _check_references(tree: Tree, reader: TreeReader) -> None:
    """Every name a tree uses must be defined: nodes, questions, options, topics, checks."""
    if tree.start and tree.node(tree.start) is None:
        reader.report(tree.lines["start"], f"start node '{tree.start}' does not exist", fatal=True)
    for node in tree.nodes:
        if node.outcome:
            continue
        if node.ask is None:
            reader.report(node.line, f"node '{node.id}' asks nothing and is not an outcome: the path ends without a recommendation", fatal=True)
            continue
        question = tree.question(node.ask)
        if question is None:
            reader.report(node.line, f"node '{node.id}' asks unknown question '{node.ask}'", fatal=True)
            continue
        if not question.options:
            reader.report(node.line, f"node '{node.id}' asks '{node.ask}', which has no options: the path ends without a recommendation", fatal=True)
            continue
        routed = {edge.value for edge in node.edges}
        for edge in node.edges:
            if edge.value != "*" and question.option(edge.value) is None:
                reader.report(edge.line, f"node '{node.id}': next names '{edge.value}', which is not an option of '{node.ask}' ({', '.join(question.values)})", fatal=True)
            if tree.node(edge.target) is None:
                answer = "every answer" if edge.value == "*" else f"answer '{edge.value}'"
                reader.report(edge.line, f"node '{node.id}': {answer} leads to unknown node '{edge.target}'", fatal=True)
        if "*" not in routed:
            for option in question.options:
                if option.value not in routed:
                    reader.report(node.next_line, f"node '{node.id}': option '{option.value}' of '{node.ask}' has no target", fatal=True)
    from advisor.catalogue.model import NEEDS

    declared = [(rule.id, rule.needs, rule.line) for rule in tree.rules]
    declared += [(item.id, item.needs, item.line) for item in tree.checklist]
    declared += [(choice.value, choice.needs, choice.line) for choice in (*tree.deployments, *tree.sharing_modes)]
    for name, needs, line in declared:
        for need in needs:
            if need not in NEEDS:
                reader.report(line, f"'{name}': unknown need '{need}' (needs: {', '.join(NEEDS)})")
    deployments = {choice.value for choice in tree.deployments}
    sharing = {choice.value for choice in tree.sharing_modes}
    topics = {choice.value for choice in tree.topics}
    for rule in tree.rules:
        if rule.topic and rule.topic not in topics:
            reader.report(rule.line, f"rule '{rule.id}': unknown topic '{rule.topic}' (topics: {', '.join(sorted(topics))})")
        if rule.deployment is not None and rule.deployment not in deployments:
            reader.report(rule.line, f"rule '{rule.id}': unknown deployment '{rule.deployment}' (deployments: {', '.join(sorted(deployments))})")
        for mode in rule.sharing:
            if mode not in sharing:
                reader.report(rule.line, f"rule '{rule.id}': unknown sharing mode '{mode}' (modes: {', '.join(sorted(sharing))})")
        for check_id in rule.checks:
            if tree.check(check_id) is None:
                reader.report(rule.line, f"rule '{rule.id}': unknown checklist item '{check_id}'")
        for condition in rule.when:
            question = tree.question(condition.key)
            if question is None:
                reader.report(condition.line, f"rule '{rule.id}' can never fire: there is no question '{condition.key}'")
                continue
            for value in condition.values:
                if question.option(value) is None:
                    reader.report(condition.line, f"rule '{rule.id}' can never fire on '{condition.key}={value}': allowed values are {', '.join(question.values)}")


def _check_graph(tree: Tree, reader: TreeReader) -> bool:
    """Reachability and cycles; True when the flow is a sound DAG from the start node."""
    if tree.node(tree.start) is None:
        return False
    sound = not reader.fatal
    reached: set[str] = set()
    state: dict[str, int] = {}  # 1 = on the current DFS stack, 2 = finished
    stack: list[str] = []

    def _node(node_id: str) -> Node:
        node = tree.node(node_id)
        assert node is not None  # only existing targets are followed
        return node

    def successors(node: Node) -> Iterator[tuple[str, int]]:
        for edge in node.edges:
            if tree.node(edge.target) is not None:
                yield edge.target, edge.line

    def visit(node_id: str) -> None:
        nonlocal sound
        # Iterative DFS: a user's tree may be deep, and recursion limits are not a check result.
        work: list[tuple[str, Iterator[tuple[str, int]]]] = [(node_id, successors(_node(node_id)))]
        state[node_id] = 1
        stack.append(node_id)
        reached.add(node_id)
        while work:
            current, children = work[-1]
            found = next(children, None)
            if found is None:
                work.pop()
                stack.pop()
                state[current] = 2
                continue
            child, line = found
            if state.get(child) == 1:
                loop = stack[stack.index(child) :] + [child]
                reader.report(line, f"cycle in the flow: {' → '.join(loop)}", fatal=True)
                sound = False
            elif child not in state:
                state[child] = 1
                stack.append(child)
                reached.add(child)
                work.append((child, successors(_node(child))))

    visit(tree.start)
    for node in tree.nodes:
        if node.id not in reached:
            reader.report(node.line, f"node '{node.id}' is unreachable from the start node '{tree.start}'")
    asked = {node.ask for node in tree.nodes if node.id in reached}
    for question in tree.questions:
        if question.key not in asked:
            reader.report(question.line, f"question '{question.key}' is never asked by a reachable node", warning=True)
    return sound


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


def _answers_of(steps: tuple[tuple[Node, str | None], ...]) -> dict[str, str]:
    return {node.ask: value for node, value in steps if node.ask is not None and value is not None}


def _describe(answers: Mapping[str, str]) -> str:
    return ", ".join(f"{key}={value}" for key, value in answers.items())


def _check_paths(tree: Tree, reader: TreeReader) -> None:
    """Walk every path: each must give a deployment, and each rule must fire on some path."""
    fired: set[str] = set()
    without: list[dict[str, str]] = []
    conflicts: dict[tuple[str, str], dict[str, str]] = {}
    repeated: dict[tuple[str, str], int] = {}
    count = 0
    for steps in paths(tree):
        count += 1
        if count > MAX_PATHS:
            reader.report(tree.lines["start"], f"the flow has more than {MAX_PATHS:,} paths; split the tree", fatal=True)
            return
        seen_keys: set[str] = set()
        for node, _ in steps:
            if node.ask is not None:
                if node.ask in seen_keys:
                    repeated.setdefault((node.id, node.ask), node.line)
                seen_keys.add(node.ask)
        answers = _answers_of(steps)
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
        if rule.id not in fired and all(_condition_possible(tree, condition) for condition in rule.when):
            reader.report(rule.line, f"rule '{rule.id}' can never fire: no path through the flow gives {_describe_conditions(rule)}")
    used = {check_id for rule in tree.rules if rule.id in fired for check_id in rule.checks}
    for item in tree.checklist:
        if item.id not in used:
            reader.report(item.line, f"checklist item '{item.id}' is never used by a rule that can fire", warning=True)


def _condition_possible(tree: Tree, condition: Condition) -> bool:
    """Whether the condition names a real question and options (else it was reported already)."""
    question = tree.question(condition.key)
    return question is not None and all(question.option(value) for value in condition.values)


def _describe_conditions(rule: Rule) -> str:
    return " and ".join(f"{c.key}={'|'.join(c.values)}" for c in rule.when)


def _check_kb(reader: TreeReader, known_ids: set[str]) -> None:
    """Cited knowledge ids must exist, or `advisor show ID` in an export would lead nowhere."""
    for section in ("questions", "rules", "checklist"):
        raw = reader.doc.data.get(section)
        if not isinstance(raw, list):
            continue
        for index, entry in enumerate(raw):
            cited = entry.get("kb") if isinstance(entry, dict) else None
            if isinstance(cited, str):
                cited = [cited]
            if not isinstance(cited, list):
                continue
            for number, kb_id in enumerate(cited):
                if isinstance(kb_id, str) and kb_id.strip() and kb_id.strip() not in known_ids:
                    reader.report(reader.line(section, index, "kb", number), f"unknown knowledge id '{kb_id.strip()}'")


def _analyse(path: Path, known_ids: set[str] | None) -> tuple[Tree, TreeReader]:
    tree, reader = parse_tree(path)
    _check_references(tree, reader)
    if _check_graph(tree, reader):
        _check_paths(tree, reader)
    if known_ids is not None:
        _check_kb(reader, known_ids)
    return tree, reader


def tree_problems(path: Path, known_ids: set[str]) -> list[Problem]:
    """Everything wrong with the tree file at `path`, sorted by line; empty when it is sound."""
    try:
        _, reader = _analyse(Path(path), known_ids)
    except DataError as error:
        return [error.problem]
    return sorted(set(reader.problems), key=lambda problem: (problem.line, problem.message))


def load_tree(path: Path) -> Tree:
    """Load a tree the engine can walk safely; `DataError` names the first blocking problem.

    Problems that cannot derail the engine (a missing translation, an unknown knowledge id, a rule
    that never fires) do not stop loading: `advisor check` reports them.
    """
    tree, reader = _analyse(Path(path), None)
    if reader.fatal:
        raise DataError(min(reader.fatal, key=lambda problem: problem.line))
    return tree


def tree_files(folder: Path) -> list[Path]:
    """The tree files (`*.yaml`, `*.yml`) directly inside `folder`."""
    try:
        return sorted(p for p in Path(folder).iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    except OSError:
        return []


def bundled_tree_path() -> Path:
    from advisor.paths import bundled_trees_dir

    return bundled_trees_dir() / "gpu-orchestration.yaml"

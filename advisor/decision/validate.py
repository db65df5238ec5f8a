"""Proving a decision tree sound before anyone walks it.

Every name it uses must exist, the flow must be a DAG from the start node, every path must end in
a recommendation with one deployment model, and every rule must be able to fire; each finding is
a `path:line: message` problem. `load_tree` refuses a tree only for the fatal ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from advisor.decision.parse import parse_tree, TreeReader
from advisor.decision.tree import MAX_FLOW_STATES, Condition, Node, Rule, Tree
from advisor.problems import DataError, Problem

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any


def _check_asked_as(tree: Tree, reader: TreeReader) -> None:
    """A phrase that gives two options of one question can never give either (`advisor.decision.hints`)."""
    from advisor.textnorm import fold

    for question in tree.questions:
        owner: dict[str, str] = {}
        for option in question.options:
            for phrase in option.asked_as:
                other = owner.setdefault(fold(phrase), option.value)
                if other != option.value:
                    reader.report(option.line, f"question '{question.key}': '{phrase}' is asked_as of both '{other}' and '{option.value}', so it gives neither")


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
    cards = {choice.value for choice in tree.cards}
    for rule in tree.rules:
        if rule.topic and rule.topic not in topics:
            reader.report(rule.line, f"rule '{rule.id}': unknown topic '{rule.topic}' (topics: {', '.join(sorted(topics))})")
        if rule.deployment is not None and rule.deployment not in deployments:
            reader.report(rule.line, f"rule '{rule.id}': unknown deployment '{rule.deployment}' (deployments: {', '.join(sorted(deployments))})")
        if rule.card is not None and rule.card not in cards:
            reader.report(rule.line, f"rule '{rule.id}': unknown card '{rule.card}' (cards: {', '.join(sorted(cards)) or 'none declared'})")
        for mode in rule.sharing:
            if mode not in sharing:
                reader.report(rule.line, f"rule '{rule.id}': unknown sharing mode '{mode}' (modes: {', '.join(sorted(sharing))})")
        for check_id in rule.checks:
            if tree.check(check_id) is None:
                reader.report(rule.line, f"rule '{rule.id}': unknown checklist item '{check_id}'")
        for condition in rule.conditions:
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


def _describe(answers: Mapping[str, str], limit: int = 12) -> str:
    """`key=value, …` for a path (its first `limit` answers: a message stays one readable line)."""
    shown = [f"{key}={value}" for key, value in list(answers.items())[:limit]]
    return ", ".join(shown + ["…"] if len(answers) > limit else shown)


def _more_paths(count: int) -> str:
    if count < 1:
        return ""
    return f" (and {count} more paths)" if count < 10**9 else f" (and about 10^{len(str(count)) - 1} more paths)"


def _steps(tree: Tree, node: Node) -> Iterator[tuple[str, Node]]:
    """(answer value, next node) for every option of the question `node` asks."""
    question = tree.question(node.ask or "")
    for option in question.options if question is not None else ():
        target = tree.node(node.target(option.value) or "")
        if target is not None:
            yield option.value, target


def _check_repeats(tree: Tree, reader: TreeReader) -> None:
    """A question asked again on a path that already answered it.

    The questions asked before each node (a bit per question) flow forward in topological order:
    one pass over the graph, however many paths it has.
    """
    bits = {question.key: 1 << number for number, question in enumerate(tree.questions)}
    before: dict[str, int] = {tree.start: 0}
    for node in _topological(tree):
        asked = before.get(node.id, 0)
        bit = bits.get(node.ask or "", 0)
        if asked & bit:
            reader.report(node.line, f"node '{node.id}' asks '{node.ask}' again on a path that already answered it", fatal=True)
        for _, target in _steps(tree, node):
            before[target.id] = before.get(target.id, 0) | asked | bit


def _topological(tree: Tree) -> list[Node]:
    """The nodes reachable from the start, each before every node it leads to (needs a DAG)."""
    start = tree.node(tree.start)
    if start is None:
        return []
    finished: list[Node] = []
    seen = {start.id}
    work: list[tuple[Node, Iterator[tuple[str, Node]]]] = [(start, _steps(tree, start))]
    while work:
        node, steps = work[-1]
        found = next(steps, None)
        if found is None:
            work.pop()
            finished.append(node)
        elif found[1].id not in seen:
            seen.add(found[1].id)
            work.append((found[1], _steps(tree, found[1])))
    return finished[::-1]


class _RuleView:
    """What the rules can tell apart in a set of answers.

    For each key a rule's condition names, answers that meet exactly the same conditions are one
    class (an answer no condition names, and no answer at all, are class 0). Two paths whose
    answers fall in the same classes fire the same rules, so the walk memoises on the classes.
    """

    def __init__(self, tree: Tree) -> None:
        conditions = [(rule_number, condition) for rule_number, rule in enumerate(tree.rules) for condition in rule.conditions]
        self.keys = sorted({condition.key for _, condition in conditions})
        self.position = {key: number for number, key in enumerate(self.keys)}
        self.classes: dict[str, dict[str, int]] = {}
        passing: dict[int, set[int]] = {number: set() for number in range(len(conditions))}
        for key in self.keys:
            signatures: dict[str, frozenset[int]] = {}
            for number, (_, condition) in enumerate(conditions):
                if condition.key == key:
                    for value in condition.values:
                        signatures[value] = signatures.get(value, frozenset()) | {number}
            ids = {signature: number for number, signature in enumerate(sorted(set(signatures.values()), key=sorted), start=1)}
            self.classes[key] = {value: ids[signature] for value, signature in signatures.items()}
            for signature, class_id in ids.items():
                for number in signature:
                    passing[number].add(class_id)
        # Per rule, per `when` alternative: (key position, classes that pass) for each condition.
        tests: dict[Condition, tuple[int, frozenset[int]]] = {}
        for number, (_, condition) in enumerate(conditions):
            tests.setdefault(condition, (self.position[condition.key], frozenset(passing[number])))
        self.tests = [tuple(tuple(tests[condition] for condition in alternative) for alternative in rule.when) for rule in tree.rules]

    def start(self) -> tuple[int, ...]:
        return (0,) * len(self.keys)

    def after(self, state: tuple[int, ...], key: str | None, value: str) -> tuple[int, ...]:
        """The classes once `key` is answered `value`."""
        number = self.position.get(key or "")
        if number is None:
            return state
        return state[:number] + (self.classes[key or ""].get(value, 0),) + state[number + 1 :]

    def firing(self, tree: Tree, state: tuple[int, ...]) -> list[Rule]:
        return [rule for rule, test in zip(tree.rules, self.tests) if any(all(state[number] in ok for number, ok in alternative) for alternative in test)]


def _check_paths(tree: Tree, reader: TreeReader) -> None:
    """Every path must give one deployment, and every rule must fire on some path.

    Paths are never listed one by one (a chain of n yes/no questions has 2^n of them): the walk
    visits each node once per class of answers the rules can tell apart (`_RuleView`), counts the
    paths below, and remembers the first path, in flow order, that shows each problem.
    """
    _check_repeats(tree, reader)
    view = _RuleView(tree)
    fired: set[str] = set()
    conflicts: dict[tuple[str, str], dict[str, str]] = {}
    without: list[dict[str, str]] = []  # the first path without a deployment
    answers: list[tuple[str, str]] = []  # the path being walked
    below: dict[tuple[str, tuple[int, ...]], int] = {}  # (node, classes) -> paths below without a deployment

    def outcome(state: tuple[int, ...]) -> int:
        setters = []
        for rule in view.firing(tree, state):
            fired.add(rule.id)
            if rule.deployment is not None:
                setters.append(rule)
        for first, other in zip(setters, setters[1:]):
            if first.deployment != other.deployment and (first.id, other.id) not in conflicts:
                conflicts[(first.id, other.id)] = dict(answers)
        if not setters and not without:
            without.append(dict(answers))
        return 0 if setters else 1

    start = tree.node(tree.start)
    if start is None:
        return
    state = view.start()
    walk: list[tuple[Node, tuple[int, ...], Iterator[tuple[str, Node]], list[int]]] = []
    if start.outcome:
        below[(start.id, state)] = outcome(state)
    else:
        walk.append((start, state, _steps(tree, start), [0]))
    while walk:
        node, state, steps, count = walk[-1]
        step = next(steps, None)
        if step is None:
            walk.pop()
            below[(node.id, state)] = count[0]
            if walk:
                walk[-1][3][0] += count[0]
                answers.pop()
            continue
        value, target = step
        child = (target.id, view.after(state, node.ask, value))
        if child in below:
            count[0] += below[child]
            continue
        if len(below) >= MAX_FLOW_STATES:
            reader.report(tree.lines["start"], f"the flow is too complex to check (over {MAX_FLOW_STATES:,} combinations of a step and the answers its rules tell apart); split the tree", fatal=True)
            return
        answers.append((node.ask or "", value))
        if target.outcome:
            below[child] = outcome(child[1])
            count[0] += below[child]
            answers.pop()
        else:
            walk.append((target, child[1], _steps(tree, target), [0]))
    if without:
        more = _more_paths(below[(start.id, view.start())] - 1)
        reader.report(tree.lines["rules"], f"no rule sets a deployment for the path {_describe(without[0])}{more}")
    for (first_id, other_id), example in conflicts.items():
        line = next(rule.line for rule in tree.rules if rule.id == other_id)
        reader.report(line, f"rules '{first_id}' and '{other_id}' set different deployments for the path {_describe(example)}")
    for rule in tree.rules:
        if rule.id not in fired and any(all(_condition_possible(tree, condition) for condition in alternative) for alternative in rule.when):
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
    return " or ".join(" and ".join(f"{c.key}={'|'.join(c.values)}" for c in alternative) for alternative in rule.when)


def _check_kb(reader: TreeReader, known_ids: set[str]) -> None:
    """Cited knowledge ids must exist, or `advisor show ID` in an export would lead nowhere."""
    data = reader.doc.data
    cited: list[tuple[tuple[Any, ...], Any]] = [(("offered_from",), data.get("offered_from"))]
    for section in ("questions", "rules", "checklist"):
        raw = data.get(section)
        cited += [((section, index, "kb"), entry.get("kb")) for index, entry in enumerate(raw if isinstance(raw, list) else ()) if isinstance(entry, dict)]
    for where, ids in cited:
        for number, kb_id in enumerate([ids] if isinstance(ids, str) else ids if isinstance(ids, list) else ()):
            if isinstance(kb_id, str) and kb_id.strip() and kb_id.strip() not in known_ids:
                reader.report(reader.line(*where, number), f"unknown knowledge id '{kb_id.strip()}'")


def _analyse(path: Path, known_ids: set[str] | None) -> tuple[Tree, TreeReader]:
    tree, reader = parse_tree(path)
    _check_references(tree, reader)
    _check_asked_as(tree, reader)
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
    """The tree files (`*.yaml`, `*.yml`) directly inside `folder` (`OSError` when it cannot be listed)."""
    return sorted(p for p in Path(folder).iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


def bundled_tree_path() -> Path:
    from advisor.paths import BUNDLED_TREE, bundled_trees_dir

    return bundled_trees_dir() / BUNDLED_TREE

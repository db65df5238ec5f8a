"""Decision trees: questions, their flow and the recommendation rules, loaded from YAML.

A tree is data so that authors can change what is asked and what is advised without touching
Python. This module turns the YAML into frozen records and finds everything that would make the
guide misbehave or the advice silently wrong, each as a `path:line: message` problem:

- `questions`: what can be asked (public answer keys and values, help text, knowledge ids);
- `flow`: nodes that ask a question and name the node that follows each answer, ending in an
  outcome node; a question is asked only on the paths where it is relevant;
- `rules`: declarative advice (conditions on answers → a point, checklist items, the deployment
  model and GPU sharing modes);
- `checklist`, `deployments`, `sharing_modes`, `topics` and `labels`: the words they use.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from advisor import yamlsafe
from advisor.files import LineError, read_text
from advisor.i18n import LANGUAGES
from advisor.problems import DataError, Problem

SCHEMA = 1
KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
VALUE_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Paths are enumerated to prove every rule can fire and every path gets a deployment; a tree
# with more paths than this is almost certainly a mistake, and checking it would take too long.
MAX_PATHS = 200_000

# Interface words every tree must translate: the guide and the exports use them.
REQUIRED_LABELS: tuple[str, ...] = (
    "not_sure",
    "not_sure_option",
    "default",
    "answers",
    "question",
    "answer",
    "assumed",
    "assumptions",
    "assumptions_note",
    "recommendation",
    "deployment",
    "gpu_sharing",
    "whole_gpus",
    "reasons",
    "because",
    "always",
    "checklist",
    "read_more",
    "decision_path",
    "outcome",
    "generated_by",
    "question_number",
    "guide_intro",
    "guide_prompt",
    "guide_invalid",
    "guide_first",
    "guide_assumed",
    "guide_help_kb",
    "guide_quit",
    "guide_eof",
    "written",
    "ignored_answers",
    "allowed_values",
)


@dataclass(frozen=True)
class Text:
    """One piece of user-visible text in every supported language."""

    en: str
    vi: str

    def get(self, lang: str) -> str:
        """The text in `lang`, English when that translation is empty."""
        return (self.vi if lang == "vi" else self.en) or self.en


@dataclass(frozen=True)
class Option:
    value: str
    label: Text
    line: int = 0


@dataclass(frozen=True)
class Question:
    """A question with its public answer key; `default` is what "not sure" assumes."""

    key: str
    title: Text
    text: Text
    help: Text
    kb: tuple[str, ...]
    default: str
    options: tuple[Option, ...]
    line: int = 0

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(option.value for option in self.options)

    def option(self, value: str) -> Option | None:
        for option in self.options:
            if option.value == value:
                return option
        return None


@dataclass(frozen=True)
class Edge:
    """Answer `value` leads to node `target`; value `*` stands for every answer."""

    value: str
    target: str
    line: int = 0


@dataclass(frozen=True)
class Node:
    """A step of the flow: asks `ask` and moves to the target of the answer, or ends (outcome)."""

    id: str
    ask: str | None
    edges: tuple[Edge, ...]
    outcome: bool = False
    line: int = 0
    next_line: int = 0

    def target(self, value: str) -> str | None:
        """The node after answer `value` (through a `*` edge when there is no specific one)."""
        fallback = None
        for edge in self.edges:
            if edge.value == value:
                return edge.target
            if edge.value == "*":
                fallback = edge.target
        return fallback


@dataclass(frozen=True)
class Condition:
    """`key` was answered with one of `values`."""

    key: str
    values: tuple[str, ...]
    line: int = 0


@dataclass(frozen=True)
class Rule:
    """A point of advice that applies when every condition holds (no conditions: always)."""

    id: str
    when: tuple[Condition, ...]
    topic: str
    text: Text
    kb: tuple[str, ...]
    checks: tuple[str, ...] = ()
    deployment: str | None = None
    sharing: tuple[str, ...] = ()
    line: int = 0

    def matches(self, answers: Mapping[str, str]) -> bool:
        return all(answers.get(condition.key) in condition.values for condition in self.when)


@dataclass(frozen=True)
class CheckItem:
    """One thing to confirm in a provider's documentation."""

    id: str
    text: Text
    kb: tuple[str, ...]
    line: int = 0


@dataclass(frozen=True)
class Choice:
    """A named value with a label: a deployment model, a sharing mode or a topic."""

    value: str
    label: Text
    line: int = 0


@dataclass(frozen=True)
class Tree:
    id: str
    title: Text
    start: str
    questions: tuple[Question, ...]
    nodes: tuple[Node, ...]
    rules: tuple[Rule, ...]
    checklist: tuple[CheckItem, ...]
    deployments: tuple[Choice, ...]
    sharing_modes: tuple[Choice, ...]
    topics: tuple[Choice, ...]
    labels: tuple[tuple[str, Text], ...]
    path: str = ""
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def _questions(self) -> dict[str, Question]:
        return {question.key: question for question in self.questions}

    @cached_property
    def _nodes(self) -> dict[str, Node]:
        return {node.id: node for node in self.nodes}

    @cached_property
    def _checks(self) -> dict[str, CheckItem]:
        return {item.id: item for item in self.checklist}

    @cached_property
    def _labels(self) -> dict[str, Text]:
        return dict(self.labels)

    def question(self, key: str) -> Question | None:
        return self._questions.get(key)

    def node(self, node_id: str) -> Node | None:
        return self._nodes.get(node_id)

    def check(self, check_id: str) -> CheckItem | None:
        return self._checks.get(check_id)

    def label(self, key: str, lang: str, **values: object) -> str:
        """An interface word in `lang`, formatted with `values`; the key itself when missing."""
        text = self._labels.get(key)
        found = text.get(lang) if text else key
        return found.format(**values) if values else found

    def choice_label(self, choices: tuple[Choice, ...], value: str, lang: str) -> str:
        for choice in choices:
            if choice.value == value:
                return choice.label.get(lang)
        return value


# ----------------------------------------------------------------------------- parsing


class _Reader:
    """Reads typed values out of the YAML document, recording a problem for each bad one."""

    def __init__(self, doc: yamlsafe.YamlDoc, display: str) -> None:
        self.doc = doc
        self.display = display
        self.problems: list[Problem] = []
        self.fatal: list[Problem] = []

    def report(self, line: int, message: str, fatal: bool = False, warning: bool = False) -> None:
        problem = Problem(self.display, line, message, warning=warning)
        self.problems.append(problem)
        if fatal:
            self.fatal.append(problem)

    def line(self, *where: Any) -> int:
        return self.doc.line(*where)

    def string(self, value: Any, where: tuple[Any, ...], name: str, pattern: re.Pattern[str] | None = None) -> str | None:
        """A required non-empty string (matching `pattern` if given); None after a problem."""
        if value is None:
            self.report(self.line(*where), f"{name} is missing", fatal=True)
            return None
        if isinstance(value, bool):
            self.report(self.line(*where), f"{name} must be text; quote yes and no", fatal=True)
            return None
        if not isinstance(value, str) or not value.strip():
            self.report(self.line(*where), f"{name} must be non-empty text", fatal=True)
            return None
        value = value.strip()
        if pattern is not None and not pattern.match(value):
            kind = "lowercase words joined by underscores" if pattern is KEY_PATTERN else "lowercase kebab-case"
            self.report(self.line(*where), f"{name} '{value}' must be {kind}", fatal=True)
            return None
        return value

    def text(self, value: Any, where: tuple[Any, ...], name: str) -> Text:
        """A mapping of language → text; a missing language is a problem, not a failure."""
        if not isinstance(value, dict):
            self.report(self.line(*where), f"{name} must be a mapping of language to text ({', '.join(LANGUAGES)})")
            return Text("", "")
        found: dict[str, str] = {}
        for lang in LANGUAGES:
            item = value.get(lang)
            if not isinstance(item, str) or not item.strip():
                self.report(self.line(*where, lang) if lang in value else self.line(*where), f"{name} has no '{lang}' translation")
            else:
                found[lang] = " ".join(item.split())
        for lang in value:
            if lang not in LANGUAGES:
                self.report(self.line(*where, lang), f"{name} has text in unknown language '{lang}'")
        return Text(found.get("en", ""), found.get("vi", ""))

    def kb_ids(self, value: Any, where: tuple[Any, ...], name: str) -> tuple[str, ...]:
        return self.strings(value, where, f"{name} kb", VALUE_PATTERN)

    def strings(self, value: Any, where: tuple[Any, ...], name: str, pattern: re.Pattern[str] | None = None) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, (str, bool)):
            value = [value]
        if not isinstance(value, list):
            self.report(self.line(*where), f"{name} must be a list")
            return ()
        items: list[str] = []
        for index, item in enumerate(value):
            checked = self.string(item, (*where, index), f"{name} item {index + 1}", pattern)
            if checked is not None:
                items.append(checked)
        return tuple(items)

    def mapping_list(self, section: str) -> list[tuple[int, dict[str, Any]]]:
        """The items of a top-level list of mappings, with their indexes."""
        value = self.doc.data.get(section)
        if value is None:
            self.report(self.line(), f"missing section '{section}'", fatal=True)
            return []
        if not isinstance(value, list):
            self.report(self.line(section), f"'{section}' must be a list", fatal=True)
            return []
        items: list[tuple[int, dict[str, Any]]] = []
        for index, item in enumerate(value):
            if isinstance(item, dict):
                items.append((index, item))
            else:
                self.report(self.line(section, index), f"{section} item {index + 1} must be a mapping", fatal=True)
        return items

    def unique(self, seen: dict[str, int], value: str, kind: str, where: tuple[Any, ...]) -> bool:
        line = self.line(*where)
        if value in seen:
            self.report(line, f"duplicate {kind} '{value}' (first defined on line {seen[value]})", fatal=True)
            return False
        seen[value] = line
        return True


def _read_file(path: Path, display: str) -> yamlsafe.YamlDoc:
    try:
        text = read_text(path)
    except LineError as error:
        raise DataError(Problem(display, error.line, str(error))) from None
    except ValueError as error:
        raise DataError(Problem(display, 0, str(error))) from None
    try:
        doc = yamlsafe.load(text)
    except yamlsafe.YamlError as error:
        raise DataError(Problem(display, error.line, error.message)) from None
    if not isinstance(doc.data, dict):
        raise DataError(Problem(display, 1, "a decision tree must be a mapping"))
    return doc


def _choices(reader: _Reader, section: str) -> tuple[Choice, ...]:
    seen: dict[str, int] = {}
    choices: list[Choice] = []
    for index, item in reader.mapping_list(section):
        value = reader.string(item.get("value"), (section, index, "value"), f"{section} value", VALUE_PATTERN)
        if value is None or not reader.unique(seen, value, section.rstrip("s").replace("_", " "), (section, index, "value")):
            continue
        label = reader.text(item.get("label"), (section, index, "label"), f"{section} '{value}' label")
        choices.append(Choice(value, label, reader.line(section, index, "value")))
    return tuple(choices)


def _questions(reader: _Reader) -> tuple[Question, ...]:
    seen: dict[str, int] = {}
    questions: list[Question] = []
    for index, item in reader.mapping_list("questions"):
        where = ("questions", index)
        key = reader.string(item.get("key"), (*where, "key"), "question key", KEY_PATTERN)
        if key is None or not reader.unique(seen, key, "question key", (*where, "key")):
            continue
        name = f"question '{key}'"
        options: list[Option] = []
        values: dict[str, int] = {}
        raw_options = item.get("options")
        if not isinstance(raw_options, list):
            reader.report(reader.line(*where, "options"), f"{name} needs a list of options", fatal=True)
            raw_options = []
        for number, raw in enumerate(raw_options):
            at = (*where, "options", number)
            if not isinstance(raw, dict):
                reader.report(reader.line(*at), f"{name}: option {number + 1} must be a mapping", fatal=True)
                continue
            value = reader.string(raw.get("value"), (*at, "value"), f"{name}: option value", VALUE_PATTERN)
            if value is None or not reader.unique(values, value, f"option of {name}", (*at, "value")):
                continue
            label = reader.text(raw.get("label"), (*at, "label"), f"{name}: option '{value}' label")
            options.append(Option(value, label, reader.line(*at, "value")))
        default = reader.string(item.get("default"), (*where, "default"), f"{name} default")
        if default is not None and options and default not in values:
            reader.report(reader.line(*where, "default"), f"{name}: default '{default}' is not one of its options ({', '.join(values)})", fatal=True)
        questions.append(
            Question(
                key=key,
                title=reader.text(item.get("title"), (*where, "title"), f"{name} title"),
                text=reader.text(item.get("text"), (*where, "text"), f"{name} text"),
                help=reader.text(item.get("help"), (*where, "help"), f"{name} help"),
                kb=reader.kb_ids(item.get("kb"), (*where, "kb"), name),
                default=default or "",
                options=tuple(options),
                line=reader.line(*where, "key"),
            )
        )
    return tuple(questions)


def _nodes(reader: _Reader) -> tuple[Node, ...]:
    seen: dict[str, int] = {}
    nodes: list[Node] = []
    for index, item in reader.mapping_list("flow"):
        where = ("flow", index)
        node_id = reader.string(item.get("id"), (*where, "id"), "node id", VALUE_PATTERN)
        if node_id is None or not reader.unique(seen, node_id, "node id", (*where, "id")):
            continue
        outcome = item.get("outcome") is True
        ask = None
        if item.get("ask") is not None:
            ask = reader.string(item.get("ask"), (*where, "ask"), f"node '{node_id}': ask", KEY_PATTERN)
        raw_next = item.get("next")
        edges: list[Edge] = []
        if isinstance(raw_next, str):
            edges.append(Edge("*", raw_next.strip(), reader.line(*where, "next")))
        elif isinstance(raw_next, dict):
            for value, target in raw_next.items():
                if isinstance(value, bool):
                    reader.report(reader.line(*where, "next"), f"node '{node_id}': next has a true/false key; quote yes and no", fatal=True)
                    continue
                checked = reader.string(target, (*where, "next", value), f"node '{node_id}': target of '{value}'")
                if checked is not None:
                    edges.append(Edge(str(value), checked, reader.line(*where, "next", value)))
        elif raw_next is not None:
            reader.report(reader.line(*where, "next"), f"node '{node_id}': next must be a node id or a mapping of answer to node id", fatal=True)
        if outcome and (ask is not None or raw_next is not None):
            reader.report(reader.line(*where, "outcome"), f"node '{node_id}': an outcome node neither asks nor continues", fatal=True)
        line = reader.line(*where, "id")
        next_line = reader.line(*where, "next") if raw_next is not None else line
        nodes.append(Node(node_id, ask, tuple(edges), outcome, line, next_line))
    return tuple(nodes)


def _checklist(reader: _Reader) -> tuple[CheckItem, ...]:
    seen: dict[str, int] = {}
    items: list[CheckItem] = []
    for index, item in reader.mapping_list("checklist"):
        where = ("checklist", index)
        check_id = reader.string(item.get("id"), (*where, "id"), "checklist id", VALUE_PATTERN)
        if check_id is None or not reader.unique(seen, check_id, "checklist id", (*where, "id")):
            continue
        name = f"checklist item '{check_id}'"
        items.append(
            CheckItem(
                check_id,
                reader.text(item.get("text"), (*where, "text"), f"{name} text"),
                reader.kb_ids(item.get("kb"), (*where, "kb"), name),
                reader.line(*where, "id"),
            )
        )
    return tuple(items)


def _rules(reader: _Reader) -> tuple[Rule, ...]:
    seen: dict[str, int] = {}
    rules: list[Rule] = []
    for index, item in reader.mapping_list("rules"):
        where = ("rules", index)
        rule_id = reader.string(item.get("id"), (*where, "id"), "rule id", VALUE_PATTERN)
        if rule_id is None or not reader.unique(seen, rule_id, "rule id", (*where, "id")):
            continue
        name = f"rule '{rule_id}'"
        conditions: list[Condition] = []
        raw_when = item.get("when") or {}
        if not isinstance(raw_when, dict):
            reader.report(reader.line(*where, "when"), f"{name}: when must be a mapping of answer key to value(s)", fatal=True)
            raw_when = {}
        for key, wanted in raw_when.items():
            at = (*where, "when", key)
            values = reader.strings(wanted, at, f"{name}: condition on '{key}'")
            if values:
                conditions.append(Condition(str(key), values, reader.line(*at)))
        deployment = None
        if item.get("deployment") is not None:
            deployment = reader.string(item.get("deployment"), (*where, "deployment"), f"{name}: deployment", VALUE_PATTERN)
        rules.append(
            Rule(
                id=rule_id,
                when=tuple(conditions),
                topic=reader.string(item.get("topic"), (*where, "topic"), f"{name}: topic", VALUE_PATTERN) or "",
                text=reader.text(item.get("text"), (*where, "text"), f"{name} text"),
                kb=reader.kb_ids(item.get("kb"), (*where, "kb"), name),
                checks=reader.strings(item.get("checks"), (*where, "checks"), f"{name}: checks", VALUE_PATTERN),
                deployment=deployment,
                sharing=reader.strings(item.get("sharing"), (*where, "sharing"), f"{name}: sharing", VALUE_PATTERN),
                line=reader.line(*where, "id"),
            )
        )
    return tuple(rules)


def _labels(reader: _Reader) -> tuple[tuple[str, Text], ...]:
    raw = reader.doc.data.get("labels")
    if not isinstance(raw, dict):
        reader.report(reader.line("labels"), "'labels' must be a mapping of label name to text")
        return ()
    labels = [(str(key), reader.text(value, ("labels", key), f"label '{key}'")) for key, value in raw.items()]
    for key in REQUIRED_LABELS:
        if key not in raw:
            reader.report(reader.line("labels"), f"missing label '{key}'")
    return tuple(labels)


def _parse(path: Path) -> tuple[Tree, _Reader]:
    display = _display(path)
    doc = _read_file(path, display)
    reader = _Reader(doc, display)
    data = doc.data
    schema = data.get("schema")
    if schema != SCHEMA:
        reader.report(reader.line("schema"), f"schema must be {SCHEMA}, found {schema!r}", fatal=True)
    tree_id = reader.string(data.get("id"), ("id",), "tree id", VALUE_PATTERN) or path.stem
    title = reader.text(data.get("title"), ("title",), "tree title")
    start = reader.string(data.get("start"), ("start",), "start node") or ""
    tree = Tree(
        id=tree_id,
        title=title,
        start=start,
        questions=_questions(reader),
        nodes=_nodes(reader),
        rules=_rules(reader),
        checklist=_checklist(reader),
        deployments=_choices(reader, "deployments"),
        sharing_modes=_choices(reader, "sharing_modes"),
        topics=_choices(reader, "topics"),
        labels=_labels(reader),
        path=display,
        lines={"rules": reader.line("rules"), "start": reader.line("start")},
    )
    return tree, reader


def _display(path: Path) -> str:
    """`folder/file.yaml`, as knowledge problems show `knowledge/en/id.md`."""
    return f"{path.parent.name}/{path.name}" if path.parent.name else path.name


# ----------------------------------------------------------------------------- checks


def _check_references(tree: Tree, reader: _Reader) -> None:
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


def _check_graph(tree: Tree, reader: _Reader) -> bool:
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


def _check_paths(tree: Tree, reader: _Reader) -> None:
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
    for (first, other), answers in conflicts.items():
        line = next(rule.line for rule in tree.rules if rule.id == other)
        reader.report(line, f"rules '{first}' and '{other}' set different deployments for the path {_describe(answers)}")
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


def _check_kb(reader: _Reader, known_ids: set[str]) -> None:
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


def _analyse(path: Path, known_ids: set[str] | None) -> tuple[Tree, _Reader]:
    tree, reader = _parse(path)
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

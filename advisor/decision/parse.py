"""Reading a decision tree's YAML into `advisor.decision.tree` records.

Every bad value becomes a `path:line: message` problem instead of an exception, so `advisor check`
can report them all at once; problems that would derail the guide are also marked fatal.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from advisor import yamlsafe
from advisor.decision.tree import (
    SCHEMA,
    CheckItem,
    Choice,
    Condition,
    Edge,
    Node,
    Option,
    Question,
    Rule,
    Text,
    Tree,
)
from advisor.files import LineError, read_text
from advisor.i18n import LANGUAGES
from advisor.problems import DataError, Problem

# Answer keys are snake_case words; every other name in a tree (values, ids) is kebab-case.
KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
VALUE_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

SECTIONS = frozenset({"schema", "id", "title", "start", "questions", "flow", "rules", "checklist", "deployments", "sharing_modes", "topics", "cards", "offered_from"})


class TreeReader:
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
            return Text()
        found: dict[str, str] = {}
        for lang in LANGUAGES:
            item = value.get(lang)
            if not isinstance(item, str) or not item.strip():
                self.report(self.line(*where, lang) if lang in value else self.line(*where), f"{name} has no '{lang}' translation")
            else:
                found[lang] = " ".join(item.split())
                if "`" in item:  # exports escape every character with a meaning, and print it
                    self.report(self.line(*where, lang), f"{name} in '{lang}' holds a backtick: texts are plain text, and an export prints it as written")
        for lang in value:
            if lang not in LANGUAGES:
                self.report(self.line(*where, lang), f"{name} has text in unknown language '{lang}'")
        return Text.of(found)

    def flag(self, value: Any, where: tuple[Any, ...], name: str, default: bool) -> bool:
        """An optional true/false; `default` when absent or after a problem."""
        if value is None:
            return default
        if not isinstance(value, bool):
            self.report(self.line(*where), f"{name} must be true or false")
            return default
        return value

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


def _read_choices(reader: TreeReader, section: str) -> tuple[Choice, ...]:
    seen: dict[str, int] = {}
    choices: list[Choice] = []
    for index, item in reader.mapping_list(section):
        value = reader.string(item.get("value"), (section, index, "value"), f"{section} value", VALUE_PATTERN)
        if value is None or not reader.unique(seen, value, section.rstrip("s").replace("_", " "), (section, index, "value")):
            continue
        label = reader.text(item.get("label"), (section, index, "label"), f"{section} '{value}' label")
        needs = reader.strings(item.get("needs"), (section, index, "needs"), f"{section} '{value}': needs", VALUE_PATTERN)
        models = reader.strings(item.get("models"), (section, index, "models"), f"{section} '{value}': models")
        provider_sharing = reader.flag(item.get("provider_sharing"), (section, index, "provider_sharing"), f"{section} '{value}': provider_sharing", True)
        choices.append(Choice(value, label, needs, reader.line(section, index, "value"), models, provider_sharing))
    return tuple(choices)


def _read_questions(reader: TreeReader) -> tuple[Question, ...]:
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
            asked_as = reader.strings(raw.get("asked_as"), (*at, "asked_as"), f"{name}: option '{value}' asked_as")
            options.append(Option(value, label, reader.line(*at, "value"), asked_as))
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


def _read_nodes(reader: TreeReader) -> tuple[Node, ...]:
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


def _read_checklist(reader: TreeReader) -> tuple[CheckItem, ...]:
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
                reader.strings(item.get("needs"), (*where, "needs"), f"{name}: needs", VALUE_PATTERN),
                reader.line(*where, "id"),
            )
        )
    return tuple(items)


def _read_rules(reader: TreeReader) -> tuple[Rule, ...]:
    seen: dict[str, int] = {}
    rules: list[Rule] = []
    for index, item in reader.mapping_list("rules"):
        where = ("rules", index)
        rule_id = reader.string(item.get("id"), (*where, "id"), "rule id", VALUE_PATTERN)
        if rule_id is None or not reader.unique(seen, rule_id, "rule id", (*where, "id")):
            continue
        name = f"rule '{rule_id}'"
        raw_when = item.get("when") or {}
        # One mapping of answer key to value(s), or a list of them: any one that holds fires the rule.
        alternatives = list(enumerate(raw_when)) if isinstance(raw_when, list) else [(None, raw_when)]
        when: list[tuple[Condition, ...]] = []
        for number, mapping in alternatives:
            base = (*where, "when") if number is None else (*where, "when", number)
            if not isinstance(mapping, dict) or (number is not None and not mapping):
                reader.report(reader.line(*base), f"{name}: when must be a mapping of answer key to value(s), or a list of such mappings", fatal=True)
                continue
            conditions: list[Condition] = []
            for key, wanted in mapping.items():
                at = (*base, key)
                values = reader.strings(wanted, at, f"{name}: condition on '{key}'")
                if values:
                    conditions.append(Condition(str(key), values, reader.line(*at)))
            when.append(tuple(conditions))
        deployment = card = None
        if item.get("deployment") is not None:
            deployment = reader.string(item.get("deployment"), (*where, "deployment"), f"{name}: deployment", VALUE_PATTERN)
        if item.get("card") is not None:
            card = reader.string(item.get("card"), (*where, "card"), f"{name}: card", VALUE_PATTERN)
        rules.append(
            Rule(
                id=rule_id,
                when=tuple(when) or ((),),
                topic=reader.string(item.get("topic"), (*where, "topic"), f"{name}: topic", VALUE_PATTERN) or "",
                text=reader.text(item.get("text"), (*where, "text"), f"{name} text"),
                kb=reader.kb_ids(item.get("kb"), (*where, "kb"), name),
                checks=reader.strings(item.get("checks"), (*where, "checks"), f"{name}: checks", VALUE_PATTERN),
                deployment=deployment,
                sharing=reader.strings(item.get("sharing"), (*where, "sharing"), f"{name}: sharing", VALUE_PATTERN),
                needs=reader.strings(item.get("needs"), (*where, "needs"), f"{name}: needs", VALUE_PATTERN),
                line=reader.line(*where, "id"),
                card=card,
            )
        )
    return tuple(rules)


def parse_tree(path: Path) -> tuple[Tree, TreeReader]:
    display = _display(path)
    doc = _read_file(path, display)
    reader = TreeReader(doc, display)
    data = doc.data
    for key in data:
        if key not in SECTIONS:
            reader.report(reader.line(key), f"unknown section '{key}' (sections: {', '.join(sorted(SECTIONS))})", warning=True)
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
        questions=_read_questions(reader),
        nodes=_read_nodes(reader),
        rules=_read_rules(reader),
        checklist=_read_checklist(reader),
        deployments=_read_choices(reader, "deployments"),
        sharing_modes=_read_choices(reader, "sharing_modes"),
        topics=_read_choices(reader, "topics"),
        cards=_read_choices(reader, "cards") if "cards" in data else (),  # optional: a tree may not pick cards
        offered_from=reader.strings(data.get("offered_from"), ("offered_from",), "offered_from"),
        path=display,
        lines={"rules": reader.line("rules"), "start": reader.line("start")},
    )
    return tree, reader


def _display(path: Path) -> str:
    """`folder/file.yaml`, as knowledge problems show `knowledge/en/id.md`."""
    return f"{path.parent.name}/{path.name}" if path.parent.name else path.name

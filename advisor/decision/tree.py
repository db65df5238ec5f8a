"""A decision tree as frozen records: what is asked, where each answer leads, what is advised.

A tree is data (`decision_trees/*.yaml`, read by `advisor.decision.parse`) so that authors change
what is asked and advised without touching Python:

- `questions`: what can be asked (public answer keys and values, help text, knowledge ids);
- `flow`: nodes that ask a question and name the node that follows each answer, ending in an
  outcome node; a question is asked only on the paths where it is relevant;
- `rules`: declarative advice (conditions on answers → a point, checklist items, the deployment
  model and GPU sharing modes, the provider needs it implies);
- `checklist`, `deployments`, `sharing_modes` and `topics`: the words they use.

Interface words (prompts, headings) are not tree content: they live in `advisor/locales/`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from types import MappingProxyType
from typing import Any, NamedTuple

SCHEMA = 1
# Validation walks each step of the flow once per combination of answers the rules tell apart
# (`advisor.decision.validate`); a tree with more combinations than this is almost certainly a
# mistake, and checking it would take too long.
MAX_FLOW_STATES = 200_000


# `typing.NamedTuple`s, not frozen dataclasses: `advisor recommend` and `advisor providers` define
# these records and those of the modules that build on them (session, recommend, export, the
# catalogue) at every start, and a frozen dataclass costs about 0.6 ms to define, besides the
# inspect and ast that `dataclasses` imports (docs/architecture.md). Records are tuples: never
# test one with `isinstance(x, tuple)` where a plain tuple could also be meant.
class Text(NamedTuple):
    """One piece of user-visible text, by language (`advisor.i18n.LANGUAGES`)."""

    by_lang: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, texts: Mapping[str, str]) -> Text:
        return cls(tuple(sorted(texts.items())))

    def get(self, lang: str) -> str:
        """The text in `lang`, English when that translation is missing."""
        texts = dict(self.by_lang)
        return texts.get(lang) or texts.get("en", "")


class Option(NamedTuple):
    """One answer a question offers: its public `value` and its label; `asked_as`, the phrases
    by which a typed question already gives it ("k8s for 1 notebook?": a notebook workload)."""

    value: str
    label: Text
    line: int = 0
    asked_as: tuple[str, ...] = ()


class Question(NamedTuple):
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


class Edge(NamedTuple):
    """Answer `value` leads to node `target`; value `*` stands for every answer."""

    value: str
    target: str
    line: int = 0


class Node(NamedTuple):
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


class Condition(NamedTuple):
    """`key` was answered with one of `values`."""

    key: str
    values: tuple[str, ...]
    line: int = 0


class Rule(NamedTuple):
    """A point of advice that applies when every condition of one of its `when` alternatives holds
    (one alternative without conditions: always)."""

    id: str
    when: tuple[tuple[Condition, ...], ...]
    topic: str
    text: Text
    kb: tuple[str, ...]
    checks: tuple[str, ...] = ()
    deployment: str | None = None
    sharing: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    line: int = 0
    card: str | None = None

    def matches(self, answers: Mapping[str, str]) -> bool:
        return self.matching(answers) is not None

    def matching(self, answers: Mapping[str, str]) -> tuple[Condition, ...] | None:
        """The first alternative whose conditions all hold, else None."""
        return next((conditions for conditions in self.when if all(answers.get(c.key) in c.values for c in conditions)), None)

    @property
    def conditions(self) -> tuple[Condition, ...]:
        """Every condition of every alternative."""
        return tuple(condition for conditions in self.when for condition in conditions)


class CheckItem(NamedTuple):
    """One thing to confirm in a provider's documentation, and the catalogue needs it stands for."""

    id: str
    text: Text
    kb: tuple[str, ...]
    needs: tuple[str, ...] = ()
    line: int = 0


class Choice(NamedTuple):
    """A named value with a label: a deployment model, a sharing mode, a topic or a class of GPU card."""

    value: str
    label: Text
    needs: tuple[str, ...] = ()
    line: int = 0
    models: tuple[str, ...] = ()  # a card's GPU models, as the provider catalogue names them
    # A deployment's: whether the provider's sharing facts decide the sharing modes' needs (false
    # on a cluster you run, where you set sharing up yourself on any provider's machines).
    provider_sharing: bool = True


class _TreeRecord(NamedTuple):
    """A whole decision tree's fields (see `Tree`)."""

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
    cards: tuple[Choice, ...] = ()
    # The entries whose question the whole guide answers ("should we use Kubernetes?"): an answer
    # from one of them offers the guide even when the question gives none of its answers.
    offered_from: tuple[str, ...] = ()
    path: str = ""
    lines: Mapping[str, int] = MappingProxyType({})


class Tree(_TreeRecord):
    """A whole decision tree; `lines` says where each top-level section was written.

    A subclass without `__slots__`, so that each tree has an instance dict for the lookups below:
    validation asks a tree with thousands of questions for nodes and questions by id over and
    over. Equality is still the tuple's, over the fields alone; a tree is not hashable (`lines`).
    """

    @cached_property
    def _questions(self) -> dict[str, Question]:
        return {question.key: question for question in self.questions}

    @cached_property
    def _nodes(self) -> dict[str, Node]:
        return {node.id: node for node in self.nodes}

    @cached_property
    def _checks(self) -> dict[str, CheckItem]:
        return {item.id: item for item in self.checklist}

    def question(self, key: str) -> Question | None:
        return self._questions.get(key)

    def node(self, node_id: str) -> Node | None:
        return self._nodes.get(node_id)

    def check(self, check_id: str) -> CheckItem | None:
        return self._checks.get(check_id)

    def choice_label(self, choices: tuple[Choice, ...], value: str, lang: str) -> str:
        for choice in choices:
            if choice.value == value:
                return choice.label.get(lang)
        return value

    def question_title(self, key: str, lang: str) -> str:
        """The short title of question `key` (the key itself when the tree has no such question)."""
        question = self.question(key)
        return question.title.get(lang) if question else key

    def question_text(self, key: str, lang: str) -> str:
        """The full wording of question `key`."""
        question = self.question(key)
        return question.text.get(lang) if question else key

    def answer_label(self, key: str, value: str, lang: str) -> str:
        """The label of answer `value` to question `key` (the value itself when unknown)."""
        question = self.question(key)
        option = question.option(value) if question else None
        return option.label.get(lang) if option else value



# The records above, by name, for `to_data`/`from_data`.
_RECORDS: dict[str, type] = {cls.__name__: cls for cls in (Text, Option, Question, Edge, Node, Condition, Rule, CheckItem, Choice, Tree)}


def to_data(value: Any) -> Any:
    """A tree (or any of its records) as plain lists, tuples and dicts, for the marshal cache
    (`advisor.library.open_tree`): a record becomes a list of its class name and its fields.
    Records are tuples too, so they are told apart by their exact class before plain tuples."""
    kind = type(value)
    if _RECORDS.get(kind.__name__) is kind:
        return [kind.__name__, *(to_data(item) for item in value)]
    if isinstance(value, tuple):
        return tuple(to_data(item) for item in value)
    if isinstance(value, Mapping):
        return {key: to_data(item) for key, item in value.items()}
    return value


def from_data(data: Any) -> Any:
    """The inverse of `to_data`; `ValueError` (or `TypeError`) for data it did not make."""
    if isinstance(data, list):
        record = _RECORDS.get(data[0]) if data else None
        if record is None:
            raise ValueError("not tree data")
        return record(*(from_data(item) for item in data[1:]))
    if isinstance(data, tuple):
        return tuple(from_data(item) for item in data)
    if isinstance(data, dict):
        return {key: from_data(item) for key, item in data.items()}
    return data

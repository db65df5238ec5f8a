"""The guide's engine: the answers given so far, and where they lead in the tree.

The state is only the ordered list of answers; the position in the tree is recomputed by walking
the flow from the start with those answers. That makes "back" and "change an earlier answer" the
same simple operation: edit the list, walk again, and drop every answer that can no longer apply.

An answer can no longer apply when the walk has passed by without asking its question, or when its
question cannot be reached from where the walk now stops. Answers to questions that still lie
ahead are kept: changing "soft" isolation to "hard" adds one new question, and the answers about
storage and the control plane that come after it still count once it is answered.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from advisor.problems import DataError, InvalidInput, Problem
from advisor.textnorm import shown
from advisor.decision.tree import Node, Question, Tree

if TYPE_CHECKING:
    from pathlib import Path

SESSION_SCHEMA = 1
# The answer value that means "not sure": the question's default is used and marked assumed.
NOT_SURE = "not-sure"


# NamedTuples, not dataclasses: see `advisor.decision.tree`.
class Answer(NamedTuple):
    """One answer in a session; `assumed` when it is the question's default, not the user's."""

    key: str
    value: str
    assumed: bool = False


class SessionFileError(DataError):
    """A saved session that cannot be read: corrupt, for another tree, or from a newer advisor.

    Callers can move the file aside and start afresh; the message says why it was refused.
    """

    def __init__(self, path: Path | str, message: str, line: int = 0) -> None:
        from pathlib import Path  # only for a saved session: `advisor recommend` never needs it

        super().__init__(Problem(str(path), line, message))
        self.path = Path(path)


class Session(NamedTuple):
    """Answers given so far to one tree. Every method returns a new session."""

    tree: Tree
    answers: tuple[Answer, ...] = ()

    @classmethod
    def start(cls, tree: Tree) -> Session:
        return cls(tree, ())

    @classmethod
    def of(cls, tree: Tree, answers: tuple[Answer, ...] | list[Answer]) -> Session:
        """A session holding only the answers that lie on the walk they produce, in walk order."""
        return cls(tree, _prune(tree, tuple(answers)))

    # ------------------------------------------------------------------ position

    @property
    def steps(self) -> tuple[tuple[Node, Answer], ...]:
        """The answered nodes of the walk, in order."""
        return _walk(self.tree, self.answers)[0]

    @property
    def walked(self) -> tuple[Answer, ...]:
        """The answers the walk has used so far, in order; `answers` may also hold some for
        questions still ahead (kept by `change()`), which count once the walk reaches them."""
        return tuple(answer for _, answer in self.steps)

    @property
    def current(self) -> Node | None:
        """The node whose question comes next; None when the walk reached an outcome."""
        node = _walk(self.tree, self.answers)[1]
        return None if node is None or node.outcome else node

    @property
    def done(self) -> bool:
        node = _walk(self.tree, self.answers)[1]
        return node is not None and node.outcome

    @property
    def next_question(self) -> Question | None:
        node = self.current
        return self.tree.question(node.ask) if node is not None and node.ask else None

    @property
    def path(self) -> tuple[str, ...]:
        """Node ids visited, ending with the outcome once done (for diagrams)."""
        steps, end = _walk(self.tree, self.answers)
        ids = tuple(node.id for node, _ in steps)
        return (*ids, end.id) if end is not None and end.outcome else ids

    def value(self, key: str) -> str | None:
        for answer in self.answers:
            if answer.key == key:
                return answer.value
        return None

    # ------------------------------------------------------------------ moves

    def answer(self, value: str | None) -> Session:
        """Answer the next question; None or "not-sure" takes its default as an assumption."""
        question = self.next_question
        if question is None:
            raise InvalidInput("err_no_question_left")
        return Session.of(self.tree, (*self.answers, checked_answer(question, value)))

    def back(self) -> Session:
        """Forget the answer to the question before the current one (a no-op at the first)."""
        steps = self.steps
        if not steps:
            return self
        key = steps[-1][1].key
        return Session.of(self.tree, tuple(answer for answer in self.answers if answer.key != key))

    def change(self, key: str, value: str | None) -> Session:
        """Change an earlier answer; later answers that no longer apply are dropped."""
        question = self.tree.question(key)
        if question is None or all(answer.key != key for answer in self.answers):
            raise InvalidInput("err_not_answered", key=key)
        new = checked_answer(question, value)
        return Session.of(self.tree, tuple(new if answer.key == key else answer for answer in self.answers))

    def with_defaults(self) -> Session:
        """Answer every remaining question with its default, marked as assumed."""
        return Session.of(self.tree, _answer_rest(self.tree, self.answers, lambda question: checked_answer(question, None)))


def checked_answers(tree: Tree, given: Mapping[str, str]) -> tuple[Answer, ...]:
    """The answers `given` by key, or `InvalidInput` naming the allowed keys or values."""
    answers: list[Answer] = []
    for key, value in given.items():
        question = tree.question(key)
        if question is None:
            allowed = ", ".join(question.key for question in tree.questions)
            raise InvalidInput("err_unknown_answer_key", key=shown(key), allowed=allowed)
        answers.append(checked_answer(question, value))
    return tuple(answers)


def checked_answer(question: Question, value: str | None) -> Answer:
    """An answer to `question` (a value in any case: `Inference` is `inference`), or
    `InvalidInput` naming the allowed values."""
    if value is None or value.casefold() == NOT_SURE:
        return Answer(question.key, question.default, assumed=True)
    option = question.option(value) or next((o for o in question.options if o.value.casefold() == value.casefold()), None)
    if option is None:
        allowed = ", ".join((*question.values, NOT_SURE))
        raise InvalidInput("err_value_not_allowed", key=question.key, value=shown(value), allowed=allowed)
    return Answer(question.key, option.value)


def _walk(tree: Tree, answers: tuple[Answer, ...]) -> tuple[tuple[tuple[Node, Answer], ...], Node | None]:
    """Follow the flow with `answers`: the answered steps and the node where the walk stopped."""
    by_key = {answer.key: answer for answer in answers}
    node = tree.node(tree.start)
    steps: list[tuple[Node, Answer]] = []
    # A loaded tree has no cycles, but never loop forever on one that slipped through.
    for _ in range(len(tree.nodes) + 1):
        if node is None or node.outcome or node.ask is None:
            break
        answer = by_key.get(node.ask)
        if answer is None:
            break
        steps.append((node, answer))
        node = tree.node(node.target(answer.value) or "")
    return tuple(steps), node


def _answer_rest(tree: Tree, answers: tuple[Answer, ...], choose: Callable[[Question], Answer]) -> tuple[Answer, ...]:
    """`answers`, plus `choose(question)` for each question the walk meets unanswered, to the end.

    One walk, not one per answer: answering question by question re-walks the flow from the
    start each time, which a tree with thousands of questions on a path turns into minutes.
    """
    by_key = {answer.key: answer for answer in answers}
    added: list[Answer] = []
    node = tree.node(tree.start)
    for _ in range(len(tree.nodes) + 1):  # never loop forever on a cycle that slipped through
        if node is None or node.outcome or node.ask is None:
            break
        answer = by_key.get(node.ask)
        if answer is None:
            question = tree.question(node.ask)
            if question is None:
                break
            answer = by_key[node.ask] = choose(question)
            added.append(answer)
        node = tree.node(node.target(answer.value) or "")
    return (*answers, *added)


def _prune(tree: Tree, answers: tuple[Answer, ...]) -> tuple[Answer, ...]:
    """The walked answers in walk order, then those whose questions may still come, in given order."""
    steps, stop = _walk(tree, answers)
    walked = tuple(answer for _, answer in steps)
    if stop is None or stop.outcome:
        return walked
    ahead = _keys_ahead(tree, stop)
    seen = {answer.key for answer in walked}
    latest = {answer.key: answer for answer in answers}
    pending: list[Answer] = []
    for answer in answers:
        if answer.key in ahead and answer.key not in seen and latest[answer.key] is answer:
            pending.append(answer)
    return walked + tuple(pending)


def _keys_ahead(tree: Tree, start: Node) -> set[str]:
    """Question keys asked at `start` or at any node reachable from it."""
    keys: set[str] = set()
    visited: set[str] = set()
    work = [start]
    while work:
        node = work.pop()
        if node.id in visited:
            continue
        visited.add(node.id)
        if node.ask is not None:
            keys.add(node.ask)
        work.extend(target for edge in node.edges if (target := tree.node(edge.target)) is not None)
    return keys


class Completion(NamedTuple):
    """A finished session built from given answers, and what was filled in or left out."""

    session: Session
    assumed: tuple[str, ...]
    ignored: tuple[str, ...]


def complete(tree: Tree, given: Mapping[str, str], *, strict: bool = False) -> Completion:
    """Answer the tree non-interactively: given values where present, defaults elsewhere.

    Unknown keys and values raise `InvalidInput` naming the allowed ones; with `strict`, a relevant
    question left unanswered does too. Given answers the walk never reaches are reported back as
    ignored, so a caller can tell the user they did not apply.
    """
    checked_answers(tree, given)
    missing: list[str] = []

    def choose(question: Question) -> Answer:
        if question.key not in given:
            missing.append(question.key)
        return checked_answer(question, given.get(question.key))

    session = Session.of(tree, _answer_rest(tree, (), choose))
    if strict and missing:
        raise InvalidInput("err_strict_missing", keys=", ".join(missing))
    answered = {answer.key for answer in session.answers}
    ignored = tuple(key for key in given if key not in answered)
    assumed = tuple(answer.key for answer in session.answers if answer.assumed)
    return Completion(session, assumed, ignored)


# ---------------------------------------------------------------------------- files


def session_json(session: Session) -> str:
    record = {
        "schema": SESSION_SCHEMA,
        "tree": session.tree.id,
        "answers": [{"key": a.key, "value": a.value, "assumed": a.assumed} for a in session.answers],
    }
    return json.dumps(record, ensure_ascii=False, indent=2) + "\n"


def save_session(session: Session, path: Path) -> None:
    """Write the session atomically (`OutputError` when it cannot be written)."""
    from advisor.files import atomic_write

    atomic_write(path, session_json(session), force=True)


def load_session(path: Path, tree: Tree) -> Session:
    """Read a saved session for `tree`; `SessionFileError` when it is unusable."""
    from advisor.files import read_bytes
    from pathlib import Path

    path = Path(path)
    try:
        raw = read_bytes(path)  # a FIFO or /dev/zero in its place must not hang or fill memory
    except ValueError as error:
        raise SessionFileError(path, f"cannot read session: {str(error).removeprefix('cannot read file: ')}") from None
    try:
        data: Any = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise SessionFileError(path, "corrupt session: not valid UTF-8") from None
    except json.JSONDecodeError as error:
        raise SessionFileError(path, f"corrupt session: not valid JSON ({error.msg})", error.lineno) from None
    except RecursionError:  # json gives up on deep nesting with this, not a ValueError
        raise SessionFileError(path, "corrupt session: nested too deeply") from None
    if not isinstance(data, dict):
        raise SessionFileError(path, "corrupt session: expected a JSON object")
    schema = data.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int):
        raise SessionFileError(path, "corrupt session: 'schema' must be a whole number")
    if schema > SESSION_SCHEMA:
        raise SessionFileError(path, f"session was saved by a newer advisor (schema {schema}; this version reads {SESSION_SCHEMA})")
    if schema < 1:
        raise SessionFileError(path, f"corrupt session: unknown schema {schema}")
    if data.get("tree") != tree.id:
        raise SessionFileError(path, f"session belongs to tree {data.get('tree')!r}, not '{tree.id}'")
    items = data.get("answers")
    if not isinstance(items, list):
        raise SessionFileError(path, "corrupt session: 'answers' must be a list")
    answers: list[Answer] = []
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("key"), str) or not isinstance(item.get("value"), str):
            raise SessionFileError(path, f"corrupt session: answer {number} needs text 'key' and 'value'")
        question = tree.question(item["key"])
        if question is None or question.option(item["value"]) is None:
            raise SessionFileError(path, f"session answer {item['key']}={item['value']} is not in tree '{tree.id}'")
        answers.append(Answer(item["key"], item["value"], bool(item.get("assumed", False))))
    return Session.of(tree, tuple(answers))

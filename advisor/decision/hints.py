"""From a typed question to the guided wizard: the answers it already gives.

"k8s for 1 notebook?" is answered from `faq-k8s-single-job`, and it also says what the wizard's
first question asks: the workload is a notebook. An option lists such phrases (`asked_as` in the
tree), and an answer offers the wizard with them given (`advisor guide -a workload=notebook`), so
the user goes on from the question rather than starting over.

Only where the answer is one the wizard itself cites for that question (its `kb` list): a
troubleshooting answer that mentions inference is no decision to continue. A question whose
phrases name two options of one question ("nên dùng EKS hay tự dựng") gives neither. An answer
from an entry whose question the whole guide answers (the tree's `offered_from`: "nên dùng k8s
không") offers the guide even when the question gives none of its answers.

`advisor ask` reads the hints as plain data from the tree's cache (`advisor.library.tree_hints`),
so answering never builds the tree's records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from advisor.search.analysis import Analyzer

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from advisor.decision.tree import Tree

# Hints as the cache keeps them (plain data, for marshal): per question with phrases, in the
# tree's order, (key, title by language, kb ids, ((value, label by language, phrases), ...)).
HintOption = tuple[str, dict[str, str], tuple[str, ...]]
HintQuestion = tuple[str, dict[str, str], tuple[str, ...], tuple[HintOption, ...]]
# The questions with phrases, and the entries whose answers offer the guide whatever the question
# gives (the tree's `offered_from`). Plain tuples: `advisor ask` reads them from the cache's header
# and, for most answers, sees that no offer can come of them without importing this module.
Hints = tuple[tuple[HintQuestion, ...], frozenset[str]]
NO_HINTS: Hints = ((), frozenset())


def hints_of(tree: Tree) -> Hints:
    """The tree's questions that have `asked_as` phrases, as plain data, and its `offered_from`."""
    return (
        tuple(
            (question.key, dict(question.title.by_lang), question.kb, tuple((option.value, dict(option.label.by_lang), option.asked_as) for option in question.options if option.asked_as))
            for question in tree.questions
            if any(option.asked_as for option in question.options)
        ),
        frozenset(tree.offered_from),
    )


def offer(hints: Hints, analyzer: Analyzer, question: str, entry_id: str) -> tuple[tuple[str, str], ...] | None:
    """The answers `question` gives the guide when its answer, from `entry_id`, offers it
    (`given_answers`; () when it offers the guide from its start), else None."""
    questions, offered_from = hints
    given = given_answers(questions, analyzer, question, entry_id)
    return given if given or entry_id in offered_from else None


def given_answers(hints: Sequence[HintQuestion], analyzer: Analyzer, question: str, entry_id: str) -> tuple[tuple[str, str], ...]:
    """(key, value) of each wizard question that `question` answers by exactly one option's
    phrases, in the tree's order; none unless `entry_id` (the entry that answered it) is cited
    by one of those wizard questions."""
    words = analyzer.content(question)
    if not words:
        return ()
    given: list[tuple[str, str]] = []
    cited = False
    for key, _, kb, options in hints:
        matched = [value for value, _, phrases in options if any(_holds(words, analyzer.content(phrase)) for phrase in phrases)]
        if len(matched) == 1:
            given.append((key, matched[0]))
            cited = cited or entry_id in kb
    return tuple(given) if cited else ()


def described(hints: Sequence[HintQuestion], given: Sequence[tuple[str, str]], lang: str) -> str:
    """The given answers as the wizard words them in `lang` (English when missing): "Workload:
    One interactive notebook (Jupyter)", several joined by semicolons."""
    found = {(key, value): (title, label) for key, title, _, options in hints for value, label, _ in options}
    shown: list[str] = []
    for key, value in given:
        title, label = found.get((key, value), ({}, {}))
        shown.append(f"{_in(title, lang) or key}: {_in(label, lang) or value}")
    return "; ".join(shown)


def _in(texts: Mapping[str, str], lang: str) -> str:
    return texts.get(lang) or texts.get("en", "")


def _holds(words: list[str], phrase: list[str]) -> bool:
    """Whether `phrase` occurs in `words` as a run of whole words."""
    size = len(phrase)
    return size > 0 and any(words[start : start + size] == phrase for start in range(len(words) - size + 1))

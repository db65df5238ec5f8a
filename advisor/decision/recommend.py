"""Turn a finished session into a recommendation by evaluating the tree's declarative rules.

There are no Python if-chains over answer values here: which advice applies is decided by the
rules in the tree file, so authors change advice by editing YAML, and `advisor check` proves that
every rule can fire and every path gets a deployment model.
"""

from __future__ import annotations

from typing import NamedTuple

from advisor.decision.session import Answer, Session
from advisor.decision.tree import CheckItem, Text, Tree


# NamedTuples, not dataclasses: see `advisor.decision.tree`.
class Point(NamedTuple):
    """One piece of advice, the answers that triggered it and the knowledge that explains it."""

    rule: str
    topic: str
    text: Text
    because: tuple[Answer, ...]
    kb: tuple[str, ...]


class Recommendation(NamedTuple):
    """Everything an export needs, still in every language: renderers pick one."""

    tree: Tree
    answers: tuple[Answer, ...]
    path: tuple[str, ...]
    deployment: str
    gpu_sharing: tuple[str, ...]
    points: tuple[Point, ...]
    checklist: tuple[CheckItem, ...]
    kb: tuple[str, ...]
    # What to look for in a provider: from the tree's `needs` on the deployment, the sharing modes,
    # the checklist items and the rules, in that order.
    needs: tuple[str, ...] = ()
    # The class of card to rent (one of the tree's `cards`), "" when no rule picks one.
    card: str = ""

    @property
    def assumptions(self) -> tuple[Answer, ...]:
        return tuple(answer for answer in self.answers if answer.assumed)

    @property
    def card_models(self) -> tuple[str, ...]:
        """The GPU models of the recommended card, as the provider catalogue names them."""
        return next((choice.models for choice in self.tree.cards if choice.value == self.card), ())


def recommend(session: Session) -> Recommendation:
    """The recommendation for a finished session (`ValueError` while questions remain)."""
    if not session.done:
        raise ValueError("the session still has unanswered questions")
    tree = session.tree
    answers = {answer.key: answer for answer in session.answers}
    values = {key: answer.value for key, answer in answers.items()}
    fired = [rule for rule in tree.rules if rule.matches(values)]

    deployment = next((rule.deployment for rule in fired if rule.deployment), "")
    # The last rule that names a card decides it: a later, narrower rule refines the card an earlier
    # one picked (a card split with MIG must be one that MIG runs on).
    card = next((rule.card for rule in reversed(fired) if rule.card), "")
    wanted_modes = {mode for rule in fired for mode in rule.sharing}
    sharing = tuple(choice.value for choice in tree.sharing_modes if choice.value in wanted_modes)

    topic_order = {choice.value: index for index, choice in enumerate(tree.topics)}
    ordered = sorted(fired, key=lambda rule: topic_order.get(rule.topic, len(topic_order)))  # stable
    points = tuple(
        Point(rule.id, rule.topic, rule.text, tuple(answers[c.key] for c in rule.matching(values) or () if c.key in answers), rule.kb)
        for rule in ordered
    )
    check_ids = {check_id for rule in fired for check_id in rule.checks}
    checklist = tuple(item for item in tree.checklist if item.id in check_ids)

    needs: dict[str, None] = {}
    chosen = next((choice for choice in tree.deployments if choice.value == deployment), None)
    if chosen is not None:
        needs.update(dict.fromkeys(chosen.needs))
    if chosen is None or chosen.provider_sharing:
        for choice in tree.sharing_modes:
            if choice.value in sharing:
                needs.update(dict.fromkeys(choice.needs))
    for item in checklist:
        needs.update(dict.fromkeys(item.needs))
    for rule in ordered:
        needs.update(dict.fromkeys(rule.needs))

    cited: dict[str, None] = {}
    for point in points:
        cited.update(dict.fromkeys(point.kb))
    for item in checklist:
        cited.update(dict.fromkeys(item.kb))
    return Recommendation(
        tree=tree,
        answers=session.answers,
        path=session.path,
        deployment=deployment,
        gpu_sharing=sharing,
        points=points,
        checklist=checklist,
        kb=tuple(cited),
        needs=tuple(needs),
        card=card,
    )

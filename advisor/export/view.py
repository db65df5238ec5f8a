"""A recommendation resolved once, in one language: what every rendering shows.

Markdown, HTML, JSON and the app's summary all lay out this view, so the wording of an answer,
the "because" of a point and the providers that fit are worked out in one place. The JSON export
is this view's `record()`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from advisor.catalogue.match import Fit
from advisor.decision.recommend import Recommendation
from advisor.decision.session import Answer
from advisor.i18n import t

EXPORT_SCHEMA = 1


# NamedTuples, not dataclasses: see `advisor.decision.tree`.
class AnswerView(NamedTuple):
    """One answer: `question` is the full wording, `title` the short one, `label` the answer's."""

    key: str
    value: str
    question: str
    title: str
    label: str
    assumed: bool


class PointView(NamedTuple):
    """One point of advice, with the answers it rests on."""

    rule: str
    topic: str
    topic_label: str
    text: str
    because: tuple[AnswerView, ...]
    kb: tuple[str, ...]


class CheckView(NamedTuple):
    """One thing to confirm in a provider's documentation."""

    id: str
    text: str
    kb: tuple[str, ...]


class VerifyView(NamedTuple):
    """A need a provider may meet: what to check, and where."""

    need: str
    need_text: str
    link: str | None


class ProviderView(NamedTuple):
    """A provider that fits, or may: its status and what to verify."""

    id: str
    name: str
    status: str
    status_text: str
    verify: tuple[VerifyView, ...]
    as_of: str | None
    # The provider's GPU models that are the recommended card's; None when no card is recommended
    # or the catalogue does not know the provider's models.
    card_gpus: tuple[str, ...] | None = None


class ProvidersView(NamedTuple):
    """The providers that fit: the needs looked for, the best matches and the catalogue's date."""

    needs: tuple[str, ...]
    needs_text: str
    as_of: str | None
    reminder: str
    providers: tuple[ProviderView, ...]
    card_models: tuple[str, ...] = ()  # the recommended card's GPU models

    def none_needed(self, lang: str) -> str:
        """What to look for when the recommendation asks nothing of Kubernetes: GPU instances,
        with the recommended card when there is one."""
        if self.card_models:
            return t("prov_fit_none_needed_card", lang, models=", ".join(self.card_models))
        return t("prov_fit_none_needed", lang)

    def card_note(self, found: ProviderView, lang: str) -> str:
        """Whether `found` lists the recommended card ("" when that is not known)."""
        if found.card_gpus is None:
            return ""
        if found.card_gpus:
            return t("prov_card_gpus", lang, models=", ".join(found.card_gpus))
        return t("prov_card_gpus_none", lang, models=", ".join(self.card_models))

    def record(self) -> dict[str, Any]:
        return {
            "needs": list(self.needs),
            "needs_text": self.needs_text,
            "as_of": self.as_of,
            "reminder": self.reminder,
            "providers": [
                {
                    "id": p.id,
                    "name": p.name,
                    "status": p.status,
                    "status_text": p.status_text,
                    "verify": [{"need": v.need, "need_text": v.need_text, "link": v.link} for v in p.verify],
                    "as_of": p.as_of,
                    "card_gpus": list(p.card_gpus) if p.card_gpus is not None else None,
                }
                for p in self.providers
            ],
        }


class RecommendationView(NamedTuple):
    """Everything a rendering needs, in `lang`. `kb` pairs each cited id with its entry title
    (None when the knowledge folder has no such entry); `providers` is None without a catalogue."""

    tree_id: str
    lang: str
    title: str
    deployment: str
    deployment_label: str
    card: tuple[str, str] | None  # the class of card to rent and its label, None when none is picked
    sharing: tuple[tuple[str, str], ...]
    answers: tuple[AnswerView, ...]
    points: tuple[PointView, ...]
    checklist: tuple[CheckView, ...]
    kb: tuple[tuple[str, str | None], ...]
    providers: ProvidersView | None

    @property
    def assumptions(self) -> tuple[AnswerView, ...]:
        return tuple(answer for answer in self.answers if answer.assumed)

    def word(self, key: str, **values: object) -> str:
        """An interface word of the recommendation (`rec_<key>` in the locales) in this view's language."""
        return t(f"rec_{key}", self.lang, **values)

    def record(self) -> dict[str, Any]:
        """The documented JSON shape (schema 1)."""
        data: dict[str, Any] = {
            "schema": EXPORT_SCHEMA,
            "tree": self.tree_id,
            "lang": self.lang,
            "answers": [{"key": a.key, "question": a.question, "value": a.value, "label": a.label, "assumed": a.assumed} for a in self.answers],
            "recommendation": {
                "deployment": self.deployment,
                "deployment_label": self.deployment_label,
                "card": self.card[0] if self.card else None,
                "card_label": self.card[1] if self.card else None,
                "gpu_sharing": [value for value, _ in self.sharing],
                "points": [
                    {"text": p.text, "because": [f"{a.key}={a.value}" for a in p.because], "kb": list(p.kb), "topic": p.topic, "rule": p.rule}
                    for p in self.points
                ],
                "checklist": [{"id": c.id, "text": c.text, "kb": list(c.kb)} for c in self.checklist],
                "kb": [kb_id for kb_id, _ in self.kb],
                "assumptions": [a.key for a in self.assumptions],
            },
        }
        if self.providers is not None:
            data["providers"] = self.providers.record()
        return data


def build_view(rec: Recommendation, lang: str, titles: dict[str, str] | None = None, fit: Fit | None = None) -> RecommendationView:
    """`rec` in `lang`. `titles` names cited knowledge ids; `fit` is the catalogue's match for
    `rec.needs` (`advisor.catalogue.match.fit`), None when there is no catalogue."""
    tree = rec.tree
    titles = titles or {}

    def answer_view(answer: Answer) -> AnswerView:
        return AnswerView(
            answer.key,
            answer.value,
            tree.question_text(answer.key, lang),
            tree.question_title(answer.key, lang),
            tree.answer_label(answer.key, answer.value, lang),
            answer.assumed,
        )

    return RecommendationView(
        tree_id=tree.id,
        lang=lang,
        title=tree.title.get(lang),
        deployment=rec.deployment,
        deployment_label=tree.choice_label(tree.deployments, rec.deployment, lang),
        card=(rec.card, tree.choice_label(tree.cards, rec.card, lang)) if rec.card else None,
        sharing=tuple((mode, tree.choice_label(tree.sharing_modes, mode, lang)) for mode in rec.gpu_sharing),
        answers=tuple(answer_view(answer) for answer in rec.answers),
        points=tuple(
            PointView(p.rule, p.topic, tree.choice_label(tree.topics, p.topic, lang), p.text.get(lang), tuple(answer_view(a) for a in p.because), p.kb)
            for p in rec.points
        ),
        checklist=tuple(CheckView(item.id, item.text.get(lang), item.kb) for item in rec.checklist),
        kb=tuple((kb_id, titles.get(kb_id)) for kb_id in rec.kb),
        providers=_providers_view(fit, lang, rec.card_models) if fit is not None else None,
    )


def _providers_view(fit: Fit, lang: str, card_models: tuple[str, ...]) -> ProvidersView:
    from advisor.catalogue.wording import need_label, reminder, status_text

    return ProvidersView(
        needs=fit.needs,
        needs_text=", ".join(need_label(need, lang) for need in fit.needs),
        as_of=fit.as_of,
        reminder=reminder(lang, fit.as_of),
        card_models=card_models,
        providers=tuple(
            ProviderView(
                found.provider.id,
                found.provider.name,
                found.status,
                status_text(found.status, lang),
                tuple(VerifyView(check.need, need_label(check.need, lang), check.link) for check in found.to_verify),
                found.provider.as_of,
                found.provider.gpus_among(card_models) if card_models else None,
            )
            for found in fit.matches
        ),
    )


def because_text(view: RecommendationView, answers: tuple[AnswerView, ...]) -> list[tuple[str, bool]]:
    """The "because" of a point as (question title: answer label, assumed) parts; one "always"
    part when the point applies to every answer."""
    if not answers:
        return [(view.word("always"), False)]
    return [(f"{a.title}: {a.label}", a.assumed) for a in answers]

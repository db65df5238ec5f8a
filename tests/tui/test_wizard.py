"""The guided wizard: three personas to a summary, back and change, restart, export, resume."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, Static

from advisor.cli import main
from advisor.search.index import SearchIndex
from advisor.decision.recommend import recommend
from advisor.decision.session import Session, complete, save_session
from advisor.decision.validate import bundled_tree_path, load_tree
from advisor.tui.app import AdvisorApp
from advisor.tui.screens.confirm_dialog import ConfirmDialog
from advisor.tui.screens.entry_screen import EntryScreen
from advisor.tui.screens.export_dialog import ExportDialog
from advisor.tui.screens.summary_screen import SummaryScreen
from advisor.tui.screens.wizard_screen import WizardScreen
from advisor.tui.session_store import SESSION_FILE
from advisor.tui.widgets.answer_card import AnswerCard

from .helpers import ask, choose, settle, start_wizard, walk

PERSONAS = {
    # A solo researcher trying things in Jupyter on one card.
    "notebook": {"workload": "notebook", "growth": "no", "gpu_memory": "24gb", "drivers": "preinstalled", "idle": "yes"},
    # A start-up serving small models that must not see each other's memory.
    "inference": {
        "workload": "inference", "serving": "scaled", "gpu_memory": "80gb", "gpu_fraction": "yes", "isolation": "hard", "shared_storage": "no",
        "control_plane": "managed", "drivers": "preinstalled", "interruptible": "yes", "idle": "no",
    },
    # A lab running multi-node PyTorch on machines it operates itself.
    "training": {
        "workload": "distributed-training", "gpu_memory": "multi-gpu", "framework": "pytorch", "control_plane": "self-run", "team_ops": "yes",
        "drivers": "own", "interruptible": "no", "idle": "no",
    },
}


@pytest.fixture(scope="module")
def tree():  # type: ignore[no-untyped-def]
    return load_tree(bundled_tree_path())


@pytest.mark.parametrize("persona", sorted(PERSONAS))
async def test_complete_the_wizard_for_a_persona(persona: str, kb_index: SearchIndex, tree, config_dir: Path) -> None:  # type: ignore[no-untyped-def]
    answers = PERSONAS[persona]
    expected = recommend(complete(tree, answers, strict=True).session)
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await start_wizard(pilot)
        await walk(pilot, answers)
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        rec = summary.recommendation
        assert {a.key: a.value for a in rec.answers} == answers
        assert (rec.deployment, rec.gpu_sharing, rec.checklist) == (expected.deployment, expected.gpu_sharing, expected.checklist)
        headline = summary.query_one("#summary-headline").render().plain
        assert tree.choice_label(tree.deployments, rec.deployment, "en") in headline
        assert rec.card and tree.choice_label(tree.cards, rec.card, "en") in headline  # which GPU to rent
        shown = "\n".join(static.render().plain for static in summary.query("#summary-body Static"))
        assert all(point.text.get("en") in shown for point in rec.points)  # every reason...
        assert all(f"☐ {item.text.get('en')}" in shown for item in rec.checklist)  # ...and check
        if rec.deployment == "managed-k8s":  # the providers that fit say whether they list the card
            assert "has this card: H100" in shown
        cited = summary.query_one("#summary-cited", OptionList)
        assert [option.id for option in cited.options] == list(rec.kb)
        saved = json.loads((config_dir / SESSION_FILE).read_text(encoding="utf-8"))
        assert [item["key"] for item in saved["answers"]] == list(answers)


def test_the_personas_reach_different_deployments(tree) -> None:  # type: ignore[no-untyped-def]
    deployments = {recommend(complete(tree, answers, strict=True).session).deployment for answers in PERSONAS.values()}
    assert deployments == {"plain-instance", "managed-k8s", "self-run-k8s"}


async def test_a_finished_saved_session_resumes_on_its_summary_and_cited_entries_open(kb_index: SearchIndex, tree, config_dir: Path) -> None:  # type: ignore[no-untyped-def]
    config_dir.mkdir(parents=True, exist_ok=True)
    save_session(complete(tree, PERSONAS["notebook"]).session, config_dir / SESSION_FILE)
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("y")  # resume
        await pilot.pause()
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        await pilot.press("r", "enter")  # to the cited entries, open the first
        await pilot.pause()
        assert isinstance(app.screen, EntryScreen)
        assert app.screen.topic == summary.recommendation.kb[0]


async def test_escape_goes_back_and_an_earlier_answer_can_be_changed(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        wizard = await start_wizard(pilot)
        for value in ("batch", "24gb", "yes", "hard", "yes"):
            await choose(pilot, value)
        assert [a.key for a in wizard.session.answers] == ["workload", "gpu_memory", "gpu_fraction", "isolation", "mig_cards"]
        await pilot.press("escape")  # back one question
        assert wizard.question.key == "mig_cards" and len(wizard.session.answers) == 4
        await choose(pilot, "yes")
        # Jump to the third answer and change it: the sharing questions no longer apply.
        await pilot.press("a", "down", "down", "enter")
        assert wizard.editing == "gpu_fraction" and wizard.question.key == "gpu_fraction"
        await choose(pilot, "no")
        assert wizard.editing is None
        assert [(a.key, a.value) for a in wizard.session.answers] == [("workload", "batch"), ("gpu_memory", "24gb"), ("gpu_fraction", "no")]
        assert wizard.question.key == "shared_storage"
        answers = wizard.query_one("#wizard-answers", OptionList)
        assert [option.id for option in answers.options] == ["workload", "gpu_memory", "gpu_fraction"]


async def test_summary_back_change_keep_and_restart(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        wizard = await start_wizard(pilot)
        await walk(pilot, PERSONAS["notebook"])
        assert isinstance(app.screen, SummaryScreen)
        await pilot.press("a")  # change answers: the last question again, its answer kept
        assert app.screen is wizard and wizard.editing == "idle"
        await pilot.press("escape")  # keep it as it was: straight back to the recommendation
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        assert len(wizard.session.answers) == len(PERSONAS["notebook"])
        await pilot.press("a")
        await choose(pilot, "no")  # change it this time
        assert isinstance(app.screen, SummaryScreen)
        assert app.screen.recommendation.answers[-1].value == "no"
        await pilot.press("ctrl+r")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await pilot.pause()
        assert app.screen is wizard and wizard.session.answers == () and wizard.question.key == "workload"


async def test_export_writes_a_file_and_never_overwrites_silently(kb_index: SearchIndex, tmp_path: Path) -> None:
    target = tmp_path / "plan.md"
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await start_wizard(pilot)
        await walk(pilot, PERSONAS["inference"])
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        cli_copy = tmp_path / "cli.md"
        arguments = [f"--answer={key}={value}" for key, value in PERSONAS["inference"].items()]
        assert main(["recommend", *arguments, "--lang", "en", "-o", str(cli_copy)]) == 0
        expected = cli_copy.read_text(encoding="utf-8")  # the TUI exports what the CLI writes

        await pilot.press("e")
        assert isinstance(app.screen, ExportDialog)
        app.screen.query_one("#export-name", Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert target.read_text(encoding="utf-8") == expected
        assert any(str(target) in n.message for n in app._notifications)

        target.write_text("mine", encoding="utf-8")
        await pilot.press("e")
        app.screen.query_one("#export-name", Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)  # asks before replacing
        await pilot.press("n")
        await pilot.pause()
        assert target.read_text(encoding="utf-8") == "mine"
        dialog = app.screen  # back in the dialog, to give another name or choose a format
        assert isinstance(dialog, ExportDialog)
        await pilot.press("h")  # HTML
        assert dialog.fmt == "html"
        assert dialog.query_one("#export-name", Input).value.endswith(".html")
        dialog.query_one("#export-name", Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    if os.access(folder, os.W_OK):  # root ignores permissions; /sys refuses new files even to root
        return Path("/sys")
    return folder


async def test_export_to_a_read_only_folder_is_a_notification(kb_index: SearchIndex, read_only_folder: Path) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await start_wizard(pilot)
        await walk(pilot, PERSONAS["notebook"])
        await pilot.press("e")
        app.screen.query_one("#export-name", Input).value = str(read_only_folder / "plan.md")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and "plan.md" in errors[0].message
        assert not (read_only_folder / "plan.md").exists()
        await pilot.press("a")  # still responsive
        assert isinstance(app.screen, WizardScreen)


async def test_resume_a_saved_session(kb_index: SearchIndex, tree, config_dir: Path) -> None:  # type: ignore[no-untyped-def]
    config_dir.mkdir(parents=True, exist_ok=True)
    session = Session.start(tree).answer("batch").answer("48gb").answer("no")
    save_session(session, config_dir / SESSION_FILE)
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await pilot.pause()
        wizard = app.screen
        assert isinstance(wizard, WizardScreen)
        assert [(a.key, a.value) for a in wizard.session.answers] == [("workload", "batch"), ("gpu_memory", "48gb"), ("gpu_fraction", "no")]
        assert wizard.question.key == "shared_storage"


async def test_declining_to_resume_starts_fresh(kb_index: SearchIndex, tree, config_dir: Path) -> None:  # type: ignore[no-untyped-def]
    config_dir.mkdir(parents=True, exist_ok=True)
    save_session(Session.start(tree).answer("batch"), config_dir / SESSION_FILE)
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert not (config_dir / SESSION_FILE).exists()
        wizard = await start_wizard(pilot)
        assert wizard.session.answers == ()


async def test_a_corrupt_saved_session_is_moved_aside(kb_index: SearchIndex, config_dir: Path) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / SESSION_FILE).write_text("{not json", encoding="utf-8")
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmDialog)
        assert not (config_dir / SESSION_FILE).exists()
        moved = list(config_dir.glob(f"{SESSION_FILE}.broken-*"))
        assert len(moved) == 1 and moved[0].read_text(encoding="utf-8") == "{not json"
        assert any(str(moved[0]) in n.message for n in app._notifications)
        wizard = await start_wizard(pilot)
        assert wizard.session.answers == ()


async def test_the_wizard_works_with_the_mouse(kb_index: SearchIndex) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        wizard = await start_wizard(pilot)
        options = wizard.query_one("#wizard-options", OptionList)
        await pilot.click(options, offset=(3, 1))  # the second option: one job on one GPU
        await pilot.pause()
        assert [(a.key, a.value) for a in wizard.session.answers] == [("workload", "single-job")]
        answers = wizard.query_one("#wizard-answers", OptionList)
        await pilot.click(answers, offset=(2, 0))  # the first answer: change it
        await pilot.pause()
        assert wizard.editing == "workload"


async def go_on(pilot: Pilot, question: str | None = None) -> AnswerCard:
    """Press the latest answer's *Get a recommendation* (after asking `question`, if given); the
    answer it was under."""
    if question is not None:
        await ask(pilot, question)
    card = pilot.app.screen.query(AnswerCard).last()
    card.query_one(".answer-wizard", Button).press()
    await settle(pilot)
    return card


async def test_an_answer_goes_on_to_the_wizard_with_what_its_question_said(kb_index: SearchIndex, config_dir: Path) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await ask(pilot, "pods stuck pending insufficient nvidia.com/gpu")  # no setting stated: no offer
        assert not app.screen.query(".answer-wizard")
        card = await go_on(pilot, "k8s for 1 notebook?")
        assert card.answer.id == "faq-k8s-single-job"
        assert "“Workload: One interactive notebook (Jupyter)”" in str(card.query_one(".answer-wizard-given", Static).render())
        wizard = app.screen
        assert isinstance(wizard, WizardScreen)
        assert [(a.key, a.value) for a in wizard.session.answers] == [("workload", "notebook")]
        assert wizard.question is not None and wizard.question.key == "growth"
        saved = json.loads((config_dir / SESSION_FILE).read_text(encoding="utf-8"))
        assert "notebook" in json.dumps(saved)


async def test_an_answer_to_the_question_the_guide_answers_opens_it_where_it_was_left(kb_index: SearchIndex, config_dir: Path) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        card = await go_on(pilot, "do we need kubernetes")
        assert card.answer.id == "when-k8s-worth-it"
        assert "asks a few questions" in str(card.query_one(".answer-wizard-given", Static).render())
        wizard = app.screen
        assert isinstance(wizard, WizardScreen) and wizard.session.answers == ()
        assert wizard.question is not None and wizard.question.key == "workload"
        await choose(pilot, "batch")
        await pilot.press("ctrl+t")
        await go_on(pilot, "do we need kubernetes")
        wizard = app.screen  # nothing to replace the saved answer with: no confirmation asked
        assert isinstance(wizard, WizardScreen)
        assert [(a.key, a.value) for a in wizard.session.answers] == [("workload", "batch")]


async def test_going_on_from_an_answer_replaces_saved_answers_only_when_confirmed(kb_index: SearchIndex, config_dir: Path) -> None:
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await start_wizard(pilot)
        await choose(pilot, "batch")
        await pilot.press("ctrl+t")
        await go_on(pilot, "k8s for 1 notebook?")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, (ConfirmDialog, WizardScreen))
        assert '"batch"' in (config_dir / SESSION_FILE).read_text(encoding="utf-8")
        await go_on(pilot)
        await pilot.press("y")
        await settle(pilot)
        wizard = app.screen
        assert isinstance(wizard, WizardScreen)
        assert [(a.key, a.value) for a in wizard.session.answers] == [("workload", "notebook")]


async def test_a_tree_that_cannot_be_used_is_not_read_again_for_every_answer(kb_index: SearchIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import advisor.library

    calls: list[object] = []
    real_open_tree = advisor.library.open_tree

    def counted(path):  # type: ignore[no-untyped-def]
        calls.append(path)
        return real_open_tree(path)

    monkeypatch.setattr(advisor.library, "open_tree", counted)
    broken = tmp_path / "broken.yaml"
    broken.write_text("questions: [\n", encoding="utf-8")
    app = AdvisorApp(index=kb_index, lang="en", tree=broken)
    async with app.run_test(size=(100, 40)) as pilot:
        await ask(pilot, "k8s for 1 notebook?")
        await ask(pilot, "should i use kubernetes for inference serving")
        assert not app.screen.query(".answer-wizard")  # no tree, no offer
        assert len(calls) == 1

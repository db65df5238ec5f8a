"""Small drivers shared by the TUI tests."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Input

from advisor.tui.screens.wizard_screen import WizardScreen


async def ask(pilot: Pilot, question: str) -> None:
    """Put `question` in the chat input (without typing it) and press Enter."""
    app = pilot.app
    for _ in range(20):  # a snapshot's pilot may start before the first screen is mounted
        if app.screen.query("#question"):
            break
        await pilot.pause(0.01)
    field = app.screen.query_one("#question", Input)
    field.focus()
    field.value = question
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()


async def settle(pilot: Pilot) -> None:
    """Let workers finish and the screen catch up."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def until(pilot: Pilot, condition: Callable[[], bool], seconds: float = 5.0) -> None:
    """Let frames pass until `condition()` holds, for at most `seconds`: what a callback after the
    next refresh does lands frames later on a loaded machine. The caller still asserts it."""
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await pilot.pause(0.02)


async def choose(pilot: Pilot, value: str) -> None:
    """Answer the wizard's question on screen with option `value`, by its number key."""
    from textual.widgets import OptionList

    options = pilot.app.screen.query_one("#wizard-options", OptionList)
    ids = [option.id for option in options.options]
    assert value in ids, f"{value} is not an option here: {ids}"
    await pilot.press(str(ids.index(value) + 1))  # press() already waits for the screen to settle


async def walk(pilot: Pilot, answers: dict[str, str]) -> None:
    """Answer every question the wizard asks from `answers` (keyed by question key)."""
    from advisor.tui.screens.wizard_screen import WizardScreen

    for _ in range(len(answers) + 1):
        screen = pilot.app.screen
        if not isinstance(screen, WizardScreen) or screen.question is None:
            return
        await choose(pilot, answers[screen.question.key])


async def start_wizard(pilot: Pilot) -> WizardScreen:
    """Open the wizard with its key and return its screen."""
    await pilot.press("ctrl+g")
    await pilot.pause()
    assert isinstance(pilot.app.screen, WizardScreen)
    return pilot.app.screen

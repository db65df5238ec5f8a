"""The app against hostile files and signals: it starts, says what it moved aside, and never
crashes on markup or passes escape sequences through (each test failed before its fix)."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.search.index import SearchIndex
from advisor.tui.app import AdvisorApp
from advisor.tui.screens.entry_screen import EntryScreen
from advisor.tui.screens.export_dialog import ExportDialog
from advisor.tui.screens.summary_screen import SummaryScreen
from advisor.tui.screens.wizard_screen import WizardScreen
from advisor.tui.session_store import SESSION_FILE
from advisor.tui.settings import SETTINGS_FILE
from advisor.tui.widgets.answer_card import AnswerCard
from tests.conftest import write_entry

from .helpers import ask, settle, walk

ESCAPES = "\x1b]52;c;UFdORUQ=\x07\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
NOTEBOOK = {"workload": "notebook", "growth": "no", "gpu_memory": "24gb", "drivers": "preinstalled", "idle": "yes"}


def _messages(app: AdvisorApp) -> list[str]:
    return [notification.message for notification in app._notifications]


@pytest.mark.parametrize("name", [SESSION_FILE, SETTINGS_FILE])
async def test_a_deeply_nested_session_or_settings_file_is_moved_aside_with_a_notice(kb_index: SearchIndex, config_dir: Path, name: str) -> None:
    """F2: json raises RecursionError on deep nesting; the app crashed on every start."""
    config_dir.mkdir(parents=True)
    (config_dir / name).write_text("[" * 20_000 + "]" * 20_000, encoding="utf-8")
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)  # the files are read in a worker
        moved = list(config_dir.glob(f"{name}.broken-*"))
        assert len(moved) == 1 and not (config_dir / name).exists()
        assert any(str(moved[0]) in message and "nested too deeply" in message for message in _messages(app))
        await pilot.press("ctrl+g")  # and the app goes on working
        assert isinstance(app.screen, WizardScreen) and app.screen.session.answers == ()


@pytest.mark.parametrize("make", [os.mkfifo, lambda path: path.symlink_to("/dev/zero")], ids=["fifo", "dev-zero-link"])
async def test_a_special_file_in_place_of_the_session_neither_freezes_nor_fills_memory(kb_index: SearchIndex, config_dir: Path, make) -> None:  # type: ignore[no-untyped-def]
    """F3: a FIFO blocked the event loop in open(); a link to /dev/zero was read until memory ran out."""
    config_dir.mkdir(parents=True)
    make(config_dir / SESSION_FILE)
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert any("not a regular file" in message for message in _messages(app))
        assert not os.path.lexists(config_dir / SESSION_FILE)


async def test_a_dangling_link_in_place_of_the_session_is_moved_aside_and_reported(kb_index: SearchIndex, config_dir: Path) -> None:
    """A link to nothing was taken for "no saved session" and left in place, where the store
    moves any unreadable session aside and says so."""
    config_dir.mkdir(parents=True)
    (config_dir / SESSION_FILE).symlink_to(config_dir / "gone.json")
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert any("No such file" in message for message in _messages(app))
        assert not os.path.lexists(config_dir / SESSION_FILE)


async def test_markup_in_session_data_and_in_the_config_path_is_shown_as_text(kb_index: SearchIndex, tmp_path: Path) -> None:
    """F5: notify() read `[x=1:2]` in a session value or a folder name as markup and crashed the
    app; `[@click=app.quit]` became a live action."""
    config = tmp_path / "cfg-[x=1:2]"
    config.mkdir()
    record = {"schema": 1, "tree": "gpu-orchestration", "answers": [{"key": "[x=1:2] [@click=app.quit]q[/]", "value": "[b]v"}]}
    (config / SESSION_FILE).write_text(json.dumps(record), encoding="utf-8")
    app = AdvisorApp(index=kb_index, lang="en", config=config)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        notice = next(message for message in _messages(app) if "[x=1:2] [@click=app.quit]q[/]=[b]v" in message)
        assert "cfg-[x=1:2]" in notice
        await pilot.press("ctrl+g")
        assert isinstance(app.screen, WizardScreen)


async def test_an_export_named_like_markup_is_saved_and_reported(kb_index: SearchIndex, tmp_path: Path) -> None:
    """F5 (TU11): the "Saved to x[a=b:c].md" toast raised MarkupError and the next key killed the app."""
    from textual.widgets import Input

    target = tmp_path / "x[a=b:c].md"
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("ctrl+g")
        await walk(pilot, NOTEBOOK)
        assert isinstance(app.screen, SummaryScreen)
        await pilot.press("e")
        app.screen.query_one("#export-name", Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert target.exists() and any(str(target) in message for message in _messages(app))
        await pilot.press("e")  # still alive
        assert isinstance(app.screen, ExportDialog)


async def test_entry_titles_and_folder_names_reach_the_screen_without_escapes(tmp_path: Path) -> None:
    """F4 (TU14, TU16): the entry screen's header and the answer's "source:" label passed OSC 52
    clipboard writes, OSC 8 links and a window title from the knowledge to the terminal."""
    kb = tmp_path / "kb"
    folder = kb / "\x1b]0;FOLDERTITLE\x07"
    entry = write_entry(kb, "en", "zebra", title="Zebra", questions=["zebra quokka", "zebra quokka one", "zebra quokka two", "zebra quokka three"])
    folder.mkdir()
    text = entry.read_text(encoding="utf-8").replace('title: "Zebra"', f"title: {json.dumps('Zebra ' + ESCAPES)}")
    (folder / "zebra.md").write_text(text, encoding="utf-8")
    entry.unlink()
    app = AdvisorApp(kb=kb, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(pilot, "zebra quokka")
        card = app.screen.query(AnswerCard).first()
        meta = str(card.query_one(".answer-meta-text").render())
        assert "FOLDERTITLE" not in meta and "\x1b" not in meta and "zebra.md" in meta
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, EntryScreen)
        assert app.screen.sub_title == "Zebra click" and not any(ch in app.screen.sub_title for ch in "\x1b\x07")


@pytest.mark.parametrize("argv", [["tui"], ["--lang", "en"], ["--kb=knowledge", "--lang", "en"]])
def test_the_app_without_a_terminal_refuses_in_one_line(argv: list[str]) -> None:
    """F13: `advisor tui </dev/null >file` drew into the void and spun at 100% CPU for ever.
    `advisor --lang en` is the app too, as `advisor` alone is."""
    run = subprocess.run([sys.executable, "-m", "advisor", *argv], stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.decode().startswith("advisor: error: the app needs a terminal") and run.stderr.count(b"\n") == 1
    assert run.stdout == b""


def test_the_app_exits_non_zero_after_a_crash(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """F12: `advisor tui` returned 0 whatever happened inside the app."""

    def crash(self: AdvisorApp) -> None:
        raise RuntimeError("boom")

    original_run = AdvisorApp.run
    monkeypatch.setattr("advisor.terminal.is_terminal", lambda stream: True)
    monkeypatch.setattr(AdvisorApp, "on_mount", crash)
    monkeypatch.setattr(AdvisorApp, "run", lambda self: original_run(self, headless=True))
    assert main(["tui"]) == 1


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_ends_the_app_and_restores_the_terminal(tmp_path: Path, number: int) -> None:
    """F10 (TU06): after SIGTERM or SIGHUP the terminal stayed in the alternate screen with mouse
    reporting on; Textual restores it only when the app ends normally."""
    env = {**os.environ, "ADVISOR_CONFIG_DIR": str(tmp_path / "config"), "ADVISOR_CACHE_DIR": str(tmp_path / "cache"), "TERM": "xterm-256color"}
    parent, child = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "advisor", "tui", "--lang", "en"], stdin=child, stdout=child, stderr=child, env=env, start_new_session=True)
    os.close(child)
    seen = b""

    def read_until(marker: bytes) -> bool:
        nonlocal seen
        deadline = time.monotonic() + 60  # a guard against a hang, not a speed requirement
        while marker not in seen and time.monotonic() < deadline:
            if select.select([parent], [], [], 1)[0]:
                try:
                    seen += os.read(parent, 65536)
                except OSError:  # the app has gone and closed the terminal
                    break
        return marker in seen

    try:
        assert read_until(b"Ask") and b"\x1b[?1049h" in seen  # drawn, in the alternate screen
        start = len(seen)
        process.send_signal(number)
        read_until(b"\x1b[?1049l")
        assert process.wait(timeout=60) == 128 + number
        assert b"\x1b[?1049l" in seen[start:]  # left the alternate screen
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(parent)

"""Fixtures for the TUI tests: private folders, no cursor blink, one shared index.

Pilot tests assert on state; a few snapshot tests (test_snapshots.py) guard the look. Typing is
only simulated key by key where typing itself is under test; elsewhere the input's value is set
directly (each `pilot.press` costs tens of milliseconds).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from advisor.library import open_index
from advisor.search.index import SearchIndex
from advisor.paths import bundled_knowledge_dir


@pytest.fixture(autouse=True)
def _tui_isolation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Config and working folder in this test's tmp_path (the cache: `tests/conftest.py`); a
    steady cursor for screenshots."""
    monkeypatch.chdir(tmp_path)  # exports with a bare file name land here, never in the checkout
    monkeypatch.setenv("ADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setattr(Input.cursor_blink, "_default", False)


@pytest.fixture(scope="session")
def kb_index() -> SearchIndex:
    """The bundled knowledge, indexed once for the whole session (no cache file written)."""
    return open_index(bundled_knowledge_dir(), use_cache=False)


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    return tmp_path / "config"

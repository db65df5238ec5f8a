"""`advisor index`: build or refresh a folder's index ahead of time, with progress on a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.i18n import t
from advisor.search.cache import cache_file
from tests.conftest import write_entry


def test_index_builds_then_finds_the_index_current(tiny_kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", "--kb", str(tiny_kb), "--lang", "en"]) == 0
    built = capsys.readouterr().out
    assert built.startswith("Indexed 4 entries") and cache_file(tiny_kb) in built
    assert Path(cache_file(tiny_kb)).exists()
    assert main(["index", "--kb", str(tiny_kb), "--lang", "vi"]) == 0
    assert capsys.readouterr().out.startswith("Chỉ mục 4 mục vẫn còn mới")


def test_index_checks_every_file_of_a_large_folder(tiny_kb: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """An entry rewritten in place leaves its folder unchanged: `advisor index` still sees it."""
    from advisor.search import cache

    monkeypatch.setattr(cache, "FULL_CHECK_FILES", 1)
    monkeypatch.setattr(cache, "RACY_SECONDS", -60.0)
    assert main(["index", "--kb", str(tiny_kb)]) == 0
    entry = tiny_kb / "en" / "pizza-oven.md"
    folder_time = os.stat(entry.parent).st_mtime_ns
    entry.write_text(entry.read_text(encoding="utf-8").replace("Pizza ovens", "Stone ovens"), encoding="utf-8")
    os.utime(entry, ns=(folder_time + 10**10, folder_time + 10**10))
    os.utime(entry.parent, ns=(folder_time, folder_time))
    capsys.readouterr()
    assert main(["index", "--kb", str(tiny_kb), "--lang", "en"]) == 0
    assert capsys.readouterr().out.startswith("Indexed 4 entries")
    assert main(["show", "pizza-oven", "--kb", str(tiny_kb), "--json", "--lang", "en"]) == 0
    assert "Stone ovens" in capsys.readouterr().out


def test_index_removes_the_cache_of_a_folder_that_is_gone(tiny_kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gone = tmp_path / "gone"
    write_entry(gone, "en", "grill")
    assert main(["index", "--kb", str(gone)]) == 0
    stale = Path(cache_file(gone))
    import shutil

    shutil.rmtree(gone)
    capsys.readouterr()
    assert main(["index", "--kb", str(tiny_kb), "--lang", "en"]) == 0
    assert t("index_removed", "en", count=1) in capsys.readouterr().out
    assert not stale.exists()


def test_index_says_when_the_cache_cannot_be_written(tiny_kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(blocker / "cache"))
    assert main(["index", "--kb", str(tiny_kb), "--lang", "en"]) == 0
    assert "cannot be written" in capsys.readouterr().out


def _run(argv: list[str], env: dict[str, str], terminal: bool) -> tuple[int, bytes]:
    """Run `advisor` with its standard error on a pseudo-terminal, or piped; (exit code, stderr)."""
    command = [sys.executable, "-m", "advisor", *argv]
    if not terminal:
        done = subprocess.run(command, env=env, capture_output=True, timeout=120)
        return done.returncode, done.stderr
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=follower, stdin=subprocess.DEVNULL)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return process.wait(timeout=120), b"".join(chunks)


def test_progress_is_shown_on_a_terminal_and_not_when_piped(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    for number in range(30):
        write_entry(kb, "en", f"topic-{number}")
    env = {**os.environ, "ADVISOR_CACHE_DIR": str(tmp_path / "cache"), "LANG": "C.UTF-8"}
    code, shown = _run(["index", "--kb", str(kb)], env, terminal=True)
    assert code == 0 and b"30/30 [" in shown and b"100%" in shown and b"\r" in shown
    code, piped = _run(["index", "--kb", str(kb)], {**env, "ADVISOR_CACHE_DIR": str(tmp_path / "other")}, terminal=False)
    assert code == 0 and piped == b""

"""The benchmark runs end to end (a smoke run: a few rounds, a small generated folder, targets
reported but not enforced). Timing itself is never asserted here: machines differ."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from advisor.tui.screens.chat_screen import FULL_ANSWERS, MAX_EXCHANGES

REPO = Path(__file__).resolve().parent.parent


def _stamp(path: Path) -> int | None:
    return path.stat().st_mtime_ns if path.exists() else None


def test_the_benchmark_runs_and_reports_every_target(tmp_path: Path) -> None:
    results = REPO / "benchmarks" / "results.md"
    before = _stamp(results)
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "run.py"), "--smoke", "--keep", str(tmp_path / "kb")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    for heading in ("## Start-up", "## The app", "## Scale", "## Warm search", "## Targets"):
        assert heading in out
    for command in ("advisor ask --json", "advisor show mig", "advisor list", "advisor --version", "advisor recommend", "advisor providers --json"):
        assert command in out
    assert "targets met" in out and "300 entries" in out
    assert _stamp(results) == before  # a smoke run leaves the published results alone


def test_the_long_chat_race_runs_both_ways(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(REPO / "benchmarks" / "long_chat.py"), "--smoke"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [f"FULL_ANSWERS={MAX_EXCHANGES}", f"FULL_ANSWERS={FULL_ANSWERS}"]
    assert all("answers 1-3 median" in line and "widgets at the end" in line for line in lines)

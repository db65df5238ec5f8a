"""The benchmark runs end to end (a smoke run: a few rounds, a small generated folder, targets
reported but not enforced). Timing itself is never asserted here: machines differ."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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

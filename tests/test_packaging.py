"""The wheel carries the knowledge and the trees: hatchling drops top-level folders silently
unless pyproject's force-include maps them into the package."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import advisor

REPO = Path(__file__).resolve().parent.parent


def test_wheel_contains_knowledge_trees_and_labels(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)], cwd=REPO, check=True, capture_output=True, timeout=120)
    wheel = next(tmp_path.glob("advisor-*.whl"))
    assert wheel.name.startswith(f"advisor-{advisor.__version__}-")  # the one version, read by hatchling
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "advisor/data/knowledge/en/mig.md" in names
    assert "advisor/data/knowledge/vi/mig.md" in names
    assert "advisor/data/knowledge/lexicon.yaml" in names
    assert "advisor/locales/vi.json" in names
    assert any(name.startswith("advisor/data/decision_trees/") and name.endswith(".yaml") for name in names)
    assert not any("__pycache__" in name for name in names)

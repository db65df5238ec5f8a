"""Building an index in worker processes gives the very index built in one process."""

from __future__ import annotations

import multiprocessing
import shutil
from pathlib import Path
from typing import Any

import pytest

from advisor.search import build as building
from advisor.search import storage
from tests.conftest import REPO


@pytest.fixture(scope="module")
def mixed_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled knowledge (two languages, error lines, synonyms), generated entries, and
    broken files: one beside a good translation, and one that is the only file of its id (its
    topic is then missing, and every topic after it moves up one)."""
    from benchmarks.generate import generate

    root = tmp_path_factory.mktemp("mixed") / "kb"
    shutil.copytree(REPO / "knowledge", root)
    for path in sorted((generate(40, root.parent / "generated") / "en").glob("*.md")):
        shutil.copyfile(path, root / "en" / path.name)
    (root / "en" / "mig.md").write_text((root / "en" / "mig.md").read_text(encoding="utf-8").replace("title:", "title: [unclosed", 1), encoding="utf-8")
    (root / "en" / "broken-alone.md").write_text("---\nid: broken-alone\nlang: en\ntitle: 'x\n---\nBody.\n", encoding="utf-8")
    return root


def _built(root: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The index of `root` as written and read back: the header, and every section's bytes. (The
    file's bytes may differ: marshal writes a string shared by two header values once.)"""
    header, sections = storage.unpack(b"".join(storage.pack_parts(*building.build(root, None))))
    return header, {name: bytes(section) for name, section in sections.items()}


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_workers_build_the_same_index_as_one_process(mixed_kb: Path, monkeypatch: pytest.MonkeyPatch, start: str) -> None:
    monkeypatch.setattr(building, "_workers", lambda files: 1)
    alone = _built(mixed_kb)
    header = alone[0]
    assert any(problem[0].endswith("mig.md") for problem in header["problems"])
    assert any(problem[0].endswith("broken-alone.md") for problem in header["problems"])
    if start not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start} start method here")
    monkeypatch.setattr(building, "_workers", lambda files: 3)
    monkeypatch.setattr(building, "_context", lambda: multiprocessing.get_context(start))
    assert _built(mixed_kb) == alone

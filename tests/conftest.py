"""Fixtures shared by every test: private cache and config folders, a tiny knowledge folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def built_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled knowledge's index and decision tree, cached once for the whole run.

    Most commands a test runs open both; building them in every test's empty cache folder took a
    second or two each, several minutes of the suite. Each test gets a copy (`cache_folder`), so
    one that damages or removes its cache never reaches another; the tests of building itself
    set a cache folder of their own.
    """
    from advisor.library import open_index, open_tree
    from advisor.paths import bundled_knowledge_dir

    folder = tmp_path_factory.mktemp("built-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ADVISOR_CACHE_DIR", str(folder))
        open_index(bundled_knowledge_dir())
        open_tree()
    return folder


def cache_folder(base: Path, built_cache: Path) -> Path:
    """A test's own cache folder, holding a copy of the built caches."""
    return Path(shutil.copytree(built_cache, base / "cache"))


@pytest.fixture(autouse=True)
def _private_folders(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, built_cache: Path) -> None:
    """No test reads or writes the real user's cache or config, or depends on the caller's env."""
    base = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(cache_folder(base, built_cache)))
    monkeypatch.setenv("ADVISOR_CONFIG_DIR", str(base / "config"))
    monkeypatch.delenv("ADVISOR_KB", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LANGUAGE", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)


def write_entry(root: Path, lang: str, entry_id: str, *, title: str | None = None, questions: list[str] | None = None,
                keywords: list[str] | None = None, related: list[str] | None = None, body: str | None = None,
                topic: str | None = None) -> Path:
    """Write one well-formed knowledge entry; tests break it on purpose where they need to."""
    questions = questions or [f"what is {entry_id}", f"{entry_id} explained", f"how does {entry_id} work", f"{entry_id} example"]
    lines = ["---", f"id: {entry_id}", f"lang: {lang}", f'title: "{title or entry_id.title()}"']
    lines += [f"topic: {topic}"] if topic else []
    lines += ["questions:"]
    lines += [f'  - "{q}"' for q in questions]
    lines += [f"keywords: [{', '.join(keywords or [entry_id])}]", f"related: [{', '.join(related or [])}]", "sources:", '  - "seed: test"', "---"]
    lines.append(body or f"Short answer about {entry_id}.\n\n## Details\n\nMore about {entry_id}.")
    path = root / lang / f"{entry_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def tiny_kb(tmp_path: Path) -> Path:
    """Two topics in two languages: enough to test loading, ranking and the CLI quickly."""
    root = tmp_path / "kb"
    write_entry(root, "en", "pizza-oven", title="Pizza ovens", questions=["how hot is a pizza oven", "wood fired oven temperature", "pizza oven fuel", "neapolitan pizza baking"], keywords=["pizza", "oven"], related=["bread-dough"])
    write_entry(root, "vi", "pizza-oven", title="Lò nướng pizza", questions=["lò pizza nóng bao nhiêu độ", "nhiệt độ lò củi", "nhiên liệu cho lò pizza", "nướng pizza kiểu Napoli"], keywords=["pizza", "lò nướng"], related=["bread-dough"])
    write_entry(root, "en", "bread-dough", title="Bread dough", questions=["how long to knead bread dough", "sourdough hydration", "why is my dough sticky", "proofing bread overnight"], keywords=["dough", "yeast"], related=["pizza-oven"])
    write_entry(root, "vi", "bread-dough", title="Bột bánh mì", questions=["nhồi bột bánh mì bao lâu", "độ ẩm bột chua", "bột bị dính tay", "ủ bột qua đêm"], keywords=["bột", "men"], related=["pizza-oven"])
    return root


def run_advisor(*args: str, env: dict[str, str] | None = None, input_bytes: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m advisor` in a fresh interpreter, as a user's shell would."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, env=full_env, input=input_bytes, cwd=cwd, timeout=60)


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")

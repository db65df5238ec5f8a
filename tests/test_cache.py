"""The user's cache: where it lives, what it trusts, and what it cleans up (`advisor.search.cache`,
`advisor.library`). Every cache file is checked before use and rebuilt, never trusted, when it is
stale, damaged or foreign; a large knowledge folder is checked through its folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor.library import open_index, open_tree
from advisor.paths import bundled_trees_root, cache_root, config_root
from advisor.search import cache, storage
from advisor.search.rank import search
from tests.conftest import cache_folder, run_advisor, write_entry


@pytest.mark.parametrize(
    ("xdg", "home"),
    [("/tmp/xdg-cache", "/home/someone"), ("", "/home/someone"), ("relative/cache", "/home/someone"), ("  ", "/root")],
)
def test_the_default_cache_and_config_folders_are_platformdirs_without_platformdirs(monkeypatch: pytest.MonkeyPatch, xdg: str, home: str) -> None:
    from platformdirs import user_cache_dir, user_config_dir

    monkeypatch.delenv("ADVISOR_CACHE_DIR")
    monkeypatch.delenv("ADVISOR_CONFIG_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    monkeypatch.setenv("XDG_CONFIG_HOME", xdg.replace("cache", "config"))
    monkeypatch.setenv("HOME", home)
    if sys.platform.startswith("linux"):
        assert cache_root() == user_cache_dir("advisor", appauthor=False)
        assert config_root() == user_config_dir("advisor", appauthor=False)


def test_ask_with_the_default_cache_folder_never_imports_platformdirs(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ADVISOR_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    probe = "import sys, runpy; sys.argv = ['advisor', 'ask', '--json', 'what is mig']; from advisor.cli import main; main(sys.argv[1:]); print('platformdirs' in sys.modules, file=sys.stderr)"
    for _ in range(2):  # builds the cache, then reads it
        result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert result.stderr.strip().splitlines()[-1] == "False"
    assert list((tmp_path / "xdg" / "advisor").glob("index-*.marshal"))


# Damaged caches ------------------------------------------------------------------------------


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncate":
        del data[len(data) // 2 :]
    elif how == "zero-length":
        data = bytearray()
    elif how == "zeros":
        data = bytearray(len(data))
    elif how == "records":  # a run of bytes among the entries' records, which `list` reads all of
        data[150_000:150_400] = bytes(400)
    elif how == "tail":  # the header and its checksum
        data[-40] ^= 0xFF
    else:  # one byte in the middle, or several anywhere
        for at in ([len(data) // 2] if how == "one-byte" else range(7, len(data), len(data) // 60)):
            data[at] ^= 0x04
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def sound_cache(tmp_path_factory: pytest.TempPathFactory, built_cache: Path) -> tuple[Path, dict, bytes]:
    """A cache folder the bundled knowledge was built into, with what `ask` and `list` print from
    it: copied by each kind of damage below."""
    folder = cache_folder(tmp_path_factory.mktemp("sound"), built_cache)
    env = {"ADVISOR_CACHE_DIR": str(folder)}
    assert run_advisor("ask", "--json", "what is mig", env=env).returncode == 0
    return folder, json.loads(run_advisor("ask", "--json", "what is mig", env=env).stdout), run_advisor("list", env=env).stdout


@pytest.mark.parametrize("how", ["truncate", "zero-length", "zeros", "records", "tail", "one-byte", "many-bytes"])
def test_a_damaged_cache_is_rebuilt_and_ask_and_list_still_answer(tmp_path: Path, sound_cache: tuple[Path, dict, bytes], how: str) -> None:
    sound, expected, expected_list = sound_cache
    folder = cache_folder(tmp_path, sound)
    env = {"ADVISOR_CACHE_DIR": str(folder)}
    (index,) = folder.glob("index-*.marshal")
    _damage(index, how)
    asked = run_advisor("ask", "--json", "what is mig", env=env)
    assert asked.returncode == 0 and asked.stderr == b""
    assert json.loads(asked.stdout) == expected
    _damage(index, how)
    listed = run_advisor("list", env=env)
    assert listed.returncode == 0 and listed.stderr == b"" and listed.stdout == expected_list


def test_a_damaged_block_found_while_answering_is_rebuilt(tiny_kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A large index is checked block by block as it is read: damage found mid-answer removes
    the file, and the command answers again from a rebuilt index."""
    from advisor.cli import main

    monkeypatch.setattr(storage, "READ_WHOLE_BYTES", 0)
    open_index(tiny_kb)
    path = Path(cache.cache_file(tiny_kb))
    header, sections = storage.open_file(str(path))
    begin = header["sections"]["phrases"][0]
    data = bytearray(path.read_bytes())
    data[begin] ^= 0x20
    path.write_bytes(bytes(data))
    assert main(["ask", "--kb", str(tiny_kb), "--json", "sourdough hydration"]) == 0
    assert json.loads(capsys.readouterr().out)["reply"]["id"] == "bread-dough"


# Large folders: checked through their folders ---------------------------------------------------


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any folder counts as large, and any change as settled."""
    monkeypatch.setattr(cache, "FULL_CHECK_FILES", 1)
    monkeypatch.setattr(cache, "RACY_SECONDS", -60.0)


def _title(kb: Path, entry: str = "pizza-oven") -> str | None:
    index = open_index(kb)
    found = index.entry_index(entry, "en")
    return None if found is None or index.meta(found).lang != "en" else index.meta(found).title


def test_a_large_folder_is_vouched_for_by_its_folders(tiny_kb: Path, large: None) -> None:
    open_index(tiny_kb)
    stamp = Path(cache.cache_file(tiny_kb)).with_suffix(".stamp")
    assert stamp.exists()
    calls: list[str] = []
    real = cache.source_fingerprint
    cache.source_fingerprint = lambda root: (calls.append(str(root)), real(root))[1]  # type: ignore[assignment,misc]
    try:
        assert search(open_index(tiny_kb), "sourdough hydration").best.topic == "bread-dough"
    finally:
        cache.source_fingerprint = real  # type: ignore[assignment]
    assert calls == []  # no file was looked at one by one


@pytest.mark.parametrize("change", ["add", "delete", "rename-over", "lexicon"])
def test_changes_to_a_large_folder_are_noticed(tiny_kb: Path, large: None, change: str) -> None:
    assert _title(tiny_kb) == "Pizza ovens"
    entry = tiny_kb / "en" / "pizza-oven.md"
    if change == "add":
        write_entry(tiny_kb, "en", "grill", title="Grills")
        assert _title(tiny_kb, "grill") == "Grills"
    elif change == "delete":
        entry.unlink()
        assert _title(tiny_kb) is None
    elif change == "rename-over":  # how most editors and git save a file
        fresh = entry.with_name(".pizza-oven.md.swp")
        fresh.write_text(entry.read_text(encoding="utf-8").replace("Pizza ovens", "Wood ovens"), encoding="utf-8")
        os.replace(fresh, entry)
        assert _title(tiny_kb) == "Wood ovens"
    else:
        (tiny_kb / "lexicon.yaml").write_text("synonyms:\n  oven: [kiln]\n", encoding="utf-8")
        assert search(open_index(tiny_kb), "kiln").best.topic == "pizza-oven"


def test_an_entry_rewritten_in_place_in_a_large_folder_is_noticed_by_a_refresh(tiny_kb: Path, large: None) -> None:
    """The documented trade-off: the folder does not change, so only a full check sees it."""
    assert _title(tiny_kb) == "Pizza ovens"
    entry = tiny_kb / "en" / "pizza-oven.md"
    folder_time = os.stat(entry.parent).st_mtime_ns
    entry.write_text(entry.read_text(encoding="utf-8").replace("Pizza ovens", "Stone ovens"), encoding="utf-8")
    later = time.time() + 5
    os.utime(entry, (later, later))
    os.utime(entry.parent, ns=(folder_time, folder_time))
    assert _title(tiny_kb) == "Pizza ovens"
    open_index(tiny_kb, refresh=True)
    assert _title(tiny_kb) == "Stone ovens"


def test_a_small_folder_notices_an_entry_rewritten_in_place(tiny_kb: Path) -> None:
    assert _title(tiny_kb) == "Pizza ovens"
    entry = tiny_kb / "en" / "pizza-oven.md"
    folder_time = os.stat(entry.parent).st_mtime_ns
    entry.write_text(entry.read_text(encoding="utf-8").replace("Pizza ovens", "Stone ovens"), encoding="utf-8")
    os.utime(entry.parent, ns=(folder_time, folder_time))
    assert _title(tiny_kb) == "Stone ovens"
    assert not Path(cache.cache_file(tiny_kb)).with_suffix(".stamp").exists()


def test_a_folder_changed_just_now_is_not_vouched_for(tiny_kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Coarse timestamps could hide a second change within the same tick: wait until it settles."""
    monkeypatch.setattr(cache, "FULL_CHECK_FILES", 1)
    open_index(tiny_kb)
    assert not Path(cache.cache_file(tiny_kb)).with_suffix(".stamp").exists()


# Stale files ------------------------------------------------------------------------------------


def test_stale_cache_files_are_removed(tiny_kb: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-kb"
    write_entry(other, "en", "grill")
    open_index(tiny_kb)
    open_index(other)
    folder = Path(cache_root())
    kept_index, gone_index = Path(cache.cache_file(tiny_kb)), Path(cache.cache_file(other))
    orphan_stamp = folder / "index-0123456789abcdef.stamp"
    orphan_stamp.write_bytes(b"x")
    orphan_record = folder / ("tree-0123456789abcdef.marshal" + storage.CHECKED_SUFFIX)
    orphan_record.write_bytes(b"x")
    abandoned = folder / ".index-0123456789abcdef.marshal.1.2.tmp"
    abandoned.write_bytes(b"x")
    old = time.time() - 3 * 24 * 3600
    os.utime(abandoned, (old, old))
    foreign = folder / "notes.txt"
    foreign.write_text("mine", encoding="utf-8")
    import shutil

    shutil.rmtree(other)
    removed = cache.remove_stale()
    assert sorted(removed) == sorted(str(p) for p in (gone_index, orphan_stamp, orphan_record, abandoned))
    assert kept_index.exists() and foreign.exists()


# Decision trees -----------------------------------------------------------------------------


def test_a_tree_is_read_from_its_cache_without_yaml(tmp_path: Path) -> None:
    probe = "import sys; from advisor.library import open_tree; open_tree(); print('yaml' in sys.modules)"
    env = {**os.environ, "ADVISOR_CACHE_DIR": str(tmp_path / "cache")}
    outputs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60).stdout.strip() for _ in range(2)]
    assert outputs == ["True", "False"]


def test_a_changed_or_damaged_tree_cache_is_not_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))  # this tree's cache alone
    tree_file = tmp_path / "tree.yaml"
    tree_file.write_text(Path(bundled_trees_root(), "gpu-orchestration.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    first = open_tree(tree_file)
    assert open_tree(tree_file) == first
    changed = tree_file.read_text(encoding="utf-8").replace(first.title.get("en"), "Another title", 1)
    tree_file.write_text(changed, encoding="utf-8")
    later = time.time() + 5
    os.utime(tree_file, (later, later))
    assert open_tree(tree_file).title.get("en") == "Another title"
    (cached,) = Path(cache_root()).glob("tree-*.marshal")
    cached.write_bytes(cached.read_bytes()[:-30])
    assert open_tree(tree_file).title.get("en") == "Another title"


def test_a_cached_tree_comes_back_as_the_same_records(tmp_path: Path) -> None:
    """Records are tuples, and a tuple equals a record of the same values: `==` alone would not
    notice a record read back from the cache as a plain tuple, the repr (class names) does."""
    tree_file = tmp_path / "tree.yaml"
    tree_file.write_text(Path(bundled_trees_root(), "gpu-orchestration.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    parsed, cached = open_tree(tree_file), open_tree(tree_file)
    assert cached is not parsed and repr(cached) == repr(parsed)
    assert cached.node(cached.start) == parsed.node(parsed.start) and cached.lines == parsed.lines

"""`advisor.files`: regular files only when reading, atomic and careful when writing."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from advisor.files import LineError, atomic_write, display_path, move_aside, read_bytes, read_stream, read_text
from advisor.problems import OutputError, OutputExists


def test_atomic_write_creates_and_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "out.md"
    atomic_write(path, "first\n")
    assert path.read_text(encoding="utf-8") == "first\n"
    with pytest.raises(OutputExists) as caught:
        atomic_write(path, "second\n")
    assert str(caught.value) == f"{path} already exists; use --force to overwrite it"
    assert path.read_text(encoding="utf-8") == "first\n"
    atomic_write(path, "second\n", force=True)
    assert path.read_text(encoding="utf-8") == "second\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.md"]


def test_atomic_write_takes_text_bytes_or_pieces(tmp_path: Path) -> None:
    atomic_write(tmp_path / "a", "é")
    atomic_write(tmp_path / "b", b"\x00\x01")
    atomic_write(tmp_path / "c", iter([b"ab", b"cd"]))
    assert (tmp_path / "a").read_bytes() == "é".encode()
    assert (tmp_path / "b").read_bytes() == b"\x00\x01"
    assert (tmp_path / "c").read_bytes() == b"abcd"


def test_atomic_write_refuses_folders_and_missing_parents(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="is a folder"):
        atomic_write(tmp_path, "x", force=True)
    with pytest.raises(OutputError, match="is a folder"):
        atomic_write(f"{tmp_path}/newdir/", "x")
    assert not (tmp_path / "newdir").exists()
    with pytest.raises(OutputError, match="does not exist"):
        atomic_write(tmp_path / "missing" / "out.md", "x")


def test_atomic_write_never_replaces_a_special_file(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="not a regular file"):
        atomic_write(fifo, "x", force=True)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    with pytest.raises(OutputError, match="not a regular file"):
        atomic_write(link, "x", force=True)
    assert link.is_symlink()


def test_a_failed_replace_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "out.html"
    path.write_text("old contents", encoding="utf-8")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OutputError, match="cannot write .*Input/output error"):
        atomic_write(path, "new contents", force=True)
    assert path.read_text(encoding="utf-8") == "old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["out.html"]


def test_a_failed_write_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "out.json"

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OutputError, match="No space left on device"):
        atomic_write(path, "{}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_files_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        atomic_write(tmp_path / "out", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "out").stat().st_mode) == mode


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "out"
    path.write_text("old")
    path.chmod(0o600)
    atomic_write(path, "new", force=True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_reading_refuses_special_files_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        read_bytes(fifo)
    zero = tmp_path / "zero.md"
    zero.symlink_to("/dev/zero")
    with pytest.raises(ValueError, match="not a regular file"):
        read_text(zero)
    with pytest.raises(ValueError, match="not a regular file"):
        read_text(tmp_path)


def test_reading_is_capped(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_bytes(b"x" * 101)
    with pytest.raises(ValueError, match="larger than 100 bytes"):
        read_bytes(path, max_bytes=100)
    assert read_bytes(path, max_bytes=101) == b"x" * 101


def test_invalid_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    path.write_bytes(b"ok\nok\n\xff\n")
    with pytest.raises(LineError) as caught:
        read_text(path)
    assert caught.value.line == 3


def test_display_path_is_relative_to_the_folder_above_root(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    assert display_path(root / "en" / "mig.md", root) == "kb/en/mig.md"
    assert display_path("/elsewhere/x.md", root) == "/elsewhere/x.md"


def test_reading_a_stream_is_capped_too() -> None:
    import io

    assert read_stream(io.BytesIO(b"x" * 100), max_bytes=100) == b"x" * 100
    with pytest.raises(ValueError, match="input is larger than 100 bytes"):
        read_stream(io.BytesIO(b"x" * 10_000), max_bytes=100)


def test_an_unusable_file_is_moved_aside_not_deleted(tmp_path: Path) -> None:
    path = tmp_path / "tui-session.json"
    path.write_text("{broken", encoding="utf-8")
    aside = move_aside(path)
    assert aside is not None and Path(aside).read_text(encoding="utf-8") == "{broken" and not path.exists()
    assert move_aside(tmp_path / "missing") is None

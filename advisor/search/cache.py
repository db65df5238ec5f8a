"""The index cache: one file per knowledge folder, rebuilt whenever a knowledge file changes.

`advisor ask` should pay for rapidfuzz and a cache read, nothing more. The cache file lives in
the user's cache folder, keyed by every knowledge file's name, size and modification time plus
the engine version; a stale, truncated or foreign file is never trusted.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from advisor.search import storage
from advisor.search.index import INDEX_VERSION, SearchIndex

if TYPE_CHECKING:
    from advisor.search.build import Attach

# Whatever reading a damaged, truncated or foreign cache file can raise: it is then rebuilt.
_UNREADABLE = (OSError, EOFError, ValueError, TypeError, KeyError, IndexError, MemoryError)


def source_fingerprint(root: str | os.PathLike[str]) -> str:
    """Hash of every knowledge file's name, size and mtime (content changes move mtime).

    One `stat` per file, kept as a short line and hashed a folder at a time: about 25 ms and a
    few megabytes for 10,000 files (a sorted list of `DirEntry` objects cost five times as much).
    """
    digest = _hasher(f"{INDEX_VERSION}\0{os.path.realpath(root)}".encode("utf-8", "surrogateescape"))
    try:
        top = sorted((item for item in os.scandir(root) if not item.name.startswith(".")), key=lambda item: item.name)
    except OSError:
        return "missing"
    for item in top:
        try:
            lines = _stamps(item.path) if item.is_dir() else [f"\0{_stamp(item)}"]
        except OSError:
            continue
        lines.sort()  # a name ends at the NUL, so this sorts by name
        digest.update(f"\n{item.name}\n".encode("utf-8", "surrogateescape"))
        digest.update("\n".join(lines).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _hasher(data: bytes) -> Any:
    """A blake2b hash object. `_blake2` is CPython's own; `import hashlib` would first start
    OpenSSL, which costs `advisor ask` about 2 ms for nothing."""
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter built without it
        from hashlib import blake2b
    return blake2b(data, digest_size=20)


def _stamps(folder: str) -> list[str]:
    lines = []
    for item in os.scandir(folder):
        try:
            lines.append(f"{item.name}\0{_stamp(item)}")
        except OSError:  # removed while we looked
            continue
    return lines


def _stamp(item: os.DirEntry[str]) -> str:
    stat = item.stat()
    return f"{stat.st_size}\0{stat.st_mtime_ns}"


def _cache_file(root: str | os.PathLike[str]) -> str:
    from advisor.paths import cache_root

    name = _hasher(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(cache_root(), f"index-{name}.marshal")


def load_index(root: str | os.PathLike[str], *, attach: Attach | None = None, use_cache: bool = True) -> SearchIndex:
    """The index for `root`, from the cache when it is current, rebuilt (and saved) otherwise.

    A stale, truncated or foreign cache file is never trusted: anything that does not load
    cleanly with the right key is rebuilt from the knowledge files.
    """
    key = source_fingerprint(root) + (f"+{attach.__module__}.{attach.__qualname__}" if attach else "")
    path = _cache_file(root)
    if use_cache:
        try:
            return SearchIndex.from_file(path, key)
        except _UNREADABLE:
            pass
    from pathlib import Path

    from advisor.knowledge.load import load_knowledge
    from advisor.search.build import build_index

    data = build_index(load_knowledge(Path(root)), attach)
    data["key"] = key
    sections = data.pop("sections")
    if use_cache and _save(path, storage.pack_parts(data, sections)):
        try:  # read back from the file: a large index need not stay in memory
            return SearchIndex.from_file(path, key)
        except _UNREADABLE:
            pass  # replaced meanwhile by another process: use what was built here
    return SearchIndex.from_bytes(storage.pack(data, sections))


def _save(path: str, parts: Iterable[bytes]) -> bool:
    """Write the cache; one that cannot be written is not an error, only slower next time.

    Readers may have the old file open: it is replaced, never rewritten in place.
    """
    from advisor.files import atomic_write
    from advisor.problems import OutputError

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write(path, parts, force=True)
    except (OSError, OutputError):
        return False
    return True

"""The index cache: one file per knowledge folder, rebuilt whenever the folder changes.

`advisor ask` should pay for rapidfuzz and a cache read, nothing more. The cache file lives in
the user's cache folder, keyed by the engine version and every knowledge file's name, size and
modification time; a stale, truncated, damaged or foreign file is never trusted.

Checking every file costs one `stat` each: about 0.3 ms for the bundled knowledge, but half a
second at 100,000 entries, on every command. So a folder of more than `FULL_CHECK_FILES` files is
checked through its folders instead: entries live in `<lang>/` folders, and adding, deleting or
renaming an entry (which is also how most editors and `git` save a file) changes its folder's
modification time. The trade-off: an entry of such a large folder rewritten in place, without its
folder changing, is noticed by `advisor index` rather than by the next question. The folder
check is recorded beside the cache (`.stamp`) only once the full check has vouched for it, and
never for folders changed within the last `RACY_SECONDS` (coarse timestamps could hide a change).
"""

from __future__ import annotations

import marshal
import os
import time
from collections.abc import Callable, Iterable

from advisor.search import storage
from advisor.search.index import INDEX_VERSION, SearchIndex

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any

    from advisor.search.build import Attach

# Whatever reading a damaged, truncated or foreign cache file can raise: it is then rebuilt.
UNREADABLE = (OSError, EOFError, ValueError, TypeError, KeyError, IndexError, MemoryError)
FULL_CHECK_FILES = 5_000
RACY_SECONDS = 2.0
# A temporary file of a write that never finished (a killed build) is removed after this long.
_ABANDONED_SECONDS = 24 * 3600
Progress = Callable[[int, int], None]


def source_fingerprint(root: str | os.PathLike[str]) -> tuple[str, int]:
    """(hash of every knowledge file's name, size and mtime, how many files there are).

    Content changes move mtime. One `stat` per file; names are hashed a folder at a time in one
    marshal blob, which costs far less than a formatted line per file.
    """
    digest = _hasher(f"{INDEX_VERSION}\0{os.path.realpath(root)}".encode("utf-8", "surrogateescape"))
    try:
        top = sorted((item for item in os.scandir(root) if not item.name.startswith(".")), key=lambda item: item.name)
    except OSError:
        return "missing", 0
    count = 0
    for item in top:
        try:
            if item.is_dir():
                rows = _stamps(item.path)
                rows.sort()
                count += len(rows)
                digest.update(marshal.dumps((item.name, rows)))
            else:
                stat = item.stat()
                digest.update(marshal.dumps((item.name, stat.st_size, stat.st_mtime_ns)))
        except OSError:  # removed while we looked
            continue
    return digest.hexdigest(), count


def _stamps(folder: str) -> list[tuple[str, int, int]]:
    rows = []
    for item in os.scandir(folder):
        try:
            stat = item.stat()
        except OSError:  # removed while we looked
            continue
        rows.append((item.name, stat.st_size, stat.st_mtime_ns))
    return rows


def folder_stamp(root: str | os.PathLike[str]) -> tuple[str, int]:
    """(hash of the folder, its top-level files and its subfolders' identities and times, the
    newest of those times in ns): a dozen `stat`s whatever the size of the folder."""
    digest = _hasher(f"{INDEX_VERSION}\0{os.path.realpath(root)}".encode("utf-8", "surrogateescape"))
    newest = 0
    try:
        stat = os.stat(root)
        rows = [("", stat.st_ino, stat.st_mtime_ns, 0)]
        newest = stat.st_mtime_ns
        for item in os.scandir(root):
            stat = item.stat()
            rows.append((item.name, stat.st_ino, stat.st_mtime_ns, 0 if item.is_dir() else stat.st_size))
            newest = max(newest, stat.st_mtime_ns)
    except OSError:
        return "missing", 0
    rows.sort()
    digest.update(marshal.dumps(rows))
    return digest.hexdigest(), newest


def _hasher(data: bytes) -> Any:
    """A blake2b hash object. `_blake2` is CPython's own; `import hashlib` would first start
    OpenSSL, which costs `advisor ask` about 2 ms for nothing."""
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter built without it
        from hashlib import blake2b
    return blake2b(data, digest_size=20)


def cache_file(root: str | os.PathLike[str]) -> str:
    """Where the index of the knowledge folder `root` is cached."""
    return cached_path("index", os.path.realpath(root))


def cached_path(kind: str, source: str) -> str:
    """The cache file of `kind` ("index", "tree") made from the file or folder `source`."""
    from advisor.paths import cache_root

    name = _hasher(source.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(cache_root(), f"{kind}-{name}.marshal")


def load_index(root: str | os.PathLike[str], *, attach: Attach | None = None, use_cache: bool = True, refresh: bool = False, progress: Progress | None = None) -> SearchIndex:
    """The index for `root`, from the cache when it is current, rebuilt (and saved) otherwise.

    A stale, truncated, damaged or foreign cache file is never trusted: anything that does not
    load cleanly with the right key is rebuilt from the knowledge files. `refresh` checks every
    file even in a large folder (`advisor index`); `progress(done, total)` follows a rebuild.
    """
    index = _load(root, attach, use_cache, refresh, progress, build=True)
    assert index is not None  # built when the cache had none
    return index


def cached_index(root: str | os.PathLike[str], *, attach: Attach | None = None) -> SearchIndex | None:
    """The index for `root` when the cache holds a current one, else None: nothing is built, for
    a command that can do without the index more cheaply than it could build it."""
    return _load(root, attach, True, False, None, build=False)


def _load(root: str | os.PathLike[str], attach: Attach | None, use_cache: bool, refresh: bool, progress: Progress | None, *, build: bool) -> SearchIndex | None:
    suffix = f"+{attach.__module__}.{attach.__qualname__}" if attach else ""
    path = cache_file(root)
    if use_cache and not refresh:
        vouched = _vouched_key(root, path)
        if vouched is not None:
            try:
                return SearchIndex.from_file(path, vouched + suffix)
            except UNREADABLE:
                pass
    stamp = folder_stamp(root)
    fingerprint, count = source_fingerprint(root)
    key = fingerprint + suffix
    if use_cache:
        try:
            index = SearchIndex.from_file(path, key)
        except UNREADABLE:
            pass
        else:
            _vouch(path, stamp, fingerprint, count)
            return index
    if not build:
        return None
    from advisor.search.build import build as build_index

    header, sections = build_index(root, attach, progress)
    header.update(key=key, source=os.path.realpath(root))
    if use_cache and save(path, storage.pack_parts(header, sections)):
        _vouch(path, stamp, fingerprint, count)
        remove_stale()
        try:  # read back from the file: a large index need not stay in memory
            return SearchIndex.from_file(path, key)
        except UNREADABLE:
            pass  # replaced meanwhile by another process: use what was built here
    return SearchIndex.from_bytes(storage.pack(header, sections))


def _stamp_file(path: str) -> str:
    return path.removesuffix(".marshal") + ".stamp"


def _vouched_key(root: str | os.PathLike[str], path: str) -> str | None:
    """The fingerprint the folder check vouches for, when the folder has not changed since."""
    try:
        with open(_stamp_file(path), "rb") as handle:
            stamp, fingerprint = marshal.loads(handle.read(4096))
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return fingerprint if isinstance(fingerprint, str) and stamp == folder_stamp(root)[0] else None


def _vouch(path: str, stamp: tuple[str, int], fingerprint: str, count: int) -> None:
    """Record that the folder check `stamp` stands for `fingerprint` (large, settled folders only)."""
    settled = stamp[1] < time.time_ns() - RACY_SECONDS * 1e9
    if count <= FULL_CHECK_FILES or not settled or stamp[0] == "missing":
        return
    save(_stamp_file(path), [marshal.dumps((stamp[0], fingerprint))])


def save(path: str, parts: Iterable[bytes]) -> bool:
    """Write a cache file; one that cannot be written is not an error, only slower next time.

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


def remove_stale(folder: str | None = None) -> list[str]:
    """Remove the cache files of knowledge folders and tree files that no longer exist, stamps
    and check records without their file, and temporary files of writes that never finished;
    returns the paths removed."""
    from advisor.paths import cache_root

    folder = folder or cache_root()
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    removed: list[str] = []
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith(("index-", "tree-")) and name.endswith(".marshal"):
            source = _source_of(path)
            stale = source is not None and not os.path.exists(source)
        elif name.startswith("index-") and name.endswith(".stamp"):
            stale = not os.path.exists(path.removesuffix(".stamp") + ".marshal")
        elif name.startswith(("index-", "tree-")) and name.endswith(storage.CHECKED_SUFFIX):
            stale = not os.path.exists(path.removesuffix(storage.CHECKED_SUFFIX))
        elif name.startswith(".index-") and name.endswith(".tmp"):
            stale = _age(path) > _ABANDONED_SECONDS
        else:
            continue
        if stale:
            try:
                os.unlink(path)
            except OSError:
                continue
            removed.append(path)
    return removed


def _source_of(path: str) -> str | None:
    """The knowledge folder or tree file a cache file was made from; None when it cannot be told
    (a file of an older version, or not a cache file: such files are left alone)."""
    try:
        header = storage.read_header(path)
    except UNREADABLE:
        return None
    source = header.get("source")
    return source if isinstance(source, str) else None


def _age(path: str) -> float:
    try:
        return time.time() - os.stat(path).st_mtime
    except OSError:
        return 0.0

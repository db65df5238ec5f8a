"""The search index's file: packed sections, then a small marshal header, then a fixed trailer.

`marshal.load` of a whole index as Python lists and dicts costs seconds and about a gigabyte at
100,000 entries, because every phrase and posting becomes a Python object. In this layout the
big tables stay packed: a small file is mapped whole and viewed in place, a large one is read a
few bytes at a time (`os.pread`) as a query touches it, so start-up time and memory stay nearly
flat as the knowledge grows. (Mapping a large file was tried: recent kernels map page-cache folios
of up to 2 MB on each touch, so a query's few hundred scattered reads cost hundreds of megabytes
of resident memory.)

    [section][padding] [section][padding] ... [marshal header] [trailer: magic, header length, crc]
    0                                         header_start                           size - 16

The header comes last so that a large index can be written as it is built, section by section,
without holding it. It is plain data: the caller's small fields, where each section lies, and
checksums (crc32) of the sections' bytes: one over all of them, and one per `BLOCK` bytes. A small
file is checked whole when it is opened (a fraction of a millisecond for the bundled knowledge);
a large one block by block, the first time a query reads from a block, since reading all of a
400 MB file to answer one question would cost more than the answer. The trailer's checksum covers
the header. A truncated, padded, damaged or foreign file is refused, never half-read: `ValueError`
at open, `advisor.problems.CacheDamaged` when a damaged block is found later.

A small file checked whole is not checked again while it stays the same file: same device, inode,
size, modification and change time, remembered beside it (`.checked`). Any write to a file moves
its change time, which only the kernel sets, so a damaged or rewritten file is checked again. As
with git's "racy" files, a check is remembered only once the file is `RACY_SECONDS` old:
timestamps are coarse, and a write within the same tick as the one before could leave them as
they were. That saves `advisor ask` importing zlib and reading every byte on each start.
"""

from __future__ import annotations

import marshal
import mmap
import os
import sys
import time
from array import array
from collections.abc import Iterable, Iterator, Mapping

from advisor.problems import CacheDamaged

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import IO, Any

FORMAT = "advisor-index"
MAGIC = b"advidx\x00\x03"
TRAILER_BYTES = len(MAGIC) + 8
# Files up to this size are mapped and checked whole when opened; larger ones are read on demand.
READ_WHOLE_BYTES = 8 << 20
# Checksum granularity of a large file: a query's scattered reads each check one block or two.
BLOCK = 8 << 10
_ALIGN = 8
# Checked blocks kept in memory: the tables a query walks (offsets, hash slots) share blocks.
_KEPT_BLOCKS = 512
CHECKED_SUFFIX = ".checked"
RACY_SECONDS = 2.0


def _crc32(data: bytes | bytearray | memoryview, value: int = 0) -> int:
    """zlib's crc32, imported only when a file is written or checked: a settled cache file is
    neither, and `advisor ask` then does without zlib."""
    from zlib import crc32

    return crc32(data, value)


def _padded(size: int) -> int:
    return -(-size // _ALIGN) * _ALIGN


def pack(header: dict[str, Any], sections: dict[str, bytes]) -> bytes:
    """One file's bytes: the named sections, then `header` (plain data, marshal-able)."""
    return b"".join(pack_parts(header, sections))


def pack_parts(header: dict[str, Any], sections: Mapping[str, bytes | Iterable[bytes]]) -> Iterator[bytes]:
    """The pieces of `pack`'s result, in order, for writing a large index without joining it.

    A section is bytes or an iterable of byte pieces (a large table streamed from a temporary
    file); either way it is checksummed as it passes and never held whole here.
    """
    table: dict[str, tuple[int, int]] = {}
    summer = _Checksums()
    position = 0
    for name, section in sections.items():
        start = position
        for piece in [section] if isinstance(section, bytes) else section:
            if piece:
                summer.add(piece)
                position += len(piece)
                yield piece
        table[name] = (start, position - start)
        padding = bytes(_padded(position) - position)
        if padding:
            summer.add(padding)
            position += len(padding)
            yield padding
    full = {**header, "format": FORMAT, "byteorder": sys.byteorder, "sections": table, "header_start": position}
    full.update(crc=summer.total, block=BLOCK, blocks=summer.all_blocks.tobytes())
    head = marshal.dumps(full)
    yield head
    yield MAGIC + len(head).to_bytes(4, "little") + _crc32(head).to_bytes(4, "little")


class _Checksums:
    """crc32 of everything added, and of every `BLOCK` bytes of it."""

    def __init__(self) -> None:
        self.total = 0
        self.blocks = array("I")
        self._block = 0
        self._filled = 0

    def add(self, piece: bytes | bytearray | memoryview) -> None:
        self.total = _crc32(piece, self.total)
        view = memoryview(piece)
        while view:
            take = min(BLOCK - self._filled, len(view))
            self._block = _crc32(view[:take], self._block)
            self._filled += take
            view = view[take:]
            if self._filled == BLOCK:
                self.blocks.append(self._block)
                self._block = self._filled = 0

    @property
    def all_blocks(self) -> array:
        return self.blocks + array("I", [self._block]) if self._filled else self.blocks


def unpack(data: bytes | memoryview | mmap.mmap, *, checked: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and a zero-copy view of each section of a whole index file held in memory,
    after checking every byte against the checksums (unless this very file was `checked`)."""
    view = memoryview(data)
    header = _header(view[-TRAILER_BYTES:], lambda start, size: view[start : start + size], len(view), check=not checked)
    if not checked and _crc32(view[: header["header_start"]]) != header["crc"]:
        raise ValueError("index file damaged")
    return header, {name: view[begin:end] for name, (begin, end) in _bounds(header)}


def open_file(path: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and sections of the index file at `path`: mapped whole when small, else read on demand.

    Raises `OSError` or `ValueError` (also `EOFError`, `TypeError`, `KeyError` for damaged
    headers) when the file is missing, foreign, truncated, damaged or of another byte order.
    """
    handle = open(path, "rb")
    try:
        stat = os.fstat(handle.fileno())
        size = stat.st_size
        if size < TRAILER_BYTES:
            raise ValueError("not an advisor index file")
        if size <= READ_WHOLE_BYTES:
            with handle:
                # Mapped, not read: only the page cache is touched, no copy (writers replace the
                # file, never rewrite it, so the mapping cannot shrink under us).
                mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
                identity = (stat.st_dev, stat.st_ino, size, stat.st_mtime_ns, stat.st_ctime_ns)
                checked = _was_checked(path, identity)
                found = unpack(mapped, checked=checked)
                if not checked:
                    _remember_checked(path, identity, stat.st_ctime_ns)
                return found
        reader = _Reader(handle, path)  # keeps the file open for as long as the index is in use
        header = _header(reader.raw(size - TRAILER_BYTES, TRAILER_BYTES), reader.raw, size)
        reader.check_blocks(header)
        return header, {name: FileSection(reader, begin, end - begin) for name, (begin, end) in _bounds(header)}
    except BaseException:
        handle.close()
        raise


def _was_checked(path: str, identity: tuple[int, ...]) -> bool:
    try:
        with open(path + CHECKED_SUFFIX, "rb") as handle:
            return bool(marshal.loads(handle.read(256)) == identity)
    except (OSError, EOFError, ValueError, TypeError):
        return False


def _remember_checked(path: str, identity: tuple[int, ...], changed_ns: int) -> None:
    """Record that the file `identity` names was checked whole, once it is old enough to trust
    its timestamps; a record that cannot be written only means checking again next time."""
    if time.time_ns() - changed_ns < RACY_SECONDS * 1e9:
        return
    from advisor.files import atomic_write
    from advisor.problems import OutputError

    try:
        atomic_write(path + CHECKED_SUFFIX, marshal.dumps(identity), force=True)
    except (OSError, OutputError):
        pass


def read_header(path: str) -> dict[str, Any]:
    """The header of the index file at `path`, its sections neither read nor checked (what the
    cache's clean-up needs to know of every file: where it came from). Raises as `open_file`."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size < TRAILER_BYTES:
            raise ValueError("not an advisor index file")
        reader = _Reader(handle, path)
        return _header(reader.raw(size - TRAILER_BYTES, TRAILER_BYTES), reader.raw, size)


def _header(trailer: Any, read: Any, size: int, *, check: bool = True) -> dict[str, Any]:
    if bytes(trailer[: len(MAGIC)]) != MAGIC:
        raise ValueError("not an advisor index file")
    length = int.from_bytes(trailer[len(MAGIC) : len(MAGIC) + 4], "little")
    start = size - TRAILER_BYTES - length
    if start < 0:
        raise ValueError("index file truncated")
    head = read(start, length)
    if check and _crc32(head) != int.from_bytes(trailer[len(MAGIC) + 4 :], "little"):
        raise ValueError("index header damaged")
    header = marshal.loads(head)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError("not an advisor index file")
    if header.get("byteorder") != sys.byteorder:
        raise ValueError("index written on a machine of the other byte order")
    if header.get("header_start") != start:
        raise ValueError("index file truncated or padded")
    return header


def _bounds(header: dict[str, Any]) -> Iterator[tuple[str, tuple[int, int]]]:
    end = header["header_start"]
    for name, (offset, length) in header["sections"].items():
        if offset < 0 or length < 0 or offset + length > end:
            raise ValueError(f"section {name!r} out of bounds")
        yield name, (offset, offset + length)


class _Reader:
    """Byte ranges of an open file, each block checked against its checksum before use.

    `os.pread` is atomic, so worker threads can share one reader; the kept blocks are a plain
    dict that only grows or is cleared whole, which is safe under the GIL.
    """

    def __init__(self, handle: IO[bytes], path: str) -> None:
        self._handle = handle
        self._fd = handle.fileno()
        self._path = path
        self._lock = None
        self._sums = array("I")
        self._block = BLOCK
        self._end = 0
        self._kept: dict[int, bytes] = {}
        if not hasattr(os, "pread"):  # Windows: seek and read under a lock instead
            import threading

            self._lock = threading.Lock()

    def raw(self, offset: int, size: int) -> bytes:
        """`size` bytes at `offset`, unchecked (the header, which the trailer's checksum covers)."""
        if self._lock is None:
            data = os.pread(self._fd, size, offset)
        else:
            with self._lock:
                self._handle.seek(offset)
                data = self._handle.read(size)
        if len(data) != size:
            raise ValueError("index file changed while in use")
        return data

    def check_blocks(self, header: dict[str, Any]) -> None:
        sums = array("I")
        sums.frombytes(header["blocks"])
        self._block = header["block"]
        if self._block <= 0 or len(sums) != -(-header["header_start"] // self._block):
            raise ValueError("index block table damaged")
        self._sums = sums
        self._end = header["header_start"]

    def read(self, offset: int, size: int) -> bytes:
        """`size` bytes at `offset` of the sections, from checked blocks only."""
        if size <= 0:
            return b""
        block = self._block
        first, last = offset // block, (offset + size - 1) // block
        if first == last:
            data = self._kept.get(first) or self._fetch(first, first)[0]
            start = offset - first * block
            return data[start : start + size]
        pieces: list[bytes] = []
        for number in range(first, last + 1):
            found = self._kept.get(number)
            if found is None:
                pieces = self._fetch(first, last)
                break
            pieces.append(found)
        start = offset - first * block
        return b"".join(pieces)[start : start + size]

    def _fetch(self, first: int, last: int) -> list[bytes]:
        block = self._block
        begin = first * block
        data = self.raw(begin, min((last + 1) * block, self._end) - begin)
        pieces = [data[at : at + block] for at in range(0, len(data), block)]
        for number, piece in enumerate(pieces, start=first):
            if _crc32(piece) != self._sums[number]:
                try:  # here, wherever the damage is found (a command, the app): it is never trusted again
                    os.unlink(self._path)
                except OSError:
                    pass
                raise CacheDamaged(self._path)
        if len(self._kept) + len(pieces) > _KEPT_BLOCKS:
            self._kept.clear()
        if len(pieces) <= _KEPT_BLOCKS // 4:
            self._kept.update(enumerate(pieces, start=first))
        return pieces


class FileSection:
    """A section of a large index file, read on demand; behaves as the read-only bytes it holds."""

    __slots__ = ("_reader", "_base", "_length")

    def __init__(self, reader: _Reader, base: int, length: int) -> None:
        self._reader, self._base, self._length = reader, base, length

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, item: int | slice) -> Any:
        if isinstance(item, slice):
            start, stop, step = item.indices(self._length)
            if step != 1:
                raise ValueError("only contiguous slices")
            return self._reader.read(self._base + start, max(stop - start, 0))
        if item < 0:
            item += self._length
        if not 0 <= item < self._length:
            raise IndexError("index out of range")
        return self._reader.read(self._base + item, 1)[0]

    def __bytes__(self) -> bytes:
        return self[:]

    def cast(self, code: str) -> FileInts:
        return FileInts(self, code)


class FileInts:
    """An int (or float) array in a `FileSection`, as `memoryview.cast(code)` would give for bytes in memory."""

    __slots__ = ("_section", "_code", "_size", "_length")

    def __init__(self, section: FileSection, code: str) -> None:
        self._section, self._code = section, code
        self._size = array(code).itemsize
        if len(section) % self._size:
            raise ValueError("section length is not a multiple of the item size")
        self._length = len(section) // self._size

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, item: int | slice) -> Any:
        size = self._size
        if isinstance(item, slice):
            start, stop, step = item.indices(self._length)
            if step != 1:
                raise ValueError("only contiguous slices")
            return memoryview(self._section[start * size : max(stop, start) * size]).cast(self._code)  # type: ignore[call-overload]  # a format code held in a variable
        if item < 0:
            item += self._length
        if not 0 <= item < self._length:
            raise IndexError("index out of range")
        if self._code in "fd":
            return memoryview(self._section[item * size : item * size + size]).cast(self._code)[0]  # type: ignore[call-overload]
        return int.from_bytes(self._section[item * size : item * size + size], sys.byteorder, signed=True)

    def __iter__(self) -> Iterator[int]:
        return iter(self[:])

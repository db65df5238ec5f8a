"""The search index's file: a small marshal header, then packed sections read where they lie.

`marshal.load` of a whole index as Python lists and dicts costs seconds and about a gigabyte at
100,000 entries, because every phrase and posting becomes a Python object. In this layout the
big tables stay packed: a small file is read whole and viewed in place, a large one is read a few
bytes at a time (`os.pread`) as a query touches it, so start-up time and memory stay nearly flat
as the knowledge grows. (Memory-mapping was tried: recent kernels map page-cache
folios of up to 2 MB on each touch, so a query's few hundred scattered reads cost hundreds of
megabytes of resident memory.)

    [marshal header dict][zero padding]  [section][padding]  [section][padding] ...
    0                                    data_start

The header is ordinary plain data (the caller's small fields, plus where each section is). A
section is raw bytes: UTF-8 text, or a native-endian `array` (`"i"` int32, `"q"` int64). The
reader checks the format name, the byte order and the exact file size before trusting a byte, so
a truncated or foreign file is refused, never half-read.
"""

from __future__ import annotations

import marshal
import os
import sys
from array import array
from collections.abc import Iterator
from typing import IO, Any

FORMAT = "advisor-index"
# Files up to this size are read whole: one read beats many small ones, and the memory is small.
READ_WHOLE_BYTES = 8 << 20
_ALIGN = 8
# Room left after the header for its own numbers (`data_start`, `size`) to grow when rewritten.
_SLACK = 64
_HEADER_PROBE = 64 << 10


def _padded(size: int) -> int:
    return -(-size // _ALIGN) * _ALIGN


def pack(header: dict[str, Any], sections: dict[str, bytes]) -> bytes:
    """One file's bytes: `header` (plain data, marshal-able) followed by the named sections."""
    return b"".join(pack_parts(header, sections))


def pack_parts(header: dict[str, Any], sections: dict[str, bytes]) -> Iterator[bytes]:
    """The pieces of `pack`'s result, in order, for writing a large index without joining it."""
    table: dict[str, tuple[int, int]] = {}
    position = 0
    for name, blob in sections.items():
        table[name] = (position, len(blob))
        position += _padded(len(blob))
    full = {**header, "format": FORMAT, "byteorder": sys.byteorder, "sections": table, "data_start": 0, "size": 0}
    start = 0
    while True:  # the header must fit before `data_start`, which it records: settle both
        full["data_start"], full["size"] = start, start + position
        head = marshal.dumps(full)
        if len(head) <= start:
            break
        start = _padded(len(head) + _SLACK)
    yield head
    yield bytes(start - len(head))
    for blob in sections.values():
        yield blob
        yield bytes(_padded(len(blob)) - len(blob))


def unpack(data: bytes | memoryview) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and a zero-copy view of each section of a whole index file held in memory."""
    header = _check(marshal.loads(data), len(data))
    view = memoryview(data)
    return header, {name: view[begin:end] for name, (begin, end) in _bounds(header)}


def open_file(path: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and sections of the index file at `path`: read whole when small, else on demand.

    Raises `OSError` or `ValueError` (also `EOFError`, `TypeError`, `KeyError` for damaged
    headers) when the file is missing, foreign, truncated or of another byte order.
    """
    handle = open(path, "rb")
    try:
        size = os.fstat(handle.fileno()).st_size
        if size <= READ_WHOLE_BYTES:
            with handle:
                return unpack(handle.read())
        reader = _Reader(handle)  # keeps the file open for as long as the index is in use
        probe = _HEADER_PROBE
        while True:  # the header is small, but a folder full of problems makes it longer
            try:
                header = marshal.loads(reader.read(0, min(probe, size)))
                break
            except EOFError:
                if probe >= size:
                    raise
                probe *= 4
        header = _check(header, size)
        return header, {name: FileSection(reader, begin, end - begin) for name, (begin, end) in _bounds(header)}
    except BaseException:
        handle.close()
        raise


def _check(header: Any, size: int) -> dict[str, Any]:
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError("not an advisor index file")
    if header.get("byteorder") != sys.byteorder:
        raise ValueError("index written on a machine of the other byte order")
    if header.get("size") != size:
        raise ValueError("index file truncated or padded")
    return header


def _bounds(header: dict[str, Any]) -> Iterator[tuple[str, tuple[int, int]]]:
    start, size = header["data_start"], header["size"]
    for name, (offset, length) in header["sections"].items():
        begin = start + offset
        if offset < 0 or length < 0 or begin + length > size:
            raise ValueError(f"section {name!r} out of bounds")
        yield name, (begin, begin + length)


class _Reader:
    """Byte ranges of an open file. `os.pread` is atomic, so worker threads can share one."""

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle
        self._fd = handle.fileno()
        self._lock = None
        if not hasattr(os, "pread"):  # Windows: seek and read under a lock instead
            import threading

            self._lock = threading.Lock()

    def read(self, offset: int, size: int) -> bytes:
        if self._lock is None:
            data = os.pread(self._fd, size, offset)
        else:
            with self._lock:
                self._handle.seek(offset)
                data = self._handle.read(size)
        if len(data) != size:
            raise ValueError("index file changed while in use")
        return data


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
    """An int array in a `FileSection`, as `memoryview.cast(code)` would give for bytes in memory."""

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
        return int.from_bytes(self._section[item * size : item * size + size], sys.byteorder, signed=True)

    def __iter__(self) -> Iterator[int]:
        return iter(self[:])

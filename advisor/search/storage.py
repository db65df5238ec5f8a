"""The search index's file: a small marshal header, then packed sections read where they lie.

`marshal.load` of a whole index as Python lists and dicts costs seconds and about a gigabyte at
100,000 entries, because every phrase and posting becomes a Python object. In this layout the
big tables stay packed: a small file is read whole and viewed in place, a large one is read a few
bytes at a time (`os.pread`) as a query touches it, so start-up time and memory stay nearly flat
as the knowledge grows (issue 5). (Memory-mapping was tried: recent kernels map page-cache
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
import zlib
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate

from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
            return memoryview(self._section[start * size : max(stop, start) * size]).cast(self._code)
        if item < 0:
            item += self._length
        if not 0 <= item < self._length:
            raise IndexError("index out of range")
        return int.from_bytes(self._section[item * size : item * size + size], sys.byteorder, signed=True)

    def __iter__(self) -> Iterator[int]:
        return iter(self[:])


def ints(values: Iterable[int], code: str = "i") -> bytes:
    return array(code, values).tobytes()


def pack_strings(items: Iterable[str], lines: bool = False) -> tuple[bytes, bytes]:
    """(UTF-8 blob, int64 byte offsets) for `Strings`.

    With `lines`, each item ends with a newline, so that a run of items decodes in one go; the
    items must then contain none.
    """
    packer = StringPacker(lines)
    for item in items:
        packer.add(item)
    return packer.packed()


class StringPacker:
    """Builds `pack_strings`'s result one string at a time, without keeping the strings.

    Indexing 100,000 entries makes over a million phrases: as Python strings in lists they would
    cost several hundred megabytes more at the peak of the build.
    """

    def __init__(self, lines: bool = False) -> None:
        self._blob = bytearray()
        self._offsets = array("q", [0])
        self._lines = lines

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def add(self, item: str) -> None:
        raw = item.encode("utf-8", "surrogatepass")
        self._blob += raw
        if self._lines:
            if b"\n" in raw:
                raise ValueError("an item contains a newline")
            self._blob += b"\n"
        self._offsets.append(len(self._blob))

    def packed(self) -> tuple[bytes, bytes]:
        return bytes(self._blob), self._offsets.tobytes()


def pack_records(records: Iterable[Any]) -> tuple[bytes, bytes]:
    """(marshal blob, int64 byte offsets) for `Records`."""
    dumped = [marshal.dumps(record) for record in records]
    return b"".join(dumped), ints(accumulate(map(len, dumped), initial=0), "q")


def pack_postings(lists: Sequence[array]) -> tuple[bytes, bytes]:
    """(int64 start of each list, concatenated int32 values) for `Postings`."""
    return ints(accumulate(map(len, lists), initial=0), "q"), b"".join(values.tobytes() for values in lists)


class Strings(Sequence[str]):
    """Read-only list of strings kept as one UTF-8 blob and an offset table; decoded on access.

    `lines` says the blob was packed with `pack_strings(..., lines=True)`.
    """

    __slots__ = ("_blob", "_offsets", "_count", "_end")

    def __init__(self, blob: Any, offsets: Any, lines: bool = False) -> None:
        self._blob = blob
        self._offsets = offsets.cast("q")
        self._count = max(len(self._offsets) - 1, 0)
        self._end = 1 if lines else 0  # bytes after each item that are not part of it

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, item: int | slice) -> Any:
        if isinstance(item, slice):
            start, stop, step = item.indices(self._count)
            return self.span(start, stop) if step == 1 else [self[i] for i in range(start, stop, step)]
        if item < 0:
            item += self._count
        if not 0 <= item < self._count:
            raise IndexError("string index out of range")
        begin, end = self._offsets[item : item + 2]
        return str(self._blob[begin : end - self._end], "utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        return iter(self.span(0, self._count))

    def span(self, start: int, stop: int) -> list[str]:
        """Items `start` to `stop` (exclusive), read in one go."""
        if stop <= start:
            return []
        offsets = self._offsets[start : stop + 1]
        base = offsets[0]
        text = self._blob[base : offsets[-1]]
        if self._end:
            return str(text[: len(text) - 1], "utf-8", "surrogatepass").split("\n")
        return [str(text[a - base : b - base], "utf-8", "surrogatepass") for a, b in zip(offsets, offsets[1:])]


class Records(Sequence):  # of records (lists)
    """Read-only list of small marshal-ed records (one per entry), decoded on access.

    Records come back as tuples, and recently used ones are kept decoded: search-as-you-type
    looks the same few entries up on every keystroke.
    """

    __slots__ = ("_blob", "_offsets", "_count", "_memo")
    _MEMO_LIMIT = 4096

    def __init__(self, blob: Any, offsets: Any) -> None:
        self._blob = blob
        self._offsets = offsets.cast("q")
        self._count = max(len(self._offsets) - 1, 0)
        self._memo: dict[int, Any] = {}

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, item: int | slice) -> Any:
        if isinstance(item, slice):
            return [self[i] for i in range(*item.indices(self._count))]
        found = self._memo.get(item)
        if found is not None:
            return found
        if item < 0:
            item += self._count
        if not 0 <= item < self._count:
            raise IndexError("record index out of range")
        begin, end = self._offsets[item : item + 2]
        found = tuple(marshal.loads(self._blob[begin:end]))
        if len(self._memo) >= self._MEMO_LIMIT:
            self._memo.clear()
        self._memo[item] = found
        return found


def _slot(key: bytes, mask: int) -> int:
    # crc32, not hash(): str hashes change from one process to the next, the file does not.
    return zlib.crc32(key) & mask


def pack_table(keys: Sequence[str]) -> tuple[bytes, bytes, bytes]:
    """(names blob, name offsets, open-addressing hash table) for `Lookup`; key i maps to i."""
    blob, offsets = pack_strings(keys)
    size = 8
    while size < 2 * len(keys):
        size *= 2
    mask = size - 1
    table = array("i", bytes(4 * size))
    for number, key in enumerate(keys):
        slot = _slot(key.encode("utf-8", "surrogatepass"), mask)
        while table[slot]:
            slot = (slot + 1) & mask
        table[slot] = number + 1
    return blob, offsets, table.tobytes()


class Lookup:
    """String -> number (its position in the key list) through a hash table stored in the file.

    Replaces a dict of hundreds of thousands of keys that would otherwise be rebuilt, key by key,
    on every start. Lookups are memoised: a query asks about the same few tokens repeatedly.
    """

    __slots__ = ("names", "_blob", "_offsets", "_table", "_mask", "_memo")
    _MEMO_LIMIT = 50_000

    def __init__(self, blob: Any, offsets: Any, table: Any) -> None:
        self.names = Strings(blob, offsets)
        self._blob = blob
        self._offsets = offsets.cast("q")
        self._table = table.cast("i")
        self._mask = len(self._table) - 1
        if len(self._table) & self._mask or not self._table:
            raise ValueError("hash table size is not a power of two")
        self._memo: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.names)

    def find(self, key: str) -> int:
        """The number of `key`, -1 when it is not a key."""
        found = self._memo.get(key)
        if found is not None:
            return found
        raw = key.encode("utf-8", "surrogatepass")
        table, offsets, blob, mask = self._table, self._offsets, self._blob, self._mask
        slot = _slot(raw, mask)
        found = -1
        for _ in range(len(table)):
            number = table[slot] - 1
            if number < 0:
                break
            begin, end = offsets[number : number + 2]
            if end - begin == len(raw) and blob[begin:end] == raw:
                found = number
                break
            slot = (slot + 1) & mask
        else:
            raise ValueError("hash table has no free slot")
        if len(self._memo) >= self._MEMO_LIMIT:
            self._memo.clear()
        self._memo[key] = found
        return found


class Postings(Mapping):  # str -> postings
    """Feature -> its posting list (int32 values), read from the index file as needed.

    Behaves as the read-only dict it replaces: `token in postings`, `postings.get(token)`,
    iteration over the features in the order they were first indexed.
    """

    __slots__ = ("lookup", "_starts", "_values")

    def __init__(self, lookup: Lookup, starts: Any, values: Any) -> None:
        self.lookup = lookup
        self._starts = starts.cast("q")
        self._values = values.cast("i")
        if len(self._starts) != len(lookup) + 1:
            raise ValueError("posting table does not match the features")

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.lookup.find(key) >= 0

    def __getitem__(self, key: str) -> Any:
        number = self.lookup.find(key) if isinstance(key, str) else -1
        if number < 0:
            raise KeyError(key)
        return self.of(number)

    def of(self, number: int) -> Any:
        """The posting list of feature `number` (a `memoryview` of int32)."""
        begin, end = self._starts[number : number + 2]
        return self._values[begin:end]

    def frequency(self, key: str) -> int:
        """Length of the posting list of `key`, 0 when it is unknown."""
        number = self.lookup.find(key)
        if number < 0:
            return 0
        begin, end = self._starts[number : number + 2]
        return end - begin

    def __iter__(self) -> Iterator[str]:
        return iter(self.lookup.names)

    def __len__(self) -> int:
        return len(self.lookup)

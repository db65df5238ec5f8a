"""The packed tables inside an index file: strings, records, a hash lookup and posting lists.

Each is built here as bytes and read back as a read-only sequence or mapping that decodes items
only when a query touches them, whether the bytes are in memory or read from disk on demand
(`advisor.search.storage`).
"""

from __future__ import annotations

import marshal
import zlib
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any


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

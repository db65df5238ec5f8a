"""The packed tables inside an index file: strings, records, a hash lookup and posting lists.

Each is built here as bytes and read back as a read-only sequence or mapping that decodes items
only when a query touches them, whether the bytes are in memory or read from disk on demand
(`advisor.search.storage`).
"""

from __future__ import annotations

import marshal
import os
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, repeat
from operator import add

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any


def pack_strings(items: Iterable[str], lines: bool = False) -> tuple[bytes, bytes]:
    """(UTF-8 blob, int64 byte offsets) for `Strings`.

    With `lines`, each item ends with a newline, so that a run of items decodes in one go; the
    items must then contain none.
    """
    blob, ends = run(list(items), lines)
    return blob, array("q", [0, *ends]).tobytes()


class Spill:
    """Bytes appended to an unnamed temporary file and read back in pieces, as often as needed:
    a table too large to hold while a 100,000-entry index is built (phrases, postings)."""

    _PIECE = 1 << 20

    def __init__(self) -> None:
        import tempfile

        self._file = tempfile.TemporaryFile()
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def extend(self, data: bytes | bytearray | array | memoryview) -> None:
        self._size += self._file.write(data)

    def __iter__(self) -> Iterator[bytes]:
        self._file.flush()
        position = 0
        while position < self._size:
            piece = os.pread(self._file.fileno(), min(self._PIECE, self._size - position), position) if hasattr(os, "pread") else self._read(position)
            if not piece:
                raise OSError("temporary file shrank")
            position += len(piece)
            yield piece

    def _read(self, position: int) -> bytes:
        self._file.seek(position)
        data = self._file.read(min(self._PIECE, self._size - position))
        self._file.seek(0, os.SEEK_END)
        return data


def run(items: list[str], lines: bool = False) -> tuple[bytes, list[int]]:
    """`items` packed as `StringPacker` packs them: (their bytes, where each ends in them)."""
    end = 1 if lines else 0
    text = ("\n" if lines else "").join(items) + ("\n" if lines and items else "")
    if lines and text.count("\n") != len(items):
        raise ValueError("an item contains a newline")
    lengths = map(len, map(str.encode, items, repeat("utf-8"), repeat("surrogatepass")))
    return text.encode("utf-8", "surrogatepass"), list(accumulate(map(add, lengths, repeat(end))))


class StringPacker:
    """Builds `pack_strings`'s result a `run` at a time, without keeping the strings.

    Indexing 100,000 entries makes over a million phrases: as Python strings in lists they would
    cost several hundred megabytes more at the peak of the build; with `spill` even their bytes
    go to a temporary file.
    """

    def __init__(self, lines: bool = False, spill: bool = False) -> None:
        self._blob: bytearray | Spill = Spill() if spill else bytearray()
        self._offsets = array("q", [0])
        self._lines = lines

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def add_run(self, blob: bytes, ends: Iterable[int]) -> None:
        """Add the items of a `run` (of one topic, or of a part packed by a worker process)."""
        self._offsets.extend(map(add, ends, repeat(len(self._blob))))
        self._blob.extend(blob)

    def packed(self) -> tuple[bytes | Spill, bytes]:
        blob = self._blob if isinstance(self._blob, Spill) else bytes(self._blob)
        return blob, self._offsets.tobytes()


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
    """Read-only list of small marshal-ed records (one per entry, or per key of `KeyedRecords`), decoded on access.

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


def pack_records(records: Iterable[bytes]) -> tuple[bytes, bytes]:
    """(blob, int64 byte offsets) of marshal-ed records, for `Records`."""
    blob = bytearray()
    offsets = array("q", [0])
    for record in records:
        blob += record
        offsets.append(len(blob))
    return bytes(blob), offsets.tobytes()


# Not hash(): str hashes change from one process to the next, the file does not. Nor crc32:
# importing zlib would cost `advisor ask` more than all its lookups together.
_FOLD = (1 << 61) - 1  # a Mersenne prime: folds a long key into 61 bits
_MIX = 0x9E3779B97F4A7C15  # 2**64 / the golden ratio: Fibonacci hashing spreads every bit to the top ones
_WORD = (1 << 64) - 1


def _slot(key: bytes, mask: int) -> int:
    """The slot of `key` in a table of `mask + 1` (a power of two) slots."""
    return ((int.from_bytes(key, "little") % _FOLD) * _MIX & _WORD) >> (64 - mask.bit_length())


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

    A feature is a word, found through `lookup`, or a pair of neighbouring words written "a_b",
    found by binary search in `pairs`: each pair is the number `a * words + b`, the pairs sorted
    and numbered after the words. (A table of pair names would hold millions of strings at
    100,000 entries, and building its hash table would cost the build seconds.) Behaves as the
    read-only dict it replaces: `token in postings`, `postings.get(token)`, iteration over the
    words, then the pairs.
    """

    __slots__ = ("lookup", "_starts", "_values", "_pairs", "_words", "_memo")
    _MEMO_LIMIT = 50_000

    def __init__(self, lookup: Lookup, starts: Any, values: Any, pairs: Any = None) -> None:
        self.lookup = lookup
        self._starts = starts.cast("q")
        self._values = values.cast("i")
        self._pairs = pairs.cast("q") if pairs is not None else memoryview(b"").cast("q")
        self._words = len(lookup)
        self._memo: dict[str, int] = {}
        if len(self._starts) != self._words + len(self._pairs) + 1:
            raise ValueError("posting table does not match the features")

    def number(self, key: str) -> int:
        """The feature number of `key`, -1 when it is not a feature."""
        found = self.lookup.find(key)
        if found >= 0 or "_" not in key or not len(self._pairs):
            return found
        found = self._memo.get(key, -2)
        if found != -2:
            return found
        found = -1
        words, pairs = self._words, self._pairs
        cut = key.find("_")
        while cut > 0 and found < 0:  # "a_b", where a word itself may hold "_"
            first, second = self.lookup.find(key[:cut]), self.lookup.find(key[cut + 1 :])
            if first >= 0 and second >= 0:
                code = first * words + second
                at = bisect_left(pairs, code)
                if at < len(pairs) and pairs[at] == code:
                    found = words + at
            cut = key.find("_", cut + 1)
        if len(self._memo) >= self._MEMO_LIMIT:
            self._memo.clear()
        self._memo[key] = found
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.number(key) >= 0

    def __getitem__(self, key: str) -> Any:
        number = self.number(key) if isinstance(key, str) else -1
        if number < 0:
            raise KeyError(key)
        return self.of(number)

    def of(self, number: int) -> Any:
        """The posting list of feature `number` (a `memoryview` of int32)."""
        begin, end = self._starts[number : number + 2]
        return self._values[begin:end]

    def frequency(self, key: str) -> int:
        """Length of the posting list of `key`, 0 when it is unknown."""
        number = self.number(key)
        if number < 0:
            return 0
        begin, end = self._starts[number : number + 2]
        return end - begin

    def __iter__(self) -> Iterator[str]:
        names = self.lookup.names
        yield from names
        for code in self._pairs:
            first, second = divmod(code, self._words)
            yield f"{names[first]}_{names[second]}"

    def __len__(self) -> int:
        return self._words + len(self._pairs)


class KeyedRecords(Mapping):  # str -> record
    """Key -> record (as `Records` gives it), found through a `Lookup`: a dict of small records
    that a query reads key by key from the index file, where the dict would be decoded whole on
    every start."""

    __slots__ = ("_lookup", "_records")

    def __init__(self, lookup: Lookup, records: Records) -> None:
        if len(lookup) != len(records):
            raise ValueError("keyed records do not match their keys")
        self._lookup = lookup
        self._records = records

    def get(self, key: str, default: Any = None) -> Any:
        number = self._lookup.find(key)
        return self._records[number] if number >= 0 else default

    def __getitem__(self, key: str) -> Any:
        number = self._lookup.find(key) if isinstance(key, str) else -1
        if number < 0:
            raise KeyError(key)
        return self._records[number]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._lookup.find(key) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self._lookup.names)

    def __len__(self) -> int:
        return len(self._lookup)

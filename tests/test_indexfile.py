"""The index file's packed tables (`advisor.search.storage`), read in memory and from disk alike."""

from __future__ import annotations

import marshal
import time
import zlib
from array import array
from itertools import accumulate
from pathlib import Path

import pytest

from advisor.problems import CacheDamaged
from advisor.search import storage, tables
from advisor.search.tables import KeyedRecords, Lookup, Postings, Records, Strings


def _both(tmp_path: Path, header: dict, sections: dict[str, bytes], monkeypatch: pytest.MonkeyPatch) -> list[tuple[dict, dict]]:
    """The same file opened in memory and through on-demand reads (as a large index is)."""
    data = storage.pack(header, sections)
    path = tmp_path / "index.bin"
    path.write_bytes(data)
    in_memory = storage.unpack(data)
    monkeypatch.setattr(storage, "READ_WHOLE_BYTES", 0)
    on_disk = storage.open_file(str(path))
    assert isinstance(next(iter(on_disk[1].values())), storage.FileSection)
    return [in_memory, on_disk]


def test_header_and_sections_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sections = {"a": b"hello", "b": b"", "c": bytes(range(256)) * 3}
    for header, found in _both(tmp_path, {"key": "k", "numbers": [1, 2, 3]}, sections, monkeypatch):
        assert header["key"] == "k" and header["numbers"] == [1, 2, 3]
        assert {name: bytes(found[name][:]) for name in sections} == sections


def test_the_file_ends_with_a_marshal_header_and_a_trailer() -> None:
    data = storage.pack({"key": "k"}, {"x": b"123"})
    assert data[-storage.TRAILER_BYTES :].startswith(storage.MAGIC) and data[:3] == b"123"
    header = marshal.loads(_header_bytes(data))
    assert header["key"] == "k" and header["format"] == storage.FORMAT


def _header_bytes(data: bytes) -> bytes:
    length = int.from_bytes(data[-8:-4], "little")
    return data[-storage.TRAILER_BYTES - length : -storage.TRAILER_BYTES]


def _trailer(head: bytes) -> bytes:
    return storage.MAGIC + len(head).to_bytes(4, "little") + zlib.crc32(head).to_bytes(4, "little")


@pytest.mark.parametrize("damage", ["truncate", "pad", "foreign", "byteorder", "empty", "zeros"])
def test_a_damaged_or_foreign_file_is_refused(tmp_path: Path, damage: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = storage.pack({"key": "k"}, {"x": b"0123456789" * 10})
    if damage == "truncate":
        data = data[:-8]
    elif damage == "pad":
        data += b"\0" * 8
    elif damage == "foreign":
        data = marshal.dumps({"key": "k", "format": "something else"})
    elif damage == "empty":
        data = b""
    elif damage == "zeros":
        data = bytes(len(data))
    else:  # a whole, well-formed file written on a machine of the other byte order
        head = _header_bytes(data)
        header = marshal.loads(head)
        other = marshal.dumps({**header, "byteorder": "big" if header["byteorder"] == "little" else "little"})
        data = data[: len(data) - storage.TRAILER_BYTES - len(head)] + other + _trailer(other)
    with pytest.raises(ValueError):
        storage.unpack(data)
    path = tmp_path / "index.bin"
    path.write_bytes(data)
    for whole in (storage.READ_WHOLE_BYTES, 0):
        monkeypatch.setattr(storage, "READ_WHOLE_BYTES", whole)
        with pytest.raises(ValueError):
            storage.open_file(str(path))


def test_every_changed_byte_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A byte changed anywhere is refused: when a small file is opened, or when a large file's
    damaged block is first read (a checksum per block: reading all of a large file to open it
    would cost more than the answer)."""
    monkeypatch.setattr(storage, "BLOCK", 4096)
    sections = {"a": bytes(range(256)) * 40, "b": b"x" * 20_000}
    data = storage.pack({"key": "k"}, sections)
    path = tmp_path / "index.bin"
    for position in range(0, len(data), 499):
        damaged = bytearray(data)
        damaged[position] ^= 0x10
        with pytest.raises(ValueError):
            storage.unpack(bytes(damaged))
        path.write_bytes(damaged)
        monkeypatch.setattr(storage, "READ_WHOLE_BYTES", 0)
        with pytest.raises(ValueError) as refused:  # at open (trailer, header), else at the block's first read
            _, found = storage.open_file(str(path))
            for name in sections:
                bytes(found[name][:])
        if isinstance(refused.value, CacheDamaged):  # found mid-use: removed at once, whoever read it
            assert not path.exists()
        monkeypatch.setattr(storage, "READ_WHOLE_BYTES", 8 << 20)


def test_reads_across_blocks_of_a_large_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "BLOCK", 64)
    blob = bytes(range(256)) * 9
    (tmp_path / "index.bin").write_bytes(storage.pack({}, {"pad": b"abc", "blob": blob}))
    monkeypatch.setattr(storage, "READ_WHOLE_BYTES", 0)
    _, found = storage.open_file(str(tmp_path / "index.bin"))
    for start, stop in [(0, 1), (60, 70), (63, 64), (64, 65), (5, 600), (0, len(blob)), (len(blob) - 3, len(blob)), (100, 100)]:
        assert found["blob"][start:stop] == blob[start:stop]
    assert bytes(found["pad"]) == b"abc"


@pytest.mark.parametrize("lines", [False, True])
def test_strings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: bool) -> None:
    items = ["", "mig", "Làm sao chia sẻ GPU?", "x" * 300, "🙂 emoji", ""]
    blob, offsets = tables.pack_strings(items, lines=lines)
    for _, found in _both(tmp_path, {}, {"blob": blob, "offsets": offsets}, monkeypatch):
        strings = Strings(found["blob"], found["offsets"], lines=lines)
        assert len(strings) == len(items)
        assert list(strings) == items
        assert [strings[i] for i in range(len(items))] == items
        assert strings[-1] == items[-1] and strings[1:4] == items[1:4] and strings[::2] == items[::2]
        assert strings.span(2, 5) == items[2:5] and strings.span(3, 3) == []
        with pytest.raises(IndexError):
            strings[len(items)]


def test_strings_as_lines_refuse_a_newline() -> None:
    with pytest.raises(ValueError):
        tables.pack_strings(["one", "two\nlines"], lines=True)


def test_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = [["mig", "en", "MIG", "", ["mps"], ["https://x"], "/kb/en/mig.md"], ["a", "vi", "Á", "tóm tắt", [], [], "p"]]
    blob, offsets = tables.pack_records(marshal.dumps(record) for record in records)  # as the build packs them
    for _, found in _both(tmp_path, {}, {"blob": blob, "offsets": offsets}, monkeypatch):
        table = Records(found["blob"], found["offsets"])
        assert len(table) == 2 and table[:] == [tuple(record) for record in records]
        assert table[0] == tuple(records[0]) and table[-1] == tuple(records[1]) and table[0] is table[0]


def test_lookup_and_postings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = [f"token{i}" for i in range(1500)] + ["time_slicing", "đa", ""]
    lists = [array("i", range(i % 7)) for i in range(len(keys))]
    blob, offsets, table = tables.pack_table(keys)
    starts, values = array("q", accumulate(map(len, lists), initial=0)).tobytes(), b"".join(map(array.tobytes, lists))
    sections = {"blob": blob, "offsets": offsets, "table": table, "starts": starts, "values": values}
    for _, found in _both(tmp_path, {}, sections, monkeypatch):
        lookup = Lookup(found["blob"], found["offsets"], found["table"])
        assert [lookup.find(key) for key in keys] == list(range(len(keys)))
        assert lookup.find("token1500") == -1 and lookup.find("missing") == -1 and lookup.find("token") == -1
        postings = Postings(lookup, found["starts"], found["values"])
        assert len(postings) == len(keys) and list(postings) == keys
        assert "token3" in postings and "nope" not in postings and 3 not in postings
        assert list(postings["token9"]) == list(lists[9]) and postings.frequency("token9") == 2
        assert postings.get("nope") is None and postings.frequency("nope") == 0
        with pytest.raises(KeyError):
            postings["nope"]


def test_keyed_records_behave_as_the_dict_they_replace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = {f"word{i}": [(("no", "devices", f"word{i}"), i), (("nvml",), 0)] for i in range(300)} | {"đa": [(("đa",), 7)]}
    keys = sorted(plain)
    names, offsets, table = tables.pack_table(keys)
    blob, record_offsets = tables.pack_records(marshal.dumps(plain[key], 0) for key in keys)
    sections = {"names": names, "offsets": offsets, "table": table, "blob": blob, "record_offsets": record_offsets}
    for _, found in _both(tmp_path, {}, sections, monkeypatch):
        keyed = KeyedRecords(Lookup(found["names"], found["offsets"], found["table"]), Records(found["blob"], found["record_offsets"]))
        assert len(keyed) == len(plain) and list(keyed) == keys and bool(keyed)
        assert {key: list(records) for key, records in keyed.items()} == plain
        assert keyed.get("word7") == tuple(plain["word7"]) and keyed["đa"] == ((("đa",), 7),)
        assert keyed.get("missing") is None and keyed.get("missing", ()) == () and "missing" not in keyed and 7 not in keyed
        with pytest.raises(KeyError):
            keyed["missing"]
    empty = tables.pack_table([])
    assert not KeyedRecords(Lookup(*map(memoryview, empty)), Records(*map(memoryview, tables.pack_records([]))))
    with pytest.raises(ValueError):
        KeyedRecords(Lookup(*map(memoryview, tables.pack_table(["a"]))), Records(*map(memoryview, tables.pack_records([]))))


@pytest.mark.parametrize("code", ["q", "i", "f"])
def test_file_ints_behave_as_a_memoryview(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    values = list(array(code, [value / 4 if code == "f" else value for value in range(-5, 100, 3)]))  # floats a float32 holds exactly
    for _, found in _both(tmp_path, {}, {"v": array(code, values).tobytes()}, monkeypatch):
        view = found["v"].cast(code)
        assert len(view) == len(values) and list(view) == values
        assert view[0] == values[0] and view[-1] == values[-1] and list(view[3:7]) == values[3:7]
        with pytest.raises(IndexError):
            view[len(values)]


def test_the_header_is_read_without_reading_the_sections(tmp_path: Path) -> None:
    """The cache's clean-up asks every file where it came from: it reads the header alone, so a
    file whose sections are damaged still tells it, where opening it whole refuses it."""
    data = bytearray(storage.pack({"source": "/kb"}, {"a": b"x" * 5000}))
    data[10] ^= 0x10
    path = tmp_path / "index.bin"
    path.write_bytes(bytes(data))
    assert storage.read_header(str(path))["source"] == "/kb"
    with pytest.raises(ValueError):
        storage.open_file(str(path))


def _counting_crc32(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the bytes `zlib.crc32` checks from here on."""
    checked: list[int] = []
    real = zlib.crc32

    def crc32(data: bytes, value: int = 0) -> int:
        checked.append(len(data))
        return real(data, value)

    monkeypatch.setattr(zlib, "crc32", crc32)
    return checked


def test_a_file_checked_whole_is_trusted_until_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`advisor ask` need not read every byte of the same cache file on each start; any write to
    it (which moves its change time) has it checked again, and damage is still refused."""
    path = tmp_path / "index.bin"
    path.write_bytes(storage.pack({"key": "k"}, {"a": bytes(range(256)) * 40}))
    record = tmp_path / ("index.bin" + storage.CHECKED_SUFFIX)
    checked = _counting_crc32(monkeypatch)
    storage.open_file(str(path))
    assert checked and not record.exists()  # just written: its timestamps could still hide a write
    monkeypatch.setattr(storage, "RACY_SECONDS", -1.0)  # from here on, as if every file were old
    storage.open_file(str(path))
    assert record.exists()
    checked.clear()
    header, found = storage.open_file(str(path))
    assert checked == [] and header["key"] == "k" and bytes(found["a"]) == bytes(range(256)) * 40
    time.sleep(0.05)  # past the file system's timestamp tick
    data = bytearray(path.read_bytes())
    data[300] ^= 0x10  # rewritten in place: same inode and size
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError):
        storage.open_file(str(path))
    assert checked


def test_a_check_record_that_cannot_be_written_only_costs_a_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "index.bin"
    path.write_bytes(storage.pack({"key": "k"}, {"a": b"x" * 100}))
    (tmp_path / ("index.bin" + storage.CHECKED_SUFFIX)).mkdir()  # a folder in the way
    monkeypatch.setattr(storage, "RACY_SECONDS", -1.0)
    for _ in range(2):
        assert storage.open_file(str(path))[0]["key"] == "k"

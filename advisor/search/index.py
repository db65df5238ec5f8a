"""The search index: built from the knowledge base, cached on disk, read without YAML.

`advisor ask` should pay for rapidfuzz and a cache read, nothing more. The index is one file in
the user's cache folder (`advisor.search.storage`: packed sections, then a small marshal header
and a trailer), keyed by the engine version and the knowledge files' paths, sizes and times (a
large folder through its folders: `advisor.search.cache`).
Phrases, entries and postings stay packed and are decoded one by one as a query touches them
(read from disk on demand when the file is large), so opening a 100,000-entry index costs about
what opening a 20-entry one does, in time and in memory.
"""

from __future__ import annotations

import bisect
import marshal
import math
from collections import namedtuple
from collections.abc import Iterator, Mapping, Sequence

from advisor.search import storage, tables
from advisor.search.analysis import Analyzer
from advisor.search.learned import Weights
from advisor.problems import Problem

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any

# Bump when the index layout or the analysis changes: old caches are then rebuilt.
INDEX_VERSION = 36
# Field weights in sixteenths, packed beside the topic number in one int32 posting. A token the
# authors put in a large share of a topic's phrasings earns up to FOCUS_BONUS more: it is what the
# topic is about, not a word it mentions ("mig" for the MIG entry, not for the AKS one).
FIELD_WEIGHTS = {"title": 10, "question": 8, "keyword": 8, "error": 10, "heading": 5, "summary": 4, "body": 2}
FOCUS_BONUS = 9
FULL_WEIGHT = 19
# A posting is `topic << POSTING_BITS | mass << WEIGHT_BITS | weight`: the field weight, and how
# much of the topic's text holds the word (`advisor.search.likelihood`), as ln(1 + mass) in
# sixteenths up to MASS_MAX (a pair's postings carry no mass). Room is left for 2**20 topics.
WEIGHT_BITS = 5
MASS_BITS = 6
MASS_STEPS = 16
MASS_MAX = (1 << MASS_BITS) - 1
POSTING_BITS = WEIGHT_BITS + MASS_BITS
MAX_TOPICS = 1 << (31 - POSTING_BITS)
WEIGHT_MASK = (1 << WEIGHT_BITS) - 1
PHRASE_FIELDS = ("title", "question", "keyword", "error")
# An error line shorter than this many meaningful words is too generic to recognise on its own.
MIN_ERROR_WORDS = 3


def encode_posting(topic: int, weight: int, mass: int = 0) -> int:
    return topic << POSTING_BITS | mass << WEIGHT_BITS | weight


def decode_posting(packed: int) -> tuple[int, int]:
    """(topic number, field weight) of a packed posting."""
    return packed >> POSTING_BITS, packed & WEIGHT_MASK


def posting_weight(postings: Sequence[int], topic: int) -> int:
    """The field weight of `topic` among a token's `postings` (sorted by topic, so found by binary
    search); 0 when the topic lacks the token."""
    at = bisect.bisect_left(postings, topic << POSTING_BITS)
    if at < len(postings) and postings[at] >> POSTING_BITS == topic:
        return postings[at] & WEIGHT_MASK
    return 0


def posting_mass(packed: int) -> float:
    """ln(1 + the word's mass in the topic) of a packed posting (`advisor.search.likelihood`)."""
    return (packed >> WEIGHT_BITS & MASS_MAX) / MASS_STEPS


class EntryMeta(namedtuple("EntryMeta", ("id", "lang", "title", "summary", "related", "sources", "path", "topic"))):
    """What a front end shows of an entry without reading its file: `id`, `lang`, `title`,
    `summary` (str), `related` (a tuple of ids), `sources` (a tuple of (title, url) pairs), the
    file's `path` (str) and the `topic` it belongs to (its own id for a topic's home entry).
    A namedtuple, not a dataclass: see `advisor.problems.Problem`."""

    __slots__ = ()


class SearchIndex:
    """Read side of the index: views over one index file's sections (`advisor.search.storage`).

    Large tables (phrases, postings, entries) are read and decoded item by item as a query
    touches them; only the header's small data, the topic ids and the analyzer are built up front.
    """

    def __init__(self, data: dict[str, Any], sections: dict[str, Any]) -> None:
        self.data: Mapping[str, Any] = _Data(data, sections["attached"])
        topics = str(sections["topics"][:], "utf-8")
        self.topics: list[str] = topics.split("\n") if topics else []
        self.entries: Sequence[list[Any]] = tables.Records(sections["entries"], sections["entry_offsets"])
        self._section_words: Sequence[tuple[str, ...]] = tables.Records(sections["section_words"], sections["section_word_offsets"])
        self.topic_entries: Sequence[dict[str, int]] = _TopicEntries(data["langs"], sections["entry_lang"], sections["topic_entry_start"].cast("i"))
        self.phrases = tables.Strings(sections["phrases"], sections["phrase_offsets"], lines=True)
        self.sorted_phrases = tables.Strings(sections["sorted_phrases"], sections["sorted_phrase_offsets"], lines=True)
        self.phrase_text = tables.Strings(sections["phrase_text"], sections["phrase_text_offsets"])
        self.phrase_field: Sequence[int] = sections["phrase_field"]
        self.phrase_entry: Sequence[int] = sections["phrase_entry"].cast("i")
        self.topic_phrase_start: Sequence[int] = sections["topic_phrase_start"].cast("i")
        features = tables.Lookup(sections["features"], sections["feature_offsets"], sections["feature_table"])
        self.postings = tables.Postings(features, sections["posting_starts"], sections["postings"], sections["pairs"])
        # How much text each topic has, the `mass` of all its words (`advisor.search.likelihood`).
        self.topic_size: Sequence[int] = sections["topic_size"].cast("i")
        # Weights learnt from real questions (`advisor.search.learned`); empty without the file.
        self.learned = Weights(sections)
        self.markers: dict[str, list[str]] = data["markers"]
        self.problems = [Problem(*p) for p in data["problems"]]
        choices = {word: canonical for canonical, words in data.get("choices", {}).items() for word in words}
        whether = {canonical: (frozenset(asked_by), frozenset(about), frozenset(beside)) for canonical, (asked_by, about, beside) in data.get("whether", {}).items()}
        self.analyzer = Analyzer(frozenset(data["stopwords"]), {k: tuple(v) for k, v in data["synonyms"].items()}, data["canonical"], choices, whether)
        self._vocabulary_text = sections["vocabulary"]
        # Each word of a listed error line -> (the line's words, topic number) of the lines holding
        # it: pasted errors are spotted by the lines they share words with.
        error_words = tables.Lookup(sections["error_words"], sections["error_word_offsets"], sections["error_word_table"])
        self.error_lines: Mapping[str, tuple[tuple[tuple[str, ...], int], ...]] = tables.KeyedRecords(error_words, tables.Records(sections["error_records"], sections["error_record_offsets"]))
        self._vocab_by_len: dict[int, list[str]] = {}
        topic_ends = {len(self.topic_phrase_start), len(self.topic_entries) + 1, len(self.topics) + 1, len(self.topic_size) + 1}
        phrase_count = {len(self.phrases), len(self.sorted_phrases), len(self.phrase_text), len(self.phrase_field), len(self.phrase_entry)}
        entry_count = {len(sections["entry_lang"]), len(self.entries), len(self._section_words)}
        if len(topic_ends) != 1 or len(phrase_count) != 1 or len(entry_count) != 1:
            raise ValueError("index tables disagree")

    @classmethod
    def from_bytes(cls, data: bytes) -> "SearchIndex":
        """The index held in `data`, an index file's bytes."""
        return cls(*storage.unpack(data))

    @classmethod
    def from_file(cls, path: str, key: str) -> "SearchIndex":
        """The index cached at `path`; `ValueError` (or `OSError`) unless it is whole and built for `key`."""
        header, sections = storage.open_file(path)
        if header.get("version") != INDEX_VERSION or header.get("key") != key:
            raise ValueError("stale index")
        return cls(header, sections)

    @property
    def topic_count(self) -> int:
        return len(self.topics)

    def posting(self, token: str) -> Sequence[int]:
        """The packed postings (`encode_posting`, sorted by topic) of `token`; empty when unknown."""
        number = self.postings.number(token)
        return self.postings.of(number) if number >= 0 else _NO_POSTINGS

    def document_frequency(self, token: str) -> int:
        return self.postings.frequency(token)

    def idf(self, token: str) -> float:
        df = self.document_frequency(token)
        return math.log(1 + self.topic_count / df) if df else self.unknown_idf

    @property
    def unknown_idf(self) -> float:
        return math.log(1 + max(self.topic_count, 1))

    def vocabulary(self, length: int) -> list[str]:
        """Unigram tokens of about `length` characters (for typo correction), commonest first."""
        out: list[str] = []
        for size in (length - 1, length, length + 1):
            out.extend(self._bucket(size))
        return out

    def words(self) -> list[str]:
        """Every word of the typo-repair vocabulary (search-as-you-type completes words from it)."""
        found: list[str] = []
        for size in self.data["vocabulary"]:
            found.extend(self._bucket(size))
        return found

    def _bucket(self, size: int) -> list[str]:
        """The vocabulary's words of `size` characters, decoded once."""
        bucket = self._vocab_by_len.get(size)
        if bucket is None:
            start, end = self.data["vocabulary"].get(size, (0, 0))
            text = str(self._vocabulary_text[start:end], "utf-8")
            bucket = self._vocab_by_len[size] = text.split("\n") if text else []
        return bucket

    def meta(self, entry_index: int) -> EntryMeta:
        entry_id, lang, title, summary, related, sources, path, topic = self.entries[entry_index]
        return EntryMeta(entry_id, lang, title, summary, tuple(related), tuple(tuple(pair) for pair in sources), path, topic or entry_id)

    def home_of(self, topic: int) -> str:
        """The id of the home entry of topic number `topic`'s topic (itself, for a home entry)."""
        entries = self.topic_entries[topic]
        return str(self.meta(next(iter(entries.values()))).topic) if entries else self.topics[topic]

    def section_words(self, entry: int) -> tuple[str, ...]:
        """The analysed words of each `##` section of entry number `entry`, as the index was built
        from its file: heading, text, heading, text, ... (each a space-joined string)."""
        return self._section_words[entry]

    def entry_index(self, entry_id: str, lang: str | None = None) -> int | None:
        """The entry of `entry_id` in `lang`, falling back to any language it exists in."""
        topic = self.topic_of(entry_id)
        if topic is None:
            return None
        entries = self.topic_entries[topic]
        if lang is not None and lang in entries:
            return entries[lang]
        return entries[min(entries)] if entries else None

    def by_topic(self, lang: str | None = None) -> list[tuple[str, list[int]]]:
        """Entries grouped under the topic they name: (topic id, entry indexes), topics in id
        order and each topic's home entry first; only entries in `lang` when it is given."""
        groups: dict[str, list[tuple[bool, int]]] = {}
        for entry in range(len(self.entries)):
            meta = self.meta(entry)
            if lang is None or meta.lang == lang:
                groups.setdefault(meta.topic, []).append((meta.id != meta.topic, entry))
        return [(topic, [entry for _, entry in sorted(groups[topic])]) for topic in sorted(groups)]

    def topic_of(self, entry_id: str) -> int | None:
        found = bisect.bisect_left(self.topics, entry_id)  # topics are sorted
        return found if found < len(self.topics) and self.topics[found] == entry_id else None


_NO_POSTINGS = memoryview(b"").cast("i")


class _Data(Mapping):  # str -> plain data
    """The index header's plain data, and beside it what an attachment stored (the provider
    catalogue): decoded only when first asked for, since most questions never need it."""

    def __init__(self, header: dict[str, Any], attached: Any) -> None:
        self._header = header
        self._blob = attached
        self._attached: dict[str, Any] | None = None

    def _more(self) -> dict[str, Any]:
        if self._attached is None:
            self._attached = marshal.loads(bytes(self._blob)) if len(self._blob) else {}
        return self._attached

    def __getitem__(self, key: str) -> Any:
        return self._header[key] if key in self._header else self._more()[key]

    def __iter__(self) -> Iterator[str]:
        return iter({**self._header, **self._more()})

    def __len__(self) -> int:
        return len({**self._header, **self._more()})


class _TopicEntries(Sequence[dict[str, int]]):
    """Per topic, {lang: entry index}; entries are stored by topic, then language."""

    def __init__(self, langs: list[str], entry_lang: Sequence[int], starts: Sequence[int]) -> None:
        self._langs = langs
        self._entry_lang = entry_lang
        self._starts = starts

    def __len__(self) -> int:
        return max(len(self._starts) - 1, 0)

    def __getitem__(self, topic: int) -> dict[str, int]:  # type: ignore[override]
        if topic < 0:
            topic += len(self)
        if not 0 <= topic < len(self):
            raise IndexError("topic out of range")
        begin, end = self._starts[topic : topic + 2]
        langs = self._langs
        return {langs[code]: entry for entry, code in enumerate(self._entry_lang[begin:end], start=begin)}

"""The search index: built from the knowledge base, cached on disk, read without YAML.

`advisor ask` should pay for rapidfuzz and a cache read, nothing more. The index is one file in
the user's cache folder (`advisor.search.storage`: a small marshal header, then packed sections),
keyed by every knowledge file's path, size and modification time plus the engine version.
Phrases, entries and postings stay packed and are decoded one by one as a query touches them
(read from disk on demand when the file is large), so opening a 100,000-entry index costs about
what opening a 20-entry one does, in time and in memory (issue 5).
"""

from __future__ import annotations

import bisect
import math
import os
from array import array
from collections import namedtuple
from collections.abc import Sequence
from itertools import groupby

from advisor.search import storage as indexfile
from advisor.search.analysis import Analyzer, bigrams
from advisor.problems import Problem

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (1.5 ms of `advisor ask`)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, Union

    # A folder as a string or a path object: `advisor ask` uses strings, not to pay for pathlib.
    StrPath = Union[str, os.PathLike[str]]

# Whatever reading a damaged, truncated or foreign cache file can raise: it is then rebuilt.
_UNREADABLE = (OSError, EOFError, ValueError, TypeError, KeyError, IndexError, MemoryError)
# Bump when the index layout or the analysis changes: old caches are then rebuilt.
INDEX_VERSION = 13
# Field weights in twelfths, packed beside the topic number in one int32 posting. A token the
# authors repeat across a topic's phrasings earns up to TF_BONUS more: it is what the topic is about.
FIELD_WEIGHTS = {"title": 10, "question": 8, "keyword": 8, "heading": 5, "summary": 4, "body": 2}
FULL_WEIGHT = 12
TF_BONUS = 2
PHRASE_FIELDS = ("title", "question", "keyword")


class EntryMeta(namedtuple("EntryMeta", ("id", "lang", "title", "summary", "related", "sources", "path"))):
    """What a front end shows of an entry without reading its file: `id`, `lang`, `title`,
    `summary` (str), `related` and `sources` (tuples of str) and the file's `path` (str).
    A namedtuple, not a dataclass: see `advisor.problems.Problem`."""

    __slots__ = ()


class SearchIndex:
    """Read side of the index: views over one index file's sections (`advisor.search.storage`).

    Large tables (phrases, postings, entries) are read and decoded item by item as a query
    touches them; only the header's small data, the topic ids and the analyzer are built up front.
    """

    def __init__(self, data: dict[str, Any], sections: dict[str, Any]) -> None:
        self.data = data
        topics = str(sections["topics"][:], "utf-8")
        self.topics: list[str] = topics.split("\n") if topics else []
        self.entries: Sequence[list[Any]] = indexfile.Records(sections["entries"], sections["entry_offsets"])
        self.topic_entries: Sequence[dict[str, int]] = _TopicEntries(data["langs"], sections["entry_lang"], sections["topic_entry_start"].cast("i"))
        self.phrases = indexfile.Strings(sections["phrases"], sections["phrase_offsets"], lines=True)
        self.sorted_phrases = indexfile.Strings(sections["sorted_phrases"], sections["sorted_phrase_offsets"], lines=True)
        self.phrase_text = indexfile.Strings(sections["phrase_text"], sections["phrase_text_offsets"])
        self.phrase_field: Sequence[int] = sections["phrase_field"]
        self.phrase_entry: Sequence[int] = sections["phrase_entry"].cast("i")
        self.topic_phrase_start: Sequence[int] = sections["topic_phrase_start"].cast("i")
        features = indexfile.Lookup(sections["features"], sections["feature_offsets"], sections["feature_table"])
        self.postings = indexfile.Postings(features, sections["posting_starts"], sections["postings"])
        self.markers: dict[str, list[str]] = data["markers"]
        self.problems = [Problem(*p) for p in data["problems"]]
        self.analyzer = Analyzer.build(frozenset(data["stopwords"]), data["synonyms"])
        self._vocabulary_text = sections["vocabulary"]
        self._vocab_by_len: dict[int, list[str]] = {}
        topic_ends = {len(self.topic_phrase_start), len(self.topic_entries) + 1, len(self.topics) + 1}
        phrase_count = {len(self.phrases), len(self.sorted_phrases), len(self.phrase_text), len(self.phrase_field), len(self.phrase_entry)}
        if len(topic_ends) != 1 or len(phrase_count) != 1 or len(sections["entry_lang"]) != len(self.entries):
            raise ValueError("index tables disagree")

    @classmethod
    def from_bytes(cls, data: bytes) -> "SearchIndex":
        """The index held in `data`, an index file's bytes."""
        return cls(*indexfile.unpack(data))

    @classmethod
    def from_file(cls, path: str, key: str) -> "SearchIndex":
        """The index cached at `path`; `ValueError` (or `OSError`) unless it is whole and built for `key`."""
        header, sections = indexfile.open_file(path)
        if header.get("version") != INDEX_VERSION or header.get("key") != key:
            raise ValueError("stale index")
        return cls(header, sections)

    @property
    def topic_count(self) -> int:
        return len(self.topics)

    def posting(self, token: str) -> Sequence[int]:
        """The packed postings (topic * 16 + weight, by topic) of `token`; empty when unknown."""
        number = self.postings.lookup.find(token)
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
            bucket = self._vocab_by_len.get(size)
            if bucket is None:
                start, end = self.data["vocabulary"].get(size, (0, 0))
                text = str(self._vocabulary_text[start:end], "utf-8")
                bucket = self._vocab_by_len[size] = text.split("\n") if text else []
            out.extend(bucket)
        return out

    def meta(self, entry_index: int) -> EntryMeta:
        entry_id, lang, title, summary, related, sources, path = self.entries[entry_index]
        return EntryMeta(entry_id, lang, title, summary, tuple(related), tuple(sources), path)

    def entry_index(self, entry_id: str, lang: str | None = None) -> int | None:
        """The entry of `entry_id` in `lang`, falling back to any language it exists in."""
        topic = self.topic_of(entry_id)
        if topic is None:
            return None
        entries = self.topic_entries[topic]
        if lang is not None and lang in entries:
            return entries[lang]
        return entries[min(entries)] if entries else None

    def topic_of(self, entry_id: str) -> int | None:
        found = bisect.bisect_left(self.topics, entry_id)  # topics are sorted
        return found if found < len(self.topics) and self.topics[found] == entry_id else None


_NO_POSTINGS = memoryview(b"").cast("i")


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


def build_index(kb: Any, root: StrPath | None = None) -> dict[str, Any]:
    """Plain-data index of a loaded `KnowledgeBase` (plus `root`'s provider catalogue, if any).

    The catalogue rides along as plain data so that `advisor ask` can answer provider questions
    from a warm cache without importing YAML; `providers.yaml` sits at the top of the knowledge
    folder, so `source_fingerprint` already notices when it changes.
    """
    catalogue = None
    if root is not None:
        from advisor.catalogue.model import catalogue_to_data, load_catalogue

        catalogue = load_catalogue(root)
    lexicon = kb.lexicon
    analyzer = Analyzer.build(lexicon.stopwords, lexicon.synonyms or {})
    topics = sorted({entry.id for entry in kb.entries})
    topic_number = {topic: i for i, topic in enumerate(topics)}
    ordered = sorted(kb.entries, key=lambda e: (topic_number[e.id], e.lang))
    langs = sorted({entry.lang for entry in ordered})
    phrases = indexfile.StringPacker(lines=True)
    sorted_phrases = indexfile.StringPacker(lines=True)  # tokens sorted: token_sort_ratio is a ratio of these
    phrase_text = indexfile.StringPacker()
    phrase_field = bytearray()
    phrase_entry = array("i")
    topic_phrase_start = [0] * (len(topics) + 1)
    topic_entry_start = [0] * (len(topics) + 1)
    # Feature -> number, in first-seen order, and each feature's postings in topic order. A
    # topic's weights are folded into the postings as soon as its entries are done, so only one
    # topic's tables are alive at a time: building 100,000 entries stays within memory.
    feature_number: dict[str, int] = {}
    posting_lists: list[array] = []

    for topic, group in groupby(enumerate(ordered), key=lambda item: topic_number[item[1].id]):
        table: dict[str, int] = {}
        counts: dict[str, int] = {}

        def add(text: str, field: str) -> list[str]:
            words = analyzer.content(text)
            weight = FIELD_WEIGHTS[field]
            features = words + (bigrams(words) if field != "body" else [])
            for feature in features:
                if table.get(feature, 0) < weight:
                    table[feature] = weight
            if field in PHRASE_FIELDS:
                for feature in set(features):
                    counts[feature] = counts.get(feature, 0) + 1
            return words

        for entry_index, entry in group:
            texts = [("title", entry.title)] + [("question", q) for q in entry.questions] + [("keyword", k) for k in entry.keywords]
            for field, text in texts:
                words = add(text, field)
                if words:
                    phrases.add(" ".join(words))
                    sorted_phrases.add(" ".join(sorted(words)))
                    phrase_text.add(text)
                    phrase_field.append(PHRASE_FIELDS.index(field))
                    phrase_entry.append(entry_index)
            for heading in entry.headings:
                add(heading, "heading")
            add(entry.summary, "summary")
            add(entry.body, "body")
            topic_phrase_start[topic + 1] = len(phrases)
            topic_entry_start[topic + 1] = entry_index + 1
        for feature, weight in table.items():
            repeated = counts.get(feature, 0)
            bonus = TF_BONUS if repeated >= 6 else 1 if repeated >= 3 else 0
            number = feature_number.get(feature)
            if number is None:
                number = feature_number[feature] = len(posting_lists)
                posting_lists.append(array("i"))
            posting_lists[number].append(topic * 16 + min(weight + bonus, FULL_WEIGHT))
    for topic in range(1, len(topics) + 1):  # topics without phrases keep an empty range
        topic_phrase_start[topic] = max(topic_phrase_start[topic], topic_phrase_start[topic - 1])

    features = list(feature_number)
    triggers = _catalogue_triggers(catalogue, lexicon.catalogue, analyzer, lambda word: len(posting_lists[feature_number[word]]) if word in feature_number else 0)
    del feature_number
    vocabulary_text, vocabulary = _vocabulary(features, posting_lists, analyzer)
    sections: dict[str, bytes] = {"topics": "\n".join(topics).encode("utf-8")}
    sections["entries"], sections["entry_offsets"] = indexfile.pack_records(
        [e.id, e.lang, e.title, e.summary, list(e.related), list(e.sources), e.path] for e in ordered
    )
    sections["entry_lang"] = bytes(langs.index(e.lang) for e in ordered)
    sections["topic_entry_start"] = indexfile.ints(topic_entry_start)
    sections["phrases"], sections["phrase_offsets"] = phrases.packed()
    sections["sorted_phrases"], sections["sorted_phrase_offsets"] = sorted_phrases.packed()
    sections["phrase_text"], sections["phrase_text_offsets"] = phrase_text.packed()
    del phrases, sorted_phrases, phrase_text
    sections["phrase_field"] = bytes(phrase_field)
    sections["phrase_entry"] = phrase_entry.tobytes()
    sections["topic_phrase_start"] = indexfile.ints(topic_phrase_start)
    sections["features"], sections["feature_offsets"], sections["feature_table"] = indexfile.pack_table(features)
    del features
    sections["posting_starts"], sections["postings"] = indexfile.pack_postings(posting_lists)
    del posting_lists
    sections["vocabulary"] = vocabulary_text
    return {
        "version": INDEX_VERSION,
        "langs": langs,
        "vocabulary": vocabulary,
        "stopwords": sorted(lexicon.stopwords),
        "synonyms": {k: list(v) for k, v in (lexicon.synonyms or {}).items()},
        "markers": {k: sorted(v) for k, v in (lexicon.markers or {}).items()},
        "problems": [[p.path, p.line, p.message, p.warning] for p in (*kb.problems, *(catalogue.problems if catalogue else ()))],
        "providers": catalogue_to_data(catalogue) if catalogue and catalogue.providers else None,
        "catalogue_terms": lexicon.catalogue,
        "catalogue_triggers": triggers,
        "sections": sections,
    }


def _catalogue_triggers(catalogue: Any, terms: dict[str, Any] | None, analyzer: Analyzer, frequency: Callable[[str], int]) -> list[str]:
    if catalogue is None or not catalogue.providers or not terms:
        return []
    from advisor.catalogue.questions import trigger_tokens

    return trigger_tokens(catalogue, terms, analyzer, frequency)


def _vocabulary(features: list[str], posting_lists: list[array], analyzer: Analyzer) -> tuple[bytes, dict[int, tuple[int, int]]]:
    """Typo-repair vocabulary bucketed by length, computed once here rather than on every start.

    Each bucket lists unigram features commonest first (on a tie, a typo is repaired to the
    commoner word), then the words that only occur inside synonym phrases. Returns the buckets'
    text, one word a line, and each length's (start, end) byte range in it.
    """
    buckets: dict[int, list[str]] = {}
    for number in sorted(range(len(features)), key=lambda n: -len(posting_lists[n])):
        token = features[number]
        if "_" not in token:
            buckets.setdefault(len(token), []).append(token)
    for token in sorted(analyzer.variant_words):
        buckets.setdefault(len(token), []).append(token)
    parts: list[bytes] = []
    ranges: dict[int, tuple[int, int]] = {}
    position = 0
    for length, words in sorted(buckets.items()):
        blob = "\n".join(words).encode("utf-8")
        ranges[length] = (position, position + len(blob))
        parts.append(blob)
        position += len(blob)
    return b"".join(parts), ranges


def source_fingerprint(root: StrPath) -> str:
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


def _cache_file(root: StrPath) -> str:
    from advisor.paths import cache_root

    name = _hasher(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(cache_root(), f"index-{name}.marshal")


def load_index(root: StrPath, *, use_cache: bool = True) -> SearchIndex:
    """The index for `root`, from the cache when it is current, rebuilt (and saved) otherwise.

    A stale, truncated or foreign cache file is never trusted: anything that does not load
    cleanly with the right key is rebuilt from the knowledge files.
    """
    key = source_fingerprint(root)
    path = _cache_file(root)
    if use_cache:
        try:
            return SearchIndex.from_file(path, key)
        except _UNREADABLE:
            pass
    from advisor.knowledge.load import load_knowledge

    from pathlib import Path

    data = build_index(load_knowledge(Path(root)), Path(root))
    data["key"] = key
    sections = data.pop("sections")
    if use_cache and _save(path, indexfile.pack_parts(data, sections)):
        try:  # read back from the file: a large index need not stay in memory
            return SearchIndex.from_file(path, key)
        except _UNREADABLE:
            pass  # replaced meanwhile by another process: use what was built here
    return SearchIndex.from_bytes(indexfile.pack(data, sections))


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

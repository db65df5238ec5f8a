"""The search index: built from the knowledge base, cached on disk, loaded without YAML.

`advisor ask` should pay for rapidfuzz and a cache read, nothing more. The index is plain data
(dicts, lists, strings, bytes) saved with `marshal`, keyed by every knowledge file's path, size
and modification time plus the engine version. Postings are packed `array('i')` bytes that are
only unpacked for the tokens a query uses, which keeps a 100,000-entry index small and fast.
"""

from __future__ import annotations

import hashlib
import marshal
import math
import os
import sys
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.analysis import Analyzer, bigrams
from advisor.problems import Problem

# Bump when the index layout or the analysis changes: old caches are then rebuilt.
INDEX_VERSION = 9
# Field weights in twelfths, packed beside the topic number in one int32 posting. A token the
# authors repeat across a topic's phrasings earns up to TF_BONUS more: it is what the topic is about.
FIELD_WEIGHTS = {"title": 10, "question": 8, "keyword": 8, "heading": 5, "summary": 4, "body": 2}
FULL_WEIGHT = 12
TF_BONUS = 2
PHRASE_FIELDS = ("title", "question", "keyword")


@dataclass(frozen=True)
class EntryMeta:
    id: str
    lang: str
    title: str
    summary: str
    related: tuple[str, ...]
    sources: tuple[str, ...]
    path: str


class SearchIndex:
    """Read side of the index; wraps the plain data loaded from the cache."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.topics: list[str] = data["topics"]
        self.entries: list[list[Any]] = data["entries"]
        self.topic_entries: list[dict[str, int]] = data["topic_entries"]
        self.phrases: list[str] = data["phrases"]
        self.phrase_text: list[str] = data["phrase_text"]
        self.phrase_field: bytes = data["phrase_field"]
        self.phrase_entry: array = _ints(data["phrase_entry"])
        self.topic_phrase_start: array = _ints(data["topic_phrase_start"])
        self.postings: dict[str, bytes] = data["postings"]
        self.markers: dict[str, list[str]] = data["markers"]
        self.problems = [Problem(*p) for p in data["problems"]]
        self.analyzer = Analyzer.build(frozenset(data["stopwords"]), data["synonyms"])
        self._vocab_by_len: dict[int, list[str]] | None = None
        self._by_id: dict[tuple[str, str], int] | None = None

    @property
    def topic_count(self) -> int:
        return len(self.topics)

    def posting(self, token: str) -> array:
        return _ints(self.postings.get(token, b""))

    def document_frequency(self, token: str) -> int:
        return len(self.postings.get(token, b"")) // 4

    def idf(self, token: str) -> float:
        df = self.document_frequency(token)
        return math.log(1 + self.topic_count / df) if df else self.unknown_idf

    @property
    def unknown_idf(self) -> float:
        return math.log(1 + max(self.topic_count, 1))

    def vocabulary(self, length: int) -> list[str]:
        """Unigram tokens of about `length` characters (for typo correction)."""
        if self._vocab_by_len is None:
            buckets: dict[int, list[str]] = {}
            # Most frequent first: on a tie, a typo is repaired to the commoner word.
            for token in sorted(self.postings, key=lambda t: -len(self.postings[t])):
                if "_" not in token:
                    buckets.setdefault(len(token), []).append(token)
            known = self.analyzer.variant_words
            for token in sorted(known):
                buckets.setdefault(len(token), []).append(token)
            self._vocab_by_len = buckets
        out: list[str] = []
        for size in (length - 1, length, length + 1):
            out.extend(self._vocab_by_len.get(size, ()))
        return out

    def meta(self, entry_index: int) -> EntryMeta:
        entry_id, lang, title, summary, related, sources, path = self.entries[entry_index]
        return EntryMeta(entry_id, lang, title, summary, tuple(related), tuple(sources), path)

    def entry_index(self, entry_id: str, lang: str | None = None) -> int | None:
        """The entry of `entry_id` in `lang`, falling back to any language it exists in."""
        if self._by_id is None:
            self._by_id = {(e[0], e[1]): i for i, e in enumerate(self.entries)}
        if lang is not None and (entry_id, lang) in self._by_id:
            return self._by_id[(entry_id, lang)]
        for (known_id, _), index in sorted(self._by_id.items()):
            if known_id == entry_id:
                return index
        return None

    def topic_of(self, entry_id: str) -> int | None:
        try:
            return self.topics.index(entry_id)
        except ValueError:
            return None


def _ints(raw: bytes) -> array:
    values = array("i")
    values.frombytes(raw)
    if sys.byteorder != "little":  # the cache is always written little-endian
        values.byteswap()
    return values


def _pack(values: list[int]) -> bytes:
    packed = array("i", values)
    if sys.byteorder != "little":
        packed.byteswap()
    return packed.tobytes()


def build_index(kb: Any, root: Path | None = None) -> dict[str, Any]:
    """Plain-data index of a loaded `KnowledgeBase` (plus `root`'s provider catalogue, if any).

    The catalogue rides along as plain data so that `advisor ask` can answer provider questions
    from a warm cache without importing YAML; `providers.yaml` sits at the top of the knowledge
    folder, so `source_fingerprint` already notices when it changes.
    """
    catalogue = None
    if root is not None:
        from advisor.providers import catalogue_to_data, load_catalogue

        catalogue = load_catalogue(root)
    lexicon = kb.lexicon
    analyzer = Analyzer.build(lexicon.stopwords, lexicon.synonyms or {})
    topics = sorted({entry.id for entry in kb.entries})
    topic_number = {topic: i for i, topic in enumerate(topics)}
    ordered = sorted(kb.entries, key=lambda e: (topic_number[e.id], e.lang))
    entries = [[e.id, e.lang, e.title, e.summary, list(e.related), list(e.sources), e.path] for e in ordered]
    topic_entries: list[dict[str, int]] = [{} for _ in topics]
    weights: list[dict[str, int]] = [{} for _ in topics]
    phrases: list[str] = []
    phrase_text: list[str] = []
    phrase_field = bytearray()
    phrase_entry: list[int] = []
    topic_phrase_start = [0] * (len(topics) + 1)

    phrase_counts: list[dict[str, int]] = [{} for _ in topics]

    def add(topic: int, text: str, field: str) -> list[str]:
        words = analyzer.content(text)
        weight = FIELD_WEIGHTS[field]
        table = weights[topic]
        features = words + (bigrams(words) if field != "body" else [])
        for feature in features:
            if table.get(feature, 0) < weight:
                table[feature] = weight
        if field in PHRASE_FIELDS:
            counts = phrase_counts[topic]
            for feature in set(features):
                counts[feature] = counts.get(feature, 0) + 1
        return words

    for entry_index, entry in enumerate(ordered):
        topic = topic_number[entry.id]
        topic_entries[topic][entry.lang] = entry_index
        texts = [("title", entry.title)] + [("question", q) for q in entry.questions] + [("keyword", k) for k in entry.keywords]
        for field, text in texts:
            words = add(topic, text, field)
            if words:
                phrases.append(" ".join(words))
                phrase_text.append(text)
                phrase_field.append(PHRASE_FIELDS.index(field))
                phrase_entry.append(entry_index)
        for heading in entry.headings:
            add(topic, heading, "heading")
        add(topic, entry.summary, "summary")
        add(topic, entry.body, "body")
        topic_phrase_start[topic + 1] = len(phrases)
    for topic in range(1, len(topics) + 1):  # topics without phrases keep an empty range
        topic_phrase_start[topic] = max(topic_phrase_start[topic], topic_phrase_start[topic - 1])

    postings: dict[str, list[int]] = {}
    for topic, table in enumerate(weights):
        counts = phrase_counts[topic]
        for feature, weight in table.items():
            repeated = counts.get(feature, 0)
            bonus = TF_BONUS if repeated >= 6 else 1 if repeated >= 3 else 0
            postings.setdefault(feature, []).append(topic * 16 + min(weight + bonus, FULL_WEIGHT))
    return {
        "version": INDEX_VERSION,
        "topics": topics,
        "entries": entries,
        "topic_entries": topic_entries,
        "phrases": phrases,
        "phrase_text": phrase_text,
        "phrase_field": bytes(phrase_field),
        "phrase_entry": _pack(phrase_entry),
        "topic_phrase_start": _pack(topic_phrase_start),
        "postings": {feature: _pack(values) for feature, values in postings.items()},
        "stopwords": sorted(lexicon.stopwords),
        "synonyms": {k: list(v) for k, v in (lexicon.synonyms or {}).items()},
        "markers": {k: sorted(v) for k, v in (lexicon.markers or {}).items()},
        "problems": [[p.path, p.line, p.message, p.warning] for p in (*kb.problems, *(catalogue.problems if catalogue else ()))],
        "providers": catalogue_to_data(catalogue) if catalogue and catalogue.providers else None,
    }


def source_fingerprint(root: Path) -> str:
    """Hash of every knowledge file's name, size and mtime (content changes move mtime)."""
    digest = hashlib.sha256(f"{INDEX_VERSION}\0{root.resolve()}".encode())
    try:
        top = sorted(os.scandir(root), key=lambda d: d.name)
    except OSError:
        return "missing"
    for item in top:
        if item.name.startswith("."):
            continue
        try:
            if item.is_dir():
                children = sorted(os.scandir(item.path), key=lambda d: d.name)
            else:
                children = [item]
        except OSError:
            continue
        for child in children:
            try:
                stat = child.stat()
            except OSError:
                continue
            digest.update(f"{child.path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _cache_file(root: Path) -> Path:
    from advisor.paths import cache_dir

    name = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return cache_dir() / f"index-{name}.marshal"


def load_index(root: Path, *, use_cache: bool = True) -> SearchIndex:
    """The index for `root`, from the cache when it is current, rebuilt (and saved) otherwise.

    A stale, truncated or foreign cache file is never trusted: anything that does not load
    cleanly with the right key is rebuilt from the knowledge files.
    """
    key = source_fingerprint(root)
    path = _cache_file(root)
    if use_cache:
        try:
            with open(path, "rb") as handle:
                cached = marshal.load(handle)
            if isinstance(cached, dict) and cached.get("key") == key and cached.get("version") == INDEX_VERSION:
                return SearchIndex(cached)
        except (OSError, EOFError, ValueError, TypeError, KeyError):
            pass
    from advisor.knowledge import load_knowledge

    data = build_index(load_knowledge(root), root)
    data["key"] = key
    if use_cache:
        _save(path, data)
    return SearchIndex(data)


def _save(path: Path, data: dict[str, Any]) -> None:
    """Write atomically; a cache that cannot be written is not an error, only slower next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        with open(temporary, "wb") as handle:
            marshal.dump(data, handle)
        os.replace(temporary, path)
    except (OSError, ValueError):
        try:
            temporary.unlink(missing_ok=True)  # type: ignore[possibly-undefined]
        except (OSError, UnboundLocalError):
            pass

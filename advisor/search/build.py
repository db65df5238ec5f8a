"""Building the search index of a knowledge folder into packed sections, one topic at a time.

Each feature (a word, or a pair of neighbouring words in a phrase) gets a posting list of the
topics it occurs in, weighted by the best field it occurs in. Alternate questions, titles and
keywords are also kept whole as phrases for fuzzy matching.

A folder of 100,000 entries makes a million phrases and three million features, so nothing is
held per entry or per feature that need not be: entries are read one topic at a time
(`advisor.knowledge.load.topics`) and dropped once indexed; phrases, records and postings go to
temporary files; postings gather topic by topic in flat arrays, sorted into place at the end
(`advisor.search.postings`), and a pair is two word numbers, never a string in a dict. The
per-topic arithmetic runs through `map` over whole dicts rather than a Python loop per posting.
A large folder is built in parts by worker processes, then joined (`_fill`).
"""

from __future__ import annotations

import gc
import marshal
import os
from array import array
from collections import deque
from collections.abc import Callable
from itertools import count, filterfalse, islice, repeat
from operator import add
from typing import Any

from advisor.search import tables
from advisor.search.analysis import Analyzer
from advisor.search.features import Analysed, analyse
from advisor.search.index import INDEX_VERSION, MAX_TOPICS
from advisor.search.learned import WEIGHTS_FILE, read_weights
from advisor.search.postings import Postings

# Extra plain data to store beside the index: given the analyzer and a word's topic count.
Attach = Callable[[Analyzer, Callable[[str], int]], dict[str, Any]]


def build(root: str | os.PathLike[str], attach: Attach | None, progress: Callable[[int, int], None] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(header, sections) of the index of the knowledge folder `root`; a section is bytes or a
    `tables.Spill` to stream from. `progress(files read, files)` follows the reading."""
    from pathlib import Path

    from advisor.files import display_path
    from advisor.knowledge.lexicon import load_lexicon
    from advisor.knowledge.load import entry_groups, in_file_order
    from advisor.problems import Problem

    folder = Path(root)
    problems: list[Any] = []
    lexicon_problems: list[Any] = []
    files: list[Path] = []
    groups: list[list[Path]] = []
    lexicon = None
    if folder.is_dir():
        lexicon = load_lexicon(folder, lexicon_problems)
        files, groups = entry_groups(folder)
    else:
        problems.append(Problem(str(root), 0, "knowledge folder not found"))
    analyzer = Analyzer.build(lexicon.stopwords, lexicon.synonyms or {}) if lexicon else Analyzer.build(frozenset(), {})
    enabled = gc.isenabled()
    gc.disable()  # millions of objects and no cycles: the collector would only walk them again and again
    try:
        builder = _Builder(analyzer)
        found: list[Any] = []
        _fill(builder, folder, groups, found, progress, len(files))
        if len(builder.topics) > MAX_TOPICS:  # a posting has room for no more
            from advisor.problems import DataError

            raise DataError(Problem(str(root), 0, f"{len(builder.topics):,} entry ids: an index holds at most {MAX_TOPICS:,}"))
        problems += in_file_order(found, files, folder) + lexicon_problems
        weights_path = folder / WEIGHTS_FILE
        learned = read_weights(str(weights_path), display_path(weights_path, folder), builder.topics, problems)
        return builder.finish(lexicon, problems, attach, learned)
    finally:
        if enabled:
            gc.enable()


def _fill(builder: _Builder, folder: Any, groups: list[list[Any]], problems: list[Any], progress: Callable[[int, int], None] | None, files: int) -> None:
    """Add every topic of `groups` (`advisor.knowledge.load.entry_groups`) to `builder`, in order;
    problems of the entry files go to `problems`.

    Reading and analysing the entries is most of a build, and so is filling the tables topic by
    topic: for a large folder, each of a few worker processes builds the tables of a run of
    topics (a part) as a builder of its own, and this process only joins the parts, in order, in
    whole-array operations (`_Builder.join`). Workers are at most `_PARTS_AHEAD` parts ahead of
    the joining each, so that parts never pile up in memory.
    """
    from advisor.knowledge.load import read_topic

    processes = _workers(files)
    if processes > 1:
        _fill_parallel(builder, folder, groups, problems, progress, files, processes)
        return
    done = 0
    for group in groups:
        entries = read_topic(group, folder, problems)
        if entries:
            builder.absorb(analyse(entries, builder.analyzer))
        done += len(group)
        if progress is not None:
            progress(done, files)


# Folders with more entry files than this are read by worker processes (starting them costs
# about as much as reading this many files).
PARALLEL_FILES = 3_000
# A part is at most this many topics (its tables are held whole until joined), and at least
# 1/_PARTS_PER_WORKER of a worker's share, so that the workers finish together.
_PART = 2_000
_PARTS_PER_WORKER = 8
_PARTS_AHEAD = 2
_WORKER: dict[str, Any] = {}


def _workers(files: int) -> int:
    """How many worker processes to read `files` entry files with (below 2: none)."""
    if files <= PARALLEL_FILES:
        return 1
    return min(available_cores(), 4)


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _fill_parallel(builder: _Builder, folder: Any, groups: list[list[Any]], problems: list[Any], progress: Callable[[int, int], None] | None, files: int, processes: int) -> None:
    """`_fill`, by `processes` worker processes."""
    from concurrent.futures import ProcessPoolExecutor

    from advisor.problems import Problem

    size = max(min(-(-len(groups) // (processes * _PARTS_PER_WORKER)), _PART), 1)
    parts = iter([groups[start : start + size] for start in range(0, len(groups), size)])
    setup = (folder, sorted(builder.analyzer.stopwords), dict(builder.analyzer.synonyms))
    done = 0
    with ProcessPoolExecutor(processes, mp_context=_context(), initializer=_start_worker, initargs=setup) as pool:
        pending = deque(pool.submit(_build_part, part) for part in islice(parts, processes * _PARTS_AHEAD))
        while pending:
            part, found, read = marshal.loads(pending.popleft().result())
            following = next(parts, None)
            if following is not None:
                pending.append(pool.submit(_build_part, following))
            problems += [Problem(*problem) for problem in found]
            builder.join(part)
            done += read
            if progress is not None:
                progress(done, files)


def _context() -> Any:
    """Forked workers start at once; but forking a process that runs other threads (the app
    builds its index in one) can leave a lock held forever in the child, so then they are spawned."""
    import multiprocessing
    import threading

    forkable = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    return multiprocessing.get_context("fork" if forkable else "spawn")


def _start_worker(folder: Any, stopwords: list[str], synonyms: dict[str, tuple[str, ...]]) -> None:
    gc.disable()
    _WORKER.update(folder=folder, analyzer=Analyzer.build(frozenset(stopwords), synonyms))


def _build_part(groups: list[list[Any]]) -> bytes:
    """The tables of the topics of `groups` (`_Builder.export`), their files' problems and how
    many files were read, as one marshal blob (plain data: far cheaper to send than pickling)."""
    from advisor.knowledge.load import read_topic

    folder, analyzer = _WORKER["folder"], _WORKER["analyzer"]
    problems: list[Any] = []
    builder = _Builder(analyzer, spill=False)
    for group in groups:
        entries = read_topic(group, folder, problems)
        if entries:
            builder.absorb(analyse(entries, analyzer))
    return marshal.dumps((builder.export(), [tuple(problem) for problem in problems], sum(map(len, groups))))


class _Builder:
    """The tables of one index, filled topic by topic (`absorb`) or part by part (`join`), then
    packed (`finish`)."""

    def __init__(self, analyzer: Analyzer, spill: bool = True) -> None:
        """`spill`: keep the records and phrases in temporary files (a worker's part is small)."""
        self.analyzer = analyzer
        self.topics: list[str] = []
        self.records: tables.Spill | bytearray = tables.Spill() if spill else bytearray()
        self.record_offsets = array("q", [0])
        self.section_words: tables.Spill | bytearray = tables.Spill() if spill else bytearray()
        self.section_word_offsets = array("q", [0])
        self.entry_lang = bytearray()
        self.langs: dict[str, int] = {}
        self.topic_entry_start = array("i", [0])
        self.topic_phrase_start = array("i", [0])
        self.topic_size = array("i")
        self.phrases = tables.StringPacker(lines=True, spill=spill)
        self.sorted_phrases = tables.StringPacker(lines=True, spill=spill)  # token_sort_ratio compares these
        self.phrase_text = tables.StringPacker(spill=spill)
        self.phrase_field = bytearray()
        self.phrase_entry = array("i")
        self.words: dict[str, int] = {}  # word -> number, in the order first seen
        self.postings = Postings()
        self.error_lines: dict[tuple[str, ...], list[int]] = {}

    def absorb(self, analysed: Analysed) -> None:
        """Add one analysed topic to the tables."""
        topic_id, records, ends, langs, signatures, phrases, sorted_phrases, texts, fields, entries, words, weights, firsts, seconds, pair_weights, section_words, section_ends, masses, size = analysed
        topic = len(self.topics)
        self.topic_size.append(size)
        self.topics.append(topic_id)
        first_entry = len(self.entry_lang)
        self.record_offsets.extend(map(add, ends, repeat(len(self.records))))
        self.records.extend(records)
        self.section_word_offsets.extend(map(add, section_ends, repeat(len(self.section_words))))
        self.section_words.extend(section_words)
        self.entry_lang.extend(self.langs.setdefault(lang, len(self.langs)) for lang in langs)
        for signature in signatures:
            self.error_lines.setdefault(signature, []).append(topic)
        self.phrases.add_run(*phrases)
        self.sorted_phrases.add_run(*sorted_phrases)
        self.phrase_text.add_run(*texts)
        self.phrase_field += fields
        self.phrase_entry.extend(map(add, array("i", entries), repeat(first_entry)))
        self.topic_phrase_start.append(len(self.phrases))
        self.topic_entry_start.append(len(self.entry_lang))
        numbering = self.words
        numbering.update(zip(filterfalse(numbering.__contains__, words), count(len(numbering))))
        self.postings.add_topic(list(map(numbering.__getitem__, words)), weights, masses, firsts, seconds, pair_weights)

    def export(self) -> tuple[Any, ...]:
        """The tables as plain data (marshal), for `join` in another process."""
        packed = [packer.packed() for packer in (self.phrases, self.sorted_phrases, self.phrase_text)]
        assert isinstance(self.records, bytearray) and isinstance(self.section_words, bytearray), "a part is built unspilled"
        assert not any(isinstance(blob, tables.Spill) for blob, _ in packed), "a part is built unspilled"
        return (
            self.topics,
            bytes(self.records),
            self.record_offsets.tobytes(),
            bytes(self.section_words),
            self.section_word_offsets.tobytes(),
            list(self.langs),
            bytes(self.entry_lang),
            self.topic_entry_start.tobytes(),
            self.topic_phrase_start.tobytes(),
            self.topic_size.tobytes(),
            packed,
            bytes(self.phrase_field),
            self.phrase_entry.tobytes(),
            self.error_lines,
            list(self.words),
            self.postings.export(),
        )

    def join(self, part: tuple[Any, ...]) -> None:
        """Add the tables of the topics that follow these, `export`ed by another builder: the
        same tables as absorbing those topics here, in whole-array operations."""
        topics, records, record_offsets, section_words, section_word_offsets, langs, entry_lang, entry_starts, phrase_starts, sizes, packed, fields, entries, errors, words, postings = part
        topic, first_entry = len(self.topics), len(self.entry_lang)
        self.topics += topics
        self.record_offsets.extend(map(add, array("q", record_offsets)[1:], repeat(len(self.records))))
        self.records.extend(records)
        self.section_word_offsets.extend(map(add, array("q", section_word_offsets)[1:], repeat(len(self.section_words))))
        self.section_words.extend(section_words)
        recode = bytes(self.langs.setdefault(lang, len(self.langs)) for lang in langs)
        self.entry_lang += entry_lang.translate(recode + bytes(256 - len(recode)))
        self.topic_entry_start.extend(map(add, array("i", entry_starts)[1:], repeat(first_entry)))
        self.topic_phrase_start.extend(map(add, array("i", phrase_starts)[1:], repeat(len(self.phrases))))
        self.topic_size.frombytes(sizes)
        for packer, (blob, offsets) in zip((self.phrases, self.sorted_phrases, self.phrase_text), packed):
            packer.add_run(blob, array("q", offsets)[1:])
        self.phrase_field += fields
        self.phrase_entry.extend(map(add, array("i", entries), repeat(first_entry)))
        for signature, found in errors.items():
            self.error_lines.setdefault(signature, []).extend(map(add, found, repeat(topic)))
        numbering = self.words  # the part's words, numbered as absorbing its topics would
        numbering.update(zip(filterfalse(numbering.__contains__, words), count(len(numbering))))
        self.postings.add_part(postings, list(map(numbering.__getitem__, words)))

    def finish(self, lexicon: Any, problems: list[Any], attach: Attach | None, learned: dict[str, bytes]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The header (plain data) and sections of the index; `learned`: the sections of its
        learned weights (`advisor.search.learned.read_weights`)."""
        words = list(self.words)
        word_lengths = self.postings.word_counts(len(words))
        frequency = dict(zip(words, word_lengths.tolist()))
        extra = attach(self.analyzer, lambda word: frequency.get(word, 0)) if attach else {}
        vocabulary_text, vocabulary = _vocabulary(words, frequency, self.analyzer)
        langs = sorted(self.langs)
        recode = bytes(langs.index(lang) for lang in self.langs)
        sections: dict[str, Any] = {"topics": "\n".join(self.topics).encode("utf-8")}
        sections["entries"], sections["entry_offsets"] = self.records, self.record_offsets.tobytes()
        sections["section_words"], sections["section_word_offsets"] = self.section_words, self.section_word_offsets.tobytes()
        sections["entry_lang"] = bytes(self.entry_lang).translate(recode + bytes(256 - len(recode)))
        sections["topic_entry_start"] = self.topic_entry_start.tobytes()
        sections["phrases"], sections["phrase_offsets"] = self.phrases.packed()
        sections["sorted_phrases"], sections["sorted_phrase_offsets"] = self.sorted_phrases.packed()
        sections["phrase_text"], sections["phrase_text_offsets"] = self.phrase_text.packed()
        sections["phrase_field"] = bytes(self.phrase_field)
        sections["phrase_entry"] = self.phrase_entry.tobytes()
        sections["topic_phrase_start"] = self.topic_phrase_start.tobytes()
        sections["topic_size"] = self.topic_size.tobytes()
        sections["features"], sections["feature_offsets"], sections["feature_table"] = tables.pack_table(words)
        sections["pairs"], sections["posting_starts"], sections["postings"] = self.postings.pack(word_lengths)
        sections["vocabulary"] = vocabulary_text
        sections.update(_error_line_sections(self.error_lines))
        sections.update(learned)
        sections["attached"] = marshal.dumps({key: value for key, value in extra.items() if key != "problems" and not key.endswith("_triggers")})
        header = {
            "version": INDEX_VERSION,
            "langs": langs,
            "vocabulary": vocabulary,
            "stopwords": sorted(lexicon.stopwords) if lexicon else [],
            "synonyms": {k: list(v) for k, v in ((lexicon.synonyms if lexicon else None) or {}).items()},
            "choices": {k: list(v) for k, v in ((lexicon.choices if lexicon else None) or {}).items()},
            "whether": {k: [list(v.asked_by), list(v.about), list(v.beside)] for k, v in ((lexicon.whether if lexicon else None) or {}).items()},
            "markers": {k: sorted(v) for k, v in ((lexicon.markers if lexicon else None) or {}).items()},
            "canonical": self.analyzer.phrases,
            "problems": [[p.path, p.line, p.message, p.warning] for p in problems] + list(extra.get("problems", ())),
            # Only the words that tell whether a question is for an attachment are read on every
            # start; the attachment itself (the catalogue) is a section, decoded when needed.
            **{key: value for key, value in extra.items() if key.endswith("_triggers")},
        }
        return header, sections


def _vocabulary(words: list[str], frequency: dict[str, int], analyzer: Analyzer) -> tuple[bytes, dict[int, tuple[int, int]]]:
    """Typo-repair vocabulary bucketed by length, computed once here rather than on every start.

    Each bucket lists words commonest first (on a tie, a typo is repaired to the commoner word,
    then to the word indexed first), then the words that only occur inside synonym phrases.
    Returns the buckets' text, one word a line, and each length's (start, end) byte range in it.
    """
    buckets: dict[int, list[str]] = {}
    for word in sorted(words, key=lambda word: -frequency[word]):  # stable: first indexed first
        if "_" not in word:
            buckets.setdefault(len(word), []).append(word)
    for word in sorted(analyzer.variant_words):
        buckets.setdefault(len(word), []).append(word)
    parts: list[bytes] = []
    ranges: dict[int, tuple[int, int]] = {}
    position = 0
    for length, found in sorted(buckets.items()):
        blob = "\n".join(found).encode("utf-8")
        ranges[length] = (position, position + len(blob))
        parts.append(blob)
        position += len(blob)
    return b"".join(parts), ranges


def _error_line_sections(lines: dict[tuple[str, ...], list[int]]) -> dict[str, bytes]:
    """The sections of `SearchIndex.error_lines`: each word of a listed error line -> (the line's
    words, topic number) of every line holding it, one record a word, read as a question's words
    ask for them rather than decoded whole on every start."""
    table: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    for signature, topics in lines.items():
        for topic in topics:
            for word in dict.fromkeys(signature):
                table.setdefault(word, []).append((signature, topic))
    words = sorted(table)  # the same file whether the topics were absorbed or joined
    sections = dict(zip(("error_words", "error_word_offsets", "error_word_table"), tables.pack_table(words)))
    # Format 0 shares no object within a record: newer formats mark shared strings and tuples by
    # how the process that built them came by them, and a build by workers would write other bytes.
    sections["error_records"], sections["error_record_offsets"] = tables.pack_records(marshal.dumps(table[word], 0) for word in words)
    return sections

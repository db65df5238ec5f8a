"""Building the search index of a knowledge folder into packed sections, one topic at a time.

Each feature (a word, or a pair of neighbouring words in a phrase) gets a posting list of the
topics it occurs in, weighted by the best field it occurs in. Alternate questions, titles and
keywords are also kept whole as phrases for fuzzy matching.

A folder of 100,000 entries makes a million phrases and three million features, so nothing is
held per entry or per feature that need not be: entries are read one topic at a time
(`advisor.knowledge.load.topics`) and dropped once indexed; phrases, records and postings go to
temporary files; a word's postings grow in one array per word, and a pair is two word numbers,
gathered in flat arrays and sorted into place at the end, never a string in a dict. The
per-topic arithmetic runs through `map` over whole dicts rather than a Python loop per posting.
"""

from __future__ import annotations

import gc
import marshal
import os
import sys
from array import array
from collections import Counter, deque
from collections.abc import Callable, Iterator
from itertools import accumulate, chain, compress, count, filterfalse, islice, repeat
from operator import add, itemgetter, lshift, ne, or_, sub
from typing import Any

from advisor.search import tables
from advisor.search.analysis import Analyzer
from advisor.search.index import FIELD_WEIGHTS, FOCUS_BONUS, FULL_WEIGHT, INDEX_VERSION, MIN_ERROR_WORDS, PHRASE_FIELDS, WEIGHT_BITS

# Extra plain data to store beside the index: given the analyzer and a word's topic count.
Attach = Callable[[Analyzer, Callable[[str], int]], dict[str, Any]]


def build(root: str | os.PathLike[str], attach: Attach | None, progress: Callable[[int, int], None] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(header, sections) of the index of the knowledge folder `root`; a section is bytes or a
    `tables.Spill` to stream from. `progress(files read, files)` follows the reading."""
    from pathlib import Path

    from advisor.knowledge.load import entry_groups, in_file_order, load_lexicon
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
        for topic in analysed_topics(folder, groups, analyzer, found, progress, len(files)):
            builder.absorb(topic)
        problems += in_file_order(found, files, folder) + lexicon_problems
        return builder.finish(lexicon, problems, attach)
    finally:
        if enabled:
            gc.enable()


def analysed_topics(folder: Any, groups: list[list[Any]], analyzer: Analyzer, problems: list[Any], progress: Callable[[int, int], None] | None, files: int) -> Iterator[Analysed]:
    """Every topic of `groups` (`advisor.knowledge.load.entry_groups`) read and analysed, in order.

    Reading and analysing is most of a build; a large folder shares it among worker processes,
    at most `_BATCHES_AHEAD` batches ahead of the tables being filled, so that results never pile
    up in memory. Problems of the entry files go to `problems`.
    """
    from advisor.knowledge.load import read_topic
    from advisor.problems import Problem

    workers = _workers() if files > PARALLEL_FILES else 1
    done = 0
    if workers < 2:
        for group in groups:
            entries = read_topic(group, folder, problems)
            if entries:
                yield analyse(entries, analyzer)
            done += len(group)
            if progress is not None:
                progress(done, files)
        return
    from concurrent.futures import ProcessPoolExecutor

    batches = iter([groups[start : start + _BATCH] for start in range(0, len(groups), _BATCH)])
    setup = (folder, sorted(analyzer.stopwords), dict(analyzer.synonyms))
    with ProcessPoolExecutor(workers, mp_context=_context(), initializer=_start_worker, initargs=setup) as pool:
        pending = deque(pool.submit(_analyse_batch, batch) for batch in islice(batches, workers * _BATCHES_AHEAD))
        while pending:
            results, found, read = marshal.loads(pending.popleft().result())
            following = next(batches, None)
            if following is not None:
                pending.append(pool.submit(_analyse_batch, following))
            problems += [Problem(*problem) for problem in found]
            yield from results
            done += read
            if progress is not None:
                progress(done, files)


# Folders with more entry files than this are read by worker processes (starting them costs
# about as much as reading this many files).
PARALLEL_FILES = 3_000
_BATCH = 200
_BATCHES_AHEAD = 3
_WORKER: dict[str, Any] = {}


def _workers() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return min(cores, 4)


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


def _analyse_batch(groups: list[list[Any]]) -> bytes:
    """The analysed topics of `groups`, their files' problems and how many files were read, as
    one marshal blob (plain data: several times cheaper to send back than pickling it)."""
    from advisor.knowledge.load import read_topic

    folder, analyzer = _WORKER["folder"], _WORKER["analyzer"]
    problems: list[Any] = []
    results = []
    for group in groups:
        entries = read_topic(group, folder, problems)
        if entries:
            results.append(analyse(entries, analyzer))
    return marshal.dumps((results, [tuple(problem) for problem in problems], sum(map(len, groups))))


# One topic, read and analysed, in few objects (worker processes send it whole): its id, its
# entries' records (one blob and where each ends) and languages, its error lines' signatures,
# its phrasings (words, words sorted, text, each packed; field and entry number as bytes), its words
# and their weights, and its pairs of neighbouring words (two word positions) and their weights.
# A weight is the best field weight plus the focus bonus (capped at FULL_WEIGHT); the builder
# numbers the words and adds the topic number.
Run = tuple[bytes, list[int]]  # strings packed by `tables.run`
Analysed = tuple[str, bytes, list[int], list[str], list[tuple[str, ...]], Run, Run, Run, bytes, bytes, list[str], bytes, bytes, bytes, bytes]


def analyse(entries: list[Any], analyzer: Analyzer) -> Analysed:
    """The analysis of one topic's entries (all of one id, by language).

    A feature's weight is the best weight of the fields it occurs in: the fields' words are
    laid over one another lightest first, so that the heaviest stays, in whole-list operations.
    """
    texts: list[tuple[int, list[str], list[tuple[str, str]]]] = []  # (field weight, words, pairs), in the order written
    held: list[set[Any]] = []  # the features of each phrasing
    phrasings: list[tuple[str, str, str, int, int]] = []
    signatures: list[tuple[str, ...]] = []
    records = [marshal.dumps([e.id, e.lang, e.title, e.summary, list(e.related), [list(pair) for pair in e.sources], e.path, e.topic]) for e in entries]
    for number, entry in enumerate(entries):
        for line in entry.errors:
            signature = tuple(analyzer.content(line))
            if len(signature) >= MIN_ERROR_WORDS and signature not in signatures:
                signatures.append(signature)
        fields = [("title", entry.title)] + [("question", q) for q in entry.questions] + [("keyword", k) for k in entry.keywords]
        fields += [("error", line) for line in entry.errors] + [("heading", heading) for heading in entry.headings]
        for field, text in [*fields, ("summary", entry.summary), ("body", entry.body)]:
            words = analyzer.content(text)
            pairs = list(zip(words, words[1:])) if field != "body" else []
            texts.append((FIELD_WEIGHTS[field], words, pairs))
            if field in PHRASE_FIELDS:
                held.append({*words, *pairs})
                if words:
                    phrasings.append((" ".join(words), " ".join(sorted(words)), text, PHRASE_FIELDS.index(field), number))
    counts = Counter(chain.from_iterable(held))  # feature -> how many of the topic's phrasings hold it
    weights = _best(texts, 1)
    pair_weights = _best(texts, 2)
    phrases = max(len(phrasings), 1)
    bonus = [round(FOCUS_BONUS * min(held / phrases, 1.0)) for held in range(max(counts.values(), default=0) + 1)]

    def final(table: dict[Any, int]) -> bytes:
        return bytes(map(min, map(add, table.values(), map(bonus.__getitem__, map(counts.get, table, repeat(0)))), repeat(FULL_WEIGHT)))

    position = {word: number for number, word in enumerate(weights)}
    return (
        entries[0].id,
        b"".join(records),
        list(accumulate(map(len, records))),
        [entry.lang for entry in entries],
        signatures,
        tables.run(list(map(itemgetter(0), phrasings)), lines=True),
        tables.run(list(map(itemgetter(1), phrasings)), lines=True),
        tables.run(list(map(itemgetter(2), phrasings))),
        bytes(map(itemgetter(3), phrasings)),
        array("i", map(itemgetter(4), phrasings)).tobytes(),
        list(weights),
        final(weights),
        array("i", map(position.__getitem__, map(itemgetter(0), pair_weights))).tobytes(),
        array("i", map(position.__getitem__, map(itemgetter(1), pair_weights))).tobytes(),
        final(pair_weights),
    )


def _best(texts: list[tuple[int, list[str], list[tuple[str, str]]]], part: int) -> dict[Any, int]:
    """Each feature (words: `part` 1, pairs: 2) with the best weight of the texts holding it, in
    the order first written."""
    best: dict[Any, int] = {}
    for text in sorted(texts, key=itemgetter(0)):  # lightest first: the heaviest is laid last
        features: list[Any] = text[part]  # type: ignore[assignment]  # `part` picks a list
        best.update(zip(features, repeat(text[0])))
    order: dict[Any, int] = dict.fromkeys(chain.from_iterable(map(itemgetter(part), texts)), 0)
    order.update(best)  # keeps the order of the keys, takes the values
    return order


class _Builder:
    """The tables of one index, filled topic by topic (`absorb`), then packed (`finish`)."""

    def __init__(self, analyzer: Analyzer) -> None:
        self.analyzer = analyzer
        self.topics: list[str] = []
        self.records = tables.Spill()
        self.record_offsets = array("q", [0])
        self.entry_lang = bytearray()
        self.langs: dict[str, int] = {}
        self.topic_entry_start = array("i", [0])
        self.topic_phrase_start = array("i", [0])
        self.phrases = tables.StringPacker(lines=True, spill=True)
        self.sorted_phrases = tables.StringPacker(lines=True, spill=True)  # token_sort_ratio compares these
        self.phrase_text = tables.StringPacker(spill=True)
        self.phrase_field = bytearray()
        self.phrase_entry = array("i")
        self.words: dict[str, int] = {}  # word -> number, in the order first seen
        self.word_postings: list[array] = []
        self.pair_postings: list[array] = []  # by first word
        self.error_lines: dict[tuple[str, ...], list[int]] = {}

    def absorb(self, analysed: Analysed) -> None:
        """Add one analysed topic to the tables."""
        topic_id, records, ends, langs, signatures, phrases, sorted_phrases, texts, fields, entries, words, weights, firsts, seconds, pair_weights = analysed
        topic = len(self.topics)
        self.topics.append(topic_id)
        first_entry = len(self.entry_lang)
        self.record_offsets.extend(map(add, ends, repeat(len(self.records))))
        self.records.extend(records)
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
        # The postings: topic << WEIGHT_BITS | weight, for each word, in the order first seen;
        # a pair's go to its first word's list beside the second word's number, to be sorted.
        numbering = self.words
        new = list(filterfalse(numbering.__contains__, words))
        if new:
            numbering.update(zip(new, range(len(numbering), len(numbering) + len(new))))
            self.word_postings.extend(array("i") for _ in new)
            self.pair_postings.extend(array("q") for _ in new)
        numbers = list(map(numbering.__getitem__, words))
        base = topic << WEIGHT_BITS
        append = array.append  # through map and a zero-length deque: no Python step per posting
        deque(map(append, map(self.word_postings.__getitem__, numbers), map(or_, repeat(base), weights)), maxlen=0)
        seconds_shifted = map(lshift, map(numbers.__getitem__, array("i", seconds)), repeat(32))
        items = map(or_, seconds_shifted, map(or_, repeat(base), pair_weights))
        deque(map(append, map(self.pair_postings.__getitem__, map(numbers.__getitem__, array("i", firsts))), items), maxlen=0)

    def finish(self, lexicon: Any, problems: list[Any], attach: Attach | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """The header (plain data) and sections of the index."""
        words = list(self.words)
        frequency = dict(zip(words, map(len, self.word_postings)))
        extra = attach(self.analyzer, lambda word: frequency.get(word, 0)) if attach else {}
        vocabulary_text, vocabulary = _vocabulary(words, frequency, self.analyzer)
        langs = sorted(self.langs)
        recode = bytes(langs.index(lang) for lang in self.langs)
        sections: dict[str, Any] = {"topics": "\n".join(self.topics).encode("utf-8")}
        sections["entries"], sections["entry_offsets"] = self.records, self.record_offsets.tobytes()
        sections["entry_lang"] = bytes(self.entry_lang).translate(recode + bytes(256 - len(recode)))
        sections["topic_entry_start"] = self.topic_entry_start.tobytes()
        sections["phrases"], sections["phrase_offsets"] = self.phrases.packed()
        sections["sorted_phrases"], sections["sorted_phrase_offsets"] = self.sorted_phrases.packed()
        sections["phrase_text"], sections["phrase_text_offsets"] = self.phrase_text.packed()
        sections["phrase_field"] = bytes(self.phrase_field)
        sections["phrase_entry"] = self.phrase_entry.tobytes()
        sections["topic_phrase_start"] = self.topic_phrase_start.tobytes()
        sections["features"], sections["feature_offsets"], sections["feature_table"] = tables.pack_table(words)
        sections["pairs"], sections["posting_starts"], sections["postings"] = self._pack_postings(len(words))
        sections["vocabulary"] = vocabulary_text
        sections["attached"] = marshal.dumps({key: value for key, value in extra.items() if key != "problems" and not key.endswith("_triggers")})
        header = {
            "version": INDEX_VERSION,
            "langs": langs,
            "vocabulary": vocabulary,
            "stopwords": sorted(lexicon.stopwords) if lexicon else [],
            "synonyms": {k: list(v) for k, v in ((lexicon.synonyms if lexicon else None) or {}).items()},
            "markers": {k: sorted(v) for k, v in ((lexicon.markers if lexicon else None) or {}).items()},
            "errors": [[list(signature), topic] for signature, found in self.error_lines.items() for topic in found],
            "canonical": self.analyzer.phrases,
            "problems": [[p.path, p.line, p.message, p.warning] for p in problems] + list(extra.get("problems", ())),
            # Only the words that tell whether a question is for an attachment are read on every
            # start; the attachment itself (the catalogue) is a section, decoded when needed.
            **{key: value for key, value in extra.items() if key.endswith("_triggers")},
        }
        return header, sections

    def _pack_postings(self, words: int) -> tuple[bytes, bytes, tables.Spill]:
        """(the sorted pair codes, the start of each feature's postings, all postings): the words'
        postings in word order, then the pairs', in the order of their codes (`tables.Postings`)."""
        values = tables.Spill()
        lengths = array("q", map(len, self.word_postings))
        for postings in self.word_postings:
            values.extend(postings)
        self.word_postings = []
        codes = array("q")
        low, high = (0, 1) if sys.byteorder == "little" else (1, 0)  # the halves of an int64
        for first, items in enumerate(self.pair_postings):  # second << 32 | posting, by first word
            if not items:
                continue
            ordered = array("q", sorted(items))
            halves = memoryview(ordered).cast("B").cast("i")
            seconds = halves[high::2]
            changes = list(compress(count(1), map(ne, seconds[1:], seconds)))  # where a new pair starts
            codes.extend(map(add, repeat(first * words), chain([seconds[0]], map(seconds.__getitem__, changes))))
            lengths.extend(map(sub, chain(changes, [len(seconds)]), chain([0], changes)))
            values.extend(halves[low::2].tobytes())
            self.pair_postings[first] = array("q")
        starts = array("q", accumulate(lengths, initial=0))
        return codes.tobytes(), starts.tobytes(), values


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

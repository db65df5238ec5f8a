"""The postings of an index being built: filled topic by topic as flat arrays, then sorted into
each feature's list when the index is packed.

A feature's postings are in topic order, each `topic << POSTING_BITS | mass << WEIGHT_BITS | weight`
(int32: `advisor.search.index.encode_posting`). Kept as
flat arrays rather than a list per feature, adding a topic costs a few array appends whatever its
size, and a part built by a worker process joins as a few whole-array copies; numpy sorts them
into place at the end (`pack`): a hundred thousand entries make sixteen million postings, which
Python would sort for a minute and hold in gigabytes.
"""

from __future__ import annotations

import sys
from array import array
from typing import Any

from advisor.search import tables
from advisor.search.index import POSTING_BITS, WEIGHT_BITS

# The int32 halves of an int64, in memory order.
_LOW, _HIGH = (0, 1) if sys.byteorder == "little" else (1, 0)
# Postings written to the index at a time while packing (a few megabytes).
_CHUNK = 1 << 20


class Postings:
    """Each topic's word numbers, their weights and masses, and its pairs of neighbouring words as
    two positions in the topic's words, with their weights."""

    def __init__(self) -> None:
        self.topic_words = array("i")  # how many words each topic has
        self.word_numbers = array("i")
        self.word_weights = array("B")
        self.word_masses = array("B")
        self.topic_pairs = array("i")
        self.pair_firsts = array("i")
        self.pair_seconds = array("i")
        self.pair_weights = array("B")

    def _tables(self) -> tuple[array, ...]:
        return (self.topic_words, self.word_numbers, self.word_weights, self.word_masses, self.topic_pairs, self.pair_firsts, self.pair_seconds, self.pair_weights)

    def add_topic(self, numbers: list[int], weights: bytes, masses: bytes, firsts: bytes, seconds: bytes, pair_weights: bytes) -> None:
        """The next topic: its words' numbers, weights and masses, its pairs' two positions (int32)
        in `numbers` and their weights."""
        self.topic_words.append(len(numbers))
        self.word_numbers.extend(numbers)
        self.word_weights.frombytes(weights)
        self.word_masses.frombytes(masses)
        self.topic_pairs.append(len(pair_weights))
        self.pair_firsts.frombytes(firsts)
        self.pair_seconds.frombytes(seconds)
        self.pair_weights.frombytes(pair_weights)

    def export(self) -> list[bytes]:
        """The tables as bytes, for `add_part` in another process."""
        return list(map(array.tobytes, self._tables()))

    def add_part(self, part: list[bytes], renumber: list[int]) -> None:
        """The topics of another builder's `export`, after these; its word number n is
        `renumber[n]` here."""
        import numpy

        topic_words, word_numbers, *rest = part
        self.topic_words.frombytes(topic_words)
        self.word_numbers.frombytes(numpy.asarray(renumber, numpy.int32)[numpy.frombuffer(word_numbers, numpy.int32)].tobytes())
        for table, blob in zip(self._tables()[2:], rest):
            table.frombytes(blob)

    def word_counts(self, words: int) -> Any:
        """How many topics each of the `words` words occurs in (a numpy array)."""
        import numpy

        return numpy.bincount(numpy.frombuffer(self.word_numbers, numpy.int32), minlength=words)

    def pack(self, word_lengths: Any) -> tuple[list[Any], list[Any], tables.Spill]:
        """(the sorted pair codes, the start of each feature's postings, all postings): the words'
        postings in word order, then the pairs', in the order of their codes (`tables.Postings`).
        `word_lengths` is `word_counts`."""
        import numpy

        words = len(word_lengths)
        values = tables.Spill()
        topic_numbers = numpy.arange(len(self.topic_words), dtype=numpy.int32)
        numbers = numpy.frombuffer(self.word_numbers, numpy.int32)
        topic_words = numpy.frombuffer(self.topic_words, numpy.int32)
        # Each temporary array is tens of megabytes at the peak of the build: work in place
        # wherever numpy can. A word occurs once per topic, so its postings sort as one int64
        # each, the word in the high half, sorted in place.
        keys = numpy.repeat(topic_numbers.astype(numpy.int64) << POSTING_BITS, topic_words)
        keys |= numpy.frombuffer(self.word_weights, numpy.uint8)
        masses = numpy.frombuffer(self.word_masses, numpy.uint8)
        for start in range(0, len(keys), _CHUNK):  # a chunk at a time: a whole int64 copy would be the peak
            keys[start : start + _CHUNK] |= masses[start : start + _CHUNK].astype(numpy.int64) << WEIGHT_BITS
        halves = keys.view(numpy.int32)
        halves[_HIGH::2] = numbers
        keys.sort()
        for start in range(0, len(keys), _CHUNK):  # the low halves, a chunk at a time
            values.extend(numpy.ascontiguousarray(halves[_LOW + 2 * start : 2 * (start + _CHUNK) : 2]).data)
        del keys, halves
        pair_topics = numpy.repeat(topic_numbers, numpy.frombuffer(self.topic_pairs, numpy.int32))
        at: Any = numpy.concatenate(([0], numpy.cumsum(topic_words)[:-1])).astype(numpy.intp if len(numbers) >> 31 else numpy.int32)[pair_topics]
        firsts, seconds = numpy.frombuffer(self.pair_firsts, numpy.int32), numpy.frombuffer(self.pair_seconds, numpy.int32)
        at += firsts  # the topic's first word, then the pair's first word
        codes = numbers[at].astype(numpy.int64)
        codes *= words
        at -= firsts
        at += seconds
        codes += numbers[at]
        del at
        order = numpy.argsort(codes, kind="stable")
        pair_topics <<= POSTING_BITS
        pair_topics |= numpy.frombuffer(self.pair_weights, numpy.uint8)
        values.extend(pair_topics[order].data)
        del pair_topics, order
        codes.sort()  # again, in place: `codes[order]` would be one more copy at the peak
        new_pair = numpy.empty(len(codes), bool)
        new_pair[:1] = True
        numpy.not_equal(codes[1:], codes[:-1], out=new_pair[1:])
        pairs = codes[new_pair]
        del codes
        pair_starts = numpy.flatnonzero(new_pair)
        pair_starts += len(numbers)  # after the words' postings
        word_starts = numpy.cumsum(word_lengths, dtype=numpy.int64) - word_lengths
        starts = numpy.concatenate((word_starts, pair_starts, [len(numbers) + len(new_pair)])).astype(numpy.int64, copy=False)
        return [pairs.data.cast("B")], [starts.data.cast("B")], values

"""Spotting the error lines an entry lists inside a question or a pasted log line.

Entries list the literal errors users paste (`errors:` in front matter). Logs word the same error
with other prefixes, counts and ids ("could not load NVML library" for "Failed to initialize NVML:
could not load NVML library"), so a listed line counts as quoted when one run of its meaningful
words, weighed by their rarity, makes up most of it and holds one of its telling words.
"""

from __future__ import annotations

from collections.abc import Iterable

from advisor.search.index import MIN_ERROR_WORDS, SearchIndex

# The share of a listed line's rarity one run of its words must make up...
QUOTED_SHARE = 0.5
# ...holding one of the line's telling words (nearly as rare as its rarest): "nvidia.com/gpu"
# alone quotes no error that merely ends with it.
TELLING_SHARE = 0.75


def quoted_errors(index: SearchIndex, words: list[str]) -> dict[int, int]:
    """Topics whose listed error lines the question quotes: topic -> words quoted of the best one.

    Matched on meaningful words in order, so counts, pod names and punctuation around a pasted
    line ("0/3 nodes are available: 3 Insufficient nvidia.com/gpu") do not matter, and a line
    counts as quoted when most of it is, in one run: logs word the same error with another prefix
    ("could not load NVML library" for "Failed to initialize NVML: could not load NVML library").
    """
    found = _quoted_runs(index, words)
    return {topic: _length(quote[0]) for topic, quote in found.items() if not _outquoted(quote, found.values())}


def quoted_spans(index: SearchIndex, words: list[str]) -> list[tuple[int, int]]:
    """The stretches of `words` (start, end exclusive) that quote a listed error line."""
    return sorted({span for span, _ in _quoted_runs(index, words).values()})


# Where in the question a listed line is quoted, and how much of the line's rarity that run holds.
Quote = tuple[tuple[int, int], float]


def _quoted_runs(index: SearchIndex, words: list[str]) -> dict[int, Quote]:
    """Topic -> (start, end) in `words` of the longest run that quotes one of its error lines, and
    the share of that line's rarity the run makes up."""
    found: dict[int, Quote] = {}
    table = index.error_lines
    if not table:
        return {}
    seen: set[tuple[tuple[str, ...], int]] = set()
    present = frozenset(words)
    for word in dict.fromkeys(words):
        for line, topic in table.get(word, ()):
            if (line, topic) in seen:
                continue
            seen.add((line, topic))
            if sum(map(present.__contains__, line)) < MIN_ERROR_WORDS:
                continue  # no run can be long enough: a log line that merely shares a word or two
            run, end = longest_run(words, line)
            if len(run) < MIN_ERROR_WORDS or len(run) <= _length(found.get(topic, (None, 0.0))[0]):
                continue
            rarity = {word: index.idf(word) for word in line}
            share = sum(rarity[word] for word in set(run)) / sum(rarity.values())
            telling = max(rarity[word] for word in run) >= TELLING_SHARE * max(rarity.values())
            if share >= QUOTED_SHARE and telling:
                found[topic] = ((end - len(run), end), share)
    return found


def _length(span: tuple[int, int] | None) -> int:
    return span[1] - span[0] if span else 0


def _outquoted(quote: Quote, quotes: Iterable[Quote]) -> bool:
    """Whether a longer quote, of as much of its own line, covers the same stretch of the question:
    "The NVIDIA driver on your system is too old" quotes that line, not the "Found no NVIDIA driver
    on your system" it holds. A line quoted whole is not outquoted by one quoted in part: "CUDA
    error: no CUDA-capable device is detected" quotes "no CUDA-capable device is detected" as much
    as the longer line that ends with it."""
    (start, end), share = quote
    return any(
        other[0] <= start and end <= other[1] and _length(other) > end - start and other_share >= share
        for other, other_share in quotes
    )


def longest_run(words: list[str], line: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    """The longest run of consecutive words that `words` and `line` share, and where it ends in
    `words` (exclusive)."""
    best, end, end_in_words = 0, 0, 0
    previous = [0] * (len(line) + 1)
    for at, word in enumerate(words, start=1):
        current = [0] * (len(line) + 1)
        for position, other in enumerate(line, start=1):
            if word == other:
                current[position] = previous[position - 1] + 1
                if current[position] > best:
                    best, end, end_in_words = current[position], position, at
        previous = current
    return line[end - best : end], end_in_words

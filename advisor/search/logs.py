"""Finding the known error lines in a pasted log: `kubectl describe pod x | advisor ask -`.

Entries list the error lines they explain (`errors:` in front matter); the index keeps each as its
meaningful words ("0/3 nodes are available: 3 Insufficient nvidia.com/gpu" -> nodes available
insufficient nvidia com gpu), so timestamps, pod names, counts and punctuation around a line do
not matter. A log of megabytes is not analysed line by line: each error line's rarest word is an
anchor searched in the lowered text (a C-speed substring search, kept only where it stands as a
whole word: "space" inside "namespace" is no anchor), and only the lines holding one are analysed.
"""

from __future__ import annotations

from collections import namedtuple

from advisor.search.analysis import WORD_CHARACTERS
from advisor.search.index import SearchIndex
from advisor.search.errors import quoted_errors

# Lines analysed at most, after the anchor search: a log that holds more is dominated by them.
MAX_CANDIDATE_LINES = 5000
MAX_SHOWN_CHARS = 300
MIN_ANCHOR_CHARS = 4
# An anchor found next to one of these is part of another word.
_WORD_CHARACTERS = frozenset(WORD_CHARACTERS)


class LogMatch(namedtuple("LogMatch", ("number", "line", "topic", "words"))):
    """A log line that quotes a known error: its 1-based `number`, the `line` (trimmed), the
    `topic` number whose entry lists the error, and how many meaningful `words` matched."""

    __slots__ = ()


def _anchors(index: SearchIndex) -> list[str]:
    """One word to search the log for per known error line: its rarest word of four letters or
    more (a line quoted only in part still holds it when it is quoted by its telling part, which
    `quoted_errors` requires). Rare, long words keep the search fast and the lines to analyse few:
    "pod" would bring in every line of a kubelet log."""
    found: set[str] = set()
    for entries in index.error_lines.values():
        for words, _ in entries:
            usable = [word for word in words if len(word) >= MIN_ANCHOR_CHARS] or list(words)
            found.add(max(usable, key=lambda word: (index.idf(word), len(word))))
    return sorted(found)


def scan_log(index: SearchIndex, text: str) -> list[LogMatch]:
    """Every line of `text` that quotes an error line an entry lists, in log order."""
    if not index.error_lines:
        return []
    lowered = text.lower()
    starts: set[int] = set()
    for anchor in _anchors(index):
        at = lowered.find(anchor)
        while at != -1 and len(starts) < MAX_CANDIDATE_LINES:
            after = at + len(anchor)
            if (at and lowered[at - 1] in _WORD_CHARACTERS) or (after < len(lowered) and lowered[after] in _WORD_CHARACTERS):
                at = lowered.find(anchor, after)  # inside a longer word: "space" in "namespace"
                continue
            start = lowered.rfind("\n", 0, at) + 1
            end = lowered.find("\n", at)
            starts.add(start)
            at = lowered.find(anchor, len(lowered) if end == -1 else end)
    matches: list[LogMatch] = []
    for start in sorted(starts):
        end = text.find("\n", start)
        line = text[start : len(text) if end == -1 else end]
        quoted = quoted_errors(index, index.analyzer.content(line))
        if quoted:
            topic = max(quoted, key=lambda number: (quoted[number], -number))
            matches.append(LogMatch(text.count("\n", 0, start) + 1, " ".join(line.split())[:MAX_SHOWN_CHARS], topic, quoted[topic]))
    return matches


def best_match(matches: list[LogMatch]) -> LogMatch | None:
    """The most telling match: the longest known error line, then the topic seen most often,
    then the earliest line."""
    if not matches:
        return None
    seen: dict[int, int] = {}
    for match in matches:
        seen[match.topic] = seen.get(match.topic, 0) + 1
    return min(matches, key=lambda match: (-match.words, -seen[match.topic], match.number))

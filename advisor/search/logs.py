"""Finding the known error lines in a pasted log: `kubectl describe pod x | advisor ask -`.

Entries list the error lines they explain (`errors:` in front matter); the index keeps each as its
meaningful words ("0/3 nodes are available: 3 Insufficient nvidia.com/gpu" -> nodes available
insufficient nvidia com gpu), so timestamps, pod names, counts and punctuation around a line do
not matter. A log of megabytes is not analysed line by line: each error line's rarest word is an
anchor, the log is cut into lines of plain words in one pass (every byte that is not a letter or
a digit made a space, at C speed, so "space" inside "namespace" is no anchor), and only the lines
holding an anchor are analysed, those of the anchors this log repeats least first.
"""

from __future__ import annotations

import re
from collections import namedtuple

from advisor.search.index import SearchIndex
from advisor.search.errors import quoted_errors
from advisor.textnorm import SEPARATE

# Lines analysed at most, after the anchor search: a log that holds more is dominated by them.
MAX_CANDIDATE_LINES = 5000
MAX_SHOWN_CHARS = 300
MIN_ANCHOR_CHARS = 4
# The analyser's table (every byte but letters and digits made a space) keeping line ends.
_PLAIN_WORDS = SEPARATE[:10] + b"\n" + SEPARATE[11:]


# What a log line that reports a failure says, in any tool's words (lower case): how a paste with
# no error line an entry knows is cut to what tells most when it is too long to ask whole.
_FAILURE_WORDS = ("error", "exception", "fail", "fatal", "panic", "killed", "oom", "denied", "refused", "timeout", "timed out", "unable", "cannot", "could not", "insufficient", "invalid", "not found", "backoff", "xid", "fallen off the bus", "not responding")
# A line's level, where it states one: klog's letter (E0312 08:14:02), `level=error` or JSON's
# "level":"ERROR", NCCL's INFO and WARN. The level decides over the words: "Changing the state
# label to 'failed'" at level=info reports what a failure did, not the failure.
_LEVEL = re.compile(r"\b([IWEF])\d{4} \d\d:\d\d:\d\d|\blevel\"?\s*[=:]\s*\"?([a-z]+)|\bNCCL (INFO|WARN)\b", re.IGNORECASE)
_FAILURE_LEVELS = frozenset({"e", "f", "error", "err", "fatal", "panic", "crit", "critical"})
# Where a lowered line may report a failure (`reports_failure` decides): a failure word, a failure
# level, or a klog failure line. Each search starts with plain text, which `re` scans for fast; a
# klog letter inside the first search would make it try every position (several times slower).
_FAILURE_SEARCH = re.compile(
    "|".join(map(re.escape, _FAILURE_WORDS)) + r'|level"?\s*[=:]\s*"?(?:' + "|".join(sorted(_FAILURE_LEVELS)) + r")\b|nccl warn"
)
_KLOG_FAILURE = re.compile("^[" + "".join(sorted(level for level in _FAILURE_LEVELS if len(level) == 1)) + r"]\d{4} \d\d:\d\d:\d\d", re.MULTILINE)


class LogMatch(namedtuple("LogMatch", ("number", "line", "topic", "words", "failure"))):
    """A log line that quotes a known error: its 1-based `number`, the `line` (trimmed), the
    `topic` number whose entry lists the error, how many meaningful `words` matched, and whether
    the line itself reports a `failure` (`reports_failure`)."""

    __slots__ = ()


def reports_failure(line: str) -> bool:
    """Whether a log line says something failed, by its level or its words. Entries also list the
    lines that follow a failure (a hint, a state set to "failed", a routine step), since users
    paste those too; beside the failure itself, they are not what broke."""
    level = _LEVEL.search(line)
    if level is not None:
        klog, named, nccl = level.groups()
        if nccl:  # NCCL has no error level: WARN is how it reports one
            return nccl.upper() == "WARN"
        return (klog or named).lower() in _FAILURE_LEVELS
    lowered = line.lower()
    return any(word in lowered for word in _FAILURE_WORDS)


def failing_line(text: str, skip: frozenset[int] = frozenset()) -> int | None:
    """The number (1-based) of the first line of `text` that reports a failure, lines in `skip`
    aside; None also when the first MAX_CANDIDATE_LINES lines that might have said none does."""
    lowered = text.lower()
    searches = (_FAILURE_SEARCH, _KLOG_FAILURE)
    upcoming = [search.search(lowered) for search in searches]
    number, counted_to = 1, 0
    for _ in range(MAX_CANDIDATE_LINES):
        found = min((hit.start() for hit in upcoming if hit is not None), default=None)
        if found is None:
            return None
        start = lowered.rfind("\n", 0, found) + 1
        end = lowered.find("\n", found)
        end = len(lowered) if end < 0 else end
        number += lowered.count("\n", counted_to, start)
        counted_to = start
        if number not in skip and reports_failure(lowered[start:end]):
            return number
        upcoming = [search.search(lowered, end + 1) if hit is not None and hit.start() <= end else hit for search, hit in zip(searches, upcoming)]
    return None


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
    anchors = frozenset(anchor.encode() for anchor in _anchors(index))
    lines_of: dict[bytes, list[int]] = {}  # anchor -> numbers (0-based) of the lines holding it
    for number, plain in enumerate(text.lower().encode("utf-8", "replace").translate(_PLAIN_WORDS).split(b"\n")):
        words = plain.split()
        if not anchors.isdisjoint(words):
            for anchor in anchors.intersection(words):
                lines_of.setdefault(anchor, []).append(number)
    # An anchor this log holds on thousands of lines ("shard" in a training log) tells little:
    # the lines of the rarer ones are analysed first, up to the cap.
    chosen: set[int] = set()
    for anchor in sorted(lines_of, key=lambda anchor: (len(lines_of[anchor]), anchor)):
        chosen.update(lines_of[anchor][: MAX_CANDIDATE_LINES - len(chosen)])
        if len(chosen) >= MAX_CANDIDATE_LINES:
            break
    lines = text.split("\n")
    matches: list[LogMatch] = []
    for number in sorted(chosen):
        line = lines[number]
        quoted = quoted_errors(index, index.analyzer.content(line))
        if quoted:
            topic = max(quoted, key=lambda found: (quoted[found], -found))
            matches.append(LogMatch(number + 1, _shown(line), topic, quoted[topic], reports_failure(line)))
    return matches


def _shown(line: str) -> str:
    """The line with its runs of spaces made one, cut after its last whole word within
    MAX_SHOWN_CHARS and marked as cut: a `kubectl describe` event runs to 400 characters, and the
    matched line stopped mid-word ("... for incomin")."""
    line = " ".join(line.split())
    if len(line) <= MAX_SHOWN_CHARS:
        return line
    cut = line.rfind(" ", 0, MAX_SHOWN_CHARS)
    return line[: cut if cut > MAX_SHOWN_CHARS // 2 else MAX_SHOWN_CHARS] + " …"


def best_match(matches: list[LogMatch], text: str) -> LogMatch | None:
    """The most telling match in the log `text`: the first line that reports a failure (what
    follows it in a log is mostly its consequences: the MIG manager's state label set to 'failed'
    after "MIG mode is in pending enable state"); without one, the longest known error line, then
    the topic seen most often, then the earliest line. None when no known line reports a failure
    but another line does: "NCCL INFO NET/Plugin : No plugin found" is listed because users paste
    it, but beside "NCCL WARN Call to ibv_create_qp failed" it is not what broke."""
    failures = [match for match in matches if match.failure]
    if failures:
        return min(failures, key=lambda match: match.number)
    if not matches or failing_line(text, frozenset(match.number for match in matches)) is not None:
        return None
    seen: dict[int, int] = {}
    for match in matches:
        seen[match.topic] = seen.get(match.topic, 0) + 1
    return min(matches, key=lambda match: (-match.words, -seen[match.topic], match.number))


def telling_part(text: str, limit: int) -> str:
    """A paste too long to ask whole, cut to `limit` characters of what tells most: the lines that
    report a failure, the latest first (a log ends where it broke, `kubectl describe` with its
    events), else its last lines. The head of a long log is start-up chatter. Each failure word is
    searched backwards from where the last kept line began, so no byte is searched twice per
    word and only the lines kept are split: a 10 MB log costs a few fast scans."""
    if len(text) <= limit:
        return " ".join(text.split())
    lowered = text.lower()
    source = text if len(lowered) == len(text) else lowered  # a few letters lengthen when lowered
    latest = {word: lowered.rfind(word) for word in _FAILURE_WORDS}
    chosen: list[str] = []
    size = 0
    while (found := max(latest.values())) >= 0:
        start = lowered.rfind("\n", 0, found) + 1
        end = lowered.find("\n", found)
        line = " ".join(source[start : len(source) if end < 0 else end].split())
        if size + len(line) > limit and chosen:
            break
        chosen.append(line[:limit])
        size += len(line) + 1
        for word, position in latest.items():
            if position >= start:
                latest[word] = lowered.rfind(word, 0, start)
    if not chosen:
        return " ".join(source[-limit:].split()[1:])  # the tail, without the word it cut through
    return " ".join(reversed(chosen))

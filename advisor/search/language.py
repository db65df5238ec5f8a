"""Which language a question is asked in, for the answer's language: Vietnamese letters settle
it; without them, the language whose marker words (knowledge/lexicon.yaml) the question holds more.
"""

from __future__ import annotations

import re

from advisor.search.errors import quoted_spans
from advisor.search.index import SearchIndex
from advisor.textnorm import has_vietnamese_letters

# A span between backquotes (to the end of the text when one is left open). Compiled on first
# use, by `re`'s cache: few questions hold a backquote, and compiling costs every `advisor ask`.
_QUOTED_CODE = r"`[^`]*(?:`|$)"
# What may surround a word in prose: "ko," and "(vs" are words, "nvidia.ko" and "k8s" are names.
_AROUND_WORDS = "\"'`.,;:!?()[]{}<>“”‘’…"


def _prose(text: str) -> str:
    """The words of `text` that are plain words, not names, paths or numbers."""
    return " ".join(word for word in (raw.strip(_AROUND_WORDS) for raw in text.split()) if word.isalpha())


def detect_language(index: SearchIndex, query: str) -> str | None:
    """'vi' or 'en' from diacritics or marker words; None when the query gives no clue.

    Words between backquotes are what the asker quoted (an error, a command), not how they write:
    "vcjob pending hoai, event `1/0 tasks in gang unschedulable: pod group is not ready`" is asked
    in Vietnamese. So is an error line an entry lists, quoted without backquotes: "rtx 5090 bao sm_120
    is not compatible with the current PyTorch installation". Nor are the pieces of names: the "ko"
    of "nvidia.ko" is no Vietnamese "không".
    """
    if has_vietnamese_letters(query):
        return "vi"
    text = re.sub(_QUOTED_CODE, " ", query) if "`" in query else query
    words = index.analyzer.written_words(_prose(text)) or index.analyzer.written_words(query)
    if len(_languages_of_own_words(index, words)) > 1:  # words of both: the asker's own may tell
        own = _decided(_marker_counts(index, index.analyzer.written_words(_prose(_outside_error_lines(index, text)))))
        if own is not None:
            return own
    return _decided(_marker_counts(index, words))


# The asker writes above a paste or below it: so many lines at each end are read for their language.
ASKER_LINES = 3
_END_CHARS = 4096


def paste_language(index: SearchIndex, text: str) -> str | None:
    """'vi' when a line at either end of a multi-line paste reads as Vietnamese, else None (the
    answer then reads the language from what it asks). Logs and command output are not written in
    Vietnamese, so such a line is the asker's own ("pod vllm cu restart hoai, log cuoi:" above an
    English log). Only the ends are read: a 10 MB log has 90,000 lines."""
    head = [line for line in text[:_END_CHARS].splitlines() if line.strip()][:ASKER_LINES]
    if len(head) < 2 and len(text) <= _END_CHARS:  # one line: a question, read as one
        return None
    tail = [line for line in text[-_END_CHARS:].splitlines() if line.strip()][-ASKER_LINES:]
    ends = dict.fromkeys(head + tail)  # a short paste's head and tail are the same lines
    return "vi" if any(detect_language(index, line) == "vi" for line in ends) else None


def _decided(scores: dict[str, int]) -> str | None:
    """The language with the most marker words, if one has more than any other."""
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    if not ranked or ranked[0][1] == 0 or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def _marker_counts(index: SearchIndex, words: list[str]) -> dict[str, int]:
    return {lang: sum(1 for word in words if word in markers) for lang, markers in index.markers.items()}


def _languages_of_own_words(index: SearchIndex, words: list[str]) -> set[str]:
    """The languages that some of `words` are a marker of and no other language's ("the" is a
    Vietnamese word as well as an English one, "with" only English)."""
    found: set[str] = set()
    for word in set(words):
        langs = [lang for lang, markers in index.markers.items() if word in markers]
        if len(langs) == 1:
            found.add(langs[0])
    return found


def _outside_error_lines(index: SearchIndex, text: str) -> str:
    """`text` without the stretches that quote a listed error line, nor the stop words of the
    error's language around them ("is not compatible with the ...")."""
    pieces = text.split()
    words: list[str] = []
    piece_of: list[int] = []  # the piece of `text` each word comes from
    for number, piece in enumerate(pieces):
        for word in index.analyzer.words(piece):
            words.append(word)
            piece_of.append(number)
    noise = [index.analyzer.is_noise(word) for word in words]
    content = [at for at, is_noise in enumerate(noise) if not is_noise]
    quoted: set[int] = set()
    for start, end in quoted_spans(index, [words[at] for at in content]):
        first, last = content[start], content[end - 1]
        counts = _marker_counts(index, words[first : last + 1])
        lang = max(counts, key=counts.__getitem__, default=None)
        around = index.markers[lang] if lang is not None and counts[lang] else []
        while first > 0 and noise[first - 1] and words[first - 1] in around:
            first -= 1
        while last + 1 < len(words) and noise[last + 1] and words[last + 1] in around:
            last += 1
        quoted.update(piece_of[first : last + 1])
    return " ".join(piece for number, piece in enumerate(pieces) if number not in quoted)

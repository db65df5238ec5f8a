"""Which language a question is asked in, for the answer's language: Vietnamese letters settle
it; without them, the language whose marker words (knowledge/lexicon.yaml) the question holds more.
"""

from __future__ import annotations

import re

from advisor.search.index import SearchIndex
from advisor.textnorm import has_vietnamese_letters

# A span between backquotes (to the end of the text when one is left open).
QUOTED_CODE = re.compile(r"`[^`]*(?:`|$)")
# What may surround a word in prose: "ko," and "(vs" are words, "nvidia.ko" and "k8s" are names.
_AROUND_WORDS = "\"'`.,;:!?()[]{}<>“”‘’…"


def _prose(text: str) -> str:
    """The words of `text` that are plain words, not names, paths or numbers."""
    return " ".join(word for word in (raw.strip(_AROUND_WORDS) for raw in text.split()) if word.isalpha())


def detect_language(index: SearchIndex, query: str) -> str | None:
    """'vi' or 'en' from diacritics or marker words; None when the query gives no clue.

    Words between backquotes are what the asker quoted (an error, a command), not how they write:
    "vcjob pending hoai, event `1/0 tasks in gang unschedulable: pod group is not ready`" is asked
    in Vietnamese. Nor are the pieces of names: the "ko" of "nvidia.ko" is no Vietnamese "không".
    """
    if has_vietnamese_letters(query):
        return "vi"
    words = index.analyzer.words(_prose(QUOTED_CODE.sub(" ", query))) or index.analyzer.words(query)
    scores = {lang: sum(1 for w in words if w in markers) for lang, markers in index.markers.items()}
    if not scores:
        return None
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    if ranked[0][1] == 0 or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]

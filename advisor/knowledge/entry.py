"""The knowledge records: one entry in one language, and the lexicon the matcher applies."""

from __future__ import annotations

from dataclasses import dataclass

@dataclass(frozen=True)
class Entry:
    """One knowledge entry in one language, as written in `knowledge/<lang>/<id>.md`."""

    id: str
    lang: str
    title: str
    questions: tuple[str, ...]
    keywords: tuple[str, ...]
    related: tuple[str, ...]
    sources: tuple[tuple[str, str], ...]  # (title, url); either may be "" but not both
    summary: str
    body: str
    headings: tuple[str, ...]
    path: str
    # The contract topic this entry lives under (its own id for a topic's home entry), and the
    # literal error lines users paste that this entry explains.
    topic: str = ""
    errors: tuple[str, ...] = ()

    @property
    def urls(self) -> tuple[str, ...]:
        return tuple(url for _, url in self.sources if url)


@dataclass(frozen=True)
class Lexicon:
    """Language data the matcher needs: stop words, language markers and synonyms.

    Synonyms map a canonical token to the (folded) phrases that mean the same thing, so
    "k8s", "chia thoi gian" and "time-slicing" meet the knowledge on a single token. Choices map
    a canonical token to the stop words that mean it only between the only two words of a
    question ("l4 hay t4" asks which of the two, as "l4 vs t4" does). `whether` maps a canonical
    token to the stop words that ask it, and the only words such a question may name besides
    ("nên dùng k8s không" asks whether Kubernetes is worth it).
    """

    stopwords: frozenset[str] = frozenset()
    markers: dict[str, frozenset[str]] | None = None
    synonyms: dict[str, tuple[str, ...]] | None = None
    choices: dict[str, tuple[str, ...]] | None = None
    whether: dict[str, Asked] | None = None


@dataclass(frozen=True)
class Asked:
    """Stop words that ask something (`asked_by`) of a question naming all of `about`, and besides
    them at most words of `beside`."""

    asked_by: tuple[str, ...]
    about: tuple[str, ...]
    beside: tuple[str, ...] = ()

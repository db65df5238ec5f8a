"""Loading and validating `lexicon.yaml`: the language data the matcher and the catalogue read.

Every problem becomes a `Problem` (`path:line: message`) and the rest of the file is still used,
as with the knowledge entries.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from advisor import yamlsafe
from advisor.files import display_path, read_reporting
from advisor.knowledge.entry import Asked, Lexicon
from advisor.problems import Problem
from advisor.textnorm import fold

LEXICON_FILE = "lexicon.yaml"


def read_lexicon(root: Path, problems: list[Problem]) -> tuple[yamlsafe.YamlDoc, str] | None:
    """The parsed `lexicon.yaml` of `root` and its display path; None when absent or unreadable."""
    path = root / LEXICON_FILE
    if not path.exists():
        return None
    display = display_path(path, root)
    text = read_reporting(path, display, problems)
    if text is None:
        return None
    try:
        doc = yamlsafe.load(text)
    except yamlsafe.YamlError as error:
        problems.append(Problem(display, error.line, error.message))
        return None
    if doc.data is not None and not isinstance(doc.data, dict):
        problems.append(Problem(display, 1, "the lexicon must be a mapping"))
        return None
    return doc, display


def word_list(value: Any, doc: yamlsafe.YamlDoc, display: str, where: tuple[Any, ...], problems: list[Problem]) -> list[str]:
    """A lexicon list of words, folded; each item that is not text is a problem on its line."""
    name = ".".join(map(str, where))
    if not isinstance(value, list):
        problems.append(Problem(display, doc.line(*where), f"'{name}' must be a list of strings"))
        return []
    out: list[str] = []
    for index, item in enumerate(value):
        if isinstance(item, str):
            if item.strip():
                out.append(fold(item))
        else:
            hint = " (quote words such as yes, no, on, off)" if isinstance(item, bool) else ""
            problems.append(Problem(display, doc.line(*where, index), f"'{name}' item {index + 1} is not a string{hint}"))
    return out


def section(doc: yamlsafe.YamlDoc, display: str, key: str, problems: list[Problem]) -> dict[Any, Any]:
    """A top-level mapping of the lexicon (empty when absent); any other type is a problem."""
    value = (doc.data or {}).get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(Problem(display, doc.line(key), f"'{key}' must be a mapping"))
        return {}
    return value


def load_lexicon(root: Path, problems: list[Problem]) -> Lexicon:
    """Stop words, language markers, synonyms, choices and whether-words; `catalogue_questions` belongs to the
    catalogue."""
    found = read_lexicon(root, problems)
    if found is None:
        return Lexicon()
    doc, display = found
    stop: set[str] = set()
    for lang, value in section(doc, display, "stopwords", problems).items():
        stop.update(word_list(value, doc, display, ("stopwords", lang), problems))
    markers = {
        str(lang): frozenset(word_list(value, doc, display, ("language_markers", lang), problems))
        for lang, value in section(doc, display, "language_markers", problems).items()
    }
    synonyms, choices = ({
        fold(str(canonical)): tuple(word_list(value, doc, display, (name, canonical), problems))
        for canonical, value in section(doc, display, name, problems).items()
    } for name in ("synonyms", "choices"))
    # A question's words are single, and canonical: "about: [k8s]" means kubernetes.
    canonical_of = {variant: target for target, variants in synonyms.items() for variant in variants if " " not in variant}
    whether = {
        fold(str(canonical)): Asked(
            _single_words(value.get("asked_by"), doc, display, ("whether", canonical, "asked_by"), problems, lambda word: word if word in stop else None),
            _single_words(value.get("about"), doc, display, ("whether", canonical, "about"), problems, lambda word: canonical_of.get(word, word)),
            _single_words(value.get("beside", []), doc, display, ("whether", canonical, "beside"), problems, lambda word: canonical_of.get(word, word)),
        )
        for canonical, value in section(doc, display, "whether", problems).items()
        if _is_mapping(value, doc, display, ("whether", canonical), problems)
    }
    return Lexicon(frozenset(stop), markers, synonyms, choices, whether)


def _single_words(value: Any, doc: yamlsafe.YamlDoc, display: str, where: tuple[Any, ...], problems: list[Problem], read: Callable[[str], str | None]) -> tuple[str, ...]:
    """A `whether` list: each item one word, as `read` takes it (None: a word it cannot use)."""
    words: list[str] = []
    for word in word_list(value, doc, display, where, problems):
        taken = read(word) if " " not in word else None
        if taken is None:
            why = "is more than one word" if " " in word else "is not a stop word"
            problems.append(Problem(display, doc.line(*where), f"'{'.'.join(map(str, where))}': '{word}' {why}, so it is never read"))
        else:
            words.append(taken)
    return tuple(words)


def _is_mapping(value: Any, doc: yamlsafe.YamlDoc, display: str, where: tuple[Any, ...], problems: list[Problem]) -> bool:
    if isinstance(value, dict):
        return True
    problems.append(Problem(display, doc.line(*where), f"'{'.'.join(map(str, where))}' must be a mapping"))
    return False

"""Loading and validating the markdown knowledge base.

Every problem becomes a `Problem` (`path:line: message`); a broken file is skipped, never fatal,
so one bad entry in a user's folder cannot take the rest down with it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from advisor import yamlsafe
from advisor.files import LineError, display_path, read_reporting, read_text
from advisor.knowledge.body import split_front_matter
from advisor.knowledge.outline import outline
from advisor.i18n import LANGUAGES
from advisor.knowledge.entry import Entry, Lexicon
from advisor.knowledge.lexicon import load_lexicon
from advisor.problems import Problem
from advisor.textnorm import fold

MIN_QUESTIONS = 4
ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
URL_PATTERN = re.compile(r"^https?://[^\s\x00-\x1f\x7f-\x9f]+$")


@dataclass(frozen=True)
class KnowledgeBase:
    entries: tuple[Entry, ...]
    lexicon: Lexicon
    problems: tuple[Problem, ...]

    def get(self, entry_id: str, lang: str) -> Entry | None:
        for entry in self.entries:
            if entry.id == entry_id and entry.lang == lang:
                return entry
        return None

    @property
    def ids(self) -> list[str]:
        return sorted({entry.id for entry in self.entries})


def _string_list(doc: yamlsafe.YamlDoc, key: str, problems: list[Problem], path: str) -> tuple[str, ...]:
    value = doc.data.get(key)
    if value is None:
        problems.append(Problem(path, doc.line(key), f"missing required field '{key}'"))
        return ()
    if not isinstance(value, list):
        problems.append(Problem(path, doc.line(key), f"'{key}' must be a list of strings"))
        return ()
    items: list[str] = []
    for index, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, (str, int, float)) or not str(item).strip():
            problems.append(Problem(path, doc.line(key, index), f"'{key}' item {index + 1} must be a non-empty string"))
        else:
            items.append(str(item).strip())
    return tuple(items)


def _sources(doc: yamlsafe.YamlDoc, problems: list[Problem], display: str) -> tuple[tuple[str, str], ...]:
    """(title, url) pairs. An item is `{title, url}`, a bare URL, or a title alone for a reference
    that is not a web page (the source article)."""
    value = doc.data.get("sources")
    if value is None:
        problems.append(Problem(display, doc.line("sources"), "missing required field 'sources'"))
        return ()
    if not isinstance(value, list):
        problems.append(Problem(display, doc.line("sources"), "'sources' must be a list"))
        return ()
    found: list[tuple[str, str]] = []
    for index, item in enumerate(value):
        line = doc.line("sources", index)
        if isinstance(item, str) and item.strip():
            text = item.strip()
            found.append(("", text) if URL_PATTERN.match(text) else (text, ""))
        elif isinstance(item, dict) and set(item) <= {"title", "url"} and isinstance(item.get("title"), str) and item["title"].strip():
            url = item.get("url", "")
            if not isinstance(url, str) or (url and not URL_PATTERN.match(url.strip())):
                problems.append(Problem(display, line, f"source {index + 1}: 'url' must be an http(s) URL"))
                continue
            found.append((" ".join(item["title"].split()), url.strip()))
        else:
            problems.append(Problem(display, line, f"source {index + 1} must be a URL, a title, or a mapping of 'title' and 'url'"))
    return tuple(found)


def parse_entry(path: Path, text: str, display: str) -> tuple[Entry | None, list[Problem]]:
    """Parse one entry file; the entry is None when any problem makes it unusable."""
    problems: list[Problem] = []
    try:
        front, body, body_line = split_front_matter(text)
        doc = yamlsafe.load(front, line_offset=1)
    except LineError as error:
        return None, [Problem(display, error.line, str(error))]
    except yamlsafe.YamlError as error:
        return None, [Problem(display, error.line, error.message)]
    if not isinstance(doc.data, dict):
        return None, [Problem(display, 2, "front matter must be a mapping of fields")]

    fields: dict[str, str] = {}
    for key in ("id", "lang", "title"):
        value = doc.data.get(key)
        if value is None:
            problems.append(Problem(display, doc.line(key), f"missing required field '{key}'"))
        elif not isinstance(value, str) or not value.strip():
            problems.append(Problem(display, doc.line(key), f"'{key}' must be a non-empty string"))
        else:
            fields[key] = value.strip()
    entry_id, lang = fields.get("id"), fields.get("lang")
    if entry_id is not None and not ID_PATTERN.match(entry_id):
        problems.append(Problem(display, doc.line("id"), f"id '{entry_id}' must be lowercase kebab-case"))
    elif entry_id is not None and entry_id != path.stem:
        problems.append(Problem(display, doc.line("id"), f"id '{entry_id}' does not match the file name '{path.stem}'"))
    if lang is not None and lang not in LANGUAGES:
        problems.append(Problem(display, doc.line("lang"), f"lang '{lang}' must be one of: {', '.join(LANGUAGES)}"))
    elif lang is not None and path.parent.name in LANGUAGES and lang != path.parent.name:
        problems.append(Problem(display, doc.line("lang"), f"lang '{lang}' does not match the folder '{path.parent.name}'"))

    questions = _string_list(doc, "questions", problems, display)
    if doc.data.get("questions") is not None and len(questions) < MIN_QUESTIONS:
        problems.append(Problem(display, doc.line("questions"), f"'questions' needs at least {MIN_QUESTIONS} phrasings, found {len(questions)}"))
    keywords = _string_list(doc, "keywords", problems, display)
    related = _string_list(doc, "related", problems, display)
    errors = _string_list(doc, "errors", problems, display) if "errors" in doc.data else ()
    # An entry without a topic is the home of its own topic (a small folder needs no topic tree).
    topic = doc.data.get("topic", entry_id)
    if topic is not None and (not isinstance(topic, str) or not ID_PATTERN.match(topic.strip())):
        problems.append(Problem(display, doc.line("topic"), "'topic' must be an entry id (the topic this entry belongs to)"))
    sources = _sources(doc, problems, display)
    for index, item in enumerate(related):
        if not ID_PATTERN.match(item):
            problems.append(Problem(display, doc.line("related", index), f"related id '{item}' is not a valid id"))
    known = {"id", "lang", "title", "topic", "questions", "keywords", "errors", "related", "sources"}
    for key in doc.data:
        if key not in known:
            problems.append(Problem(display, doc.line(key), f"unknown field '{key}' (allowed: {', '.join(sorted(known))})"))

    body = body.strip()
    summary, headings = outline(body) if body else ("", ())
    if not body:
        problems.append(Problem(display, body_line, "the entry has no body text"))
    elif not summary:
        problems.append(Problem(display, body_line, "the body must open with a short-answer paragraph"))
    if problems:
        return None, problems
    assert entry_id is not None and lang is not None
    return (
        Entry(
            id=entry_id,
            lang=lang,
            title=fields["title"],
            questions=questions,
            keywords=keywords,
            related=related,
            sources=sources,
            summary=summary,
            body=body,
            headings=headings,
            path=str(path),
            topic=str(topic).strip(),
            errors=errors,
        ),
        [],
    )


def entry_files(root: Path) -> list[Path]:
    """Markdown files one level down (`<lang>/<id>.md`); never follows deeper, so links cannot loop."""
    files: list[Path] = []
    try:
        folders = sorted(item.name for item in os.scandir(root) if not item.name.startswith("."))
    except OSError:
        return files
    for name in folders:  # names, not Paths, sorted: a large folder lists at a third of the cost
        folder = root / name
        try:
            if folder.is_dir():
                entries = sorted(item.name for item in os.scandir(folder) if item.name.endswith(".md") and not item.name.startswith("."))
                files.extend(map(folder.joinpath, entries))
        except OSError:
            continue
    return files


def load_knowledge(root: Path) -> KnowledgeBase:
    """Load every entry under `root`; problems are collected, bad files skipped."""
    problems: list[Problem] = []
    if not root.is_dir():
        problems.append(Problem(str(root), 0, "knowledge folder not found"))
        return KnowledgeBase((), Lexicon(), tuple(problems))
    entries: list[Entry] = []
    seen: dict[tuple[str, str], str] = {}
    for path in entry_files(root):
        entry = _read_entry(path, root, seen, problems)
        if entry is not None:
            entries.append(entry)
    lexicon = load_lexicon(root, problems)
    return KnowledgeBase(tuple(entries), lexicon, tuple(problems))


def _read_entry(path: Path, root: Path, seen: dict[tuple[str, str], str], problems: list[Problem]) -> Entry | None:
    """The entry in `path`, unless it is broken or a second definition of an (id, language) in
    `seen` (the first one read stays); its problems go to `problems`."""
    display = display_path(path, root)
    text = read_reporting(path, display, problems)
    if text is None:
        return None
    entry, found = parse_entry(path, text, display)
    problems.extend(found)
    if entry is None:
        return None
    key = (entry.id, entry.lang)
    if key in seen:
        problems.append(Problem(display, 1, f"duplicate entry '{entry.id}' ({entry.lang}); already defined in {seen[key]}"))
        return None
    seen[key] = display
    return entry


def entry_groups(root: Path) -> tuple[list[Path], list[list[Path]]]:
    """(every entry file, the files grouped by name): an entry's id is its file's name, so each
    group holds one id's files (one per language folder), in folder order as `load_knowledge`
    reads them; the groups come in id order. An index is built one group at a time."""
    files = entry_files(root)
    groups: dict[str, list[Path]] = {}
    for path in files:
        groups.setdefault(path.stem, []).append(path)
    return files, [groups[stem] for stem in sorted(groups)]


def read_topic(group: list[Path], root: Path, problems: list[Problem]) -> list[Entry]:
    """The entries of one group of `entry_groups`, by language (the same as `load_knowledge`
    reads from those files); their problems go to `problems`."""
    seen: dict[tuple[str, str], str] = {}
    entries = [entry for path in group if (entry := _read_entry(path, root, seen, problems)) is not None]
    return sorted(entries, key=lambda entry: entry.lang)


def in_file_order(problems: list[Problem], files: list[Path], root: Path) -> list[Problem]:
    """`problems` of entry files in the order `load_knowledge` reports them (file by file)."""
    if not problems:
        return problems
    where = {display_path(path, root): number for number, path in enumerate(files)}
    return sorted(problems, key=lambda problem: where.get(problem.path, len(where)))


def collection_problems(kb: KnowledgeBase, root: Path) -> list[Problem]:
    """Problems that only show across entries (translations, related ids, questions two entries
    share) and repeats within one (a question or a source listed twice)."""
    problems: list[Problem] = []
    by_id: dict[str, dict[str, Entry]] = {}
    for entry in kb.entries:
        by_id.setdefault(entry.id, {})[entry.lang] = entry
    for entry_id, langs in sorted(by_id.items()):
        for lang in LANGUAGES:
            if lang not in langs:
                present = next(iter(langs.values()))
                problems.append(Problem(display_path(Path(present.path), root), 1, f"entry '{entry_id}' has no '{lang}' translation"))
    first_seen: dict[str, Entry] = {}
    for entry in kb.entries:
        display = display_path(Path(entry.path), root)
        try:
            text = read_text(entry.path)  # read once already; it may have changed since (only line numbers need it)
        except ValueError:
            text = ""
        home = by_id.get(entry.topic, {}).get(entry.lang) or next(iter(by_id.get(entry.topic, {}).values()), None)
        if home is None:
            problems.append(Problem(display, _line_of(text, "topic:"), f"topic '{entry.topic}' is not an entry id"))
        elif home.topic != home.id:
            problems.append(Problem(display, _line_of(text, "topic:"), f"topic '{entry.topic}' is not a home topic (its own topic is '{home.topic}')"))
        else:
            other = next((e for e in by_id[entry.id].values() if e.topic != entry.topic), None)
            if other is not None and entry.lang == LANGUAGES[0]:
                problems.append(Problem(display, _line_of(text, "topic:"), f"topic '{entry.topic}' differs from the {other.lang} entry's '{other.topic}'"))
        for related in entry.related:
            if related not in by_id:
                problems.append(Problem(display, _line_of(text, related), f"related id '{related}' does not exist"))
        for question in entry.questions:
            key = fold(question).strip(" ?!.")
            other = first_seen.get(key)
            if other is None:
                first_seen[key] = entry
            elif other is entry:  # a slip when phrasings are added by hand; it weighs the wording twice
                problems.append(Problem(display, _line_of(text, question, last=True), f"question '{question}' is listed twice", warning=True))
            elif other.id != entry.id:  # the same wording in both languages of one entry is fine
                problems.append(
                    Problem(display, _line_of(text, question), f"question '{question}' is also on {display_path(Path(other.path), root)}")
                )
        cited: set[str] = set()
        for _, url in entry.sources:
            if url in cited:
                problems.append(Problem(display, _line_of(text, url, last=True), f"source {url} is listed twice", warning=True))
            elif url:
                cited.add(url)
    return problems


def _line_of(text: str, needle: str, last: bool = False) -> int:
    """The number of the first line (or the `last`) holding `needle`; 1 when none does."""
    found = [number for number, line in enumerate(text.splitlines(), start=1) if needle in line]
    return (found[-1] if last else found[0]) if found else 1

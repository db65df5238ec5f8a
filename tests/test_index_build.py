"""Building an index in worker processes gives the very index built in one process."""

from __future__ import annotations

import multiprocessing
import shutil
from pathlib import Path
from typing import Any

import pytest

from advisor.search import build as building
from advisor.search import storage
from tests.conftest import REPO


@pytest.fixture(scope="module")
def mixed_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled knowledge (two languages, error lines, synonyms), generated entries, and
    broken files: one beside a good translation, and one that is the only file of its id (its
    topic is then missing, and every topic after it moves up one)."""
    from benchmarks.generate import generate

    root = tmp_path_factory.mktemp("mixed") / "kb"
    shutil.copytree(REPO / "knowledge", root)
    for path in sorted((generate(40, root.parent / "generated") / "en").glob("*.md")):
        shutil.copyfile(path, root / "en" / path.name)
    (root / "en" / "mig.md").write_text((root / "en" / "mig.md").read_text(encoding="utf-8").replace("title:", "title: [unclosed", 1), encoding="utf-8")
    (root / "en" / "broken-alone.md").write_text("---\nid: broken-alone\nlang: en\ntitle: 'x\n---\nBody.\n", encoding="utf-8")
    return root


def _built(root: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The index of `root` as written and read back: the header, and every section's bytes. (The
    file's bytes may differ: marshal writes a string shared by two header values once.)"""
    header, sections = storage.unpack(b"".join(storage.pack_parts(*building.build(root, None))))
    return header, {name: bytes(section) for name, section in sections.items()}


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_workers_build_the_same_index_as_one_process(mixed_kb: Path, monkeypatch: pytest.MonkeyPatch, start: str) -> None:
    monkeypatch.setattr(building, "_workers", lambda files: 1)
    alone = _built(mixed_kb)
    header = alone[0]
    assert any(problem[0].endswith("mig.md") for problem in header["problems"])
    assert any(problem[0].endswith("broken-alone.md") for problem in header["problems"])
    if start not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start} start method here")
    monkeypatch.setattr(building, "_workers", lambda files: 3)
    monkeypatch.setattr(building, "_context", lambda: multiprocessing.get_context(start))
    assert _built(mixed_kb) == alone


def test_each_feature_lists_the_topics_holding_it_in_order_with_their_weights(mixed_kb: Path) -> None:
    """The postings, sorted into place from flat arrays, against a plain reading: every word
    and pair of each topic's analysis, under the topic's number, in topic order."""
    from array import array

    from advisor.knowledge.lexicon import load_lexicon
    from advisor.knowledge.load import entry_groups, read_topic
    from advisor.search.analysis import Analyzer
    from advisor.search.features import analyse
    from advisor.search.index import SearchIndex, encode_posting

    lexicon = load_lexicon(mixed_kb, [])
    analyzer = Analyzer.build(lexicon.stopwords, lexicon.synonyms or {})
    expected: dict[str, list[int]] = {}
    topics: list[str] = []
    for group in entry_groups(mixed_kb)[1]:
        entries = read_topic(group, mixed_kb, [])
        if not entries:
            continue
        topic_id, *_, words, weights, firsts, seconds, pair_weights, _, _, masses, _ = analyse(entries, analyzer)
        topic = len(topics)
        topics.append(topic_id)
        for word, weight, mass in zip(words, weights, masses):
            expected.setdefault(word, []).append(encode_posting(topic, weight, mass))
        for first, second, weight in zip(array("i", firsts), array("i", seconds), pair_weights):
            expected.setdefault(f"{words[first]}_{words[second]}", []).append(encode_posting(topic, weight))
    index = SearchIndex(*storage.unpack(b"".join(storage.pack_parts(*building.build(mixed_kb, None)))))
    assert index.topics == topics
    assert len(index.postings) == len(expected)
    assert {feature: index.postings[feature].tolist() for feature in expected} == expected


def test_an_empty_folder_builds_an_index_without_features(tmp_path: Path) -> None:
    (tmp_path / "en").mkdir()
    header, sections = building.build(tmp_path, None)
    index_sections = storage.unpack(b"".join(storage.pack_parts(header, sections)))[1]
    assert bytes(index_sections["postings"]) == b"" and bytes(index_sections["pairs"]) == b""


def test_each_entry_keeps_its_sections_words_as_a_question_would_analyse_them(mixed_kb: Path) -> None:
    """An answer's sections are ranked from these rather than by analysing its text again: they
    must be exactly what analysing each heading and text gives."""
    from advisor.knowledge.body import sections
    from advisor.library import open_index
    from advisor.reply import entry_body

    index = open_index(mixed_kb, use_cache=False)
    with_sections = 0
    for entry in range(len(index.entries)):
        parts = sections(entry_body(index.meta(entry)))
        expected = tuple(" ".join(index.analyzer.content(piece)) for part in parts for piece in part)
        assert index.section_words(entry) == expected, index.meta(entry).id
        with_sections += bool(parts)
    assert with_sections > 100

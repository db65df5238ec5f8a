from __future__ import annotations

from pathlib import Path

import pytest

from advisor.knowledge.entry import Asked
from advisor.knowledge.lexicon import load_lexicon
from advisor.knowledge.load import collection_problems, load_knowledge
from advisor.paths import bundled_knowledge_dir
from tests.conftest import write_entry

CONTRACT_IDS = [
    line.split("`")[1]
    for line in (Path(__file__).resolve().parents[2] / "shared" / "kb-topics.md").read_text(encoding="utf-8").splitlines()
    if line.startswith("| `")
] if (Path(__file__).resolve().parents[2] / "shared" / "kb-topics.md").exists() else []


def messages(root: Path) -> list[str]:
    kb = load_knowledge(root)
    return [str(p) for p in list(kb.problems) + collection_problems(kb, root)]


def test_bundled_knowledge_is_clean_and_complete() -> None:
    root = bundled_knowledge_dir()
    kb = load_knowledge(root)
    assert messages(root) == []
    ids = set(kb.ids)
    for entry_id in CONTRACT_IDS or ids:
        assert kb.get(entry_id, "en") is not None, entry_id
        assert kb.get(entry_id, "vi") is not None, entry_id
    assert len(ids) >= 22


def test_entries_are_typed_and_summarised(tiny_kb: Path) -> None:
    kb = load_knowledge(tiny_kb)
    entry = kb.get("pizza-oven", "vi")
    assert entry is not None
    assert entry.title == "Lò nướng pizza"
    assert entry.summary == "Short answer about pizza-oven."
    assert entry.headings == ("Details",)
    assert isinstance(entry.questions, tuple) and len(entry.questions) == 4
    with pytest.raises(AttributeError):
        entry.title = "changed"  # type: ignore[misc]


def test_missing_field_is_reported_with_its_line(tiny_kb: Path) -> None:
    path = tiny_kb / "en" / "pizza-oven.md"
    path.write_text(path.read_text(encoding="utf-8").replace('title: "Pizza ovens"\n', ""), encoding="utf-8")
    assert "kb/en/pizza-oven.md:2: missing required field 'title'" in messages(tiny_kb)


def test_wrong_type_points_at_the_field(tiny_kb: Path) -> None:
    path = tiny_kb / "en" / "pizza-oven.md"
    text = path.read_text(encoding="utf-8").replace("keywords: [pizza, oven]", "keywords: pizza")
    path.write_text(text, encoding="utf-8")
    line = text.splitlines().index("keywords: pizza") + 1
    assert f"kb/en/pizza-oven.md:{line}: 'keywords' must be a list of strings" in messages(tiny_kb)


def test_malformed_yaml_reports_the_line_and_other_files_still_load(tiny_kb: Path) -> None:
    path = tiny_kb / "en" / "bread-dough.md"
    path.write_text("---\nid: bread-dough\nlang: en\ntitle: [unclosed\nquestions: []\n---\nBody.\n", encoding="utf-8")
    kb = load_knowledge(tiny_kb)
    assert any(str(p).startswith("kb/en/bread-dough.md:5: invalid YAML") for p in kb.problems)
    assert kb.get("pizza-oven", "en") is not None
    assert kb.get("bread-dough", "en") is None


def test_python_tags_are_rejected_not_run(tiny_kb: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tiny_kb / "en" / "pizza-oven.md"
    path.write_text(f"---\nid: !!python/object/apply:os.system ['touch {marker}']\n---\nBody\n", encoding="utf-8")
    found = messages(tiny_kb)
    assert any("kb/en/pizza-oven.md:2: invalid YAML: could not determine a constructor" in m for m in found)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "kb/en/pizza-oven.md:1: missing front matter"),
        (b"no front matter here\n", "kb/en/pizza-oven.md:1: missing front matter"),
        (b"---\nid: pizza-oven\n", "kb/en/pizza-oven.md:1: front matter is not closed"),
        (b"---\nid: x\n---\n\xff\xfe bad", "kb/en/pizza-oven.md:4: not valid UTF-8"),
        (b"\x00\x01\x02binary", "kb/en/pizza-oven.md:1: not a text file"),
        (b"---\n- a\n- b\n---\nbody\n", "kb/en/pizza-oven.md:2: front matter must be a mapping"),
    ],
)
def test_broken_files_give_one_clear_line(tiny_kb: Path, content: bytes, message: str) -> None:
    (tiny_kb / "en" / "pizza-oven.md").write_bytes(content)
    assert any(m.startswith(message) for m in messages(tiny_kb)), messages(tiny_kb)


def test_huge_file_is_refused(tiny_kb: Path) -> None:
    (tiny_kb / "en" / "pizza-oven.md").write_bytes(b"---\n" + b"x" * 1_100_000)
    assert any("larger than" in m for m in messages(tiny_kb))


def test_symlink_loop_is_reported_not_followed(tiny_kb: Path) -> None:
    loop = tiny_kb / "en" / "loop.md"
    loop.symlink_to(loop)
    (tiny_kb / "cycle").symlink_to(tiny_kb)
    found = messages(tiny_kb)
    assert any(m.startswith("kb/en/loop.md:1: cannot read file") for m in found)


def test_body_must_open_with_short_answer(tiny_kb: Path) -> None:
    write_entry(tiny_kb, "en", "pizza-oven", body="## Heading first\n\nThen text.")
    assert any("must open with a short-answer paragraph" in m for m in messages(tiny_kb))


def test_id_must_match_file_name_and_lang_the_folder(tiny_kb: Path) -> None:
    path = tiny_kb / "en" / "pizza-oven.md"
    path.write_text(path.read_text(encoding="utf-8").replace("id: pizza-oven", "id: pizza").replace("lang: en", "lang: vi"), encoding="utf-8")
    found = messages(tiny_kb)
    assert "kb/en/pizza-oven.md:2: id 'pizza' does not match the file name 'pizza-oven'" in found
    assert "kb/en/pizza-oven.md:3: lang 'vi' does not match the folder 'en'" in found


def test_duplicate_id_and_lang_is_reported_and_first_kept(tiny_kb: Path) -> None:
    other = tiny_kb / "en2"
    other.mkdir()
    text = (tiny_kb / "en" / "pizza-oven.md").read_text(encoding="utf-8").replace("lang: en", "lang: en")
    (other / "pizza-oven.md").write_text(text, encoding="utf-8")
    found = messages(tiny_kb)
    assert any(m.startswith("kb/en2/pizza-oven.md:1: duplicate entry 'pizza-oven' (en)") for m in found)


def test_missing_translation_and_unknown_related(tiny_kb: Path) -> None:
    write_entry(tiny_kb, "en", "grill", related=["no-such-entry"])
    found = messages(tiny_kb)
    assert "kb/en/grill.md:1: entry 'grill' has no 'vi' translation" in found
    assert any(m.startswith("kb/en/grill.md:") and "related id 'no-such-entry' does not exist" in m for m in found)


def test_same_question_on_two_entries_even_after_folding(tiny_kb: Path) -> None:
    write_entry(tiny_kb, "vi", "grill", questions=["Lò pizza nóng bao nhiêu độ?", "a", "b", "c"])
    write_entry(tiny_kb, "en", "grill")
    found = messages(tiny_kb)
    assert any(m.startswith("kb/vi/pizza-oven.md:") and "question 'lò pizza nóng bao nhiêu độ' is also on kb/vi/grill.md" in m for m in found)


def test_a_question_or_source_listed_twice_in_one_entry_is_a_warning(tiny_kb: Path) -> None:
    path = write_entry(tiny_kb, "en", "pizza-oven", questions=["how hot is a pizza oven", "a", "b", "How hot is a pizza oven?"])
    text = path.read_text(encoding="utf-8").replace('  - "seed: test"', '  - {title: "Oven guide", url: "https://example.org/oven"}\n  - {title: "Oven guide again", url: "https://example.org/oven"}')
    path.write_text(text, encoding="utf-8")
    lines = text.splitlines()
    kb = load_knowledge(tiny_kb)
    assert kb.get("pizza-oven", "en") is not None  # still loaded: a repeat is untidy, not broken
    repeats = [p for p in collection_problems(kb, tiny_kb) if p.path == "kb/en/pizza-oven.md" and "listed twice" in p.message]
    assert [(p.line, p.message, p.warning) for p in repeats] == [
        (lines.index('  - "How hot is a pizza oven?"') + 1, "question 'How hot is a pizza oven?' is listed twice", True),
        (lines.index('  - {title: "Oven guide again", url: "https://example.org/oven"}') + 1, "source https://example.org/oven is listed twice", True),
    ]


def test_too_few_questions(tiny_kb: Path) -> None:
    write_entry(tiny_kb, "en", "pizza-oven", questions=["only one"])
    assert any("'questions' needs at least 4 phrasings, found 1" in m for m in messages(tiny_kb))


def test_unknown_field_is_reported(tiny_kb: Path) -> None:
    path = tiny_kb / "en" / "pizza-oven.md"
    path.write_text(path.read_text(encoding="utf-8").replace("lang: en\n", "lang: en\ntags: [x]\n"), encoding="utf-8")
    assert "kb/en/pizza-oven.md:4: unknown field 'tags' (allowed: errors, id, keywords, lang, questions, related, sources, title, topic)" in messages(tiny_kb)


def test_missing_folder() -> None:
    kb = load_knowledge(Path("/nonexistent/kb"))
    assert [str(p) for p in kb.problems] == ["/nonexistent/kb:0: knowledge folder not found"]


def test_catalogue_question_terms_are_validated(tiny_kb: Path) -> None:
    (tiny_kb / "lexicon.yaml").write_text(
        "catalogue_questions:\n"
        "  features:\n"
        "    - {phrases: [mig], facts: [mig, colour], need: mig}\n"
        "    - {phrases: [ib], facts: [interconnect], need: warp-drive}\n"
        "    - just a string\n"
        "  filler: [support]\n"
        "  surprise: [x]\n",
        encoding="utf-8",
    )
    from advisor.catalogue.terms import load_terms

    problems: list = []
    terms = load_terms(tiny_kb, problems)
    found = [str(p) for p in problems]
    assert any(m.startswith("kb/lexicon.yaml:3: unknown fact 'colour'") for m in found)
    assert any(m.startswith("kb/lexicon.yaml:4: unknown need 'warp-drive'") for m in found)
    assert "kb/lexicon.yaml:5: a feature needs 'phrases' and 'facts' lists (and 'need': a need or null)" in found
    assert any(m.startswith("kb/lexicon.yaml:7: unknown key 'catalogue_questions.surprise'") for m in found)
    assert terms is not None
    assert terms["features"] == [[["mig"], ["mig"], "mig"], [["ib"], ["interconnect"], None]]
    assert terms["filler"] == ["support"]


@pytest.mark.parametrize(
    ("topic_line", "message"),
    [
        ("topic: no-such-topic", "topic 'no-such-topic' is not an entry id"),
        ("topic: bread-dough", "topic 'bread-dough' is not a home topic (its own topic is 'pizza-oven')"),
        ("topic: [pizza-oven]", "'topic' must be an entry id (the topic this entry belongs to)"),
    ],
)
def test_a_topic_must_name_a_home_entry(tiny_kb: Path, topic_line: str, message: str) -> None:
    for lang in ("en", "vi"):
        path = tiny_kb / lang / "bread-dough.md"
        path.write_text(path.read_text(encoding="utf-8").replace("questions:", "topic: pizza-oven\nquestions:", 1), encoding="utf-8")
    path = tiny_kb / "en" / "grill.md"
    write_entry(tiny_kb, "vi", "grill", topic="pizza-oven")
    write_entry(tiny_kb, "en", "grill", topic="pizza-oven")
    path.write_text(path.read_text(encoding="utf-8").replace("topic: pizza-oven", topic_line), encoding="utf-8")
    assert [m for m in messages(tiny_kb) if "topic" in m] == [f"kb/en/grill.md:5: {message}"]


def test_both_languages_of_an_entry_name_the_same_topic(tiny_kb: Path) -> None:
    write_entry(tiny_kb, "en", "grill", topic="pizza-oven")
    write_entry(tiny_kb, "vi", "grill", topic="bread-dough")
    assert "kb/en/grill.md:5: topic 'pizza-oven' differs from the vi entry's 'bread-dough'" in messages(tiny_kb)


def test_bundled_topics_are_the_contract_topics() -> None:
    kb = load_knowledge(bundled_knowledge_dir())
    topics = {entry.topic for entry in kb.entries}
    assert topics == set(CONTRACT_IDS or topics)
    assert all(kb.get(topic, "en") is not None and kb.get(topic, "en").topic == topic for topic in topics)


def test_lexicon_choices_are_read_and_validated(tiny_kb: Path) -> None:
    (tiny_kb / "lexicon.yaml").write_text("choices:\n  compare: [or, hoặc]\n  pick: hay\n", encoding="utf-8")
    problems: list = []
    lexicon = load_lexicon(tiny_kb, problems)
    assert lexicon.choices is not None and lexicon.choices["compare"] == ("or", "hoac")
    assert [str(p) for p in problems] == ["kb/lexicon.yaml:3: 'choices.pick' must be a list of strings"]


@pytest.mark.parametrize(
    ("text", "worth", "expected"),
    [
        (
            "stopwords:\n  en: [should, need]\n  vi: [nên]\n"
            "whether:\n  worth:\n    asked_by: [should, nên]\n    about: [kubernetes]\n  fit: [should]\n  cost:\n    asked_by: [need]\n",
            Asked(("should", "nen"), ("kubernetes",)),
            ["kb/lexicon.yaml:8: 'whether.fit' must be a mapping", "kb/lexicon.yaml:9: 'whether.cost.about' must be a list of strings"],
        ),
        # Each word one stop word, each subject one word, read through the synonyms.
        (
            "stopwords:\n  en: [should, why]\nsynonyms:\n  kubernetes: [k8s]\n  gpu: [gpus]\n"
            "whether:\n  worth:\n    asked_by: [should, tại sao, worth]\n    about: [k8s, managed kubernetes]\n    beside: [gpus]\n",
            Asked(("should",), ("kubernetes",), ("gpu",)),
            [
                "kb/lexicon.yaml:8: 'whether.worth.asked_by': 'tai sao' is more than one word, so it is never read",
                "kb/lexicon.yaml:8: 'whether.worth.asked_by': 'worth' is not a stop word, so it is never read",
                "kb/lexicon.yaml:9: 'whether.worth.about': 'managed kubernetes' is more than one word, so it is never read",
            ],
        ),
    ],
)
def test_lexicon_whether_words_are_read_and_validated(tiny_kb: Path, text: str, worth: Asked, expected: list[str]) -> None:
    (tiny_kb / "lexicon.yaml").write_text(text, encoding="utf-8")
    problems: list = []
    lexicon = load_lexicon(tiny_kb, problems)
    assert lexicon.whether is not None and lexicon.whether["worth"] == worth
    assert [str(p) for p in problems] == expected

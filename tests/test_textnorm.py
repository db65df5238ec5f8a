from __future__ import annotations

import json
import math
import re
import unicodedata
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.knowledge.lexicon import load_lexicon
from advisor.paths import bundled_knowledge_dir
from advisor.search.analysis import CHOICE_WORDS, Analyzer
from advisor.textnorm import _TERMINAL_ESCAPES_PATTERN, fold, has_vietnamese_letters, json_dumps, json_loads, json_safe, normalize, strip_terminal_escapes, tokens


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("MIG là gì?", "mig la gi?"),
        ("Chia sẻ GPU giữa nhiều pod", "chia se gpu giua nhieu pod"),
        ("Đường truyền InfiniBand", "duong truyen infiniband"),
        ("đđ ĐĐ", "dd dd"),
        ("Huấn luyện phân tán đa node", "huan luyen phan tan da node"),
        ("  nhiều   khoảng\ttrắng \n", "nhieu khoang trang"),
        ("Kubernetes có đáng không", "kubernetes co dang khong"),
        ("ỨNG DỤNG", "ung dung"),
        ("Łódź → Ærø STRASSE straße ðé", "lodz → aero strasse strasse de"),
        ("H100 → MIG", "h100 → mig"),
    ],
)
def test_fold_removes_vietnamese_diacritics(text: str, folded: str) -> None:
    assert fold(text) == folded


def test_combining_and_precomposed_input_fold_alike() -> None:
    precomposed = "thiết bị"
    combining = unicodedata.normalize("NFD", precomposed)
    assert combining != precomposed
    assert fold(combining) == fold(precomposed) == "thiet bi"
    assert normalize(combining) == normalize(precomposed)


def test_tokens_split_on_punctuation() -> None:
    assert tokens("nvidia.com/gpu: 1g.10gb, K8s!") == ["nvidia", "com", "gpu", "1g", "10gb", "k8s"]


@given(st.text())
def test_tokens_are_the_alphanumeric_runs_of_the_folded_text(text: str) -> None:
    """Whatever the text (lone surrogates, other scripts, marks): exactly the runs of a-z and 0-9."""
    assert tokens(text) == re.findall(r"[a-z0-9]+", fold(text))


@pytest.mark.parametrize(("text", "expected"), [("MIG là gì", True), ("mig la gi", False), ("Đà Nẵng", True), ("café", True)])
def test_vietnamese_letters(text: str, expected: bool) -> None:
    assert has_vietnamese_letters(text) is expected


def test_strip_terminal_escapes_removes_csi_osc_and_controls() -> None:
    dirty = "a\x1b[31mred\x1b[0m \x1b]52;c;ZXZpbA==\x07 \x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\ b\x07c\x9b2J"
    assert strip_terminal_escapes(dirty) == "ared  link bc"
    assert strip_terminal_escapes("dòng 1\n\tdòng 2") == "dòng 1\n\tdòng 2"


@given(st.text(max_size=300))
def test_fold_and_normalize_are_idempotent(text: str) -> None:
    assert fold(fold(text)) == fold(text)
    assert normalize(normalize(text)) == normalize(text)


@given(st.text(max_size=300))
def test_stripped_text_has_no_escape_or_control(text: str) -> None:
    cleaned = strip_terminal_escapes(text)
    assert "\x1b" not in cleaned and "\x9b" not in cleaned
    assert all(ch in "\t\n" or not (ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F) for ch in cleaned)


@given(st.text(alphabet=st.sampled_from(list("a \t\n\x1b[31m]\x07\x00\x7f\x85\x9b\xa0\u200b\u2028é😀"))) | st.text())
def test_strip_terminal_escapes_removes_what_its_pattern_matches(text: str) -> None:
    """Text without a control character comes back as it is, without compiling the pattern."""
    assert strip_terminal_escapes(text) == re.sub(_TERMINAL_ESCAPES_PATTERN, "", text)


_PLAIN_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@given(_PLAIN_DATA)
def test_json_dumps_writes_what_json_dumps_writes(data: object) -> None:
    """Compact output comes from the C encoder without the json module: byte for byte the same."""
    assert json_dumps(data) == json_safe(json.dumps(data, ensure_ascii=False))
    assert json_dumps(data, indent=2) == json_safe(json.dumps(data, ensure_ascii=False, indent=2))


@given(st.text(alphabet=st.sampled_from(list("a{}\":\x7f\x80\x85\x9b\x9f\xa0\xc2Âé·→😀"))) | st.text())
def test_json_safe_escapes_exactly_del_and_the_c1_controls(text: str) -> None:
    """Text with none of them comes back as it is, without the pattern; the rest as the pattern writes it."""
    assert json_safe(text) == re.sub("[\x7f-\x9f]", lambda found: f"\\u{ord(found.group()):04x}", text)


@given(_PLAIN_DATA, st.sampled_from(["", " ", "\n  ", "\t\r\n"]), st.booleans())
def test_json_loads_reads_what_json_loads_reads(data: object, blank: str, indented: bool) -> None:
    """The C scanner alone reads JSON text as the json module does, blanks around it included."""
    text = blank + json.dumps(data, ensure_ascii=False, indent=2 if indented else None) + blank
    assert json.dumps(json_loads(text)) == json.dumps(json.loads(text))  # NaN != NaN: compared as text


@pytest.mark.parametrize("text", ["", "  ", "{", "{} x", "[1,]", '{"a": 1} {"b": 2}', "nul"])
def test_json_loads_refuses_what_json_loads_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        json_loads(text)


def test_json_dumps_escapes_c1_controls_and_refuses_what_is_not_data() -> None:
    assert json_dumps({"x": "a\x9b2Jé", "n": [math.inf, 1.5]}) == '{"x": "a\\u009b2Jé", "n": [Infinity, 1.5]}'
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        json_dumps({"x": {1}})


_FIELD_TEXT = st.text(alphabet=st.sampled_from(list("ab gpu mig time slicing node 0912'’-_./\x00\tĐđÀáạ\u0301ß😀İ")), max_size=60)


@given(st.lists(_FIELD_TEXT | st.text(max_size=40), max_size=6))
def test_a_topic_tokenised_in_one_pass_gives_each_field_its_own_words(texts: list[str]) -> None:
    """`content_all` (indexing) splits one pass over many fields back into each field's words, as
    `content` (queries) would give them one by one: synonym phrases never span two fields."""
    analyzer = _bundled_analyzer()
    assert analyzer.content_all(texts) == [analyzer.content(text) for text in texts]


@given(st.text(max_size=200))
def test_words_are_the_alphanumeric_runs_of_the_folded_text(text: str) -> None:
    expected = re.findall(r"[a-z0-9]+", re.sub(r"(?<=[a-z0-9])['’](?=[a-z])", "", fold(text)))
    assert Analyzer.build(frozenset(), {}).words(text) == expected


@cache
def _bundled_analyzer() -> Analyzer:
    lexicon = load_lexicon(Path(bundled_knowledge_dir()), [])
    return Analyzer.build(lexicon.stopwords, lexicon.synonyms or {})


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("gang scheduling là gì", {"gang"}),  # a phrase of several words stands for a term
        ("Lập lịch gang cho job", {"gang"}),
        ("gang thép là gì", set()),  # "gang" alone is a Vietnamese word (cast iron)
        ("card mạng InfiniBand", {"nic"}),
        ("k8s for 1 notebook", set()),  # one-word variants are not phrases
    ],
)
def test_phrase_terms_are_the_canonical_tokens_of_phrases_typed(text: str, terms: set[str]) -> None:
    assert _bundled_analyzer().phrase_terms(text) == terms


def test_a_one_word_vietnamese_synonym_is_the_word_its_folded_spelling_usually_is() -> None:
    """Matching folds away the marks, so "đáng" (worth) and "đang" (-ing), or "đắt" (dear) and
    "đặt" (set), become one word: as synonyms, "đáng" made every "đang" of a question read as
    "worth" ("GPU đang dùng bao nhiêu phần trăm" asked for "gpu worth multiple"). In the Vietnamese
    entries, outside the lexicon's phrases, a one-word variant must be the commonest word folding
    to its spelling."""
    from collections import Counter, defaultdict

    import yaml

    # The file as written: the loaded lexicon is folded already.
    written = yaml.safe_load((Path(bundled_knowledge_dir()) / "lexicon.yaml").read_text(encoding="utf-8"))
    variants = [(target, str(variant)) for target, forms in written["synonyms"].items() for variant in forms]
    text = " ".join(path.read_text(encoding="utf-8") for path in sorted((Path(bundled_knowledge_dir()) / "vi").glob("*.md"))).lower()
    for phrase in sorted({v.lower() for _, v in variants if " " in v.strip()}, key=len, reverse=True):
        text = re.sub(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", " ", text)
    spelled: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for word in re.findall(r"\w+", text):
        spelled[fold(word)][word] += 1
    colliding = {
        (target, variant, spelled[fold(variant)].most_common(1)[0][0])
        for target, variant in variants
        if " " not in variant.strip() and fold(variant) != variant.lower() and spelled[fold(variant)] and spelled[fold(variant)].most_common(1)[0][0] != variant.lower()
    }
    assert colliding == set()


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("GPU đang dùng bao nhiêu phần trăm", ["gpu", "howmuch", "phan", "tram"]),
        ("gpu dang dung bao nhieu phan tram", ["gpu", "howmuch", "phan", "tram"]),
        ("k8s có đáng tiền không", ["kubernetes", "worth"]),
        ("đặt replicas bằng 4", ["dat", "replicas"]),  # "đặt" (set) is not "đắt" (dear)
        ("GPU thuê đắt quá", ["gpu", "thue", "cost"]),
        ("ưu tiên pod", ["priority", "pod"]),  # not "ưu tiền"
        ("tiến trình MPS", ["process", "mps"]),
        ("whats the diff between mps and mig", ["compare", "between", "mps", "mig"]),  # as "mps vs mig"
        ("time slicing khác gì mps", ["timeslicing", "compare", "mps"]),
    ],
)
def test_vietnamese_words_that_fold_alike_keep_their_meaning(text: str, content: list[str]) -> None:
    assert _bundled_analyzer().content(text) == content


_CHOICE_VOCABULARY = ["or", "hay", "the", "mig", "mps", "l4", "t4", "4", "gpu"]


@given(st.lists(st.sampled_from(_CHOICE_VOCABULARY), max_size=8))
def test_reading_choices_changes_only_or_words_between_two_content_words(words: list[str]) -> None:
    analyzer = Analyzer(frozenset({"or", "hay", "the"}), {}, {}, {"or": "compare", "hay": "compare"})
    read = analyzer.read_choices(words)
    assert len(read) == len(words)
    content = [word for word in words if not analyzer.is_noise(word)]
    for position, (before, after) in enumerate(zip(words, read)):
        if before != after:
            assert before in ("or", "hay") and after == "compare" and len(content) <= CHOICE_WORDS
            assert 0 < position < len(words) - 1
            assert not analyzer.is_noise(words[position - 1]) and not analyzer.is_noise(words[position + 1])


_WHETHER_VOCABULARY = ["should", "need", "we", "kubernetes", "mig", "4", "the"]


@given(st.lists(st.sampled_from(_WHETHER_VOCABULARY), max_size=8))
def test_a_whether_word_adds_what_it_asks_only_to_a_question_naming_its_subject_alone(words: list[str]) -> None:
    analyzer = Analyzer(frozenset({"should", "need", "we", "the"}), {}, {}, None, {"worth": (frozenset({"should", "need"}), frozenset({"kubernetes"}), frozenset({"mig"}))})
    read = analyzer.read_whether(words)
    named = {word for word in words if not analyzer.is_noise(word)}
    asks = bool({"should", "need"} & set(words)) and named in ({"kubernetes"}, {"kubernetes", "mig"})
    assert read == ([*words, "worth"] if asks else words)

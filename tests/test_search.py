from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.library import open_index
from advisor.search import storage
from advisor.search.cache import cache_file
from advisor.paths import bundled_knowledge_dir
from advisor.search.language import detect_language
from advisor.search.confidence import ANSWER_CONFIDENCE
from advisor.search.few_words import IN_PASSING_WEIGHT
from advisor.search.index import posting_weight
from advisor.search.rank import MAX_QUERY_CHARS, search
from tests.conftest import write_entry


@pytest.fixture(scope="module")
def bundled():
    return open_index(bundled_knowledge_dir(), use_cache=False)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("mig la gi", "mig"),
        ("wat is mig", "mig"),  # a chat spelling of "what" is a stop word too, not a word no entry knows
        ("device plugin crashloop", "device-plugin"),  # "crashloop" is the pod status CrashLoopBackOff
        ("vllm oom", "vllm-on-kubernetes"),  # "oom" is "out of memory", as the entries write it
        ("MIG là gì?", "mig"),
        ("k8s for 1 notebook?", "faq-k8s-single-job"),
        ("k8s co can thiet cho 1 gpu ko", "faq-k8s-single-job"),  # "cần thiết" (necessary) asks whether it is worth it
        ("nvlink co can thiet cho inference ko", "gpu-topology-nvlink"),  # ... of NVLink here, not of Kubernetes
        ("how do i know if my gpus are wasted", "idle-gpu-detection"),  # "wasted" is the entries' "waste"
        ("gpu co dang bi bo phi ko", "idle-gpu-detection"),  # and so is "bỏ phí": not "phí", a cost
        ("join a runpod pod to my k8s cluster", "choosing-provider"),  # a rented container is not a node
        ("how do i make a pod use a gpu", "device-plugin"),  # not the metrics of "which pod is using which GPU"
        ("runpod pods vs serverless", "plain-gpu-instance"),
        ("my pod was preempted and lost training progress", "spot-nodes"),
        ("job train bi kill khi co job uu tien cao hon", "gpu-resource-quotas"),  # a priority class preempts it: not a spot node
        ("k8s co ho tro gpu ko", "k8s-gpu-support"),  # "hỗ trợ" (support) is one word, not the stop word "họ" and "trợ"
        ("co the chay nhieu job tren mot gpu khong", "faq-multiple-jobs-one-gpu"),
        ("tiem slicing", "time-slicing"),
        ("tiem slicing co cach ly bo nho ko", "time-slicing"),  # "tiệm" is a Vietnamese word, but not beside "slicing"
        ("pod pending insufficient nvidia.com/gpu", "pods-pending-gpu"),
        ("CUDA driver version is insufficient for CUDA runtime version", "driver-cuda-compat"),
        ("gpu operator la gi", "gpu-operator"),
        ("spot gpu bị thu hồi giữa chừng", "spot-nodes"),
        ("infiniband", "multinode-networking"),
        ("h100 vs a100", "gpu-memory-sizing"),  # "vs" asks for a comparison: not `mig`, whose keywords name every card
        ("l4 hay t4", "gpu-memory-sizing"),  # so do "or" and "hay" between the only two words
        ("mig or mps", "gpu-sharing"),
        ("gpu bi chiem nhung ko ai dung", "idle-gpu-detection"),  # "chiếm" (held), not the memory a model takes
        ("team 10 nguoi dung chung 8 gpu quan ly sao", "gpu-multi-tenancy"),
        ("nen dung k8s khong", "when-k8s-worth-it"),  # "nên" asks whether, of Kubernetes alone
        ("do we need kubernetes", "when-k8s-worth-it"),
        ("co can k8s ko", "when-k8s-worth-it"),
        ("nen dung k8s cho gpu ko", "when-k8s-worth-it"),  # not what "Kubernetes support" means
        ("we run one training job a week, do we need k8s", "faq-k8s-single-job"),  # not "one training job over 32 GPUs"
        ("how many free gpus does a node have", "device-plugin"),  # Allocatable minus Allocated
        ("lam sao biet node co bao nhieu gpu trong", "device-plugin"),  # "trống" (free) folds to the stop word "trong"
        ("upgrading nvidia drivers without downtime", "gpu-driver-upgrades"),
        ("gpu node remediation", "gpu-health-xid-errors"),  # the entry says auto-repair and cordon; users say remediate
        ("runpodctl stop pod", "plain-gpu-instance"),
        ("opencost default.json units", "gpu-cost-optimization"),  # the custom pricing sheet, hourly prices
        ("node_gpu_hourly_cost is 0", "gpu-cost-optimization"),
    ],
)
def test_known_questions_rank_their_entry_first(bundled, query: str, expected: str) -> None:
    outcome = search(bundled, query)
    assert outcome.answered, (query, outcome.hits[:3])
    assert outcome.best.topic == expected


@pytest.mark.parametrize("query", ["how to center a div in css", "công thức nấu phở bò", "who won the football world cup", "best pizza in hanoi"])
def test_off_topic_questions_are_not_answered(bundled, query: str) -> None:
    assert not search(bundled, query).answered


@pytest.mark.parametrize("query", ["công thức nấu phở bò", "how do I bake sourdough bread", "ai là tổng thống mỹ", "write a haiku about autumn"])
def test_off_topic_questions_get_no_list_of_unrelated_entries(bundled, query: str) -> None:
    outcome = search(bundled, query)
    assert outcome.hits and not outcome.suggestions  # something matched a word, nothing worth offering


def test_a_declined_domain_question_keeps_its_choices(bundled) -> None:
    outcome = search(bundled, "mig tren a100 chai duoc bao nhieu phan")
    assert not outcome.answered and "mig" in {hit.topic for hit in outcome.suggestions}


def test_no_confident_answer_still_lists_nearest(bundled) -> None:
    outcome = search(bundled, "gpu")
    assert not outcome.answered
    assert 1 <= len(outcome.suggestions) <= 3


@pytest.mark.parametrize("word", ["gpu", "pod", "kubernetes", "node", "GPU GPU"])
def test_a_lone_word_every_topic_holds_gets_choices_not_an_answer(bundled, word: str) -> None:
    """However clearly one entry leads on it (a phrasing may be that word alone), such a word
    names no topic; a lone word that does name one is answered, and beside it the common word is
    judged as any question is: answered as surely as the ranking is of it."""
    outcome = search(bundled, word)
    assert not outcome.answered and outcome.suggestions
    assert search(bundled, "mig").answered
    named = search(bundled, f"{word} mig")
    assert named.best is not None and named.best.topic.startswith("mig")
    assert named.answered == (named.confidence >= ANSWER_CONFIDENCE and named.margin > 0)


@pytest.mark.parametrize("question", ["hello world", "book", "password", "chair", "weather today", "bong da", "how to install windows 11", "cach cai windows 11"])
def test_words_the_best_entry_holds_in_passing_get_choices_not_an_answer(bundled, question: str) -> None:
    """One or two known words that the best entry holds only in passing ("world" from the
    `WORLD_SIZE` variable, "book" in one alternate question of many, "chair" repaired into a
    Vietnamese syllable, "install" and "windows" in `local-k8s-gpu`) led every other entry by most
    of its score and were answered at confidence 71-84. They name no topic: what they would have
    been answered with is offered instead."""
    outcome = search(bundled, question)
    assert outcome.hits and not outcome.answered
    assert outcome.suggestions[0] == outcome.hits[0]


@pytest.mark.parametrize(("question", "entry"), [("kueue", "kueue-gpu-queues"), ("taint", "gpu-node-scheduling"), ("deepspeed", "distributed-training"), ("coreweave", "choosing-provider"), ("spot gpu", "spot-nodes"), ("h100 vs a100", "gpu-memory-sizing")])
def test_a_word_or_two_an_entry_is_about_is_answered(bundled, question: str, entry: str) -> None:
    """The other side of the line: a term in an entry's title or in enough of its phrasings to earn
    the focus bonus is answered, down to the lightest ("deepspeed", "coreweave" weigh 9); and a
    question of three words is judged as a whole ("h100" and "a100" are each in passing)."""
    outcome = search(bundled, question)
    assert outcome.answered and outcome.best.topic == entry
    words = outcome.normalized.split()
    assert len(words) > 2 or any(posting_weight(bundled.posting(word), bundled.topic_of(entry)) > IN_PASSING_WEIGHT for word in words)


def test_a_term_typed_as_a_phrase_is_not_a_lone_vietnamese_syllable(bundled) -> None:
    """"gang" alone is a Vietnamese word and counts for half, but "gang scheduling" names the
    term: the Vietnamese question is as sure as the English one."""
    english, vietnamese = search(bundled, "what is gang scheduling"), search(bundled, "gang scheduling la gi")
    assert vietnamese.answered and vietnamese.best.topic == english.best.topic
    assert vietnamese.confidence == english.confidence
    assert not search(bundled, "gang thep la gi").answered


def test_chat_shorthand_asks_the_same_question(bundled) -> None:
    """"j" is how chat writes "gì": "mig la j" is "mig là gì", not a question with an unknown word."""
    shorthand, spelled = search(bundled, "mig la j"), search(bundled, "mig là gì")
    assert shorthand.answered and shorthand.best.topic == spelled.best.topic
    assert shorthand.confidence == spelled.confidence


def test_diacritics_do_not_change_the_answer(bundled) -> None:
    with_marks = search(bundled, "Làm sao chia sẻ một GPU cho nhiều mô hình suy luận nhỏ?")
    without = search(bundled, "lam sao chia se mot gpu cho nhieu mo hinh suy luan nho?")
    assert with_marks.best.topic == without.best.topic
    assert abs(with_marks.best.score - without.best.score) < 1.0


@pytest.mark.parametrize(
    ("query", "lang"),
    [
        ("mig là gì", "vi"), ("mig la gi", "vi"), ("what is mig", "en"), ("co nen dung kubernetes khong", "vi"), ("mig", None),
        # Chat Vietnamese without marks, and what the asker quoted is not how they write.
        ("tk aws moi tao quota gpu = 0, xin tang ntn", "vi"),
        ("vcjob pending hoai, event `1/0 tasks in gang unschedulable: pod group is not ready, 1 minAvailable`", "vi"),
        ("laptop 3070 ti gpu rot khoi bus, do nguon hay do driver", "vi"),
        ("what to do when a gpu pod is pending", "en"),
        ("`nvidia-smi` shows no processes in my pod", "en"),
        ("insmod nvidia.ko fails with Key was rejected by service", "en"),  # "ko" of a file name
        # An error line an entry lists is quoted too, backquotes or not, with its own stop words.
        ("rtx 5090 bao sm_120 is not compatible with the current PyTorch installation", "vi"),
        ("gke node pool loi Cannot use default machine type (e2-medium) with GPUs", "vi"),
        ("how do I fix Failed to initialize NVML: Driver/library version mismatch", "en"),
        ("Failed to initialize NVML: Driver/library version mismatch", "en"),  # the error alone is the clue
        # Marker words count as written, before synonyms make "cài" install, "nhiều" multiple,
        # "một" and "one" 1.
        ("cai driver nvidia", "vi"), ("nhieu job mot gpu", "vi"), ("thue gpu re", "vi"), ("kubernetes one notebook", "en"),
        ("scale node gpu ve 0", "vi"), ("We've got taints on our nodepool", "en"),  # "về", not the "'ve" of "we've"
        ("gpu utilization thap", "vi"), ("Namespace in terminating state since a day", "en"),  # "thấp" (low); not "đầy" (full), English "day"
    ],
)
def test_language_detection(bundled, query: str, lang: str | None) -> None:
    assert detect_language(bundled, query) == lang


def test_answer_language_follows_query_and_can_be_forced(bundled) -> None:
    vi = search(bundled, "mig la gi")
    assert bundled.meta(vi.best.entry).lang == "vi"
    en = search(bundled, "mig la gi", lang="en")
    assert bundled.meta(en.best.entry).lang == "en"


def test_cross_language_match(bundled) -> None:
    outcome = search(bundled, "InfiniBand giữa các node", lang="en")
    assert outcome.best.topic == "multinode-networking"


def test_typo_corrections_are_reported(bundled) -> None:
    outcome = search(bundled, "kubernets timeslicing")
    assert outcome.best.topic == "time-slicing"
    assert outcome.corrections


@pytest.mark.parametrize("typed", ["16gb", "128gb", "ubuntu20", "cuda11", "a800"])
def test_a_typo_repair_never_changes_a_number(bundled, typed: str) -> None:
    """Sizes, versions and model numbers are what the question is about: "16gb" must not
    become "186gb" (a MIG profile), nor "ubuntu20" "ubuntu22"."""
    assert all(_digits(fixed) in (_digits(typed), "") for _, fixed in search(bundled, f"llama on {typed}").corrections)


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[a-z]{1,6}[0-9]{1,4}[a-z]{0,3}", fullmatch=True))
def test_any_repaired_word_keeps_its_digits_or_drops_them(word: str) -> None:
    for typed, fixed in search(_BUNDLED, f"gpu {word}").corrections:
        assert _digits(fixed) in (_digits(typed), ""), (typed, fixed)


def _digits(word: str) -> str:
    return "".join(character for character in word if character.isdigit())


def test_long_query_is_cut(bundled) -> None:
    outcome = search(bundled, "mig " * MAX_QUERY_CHARS)
    assert outcome.truncated


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_any_text_is_searchable_without_error(text: str) -> None:
    index = _BUNDLED
    outcome = search(index, text)
    assert 0.0 <= (outcome.best.score if outcome.best else 0.0) <= 100.0
    scores = [hit.score for hit in outcome.hits]
    assert scores == sorted(scores, reverse=True)


def test_huge_hostile_input_returns_quickly(bundled) -> None:
    hostile = ("\u202e\u0301🙂\x1b[31m" * 25_000)[:100_000]
    started = time.perf_counter()
    search(bundled, hostile)
    assert time.perf_counter() - started < 2.0


_BUNDLED = open_index(bundled_knowledge_dir(), use_cache=False)


def test_cache_is_used_then_rebuilt_when_a_file_changes(tiny_kb: Path) -> None:
    first = open_index(tiny_kb)
    assert search(first, "pizza oven temperature").best.topic == "pizza-oven"
    cache = Path(cache_file(tiny_kb))
    assert cache.exists()
    write_entry(tiny_kb, "en", "pizza-oven", title="Grill", questions=["charcoal grill", "grill grates", "grill heat", "grill cleaning"], keywords=["grill"])
    later = time.time() + 5
    os.utime(tiny_kb / "en" / "pizza-oven.md", (later, later))
    second = open_index(tiny_kb)
    assert second.meta(second.entry_index("pizza-oven", "en")).title == "Grill"


@pytest.mark.parametrize("garbage", [b"", b"not marshal at all", b"\xff" * 100])
def test_corrupt_cache_is_rebuilt_not_trusted(tiny_kb: Path, garbage: bytes) -> None:
    open_index(tiny_kb)
    Path(cache_file(tiny_kb)).write_bytes(garbage)
    index = open_index(tiny_kb)
    assert search(index, "sourdough hydration").best.topic == "bread-dough"


def test_cache_for_another_folder_is_not_used(tiny_kb: Path, tmp_path: Path) -> None:
    open_index(tiny_kb)
    header, sections = storage.open_file(cache_file(tiny_kb))
    stale = {**header, "key": "stale"}
    stale["topics"] = ["wrong"]
    Path(cache_file(tiny_kb)).write_bytes(storage.pack(stale, {name: bytes(view) for name, view in sections.items()}))
    assert open_index(tiny_kb).topics == ["bread-dough", "pizza-oven"]


def test_unwritable_cache_folder_is_not_an_error(tiny_kb: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(blocker / "cache"))
    assert search(open_index(tiny_kb), "proofing bread").best.topic == "bread-dough"


@pytest.mark.parametrize(
    "query",
    ["pod bi pending vi thieu gpu", "loi cuda driver version is insufficient tren node", "bao nhieu tien mot gio gpu h100 tren eks"],
)
def test_vietnamese_without_diacritics_mixed_with_english_terms_is_vietnamese(bundled, query: str) -> None:
    assert detect_language(bundled, query) == "vi"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("card mạng InfiniBand", ["nic", "infiniband"]),  # a network card is not a GPU
        ("which card supports MIG", ["which", "gpu", "supports", "mig"]),
        ("No preemption victims found", ["no", "preemption", "victims", "found"]),  # scheduler preemption is not spot
        ("preemptible GPU nodes", ["spot", "gpu", "nodes"]),
        ("GPUDirect-TCPX on A3", ["gpudirect", "tcpx", "on", "a3"]),  # not RDMA
        ("GPUDirect RDMA", ["rdma"]),
        ("H100 vs A100", ["h100", "compare", "a100"]),  # a comparison, not noise
        ("mô hình 70B", ["model", "70b"]),  # Vietnamese questions say "model" and "mô hình" alike
        ("may ao gpu", ["vm", "gpu"]),  # "máy ảo": its "may" alone is an English stop word
        ("spot VM", ["spot"]), ("a virtual machine", ["a", "vm"]),
        ("mig or mps which is better", ["mig", "or", "mps", "compare"]), ("a better gpu", ["a", "better", "gpu"]),  # asks which, not how good
        ("gpu dang ranh", ["gpu", "idle"]), ("em khong ranh k8s", ["em", "khong", "ranh", "kubernetes"]),  # rảnh, rành
    ],
)
def test_bundled_synonyms_keep_distinct_things_apart(bundled, text: str, words: list[str]) -> None:
    assert bundled.analyzer.words(text) == words


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("l4 hay t4", ["l4", "compare", "t4"]),
        ("MIG or MPS?", ["mig", "compare", "mps"]),
        ("h100 hoặc h200", ["h100", "compare", "h200"]),
        ("mig hay bi loi", None),  # "hay" before a stop word is "often": MIG often fails
        ("time slicing or mig for inference", None),  # more than the two things compared
        ("or mig", None),
        ("yes or no", None),
        ("1 or 2", None),  # numbers say nothing of a topic
    ],
)
def test_an_or_word_between_the_only_two_words_of_a_question_compares(bundled, text: str, read: list[str] | None) -> None:
    words = bundled.analyzer.words(text)
    assert bundled.analyzer.read_choices(words) == (read or words)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("nên dùng k8s không", ["nen", "dung", "kubernetes", "khong", "worth"]),
        ("do we need kubernetes?", ["do", "we", "need", "kubernetes", "worth"]),
        ("why k8s?", ["why", "kubernetes", "worth"]),
        ("k8s có cần thiết không", ["kubernetes", "co", "necessary", "khong", "worth"]),
        ("do we need kubernetes for our gpus", ["do", "we", "need", "kubernetes", "for", "our", "gpu", "worth"]),
        ("should we use gpus", None),  # it does not name Kubernetes
        ("kubernetes", None),  # nothing asks whether
        ("should we use k8s for inference", None),  # it names more than Kubernetes
        ("do i need mig", None),
        ("should we?", None),  # it names nothing at all
    ],
)
def test_a_whether_word_asks_it_of_a_question_naming_only_its_subject(bundled, text: str, read: list[str] | None) -> None:
    words = bundled.analyzer.words(text)
    assert bundled.analyzer.read_whether(words) == (read or words)


@pytest.mark.parametrize("query", ["kubernetes", "k8s?"])
def test_kubernetes_alone_still_names_no_topic(bundled, query: str) -> None:
    assert not search(bundled, query).answered

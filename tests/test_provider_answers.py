"""Provider questions in `advisor ask` (issue 7): when the catalogue answers, and when it must not."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.library import open_index
from advisor.search.index import SearchIndex
from advisor.paths import bundled_knowledge_dir
from advisor.catalogue.questions import RAW_WORD_LISTS, WORD_LISTS, _terms, read_question
from advisor.catalogue.replies import ProviderAnswer, answer_question
from advisor.search.language import detect_language


def answer_provider_question(index: SearchIndex, query: str, lang: str | None) -> ProviderAnswer | None:
    """The catalogue's answer alone, as `advisor.reply.answer` asks for it."""
    question = read_question(index.data, index.analyzer, query)
    if question is None:
        return None
    return answer_question(question, lang or detect_language(index, query) or "en")

FIXTURE = Path(__file__).resolve().parent / "data" / "providers"


@pytest.fixture(scope="module")
def bundled() -> SearchIndex:
    """The real knowledge and catalogue: real aliases (including the awkward "do")."""
    return open_index(bundled_knowledge_dir(), use_cache=False)


@pytest.fixture
def fixture_kb(tmp_path: Path) -> Path:
    """The fixture catalogue beside the real lexicon (its synonyms carry the Vietnamese)."""
    root = tmp_path / "kb"
    root.mkdir()
    shutil.copy(FIXTURE / "providers.yaml", root / "providers.yaml")
    shutil.copy(bundled_knowledge_dir() / "lexicon.yaml", root / "lexicon.yaml")
    return root


@pytest.fixture
def fixture_index(fixture_kb: Path) -> SearchIndex:
    return open_index(fixture_kb, use_cache=False)


@pytest.mark.parametrize(
    ("query", "answer_id", "lang"),
    [
        ("does GKE support MIG", "provider:gke", "en"),
        ("Does GKE support MIG?", "provider:gke", "en"),
        ("eks spot notice", "provider:eks", "en"),
        ("how much warning before an amazon eks spot node is reclaimed", "provider:eks", "en"),
        ("does google cloud have mps", "provider:gke", "en"),
        ("gke vs eks mig", "provider:gke+eks", "en"),
        ("tell me about coreweave", "provider:coreweave", "en"),
        ("coreweave co mps khong", "provider:coreweave", "vi"),
        ("CoreWeave có MPS không?", "provider:coreweave", "vi"),
        ("nha cung cap nao co infiniband", "providers:infiniband", "vi"),
        ("Nhà cung cấp nào có InfiniBand?", "providers:infiniband", "vi"),
        ("which providers offer managed kubernetes with mig", "providers:managed+mig", "en"),
        ("Which cloud providers have RoCE or InfiniBand?", "providers:rdma+infiniband", "en"),
        ("does any provider offer mps", "providers:mps", "en"),
        ("providers with efa", "providers:efa", "en"),
        ("which providers support gpu sharing", "providers:time_slicing+mig+mps", "en"),
        ("nhà cung cấp nào có node spot", "providers:spot", "vi"),
        # Prices are not in the catalogue: who has the card is, with the note to check prices.
        ("cheapest h100 provider", "providers:gpu:H100", "en"),
        ("ben nao cho thue h100 re nhat", "providers:gpu:H100", "vi"),
        # FPT Cloud, the Vietnamese provider, by any of its names.
        ("FPT Cloud có hỗ trợ MIG không?", "provider:fptcloud", "vi"),
        ("fke gpu co time slicing ko", "provider:fptcloud", "vi"),
        ("fpt smart cloud vs runpod", "provider:fptcloud+runpod", "en"),
        # A card's number is part of its name, and where to rent a card is who has it.
        ("which providers have rtx 4090", "providers:gpu:RTX 4090", "en"),
        ("where can I rent an RTX 3090?", "providers:gpu:RTX 3090", "en"),
        ("thue h100 o dau", "providers:gpu:H100", "vi"),
        ("who rents out h200", "providers:gpu:H200", "en"),
        ("co cho thue h200 ko", "providers:gpu:H200", "vi"),
        ("oracle oke gpu", "provider:oke", "en"),  # two everyday aliases of one provider name it
        ("lambda 1-click cluster infiniband", "provider:lambda", "en"),  # its product's name, singular too
        # "vast.ai" spelled out is no everyday "vast", though "ai" is a (Vietnamese) stop word.
        ("what is vast.ai", "provider:vastai", "en"),
        # "managed kubernetes" is a provider noun of two words: which ones have MIG.
        ("which managed kubernetes has mig", "providers:managed+mig", "en"),
        ("managed k8s nao co mig", "providers:managed+mig", "vi"),
        ("which managed k8s support time slicing natively", "providers:managed+time-slicing", "en"),
        ("vast.ai la gi", "provider:vastai", "vi"),
        # Whether a provider is any good: its card's facts are what the catalogue can say.
        ("runpod co tot ko", "provider:runpod", "vi"),
        ("is vast.ai any good", "provider:vastai", "en"),
        # What a provider calls its GPU machine is no more than a machine: its card answers.
        ("hetzner gpu server k8s", "provider:hetzner", "en"),
        ("digitalocean gpu droplet kubernetes", "provider:digitalocean", "en"),
    ],
)
def test_fires_on_provider_questions(bundled: SearchIndex, query: str, answer_id: str, lang: str) -> None:
    answer = answer_provider_question(bundled, query, None)
    assert answer is not None
    assert (answer.id, answer.lang) == (answer_id, lang)
    assert answer.sources and all(url.startswith("http") for url in answer.sources)


@pytest.mark.parametrize(
    "query",
    [
        "what is MIG",
        "What is MIG?",
        "mig la gi",
        "MIG là gì?",
        "time slicing vs mig",
        "how to choose a provider",
        "how do I choose a provider",  # "do" is an alias of DigitalOcean, and a stop word
        "chon nha cung cap",
        "compare gpu providers",
        "Which provider features matter most when choosing a GPU cloud for Kubernetes: device plugin, sharing, networking or managed control plane?",
        "If a provider supports Kubernetes, are the NVIDIA drivers already installed on its GPU nodes?",
        "what is the difference between mig and mps on cloud providers",
        "how do I share a gpu between pods",
        "google colab gpu",
        "cheap gpu for a notebook",
        "h100 vs a100",
        "gradient accumulation with 8 gpus",
        "how do I run pod on gpu",
        "vast amounts of data on shared storage",
        "oke cảm ơn",
        "On EKS we're running p4d instances for multi-node training, but vpc.amazonaws.com/efa never appears in the node's allocatable resources.",
        "How do I center a div horizontally and vertically in CSS?",
        "gia vang sjc hom nay",
        "where to rent a gpu cheaply",  # no card nor feature: the entries answer
        "",
    ],
)
def test_does_not_fire_on_general_or_off_topic_questions(bundled: SearchIndex, query: str) -> None:
    assert answer_provider_question(bundled, query, None) is None


def test_the_question_word_lists_read_words_as_questions_are_read(bundled: SearchIndex) -> None:
    """The lexicon says "vs" and "so sánh" where a question's analysed words say "compare": a list
    matched against analysed words holds only forms the analyser can produce, or an entry is dead."""
    terms = _terms(bundled.data, bundled.analyzer)
    assert terms is not None
    for name in set(WORD_LISTS) - RAW_WORD_LISTS:
        for item in terms.words[name]:
            assert " ".join(bundled.analyzer.words(item)) == item, (name, item)
    assert "compare" in terms.words["comparison_words"] and "vs" not in terms.words["comparison_words"]


def test_a_named_provider_fact_with_detail_source_and_date(fixture_index: SearchIndex) -> None:
    answer = answer_provider_question(fixture_index, "does alpha cloud support MIG?", None)
    assert answer is not None
    assert (answer.id, answer.title, answer.lang) == ("provider:alpha", "Alpha Cloud: MIG", "en")
    assert "- **MIG:** native (offered by the provider)" in answer.answer
    assert "Pick a MIG profile per node pool." in answer.answer
    assert "Source: https://alpha.example/mig (page undated; copy of 2026-12-01)" in answer.answer
    assert "Prices and availability change often" in answer.answer
    assert answer.sources == ("https://alpha.example/mig",)
    assert answer.summary == "Alpha Cloud: MIG: native (offered by the provider)"


def test_unknown_is_said_as_unknown_with_where_to_check(fixture_index: SearchIndex) -> None:
    answer = answer_provider_question(fixture_index, "alpha cloud mps", "en")
    assert answer is not None
    assert "- **MPS:** unknown" in answer.answer
    assert "check the provider's docs: https://alpha.example/k8s" in answer.answer
    vi = answer_provider_question(fixture_index, "alpha cloud co mps khong", None)
    assert vi is not None and vi.lang == "vi"
    assert "- **MPS:** chưa rõ" in vi.answer
    assert "hãy kiểm tra tài liệu của nhà cung cấp: https://alpha.example/k8s" in vi.answer


def test_a_provider_named_alone_gets_an_overview(fixture_index: SearchIndex) -> None:
    answer = answer_provider_question(fixture_index, "charlie metal", "en")
    assert answer is not None and answer.id == "provider:charlie"
    for label in ("Kubernetes", "GPU models", "Drivers", "Time-slicing", "MIG", "MPS", "Interconnect", "Shared storage", "Spot nodes", "Control-plane fee", "Scale to zero"):
        assert f"- **{label}:**" in answer.answer
    assert "bring your own machines (you run Kubernetes) (third-party source)" in answer.answer
    assert "- **Interconnect:** none documented" in answer.answer


def test_a_comparison_cites_each_page_once_under_its_provider(fixture_index: SearchIndex) -> None:
    answer = answer_provider_question(fixture_index, "alpha cloud vs charlie metal", "en")
    assert answer is not None and answer.id == "provider:alpha+charlie"
    lines = answer.answer.splitlines()
    assert lines[0] == "| Fact | Alpha | Charlie Metal |"  # a short name where the file gives one
    charlie = lines.index("**Charlie Metal**")
    assert lines.index("**Alpha Cloud**") < charlie
    # Seven of Charlie's facts come from one page: one line names them all.
    assert lines[charlie + 1] == "- Kubernetes, Own cluster on its machines, GPU models, Drivers, Time-slicing, Spot nodes, Scale to zero: Source: https://charlie.example/servers (page undated; copy of 2026-12-01)"
    assert answer.answer.count("https://charlie.example/servers") == 1
    assert "- MIG: Source: https://alpha.example/mig (page undated; copy of 2026-12-01)" in lines


def test_which_providers_ranks_like_the_cli(fixture_index: SearchIndex) -> None:
    answer = answer_provider_question(fixture_index, "which providers have infiniband", None)
    assert answer is not None
    assert (answer.id, answer.title) == ("providers:infiniband", "Providers with InfiniBand")
    text = answer.answer
    assert text.index("**Fits (1)**") < text.index("Alpha Cloud") < text.index("**To verify (2)**") < text.index("Bravo Kube") < text.index("Delta Pods")
    assert "verify InfiniBand: https://bravo.example/net (an RDMA fabric of unstated type)" in text
    assert "Charlie Metal" not in text and "Aardvark GPU" not in text
    assert "2 more providers do not fit; list them with `advisor providers --need infiniband --all`." in text
    assert answer.summary == "Fits: Alpha Cloud. To verify: Bravo Kube, Delta Pods."


def test_which_providers_list_a_gpu_model(fixture_index: SearchIndex) -> None:
    answer = answer_provider_question(fixture_index, "which providers offer H100", None)
    assert answer is not None
    assert (answer.id, answer.title) == ("providers:gpu:H100", "Providers with GPU model H100")
    text = answer.answer
    assert text.index("**Fits (1)**") < text.index("Alpha Cloud") < text.index("**To verify (2)**") < text.index("Bravo Kube")
    assert "Charlie Metal" not in text and "Aardvark GPU" not in text
    assert "`advisor providers --need gpu:H100 --all`" in text  # the same ranking as the command
    several = answer_provider_question(fixture_index, "nhà cung cấp nào có managed k8s và rtx 6000 ada", None)  # a model of several words
    assert several is not None and several.id == "providers:managed+gpu:RTX 6000 Ada"
    assert "Charlie Metal" not in several.answer  # it lists the card, but runs no managed Kubernetes
    table = answer_provider_question(fixture_index, "which providers offer which gpu models", None)  # no model named: every provider
    assert table is not None and table.id == "providers:gpu_models" and "Charlie Metal" in table.answer and "Aardvark GPU" in table.answer


def test_which_providers_in_vietnamese(fixture_index: SearchIndex) -> None:
    answer = answer_provider_question(fixture_index, "nhà cung cấp nào hỗ trợ MIG", None)
    assert answer is not None and answer.lang == "vi"
    assert answer.title == "Nhà cung cấp có MIG"
    assert "**Phù hợp (2)**" in answer.answer and "**Cần kiểm tra (2)**" in answer.answer
    assert "tự quản: bạn tự cài đặt và cấu hình (GPU Operator)" in answer.answer


def test_a_vietnamese_answer_gives_the_vietnamese_detail_and_notes(fixture_index: SearchIndex) -> None:
    vi = answer_provider_question(fixture_index, "alpha cloud co mig ko", "vi")
    en = answer_provider_question(fixture_index, "does alpha cloud support mig", "en")
    assert vi is not None and en is not None
    assert "Chọn một MIG profile cho mỗi node pool." in vi.answer and "Pick a MIG" not in vi.answer
    assert "Pick a MIG profile per node pool." in en.answer and "Chọn một" not in en.answer
    # A detail written only in English is left out of a Vietnamese answer rather than shown in English.
    sharing = answer_provider_question(fixture_index, "alpha cloud co time slicing ko", "vi")
    assert sharing is not None and "- **Chia thời gian (time-slicing):**" in sharing.answer and "GPU Operator you install" not in sharing.answer
    overview = answer_provider_question(fixture_index, "alpha cloud", "vi")
    assert overview is not None and "- Hạn mức GPU khác nhau theo từng vùng." in overview.answer and "GPU quotas" not in overview.answer


def test_forced_language_wins(fixture_index: SearchIndex) -> None:
    answer = answer_provider_question(fixture_index, "does alpha cloud support MIG", "vi")
    assert answer is not None and answer.lang == "vi" and "có sẵn" in answer.answer


def test_no_catalogue_means_no_provider_answers(tiny_kb: Path) -> None:
    index = open_index(tiny_kb, use_cache=False)
    assert index.data["providers"] is None
    assert answer_provider_question(index, "does gke support mig", "en") is None


# ---------------------------------------------------------------- through `advisor ask`


def test_ask_json_keeps_knowledge_results_and_adds_the_catalogue_answer(fixture_kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--kb", str(fixture_kb), "--json", "does alpha cloud support mig"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert set(record) == {"query", "lang", "answered", "confidence", "reply", "results", "suggestions", "close", "wizard", "guide", "catalogue"}
    assert (record["answered"], record["lang"]) == (True, "en")
    assert record["reply"] == {"kind": "catalogue", "id": "provider:alpha"}
    assert record["results"] == []  # results only ever rank knowledge entries; the fixture has none
    catalogue = record["catalogue"]
    assert set(catalogue) == {"id", "title", "lang", "summary", "answer", "sources"}
    assert (catalogue["id"], catalogue["sources"]) == ("provider:alpha", ["https://alpha.example/mig"])


def test_ask_text_and_explain(fixture_kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--kb", str(fixture_kb), "--explain", "which providers have infiniband"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Providers with InfiniBand  [providers:infiniband]")
    assert "answered from the provider catalogue (mode: which, needs: infiniband, facts: interconnect)" in out
    assert main(["ask", "--kb", str(fixture_kb), "--json", "--explain", "bravo kube spot"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["catalogue"]["explain"] == {"mode": "provider", "providers": ["bravo"], "facts": ["spot"]}


def test_ask_batch_mixes_catalogue_and_knowledge_answers(fixture_kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_text("bravo kube mig\nwhat is mig\n", encoding="utf-8")
    assert main(["ask", "--kb", str(fixture_kb), "--batch", str(questions)]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["answered"] and first["catalogue"]["id"] == "provider:bravo"
    assert second["answered"] is False and "catalogue" not in second  # the fixture folder has no knowledge entries


def test_bundled_provider_question_also_ranks_the_knowledge_entry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--json", "does gke support mig"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["catalogue"]["id"] == "provider:gke"
    assert record["results"][0]["id"] == "mig"


def test_a_warm_provider_answer_imports_no_yaml() -> None:
    probe = (
        "import json, sys\nfrom advisor.cli import main\ncode = main(sys.argv[1:])\n"
        "print('MODULES=' + json.dumps(sorted(m for m in ('textual', 'yaml', 'markdown_it') if m in sys.modules)), file=sys.stderr)"
    )
    argv = ["ask", "--json", "does gke support mig"]
    subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, env=os.environ, timeout=60)  # warms the cache
    result = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, env=os.environ, timeout=60)
    assert json.loads(result.stdout)["catalogue"]["id"] == "provider:gke"
    assert [line for line in result.stderr.splitlines() if line.startswith("MODULES=")] == ["MODULES=[]"]


def test_the_ask_pre_check_never_hides_a_catalogue_answer() -> None:
    """`advisor ask` skips the catalogue when no trigger word is present; that must never skip an answer."""
    from advisor.library import open_index
    from advisor.paths import bundled_knowledge_dir
    from advisor.textnorm import tokens
    from tests.eval.report import SETS, load_questions

    index = open_index(bundled_knowledge_dir())
    triggers = frozenset(index.data["catalogue_triggers"])
    questions = [item["q"] for name in SETS for item in load_questions(name)]
    questions += ["does gke support mig", "nha cung cap nao co infiniband", "which clouds have spot gpus", "providers with mps", "tell me about hetzner"]
    skipped = [q for q in questions if triggers.isdisjoint(index.analyzer.words(q)) and triggers.isdisjoint(tokens(q))]
    assert len(skipped) > len(questions) / 2  # the pre-check does save work
    assert all(answer_provider_question(index, q, "en") is None for q in skipped)

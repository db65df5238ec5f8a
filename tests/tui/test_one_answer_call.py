"""`advisor ask --json` and the app's chat give the same answer: both call `advisor.reply.answer`.

Knowledge and provider questions, English and Vietnamese (with and without diacritics), and
questions nothing answers: the id the CLI reports as its reply is the id of the card the chat
shows (None for "no confident answer"). They are asked one after another in one chat, as a user
asks them: what was asked before must not change an answer.
"""

from __future__ import annotations

import json

import pytest

from advisor.cli import main
from advisor.search.index import SearchIndex
from advisor.tui.app import AdvisorApp
from advisor.tui.screens.chat_screen import MAX_EXCHANGES
from advisor.tui.widgets.answer_card import AnswerCard

from .helpers import ask

QUESTIONS = [
    "what is MIG?",
    "mig la gi",
    "MIG là gì?",
    "how do I share one GPU between several jobs?",
    "chia se gpu cho nhieu pod",
    "time slicing vs mps",
    "tiem slicing co cach ly bo nho khong",
    "is kubernetes worth it for one notebook?",
    "k8s for 1 notebook?",
    "co nen dung k8s cho 1 job khong",
    "pod stuck Pending: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu",
    "nvidia-smi not found inside my container",
    "Failed to initialize NVML: Unknown Error",
    "CUDA driver version is insufficient for CUDA runtime version",
    "how do I install the gpu operator",
    "gpu operator la gi",
    "driver có được cài sẵn trên node GPU không?",
    "dcgm exporter metrics grafana",
    "theo dõi GPU utilization từng pod",
    "NCCL timeout multi node training",
    "infiniband vs roce",
    "huấn luyện phân tán nhiều node cần gì",
    "shared storage ReadWriteMany for training data",
    "spot node bi thu hoi thi sao",
    "scale gpu node pool to zero when idle",
    "chi phi gpu khi khong dung",
    "serve llama 70b with vllm on kubernetes",
    "autoscale inference on queue depth",
    "kueue cluster queue gpu quota",
    "volcano gang scheduling pytorchjob",
    "ray on kubernetes gpu",
    "does GKE support MIG",
    "does gke support mig",
    "eks spot notice",
    "nhà cung cấp nào có InfiniBand",
    "which providers offer managed kubernetes with mig",
    "CoreWeave có MPS không?",
    "tell me about lambda labs",
    "nên dùng EKS hay tự dựng cụm",
    "managed kubernetes or self-hosted for gpus",
    "k8s",
    "gpu",
    "what is the capital of france",
    "thủ đô của pháp là gì",
    "how do I cook pho",
]


def cli_reply_id(question: str, capsys: pytest.CaptureFixture[str]) -> str | None:
    main(["ask", "--json", question])
    record = json.loads(capsys.readouterr().out)
    return record["reply"]["id"]


async def test_the_cli_and_the_chat_answer_alike(kb_index: SearchIndex, capsys: pytest.CaptureFixture[str]) -> None:
    expected = {question: cli_reply_id(question, capsys) for question in QUESTIONS}
    shown: dict[str, str | None] = {}
    app = AdvisorApp(index=kb_index, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        for question in QUESTIONS:
            cards_before = len(app.screen.query("AnswerCard, NoAnswerCard"))
            await ask(pilot, question)
            cards = app.screen.query("AnswerCard, NoAnswerCard")
            assert len(cards) == cards_before + 1 or len(cards) == cards_before == MAX_EXCHANGES, question
            newest = cards.last()
            shown[question] = newest.answer.id if isinstance(newest, AnswerCard) else None
    assert shown == expected


def test_the_questions_cover_both_kinds_of_answer_and_none(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(QUESTIONS) >= 40
    ids = [cli_reply_id(question, capsys) for question in QUESTIONS]
    assert any(answer_id and answer_id.startswith("provider") for answer_id in ids)
    assert any(answer_id and ":" not in answer_id for answer_id in ids)
    assert None in ids

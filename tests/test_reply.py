"""`advisor.reply`: what answers a question, which section leads, pasted logs, provider routing."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from advisor.reply import CATALOGUE, CLOSE_CONFIDENCE, CLOSE_MARGIN, KNOWLEDGE, NONE, answer, answer_paste, entry_article, short_answer
from advisor.search.errors import quoted_errors
from advisor.search.index import SearchIndex
from advisor.search.logs import best_match, failing_line, reports_failure, scan_log, telling_part
from advisor.search.rank import search
from advisor.textnorm import is_vietnamese_syllable


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return open_index(bundled_knowledge_dir(), use_cache=False)


@pytest.mark.parametrize(
    ("question", "entry", "heading_word"),
    [
        ("pods stuck pending insufficient nvidia.com/gpu untolerated taint", "pods-pending-gpu", "taint"),
        ("how do I make the device plugin pick up my edited time-slicing ConfigMap", "time-slicing-setup", ""),
        ("dcgm exporter servicemonitor prometheus not scraping", "dcgm-exporter-setup", ""),
        # `kubectl describe pod` says "Reason: OOMKilled": the container's RAM, not GPU memory.
        ("Reason: OOMKilled", "gpu-memory-sizing", "OOMKilled"),
        # The exporter's install section, not the crash-loop one whose heading names the exporter.
        ("how to install dcgm exporter", "dcgm-exporter-setup", "install"),
        ("DCGM exporter cài thế nào?", "dcgm-exporter-setup", "cài"),
        ("lam sao biet node co bao nhieu gpu trong", "device-plugin", "Allocatable"),  # free GPUs, not nodeSelector
        # A marketplace pod's own SSH (proxy or direct), not the SSH tunnel to Jupyter on a VM.
        ("runpod ssh over exposed tcp connection refused", "plain-gpu-instance", "RunPod"),
        ("ssh vao vast.ai truc tiep bang ip", "plain-gpu-instance", "Vast.ai"),
        ("how to scp files to a runpod pod", "plain-gpu-instance", "files"),
        ("added ssh key to vast account but still cannot connect to my running instance", "plain-gpu-instance", "SSH into"),
        ("how to get same port inside and outside runpod", "plain-gpu-instance", "Ports"),
        ("colab free bi ngat ket noi giua chung", "plain-gpu-instance", "Colab"),
        ("studio lab no runtime available", "plain-gpu-instance", "Studio Lab"),
        # HAMi's compute cap is an average sampled from NVML, and off for a pod alone on its card.
        ("hami gpucores limit not working, gpu util still 100%", "hami-fractional-gpu", "compute cap"),
        ("gioi han gpucores cua hami ko co tac dung", "hami-fractional-gpu", "compute"),
        ("ray serve min_replicas 0 never scales to zero", "kuberay", "Ray Serve"),
        # Resuming after a spot reclaim is the script's job, not the platform's.
        ("how to resume training from checkpoint after spot preemption", "spot-nodes", "Resuming"),
        ("chay tiep train tu checkpoint sau khi spot bi thu hoi", "spot-nodes", "checkpoint"),
        ("jupyterhub dockerspawner give each user their own gpu", "jupyterhub-gpus", "DockerSpawner"),
        # Not the one-user pod section, whose heading used to say "without JupyterHub".
        ("jupyterhub for a team with gpus", "jupyterhub-gpus", "worth"),
        # The exporter's own OOM kills, not a workload's RAM (the "Reason: OOMKilled" case above).
        ("dcgm-exporter pod keeps getting OOMKilled", "dcgm-exporter-setup", "OOMKilled"),
        ("dcgm exporter bi oomkilled, ram tang dan", "dcgm-exporter-setup", "OOMKilled"),
        # Two rented machines and no cluster: the VMs section, not the operators of Kubernetes.
        ("train across 2 rented gpu vms without kubernetes, which ports to open", "distributed-training", "rented VMs"),
        ("deepspeed hostfile 2 may cu hoi mat khau ssh", "distributed-training", "máy thuê"),
        ("thue 2 may gpu train chung ko dung k8s thi mo port nao", "distributed-training", "máy thuê"),
        # An 8B model: the one-GPU Deployment, not the 70B section whose YAML names Llama.
        ("serve llama 3 8b with vllm on k8s", "vllm-on-kubernetes", "one GPU"),
        # Whether to use spot at all, not how to fall back to on-demand when spot runs out.
        ("spot or on-demand for a 3 day training run?", "spot-nodes", "which jobs"),
        # What an idle pool costs, not the GKE entry the provider's name points at.
        ("how much does an idle gke gpu node pool cost", "billing-idle-costs", "zero"),
    ],
)
def test_the_answer_opens_on_the_section_that_answers(index: SearchIndex, question: str, entry: str, heading_word: str) -> None:
    reply = answer(index, question)
    assert reply.kind == KNOWLEDGE and reply.article is not None and reply.article.id == entry
    section = reply.article.section
    assert section is not None and section.anchor
    assert heading_word.lower() in section.heading.lower()
    text = short_answer(reply.article)
    assert section.text in text and len(text) < len(reply.article.body)


@pytest.mark.parametrize(
    ("question", "entry", "fix"),
    [
        ("helm install hami on eks fails kubeVersion incompatible", "hami-fractional-gpu", "kubeVersionOverride"),
        ("nvidia-container-cli: container error: cgroup subsystem devices not found", "nvml-errors", "1.8.0"),
        ("nvidia-smi trong pod hami hien 17592186044134MiB", "hami-fractional-gpu", "v2.6.1"),
        ("deepspeed save_checkpoint to an s3 bucket", "storage", "DeepSpeed#2701"),
        ("restore a gpu training process with criu", "spot-nodes", "cuda-checkpoint"),
        ("docker container does not see the mig instance I created after it started", "mig-setup-profiles", "nvidia-caps"),
        ("tao them mig instance ma container dang chay khong thay", "mig-setup-profiles", "nvidia-caps"),
        ("dcgm-exporter 4.4.2 memory leak, OOM kills every day", "dcgm-exporter-setup", "GOMAXPROCS=2"),
        ("cannot access jupyter on the instance public ip port 8888", "plain-gpu-instance", "--ip 0.0.0.0"),
        ("gcp gpu vm bi dung vi host maintenance mat tien do train", "plain-gpu-instance", "maintenance-event"),
        ("torchrun second node RendezvousTimeoutError", "distributed-training", "nc -zv"),
    ],
)
def test_the_short_answer_names_the_fix(index: SearchIndex, question: str, entry: str, fix: str) -> None:
    """Where the section is a list of errors, the shown part must reach the bullet with the fix."""
    reply = answer(index, question)
    assert reply.kind == KNOWLEDGE and reply.article is not None and reply.article.id == entry
    assert fix in short_answer(reply.article)


@pytest.mark.parametrize("question", ["pods stuck pending insufficient nvidia.com/gpu untolerated taint", "mig strategy single vs mixed", "chia gpu cho nhieu pod bang time slicing"])
def test_the_stored_section_words_rank_as_analysing_the_text_does(index: SearchIndex, question: str) -> None:
    """The index's words of each section spare analysing the answer's text again; words that no
    longer fit the body (its file changed since the index was built) are not used."""
    from advisor.search.rank import search
    from advisor.search.sections import rank_sections

    outcome = search(index, question)
    entry = outcome.best.entry
    body, words = entry_article(index, entry, None).body, outcome.normalized.split()
    analysed = rank_sections(index, body, words)
    assert rank_sections(index, body, words, index.section_words(entry)) == analysed
    assert rank_sections(index, body, words, index.section_words(entry)[:-2]) == analysed  # a section fewer: ignored


_SECTION_ORDER = """
import sys
from advisor.library import open_index
from advisor.paths import knowledge_root
from advisor.reply import entry_article
from advisor.search.rank import search
from advisor.search.sections import rank_sections
index = open_index(knowledge_root())
outcome = search(index, sys.argv[1])
body = entry_article(index, outcome.best.entry, None).body
print([(round(score, 9), heading) for score, heading, _ in rank_sections(index, body, outcome.normalized.split())])
"""


def test_sections_that_score_the_same_keep_their_order_in_every_process(tmp_path: Path) -> None:
    """Scores are sums of floats, made in whatever order a set of words iterates, which changes
    with each process's string hashing: equal sections once swapped places from run to run."""
    environment = {**os.environ, "ADVISOR_CACHE_DIR": str(tmp_path)}
    orders = {
        subprocess.run([sys.executable, "-c", _SECTION_ORDER, "mig strategy single or mixed"], env={**environment, "PYTHONHASHSEED": str(seed)}, capture_output=True, text=True, check=True).stdout
        for seed in range(6)
    }
    assert len(orders) == 1
    scores = [score for score, _ in ast.literal_eval(orders.pop())]
    assert len(set(scores)) < len(scores)  # the question still has two sections scoring the same


@pytest.mark.parametrize(
    ("heading", "anchor_text"),
    [("Install with Helm", "install-with-helm"), ("Pods Pending: \"Insufficient nvidia.com/gpu\"", "pods-pending-insufficient-nvidiacomgpu"), ("MIG 1g.10gb vs 2g.20gb", "mig-1g10gb-vs-2g20gb")],
)
def test_section_anchors_follow_the_markdown_rule(heading: str, anchor_text: str) -> None:
    from advisor.knowledge.body import anchor

    assert anchor(heading) == anchor_text


def test_the_short_answer_is_the_opening_and_one_section(index: SearchIndex) -> None:
    reply = answer(index, "what is MIG?")
    assert reply.article is not None
    text = short_answer(reply.article)
    assert text.count("\n## ") == 1
    assert text.startswith(reply.article.summary[:40])


@pytest.mark.parametrize(
    ("line", "entry"),
    [
        ("Warning  FailedScheduling  default-scheduler  0/5 nodes are available: 5 Insufficient nvidia.com/gpu.", "pods-pending-gpu"),
        ("E1203 08:30:00.000 1 main.go:123] could not load NVML library: libnvidia-ml.so.1: cannot open shared object file", "nvml-errors"),
        ("I1203 08:30:00 main.go:45] No devices found. Waiting indefinitely.", "pods-pending-gpu"),
        ("CUDA error: CUDA driver version is insufficient for CUDA runtime version", "driver-cuda-compat"),
    ],
)
def test_a_pasted_log_is_answered_from_its_error_line(index: SearchIndex, line: str, entry: str) -> None:
    log = "\n".join(
        [f"2026-12-03T08:00:{n:02d}Z I1203 kubelet.go:{n}] SyncLoop (PLEG): event for pod ml/trainer-{n}" for n in range(40)]
        + [line]
        + [f"2026-12-03T08:01:{n:02d}Z I1203 kubelet.go:{n}] probe succeeded" for n in range(40)]
    )
    reply = answer_paste(index, log)
    assert reply.log_line is not None and reply.log_line.number == 41
    assert reply.article is not None and reply.article.id == entry


@pytest.mark.parametrize(
    ("asked", "lang"),
    [
        ("pod vllm nay cu restart hoai, log cuoi:", "vi"),  # without marks, above an English log
        ("Pod training của em bị Pending mãi, describe ra thế này:", "vi"),
        ("our training pod stays pending, describe says:", "en"),
        ("", "en"),  # the log alone: its own language
    ],
)
def test_a_paste_is_answered_in_the_language_of_the_askers_own_words(index: SearchIndex, asked: str, lang: str) -> None:
    log = "Events:\n  Warning  FailedScheduling  30s  default-scheduler  0/2 nodes are available: 2 Insufficient nvidia.com/gpu."
    reply = answer_paste(index, f"{asked}\n{log}" if asked else log)
    assert reply.log_line is not None and reply.article is not None and reply.article.id == "pods-pending-gpu"
    assert reply.lang == reply.article.lang == lang


def test_a_long_paste_is_read_for_its_language_at_its_ends_only(index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading every line of a 10 MB log for its language took the pasted-log benchmark from 0.5 to
    5.8 s; the asker's own lines are at either end."""
    from advisor.search import language

    read: list[str] = []
    detect = language.detect_language
    monkeypatch.setattr(language, "detect_language", lambda index, text: read.append(text) or detect(index, text))
    body = "\n".join(f"I1203 controller.go:{n}] reconciling pod trainer-{n}" for n in range(20_000))
    assert language.paste_language(index, f"pod cua em cu restart hoai, log day:\n{body}") == "vi"
    assert language.paste_language(index, f"{body}\nsao vay ae?") == "vi"
    assert language.paste_language(index, body) is None
    assert len(read) <= 3 * 2 * language.ASKER_LINES


def test_an_error_word_inside_other_words_brings_no_line_to_analyse(index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    """"space" (of "No space left on device") is found inside "namespace" on every line of a
    controller's log: those lines were all analysed, 5,000 of them, a second for a 10 MB paste."""
    analysed: list[str] = []
    content = index.analyzer.content
    monkeypatch.setattr(index.analyzer, "content", lambda text: analysed.append(text) or content(text))
    log = "\n".join(f"I1203 controller.go:{n}] reconciling pod trainer-{n} in namespace ml-{n}, phase Running" for n in range(3000))
    error = "Warning  FailedScheduling  0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
    matches = scan_log(index, log + "\n" + error + "\n" + log)
    assert [match.number for match in matches] == [3001]
    assert len(analysed) < 10


def test_a_long_matched_line_is_cut_after_a_whole_word_and_says_so(index: SearchIndex) -> None:
    from advisor.search.logs import MAX_SHOWN_CHARS

    event = "Warning  FailedScheduling  12s  default-scheduler  0/3 nodes are available: 1 node(s) had untolerated taint, 2 Insufficient nvidia.com/gpu."
    line = event + " preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling" * 5
    (match,) = scan_log(index, "Events:\n" + line)
    assert match.line.endswith(" …") and len(match.line) <= MAX_SHOWN_CHARS + 2
    shown = match.line.removesuffix(" …")
    assert " ".join(line.split()).startswith(shown) and " ".join(line.split())[len(shown)] == " "  # a whole word
    assert match.line.startswith("Warning FailedScheduling 12s")  # spaces made one, as before


def test_an_anchor_the_log_repeats_everywhere_does_not_hide_a_rarer_one(index: SearchIndex) -> None:
    """A training log says "shard" on thousands of lines, more than are ever analysed: the lines
    of the anchor it repeats least are analysed first, wherever they are in the log."""
    from advisor.search.logs import MAX_CANDIDATE_LINES, _anchors

    common = next(anchor for anchor in _anchors(index) if anchor not in {"insufficient", "available", "nodes"})
    noise = "\n".join(f"2026-12-03T10:00:00Z step={n} {common} {n} written" for n in range(MAX_CANDIDATE_LINES + 500))
    error = "Warning  FailedScheduling  0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
    matches = scan_log(index, noise + "\n" + error)
    assert [match.number for match in matches] == [MAX_CANDIDATE_LINES + 501]


@pytest.mark.parametrize(
    ("line", "failure"),
    [
        ("E0312 08:14:02.118201       1 factory.go:68] Incompatible strategy detected auto", True),
        ("I0312 08:14:02.118201       1 main.go:178] Starting FS watcher.", False),
        ('time="2024-10-21T06:06:00Z" level=info msg="Changing the state label to \'failed\'"', False),  # the level decides
        ('{"level":"ERROR","message":"could not schedule pod"}', True),
        ("worker-1:92:92 [1] NCCL INFO NET/IB : No device found.", False),
        ("node08:6561:6620 [0] misc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed", True),
        ("modprobe: ERROR: could not insert 'nvidia': Key was rejected by service", True),
        ("Unloading NVIDIA driver kernel modules...", False),
        ("[ 1843.310221] NVRM: Xid (PCI:0000:b3:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", True),
    ],
)
def test_a_log_line_reports_a_failure_by_its_level_else_its_words(line: str, failure: bool) -> None:
    assert reports_failure(line) is failure


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # What follows a failure is listed too (users paste it), but the failure is what broke.
        (
            "\n".join([
                'time="2024-10-21T06:05:59Z" level=info msg="Applying the selected MIG config to the node"',
                'time="2024-10-21T06:06:00Z" level=error msg="MIG mode is in pending enable state for GPU 0 (In use by another client: 00000000:17:00.0)"',
                "time=\"2024-10-21T06:06:00Z\" level=info msg=\"Changing the 'nvidia.com/mig.config.state' node label to 'failed'\"",
            ]),
            2,
        ),
        (
            "\n".join([
                "I0312 08:14:02.118201       1 main.go:178] Starting FS watcher.",
                "E0312 08:14:02.119501       1 factory.go:68] Incompatible strategy detected auto",
                "E0312 08:14:02.119573       1 factory.go:69] If this is a GPU node, did you configure the NVIDIA Container Toolkit?",
                "E0312 08:14:02.119601       1 factory.go:70] You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin#prerequisites",
            ]),
            2,  # the hint after it is a longer listed line
        ),
    ],
)
def test_the_first_failure_of_a_paste_is_its_cause(index: SearchIndex, log: str, cause: int) -> None:
    matches = scan_log(index, log)
    assert len(matches) >= 2  # the lines after it quote known errors as well
    match = best_match(matches, log)
    assert match is not None and match.number == cause


def test_a_known_line_that_reports_no_failure_is_not_the_cause_beside_one_that_does(index: SearchIndex) -> None:
    """Entries list NCCL's "No plugin found" INFO line because users paste it; here the failure is
    a WARN line no entry lists (a socket message truncated), so the paste is asked as a question
    and no line is named; once the failure is a listed line (the peer's completion error), that
    line is named."""
    head = [
        "node08:6561:6561 [0] NCCL INFO Bootstrap : Using [0]ibs3:10.252.0.211<0>",
        "node08:6561:6561 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
        "node08:6561:6561 [0] NCCL INFO Using network IB",
    ]
    tail = "node08:6561:6620 [0] NCCL INFO transport/net_ib.cc:360 -> 2"
    log = "\n".join([*head, "node08:6561:6620 [0] transport/net_socket.cc:522 NCCL WARN NET/Socket : message truncated : receiving 1048576 bytes instead of 65536", tail])
    matches = scan_log(index, log)
    assert [match.number for match in matches] == [2] and not matches[0].failure
    assert best_match(matches, log) is None
    assert best_match(matches, "\n".join(head)) == matches[0]  # alone, it is the clue
    reply = answer_paste(index, log)
    assert reply.log_line is None and reply.article is not None and reply.article.id == "nccl-troubleshooting"
    listed = "\n".join([*head, "node08:6561:6620 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<43523> with error 12, opcode 0, len 0, vendor err 129", tail])
    reply = answer_paste(index, listed)
    assert reply.log_line is not None and reply.log_line.number == 4 and reply.article is not None and reply.article.id == "nccl-troubleshooting"


def test_failing_line_finds_the_first_failure_outside_the_skipped_lines() -> None:
    log = "I0101 ok\nE0101 00:00:01 disk full\nall fine\nsomething failed here\n"
    assert failing_line(log) == 2
    assert failing_line(log, frozenset({2})) == 4
    assert failing_line("I0101 00:00:01 error=0 retries\nnothing") is None  # the level decides


def test_timestamps_ids_and_counts_do_not_matter(index: SearchIndex) -> None:
    plain = quoted_errors(index, index.analyzer.content("0/3 nodes are available: 3 Insufficient nvidia.com/gpu"))
    noisy = quoted_errors(index, index.analyzer.content("2024-05-01T10:00:00Z pod/x-7f9c 0/12 nodes are available: 12 Insufficient nvidia.com/gpu."))
    assert plain and plain == noisy


def test_a_stretch_of_the_question_quotes_the_longest_line_it_holds(index: SearchIndex) -> None:
    """"Found no NVIDIA driver on your system" (stop words aside) lies inside PyTorch's other
    error, "The NVIDIA driver on your system is too old": the longer line is what was pasted."""
    too_old = "RuntimeError: The NVIDIA driver on your system is too old (found version 11040)"
    assert set(quoted_errors(index, index.analyzer.content(too_old))) == {index.topic_of("driver-cuda-compat")}
    assert search(index, too_old).hits[0].topic == "driver-cuda-compat"
    missing = quoted_errors(index, index.analyzer.content("RuntimeError: Found no NVIDIA driver on your system"))
    assert set(missing) == {index.topic_of("container-cannot-see-gpu")}


def test_a_line_quoted_whole_is_not_outquoted_by_a_longer_line_quoted_in_part(index: SearchIndex) -> None:
    """"no CUDA-capable device is detected" is quoted whole; the EKS entry's longer line, a device
    plugin's "nvidia-container-cli: initialization error: cuda error: no cuda-capable device is
    detected", only from its "cuda error" on."""
    pasted = "CUDA error: no CUDA-capable device is detected"
    assert index.topic_of("container-cannot-see-gpu") in quoted_errors(index, index.analyzer.content(pasted))
    assert search(index, pasted).hits[0].topic == "container-cannot-see-gpu"


def test_a_resource_name_alone_quotes_no_error(index: SearchIndex) -> None:
    assert quoted_errors(index, index.analyzer.content("how do I request nvidia.com/gpu in a pod")) == {}


def test_a_long_log_with_no_known_error_line_is_asked_from_its_failing_lines(index: SearchIndex) -> None:
    """A training log ends in a CUDA OOM that no entry lists as an error line (it is the same
    whatever the cause): asked from its head, 300 lines of progress, it found nothing."""
    log = "\n".join(
        [f"2026-12-04 10:{n // 60:02d}:{n % 60:02d} INFO step {n} loss {2.5 - n / 1000:.3f} lr 2e-5" for n in range(300)]
        + ["Traceback (most recent call last):", '  File "/app/train.py", line 214, in <module>', "    loss.backward()"]
        + ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total capacity of 79.15 GiB"]
    )
    reply = answer_paste(index, log)
    assert reply.log_line is None
    assert reply.article is not None and reply.article.id == "gpu-memory-sizing"


def test_a_long_paste_keeps_its_latest_failing_lines_else_its_tail() -> None:
    chatter = [f"I1204 step {n} ok" for n in range(500)]
    failing = "\n".join(chatter[:250] + ["E1204 first failure: disk full"] + chatter[250:] + ["E1204 pod was OOMKilled"])
    assert telling_part(failing, 200) == "E1204 first failure: disk full E1204 pod was OOMKilled"
    assert telling_part(failing, 30) == "E1204 pod was OOMKilled"
    calm = "\n".join(chatter)
    assert telling_part(calm, 40).endswith("I1204 step 499 ok") and len(telling_part(calm, 40)) <= 40
    assert telling_part("short  paste\nstays whole", 2000) == "short paste stays whole"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=3000), st.integers(min_value=1, max_value=500))
def test_a_long_paste_is_cut_within_the_limit(text: str, limit: int) -> None:
    assert len(telling_part(text, limit)) <= limit


def test_a_log_without_known_errors_is_asked_as_a_question(index: SearchIndex) -> None:
    reply = answer_paste(index, "line one about nothing\nline two about the weather")
    assert reply.log_line is None and reply.kind == NONE
    assert scan_log(index, "no errors\nat all\n") == []


@pytest.mark.parametrize(
    ("question", "kind", "entry", "catalogue"),
    [
        ("does GKE support MIG", CATALOGUE, "provider:gke", "provider:gke"),
        ("does coreweave give me a managed control plane", CATALOGUE, "provider:coreweave", "provider:coreweave"),  # "give" offers
        ("do i get root on vast.ai machines", CATALOGUE, "provider:vastai", "provider:vastai"),  # root: its own cluster on them
        ("can i run k3s on lambda instances", CATALOGUE, "provider:lambda", "provider:lambda"),  # "run" asks nothing more
        ("do any clouds preinstall nvidia drivers", CATALOGUE, "providers:drivers-preinstalled", "providers:drivers-preinstalled"),
        # "how to" asks for guidance, as "làm sao" does: the entry answers, the card comes beside.
        ("how to enable mig on gke", KNOWLEDGE, "mig-setup-profiles", "provider:gke"),
        ("nên dùng EKS hay tự dựng", KNOWLEDGE, "managed-vs-self-run", "provider:eks"),
        ("install gpu operator on eks", KNOWLEDGE, None, "provider:eks"),
        # A provider named in passing: the question is about what the rest of it says.
        ("cluster autoscaler never scales up the gpu node group on eks", KNOWLEDGE, "gpu-node-autoscaling", "provider:eks"),
        ("spot gpu nodes on aks get evicted, how to handle the interruption", KNOWLEDGE, "spot-interruption-handling", "provider:aks"),
        # One word no catalogue fact explains is enough: the card says nothing about Autopilot.
        ("gpus on gke autopilot", KNOWLEDGE, "gke-gpu-setup", "provider:gke"),
        # "which managed kubernetes" asks for providers, but not where the rest asks something else.
        ("what managed kubernetes version supports dra", KNOWLEDGE, "dynamic-resource-allocation", "providers:managed"),
        ("runpod vs lambda", CATALOGUE, "provider:runpod+lambda", "provider:runpod+lambda"),
        ("compare lambda and coreweave", CATALOGUE, "provider:lambda+coreweave", "provider:lambda+coreweave"),
        # Which of two: no entry is sure, and the two side by side are the answer, not nothing.
        ("should I use eks or gke", CATALOGUE, "provider:eks+gke", "provider:eks+gke"),
        ("nen dung eks hay gke", CATALOGUE, "provider:eks+gke", "provider:eks+gke"),
    ],
)
def test_a_provider_name_does_not_override_what_is_asked(index: SearchIndex, question: str, kind: str, entry: str | None, catalogue: str) -> None:
    reply = answer(index, question)
    assert reply.kind == kind
    assert reply.catalogue is not None and reply.catalogue.id == catalogue
    if entry is not None:
        assert reply.article is not None and reply.article.id == entry


@pytest.mark.parametrize("question", ["azure portal dark mode", "coreweave office address", "AWS GPU instances are too expensive, what alternatives"])
def test_a_provider_named_beside_what_its_card_does_not_explain_is_not_answered_by_the_card(index: SearchIndex, question: str) -> None:
    reply = answer(index, question)
    assert reply.kind == NONE and not reply.answered and reply.catalogue is None


def test_two_providers_are_compared_side_by_side(index: SearchIndex) -> None:
    reply = answer(index, "runpod vs lambda")
    assert reply.catalogue is not None
    table = [line for line in reply.catalogue.answer.splitlines() if line.startswith("|")]
    assert "Runpod" in table[0] and "Lambda" in table[0] and len(table) > 5


def test_a_vietnamese_catalogue_answer_has_no_english_values(index: SearchIndex) -> None:
    reply = answer(index, "EKS báo trước spot bao lâu")
    assert reply.catalogue is not None and reply.catalogue.lang == "vi"
    assert "minutes" not in reply.catalogue.answer and "2 phút" in reply.catalogue.answer


@pytest.mark.parametrize("question", ["thủ đô của pháp là gì", "thu do cua phap la gi", "ai là tổng thống mỹ", "hôm nay thời tiết thế nào", "what is the capital of france"])
def test_small_talk_is_not_repaired_into_a_gpu_question(index: SearchIndex, question: str) -> None:
    reply = answer(index, question)
    assert reply.kind == NONE
    assert not any(fixed in ("phan", "tuong") for _, fixed in reply.outcome.corrections)


@pytest.mark.parametrize(("word", "syllable"), [("phap", True), ("tong", True), ("nghieng", True), ("pod", False), ("gpu", False), ("node", False), ("mig", False)])
def test_vietnamese_syllables(word: str, syllable: bool) -> None:
    assert is_vietnamese_syllable(word) is syllable


def test_no_confident_answer_offers_choices_without_scores(index: SearchIndex) -> None:
    """"gpu" alone ties many entries at the same score: choices, each an (id, title) pair, no score."""
    reply = answer(index, "gpu")
    assert reply.kind == NONE
    assert len(reply.suggestions) == 3 and all(len(pair) == 2 for pair in reply.suggestions)
    assert reply.outcome.confidence < 100.0


def test_an_answer_names_the_entries_ranked_nearly_as_high(index: SearchIndex) -> None:
    reply = answer(index, "infiniband rdma k8s")
    assert reply.kind == KNOWLEDGE and reply.outcome.confidence >= CLOSE_CONFIDENCE
    best = reply.outcome.hits[0].score
    close = dict(reply.close)
    assert close and reply.article is not None and reply.article.id not in close
    assert all(best - hit.score <= CLOSE_MARGIN for hit in reply.outcome.hits if hit.topic in close)
    assert all(hit.topic in close for hit in reply.outcome.hits[1:3] if best - hit.score <= CLOSE_MARGIN)


def test_a_tie_inside_one_topic_goes_to_its_home_entry(index: SearchIndex) -> None:
    reply = answer(index, "mig la gi")
    assert reply.article is not None and reply.article.id == "mig"


@pytest.mark.parametrize(
    ("question", "provider", "title"),
    [
        ("what gpus does lambda offer", "provider:lambda", "GPU models"),
        ("which cards does lambda have", "provider:lambda", "GPU models"),
        ("what kind of gpus does vast have", "provider:vastai", "GPU models"),
        ("lambda co nhung gpu nao", "provider:lambda", "Dòng GPU"),
        ("Lambda có GPU gì?", "provider:lambda", "Dòng GPU"),
    ],
)
def test_which_gpus_a_provider_has_is_its_gpu_models(index: SearchIndex, question: str, provider: str, title: str) -> None:
    """A which-word beside "gpu" asks for the GPU models, which also makes an everyday alias
    ("lambda", "vast") a provider."""
    reply = answer(index, question)
    assert reply.kind == CATALOGUE and reply.catalogue is not None
    assert reply.catalogue.id == provider and reply.catalogue.title.endswith(title)


@pytest.mark.parametrize(
    ("question", "provider"),
    [
        ("is lambda's kubernetes managed", "provider:lambda"),  # not "lambdas"
        ("does coreweave’s kubernetes support mig", "provider:coreweave"),
        ("what is EKS's control plane fee", "provider:eks"),
    ],
)
def test_a_providers_possessive_names_the_provider(index: SearchIndex, question: str, provider: str) -> None:
    reply = answer(index, question)
    assert reply.kind == CATALOGUE and reply.catalogue is not None and reply.catalogue.id == provider

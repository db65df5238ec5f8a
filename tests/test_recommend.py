"""Rules as data: the key personas get advice faithful to the article, each point with its why."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.knowledge.load import load_knowledge
from advisor.paths import bundled_knowledge_dir
from advisor.decision.recommend import Recommendation, recommend
from advisor.decision.session import Session, complete
from advisor.decision.tree import Tree
from advisor.decision.validate import bundled_tree_path, load_tree

TREES = Path(__file__).parent / "data" / "trees"


@pytest.fixture(scope="module")
def tree() -> Tree:
    return load_tree(bundled_tree_path())


def _rec(tree: Tree, **answers: str) -> Recommendation:
    return recommend(complete(tree, answers).session)


def _rules(rec: Recommendation) -> list[str]:
    return [point.rule for point in rec.points]


def _checks(rec: Recommendation) -> list[str]:
    return [item.id for item in rec.checklist]


def test_notebook_user_gets_a_plain_instance_and_no_sharing(tree: Tree) -> None:
    rec = _rec(tree, workload="notebook", growth="no", drivers="preinstalled", idle="yes")
    assert rec.deployment == "plain-instance"
    assert rec.gpu_sharing == ()
    assert _rules(rec)[0] == "plain-notebook"
    assert {"stop-idle-instance", "preinstalled-drivers-image", "choose-instance-provider"} <= set(_rules(rec))
    cluster_only = {"gang-scheduling", "interconnect", "managed-cluster", "gpu-plumbing", "scale-to-zero", "spot-pool"}
    assert not cluster_only & set(_rules(rec))
    assert {"instance-access", "persistent-disk", "driver-version"} <= set(_checks(rec))
    assert {"when-k8s-worth-it", "faq-k8s-single-job"} <= set(rec.kb)
    assert rec.needs == ()  # the provider catalogue describes Kubernetes offerings


@pytest.mark.parametrize("workload", ["notebook", "inference"])
def test_the_memory_answer_picks_one_class_of_card_for_every_workload(tree: Tree, workload: str) -> None:
    picked = {}
    for memory in ("24gb", "48gb", "80gb", "multi-gpu"):
        rec = _rec(tree, workload=workload, gpu_memory=memory)
        card_points = [point for point in rec.points if point.topic == "gpu"]
        assert len(card_points) == 1 and card_points[0].because[0].key == "gpu_memory"
        assert "gpu-memory-sizing" in card_points[0].kb and "gpu-offered" in _checks(rec)
        picked[memory] = (card_points[0].rule, rec.card)
        assert rec.tree.choice_label(rec.tree.cards, rec.card, "en") != rec.card  # a declared card, with its label
    assert len(set(picked.values())) == 4 and len({card for _, card in picked.values()}) == 4
    several = _rec(tree, workload=workload, gpu_memory="multi-gpu")
    assert "nvlink-machines" in _checks(several) and "nvlink-machines" not in _checks(_rec(tree, workload=workload, gpu_memory="80gb"))


def test_a_model_that_needs_several_gpus_gets_no_sharing_advice(tree: Tree) -> None:
    rec = _rec(tree, workload="inference", gpu_memory="multi-gpu", gpu_fraction="yes", isolation="hard")
    assert rec.gpu_sharing == () and not {point.rule for point in rec.points if point.topic == "sharing"}
    assert "gpu-multi" in _rules(rec)


def test_preinstalled_drivers_on_a_cluster_look_for_providers_that_install_them(tree: Tree) -> None:
    rec = _rec(tree, workload="batch", control_plane="managed", drivers="preinstalled")
    assert "preinstalled-drivers" in _rules(rec) and "preinstalled-drivers-image" not in _rules(rec)
    assert "drivers-preinstalled" in rec.needs


def test_one_model_behind_one_endpoint_is_served_from_a_plain_instance(tree: Tree) -> None:
    """The knowledge's own answer (faq-k8s-single-job): one inference endpoint is easier on a
    rented instance. Every inference workload used to get a cluster and a control-plane fee."""
    rec = _rec(tree, workload="inference", serving="one-endpoint")
    assert rec.deployment == "plain-instance" and rec.card == "24gb-card"
    rules = set(_rules(rec))
    assert {"plain-endpoint", "preinstalled-drivers-image", "stop-idle-instance", "choose-instance-provider"} <= rules
    assert not {"inference-serving", "managed-cluster", "managed-fee", "spot-pool"} & rules
    assert "interruptible" not in {answer.key for answer in rec.answers}  # one endpoint must stay up
    assert _rec(tree, workload="inference").deployment == "managed-k8s"  # the default: scaled serving


def test_one_fine_tune_on_spot_gets_checkpoint_advice_not_a_cluster(tree: Tree) -> None:
    rec = _rec(tree, workload="single-job", growth="no", interruptible="yes")
    assert rec.deployment == "plain-instance"
    assert "spot-instance" in _rules(rec) and "spot-pool" not in _rules(rec)
    assert "spot-instance" in _checks(rec)


def test_a_notebook_that_will_grow_moves_to_kubernetes(tree: Tree) -> None:
    rec = _rec(tree, workload="notebook", growth="yes", control_plane="managed")
    assert rec.deployment == "managed-k8s"
    assert "grows-into-cluster" in _rules(rec)
    assert "team-notebooks" in _rules(rec) and "jupyterhub-gpus" in rec.kb  # how a team runs notebooks there


def test_small_model_inference_needing_isolation_gets_mig(tree: Tree) -> None:
    rec = _rec(tree, workload="inference", gpu_fraction="yes", isolation="hard", mig_cards="yes", control_plane="managed")
    assert rec.deployment == "managed-k8s"
    assert rec.gpu_sharing == ("mig",)
    assert {"inference-serving", "sharing-needs-support", "mig"} <= set(_rules(rec))
    assert {"autoscaling", "sharing-support", "mig-profiles"} <= set(_checks(rec))
    mig = next(point for point in rec.points if point.rule == "mig")
    assert [(a.key, a.value) for a in mig.because] == [("gpu_fraction", "yes"), ("isolation", "hard"), ("mig_cards", "yes")]
    assert mig.kb == ("mig", "gpu-operator")


@pytest.mark.parametrize("memory", ["24gb", "48gb", "80gb", "multi-gpu"])
def test_multi_node_training_rents_nvlink_machines_whatever_one_gpu_holds(tree: Tree, memory: str) -> None:
    """All-reduce across nodes wants NVLink inside the machine and a fabric between them: a 24 GB
    PCIe card beside "rent InfiniBand" was a contradiction (L4 and A10G have no NVLink)."""
    rec = _rec(tree, workload="distributed-training", gpu_memory=memory)
    card_points = [point.rule for point in rec.points if point.topic == "gpu"]
    assert card_points == ["training-gpus"] and rec.card == "nvlink-gpus"
    assert "nvlink-machines" in _checks(rec)
    assert "training-pods" in _rules(rec) and "shm-size-dataloader" in rec.kb


# The cards MIG runs on, as the tree's own question names them.
MIG_MODELS = {"A100", "A30", "H100", "H200", "B200", "GB200"}


@pytest.mark.parametrize("memory", ["24gb", "48gb", "80gb"])
def test_a_card_split_with_mig_is_one_mig_runs_on(tree: Tree, memory: str) -> None:
    """The 24 GB choice (L4, A10G) and the 48 GB one (L40S) have no MIG: when the advice is to
    split the card with MIG, the card to rent is one that has it."""
    rec = _rec(tree, workload="inference", gpu_memory=memory, gpu_fraction="yes", isolation="hard", mig_cards="yes")
    assert rec.gpu_sharing == ("mig",)
    assert rec.card_models and set(rec.card_models) <= MIG_MODELS, rec.card
    card_points = [point.rule for point in rec.points if point.topic == "gpu"]
    assert len(card_points) == 1, card_points  # the MIG card's advice, not also the L4/L40S one it replaces
    soft = _rec(tree, workload="inference", gpu_memory=memory, gpu_fraction="yes", isolation="soft")
    assert soft.card == _rec(tree, workload="inference", gpu_memory=memory).card  # only MIG changes the card


def test_hard_isolation_on_80gb_cards_is_mig_without_asking_about_mig_cards(tree: Tree) -> None:
    """The 80 GB cards (A100 80 GB, H100) all have MIG: the README's example asked no card
    question and was told to rent them, then to give up MIG for lack of MIG cards."""
    completion = complete(tree, {"workload": "inference", "gpu_memory": "80gb", "gpu_fraction": "yes", "isolation": "hard"})
    rec = recommend(completion.session)
    assert "mig_cards" not in {answer.key for answer in rec.answers}
    assert rec.gpu_sharing == ("mig",) and rec.card == "80gb-card"
    assert "hard-isolation-without-mig" not in _rules(rec)
    mig = next(point for point in rec.points if point.rule == "mig")
    assert [(a.key, a.value) for a in mig.because] == [("gpu_fraction", "yes"), ("isolation", "hard"), ("gpu_memory", "80gb")]
    assert "tenant-fences" in _rules(rec) and "gpu-multi-tenancy" in rec.kb


def test_hard_isolation_without_mig_cards_means_whole_gpus(tree: Tree) -> None:
    rec = _rec(tree, workload="inference", gpu_fraction="yes", isolation="hard", mig_cards="no")
    assert rec.gpu_sharing == ()
    assert "hard-isolation-without-mig" in _rules(rec)
    assert "mig-profiles" not in _checks(rec)
    assert "sharing-needs-support" not in _rules(rec)  # no "packing saves GPUs" beside "no sharing"


@pytest.mark.parametrize(("concurrent", "mode"), [("no", "time-slicing"), ("yes", "mps")])
def test_soft_sharing_picks_time_slicing_or_mps(tree: Tree, concurrent: str, mode: str) -> None:
    rec = _rec(tree, workload="inference", gpu_fraction="yes", isolation="soft", concurrent=concurrent)
    assert rec.gpu_sharing == (mode,)
    assert mode in _rules(rec)


def test_models_needing_whole_gpus_get_no_sharing(tree: Tree) -> None:
    rec = _rec(tree, workload="inference", gpu_fraction="no")
    assert rec.gpu_sharing == ()
    assert "whole-gpus" in _rules(rec) and "sharing-needs-support" not in _rules(rec)


def test_multi_node_training_gets_interconnect_gang_scheduling_operator_and_shared_storage(tree: Tree) -> None:
    rec = _rec(tree, workload="distributed-training", framework="pytorch", control_plane="managed", interruptible="no")
    assert rec.deployment == "managed-k8s"
    assert rec.gpu_sharing == ()
    rules = set(_rules(rec))
    assert {"interconnect", "gang-scheduling", "operator-pytorch", "training-storage", "training-fallback"} <= rules
    assert not {"operator-mpi", "operator-other", "shared-data"} & rules
    assert {"interconnect", "gang", "training-operator", "shared-storage"} <= set(_checks(rec))
    assert {"multinode-networking", "faq-multinode-checklist", "distributed-training", "storage"} <= set(rec.kb)
    topics = [point.topic for point in rec.points]
    assert topics == sorted(topics, key=[choice.value for choice in tree.topics].index)  # grouped by topic


def test_spot_batch_jobs_on_a_self_run_cluster(tree: Tree) -> None:
    rec = _rec(tree, workload="batch", control_plane="self-run", team_ops="yes", interruptible="yes", idle="yes")
    assert rec.deployment == "self-run-k8s"
    rules = set(_rules(rec))
    assert {"self-run-cluster", "batch-queue", "spot-pool", "self-run-idle", "preinstalled-drivers-image"} <= rules
    # Scaling node pools to zero and providers that preinstall drivers are managed clusters' affairs:
    # asked of self-run machines, they left no provider in the catalogue.
    assert not {"managed-fee", "managed-cluster", "on-demand", "self-run-without-ops", "scale-to-zero", "preinstalled-drivers"} & rules
    assert {"raw-nodes", "spot-pools"} <= set(_checks(rec)) and "scale-to-zero" not in _checks(rec)
    assert not {"scale-to-zero", "drivers-preinstalled"} & set(rec.needs)
    spot = next(point for point in rec.points if point.rule == "spot-pool")
    assert "drain" in spot.text.get("en") and "drain" in spot.text.get("vi")
    assert "spot-nodes" in rec.kb


@pytest.mark.parametrize(("control_plane", "needs_sharing"), [("managed", True), ("self-run", False)])
def test_only_a_managed_cluster_asks_providers_for_its_sharing_mode(tree: Tree, control_plane: str, needs_sharing: bool) -> None:
    """On a cluster you run, you switch time-slicing on yourself on any provider's machines: the
    catalogue's sharing facts (about managed offerings) must not filter the providers."""
    rec = _rec(tree, workload="batch", gpu_fraction="yes", isolation="soft", concurrent="no", control_plane=control_plane, team_ops="yes")
    assert rec.gpu_sharing == ("time-slicing",)
    assert ("time-slicing" in rec.needs) is needs_sharing


def test_self_run_without_anyone_to_operate_it_is_cautioned(tree: Tree) -> None:
    rec = _rec(tree, workload="batch", control_plane="self-run", team_ops="no")
    assert rec.deployment == "self-run-k8s"
    assert "self-run-without-ops" in _rules(rec)


def test_idle_managed_cluster_scales_to_zero_and_minds_the_control_plane_fee(tree: Tree) -> None:
    rec = _rec(tree, workload="inference", control_plane="managed", idle="yes")
    assert {"scale-to-zero", "managed-fee"} <= set(_rules(rec))
    assert {"scale-to-zero", "control-plane-fee"} <= set(_checks(rec))


def test_own_drivers_on_a_cluster_recommend_the_gpu_operator(tree: Tree) -> None:
    rec = _rec(tree, workload="batch", drivers="own")
    assert "own-drivers-cluster" in _rules(rec) and "preinstalled-drivers" not in _rules(rec)
    assert {"operator-support", "driver-version"} <= set(_checks(rec))


def test_not_sure_everywhere_gives_assumptions_not_errors(tree: Tree) -> None:
    completion = complete(tree, {})
    rec = recommend(completion.session)
    assert rec.deployment == "plain-instance"  # the default workload is one job on one GPU
    assert [a.key for a in rec.assumptions] == ["workload", "growth", "gpu_memory", "drivers", "interruptible", "idle"]
    assert all(answer.assumed for answer in rec.answers)
    point = next(point for point in rec.points if point.rule == "plain-job")
    assert all(answer.assumed for answer in point.because)


def test_explicit_not_sure_is_an_assumption_too(tree: Tree) -> None:
    rec = _rec(tree, workload="inference", gpu_fraction="yes", isolation="not-sure")
    isolation = next(answer for answer in rec.answers if answer.key == "isolation")
    assert isolation.value == "hard" and isolation.assumed
    assert "mig" not in rec.gpu_sharing  # the cards' default is "no MIG": not sure never leads to MIG


@pytest.mark.parametrize("cards", ["no", "not-sure"])
@pytest.mark.parametrize("isolation", ["hard", "soft", "not-sure"])
def test_mig_is_advised_only_on_cards_that_have_it(tree: Tree, cards: str, isolation: str) -> None:
    rec = _rec(tree, workload="inference", gpu_fraction="yes", isolation=isolation, mig_cards=cards)
    assert "mig" not in rec.gpu_sharing
    assert not any(point.rule == "mig" for point in rec.points)


def test_every_cited_id_exists_and_the_kb_list_has_no_duplicates(tree: Tree) -> None:
    known = set(load_knowledge(bundled_knowledge_dir()).ids)
    rec = _rec(tree, workload="distributed-training", control_plane="self-run", interruptible="yes")
    assert len(rec.kb) == len(set(rec.kb))
    assert set(rec.kb) <= known
    cited = {kb_id for point in rec.points for kb_id in point.kb} | {kb_id for item in rec.checklist for kb_id in item.kb}
    assert cited == set(rec.kb)


def test_recommend_needs_a_finished_session(tree: Tree) -> None:
    with pytest.raises(ValueError):
        recommend(Session.start(tree))


def test_rules_come_from_the_tree_file_not_from_code() -> None:
    mini = load_tree(TREES / "valid.yaml")
    rec = recommend(complete(mini, {"workload": "inference", "idle": "yes"}).session)
    assert rec.deployment == "managed-k8s"
    assert rec.gpu_sharing == ("mig",)
    assert _rules(rec) == ["managed", "scale-down"]
    assert _checks(rec) == ["fee"]

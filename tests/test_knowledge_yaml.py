"""The YAML in the knowledge parses and is what Kubernetes and the operators accept (tests/knowledge_yaml.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.knowledge_yaml import REPO, is_core, parse_path, problems, rules, yaml_blocks

KNOWLEDGE = REPO / "knowledge"
# Fields whose text is prose a reader sees (an alert's summary), which the Vietnamese translates.
PROSE_FIELDS = {"summary", "description", "message"}


def test_every_yaml_block_in_the_knowledge_is_valid() -> None:
    found = problems(KNOWLEDGE)
    assert not found, "\n" + "\n".join(found)


def test_the_check_reaches_every_block_and_heredoc() -> None:
    blocks = yaml_blocks(KNOWLEDGE)
    fenced = sum(text.count("```yaml") for text in (p.read_text(encoding="utf-8") for p in KNOWLEDGE.glob("*/*.md")))
    assert len(blocks) > fenced >= 150  # the fenced blocks and the `cat > x.yaml <<EOF` heredocs


def test_every_kind_in_the_table_is_shown_by_an_entry() -> None:
    """The table holds what entries show, so each row was checked against a real manifest."""
    shown = set()
    for block in yaml_blocks(KNOWLEDGE):
        for doc in yaml.safe_load_all(block.text):
            if isinstance(doc, dict) and "kind" in doc:
                shown.add((doc.get("apiVersion"), doc["kind"]))
    kinds, _ = rules()
    assert set(kinds) - shown == set()
    assert all(not is_core(api) or api.startswith("kubelet.") for api, _ in kinds)
    assert all(row["source"].startswith("https://") for row in kinds.values())


def _skeleton(value: Any, key: str = "") -> Any:
    """`value` with what may differ between languages set aside: prose fields, and comments in
    YAML held inside strings (a ConfigMap's config file)."""
    if isinstance(value, dict):
        return {k: _skeleton(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_skeleton(v) for v in value]
    if isinstance(value, str) and key in PROSE_FIELDS:
        return "<prose>"
    if isinstance(value, str) and "\n" in value:
        try:
            return _skeleton(yaml.safe_load(value))
        except yaml.YAMLError:
            return value
    return value


def test_english_and_vietnamese_entries_show_the_same_yaml() -> None:
    by_file: dict[str, list[Any]] = {}
    for block in yaml_blocks(KNOWLEDGE):
        by_file.setdefault(block.where, []).append(_skeleton(list(yaml.safe_load_all(block.text))))
    differ = [
        where for where, docs in by_file.items()
        if where.startswith("knowledge/en/") and by_file.get(where.replace("/en/", "/vi/")) != docs
    ]
    assert differ == []


# Each case is an entry body; `#!` marks the line the problem must be reported at.
CASES = {
    "parse-error": ("```yaml\nmetadata:\n  name: [unclosed\n  labels: {}   #!\n```\n", "YAML does not parse"),
    "misspelt-core-field": (
        "```yaml\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\n"
        "metadata: {name: p}\nspec:\n  containers: [{name: c}]\n  nodeSelecter: {a: b}   #!\n```\n",
        "Pod p: spec.nodeSelecter: Additional properties are not allowed",
    ),
    "wrong-type": (
        "```yaml\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
        "    resources:\n      limits:\n        nvidia.com/gpu: [1]   #!\n```\n",
        "Pod p: spec.containers[0].resources.limits.nvidia.com/gpu:",
    ),
    "unknown-kind": ("```yaml\napiVersion: example.com/v1   #!\nkind: Widget\n```\n", "Widget example.com/v1: unknown kind"),
    "core-version-not-served": (
        "```yaml\napiVersion: resource.k8s.io/v1alpha9   #!\nkind: ResourceClaim\nmetadata: {name: c}\n```\n",
        "ResourceClaim resource.k8s.io/v1alpha9 is not in the Kubernetes",
    ),
    "worker-without-template": (
        "```yaml\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: t}\nspec:\n  pytorchReplicaSpecs:\n"
        "    Master:\n      replicas: 1\n      template:\n        spec:\n          containers: [{name: pytorch, image: i}]\n"
        "    Worker:   #!\n      replicas: 3\n```\n",
        "PyTorchJob t: missing spec.pytorchReplicaSpecs.Worker.template (required)",
    ),
    "container-not-named-pytorch": (
        "```yaml\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: t}\nspec:\n  pytorchReplicaSpecs:\n"
        "    Worker:\n      template:\n        spec:\n          containers:   #!\n          - {name: train, image: i}\n```\n",
        "has no container named 'pytorch'",
    ),
    "typo-inside-a-pod-template": (
        "```yaml\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: t}\nspec:\n  pytorchReplicaSpecs:\n"
        "    Worker:\n      template:\n        spec:\n          containers:\n          - name: pytorch\n"
        "            resource: {}   #!\n```\n",
        "PyTorchJob t: spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resource:",
    ),
    "quota-without-nominal": (
        "```yaml\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n  resourceGroups:\n"
        "  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: a100\n      resources:\n"
        "      - name: nvidia.com/gpu   #!\n```\n",
        "missing spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
    ),
    "two-predictors": (
        "```yaml\napiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: s}\nspec:\n"
        "  predictor:   #!\n    model: {modelFormat: {name: sklearn}}\n    containers: [{name: c, image: i}]\n```\n",
        "needs exactly one of model, containers",
    ),
    "device-plugin-config-typo": (
        "```yaml\nversion: v1\nsharing:\n  timeslicing:   #!\n    resources: [{name: nvidia.com/gpu, replicas: 4}]\n```\n",
        "NVIDIA device plugin config: sharing.timeslicing: not a known field",
    ),
    "replicas-as-text-in-a-heredoc": (
        "```bash\ncat > ts.yaml <<'EOF'\nversion: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n"
        "      replicas: four   #!\nEOF\nkubectl create configmap ts --from-file=any=ts.yaml\n```\n",
        "replicas: must be int",
    ),
    "fragment-typo": (
        "```yaml\ntolerations:\n- key: nvidia.com/gpu\n  operatr: Exists   #!\n```\n",
        "PodSpec fragment: tolerations[0].operatr:",
    ),
    "duplicate-key": ("```yaml\nresources:\n  limits: {cpu: 1}\nresources:   #!\n  limits: {cpu: 2}\n```\n", "duplicate key 'resources'"),
    "mig-profile-in-a-configmap": (
        "```yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n  config.yaml: |\n    version: v1\n"
        "    mig-configs:\n      half:\n        - devices: all\n          mig-enabled: true\n          mig-devices:\n"
        "            1g.10GB: 2   #!\n```\n",
        "'1g.10GB' does not match",
    ),
    "cni-config-not-json": (
        "```yaml\napiVersion: k8s.cni.cncf.io/v1\nkind: NetworkAttachmentDefinition\nmetadata: {name: n}\nspec:\n"
        "  config: '{\"type\": macvlan}'   #!\n```\n",
        "spec.config: not JSON",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_block_is_reported_at_its_line(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    text = f"---\nid: x\nlang: en\n---\nIntro.\n\n{body}"
    (tmp_path / "kb" / "en").mkdir(parents=True)
    (tmp_path / "kb" / "en" / "x.md").write_text(text, encoding="utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), start=1) if "#!" in row)
    found = problems(tmp_path / "kb")
    assert len(found) == 1, found
    assert found[0].startswith(f"kb/en/x.md:{line}: "), found
    assert expected in found[0]


def test_other_yaml_only_has_to_parse(tmp_path: Path) -> None:
    body = "```yaml\nsingleuser:\n  extraResource:\n    limits: {nvidia.com/gpu: '1'}\ncull: {enabled: true}\n```\n"
    (tmp_path / "kb" / "vi").mkdir(parents=True)
    (tmp_path / "kb" / "vi" / "x.md").write_text(f"---\nid: x\n---\n{body}", encoding="utf-8")
    assert problems(tmp_path / "kb") == []


@pytest.mark.parametrize(
    ("path", "segments"),
    [
        ("spec.predictor", [("spec", False), ("predictor", False)]),
        ("spec.workers?.*.name", [("spec", False), ("workers", True), ("*", False), ("name", False)]),
        ("metadata.annotations?.[serving.kserve.io/mode]?", [("metadata", False), ("annotations", True), ("serving.kserve.io/mode", True)]),
    ],
)
def test_table_paths(path: str, segments: list[tuple[str, bool]]) -> None:
    assert parse_path(path) == segments

"""`advisor check` over every kind of data, and the provider list attached to recommendations."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.paths import bundled_knowledge_dir
from tests.conftest import write_entry

FIXTURE_CATALOGUE = Path(__file__).parent / "data" / "providers" / "providers.yaml"


def test_bundled_data_checks_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip() == "0 error(s), 0 warning(s)"


def test_check_reports_knowledge_tree_and_catalogue_problems(tiny_kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_entry(tiny_kb, "en", "orphan")
    trees = tmp_path / "trees"
    trees.mkdir()
    (trees / "broken.yaml").write_text("id: [\n", encoding="utf-8")
    (tiny_kb / "providers.yaml").write_text("schema: 1\nproviders:\n  - id: x\n    name: X\n", encoding="utf-8")
    assert main(["check", "--kb", str(tiny_kb), "--trees", str(trees)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("kb/en/orphan.md:1: entry 'orphan' has no 'vi' translation") for line in lines)
    assert any(line.startswith(f"{trees / 'broken.yaml'}:") or line.startswith("trees/broken.yaml:") or "broken.yaml:" in line for line in lines)
    assert any("providers.yaml:" in line for line in lines)
    assert all(line.count(":") >= 2 for line in lines)


def test_stale_provider_facts_warn_without_failing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kb = tmp_path / "kb"
    shutil.copytree(bundled_knowledge_dir(), kb)
    catalogue = kb / "providers.yaml"
    catalogue.write_text(catalogue.read_text(encoding="utf-8").replace('checked: "2026-12-02"', 'checked: "2020-01-02"'), encoding="utf-8")
    assert main(["check", "--kb", str(kb)]) == 0
    captured = capsys.readouterr()
    assert "warning:" in captured.out and "0 error(s)" in captured.err


def test_recommendation_lists_fitting_providers_in_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    answers = ["--answer", "workload=inference", "--answer", "gpu_fraction=yes", "--answer", "isolation=hard", "--answer", "mig_cards=yes"]
    assert main(["recommend", *answers, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    providers = data["providers"]
    assert "managed" in providers["needs"] and "mig" in providers["needs"]
    assert providers["providers"] and providers["providers"][0]["status"] == "fits"
    assert all(p["status"] in ("fits", "verify") for p in providers["providers"])
    assert providers["as_of"] and "2026" in providers["reminder"]
    assert main(["recommend", *answers, "--format", "md", "--lang", "vi"]) == 0
    markdown = capsys.readouterr().out
    assert "## Nhà cung cấp phù hợp" in markdown and providers["providers"][0]["name"] in markdown
    assert main(["recommend", *answers, "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert "Providers that fit" in page and "Prices and availability change often" in page


def test_the_providers_that_fit_say_whether_they_list_the_card_to_rent(capsys: pytest.CaptureFixture[str]) -> None:
    answers = ["--answer", "workload=inference", "--answer", "gpu_memory=48gb", "--answer", "control_plane=managed"]
    assert main(["recommend", *answers, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["recommendation"]["card"] == "48gb-card"
    listed = [p["card_gpus"] for p in data["providers"]["providers"]]
    assert ["L40S"] in listed and [] in listed  # some list the L40S, some do not
    statuses = [p["status"] for p in data["providers"]["providers"]]
    for status in set(statuses):  # within a status, those with the card come first
        within = [bool(p["card_gpus"]) for p in data["providers"]["providers"] if p["status"] == status]
        assert within == sorted(within, reverse=True)
    assert main(["recommend", *answers, "--format", "md", "--lang", "en"]) == 0
    markdown = capsys.readouterr().out
    assert "Fits · has this card: L40S" in markdown and "lists none of this card's GPUs (L40S)" in markdown
    assert main(["recommend", *answers, "--format", "md", "--lang", "vi"]) == 0
    assert "có card này: L40S" in capsys.readouterr().out


def test_provider_names_are_escaped_in_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kb = tmp_path / "kb"
    shutil.copytree(bundled_knowledge_dir(), kb)
    catalogue = (kb / "providers.yaml").read_text(encoding="utf-8")
    (kb / "providers.yaml").write_text(catalogue.replace("name: Google Kubernetes Engine (GKE)", 'name: "<script>alert(1)</script> GKE"'), encoding="utf-8")
    assert main(["recommend", "--kb", str(kb), "--answer", "workload=inference", "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; GKE" in page


@pytest.mark.parametrize("answers", [["workload=notebook"], ["workload=single-job", "interruptible=yes", "drivers=preinstalled"]])
def test_plain_instance_needs_no_kubernetes_provider(answers: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """The catalogue lists Kubernetes services (EKS, GKE...): none of them is the answer to "rent one
    GPU instance", so a plain instance lists no providers and says any GPU instance will do."""
    flags = [part for answer in answers for part in ("--answer", answer)]
    assert main(["recommend", *flags, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["recommendation"]["deployment"] == "plain-instance"
    assert data["providers"]["needs"] == [] and data["providers"]["providers"] == []
    assert main(["recommend", *flags, "--format", "md", "--lang", "en"]) == 0
    markdown = capsys.readouterr().out
    assert "any provider that rents GPU instances with one of L4, A10G, A10, A30 will do" in markdown  # the card: 24 GB by default
    sharing = next(line for line in markdown.splitlines() if line.startswith("- **GPU sharing:**"))
    assert "pod" not in sharing  # no pods on a plain instance


def test_a_tree_that_picks_no_card_asks_for_any_gpu_instance(capsys: pytest.CaptureFixture[str]) -> None:
    trees = Path(__file__).parent / "data" / "trees"
    assert main(["recommend", "--tree", str(trees / "valid.yaml"), "-a", "workload=notebook", "--format", "md", "--lang", "en"]) == 0
    markdown = capsys.readouterr().out
    assert "any provider with GPU instances will do" in markdown and "GPU to rent" not in markdown

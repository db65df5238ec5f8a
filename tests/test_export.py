"""Exports: golden files for one persona, escaping of hostile text, and atomic, careful writes.

Regenerate the golden files after an intended change with `UPDATE_GOLDEN=1 pytest tests/test_export.py`
and review the diff.
"""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from advisor.decision.diagram import tree_diagram
from advisor.export import render as render_view
from advisor.export.markdown import md_text
from advisor.export.view import build_view
from advisor.files import atomic_write
from advisor.decision.recommend import Recommendation, recommend
from advisor.decision.session import complete
from advisor.decision.tree import Tree
from advisor.decision.validate import bundled_tree_path, load_tree

GOLDEN = Path(__file__).parent / "golden"
TREES = Path(__file__).parent / "data" / "trees"
PERSONA = {
    "workload": "inference",
    "serving": "scaled",
    "gpu_memory": "80gb",
    "gpu_fraction": "yes",
    "isolation": "hard",
    "shared_storage": "no",
    "control_plane": "managed",
    "interruptible": "yes",
    "idle": "yes",
}  # drivers is left out on purpose: it shows up as an assumption
TITLES = {"mig": "MIG (Multi-Instance GPU): hardware-isolated GPU slices"}


def render(rec: Recommendation, fmt: str, lang: str, titles: dict[str, str] | None = None) -> str:
    return render_view(build_view(rec, lang, titles), fmt)


def record(rec: Recommendation, lang: str) -> dict:
    return build_view(rec, lang).record()


@pytest.fixture(scope="module")
def tree() -> Tree:
    return load_tree(bundled_tree_path())


@pytest.fixture(scope="module")
def persona(tree: Tree) -> Recommendation:
    return recommend(complete(tree, PERSONA).session)


@pytest.mark.parametrize(("fmt", "lang"), [("md", "en"), ("json", "en"), ("html", "en"), ("md", "vi"), ("json", "vi")])
def test_golden(persona: Recommendation, fmt: str, lang: str) -> None:
    text = render(persona, fmt, lang, TITLES)
    golden = GOLDEN / f"inference-mig.{lang}.{fmt}"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8", newline="\n")
    assert text == golden.read_text(encoding="utf-8")


def test_json_has_exactly_the_documented_shape(persona: Recommendation) -> None:
    data = json.loads(render(persona, "json", "en"))
    assert data["schema"] == 1 and data["tree"] == "gpu-orchestration" and data["lang"] == "en"
    assert {"schema", "tree", "lang", "answers", "recommendation"} == set(data)
    for answer in data["answers"]:
        assert set(answer) == {"key", "question", "value", "label", "assumed"}
    drivers = next(a for a in data["answers"] if a["key"] == "drivers")
    assert drivers == {
        "key": "drivers",
        "question": "Who installs the GPU driver and CUDA stack on the machines?",
        "value": "preinstalled",
        "label": "The provider (prebuilt images or the GPU Operator)",
        "assumed": True,
    }
    rec = data["recommendation"]
    assert {"deployment", "gpu_sharing", "points", "checklist", "kb"} <= set(rec)
    assert rec["deployment"] == "managed-k8s" and rec["gpu_sharing"] == ["mig"]
    assert (rec["card"], rec["card_label"]) == ("80gb-card", "One 80 GB card: A100 80 GB or H100")
    assert all({"text", "because", "kb"} <= set(point) for point in rec["points"])
    mig = next(point for point in rec["points"] if point["rule"] == "mig")
    assert mig["because"] == ["gpu_fraction=yes", "isolation=hard", "gpu_memory=80gb"]  # the alternative that held
    assert rec["kb"] == list(dict.fromkeys(k for p in rec["points"] for k in p["kb"]) | dict.fromkeys(k for c in rec["checklist"] for k in c["kb"]))
    assert rec["assumptions"] == ["drivers"]


def test_vietnamese_export_is_in_vietnamese(persona: Recommendation) -> None:
    data = record(persona, "vi")
    assert data["answers"][0]["question"] == "Bạn sẽ chạy loại công việc GPU nào?"
    assert data["recommendation"]["deployment_label"] == "Kubernetes được quản lý với node pool GPU"
    assert "## Khuyến nghị" in render(persona, "md", "vi")


# ----------------------------------------------------------------------------- hostile text

HOSTILE = "<script>alert(1)</script> | `rm -rf` # **bold** [x](javascript:alert(1))"


@pytest.fixture()
def hostile(tmp_path: Path) -> Recommendation:
    text = (TREES / "valid.yaml").read_text(encoding="utf-8")
    text = text.replace('"A notebook"', json.dumps(HOSTILE), 1)
    text = text.replace('"Mini tree"', json.dumps("<b>Tree</b> & <img src=x onerror=alert(1)>"), 1)
    text = text.replace('"Rent one instance."', json.dumps("# Heading\n- item\n1. one\n<script>x()</script>"), 1)
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    hostile_tree = load_tree(path)
    return recommend(complete(hostile_tree, {"workload": "notebook"}).session)


class _TagCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(name for name, _ in attrs)


def test_html_escapes_every_value(hostile: Recommendation) -> None:
    page = render(hostile, "html", "en")
    assert "<script" not in page.lower() and "<img" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    collector = _TagCollector()
    collector.feed(page)
    assert "script" not in collector.tags and "img" not in collector.tags
    assert not any(name.startswith("on") for name in collector.attrs)


def test_html_is_self_contained_and_printable(persona: Recommendation) -> None:
    page = render(persona, "html", "en")
    collector = _TagCollector()
    collector.feed(page)
    assert not {"script", "link", "img", "iframe"} & set(collector.tags)
    assert not re.search(r"(src|href)\s*=", page)
    assert "url(" not in page and "@import" not in page
    assert "@media print" in page
    assert page.count('<ol class="flow">') == 1
    assert page.count("<li class=\"outcome\">") == 1
    assert page.count('class="assumed"') == 1  # the drivers answer


def test_markdown_neutralises_hostile_text(hostile: Recommendation) -> None:
    page = render(hostile, "md", "en")
    assert "<script>" not in page and "<img" not in page and "<b>" not in page
    headings = [line for line in page.splitlines() if line.startswith("#")]
    assert all(re.match(r"^#{1,3} [^#]", line) for line in headings)
    assert not any("Heading" in line for line in headings)
    table = [line for line in page.splitlines() if line.startswith("|")]
    assert table and all(len(re.split(r"(?<!\\)\|", line)) == 4 for line in table)  # always two cells per row
    assert "\\`rm -rf\\`" in page
    assert "\\[x\\](javascript:alert(1))" in page
    assert not any(line.startswith(("- item", "1. one")) for line in page.splitlines())


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("plain words", "plain words"),
        ("# not a heading", "\\# not a heading"),
        ("- not a list", "\\- not a list"),
        ("+ not a list", "\\+ not a list"),
        ("1. not ordered", "1\\. not ordered"),
        ("a | b", "a \\| b"),
        ("`code`", "\\`code\\`"),
        ("<em>x</em> & y", "&lt;em&gt;x&lt;/em&gt; &amp; y"),
        ("line\nbreak\n## two", "line break \\#\\# two"),
        ("NCCL_DEBUG=INFO *x*", "NCCL\\_DEBUG=INFO \\*x\\*"),
    ],
)
def test_md_text(raw: str, safe: str) -> None:
    assert md_text(raw) == safe


# ----------------------------------------------------------------------------- diagrams


@pytest.mark.parametrize("fmt", ["mermaid", "dot", "text"])
def test_tree_diagrams_name_every_node(tree: Tree, fmt: str) -> None:
    text = tree_diagram(tree, fmt, "en")
    for node in tree.nodes:
        assert node.id.replace("-", "_") in text.replace("-", "_")
    if fmt == "mermaid":
        assert text.startswith("flowchart TD\n")
        assert '  n_cluster_memory -->|"24gb, 48gb"| n_fraction' in text  # one edge for several answers
    if fmt == "dot":
        assert text.startswith('digraph "gpu-orchestration" {') and text.rstrip().endswith("}")
        assert '"control-plane" -> "team-ops" [label="self-run"];' in text


def test_diagram_labels_cannot_break_out(tmp_path: Path) -> None:
    text = (TREES / "valid.yaml").read_text(encoding="utf-8").replace('"Workload"', json.dumps('Work"load\\'), 1)
    (tmp_path / "q.yaml").write_text(text, encoding="utf-8")
    quoted = load_tree(tmp_path / "q.yaml")
    assert 'n_first["Work#quot;load\\ (workload)"]' in tree_diagram(quoted, "mermaid", "en")
    assert '"first" [label="Work\\"load\\\\ (workload)"];' in tree_diagram(quoted, "dot", "en")


def test_mermaid_labels_carry_no_html(tmp_path: Path) -> None:
    """WARN H06: Mermaid renders labels as HTML; a `<script>` stayed inert only under its strict mode."""
    text = (TREES / "valid.yaml").read_text(encoding="utf-8").replace('"Workload"', '"<script>a&b</script>"', 1)
    (tmp_path / "q.yaml").write_text(text, encoding="utf-8")
    diagram = tree_diagram(load_tree(tmp_path / "q.yaml"), "mermaid", "en")
    assert 'n_first["#60;script#62;a#38;b#60;/script#62; (workload)"]' in diagram and "<" not in diagram


# ----------------------------------------------------------------------------- files


def test_written_files_are_utf8_with_unix_newlines(persona: Recommendation, tmp_path: Path) -> None:
    path = tmp_path / "vi.md"
    atomic_write(path, render(persona, "md", "vi"))
    raw = path.read_bytes()
    assert b"\r\n" not in raw
    assert "Khuyến nghị".encode() in raw
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)

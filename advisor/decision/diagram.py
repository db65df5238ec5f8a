"""The decision tree's flow as a diagram: Mermaid, Graphviz DOT or an indented text outline."""

from __future__ import annotations

import re

from advisor.decision.tree import Node, Tree
from advisor.i18n import t

DIAGRAM_FORMATS: tuple[str, ...] = ("mermaid", "dot", "text")


def _grouped_edges(node: Node) -> list[tuple[str, list[str]]]:
    """Edges of a node grouped by target, so answers leading to the same place share an arrow."""
    groups: dict[str, list[str]] = {}
    for edge in node.edges:
        groups.setdefault(edge.target, []).append(edge.value)
    return list(groups.items())


def _node_caption(tree: Tree, node: Node, lang: str) -> str:
    if node.outcome:
        return t("rec_outcome", lang)
    question = tree.question(node.ask or "")
    title = question.title.get(lang) if question else node.ask or node.id
    return f"{title} ({node.ask})"


def tree_diagram(tree: Tree, fmt: str, lang: str) -> str:
    """The flow of `tree` as Mermaid, Graphviz DOT or an indented text outline."""
    if fmt == "mermaid":
        return _mermaid(tree, lang)
    if fmt == "dot":
        return _dot(tree, lang)
    if fmt == "text":
        return _text_outline(tree, lang)
    raise ValueError(f"unknown diagram format '{fmt}' (formats: {', '.join(DIAGRAM_FORMATS)})")


def _mermaid_id(node_id: str) -> str:
    return "n_" + re.sub(r"[^A-Za-z0-9_]", "_", node_id)


def _mermaid_text(text: str) -> str:
    """A label Mermaid shows as written: quotes and HTML's `&`, `<` and `>` as entity codes (Mermaid
    renders labels as HTML, and only its default strict security level keeps a `<script>` inert)."""
    return " ".join(text.split()).replace("&", "#38;").replace('"', "#quot;").replace("<", "#60;").replace(">", "#62;")


def _mermaid(tree: Tree, lang: str) -> str:
    out = ["flowchart TD"]
    for node in tree.nodes:
        caption = _mermaid_text(_node_caption(tree, node, lang))
        shape = f'(["{caption}"])' if node.outcome else f'["{caption}"]'
        out.append(f"  {_mermaid_id(node.id)}{shape}")
    for node in tree.nodes:
        for target, values in _grouped_edges(node):
            arrow = "-->" if values == ["*"] else f'-->|"{_mermaid_text(", ".join(values))}"|'
            out.append(f"  {_mermaid_id(node.id)} {arrow} {_mermaid_id(target)}")
    return "\n".join(out) + "\n"


def _dot_text(text: str) -> str:
    return '"' + " ".join(text.split()).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dot(tree: Tree, lang: str) -> str:
    out = [f"digraph {_dot_text(tree.id)} {{", "  rankdir=TB;", '  node [shape=box, style=rounded, fontname="sans-serif"];']
    for node in tree.nodes:
        shape = ", shape=doubleoctagon" if node.outcome else ""
        out.append(f"  {_dot_text(node.id)} [label={_dot_text(_node_caption(tree, node, lang))}{shape}];")
    for node in tree.nodes:
        for target, values in _grouped_edges(node):
            label = "" if values == ["*"] else f" [label={_dot_text(', '.join(values))}]"
            out.append(f"  {_dot_text(node.id)} -> {_dot_text(target)}{label};")
    out.append("}")
    return "\n".join(out) + "\n"


def _text_outline(tree: Tree, lang: str) -> str:
    from advisor.textnorm import strip_terminal_escapes as clean

    out = [clean(tree.title.get(lang)), ""]
    for node in tree.nodes:
        out.append(f"[{node.id}] {clean(_node_caption(tree, node, lang))}")
        question = tree.question(node.ask or "")
        if question is not None:
            out.append(f"    {clean(question.text.get(lang))}")
        for target, values in _grouped_edges(node):
            out.append(f"    {', '.join(values)} → {target}")
    return "\n".join(out) + "\n"

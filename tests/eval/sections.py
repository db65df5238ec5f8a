"""Which section an answer opens on, measured on real questions (tests/eval/sections.jsonl).

    python -m tests.eval.sections                  # both halves
    python -m tests.eval.sections --misses         # what went wrong (tune on `dev` only)
    python -m tests.eval.sections --markdown       # the README's table

Each question is a real one from `real-dev` or `real-check` whose entry has three sections or
more, labelled with the section of that entry a user asking it should read first (`section`,
plus rare equally good `also`), or `opening` when no section answers it better than the entry's
short answer. The question is put to its labelled entry, whatever entry the search would rank
first, so this measures the section ranking alone. Questions labelled `opening` are counted but
not scored: an answer always shows the opening, whichever section follows. `dev` holds the
questions of `real-dev` (tuned on); `check` those of `real-check` (reported, never tuned on).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import NamedTuple

from advisor.knowledge.body import anchor
from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from advisor.reply import entry_body
from advisor.search.index import SearchIndex
from advisor.search.rank import search
from advisor.search.sections import rank_sections

FILE = Path(__file__).resolve().parent / "sections.jsonl"
SPLITS = ("dev", "check")


class Judged(NamedTuple):
    item: dict
    ranked: tuple[str, ...]  # anchors, best first

    @property
    def acceptable(self) -> set[str]:
        return {self.item["section"], *self.item.get("also", ())}

    @property
    def first(self) -> bool:
        return bool(self.ranked) and self.ranked[0] in self.acceptable

    @property
    def top2(self) -> bool:
        return bool(self.acceptable & set(self.ranked[:2]))


def load() -> list[dict]:
    with open(FILE, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def judge(index: SearchIndex, item: dict) -> Judged:
    entry = index.entry_index(item["expect"], item["lang"])
    if entry is None:
        raise ValueError(f"{FILE.name}: no entry {item['expect']!r} in {item['lang']!r}")
    words = search(index, item["q"]).normalized.split()  # as `advisor.reply.answering_article` gets them
    ranked = rank_sections(index, entry_body(index.meta(entry)), words, index.section_words(entry))
    return Judged(item, tuple(anchor(heading) for _, heading, _ in ranked))


def scores(judged: list[Judged]) -> tuple[int, int, float, float]:
    """(questions, of them scored, share opening on an acceptable section, share with one in the first two)."""
    scored = [j for j in judged if j.item["section"] != "opening"]
    if not scored:
        return len(judged), 0, 0.0, 0.0
    return len(judged), len(scored), sum(j.first for j in scored) / len(scored), sum(j.top2 for j in scored) / len(scored)


def evaluate(index: SearchIndex) -> dict[str, list[Judged]]:
    """Judged questions per split and language: ("dev", "en"), ..., and ("dev", "all")."""
    groups: dict[str, list[Judged]] = {}
    for item in load():
        judged = judge(index, item)
        for key in (f"{item['split']}:{item['lang']}", f"{item['split']}:all"):
            groups.setdefault(key, []).append(judged)
    return groups


LANG_NAMES = {"en": "English", "vi": "Vietnamese", "all": "**all**"}


def markdown_table(groups: dict[str, list[Judged]]) -> str:
    rows = ["| set | questions | labelled with a section | opens on it | it is among the first two |", "|---|---|---|---|---|"]
    for split in SPLITS:
        for lang in ("en", "vi", "all"):
            judged = groups.get(f"{split}:{lang}")
            if judged:
                total, scored, first, top2 = scores(judged)
                rows.append(f"| {split}, {LANG_NAMES[lang]} | {total} | {scored} | {100 * first:.1f} % | {100 * top2:.1f} % |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--misses", action="store_true", help="list the dev questions that open on another section")
    parser.add_argument("--markdown", action="store_true", help="print the README's table")
    parser.add_argument("--kb", help="knowledge folder (default: the bundled one)")
    args = parser.parse_args()
    groups = evaluate(open_index(args.kb or bundled_knowledge_dir(), use_cache=False))
    if args.markdown:
        print(markdown_table(groups))
        return
    for key, judged in groups.items():
        total, scored, first, top2 = scores(judged)
        print(f"{key:<10} {total:>4} questions, {scored:>4} scored: opens on it {100 * first:5.1f} %, first two {100 * top2:5.1f} %")
    if args.misses:
        for judged in groups.get("dev:all", []):
            if judged.item["section"] != "opening" and not judged.first:
                print(f"  {judged.item['q'][:90]!r} [{judged.item['expect']}] want={judged.item['section']} got={judged.ranked[:2]}")


if __name__ == "__main__":
    main()

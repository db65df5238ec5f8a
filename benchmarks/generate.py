"""Write a synthetic knowledge folder of N valid entries, for the benchmarks.

    python benchmarks/generate.py 10000 /tmp/kb-10k

Entries follow the documented format (`<lang>/<id>.md`: YAML front matter with id, lang, title,
questions, keywords, related and sources, then a Markdown body that opens with a short-answer
paragraph), in English only. The vocabulary mixes the bundled knowledge's own words with random
made-up ones, drawn with a Zipf-like skew so that, as in real text, a few words are everywhere and
most are rare. The bundled `lexicon.yaml` is copied so synonyms and stop words behave as usual.
The output depends only on N and the seed.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
from itertools import accumulate
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KNOWLEDGE = REPO / "knowledge"
_WORD = re.compile(r"[a-z][a-z0-9]{2,}")
_SYLLABLES = ("ka", "lo", "mi", "ter", "van", "dro", "sel", "pu", "ne", "gra", "tion", "ix", "por", "zen", "ul", "bri", "cas", "en", "mo", "ti")
_QUESTION_STARTS = ("what is", "how do i", "how to", "why does", "can i", "should i use", "when to use", "is it worth", "how much does", "where do i find")
_QUESTION_ENDS = ("", "", "on kubernetes", "for training", "with a100", "on a single node", "explained", "vs managed", "in production", "for inference")


def domain_words() -> list[str]:
    """The bundled English knowledge's words, most frequent first."""
    counts: dict[str, int] = {}
    for path in sorted((KNOWLEDGE / "en").glob("*.md")):
        for word in _WORD.findall(path.read_text(encoding="utf-8").lower()):
            if not word.startswith("http"):
                counts[word] = counts.get(word, 0) + 1
    return sorted(counts, key=lambda w: (-counts[w], w))


def random_words(rng: random.Random, count: int) -> list[str]:
    seen: set[str] = set()
    while len(seen) < count:
        seen.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(seen)


class Vocabulary:
    """Words drawn with a Zipf-like skew over a shuffled mix of domain and random words."""

    def __init__(self, rng: random.Random, size: int) -> None:
        domain = domain_words()
        made_up = random_words(rng, max(size - len(domain), 1000))
        words = domain + made_up
        rng.shuffle(words)
        # Common domain words mostly keep the head of the distribution: realistic queries hit them.
        common = set(domain[:300])
        words.sort(key=lambda w: 0 if w in common and rng.random() < 0.7 else 1)
        self.words = words
        self.cumulative = list(accumulate(1.0 / (rank + 10) for rank in range(len(words))))
        self.rng = rng

    def sample(self, count: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cumulative, k=count)


def entry_text(entry_id: str, vocab: Vocabulary, rng: random.Random, ids: list[str]) -> str:
    subject = vocab.sample(rng.randint(2, 3))
    title = " ".join(subject).capitalize() + " " + " ".join(vocab.sample(rng.randint(1, 3)))
    questions = []
    for _ in range(rng.randint(4, 12)):
        words = rng.sample(subject, k=rng.randint(1, len(subject))) + vocab.sample(rng.randint(1, 4))
        rng.shuffle(words)
        questions.append(f"{rng.choice(_QUESTION_STARTS)} {' '.join(words)} {rng.choice(_QUESTION_ENDS)}".strip() + "?")
    keywords = list(dict.fromkeys([" ".join(subject[:2])] + vocab.sample(rng.randint(2, 5))))
    related = sorted({rng.choice(ids) for _ in range(rng.randint(0, 3))} - {entry_id})

    def sentence() -> str:
        return " ".join(vocab.sample(rng.randint(6, 14))).capitalize() + "."

    summary = " ".join(sentence() for _ in range(2))
    sections = []
    for _ in range(rng.randint(1, 2)):
        heading = " ".join(vocab.sample(rng.randint(2, 4))).capitalize()
        bullets = "\n".join(f"- {sentence()}" for _ in range(rng.randint(1, 3)))
        sections.append(f"## {heading}\n{sentence()} {sentence()}\n\n{bullets}\n")
    quoted_keywords = ", ".join(f'"{keyword}"' for keyword in keywords)  # bare, "no" or "on" would be booleans
    lines = ["---", f"id: {entry_id}", "lang: en", f'title: "{title}"', "questions:"]
    lines += [f'  - "{q}"' for q in questions]
    lines += [
        f"keywords: [{quoted_keywords}]",
        f"related: [{', '.join(related)}]",
        "sources:",
        f"  - https://example.com/docs/{entry_id}",
        "---",
        summary,
        "",
        *sections,
    ]
    return "\n".join(lines)


def generate(count: int, target: Path, seed: int = 5) -> Path:
    """Write `count` entries under `target/en/` plus a copy of the bundled lexicon; returns `target`."""
    rng = random.Random(seed)
    vocab = Vocabulary(rng, size=max(2000, count // 4))
    ids = [f"topic-{number:06d}" for number in range(count)]
    folder = target / "en"
    folder.mkdir(parents=True, exist_ok=True)
    for entry_id in ids:
        (folder / f"{entry_id}.md").write_text(entry_text(entry_id, vocab, rng, ids), encoding="utf-8")
    shutil.copyfile(KNOWLEDGE / "lexicon.yaml", target / "lexicon.yaml")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, help="number of entries")
    parser.add_argument("target", type=Path, help="folder to write (created)")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    generate(args.count, args.target, args.seed)
    print(f"wrote {args.count} entries to {args.target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

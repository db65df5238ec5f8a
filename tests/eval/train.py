"""Train the learned opinion (`advisor.search.learned`) and write knowledge/learned-weights.tsv.

    python -m tests.eval.train          # train on the entries, real-dev and dev, write the weights
    python -m tests.eval.train --dry    # train and print what it would write, write nothing
    python -m tests.eval.train --check  # whether the file was trained on what the entries and questions say now

One example per piece of each entry's text (its title, each alternate question, its keywords,
each error line, each heading, each paragraph of the body), and each labelled question of
`real-dev` and `dev` (`TRAIN`), which counts `QUESTION_WEIGHT` times as much: the entries say what they
answer, the questions how users ask it. The questions no entry answers (`null`) are examples of
a class of their own (`advisor.search.learned.OFF_TOPIC`). Every text is read into words exactly as a question is
when it is asked (`advisor.search.rank.question_words`), then `advisor.search.learned.features`.
A linear support vector machine (scikit-learn's LinearSVC, one entry against the rest) learns
the weights; each entry keeps its `KEEP` largest, which loses almost nothing of what it ranks
and keeps the file small. Never trained on `real-check` or `real-test`: they judge it.

The file's header holds a digest of everything the training read (`inputs_digest`): the
examples as read into words, and the training's settings. A test compares it with the digest of
the entries and questions as they are now, so weights left behind by an edit fail CI instead of
quietly ranking with words the knowledge no longer holds.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
from pathlib import Path

from advisor.knowledge.load import load_knowledge
from advisor.library import open_index
from advisor.paths import bundled_knowledge_dir
from advisor.search.index import SearchIndex
from advisor.search.learned import INTERCEPT, OFF_TOPIC, WEIGHTS_FILE, features
from advisor.search.rank import question_words
from tests.eval.report import load_questions

TRAIN = ("real-dev", "dev")
QUESTION_WEIGHT = 3.0
# The regularisation of the support vector machine (scikit-learn's C): at 0.1 it ranked
# real-check's right entry first less often than at 0.5 (78.1 against 78.6 %, in scratch).
STRENGTH = 0.5
KEEP = 500
# A word or pair met in fewer examples than this is left out: it is most of the features, and a
# question is unlikely to meet it again.
MIN_EXAMPLES = 2
# A paragraph shorter than this is a line of a list or a code fence, not text to learn from.
MIN_PARAGRAPH = 40
HEADER = (
    "# Learned weights of advisor.search.learned: feature<TAB>idf<TAB>entry:weight ...\n"
    "# Written by `python -m tests.eval.train` from the entries and the questions of real-dev and dev; train again, do not edit.\n"
)
DIGEST_LINE = "# inputs "


def examples(root: Path, index: SearchIndex, questions: list[dict] | None = None) -> tuple[list[list[str]], list[str], list[float]]:
    """(words, entry id, weight) of every training example: the entries' pieces, then the labelled
    `questions` (by default, every question of `TRAIN`)."""
    texts: list[tuple[str, str, float]] = []
    for entry in load_knowledge(root).entries:
        pieces = [entry.title, *entry.questions, " ".join(entry.keywords), *entry.errors, *entry.headings]
        pieces += [part for part in entry.body.split("\n\n") if len(part) >= MIN_PARAGRAPH]
        texts += [(piece, entry.id, 1.0) for piece in pieces]
    if questions is None:
        questions = [item for name in TRAIN for item in load_questions(name)]
    texts += [(item["q"], item["expect"] or OFF_TOPIC, QUESTION_WEIGHT) for item in questions]
    read = [(question_words(index, text), label, weight) for text, label, weight in texts]
    read = [example for example in read if example[0]]
    return [w for w, _, _ in read], [label for _, label, _ in read], [weight for _, _, weight in read]


def inputs_digest(examples_words: list[list[str]], labels: list[str], weights: list[float]) -> str:
    """A digest of what a training reads: its examples, in order, and its settings."""
    digest = hashlib.sha256(repr((QUESTION_WEIGHT, STRENGTH, KEEP, MIN_EXAMPLES, MIN_PARAGRAPH)).encode())
    for words, label, weight in zip(examples_words, labels, weights):
        digest.update(f"{label}\t{weight}\t{' '.join(words)}\n".encode())
    return digest.hexdigest()[:32]


def trained_digest(text: str) -> str | None:
    """The inputs digest a weights file's header records; None in a file written without one."""
    for line in text.splitlines():
        if not line.startswith("#"):
            return None
        if line.startswith(DIGEST_LINE):
            return line[len(DIGEST_LINE):].strip()
    return None


def train(examples_words: list[list[str]], labels: list[str], weights: list[float]) -> str:
    """The weights file's text: idf of each feature, each entry's `KEEP` largest weights."""
    import numpy
    from scipy.sparse import csr_matrix
    from sklearn.svm import LinearSVC

    counted = [features(example) for example in examples_words]
    frequency: dict[str, int] = {}
    for vector in counted:
        for feature in vector:
            frequency[feature] = frequency.get(feature, 0) + 1
    names = sorted(feature for feature, count in frequency.items() if count >= MIN_EXAMPLES)
    number = {name: position for position, name in enumerate(names)}
    total = len(counted)
    idf = [math.log((1 + total) / (1 + frequency[name])) + 1 for name in names]  # scikit-learn's smoothed idf
    rows, columns, values = [], [], []
    for row, vector in enumerate(counted):
        scaled = {number[feature]: count * idf[number[feature]] for feature, count in vector.items() if feature in number}
        norm = math.sqrt(sum(value * value for value in scaled.values())) or 1.0
        for column, value in scaled.items():
            rows.append(row)
            columns.append(column)
            values.append(value / norm)
    matrix = csr_matrix((values, (rows, columns)), shape=(total, len(names)))
    # Its coordinate descent visits the examples in a shuffled order: seeded, every training of the
    # same examples writes the same file.
    model = LinearSVC(C=STRENGTH, random_state=0).fit(matrix, labels, sample_weight=numpy.asarray(weights))
    coefficients, intercepts = model.coef_, model.intercept_
    if len(model.classes_) == 2:  # one row, for the second entry: the first's is its opposite
        coefficients, intercepts = numpy.vstack([-coefficients, coefficients]), numpy.concatenate([-intercepts, intercepts])
    kept: dict[int, list[str]] = {}
    for entry_number, entry in enumerate(model.classes_):
        row = coefficients[entry_number]
        for column in numpy.argsort(-numpy.abs(row), kind="stable")[:KEEP]:
            if row[column]:
                kept.setdefault(int(column), []).append(f"{entry}:{row[column]:.4f}")
    lines = [HEADER.rstrip("\n"), DIGEST_LINE + inputs_digest(examples_words, labels, weights), f"{INTERCEPT}\t\t" + " ".join(f"{entry}:{value:.4f}" for entry, value in zip(model.classes_, intercepts))]
    # Every feature keeps its idf, weights or not: a question's vector is normalised over all of them.
    lines += [f"{name}\t{idf[column]:.4f}\t{' '.join(sorted(kept.get(column, ())))}" for column, name in enumerate(names)]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--dry", action="store_true", help="print a summary, write nothing")
    mode.add_argument("--check", action="store_true", help="exit 1 if the file was trained on other entries or questions")
    args = parser.parse_args()
    root = bundled_knowledge_dir()
    index = open_index(root)
    read = examples(root, index)
    path = root / WEIGHTS_FILE
    if args.check:
        recorded = trained_digest(path.read_text(encoding="utf-8")) if path.exists() else None
        if recorded != inputs_digest(*read):
            sys.exit(f"{path}: trained on other entries or questions than now; run python -m tests.eval.train")
        print(f"{path}: trained on the entries and questions as they are")
        return
    text = train(*read)
    if args.dry:
        print(f"{text.count(chr(10)) - 4} features, {len(text):,} bytes")
        return
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

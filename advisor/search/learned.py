"""A third opinion on the best entries, learnt from questions real users asked.

The ranking and the likelihood model (`advisor.search.likelihood`) read the knowledge only: a
question is scored by the words it shares with what the authors wrote. Users name their tools,
paste their errors and describe their set-up in words no entry holds, and the same words come
back in question after question about the same subject. A linear model (one weight a word or
pair of words for each entry, over sublinear tf-idf vectors) trained on the entries' own text
and on the labelled questions of `tests/eval/real-dev.jsonl` and `dev.jsonl` (`python -m
tests.eval.train`)
reads those words as evidence for the entries they were asked about; the questions no entry
answers are a class of their own (`OFF_TOPIC`), so that the model can say a question is like
them rather than like any entry. Its weights are data:
`knowledge/learned-weights.tsv`, packed into the index when it is built (`read_weights`) and read
word by word as a question needs them (`Weights`).

Blended into the score of the best entries, it picks the right entry first more often on
questions no entry was written from and that it was not trained on (`real-check`, the README's
answer-quality section); a folder without the file ranks as before.
"""

from __future__ import annotations

import math
from array import array

from advisor.search import tables

WEIGHTS_FILE = "learned-weights.tsv"
# The feature of a line that holds each entry's intercept.
INTERCEPT = "*"
# The class of the labelled questions no entry answers: no entry id can be written this way. It is
# never blended into a score; it competes with the best entry in `lead`.
OFF_TOPIC = "(off-topic)"
# The score is this much the model's vote and the rest the ranking's own. Chosen on real-dev and
# real-check together; never on real-test.
LEARNED_SHARE = 0.2


def features(words: list[str]) -> dict[str, float]:
    """The model's inputs for a question's words (after typo repair and stop words): each word
    and each pair of neighbours ("a_b"), with its sublinear count 1 + ln(count)."""
    counts: dict[str, int] = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    for first, second in zip(words, words[1:]):
        pair = f"{first}_{second}"
        counts[pair] = counts.get(pair, 0) + 1
    return {feature: 1.0 + math.log(count) for feature, count in counts.items()}


class Weights:
    """The packed model of an index: feature -> (idf, [(topic number, weight)]), read as needed."""

    __slots__ = ("_lookup", "_idf", "_starts", "_topics", "_weights", "_intercepts")

    def __init__(self, sections: dict) -> None:
        self._lookup = tables.Lookup(sections["learned_features"], sections["learned_feature_offsets"], sections["learned_feature_table"])
        self._idf = sections["learned_idf"].cast("f")
        self._starts = sections["learned_starts"].cast("q")
        self._topics = sections["learned_topics"].cast("i")
        self._weights = sections["learned_weights"].cast("f")
        self._intercepts = sections["learned_intercepts"].cast("f")
        if len(self._idf) != len(self._lookup) or len(self._starts) != len(self._lookup) + 1 or len(self._topics) != len(self._weights):
            raise ValueError("learned weights do not match their features")

    def __bool__(self) -> bool:
        return bool(len(self._intercepts))

    def decisions(self, words: list[str]) -> list[float]:
        """The model's decision value for every topic, by topic number, on a question's `words`,
        then the off-topic class's when the weights have one."""
        vector = []
        for feature, count in features(words).items():
            number = self._lookup.find(feature)
            if number >= 0:
                vector.append((number, count * self._idf[number]))
        norm = math.sqrt(sum(value * value for _, value in vector)) or 1.0
        values = self._intercepts[:].tolist()  # a view whether mapped or read from the file
        for number, value in vector:
            begin, end = self._starts[number : number + 2]
            for topic, weight in zip(self._topics[begin:end], self._weights[begin:end]):
                values[topic] += weight * value / norm
        return values


def lead(decisions: list[float], topic: int) -> float:
    """How far the model prefers `topic` to every other topic and to the off-topic class: its
    decision less the best other one's. A question the model has learnt to place clearly is one it
    answers right more often than its share of the score alone tells; near zero, it hesitates
    between two entries, or between an entry and none, and below zero it places the question
    elsewhere."""
    others = max((value for number, value in enumerate(decisions) if number != topic), default=0.0)
    return decisions[topic] - others if topic < len(decisions) else 0.0


def blended(score: float, decision: float) -> float:
    """The ranking's `score` (0-100) with the model's `decision` blended in, still 0-100: the
    model's vote is its decision, clipped to -1..1, as 0-100. An entry the model is sure of gains,
    one it is sure is not the answer loses, and so does the level of an entry the model doubts,
    which the confidence reads."""
    vote = (max(-1.0, min(decision, 1.0)) + 1.0) * 50.0
    return (1 - LEARNED_SHARE) * score + LEARNED_SHARE * vote


def read_weights(path: str, display: str, topics: list[str], problems: list) -> dict[str, bytes]:
    """The index sections of the weights file at `path` for the index's `topics` (ids, in topic
    order); a folder without the file gets empty sections. Lines that cannot be read are problems
    (`display:line: what is wrong`) and are left out; weights for an entry the folder does not
    hold are skipped, since the file outlives a renamed entry until it is trained again. The
    off-topic class, when the file has one, comes after the topics."""
    from advisor.problems import Problem

    number_of = {topic: number for number, topic in enumerate(topics)}
    number_of[OFF_TOPIC] = len(topics)
    off_topic = False
    names: list[str] = []
    idf = array("f")
    starts = array("q", [0])
    topic_numbers = array("i")
    weights = array("f")
    intercepts = array("f")
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        lines = []
    except (OSError, UnicodeDecodeError) as error:
        problems.append(Problem(display, 0, f"cannot read the learned weights: {error}"))
        lines = []
    seen: set[str] = set()
    for line_number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        parsed = _parse_line(line)
        if isinstance(parsed, str):
            problems.append(Problem(display, line_number, parsed))
            continue
        feature, feature_idf, pairs = parsed
        if feature in seen:
            problems.append(Problem(display, line_number, f"feature {feature!r} is listed twice"))
            continue
        seen.add(feature)
        known = sorted((number_of[topic], weight) for topic, weight in pairs if topic in number_of)
        off_topic = off_topic or any(number == len(topics) for number, _ in known)
        if feature == INTERCEPT:
            intercepts = array("f", bytes(4 * (len(topics) + 1)))
            for number, weight in known:
                intercepts[number] = weight
            continue
        names.append(feature)
        idf.append(feature_idf)
        topic_numbers.extend(number for number, _ in known)
        weights.extend(weight for _, weight in known)
        starts.append(len(topic_numbers))
    if not len(intercepts) and names:
        problems.append(Problem(display, 0, f"no intercept line ('{INTERCEPT}<TAB><TAB>entry:weight ...'): the learned weights are not used"))
        names, idf, starts, topic_numbers, weights = [], array("f"), array("q", [0]), array("i"), array("f")
    if not off_topic:
        intercepts = intercepts[: len(topics)]
    blob, offsets, table = tables.pack_table(names)
    return {
        "learned_features": blob, "learned_feature_offsets": offsets, "learned_feature_table": table,
        "learned_idf": idf.tobytes(), "learned_starts": starts.tobytes(), "learned_topics": topic_numbers.tobytes(),
        "learned_weights": weights.tobytes(), "learned_intercepts": intercepts.tobytes(),
    }


def _parse_line(line: str) -> tuple[str, float, list[tuple[str, float]]] | str:
    """(feature, idf, [(entry id, weight)]) of one line, or what is wrong with it."""
    parts = line.split("\t")
    if len(parts) != 3 or not parts[0]:
        return "expected 'feature<TAB>idf<TAB>entry:weight entry:weight ...'"
    feature, idf_text, pairs_text = parts
    try:
        feature_idf = float(idf_text) if feature != INTERCEPT else 0.0
    except ValueError:
        return f"idf {idf_text!r} is not a number"
    if not math.isfinite(feature_idf) or feature_idf < 0:
        return f"idf {idf_text!r} is not a non-negative number"
    pairs: list[tuple[str, float]] = []
    for pair in pairs_text.split():
        topic, _, weight_text = pair.rpartition(":")
        try:
            weight = float(weight_text)
        except ValueError:
            return f"{pair!r} is not 'entry:weight'"
        if not topic or not math.isfinite(weight):
            return f"{pair!r} is not 'entry:weight'"
        pairs.append((topic, weight))
    return feature, feature_idf, pairs


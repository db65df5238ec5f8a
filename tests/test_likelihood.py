"""The likelihood model's reading of a question (`advisor.search.likelihood`), and the masses the
index keeps for it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.library import open_index
from advisor.problems import DataError
from advisor.search import build as building
from advisor.search.index import (
    FULL_WEIGHT,
    MASS_MAX,
    MAX_TOPICS,
    SearchIndex,
    decode_posting,
    encode_posting,
    posting_mass,
)
from advisor.search.likelihood import LIKELIHOOD_SHARE, blended, shares
from advisor.search.rank import search
from tests.conftest import write_entry

TURBINES = "\n\n".join(
    [
        "Turbine blades crack when vibration builds up at the blade root.",
        "## Vibration",
        "Measure vibration on each turbine blade with an accelerometer before the blades fatigue.",
        "## Repairs",
        "Cracked turbine blades are replaced in sets, and the vibration is measured again.",
    ]
)
GEARBOXES = "\n\n".join(["Gearbox oil is changed every year.", "## Turbine", "A gearbox sits behind the rotor.", "## Oil", "Synthetic oil lasts longer in the cold."])


@pytest.fixture
def two_topics(tmp_path: Path) -> SearchIndex:
    root = tmp_path / "kb"
    write_entry(root, "en", "blades", title="Blade care", questions=["how to care for blades", "blade maintenance", "blade inspection", "blade lifetime"], keywords=["blade"], body=TURBINES)
    write_entry(root, "en", "gearbox", title="Gearbox care", questions=["how to care for a gearbox", "gearbox maintenance", "gearbox inspection", "gearbox lifetime"], keywords=["gearbox"], body=GEARBOXES)
    index = open_index(root, use_cache=False)
    assert not index.problems and index.topics == ["blades", "gearbox"]
    return index


def _topics(index: SearchIndex, *ids: str) -> list[int]:
    return [index.topics.index(entry_id) for entry_id in ids]


def test_the_topic_whose_text_holds_the_words_gets_the_larger_share(two_topics: SearchIndex) -> None:
    """"turbine" is a heading of the gearbox entry but what the blade entry's text is about."""
    words = [(word, two_topics.idf(word)) for word in ("turbine", "vibration", "blade")]
    blades, gearbox = shares(two_topics, _topics(two_topics, "blades", "gearbox"), words)
    assert blades > gearbox
    assert math.isclose(blades + gearbox, 1.0)


def test_shares_follow_their_topics_in_any_order(two_topics: SearchIndex) -> None:
    words = [("turbine", 1.0), ("oil", 2.0)]
    forward = shares(two_topics, _topics(two_topics, "blades", "gearbox"), words)
    backward = shares(two_topics, _topics(two_topics, "gearbox", "blades"), words)
    assert forward == pytest.approx(backward[::-1])


def test_words_no_topic_holds_favour_none_but_the_smaller_text(two_topics: SearchIndex) -> None:
    """A word no topic holds is unlikely from each, a little less from the topic with less text."""
    topics = _topics(two_topics, "blades", "gearbox")
    assert shares(two_topics, topics, []) == pytest.approx([0.5, 0.5])
    smaller = min(topics, key=lambda topic: two_topics.topic_size[topic])
    unknown = shares(two_topics, topics, [("zeppelin", 1.0)])
    assert unknown[topics.index(smaller)] > 0.5


def test_the_index_keeps_a_mass_for_each_word_a_topic_holds(two_topics: SearchIndex) -> None:
    (blades,) = _topics(two_topics, "blades")
    masses = {decode_posting(packed)[0]: posting_mass(packed) for packed in two_topics.posting("vibration")}
    assert set(masses) == {blades} and masses[blades] > 0
    assert all(size > 0 for size in two_topics.topic_size)


def test_the_blend_moves_the_score_by_at_most_its_share() -> None:
    assert blended(60.0, 0.0) == pytest.approx(60.0 * (1 - LIKELIHOOD_SHARE))
    assert blended(60.0, 1.0) - blended(60.0, 0.0) == pytest.approx(100.0 * LIKELIHOOD_SHARE)


def test_an_answer_reports_the_share_its_entry_holds(two_topics: SearchIndex) -> None:
    outcome = search(two_topics, "turbine blade vibration cracks")
    assert outcome.best is not None and outcome.best.topic == "blades"
    assert outcome.signals is not None and 0.5 < outcome.signals.likelihood <= 1.0


@given(st.integers(0, MAX_TOPICS - 1), st.integers(0, FULL_WEIGHT), st.integers(0, MASS_MAX))
def test_a_posting_keeps_its_topic_weight_and_mass(topic: int, weight: int, mass: int) -> None:
    packed = encode_posting(topic, weight, mass)
    assert 0 <= packed < 2**31
    assert decode_posting(packed) == (topic, weight)
    assert posting_mass(packed) * 16 == mass


def test_a_folder_with_more_topics_than_a_posting_holds_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "kb"
    for name in ("one", "two"):
        write_entry(root, "en", name)
    monkeypatch.setattr(building, "MAX_TOPICS", 1)
    with pytest.raises(DataError, match="2 entry ids: an index holds at most 1"):
        building.build(root, None)

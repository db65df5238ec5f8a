"""The tree loader and validator: one broken fixture per kind of problem, and the bundled tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.knowledge.load import load_knowledge
from advisor.paths import bundled_knowledge_dir
from advisor.problems import DataError
from advisor.decision.recommend import recommend
from advisor.decision.session import Answer, Session
from advisor.textnorm import has_vietnamese_letters
from advisor.decision.parse import TreeReader
from advisor.decision.tree import CheckItem, Condition, Edge, Node, Option, Question, Rule, Text, Tree
from advisor.i18n import LANGUAGES
from advisor.decision.validate import bundled_tree_path, load_tree, tree_problems
from tests.tree_paths import check_paths_by_enumeration, paths

TREES = Path(__file__).parent / "data" / "trees"


@pytest.fixture(scope="module")
def known_ids() -> set[str]:
    return set(load_knowledge(bundled_knowledge_dir()).ids)


@pytest.fixture(scope="module")
def bundled() -> Tree:
    return load_tree(bundled_tree_path())


def _errors(path: Path, known: set[str]) -> list[str]:
    return [str(problem) for problem in tree_problems(path, known) if not problem.warning]


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("unknown_node.yaml", "trees/unknown_node.yaml:50: node 'idle': every answer leads to unknown node 'dnoe'"),
        ("unreachable.yaml", "trees/unreachable.yaml:53: node 'orphan' is unreachable from the start node 'first'"),
        ("cycle.yaml", "trees/cycle.yaml:50: cycle in the flow: first → idle → first"),
        ("no_target.yaml", "trees/no_target.yaml:50: node 'idle': option 'no' of 'idle' has no target"),
        (
            "dead_end.yaml",
            "trees/dead_end.yaml:48: node 'idle' asks nothing and is not an outcome: the path ends without a recommendation",
        ),
        ("duplicate_id.yaml", "trees/duplicate_id.yaml:53: duplicate node id 'idle' (first defined on line 48)"),
        ("missing_translation.yaml", "trees/missing_translation.yaml:33: question 'idle' text has no 'vi' translation"),
        ("unknown_kb.yaml", "trees/unknown_kb.yaml:70: unknown knowledge id 'no-such-entry'"),
        ("unknown_offered_from.yaml", "trees/unknown_offered_from.yaml:6: unknown knowledge id 'no-such-offer'"),
        (
            "never_fires.yaml",
            "trees/never_fires.yaml:72: rule 'scale-down' can never fire: no path through the flow gives idle=yes and workload=notebook",
        ),
        (
            "never_fires_value.yaml",
            "trees/never_fires_value.yaml:73: rule 'scale-down' can never fire on 'idle=maybe': allowed values are yes, no",
        ),
        ("no_deployment.yaml", "trees/no_deployment.yaml:57: no rule sets a deployment for the path workload=inference, idle=yes"),
        ("unknown_card.yaml", "trees/unknown_card.yaml:58: rule 'plain': unknown card 'h100-card' (cards: none declared)"),
        ("bad_yaml.yaml", "trees/bad_yaml.yaml:6: invalid YAML: did not find expected ',' or ']'"),
    ],
)
def test_each_broken_fixture_reports_its_one_problem(fixture: str, expected: str, known_ids: set[str]) -> None:
    assert _errors(TREES / fixture, known_ids) == [expected]


def test_the_fixture_base_is_sound(known_ids: set[str]) -> None:
    assert tree_problems(TREES / "valid.yaml", known_ids) == []


def test_a_dead_end_also_warns_that_its_question_is_never_asked(known_ids: set[str]) -> None:
    warnings = [str(p) for p in tree_problems(TREES / "dead_end.yaml", known_ids) if p.warning]
    assert warnings == ["trees/dead_end.yaml:31: warning: question 'idle' is never asked by a reachable node"]


@pytest.mark.parametrize("fixture", ["cycle.yaml", "unknown_node.yaml", "no_target.yaml", "dead_end.yaml", "duplicate_id.yaml", "bad_yaml.yaml"])
def test_load_tree_refuses_trees_the_engine_cannot_walk(fixture: str, known_ids: set[str]) -> None:
    with pytest.raises(DataError) as caught:
        load_tree(TREES / fixture)
    assert str(caught.value) == _errors(TREES / fixture, known_ids)[0]


@pytest.mark.parametrize("fixture", ["missing_translation.yaml", "unknown_kb.yaml", "never_fires.yaml", "unreachable.yaml"])
def test_load_tree_accepts_problems_that_cannot_derail_the_engine(fixture: str) -> None:
    assert load_tree(TREES / fixture).id == "mini"


def test_a_backtick_in_a_text_is_reported_on_its_line(tmp_path: Path, known_ids: set[str]) -> None:
    """Tree texts are plain text, escaped in exports: `nvidia-smi topo -m` printed its backticks."""
    text = (TREES / "valid.yaml").read_text(encoding="utf-8").replace('en: "Often idle?"', 'en: "Often idle in `nvidia-smi`?"')
    (tmp_path / "t.yaml").write_text(text, encoding="utf-8")
    found = [(p.line, p.message) for p in tree_problems(tmp_path / "t.yaml", known_ids)]
    assert found == [(33, "question 'idle' text in 'en' holds a backtick: texts are plain text, and an export prints it as written")]


def test_provider_sharing_must_be_true_or_false(tmp_path: Path, known_ids: set[str]) -> None:
    text = (TREES / "valid.yaml").read_text(encoding="utf-8").replace(
        '    label: {en: "Managed Kubernetes", vi: "Kubernetes được quản lý"}\n',
        '    label: {en: "Managed Kubernetes", vi: "Kubernetes được quản lý"}\n    provider_sharing: "no"\n',
    )
    (tmp_path / "t.yaml").write_text(text, encoding="utf-8")
    found = [(p.line, p.message) for p in tree_problems(tmp_path / "t.yaml", known_ids)]
    assert found == [(11, "deployments 'managed-k8s': provider_sharing must be true or false")]


def test_missing_file_is_one_problem(tmp_path: Path) -> None:
    problems = tree_problems(tmp_path / "nope.yaml", set())
    assert len(problems) == 1 and "cannot read file" in problems[0].message


def test_unquoted_yes_in_next_is_explained(tmp_path: Path) -> None:
    text = (TREES / "valid.yaml").read_text(encoding="utf-8").replace('    next: done\n  - id: done', "    next:\n      yes: done\n      no: done\n  - id: done")
    (tmp_path / "t.yaml").write_text(text, encoding="utf-8")
    messages = [p.message for p in tree_problems(tmp_path / "t.yaml", set())]
    assert any("quote yes and no" in message for message in messages)


# ----------------------------------------------------------------------------- the bundled tree


def test_bundled_tree_validates_clean(known_ids: set[str]) -> None:
    assert tree_problems(bundled_tree_path(), known_ids) == []


def test_public_answer_keys_and_values(bundled: Tree) -> None:
    public = {
        "workload": ("notebook", "single-job", "batch", "inference", "distributed-training"),
        "gpu_memory": ("24gb", "48gb", "80gb", "multi-gpu"),
        "control_plane": ("managed", "self-run"),
        "gpu_fraction": ("yes", "no"),
        "isolation": ("hard", "soft"),
        "interruptible": ("yes", "no"),
        "idle": ("yes", "no"),
    }
    for key, values in public.items():
        question = bundled.question(key)
        assert question is not None, key
        assert question.values == values
    assert {c.value for c in bundled.deployments} == {"plain-instance", "managed-k8s", "self-run-k8s"}
    assert [c.value for c in bundled.sharing_modes] == ["time-slicing", "mps", "mig"]


def test_every_question_has_help_kb_and_a_default_in_both_languages(bundled: Tree) -> None:
    for question in bundled.questions:
        assert question.kb, question.key
        assert question.option(question.default) is not None, question.key
        for text in (question.title, question.text, question.help, *(o.label for o in question.options)):
            assert all(dict(text.by_lang).get(lang) for lang in LANGUAGES)
    for text in [q.text for q in bundled.questions] + [q.help for q in bundled.questions] + [r.text for r in bundled.rules] + [c.text for c in bundled.checklist]:
        assert has_vietnamese_letters(text.get("vi")), text.get("vi")


def _session_for(tree: Tree, steps: tuple) -> Session:  # type: ignore[type-arg]
    return Session.of(tree, tuple(Answer(node.ask, value) for node, value in steps if node.ask))


def test_every_path_of_the_bundled_tree_ends_in_a_recommendation(bundled: Tree) -> None:
    count = 0
    for steps in paths(bundled):
        count += 1
        assert steps[-1][0].outcome
        session = _session_for(bundled, steps)
        assert session.done, steps
        rec = recommend(session)
        assert rec.deployment in {"plain-instance", "managed-k8s", "self-run-k8s"}
        assert rec.points and rec.checklist and rec.kb
        assert rec.path[-1] == "recommendation"
        assert len(rec.gpu_sharing) <= 1
    assert count > 100


def test_questions_are_asked_only_where_relevant(bundled: Tree) -> None:
    for steps in paths(bundled):
        answers = {node.ask: value for node, value in steps if node.ask}
        if answers["workload"] in ("notebook", "single-job") and answers["growth"] == "no":
            assert set(answers) <= {"workload", "growth", "gpu_memory", "drivers", "interruptible", "idle"}
        assert "gpu_memory" in answers  # every path sizes the card
        if answers["gpu_memory"] == "multi-gpu":  # needing several GPUs, it cannot fit in part of one
            assert "gpu_fraction" not in answers
        if answers["workload"] == "notebook":
            assert "framework" not in answers
        if answers["workload"] == "distributed-training":
            assert "gpu_fraction" not in answers and "framework" in answers
        if answers.get("isolation") is not None:
            assert answers["gpu_fraction"] == "yes"
        if "team_ops" in answers:
            assert answers["control_plane"] == "self-run"



# ----------------------------------------------------------------------------- validation without listing paths


@st.composite
def _random_trees(draw: st.DrawFn) -> Tree:
    """A sound flow (a DAG, every option routed) with random rules: what `_check_paths` gets."""
    keys = [f"q{number}" for number in range(draw(st.integers(1, 4)))]
    questions = tuple(
        Question(key, Text(), Text(), Text(), (), "a", tuple(Option(value, Text()) for value in "abc"[: draw(st.integers(2, 3))]))
        for key in keys
    )
    count = draw(st.integers(1, 7))
    nodes = []
    for number in range(count):
        question = draw(st.sampled_from(questions))
        targets = [f"n{later}" for later in range(number + 1, count)] + ["end", "end2"]
        edges = tuple(Edge(option.value, draw(st.sampled_from(targets))) for option in question.options)
        nodes.append(Node(f"n{number}", question.key, edges, line=10 + number))
    nodes += [Node("end", None, (), outcome=True, line=30), Node("end2", None, (), outcome=True, line=31)]
    rules = []
    for number in range(draw(st.integers(0, 5))):
        when = tuple(  # one or two alternatives (`when` as a list of mappings), each of 0-2 conditions
            tuple(
                Condition(question.key, tuple(draw(st.lists(st.sampled_from(question.values), min_size=1, max_size=2, unique=True))))
                for question in draw(st.lists(st.sampled_from(questions), max_size=2, unique_by=lambda q: q.key))
            )
            for _ in range(draw(st.integers(1, 2)))
        )
        deployment = draw(st.sampled_from([None, "one", "two"]))
        rules.append(Rule(f"r{number}", when, "", Text(), (), checks=(f"c{number % 2}",), deployment=deployment, line=40 + number))
    checklist = (CheckItem("c0", Text(), (), line=60), CheckItem("c1", Text(), (), line=61))
    return Tree("t", Text(), "n0", questions, tuple(nodes), tuple(rules), checklist, (), (), (), lines={"start": 1, "rules": 2})


@settings(max_examples=400, deadline=None)
@given(_random_trees())
def test_validation_finds_what_walking_every_path_finds(tree: Tree) -> None:
    from advisor import yamlsafe
    from advisor.decision.validate import _check_paths

    found, expected = TreeReader(yamlsafe.YamlDoc({}), "t.yaml"), TreeReader(yamlsafe.YamlDoc({}), "t.yaml")
    _check_paths(tree, found)
    check_paths_by_enumeration(tree, expected)
    assert sorted(found.problems) == sorted(expected.problems)
    assert sorted(found.fatal) == sorted(expected.fatal)


def test_a_long_chain_of_questions_is_checked_without_listing_its_paths(tmp_path: Path) -> None:
    """3,000 yes/no questions in a row: 2^3000 paths, which listing one by one never finishes."""
    base = bundled_tree_path().read_text(encoding="utf-8")
    count = 3000
    questions = "".join(
        f"  - key: q{n}\n    title: {{en: Q{n}, vi: Q{n}}}\n    text: {{en: Q{n}?, vi: Q{n}?}}\n    help: {{en: h, vi: h}}\n    default: a\n"
        f"    options:\n      - {{value: a, label: {{en: A, vi: A}}}}\n      - {{value: b, label: {{en: B, vi: B}}}}\n"
        for n in range(count)
    )
    flow = "".join(f"  - id: n{n}\n    ask: q{n}\n    next: n{n + 1}\n" for n in range(count)) + f"  - id: n{count}\n    outcome: true\n"
    text = base.split("\nquestions:")[0] + "\nquestions:\n" + questions + "flow:\n" + flow + "checklist:" + base.split("\nchecklist:")[1]
    path = tmp_path / "chain.yaml"
    path.write_text(text.replace("start: workload", "start: n0"), encoding="utf-8")
    problems = [str(problem) for problem in tree_problems(path, set())]
    assert any(problem.endswith("q11=a, … (and about 10^903 more paths)") for problem in problems)
    assert not any("too complex" in problem for problem in problems)
def test_the_vietnamese_tree_says_image_as_engineers_do() -> None:
    """A container image is an "image" in Vietnamese engineering, never a picture ("hình ảnh")."""
    text = bundled_tree_path().read_text(encoding="utf-8")
    assert "image" in text and "hình ảnh" not in text


def test_a_phrase_that_gives_two_options_of_a_question_is_reported(tmp_path: Path, known_ids: set[str]) -> None:
    text = (TREES / "valid.yaml").read_text(encoding="utf-8").replace(
        '        label: {en: "A notebook", vi: "Một notebook"}\n',
        '        label: {en: "A notebook", vi: "Một notebook"}\n        asked_as: [jupyter, serving]\n',
    ).replace(
        '        label: {en: "Inference", vi: "Suy luận"}\n',
        '        label: {en: "Inference", vi: "Suy luận"}\n        asked_as: [Serving]\n',
    )
    (tmp_path / "t.yaml").write_text(text, encoding="utf-8")
    found = [(p.line, p.message) for p in tree_problems(tmp_path / "t.yaml", known_ids)]
    assert found == [(30, "question 'workload': 'Serving' is asked_as of both 'notebook' and 'inference', so it gives neither")]


def test_asked_as_must_be_a_list(tmp_path: Path, known_ids: set[str]) -> None:
    text = (TREES / "valid.yaml").read_text(encoding="utf-8").replace(
        '        label: {en: "A notebook", vi: "Một notebook"}\n',
        '        label: {en: "A notebook", vi: "Một notebook"}\n        asked_as: {jupyter: 1}\n',
    )
    (tmp_path / "t.yaml").write_text(text, encoding="utf-8")
    found = [(p.line, p.message) for p in tree_problems(tmp_path / "t.yaml", known_ids)]
    assert found == [(29, "question 'workload': option 'notebook' asked_as must be a list")]

"""The provider catalogue (issue 7): loading, validation with exact lines, matching and ranking,
the recommendation's needs, and `advisor providers` through `advisor.cli.main`."""

from __future__ import annotations

import json
import marshal
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.cli import main
from advisor.catalogue.load import MAX_SHORT_NAME, catalogue_problems, load_catalogue
from advisor.catalogue.match import check_need, match
from advisor.catalogue.model import FACT_KEYS, NEEDS, Catalogue, UnknownNeed, from_data, normalize_need, normalize_needs, to_data
from advisor.catalogue.wording import value_text
from tests.conftest import dedent

FIXTURE = Path(__file__).resolve().parent / "data" / "providers"
TODAY = date(2026, 12, 2)


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue(FIXTURE)


def write_catalogue(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "kb" / "providers.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text), encoding="utf-8")
    return path


def unknown_facts(*given: str) -> str:
    """The YAML lines of every fact but `given` as unknown, indented for a provider's `facts:` in
    the catalogues these tests write (each on a line of its own, so line numbers stay readable)."""
    return "".join(f"\n              {key}: {{value: unknown, source: null, checked: \"2026-12-01\"}}" for key in FACT_KEYS if key not in given)


# ---------------------------------------------------------------- loading


def test_fixture_loads_every_provider_without_problems(catalogue: Catalogue) -> None:
    assert [p.id for p in catalogue.providers] == ["alpha", "bravo", "charlie", "delta", "aardvark"]
    assert catalogue.problems == ()
    assert catalogue.compiled == "2026-12-01"
    alpha = catalogue.get("alpha")
    assert alpha is not None
    assert alpha.fact("interconnect").value == ("infiniband",)
    assert alpha.fact("spot").notice == "2 minutes"
    assert alpha.fact("mps").known is False
    assert catalogue.get("charlie").fact("interconnect").value == ()  # [] = none documented
    assert catalogue.get("aardvark").as_of == "2026-03-01"  # the oldest fact dates the record


def test_a_knowledge_folder_without_a_catalogue_has_no_providers(tmp_path: Path) -> None:
    assert load_catalogue(tmp_path) == Catalogue()
    assert catalogue_problems(tmp_path / "providers.yaml") == []


def test_plain_data_round_trip_survives_marshal(catalogue: Catalogue) -> None:
    data = marshal.loads(marshal.dumps(to_data(catalogue)))
    assert from_data(data) == Catalogue(catalogue.providers, catalogue.compiled)
    assert from_data(None) == Catalogue()


def test_the_bundled_catalogue_is_valid() -> None:
    from advisor.paths import bundled_knowledge_dir

    path = bundled_knowledge_dir() / "providers.yaml"
    problems = catalogue_problems(path, max_age_days=100_000)
    assert [str(p) for p in problems] == []
    assert len(load_catalogue(bundled_knowledge_dir()).providers) >= 10


# ---------------------------------------------------------------- validation


def test_fixture_is_clean_except_one_stale_date() -> None:
    problems = catalogue_problems(FIXTURE / "providers.yaml", today=TODAY)
    assert [(p.line, p.warning) for p in problems] == [(86, True)]
    assert "aardvark: fact 'mps' was checked on 2026-03-01, 276 days ago (more than 180)" in problems[0].message
    assert catalogue_problems(FIXTURE / "providers.yaml", max_age_days=365, today=TODAY) == []


def test_future_checked_date_is_a_warning() -> None:
    problems = catalogue_problems(FIXTURE / "providers.yaml", max_age_days=365, today=date(2026, 1, 1))
    assert problems and all(p.warning for p in problems)
    assert "in the future" in problems[0].message


def test_validation_reports_each_problem_on_its_line(tmp_path: Path) -> None:
    path = write_catalogue(
        tmp_path,
        """
        schema: 1
        providers:
          - id: broken
            name: Broken Cloud
            aliases: [broken]
            colour: blue
            facts:
              kubernetes:
                value: managed
                checked: "2026-12-01"
              mig:
                value: maybe
                source: https://broken.example/mig
                checked: "2026-12-01"
              mps:
                value: native
                source: https://broken.example/mps
              time_slicing:
                value: "no"
                source: ftp://broken.example/ts
                checked: "2026-13-01"
              gpu_models: {value: unknown, source: null, checked: "2026-12-01"}
              drivers: {value: provider, source: "https://b.example", checked: "2026-12-01", colour: red}
              interconnect: {value: [infiniband, token-ring], source: "https://b.example", checked: "2026-12-01"}
              shared_storage: {checked: "2026-12-01"}
              spot: {value: "yes", notice: "2 minutes", source: "https://b.example", checked: "2026-12-01"}
              control_plane_fee: {value: free, source: "https://b.example", checked: "2026-12-01"}
              scale_to_zero: {value: "yes", source: "https://b.example", checked: "2026-12-01"}
              self_run: {value: unknown, source: null, checked: "2026-12-01"}
              gpu_sharing: {value: "yes"}
        """,
    )
    found = [(p.line, p.message, p.warning) for p in catalogue_problems(path, today=TODAY)]
    assert found == [
        (6, "broken: unknown key 'colour' (known: aliases, facts, id, name, notes, notes_vi, short)", False),
        (9, "broken: fact 'kubernetes' has a value but no source URL", False),
        (12, "broken: fact 'mig' has invalid value 'maybe'; expected one of native, self-managed, no, unknown", False),
        (15, "broken: fact 'mps' has no 'checked' date", False),
        (20, "broken: fact 'time_slicing': source must be an http(s) URL, not 'ftp://broken.example/ts'", False),
        (21, "broken: fact 'time_slicing': 'checked' must be an ISO date (YYYY-MM-DD), not '2026-13-01'", False),
        (23, "broken: fact 'drivers' has unknown field 'colour'", False),
        (24, "broken: fact 'interconnect' has invalid interconnect 'token-ring'; expected a list of infiniband, roce, efa, rdma ([] for none documented) or unknown", False),
        (25, "broken: fact 'shared_storage' has no value (write 'value: unknown' when the research has none)", False),
        (30, "broken: unknown fact 'gpu_sharing' (known facts: kubernetes, self_run, gpu_models, drivers, time_slicing, mig, mps, interconnect, shared_storage, spot, control_plane_fee, scale_to_zero)", False),
    ]
    # A broken value reads as unknown: the catalogue never shows a guess.
    broken = load_catalogue(path.parent).get("broken")
    assert broken is not None and broken.fact("mig").value == "unknown"
    assert all(str(p).startswith("kb/providers.yaml:") for p in catalogue_problems(path, today=TODAY))


def test_vietnamese_details_and_notes_are_checked_on_their_lines(tmp_path: Path) -> None:
    path = write_catalogue(
        tmp_path,
        f"""
        schema: 1
        providers:
          - id: halfway
            name: Halfway Cloud
            aliases: [halfway]
            facts:
              kubernetes: {{value: managed, detail: Managed., detail_vi: [Được quản lý], source: "https://h.example", checked: "2026-12-01"}}{unknown_facts("kubernetes")}
            notes: [One., Two.]
            notes_vi: [Một.]
        """,
    )
    found = [(p.line, p.message) for p in catalogue_problems(path, today=TODAY)]
    assert found == [
        (7, "halfway: fact 'kubernetes': 'detail_vi' must be a string"),
        (20, "halfway: 'notes_vi' has 1 notes for the 2 of 'notes'; write one Vietnamese note for each, in order"),
    ]
    # Neither half-written text is shown: no Vietnamese detail, and no notes out of step.
    halfway = load_catalogue(path.parent).get("halfway")
    assert halfway is not None and halfway.fact("kubernetes").detail_in("vi") == "" and halfway.notes_in("vi") == ()
    assert halfway.fact("kubernetes").detail_in("en") == "Managed." and halfway.notes_in("en") == ("One.", "Two.")


def test_a_short_name_is_checked_on_its_line(tmp_path: Path) -> None:
    unknowns = unknown_facts()
    path = write_catalogue(
        tmp_path,
        f"""
        schema: 1
        providers:
          - id: wordy
            name: Wordy Cloud
            short: Wordy Cloud Managed Kubernetes Engine
            aliases: [wordy]
            facts:{unknowns}
          - id: blank
            name: Blank Cloud
            short: " "
            aliases: [blank]
            facts:{unknowns}
        """,
    )
    assert [(p.line, p.message) for p in catalogue_problems(path, today=TODAY)] == [
        (5, f"wordy: 'short' must be a name of 1 to {MAX_SHORT_NAME} characters (a comparison's column heading)"),
        (22, f"blank: 'short' must be a name of 1 to {MAX_SHORT_NAME} characters (a comparison's column heading)"),
    ]
    wordy = load_catalogue(path.parent).get("wordy")
    assert wordy is not None and wordy.label == "Wordy Cloud"  # refused: the full name heads its column


def test_self_run_must_agree_with_the_kubernetes_offering(tmp_path: Path) -> None:
    """`bring-your-own` machines are machines you run Kubernetes on, and a provider with no
    Kubernetes at all has none: a `self_run` that says otherwise is reported on its line."""
    others = unknown_facts("kubernetes", "self_run")
    path = write_catalogue(
        tmp_path,
        f"""
        schema: 1
        providers:
          - id: metal
            name: Metal
            aliases: [metal]
            facts:
              kubernetes: {{value: bring-your-own, source: "https://m.example", checked: "2026-12-01"}}
              self_run: {{value: "no", source: "https://m.example", checked: "2026-12-01"}}{others}
          - id: pods
            name: Pods
            aliases: [pods]
            facts:
              kubernetes: {{value: none, source: "https://p.example", checked: "2026-12-01"}}
              self_run: {{value: "yes", source: "https://p.example", checked: "2026-12-01"}}{others}
        """,
    )
    assert [(p.line, p.message) for p in catalogue_problems(path, today=TODAY)] == [
        (8, "metal: 'kubernetes: bring-your-own' needs 'self_run: yes' (machines you can run Kubernetes on)"),
        (23, "pods: 'self_run: yes' contradicts 'kubernetes: none'; write 'kubernetes: bring-your-own' for machines you can run Kubernetes on"),
    ]


def test_structure_problems(tmp_path: Path) -> None:
    path = write_catalogue(
        tmp_path,
        """
        schema: 2
        colour: blue
        providers:
          - id: Bad Id
            name: x
          - id: solo
            name: Solo
            facts:
              kubernetes: {value: none, source: "https://solo.example", checked: "2026-12-01"}
          - id: solo
            name: Solo again
        """,
    )
    found = [(p.line, p.message) for p in catalogue_problems(path, today=TODAY)]
    assert (1, "'schema' must be 1") in found
    assert (2, "unknown key 'colour' (known: compiled, providers, schema)") in found
    assert (4, "provider id 'Bad Id' must be lowercase letters and digits joined by - or _") in found
    assert (8, "solo: missing fact 'gpu_models' (write 'value: unknown' when the research has none)") in found
    assert (10, "duplicate provider id 'solo'") in found


def test_invalid_yaml_is_one_problem_with_its_line(tmp_path: Path) -> None:
    path = write_catalogue(tmp_path, "schema: 1\nproviders:\n  - id: [unclosed\n")
    problems = catalogue_problems(path)
    assert len(problems) == 1 and problems[0].line >= 3 and "invalid YAML" in problems[0].message


# ---------------------------------------------------------------- matching and ranking


@pytest.mark.parametrize(
    ("needs", "expected"),
    [
        # every need met first (by name), then unknowns to verify, then (with --all) failures
        (["managed", "mig"], [("alpha", "fits"), ("bravo", "fits"), ("aardvark", "verify"), ("charlie", "fails"), ("delta", "fails")]),
        # fewer unknowns beat the alphabet: Alpha (1 unknown) before Aardvark (2)
        (["mig", "mps"], [("bravo", "fits"), ("alpha", "verify"), ("aardvark", "verify"), ("charlie", "verify"), ("delta", "fails")]),
        # an RDMA fabric of unstated type neither meets nor fails InfiniBand
        (["infiniband"], [("alpha", "fits"), ("bravo", "verify"), ("delta", "verify"), ("aardvark", "fails"), ("charlie", "fails")]),
        # rdma accepts any RDMA-capable fabric: InfiniBand, RoCE, EFA or unnamed RDMA
        (["rdma"], [("aardvark", "fits"), ("alpha", "fits"), ("bravo", "fits"), ("delta", "verify"), ("charlie", "fails")]),
        # machines you can run your own cluster on: a managed offering does not decide it either way
        (["self-run"], [("alpha", "fits"), ("charlie", "fits"), ("bravo", "verify"), ("aardvark", "fails"), ("delta", "fails")]),
        (["kubernetes"], [("aardvark", "fits"), ("alpha", "fits"), ("bravo", "fits"), ("charlie", "fits"), ("delta", "fails")]),
        (["free-control-plane"], [("aardvark", "fits"), ("alpha", "fits"), ("bravo", "fails"), ("charlie", "fails"), ("delta", "fails")]),
        (["spot", "scale-to-zero"], [("alpha", "fits"), ("aardvark", "verify"), ("bravo", "verify"), ("delta", "fails"), ("charlie", "fails")]),
        (["drivers-preinstalled", "shared-storage"], [("aardvark", "fits"), ("alpha", "fits"), ("bravo", "verify"), ("delta", "verify"), ("charlie", "fails")]),
    ],
)
def test_ranking(catalogue: Catalogue, needs: list[str], expected: list[tuple[str, str]]) -> None:
    ranked = match(catalogue, needs, include_failing=True)
    assert [(m.provider.id, m.status) for m in ranked] == expected
    without_failures = match(catalogue, needs)
    assert [(m.provider.id, m.status) for m in without_failures] == [pair for pair in expected if pair[1] != "fails"]


def test_a_gpu_model_is_a_need(catalogue: Catalogue) -> None:
    assert normalize_needs(["gpu:h100", " GPU: H100 ", "gpu:rtx  6000 Ada"]) == ("gpu:H100", "gpu:rtx 6000 Ada")
    with pytest.raises(UnknownNeed, match="allowed needs: .*gpu:MODEL"):
        normalize_need("gpu:")
    ranked = {m.provider.id: m.status for m in match(catalogue, ["gpu:H100"], include_failing=True)}
    assert ranked == {"alpha": "fits", "bravo": "verify", "delta": "verify", "charlie": "fails", "aardvark": "fails"}
    assert [m.provider.id for m in match(catalogue, ["gpu:RTX 6000 Ada"])] == ["charlie", "bravo", "delta"]


@given(st.one_of(st.text(max_size=30), st.text(max_size=20).map(lambda model: "GPU:" + model), st.sampled_from(NEEDS)))
def test_a_need_is_canonical_once_and_stays_so(text: str) -> None:
    """`fit()` normalises needs that were normalised already: the canonical form must be a fixed
    point, and anything else one `UnknownNeed`, never another error."""
    try:
        need = normalize_need(text)
    except UnknownNeed:
        return
    assert normalize_need(need) == need
    assert need in NEEDS or (need.startswith("gpu:") and need[len("gpu:") :].strip())


def test_providers_listing_the_card_to_rent_come_first_within_their_status(catalogue: Catalogue) -> None:
    def order(gpus: list[str]) -> list[str]:
        return [m.provider.id for m in match(catalogue, ["managed"], gpus=gpus) if m.status == "fits"]

    plain = order([])
    assert set(plain) == {"alpha", "bravo", "aardvark"} and plain.index("aardvark") < plain.index("alpha")  # by name
    assert order(["h100"])[0] == "alpha"  # case-insensitive, as people write model names
    assert order(["L4", "A10G"])[0] == "aardvark"
    assert order(["B200"]) == plain  # nobody lists it: the order by name stands
    assert order(["H100"])[-1] == "bravo"  # unknown models never count as listing the card


def test_no_needs_lists_everyone_as_fitting(catalogue: Catalogue) -> None:
    assert [m.status for m in match(catalogue, [])] == ["fits"] * 5


def test_unknowns_say_what_to_verify_and_where(catalogue: Catalogue) -> None:
    aardvark = next(m for m in match(catalogue, ["mig", "mps"]) if m.provider.id == "aardvark")
    assert aardvark.met == () and aardvark.unknown == ("mig", "mps") and aardvark.failed == ()
    links = {check.need: check.link for check in aardvark.to_verify}
    # no page for MIG: the provider's docs (its Kubernetes page); MPS has a page of its own
    assert links == {"mig": "https://aardvark.example/k8s", "mps": "https://aardvark.example/mps-faq"}


@pytest.mark.parametrize(
    ("provider_id", "need", "status", "note"),
    [
        ("bravo", "mig", "met", "self_managed"),  # meets the need, but you install/configure it
        ("alpha", "time-slicing", "met", "self_managed"),
        ("alpha", "mig", "met", ""),
        ("bravo", "drivers-preinstalled", "met", "addon"),
        ("aardvark", "free-control-plane", "met", "free_tier"),
        ("charlie", "kubernetes", "met", "bring_your_own"),
        ("bravo", "infiniband", "unknown", "fabric_unknown"),
        ("charlie", "free-control-plane", "failed", ""),
        ("delta", "mig", "failed", ""),
        ("delta", "scale-to-zero", "failed", ""),
        ("bravo", "spot", "unknown", ""),
    ],
)
def test_need_checks(catalogue: Catalogue, provider_id: str, need: str, status: str, note: str) -> None:
    check = check_need(catalogue.get(provider_id), need)  # type: ignore[arg-type]
    assert (check.status, check.note) == (status, note)


@pytest.mark.parametrize(("text", "need"), [("MIG", "mig"), ("time_slicing", "time-slicing"), ("k8s", "kubernetes"), (" Shared Storage ", "shared-storage"), ("byo", "self-run")])
def test_need_spellings(text: str, need: str) -> None:
    assert normalize_need(text) == need


def test_an_unknown_need_names_the_allowed_ones(catalogue: Catalogue) -> None:
    with pytest.raises(UnknownNeed) as raised:
        match(catalogue, ["mig", "gpus"])
    assert raised.value.need == "gpus"
    assert "allowed needs: " + ", ".join(NEEDS) in str(raised.value)


@pytest.mark.parametrize(
    ("answers", "needs"),
    [
        ({"workload": "notebook"}, []),
        ({"workload": "inference", "gpu_fraction": "yes", "isolation": "hard", "mig_cards": "yes", "control_plane": "managed", "interruptible": "no"}, ["managed", "mig"]),
        # Scaling to zero is a managed node pool's: self-run machines are not asked for it.
        ({"workload": "batch", "control_plane": "self-run", "interruptible": "yes", "idle": "yes"}, ["self-run", "spot"]),
        ({"workload": "distributed-training", "control_plane": "managed", "shared_storage": "yes", "drivers": "preinstalled"}, ["managed", "rdma", "shared-storage", "drivers-preinstalled"]),
    ],
)
def test_a_recommendation_names_its_needs_from_the_tree(answers: dict[str, str], needs: list[str]) -> None:
    from advisor.decision.recommend import recommend
    from advisor.decision.session import complete
    from advisor.decision.validate import bundled_tree_path, load_tree

    rec = recommend(complete(load_tree(bundled_tree_path()), answers).session)
    assert set(needs) <= set(rec.needs)
    assert all(need in NEEDS for need in rec.needs)


@pytest.mark.parametrize(
    ("provider_id", "fact", "lang", "text"),
    [
        ("alpha", "mps", "en", "unknown"),
        ("alpha", "mps", "vi", "chưa rõ"),
        ("bravo", "mig", "en", "self-managed: you install/configure it (GPU Operator)"),
        ("alpha", "spot", "en", "yes · notice: 2 minutes"),
        ("alpha", "spot", "vi", "có · báo trước: 2 phút"),
        ("bravo", "spot", "en", "unknown"),
        ("delta", "spot", "en", "yes · notice: none (no warning)"),
        ("delta", "spot", "vi", "có · báo trước: không có (không cảnh báo)"),
        ("aardvark", "spot", "en", "yes · notice: unknown"),
        ("charlie", "interconnect", "en", "none documented"),
        ("alpha", "interconnect", "en", "InfiniBand"),
        ("charlie", "kubernetes", "en", "bring your own machines (you run Kubernetes) (third-party source)"),
        ("delta", "control_plane_fee", "vi", "không áp dụng (không có control plane được quản lý)"),
    ],
)
def test_values_in_words(catalogue: Catalogue, provider_id: str, fact: str, lang: str, text: str) -> None:
    assert value_text(catalogue.get(provider_id).fact(fact), lang) == text  # type: ignore[union-attr]


def test_every_bundled_fact_reads_in_vietnamese_without_english_words() -> None:
    import re

    from advisor.catalogue.load import load_catalogue
    from advisor.catalogue.model import FACT_KEYS
    from advisor.paths import bundled_knowledge_dir

    english = re.compile(r"\b(minutes?|seconds?|hours?|days?|unknown|yes|no|none|notice|free|paid|not applicable|third-party)\b")
    catalogue = load_catalogue(bundled_knowledge_dir())
    found = [(p.id, key, value_text(p.fact(key), "vi")) for p in catalogue.providers for key in FACT_KEYS if key != "gpu_models"]
    assert found and [row for row in found if english.search(row[2])] == []


def test_every_bundled_detail_and_note_is_also_written_in_vietnamese() -> None:
    """A Vietnamese answer shows `detail_vi` and `notes_vi` (never the English ones), so each must
    exist, and be Vietnamese rather than a copy of the English."""
    import re

    from advisor.catalogue.load import load_catalogue
    from advisor.catalogue.model import FACT_KEYS
    from advisor.paths import bundled_knowledge_dir

    vietnamese = re.compile("[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹáàãéèíìóòõúùý]", re.IGNORECASE)
    catalogue = load_catalogue(bundled_knowledge_dir())
    facts = [(p.id, key, p.fact(key)) for p in catalogue.providers for key in FACT_KEYS]
    assert [(pid, key) for pid, key, fact in facts if bool(fact.detail) != bool(fact.detail_vi)] == []
    assert [(pid, key) for pid, key, fact in facts if fact.detail_vi and not vietnamese.search(fact.detail_vi)] == []
    assert [p.id for p in catalogue.providers if len(p.notes_vi) != len(p.notes)] == []
    assert all(vietnamese.search(note) for p in catalogue.providers for note in p.notes_vi)
    assert sum(bool(fact.detail_vi) for _, _, fact in facts) > 100


# ---------------------------------------------------------------- `advisor providers`


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["providers", "--kb", str(FIXTURE), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text_lists_fits_then_verify_and_hides_failures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "--need", "managed", "--need", "mig", "--lang", "en")
    assert code == 0 and err == ""
    assert out.index("Alpha Cloud") < out.index("Bravo Kube") < out.index("Aardvark GPU")
    assert "Charlie Metal" not in out and "Delta Pods" not in out
    assert "verify MIG: https://aardvark.example/k8s" in out
    assert "2 providers that do not fit are hidden; add --all to show them." in out
    assert "MIG self-managed*" in out and "* self-managed: you install/configure it (GPU Operator)" in out
    assert "Spot nodes: yes · notice: 2 minutes" in out
    assert "GPU models: H100, A100" in out and "GPU models: unknown" in out  # what can be rented, said or not
    assert "Control-plane fee: free" in out and "Scale to zero: unknown" in out
    assert "compiled 2026-03-01" in out  # Aardvark's oldest fact
    assert "verify them on the provider's pages" in out
    assert "\x1b" not in out  # not a terminal: plain text


def test_cli_for_a_cluster_you_run_leaves_out_the_managed_offerings_fee(capsys: pytest.CaptureFixture[str]) -> None:
    """Alpha's control-plane fee and scale to zero are its managed service's: a cluster you run on
    its machines pays no fee, so a self-run listing does not show them unless asked."""
    code, out, _ = run_cli(capsys, "--need", "self-run", "--lang", "en")
    assert code == 0 and "Own cluster on its machines: yes (GPU machines with root access)" in out
    assert "Control-plane fee" not in out and "Scale to zero" not in out
    _, out, _ = run_cli(capsys, "--need", "self-run,scale-to-zero", "--lang", "en")
    assert "Scale to zero: yes" in out and "Control-plane fee" not in out
    _, out, _ = run_cli(capsys, "--need", "self-run,managed", "--lang", "en")
    assert "Control-plane fee: free" in out


def test_cli_all_shows_why_a_provider_does_not_fit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--need", "managed,mig", "--all", "--lang", "en")
    assert code == 0
    assert "Delta Pods  [delta]  Does not fit" in out
    assert "does not fit: MIG (no)" in out
    assert "hidden" not in out


def test_cli_vietnamese(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--need", "infiniband", "--lang", "vi")
    assert code == 0
    assert "Nhà cung cấp đáp ứng: InfiniBand" in out
    assert "cần kiểm tra InfiniBand: https://bravo.example/net (có mạng RDMA nhưng chưa rõ loại)" in out
    assert "Giá và tình trạng còn máy thay đổi thường xuyên" in out


def test_cli_filters_by_gpu_model(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--need", "managed,gpu:l4", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["needs"] == ["managed", "gpu:L4"]
    assert [(p["id"], p["status"]) for p in data["providers"]] == [("aardvark", "fits"), ("bravo", "verify")]
    code, out, _ = run_cli(capsys, "--need", "gpu:L4", "--all", "--lang", "en")
    assert "verify GPU model L4: https://bravo.example/k8s" in out and "does not fit: GPU model L4 (H100, A100)" in out


def test_cli_unknown_need_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "--need", "mig", "--need", "warp-drive", "--lang", "en")
    assert code == 2 and out == ""
    assert err.strip() == "advisor: error: unknown need 'warp-drive'; allowed needs: " + ", ".join(NEEDS) + ", gpu:MODEL"
    assert len(err.strip().splitlines()) == 1


def test_cli_nothing_fits_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--need", "self-run", "--need", "efa", "--need", "free-control-plane", "--lang", "en")
    assert code == 1
    assert "No provider in the catalogue fits these needs." in out


def test_cli_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--need", "mig", "--need", "mps", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"needs", "as_of", "reminder", "providers", "hidden_failing"}
    assert data["needs"] == ["mig", "mps"] and data["hidden_failing"] == 1
    assert [(p["id"], p["status"]) for p in data["providers"]] == [("bravo", "fits"), ("alpha", "verify"), ("aardvark", "verify"), ("charlie", "verify")]
    alpha = data["providers"][1]
    assert set(alpha) == {"id", "name", "short", "status", "met", "unknown", "failed", "verify", "caveats", "as_of", "facts", "notes", "notes_vi"}
    assert (alpha["name"], alpha["short"], data["providers"][0]["short"]) == ("Alpha Cloud", "Alpha", "Bravo Kube")  # no short name: the full one
    assert (alpha["notes"], alpha["notes_vi"]) == (["GPU quotas differ per region."], ["Hạn mức GPU khác nhau theo từng vùng."])
    assert (alpha["met"], alpha["unknown"], alpha["failed"]) == (["mig"], ["mps"], [])
    assert alpha["verify"] == [{"need": "mps", "link": "https://alpha.example/k8s", "note": None}]
    assert list(alpha["facts"]) == ["kubernetes", "self_run", "gpu_models", "drivers", "time_slicing", "mig", "mps", "interconnect", "shared_storage", "spot", "control_plane_fee", "scale_to_zero"]
    assert alpha["facts"]["mig"] == {
        "value": "native", "detail": "Pick a MIG profile per node pool.", "detail_vi": "Chọn một MIG profile cho mỗi node pool.",
        "source": "https://alpha.example/mig", "checked": "2026-12-01", "third_party": False, "more_sources": [], "source_date": None,
    }
    assert alpha["facts"]["mps"]["value"] == "unknown" and alpha["facts"]["mps"]["source"] is None
    assert alpha["facts"]["interconnect"]["value"] == ["infiniband"]
    assert alpha["facts"]["spot"]["notice"] == "2 minutes"
    assert data["providers"][0]["caveats"] == {"mig": "self_managed"}


def test_cli_without_a_catalogue(capsys: pytest.CaptureFixture[str], tiny_kb: Path) -> None:
    assert main(["providers", "--kb", str(tiny_kb), "--lang", "en"]) == 1
    assert "No provider catalogue (providers.yaml)" in capsys.readouterr().out
    assert main(["providers", "--kb", str(tiny_kb), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["providers"] == []


def test_cli_strips_terminal_escapes_from_data(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_catalogue(
        tmp_path,
        """
        schema: 1
        providers:
          - id: evil
            name: "Evil \\e[31mRed\\e[0m Cloud"
            aliases: [evil]
            facts:
              kubernetes: {value: managed, source: "https://evil.example/\\e]8;;x\\a", checked: "2026-12-01"}
        """,
    )
    code = main(["providers", "--kb", str(path.parent), "--need", "mig", "--lang", "en"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "Evil Red Cloud" in out
    assert "\x1b" not in out and "\x07" not in out


def test_without_a_current_index_the_catalogue_is_read_without_building_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from advisor.search.cache import cache_file

    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "providers.yaml").write_text((FIXTURE / "providers.yaml").read_text(encoding="utf-8").replace("schema: 1", "schema: 1\nunexpected: 2", 1), encoding="utf-8")
    cold = run_cli_on(capsys, kb)
    assert not Path(cache_file(kb)).exists()  # nothing built: the next question builds the index
    main(["ask", "--kb", str(kb), "mig"])  # builds and caches the index, which carries the catalogue
    capsys.readouterr()
    assert Path(cache_file(kb)).exists()
    warm = run_cli_on(capsys, kb)
    assert cold == warm
    assert "unexpected" in cold[2]  # the catalogue's own problem, reported either way


def run_cli_on(capsys: pytest.CaptureFixture[str], kb: Path) -> tuple[int, str, str]:
    code = main(["providers", "--kb", str(kb), "--need", "mig", "--json"])
    out, err = capsys.readouterr()
    return code, out, err

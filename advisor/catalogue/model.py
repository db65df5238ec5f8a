"""The provider catalogue's records: providers, their facts, and the needs a user can ask for.

The catalogue lives in `<kb>/providers.yaml` (read by `advisor.catalogue.load`; a knowledge folder
without it simply has no providers). It never guesses: a value the research could not confirm is
`unknown`, and matching keeps "unknown" apart from "no", so the user is told what to verify and
where instead of being shown a confident filter.

The records also travel as plain data inside the cached search index (`to_data`/`from_data`), so
answering a provider question never imports YAML.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from advisor.problems import InvalidInput, Problem
from advisor.textnorm import shown

CATALOGUE_FILE = "providers.yaml"
SCHEMA = 1
UNKNOWN = "unknown"
_SHARING = ("native", "self-managed", "no", UNKNOWN)
# Allowed values per fact; None marks the two list-valued facts, checked separately.
FACT_VALUES: dict[str, tuple[str, ...] | None] = {
    "kubernetes": ("managed", "bring-your-own", "none", UNKNOWN),
    # Whether its GPU machines (VMs or bare metal, with root) can run a cluster you operate: a
    # managed offering and machines for your own cluster are two questions, EC2 answers both.
    "self_run": ("yes", "no", UNKNOWN),
    "gpu_models": None,
    "drivers": ("provider", "addon", "user", UNKNOWN),
    "time_slicing": _SHARING,
    "mig": _SHARING,
    "mps": _SHARING,
    "interconnect": None,
    "shared_storage": ("yes", "no", UNKNOWN),
    "spot": ("yes", "no", UNKNOWN),
    "control_plane_fee": ("free", "paid", "free-tier", "n/a", UNKNOWN),
    "scale_to_zero": ("yes", "no", "n/a", UNKNOWN),
}
FACT_KEYS: tuple[str, ...] = tuple(FACT_VALUES)
INTERCONNECTS: tuple[str, ...] = ("infiniband", "roce", "efa", "rdma")

# The needs vocabulary is part of the CLI and JSON contract: add names, never rename them.
# need -> (fact, {value that meets it: caveat code ("" when none)}); any other known value fails it.
VALUE_NEEDS: dict[str, tuple[str, dict[str, str]]] = {
    "managed": ("kubernetes", {"managed": ""}),
    "self-run": ("self_run", {"yes": ""}),
    "kubernetes": ("kubernetes", {"managed": "", "bring-your-own": "bring_your_own"}),
    "mig": ("mig", {"native": "", "self-managed": "self_managed"}),
    "time-slicing": ("time_slicing", {"native": "", "self-managed": "self_managed"}),
    "mps": ("mps", {"native": "", "self-managed": "self_managed"}),
    "shared-storage": ("shared_storage", {"yes": ""}),
    "spot": ("spot", {"yes": ""}),
    "scale-to-zero": ("scale_to_zero", {"yes": ""}),
    "free-control-plane": ("control_plane_fee", {"free": "", "free-tier": "free_tier"}),
    "drivers-preinstalled": ("drivers", {"provider": "", "addon": "addon"}),
}
# Fabric needs: the interconnect kind that meets it; None = any RDMA-capable fabric.
FABRIC_NEEDS: dict[str, str | None] = {"infiniband": "infiniband", "rdma": None, "efa": "efa"}
NEEDS: tuple[str, ...] = (
    "managed",
    "self-run",
    "kubernetes",
    "mig",
    "time-slicing",
    "mps",
    "infiniband",
    "rdma",
    "efa",
    "shared-storage",
    "spot",
    "scale-to-zero",
    "free-control-plane",
    "drivers-preinstalled",
)
# A need may also name a GPU model: `gpu:H100` is met by a provider whose GPU models list it.
GPU_NEED = "gpu:"
NEED_FORMS: tuple[str, ...] = (*NEEDS, GPU_NEED + "MODEL")  # what a user may ask for, as help and errors list it
_NEED_ALIASES = {"k8s": "kubernetes", "byo": "self-run", "bring-your-own": "self-run", "timeslicing": "time-slicing"}


def need_fact(need: str) -> str:
    """The catalogue fact a need is decided by."""
    if need.startswith(GPU_NEED):
        return "gpu_models"
    return "interconnect" if need in FABRIC_NEEDS else VALUE_NEEDS[need][0]


class UnknownNeed(InvalidInput):
    """A need outside `NEEDS`; the CLI turns it into a usage error naming the allowed needs."""

    def __init__(self, need: str) -> None:
        super().__init__(f"unknown need '{shown(need)}'; allowed needs: {', '.join(NEED_FORMS)}")
        self.need = need


def normalize_need(text: str) -> str:
    """`MIG`, `time_slicing` or `k8s` to the canonical need name, `gpu: h100` to `gpu:H100`;
    `UnknownNeed` otherwise."""
    if text.strip().casefold().startswith(GPU_NEED):
        model = " ".join(text.strip()[len(GPU_NEED) :].split())
        if not model:
            raise UnknownNeed(text)
        return GPU_NEED + (model.upper() if " " not in model else model)  # "h100" is H100; "RTX 6000 Ada" as typed
    key = "-".join(text.strip().casefold().replace("_", "-").split())
    key = _NEED_ALIASES.get(key, key)
    if key not in NEEDS:
        raise UnknownNeed(text)
    return key


def normalize_needs(needs: Iterable[str]) -> tuple[str, ...]:
    """Canonical needs in the order given, without repeats."""
    out: list[str] = []
    for need in needs:
        key = normalize_need(need)
        if key.casefold() not in {seen.casefold() for seen in out}:
            out.append(key)
    return tuple(out)


# NamedTuples, not dataclasses: `advisor providers` and `advisor recommend` load them (see
# `advisor.decision.tree`).
class Fact(NamedTuple):
    """One catalogue value; `value` is a string, a tuple (GPU models, interconnects) or `unknown`."""

    key: str
    value: str | tuple[str, ...] = UNKNOWN
    detail: str = ""
    source: str | None = None
    checked: str | None = None
    notice: str | None = None
    third_party: bool = False
    more_sources: tuple[str, ...] = ()
    source_date: str | None = None
    detail_vi: str = ""

    @property
    def known(self) -> bool:
        return self.value != UNKNOWN

    def detail_in(self, lang: str) -> str:
        """The detail in `lang`; empty when it has not been written in that language."""
        return self.detail_vi if lang == "vi" else self.detail


class Provider(NamedTuple):
    """One provider of the catalogue: its names and its facts. `short` is the name a comparison's
    column is headed with ("EKS" for "Amazon Elastic Kubernetes Service (EKS)"); `label` falls back
    to `name` when the file gives none."""

    id: str
    name: str
    aliases: tuple[str, ...] = ()
    facts: tuple[Fact, ...] = ()
    notes: tuple[str, ...] = ()
    notes_vi: tuple[str, ...] = ()
    short: str = ""

    @property
    def label(self) -> str:
        return self.short or self.name

    def notes_in(self, lang: str) -> tuple[str, ...]:
        """The notes in `lang`; none when they have not been written in that language."""
        return self.notes_vi if lang == "vi" else self.notes

    def fact(self, key: str) -> Fact:
        """The fact `key`; a fact the file does not give is unknown, never assumed."""
        for fact in self.facts:
            if fact.key == key:
                return fact
        return Fact(key)

    def gpus_among(self, models: Iterable[str]) -> tuple[str, ...] | None:
        """The provider's GPU models that are among `models` (any case), in its own order; None
        when its GPU models are unknown."""
        offered = self.fact("gpu_models").value
        if not isinstance(offered, tuple):
            return None
        wanted = {model.casefold() for model in models}
        return tuple(model for model in offered if model.casefold() in wanted)

    @property
    def docs_url(self) -> str | None:
        """Where to verify an unknown with no page of its own: the Kubernetes page, else any source."""
        for fact in sorted(self.facts, key=lambda f: f.key != "kubernetes"):
            if fact.source:
                return fact.source
        return None

    @property
    def as_of(self) -> str | None:
        """The oldest checked date: the whole record is only as fresh as that."""
        dates = [fact.checked for fact in self.facts if fact.checked]
        return min(dates) if dates else None


class Catalogue(NamedTuple):
    """Every provider, the date the catalogue was compiled and the problems found reading it."""

    providers: tuple[Provider, ...] = ()
    compiled: str | None = None
    problems: tuple[Problem, ...] = ()

    def get(self, provider_id: str) -> Provider | None:
        return next((p for p in self.providers if p.id == provider_id), None)

    @property
    def as_of(self) -> str | None:
        dates = [p.as_of for p in self.providers if p.as_of]
        return min(dates) if dates else self.compiled


class NeedCheck(NamedTuple):
    """How one provider stands on one need.

    `status` is met, unknown or failed; `note` is a caveat code (e.g. `self_managed`: it works but
    you install and configure it) and `link` the page to read, for an unknown the provider's docs
    when the fact has no page of its own.
    """

    need: str
    status: str
    fact: str
    note: str = ""
    link: str | None = None


class ProviderMatch(NamedTuple):
    """How one provider stands on every need asked for."""

    provider: Provider
    checks: tuple[NeedCheck, ...] = ()

    def _needs(self, status: str) -> tuple[str, ...]:
        return tuple(check.need for check in self.checks if check.status == status)

    @property
    def met(self) -> tuple[str, ...]:
        return self._needs("met")

    @property
    def unknown(self) -> tuple[str, ...]:
        return self._needs("unknown")

    @property
    def failed(self) -> tuple[str, ...]:
        return self._needs("failed")

    @property
    def status(self) -> str:
        """fits (every need met), verify (no need failed, some unknown) or fails."""
        return "fails" if self.failed else "verify" if self.unknown else "fits"

    @property
    def to_verify(self) -> tuple[NeedCheck, ...]:
        return tuple(check for check in self.checks if check.status == "unknown")



def to_data(catalogue: Catalogue) -> dict[str, Any]:
    """Plain dicts and lists for the marshal-cached index (no records, no dates)."""
    return {
        "compiled": catalogue.compiled,
        "providers": [
            {
                "id": p.id,
                "name": p.name,
                "short": p.short,
                "aliases": list(p.aliases),
                "notes": list(p.notes),
                "notes_vi": list(p.notes_vi),
                "facts": [
                    [f.key, list(f.value) if isinstance(f.value, tuple) else f.value, f.detail, f.source, f.checked, f.notice, f.third_party, list(f.more_sources), f.source_date, f.detail_vi]
                    for f in p.facts
                ],
            }
            for p in catalogue.providers
        ],
    }


def from_data(data: dict[str, Any] | None) -> Catalogue:
    """The inverse of `to_data`; an index built without a catalogue gives an empty one."""
    if not data:
        return Catalogue()
    providers = []
    for raw in data.get("providers", ()):
        facts = tuple(
            Fact(key, tuple(value) if isinstance(value, list) else value, detail, source, checked, notice, third_party, tuple(more), source_date, detail_vi)
            for key, value, detail, source, checked, notice, third_party, more, source_date, detail_vi in raw["facts"]
        )
        providers.append(Provider(raw["id"], raw["name"], tuple(raw["aliases"]), facts, tuple(raw["notes"]), tuple(raw["notes_vi"]), raw["short"]))
    return Catalogue(tuple(providers), data.get("compiled"))

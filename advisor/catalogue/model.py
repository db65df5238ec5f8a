"""The provider catalogue: which cloud GPU providers offer what, each fact with a source and a date.

The catalogue lives in `<kb>/providers.yaml` (optional: a knowledge folder without it simply has
no providers). It never guesses: a value the research could not confirm is `unknown`, and matching
keeps "unknown" apart from "no", so the user is told what to verify and where instead of being
shown a confident filter (issue 7).

No YAML at module level: `advisor ask` rebuilds these records from the cached index's plain data
(`catalogue_from_data`), and only loading or checking the file itself imports PyYAML.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from advisor.problems import InvalidInput, Problem

CATALOGUE_FILE = "providers.yaml"
SCHEMA = 1
UNKNOWN = "unknown"
_SHARING = ("native", "self-managed", "no", UNKNOWN)
# Allowed values per fact; None marks the two list-valued facts, checked separately.
FACT_VALUES: dict[str, tuple[str, ...] | None] = {
    "kubernetes": ("managed", "bring-your-own", "none", UNKNOWN),
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
FACT_FIELDS = frozenset({"value", "detail", "source", "more_sources", "checked", "source_date", "third_party", "notice"})
PROVIDER_FIELDS = frozenset({"id", "name", "aliases", "facts", "notes"})
TOP_FIELDS = frozenset({"schema", "compiled", "providers"})
_ID = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")
_URL = re.compile(r"^https?://[^\s\x00-\x1f\x7f-\x9f]+$")  # no spaces, no control characters

# The needs vocabulary is part of the CLI and JSON contract: add names, never rename them.
# need -> (fact, {value that meets it: caveat code ("" when none)}); any other known value fails it.
_VALUE_NEEDS: dict[str, tuple[str, dict[str, str]]] = {
    "managed": ("kubernetes", {"managed": ""}),
    "self-run": ("kubernetes", {"bring-your-own": ""}),
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
_FABRIC_NEEDS: dict[str, str | None] = {"infiniband": "infiniband", "rdma": None, "efa": "efa"}
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
_NEED_ALIASES = {"k8s": "kubernetes", "byo": "self-run", "bring-your-own": "self-run", "timeslicing": "time-slicing"}


def need_fact(need: str) -> str:
    """The catalogue fact a need is decided by."""
    return "interconnect" if need in _FABRIC_NEEDS else _VALUE_NEEDS[need][0]


class UnknownNeed(InvalidInput):
    """A need outside `NEEDS`; the CLI turns it into a usage error naming the allowed needs."""

    def __init__(self, need: str) -> None:
        super().__init__(f"unknown need '{need}'; allowed needs: {', '.join(NEEDS)}")
        self.need = need


def normalize_need(text: str) -> str:
    """`MIG`, `time_slicing` or `k8s` to the canonical need name; `UnknownNeed` otherwise."""
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
        if key not in out:
            out.append(key)
    return tuple(out)


@dataclass(frozen=True)
class Fact:
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

    @property
    def known(self) -> bool:
        return self.value != UNKNOWN


@dataclass(frozen=True)
class Provider:
    id: str
    name: str
    aliases: tuple[str, ...] = ()
    facts: tuple[Fact, ...] = ()
    notes: tuple[str, ...] = ()

    def fact(self, key: str) -> Fact:
        """The fact `key`; a fact the file does not give is unknown, never assumed."""
        for fact in self.facts:
            if fact.key == key:
                return fact
        return Fact(key)

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


@dataclass(frozen=True)
class Catalogue:
    providers: tuple[Provider, ...] = ()
    compiled: str | None = None
    problems: tuple[Problem, ...] = ()

    def get(self, provider_id: str) -> Provider | None:
        return next((p for p in self.providers if p.id == provider_id), None)

    @property
    def as_of(self) -> str | None:
        dates = [p.as_of for p in self.providers if p.as_of]
        return min(dates) if dates else self.compiled


@dataclass(frozen=True)
class NeedCheck:
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


@dataclass(frozen=True)
class ProviderMatch:
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


_STATUS_ORDER = {"fits": 0, "verify": 1, "fails": 2}


def check_need(provider: Provider, need: str) -> NeedCheck:
    """Whether `provider` meets the (canonical) `need`, from its catalogue fact alone."""
    fact_key = need_fact(need)
    fact = provider.fact(fact_key)
    unknown = NeedCheck(need, "unknown", fact_key, "", fact.source or provider.docs_url)
    if not fact.known:
        return unknown
    if need in _FABRIC_NEEDS:
        kinds = fact.value if isinstance(fact.value, tuple) else ()
        wanted = _FABRIC_NEEDS[need]
        if (wanted is None and kinds) or wanted in kinds:
            return NeedCheck(need, "met", fact_key, "", fact.source)
        if "rdma" in kinds:  # an RDMA fabric whose kind the research could not name
            return NeedCheck(need, "unknown", fact_key, "fabric_unknown", fact.source or provider.docs_url)
        return NeedCheck(need, "failed", fact_key, "", fact.source)
    meeting = _VALUE_NEEDS[need][1]
    if isinstance(fact.value, str) and fact.value in meeting:
        return NeedCheck(need, "met", fact_key, meeting[fact.value], fact.source)
    return NeedCheck(need, "failed", fact_key, "", fact.source)


def match(catalogue: Catalogue, needs: Iterable[str], *, include_failing: bool = False) -> list[ProviderMatch]:
    """Rank providers for `needs`: those meeting every need, then those with unknowns to verify.

    Failing providers come last and only with `include_failing` (`--all`). Ties go to fewer failed
    needs, then fewer unknowns, then the name. Raises `UnknownNeed` for a need outside `NEEDS`.
    """
    wanted = normalize_needs(needs)
    matches = [ProviderMatch(p, tuple(check_need(p, need) for need in wanted)) for p in catalogue.providers]
    if not include_failing:
        matches = [m for m in matches if m.status != "fails"]
    matches.sort(key=lambda m: (_STATUS_ORDER[m.status], len(m.failed), len(m.unknown), m.provider.name.casefold(), m.provider.id))
    return matches


# Structured ids in a recommendation record that imply a catalogue need: checklist item ids and
# rule ids of `decision_trees/gpu-orchestration.yaml` (ids, never the prose of points or checks).
_CHECKLIST_NEEDS = {"interconnect": "rdma", "shared-storage": "shared-storage", "spot-pools": "spot", "spot-instance": "spot", "scale-to-zero": "scale-to-zero"}
_RULE_NEEDS = {"preinstalled-drivers": "drivers-preinstalled"}


def needs_from_recommendation(rec_json: dict[str, Any]) -> list[str]:
    """The catalogue needs of a recommendation JSON record (`advisor recommend --format json`).

    Reads structured fields only, never the prose: `deployment` (managed-k8s -> managed,
    self-run-k8s -> self-run, plain-instance -> none), `gpu_sharing` (each of time-slicing, mps,
    mig is a need), the ids of `checklist` items (interconnect -> rdma, shared-storage, spot-pools
    and spot-instance -> spot, scale-to-zero) and of `points` rules (preinstalled-drivers), plus an
    optional explicit `needs` list of need names. Unrecognised values are skipped, so a newer
    recommendation cannot break the provider list. Accepts the whole export record (fields under
    "recommendation") or the inner record itself.
    """
    record = rec_json.get("recommendation") if isinstance(rec_json.get("recommendation"), dict) else rec_json
    found: list[str] = []

    def add(value: Any) -> None:
        try:
            need = normalize_need(str(value))
        except UnknownNeed:
            return
        if need not in found:
            found.append(need)

    deployment = {"managed-k8s": "managed", "self-run-k8s": "self-run"}.get(str(record.get("deployment", "")))
    if deployment:
        add(deployment)
    for value in _list(record.get("gpu_sharing")):
        add(value)
    for item in _list(record.get("checklist")):
        if isinstance(item, dict) and item.get("id") in _CHECKLIST_NEEDS:
            add(_CHECKLIST_NEEDS[item["id"]])
    for point in _list(record.get("points")):
        if isinstance(point, dict) and point.get("rule") in _RULE_NEEDS:
            add(_RULE_NEEDS[point["rule"]])
    for value in _list(record.get("needs")):
        add(value)
    return found


def fit_summary(catalogue: Catalogue, rec_json: dict[str, Any], lang: str, limit: int = 6) -> dict[str, Any]:
    """The providers that fit a recommendation, as plain data every export format can show.

    Providers meeting every need come first, then those with unknowns to verify (with the page to
    read); the reminder carries the catalogue's date, because prices and availability move.
    """
    needs = needs_from_recommendation(rec_json)
    matches = match(catalogue, needs)[:limit] if needs else []
    return {
        "needs": needs,
        "needs_text": ", ".join(need_label(need, lang) for need in needs),
        "as_of": catalogue.as_of,
        "reminder": reminder(lang, catalogue.as_of),
        "providers": [
            {
                "id": found.provider.id,
                "name": found.provider.name,
                "status": found.status,
                "status_text": _status_text(found.status, lang),
                "verify": [{"need": check.need, "need_text": need_label(check.need, lang), "link": check.link} for check in found.to_verify],
                "as_of": found.provider.as_of,
            }
            for found in matches
        ],
    }


def _status_text(status: str, lang: str) -> str:
    from advisor.i18n import t

    return t(f"prov_status_{status}", lang)


def _list(value: Any) -> list[Any]:
    if isinstance(value, str):
        return [value]
    return value if isinstance(value, list) else []


# ---------------------------------------------------------------- plain data (the index cache)


def catalogue_to_data(catalogue: Catalogue) -> dict[str, Any]:
    """Plain dicts and lists for the marshal-cached index (no dataclasses, no dates)."""
    return {
        "compiled": catalogue.compiled,
        "providers": [
            {
                "id": p.id,
                "name": p.name,
                "aliases": list(p.aliases),
                "notes": list(p.notes),
                "facts": [
                    [f.key, list(f.value) if isinstance(f.value, tuple) else f.value, f.detail, f.source, f.checked, f.notice, f.third_party, list(f.more_sources), f.source_date]
                    for f in p.facts
                ],
            }
            for p in catalogue.providers
        ],
    }


def catalogue_from_data(data: dict[str, Any] | None) -> Catalogue:
    """The inverse of `catalogue_to_data`; an index built without a catalogue gives an empty one."""
    if not data:
        return Catalogue()
    providers = []
    for raw in data.get("providers", ()):
        facts = tuple(
            Fact(key, tuple(value) if isinstance(value, list) else value, detail, source, checked, notice, third_party, tuple(more), source_date)
            for key, value, detail, source, checked, notice, third_party, more, source_date in raw["facts"]
        )
        providers.append(Provider(raw["id"], raw["name"], tuple(raw["aliases"]), facts, tuple(raw["notes"])))
    return Catalogue(tuple(providers), data.get("compiled"))


# ---------------------------------------------------------------- loading and validation


@dataclass(frozen=True)
class _Dated:
    checked: date
    line: int
    where: str


@dataclass
class _Reader:
    """Parses the catalogue, collecting every problem with its line instead of stopping."""

    display: str
    problems: list[Problem] = field(default_factory=list)
    dated: list[_Dated] = field(default_factory=list)
    doc: Any = None

    def problem(self, message: str, *where: Any) -> None:
        self.problems.append(Problem(self.display, self.doc.line(*where) if self.doc else 1, message))

    def read(self, text: str) -> Catalogue:
        from advisor import yamlsafe

        try:
            self.doc = yamlsafe.load(text)
        except yamlsafe.YamlError as error:
            self.problems.append(Problem(self.display, error.line, error.message))
            return Catalogue()
        data = self.doc.data
        if not isinstance(data, dict):
            self.problem("the catalogue must be a mapping with 'schema: 1' and a 'providers' list")
            return Catalogue()
        for key in data:
            if key not in TOP_FIELDS:
                self.problem(f"unknown key '{key}' (known: {', '.join(sorted(TOP_FIELDS))})", key)
        if data.get("schema") != SCHEMA:
            self.problem(f"'schema' must be {SCHEMA}" + ("" if "schema" in data else " (missing)"), "schema")
        compiled = self._date(data.get("compiled"), "'compiled'", "compiled") if data.get("compiled") is not None else None
        raw = data.get("providers")
        if not isinstance(raw, list):
            self.problem("'providers' must be a list of providers", "providers")
            return Catalogue((), compiled)
        providers: list[Provider] = []
        aliases: dict[str, str] = {}
        for index, item in enumerate(raw):
            provider = self._provider(item, ("providers", index), {p.id for p in providers})
            if provider is None:
                continue
            for number, alias in enumerate(provider.aliases):
                owner = aliases.setdefault(" ".join(alias.casefold().split()), provider.id)
                if owner != provider.id:
                    self.problem(f"{provider.id}: alias '{alias}' is also an alias of '{owner}'", "providers", index, "aliases", number)
            providers.append(provider)
        return Catalogue(tuple(providers), compiled)

    def _date(self, value: Any, what: str, *where: Any) -> str | None:
        if isinstance(value, date):  # an unquoted YAML date
            value = value.isoformat()
        try:
            parsed = date.fromisoformat(value) if isinstance(value, str) and len(value) == 10 else None
        except ValueError:
            parsed = None
        if parsed is None:
            self.problem(f"{what} must be an ISO date (YYYY-MM-DD), not {value!r}", *where)
            return None
        return parsed.isoformat()

    def _strings(self, value: Any, what: str, *where: Any) -> tuple[str, ...]:
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            self.problem(f"{what} must be a list of non-empty strings", *where)
            return tuple(v for v in value if isinstance(v, str) and v.strip()) if isinstance(value, list) else ()
        return tuple(value)

    def _provider(self, item: Any, where: tuple[Any, ...], seen: set[str]) -> Provider | None:
        if not isinstance(item, dict):
            self.problem("each provider must be a mapping with id, name, aliases and facts", *where)
            return None
        pid = item.get("id")
        if not isinstance(pid, str) or not _ID.match(pid):
            self.problem(f"provider id {pid!r} must be lowercase letters and digits joined by - or _", *where, "id")
            return None
        if pid in seen:
            self.problem(f"duplicate provider id '{pid}'", *where, "id")
            return None
        for key in item:
            if key not in PROVIDER_FIELDS:
                self.problem(f"{pid}: unknown key '{key}' (known: {', '.join(sorted(PROVIDER_FIELDS))})", *where, key)
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            self.problem(f"{pid}: 'name' must be a non-empty string", *where, "name")
            name = pid
        aliases = self._strings(item.get("aliases"), f"{pid}: 'aliases'", *where, "aliases")
        notes = self._strings(item.get("notes"), f"{pid}: 'notes'", *where, "notes")
        raw_facts = item.get("facts")
        if not isinstance(raw_facts, dict):
            self.problem(f"{pid}: 'facts' must be a mapping of {', '.join(FACT_KEYS)}", *where, "facts")
            raw_facts = {}
        for key in raw_facts:
            if key not in FACT_VALUES:
                self.problem(f"{pid}: unknown fact '{key}' (known facts: {', '.join(FACT_KEYS)})", *where, "facts", key)
        facts: list[Fact] = []
        for key in FACT_KEYS:
            if key not in raw_facts:
                if raw_facts:
                    self.problem(f"{pid}: missing fact '{key}' (write 'value: unknown' when the research has none)", *where, "facts")
                continue
            facts.append(self._fact(pid, key, raw_facts[key], (*where, "facts", key)))
        return Provider(pid, name.strip(), aliases, tuple(facts), notes)

    def _value(self, pid: str, key: str, raw: Any, where: tuple[Any, ...]) -> str | tuple[str, ...]:
        if isinstance(raw, bool):  # unquoted yes/no in YAML 1.1: the meaning is still clear
            raw = "yes" if raw else "no"
        allowed = FACT_VALUES[key]
        if raw == UNKNOWN:
            return UNKNOWN
        if allowed is None:
            if isinstance(raw, list) and all(isinstance(v, str) and v.strip() for v in raw):
                bad = [v for v in raw if key == "interconnect" and v not in INTERCONNECTS]
                if not bad:
                    return tuple(raw)
                self.problem(f"{pid}: fact '{key}' has invalid interconnect {', '.join(map(repr, bad))}; expected a list of {', '.join(INTERCONNECTS)} ([] for none documented) or unknown", *where)
                return UNKNOWN
            kinds = f"{', '.join(INTERCONNECTS)} ([] for none documented)" if key == "interconnect" else "GPU model names"
            self.problem(f"{pid}: fact '{key}' must be a list of {kinds} or unknown, not {raw!r}", *where)
            return UNKNOWN
        if isinstance(raw, str) and raw in allowed:
            return raw
        self.problem(f"{pid}: fact '{key}' has invalid value {raw!r}; expected one of {', '.join(allowed)}", *where)
        return UNKNOWN

    def _fact(self, pid: str, key: str, raw: Any, where: tuple[Any, ...]) -> Fact:
        name = f"{pid}: fact '{key}'"
        if not isinstance(raw, dict):
            self.problem(f"{name} must be a mapping with value, source and checked", *where)
            return Fact(key)
        for item in raw:
            if item not in FACT_FIELDS or (item == "notice" and key != "spot"):
                self.problem(f"{name} has unknown field '{item}'", *where, item)
        if "value" in raw:
            value = self._value(pid, key, raw["value"], (*where, "value"))
        else:
            self.problem(f"{name} has no value (write 'value: unknown' when the research has none)", *where)
            value = UNKNOWN
        checked = None
        if raw.get("checked") is None:
            self.problem(f"{name} has no 'checked' date", *where)
        else:
            checked = self._date(raw["checked"], f"{name}: 'checked'", *where, "checked")
            if checked is not None:
                self.dated.append(_Dated(date.fromisoformat(checked), self.doc.line(*where, "checked"), name))
        source = raw.get("source")
        if source is not None and (not isinstance(source, str) or not _URL.match(source)):
            self.problem(f"{name}: source must be an http(s) URL, not {source!r}", *where, "source")
            source = None
        needs_source = value not in (UNKNOWN, "n/a", ())
        if needs_source and raw.get("source") is None:
            self.problem(f"{name} has a value but no source URL", *where, "value")
        more = self._strings(raw.get("more_sources"), f"{name}: 'more_sources'", *where, "more_sources")
        for number, url in enumerate(more):
            if not _URL.match(url):
                self.problem(f"{name}: more_sources item {number + 1} must be an http(s) URL", *where, "more_sources", number)
        source_date = None
        if raw.get("source_date") is not None:
            source_date = self._date(raw["source_date"], f"{name}: 'source_date'", *where, "source_date")
        detail = raw.get("detail") or ""
        if not isinstance(detail, str):
            self.problem(f"{name}: 'detail' must be a string", *where, "detail")
            detail = ""
        notice = raw.get("notice")
        if notice is not None and not isinstance(notice, str):
            self.problem(f"{name}: 'notice' must be a string such as \"2 minutes\", \"none\" or unknown", *where, "notice")
            notice = None
        third_party = raw.get("third_party", False)
        if not isinstance(third_party, bool):
            self.problem(f"{name}: 'third_party' must be true or false", *where, "third_party")
            third_party = False
        return Fact(key, value, " ".join(detail.split()), source, checked, notice, third_party, tuple(u for u in more if _URL.match(u)), source_date)


def _read(path: Path) -> tuple[Catalogue, _Reader]:
    from advisor.files import LineError, display_path, read_text

    reader = _Reader(display_path(path, path.parent))
    try:
        text = read_text(path)
    except LineError as error:
        reader.problems.append(Problem(reader.display, error.line, str(error)))
        return Catalogue(), reader
    except ValueError as error:
        reader.problems.append(Problem(reader.display, 1, str(error)))
        return Catalogue(), reader
    catalogue = reader.read(text)
    return catalogue, reader


def load_catalogue(root: Path) -> Catalogue:
    """The catalogue of the knowledge folder `root`; empty when it has no `providers.yaml`.

    Never raises on bad data: broken providers are skipped, invalid values read as unknown, and
    every problem is kept on `Catalogue.problems` for the caller to report.
    """
    path = root / CATALOGUE_FILE
    if not path.is_file():
        return Catalogue()
    catalogue, reader = _read(path)
    return Catalogue(catalogue.providers, catalogue.compiled, tuple(sorted(reader.problems)))


def catalogue_problems(path: Path, max_age_days: int = 180, today: date | None = None) -> list[Problem]:
    """Everything wrong with the catalogue file at `path`, for `advisor check`.

    Errors: missing values, checked dates or source URLs, invalid values, unknown keys. Warnings
    (`warning=True`): a fact checked more than `max_age_days` before `today`, or dated in the
    future. A missing file has no problems (the catalogue is optional).
    """
    path = Path(path)
    if not path.is_file():
        return []
    _, reader = _read(path)
    today = today or date.today()
    problems = list(reader.problems)
    for dated in reader.dated:
        age = (today - dated.checked).days
        if age > max_age_days:
            message = f"{dated.where} was checked on {dated.checked.isoformat()}, {age} days ago (more than {max_age_days}): check it again"
            problems.append(Problem(reader.display, dated.line, message, warning=True))
        elif age < 0:
            problems.append(Problem(reader.display, dated.line, f"{dated.where} has a checked date in the future ({dated.checked.isoformat()})", warning=True))
    return sorted(problems)


# ---------------------------------------------------------------- wording shared by the CLI and `ask`


def fact_label(key: str, lang: str) -> str:
    from advisor.i18n import t

    return t(f"prov_fact_{key}", lang)


def need_label(need: str, lang: str) -> str:
    from advisor.i18n import t

    return t(f"prov_need_{need}", lang)


def note_text(note: str, lang: str) -> str:
    from advisor.i18n import t

    return t(f"prov_note_{note}", lang) if note else ""


_FABRIC_NAMES = {"infiniband": "InfiniBand", "roce": "RoCE", "efa": "EFA", "rdma": "RDMA"}


def value_text(fact: Fact, lang: str) -> str:
    """A fact's value in words: unknown is always said as unknown, a self-managed mode says who sets it up."""
    from advisor.i18n import t

    value = fact.value
    if value == UNKNOWN:
        text = t("prov_value_unknown", lang)
    elif isinstance(value, tuple):
        if fact.key == "interconnect":
            text = ", ".join(_FABRIC_NAMES.get(v, v) for v in value) if value else t("prov_value_none_documented", lang)
        else:
            text = ", ".join(value) if value else t("prov_value_none_documented", lang)
    else:
        text = t(f"prov_value_{fact.key}_{value}", lang)
        if text == f"prov_value_{fact.key}_{value}":
            text = t(f"prov_value_{value}", lang)
    if fact.key == "spot" and value == "yes":
        notice = fact.notice or UNKNOWN
        shown = t("prov_value_unknown", lang) if notice == UNKNOWN else t("prov_notice_none", lang) if notice == "none" else notice
        text += " · " + t("prov_notice", lang, notice=shown)
    if fact.third_party:
        text += " " + t("prov_third_party", lang)
    return text


def reminder(lang: str, as_of: str | None) -> str:
    """The closing line every provider listing carries: data has a date, prices move."""
    from advisor.i18n import t

    return t("prov_reminder", lang, date=as_of or "?")

"""Reading and validating `providers.yaml`: every problem with its line, nothing fatal."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from advisor.catalogue.model import (
    CATALOGUE_FILE,
    FACT_KEYS,
    FACT_VALUES,
    INTERCONNECTS,
    SCHEMA,
    UNKNOWN,
    Catalogue,
    Fact,
    Provider,
)
from advisor.problems import Problem

ID_PATTERN = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")
URL_PATTERN = re.compile(r"^https?://[^\s\x00-\x1f\x7f-\x9f]+$")  # no spaces, no control characters
FACT_FIELDS = frozenset({"value", "detail", "detail_vi", "source", "more_sources", "checked", "source_date", "third_party", "notice"})
# A short name heads a comparison's column; longer, it would be as wide as most full names.
MAX_SHORT_NAME = 24
PROVIDER_FIELDS = frozenset({"id", "name", "short", "aliases", "facts", "notes", "notes_vi"})
TOP_FIELDS = frozenset({"schema", "compiled", "providers"})


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
        if not isinstance(pid, str) or not ID_PATTERN.match(pid):
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
        short = item.get("short", "")
        if "short" in item and not (isinstance(short, str) and 0 < len(short.strip()) <= MAX_SHORT_NAME):
            self.problem(f"{pid}: 'short' must be a name of 1 to {MAX_SHORT_NAME} characters (a comparison's column heading)", *where, "short")
            short = ""
        aliases = self._strings(item.get("aliases"), f"{pid}: 'aliases'", *where, "aliases")
        notes = self._strings(item.get("notes"), f"{pid}: 'notes'", *where, "notes")
        notes_vi = self._strings(item.get("notes_vi"), f"{pid}: 'notes_vi'", *where, "notes_vi")
        if notes_vi and len(notes_vi) != len(notes):
            self.problem(f"{pid}: 'notes_vi' has {len(notes_vi)} notes for the {len(notes)} of 'notes'; write one Vietnamese note for each, in order", *where, "notes_vi")
            notes_vi = ()
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
        self._check_self_run(pid, {fact.key: fact.value for fact in facts}, where)
        return Provider(pid, name.strip(), aliases, tuple(facts), notes, notes_vi, short.strip())

    def _check_self_run(self, pid: str, values: dict[str, Any], where: tuple[Any, ...]) -> None:
        """`kubernetes: bring-your-own` says the provider's machines are for a cluster you run, and
        `none` that it offers no Kubernetes at all: `self_run` must not say otherwise, or the needs
        `kubernetes` and `self-run` would disagree about the same provider."""
        kubernetes, self_run = values.get("kubernetes"), values.get("self_run")
        if self_run is None:  # already reported as missing
            return
        if kubernetes == "bring-your-own" and self_run != "yes":
            self.problem(f"{pid}: 'kubernetes: bring-your-own' needs 'self_run: yes' (machines you can run Kubernetes on)", *where, "facts", "self_run")
        elif kubernetes == "none" and self_run == "yes":
            self.problem(f"{pid}: 'self_run: yes' contradicts 'kubernetes: none'; write 'kubernetes: bring-your-own' for machines you can run Kubernetes on", *where, "facts", "kubernetes")

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
        if source is not None and (not isinstance(source, str) or not URL_PATTERN.match(source)):
            self.problem(f"{name}: source must be an http(s) URL, not {source!r}", *where, "source")
            source = None
        needs_source = value not in (UNKNOWN, "n/a", ())
        if needs_source and raw.get("source") is None:
            self.problem(f"{name} has a value but no source URL", *where, "value")
        more = self._strings(raw.get("more_sources"), f"{name}: 'more_sources'", *where, "more_sources")
        for number, url in enumerate(more):
            if not URL_PATTERN.match(url):
                self.problem(f"{name}: more_sources item {number + 1} must be an http(s) URL", *where, "more_sources", number)
        source_date = None
        if raw.get("source_date") is not None:
            source_date = self._date(raw["source_date"], f"{name}: 'source_date'", *where, "source_date")
        detail, detail_vi = (self._text(raw, field, name, where) for field in ("detail", "detail_vi"))
        notice = raw.get("notice")
        if notice is not None and not isinstance(notice, str):
            self.problem(f"{name}: 'notice' must be a string such as \"2 minutes\", \"none\" or unknown", *where, "notice")
            notice = None
        third_party = raw.get("third_party", False)
        if not isinstance(third_party, bool):
            self.problem(f"{name}: 'third_party' must be true or false", *where, "third_party")
            third_party = False
        return Fact(key, value, detail, source, checked, notice, third_party, tuple(u for u in more if URL_PATTERN.match(u)), source_date, detail_vi)

    def _text(self, raw: dict[str, Any], field: str, name: str, where: tuple[Any, ...]) -> str:
        """A fact's free text (`detail`, `detail_vi`) on one line; empty when absent or not text."""
        text = raw.get(field) or ""
        if not isinstance(text, str):
            self.problem(f"{name}: '{field}' must be a string", *where, field)
            return ""
        return " ".join(text.split())


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

"""Catalogue facts in words, in the interface language: shared by `ask`, `providers` and exports."""

from __future__ import annotations

import re

from advisor.catalogue.model import GPU_NEED, UNKNOWN, Fact
from advisor.i18n import t


def fact_label(key: str, lang: str) -> str:
    return t(f"prov_fact_{key}", lang)


def need_label(need: str, lang: str) -> str:
    if need.startswith(GPU_NEED):
        return t("prov_need_gpu", lang, model=need[len(GPU_NEED) :])
    return t(f"prov_need_{need}", lang)


def note_text(note: str, lang: str) -> str:
    return t(f"prov_note_{note}", lang) if note else ""


_FABRIC_NAMES = {"infiniband": "InfiniBand", "roce": "RoCE", "efa": "EFA", "rdma": "RDMA"}


def value_text(fact: Fact, lang: str) -> str:
    """A fact's value in words: unknown is always said as unknown, a self-managed mode says who sets it up."""
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
        shown = t("prov_value_unknown", lang) if notice == UNKNOWN else t("prov_notice_none", lang) if notice == "none" else duration_text(notice, lang)
        text += " · " + t("prov_notice", lang, notice=shown)
    if fact.third_party:
        text += " " + t("prov_third_party", lang)
    return text


def reminder(lang: str, as_of: str | None) -> str:
    """The closing line every provider listing carries: data has a date, prices move."""
    return t("prov_reminder", lang, date=as_of or "?")


def status_text(status: str, lang: str) -> str:
    """fits / verify / fails in words."""
    return t(f"prov_status_{status}", lang)


_DURATION = re.compile(r"^(?P<amount>[\d.,–-]+)\s*(?P<unit>second|minute|hour|day)s?$")


def duration_text(text: str, lang: str) -> str:
    """A catalogue duration ("2 minutes", "30 seconds") in `lang`; other wording as written."""
    found = _DURATION.match(text.strip().lower())
    if found is None:
        return text
    return t(f"prov_unit_{found.group('unit')}", lang, amount=found.group("amount"))


def source_line(source: str, source_date: str | None, checked: str | None, lang: str) -> str:
    """Where a fact comes from and how old that page is: its own date, else "undated"."""
    if source_date:
        return t("prov_source_dated", lang, url=source, date=source_date)
    return t("prov_source_undated", lang, url=source, checked=checked or "?")

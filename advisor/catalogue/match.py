"""Which providers meet a set of needs: met, unknown (with the page to verify) or failed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from advisor.catalogue.model import FABRIC_NEEDS, GPU_NEED, VALUE_NEEDS, Catalogue, NeedCheck, Provider, ProviderMatch, need_fact, normalize_needs

# How many providers a recommendation lists: enough to choose from, short enough to read.
FIT_LIMIT = 6


_STATUS_ORDER = {"fits": 0, "verify": 1, "fails": 2}


def check_need(provider: Provider, need: str) -> NeedCheck:
    """Whether `provider` meets the (canonical) `need`, from its catalogue fact alone."""
    fact_key = need_fact(need)
    fact = provider.fact(fact_key)
    unknown = NeedCheck(need, "unknown", fact_key, "", fact.source or provider.docs_url)
    if not fact.known:
        return unknown
    if need.startswith(GPU_NEED):
        return NeedCheck(need, "met" if provider.gpus_among([need[len(GPU_NEED) :]]) else "failed", fact_key, "", fact.source)
    if need in FABRIC_NEEDS:
        kinds = fact.value if isinstance(fact.value, tuple) else ()
        wanted = FABRIC_NEEDS[need]
        if (wanted is None and kinds) or wanted in kinds:
            return NeedCheck(need, "met", fact_key, "", fact.source)
        if "rdma" in kinds:  # an RDMA fabric whose kind the research could not name
            return NeedCheck(need, "unknown", fact_key, "fabric_unknown", fact.source or provider.docs_url)
        return NeedCheck(need, "failed", fact_key, "", fact.source)
    meeting = VALUE_NEEDS[need][1]
    if isinstance(fact.value, str) and fact.value in meeting:
        return NeedCheck(need, "met", fact_key, meeting[fact.value], fact.source)
    return NeedCheck(need, "failed", fact_key, "", fact.source)


def match(catalogue: Catalogue, needs: Iterable[str], *, include_failing: bool = False, gpus: Iterable[str] = ()) -> list[ProviderMatch]:
    """Rank providers for `needs`: those meeting every need, then those with unknowns to verify.

    Failing providers come last and only with `include_failing` (`--all`). Ties go to providers
    that list one of `gpus` (the GPU models of the card to rent), then to fewer failed needs, then
    fewer unknowns, then the name. Raises `UnknownNeed` for a need outside `NEEDS`.
    """
    wanted = normalize_needs(needs)
    preferred = tuple(gpus)
    matches = [ProviderMatch(p, tuple(check_need(p, need) for need in wanted)) for p in catalogue.providers]
    if not include_failing:
        matches = [m for m in matches if m.status != "fails"]
    matches.sort(key=lambda m: (_STATUS_ORDER[m.status], not m.provider.gpus_among(preferred), len(m.failed), len(m.unknown), m.provider.name.casefold(), m.provider.id))
    return matches


# A NamedTuple, not a dataclass: see `advisor.catalogue.model`.
class Fit(NamedTuple):
    """The providers that fit a recommendation's needs, best first, and the catalogue's date."""

    needs: tuple[str, ...]
    matches: tuple[ProviderMatch, ...]
    as_of: str | None


def fit(catalogue: Catalogue, needs: Iterable[str], limit: int = FIT_LIMIT, *, gpus: Iterable[str] = ()) -> Fit:
    """Providers meeting every need first, then those with unknowns to verify, those listing one of
    `gpus` first within each; at most `limit`."""
    wanted = normalize_needs(needs)
    return Fit(wanted, tuple(match(catalogue, wanted, gpus=gpus)[:limit]) if wanted else (), catalogue.as_of)


"""`advisor providers`: which providers in the catalogue fit a set of needs.

Exit status: 0 when at least one provider fits or is worth verifying, 1 when none is (or the
knowledge folder has no catalogue), 2 for a usage error such as an unknown need.
"""

from __future__ import annotations

import sys

from advisor.commands.common import FLAG, JSON_OPTION, KB_OPTION, REPEATED, Command, Option, kb_root, lang_option, report_problems
from advisor.problems import UsageError

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    import argparse
    from typing import Any
    from advisor.catalogue.model import Catalogue, Fact, ProviderMatch


def _needs(raw: list[str], lang: str) -> tuple[str, ...]:
    from advisor.i18n import t
    from advisor.catalogue.model import NEED_FORMS, UnknownNeed, normalize_needs

    given = [part for value in raw for part in value.split(",") if part.strip()]
    try:
        return normalize_needs(given)
    except UnknownNeed as error:
        from advisor.textnorm import shown

        raise UsageError(t("prov_unknown_need", lang, need=shown(error.need), allowed=", ".join(NEED_FORMS))) from None


def run(args: argparse.Namespace) -> int:
    from advisor.i18n import default_language
    from advisor.catalogue.match import match
    from advisor.library import open_catalogue

    lang = args.lang or default_language()
    needs = _needs(args.need, lang)
    root = kb_root(args)
    catalogue = open_catalogue(root)
    report_problems(list(catalogue.problems))
    found = match(catalogue, needs, include_failing=True)
    shown = found if args.all else [m for m in found if m.status != "fails"]
    hidden = len(found) - len(shown)
    if args.json:
        from advisor.textnorm import json_dumps

        print(json_dumps(providers_json(catalogue, needs, shown, hidden, lang), indent=2))
    else:
        print(_text(catalogue, needs, shown, hidden, lang, root))
    return 0 if any(m.status != "fails" for m in shown) else 1


def providers_json(catalogue: Catalogue, needs: tuple[str, ...], shown: list[ProviderMatch], hidden: int, lang: str) -> dict[str, Any]:
    """The documented `advisor providers --json` record (README: "Provider catalogue")."""
    from advisor.catalogue.model import FACT_KEYS
    from advisor.catalogue.wording import reminder

    def fact_dict(fact: Fact) -> dict[str, Any]:
        record: dict[str, Any] = {
            "value": list(fact.value) if isinstance(fact.value, tuple) else fact.value,
            "detail": fact.detail,
            "detail_vi": fact.detail_vi,
            "source": fact.source,
            "checked": fact.checked,
        }
        if fact.key == "spot":
            record["notice"] = fact.notice or "unknown"
        record["third_party"] = fact.third_party
        record["more_sources"] = list(fact.more_sources)
        record["source_date"] = fact.source_date
        return record

    return {
        "needs": list(needs),
        "as_of": catalogue.as_of,
        "reminder": reminder(lang, catalogue.as_of),
        "providers": [
            {
                "id": m.provider.id,
                "name": m.provider.name,
                "short": m.provider.label,
                "status": m.status,
                "met": list(m.met),
                "unknown": list(m.unknown),
                "failed": list(m.failed),
                "verify": [{"need": c.need, "link": c.link, "note": c.note or None} for c in m.to_verify],
                "caveats": {c.need: c.note for c in m.checks if c.note and c.status == "met"},
                "as_of": m.provider.as_of,
                "facts": {key: fact_dict(m.provider.fact(key)) for key in FACT_KEYS},
                "notes": list(m.provider.notes),
                "notes_vi": list(m.provider.notes_vi),
            }
            for m in shown
        ],
        "hidden_failing": hidden,
    }


# Facts about a provider's managed Kubernetes, left out of a listing for a cluster you run yourself.
_MANAGED_FACTS = ("control_plane_fee", "scale_to_zero")


def _text(catalogue: Catalogue, needs: tuple[str, ...], shown: list[ProviderMatch], hidden: int, lang: str, root: str) -> str:
    from advisor.i18n import t
    from advisor.catalogue.wording import fact_label, need_label, note_text, reminder, value_text
    from advisor.terminal import Styler
    from advisor.textnorm import strip_terminal_escapes as clean

    style = Styler.for_stream(sys.stdout)
    if not catalogue.providers:
        return t("prov_no_catalogue", lang, path=str(root))
    header = t("prov_cli_header", lang, needs=", ".join(need_label(n, lang) for n in needs)) if needs else t("prov_cli_all", lang)
    out = [style.heading(clean(header)), ""]
    status_style = {"fits": style.accent, "verify": style.bold, "fails": style.dim}
    self_run_only = "self-run" in needs and not {"managed", "kubernetes"} & set(needs)
    uses_self_managed = False
    for found in shown:
        provider = found.provider
        title = style.bold(clean(provider.name)) + "  " + style.dim(f"[{clean(provider.id)}]")
        if needs:
            title += "  " + status_style[found.status](t(f"prov_status_{found.status}", lang))
        out.append(title)

        def row(label: str, text: str) -> None:
            out.append(f"    {label}: {clean(text)}")

        row(fact_label("kubernetes", lang), value_text(provider.fact("kubernetes"), lang))
        row(fact_label("self_run", lang), value_text(provider.fact("self_run"), lang))
        row(fact_label("gpu_models", lang), value_text(provider.fact("gpu_models"), lang))
        sharing = []
        for key in ("time_slicing", "mig", "mps"):
            fact = provider.fact(key)
            value = t(f"prov_short_{fact.value}", lang) if isinstance(fact.value, str) else str(fact.value)
            if fact.value == "self-managed":
                value += "*"
                uses_self_managed = True
            if fact.third_party:
                value += " " + t("prov_third_party", lang)
            sharing.append(f"{fact_label(key, lang)} {value}")
        row(t("prov_cli_sharing", lang), " · ".join(sharing))
        asked = {check.fact for check in found.checks}
        keys = [key for key in ("drivers", "shared_storage") if key in asked] + ["interconnect", "spot"]
        # The fee and scale to zero are the managed offering's: a cluster you run pays no such fee.
        keys += [key for key in _MANAGED_FACTS if key in asked or not self_run_only]
        for key in keys:
            row(fact_label(key, lang), value_text(provider.fact(key), lang))
        for check in found.checks:
            if check.status == "unknown":
                note = f" ({note_text(check.note, lang)})" if check.note else ""
                out.append("    " + style.bold(clean(t("prov_verify_item", lang, what=need_label(check.need, lang), url=check.link or "?") + note)))
            elif check.status == "failed":
                fact = provider.fact(check.fact)
                out.append("    " + clean(t("prov_failed_item", lang, what=need_label(check.need, lang), value=value_text(fact, lang))))
        out.append("    " + style.dim(t("prov_as_of", lang, date=provider.as_of or "?")))
        out.append("")
    if not shown:
        out += [t("prov_none_fit", lang), ""]
    if hidden:
        out.append(t("prov_cli_hidden", lang, count=hidden))
    if uses_self_managed:
        out.append("* " + t("prov_value_self-managed", lang))
    out.append(style.dim(reminder(lang, catalogue.as_of)))
    return "\n".join(out).rstrip()


def _help_values() -> dict[str, str]:
    from advisor.catalogue.model import NEED_FORMS

    return {"needs": ", ".join(NEED_FORMS)}


COMMAND_LINES = (
    Command(
        "providers",
        run,
        (
            Option(("--need",), REPEATED, "cli_arg_providers_need", "NEED"),
            Option(("--all",), FLAG, "cli_arg_providers_all"),
            JSON_OPTION,
            lang_option("cli_arg_lang_interface"),
            KB_OPTION,
        ),
        epilog="cli_epilog_providers",
        help_values=_help_values,
    ),
)

"""`advisor ask`, `advisor show` and `advisor list`: reading the knowledge base."""

from __future__ import annotations

import argparse
import json
import sys

from advisor.commands.common import add_kb_option, add_lang_option, checked_text, kb_root, report_problems
from advisor.problems import UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (1.5 ms of `advisor ask`)
if TYPE_CHECKING:
    from typing import Any


def add_parser(sub: Any) -> None:
    ask = sub.add_parser("ask", help="answer a question", description="Answer a question from the knowledge base.")
    ask.add_argument("question", nargs="*", help="the question (quote it, or pass several words)")
    add_lang_option(ask)
    ask.add_argument("--top", type=int, default=None, metavar="N", help="show the N best matches (default 1; 3 with --json)")
    ask.add_argument("--json", action="store_true", help="print JSON instead of text")
    ask.add_argument("--batch", metavar="FILE", help="answer one question per line of FILE ('-' for stdin); prints JSON lines")
    ask.add_argument("--explain", action="store_true", help="say why this answer was chosen")
    add_kb_option(ask)
    ask.set_defaults(run=run_ask)

    show = sub.add_parser("show", help="print one knowledge entry by id", description="Print one knowledge entry by id.")
    show.add_argument("id", help="entry id, e.g. mig")
    add_lang_option(show, "entry language (default: from the environment)")
    show.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_kb_option(show)
    show.set_defaults(run=run_show)

    listing = sub.add_parser("list", help="list knowledge entries", description="List the knowledge entries.")
    add_lang_option(listing, "only entries in this language (default: all)")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    add_kb_option(listing)
    listing.set_defaults(run=run_list)


def _dumps(data: Any) -> str:
    """JSON indented for a person at a terminal, compact for a program reading a pipe.

    Indenting makes the json module fall back from its C encoder to Python code, which a script
    calling `advisor ask --json` in a loop would pay on every answer.
    """
    return json.dumps(data, ensure_ascii=False, indent=2 if sys.stdout.isatty() else None)


def _index(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from advisor.search.index import load_index

    index = load_index(kb_root(args))
    report_problems(index.problems)
    return index


def run_ask(args: argparse.Namespace) -> int:
    if args.batch is not None:
        if args.question:
            raise UsageError("give either a question or --batch, not both")
        return _run_batch(args)
    question = checked_text(" ".join(args.question), "the question").strip()
    if not question:
        raise UsageError("no question given; try: advisor ask \"what is MIG?\"")
    if args.top is not None and args.top < 1:
        raise UsageError("--top must be at least 1")
    from advisor.search.rank import MAX_QUERY_CHARS, search

    index = _index(args)
    top = args.top or (3 if args.json else 1)
    outcome = search(index, question, lang=args.lang, limit=max(top, 3))
    if outcome.truncated:
        from advisor.i18n import t

        print(t("query_truncated", outcome.lang or "en", limit=MAX_QUERY_CHARS), file=sys.stderr)
    catalogue = _catalogue_answer(index, question, args)
    if args.json:
        print(_dumps(_json_record(index, outcome, catalogue, top, args.explain)))
    elif catalogue is not None:
        _print_catalogue_answer(index, outcome, catalogue, args.explain)
    else:
        _print_outcome(index, outcome, top, args.explain)
    return 0 if outcome.answered or catalogue is not None else 1


def _json_record(index, outcome, catalogue, top: int, explain: bool) -> dict:  # type: ignore[no-untyped-def]
    """`results` always rank knowledge entries; a provider-catalogue answer rides beside them."""
    from advisor.reply import outcome_dict

    record = outcome_dict(index, outcome, top, explain=explain)
    if catalogue is not None:
        record["answered"] = True
        record["catalogue"] = catalogue.record(explain=explain)
    return record


def _run_batch(args: argparse.Namespace) -> int:
    from advisor.search.rank import search

    if args.batch == "-":
        raw, name = sys.stdin.buffer.read(), "<stdin>"
    else:
        try:
            with open(args.batch, "rb") as handle:
                raw, name = handle.read(), args.batch
        except OSError as error:
            raise UsageError(f"cannot read {args.batch}: {error.strerror}") from None
    lines: list[str] = []
    for number, line in enumerate(raw.splitlines(), start=1):
        try:
            lines.append(line.decode("utf-8-sig" if number == 1 else "utf-8"))
        except UnicodeDecodeError:
            raise UsageError(f"{name}:{number}: not valid UTF-8") from None
    index = _index(args)
    top = args.top or 3
    for line in lines:
        question = line.strip()
        if not question:
            continue
        outcome = search(index, question, lang=args.lang, limit=max(top, 3))
        record = _json_record(index, outcome, _catalogue_answer(index, question, args), top, args.explain)
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


def _catalogue_answer(index, question: str, args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The provider-catalogue answer to a provider question ("does GKE support MIG"), else None.

    Asked for text, JSON and batch alike (issue 7). The catalogue machinery is imported only when
    the question holds a provider's name or a word such as "provider" (about 15 ms saved).
    """
    from advisor.textnorm import tokens

    triggers = frozenset(index.data.get("catalogue_triggers") or ())
    if triggers.isdisjoint(index.analyzer.words(question)) and triggers.isdisjoint(tokens(question)):
        return None
    from advisor.catalogue.questions import answer_provider_question

    return answer_provider_question(index, question, args.lang)


def _print_catalogue_answer(index, outcome, answer, explain: bool) -> None:  # type: ignore[no-untyped-def]
    """The catalogue's facts first (that is what was asked), then the knowledge entry behind them."""
    from advisor.i18n import t
    from advisor.terminal import Styler, use_color
    from advisor.textnorm import strip_terminal_escapes as clean

    style = Styler(use_color(sys.stdout))
    out = [style.heading(clean(answer.title)) + "  " + style.dim(f"[{clean(answer.id)}]"), "", style.markdown(answer.answer)]
    if outcome.answered:
        meta = index.meta(outcome.best.entry)
        out += ["", style.bold(t("see_also", answer.lang) + ":"), f"  • {clean(meta.title)} " + style.dim(f"(advisor show {meta.id})")]
    if explain:
        reason = ", ".join(f"{key}: {' '.join(map(str, value)) if isinstance(value, list) else value}" for key, value in answer.reason.items())
        out += ["", style.bold(t("explain_header", answer.lang) + ":"), f"  {t('prov_explain', answer.lang)} ({clean(reason)})"]
    print("\n".join(out))


def _print_outcome(index, outcome, top: int, explain: bool) -> None:  # type: ignore[no-untyped-def]
    from advisor.reply import entry_body, related_titles
    from advisor.i18n import default_language, t
    from advisor.terminal import Styler, use_color
    from advisor.textnorm import strip_terminal_escapes as clean

    style = Styler(use_color(sys.stdout))
    lang = outcome.lang or (index.meta(outcome.best.entry).lang if outcome.best else default_language())
    out: list[str] = []
    if outcome.answered:
        hit = outcome.best
        meta = index.meta(hit.entry)
        out.append(style.heading(clean(meta.title)) + "  " + style.dim(f"[{meta.id} · {t('confidence', lang)} {hit.score:.0f}]"))
        if outcome.lang and meta.lang != outcome.lang:
            out.append(style.dim(t("language_fallback", lang, wanted=outcome.lang, shown=meta.lang)))
        out.append("")
        out.append(style.markdown(entry_body(meta)))
        related = related_titles(index, meta)
        if related:
            out.append("")
            out.append(style.bold(t("related", lang) + ":"))
            out.extend(f"  • {clean(title)} " + style.dim(f"(advisor show {rid})") for rid, title in related)
        urls = [source for source in meta.sources if source.startswith("http")]
        seed = [source for source in meta.sources if not source.startswith("http")]
        if urls or seed:
            out.append("")
            out.append(style.bold(t("sources", lang) + ":"))
            out.extend(f"  • {clean(source)}" for source in seed + urls)
        others = outcome.hits[1:top]
        if others:
            out.append("")
            out.append(style.bold(t("other_matches", lang) + ":"))
            out.extend(f"  • {clean(index.meta(h.entry).title)} " + style.dim(f"[{h.topic} · {h.score:.0f}]") for h in others)
    else:
        out.append(style.bold(t("no_answer", lang)))
        if outcome.suggestions:
            out.append("")
            out.append(t("did_you_mean", lang) + ":")
            for hit in outcome.suggestions:
                meta = index.meta(hit.entry)
                out.append(f"  • {clean(meta.title)} " + style.dim(f"(advisor show {hit.topic} · {hit.score:.0f})"))
        out.append("")
        out.append(style.dim(t("try_guide", lang)))
    if explain:
        out.extend(["", _explain_text(outcome, lang, style)])
    print("\n".join(out))


def _explain_text(outcome, lang: str, style) -> str:  # type: ignore[no-untyped-def]
    from advisor.reply import explanation
    from advisor.i18n import t

    facts = explanation(outcome)
    rows = [
        (t("explain_query", lang), facts["normalized_query"]),
        (t("explain_lang", lang), outcome.lang or "?"),
        (t("explain_matched", lang), f"\"{facts['matched']}\" ({t('explain_field', lang)}: {facts['field']})"),
        (t("explain_score", lang), f"{facts['score']:.1f} ({t('explain_lexical', lang)} {facts['lexical']:.2f}, {t('explain_fuzzy', lang)} {facts['fuzzy']:.0f})"),
        (t("explain_margin", lang), f"{facts['margin']:.1f} (≥ {facts['ambiguity_margin']})"),
        (t("explain_threshold", lang), f"{facts['threshold']:.0f}"),
    ]
    if facts["corrections"]:
        rows.append((t("explain_corrections", lang), ", ".join(f"{a} → {b}" for a, b in facts["corrections"])))
    lines = [style.bold(t("explain_header", lang) + ":")]
    lines.extend(f"  {label}: {value}" for label, value in rows)
    return "\n".join(lines)


def run_show(args: argparse.Namespace) -> int:
    from advisor.reply import entry_body, hit_dict, related_titles
    from advisor.i18n import default_language, t
    from advisor.terminal import Styler, use_color
    from advisor.search.rank import Hit
    from advisor.textnorm import strip_terminal_escapes as clean

    index = _index(args)
    lang = args.lang or default_language()
    found = index.entry_index(args.id, lang)
    if found is None:
        raise UsageError(t("unknown_id", lang, id=args.id))
    meta = index.meta(found)
    if args.json:
        hit = Hit(meta.id, found, 100.0, 1.0, 100.0, 0.0, meta.title, "title")
        record = hit_dict(index, hit)
        record.pop("score")
        print(_dumps(record))
        return 0
    style = Styler(use_color(sys.stdout))
    out = [style.heading(clean(meta.title)) + "  " + style.dim(f"[{meta.id} · {meta.lang}]"), "", style.markdown(entry_body(meta))]
    related = related_titles(index, meta)
    if related:
        out += ["", style.bold(t("related", lang) + ":")]
        out += [f"  • {clean(title)} " + style.dim(f"(advisor show {rid})") for rid, title in related]
    if meta.sources:
        out += ["", style.bold(t("sources", lang) + ":")] + [f"  • {clean(s)}" for s in meta.sources]
    print("\n".join(out))
    return 0


def run_list(args: argparse.Namespace) -> int:
    from advisor.textnorm import strip_terminal_escapes as clean

    index = _index(args)
    rows = [index.meta(i) for i in range(len(index.entries))]
    if args.lang:
        rows = [meta for meta in rows if meta.lang == args.lang]
    if args.json:
        print(_dumps([{"id": m.id, "lang": m.lang, "title": m.title, "summary": m.summary} for m in rows]))
        return 0
    width = max((len(m.id) for m in rows), default=0)
    for meta in rows:
        print(f"{meta.id:<{width}}  {meta.lang}  {clean(meta.title)}")
    return 0

"""`advisor ask`, `advisor show` and `advisor list`: reading the knowledge base.

These only parse arguments and print: `advisor.reply.answer` decides what answers a question.
"""

from __future__ import annotations

import sys

from advisor.commands.common import FLAG, JSON_OPTION, KB_OPTION, Command, Option, checked_text, kb_root, lang_option, report_problems
from advisor.problems import UsageError

# A pasted log is read up to this size.
MAX_PASTE_BYTES = 64_000_000

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any
    import argparse

    from advisor.catalogue.replies import ProviderAnswer
    from advisor.reply import Article, Reply
    from advisor.search.index import SearchIndex
    from advisor.terminal import Styler


def _dumps(data: Any) -> str:
    """JSON indented for a person at a terminal, compact for a program reading a pipe.

    Indenting makes the json module fall back from its C encoder to Python code, which a script
    calling `advisor ask --json` in a loop would pay on every answer. C1 controls are escaped
    (`json_dumps`): the JSON may well be read on a terminal.
    """
    from advisor.textnorm import json_dumps

    return json_dumps(data, indent=2 if sys.stdout.isatty() else None)


def _index(args: argparse.Namespace) -> SearchIndex:
    from advisor.library import open_index

    index = open_index(kb_root(args))
    report_problems(index.problems)
    return index


def run_ask(args: argparse.Namespace) -> int:
    if args.batch is not None:
        if args.question:
            raise UsageError("err_question_and_batch")
        return _run_batch(args)
    if args.top is not None and args.top < 1:
        raise UsageError("err_top_too_small")
    pasted = None
    if args.question == ["-"] or (not args.question and not sys.stdin.isatty()):
        pasted = _read_paste()
        question = pasted.strip()
    else:
        question = checked_text(" ".join(args.question), "err_not_utf8_question").strip()
    if not question:
        raise UsageError("err_no_question")
    from advisor.reply import answer, answer_paste, reply_record

    index = _index(args)
    top = args.top or (3 if args.json else 1)
    if pasted is not None and "\n" in question:
        reply = answer_paste(index, question, args.lang)
    else:
        reply = answer(index, question, args.lang, limit=top)
        from advisor.question_log import note_answer

        note_answer(reply)  # kept for review when learning is on and the answer was poor
    if reply.outcome.truncated:
        from advisor.i18n import t
        from advisor.search.rank import MAX_QUERY_CHARS

        print(t("query_truncated", reply.lang, limit=MAX_QUERY_CHARS), file=sys.stderr)
    if args.json:
        print(_dumps(reply_record(index, reply, top, explain=args.explain)))
    else:
        _print_reply(index, reply, top, args.explain)
    return 0 if reply.answered else 1


def _read_paste() -> str:
    """Standard input as text: a question or a pasted log, up to MAX_PASTE_BYTES (a log's tail
    past that is dropped); bytes that are not UTF-8 are replaced, as logs carry all sorts."""
    data = sys.stdin.buffer.read(MAX_PASTE_BYTES + 1)
    if len(data) > MAX_PASTE_BYTES:
        from advisor.i18n import default_language, t

        print(t("err_paste_cut", default_language(), megabytes=MAX_PASTE_BYTES // 1_000_000), file=sys.stderr)
        data = data[:MAX_PASTE_BYTES]
    return data.decode("utf-8", "replace")


def _run_batch(args: argparse.Namespace) -> int:
    from advisor.files import read_stream
    from advisor.reply import answer, reply_record
    from advisor.textnorm import json_dumps, shown

    name = "<stdin>" if args.batch == "-" else args.batch
    try:  # a file, a pipe or `<(...)` alike; capped, so `--batch /dev/zero` cannot fill memory
        if args.batch == "-":
            raw = read_stream(sys.stdin.buffer, MAX_PASTE_BYTES)
        else:
            with open(args.batch, "rb") as handle:
                raw = read_stream(handle, MAX_PASTE_BYTES)
    except OSError as error:
        raise UsageError("err_cannot_read", path=shown(args.batch), reason=error.strerror) from None
    except ValueError as error:
        raise UsageError("err_cannot_read", path=shown(args.batch), reason=str(error).removeprefix("cannot read file: ")) from None
    lines: list[str] = []
    for number, line in enumerate(raw.splitlines(), start=1):
        try:
            lines.append(line.decode("utf-8-sig" if number == 1 else "utf-8"))
        except UnicodeDecodeError:
            raise UsageError("err_line_not_utf8", path=name, line=number) from None
    index = _index(args)
    top = args.top or 3
    for text in lines:  # one record per line, a blank one too (unanswered), so output lines up with input
        record = reply_record(index, answer(index, text.strip(), args.lang, limit=top), top, explain=args.explain)
        sys.stdout.write(json_dumps(record) + "\n")
    return 0


def _print_reply(index: SearchIndex, reply: Reply, top: int, explain: bool) -> None:
    from advisor.i18n import t
    from advisor.reply import CATALOGUE, short_answer, unanswered_note
    from advisor.terminal import Styler
    from advisor.textnorm import strip_terminal_escapes as clean

    style = Styler.for_stream(sys.stdout)
    lang = reply.lang
    article = reply.article
    matched: list[str] = []
    if reply.log_line is not None:
        matched = [style.bold(t("log_line", lang, number=reply.log_line.number)) + " " + clean(reply.log_line.line), ""]
    if article is None:
        out = [style.bold(t("no_answer", lang))]
        if note := unanswered_note(reply, lang):
            out += style.wrap(clean(note))
        if reply.suggestions:
            out += ["", t("did_you_mean", lang) + ":"]
            out += [style.item(clean(title), f"advisor show {entry_id}") for entry_id, title in reply.suggestions]
        out += ["", style.note(t("try_guide", lang))]
    elif reply.kind == CATALOGUE:
        out = [style.with_aside(clean(article.title), f"[{clean(article.id)}]", style.heading), "", _laid_out(article.body, style)]
        if article.related:
            entry_id, title = article.related[0]
            out += ["", style.bold(t("see_also", lang) + ":"), style.item(clean(title), f"advisor show {entry_id}")]
    else:
        out = [style.with_aside(clean(article.title), f"[{article.id} · {t('confidence', lang)} {article.score:.0f}]", style.heading)]
        if article.wanted_lang:
            out.append(style.note(t("language_fallback", lang, wanted=article.wanted_lang, shown=article.lang)))
        out += ["", _laid_out(short_answer(article), style)]
        if reply.aside is not None:
            out += ["", style.bold(clean(reply.aside.title)), _laid_out(reply.aside.answer, style)]
        out += ["", style.note(t("read_all", lang, command=f"advisor show {article.id}"))]
        out += _wizard_offer(index, reply, style)
        others = [(h.topic, index.meta(h.entry).title) for h in reply.outcome.hits[1:top]]
        if others:
            out += ["", style.bold(t("other_matches", lang) + ":")]
        elif reply.close:
            others = list(reply.close)
            out += ["", style.bold(t("also_close", lang) + ":")]
        out += [style.item(clean(title), f"advisor show {entry_id}") for entry_id, title in others]
    if explain:
        out += ["", _explain_text(reply, style)]
    print("\n".join(matched + out))


def _wizard_offer(index: SearchIndex, reply: Reply, style: Styler) -> list[str]:
    """The guide, with what the question already answers given ("k8s for 1 notebook?")."""
    from advisor.library import tree_hints
    from advisor.reply import guide_command, wizard_answers

    hints = tree_hints()
    given = wizard_answers(index, reply, hints)
    if given is None:
        return []
    from advisor.decision.hints import described
    from advisor.i18n import t

    lang, command = reply.lang, guide_command(given)
    if not given:
        return [style.note(t("wizard_offer_start", lang, command=command))]
    return [style.note(t("wizard_offer", lang, answers=described(hints[0], given, lang), command=command))]


def _laid_out(text: str, style: Styler) -> str:
    """Markdown for the terminal. `Styler.markdown` leaves a table as its pipes, which a provider
    comparison or a section's table ran far past the terminal's width; an answer holding one is
    laid out as `advisor show` lays out entries (aligned, wrapped columns), and only it pays the
    import of markdown-it (about 40 ms)."""
    if (style.color or style.width is not None) and any(line.lstrip().startswith("|") for line in text.splitlines()):
        from advisor.terminal_markdown import render_markdown

        return render_markdown(text, style).rstrip("\n")
    return style.markdown(text)


def _article_footer(article: Article, lang: str, style: Styler) -> list[str]:
    """Related entries (as `advisor show` commands) and sources."""
    from advisor.i18n import t
    from advisor.textnorm import strip_terminal_escapes as clean

    out: list[str] = []
    if article.related:
        out += ["", style.bold(t("related", lang) + ":")]
        out += [style.item(clean(title), f"advisor show {rid}") for rid, title in article.related]
    if article.sources:
        from advisor.reply import source_text

        out += ["", style.bold(t("sources", lang) + ":")]
        out += ["\n".join(style.wrap(clean(source_text(title, url)), "  • ", "    ")) for title, url in article.sources]
    return out


def _explain_text(reply: Reply, style: Styler) -> str:
    from advisor.i18n import t
    from advisor.reply import CATALOGUE, explanation

    lang = reply.lang
    lines = [style.bold(t("explain_header", lang) + ":")]
    if reply.kind == CATALOGUE and reply.catalogue is not None:
        return "\n".join([*lines, _catalogue_reason(reply.catalogue, t("prov_explain", lang))])
    facts = explanation(reply.outcome)
    rows = [
        (t("explain_query", lang), facts["normalized_query"]),
        (t("explain_lang", lang), reply.outcome.lang or "?"),
        (t("explain_matched", lang), f"\"{facts['matched']}\" ({t('explain_field', lang)}: {facts['field']})"),
        (t("explain_score", lang), f"{facts['score']:.1f} ({t('explain_lexical', lang)} {facts['lexical']:.2f}, {t('explain_fuzzy', lang)} {facts['fuzzy']:.0f}, {t('explain_likelihood', lang)} {facts['likelihood']:.2f})"),
        (t("explain_margin", lang), f"{facts['margin']:.1f}"),
        (t("explain_threshold", lang), f"{facts['confidence']:.0f} (≥ {facts['answer_confidence']:.0f})"),
    ]
    if facts["held_back"]:
        rows.append((t("explain_held_back", lang), t(f"explain_held_back_{facts['held_back']}", lang)))
    if facts["corrections"]:
        rows.append((t("explain_corrections", lang), ", ".join(f"{a} → {b}" for a, b in facts["corrections"])))
    lines.extend(f"  {label}: {value}" for label, value in rows)
    if reply.aside is not None:
        lines.append(_catalogue_reason(reply.aside, t("prov_explain_beside", lang)))
    return "\n".join(lines)


def _catalogue_reason(provided: ProviderAnswer, said: str) -> str:
    """What the catalogue was asked ("providers: eks, facts: mig"), after `said`."""
    reason = ", ".join(f"{key}: {' '.join(map(str, value)) if isinstance(value, list) else value}" for key, value in provided.reason.items())
    return f"  {said} ({reason})"


def run_show(args: argparse.Namespace) -> int:
    from advisor.i18n import default_language, t
    from advisor.reply import entry_article, hit_record
    from advisor.terminal import Styler, is_terminal, page
    from advisor.textnorm import shown, strip_terminal_escapes as clean

    index = _index(args)
    lang = args.lang or default_language()
    typed = " ".join(args.id)
    wanted = spelt_id(index, typed)
    found = index.entry_index(wanted, lang)
    if found is None:
        nearest = _nearest_ids(index, wanted)
        hint = t("did_you_mean_ids", lang, ids=", ".join(nearest)) if nearest else t("unknown_id_list", lang)
        raise UsageError(t("unknown_id", lang, id=shown(typed)) + "; " + hint)
    if args.json:
        print(_dumps(hit_record(index, found, None)))
        return 0
    article = entry_article(index, found, None)
    style = Styler.for_stream(sys.stdout)
    body = clean(article.body)
    if is_terminal(sys.stdout):
        from advisor.terminal_markdown import render_markdown

        body = render_markdown(body, style).rstrip("\n")
    out = [style.with_aside(clean(article.title), f"[{article.id} · {article.lang}]", style.heading), "", body]
    out += _article_footer(article, lang, style)
    page("\n".join(out))
    return 0


def spelt_id(index: SearchIndex, typed: str) -> str:
    """The entry id `typed` spells, whatever its case, spaces and hyphens ("MIG", "gpu operator",
    "timeslicing"); else `typed` as an id, for the nearest ids to be suggested."""
    wanted = "-".join(typed.lower().split())
    if index.topic_of(wanted) is not None:
        return wanted
    squashed = wanted.replace("-", "")
    spelt = [topic for topic in index.topics if topic.replace("-", "") == squashed]
    return spelt[0] if len(spelt) == 1 else wanted


def _nearest_ids(index: SearchIndex, wanted: str, limit: int = 3) -> list[str]:
    """Entry ids spelt most like `wanted`: first those a typo or two away ("mgi" -> mig: two letters
    swapped), then those that contain it or share most of it ("time-slice" -> time-slicing,
    time-slicing-setup). WRatio alone scores "mgi" against "mig" under any useful cutoff."""
    from rapidfuzz import fuzz, process
    from rapidfuzz.distance import OSA

    from advisor.textnorm import typo_allowance

    wanted = wanted[:200]
    typos = process.extract(wanted, index.topics, scorer=OSA.distance, score_cutoff=typo_allowance(wanted), limit=limit)
    alike = process.extract(wanted, index.topics, scorer=fuzz.WRatio, score_cutoff=70, limit=limit)
    return list(dict.fromkeys(str(choice) for choice, _, _ in (*typos, *alike)))[:limit]


def run_list(args: argparse.Namespace) -> int:
    """The entries grouped under their topics, each topic headed by its home entry's title in
    the interface language; read from the index alone, so listing never parses the entries."""
    from advisor.i18n import default_language
    from advisor.terminal import Styler
    from advisor.textnorm import strip_terminal_escapes as clean

    index = _index(args)
    groups = [(topic, [index.meta(entry) for entry in entries]) for topic, entries in index.by_topic(args.lang)]
    if args.json:
        rows = [{"id": m.id, "lang": m.lang, "title": m.title, "summary": m.summary, "topic": m.topic} for _, metas in groups for m in metas]
        print(_dumps(rows))
        return 0
    lang = args.lang or default_language()
    style = Styler.for_stream(sys.stdout)
    width = max((len(m.id) for _, metas in groups for m in metas), default=0)
    out: list[str] = []
    for topic, metas in groups:
        home = index.entry_index(topic, lang)
        title = index.meta(home).title if home is not None else topic
        if out:
            out.append("")
        out.append(style.heading(clean(title)) + "  " + style.dim(f"[{topic}]"))
        out += [f"  {m.id:<{width}}  {m.lang}  {clean(m.title)}" for m in metas]
    print("\n".join(out))
    return 0


COMMAND_LINES = (
    Command(
        "ask",
        run_ask,
        (
            lang_option(),
            Option(("--top",), int, "cli_arg_ask_top", "N"),
            JSON_OPTION,
            Option(("--batch",), str, "cli_arg_ask_batch", "FILE"),
            Option(("--explain",), FLAG, "cli_arg_ask_explain"),
            KB_OPTION,
        ),
        "question",
        "*",
    ),
    Command("show", run_show, (lang_option("cli_arg_lang_entry"), JSON_OPTION, KB_OPTION), "id", "+"),
    Command("list", run_list, (lang_option("cli_arg_lang_list"), Option(("--json",), FLAG, "cli_arg_list_json"), KB_OPTION)),
)

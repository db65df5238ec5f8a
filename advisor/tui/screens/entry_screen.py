"""A knowledge entry full-screen, browsable through its related links, with back."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Header, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from advisor.i18n import t
from advisor.knowledge.body import split_at_section
from advisor.reply import entry_body, related_titles
from advisor.textnorm import strip_terminal_escapes as clean
from advisor.tui.markdown_source import markdown_sources
from advisor.tui.screens.advisor_screen import AdvisorScreen
from advisor.tui.widgets.choice_list import ChoiceList
from advisor.tui.widgets.localized_footer import LocalizedFooter

# Lines of an entry rendered before the screen first paints; the sections after them follow a
# moment later. A Markdown widget per block makes a long entry (200 lines of lists and tables)
# take most of a second to lay out, and the reader sees only its top meanwhile.
FIRST_LINES = 40


class EntryScreen(AdvisorScreen[None]):
    """Reads one entry; choosing a related entry moves to it, Escape walks back then closes.

    Args:
        topic: Entry id to open.
        lang: Preferred language (the entry falls back to another language when missing).
    """

    CSS_PATH = "entry_screen.tcss"
    AUTO_FOCUS = "#entry-body"

    BINDINGS = [
        Binding("escape", "back", "tui_key_back"),
        Binding("backspace", "back", "tui_key_back", show=False),
        Binding("r", "focus_related", "tui_key_related"),
    ]

    def __init__(self, topic: str, lang: str | None) -> None:
        super().__init__()
        self.trail: list[tuple[str, str | None]] = [(topic, lang)]
        self._shown = 0  # how many times an entry was rendered: a late rest of an earlier one is dropped

    @property
    def topic(self) -> str:
        """Id of the entry shown."""
        return self.trail[-1][0]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="entry-trail", markup=False)
        with VerticalScroll(id="entry-body"):
            yield Static("", id="entry-title", markup=False)
            yield Static("", id="entry-meta", markup=False)
            yield Markdown(id="entry-markdown", open_links=False)
            yield Static("", id="entry-sources-label", markup=False)
            yield Markdown(id="entry-sources", open_links=False)
        yield Static("", id="entry-related-label", markup=False)
        yield ChoiceList(id="entry-related")
        yield LocalizedFooter()

    async def on_mount(self) -> None:
        self.watch(self.app, "lang", self._relabel, init=False)
        await self._show()

    def _relabel(self, lang: str) -> None:
        """Only the labels change; the entry keeps its language (no Markdown re-render)."""
        index = self.advisor.index
        topic, wanted = self.trail[-1]
        found = index.entry_index(topic, wanted or lang)
        if found is None:
            return
        meta = index.meta(found)
        self.query_one("#entry-meta", Static).update(f"{t('tui_source', lang)}: {meta.lang}/{meta.id}.md")
        self.query_one("#entry-sources-label", Static).update(t("sources", lang) + ":" if meta.sources else "")
        self.query_one("#entry-related-label", Static).update(t("related", lang) + ":")

    async def _show(self) -> None:
        """Render the entry at the end of the trail."""
        index = self.advisor.index
        lang = self.advisor.lang
        topic, wanted = self.trail[-1]
        found = index.entry_index(topic, wanted or lang)
        if found is None:
            self.notify(t("unknown_id", lang, id=topic), severity="error")
            return
        meta = index.meta(found)
        titles = []
        for step, step_lang in self.trail:
            step_index = index.entry_index(step, step_lang or lang)
            titles.append(index.meta(step_index).title if step_index is not None else step)
        trail = self.query_one("#entry-trail", Static)
        trail.update(clean(" › ".join(titles)))
        trail.display = len(titles) > 1  # a trail of one would only repeat the title
        self.query_one("#entry-title", Static).update(clean(meta.title))
        self.query_one("#entry-meta", Static).update(f"{t('tui_source', lang)}: {meta.lang}/{meta.id}.md")
        head, rest = split_at_section(clean(entry_body(meta)).strip(), FIRST_LINES)
        self._shown += 1
        await self.query_one("#entry-markdown", Markdown).update(head)
        sources_label = self.query_one("#entry-sources-label", Static)
        sources_label.update(t("sources", lang) + ":" if meta.sources else "")
        sources_label.display = False
        await self.query_one("#entry-sources", Markdown).update("")
        self.call_after_refresh(self._show_rest, self._shown, rest, markdown_sources(meta.sources) if meta.sources else "")
        self.query_one("#entry-body", VerticalScroll).scroll_home(animate=False)
        related = related_titles(index, meta)
        label = self.query_one("#entry-related-label", Static)
        label.update(t("related", lang) + ":" if related else "")
        listing = self.query_one("#entry-related", OptionList)
        listing.set_options(Option(f"› {clean(title)}", id=rid) for rid, title in related)
        listing.display = bool(related)
        label.display = bool(related)
        self.sub_title = clean(meta.title)  # the header draws it as it is

    async def _show_rest(self, shown: int, rest: str, sources: str) -> None:
        """The sections after the first screenful, then the sources, unless another entry is on
        screen by now."""
        if shown != self._shown:
            return
        if rest:
            await self.query_one("#entry-markdown", Markdown).append("\n" + rest)
        if sources and shown == self._shown:
            await self.query_one("#entry-sources", Markdown).update(sources)
            self.query_one("#entry-sources-label", Static).display = True

    @on(OptionList.OptionSelected, "#entry-related")
    async def _follow(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            await self.go(event.option.id)

    async def go(self, topic: str) -> None:
        """Move to the related entry `topic` (Escape comes back)."""
        self.trail.append((topic, self.trail[-1][1]))
        await self._show()
        self.query_one("#entry-body").focus()

    @on(Markdown.LinkClicked)
    def _link(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        if event.href.startswith(("http://", "https://")):
            self.app.open_url(event.href)

    async def action_back(self) -> None:
        """Back to the previous entry of the trail, or close the viewer at the first one."""
        if len(self.trail) > 1:
            self.trail.pop()
            await self._show()
        else:
            self.dismiss()

    def action_focus_related(self) -> None:
        related = self.query_one("#entry-related", OptionList)
        if related.display and related.option_count:
            related.focus()
            if related.highlighted is None:
                related.highlighted = 0

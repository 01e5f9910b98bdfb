"""The search area: the query box, live (debounced) search in a worker, the results table, the trace and why-not."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on, work
from textual.timer import Timer
from textual.widgets import DataTable, Input, TabbedContent

from memtui.errors import MemtuiError
from memtui.search.response import Candidate, SearchResponse
from memtui.tui.actions import bound_keys
from memtui.tui.controllers.base import MemtuiBase, while_running
from memtui.tui.explain import no_hits_text, query_explanation
from memtui.tui.history import HISTORY_FILE, QueryHistory
from memtui.tui.keys import keys_display
from memtui.tui.messages import IndexFinished, SearchFailed, SearchFinished
from memtui.tui.screens import PromptModal, TextModal
from memtui.tui.tuning import Tuning, gone_ids, movement_marks
from memtui.tui.widgets import SearchInfo, TracePanel
from memtui.tui.widgets.results import MMR_MARK, moved_by_mmr
from memtui.tui.widgets.search_bar import SearchInput


class SearchController(MemtuiBase):
    """Runs the query as it is typed (one search at a time, stale results dropped) and shows hits and traces."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.response: SearchResponse | None = None
        self.marks: dict[str, str] = {}
        self.generation = 0
        self.searches_run = 0
        self._search_timer: Timer | None = None
        self._vectors: dict[str, list[float] | None] = {}
        self._present_first_hit = bool(self.initial_query.strip())
        self._searched_while_indexing = False
        self._search_running = False
        self._pending_search: tuple[int, bool] | None = None
        self._trace_request: tuple[str | None] | None = None
        self.last_location = ""  # the last path:line typed for why-not, offered again
        self._search_info: Text | str = ""
        self.history = QueryHistory(None if self.manager.env.read_only else self.manager.env.memtui_dir / HISTORY_FILE)

    @property
    def search_pending(self) -> bool:
        """True while a typed query waits for its debounce."""
        return self._search_timer is not None

    # -- running searches ---------------------------------------------------------------------

    @on(Input.Changed, "#query")
    def _query_changed(self, _event: Input.Changed) -> None:
        self.schedule_search(retune=False, delay=self.debounce)

    def action_submit_search(self) -> None:
        """Run the query now (when it is still waiting) and go to the results."""
        if self._search_timer is not None:
            self.schedule_search(retune=False, delay=0)
        self.history.add(self.query_input.value)
        self.focus_now(self.results)

    def action_leave_search(self) -> None:
        """Leave the search box for the results (or the files when there are none); the query stays."""
        self.history.add(self.query_input.value)
        if self.results.row_count:
            self.focus_now(self.results)
        elif self.query_one("#side").display:
            self.focus_now(self.browser)
        else:
            self.focus_now(self.query_one("#trace", TracePanel))

    def action_history(self, direction: int) -> None:
        """Put an earlier (-1) or later (+1) query in the box."""
        query = self.history.step(direction, self.query_input.value)
        if query is not None:
            self.query_input.value = query
            self.query_input.cursor_position = len(query)

    def schedule_search(self, *, retune: bool, delay: float) -> None:
        """(Re)start the debounce timer; the search runs in a worker when it fires."""
        if self._search_timer is not None:
            self._search_timer.stop()
        self.generation += 1
        generation = self.generation
        self._search_timer = self.set_timer(max(0.001, delay), lambda: self._start_search(generation, retune))

    def _start_search(self, generation: int, retune: bool) -> None:
        self._search_timer = None
        if generation != self.generation or not self.is_running:  # a newer search, or the app is closing
            return
        query = self.query_input.value
        if not query.strip():
            self.response = None
            self.marks = {}
            self.results.show([], {}, [])
            self.results.border_subtitle = ""
            self.query_one("#trace", TracePanel).show(None, None, hint=self.idle_hint())
            self.query_one("#search-info", SearchInfo).show("")
            return
        if self.indexing and self._present_first_hit:
            self.query_one("#trace", TracePanel).show(None, None, hint="Indexing the memory files; this search "
                                                      "runs as soon as the index is ready.")
            return
        if self._search_running:
            # One search at a time: a stale one would only hold the store's lock; the newest runs next.
            self._pending_search = (generation, retune)
            return
        self._search_running = True
        self._searched_while_indexing = self._searched_while_indexing or self.indexing
        self._search_worker(query, generation, retune, self.tuning)

    def _search_done(self) -> None:
        """A search worker ended: start the one that waited for it, if it is still current."""
        self._search_running = False
        pending, self._pending_search = self._pending_search, None
        if pending is not None:
            self._start_search(*pending)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, description="Searching")
    def _search_worker(self, query: str, generation: int, retune: bool, tuning: Tuning) -> None:
        try:
            vector = self.query_vector(query)
            response = self.manager.search(query, settings=tuning.apply(self.manager.settings),
                                           profile=tuning.profile, now=self.now, query_vector=vector)
        except Exception as exc:
            self.post_message(SearchFailed(generation, str(exc) or type(exc).__name__))
            return
        self.post_message(SearchFinished(generation, response, retune))

    def query_vector(self, query: str) -> list[float] | None:
        """The query's embedding, computed once per query text (re-ranking while tuning reuses it)."""
        if self.manager.provider is None:
            return None
        if query not in self._vectors:
            self._vectors[query] = self.manager.embed_query(query)
        return self._vectors[query]

    @on(IndexFinished)
    @while_running
    def _rerun_after_index(self, _message: IndexFinished) -> None:
        if self.query_input.value.strip():
            # Results shown while the index was being built are provisional: no movement marks against them.
            self.schedule_search(retune=not self._searched_while_indexing, delay=0)
        self._searched_while_indexing = False

    # -- showing results ----------------------------------------------------------------------

    @on(SearchFinished)
    @while_running
    def _search_finished(self, message: SearchFinished) -> None:
        self._search_done()
        if message.generation != self.generation:
            return
        self.searches_run += 1
        previous = self.response
        response = message.response
        same_query = previous is not None and previous.query == response.query
        old_ids = [c.id for c in previous.results] if previous is not None and same_query and message.retune \
            else None
        self.marks = movement_marks(old_ids, response.results)
        gone = [c for c in (previous.results if previous is not None else []) if c.id in gone_ids(old_ids,
                                                                                                   response.results)]
        self.response = response
        self.results.show(response.results, self.marks, gone, keep_cursor=same_query and message.retune)
        self.results.border_subtitle = (f"{MMR_MARK} placed by MMR, not by score"
                                        if any(moved_by_mmr(c) for c in response.results) else "")
        self._update_search_info(response)
        if not same_query and not self.viewer_focused():
            # A new query's trace (or why it found nothing) replaces a file opened earlier; a re-run of the same
            # query after a sync leaves the file being read.
            self.query_one("#detail", TabbedContent).active = "tab-trace"
        self._show_trace(self.results.highlighted_key())
        if self._present_first_hit and response.results:
            self._present_first_hit = False
            self._present(response.results[0])

    def _present(self, hit: Candidate) -> None:
        """Opening with a query: focus the results (first hit highlighted, its trace shown) and load the hit's
        file at its lines in the File tab."""
        self.focus_now(self.results)
        self.results.move_cursor(row=0, animate=False)
        try:
            abs_path = self.resolve_rel(hit.path)
            self.viewer.open(hit.path, abs_path, root=self.confining_root(hit.path, abs_path),
                             lines=(hit.start_line, hit.end_line))
        except (OSError, MemtuiError):
            return

    @on(SearchFailed)
    @while_running
    def _search_failed(self, message: SearchFailed) -> None:
        self._search_done()
        if message.generation == self.generation:
            self.notify(message.error, title="Search failed", severity="error")

    def _update_search_info(self, response: SearchResponse) -> None:
        info = Text()
        info.append(f" {response.mode}", style="bold")
        if response.relaxed:  # before the counts: on narrow terminals the end of the line is cut
            info.append(" · relaxed", style="yellow")
        info.append(f" · {len(response.results)} of {len(response.candidates)} candidates")
        if response.filtered_count:
            info.append(f" · {response.filtered_count} < minScore", style="dim")
        self._search_info = info
        self.query_one("#search-info", SearchInfo).show(info, typing=self.query_input.has_focus)

    def hit(self, chunk_id: str | None) -> Candidate | None:
        """The candidate with this id in the current response."""
        if chunk_id is None or self.response is None:
            return None
        return next((c for c in self.response.candidates if c.id == chunk_id), None)

    def highlighted_hit(self) -> Candidate | None:
        """The hit under the results cursor."""
        return self.hit(self.results.highlighted_key())

    def _show_trace(self, chunk_id: str | None) -> None:
        """Show the trace of `chunk_id` once the screen has been drawn: new results (or the cursor) reach the
        screen first, the trace in the next frame; several requests in a frame draw it once."""
        first = self._trace_request is None
        self._trace_request = (chunk_id,)
        if first:
            self.call_after_refresh(self._draw_trace)

    def _draw_trace(self) -> None:
        request, self._trace_request = self._trace_request, None
        if request is None:
            return
        chunk_id = request[0]
        trace = self.query_one("#trace", TracePanel)
        if self.response is not None and not self.response.results:
            trace.show(None, None, hint=no_hits_text(self.response))
        else:
            trace.show(self.hit(chunk_id), self.response, hint="Highlight a result to see why it ranks there.",
                       typing=self.query_input.has_focus)

    @on(SearchInput.TypingEnded)
    def _typing_ended(self, _message: SearchInput.TypingEnded) -> None:
        """The search box lost the focus: the info line and the trace fit their content again."""
        if self.response is None:
            return
        self.query_one("#search-info", SearchInfo).show(self._search_info)
        self._show_trace(self.results.highlighted_key())

    def idle_hint(self) -> Text:
        """What the trace pane says before a query: how to start (or, on an empty workspace, what to do)."""
        if self.browser.listed and not self.browser.listing.entries:
            text = Text("No memory files yet.\n\n", style="bold")
            text.append(f"memtui looked in {self.manager.env.workspace_dir} (MEMORY.md and memory/*.md).\n\n"
                        "• memtui demo              explore a sample workspace\n"
                        "• memtui --workspace DIR   open a folder of Markdown notes\n"
                        "• memtui --state-dir DIR --agent ID   an OpenClaw agent\n\n"
                        "n appends a first note to today's log.")
            return text
        search, help_key = (keys_display(bound_keys(action, self.keymap_overrides), first=True)
                            for action in ("search.focus", "app.help"))
        return Text(f"Press {search} and type a query; the results update as you type. {help_key} lists the keys.",
                    style="dim")

    @on(DataTable.RowHighlighted, "#results")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_trace(str(event.row_key.value))
        if self.results.has_focus:
            self.query_one("#detail", TabbedContent).active = "tab-trace"

    @on(DataTable.RowSelected, "#results")
    def _row_selected(self, _event: DataTable.RowSelected) -> None:
        self.action_open_hit()

    # -- actions ------------------------------------------------------------------------------

    def action_focus_search(self) -> None:
        """Focus the query box (at once, so keys typed right after `/` land in it)."""
        self.screen.set_focus(self.query_input)

    def action_open_hit(self) -> None:
        """Open the highlighted hit's file at its lines."""
        hit = self.highlighted_hit()
        if hit is None:
            self.notify("No hit highlighted", severity="warning")
            return
        self.open_file(hit.path, self.resolve_rel(hit.path), lines=(hit.start_line, hit.end_line))
        self.focus_now(self.viewer.text_area)

    def action_explain_query(self) -> None:
        """Show the query-level explanation."""
        if self.response is None:
            self.notify("Type a query first", severity="warning")
            return
        body = query_explanation(self.response)
        copy = json.dumps(self.response.explain(), indent=2, ensure_ascii=False)
        self.push_screen(TextModal(f"Query: {self.response.query}", body, copy_text=copy))

    # -- why not ------------------------------------------------------------------------------

    def action_why_not(self) -> None:
        """Explain the highlighted hit, or the chunk under the viewer's cursor."""
        if self.response is None:
            self.notify("Type a query first; why-not explains a chunk against the current search",
                        severity="warning")
            return
        viewer = self.viewer
        hit = None if self.viewer_focused() else self.highlighted_hit()
        if hit is not None:
            self.explain(hit.id)
        elif viewer.rel is not None:
            self.explain_location(viewer.rel, viewer.cursor_line())
        else:
            self.action_why_not_location()

    def action_why_not_location(self) -> None:
        """Ask for path:line and explain that chunk."""
        if self.response is None:
            self.notify("Type a query first", severity="warning")
            return

        def chosen(value: str | None) -> None:
            from memtui.search.why_not import parse_location

            if not value:
                return
            self.last_location = value.strip()
            try:
                path, line = parse_location(value)
            except MemtuiError as exc:
                self.notify(str(exc), severity="error")
                return
            self.explain_location(path, line)

        self.push_screen(PromptModal("Why not… which chunk?", "memory/2026-04-20.md:12", self.last_location), chosen)

    def explain_location(self, path: str, line: int) -> None:
        """Explain the chunk of `path` covering `line`."""
        from memtui.search.why_not import chunk_at

        try:
            row = chunk_at(self.manager, path, line, self.response)
        except MemtuiError as exc:
            self.notify(str(exc), severity="error")
            return
        self.explain(row.id)

    def explain(self, chunk_id: str) -> None:
        """Open the why-not dialog for a chunk."""
        from memtui.search.why_not import explain_chunk  # loads numpy: not at start-up

        assert self.response is not None
        try:
            why = explain_chunk(self.manager, self.response, chunk_id,
                                settings=self.tuning.apply(self.manager.settings), now=self.now,
                                query_vector=self.query_vector(self.response.query))
        except MemtuiError as exc:
            self.notify(str(exc), severity="error")
            return
        body = Text()
        body.append(f"{why.headline}\n\n", style="bold")
        for reason in why.reasons:
            body.append(f"• {reason}\n")
        body.append(f"\nquery: {self.response.query}  ·  profile {self.response.profile}  ·  "
                    f"minScore {self.response.min_score:.2f}  ·  maxResults {self.response.max_results}",
                    style="dim")
        title = f"Why (not): {why.path}:{why.start_line}-{why.end_line}"
        self.push_screen(TextModal(title, body, copy_text=json.dumps(why.to_json(), indent=2)))

"""MemtuiApp: the main screen (browser, viewer, live search, trace, tuning, status) and its handlers.

Invariant: workers never touch widgets. They post messages (`memtui.tui.messages`); the handlers
here own all UI state.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, date, datetime
from pathlib import Path

import pyperclip
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Input, Static, TabbedContent, TabPane, TextArea, Tree
from textual.widgets.text_area import Selection
from textual.worker import get_current_worker

from memtui.atomic import ConflictError
from memtui.errors import MemtuiError
from memtui.index.events import IndexEvent
from memtui.manager import MemoryManager
from memtui.search.engine import Candidate, SearchResponse
from memtui.search.why_not import chunk_at, explain_chunk, parse_location
from memtui.tools import format_citation
from memtui.tui.actions import ACTIONS, bindings
from memtui.tui.commands import MemtuiCommands
from memtui.tui.curation import append_note, daily_log_path, promote_lines, save_memory_file
from memtui.tui.messages import (
    FilesChanged,
    IndexFailed,
    IndexFinished,
    IndexProgress,
    IndexStarted,
    SearchFailed,
    SearchFinished,
)
from memtui.tui.screens import ChoiceModal, ErrorModal, HelpScreen, PromptModal, TextModal
from memtui.tui.tuning import Tuning, gone_ids, movement_marks
from memtui.tui.widgets import (
    BrowserEntry,
    FileViewer,
    FilterInput,
    IndexStatusBar,
    MemoryBrowser,
    ResultsTable,
    TracePanel,
    TuningPanel,
)

TUI_SYNC_REASON = "tui"
SCREEN_INDEPENDENT = frozenset({"help", "quit"})
MAIN_SCREEN_ACTIONS = frozenset(a.action for a in ACTIONS) - SCREEN_INDEPENDENT
EDITOR_ACTIONS = frozenset({"save", "leave_edit"})


class MemtuiApp(App[int]):
    """See, search, tune and curate one agent's memory."""

    CSS_PATH = "app.tcss"
    TITLE = "memtui"
    COMMANDS = App.COMMANDS | {MemtuiCommands}
    BINDINGS = bindings()

    def __init__(self, manager: MemoryManager, *, now: datetime | None = None, keymap: dict[str, str] | None = None,
                 debounce: float = 0.2, system_clipboard: bool = True, initial_query: str = "",
                 auto_index: bool = True, screenshot_path: Path | None = None,
                 provider_note: str | None = None) -> None:
        super().__init__()
        self.manager = manager
        self.fixed_now = now
        self.keymap_overrides = dict(keymap or {})
        self.debounce = debounce
        self.system_clipboard = system_clipboard
        self.initial_query = initial_query
        self.auto_index = auto_index
        self.screenshot_path = screenshot_path
        self.provider_note = provider_note
        self.configured_tuning = Tuning.from_settings(manager.settings, manager.env.profile)
        self.tuning = self.configured_tuning
        self.response: SearchResponse | None = None
        self.marks: dict[str, str] = {}
        self.generation = 0
        self.searches_run = 0
        self.indexing = False
        self._search_timer: Timer | None = None
        self._vectors: dict[str, list[float] | None] = {}
        self._unsubscribe = None
        self._present_first_hit = bool(initial_query.strip())
        self._searched_while_indexing = False
        self._quiet_sync = False
        self._search_running = False
        self._pending_search: tuple[int, bool] | None = None
        self._idle_ticks = 0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Main-screen actions are off (and out of the footer) while another screen is on top."""
        if action in SCREEN_INDEPENDENT:
            return True
        if self.screen is not self.screen_stack[0]:
            return action not in MAIN_SCREEN_ACTIONS
        if action in EDITOR_ACTIONS:
            return self.viewer.editing
        return True

    # -- time ---------------------------------------------------------------------------------

    @property
    def now(self) -> datetime:
        """The frozen time under test, else the wall clock (UTC)."""
        return self.fixed_now or datetime.now(UTC)

    @property
    def today(self) -> date:
        """Today's date (local to `now`)."""
        return self.now.date()

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Search row, browser | results + detail | tuning, status bar, footer."""
        with Horizontal(id="search-row"):
            yield Input(placeholder="Search memory…  (/ to focus, Enter to jump to the results)", id="query")
            yield Static("", id="search-info")
        with Horizontal(id="body"):
            with Vertical(id="side"):
                yield FilterInput(placeholder="filter files", id="browser-filter")
                yield MemoryBrowser(id="browser")
            with Vertical(id="center"):
                yield ResultsTable(id="results")
                with TabbedContent(id="detail", initial="tab-trace"):
                    with TabPane("Trace", id="tab-trace"):
                        yield TracePanel(id="trace")
                    with TabPane("File", id="tab-file"):
                        yield FileViewer(id="viewer")
        yield IndexStatusBar(id="status-bar")
        yield Footer()

    @property
    def browser(self) -> MemoryBrowser:
        """The memory browser."""
        return self.query_one("#browser", MemoryBrowser)

    @property
    def results(self) -> ResultsTable:
        """The results table."""
        return self.query_one("#results", ResultsTable)

    @property
    def viewer(self) -> FileViewer:
        """The file viewer."""
        return self.query_one("#viewer", FileViewer)

    @property
    def query_input(self) -> Input:
        """The search box."""
        return self.query_one("#query", Input)

    def on_mount(self) -> None:
        """Apply the keymap, fill the browser and status, start indexing when needed."""
        if self.keymap_overrides:
            self.set_keymap(self.keymap_overrides)
        self.query_one("#search-row", Horizontal).border_title = "Search"
        self.refresh_browser()
        self.refresh_status()
        self._unsubscribe = self.manager.subscribe(self._relay_index_event)
        needs_index = self.manager.dirty or self.manager.store.read_meta() is None
        if self.auto_index and needs_index and not self.manager.env.read_only:
            self._quiet_sync = True
            self.run_sync(force=False)
        self.query_input.focus()
        if self.initial_query:
            self.query_input.value = self.initial_query
        if self.screenshot_path is not None:
            self.set_interval(0.1, self._screenshot_when_idle)

    def on_unmount(self) -> None:
        """Stop listening to the engine."""
        if self._unsubscribe is not None:
            self._unsubscribe()

    def refresh_browser(self) -> None:
        """Re-list the memory files."""
        env = self.manager.env
        self.browser.populate(env.workspace_dir, self.manager.settings.extra_paths, env.sessions_dir, self.today)

    def refresh_status(self) -> None:
        """Redraw the status bar from `MemoryManager.status()`."""
        status = self.manager.status()
        status["profile"] = self.tuning.profile
        self.query_one("#status-bar", IndexStatusBar).show_status(status, self.provider_note)

    # -- engine events ------------------------------------------------------------------------

    def _relay_index_event(self, event: IndexEvent) -> None:
        """Called from any thread: turn engine events into messages."""
        if event.kind == "started":
            self.post_message(IndexStarted(event.reason))
        elif event.kind == "progress" and event.progress is not None:
            self.post_message(IndexProgress(event.progress))
        elif event.kind == "finished" and event.report is not None:
            self.post_message(IndexFinished(event.report))
        elif event.kind == "failed" and event.reason != TUI_SYNC_REASON:
            self.post_message(IndexFailed(event.error or "unknown error"))
        elif event.kind == "file-changed":
            self.post_message(FilesChanged(tuple(event.paths)))

    def run_sync(self, *, force: bool) -> None:
        """Start (or restart) the indexing worker."""
        self.indexing = True
        self.query_one("#status-bar", IndexStatusBar).start()
        self._sync_worker(force)

    @work(thread=True, exclusive=True, group="indexer", exit_on_error=False, description="Indexing memory")
    def _sync_worker(self, force: bool) -> None:
        worker = get_current_worker()
        try:
            self.manager.sync(force=force, reason=TUI_SYNC_REASON, should_stop=lambda: worker.is_cancelled)
        except Exception as exc:
            self.post_message(IndexFailed(str(exc) or type(exc).__name__))

    @on(IndexStarted)
    def _index_started(self, _message: IndexStarted) -> None:
        self.indexing = True
        self.query_one("#status-bar", IndexStatusBar).start()

    @on(IndexProgress)
    def _index_progress(self, message: IndexProgress) -> None:
        self.query_one("#status-bar", IndexStatusBar).show_progress(message.progress)

    @on(IndexFinished)
    def _index_finished(self, message: IndexFinished) -> None:
        self.indexing = False
        self.query_one("#status-bar", IndexStatusBar).stop()
        self.refresh_status()
        self.refresh_browser()
        report = message.report
        if (report.files_changed or report.files_deleted) and not self._quiet_sync:
            self.notify(f"Indexed {report.files_changed} changed file(s), {report.chunks_written} chunk(s)",
                        title="Index")
        self._quiet_sync = False
        if self.query_input.value.strip():
            # Results shown while the index was being built are provisional: no movement marks against them.
            self.schedule_search(retune=not self._searched_while_indexing, delay=0)
        self._searched_while_indexing = False

    @on(IndexFailed)
    def _index_failed(self, message: IndexFailed) -> None:
        self.indexing = False
        self.query_one("#status-bar", IndexStatusBar).stop()
        self.refresh_status()
        self.push_screen(ErrorModal("Indexing failed", message.error))

    @on(FilesChanged)
    def _files_changed(self, message: FilesChanged) -> None:
        self.refresh_browser()
        viewer = self.viewer
        if viewer.rel is not None and viewer.rel in message.paths:
            if viewer.dirty:
                self.notify(f"{viewer.rel} changed on disk; you have unsaved edits (saving will ask)",
                            severity="warning")
            else:
                viewer.reload()
                self.notify(f"Reloaded {viewer.rel}")
        if self.query_input.value.strip():
            self.schedule_search(retune=True, delay=0)

    # -- search -------------------------------------------------------------------------------

    @on(Input.Changed, "#query")
    def _query_changed(self, _event: Input.Changed) -> None:
        self.schedule_search(retune=False, delay=self.debounce)

    @on(Input.Changed, "#browser-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.browser.set_filter(event.value)
        self.browser.border_subtitle = f"{self.browser.shown} match" if event.value.strip() else ""

    @on(Input.Submitted, "#browser-filter")
    def _filter_submitted(self, _event: Input.Submitted) -> None:
        entries = self.browser.entries()
        if entries:
            self.browser.move_cursor(self.browser.find(entries[0].rel))
        self.browser.focus()

    def action_filter_files(self) -> None:
        """Show and focus the file filter above the browser (escape clears and hides it)."""
        box = self.query_one("#browser-filter", Input)
        box.display = True
        box.focus()

    def action_clear_file_filter(self) -> None:
        """Clear and hide the file filter and go back to the full file list."""
        box = self.query_one("#browser-filter", Input)
        box.value = ""
        box.display = False
        self.browser.set_filter("")
        self.browser.border_subtitle = ""
        self.browser.focus()

    @on(Input.Submitted, "#query")
    def _query_submitted(self, _event: Input.Submitted) -> None:
        if self._search_timer is not None:
            self.schedule_search(retune=False, delay=0)
        self.results.focus()

    def schedule_search(self, *, retune: bool, delay: float) -> None:
        """(Re)start the debounce timer; the search runs in a worker when it fires."""
        if self._search_timer is not None:
            self._search_timer.stop()
        self.generation += 1
        generation = self.generation
        self._search_timer = self.set_timer(max(0.001, delay), lambda: self._start_search(generation, retune))

    def _start_search(self, generation: int, retune: bool) -> None:
        self._search_timer = None
        if generation != self.generation:
            return
        query = self.query_input.value
        if not query.strip():
            self.response = None
            self.marks = {}
            self.results.show([], {}, [])
            self.query_one("#trace", TracePanel).show(None, None)
            self.query_one("#search-info", Static).update("", layout=False)
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

    @on(SearchFinished)
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
        self._update_search_info(response)
        self._show_trace(self.results.highlighted_key())
        if self._present_first_hit and response.results:
            self._present_first_hit = False
            self._present(response.results[0])

    def _present(self, hit: Candidate) -> None:
        """Opening with a query: focus the results (first hit highlighted, its trace shown) and load the hit's
        file at its lines in the File tab."""
        self.results.focus()
        self.results.move_cursor(row=0, animate=False)
        try:
            self.viewer.open(hit.path, self.resolve_rel(hit.path), lines=(hit.start_line, hit.end_line))
        except (OSError, MemtuiError):
            return

    @on(SearchFailed)
    def _search_failed(self, message: SearchFailed) -> None:
        self._search_done()
        if message.generation == self.generation:
            self.notify(message.error, title="Search failed", severity="error")

    def _update_search_info(self, response: SearchResponse) -> None:
        info = Text()
        info.append(f" {response.mode}", style="bold")
        info.append(f" · {len(response.candidates)} cand. · {len(response.results)} shown")
        if response.relaxed:
            info.append(" · relaxed", style="yellow")
        if response.filtered_count:
            info.append(f" · {response.filtered_count} < minScore", style="dim")
        self.query_one("#search-info", Static).update(info, layout=False)

    def hit(self, chunk_id: str | None) -> Candidate | None:
        """The candidate with this id in the current response."""
        if chunk_id is None or self.response is None:
            return None
        return next((c for c in self.response.candidates if c.id == chunk_id), None)

    def highlighted_hit(self) -> Candidate | None:
        """The hit under the results cursor."""
        return self.hit(self.results.highlighted_key())

    def _show_trace(self, chunk_id: str | None) -> None:
        self.query_one("#trace", TracePanel).show(self.hit(chunk_id), self.response)

    @on(DataTable.RowHighlighted, "#results")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_trace(str(event.row_key.value))
        if self.results.has_focus:
            self.query_one("#detail", TabbedContent).active = "tab-trace"

    @on(DataTable.RowSelected, "#results")
    def _row_selected(self, _event: DataTable.RowSelected) -> None:
        self.action_open_hit()

    # -- browsing -----------------------------------------------------------------------------

    @on(Tree.NodeSelected, "#browser")
    def _node_selected(self, event: Tree.NodeSelected[BrowserEntry]) -> None:
        entry = event.node.data
        if entry is not None:
            self.open_file(entry.rel, entry.abs_path)

    def open_file(self, rel: str, abs_path: Path, lines: tuple[int, int] | None = None) -> None:
        """Show a file in the viewer (raw with `lines` selected when given)."""
        viewer = self.viewer
        if viewer.dirty and viewer.rel != rel:
            self.notify(f"{viewer.rel} has unsaved edits; save (ctrl+s) or leave the editor (escape) first",
                        severity="warning")
            return
        try:
            viewer.open(rel, abs_path, lines=lines)
        except (OSError, MemtuiError) as exc:
            self.push_screen(ErrorModal(f"Cannot open {rel}", str(exc)))
            return
        self.query_one("#detail", TabbedContent).active = "tab-file"

    def resolve_rel(self, rel: str) -> Path:
        """Absolute path of a workspace-relative memory path."""
        return Path(os.path.normpath(self.manager.env.workspace_dir / rel)) if not rel.startswith("/") else Path(rel)

    # -- actions: view ------------------------------------------------------------------------

    def action_focus_search(self) -> None:
        """Focus the query box."""
        self.query_input.focus()

    def action_open_hit(self) -> None:
        """Open the highlighted hit's file at its lines."""
        hit = self.highlighted_hit()
        if hit is None:
            self.notify("No hit highlighted", severity="warning")
            return
        self.open_file(hit.path, self.resolve_rel(hit.path), lines=(hit.start_line, hit.end_line))
        self.viewer.text_area.focus()

    def action_toggle_view(self) -> None:
        """Rendered ↔ raw."""
        viewer = self.viewer
        if viewer.rel is None or viewer.editing:
            return
        viewer.set_mode("raw" if viewer.mode == "rendered" else "rendered")
        self.query_one("#detail", TabbedContent).active = "tab-file"

    def action_explain_query(self) -> None:
        """Show the query-level explanation."""
        if self.response is None:
            self.notify("Type a query first", severity="warning")
            return
        body = json.dumps(self.response.explain(), indent=2, ensure_ascii=False)
        self.push_screen(TextModal(f"Query: {self.response.query}", body))

    def action_index_status(self) -> None:
        """Show every status field."""
        body = json.dumps(self.manager.status(), indent=2, ensure_ascii=False, default=str)
        self.push_screen(TextModal("Index status", body))

    def action_help(self) -> None:
        """Open the help screen."""
        rows = [(self.keymap_overrides.get(a.id, a.keys), a.id, a.title) for a in ACTIONS]
        self.push_screen(HelpScreen(rows))

    # -- actions: tuning ----------------------------------------------------------------------

    def action_toggle_tuning(self) -> None:
        """Show or hide the tuning panel."""
        body = self.query_one("#body", Horizontal)
        panels = self.query("#tuning").results(TuningPanel)
        panel = next(panels, None)
        if panel is None:
            # Built on first use: it is the costliest widget, and most sessions never open it.
            panel = TuningPanel(self.tuning, id="tuning")
            body.mount(panel)
        else:
            panel.display = not panel.display
        body.set_class(panel.display, "-tuning")
        if panel.display:
            self.call_after_refresh(lambda: panel.query_one("#tune-vector", Input).focus())

    @on(TuningPanel.Changed)
    def _tuning_changed(self, message: TuningPanel.Changed) -> None:
        self.set_tuning(message.tuning)

    def set_tuning(self, tuning: Tuning) -> None:
        """Use new knobs and re-rank the current query."""
        self.tuning = tuning
        self.refresh_status()
        if self.query_input.value.strip():
            self.schedule_search(retune=True, delay=self.debounce)

    def action_reset_tuning(self) -> None:
        """Back to the configured values."""
        panel = next(self.query("#tuning").results(TuningPanel), None)
        if panel is not None:
            shown = panel.display
            panel.remove()
            fresh = TuningPanel(self.configured_tuning, id="tuning")
            self.query_one("#body", Horizontal).mount(fresh)
            fresh.display = shown
        self.set_tuning(self.configured_tuning)
        self.notify("Tuning reset to the configured values")

    def action_copy_tuning(self) -> None:
        """Copy the JSON5 snippet for openclaw.json."""
        self.copy_text(self.tuning.json5_snippet(self.manager.settings), "JSON5 config snippet")

    # -- actions: why not ---------------------------------------------------------------------

    def action_why_not(self) -> None:
        """Explain the highlighted hit, or the chunk under the viewer's cursor."""
        if self.response is None:
            self.notify("Type a query first; why-not explains a chunk against the current search",
                        severity="warning")
            return
        viewer = self.viewer
        viewer_focused = self.focused is not None and viewer in self.focused.ancestors_with_self
        hit = None if viewer_focused else self.highlighted_hit()
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
            if not value:
                return
            try:
                path, line = parse_location(value)
            except MemtuiError as exc:
                self.notify(str(exc), severity="error")
                return
            self.explain_location(path, line)

        self.push_screen(PromptModal("Why not… which chunk?", "memory/2026-04-20.md:12"), chosen)

    def explain_location(self, path: str, line: int) -> None:
        """Explain the chunk of `path` covering `line`."""
        try:
            row = chunk_at(self.manager, path, line)
        except MemtuiError as exc:
            self.notify(str(exc), severity="error")
            return
        self.explain(row.id)

    def explain(self, chunk_id: str) -> None:
        """Open the why-not dialog for a chunk."""
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

    # -- actions: curation --------------------------------------------------------------------

    def action_edit(self) -> None:
        """Open the editor on the viewed file."""
        viewer = self.viewer
        if viewer.rel is None or viewer.abs_path is None:
            self.notify("Open a file first (browser, or Enter on a hit)", severity="warning")
            return
        if viewer.rel.endswith(".jsonl"):
            self.notify("Session transcripts are read-only here", severity="warning")
            return
        viewer.set_mode("edit")
        area = viewer.text_area
        area.selection = Selection.cursor(area.cursor_location)  # the first key must not replace a hit's lines
        self.query_one("#detail", TabbedContent).active = "tab-file"
        area.focus()

    @on(TextArea.Changed, "#viewer-text")
    def _text_changed(self, _event: TextArea.Changed) -> None:
        self.viewer.refresh_title()

    def action_save(self) -> None:
        """Save the editor atomically; on a conflict, ask."""
        viewer = self.viewer
        if not viewer.editing or viewer.abs_path is None:
            self.notify("Nothing to save (press e to edit)", severity="warning")
            return
        self._write(expected=viewer.digest)

    def _write(self, *, expected: str | bool | None) -> None:
        viewer = self.viewer
        assert viewer.abs_path is not None
        try:
            digest = save_memory_file(self.manager.env.workspace_dir, viewer.rel or "", viewer.text_area.text,
                                      expected_digest=expected, extra_paths=self.manager.settings.extra_paths)
        except ConflictError:
            self.push_screen(ChoiceModal(
                "File changed on disk",
                f"{viewer.rel} changed on disk since you opened it. Overwrite it with your edits, reload it "
                "(losing your edits), or keep editing?",
                [("overwrite", "Overwrite"), ("reload", "Reload from disk"), ("cancel", "Keep editing")]),
                self._conflict_choice)
            return
        except (MemtuiError, OSError) as exc:
            self.push_screen(ErrorModal(f"Cannot save {viewer.rel}", str(exc)))
            return
        viewer.mark_saved(digest)
        self.notify(f"Saved {viewer.rel}")
        self._after_write()

    def _conflict_choice(self, choice: str | None) -> None:
        if choice == "overwrite":
            self._write(expected=False)
        elif choice == "reload":
            self.viewer.reload()
            self.notify(f"Reloaded {self.viewer.rel} from disk")

    def _after_write(self) -> None:
        if not self.manager.env.read_only:
            self.run_sync(force=False)

    def action_leave_edit(self) -> None:
        """Leave the editor, asking before discarding edits."""
        viewer = self.viewer
        if not viewer.editing:
            return
        if not viewer.dirty:
            viewer.set_mode("raw")
            return

        def chosen(choice: str | None) -> None:
            if choice == "discard":
                viewer.reload()
            elif choice == "save":
                self.action_save()

        self.push_screen(ChoiceModal("Unsaved edits", f"{viewer.rel} has unsaved edits.",
                                     [("save", "Save"), ("discard", "Discard"), ("cancel", "Keep editing")]),
                         chosen)

    def _selection_or_hit(self) -> tuple[str, int, int, str, float] | None:
        viewer = self.viewer
        viewer_focused = self.focused is not None and viewer in self.focused.ancestors_with_self
        selected = viewer.selected_lines() if viewer_focused else None
        if selected is not None and viewer.rel is not None:
            start, end, text = selected
            return viewer.rel, start, end, text, 0.0
        hit = self.highlighted_hit()
        if hit is not None:
            return hit.path, hit.start_line, hit.end_line, hit.snippet, hit.score
        return None

    def action_promote(self) -> None:
        """Promote the selected lines or the highlighted hit into MEMORY.md."""
        if self.manager.env.read_only:
            self.notify("Read-only: promotion is disabled", severity="warning")
            return
        chosen = self._selection_or_hit()
        if chosen is None:
            self.notify("Select lines in the viewer or highlight a hit to promote", severity="warning")
            return
        path, start, end, text, score = chosen
        if path == "MEMORY.md":
            self.notify("That is already MEMORY.md", severity="warning")
            return

        def decided(choice: str | None) -> None:
            if choice == "promote":
                self._promote(path, start, end, text, score)

        preview = text if len(text) <= 400 else text[:400] + "…"
        self.push_screen(ChoiceModal("Promote into MEMORY.md?", f"{path}:{start}-{end}\n\n{preview}",
                                     [("promote", "Promote"), ("cancel", "Cancel")]), decided)

    def _promote(self, path: str, start: int, end: int, text: str, score: float) -> None:
        try:
            outcome = promote_lines(self.manager.env.workspace_dir, path=path, start_line=start, end_line=end,
                                    text=text, day=self.today, score=score)
        except (MemtuiError, OSError) as exc:
            self.push_screen(ErrorModal("Promotion failed", str(exc)))
            return
        if outcome.appended:
            self.notify(f"Promoted {path}:{start}-{end} into MEMORY.md")
            if self.viewer.rel == "MEMORY.md" and not self.viewer.dirty:
                self.viewer.reload()
            self._after_write()
        else:
            self.notify(f"{path}:{start}-{end} is already in MEMORY.md (marker present)")

    def action_append_note(self) -> None:
        """Ask for a note and append it to today's log."""
        if self.manager.env.read_only:
            self.notify("Read-only: notes are disabled", severity="warning")
            return

        def chosen(value: str | None) -> None:
            if not value or not value.strip():
                return
            try:
                path = append_note(self.manager.env.workspace_dir, self.today, value)
            except (MemtuiError, OSError) as exc:
                self.push_screen(ErrorModal("Cannot append the note", str(exc)))
                return
            rel = f"memory/{path.name}"
            self.notify(f"Appended to {rel}")
            if self.viewer.rel == rel and not self.viewer.dirty:
                self.viewer.reload()
            self.refresh_browser()
            self._after_write()

        target = daily_log_path(self.manager.env.workspace_dir, self.today).name
        self.push_screen(PromptModal(f"Note for memory/{target}", "what should the agent remember?"), chosen)

    # -- actions: copy ------------------------------------------------------------------------

    def copy_text(self, text: str, what: str) -> None:
        """Copy to the system clipboard (pyperclip) or, without one, the terminal's (OSC 52); toast either way."""
        self.copy_to_clipboard(text)
        where = "terminal clipboard (OSC 52)"
        if self.system_clipboard:
            try:
                pyperclip.copy(text)
                where = "system clipboard"
            except pyperclip.PyperclipException:
                pass
        self.notify(f"Copied {what} to the {where}")

    def action_copy_snippet(self) -> None:
        """Copy the hit's snippet or the selected lines."""
        chosen = self._selection_or_hit()
        if chosen is None:
            self.notify("Nothing to copy: highlight a hit or select lines", severity="warning")
            return
        self.copy_text(chosen[3], "snippet")

    def action_copy_citation(self) -> None:
        """Copy `path#Lstart-Lend`."""
        chosen = self._selection_or_hit()
        if chosen is None:
            self.notify("Nothing to copy: highlight a hit or select lines", severity="warning")
            return
        self.copy_text(format_citation(chosen[0], chosen[1], chosen[2]), "citation")

    def action_copy_path(self) -> None:
        """Copy the path of the hit or the open file."""
        chosen = self._selection_or_hit()
        path = chosen[0] if chosen is not None else self.viewer.rel
        if path is None:
            self.notify("Nothing to copy", severity="warning")
            return
        self.copy_text(path, "path")

    # -- actions: index and screens -----------------------------------------------------------

    def action_sync(self) -> None:
        """Incremental re-index."""
        if self.manager.env.read_only:
            self.notify("Read-only index: sync is disabled", severity="warning")
            return
        self.run_sync(force=False)

    def action_rebuild(self) -> None:
        """Full rebuild."""
        if self.manager.env.read_only:
            self.notify("Read-only index: rebuild is disabled", severity="warning")
            return
        self.run_sync(force=True)

    def action_sessions(self) -> None:
        """Open the sessions screen (when the session engine is installed)."""
        try:
            from memtui.tui.screens.sessions import SessionsScreen
        except ImportError as exc:
            self.notify(f"Sessions view unavailable: {exc}", severity="warning")
            return
        self.push_screen(SessionsScreen(self.manager.env, now=self.now))

    def action_dreams(self) -> None:
        """Open the dreams view (when the dreaming engine is installed)."""
        try:
            from memtui.tui.screens.dreams import DreamsScreen
        except ImportError as exc:
            self.notify(f"Dreams view unavailable: {exc}", severity="warning")
            return
        self.push_screen(DreamsScreen(self.manager.env.workspace_dir, now=self.now))

    # -- screenshot ---------------------------------------------------------------------------

    def _screenshot_when_idle(self) -> None:
        busy = any(w.is_running or w.state.name == "PENDING" for w in self.workers)
        if busy or self._search_timer is not None or self.screenshot_path is None:
            self._idle_ticks = 0
            return
        self._idle_ticks += 1
        if self._idle_ticks < 12:  # 1.2 s idle: the footer, rebuilt on focus changes, paints late headless
            return
        path = self.screenshot_path
        self.screenshot_path = None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.export_screenshot(), encoding="utf-8")
        self.exit(0)

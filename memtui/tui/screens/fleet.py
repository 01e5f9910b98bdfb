"""The fleet view (PostgreSQL store): every (agent, workspace) index in the database, as `memtui status --fleet`
lists them, a search over every agent at once (`memtui search --fleet`), and any agent's memory opened read-only:
from this host's disk when its workspace is here, else the chunks' text as the database holds them.

Workers read the database (one connection, one statement at a time) and post messages; only handlers touch
widgets."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from memtui.index.fleet import FleetReader, StoredChunk
from memtui.manager import MemoryManager
from memtui.search.fleet import FleetHit, FleetResponse, fleet_search
from memtui.settings.agent import AgentEnv
from memtui.tui.widgets.fleet_text import FleetText

SEARCH_LIMIT = 30
MAX_FILE_BYTES = 2_000_000  # a local file larger than this is shown from the database


def is_local(workspace: str) -> bool:
    """Whether an index's workspace folder is on this host (its files can be read from the disk)."""
    try:
        return Path(workspace).is_dir()
    except OSError:
        return False


def short_time(iso: str | None) -> str:
    """`2026-04-29T15:00:00Z` → `2026-04-29 15:00Z`; `-` for never."""
    return f"{iso[:10]} {iso[11:16]}Z" if iso else "-"


class FleetRead(Message):
    """Something a worker read from the database for a screen (`error` when it failed)."""

    def __init__(self, kind: str, data: Any, error: str | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.data = data
        self.error = error


def plural(count: int, word: str, many: str = "") -> str:
    """`1 hit`, `2 hits` (`many`: the plural when it is not `word` + s)."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def _error(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


# What a fleet screen is dismissed with: a file of this app's own agent to open in the viewer (at lines, for a
# hit), or None.
Opened = tuple[str, tuple[int, int] | None] | None


class _FleetBase(Screen[Opened]):
    """What both fleet screens share: the database, the text pane, j/k, escape backing out step by step."""

    db: FleetReader
    env: AgentEnv

    def table(self) -> DataTable[Any]:
        """The table the cursor keys move in."""
        raise NotImplementedError

    def text_pane(self) -> FleetText:
        """The read-only text pane."""
        return self.query_one(FleetText)

    def action_cursor(self, direction: str) -> None:
        """Move the row cursor (j/k), or scroll the text pane when it has the focus."""
        pane = self.text_pane()
        if pane.has_focus:
            pane.scroll_relative(y=1 if direction == "down" else -1, animate=False)
        elif direction == "down":
            self.table().action_cursor_down()
        else:
            self.table().action_cursor_up()

    def action_close(self) -> None:
        """Back to the main screen."""
        self.dismiss(None)

    def _read(self, kind: str, query: Callable[[], Any]) -> None:
        """Run `query` (it reads the database) in a worker of group `kind`; its result arrives as a FleetRead."""
        def run() -> None:
            try:
                data = query()
            except Exception as exc:
                self.post_message(FleetRead(kind, None, _error(exc)))
                return
            self.post_message(FleetRead(kind, data))

        self.run_worker(run, thread=True, exclusive=True, group=kind, exit_on_error=False,
                        description=f"Reading the fleet ({kind})")

    def _show_file(self, agent: str, workspace: str, path: str, hit: FleetHit | None = None) -> None:
        """Show a file of any agent in the text pane, from the disk when its workspace is here and no hit is to
        be shown, else its chunks from the database."""
        local = None if hit else Path(workspace) / path
        self.text_pane().display = True
        self.text_pane().border_title = Text(f"Reading {agent} · {path}…")

        def query() -> tuple[str, str, Any, FleetHit | None]:
            if local is not None and is_local(workspace) and local.is_file() and \
                    local.stat().st_size <= MAX_FILE_BYTES:
                return agent, path, local.read_text(encoding="utf-8", errors="replace"), None
            return agent, path, self.db.chunks(agent, workspace, path), hit
        self._read("text", query)

    def _shown_file(self, message: FleetRead) -> None:
        pane = self.text_pane()
        if message.error:
            pane.border_title = Text(f"Cannot read the file: {message.error}")
            return
        agent, path, content, hit = message.data
        if isinstance(content, str):
            pane.show_text(f"{agent} · {path} · from this host's disk · read-only", content)
        else:
            chunks: list[StoredChunk] = content
            where = f"{path}:{hit.start_line}-{hit.end_line}" if hit else path
            found = pane.show_chunks(f"{agent} · {where} · chunk text from the database · read-only", chunks,
                                     hit.chunk_id if hit else None)
            if not found and hit is not None:  # rebuilt since the search: the hit's own text
                pane.show_chunks(f"{agent} · {where} · the hit's text (the file was indexed again since)",
                                 [StoredChunk(hit.chunk_id, hit.start_line, hit.end_line, hit.text)], hit.chunk_id)
        pane.focus()


class FleetScreen(_FleetBase):
    """Every agent's index in the database and a search over all of them (dismissed with `Opened`)."""

    DEFAULT_CSS = """
    FleetScreen #fleet-summary { height: auto; padding: 0 1; }
    FleetScreen #fleet-query { margin: 0 1; }
    FleetScreen DataTable { height: 2fr; }
    FleetScreen #fleet-hits { display: none; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="fleet.back", tooltip="Close the text, the hits, then the screen."),
        Binding("q", "close", "Close", id="fleet.close"),
        Binding("slash", "focus_query", "search all", id="fleet.search", tooltip="Search every agent at once."),
        Binding("enter", "open_row", "open", id="fleet.open",
                tooltip="An agent: its memory (read-only when it lives on another host); a hit: its chunk text."),
        Binding("o", "open_in_viewer", "viewer", id="fleet.viewer",
                tooltip="A hit of this app's own agent: its file in the viewer, at the hit's lines."),
        Binding("l", "show_agents", "agents", id="fleet.agents", tooltip="The list of agents again."),
        Binding("r", "reload", "reload", id="fleet.reload", tooltip="Read the list of agents again."),
        Binding("j", "cursor('down')", "Down", show=False),
        Binding("k", "cursor('up')", "Up", show=False),
    ]

    def __init__(self, manager: MemoryManager) -> None:
        super().__init__()
        self.manager = manager
        self.env = manager.env
        self.db = FleetReader(self.env.settings.store.url or "")
        self.indexes: list[dict[str, Any]] = []
        self.hits: list[FleetHit] = []
        self.query_text = ""

    def compose(self) -> ComposeResult:
        yield Static(f"Reading the fleet in {self.db.server}…", id="fleet-summary")
        yield Input(placeholder="Search every agent…  (Enter searches, Esc leaves, / comes back)", id="fleet-query")
        agents: DataTable[Text | str] = DataTable(id="fleet-indexes", cursor_type="row", zebra_stripes=True)
        agents.add_columns("agent", "where", "files", "chunks", "gen", "last write", "by host", "provider/model",
                           "workspace")
        yield agents
        hits: DataTable[Text | str] = DataTable(id="fleet-hits", cursor_type="row", zebra_stripes=True)
        hits.add_columns("score", "agent", "where", "snippet")
        yield hits
        yield FleetText(id="fleet-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#fleet-indexes", DataTable).focus()
        self.action_reload()

    def on_unmount(self) -> None:
        threading.Thread(target=self.db.close, daemon=True, name="memtui-fleet-close").start()

    def table(self) -> DataTable[Any]:
        """The hits while they are shown, else the agents."""
        hits = self.query_one("#fleet-hits", DataTable)
        return hits if hits.display else self.query_one("#fleet-indexes", DataTable)

    def action_reload(self) -> None:
        """Read every index of the database again."""
        def query() -> list[dict[str, Any]]:
            return [{**entry, "local": is_local(entry["workspace"])} for entry in self.db.indexes()]
        self._read("indexes", query)

    @on(FleetRead)
    def _arrived(self, message: FleetRead) -> None:
        if message.kind == "indexes":
            self._listed(message)
        elif message.kind == "search":
            self._found(message)
        else:
            self._shown_file(message)

    def _summary(self) -> Text:
        here = sum(1 for entry in self.indexes if entry["local"])
        chunks = sum(entry["chunks"] for entry in self.indexes)
        return Text(f"Fleet: {plural(len(self.indexes), 'index', 'indexes')}, {chunks:,} chunks in "
                    f"{self.db.server} · {here} here ({socket.gethostname()}), {len(self.indexes) - here} elsewhere "
                    "(read from the database) · Enter opens · / searches all")

    def _listed(self, message: FleetRead) -> None:
        summary = self.query_one("#fleet-summary", Static)
        if message.error:
            summary.update(Text(f"Cannot read the fleet in {self.db.server}: {message.error}", style="bold red"))
            return
        self.indexes = message.data
        summary.update(self._summary())
        table = self.query_one("#fleet-indexes", DataTable)
        table.clear()
        for number, entry in enumerate(self.indexes):
            own = entry["agent"] == self.env.agent_id and entry["workspace"] == str(self.env.workspace_dir)
            where = Text("this app" if own else "here" if entry["local"] else "remote",
                         style="bold green" if own else "green" if entry["local"] else "yellow")
            generation = f"{entry['generation']}{'+' if entry['rebuildPending'] else ''}"
            model = f"{entry['provider'] or '?'}/{entry['model'] or '?'}"
            table.add_row(entry["agent"], where, str(entry["files"]), f"{entry['chunks']:,}", generation,
                          short_time(entry["lastWrite"]), entry["host"] or "-", model, entry["workspace"],
                          key=str(number))
        if not self.indexes:
            summary.update(Text(f"The database {self.db.server} holds no index yet: run `memtui index` with "
                                "store.driver postgres on an agent first.", style="yellow"))

    def action_focus_query(self) -> None:
        """Focus the search box."""
        self.query_one("#fleet-query", Input).focus()

    @on(Input.Submitted, "#fleet-query")
    def _submitted(self, event: Input.Submitted) -> None:
        query = event.value.strip()
        if not query:
            self.action_show_agents()
            return
        self.query_text = query
        self.query_one("#fleet-summary", Static).update(Text(f"Searching every agent for {query!r}…"))
        provider, settings, db = self.manager.provider, self.manager.settings, self.db
        self._read("search", lambda: fleet_search(db, query, provider=provider, settings=settings,
                                                  max_results=SEARCH_LIMIT))

    def _found(self, message: FleetRead) -> None:
        summary = self.query_one("#fleet-summary", Static)
        if message.error:
            summary.update(Text(f"Cannot search the fleet: {message.error}", style="bold red"))
            return
        found: FleetResponse = message.data
        self.hits = found.hits
        agents = len({(hit.agent, hit.workspace) for hit in self.hits})
        summary.update(Text(f"{plural(len(self.hits), 'hit')} for {self.query_text!r} from {agents} of "
                            f"{plural(found.agents, 'agent')} · keywords in all, {found.vectors()} · Enter: text · "
                            "l: agents"))
        table = self.query_one("#fleet-hits", DataTable)
        table.clear()
        for number, hit in enumerate(self.hits):
            snippet = " ".join(hit.text.split())
            table.add_row(f"{hit.score:.3f}", hit.agent, f"{hit.path}:{hit.start_line}-"
                          f"{hit.end_line}", snippet[:120], key=str(number))
        self.query_one("#fleet-indexes", DataTable).display = False
        table.display = True
        table.focus()

    @on(DataTable.RowSelected)
    def _row_selected(self, _event: DataTable.RowSelected) -> None:
        self.action_open_row()

    def action_open_row(self) -> None:
        """Open the highlighted agent's memory, or show the highlighted hit's chunk in its file."""
        table = self.table()
        if table.id == "fleet-hits":
            if not self.hits or table.cursor_row < 0:
                self.notify("No hit to show.", severity="warning")
                return
            hit = self.hits[table.cursor_row]
            self._show_file(hit.agent, hit.workspace, hit.path, hit)
            return
        if not self.indexes or table.cursor_row < 0:
            self.notify("No agent to open.", severity="warning")
            return
        entry = self.indexes[table.cursor_row]
        own = entry["agent"] == self.env.agent_id and entry["workspace"] == str(self.env.workspace_dir)

        def opened(picked: Opened) -> None:
            if picked is not None:
                self.dismiss(picked)
        self.app.push_screen(FleetAgentScreen(self.env, self.db, entry, own=own), opened)

    def action_open_in_viewer(self) -> None:
        """Close and open the highlighted hit in the viewer, when it is of this app's own agent."""
        table = self.query_one("#fleet-hits", DataTable)
        if not table.display or not self.hits or table.cursor_row < 0:
            self.notify("No hit to open.", severity="warning")
            return
        hit = self.hits[table.cursor_row]
        if (hit.agent, hit.workspace) != (self.env.agent_id, str(self.env.workspace_dir)):
            self.notify(f"This hit is agent {hit.agent}'s: Enter shows its text here, read-only.", severity="warning")
            return
        self.dismiss((hit.path, (hit.start_line, hit.end_line)))

    def action_show_agents(self) -> None:
        """Back to the list of agents."""
        self.query_one("#fleet-hits", DataTable).display = False
        agents = self.query_one("#fleet-indexes", DataTable)
        agents.display = True
        agents.focus()
        if self.indexes:
            self.query_one("#fleet-summary", Static).update(self._summary())

    def action_back(self) -> None:
        """Leave the search box; else close the text pane, then the hits, then the screen."""
        pane = self.text_pane()
        if self.query_one("#fleet-query", Input).has_focus:
            self.table().focus()
        elif pane.display:
            pane.display = False
            self.table().focus()
        elif self.query_one("#fleet-hits", DataTable).display:
            self.action_show_agents()
        else:
            self.dismiss(None)


class FleetAgentScreen(_FleetBase):
    """One agent's memory from the fleet: its indexed files, each shown read-only (this app's own agent's file
    opens in the viewer instead: dismissed with its path)."""

    DEFAULT_CSS = """
    FleetAgentScreen #agent-summary { height: auto; padding: 0 1; }
    FleetAgentScreen #agent-filter { margin: 0 1; }
    FleetAgentScreen #agent-files { height: 2fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="fleetagent.back", tooltip="Close the text, then the screen."),
        Binding("q", "close", "Close", id="fleetagent.close"),
        Binding("enter", "open_row", "show file", id="fleetagent.open",
                tooltip="The file's text (this app's own agent: in the viewer)."),
        Binding("slash,f", "focus_filter", "filter", id="fleetagent.filter", tooltip="Show the files whose path "
                "holds the text typed."),
        Binding("r", "reload", "reload", id="fleetagent.reload", tooltip="Read the agent's files again."),
        Binding("j", "cursor('down')", "Down", show=False),
        Binding("k", "cursor('up')", "Up", show=False),
    ]

    def __init__(self, env: AgentEnv, db: FleetReader, entry: dict[str, Any], *, own: bool) -> None:
        super().__init__()
        self.env = env
        self.db = db
        self.entry = entry
        self.own = own
        self.all_files: list[dict[str, Any]] = []
        self.files: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield Static(self._summary(), id="agent-summary")
        yield Input(placeholder="Filter the files by path…  (/ or f comes back, Enter or Esc leaves)",
                    id="agent-filter")
        table: DataTable[str] = DataTable(id="agent-files", cursor_type="row", zebra_stripes=True)
        table.add_columns("file", "source", "chunks", "bytes")
        yield table
        yield FleetText(id="agent-text")
        yield Footer()

    def _summary(self, count: str = "") -> Text:
        entry = self.entry
        written = f"last write {short_time(entry['lastWrite'])} by {entry['host'] or '?'}"
        text = Text(f"agent {entry['agent']} · {entry['workspace']} · {count or str(entry['files'])} files · "
                    f"{entry['chunks']:,} chunks · generation {entry['generation']} · {written}\n", style="bold")
        if self.own:
            text.append("This app's own agent: Enter opens a file in the viewer.", style="green")
        elif entry["local"]:
            text.append("The workspace is on this host: files are read from the disk, read-only here.", style="green")
        else:
            text.append("The workspace is not on this host: read-only, each file shown as the chunks' text the "
                        "database holds.", style="yellow")
        return text

    def table(self) -> DataTable[Any]:
        """The agent's files."""
        return self.query_one("#agent-files", DataTable)

    def on_mount(self) -> None:
        self.table().focus()
        self.action_reload()

    def action_reload(self) -> None:
        """Read the agent's files again."""
        agent, workspace = self.entry["agent"], self.entry["workspace"]
        self._read("files", lambda: self.db.files(agent, workspace))

    @on(FleetRead)
    def _arrived(self, message: FleetRead) -> None:
        if message.kind != "files":
            self._shown_file(message)
            return
        summary = self.query_one("#agent-summary", Static)
        if message.error:
            summary.update(Text(f"Cannot read the agent's files: {message.error}", style="bold red"))
            return
        self.all_files = message.data
        summary.update(self._summary(str(len(self.all_files))))
        self._list(self.query_one("#agent-filter", Input).value)

    def _list(self, part: str) -> None:
        part = part.strip().lower()
        self.files = [entry for entry in self.all_files if part in entry["path"].lower()]
        table = self.table()
        table.clear()
        for number, entry in enumerate(self.files):
            table.add_row(entry["path"], entry["source"], str(entry["chunks"]), f"{entry['size']:,}",
                          key=str(number))

    def action_focus_filter(self) -> None:
        """Focus the file filter."""
        self.query_one("#agent-filter", Input).focus()

    @on(Input.Changed, "#agent-filter")
    def _filtered(self, event: Input.Changed) -> None:
        self._list(event.value)

    @on(Input.Submitted, "#agent-filter")
    def _filter_done(self, _event: Input.Submitted) -> None:
        self.table().focus()

    @on(DataTable.RowSelected, "#agent-files")
    def _row_selected(self, _event: DataTable.RowSelected) -> None:
        self.action_open_row()

    def action_open_row(self) -> None:
        """Show the highlighted file (this app's own agent: open it in the viewer)."""
        table = self.table()
        if not self.files or table.cursor_row < 0:
            self.notify("No file to show.", severity="warning")
            return
        path = self.files[table.cursor_row]["path"]
        if self.own and is_local(self.entry["workspace"]):
            self.dismiss((path, None))
            return
        self._show_file(self.entry["agent"], self.entry["workspace"], path)

    def action_back(self) -> None:
        """Leave the filter or close the text pane, then the screen."""
        pane = self.text_pane()
        if self.query_one("#agent-filter", Input).has_focus:
            self.table().focus()
        elif pane.display:
            pane.display = False
            self.table().focus()
        else:
            self.dismiss(None)

"""The registry of every user action: binding id, default keys, action, where it is bound, labels and help.

`panes` says where an action's key works: "app" binds it on the app (the whole main screen); any other name
binds it on that pane's widget, so its key works, and its short label shows in the footer, only while that
pane has the focus. One id may be bound in several panes; the keymap remaps it everywhere. Bound on the app
and in panes, the app's binding is the fallback everywhere else on the main screen and stays out of the footer.
`hot` keys (k9s's hot keys) show in the footer after the pane's when the width leaves room for them, in
`HOT_KEYS` order.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

PANES = ("search", "files", "results", "detail", "tuning")


@dataclass(frozen=True)
class UserAction:
    """One bindable action: `label` is the footer's short word, `title` the palette's `category: action`."""

    id: str
    keys: str
    action: str
    title: str
    label: str
    help: str
    panes: tuple[str, ...] = ("app",)
    footer: bool = False
    hot: bool = False  # in the footer when the width leaves room
    priority: bool = False  # handled before the focused widget sees the key (off while a text box has the focus)

    @property
    def name(self) -> str:
        """The action's method name (`focus_pane('files')` → `focus_pane`)."""
        return self.action.split("(", 1)[0]


HIT_PANES = ("results", "trace", "viewer")

ACTIONS: tuple[UserAction, ...] = (
    # -- everywhere on the main screen ----------------------------------------------------------
    UserAction("search.focus", "slash", "focus_search", "search: Focus the query box", "search",
               "Jump to the search box; typing re-runs the search live.", footer=True, priority=True),
    UserAction("pane.search", "1", "focus_pane('search')", "view: Go to the search box", "search",
               "Number keys jump between the panes, as numbered in their titles.", priority=True),
    UserAction("pane.files", "2", "focus_pane('files')", "view: Go to the files", "files",
               "The file browser (shown again if it was collapsed).", priority=True),
    UserAction("pane.results", "3", "focus_pane('results')", "view: Go to the results", "results", "The hits.",
               priority=True),
    UserAction("pane.detail", "4", "focus_pane('detail')", "view: Go to the trace / file", "detail",
               "The trace of the highlighted hit, or the open file.", priority=True),
    UserAction("pane.tuning", "5", "focus_pane('tuning')", "view: Go to the tuning panel", "tuning",
               "Opens the tuning panel when it is hidden.", priority=True),
    UserAction("view.zoom", "z", "toggle_zoom", "view: Maximise / restore the focused pane", "zoom",
               "The focused pane fills the screen; z or escape restores the layout."),
    UserAction("view.sidebar", "b", "toggle_sidebar", "view: Show / hide the file browser", "files",
               "The browser collapses on its own at 100 columns or less."),
    UserAction("tuning.toggle", "t", "toggle_tuning", "tuning: Show / hide the tuning panel", "tune",
               "Weights, candidate multiplier, minScore, maxResults, MMR, decay, profile.", footer=True),
    UserAction("search.explain", "x", "explain_query", "search: Explain the query", "explain",
               "The compiled keyword query, dropped terms, weights, thresholds and counts.", hot=True),
    UserAction("whynot.location", "W", "why_not_location", "why-not: Explain a chunk by path:line", "why path",
               "Type a location like memory/2026-04-20.md:12.", hot=True),
    UserAction("curate.note", "n", "append_note", "curate: Append a note to today's log", "note",
               "Adds a bullet to memory/<today>.md.", hot=True),
    UserAction("screen.sessions", "s", "sessions", "session: Show sessions and context budgets", "sessions",
               "Token use vs the flush threshold, bootstrap truncation, startup context.", hot=True),
    UserAction("screen.dreams", "d", "dreams", "dreams: Show promotion candidates", "dreams",
               "Short-term recall candidates and their scores; promote them into MEMORY.md.", hot=True),
    UserAction("screen.recalls", "a", "recalls", "agent: Show the agent's own memory calls", "agent calls",
               "Every memory_search / memory_get the agent made; replay one against today's index."),
    UserAction("screen.fleet", "F", "fleet", "fleet: Show every agent of the PostgreSQL store", "fleet",
               "Every agent's index in the database, one search over all of them, any agent's memory read-only."),
    UserAction("index.status", "i", "index_status", "index: Show full status", "status",
               "Provider, index, search capabilities, fallbacks and file issues.", hot=True),
    UserAction("index.health", "H", "index_health", "index: Check the index against the disk", "health",
               "Files changed, new or deleted since indexed, cut differently, vectors of another model."),
    UserAction("index.sync", "ctrl+r", "sync", "index: Sync now", "sync", "Incremental re-index in the background."),
    UserAction("index.rebuild", "f5", "rebuild", "index: Full rebuild", "rebuild",
               "Rebuild the index from scratch (safe swap)."),
    UserAction("app.help", "question_mark,f1", "help", "app: Help and keys", "help",
               "The keys of this screen.", footer=True),
    UserAction("app.quit", "q", "quit", "app: Quit", "quit", "Leave memtui.", footer=True),
    # -- the search box ---------------------------------------------------------------------------
    UserAction("search.submit", "enter", "submit_search", "search: Run now and go to the results", "results",
               "Runs the query at once and moves to the results.", ("search",), True),
    UserAction("search.leave", "escape", "leave_search", "search: Leave the search box", "leave",
               "To the results (or the files when there are none); the query stays.", ("search",), True),
    UserAction("search.older", "up", "history(-1)", "search: Previous query", "history",
               "Earlier queries (kept in <state>/memtui/history.json).", ("search",), True),
    UserAction("search.newer", "down", "history(1)", "search: Next query", "newer", "Back towards the newest.",
               ("search",)),
    # -- the file browser -------------------------------------------------------------------------
    UserAction("browser.filter", "f", "filter_files", "browser: Filter the file list", "filter",
               "Type part of a date, slug or path (e.g. 2026-10 or standup); Enter moves to the list, escape "
               "clears the filter.", ("files",), True),
    # -- a hit or a file --------------------------------------------------------------------------
    UserAction("view.open_hit", "enter,o", "open_hit", "view: Open the highlighted hit at its lines", "open",
               "Show the hit's file, raw, with its lines selected.", ("results",), True),
    UserAction("whynot.selected", "w", "why_not", "why-not: Explain the selected chunk", "why",
               "Where the highlighted hit, or the chunk under the viewer's cursor, ranks and what dropped it.",
               HIT_PANES, True),
    UserAction("edit.start", "e", "edit", "edit: Edit the open file", "edit",
               "Opens the editor on the viewed file (or the highlighted hit's file).", HIT_PANES, True),
    UserAction("edit.external", "E", "open_in_editor", "edit: Open in $EDITOR at the line", "$EDITOR",
               "Suspends memtui and opens the file in $VISUAL / $EDITOR at the hit's (or cursor's) line.",
               (*HIT_PANES, "files")),
    UserAction("curate.promote", "p", "promote", "curate: Promote into MEMORY.md", "promote",
               "Promote the selected lines or the highlighted hit, Markdown kept, with OpenClaw's marker.",
               HIT_PANES, True),
    UserAction("copy.citation", "c", "copy_citation", "copy: Citation", "cite", "path#Lstart-Lend of the hit.",
               HIT_PANES),
    UserAction("copy.snippet", "y", "copy_snippet", "copy: Snippet", "copy",
               "The hit's snippet (or the selected lines).", HIT_PANES),
    UserAction("copy.path", "Y", "copy_path", "copy: Path", "path", "The workspace-relative path.",
               (*HIT_PANES, "files")),
    UserAction("view.toggle", "v", "toggle_view", "view: Toggle rendered / raw", "raw/md",
               "Rendered Markdown or raw text with line numbers.", ("viewer",), True),
    UserAction("edit.save", "ctrl+s", "save", "edit: Save", "save", "Atomic save; refuses and asks when the file "
               "changed.", ("viewer",), True),
    UserAction("edit.leave", "escape", "leave_edit", "edit: Leave the editor", "leave",
               "Back to the raw view (asks before discarding unsaved edits).", ("viewer",), True),
    # -- the tuning panel -------------------------------------------------------------------------
    UserAction("tuning.copy", "J", "copy_tuning", "tuning: Copy the JSON5 config snippet", "copy JSON5",
               "The openclaw.json block that makes the tuned values permanent.", ("tuning",), True),
    UserAction("tuning.reset", "ctrl+t", "reset_tuning", "tuning: Reset to the configured values", "reset",
               "Forget live tuning (from any pane).", ("tuning", "app"), True),
)

ACTIONS_BY_ID = {a.id: a for a in ACTIONS}


def bindings_for(pane: str) -> list[Binding]:
    """Textual bindings of the actions bound in `pane` ("app" for the app), each with its id for the keymap."""
    prefix = "" if pane == "app" else "app."
    return [Binding(a.keys, prefix + a.action, a.label, id=a.id, tooltip=a.help, priority=a.priority,
                    show=(a.footer or a.hot) and (pane != "app" or a.panes == ("app",)))
            for a in ACTIONS if pane in a.panes]


PRIORITY_ACTIONS = frozenset(a.name for a in ACTIONS if a.priority)
# The footer's hot keys, the first kept longest when the width is short.
HOT_KEYS = ("screen.sessions", "screen.dreams", "curate.note", "whynot.location", "search.explain", "index.status")
SCREEN_INDEPENDENT = frozenset({"help", "quit"})  # actions that work on every screen but a dialog


def bound_keys(action_id: str, keymap: dict[str, str]) -> str:
    """The keys an action is bound to after the user's keymap (Textual key names, comma-separated)."""
    return keymap.get(action_id) or ACTIONS_BY_ID[action_id].keys

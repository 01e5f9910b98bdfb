"""The registry of every user action: binding id, default keys, action, palette title, help text."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class UserAction:
    """One bindable action; `keys` may list several comma-separated keys; `footer` shows it in the footer."""

    id: str
    keys: str
    action: str
    title: str
    help: str
    footer: bool = False

    @property
    def label(self) -> str:
        """Short footer label (the palette title's action part)."""
        return self.title.split(": ", 1)[-1]


ACTIONS: tuple[UserAction, ...] = (
    UserAction("search.focus", "slash", "focus_search", "search: Focus the query box",
               "Jump to the search box; typing re-runs the search live.", True),
    UserAction("search.explain", "x", "explain_query", "search: Explain the query",
               "The compiled keyword query, dropped terms, thresholds and counts."),
    UserAction("view.open_hit", "o", "open_hit", "view: Open the highlighted hit at its lines",
               "Show the hit's file, raw, with its lines selected (Enter in the table does the same)."),
    UserAction("browser.filter", "f", "filter_files", "browser: Filter the file list",
               "Type part of a date, slug or path (e.g. 2026-10 or standup); Enter moves to the list, escape "
               "clears the filter."),
    UserAction("view.toggle", "v", "toggle_view", "view: Toggle rendered / raw",
               "Rendered Markdown or raw text with line numbers."),
    UserAction("tuning.toggle", "t", "toggle_tuning", "tuning: Show / hide the tuning panel",
               "Weights, candidate multiplier, minScore, maxResults, MMR, decay, profile.", True),
    UserAction("tuning.copy", "J", "copy_tuning", "tuning: Copy the JSON5 config snippet",
               "The openclaw.json block that makes the tuned values permanent."),
    UserAction("tuning.reset", "ctrl+t", "reset_tuning", "tuning: Reset to the configured values",
               "Forget live tuning."),
    UserAction("whynot.selected", "w", "why_not", "why-not: Explain the selected chunk",
               "Where the highlighted hit, or the chunk under the viewer's cursor, ranks and what dropped it.", True),
    UserAction("whynot.location", "W", "why_not_location", "why-not: Explain a chunk by path:line",
               "Type a location like memory/2026-04-20.md:12."),
    UserAction("edit.start", "e", "edit", "edit: Edit the open file", "Opens the editor on the viewed file.", True),
    UserAction("edit.save", "ctrl+s", "save", "edit: Save", "Atomic save; refuses and asks when the file changed.",
               True),
    UserAction("edit.leave", "escape", "leave_edit", "edit: Leave the editor",
               "Back to the raw view (asks before discarding unsaved edits).", True),
    UserAction("curate.promote", "p", "promote", "curate: Promote into MEMORY.md",
               "Promote the selected lines or the highlighted hit, with OpenClaw's marker (idempotent).", True),
    UserAction("curate.note", "n", "append_note", "curate: Append a note to today's log",
               "Adds a bullet to memory/<today>.md.", True),
    UserAction("copy.snippet", "y", "copy_snippet", "copy: Snippet",
               "The hit's snippet (or the selected lines)."),
    UserAction("copy.citation", "c", "copy_citation", "copy: Citation", "path#Lstart-Lend of the hit."),
    UserAction("copy.path", "Y", "copy_path", "copy: Path", "The workspace-relative path."),
    UserAction("index.sync", "ctrl+r", "sync", "index: Sync now", "Incremental re-index in the background.", True),
    UserAction("index.rebuild", "f5", "rebuild", "index: Full rebuild", "Rebuild the index from scratch (safe swap)."),
    UserAction("index.status", "i", "index_status", "index: Show full status",
               "Every status field, including FTS/vector availability and reasons."),
    UserAction("screen.sessions", "s", "sessions", "session: Show sessions and context budgets",
               "Token use vs the flush threshold, bootstrap truncation, startup context.", True),
    UserAction("screen.dreams", "d", "dreams", "dreams: Show promotion candidates",
               "Short-term recall candidates and their scores; promote them into MEMORY.md."),
    UserAction("app.help", "f1,question_mark", "help", "app: Help and keys", "This help.", True),
    UserAction("app.quit", "q", "quit", "app: Quit", "Leave memtui.", True),
)

ACTIONS_BY_ID = {a.id: a for a in ACTIONS}


def bindings() -> list[Binding]:
    """Textual bindings for every action, each with its id so the keymap can remap it."""
    return [Binding(a.keys, a.action, a.label, show=a.footer, id=a.id, tooltip=a.help) for a in ACTIONS]

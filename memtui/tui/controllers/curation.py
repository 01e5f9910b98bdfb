"""The curation area: edit and save the open file, promote into MEMORY.md, append a note, copy snippet / citation."""

from __future__ import annotations

import subprocess

from rich.text import Text
from textual import on, work
from textual.app import SuspendNotSupported
from textual.widgets import TabbedContent
from textual.widgets.text_area import Selection

from memtui.atomic import ConflictError, open_for_read, parts_below
from memtui.errors import MemtuiError
from memtui.index.workspace import daily_date
from memtui.search.response import Candidate
from memtui.tools import format_citation
from memtui.tui.controllers.base import MemtuiBase, while_running
from memtui.tui.curation import append_note, daily_log_path, markdown_entry, promote_lines, save_memory_file
from memtui.tui.editor import editor_command
from memtui.tui.messages import PromotionScored, SearchFailed
from memtui.tui.screens import ChoiceModal, ErrorModal, PromptModal


class CurationController(MemtuiBase):
    """Every write a user makes by hand: atomic, refused on conflicts, followed by an incremental sync."""

    # -- the editor ---------------------------------------------------------------------------

    def action_edit(self) -> None:
        """Open the editor on the viewed file (from the results: on the highlighted hit's file, at its lines)."""
        viewer = self.viewer
        hit = self.highlighted_hit() if self.results.has_focus else None
        if hit is not None and not viewer.dirty:
            self.open_file(hit.path, self.resolve_rel(hit.path), lines=(hit.start_line, hit.end_line))
        if viewer.rel is None or viewer.abs_path is None:
            self.notify("Open a file first (browser, or Enter on a hit)", severity="warning")
            return
        if viewer.rel.endswith(".jsonl"):
            self.notify("Session transcripts are read-only here", severity="warning")
            return
        if viewer.lossy:
            self.notify(f"{viewer.rel} is not valid UTF-8: saving it here would replace those bytes (fix its "
                        "encoding, or edit it with E)", severity="warning")
            return
        viewer.set_mode("edit")
        area = viewer.text_area
        area.selection = Selection.cursor(area.cursor_location)  # the first key must not replace a hit's lines
        self.query_one("#detail", TabbedContent).active = "tab-file"
        self.focus_now(area)

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
                                      expected_digest=expected, extra_paths=self.manager.settings.memory_paths)
        except ConflictError:
            if not viewer.abs_path.exists():
                self.push_screen(ChoiceModal(
                    "File deleted on disk",
                    f"{viewer.rel} was deleted on disk since you opened it. Write it again with your edits, or "
                    "keep editing?", [("overwrite", "Write it again"), ("cancel", "Keep editing")]),
                    self._conflict_choice)
                return
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
        elif choice == "reload" and self.viewer.reload():
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

    async def action_quit(self) -> None:
        """Quit; with unsaved edits in the editor, ask first (save, drop them, or keep editing)."""
        viewer = self.viewer
        if not viewer.dirty:
            self.exit()
            return

        def chosen(choice: str | None) -> None:
            if choice == "save":
                self.action_save()
                if not viewer.dirty:  # saved (a conflict asks, and the app stays)
                    self.exit()
            elif choice == "drop":
                self.exit()

        self.push_screen(ChoiceModal("Unsaved edits", f"{viewer.rel} has unsaved edits.",
                                     [("save", "Save and quit"), ("drop", "Quit, drop edits"),
                                      ("cancel", "Keep editing")]), chosen)

    # -- promote and note ---------------------------------------------------------------------

    def _looked_at(self, *, whole: bool = False) -> tuple[str, int, int, str, float] | str:
        """(path, start, end, text, score) of what the user is looking at: with the focus in the viewer, its
        selected lines, else the line under its cursor; elsewhere the highlighted hit (`whole`: its whole chunk
        rather than its 700-character snippet). When there is nothing, why (a sentence for a toast)."""
        viewer = self.viewer
        if self.viewer_focused():
            if viewer.rel is None:
                return "no file is open"
            if viewer.mode == "rendered":
                return f"the rendered view has no cursor ({self.key_for('view.toggle')} shows the raw text)"
            selected = viewer.selected_lines()
            if selected is not None:
                start, end, text = selected
                return viewer.rel, start, end, text, 0.0
            line = viewer.cursor_line()
            text = viewer.text_area.document.get_line(line - 1)
            if not text.strip():
                return f"line {line} of {viewer.rel} is empty (put the cursor on a line or select lines)"
            return viewer.rel, line, line, text, 0.0
        hit = self.highlighted_hit()
        if hit is not None:
            return hit.path, hit.start_line, hit.end_line, hit.text if whole else hit.snippet, hit.score
        return "highlight a hit, or put the viewer's cursor on a line (or select lines)"

    def action_promote(self) -> None:
        """Promote what the user is looking at into MEMORY.md: the viewer's selected lines or its cursor's line
        when it has the focus, else the highlighted hit (asks first, showing the entry)."""
        if self.manager.env.read_only:
            self.notify("Read-only: promotion is disabled", severity="warning")
            return
        chosen = self._looked_at(whole=True)  # every line the marker's source names
        if isinstance(chosen, str):
            self.notify(f"Nothing to promote: {chosen}", severity="warning")
            return
        path, start, end, text, score = chosen
        if path == "MEMORY.md":
            self.notify("That is already MEMORY.md", severity="warning")
            return
        hit = self.highlighted_hit()
        if hit is not None and (hit.path, hit.start_line, hit.end_line) == (path, start, end):
            # The hit's lines, from the results or opened in the viewer: the hit's score, as configured.
            if self.tuning != self.configured_tuning:
                self._configured_score_worker(hit, text)
                return
            score = hit.score
        self.post_message(PromotionScored(path, start, end, text, score))

    @work(thread=True, exclusive=True, group="promotion", exit_on_error=False, description="Scoring the hit")
    def _configured_score_worker(self, hit: Candidate, text: str) -> None:
        """The hit's score under the configured settings: MEMORY.md records what the agent's search gives."""
        from memtui.search.why_not import explain_chunk  # loads numpy: not at start-up

        assert self.response is not None
        settings = self.configured_tuning.apply(self.manager.settings)
        vector = self.query_vector(self.response.query)
        try:
            response = self.manager.search(self.response.query, settings=settings,
                                           profile=self.configured_tuning.profile, now=self.now, query_vector=vector)
            why = explain_chunk(self.manager, response, hit.id, settings=settings, now=self.now, query_vector=vector)
        except Exception as exc:
            self.post_message(SearchFailed(self.generation, f"cannot score the hit: {exc}"))
            return
        self.post_message(PromotionScored(hit.path, hit.start_line, hit.end_line, text, why.score or 0.0))

    @on(PromotionScored)
    @while_running
    def _confirm_promotion(self, message: PromotionScored) -> None:
        path, start, end, text, score = message.path, message.start_line, message.end_line, message.text, message.score

        def decided(choice: str | None) -> None:
            if choice == "promote":
                self._promote(path, start, end, text, score)

        entry = markdown_entry(text, day=daily_date(path))
        entry[0] += f" [score={score:.3f} … source={path}:{start}-{end}]"
        preview = Text(f"{path}:{start}-{end} becomes, in MEMORY.md:\n\n", style="bold")
        preview.append("\n".join(entry))
        self.push_screen(ChoiceModal("Promote into MEMORY.md?", preview,
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
            self.track_files([rel])
            self._after_write()

        target = daily_log_path(self.manager.env.workspace_dir, self.today).name
        self.push_screen(PromptModal(f"Note for memory/{target}", "what should the agent remember?"), chosen)

    # -- the user's editor -------------------------------------------------------------------

    def action_open_in_editor(self) -> None:
        """Suspend the app and open the hit's file (or the open file) in $VISUAL / $EDITOR at the line."""
        place = self._place()
        if place is None:
            self.notify("Highlight a hit or open a file first", severity="warning")
            return
        rel, line = place
        if rel.endswith(".jsonl"):
            self.notify("Session transcripts are read-only here", severity="warning")
            return
        path = self.resolve_rel(rel)
        root = self.confining_root(rel, path)
        try:
            # The viewer's rule: no symlink below the file's folder, nor a FIFO or device (an editor would write
            # through a link to wherever it points).
            with open_for_read(root, parts_below(root, path)):
                pass
            argv = editor_command(path, line)
        except (MemtuiError, OSError) as exc:
            self.notify(f"Cannot edit {rel}: {exc}", severity="warning")
            return
        try:
            with self.suspend():
                subprocess.run(argv, check=False)
        except OSError as exc:
            self.notify(f"cannot start {argv[0]}: {exc}", severity="error")
            return
        except SuspendNotSupported:
            self.notify(f"this terminal cannot hand over to {argv[0]}", severity="error")
            return
        if self.viewer.rel == rel and not self.viewer.dirty:
            self.viewer.reload()
        self.track_files([rel])
        self._after_write()

    def _place(self) -> tuple[str, int] | None:
        """(path, line) the editor should open: the viewer's cursor when it has the focus, else the hit, else the
        browser's file."""
        viewer = self.viewer
        if self.viewer_focused() and viewer.rel is not None:
            return viewer.rel, viewer.cursor_line()
        if self.browser.has_focus:
            rel = self._browser_file()
            return (rel, 1) if rel is not None and not rel.startswith("sessions/") else None
        hit = self.highlighted_hit()
        if hit is not None:
            return hit.path, hit.start_line
        return (viewer.rel, viewer.cursor_line()) if viewer.rel is not None else None

    def _browser_file(self) -> str | None:
        """The path of the file under the browser's cursor (None on a group)."""
        node = self.browser.cursor_node
        rel = getattr(node.data, "rel", None) if node is not None else None
        return rel if isinstance(rel, str) else None

    # -- copy ---------------------------------------------------------------------------------

    def action_copy_snippet(self) -> None:
        """Copy what the user is looking at: the hit's snippet, or the viewer's selected lines (or cursor line)."""
        chosen = self._looked_at()
        if isinstance(chosen, str):
            self.notify(f"Nothing to copy: {chosen}", severity="warning")
            return
        self.copy_text(chosen[3], "snippet")

    def action_copy_citation(self) -> None:
        """Copy `path#Lstart-Lend` of what the user is looking at."""
        chosen = self._looked_at()
        if isinstance(chosen, str):
            self.notify(f"Nothing to copy: {chosen}", severity="warning")
            return
        self.copy_text(format_citation(chosen[0], chosen[1], chosen[2]), "citation")

    def action_copy_path(self) -> None:
        """Copy the path of the file under the browser's cursor (in the browser), else of the hit or the open
        file."""
        if self.browser.has_focus:
            path = self._browser_file()
        else:
            chosen = self._looked_at()
            path = chosen[0] if not isinstance(chosen, str) else self.viewer.rel
        if path is None:
            self.notify("Nothing to copy", severity="warning")
            return
        self.copy_text(path, "path")

"""The curation area: edit and save the open file, promote into MEMORY.md, append a note, copy snippet / citation."""

from __future__ import annotations

from textual.widgets import TabbedContent
from textual.widgets.text_area import Selection

from memtui.atomic import ConflictError
from memtui.errors import MemtuiError
from memtui.tools import format_citation
from memtui.tui.controllers.base import MemtuiBase
from memtui.tui.curation import append_note, daily_log_path, promote_lines, save_memory_file
from memtui.tui.screens import ChoiceModal, ErrorModal, PromptModal


class CurationController(MemtuiBase):
    """Every write a user makes by hand: atomic, refused on conflicts, followed by an incremental sync."""

    # -- the editor ---------------------------------------------------------------------------

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

    # -- promote and note ---------------------------------------------------------------------

    def _selection_or_hit(self) -> tuple[str, int, int, str, float] | None:
        viewer = self.viewer
        selected = viewer.selected_lines() if self.viewer_focused() else None
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

    # -- copy ---------------------------------------------------------------------------------

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

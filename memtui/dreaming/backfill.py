"""`rem-backfill`: grounded diary entries (and optional short-term staging) from past daily notes,
with a rollback that restores DREAMS.md and the recall store byte for byte."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from memtui.atomic import atomic_write_text, file_digest
from memtui.dreaming import diary
from memtui.dreaming.clock import resolve_now
from memtui.dreaming.lock import short_term_lock
from memtui.dreaming.recall_store import (
    RECALL_STORE_NAME,
    RecallEntry,
    dreams_dir,
    load_recall_store,
    read_json_state,
    save_recall_store,
    write_json_state,
)
from memtui.dreaming.signals import Hit, daily_snippet_chunks, record_grounded, strip_dreaming_blocks
from memtui.errors import PathError

JOURNAL_NAME = "rem-backfill-journal.json"
GROUNDED_SCORE = 0.62
MAX_ITEMS_PER_ENTRY = 5
_DAY_FILE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-[^/]+)?\.md$")


@dataclass
class BackfillResult:
    """What one `rem-backfill` run did."""

    files: list[str] = field(default_factory=list)
    diary_entries: int = 0
    staged_keys: list[str] = field(default_factory=list)
    removed_diary_entries: int = 0
    restored_short_term: bool = False

    def to_json(self) -> dict:
        """JSON for `--json`."""
        return {
            "files": self.files,
            "diaryEntries": self.diary_entries,
            "stagedShortTerm": len(self.staged_keys),
            "removedDiaryEntries": self.removed_diary_entries,
            "restoredShortTerm": self.restored_short_term,
        }


def daily_files(path: Path) -> list[tuple[str, Path]]:
    """`(day, file)` for a daily note, or every daily note directly under a folder, oldest first."""
    if not path.exists():
        raise PathError(f"{path} does not exist; pass a daily note or a folder of them")
    candidates = [path] if path.is_file() else sorted(p for p in path.iterdir() if p.is_file())
    found = [(m.group(1), p) for p in candidates if (m := _DAY_FILE_RE.match(p.name))]
    if not found:
        raise PathError(f"no daily notes (YYYY-MM-DD.md) at {path}")
    return sorted(found)


def _display_path(workspace_dir: Path, path: Path) -> str:
    resolved = path.resolve()
    root = workspace_dir.resolve()
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)


def _memory_path(workspace_dir: Path, path: Path) -> str:
    shown = _display_path(workspace_dir, path)
    return shown if shown.startswith("memory/") else f"memory/{path.name}"


def _long_date(day: str) -> str:
    parsed = date.fromisoformat(day)
    return f"{parsed:%B} {parsed.day}, {parsed.year}"


def grounded_items(workspace_dir: Path, path: Path) -> list[Hit]:
    """The first snippets of one daily note, pointing at its lines."""
    lines = strip_dreaming_blocks(path.read_text(encoding="utf-8", errors="replace").splitlines())
    rel = _memory_path(workspace_dir, path)
    return [
        Hit(rel, c.start_line, c.end_line, GROUNDED_SCORE, c.snippet) for c in daily_snippet_chunks(lines)
    ]


def entry_body(items: list[Hit]) -> str:
    """`What Happened` with numbered snippets and their line citations."""
    if not items:
        return "What Happened\n1. Nothing groundable was found in this note."
    lines = ["What Happened"]
    lines += [
        f"{i}. {h.snippet} [{h.path}:{h.start_line}]" for i, h in enumerate(items[:MAX_ITEMS_PER_ENTRY], 1)
    ]
    return "\n".join(lines)


def run_backfill(
    workspace_dir: Path, path: Path, *, stage_short_term: bool = False, now: datetime | None = None
) -> BackfillResult:
    """Write one grounded backfill diary entry per daily note (replacing an earlier one for the same
    note) and, with `stage_short_term`, stage its snippets as grounded short-term candidates."""
    moment = resolve_now(now)
    result = BackfillResult()
    with short_term_lock(workspace_dir):
        for day, file in daily_files(path):
            source = _display_path(workspace_dir, file)
            items = grounded_items(workspace_dir, file)
            diary.remove_backfill_entries(workspace_dir, day=day, source=source)
            diary.append_entry(
                workspace_dir,
                entry_body(items),
                now=moment,
                tz=moment.tzinfo,
                backfill=diary.BackfillTag(day, source),
                date_line=_long_date(day),
            )
            result.files.append(source)
            result.diary_entries += 1
            if stage_short_term and items:
                result.staged_keys += _stage_with_journal(workspace_dir, day, items, moment)
    return result


def _journal_path(workspace_dir: Path) -> Path:
    return dreams_dir(workspace_dir) / JOURNAL_NAME


def _stage_with_journal(workspace_dir: Path, day: str, items: list[Hit], moment: datetime) -> list[str]:
    store_path = dreams_dir(workspace_dir) / RECALL_STORE_NAME
    before_text = store_path.read_text(encoding="utf-8") if store_path.exists() else None
    before_entries = load_recall_store(workspace_dir).entries
    keys = record_grounded(workspace_dir, f"__dreaming_backfill__:{day}", items, day=day, now=moment)
    journal = read_json_state(_journal_path(workspace_dir)) or {"version": 1, "runs": []}
    journal["runs"].append(
        {
            "storeBefore": before_text,
            "storeAfterDigest": file_digest(store_path),
            "previous": {k: (before_entries[k].to_json() if k in before_entries else None) for k in keys},
        }
    )
    write_json_state(_journal_path(workspace_dir), journal)
    return keys


def rollback_short_term(workspace_dir: Path) -> bool:
    """Undo staged backfill signals: the exact prior store bytes when nothing else wrote since,
    else the staged entries' prior values. Returns whether anything was undone."""
    journal_path = _journal_path(workspace_dir)
    journal = read_json_state(journal_path)
    runs = journal.get("runs", []) if isinstance(journal, dict) else []
    if not runs:
        return False
    store_path = dreams_dir(workspace_dir) / RECALL_STORE_NAME
    with short_term_lock(workspace_dir):
        for run in reversed(runs):
            if file_digest(store_path) == run.get("storeAfterDigest"):
                before = run.get("storeBefore")
                if before is None:
                    store_path.unlink(missing_ok=True)
                else:
                    atomic_write_text(store_path, before)
                continue
            store = load_recall_store(workspace_dir)
            for key, previous in (run.get("previous") or {}).items():
                restored = RecallEntry.from_json(key, previous) if previous else None
                if restored is None:
                    store.entries.pop(key, None)
                else:
                    store.entries[key] = restored
            save_recall_store(workspace_dir, store)
        journal_path.unlink()
    return True


def rollback_diary(workspace_dir: Path) -> int:
    """Remove every backfill entry from DREAMS.md."""
    with short_term_lock(workspace_dir):
        return diary.remove_backfill_entries(workspace_dir)

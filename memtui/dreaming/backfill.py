"""`rem-backfill` as OpenClaw 2026.4.29's `runMemoryRemBackfill` runs it: grounded REM evidence of past daily
notes becomes backfill entries in DREAMS.md (replacing the earlier set), optionally staged as grounded
short-term candidates; the rollbacks strip those entries and the grounded-only candidates."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path

from memtui.dreaming import diary
from memtui.dreaming.clock import resolve_now
from memtui.dreaming.grounded import GroundedFile, preview_file
from memtui.dreaming.lock import short_term_lock
from memtui.dreaming.recall_store import (
    iso_ms,
    load_phase_signals,
    load_recall_store,
    refuse_2026_4_state,
    save_phase_signals,
    save_recall_store,
)
from memtui.dreaming.signals import GroundedItem, record_grounded
from memtui.errors import PathError
from memtui.jscompat import js_locale_key

GROUNDED_QUERY = "__dreaming_grounded_backfill__"
MAX_GROUNDED_FILE_BYTES = 1_000_000
_DAY_FILE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$", re.IGNORECASE)
_REF_RE = re.compile(r"^(.*?):(\d+)(?:-(\d+))?$")


@dataclass
class BackfillResult:
    """What one `rem-backfill` run (or rollback) did."""

    source_files: list[str] = field(default_factory=list)
    grounded_files: int = 0
    written: int = 0
    replaced: int = 0
    dreams_path: str | None = None
    staged: int | None = None
    replaced_short_term: int | None = None
    removed_diary_entries: int | None = None
    removed_short_term: int | None = None

    def to_json(self) -> dict:
        """JSON for `--json` (OpenClaw's field names)."""
        if self.removed_diary_entries is not None or self.removed_short_term is not None:
            data: dict = {"rollback": self.removed_diary_entries is not None,
                          "rollbackShortTerm": self.removed_short_term is not None}
            if self.removed_diary_entries is not None:
                data |= {"dreamsPath": self.dreams_path, "removedEntries": self.removed_diary_entries}
            if self.removed_short_term is not None:
                data["removedShortTermEntries"] = self.removed_short_term
            return data
        data = {"sourceFiles": self.source_files, "groundedFiles": self.grounded_files,
                "writtenEntries": self.written, "replacedEntries": self.replaced, "dreamsPath": self.dreams_path}
        if self.staged is not None:
            data |= {"stagedShortTermEntries": self.staged, "replacedShortTermEntries": self.replaced_short_term}
        return data


def daily_files(path: Path) -> list[Path]:
    """A `YYYY-MM-DD.md` note, or those directly in a folder by name (slug files are not daily notes)."""
    if not path.exists():
        raise PathError(f"{path} does not exist; pass a daily note or a folder of them")
    if path.is_file():
        found = [path] if _DAY_FILE_RE.match(path.name) else []
    else:
        found = sorted((p for p in path.iterdir() if p.is_file() and not p.is_symlink() and _DAY_FILE_RE.match(p.name)),
                       key=lambda p: js_locale_key(p.name))
    if not found:
        raise PathError(f"no daily notes (YYYY-MM-DD.md) at {path}")
    return [Path(os.path.abspath(p)) for p in found]


def diary_lines(markdown: str) -> list[str]:
    """The grounded Markdown as diary body lines: `##` dropped, trailing spaces cut, blank runs folded."""
    lines = [re.sub(r"^##\s+", "", line).rstrip() for line in re.split(r"\r?\n", markdown)]
    return [line for i, line in enumerate(lines) if not (not line and i > 0 and not lines[i - 1])]


def _ref(default_path: str, ref: str) -> tuple[str, int, int] | None:
    match = _REF_RE.match(ref.strip())
    if not ref.strip() or not match:
        return None
    start = max(1, int(match.group(2)))
    end = max(1, int(match.group(3) or match.group(2)))
    return (match.group(1) or default_path).replace("\\", "/").removeprefix("./"), start, end


def seed_items(files: list[GroundedFile]) -> list[GroundedItem]:
    """Lasting updates (0.92, weight 2) and likely-durable candidates (0.82) at their first reference."""
    items: list[GroundedItem] = []
    seen: set[str] = set()
    for file in files:
        day = _DAY_FILE_RE.match(Path(file.path).name)
        signals = [(m.text, m.refs, 0.92, f"{GROUNDED_QUERY}:lasting-update", 2) for m in file.memory_implications]
        signals += [(c.text, c.refs, 0.82, f"{GROUNDED_QUERY}:candidate", 1) for c in file.candidates
                    if c.lean == "likely_durable"]
        for text, refs, score, query, weight in signals:
            first = next((r for r in refs if r.strip()), None)
            parsed = _ref(file.path, first) if text.strip() and first else None
            if parsed is None:
                continue
            mark = f"{parsed[0]}:{parsed[1]}:{parsed[2]}:{query}:{text.lower()}"
            if mark in seen:
                continue
            seen.add(mark)
            items.append(GroundedItem(parsed[0], parsed[1], parsed[2], text, score, query, weight,
                                      day.group(1) if day else None))
    return items


def remove_grounded_only(workspace_dir: Path, now: datetime | None = None) -> int:
    """Drop candidates that only grounded backfill signals made (and their phase signals)."""
    stamp = iso_ms(resolve_now(now))
    with short_term_lock(workspace_dir):
        store = load_recall_store(workspace_dir, stamp)
        signals = load_phase_signals(workspace_dir, stamp)
        doomed = [k for k, e in store.entries.items()
                  if e.grounded_count > 0 and e.recall_count == 0 and e.daily_count == 0]
        for key in doomed:
            del store.entries[key]
        signals.entries = {k: v for k, v in signals.entries.items() if k in store.entries}
        if doomed:
            store.updated_at = signals.updated_at = stamp
            save_recall_store(workspace_dir, store)
            save_phase_signals(workspace_dir, signals)
    return len(doomed)


def run_backfill(workspace_dir: Path, path: Path, *, stage_short_term: bool = False, now: datetime | None = None,
                 tz: tzinfo | None = None) -> BackfillResult:
    """One backfill entry per daily note, replacing the earlier set; with `stage_short_term`, the grounded
    candidates are re-staged in the short-term store (refused before anything is written in a 2026.9 workspace,
    whose short-term store is OpenClaw's database)."""
    if stage_short_term:
        refuse_2026_4_state(workspace_dir)
    moment = resolve_now(now)
    sources = daily_files(path)
    grounded = [preview_file(f"memory/{p.name}", p.read_bytes().decode("utf-8", errors="replace"))
                for p in sources if not p.is_symlink() and p.stat().st_size <= MAX_GROUNDED_FILE_BYTES]
    by_day = {_DAY_FILE_RE.match(p.name).group(1): str(p) for p in sources}
    entries = []
    for file in grounded:
        day = _DAY_FILE_RE.match(Path(file.path).name)
        if day:
            entries.append(diary.BackfillEntry(day.group(1), diary_lines(file.rendered_markdown),
                                               by_day.get(day.group(1), file.path)))
    written = diary.write_backfill_entries(workspace_dir, entries)
    result = BackfillResult([str(p) for p in sources], len(grounded), written.written, written.replaced,
                            str(written.path))
    if stage_short_term:
        result.replaced_short_term = remove_grounded_only(workspace_dir, moment)
        items = seed_items(grounded)
        if items:
            record_grounded(workspace_dir, GROUNDED_QUERY, items, dedupe_per_day=True, now=moment, tz=tz)
        result.staged = len(items)
    return result


def rollback(workspace_dir: Path, *, diary_entries: bool, short_term: bool,
             now: datetime | None = None) -> BackfillResult:
    """Strip the backfill entries from DREAMS.md and/or the grounded-only short-term candidates (the latter refused
    before anything is written in a 2026.9 workspace)."""
    if short_term:
        refuse_2026_4_state(workspace_dir)
    result = BackfillResult()
    if diary_entries:
        result.dreams_path = str(diary.dreams_path(workspace_dir))
        result.removed_diary_entries = diary.remove_backfill_entries(workspace_dir)
    if short_term:
        result.removed_short_term = remove_grounded_only(workspace_dir, now)
    return result

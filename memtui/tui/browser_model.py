"""What the file browser lists, without Textual: every memory file as an entry, grouped by year and month,
listed from disk in a worker, kept current by file events (add / remove one entry at a time)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from memtui.index.workspace import MEMORY_DIR, ROOT_MEMORY_FILE, daily_date, list_memory_files

TRANSCRIPTS = "Session transcripts"
OTHER_NOTES = "Other notes"
EXTRA_PATHS = "Extra paths"
SECTIONS = (OTHER_NOTES, EXTRA_PATHS, TRANSCRIPTS)
DREAMS_FILES = ("DREAMS.md", "dreams.md")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@dataclass(frozen=True)
class BrowserEntry:
    """A file the browser can open: `rel` is workspace-relative (transcripts: `sessions/<name>`), `path` absolute
    (a string: a `Path` per file was most of a 10,000-note listing's time)."""

    kind: str
    rel: str
    path: str
    day: date | None = None

    @property
    def abs_path(self) -> Path:
        """The absolute path as a `Path`."""
        return Path(self.path)

    @property
    def section(self) -> str:
        """Where it is listed: "" (top), "daily" (by year and month), or a section name."""
        return {"memory": "", "dreams": "", "daily": "daily", "note": OTHER_NOTES, "extra": EXTRA_PATHS,
                "transcript": TRANSCRIPTS}[self.kind]

    def sort_key(self) -> tuple[object, ...]:
        """Newest daily logs first (a day's log before its slug files); MEMORY.md first; the rest by path."""
        if self.day is not None:
            return (-self.day.toordinal(), len(self.rel.rsplit("/", 1)[-1]) > len("YYYY-MM-DD.md"), self.rel)
        return (self.kind != "memory", self.rel)

    def label(self, today: date) -> str:
        """`MEMORY.md`; daily logs as `29 Wed · slug (today)`; other notes by path."""
        if self.day is None:
            return self.rel.removeprefix(f"{MEMORY_DIR}/") if self.kind == "note" else \
                self.rel.removeprefix("sessions/")
        name = self.rel.rsplit("/", 1)[-1].removesuffix(".md")
        text = f"{self.day.day:02d} {WEEKDAYS[self.day.weekday()]}"
        if len(name) > 10:
            text += f" · {name[11:]}"
        if self.day == today:
            text += " (today)"
        elif self.day == today - timedelta(days=1):
            text += " (yesterday)"
        return text

    def matches(self, needle: str) -> bool:
        """True when the lower-case `needle` is in the path (dates included) or the label."""
        return needle in self.rel.lower()


def entry_for(workspace_dir: Path, rel: str, abs_path: str | Path | None = None) -> BrowserEntry:
    """Classify one workspace-relative memory path."""
    path = os.fspath(abs_path or workspace_dir / rel)
    if rel == ROOT_MEMORY_FILE:
        return BrowserEntry("memory", rel, path)
    if rel in DREAMS_FILES:
        return BrowserEntry("dreams", rel, path)
    if rel.startswith("sessions/"):
        return BrowserEntry("transcript", rel, path)
    if rel.startswith(f"{MEMORY_DIR}/"):
        # dreaming's dated reports (memory/dreaming/<phase>/YYYY-MM-DD.md) are notes, not the agent's daily logs
        day = None if rel.startswith(f"{MEMORY_DIR}/dreaming/") else daily_date(rel)
        return BrowserEntry("daily" if day is not None else "note", rel, path, day)
    return BrowserEntry("extra", rel, path)


def list_entries(workspace_dir: Path, extra_paths: tuple[str, ...], sessions_dir: Path | None) -> list[BrowserEntry]:
    """Every file the browser shows, read from disk (a walk: run it in a worker)."""
    files = list_memory_files(workspace_dir, extra_paths) if workspace_dir.is_dir() else []
    entries = [entry_for(workspace_dir, f.rel_path, f.path) for f in files]
    for name in DREAMS_FILES:
        dreams = workspace_dir / name
        if dreams.is_file() and not dreams.is_symlink():
            entries.append(BrowserEntry("dreams", name, str(dreams)))
            break
    if sessions_dir is not None and sessions_dir.is_dir():
        entries += [BrowserEntry("transcript", f"sessions/{p.name}", str(p))
                    for p in sorted(sessions_dir.glob("*.jsonl"))]
    return entries


def diff_entries(current: dict[str, BrowserEntry],
                 entries: Iterable[BrowserEntry]) -> tuple[list[BrowserEntry], list[str]]:
    """(added or changed, removed paths) to go from `current` (path → entry) to `entries`."""
    fresh = {e.rel: e for e in entries}
    added = [e for rel, e in fresh.items() if current.get(rel) != e]
    removed = [rel for rel in current if rel not in fresh]
    return added, removed


def _group_keys(entry: BrowserEntry) -> tuple[tuple[object, ...], ...]:
    """The groups an entry is counted in: its year and month, or its section ("" for the top level)."""
    if entry.day is not None:
        return ("year", entry.day.year), ("month", entry.day.year, entry.day.month)
    return ((entry.section,),)


class Listing:
    """The entries by path, grouped once (by year, month and section) until the next change."""

    def __init__(self, entries: Iterable[BrowserEntry] = ()) -> None:
        self.entries: dict[str, BrowserEntry] = {e.rel: e for e in entries}
        self._groups: dict[tuple[object, ...], list[BrowserEntry]] | None = None
        self._counts: dict[tuple[object, ...], int] | None = None

    def diff(self, entries: Iterable[BrowserEntry]) -> tuple[list[BrowserEntry], list[str]]:
        """(added or changed, removed paths) to go from this listing to `entries`."""
        return diff_entries(self.entries, entries)

    def apply(self, added: Iterable[BrowserEntry], removed: Iterable[str]) -> None:
        """Take the changes. The counts per group follow entry by entry (a file event costs no regrouping); the
        groups themselves are sorted again when next asked for."""
        for rel in removed:
            self._count(self.entries.pop(rel, None), -1)
        for entry in added:
            self._count(self.entries.get(entry.rel), -1)
            self.entries[entry.rel] = entry
            self._count(entry, 1)
        self._groups = None

    def _count(self, entry: BrowserEntry | None, step: int) -> None:
        if entry is None or self._counts is None:
            return
        for key in _group_keys(entry):
            left = self._counts.get(key, 0) + step
            if left:
                self._counts[key] = left
            else:
                self._counts.pop(key, None)

    def matching(self, needle: str) -> list[BrowserEntry]:
        """Entries whose path contains `needle` (lower case), in listing order."""
        return sorted((e for e in self.entries.values() if e.matches(needle)), key=BrowserEntry.sort_key)

    def _grouped(self) -> dict[tuple[object, ...], list[BrowserEntry]]:
        if self._groups is None:
            groups: dict[tuple[object, ...], list[BrowserEntry]] = {}
            for entry in sorted(self.entries.values(), key=BrowserEntry.sort_key):
                for key in _group_keys(entry):
                    groups.setdefault(key, []).append(entry)
            self._groups = groups
        return self._groups

    def group_counts(self) -> dict[tuple[object, ...], int]:
        """Entries per group key: ("year", y), ("month", y, m), (section,) and ("",) for the top level."""
        if self._counts is None:
            self._counts = {key: len(entries) for key, entries in self._grouped().items()}
        return dict(self._counts)

    def years(self) -> dict[int, int]:
        """Year → number of daily logs, newest first."""
        found = [(int(str(key[1])), len(entries)) for key, entries in self._grouped().items() if key[0] == "year"]
        return dict(sorted(found, reverse=True))

    def months(self, year: int) -> dict[int, int]:
        """Month → number of daily logs of `year`, newest first."""
        found = [(int(str(key[2])), len(entries)) for key, entries in self._grouped().items()
                 if key[0] == "month" and key[1] == year]
        return dict(sorted(found, reverse=True))

    def in_group(self, group: tuple[object, ...]) -> list[BrowserEntry]:
        """The entries of one group: ("month", year, month), (section,) or ("",) for the top level."""
        return list(self._grouped().get(group, []))

    def not_indexed(self, sessions_indexed: bool) -> int:
        """How many listed files the index leaves out by rule: DREAMS.md (OpenClaw indexes `MEMORY.md` and
        `memory/` only), and the session transcripts unless `memorySearch.sources` has sessions."""
        dreams = sum(1 for name in DREAMS_FILES if name in self.entries)
        return dreams + (0 if sessions_indexed else self.group_counts().get((TRANSCRIPTS,), 0))

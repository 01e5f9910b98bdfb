"""DREAMS.md, the Dream Diary (§12.8): managed block, dated entries, backfill entries."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path

from memtui.atomic import atomic_write_text, file_digest
from memtui.dreaming.clock import diary_date
from memtui.errors import PathError

DREAMS_FILE = "DREAMS.md"
DIARY_TITLE = "# Dream Diary"
DIARY_START = "<!-- openclaw:dreaming:diary:start -->"
DIARY_END = "<!-- openclaw:dreaming:diary:end -->"
BACKFILL_MARKER = "openclaw:dreaming:backfill-entry"
SKELETON = f"{DIARY_TITLE}\n\n{DIARY_START}\n{DIARY_END}\n"
_BACKFILL_RE = re.compile(r"<!-- openclaw:dreaming:backfill-entry day=(\S+) source=(.*?) -->")


@dataclass(frozen=True)
class BackfillTag:
    """Marks a diary entry written by `rem-backfill` for one daily note."""

    day: str
    source: str

    def marker(self) -> str:
        """`<!-- openclaw:dreaming:backfill-entry day=… source=… -->`."""
        return f"<!-- {BACKFILL_MARKER} day={self.day} source={self.source} -->"


def dreams_path(workspace_dir: Path) -> Path:
    """`<ws>/DREAMS.md`."""
    return workspace_dir / DREAMS_FILE


def format_entry(date_line: str, body: str, backfill: BackfillTag | None = None) -> str:
    """One entry: `---`, the italic date line, an optional backfill marker, the body."""
    parts = ["---", "", f"*{date_line}*", ""]
    if backfill is not None:
        parts += [backfill.marker(), ""]
    parts.append(body.strip())
    return "\n".join(parts) + "\n"


def _read(path: Path) -> tuple[str, str | None]:
    if path.is_symlink():
        raise PathError(f"{path} is a symlink; refusing to write the dream diary through it")
    digest = file_digest(path)
    return (path.read_text(encoding="utf-8") if digest is not None else ""), digest


def insert_entry(text: str, entry: str) -> str:
    """The diary text with `entry` appended just before the end marker (creating the block if needed)."""
    end = text.find(DIARY_END)
    if DIARY_START in text and end > text.find(DIARY_START):
        return text[:end] + entry + "\n" + text[end:]
    if not text.strip():
        return f"{DIARY_TITLE}\n\n{DIARY_START}\n{entry}\n{DIARY_END}\n"
    base = text if text.endswith("\n") else text + "\n"
    return f"{base}\n{DIARY_START}\n{entry}\n{DIARY_END}\n"


def append_entry(
    workspace_dir: Path,
    body: str,
    *,
    now: datetime,
    tz: tzinfo,
    backfill: BackfillTag | None = None,
    date_line: str | None = None,
) -> Path:
    """Append one dated entry to DREAMS.md atomically; refuses a symlinked or concurrently changed file."""
    path = dreams_path(workspace_dir)
    text, digest = _read(path)
    entry = format_entry(date_line or diary_date(now, tz), body, backfill)
    atomic_write_text(path, insert_entry(text, entry), expected_digest=digest)
    return path


def _split_block(text: str) -> tuple[str, list[str], str] | None:
    """Head (through the start marker line), the block's chunks (each entry plus its separator), tail."""
    start, end = text.find(DIARY_START), text.find(DIARY_END)
    if start < 0 or end < start:
        return None
    cut = start + len(DIARY_START) + 1
    inner = text[cut:end]
    bounds = [m.start() for m in re.finditer(r"^---$", inner, flags=re.MULTILINE)]
    if not bounds or bounds[0] != 0:
        bounds.insert(0, 0)
    chunks = [inner[a:b] for a, b in zip(bounds, [*bounds[1:], len(inner)], strict=True)]
    return text[:cut], [c for c in chunks if c], text[end:]


def remove_backfill_entries(workspace_dir: Path, *, day: str | None = None, source: str | None = None) -> int:
    """Remove backfill entries (all, or one day/source's) exactly as they were inserted; a DREAMS.md left
    as the bare skeleton is deleted. Returns how many entries were removed."""
    path = dreams_path(workspace_dir)
    text, digest = _read(path)
    parts = _split_block(text) if text else None
    if parts is None:
        return 0
    head, chunks, tail = parts
    kept = []
    for chunk in chunks:
        match = _BACKFILL_RE.search(chunk)
        if not (
            match and (day is None or match.group(1) == day) and (source is None or match.group(2) == source)
        ):
            kept.append(chunk)
    removed = len(chunks) - len(kept)
    if not removed:
        return 0
    new_text = head + "".join(kept) + tail
    if new_text == SKELETON:
        path.unlink()
    else:
        atomic_write_text(path, new_text, expected_digest=digest)
    return removed

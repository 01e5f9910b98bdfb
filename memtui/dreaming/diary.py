"""DREAMS.md, the Dream Diary (§12.8), written as OpenClaw 2026.4.29's `dreaming-narrative.ts` writes it:
the managed block, narrative entries, backfill entries (replaced as a set, removable), de-duplication, and the
narrative prompt. Writes are atomic and refuse a symlinked or concurrently changed file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from memtui.atomic import atomic_write_text, file_digest
from memtui.dreaming.clock import diary_date
from memtui.errors import PathError

DREAMS_FILES = ("DREAMS.md", "dreams.md")
DIARY_START = "<!-- openclaw:dreaming:diary:start -->"
DIARY_END = "<!-- openclaw:dreaming:diary:end -->"
BACKFILL_MARKER = "openclaw:dreaming:backfill-entry"
_DAY_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


def dreams_path(workspace_dir: Path) -> Path:
    """`DREAMS.md`, or an existing `dreams.md`, in the workspace."""
    for name in DREAMS_FILES:
        path = workspace_dir / name
        if path.exists() or path.is_symlink():
            return path
    return workspace_dir / DREAMS_FILES[0]


def _read(path: Path) -> tuple[str, str | None]:
    if path.is_symlink():
        raise PathError(f"{path} is a symlink; refusing to write the dream diary through it")
    if path.exists() and not path.is_file():
        raise PathError(f"{path} is not a regular file; refusing to write the dream diary")
    digest = file_digest(path)
    return (path.read_text(encoding="utf-8") if digest is not None else ""), digest


def _write(path: Path, text: str, digest: str | None) -> None:
    atomic_write_text(path, text if text.endswith("\n") else text + "\n", expected_digest=digest, root=path.parent)


def ensure_section(text: str) -> str:
    """The text with a `# Dream Diary` block in front when it has no complete one."""
    if DIARY_START in text and DIARY_END in text:
        return text
    section = f"# Dream Diary\n\n{DIARY_START}\n{DIARY_END}\n"
    return section if not text.strip() else f"{section}\n{text}"


def _inner(text: str) -> str | None:
    start, end = text.find(DIARY_START), text.find(DIARY_END)
    return text[start + len(DIARY_START):end] if 0 <= start <= end else None


def replace_content(text: str, content: str) -> str:
    """The diary with the block between the markers replaced by `content`."""
    ensured = ensure_section(text)
    start, end = ensured.find(DIARY_START), ensured.find(DIARY_END)
    if start < 0 or end < 0 or end < start:
        return ensured
    body = f"\n{content.strip()}\n" if content.strip() else "\n"
    return ensured[: start + len(DIARY_START)] + body + ensured[end:]


def split_blocks(content: str) -> list[str]:
    """The entries of a diary block (separated by `---` lines)."""
    return [block.strip() for block in re.split(r"\n---\n", content) if block.strip()]


def join_blocks(blocks: list[str]) -> str:
    """Entries back into a block, each led by `---` and a blank line."""
    return "\n".join(f"---\n\n{block.strip()}\n" for block in blocks)


def _strip_backfill(text: str) -> tuple[str, int]:
    ensured = ensure_section(text)
    inner = _inner(ensured)
    if inner is None:
        return ensured, 0
    blocks = split_blocks(inner)
    kept = [b for b in blocks if BACKFILL_MARKER not in b]
    return replace_content(ensured, join_blocks(kept)), len(blocks) - len(kept)


def append_entry(workspace_dir: Path, narrative: str, *, now: datetime, tz: tzinfo | None) -> Path:
    """Append one dated narrative entry before the (last) end marker, creating the block when needed."""
    path = dreams_path(workspace_dir)
    text, digest = _read(path)
    entry = f"\n---\n\n*{diary_date(now, tz)}*\n\n{narrative}\n"
    if DIARY_START in text and DIARY_END in text:
        end = text.rfind(DIARY_END)
        updated = text[:end] + entry + "\n" + text[end:]
    elif DIARY_START in text:
        cut = text.find(DIARY_START) + len(DIARY_START)
        updated = text[:cut] + entry + f"\n{DIARY_END}\n" + text[cut:]
    else:
        section = f"# Dream Diary\n\n{DIARY_START}{entry}\n{DIARY_END}\n"
        updated = section if not text.strip() else f"{section}\n{text}"
    _write(path, updated, digest)
    return path


@dataclass(frozen=True)
class BackfillEntry:
    """One `rem-backfill` entry: the day it stands for, its body lines and the note it came from."""

    iso_day: str
    body_lines: list[str]
    source_path: str | None = None


@dataclass(frozen=True)
class BackfillWrite:
    """What writing backfill entries did."""

    path: Path
    written: int
    replaced: int


def backfill_date(iso_day: str) -> str:
    """`April 20, 2026` for `2026-04-20` (noon UTC); other text as it is."""
    match = _DAY_RE.match(iso_day)
    if not match:
        return iso_day
    moment = datetime(int(match.group(1)), int(match.group(2)), int(match.group(3)), 12, tzinfo=UTC)
    return f"{moment:%B} {moment.day}, {moment.year}"


def backfill_block(entry: BackfillEntry) -> str:
    """The date line, the backfill marker and the body of one entry."""
    source = f" source={entry.source_path}" if entry.source_path else ""
    marker = f"<!-- {BACKFILL_MARKER} day={entry.iso_day}{source} -->"
    body = "\n".join(line.rstrip() for line in entry.body_lines).strip()
    return "\n\n".join(part for part in (f"*{backfill_date(entry.iso_day)}*", marker, body) if part)


def write_backfill_entries(workspace_dir: Path, entries: list[BackfillEntry]) -> BackfillWrite:
    """Replace every earlier backfill entry with `entries` (after the diary's own entries)."""
    path = dreams_path(workspace_dir)
    text, digest = _read(path)
    stripped, removed = _strip_backfill(text)
    blocks = split_blocks(_inner(stripped) or "") + [backfill_block(e) for e in entries]
    _write(path, replace_content(stripped, join_blocks(blocks)), digest)
    return BackfillWrite(path, len(entries), removed)


def remove_backfill_entries(workspace_dir: Path) -> int:
    """Remove every backfill entry; returns how many were removed."""
    path = dreams_path(workspace_dir)
    text, digest = _read(path)
    stripped, removed = _strip_backfill(text)
    if removed or text:
        _write(path, stripped, digest)
    return removed


def _fingerprint(block: str) -> str:
    date_line = ""
    body = []
    for line in (raw.strip() for raw in block.split("\n")):
        if not line:
            continue
        if not date_line and line.startswith("*") and line.endswith("*") and len(line) > 2:
            date_line = line[1:-1].strip()
        elif not line.startswith(("<!--", "#")):
            body.append(line)
    text = re.sub(r"[ \t]+\n", "\n", "\n".join(body)).strip()
    return " ".join(date_line.split()) + "\n" + text


def dedupe_entries(workspace_dir: Path) -> tuple[int, int]:
    """Drop entries whose date and body repeat an earlier one; returns (removed, kept)."""
    path = dreams_path(workspace_dir)
    text, digest = _read(path)
    ensured = ensure_section(text)
    inner = _inner(ensured)
    if inner is None:
        return 0, 0
    seen: set[str] = set()
    kept = []
    for block in split_blocks(inner):
        mark = _fingerprint(block)
        if mark not in seen:
            seen.add(mark)
            kept.append(block)
    removed = len(split_blocks(inner)) - len(kept)
    if removed:
        _write(path, replace_content(ensured, join_blocks(kept)), digest)
    return removed, len(kept)


def narrative_prompt(snippets: list[str], themes: list[str], promotions: list[str]) -> str:
    """The message the narrative sub-agent gets: up to 12 fragments, 6 themes and 5 promotions."""
    lines = ["Write a dream diary entry from these memory fragments:\n"]
    lines += [f"- {snippet}" for snippet in snippets[:12]]
    if themes:
        lines += ["\nRecurring themes:", *(f"- {theme}" for theme in themes[:6])]
    if promotions:
        lines += ["\nMemories that crystallized into something lasting:", *(f"- {p}" for p in promotions[:5])]
    return "\n".join(lines)

"""Hand curation without Textual: promote lines into MEMORY.md and append notes to today's log."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memtui.atomic import append_text, atomic_write_text
from memtui.dreaming.promotion import LONG_TERM_HEADER, MARKER_PREFIX, MEMORY_FILE, promotion_markers
from memtui.dreaming.recall_store import normalize_snippet
from memtui.errors import MemtuiError
from memtui.index.workspace import memory_location


@dataclass(frozen=True)
class PromotionOutcome:
    """What a manual promotion did: appended, or found its marker already in MEMORY.md."""

    key: str
    appended: bool
    memory_path: Path


def promotion_key(source: str, path: str, start_line: int, end_line: int) -> str:
    """`source:path:start:end`, the key in OpenClaw's promotion marker."""
    return f"{source}:{path}:{start_line}:{end_line}"


def promote_lines(workspace_dir: Path, *, path: str, start_line: int, end_line: int, text: str,
                  day: date, score: float = 0.0, source: str = "memory") -> PromotionOutcome:
    """Append `text` to MEMORY.md in OpenClaw's promotion section with its marker; a second call is a no-op.

    The section is appended (never a rewrite), so what another writer appended meanwhile is kept."""
    memory_path = workspace_dir / MEMORY_FILE
    key = promotion_key(source, path, start_line, end_line)

    def section(existing: str) -> str | None:
        if key in promotion_markers(existing):
            return None
        header = "" if existing.strip() else LONG_TERM_HEADER
        separator = "" if not existing or existing.endswith("\n") else "\n"
        return header + separator + "\n".join([
            "",
            f"## Promoted From Short-Term Memory ({day.isoformat()})",
            "",
            f"<!-- {MARKER_PREFIX}{key} -->",
            f"- {normalize_snippet(text) or '(empty selection)'} [score={score:.3f} recalls=0 avg=0.000 "
            f"source={path}:{start_line}-{end_line}]",
            "",
        ])

    appended = append_text(memory_path, section, root=workspace_dir)
    return PromotionOutcome(key, appended is not None, memory_path)


def daily_log_path(workspace_dir: Path, day: date) -> Path:
    """`memory/YYYY-MM-DD.md` of `day`."""
    return workspace_dir / "memory" / f"{day.isoformat()}.md"


def append_note(workspace_dir: Path, day: date, note: str) -> Path:
    """Append `- note` to the day's log (created with a `# YYYY-MM-DD` heading when missing).

    One append, never a rewrite: lines another writer (the agent) appends at the same time are kept, and
    no symlinked `memory/` folder or file is followed."""
    text = note.strip()
    if not text:
        raise MemtuiError("the note is empty; type some text to append")
    path = daily_log_path(workspace_dir, day)
    lines = text.splitlines()
    bullet = "\n".join([f"- {lines[0]}", *(f"  {line}" for line in lines[1:])])

    def addition(existing: str) -> str:
        if not existing:
            return f"# {day.isoformat()}\n\n{bullet}\n"
        if existing.endswith("\n\n"):
            return f"{bullet}\n"
        return f"\n{bullet}\n" if existing.endswith("\n") else f"\n\n{bullet}\n"

    append_text(path, addition, root=workspace_dir)
    return path


def save_memory_file(workspace_dir: Path, rel: str, text: str, *, expected_digest: str | bool | None,
                     extra_paths: tuple[str, ...] = ()) -> str:
    """Save an edited memory file atomically, refusing a symlink anywhere below its root (the workspace, or
    the extra path it lives in) and a file changed on disk since it was read; returns the new digest."""
    location = memory_location(workspace_dir, rel, extra_paths)
    return atomic_write_text(location.target, text, expected_digest=expected_digest, root=location.root)

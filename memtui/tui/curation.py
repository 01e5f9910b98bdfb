"""Hand curation without Textual: promote lines into MEMORY.md and append notes to today's log."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memtui.atomic import atomic_write_text, file_digest
from memtui.dreaming.promotion import LONG_TERM_HEADER, MARKER_PREFIX, MEMORY_FILE, promotion_markers
from memtui.dreaming.recall_store import normalize_snippet
from memtui.errors import MemtuiError


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
    """Append `text` to MEMORY.md in OpenClaw's promotion section with its marker; a second call is a no-op."""
    memory_path = workspace_dir / MEMORY_FILE
    key = promotion_key(source, path, start_line, end_line)
    digest = file_digest(memory_path)
    existing = memory_path.read_text(encoding="utf-8") if digest is not None else ""
    if key in promotion_markers(existing):
        return PromotionOutcome(key, False, memory_path)
    header = "" if existing.strip() else LONG_TERM_HEADER
    base = existing if not existing or existing.endswith("\n") else existing + "\n"
    section = "\n".join([
        "",
        f"## Promoted From Short-Term Memory ({day.isoformat()})",
        "",
        f"<!-- {MARKER_PREFIX}{key} -->",
        f"- {normalize_snippet(text) or '(empty selection)'} [score={score:.3f} recalls=0 avg=0.000 "
        f"source={path}:{start_line}-{end_line}]",
        "",
    ])
    atomic_write_text(memory_path, header + base + section, expected_digest=digest)
    return PromotionOutcome(key, True, memory_path)


def daily_log_path(workspace_dir: Path, day: date) -> Path:
    """`memory/YYYY-MM-DD.md` of `day`."""
    return workspace_dir / "memory" / f"{day.isoformat()}.md"


def append_note(workspace_dir: Path, day: date, note: str) -> Path:
    """Append `- note` to the day's log (created with a `# YYYY-MM-DD` heading when missing)."""
    text = note.strip()
    if not text:
        raise MemtuiError("the note is empty; type some text to append")
    path = daily_log_path(workspace_dir, day)
    digest = file_digest(path)
    existing = path.read_text(encoding="utf-8") if digest is not None else f"# {day.isoformat()}\n"
    base = existing if existing.endswith("\n") else existing + "\n"
    lines = text.splitlines()
    bullet = "\n".join([f"- {lines[0]}", *(f"  {line}" for line in lines[1:])])
    atomic_write_text(path, f"{base}\n{bullet}\n" if not base.endswith("\n\n") else f"{base}{bullet}\n",
                      expected_digest=digest)
    return path

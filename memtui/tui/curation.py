"""Hand curation without Textual: promote lines into MEMORY.md (their Markdown kept) and append notes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memtui.atomic import atomic_write_text, file_digest
from memtui.dreaming.promotion import LONG_TERM_HEADER, MARKER_PREFIX, MEMORY_FILE, promotion_markers
from memtui.errors import MemtuiError
from memtui.index.workspace import daily_date

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class PromotionOutcome:
    """What a manual promotion did: appended, or found its marker already in MEMORY.md."""

    key: str
    appended: bool
    memory_path: Path


def promotion_key(source: str, path: str, start_line: int, end_line: int) -> str:
    """`source:path:start:end`, the key in OpenClaw's promotion marker."""
    return f"{source}:{path}:{start_line}:{end_line}"


def markdown_entry(text: str, *, day: date | None = None) -> list[str]:
    """The selected lines as MEMORY.md list lines, written as they were: a heading becomes a bold bullet label
    with what follows it nested beneath, bullets and sub-bullets keep their indentation, a paragraph becomes a
    bullet, fenced code is kept verbatim. A daily log's own date heading (`# 2026-04-28`) is dropped: the
    marker's source carries the date."""
    lines = text.split("\n")
    levels = [len(m.group(1)) for line in lines if (m := HEADING.match(line)) and
              not (day is not None and m.group(2) == day.isoformat())]
    top = min(levels, default=1)
    out: list[str] = []
    indent = 0  # where the content under the last heading goes
    fenced = paragraph = item = False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
            out.append(" " * indent + line.strip())
            continue
        if fenced:
            out.append(" " * indent + line)
            continue
        stripped = line.strip()
        if not stripped:
            paragraph = item = False
            continue
        heading = HEADING.match(stripped)
        if heading and day is not None and heading.group(2) == day.isoformat():
            indent, paragraph, item = 0, False, False
            continue
        if heading:
            level_indent = (len(heading.group(1)) - top) * 2
            out.append(" " * level_indent + f"- **{heading.group(2)}**")
            indent, paragraph, item = level_indent + 2, False, False
        elif LIST_ITEM.match(line) or (item and line[:1].isspace()):
            out.append(" " * indent + line.rstrip())
            paragraph, item = False, True
        elif paragraph:
            out.append(" " * (indent + 2) + stripped)
        else:
            out.append(" " * indent + f"- {stripped}")
            paragraph, item = True, False
    return out or ["- (empty selection)"]


def promote_lines(workspace_dir: Path, *, path: str, start_line: int, end_line: int, text: str,
                  day: date, score: float = 0.0, source: str = "memory") -> PromotionOutcome:
    """Append `text` to MEMORY.md in OpenClaw's promotion section, with its marker and `[score=… source=…]`
    on the entry's first line; a second call with the same lines is a no-op."""
    memory_path = workspace_dir / MEMORY_FILE
    key = promotion_key(source, path, start_line, end_line)
    digest = file_digest(memory_path)
    existing = memory_path.read_text(encoding="utf-8") if digest is not None else ""
    if key in promotion_markers(existing):
        return PromotionOutcome(key, False, memory_path)
    entry = markdown_entry(text, day=daily_date(path))
    entry[0] += f" [score={score:.3f} recalls=0 avg=0.000 source={path}:{start_line}-{end_line}]"
    header = "" if existing.strip() else LONG_TERM_HEADER
    base = existing if not existing or existing.endswith("\n") else existing + "\n"
    section = f"## Promoted From Short-Term Memory ({day.isoformat()})"
    headings = [line for line in base.splitlines() if line.startswith("## ")]
    opening = [] if headings and headings[-1] == section else ["", section]
    block = "\n".join([*opening, "", f"<!-- {MARKER_PREFIX}{key} -->", *entry, ""])
    atomic_write_text(memory_path, header + base + block, expected_digest=digest)
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

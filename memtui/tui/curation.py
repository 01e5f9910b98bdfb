"""Hand curation without Textual: promote lines into MEMORY.md (their Markdown kept) and append notes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memtui.atomic import append_text, atomic_write_text
from memtui.errors import MemtuiError
from memtui.index.workspace import daily_date, memory_location

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
    on the entry's first line; a second call with the same lines is a no-op.

    The entry is appended (never a rewrite), so what another writer appended meanwhile is kept."""
    from memtui.dreaming.promotion import LONG_TERM_HEADER, MARKER_PREFIX, MEMORY_FILE, promotion_markers

    memory_path = workspace_dir / MEMORY_FILE
    key = promotion_key(source, path, start_line, end_line)
    entry = markdown_entry(text, day=daily_date(path))
    entry[0] += f" [score={score:.3f} recalls=0 avg=0.000 source={path}:{start_line}-{end_line}]"
    section = f"## Promoted From Short-Term Memory ({day.isoformat()})"

    def block(existing: str) -> str | None:
        if key in promotion_markers(existing):
            return None
        header = "" if existing.strip() else LONG_TERM_HEADER
        separator = "" if not existing or existing.endswith("\n") else "\n"
        headings = [line for line in existing.splitlines() if line.startswith("## ")]
        opening = [] if headings and headings[-1] == section else ["", section]
        return header + separator + "\n".join([*opening, "", f"<!-- {MARKER_PREFIX}{key} -->", *entry, ""])

    appended = append_text(memory_path, block, root=workspace_dir)
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

    workspace_dir.mkdir(parents=True, exist_ok=True)  # a first note in a new agent's state dir starts it
    append_text(path, addition, root=workspace_dir)
    return path


def save_memory_file(workspace_dir: Path, rel: str, text: str, *, expected_digest: str | bool | None,
                     extra_paths: tuple[str, ...] = ()) -> str:
    """Save an edited memory file atomically, refusing a symlink anywhere below its root (the workspace, or
    the extra path it lives in) and a file changed on disk since it was read; returns the new digest."""
    location = memory_location(workspace_dir, rel, extra_paths)
    return atomic_write_text(location.target, text, expected_digest=expected_digest, root=location.root)

"""Daily-note ingestion of the light and REM phases, as OpenClaw 2026.4.29's `dreaming-phases.ts` does it:
managed dreaming blocks stripped, runs of up to four list or paragraph lines under the nearest specific
heading as 8–280 character snippets, recorded as `__dreaming_daily__:<day>` signals (score 0.62) once per
changed note (`daily-ingestion.json`)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from pathlib import Path

from memtui.dreaming.clock import dreaming_day, resolve_now
from memtui.dreaming.recall_store import dreams_dir, parse_iso, read_json_state, write_json_state
from memtui.dreaming.recalls import Hit, record_recalls
from memtui.dreaming.signals import IngestResult
from memtui.errors import MemtuiError
from memtui.jscompat import js_length, js_slice, js_squash, js_trim

DAILY_SCORE = 0.62
MIN_CHARS, MAX_CHARS = 8, 280
MAX_CHUNK_LINES = 4
INGESTION_NAME = "daily-ingestion.json"
MANAGED_BLOCKS = (
    ("## Light Sleep", "<!-- openclaw:dreaming:light:start -->", "<!-- openclaw:dreaming:light:end -->"),
    ("## REM Sleep", "<!-- openclaw:dreaming:rem:start -->", "<!-- openclaw:dreaming:rem:end -->"),
)
_DAY_FILE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")
_WEEKDAY = "mon|monday|tue|tues|tuesday|wed|wednesday|thu|thur|thurs|thursday|fri|friday|sat|saturday|sun|sunday"
_MONTH = ("jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|july|aug|august|sep|sept|september|oct|"
          "october|nov|november|dec|december")
_GENERIC_DAY = re.compile(rf"^(?:(?:{_WEEKDAY})(?:,\s+)?)?(?:(?:{_MONTH})\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,\s*\d{{4}})?|"
                          r"\d{1,2}[/-]\d{1,2}(?:[/-]\d{2,4})?|\d{4}[/-]\d{2}[/-]\d{2})$", re.IGNORECASE)
_GENERIC_WORDS = frozenset({"today", "yesterday", "tomorrow", "morning", "afternoon", "evening", "night"})
_LIST_LINE = re.compile(r"^([-*+]\s+|\d+\.\s+)")
_HEADING_LINE = re.compile(r"^#{1,6}\s+")


def _without_marker(line: str) -> str:
    return js_trim(re.sub(r"^[-*+]\s+", "", re.sub(r"^\d+\.\s+", "", line)))


def _generic(heading: str) -> bool:
    normalized = js_squash(heading)
    return not normalized or normalized.lower() in _GENERIC_WORDS or bool(_GENERIC_DAY.match(normalized))


def _heading(line: str) -> str | None:
    match = re.match(r"^#{1,6}\s+(.+)$", js_trim(line))
    if not match:
        return None
    heading = _without_marker(match.group(1))
    if not heading or _DAY_FILE_RE.match(heading) or _generic(heading):
        return None
    return re.sub(r"\s+", " ", js_slice(heading, 0, MAX_CHARS))


def _snippet(line: str) -> str | None:
    trimmed = js_trim(line)
    if not trimmed or trimmed.startswith(("#", "<!--")):
        return None
    text = _without_marker(trimmed)
    return None if js_length(text) < MIN_CHARS else re.sub(r"\s+", " ", js_slice(text, 0, MAX_CHARS))


def _chunk_text(heading: str | None, lines: list[str], kind: str) -> str:
    body = js_trim(("; " if kind == "list" else " ").join(lines))
    return js_trim(re.sub(r"\s+", " ", js_slice(f"{heading}: {body}" if heading else body, 0, MAX_CHARS)))


@dataclass(frozen=True)
class Chunk:
    """A snippet of a daily note and its 1-based inclusive lines."""

    start_line: int
    end_line: int
    snippet: str


def snippet_chunks(lines: list[str], limit: int) -> list[Chunk]:
    """OpenClaw's `buildDailySnippetChunks`: at most `limit` chunks."""
    chunks: list[Chunk] = []
    heading: str | None = None
    run: list[str] = []
    kind: str | None = None
    first = last = 0

    def flush() -> None:
        nonlocal kind
        if run:
            text = _chunk_text(heading, run, kind or "paragraph")
            if js_length(text) >= MIN_CHARS:
                chunks.append(Chunk(first, last, text))
        run.clear()
        kind = None

    for index, line in enumerate(lines):
        found = _heading(line)
        if found:
            flush()
            heading = found
            continue
        trimmed = js_trim(line)
        snippet = _snippet(line) if trimmed and not trimmed.startswith("<!--") else None
        if snippet is None:
            flush()
            continue
        line_kind = "list" if _LIST_LINE.match(trimmed) else "paragraph"
        candidate = _chunk_text(heading, [*run, snippet], line_kind)
        if run and (kind != line_kind or len(run) >= MAX_CHUNK_LINES or js_length(candidate) > MAX_CHARS):
            flush()
        if not run:
            first, kind = index + 1, line_kind
        run.append(snippet)
        last = index + 1
        if len(chunks) >= limit:
            break
    flush()
    return chunks[:limit]


def strip_managed_blocks(lines: list[str]) -> list[str]:
    """Blank the `## Light Sleep` / `## REM Sleep` blocks (heading through end marker, or up to the next
    heading or block) so dreaming output is never ingested."""
    blocks = {start: (heading, end) for heading, start, end in MANAGED_BLOCKS}
    out = list(lines)
    index = 0
    while index < len(out):
        block = blocks.get(js_trim(out[index]))
        if block is None:
            index += 1
            continue
        until = -1
        for cursor in range(index + 1, len(out)):
            text = js_trim(out[cursor])
            if text == block[1]:
                until = cursor
                break
            if out[cursor] and (_HEADING_LINE.match(text) or text in blocks):
                until = cursor - 1
                break
        if until < index:
            index += 1
            continue
        start = index
        for above in range(index - 1, -1, -1):
            if js_trim(lines[above]):
                start = above if js_trim(lines[above]) == block[0] else index
                break
        for cursor in range(start, until + 1):
            out[cursor] = ""
        index = until + 1
    return out


def _read_state(path: Path) -> dict[str, dict[str, int]]:
    try:
        raw = read_json_state(path)
    except MemtuiError:
        raw = None
    files = raw.get("files") if isinstance(raw, dict) else None
    state = {}
    for key, value in files.items() if isinstance(files, dict) else []:
        if isinstance(value, dict) and key.strip():
            mtime, size = value.get("mtimeMs"), value.get("size")
            if all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
                   for v in (mtime, size)):
                state[key] = {"mtimeMs": math.floor(mtime), "size": math.floor(size)}
    return state


def _within(day: str, cutoff: datetime) -> bool:
    end = parse_iso(f"{day}T23:59:59.999Z")
    return end is not None and end >= cutoff


def ingest_daily(workspace_dir: Path, *, now: datetime | None = None, tz: tzinfo | None, lookback_days: int = 2,
                 limit: int = 100) -> IngestResult:
    """Record changed daily notes of the lookback window (`ingestDailyMemorySignals`)."""
    moment = resolve_now(now)
    cutoff = moment - timedelta(days=max(0, lookback_days))
    memory_dir = workspace_dir / "memory"
    found = []
    if memory_dir.is_dir():
        for child in memory_dir.iterdir():
            match = _DAY_FILE_RE.match(child.name)
            if match and child.is_file() and not child.is_symlink() and _within(match.group(1), cutoff):
                found.append((match.group(1), child))
    found.sort(reverse=True)
    state_path = dreams_dir(workspace_dir) / INGESTION_NAME
    previous = _read_state(state_path)
    total_cap = max(20, limit * 4)
    per_file = max(6, math.ceil(total_cap / max(1, len(found))))
    batches: list[tuple[str, list[Hit]]] = []
    files: dict[str, dict[str, int]] = {}
    changed = False
    total = 0
    for day, path in found:
        relative = f"memory/{path.name}"
        info = path.stat()
        files[relative] = {"mtimeMs": max(0, info.st_mtime_ns) // 1_000_000, "size": info.st_size}
        if previous.get(relative) == files[relative]:
            continue
        changed = True
        text = path.read_bytes().decode("utf-8", errors="replace")
        hits: list[Hit] = []
        for chunk in snippet_chunks(strip_managed_blocks(re.split(r"\r?\n", text)), per_file) if text else []:
            hits.append(Hit(relative, chunk.start_line, chunk.end_line, DAILY_SCORE, chunk.snippet))
            if len(hits) >= per_file or total + len(hits) >= total_cap:
                break
        if not hits:
            continue
        batches.append((day, hits))
        total += len(hits)
        if total >= total_cap:
            break
    changed = changed or set(previous) != set(files)
    result = IngestResult()
    bucket = dreaming_day(moment, tz)
    for day, hits in batches:
        result.signals += record_recalls(workspace_dir, f"__dreaming_daily__:{day}", hits, signal="daily",
                                         dedupe_per_day=True, day=bucket, now=moment, tz=tz)
        result.files += 1
    if changed:
        write_json_state(state_path, {"version": 1, "files": files}, root=workspace_dir)
    return result

"""Promotion of ranked short-term candidates into MEMORY.md (§12.6): re-hydrate, append, mark."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from pathlib import Path

from memtui.atomic import atomic_write_text, file_digest
from memtui.dreaming.clock import dreaming_day, resolve_now
from memtui.dreaming.lock import short_term_lock
from memtui.dreaming.ranking import Candidate, RankOptions, rank_entries
from memtui.dreaming.recall_store import (
    iso_ms,
    load_phase_signals,
    load_recall_store,
    normalize_path,
    normalize_snippet,
    save_recall_store,
)
from memtui.dreaming.signals import is_unpromotable
from memtui.errors import PathError
from memtui.settings.dreaming import resolve_timezone

MEMORY_FILE = "MEMORY.md"
MARKER_PREFIX = "openclaw-memory-promotion:"
LONG_TERM_HEADER = "# Long-Term Memory\n\n"
_MARKER_RE = re.compile(r"<!--\s*openclaw-memory-promotion:([^\n]+?)\s*-->", re.IGNORECASE)
_FENCE_START_RE = re.compile(r"<!--\s*openclaw:dreaming:[a-z][a-z0-9-]*:start\s*-->", re.IGNORECASE)
_FENCE_END_RE = re.compile(r"<!--\s*openclaw:dreaming:[a-z][a-z0-9-]*:end\s*-->", re.IGNORECASE)


@dataclass
class PromotionResult:
    """What `apply_promotions` did."""

    memory_path: Path
    applied: list[Candidate] = field(default_factory=list)
    appended: int = 0
    already_present: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict:
        """JSON for `--json` output."""
        return {
            "memoryPath": str(self.memory_path),
            "applied": len(self.applied),
            "appended": self.appended,
            "reconciledExisting": self.already_present,
            "appliedCandidates": [c.to_json() for c in self.applied],
            "skipped": [{"key": key, "reason": reason} for key, reason in self.skipped],
        }


def list_candidates(
    workspace_dir: Path,
    *,
    now: datetime | None = None,
    min_score: float = 0.75,
    min_recall_count: int = 3,
    min_unique_queries: int = 2,
    include_promoted: bool = False,
    include_rejected: bool = False,
    max_age_days: float | None = None,
    recency_half_life_days: float = 14.0,
    limit: int | None = None,
) -> list[Candidate]:
    """Promotion candidates of the workspace, best first, each with components and evidence; eligible
    ones only unless `include_rejected` (then every entry, with the gates it fails in `rejected`)."""
    options = RankOptions(
        min_score=min_score,
        min_recall_count=min_recall_count,
        min_unique_queries=min_unique_queries,
        max_age_days=max_age_days,
        recency_half_life_days=recency_half_life_days,
        include_promoted=include_promoted,
        include_rejected=include_rejected,
        limit=limit,
    )
    store = load_recall_store(workspace_dir)
    signals = load_phase_signals(workspace_dir)
    return rank_entries(store.entries, signals.entries, resolve_now(now), options)


def _range_text(lines: list[str], start: int, end: int) -> str:
    return normalize_snippet(" ".join(lines[max(0, start - 1) : min(len(lines), end)]))


def _inside_dreaming_fence(lines: list[str], start: int, end: int) -> bool:
    inside = False
    for number, line in enumerate(lines[:end], start=1):
        if _FENCE_START_RE.search(line):
            inside = True
        elif _FENCE_END_RE.search(line):
            inside = False
        elif inside and number >= start:
            return True
    return False


def relocate(lines: list[str], candidate: Candidate) -> tuple[int, int, str] | None:
    """Find the candidate's snippet in the live file: the original range, else the nearest window
    (up to `max(span + 3, 8)` lines) that equals, contains or is contained in it."""
    target = normalize_snippet(candidate.snippet)
    if not target:
        return None
    exact = _range_text(lines, candidate.start_line, candidate.end_line)
    if exact == target:
        return candidate.start_line, candidate.end_line, exact
    preferred = max(1, candidate.end_line - candidate.start_line + 1)
    max_span = min(len(lines), max(preferred + 3, 8))
    best: tuple[int, int, int, int, int, str] | None = None
    for start in range(1, len(lines) + 1):
        for span in range(1, max_span + 1):
            end = start + span - 1
            if end > len(lines):
                break
            text = _range_text(lines, start, end)
            if not text or is_unpromotable(text):
                continue
            quality = 3 if text == target else 2 if target in text else 1 if text in target else 0
            if not quality:
                continue
            rank = (-quality, abs(start - candidate.start_line), abs(span - preferred))
            if best is None or rank < best[:3]:
                best = (*rank, start, end, text)
    return None if best is None else (best[3], best[4], best[5])


def rehydrate(workspace_dir: Path, candidate: Candidate) -> tuple[Candidate | None, str]:
    """The candidate re-read from its live file, or None with the reason it is missing or stale."""
    relative = normalize_path(candidate.path)
    path = (workspace_dir / relative).resolve()
    if not path.is_relative_to(workspace_dir.resolve()):
        return None, f"{relative} is outside the workspace"
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return None, f"{relative} no longer exists"
    found = relocate(lines, candidate)
    if found is None:
        return None, f"snippet no longer found in {relative} (stale)"
    start, end, text = found
    if _inside_dreaming_fence(lines, start, end):
        return None, f"{relative}:{start}-{end} lies inside a dreaming block"
    return replace(candidate, start_line=start, end_line=end, snippet=text), ""


def promotion_section(candidates: list[Candidate], day: str) -> str:
    """The appended block: blank line, dated heading, then one marker + bullet per candidate."""
    lines = ["", f"## Promoted From Short-Term Memory ({day})", ""]
    for c in candidates:
        lines.append(f"<!-- {MARKER_PREFIX}{c.key} -->")
        lines.append(
            f"- {c.snippet or '(no snippet captured)'} [score={c.score:.3f} recalls={c.recall_count} "
            f"avg={c.avg_score:.3f} source={c.source}]"
        )
    lines.append("")
    return "\n".join(lines)


def promotion_markers(text: str) -> set[str]:
    """Keys of every promotion marker already in MEMORY.md."""
    return {m.group(1).strip() for m in _MARKER_RE.finditer(text)}


def apply_promotions(
    workspace_dir: Path,
    candidates: list[Candidate],
    *,
    now: datetime | None = None,
    tz: tzinfo | None = None,
) -> PromotionResult:
    """Re-hydrate each candidate from its live file and append the fresh ones to MEMORY.md atomically.

    Candidates already marked in MEMORY.md are not written again; all applied ones get `promotedAt`.
    Missing or stale candidates are skipped with a reason.
    """
    moment = resolve_now(now)
    zone = tz if tz is not None else resolve_timezone(None)
    memory_path = workspace_dir / MEMORY_FILE
    result = PromotionResult(memory_path=memory_path)
    if memory_path.is_symlink():
        raise PathError(f"{memory_path} is a symlink; refusing to write promotions through it")
    with short_term_lock(workspace_dir):
        store = load_recall_store(workspace_dir)
        fresh: list[Candidate] = []
        for candidate in candidates:
            latest = store.entries.get(candidate.key)
            if latest is not None and latest.promoted_at:
                result.skipped.append((candidate.key, f"already promoted at {latest.promoted_at}"))
                continue
            hydrated, reason = rehydrate(workspace_dir, candidate)
            if hydrated is None:
                result.skipped.append((candidate.key, reason))
            else:
                fresh.append(hydrated)
        if not fresh:
            return result
        digest = file_digest(memory_path)
        existing = memory_path.read_text(encoding="utf-8") if digest is not None else ""
        markers = promotion_markers(existing)
        to_append = [c for c in fresh if c.key not in markers]
        result.already_present = len(fresh) - len(to_append)
        if to_append:
            header = "" if existing.strip() else LONG_TERM_HEADER
            base = existing if not existing or existing.endswith("\n") else existing + "\n"
            section = promotion_section(to_append, dreaming_day(moment, zone))
            atomic_write_text(memory_path, header + base + section, expected_digest=digest)
            result.appended = len(to_append)
        stamp = iso_ms(moment)
        for candidate in fresh:
            entry = store.entries.get(candidate.key)
            if entry is not None:
                entry.start_line, entry.end_line = candidate.start_line, candidate.end_line
                entry.snippet = candidate.snippet
                entry.promoted_at = stamp
        store.updated_at = stamp
        save_recall_store(workspace_dir, store)
        result.applied = fresh
    return result

"""Promotion of ranked short-term candidates into MEMORY.md (§12.6): re-hydrate, append, mark."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from pathlib import Path, PurePosixPath

from memtui.atomic import EscapeError, OutsideError, atomic_write_text, file_digest, open_linked_for_read
from memtui.dreaming.clock import dreaming_day, resolve_now
from memtui.dreaming.contamination import is_contaminated_snippet
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
from memtui.errors import PathError
from memtui.jscompat import js_to_fixed
from memtui.settings.dreaming import resolve_timezone

MEMORY_FILE = "MEMORY.md"
MARKER_PREFIX = "openclaw-memory-promotion:"
LONG_TERM_HEADER = "# Long-Term Memory\n\n"
_MARKER_RE = re.compile(r"<!--\s*openclaw-memory-promotion:([^\n]+?)\s*-->", re.IGNORECASE)


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
    first, last = max(0, start - 1), min(len(lines), end)
    return normalize_snippet(" ".join(lines[first:last])) if first < last else ""


def relocate(lines: list[str], candidate: Candidate) -> tuple[int, int, str] | None:
    """Find the candidate's snippet in the live file (OpenClaw's `relocateCandidateRange`): the original range,
    else the window of up to `max(span + 3, 8)` lines that best equals, contains or is contained in it —
    best quality, then nearest start, then closest span."""
    target = normalize_snippet(candidate.snippet)
    exact = _range_text(lines, candidate.start_line, candidate.end_line)
    if not target:
        return (candidate.start_line, candidate.end_line, exact) if exact else None
    if exact == target:
        return candidate.start_line, candidate.end_line, exact
    preferred = max(1, candidate.end_line - candidate.start_line + 1)
    max_span = min(len(lines), max(preferred + 3, 8))
    best: tuple[int, int, int, int, int, str] | None = None
    for start in range(1, len(lines) + 1):
        for span in range(1, min(max_span, len(lines) - start + 1) + 1):
            text = _range_text(lines, start, start + span - 1)
            if not text:
                continue
            quality = 3 if text == target else 2 if target in text else 1 if text in target else 0
            if not quality:
                continue
            rank = (-quality, abs(start - candidate.start_line), abs(span - preferred))
            if best is None or rank < best[:3]:
                best = (*rank, start, start + span - 1, text)
    return None if best is None else (best[3], best[4], best[5])


def _source_paths(workspace_dir: Path, relative: str) -> list[Path]:
    names = [relative] if relative.startswith("memory/") else [relative, f"memory/{PurePosixPath(relative).name}"]
    return list(dict.fromkeys(workspace_dir / name for name in names))


def rehydrate(workspace_dir: Path, candidate: Candidate) -> tuple[Candidate | None, str]:
    """The candidate re-read from its live file (its path, else `memory/<its file name>`), or None with the
    reason it is missing or stale."""
    relative = normalize_path(candidate.path)
    seen_file = False
    for path in _source_paths(workspace_dir, relative):
        try:
            with open_linked_for_read(workspace_dir, path) as handle:
                text = handle.read().decode("utf-8", errors="replace")
        except OutsideError:
            return None, f"{relative} is outside the workspace"
        except EscapeError as exc:
            return None, exc.message
        except FileNotFoundError:
            continue
        except OSError as exc:  # e.g. a link swapped in at the last moment (ELOOP), a permission
            return None, f"{relative} is not readable ({exc.strerror})"
        seen_file = True
        found = relocate(re.split(r"\r?\n", text), candidate)
        if found is not None:
            start, end, snippet = found
            return replace(candidate, start_line=start, end_line=end, snippet=snippet), ""
    if not seen_file:
        return None, f"{relative} no longer exists"
    return None, f"snippet no longer found in {relative} (stale)"


def promotion_section(candidates: list[Candidate], day: str) -> str:
    """The appended block: blank line, dated heading, then one marker + bullet per candidate (scores printed
    with JavaScript's `toFixed(3)`)."""
    lines = ["", f"## Promoted From Short-Term Memory ({day})", ""]
    for c in candidates:
        lines.append(f"<!-- {MARKER_PREFIX}{c.key} -->")
        lines.append(
            f"- {c.snippet or '(no snippet captured)'} [score={js_to_fixed(c.score, 3)} recalls={c.recall_count} "
            f"avg={js_to_fixed(c.avg_score, 3)} source={c.source}]"
        )
    lines.append("")
    return "\n".join(lines)


def promotion_markers(text: str) -> set[str]:
    """Keys of every promotion marker already in MEMORY.md."""
    return {m.group(1).strip() for m in _MARKER_RE.finditer(text)}


@dataclass(frozen=True)
class ApplyGates:
    """The gates `applyShortTermPromotions` re-checks (defaults: the manual `promote` command's)."""

    min_score: float = 0.75
    min_recall_count: int = 3
    min_unique_queries: int = 2
    max_age_days: float | None = None
    limit: int | None = None

    def passes(self, candidate: Candidate) -> bool:
        """Whether a ranked candidate may be promoted."""
        if is_contaminated_snippet(candidate.snippet) or candidate.promoted_at or candidate.score < self.min_score:
            return False
        if candidate.signal_count < self.min_recall_count:
            return False
        if max(candidate.unique_queries, len(candidate.recall_days)) < self.min_unique_queries:
            return False
        return self.max_age_days is None or self.max_age_days < 0 or candidate.age_days <= self.max_age_days


ANY_CANDIDATE = ApplyGates(min_score=0, min_recall_count=0, min_unique_queries=0)


def apply_promotions(
    workspace_dir: Path,
    candidates: list[Candidate],
    *,
    now: datetime | None = None,
    tz: tzinfo | None = None,
    gates: ApplyGates = ApplyGates(),
) -> PromotionResult:
    """Re-hydrate each candidate that passes `gates` from its live file and append the fresh ones to MEMORY.md
    atomically (OpenClaw's `applyShortTermPromotions`).

    Candidates already marked in MEMORY.md are not written again; all applied ones get `promotedAt` and their
    relocated lines. Missing or stale candidates are skipped with a reason.
    """
    moment = resolve_now(now)
    zone = tz if tz is not None else resolve_timezone(None)
    memory_path = workspace_dir / MEMORY_FILE
    result = PromotionResult(memory_path=memory_path)
    if memory_path.is_symlink():
        raise PathError(f"{memory_path} is a symlink; refusing to write promotions through it")
    stamp = iso_ms(moment)
    with short_term_lock(workspace_dir):
        store = load_recall_store(workspace_dir, stamp)
        chosen = []
        for candidate in candidates:
            latest = store.entries.get(candidate.key)
            if latest is not None and latest.promoted_at:
                result.skipped.append((candidate.key, f"already promoted at {latest.promoted_at}"))
            elif gates.passes(candidate):
                chosen.append(candidate)
        fresh: list[Candidate] = []
        for candidate in chosen[: gates.limit] if gates.limit is not None else chosen:
            hydrated, reason = rehydrate(workspace_dir, candidate)
            if hydrated is None or is_contaminated_snippet(hydrated.snippet):
                result.skipped.append((candidate.key, reason or "dreaming output, not memory"))
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
            atomic_write_text(memory_path, header + base + section, expected_digest=digest, root=workspace_dir)
            result.appended = len(to_append)
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

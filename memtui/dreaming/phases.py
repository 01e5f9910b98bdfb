"""The dreaming sweep (§12.1, §12.7): light phase (ingest + stage), deep phase (rank + promote),
their reports under `memory/dreaming/<phase>/YYYY-MM-DD.md`, and a diary entry."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from pathlib import Path

from memtui.atomic import atomic_write_text
from memtui.dreaming import diary
from memtui.dreaming.clock import dreaming_day, resolve_now
from memtui.dreaming.lock import WAIT_SECONDS, short_term_lock
from memtui.dreaming.promotion import PromotionResult, apply_promotions, list_candidates
from memtui.dreaming.ranking import Candidate
from memtui.dreaming.recall_store import RecallEntry, load_recall_store, parse_iso
from memtui.dreaming.signals import (
    IngestResult,
    SessionReader,
    ingest_daily,
    ingest_sessions,
    record_phase_hits,
)
from memtui.settings.dreaming import DreamingSettings

REPORTS_DIR = Path("memory") / "dreaming"
_TOKEN_RE = re.compile(r"[a-z0-9]+")


@dataclass
class SweepSummary:
    """Everything one sweep did, for reports, the diary narrative and `--json`."""

    day: str
    now: datetime
    daily: IngestResult = field(default_factory=IngestResult)
    sessions: IngestResult = field(default_factory=IngestResult)
    staged: list[RecallEntry] = field(default_factory=list)
    ranked: list[Candidate] = field(default_factory=list)
    promotion: PromotionResult | None = None
    reports: dict[str, Path] = field(default_factory=dict)
    diary_path: Path | None = None

    def to_json(self) -> dict:
        """JSON for `memtui dream --json`."""
        return {
            "day": self.day,
            "light": {
                "dailySignals": self.daily.signals,
                "dailyFiles": self.daily.files,
                "sessionSignals": self.sessions.signals,
                "sessionFiles": self.sessions.files,
                "notes": self.daily.notes + self.sessions.notes,
                "staged": len(self.staged),
            },
            "deep": {
                "ranked": len(self.ranked),
                "promotion": self.promotion.to_json() if self.promotion else None,
            },
            "reports": {phase: str(path) for phase, path in self.reports.items()},
            "diary": str(self.diary_path) if self.diary_path else None,
        }


Narrator = Callable[[SweepSummary], str]


def factual_narrative(summary: SweepSummary) -> str:
    """The default diary body: a plain account of the sweep, no model involved."""
    promoted = len(summary.promotion.applied) if summary.promotion else 0
    skipped = len(summary.promotion.skipped) if summary.promotion else 0
    lines = [
        f"Dreaming sweep for {summary.day}.",
        f"Light sleep ingested {summary.daily.signals} daily signal(s) from {summary.daily.files} note(s) "
        f"and {summary.sessions.signals} session signal(s), and staged {len(summary.staged)} candidate(s).",
        f"Deep sleep ranked {len(summary.ranked)} candidate(s) and promoted {promoted} into MEMORY.md"
        + (f"; {skipped} were skipped as missing or stale." if skipped else "."),
    ]
    if summary.promotion and summary.promotion.applied:
        lines.append("Promoted: " + "; ".join(c.snippet for c in summary.promotion.applied[:3]))
    return "\n\n".join(lines)


def _tokens(text: str) -> set[str]:
    return set(_TOKEN_RE.findall(text.lower()))


def _jaccard(left: str, right: str) -> float:
    a, b = _tokens(left), _tokens(right)
    if not a or not b:
        return 1.0 if left.strip().lower() == right.strip().lower() else 0.0
    return len(a & b) / len(a | b)


def _average(entry: RecallEntry) -> float:
    return max(0.0, min(1.0, entry.total_score / entry.signal_count)) if entry.signal_count else 0.0


def stage_light(
    workspace_dir: Path, now: datetime, lookback_days: int, limit: int, similarity: float
) -> list[RecallEntry]:
    """Unpromoted entries recalled within the lookback, near-duplicates (same path) merged, best first."""
    cutoff = now - timedelta(days=lookback_days)
    recent = []
    for entry in load_recall_store(workspace_dir).entries.values():
        seen = parse_iso(entry.last_recalled_at)
        if entry.promoted_at or seen is None or seen < cutoff:
            continue
        recent.append(entry)
    recent.sort(key=lambda e: (-_average(e), -e.signal_count, e.path, e.start_line))
    kept: list[RecallEntry] = []
    for entry in recent:
        if any(k.path == entry.path and _jaccard(k.snippet, entry.snippet) >= similarity for k in kept):
            continue
        kept.append(entry)
    return kept[:limit]


def light_report(entries: list[RecallEntry]) -> str:
    """`# Light Sleep` with one staged candidate block per entry."""
    lines = ["# Light Sleep", ""]
    if not entries:
        lines.append("- No notable updates.")
    for entry in entries:
        lines += [
            f"- Candidate: {entry.snippet or '(no snippet captured)'}",
            f"  - confidence: {_average(entry):.2f}",
            f"  - evidence: {entry.path}:{entry.start_line}-{entry.end_line}",
            f"  - recalls: {entry.recall_count}",
            "  - status: staged",
        ]
    return "\n".join(lines) + "\n"


def deep_report(ranked: list[Candidate], promotion: PromotionResult | None) -> str:
    """`# Deep Sleep` with the ranking and promotion counts and each promoted source."""
    applied = promotion.applied if promotion else []
    lines = ["# Deep Sleep", "", f"- Ranked {len(ranked)} candidate(s) for durable promotion."]
    lines.append(f"- Promoted {len(applied)} candidate(s) into MEMORY.md.")
    lines += [f"  - {c.source} score={c.score:.3f}" for c in applied]
    if promotion and promotion.skipped:
        lines.append(f"- Skipped {len(promotion.skipped)} candidate(s):")
        lines += [f"  - {key}: {reason}" for key, reason in promotion.skipped]
    return "\n".join(lines) + "\n"


def run_sweep(
    workspace_dir: Path,
    settings: DreamingSettings,
    *,
    tz: tzinfo,
    now: datetime | None = None,
    sessions_dir: Path | None = None,
    agent_id: str = "main",
    session_reader: SessionReader | None = None,
    narrator: Narrator = factual_narrative,
    lock_wait_seconds: float = WAIT_SECONDS,
) -> SweepSummary:
    """One sweep, light → deep, holding the workspace lock throughout (a concurrent sweep is refused)."""
    moment = resolve_now(now)
    summary = SweepSummary(day=dreaming_day(moment, tz), now=moment)
    light, deep = settings.light, settings.deep
    with short_term_lock(workspace_dir, wait_seconds=lock_wait_seconds):
        summary.daily = ingest_daily(
            workspace_dir, now=moment, tz=tz, lookback_days=light.lookback_days, limit=light.limit
        )
        if sessions_dir is not None:
            summary.sessions = ingest_sessions(
                workspace_dir, sessions_dir, agent_id, now=moment, tz=tz, reader=session_reader
            )
        summary.staged = stage_light(
            workspace_dir, moment, light.lookback_days, light.limit, light.dedupe_similarity
        )
        record_phase_hits(workspace_dir, "light", [e.key for e in summary.staged], now=moment)
        summary.reports["light"] = write_report(
            workspace_dir, "light", summary.day, light_report(summary.staged)
        )
        summary.ranked = list_candidates(
            workspace_dir,
            now=moment,
            min_score=deep.min_score,
            min_recall_count=deep.min_recall_count,
            min_unique_queries=deep.min_unique_queries,
            max_age_days=deep.max_age_days,
            recency_half_life_days=deep.recency_half_life_days,
            limit=deep.limit,
        )
        if summary.ranked:
            summary.promotion = apply_promotions(workspace_dir, summary.ranked, now=moment, tz=tz)
        summary.reports["deep"] = write_report(
            workspace_dir, "deep", summary.day, deep_report(summary.ranked, summary.promotion)
        )
        summary.diary_path = diary.append_entry(workspace_dir, narrator(summary), now=moment, tz=tz)
    return summary


def write_report(workspace_dir: Path, phase: str, day: str, text: str) -> Path:
    """Write `memory/dreaming/<phase>/<day>.md` atomically (separate storage mode)."""
    path = workspace_dir / REPORTS_DIR / phase / f"{day}.md"
    atomic_write_text(path, text)
    return path

"""The dreaming sweep as OpenClaw 2026.4.29 runs it for one workspace (§12.1, §12.7): light (ingest, stage
recent entries), REM (reflections and possible lasting truths), then deep (repair, rank, promote); each phase
writes its block into today's note and/or its report under `memory/dreaming/<phase>/`, revisits its keys in
`phase-signals.json`, and asks the narrator for a diary entry."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path, PurePosixPath

from memtui.atomic import atomic_write_text
from memtui.dreaming import diary
from memtui.dreaming.clock import dreaming_day, resolve_now
from memtui.dreaming.daily import ingest_daily
from memtui.dreaming.lock import WAIT_SECONDS, short_term_lock
from memtui.dreaming.promotion import ApplyGates, PromotionResult, apply_promotions, list_candidates
from memtui.dreaming.ranking import Candidate
from memtui.dreaming.recall_store import (
    RecallEntry,
    is_short_term_path,
    iso_ms,
    load_recall_store,
    parse_iso,
    repair_recall_store,
)
from memtui.dreaming.signals import IngestResult, SessionReader, ingest_sessions, record_phase_hits
from memtui.dreaming.sleep import dedupe_entries, light_body, rem_preview, within_lookback
from memtui.settings.dreaming import DreamingSettings

REPORTS_DIR = Path("memory") / "dreaming"
PHASE_TITLES = {"light": ("# Light Sleep", "## Light Sleep"), "rem": ("# REM Sleep", "## REM Sleep")}
FALLBACK_NARRATIVE = "A memory trace surfaced, but details were unavailable in this run."

Narrator = Callable[[str, list[str], list[str], list[str]], str | None]
"""(phase, snippets, themes, promotions) → one diary entry, or None to write none."""


def fallback_narrator(phase: str, snippets: list[str], themes: list[str], promotions: list[str]) -> str | None:
    """OpenClaw's entry when no model can write one: the first fragment, else the first promotion."""
    del phase, themes
    first = next((s.strip() for s in snippets if s.strip()), None)
    return first or next((p.strip() for p in promotions if p.strip()), None) or FALLBACK_NARRATIVE


@dataclass
class SweepSummary:
    """Everything one sweep did, for `memtui dream --json`."""

    day: str
    now: datetime
    daily: IngestResult = field(default_factory=IngestResult)
    sessions: IngestResult = field(default_factory=IngestResult)
    staged: list[RecallEntry] = field(default_factory=list)
    rem_keys: list[str] = field(default_factory=list)
    ranked: list[Candidate] = field(default_factory=list)
    promotion: PromotionResult | None = None
    written: dict[str, list[str]] = field(default_factory=dict)
    diary_entries: int = 0

    def to_json(self) -> dict:
        """JSON for `memtui dream --json`."""
        return {
            "day": self.day,
            "light": {"dailySignals": self.daily.signals, "dailyFiles": self.daily.files,
                      "sessionSignals": self.sessions.signals, "sessionFiles": self.sessions.files,
                      "notes": self.daily.notes + self.sessions.notes, "staged": len(self.staged)},
            "rem": {"truths": len(self.rem_keys)},
            "deep": {"ranked": len(self.ranked), "promotion": self.promotion.to_json() if self.promotion else None},
            "written": self.written,
            "diaryEntries": self.diary_entries,
        }


def _live(workspace_dir: Path, entry: RecallEntry) -> bool:
    names = [entry.path] if entry.path.startswith("memory/") else [entry.path,
                                                                   f"memory/{PurePosixPath(entry.path).name}"]
    return any((workspace_dir / name).is_file() for name in names)


def recent_entries(workspace_dir: Path, now: datetime, lookback_days: int) -> list[RecallEntry]:
    """Short-term entries recalled within the lookback whose source file still exists, in store order."""
    store = load_recall_store(workspace_dir, iso_ms(now))
    return [e for e in store.entries.values() if is_short_term_path(e.path)
            and within_lookback(e, now, lookback_days) and _live(workspace_dir, e)]


def replace_managed_block(original: str, heading: str, start: str, end: str, body: str) -> str:
    """The managed block (heading, markers, body) replaced in place, else appended after a blank line."""
    block = f"{heading}\n{start}\n{body}\n{end}"
    pattern = re.compile(re.escape(f"{heading}\n{start}") + r"[\s\S]*?" + re.escape(end), re.MULTILINE)
    if pattern.search(original):
        return pattern.sub(lambda _: block, original, count=1)
    trimmed = original.rstrip("\t\n\v\f\r \u00a0\u2028\u2029\ufeff")
    return f"{block}\n" if not trimmed else f"{trimmed}\n\n{block}\n"


def write_phase(workspace_dir: Path, settings: DreamingSettings, phase: str, lines: list[str],
                day: str) -> list[str]:
    """Write a light or REM block inline and/or as a report; returns the workspace paths written."""
    body = "\n".join(lines) if lines else "- No notable updates."
    written = []
    if settings.writes_inline:
        path = workspace_dir / "memory" / f"{day}.md"
        original = path.read_text(encoding="utf-8") if path.is_file() else ""
        updated = replace_managed_block(original, PHASE_TITLES[phase][1], f"<!-- openclaw:dreaming:{phase}:start -->",
                                        f"<!-- openclaw:dreaming:{phase}:end -->", body)
        atomic_write_text(path, updated if updated.endswith("\n") else updated + "\n", root=workspace_dir)
        written.append(f"memory/{day}.md")
    if settings.writes_reports:
        relative = REPORTS_DIR / phase / f"{day}.md"
        atomic_write_text(workspace_dir / relative, f"{PHASE_TITLES[phase][0]}\n\n{body}\n", root=workspace_dir)
        written.append(relative.as_posix())
    return written


def _narrate(workspace_dir: Path, narrator: Narrator, phase: str, snippets: list[str], themes: list[str],
             promotions: list[str], now: datetime, tz: tzinfo | None) -> int:
    if not snippets and not promotions:
        return 0
    text = narrator(phase, snippets, themes, promotions)
    if not text:
        return 0
    diary.append_entry(workspace_dir, text, now=now, tz=tz)
    return 1


def _light(workspace_dir: Path, settings: DreamingSettings, summary: SweepSummary, tz: tzinfo | None,
           narrator: Narrator) -> None:
    light, moment = settings.light, summary.now
    entries = recent_entries(workspace_dir, moment, light.lookback_days)
    entries.sort(key=lambda e: -e.recall_count)
    entries.sort(key=lambda e: -_millis(e.last_recalled_at))
    staged = dedupe_entries(entries[: light.limit], light.dedupe_similarity)[: light.limit]
    summary.staged = staged
    summary.written["light"] = write_phase(workspace_dir, settings, "light", light_body(staged), summary.day)
    record_phase_hits(workspace_dir, "light", [e.key for e in staged], now=moment)
    themes = list(dict.fromkeys(t for e in staged for t in e.concept_tags if t))
    summary.diary_entries += _narrate(workspace_dir, narrator, "light", [e.snippet for e in staged if e.snippet],
                                      themes, [], moment, tz)


def _rem(workspace_dir: Path, settings: DreamingSettings, summary: SweepSummary, tz: tzinfo | None,
         narrator: Narrator) -> None:
    rem, moment = settings.rem, summary.now
    entries = recent_entries(workspace_dir, moment, rem.lookback_days)
    preview = rem_preview(entries, rem.limit, rem.min_pattern_strength)
    summary.rem_keys = preview.keys
    summary.written["rem"] = write_phase(workspace_dir, settings, "rem", preview.body, summary.day)
    record_phase_hits(workspace_dir, "rem", preview.keys, now=moment)
    if entries:
        snippets = [t.snippet for t in preview.truths if t.snippet] or [e.snippet for e in entries[:8] if e.snippet]
        themes = [line for line in preview.reflections if not line.startswith(("- No strong", "  -"))]
        summary.diary_entries += _narrate(workspace_dir, narrator, "rem", snippets, themes, [], moment, tz)


def _millis(stamp: str) -> float:
    parsed = parse_iso(stamp)
    return parsed.timestamp() * 1000 if parsed is not None else float("nan")


def _deep(workspace_dir: Path, settings: DreamingSettings, summary: SweepSummary, tz: tzinfo | None,
          narrator: Narrator) -> None:
    deep, moment = settings.deep, summary.now
    lines = []
    rewritten, invalid = repair_recall_store(workspace_dir, iso_ms(moment))
    if rewritten:
        lines.append(f"- Repaired recall artifacts: rewrote recall store{f' (-{invalid} invalid)' if invalid else ''}.")
    summary.ranked = list_candidates(workspace_dir, now=moment, min_score=deep.min_score,
                                     min_recall_count=deep.min_recall_count,
                                     min_unique_queries=deep.min_unique_queries, max_age_days=deep.max_age_days,
                                     recency_half_life_days=deep.recency_half_life_days, limit=deep.limit)
    lines.append(f"- Ranked {len(summary.ranked)} candidate(s) for durable promotion.")
    gates = ApplyGates(min_score=deep.min_score, min_recall_count=deep.min_recall_count,
                       min_unique_queries=deep.min_unique_queries, max_age_days=deep.max_age_days, limit=deep.limit)
    summary.promotion = apply_promotions(workspace_dir, summary.ranked, now=moment, tz=tz, gates=gates)
    lines.append(f"- Promoted {len(summary.promotion.applied)} candidate(s) into MEMORY.md.")
    if settings.writes_reports:
        relative = REPORTS_DIR / "deep" / f"{summary.day}.md"
        atomic_write_text(workspace_dir / relative, "# Deep Sleep\n\n" + "\n".join(lines) + "\n",
                          root=workspace_dir)
        summary.written["deep"] = [relative.as_posix()]
    if summary.ranked or summary.promotion.applied:
        summary.diary_entries += _narrate(workspace_dir, narrator, "deep",
                                          [c.snippet for c in summary.ranked if c.snippet],
                                          [], [c.snippet for c in summary.promotion.applied if c.snippet],
                                          moment, tz)


def run_sweep(
    workspace_dir: Path,
    settings: DreamingSettings,
    *,
    tz: tzinfo | None,
    now: datetime | None = None,
    sessions_dir: Path | None = None,
    agent_id: str = "main",
    session_reader: SessionReader | None = None,
    narrator: Narrator = fallback_narrator,
    lock_wait_seconds: float = WAIT_SECONDS,
) -> SweepSummary:
    """One sweep, light → REM → deep, holding the workspace lock throughout (a concurrent sweep is refused).

    Run by hand, it runs whether or not `dreaming.enabled` is set; each phase's own `enabled` and `limit`
    still apply."""
    moment = resolve_now(now)
    summary = SweepSummary(day=dreaming_day(moment, tz), now=moment)
    with short_term_lock(workspace_dir, wait_seconds=lock_wait_seconds):
        for enabled, limit, lookback, run in (
                (settings.light.enabled, settings.light.limit, settings.light.lookback_days, _light),
                (settings.rem.enabled, settings.rem.limit, settings.rem.lookback_days, _rem)):
            if not enabled or limit <= 0:
                continue
            found = ingest_daily(workspace_dir, now=moment, tz=tz, lookback_days=lookback, limit=limit)
            summary.daily = IngestResult(summary.daily.files + found.files, summary.daily.signals + found.signals,
                                         summary.daily.notes + found.notes)
            if sessions_dir is not None:
                found = ingest_sessions(workspace_dir, sessions_dir, agent_id, now=moment, tz=tz,
                                        reader=session_reader)
                summary.sessions = IngestResult(summary.sessions.files + found.files,
                                                summary.sessions.signals + found.signals,
                                                summary.sessions.notes + found.notes)
            run(workspace_dir, settings, summary, tz, narrator)
        if settings.deep.enabled and settings.deep.limit > 0:
            _deep(workspace_dir, settings, summary, tz, narrator)
    return summary

"""Recall and daily signals into the short-term store (OpenClaw's `recordShortTermRecalls`, §12.4): what
every memory search records, so a search imports this and not the ingestion and backfill signals."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path

from memtui.agentdb.plugin_state import bound_database
from memtui.dreaming.clock import dreaming_day, resolve_now
from memtui.dreaming.contamination import is_contaminated_snippet
from memtui.dreaming.lock import short_term_lock
from memtui.dreaming.recall_store import (
    MAX_QUERY_HASHES,
    MAX_RECALL_DAYS,
    RecallEntry,
    claim_hash,
    derive_concept_tags,
    entry_key,
    hash_query,
    is_short_term_path,
    iso_day,
    iso_ms,
    merge_recent,
    normalize_path,
    normalize_snippet,
)
from memtui.dreaming.recall_updates import RecallUpdate
from memtui.settings.dreaming import resolve_timezone


@dataclass(frozen=True)
class Hit:
    """A search hit (or ingested snippet) on a memory file, with 1-based inclusive lines."""

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str


def clamp01(value: float) -> float:
    """`value` clamped to [0, 1]; 0 when it is not finite."""
    return 0.0 if not math.isfinite(value) else max(0.0, min(1.0, value))


def _bucket(day: str | None, moment: datetime, tz: tzinfo | None) -> str:
    return iso_day(day or "") or dreaming_day(moment, tz if tz is not None else resolve_timezone(None))


def record_recalls(
    workspace_dir: Path,
    query: str,
    hits: Iterable[Hit],
    *,
    signal: str = "recall",
    dedupe_per_day: bool = False,
    day: str | None = None,
    now: datetime | None = None,
    tz: tzinfo | None = None,
) -> int:
    """Add one `recall` or `daily` signal per short-term hit (OpenClaw's `recordShortTermRecalls`); returns
    how many entries changed. Slug files, `memory/dreaming/` reports and dreaming-output snippets count none.

    With `dedupe_per_day`, a hit whose entry already saw this query on `day` adds no counts.
    """
    if signal not in ("recall", "daily"):
        raise ValueError(f"unknown signal type {signal!r}")
    query = query.strip()
    relevant = [h for h in hits if is_short_term_path(h.path)]
    if not query or not relevant:
        return 0
    moment = resolve_now(now)
    stamp = iso_ms(moment)
    bucket = _bucket(day, moment, tz)
    qhash = hash_query(query)
    recorded = 0
    with short_term_lock(workspace_dir):
        store = RecallUpdate(workspace_dir, stamp)
        for hit in relevant:
            path = normalize_path(hit.path)
            snippet = normalize_snippet(hit.snippet)
            if not snippet or is_contaminated_snippet(snippet):
                continue
            start, end = max(1, math.floor(hit.start_line)), max(1, math.floor(hit.end_line))
            grounded_key = entry_key(path, start, end, claim_hash(snippet))
            key = grounded_key if grounded_key in store else entry_key(path, hit.start_line, hit.end_line)
            old = store.get(key)
            duplicate = bool(dedupe_per_day and old and qhash in old.query_hashes and bucket in old.recall_days)
            score = 0.0 if duplicate else clamp01(hit.score)
            step = 0 if duplicate else 1
            tags = derive_concept_tags(path, snippet)
            store.put(key, RecallEntry(
                key=key,
                path=path,
                start_line=start,
                end_line=end,
                snippet=snippet,
                recall_count=(old.recall_count if old else 0) + (step if signal == "recall" else 0),
                daily_count=(old.daily_count if old else 0) + (step if signal == "daily" else 0),
                grounded_count=old.grounded_count if old else 0,
                total_score=max(0.0, (old.total_score if old else 0.0) + score),
                max_score=max(old.max_score if old else 0.0, score),
                first_recalled_at=old.first_recalled_at if old else stamp,
                last_recalled_at=stamp,
                query_hashes=merge_recent(old.query_hashes if old else [], qhash, MAX_QUERY_HASHES),
                recall_days=merge_recent(old.recall_days if old else [], bucket, MAX_RECALL_DAYS),
                concept_tags=tags or (old.concept_tags if old else []),
                claim_hash=old.claim_hash if old else None,
                promoted_at=old.promoted_at if old else None,
            ))
            recorded += 1
        store.save(stamp)
    return recorded


def record_search_hits(
    workspace_dir: Path,
    query: str,
    hits: Iterable[tuple[str, float, float, float, str, str]],
    *,
    now: datetime | None = None,
    tz: tzinfo | None = None,
) -> int:
    """Record `memory_search` / CLI search hits `(path, start, end, score, snippet, source)`.

    Only `memory`-source hits on short-term paths count; returns how many were recorded. Nothing is recorded for
    an OpenClaw 2026.9 agent's workspace, whose recall state is OpenClaw's database (memtui never writes it).
    """
    if bound_database(Path(workspace_dir)) is not None:
        return 0
    usable = [
        Hit(path, start, end, score, snippet)
        for path, start, end, score, snippet, source in hits
        if source == "memory"
    ]
    return record_recalls(Path(workspace_dir), query, usable, now=now, tz=tz)

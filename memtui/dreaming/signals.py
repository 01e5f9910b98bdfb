"""Signals feeding the short-term store (§12.4) besides search recalls (`recalls.py`): session ingestion,
grounded backfill and light/REM phase revisits."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path

from memtui.atomic import atomic_write_text
from memtui.dreaming.clock import dreaming_day, resolve_now
from memtui.dreaming.contamination import is_contaminated_snippet
from memtui.dreaming.lock import short_term_lock
from memtui.dreaming.recall_store import (
    MAX_QUERY_HASHES,
    MAX_RECALL_DAYS,
    PhaseSignal,
    RecallEntry,
    claim_hash,
    derive_concept_tags,
    dreams_dir,
    entry_key,
    hash_query,
    is_short_term_path,
    iso_day,
    iso_ms,
    load_phase_signals,
    load_recall_store,
    merge_recent,
    normalize_path,
    normalize_snippet,
    read_json_state,
    save_phase_signals,
    save_recall_store,
    write_json_state,
)
from memtui.dreaming.recalls import Hit, clamp01, record_recalls
from memtui.jscompat import sha1_hex
from memtui.settings.dreaming import resolve_timezone

SESSION_SCORE = 0.58
SESSION_MIN_CHARS, SESSION_MAX_CHARS = 12, 280
SESSION_MAX_PER_FILE = 80
SESSION_MAX_PER_SWEEP = 240
SEEN_MESSAGES_CAP = 4096
SESSION_INGESTION_NAME = "session-ingestion.json"
SESSION_CORPUS_DIR = "session-corpus"


@dataclass
class IngestResult:
    """What one ingestion pass did."""

    files: int = 0
    signals: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GroundedItem:
    """A grounded backfill candidate: its place, claim and score, with the query, weight and day it counts for."""

    path: str
    start_line: float
    end_line: float
    snippet: str
    score: float
    query: str | None = None
    signal_count: float | None = None
    day_bucket: str | None = None


def record_grounded(workspace_dir: Path, query: str, items: Sequence[GroundedItem], *, day: str | None = None,
                    dedupe_per_day: bool = False, now: datetime | None = None, tz: tzinfo | None = None) -> list[str]:
    """Stage grounded backfill candidates (OpenClaw's `recordGroundedShortTermCandidates`): claim-hash keys,
    `groundedCount += signalCount`; returns their keys."""
    query = query.strip()
    moment = resolve_now(now)
    stamp = iso_ms(moment)
    usable = []
    for item in items:
        path, snippet = normalize_path(item.path), normalize_snippet(item.snippet)
        if not snippet or is_contaminated_snippet(snippet) or not path or not is_short_term_path(path):
            continue
        if not (math.isfinite(item.start_line) and math.isfinite(item.end_line)):
            continue
        weight = max(1, math.floor(item.signal_count if item.signal_count is not None else 1))
        usable.append((path, max(1, math.floor(item.start_line)), max(1, math.floor(item.end_line)), snippet,
                       clamp01(item.score), normalize_snippet(item.query if item.query is not None else query),
                       weight, iso_day(item.day_bucket or day or "")))
    if not query or not usable:
        return []
    fallback_day = dreaming_day(moment, tz if tz is not None else resolve_timezone(None))
    keys: list[str] = []
    with short_term_lock(workspace_dir):
        store = load_recall_store(workspace_dir, stamp)
        for path, start, end, snippet, score, item_query, weight, item_day in usable:
            bucket = item_day or fallback_day
            qhash = hash_query(item_query or query)
            claim = claim_hash(snippet)
            key = entry_key(path, start, end, claim)
            old = store.entries.get(key)
            duplicate = bool(dedupe_per_day and old and qhash in old.query_hashes and bucket in old.recall_days)
            tags = derive_concept_tags(path, snippet)
            store.entries[key] = RecallEntry(
                key=key,
                path=path,
                start_line=start,
                end_line=end,
                snippet=snippet,
                recall_count=old.recall_count if old else 0,
                daily_count=old.daily_count if old else 0,
                grounded_count=(old.grounded_count if old else 0) + (0 if duplicate else weight),
                total_score=max(0.0, (old.total_score if old else 0.0) + (0.0 if duplicate else score * weight)),
                max_score=max(old.max_score if old else 0.0, 0.0 if duplicate else score),
                first_recalled_at=old.first_recalled_at if old else stamp,
                last_recalled_at=stamp,
                query_hashes=merge_recent(old.query_hashes if old else [], qhash, MAX_QUERY_HASHES),
                recall_days=merge_recent(old.recall_days if old else [], bucket, MAX_RECALL_DAYS),
                concept_tags=tags or (old.concept_tags if old else []),
                claim_hash=claim,
                promoted_at=old.promoted_at if old else None,
            )
            keys.append(key)
        store.updated_at = stamp
        save_recall_store(workspace_dir, store)
    return keys


def record_phase_hits(
    workspace_dir: Path, phase: str, keys: Iterable[str], *, now: datetime | None = None
) -> int:
    """Count a light or REM revisit of known recall keys in `phase-signals.json` (nothing written without
    keys); signals of keys no longer in the store are dropped."""
    if phase not in ("light", "rem"):
        raise ValueError(f"unknown dreaming phase {phase!r}")
    stamp = iso_ms(resolve_now(now))
    wanted = list(dict.fromkeys(k.strip() for k in keys if k.strip()))
    if not wanted:
        return 0
    with short_term_lock(workspace_dir):
        known = set(load_recall_store(workspace_dir, stamp).entries)
        signals = load_phase_signals(workspace_dir, stamp)
        touched = 0
        for key in wanted:
            if key not in known:
                continue
            entry = signals.entries.setdefault(key, PhaseSignal(key=key))
            if phase == "light":
                entry.light_hits = min(9999, entry.light_hits + 1)
                entry.last_light_at = stamp
            else:
                entry.rem_hits = min(9999, entry.rem_hits + 1)
                entry.last_rem_at = stamp
            touched += 1
        signals.entries = {k: v for k, v in signals.entries.items()
                           if k in known and (v.light_hits > 0 or v.rem_hits > 0)}
        signals.updated_at = stamp
        save_phase_signals(workspace_dir, signals)
    return touched


def _fingerprint(path: Path) -> dict[str, int]:
    stat = path.stat()
    return {"mtimeMs": int(stat.st_mtime * 1000), "size": stat.st_size}


SessionReader = Callable[[Path], list[tuple[int, str]]]
"""Renders one transcript into `(jsonl_line, "User: …" / "Assistant: …")` pairs, already redacted."""


def default_session_reader(path: Path) -> list[tuple[int, str]]:
    """Render (and redact) with `memtui.index.transcripts`, imported on first use."""
    from memtui.index.transcripts import build_session_document

    document = build_session_document(path)
    lines = document.content.split("\n") if document.content else []
    return [(int(n), text) for n, text in zip(document.line_map, lines, strict=False)]


def ingest_sessions(
    workspace_dir: Path,
    sessions_dir: Path,
    agent_id: str,
    *,
    now: datetime | None = None,
    tz: tzinfo,
    reader: SessionReader | None = None,
) -> IngestResult:
    """Append new transcript messages to `session-corpus/<day>.txt` and record them as session signals."""
    result = IngestResult()
    if not sessions_dir.is_dir():
        return result
    read = reader or default_session_reader
    moment = resolve_now(now)
    today = dreaming_day(moment, tz)
    state_path = dreams_dir(workspace_dir) / SESSION_INGESTION_NAME
    raw_state = read_json_state(state_path)
    state = raw_state if isinstance(raw_state, dict) and raw_state.get("version") == 3 else {}
    files_state: dict[str, dict] = dict(state.get("files") or {})
    seen_all: dict[str, list[str]] = dict(state.get("seenMessages") or {})
    seen = list(seen_all.get(agent_id, []))
    seen_set = set(seen)
    corpus_path = dreams_dir(workspace_dir) / SESSION_CORPUS_DIR / f"{today}.txt"
    corpus_lines = corpus_path.read_text(encoding="utf-8").splitlines() if corpus_path.exists() else []
    new_hits: list[Hit] = []
    for path in sorted(p for p in sessions_dir.glob("*.jsonl") if p.is_file()):
        if len(new_hits) >= SESSION_MAX_PER_SWEEP:
            break
        name = path.name
        fingerprint = _fingerprint(path)
        old = files_state.get(name) or {}
        if old.get("mtimeMs") == fingerprint["mtimeMs"] and old.get("size") == fingerprint["size"]:
            continue
        try:
            rendered = read(path)
        except ImportError as exc:
            result.notes.append(f"session ingestion unavailable: {exc}")
            return result
        content_hash = sha1_hex("\n".join(text for _, text in rendered))
        last_line = int(old.get("lastContentLine") or 0) if old.get("contentHash") else 0
        taken = 0
        for jsonl_line, text in rendered:
            if jsonl_line <= last_line:
                continue
            snippet = normalize_snippet(text)[:SESSION_MAX_CHARS].strip()
            digest = sha1_hex(snippet)[:16]
            if len(snippet) < SESSION_MIN_CHARS or digest in seen_set:
                continue
            if taken >= SESSION_MAX_PER_FILE or len(new_hits) >= SESSION_MAX_PER_SWEEP:
                break
            corpus_lines.append(f"[{agent_id}/{name}#L{jsonl_line}] {snippet}")
            relative = f"memory/.dreams/{SESSION_CORPUS_DIR}/{today}.txt"
            new_hits.append(Hit(relative, len(corpus_lines), len(corpus_lines), SESSION_SCORE, snippet))
            seen.append(digest)
            seen_set.add(digest)
            taken += 1
        files_state[name] = {
            **fingerprint,
            "contentHash": content_hash,
            "lineCount": len(rendered),
            "lastContentLine": max([n for n, _ in rendered], default=0),
        }
        if taken:
            result.files += 1
    if new_hits:
        atomic_write_text(corpus_path, "\n".join(corpus_lines) + "\n", root=workspace_dir)
        result.signals = record_recalls(
            workspace_dir,
            f"__dreaming_sessions__:{today}",
            new_hits,
            signal="daily",
            dedupe_per_day=True,
            day=today,
            now=moment,
        )
    seen_all[agent_id] = seen[-SEEN_MESSAGES_CAP:]
    new_state = {"version": 3, "files": files_state, "seenMessages": seen_all}
    if new_state != raw_state:
        write_json_state(state_path, new_state, root=workspace_dir)
    return result

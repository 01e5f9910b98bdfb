"""The score multipliers both search paths apply: temporal decay, importance and project ranking."""

from __future__ import annotations

import datetime
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import regex

from memtui.agentdb.agent_index import AgentIndex
from memtui.agentdb.candidates import Hit

HALF_LIFE_DAYS = 30.0
DAY_MS = 86_400_000
INVALID_PROJECT_KEY = "!invalid-project-annotation"
_DATED_PATH = regex.compile(r"(?:^|/)memory/(?:[^/]+/)*(\d{4})-(\d{2})-(\d{2})(?:-[^/]+)?\.md$")


def _timestamp_ms(index: AgentIndex, hit: Hit, workspace_dir: Path | None) -> tuple[float | None, str]:
    """`extractTimestamp` for a memory file: the date in a `memory/…/YYYY-MM-DD*.md` name (UTC midnight), none for
    evergreen files (MEMORY.md, USER.md, undated memory/**), else the file's mtime (OpenClaw stats the workspace
    file; without `workspace_dir` the indexed mtime stands in)."""
    normalized = hit.path.replace("\\", "/")
    if normalized.startswith("./"):
        normalized = normalized[2:]
    if hit.source == "sessions":
        mtime = index.source_mtime(hit.source, hit.path)
        return mtime, "session mtime"
    match = _DATED_PATH.search(normalized)
    if match:
        year, month, day = (int(g) for g in match.groups())
        try:
            stamp = datetime.datetime(year, month, day, tzinfo=datetime.UTC)
        except ValueError:
            stamp = None
        if stamp is not None:
            return stamp.timestamp() * 1000, "date in path"
    if hit.source == "memory" and (normalized in ("MEMORY.md", "USER.md") or (
            normalized.startswith("memory/") and not match)):
        return None, "evergreen"
    if workspace_dir is not None:
        try:
            return os.stat(workspace_dir / hit.path).st_mtime_ns / 1e6, "file mtime"
        except OSError:
            return None, "file missing"
    return index.source_mtime(hit.source, hit.path), "indexed mtime"


def apply_decay(index: AgentIndex, items: Sequence[Any], now_ms: int, workspace_dir: Path | None,
                hit_of: Callable[[Any], Hit], score_of: Callable[[Any], float],
                set_score: Callable[[Any, float], None]) -> None:
    """`applyTemporalDecayToHybridResults`: score × exp(−ln2/30 · age in days) for hits with a timestamp."""
    cache: dict[tuple[str, str], tuple[float | None, str]] = {}
    for item in items:
        hit = hit_of(item)
        key = (hit.source, hit.path)
        if key not in cache:
            cache[key] = _timestamp_ms(index, hit, workspace_dir)
        stamp, why = cache[key]
        if stamp is None:
            hit.trace["decay"] = {"timestamp": None, "why": why, "factor": 1.0}
            continue
        age = max(0.0, (now_ms - stamp) / DAY_MS)
        factor = math.exp(-(math.log(2) / HALF_LIFE_DAYS) * age) if math.isfinite(age) else 1.0
        hit.trace["decay"] = {"timestamp": stamp, "why": why, "ageDays": age, "factor": factor}
        set_score(item, score_of(item) * factor)


def importance_multiplier(importance: int | None) -> float:
    """`importanceMultiplier`: 0.75 + 0.05·clamp(floor(importance), 1, 10); 1 without an importance."""
    if importance is None:
        return 1.0
    return 0.75 + max(1, min(10, math.floor(importance))) * 0.05


def project_multiplier(project_key: str | None, active: frozenset[str]) -> float:
    """`projectScoreMultiplier`: ×1.15 when every key of the chunk is active, ×0.9 otherwise, ×1 without keys."""
    if not project_key or not active:
        return 1.0
    keys = [k.strip() for k in project_key.split(";") if k.strip()]
    return 1.15 if all(k in active for k in keys) else 0.9


def project_eligible(hit: Hit) -> bool:
    """False for a chunk whose project annotation OpenClaw marked invalid: project ranking drops it."""
    return not (hit.project_key and INVALID_PROJECT_KEY in [k.strip() for k in hit.project_key.split(";")])

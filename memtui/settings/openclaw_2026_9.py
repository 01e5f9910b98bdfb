"""OpenClaw 2026.9's memory-search rules on top of the parsed config: the knobs it fixed (hybrid 0.7/0.3 ×4,
MMR λ 0.7, temporal decay 30 days, chunks of 400/80 tokens) and the keys it retired, reported as such
(`benchmarks/openclaw_record/OPENCLAW-2026.9.6.md` §3)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from memtui.settings.config import (
    ChunkingSettings,
    DecaySettings,
    HybridSettings,
    MemorySearchSettings,
    MMRSettings,
)
from memtui.settings.raw import get_path

FIXED_HYBRID = HybridSettings(enabled=True, vector_weight=0.7, text_weight=0.3, weights_configured=False,
                              candidate_multiplier=4, mmr=MMRSettings(True, 0.7),
                              temporal_decay=DecaySettings(True, 30))
FIXED_CHUNKING = ChunkingSettings(tokens=400, overlap=80, version=5)
# (where the key sits, what `openclaw config validate` says of it)
_RETIRED = (
    (("agents", "defaults", "memorySearch"), 'agents.defaults: Unrecognized key: "memorySearch"'),
    (("memory", "search", "query", "hybrid"), 'memory.search.query: Unrecognized key: "hybrid"'),
    (("memory", "search", "chunking"), 'memory.search: Unrecognized key: "chunking"'),
    (("agents", "defaults", "compaction", "reserveTokensFloor"),
     'agents.defaults.compaction: Unrecognized key: "reserveTokensFloor" (fixed at 20000 tokens)'),
)


def retired_keys(raw: dict[str, Any]) -> list[str]:
    """A line per key of `raw` that OpenClaw 2026.9 retired (its `config validate` rejects them)."""
    return [f"{'.'.join(path)} is retired in OpenClaw 2026.9 ({said}); memtui ignores it for this agent"
            for path, said in _RETIRED if get_path(raw, *path) is not None]


def apply_fixed_knobs(settings: MemorySearchSettings) -> MemorySearchSettings:
    """`settings` with the values 2026.9 no longer lets a config change, its chunker and USER.md as a memory
    file."""
    query = replace(settings.query, hybrid=FIXED_HYBRID)
    return replace(settings, query=query, chunking=FIXED_CHUNKING, user_memory=True)


def config_generation(raw: dict[str, Any]) -> str | None:
    """The OpenClaw generation a config is written for: 2026.9 (`agents.entries`, `memory.search`), 2026.4
    (`agents.list`, `agents.defaults.memorySearch`), or None when it says neither."""
    if get_path(raw, "agents", "entries") is not None or get_path(raw, "memory", "search") is not None:
        return "2026.9"
    if get_path(raw, "agents", "list") is not None or get_path(raw, "agents", "defaults", "memorySearch") is not None:
        return "2026.4"
    return None

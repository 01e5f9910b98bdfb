"""OpenClaw 2026.9's memory-search rules on top of the parsed config: the knobs it fixed (hybrid 0.7/0.3 ×4,
MMR λ 0.7, temporal decay 30 days, chunks of 400/80 tokens) and the keys it retired: 2026.9.6 refuses a config
that holds one (every `openclaw` command fails until `openclaw doctor --fix` moves or removes it), so memtui
reports each and reads none (`benchmarks/openclaw_record/OPENCLAW-2026.9.6.md` §3)."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from memtui.settings.config import (
    ChunkingSettings,
    DecaySettings,
    HybridSettings,
    MemorySearchSettings,
    MMRSettings,
)
from memtui.settings.raw import get_path, normalize_agent_id

FIXED_HYBRID = HybridSettings(enabled=True, vector_weight=0.7, text_weight=0.3, weights_configured=False,
                              candidate_multiplier=4, mmr=MMRSettings(True, 0.7),
                              temporal_decay=DecaySettings(True, 30))
FIXED_CHUNKING = ChunkingSettings(tokens=400, overlap=80, version=5)
_MOVES = "every `openclaw` command refuses this config until `openclaw doctor --fix` moves it to {to}"
_REMOVES = "every `openclaw` command refuses this config until `openclaw doctor --fix` removes it{note}"


def _retired(raw: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str, str]]:
    """Every key of `raw` that OpenClaw 2026.9.6 rejects (`config validate` and every command fail with "Invalid
    config … Unrecognized key"), as (where it sits, what OpenClaw says, what `doctor --fix` does with it)."""
    found: list[tuple[tuple[str | int, ...], str, str]] = []
    if "memorySearch" in raw:
        found.append((("memorySearch",), '<root>: Unrecognized key: "memorySearch"',
                      _MOVES.format(to="memory.search")))
    defaults = get_path(raw, "agents", "defaults")
    if isinstance(defaults, dict) and "memorySearch" in defaults:
        found.append((("agents", "defaults", "memorySearch"), 'agents.defaults: Unrecognized key: "memorySearch"',
                      _MOVES.format(to="memory.search (keeping what memory.search sets)")))
    searches: list[tuple[tuple[str | int, ...], Any]] = [(("memory", "search"), get_path(raw, "memory", "search"))]
    entries = get_path(raw, "agents", "entries")
    for key, entry in (entries.items() if isinstance(entries, dict) else ()):
        if not isinstance(entry, dict):
            continue
        where = ("agents", "entries", key)
        if "memorySearch" in entry:
            found.append(((*where, "memorySearch"), f'agents.entries.{key}: Unrecognized key: "memorySearch"',
                          _MOVES.format(to=f"agents.entries.{key}.memory.search")))
        searches.append(((*where, "memory", "search"), get_path(entry, "memory", "search")))
    listed = get_path(raw, "agents", "list")
    for index, entry in enumerate(listed if isinstance(listed, list) else ()):
        if isinstance(entry, dict) and "memorySearch" in entry:
            agent = normalize_agent_id(entry.get("id"))
            found.append((("agents", "list", index, "memorySearch"),
                          f'agents.entries.{agent}: Unrecognized key: "memorySearch"',
                          _MOVES.format(to=f"agents.entries.{agent}.memory.search")))
    for where, search in searches:
        dotted = ".".join(str(part) for part in where)
        if isinstance(search, dict) and isinstance(search.get("query"), dict) and "hybrid" in search["query"]:
            found.append(((*where, "query", "hybrid"), f'{dotted}.query: Unrecognized key: "hybrid"',
                          _REMOVES.format(note=" (hybrid 0.7/0.3, MMR and temporal decay are fixed)")))
        if isinstance(search, dict) and "chunking" in search:
            found.append(((*where, "chunking"), f'{dotted}: Unrecognized key: "chunking"',
                          _REMOVES.format(note=" (chunks are fixed at 400/80 tokens)")))
    compaction = get_path(raw, "agents", "defaults", "compaction")
    if isinstance(compaction, dict) and "reserveTokensFloor" in compaction:
        found.append((("agents", "defaults", "compaction", "reserveTokensFloor"),
                      'agents.defaults.compaction: Unrecognized key: "reserveTokensFloor"',
                      _REMOVES.format(note=" (the floor is fixed at 20000 tokens)")))
    return found


def _dotted(path: tuple[str | int, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")


def retired_keys(raw: dict[str, Any]) -> list[str]:
    """A line per key of `raw` that OpenClaw 2026.9 retired: what `openclaw config validate` says of it, what
    OpenClaw does with it, and that memtui does not read it."""
    return [f"{_dotted(path)} is retired in OpenClaw 2026.9 ({said}): {does}; memtui does not read it"
            for path, said, does in _retired(raw)]


def retired_paths(raw: dict[str, Any]) -> list[str]:
    """Where each key of `raw` that OpenClaw 2026.9 retired sits (`agents.defaults.memorySearch`, …)."""
    return [_dotted(path) for path, _said, _does in _retired(raw)]


def without_retired(raw: dict[str, Any]) -> dict[str, Any]:
    """`raw` without the keys OpenClaw 2026.9 retired (a copy; `raw` is left as it is), so nothing reads them."""
    found = _retired(raw)
    if not found:
        return raw
    live = copy.deepcopy(raw)
    for path, _said, _does in found:
        node: Any = live
        for part in path[:-1]:
            node = node[part]
        del node[path[-1]]
    return live


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

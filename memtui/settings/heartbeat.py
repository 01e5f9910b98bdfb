"""The default agent and its heartbeat prompt section (`agents.defaults.heartbeat`, `agents.list[].heartbeat`),
which decide whether OpenClaw 2026.4.29 injects `HEARTBEAT.md` (`shouldIncludeHeartbeatGuidanceForSystemPrompt`)."""

from __future__ import annotations

import re
from typing import Any

from memtui.settings.raw import agent_entry, get_path, normalize_agent_id

_DURATION_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_SINGLE_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$")
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")


def parse_duration_ms(text: str, default_unit: str = "ms") -> int | None:
    """OpenClaw's `parseDurationMs` (`30m`, `1h30m`, `0`); None where it would throw."""
    trimmed = text.strip().lower()
    if not trimmed:
        return None
    single = _SINGLE_DURATION.match(trimmed)
    if single:
        return round(float(single.group(1)) * _DURATION_UNITS[single.group(2) or default_unit])
    total = consumed = 0.0
    for match in _DURATION_PART.finditer(trimmed):
        if match.start() != consumed:
            return None
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        consumed += len(match.group(0))
    return round(total) if consumed and consumed == len(trimmed) else None


def _agents(raw: dict[str, Any]) -> list[dict[str, Any]]:
    listed = get_path(raw, "agents", "list")
    return [a for a in listed if isinstance(a, dict)] if isinstance(listed, list) else []


def default_agent_id(raw: dict[str, Any]) -> str:
    """The `agents.list` entry with `default: true`, else the first entry, else `main`."""
    agents = _agents(raw)
    chosen = next((a for a in agents if a.get("default")), agents[0] if agents else {})
    name = chosen.get("id")
    return normalize_agent_id(name.strip() if isinstance(name, str) and name.strip() else "main")


def heartbeat_section_on(raw: dict[str, Any], agent_id: str) -> bool:
    """Whether the agent's heartbeat section is on: heartbeats not confined to other agents, the section not
    switched off, and an `every` (default `30m`) that parses to more than zero."""
    agents = _agents(raw)
    if any(a.get("heartbeat") for a in agents) and not any(
            a.get("heartbeat") and normalize_agent_id(str(a.get("id", ""))) == agent_id for a in agents):
        return False
    defaults = get_path(raw, "agents", "defaults", "heartbeat")
    own = (agent_entry(raw, agent_id) or {}).get("heartbeat")
    heartbeat = {**(defaults if isinstance(defaults, dict) else {}), **(own if isinstance(own, dict) else {})}
    if heartbeat.get("includeSystemPromptSection") is False:
        return False
    every = heartbeat.get("every")
    every = "30m" if every is None else every
    if not isinstance(every, str) or not every.strip():
        return False
    parsed = parse_duration_ms(every, "m")
    return parsed is not None and parsed > 0

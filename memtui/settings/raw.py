"""Navigation of the raw OpenClaw config dict: nested keys, agent ids, `agents.list[]` entries, and the two
`memory.*` switches read straight from it (citations, backend)."""

from __future__ import annotations

import re
from typing import Any

DEFAULT_AGENT_ID = "main"
CITATION_MODES = ("auto", "on", "off")
_INVALID_AGENT_CHARS = re.compile(r"[^a-z0-9_-]+")

def get_path(raw: Any, *keys: str) -> Any:
    """Walk nested dicts; None when any level is missing or not a dict."""
    node = raw
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def normalize_agent_id(value: Any) -> str:
    """Lower-case, invalid characters to `-`, at most 64 characters, empty → `main`."""
    if not isinstance(value, str):
        return DEFAULT_AGENT_ID
    text = _INVALID_AGENT_CHARS.sub("-", value.strip().lower()).strip("-")[:64]
    return text or DEFAULT_AGENT_ID


def roster(raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """2026.9's keyed `agents.entries` by normalised id (in config order), else {}."""
    entries = get_path(raw, "agents", "entries")
    if not isinstance(entries, dict):
        return {}
    return {normalize_agent_id(key): value for key, value in entries.items() if isinstance(value, dict)}


def agent_entry(raw: dict[str, Any], agent_id: str) -> dict[str, Any] | None:
    """The agent's `agents.entries.<id>` (2026.9), else its `agents.list[]` entry (2026.4), if any."""
    keyed = roster(raw).get(agent_id)
    if keyed is not None:
        return keyed
    entries = get_path(raw, "agents", "list")
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if isinstance(entry, dict) and normalize_agent_id(entry.get("id")) == agent_id:
            return entry
    return None


def citations_mode(raw: dict[str, Any]) -> str:
    """`memory.citations`: auto (default), on or off."""
    mode = get_path(raw, "memory", "citations")
    return mode if mode in CITATION_MODES else "auto"


def memory_backend(raw: dict[str, Any]) -> str:
    """`memory.backend`: builtin (default) or qmd."""
    backend = get_path(raw, "memory", "backend")
    return backend if backend in ("builtin", "qmd") else "builtin"

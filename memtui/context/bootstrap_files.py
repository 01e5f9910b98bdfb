"""Which bootstrap files OpenClaw 2026.4.29 loads for a session, and what it reads from each (§1.3).

`loadWorkspaceBootstrapFiles` (src/agents/workspace.ts), `filterBootstrapFilesForSession` and the heartbeat
rule of `resolveBootstrapFilesForRun` (src/agents/bootstrap-files.ts):

- each file is opened through the workspace boundary: its real path must stay inside the workspace, be a
  regular file and hold at most 2 MiB; otherwise it is "missing" (`[MISSING] Expected at: …`), not cut;
- `MEMORY.md` is tried only when an entry of that exact name is listed in the workspace (a symlink to a file
  inside the workspace counts);
- cron (`agent:<id>:cron:…`) and sub-agent (`subagent:…`, `agent:<id>:subagent:…`) sessions get only the
  minimal allowlist;
- `HEARTBEAT.md` is dropped for the default agent's sessions when its heartbeat prompt section is off
  (`every` that parses to 0, e.g. `"0m"`, an empty `every`, `includeSystemPromptSection: false`, or heartbeats
  configured only on other agents).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.settings.raw import agent_entry, get_path, normalize_agent_id

BOOTSTRAP_ORDER = (
    "AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md",
)
MINIMAL_BOOTSTRAP_ALLOWLIST = frozenset({"AGENTS.md", "TOOLS.md", "SOUL.md", "IDENTITY.md", "USER.md"})
MAX_BOOTSTRAP_FILE_BYTES = 2 * 1024 * 1024
HEARTBEAT_FILE = "HEARTBEAT.md"

_DURATION_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_SINGLE_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$")
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")


@dataclass(frozen=True)
class LoadedFile:
    """One bootstrap file: its text, or why it counts as missing."""

    name: str
    path: str
    content: str | None
    missing_reason: str | None

    @property
    def missing(self) -> bool:
        """Injected as `[MISSING] Expected at: <path>`."""
        return self.content is None


def _parse_agent_key(session_key: str | None) -> tuple[str, str] | None:
    raw = (session_key or "").strip().lower()
    parts = [p for p in raw.split(":") if p]
    if len(parts) < 3 or parts[0] != "agent" or not parts[1].strip():
        return None
    return parts[1].strip(), ":".join(parts[2:])


def is_minimal_session(session_key: str | None) -> bool:
    """Cron and sub-agent session keys get only the minimal bootstrap allowlist."""
    raw = (session_key or "").strip().lower()
    parsed = _parse_agent_key(session_key)
    if raw.startswith("subagent:"):
        return True
    return parsed is not None and (parsed[1].startswith("subagent:") or parsed[1].startswith("cron:"))


def parse_duration_ms(text: str, default_unit: str = "ms") -> int | None:
    """OpenClaw's `parseDurationMs` (`30m`, `1h30m`, `0`); None when it would throw."""
    trimmed = text.strip().lower()
    if not trimmed:
        return None
    single = _SINGLE_DURATION.match(trimmed)
    if single:
        return round(float(single.group(1)) * _DURATION_UNITS[single.group(2) or default_unit])
    total = consumed = 0
    for match in _DURATION_PART.finditer(trimmed):
        if match.start() != consumed:
            return None
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        consumed += len(match.group(0))
    return round(total) if consumed and consumed == len(trimmed) else None


def default_agent(raw: dict[str, Any]) -> str:
    """`agents.list` entry with `default: true`, else the first, else `main`."""
    agents = [a for a in get_path(raw, "agents", "list") or [] if isinstance(a, dict)]
    chosen = next((a for a in agents if a.get("default")), agents[0] if agents else {})
    name = chosen.get("id")
    return normalize_agent_id(name.strip() if isinstance(name, str) and name.strip() else "main")


def _heartbeat_section_on(raw: dict[str, Any], agent_id: str) -> bool:
    agents = [a for a in get_path(raw, "agents", "list") or [] if isinstance(a, dict)]
    if any(a.get("heartbeat") for a in agents):
        if not any(a.get("heartbeat") and normalize_agent_id(str(a.get("id", ""))) == agent_id for a in agents):
            return False
    defaults = get_path(raw, "agents", "defaults", "heartbeat")
    own = (agent_entry(raw, agent_id) or {}).get("heartbeat")
    heartbeat = {**(defaults if isinstance(defaults, dict) else {}), **(own if isinstance(own, dict) else {})}
    if heartbeat.get("includeSystemPromptSection") is False:
        return False
    every = heartbeat.get("every", "30m")
    every = "30m" if every is None else every
    if not isinstance(every, str) or not every.strip():
        return False
    parsed = parse_duration_ms(every, "m")
    return parsed is not None and parsed > 0


def excludes_heartbeat(raw: dict[str, Any], session_key: str | None) -> bool:
    """Whether `HEARTBEAT.md` is dropped for this session (default agent, heartbeat section off)."""
    default = default_agent(raw)
    parsed = _parse_agent_key(session_key)
    session_agent = normalize_agent_id(parsed[0]) if parsed else default
    return session_agent == default and not _heartbeat_section_on(raw, default)


def read_within_workspace(path: Path, workspace: Path) -> tuple[str | None, str | None]:
    """(text, None), or (None, why) when the file escapes the workspace, is no regular file or is over 2 MiB."""
    try:
        real = Path(os.path.realpath(path))
        root = Path(os.path.realpath(workspace))
        if real != root and root not in real.parents:
            return None, "outside the workspace"
        info = real.stat()
        if not stat.S_ISREG(info.st_mode):
            return None, "not a regular file"
        if info.st_size > MAX_BOOTSTRAP_FILE_BYTES:
            return None, f"over {MAX_BOOTSTRAP_FILE_BYTES} bytes"
        return real.read_bytes().decode("utf-8", errors="replace"), None
    except FileNotFoundError:
        return None, "not found"
    except OSError as exc:
        return None, exc.strerror or "unreadable"


def load_bootstrap_files(workspace: Path, raw: dict[str, Any], session_key: str | None) -> list[LoadedFile]:
    """The files OpenClaw would inject for `session_key`, in order, missing ones marked."""
    try:
        listed = set(os.listdir(workspace))
    except OSError:
        listed = set()
    minimal = is_minimal_session(session_key)
    drop_heartbeat = excludes_heartbeat(raw, session_key)
    files = []
    for name in BOOTSTRAP_ORDER:
        if name == "MEMORY.md" and name not in listed:
            continue
        if minimal and name not in MINIMAL_BOOTSTRAP_ALLOWLIST:
            continue
        if drop_heartbeat and name == HEARTBEAT_FILE:
            continue
        path = workspace / name
        content, why = read_within_workspace(path, workspace)
        files.append(LoadedFile(name, str(path), content, why))
    return files

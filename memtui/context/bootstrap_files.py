"""Which bootstrap files OpenClaw 2026.4.29 loads for a session, and what it reads from each (§1.3).

`loadWorkspaceBootstrapFiles` (src/agents/workspace.ts), `filterBootstrapFilesForSession` and the heartbeat
rule of `resolveBootstrapFilesForRun` (src/agents/bootstrap-files.ts):

- each file is opened through the workspace boundary: its real path must stay inside the workspace, be a
  regular file with no other hard link and hold at most 2 MiB; otherwise it is "missing" (`[MISSING] Expected
  at: …`), not cut;
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
from dataclasses import dataclass
from pathlib import Path

from memtui.atomic import EscapeError, LinkedError, OutsideError, open_linked_for_read
from memtui.settings.context import ContextSettings
from memtui.settings.raw import normalize_agent_id

BOOTSTRAP_ORDER = (
    "AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md",
)
MINIMAL_BOOTSTRAP_ALLOWLIST = frozenset({"AGENTS.md", "TOOLS.md", "SOUL.md", "IDENTITY.md", "USER.md"})
MAX_BOOTSTRAP_FILE_BYTES = 2 * 1024 * 1024
HEARTBEAT_FILE = "HEARTBEAT.md"


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


def excludes_heartbeat(settings: ContextSettings, session_key: str | None) -> bool:
    """Whether `HEARTBEAT.md` is dropped for this session (the default agent's, heartbeat section off)."""
    parsed = _parse_agent_key(session_key)
    session_agent = normalize_agent_id(parsed[0]) if parsed else settings.default_agent_id
    return session_agent == settings.default_agent_id and not settings.heartbeat_section_on


def read_within_workspace(path: Path, workspace: Path) -> tuple[str | None, str | None]:
    """(text, None), or (None, why) when the file escapes the workspace, is no regular file, has another hard
    link (which may name a file outside the workspace: README, "Reliability") or is over 2 MiB."""
    try:
        with open_linked_for_read(workspace, path, refuse_linked=True) as handle:
            if os.fstat(handle.fileno()).st_size > MAX_BOOTSTRAP_FILE_BYTES:
                return None, f"over {MAX_BOOTSTRAP_FILE_BYTES} bytes"
            return handle.read().decode("utf-8", errors="replace"), None
    except OutsideError:
        return None, "outside the workspace"
    except LinkedError:
        return None, "has another hard link"
    except EscapeError:
        return None, "not a regular file"
    except FileNotFoundError:
        return None, "not found"
    except OSError as exc:
        return None, exc.strerror or "unreadable"


def load_bootstrap_files(workspace: Path, settings: ContextSettings, session_key: str | None) -> list[LoadedFile]:
    """The files OpenClaw would inject for `session_key`, in order, missing ones marked."""
    try:
        listed = set(os.listdir(workspace))
    except OSError:
        listed = set()
    minimal = is_minimal_session(session_key)
    drop_heartbeat = excludes_heartbeat(settings, session_key)
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

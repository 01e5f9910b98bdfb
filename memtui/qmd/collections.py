"""The qmd collections of an agent (§11.2): default memory ones, custom paths, extra paths, sessions."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from memtui.index.transcripts import build_session_document, list_session_files, session_id_for_file
from memtui.index.workspace import MEMORY_DIR, ROOT_MEMORY_FILE, resolve_extra_path
from memtui.qmd.process import qmd_home
from memtui.settings.agent import AgentEnv
from memtui.settings.qmd import QmdSettings

MEMORY_SOURCE = "memory"
SESSIONS_SOURCE = "sessions"


@dataclass(frozen=True)
class Collection:
    """One qmd collection: name, root folder, glob mask, and the memory source its hits belong to."""

    name: str
    path: Path
    pattern: str
    source: str = MEMORY_SOURCE


def sanitize(name: str) -> str:
    """Lower-case and map every run of characters outside `[a-z0-9-]` to `-`."""
    return re.sub(r"[^a-z0-9-]+", "-", name.lower())


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    taken.add(candidate)
    return candidate


def sessions_export_dir(env: AgentEnv, settings: QmdSettings) -> Path:
    """Where transcripts are exported as Markdown for qmd."""
    if settings.sessions_export_dir:
        return resolve_extra_path(env.workspace_dir, settings.sessions_export_dir)
    return qmd_home(env.memtui_dir, env.agent_id) / "sessions"


def build_collections(env: AgentEnv, settings: QmdSettings) -> list[Collection]:
    """The collections qmd must hold for this agent, named and de-duplicated as OpenClaw does."""
    agent = sanitize(env.agent_id)
    workspace = Path(os.path.normpath(env.workspace_dir))
    taken: set[str] = set()
    collections: list[Collection] = []
    if settings.include_default_memory:
        collections.append(Collection(_unique(f"memory-root-{agent}", taken), workspace, ROOT_MEMORY_FILE))
        collections.append(Collection(_unique(f"memory-dir-{agent}", taken), workspace / MEMORY_DIR, "**/*.md"))
    custom: list[tuple[Path, str | None, str]] = []
    for entry in settings.paths:
        custom.append((resolve_extra_path(workspace, entry.path), entry.name, entry.pattern))
    for raw in env.settings.extra_paths:
        path = resolve_extra_path(workspace, raw)
        if path.suffix == ".md":
            custom.append((path.parent, None, path.name))
        else:
            custom.append((path, None, "**/*.md"))
    seen: set[tuple[Path, str]] = {(c.path, c.pattern) for c in collections}
    for index, (path, name, pattern) in enumerate(custom, start=1):
        path = Path(os.path.normpath(path))
        if (path, pattern) in seen:
            continue
        seen.add((path, pattern))
        if name and not _inside(path, workspace):
            base = sanitize(name)
        elif name:
            base = f"{sanitize(name)}-{agent}"
        else:
            base = f"custom-{index}-{agent}"
        collections.append(Collection(_unique(base, taken), path, pattern))
    if settings.sessions_enabled:
        collections.append(Collection(_unique(f"sessions-{agent}", taken), sessions_export_dir(env, settings),
                                      "**/*.md", SESSIONS_SOURCE))
    return collections


def export_sessions(env: AgentEnv, settings: QmdSettings, *, now: float | None = None) -> int:
    """Write each transcript as `<exportDir>/<sessionId>.md` (`# Session <id>` + User:/Assistant: lines),
    only when changed; prune exports older than `retentionDays` and those whose transcript is gone.
    Returns the number of files written."""
    target = sessions_export_dir(env, settings)
    target.mkdir(parents=True, exist_ok=True)
    now = time.time() if now is None else now
    horizon = now - settings.sessions_retention_days * 86_400 if settings.sessions_retention_days else None
    wanted: set[str] = set()
    written = 0
    sessions_dir = env.sessions_dir
    for source in list_session_files(sessions_dir) if sessions_dir.is_dir() else []:
        try:
            doc = build_session_document(source)
        except OSError:
            continue
        if doc.skipped_reason is not None or (horizon is not None and doc.mtime_ms / 1000 < horizon):
            continue
        session_id = session_id_for_file(source.name)
        wanted.add(f"{session_id}.md")
        text = f"# Session {session_id}\n\n{doc.content}\n"
        out = target / f"{session_id}.md"
        if not out.exists() or out.read_text(encoding="utf-8", errors="replace") != text:
            tmp = out.with_name(f".{out.name}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, out)
            written += 1
    for stale in target.glob("*.md"):
        if stale.name not in wanted:
            stale.unlink(missing_ok=True)
    return written

"""OpenClaw 2026.9's dreaming state, read from its global database without writing a byte.

2026.9 keeps what 2026.4 wrote to `<ws>/memory/.dreams/*.json` in `<state>/state/openclaw.sqlite`, table
`plugin_state_entries(plugin_id, namespace, entry_key, value_json, created_at, expires_at)`, plugin `memory-core`
(`dreaming-state.ts`): one row per recall entry in namespace `short-term-recall` (phase signals in
`short-term-phase-signals`), keyed `<sha256 of the workspace path>:<sha256 of the entry key>`, its `value_json`
`{version, workspaceKey, workspaceDir, key, value}`; the store's `updatedAt` is the `short-term-meta` row `recall`
(or `phase`). `short_term_store` rebuilds the `{version, updatedAt, entries}` object 2026.4's JSON file held, as
2026.9.6's `readShortTermStore` does, so one parser reads both generations.

memtui's dreaming code is given workspaces only; `bind_workspace` (called when an agent is resolved) tells it which
workspaces belong to a 2026.9 agent, and so where their recall state is — and that no 2026.4 state file may be
written into them.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from memtui.agentdb.ownership import reading, table_names

PLUGIN_ID = "memory-core"
NAMESPACES = {"recall": "short-term-recall", "phase": "short-term-phase-signals"}
META_NAMESPACE = "short-term-meta"

_BOUND: dict[str, Path] = {}


def global_db_path(state_dir: Path) -> Path:
    """2026.9's global database: `<state>/state/openclaw.sqlite`."""
    return state_dir / "state" / "openclaw.sqlite"


def workspace_key(workspace_dir: Path) -> str:
    """`memoryCoreWorkspaceStateKey`: sha256 of the absolute workspace path (forward slashes)."""
    return hashlib.sha256(str(Path(workspace_dir).absolute()).replace("\\", "/").encode("utf-8")).hexdigest()


def state_reference(kind: str, workspace_dir: Path) -> str:
    """How 2026.9.6 names the store in `memory status` / `promote --json`:
    `plugin-state:memory-core/short-term-recall/<workspace key>`."""
    return f"plugin-state:{PLUGIN_ID}/{NAMESPACES[kind]}/{workspace_key(workspace_dir)}"


def bind_workspace(workspace_dir: Path, state_dir: Path | None) -> None:
    """Record that `workspace_dir` belongs to a 2026.9 agent of `state_dir` (None: it does not)."""
    key = str(Path(workspace_dir).absolute())
    if state_dir is None:
        _BOUND.pop(key, None)
    else:
        _BOUND[key] = global_db_path(state_dir)


def bound_database(workspace_dir: Path) -> Path | None:
    """The global database holding `workspace_dir`'s dreaming state when it belongs to a 2026.9 agent, else None."""
    return _BOUND.get(str(Path(workspace_dir).absolute()))


def _entries(conn: Any, namespace: str, workspace: str) -> list[tuple[str, Any]]:
    now_ms = int(time.time() * 1000)
    rows = conn.execute(
        "SELECT value_json FROM plugin_state_entries WHERE plugin_id = ? AND namespace = ? AND entry_key >= ? "
        "AND entry_key < ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at, entry_key",
        (PLUGIN_ID, namespace, f"{workspace}:", f"{workspace};", now_ms))
    out = []
    for (value_json,) in rows:
        try:
            row = json.loads(value_json)
        except ValueError:
            continue
        if isinstance(row, dict) and row.get("workspaceKey") == workspace and isinstance(row.get("key"), str):
            out.append((row["key"], row.get("value")))
    return out


def short_term_store(database: Path, workspace_dir: Path, kind: str) -> dict[str, Any] | None:
    """The `{version, updatedAt, entries}` object of `workspace_dir`'s short-term store (`kind` recall or phase)
    in 2026.9's global database, read-only; None when the database does not exist yet or has no such table."""
    if not database.is_file():
        return None
    workspace = workspace_key(workspace_dir)
    with reading(database, "the dreaming state") as conn:
        if "plugin_state_entries" not in table_names(conn):
            return None
        entries = _entries(conn, NAMESPACES[kind], workspace)
        meta = dict(_entries(conn, META_NAMESPACE, workspace)).get(kind)
    store: dict[str, Any] = {"version": 1, "entries": dict(entries)}
    if isinstance(meta, dict) and meta.get("updatedAt") is not None:
        store["updatedAt"] = meta["updatedAt"]
    return store

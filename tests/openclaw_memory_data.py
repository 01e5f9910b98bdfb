"""The OpenClaw 2026.4.29 memory recording (`tests/data/openclaw-2026.4.29/memory/`, written by
`benchmarks/openclaw_record/memory.py`): loading it, rebuilding its workspace, and memtui environments on it."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from memtui.settings.agent import AgentEnv, resolve_agent

RECORDING = Path(__file__).parent / "data" / "openclaw-2026.4.29" / "memory"


@cache
def recording(name: str) -> Any:
    """One recorded file (`index`, `search`, `get`, `variants`, `update`, `workspace`, `provenance`)."""
    return json.loads((RECORDING / f"{name}.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Root:
    """The rebuilt tree: `ws/` (the workspace), `outside/` (extra-path material), `home/` (the run's HOME)."""

    path: Path

    @property
    def workspace(self) -> Path:
        return self.path / "ws"

    @property
    def home(self) -> Path:
        return self.path / "home"

    def fill(self, value: Any, state: Path | None = None) -> Any:
        """`value` with the recording's placeholders replaced by this tree's folders."""
        if isinstance(value, str):
            value = value.replace("<WORKSPACE>", str(self.workspace)).replace("<HOME>", str(self.home))
            value = value.replace("<ROOT>", str(self.path))
            return value.replace("<STATE>", str(state)) if state is not None else value
        if isinstance(value, list):
            return [self.fill(item, state) for item in value]
        if isinstance(value, dict):
            return {key: self.fill(item, state) for key, item in value.items()}
        return value


def build_root(parent: Path) -> Root:
    """Rebuild the recorded tree under `parent/root`, byte for byte (symlinks included)."""
    root = Root(parent / "root")
    for entry in recording("workspace")["entries"]:
        target = root.path / entry["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        if entry["kind"] == "file":
            target.write_bytes(entry["text"].encode("utf-8"))
        else:
            os.symlink(entry["target"], target)
    return root


def write_config(root: Root, state: Path, variant: str) -> Path:
    """The variant's `openclaw.json` in `state`, as the recorder wrote it for OpenClaw."""
    state.mkdir(parents=True, exist_ok=True)
    config = root.fill(recording("variants")[variant]["config"])
    path = state / "openclaw.json"
    path.write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")
    return path


def agent_env(root: Root, state: Path, variant: str = "default", **overrides: Any) -> AgentEnv:
    """memtui on the recorded workspace with the variant's config: FTS-only, `openclaw` profile, HOME = the
    tree's `home/` (as in the recording), the index in `state`."""
    write_config(root, state, variant)
    options: dict[str, Any] = {"state_dir": str(state), "provider": "none", "profile": "openclaw",
                               "env": {"HOME": str(root.home)}}
    options.update(overrides)
    return resolve_agent(**options)


def rows(db: Path, sql: str) -> list[tuple]:
    """All rows of `sql` on the index file `db` (memtui's SQLite driver: FTS5 and fts5vocab available)."""
    from memtui.index.store import sqlite_driver

    conn = sqlite_driver.connect(str(db))
    try:
        return [tuple(row) for row in conn.execute(sql).fetchall()]
    finally:
        conn.close()


def _fts_insert(conn: Any, chunk: dict[str, Any]) -> None:
    conn.execute("INSERT INTO chunks_fts (text, id, path, source, model, start_line, end_line) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)", (chunk["text"], chunk["id"], chunk["path"], chunk["source"],
                                                   chunk["model"], chunk["start_line"], chunk["end_line"]))


def _chunk_insert(conn: Any, chunk: dict[str, Any], updated_at: int) -> None:
    conn.execute("INSERT INTO chunks (id, path, source, start_line, end_line, hash, model, text, embedding, "
                 "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (chunk["id"], chunk["path"], chunk["source"], chunk["start_line"], chunk["end_line"],
                  chunk["hash"], chunk["model"], chunk["text"], chunk["embedding"], updated_at))


def build_openclaw_index(db: Path) -> Path:
    """OpenClaw's default index as the recording holds it: its own DDL, then its meta, files, chunks and FTS
    rows (a stdlib sqlite3 connection, not memtui's store). Clock columns get fixed values."""
    import sqlite3

    index = recording("index")
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db)
    with conn:
        for kind in ("table", "index"):
            for row in index["schema"]:
                if row["type"] == kind and row["sql"] and not row["name"].startswith("chunks_fts_"):
                    conn.execute(row["sql"])
        conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [(m["key"], m["value"]) for m in index["meta"]])
        conn.executemany("INSERT INTO files (path, source, hash, mtime, size) VALUES (?, ?, ?, ?, ?)",
                         [(f["path"], f["source"], f["hash"], 1777400000000, f["size"]) for f in index["files"]])
        for chunk in sorted(index["chunks"], key=lambda c: (c["path"], c["ordinal"])):  # OpenClaw's order
            _chunk_insert(conn, chunk, 1777400000000)
            _fts_insert(conn, chunk)
    conn.close()
    return db


def apply_openclaw_update(root: Root, db: Path) -> None:
    """What OpenClaw's incremental sync did in `update.json`, done to `db` the way OpenClaw writes: the files
    changed on disk; every chunk and FTS row of a changed path deleted and the path's new chunks inserted
    (new rowids), its files row replaced; a deleted file's rows removed. memtui's own tables are not touched."""
    import sqlite3

    update = recording("update")
    for rel, change in update["writes"].items():
        mode, text = change.split(":", 1)
        with (root.path / rel).open("a" if mode == "append" else "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    for rel in update["deletes"]:
        (root.path / rel).unlink()
    new_chunks = update["index"]["chunks_of_changed_files"]
    old_files = {f["path"]: f["hash"] for f in recording("index")["files"]}
    new_files = {f["path"]: f for f in update["index"]["files"]}
    changed = {p for p in old_files.keys() | new_files.keys()
               if old_files.get(p) != (new_files[p]["hash"] if p in new_files else None)}
    conn = sqlite3.connect(db)
    with conn:
        for path in sorted(changed):
            conn.execute("DELETE FROM chunks_fts WHERE path = ? AND source = 'memory'", (path,))
            conn.execute("DELETE FROM chunks WHERE path = ? AND source = 'memory'", (path,))
            conn.execute("DELETE FROM files WHERE path = ? AND source = 'memory'", (path,))
            for chunk in sorted((c for c in new_chunks if c["path"] == path), key=lambda c: c["ordinal"]):
                _chunk_insert(conn, chunk, 1777500000000)
                _fts_insert(conn, chunk)
            if path in new_files:
                f = new_files[path]
                conn.execute("INSERT INTO files (path, source, hash, mtime, size) VALUES (?, ?, ?, ?, ?)",
                             (path, f["source"], f["hash"], 1777500000000, f["size"]))
    conn.close()

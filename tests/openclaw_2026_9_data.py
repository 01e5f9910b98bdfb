"""The OpenClaw 2026.9.6 recording (`tests/data/openclaw-2026.9.6/`, written by
`benchmarks/openclaw_record/record_2026_9.py`): a state dir rebuilt from it — the real agent database the real
CLI wrote, the workspace it indexed (texts and mtimes) and its `openclaw.json`."""

from __future__ import annotations

import json
import math
import os
import shutil
import sqlite3
import struct
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

RECORDING = Path(__file__).parent / "data" / "openclaw-2026.9.6"


@cache
def recording(name: str) -> Any:
    """One recorded JSON file (`workspace`, `status`, `search`, `search_hybrid`, `config_validate`, …)."""
    return json.loads((RECORDING / f"{name}.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Agent2026_9:
    """A rebuilt 2026.9 install: `state/` (with the agent database), `ws/` (the workspace)."""

    root: Path

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def workspace(self) -> Path:
        return self.root / "ws"

    @property
    def agent_db(self) -> Path:
        return self.state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"


def build_agent(root: Path) -> Agent2026_9:
    """Lay the recording out under `root`; the config names the workspace as the recorded one did."""
    agent = Agent2026_9(root)
    data = recording("workspace")
    for entry in data["files"]:
        path = agent.workspace / entry["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(entry["text"], encoding="utf-8")
        os.utime(path, ns=(entry["mtime_ms"] * 1_000_000, entry["mtime_ms"] * 1_000_000))
    agent.agent_db.parent.mkdir(parents=True)
    shutil.copyfile(RECORDING / "agent.sqlite", agent.agent_db)
    config = json.loads(json.dumps(data["config"]).replace("<ws>", str(agent.workspace)))
    (agent.state / "openclaw.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return agent


def snapshot(*folders: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `folders`: its bytes and mtime (ns), by path."""
    return {str(path): (path.read_bytes(), path.stat().st_mtime_ns)
            for folder in folders for path in sorted(folder.rglob("*")) if path.is_file()}


def add_vectors(db: Path) -> dict[str, Any]:
    """Give the recorded agent database the vectors of the hybrid recording (the embedding server's `vector_for`
    of each chunk, unit-normalised, binary64, as OpenClaw stores them); returns the index meta it names."""
    from embedding_server import vector_for

    meta = json.loads(recording("search_hybrid")["agent_db"]["memory_index_meta"]["memory_index_meta_v1"])
    dims = meta["vectorDims"]
    conn = sqlite3.connect(db)
    try:
        for rowid, text in conn.execute("SELECT chunk_rowid, text FROM memory_index_chunks").fetchall():
            vector = vector_for(text, dims)
            norm = math.sqrt(sum(v * v for v in vector))
            vector = vector if norm < 1e-10 else [v / norm for v in vector]
            conn.execute("UPDATE memory_index_chunks SET embedding = ?, model = ? WHERE chunk_rowid = ?",
                         (struct.pack(f"<{dims}d", *vector), meta["model"], rowid))
        conn.execute("UPDATE memory_index_meta SET value = ? WHERE key = 'memory_index_meta_v1'", (json.dumps(meta),))
        conn.commit()
    finally:
        conn.close()
    return meta

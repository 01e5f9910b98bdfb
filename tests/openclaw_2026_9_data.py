"""The OpenClaw 2026.9.6 recording (`tests/data/openclaw-2026.9.6/`, written by
`benchmarks/openclaw_record/record_2026_9.py`): a state dir rebuilt from it — the real agent database the real
CLI wrote, the workspace it indexed (texts and mtimes) and its `openclaw.json`."""

from __future__ import annotations

import json
import os
import shutil
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

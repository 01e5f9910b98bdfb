"""Which OpenClaw layout an agent has: 2026.4 "classic" (`<state>/memory/<agentId>.sqlite`) or 2026.9's
per-agent database (`<state>/agents/<agentId>/agent/openclaw-agent.sqlite`, versioned by `schema_meta`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.agentdb.ownership import DatabaseKind, identify_database

AGENT_DB_NAME = "openclaw-agent.sqlite"
# The newest agent schema memtui knows (`package.json` `openclaw.schemaVersions.agent` of 2026.9.6).
KNOWN_AGENT_SCHEMA = 23
KNOWN_APP_VERSION = "2026.9.6"
# The tables of the agent database's memory index that memtui reads.
INDEX_TABLES = frozenset({"memory_index_chunks", "memory_index_sources", "memory_index_meta",
                          "memory_index_chunks_fts"})
CLASSIC = "2026.4"
AGENT_DB = "2026.9"
NONE = "none"
UNKNOWN = "unknown"


def agent_db_path(state_dir: Path, agent_id: str) -> Path:
    """2026.9's per-agent database: `<state>/agents/<agentId>/agent/openclaw-agent.sqlite`."""
    return state_dir / "agents" / agent_id / "agent" / AGENT_DB_NAME


@dataclass(frozen=True)
class Generation:
    """The layout found for one agent. `name`: 2026.9, 2026.4, none (no OpenClaw index yet) or unknown (a file
    at OpenClaw's path memtui cannot read); `path`: the file that holds the agent's index (or would);
    `legacy_path`: a 2026.4 index left beside a 2026.9 database; `reason` says why for none/unknown."""

    name: str
    path: Path
    kind: DatabaseKind
    legacy_path: Path | None = None
    reason: str | None = None

    @property
    def newer(self) -> bool:
        """Whether the agent database's schema is newer than the newest one memtui knows (v23, 2026.9.6)."""
        return self.kind.schema_version is not None and self.kind.schema_version > KNOWN_AGENT_SCHEMA

    @property
    def note(self) -> str | None:
        """A warning for every command when memtui reads this layout with rules that may not be its own."""
        if self.name == UNKNOWN:
            return (f"unknown OpenClaw layout: {self.reason}; memtui shows its own index of this agent, not "
                    "OpenClaw's, and never writes the file")
        if self.name == AGENT_DB and self.newer:
            return (f"OpenClaw's agent database {self.path} is schema v{self.kind.schema_version}"
                    f"{f' (written by {self.kind.app_version})' if self.kind.app_version else ''}, newer than "
                    f"v{KNOWN_AGENT_SCHEMA} ({KNOWN_APP_VERSION}), the newest memtui knows: memtui reads it as "
                    f"{KNOWN_APP_VERSION}'s layout and ranks it with {KNOWN_APP_VERSION}'s rules, so the `openclaw` "
                    "profile may not be this OpenClaw's own ranking; a newer memtui may know it")
        return None

    @property
    def label(self) -> str:
        """One line for `status` and the TUI, e.g. `OpenClaw 2026.9 (agent database, schema v3, app 2026.9.6)`."""
        if self.name == AGENT_DB:
            parts = ["agent database"]
            if self.kind.schema_version is not None:
                parts.append(f"schema v{self.kind.schema_version}")
            if self.kind.app_version:
                parts.append(f"written by {self.kind.app_version}")
            if self.newer:
                parts.append(f"newer than v{KNOWN_AGENT_SCHEMA} ({KNOWN_APP_VERSION}), the newest memtui knows: "
                             f"read and ranked as {KNOWN_APP_VERSION}")
            return f"OpenClaw 2026.9 ({', '.join(parts)})"
        if self.name == CLASSIC:
            return "OpenClaw 2026.4 (classic index)"
        if self.name == UNKNOWN:
            return f"unknown OpenClaw layout ({self.reason})"
        return f"no OpenClaw index ({self.reason})"

    def to_json(self) -> dict[str, Any]:
        """The `openclaw.generation` part of `status --json`."""
        return {"generation": self.name, "path": str(self.path), "schemaVersion": self.kind.schema_version,
                "appVersion": self.kind.app_version, "role": self.kind.role,
                "legacyPath": str(self.legacy_path) if self.legacy_path else None, "reason": self.reason,
                "knownSchemaVersion": KNOWN_AGENT_SCHEMA, "newerThanKnown": self.newer, "warning": self.note}


def detect_generation(state_dir: Path, agent_id: str, classic_path: Path,
                      config_generation: str | None = None) -> Generation:
    """The layout of `agent_id` under `state_dir`; `classic_path` is where 2026.4 keeps the index (`store.path`);
    `config_generation` is the one the config is written for, which says where an index not made yet will be.
    Reads file headers and table names only."""
    agent_db = agent_db_path(state_dir, agent_id)
    db_kind = identify_database(agent_db)
    classic_kind = identify_database(classic_path)
    # An index memtui once shared with OpenClaw 2026.4 carries memtui's tables too; it is still OpenClaw's file.
    legacy = classic_path if classic_kind.kind in ("openclaw-2026.4", "memtui") else None
    if db_kind.kind == "openclaw-agent-db":
        missing = sorted(INDEX_TABLES - db_kind.tables)
        if missing:
            version = f"schema v{db_kind.schema_version}" if db_kind.schema_version is not None else "no version"
            written = f", written by {db_kind.app_version}" if db_kind.app_version else ""
            return Generation(UNKNOWN, agent_db, db_kind, legacy_path=legacy, reason=(
                f"{agent_db} is OpenClaw's agent database ({version}{written}) without the memory index tables "
                f"memtui reads ({', '.join(missing)} missing); memtui knows OpenClaw 2026.4 and 2026.9 up to "
                f"agent schema v{KNOWN_AGENT_SCHEMA} ({KNOWN_APP_VERSION})"))
        return Generation(AGENT_DB, agent_db, db_kind, legacy_path=legacy)
    if db_kind.kind not in ("missing", "empty"):
        return Generation(UNKNOWN, agent_db, db_kind,
                          reason=f"{agent_db} is {db_kind.describe()}; memtui knows OpenClaw 2026.4 and 2026.9")
    if legacy is not None:
        return Generation(CLASSIC, classic_path, classic_kind)
    if classic_kind.kind not in ("missing", "empty"):
        return Generation(UNKNOWN, classic_path, classic_kind,
                          reason=f"{classic_path} is {classic_kind.describe()}")
    modern = agent_db.parent.is_dir() or config_generation == AGENT_DB or (state_dir / "state").is_dir()
    return Generation(NONE, agent_db if modern else classic_path, db_kind,
                      reason="OpenClaw has not indexed this agent's memory yet")

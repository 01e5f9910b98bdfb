"""Dreaming on a 2026.9 agent. 2026.9.6 keeps the short-term recall state in its global database
(`<state>/state/openclaw.sqlite`, `plugin_state_entries`, plugin `memory-core`) and its `doctor --fix` imports a
2026.4 `memory/.dreams/short-term-recall.json` as the agent's own state: memtui never writes that file (or any
2026.4 dreaming state) into a 2026.9 workspace, and reads the database's recall rows read-only for `promote` and
`promote-explain`. The rows below have the shape real 2026.9.6 wrote when its `doctor --fix` imported a store
(`dreaming-state.ts` `writeMemoryCoreWorkspaceEntries`: key `<sha256 workspace>:<sha256 entry key>`)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from openclaw_2026_9_data import build_agent, snapshot

from memtui.cli import main as cli_main
from memtui.dreaming.recalls import record_search_hits
from memtui.settings.agent import resolve_agent

PLUGIN_STATE_SQL = """CREATE TABLE plugin_state_entries (
  plugin_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  entry_key TEXT NOT NULL,
  value_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  PRIMARY KEY (plugin_id, namespace, entry_key)
) STRICT"""
KEY = "memory:memory/2026-11-24.md:3:3"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _entry(key: str, path: str, line: int, recalls: int, score: float) -> dict:
    return {"key": key, "path": path, "startLine": line, "endLine": line, "source": "memory",
            "snippet": "Payments API burst limit raised to 500.", "recallCount": recalls, "dailyCount": 0,
            "groundedCount": 0, "totalScore": score * recalls, "maxScore": score,
            "firstRecalledAt": "2026-11-24T09:00:00.000Z", "lastRecalledAt": "2026-11-25T09:00:00.000Z",
            "queryHashes": ["b8587b4d66b9", "427dad4cc05b", "046d256acf6e"], "recallDays": ["2026-11-24"],
            "conceptTags": ["payments", "burst", "limit"]}


def _global_db(state: Path, workspace: Path) -> Path:
    """OpenClaw's global database with two recall rows and the meta row of `workspace`, one row of another
    workspace and one expired row."""
    db = state / "state" / "openclaw.sqlite"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute(PLUGIN_STATE_SQL)

    def put(ws: Path, namespace: str, key: str, value: object, expires: int | None = None) -> None:
        ws_key = _sha(str(ws))
        row = {"version": 1, "workspaceKey": ws_key, "workspaceDir": str(ws), "key": key, "value": value}
        conn.execute("INSERT INTO plugin_state_entries VALUES ('memory-core', ?, ?, ?, 1796598262049, ?)",
                     (namespace, f"{ws_key}:{_sha(key)}", json.dumps(row), expires))

    put(workspace, "short-term-recall", KEY, _entry(KEY, "memory/2026-11-24.md", 3, 4, 0.8))
    other = "memory:memory/2026-06-10.md:5:5"
    put(workspace, "short-term-recall", other, _entry(other, "memory/2026-06-10.md", 5, 3, 0.5))
    put(workspace, "short-term-recall", "memory:memory/gone.md:1:1", _entry("memory:memory/gone.md:1:1",
                                                                            "memory/gone.md", 1, 9, 0.9), expires=1)
    put(workspace, "short-term-meta", "recall", {"updatedAt": "2026-11-25T09:00:00.000Z"})
    put(Path("/elsewhere/ws"), "short-term-recall", KEY, _entry(KEY, "memory/2026-11-24.md", 3, 7, 0.9))
    conn.commit()
    conn.close()
    return db


def _cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_dream_and_promote_apply_refuse_a_2026_9_workspace_and_write_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    agent = build_agent(tmp_path / "install")
    _global_db(agent.state, agent.workspace)
    before = snapshot(agent.state, agent.workspace)
    code, _, err = _cli(capsys, "dream", "--state-dir", str(agent.state), "--provider", "none")
    assert code == 2
    assert "OpenClaw 2026.9 agent's workspace" in err and "plugin_state_entries" in err
    assert "openclaw doctor --fix" in err
    code, _, err = _cli(capsys, "promote", "--apply", "--min-score", "0", "--min-recall-count", "0",
                        "--min-unique-queries", "0", "--state-dir", str(agent.state), "--provider", "none")
    assert code == 2 and "plugin_state_entries" in err
    env = resolve_agent(state_dir=str(agent.state), provider="none")
    assert record_search_hits(env.workspace_dir, "burst limit", [
        ("memory/2026-11-24.md", 3, 3, 0.8, "Payments API burst limit raised to 500.", "memory")]) == 0
    assert not (agent.workspace / "memory" / ".dreams").exists()
    assert snapshot(agent.state, agent.workspace) == before


def test_promote_reads_the_recall_rows_of_openclaws_database(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    agent = build_agent(tmp_path / "install")
    db = _global_db(agent.state, agent.workspace)
    before = snapshot(agent.state, agent.workspace)
    code, out, _ = _cli(capsys, "promote", "--json", "--min-score", "0", "--min-recall-count", "0",
                        "--min-unique-queries", "0", "--state-dir", str(agent.state), "--provider", "none")
    assert code == 0
    listed = json.loads(out)
    assert listed["storePath"] == f"plugin-state:memory-core/short-term-recall/{_sha(str(agent.workspace))}"
    assert listed["database"] == str(db)
    assert [(c["key"], c["recallCount"]) for c in listed["candidates"]] == \
        [(KEY, 4), ("memory:memory/2026-06-10.md:5:5", 3)]
    code, out, _ = _cli(capsys, "promote-explain", "memory/2026-11-24.md:3-3", "--json",
                        "--state-dir", str(agent.state), "--provider", "none")
    assert code == 0 and json.loads(out)["candidates"][0]["key"] == KEY
    code, out, _ = _cli(capsys, "promote", "--state-dir", str(agent.state), "--provider", "none")
    assert code == 0 and f"Recall store: OpenClaw 2026.9's {db} (read-only)" in out
    assert snapshot(agent.state, agent.workspace) == before


def test_promote_gates_unique_queries_at_three_as_2026_9_6_does(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """2026.9.6's `memory promote` defaults `--min-unique-queries` to 3 (2026.4's to 2): an entry two queries
    recalled is held back on a 2026.9 agent unless the gate is given."""
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    agent = build_agent(tmp_path / "install")
    db = _global_db(agent.state, agent.workspace)
    conn = sqlite3.connect(db)
    with conn:
        for key, value in conn.execute("SELECT entry_key, value_json FROM plugin_state_entries").fetchall():
            row = json.loads(value)
            if isinstance(row["value"], dict) and "queryHashes" in row["value"]:
                row["value"]["queryHashes"] = row["value"]["queryHashes"][:2]
                conn.execute("UPDATE plugin_state_entries SET value_json = ? WHERE entry_key = ?",
                             (json.dumps(row), key))
    conn.close()
    argv = ["promote", "--json", "--min-score", "0", "--min-recall-count", "0", "--state-dir", str(agent.state),
            "--provider", "none"]
    code, out, _ = _cli(capsys, *argv)
    assert code == 0 and json.loads(out)["candidates"] == []
    code, out, _ = _cli(capsys, *argv, "--min-unique-queries", "2")
    assert code == 0 and [c["key"] for c in json.loads(out)["candidates"]][:1] == [KEY]

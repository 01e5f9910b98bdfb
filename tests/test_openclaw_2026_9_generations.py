"""Which OpenClaw layout an agent has, when it is not exactly 2026.9.6's: a database written by a newer OpenClaw
(schema above v23) is read as 2026.9.6's with a warning that says so; one whose memory index tables are not
there is an unknown layout (not "not indexed yet"); an agent of a 2026.9 state dir or config that has no
database yet is expected at 2026.9's path, not 2026.4's."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from openclaw_2026_9_data import build_agent

from memtui.agentdb.generation import KNOWN_AGENT_SCHEMA
from memtui.cli import main as cli_main


def _status(capsys: pytest.CaptureFixture, state: Path) -> tuple[dict, str, str]:
    assert cli_main(["status", "--state-dir", str(state), "--provider", "none", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert cli_main(["status", "--state-dir", str(state), "--provider", "none"]) == 0
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(autouse=True)
def _data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))


def test_a_newer_schema_is_read_as_2026_9_6_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path / "install")
    conn = sqlite3.connect(agent.agent_db)
    conn.execute("UPDATE schema_meta SET schema_version = 31, app_version = '2027.2.1'")
    conn.commit()
    conn.close()
    status, out, err = _status(capsys, agent.state)
    openclaw = status["openclaw"]
    assert (openclaw["generation"], openclaw["schemaVersion"], openclaw["newerThanKnown"]) == ("2026.9", 31, True)
    assert openclaw["knownSchemaVersion"] == KNOWN_AGENT_SCHEMA == 23
    assert "newer than v23 (2026.9.6), the newest memtui knows" in openclaw["warning"]
    assert "newer than v23 (2026.9.6), the newest memtui knows: read and ranked as 2026.9.6" in out
    assert "may not be this OpenClaw's own ranking" in err
    assert cli_main(["search", "burst limit", "--profile", "openclaw", "--state-dir", str(agent.state),
                     "--provider", "none"]) == 0
    assert "schema v31 (written by 2027.2.1), newer than v23" in capsys.readouterr().err


def test_the_known_schema_has_no_warning(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path / "install")
    status, _, err = _status(capsys, agent.state)
    assert status["openclaw"]["newerThanKnown"] is False and status["openclaw"]["warning"] is None
    assert "newest memtui knows" not in err


def test_missing_index_tables_are_an_unknown_layout(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path / "install")
    conn = sqlite3.connect(agent.agent_db)
    conn.execute("ALTER TABLE memory_index_chunks RENAME TO memory_chunks_v2")
    conn.commit()
    conn.close()
    before = agent.agent_db.read_bytes()
    status, out, err = _status(capsys, agent.state)
    assert status["openclaw"]["generation"] == "unknown"
    assert "without the memory index tables memtui reads (memory_index_chunks missing)" in status["openclaw"]["reason"]
    assert "unknown OpenClaw layout" in out and "has not indexed" not in out + err
    assert "unknown OpenClaw layout" in err and "never writes the file" in err
    assert agent.agent_db.read_bytes() == before


def test_an_agent_without_a_database_yet_is_expected_at_the_2026_9_path(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path / "install")
    shutil.rmtree(agent.state / "agents")
    status, _, _ = _status(capsys, agent.state)
    assert status["openclaw"]["generation"] == "none"
    assert status["openclawStorePath"] == str(agent.agent_db)
    classic = tmp_path / "classic"
    classic.mkdir()
    (classic / "openclaw.json").write_text(json.dumps({"agents": {"list": [{"id": "main"}]}}), encoding="utf-8")
    status, _, _ = _status(capsys, classic)
    assert status["openclawStorePath"] == str(classic / "memory" / "main.sqlite")

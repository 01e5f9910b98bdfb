"""A 2026.9.6 agent as the real `openclaw memory index --force` left it: memtui names the generation, reads the
agent database's own index, never writes it, and leaves the state dir and the workspace byte-identical after
read-only use (memtui's own index lives in its data dir)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from openclaw_2026_9_data import build_agent, recording, snapshot

from memtui.cli import main as cli_main
from memtui.errors import PathError
from memtui.index.store import ForeignDatabaseError
from memtui.manager import MemoryManager
from memtui.mcp_server import call_memory_search
from memtui.settings.agent import resolve_agent


def _cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_status_names_the_generation_and_reads_openclaws_own_index(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path)
    code, out, _ = _cli(capsys, "status", "--state-dir", str(agent.state), "--provider", "none", "--json")
    assert code == 0
    status = json.loads(out)
    openclaw = status["openclaw"]
    recorded = recording("status")["output"][0]["status"]
    assert (openclaw["generation"], openclaw["schemaVersion"], openclaw["appVersion"]) == ("2026.9", 23, "2026.9.6")
    assert openclaw["path"] == status["openclawStorePath"] == str(agent.agent_db)
    index = openclaw["index"]
    assert (index["chunks"], index["files"]) == (recorded["chunks"], recorded["files"]) == (82, 54)
    assert index["chunksBySource"] == {"memory": 82} and index["vectors"] == 0
    assert index["model"] == "fts-only" and index["chunkingVersion"] is not None
    assert index["withImportance"] > 0
    assert status["workspaceDir"] == str(agent.workspace) and status["issues"] == []
    code, out, _ = _cli(capsys, "status", "--state-dir", str(agent.state), "--provider", "none")
    assert "OpenClaw: OpenClaw 2026.9 (agent database, schema v23, written by 2026.9.6)" in out
    assert "OpenClaw's index: 82 chunks in 54 files (memory 82)" in out


def test_read_only_use_changes_no_byte_of_the_state_dir_or_the_workspace(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path)
    before = snapshot(agent.state, agent.workspace)
    common = ["--state-dir", str(agent.state), "--provider", "none"]
    for argv in (["status"], ["status", "--json"], ["search", "payments deploy freeze"],
                 ["search", "postgres failover", "--json"], ["search", "burst limit", "--explain"],
                 ["search", "runbooks", "--profile", "openclaw"], ["get", "MEMORY.md", "--lines", "5"],
                 ["sessions"], ["context"]):
        code, _, err = _cli(capsys, *argv, *common)
        assert code == 0, (argv, err)
    assert snapshot(agent.state, agent.workspace) == before


def test_the_mcp_server_records_no_2026_4_recall_store_in_a_2026_9_workspace(tmp_path: Path) -> None:
    agent = build_agent(tmp_path)
    before = snapshot(agent.state, agent.workspace)
    with MemoryManager(resolve_agent(state_dir=str(agent.state), provider="none")) as manager:
        payload = call_memory_search(manager, {"query": "payments deploy"}, session_key="agent:main:main")
        assert payload["results"]
    assert not (agent.workspace / "memory" / ".dreams").exists()
    assert snapshot(agent.state, agent.workspace) == before


def test_the_agent_database_is_never_opened_for_writing(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path)
    copy = tmp_path / "copy" / "openclaw-agent.sqlite"
    copy.parent.mkdir()
    shutil.copyfile(agent.agent_db, copy)
    before = snapshot(agent.state, copy.parent)
    with pytest.raises(PathError, match="inside the OpenClaw state dir"):
        resolve_agent(state_dir=str(agent.state), store=str(agent.agent_db), provider="none")
    with pytest.raises(ForeignDatabaseError) as raised:
        MemoryManager(resolve_agent(state_dir=str(agent.state), store=str(copy), provider="none"))
    assert "OpenClaw 2026.9's per-agent database (schema version 23, written by OpenClaw 2026.9.6" in str(raised.value)
    code, _, err = _cli(capsys, "index", "--state-dir", str(agent.state), "--store", str(copy), "--provider", "none")
    assert code == 2 and "memtui never creates, alters or migrates tables" in err
    code, _, err = _cli(capsys, "search", "payments", "--state-dir", str(agent.state), "--store",
                        str(agent.agent_db), "--read-only", "--provider", "none")
    assert code == 2 and "OpenClaw 2026.9's per-agent database" in err and "damaged" not in err
    assert snapshot(agent.state, copy.parent) == before
    tables = {row[0] for row in sqlite3.connect(f"file:{copy}?immutable=1", uri=True).execute(
        "SELECT name FROM sqlite_master")}
    assert not {"chunks", "files", "meta"} & tables


def test_search_profile_openclaw_answers_from_openclaws_own_index_as_2026_9_6(tmp_path: Path,
                                                                              capsys: pytest.CaptureFixture,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """`memtui search --profile openclaw --json` on a 2026.9 agent prints what the real `openclaw memory search
    --json` printed for every recorded query (its clock pinned to the recording's), without writing a byte."""
    import memtui.search.agent_db as agent_search

    agent = build_agent(tmp_path)
    before = snapshot(agent.state, agent.workspace)
    for case in recording("search")["searches"]:
        monkeypatch.setattr(agent_search.time, "time", lambda case=case: case["clock_ms"][1] / 1000)
        code, out, _ = _cli(capsys, "search", case["query"], *case["args"], "--json", "--profile", "openclaw",
                            "--state-dir", str(agent.state), "--provider", "none")
        assert code == 0
        got, expected = json.loads(out)["results"], case["output"]["results"]
        assert [(h["path"], h["startLine"], h["endLine"]) for h in got] == \
            [(h["path"], h["startLine"], h["endLine"]) for h in expected], case["id"]
        for mine, theirs in zip(got, expected, strict=True):
            assert mine["score"] == pytest.approx(theirs["score"], abs=1e-5), case["id"]
            assert {k: v for k, v in mine.items() if k != "score"} == \
                {k: v for k, v in theirs.items() if k != "score"}, case["id"]
    code, out, _ = _cli(capsys, "search", "burst limit", "--explain", "--profile", "openclaw",
                        "--state-dir", str(agent.state), "--provider", "none")
    assert "OpenClaw 2026.9's own index" in out and "decay" in out and "rankingScore" in out
    assert snapshot(agent.state, agent.workspace) == before

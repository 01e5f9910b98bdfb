"""Bad input never aborts a sync: problems are counted, reported in status, and everything else lands."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from memtui.cli import main
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv


def test_binary_and_non_utf8_files_are_reported(make_env: Callable[..., AgentEnv],
                                                           workspace: Path, capsys) -> None:
    memory = workspace / "memory"
    (memory / "2026-11-20.md").write_bytes("# 2026-11-20\n\n- caf\xe9 order for the offsite\n".encode("latin-1"))
    (memory / "blob.md").write_bytes(b"\x00\x01\x02PNG binary junk")
    env = make_env()
    with MemoryManager(env) as manager:
        report = manager.sync()
        reasons = {issue.path: issue.reason for issue in report.issues}
        assert "not valid UTF-8" in reasons["memory/2026-11-20.md"]
        assert "binary" in reasons["memory/blob.md"]
        assert manager.search("offsite", min_score=0.0).results[0].path == "memory/2026-11-20.md"
        assert manager.search("payment webhook").results[0].path == "memory/2026-11-28.md"
    code = main(["status", "--json", "--state-dir", str(env.state_dir), "--workspace", str(workspace),
                 "--provider", "none"])
    assert code == 0
    status = json.loads(capsys.readouterr().out)
    paths = {issue["path"] for issue in status["issues"]}
    assert {"memory/2026-11-20.md", "memory/blob.md"} <= paths
    # A file every sync skips is not a sync that is due: the index is clean (it read "dirty" forever).
    assert status["dirty"] is False and status["custom"]["dirtyReason"] is None
    (memory / "2026-11-21.md").write_text("# 2026-11-21\n\n- new\n", encoding="utf-8")
    with MemoryManager(env) as manager:
        assert manager.status()["custom"]["dirtyReason"] == "memory/2026-11-21.md is not indexed yet"
        # The watcher's sync of that one file keeps what the full sync found about the others.
        manager.sync(reason="watch", memory_paths={"memory/2026-11-21.md"})
        status = manager.status()
        assert status["dirty"] is False
        assert {"memory/2026-11-20.md", "memory/blob.md"} <= {issue["path"] for issue in status["issues"]}


def test_broken_transcript_lines_do_not_stop_the_sync(make_env: Callable[..., AgentEnv], tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json"
    config.write_text('{agents: {defaults: {memorySearch: {sources: ["memory", "sessions"], '
                      "experimental: {sessionMemory: true}}}}}", encoding="utf-8")
    env = make_env(config=str(config))
    env.sessions_dir.mkdir(parents=True)
    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-11-29T10:00:00Z", "cwd": "/w"},
        {"type": "message", "id": "m1", "parentId": None, "timestamp": "2026-11-29T10:00:01Z",
         "message": {"role": "user", "content": "Where is the flamingo runbook kept?", "timestamp": 1764410401000}},
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n{not json at all\n"
    text += json.dumps({"type": "message", "id": "m2", "parentId": "m1", "timestamp": "2026-11-29T10:00:05Z",
                        "message": {"role": "assistant", "content": [{"type": "text", "text": "In ops/flamingo.md."}],
                                    "timestamp": 1764410405000}}) + "\n"
    (env.sessions_dir / "s1.jsonl").write_text(text, encoding="utf-8")
    with MemoryManager(env) as manager:
        report = manager.sync()
        assert any(issue.path == "sessions/s1.jsonl" and issue.line == 3 for issue in report.issues)
        hits = manager.search("flamingo runbook", min_score=0.0).results
        assert hits and hits[0].path == "sessions/s1.jsonl" and hits[0].source == "sessions"
        assert (hits[0].start_line, hits[0].end_line) == (2, 4)
        assert manager.search("payment webhook").results[0].path == "memory/2026-11-28.md"

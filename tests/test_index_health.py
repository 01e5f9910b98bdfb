"""`memtui health`: the agent's real index (OpenClaw 2026.9's agent database, or memtui's) diffed against the
files on disk and a fresh index — changed, new, deleted, cut differently, vectors of another model — read
without writing a byte."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

from hashed_provider import HashedProvider
from openclaw_2026_9_data import build_agent, snapshot

import memtui.cli
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent


def _health(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert memtui.cli.main(["health", *args, "--json"]) == 0
    return json.loads(out.getvalue())


def test_openclaws_agent_database_against_the_disk(tmp_path: Path) -> None:
    agent = build_agent(tmp_path)
    state = ["--state-dir", str(agent.state)]
    fresh = _health(*state)
    assert fresh["healthy"] and fresh["files"] == fresh["filesOnDisk"] == 54 and fresh["chunks"] == 82
    assert fresh["index"].startswith("OpenClaw 2026.9")  # USER.md and chunker v5: nothing cut differently
    (agent.workspace / "memory" / "2026-11-24.md").write_text("# 2026-11-24\n\n- Burst limit is now 800.\n",
                                                              encoding="utf-8")
    (agent.workspace / "memory" / "2026-12-01.md").write_text("# 2026-12-01\n\n- New day.\n", encoding="utf-8")
    (agent.workspace / "memory" / "2026-11-30.md").unlink()
    before = snapshot(agent.state, agent.workspace)
    report = _health(*state)
    assert snapshot(agent.state, agent.workspace) == before
    assert {(row["kind"], row["path"]) for row in report["rows"]} == {
        ("changed", "memory/2026-11-24.md"), ("new", "memory/2026-12-01.md"), ("deleted", "memory/2026-11-30.md")}
    assert report["counts"]["changed"] == 1 and not report["healthy"]


def test_memtuis_index_cut_with_another_size_and_searched_with_another_model(tmp_path: Path,
                                                                           workspace: Path) -> None:
    (workspace / "memory" / "2026-11-30.md").write_text(
        "# 2026-11-30\n\n" + "".join(f"- Item {i}: the deploy checklist line number {i}.\n" for i in range(60)),
        encoding="utf-8")
    state = tmp_path / "state"
    state.mkdir()
    with MemoryManager(resolve_agent(state_dir=str(state), workspace=str(workspace)),
                       provider=HashedProvider()) as manager:
        manager.sync()
    args = ["--state-dir", str(state), "--workspace", str(workspace), "--index", "memtui"]
    assert _health(*args)["healthy"]
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "provider": "openai", "model": "text-embedding-3-small", "remote": {"apiKey": "k"},
        "chunking": {"tokens": 100, "overlap": 10}}}}}), encoding="utf-8")
    report = _health(*args)
    kinds = {(row["kind"], row["path"]) for row in report["rows"]}
    assert ("recut", "memory/2026-11-30.md") in kinds
    model = [row for row in report["rows"] if row["kind"] == "model"]
    assert model and "hashed-trigram-64" in model[0]["detail"] and "text-embedding-3-small" in model[0]["detail"]


def test_no_index_yet_is_a_clear_error(tmp_path: Path, workspace: Path, capsys: Any) -> None:
    code = memtui.cli.main(["health", "--state-dir", str(tmp_path / "state"), "--workspace", str(workspace)])
    assert code != 0
    assert "has not indexed agent main yet" in capsys.readouterr().err

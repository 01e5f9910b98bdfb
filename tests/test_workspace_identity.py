"""An index answers for exactly one workspace: `--workspace` gets a store of its own, and an index that was
built for another folder (or does not say) is synced before it answers, or refused read-only."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memtui.cli import main as cli_main
from memtui.errors import StoreError
from memtui.index.identity import WORKSPACE_KEY
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent


def _workspace(root: Path, name: str, word: str) -> Path:
    ws = root / name
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text(f"# {name}\n- the {word} note lives here\n", encoding="utf-8")
    (ws / "memory" / "2026-04-29.md").write_text(f"# 2026-04-29\n- {word} again\n", encoding="utf-8")
    return ws


def _cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def spaces(tmp_path: Path) -> tuple[Path, Path]:
    return _workspace(tmp_path, "alpha", "aardvark"), _workspace(tmp_path, "beta", "bison")


def test_each_workspace_flag_gets_its_own_index(spaces: tuple[Path, Path], capsys: pytest.CaptureFixture) -> None:
    """The reported case: `--workspace A index`, then B's status and search (no `--state-dir`, so both
    would land in ~/.openclaw/memtui/main.sqlite): B shows its own two files and never A's notes."""
    alpha, beta = spaces
    assert _cli(capsys, "index", "--workspace", str(alpha), "--provider", "none")[0] == 0
    code, out, _ = _cli(capsys, "status", "--workspace", str(beta), "--provider", "none", "--json")
    status = json.loads(out)
    assert code == 0 and status["files"] == 0 and status["dirty"] is True
    code, out, _ = _cli(capsys, "search", "aardvark", "--workspace", str(beta), "--provider", "none", "--json")
    assert code == 0 and json.loads(out)["results"] == []
    code, out, _ = _cli(capsys, "search", "bison", "--workspace", str(beta), "--provider", "none", "--json")
    assert {hit["path"] for hit in json.loads(out)["results"]} == {"MEMORY.md", "memory/2026-04-29.md"}
    code, out, _ = _cli(capsys, "status", "--workspace", str(alpha), "--provider", "none", "--json")
    alpha_status = json.loads(out)
    assert alpha_status["files"] == 2 and alpha_status["dbPath"] != json.loads(
        _cli(capsys, "status", "--workspace", str(beta), "--provider", "none", "--json")[1])["dbPath"]


def test_a_shared_store_is_resynced_for_the_workspace_it_answers(spaces: tuple[Path, Path], tmp_path: Path) -> None:
    """One `--store` for two workspaces: the index says whose it is, and a search for the other workspace
    first brings it up to date for that one (A's notes are gone from the answer)."""
    alpha, beta = spaces
    store = str(tmp_path / "shared.sqlite")
    options = {"state_dir": str(tmp_path / "state"), "provider": "none", "store": store}
    with MemoryManager(resolve_agent(workspace=str(alpha), **options)) as manager:
        manager.sync()
    with MemoryManager(resolve_agent(workspace=str(beta), **options)) as manager:
        assert manager.workspace_check.recorded == str(alpha)
        assert manager.workspace_check.foreign is not None
        assert manager.status()["indexIdentity"]["matches"] is False
        assert manager.search("aardvark").results == []
        assert {h.path for h in manager.search("bison").results} == {"MEMORY.md", "memory/2026-04-29.md"}
        assert manager.workspace_check.recorded == str(beta) and manager.workspace_check.foreign is None


def test_read_only_refuses_another_workspaces_index(spaces: tuple[Path, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    alpha, beta = spaces
    store = str(tmp_path / "shared.sqlite")
    common = ["--state-dir", str(tmp_path / "state"), "--provider", "none", "--store", store]
    assert _cli(capsys, "index", "--workspace", str(alpha), *common)[0] == 0
    code, out, err = _cli(capsys, "search", "aardvark", "--workspace", str(beta), "--read-only", *common)
    assert code != 0 and out == ""
    assert f"was built for workspace {alpha}, not {beta}" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_an_index_that_does_not_say_whose_it_is_is_synced_or_refused(spaces: tuple[Path, Path],
                                                                      tmp_path: Path) -> None:
    """An index from before workspaces were recorded (the row removed here): never served as it is."""
    alpha, beta = spaces
    store = tmp_path / "old.sqlite"
    options = {"state_dir": str(tmp_path / "state"), "provider": "none", "store": str(store)}
    with MemoryManager(resolve_agent(workspace=str(alpha), **options)) as manager:
        manager.sync()
    conn = sqlite3.connect(store)
    with conn:
        conn.execute("DELETE FROM meta WHERE key = ?", (WORKSPACE_KEY,))
    conn.close()
    with pytest.raises(StoreError, match="does not record which workspace"):
        MemoryManager(resolve_agent(workspace=str(beta), read_only=True, **options))
    with MemoryManager(resolve_agent(workspace=str(beta), **options)) as manager:
        assert manager.search("aardvark").results == []
        assert manager.workspace_check.recorded == str(beta)


def test_the_agents_own_workspace_keeps_the_agents_index(tmp_path: Path) -> None:
    """`--workspace` naming the configured workspace (even through a symlink) is not an override."""
    state = tmp_path / "state"
    ws = _workspace(tmp_path, "mine", "marmot")
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"workspace": str(ws)}}}))
    (tmp_path / "link").symlink_to(ws)
    configured = resolve_agent(state_dir=str(state), provider="none")
    via_link = resolve_agent(state_dir=str(state), workspace=str(tmp_path / "link"), provider="none")
    other = resolve_agent(state_dir=str(state), workspace=str(_workspace(tmp_path, "else", "emu")), provider="none")
    assert configured.store_path == via_link.store_path == configured.memtui_dir / "main.sqlite"
    assert other.store_path != configured.store_path and other.store_path.parent == configured.memtui_dir
    assert not configured.memtui_dir.is_relative_to(state)

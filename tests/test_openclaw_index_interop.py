"""One index file, two programs: OpenClaw's own index (rebuilt from the recording with its DDL and rows) opened
by memtui read-only and writable, and OpenClaw's incremental writes to an index memtui shares — detected, and
memtui's Porter table and revision repaired."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from openclaw_memory_data import (
    Root,
    agent_env,
    apply_openclaw_update,
    build_openclaw_index,
    build_root,
    recording,
    rows,
)

from memtui.cli import main as cli_main
from memtui.errors import PathError
from memtui.index.store import ForeignDatabaseError
from memtui.jscompat import js_stringify
from memtui.manager import MemoryManager

SESSION = "agent:main:main"


def _tool_text(manager: MemoryManager, case: dict) -> str:
    payload = manager.memory_search(case["query"], max_results=case.get("maxResults"),
                                    min_score=case.get("minScore"), session_key=SESSION, profile="openclaw")
    return re.sub(r'("searchMs": )\d+', r"\g<1>0", js_stringify(payload, indent=2))


def _openclaw_state(tmp_path: Path) -> tuple[Root, Path, Path]:
    root = build_root(tmp_path)
    state = tmp_path / "state"
    db = build_openclaw_index(state / "memory" / "main.sqlite")
    return root, state, db


def _openclaw_tables(db: Path) -> dict[str, list[tuple]]:
    return {
        "meta": rows(db, "SELECT key, value FROM meta WHERE key NOT LIKE 'memtui%' ORDER BY key"),
        "files": rows(db, "SELECT path, source, hash, size FROM files ORDER BY path"),
        "chunks": rows(db, "SELECT id, path, start_line, end_line, hash, text FROM chunks ORDER BY id"),
        "fts": rows(db, "SELECT id, text FROM chunks_fts ORDER BY id"),
    }


def test_openclaws_index_read_only_answers_like_openclaw(tmp_path: Path) -> None:
    """memtui `--read-only --store` on OpenClaw's own index: every recorded query gives OpenClaw's tool JSON,
    and not a byte of the index changes."""
    root, state, db = _openclaw_state(tmp_path)
    before = db.read_bytes()
    env = agent_env(root, state, store=str(db), read_only=True)
    with MemoryManager(env) as manager:
        for case in recording("search")["searches"]:
            assert _tool_text(manager, case) == case["tool"]["text"], case["query"]
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["main.sqlite"]


@pytest.mark.parametrize("crashed", [False, True], ids=["openclaw-running", "wal-left-by-a-crash"])
def test_read_only_beside_openclaws_wal_writes_nothing(tmp_path: Path, crashed: bool) -> None:
    """README: OpenClaw has synced changed notes into its index's WAL (frames not yet checkpointed) and is
    still running, or crashed and left the `-wal` behind (no `-shm`). A read-only memtui answers from those
    frames like OpenClaw and leaves the index file and the `-wal` as they were, and makes no `-shm` (it reads a
    private copy; `tests/test_openclaw_index_readonly_wal.py` checks every byte and mtime beside a writer
    process)."""
    import sqlite3

    root, state, db = _openclaw_state(tmp_path)
    openclaw = sqlite3.connect(db)
    try:
        assert openclaw.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
        openclaw.execute("SELECT count(*) FROM chunks").fetchone()  # now a WAL reader: the WAL outlives a writer
        apply_openclaw_update(root, db)
        if crashed:  # what the files were at the crash, put back after a clean close checkpointed them
            saved = {suffix: Path(f"{db}{suffix}").read_bytes() for suffix in ("", "-wal")}
            openclaw.close()
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
            for suffix, data in saved.items():
                Path(f"{db}{suffix}").write_bytes(data)
        files = {suffix: Path(f"{db}{suffix}").read_bytes() for suffix in ("", "-wal")}
        assert files["-wal"] and Path(f"{db}-shm").exists() is not crashed
        with MemoryManager(agent_env(root, state, store=str(db), read_only=True)) as manager:
            for case in recording("update")["searches"]:
                assert _tool_text(manager, case) == case["tool"]["text"], case["query"]
        assert {suffix: Path(f"{db}{suffix}").read_bytes() for suffix in ("", "-wal")} == files
        shm = [] if crashed else [f"{db.name}-shm"]
        assert sorted(p.name for p in db.parent.iterdir()) == [db.name, *shm, f"{db.name}-wal"]
    finally:
        openclaw.close()


def test_openclaws_index_is_never_opened_for_writing(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A writable `--store` on OpenClaw's own index is refused with what the file is — in the state dir by its
    place, a copy elsewhere by its content (no memtui tables) — and not a byte of either changes."""
    root, state, db = _openclaw_state(tmp_path)
    copy = tmp_path / "elsewhere" / "main.sqlite"
    copy.parent.mkdir()
    copy.write_bytes(db.read_bytes())
    before = {path: path.read_bytes() for path in (db, copy)}
    with pytest.raises(PathError, match="inside the OpenClaw state dir"):
        agent_env(root, state, store=str(db))
    with pytest.raises(ForeignDatabaseError, match=r"OpenClaw 2026\.4's own memory index; memtui never creates"):
        MemoryManager(agent_env(root, state, store=str(copy)))
    assert cli_main(["index", "--state-dir", str(state), "--store", str(copy), "--provider", "none"]) == 2
    assert "memtui never creates, alters or migrates tables" in capsys.readouterr().err
    assert {path: path.read_bytes() for path in (db, copy)} == before
    assert sorted(p.name for p in copy.parent.iterdir()) == ["main.sqlite"]
    assert _openclaw_tables(copy) == _openclaw_tables(db)


def test_openclaw_writing_to_a_shared_index_is_repaired(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """memtui indexes, then OpenClaw syncs the same file after notes changed (its rows, not memtui's). memtui
    sees it: a read-only search does not use the stale Porter table, `memtui index` says it repaired it, and
    the `memtui` profile finds the new text as the `openclaw` profile does — which answers like OpenClaw."""
    root = build_root(tmp_path)
    state = tmp_path / "state"
    db = tmp_path / "shared" / "main.sqlite"  # memtui's index, which OpenClaw's `store.path` also names
    env = agent_env(root, state, store=str(db))
    with MemoryManager(env) as manager:
        manager.sync(force=True)
        revision = manager.store.revision()
    apply_openclaw_update(root, db)

    with MemoryManager(agent_env(root, state, store=str(db), read_only=True, profile="memtui")) as reader:
        assert reader.store.check_external_writes() is True
        assert reader.store.has_stemmed_index is False
        assert reader.store.revision() != revision
        assert [h.path for h in reader.search("xylophone").results] == ["memory/2026-04-30.md",
                                                                        "memory/2026-04-29.md"]

    common = ["--state-dir", str(state), "--store", str(db), "--provider", "none"]
    assert cli_main(["index", *common]) == 0
    out = capsys.readouterr().out
    assert "Indexed 0 of 30 files" in out and "Porter table was rebuilt" in out

    with MemoryManager(agent_env(root, state, store=str(db), profile="memtui")) as manager:
        assert manager.store.check_external_writes() is False and manager.store.has_stemmed_index
        assert {h.path for h in manager.search("xylophones").results} == {"memory/2026-04-30.md",
                                                                           "memory/2026-04-29.md"}
        for case in recording("update")["searches"]:
            assert _tool_text(manager, case) == case["tool"]["text"], case["query"]



def test_a_write_after_openclaws_commit_repairs_before_stamping(tmp_path: Path) -> None:
    """OpenClaw commits while memtui has the index open for writing; memtui's next write notices it inside its
    own transaction, so the fingerprint it stamps never vouches for rows its Porter table lacks."""
    root = build_root(tmp_path)
    state = tmp_path / "state"
    db = tmp_path / "shared" / "main.sqlite"  # memtui's index, which OpenClaw's `store.path` also names
    with MemoryManager(agent_env(root, state, store=str(db), profile="memtui")) as manager:
        manager.sync(force=True)
        assert manager.store.check_external_writes() is False
        apply_openclaw_update(root, db)
        assert manager.store.delete_files(["memory/2026-04-26.md"], "memory") == 1  # a write, no sync
        assert manager.store.repairs == 1
    with MemoryManager(agent_env(root, state, store=str(db), read_only=True, profile="memtui")) as reader:
        assert reader.store.check_external_writes() is False and reader.store.has_stemmed_index
        assert {h.path for h in reader.search("xylophones").results} == {"memory/2026-04-29.md",
                                                                          "memory/2026-04-30.md"}


def test_a_running_memtui_follows_openclaws_writes(tmp_path: Path) -> None:
    """A long-running manager (TUI, MCP, watch) on a shared index: OpenClaw's new notes are found at once
    (without the stale Porter table or accelerator), and a background sync repairs what memtui adds."""
    root = build_root(tmp_path)
    state = tmp_path / "state"
    db = tmp_path / "shared" / "main.sqlite"  # memtui's index, which OpenClaw's `store.path` also names
    with MemoryManager(agent_env(root, state, store=str(db), profile="memtui")) as manager:
        manager.sync(force=True)
        assert manager.search("xylophone").results == []
        manager.fast.wait()
        apply_openclaw_update(root, db)
        assert {h.path for h in manager.search("xylophone").results} == {"memory/2026-04-29.md",
                                                                          "memory/2026-04-30.md"}
        assert manager.wait_idle(60)
        assert manager.store.check_external_writes() is False and manager.store.has_stemmed_index
        assert {h.path for h in manager.search("xylophones").results} == {"memory/2026-04-29.md",
                                                                           "memory/2026-04-30.md"}

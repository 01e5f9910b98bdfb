"""memtui's index against the one the real OpenClaw 2026.4.29 built on the same workspace and config
(`tests/data/openclaw-2026.4.29/memory/`): files, chunks, FTS rows and vocabulary, meta (scopeHash) — equal."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from openclaw_memory_data import Root, agent_env, build_root, recording, rows

from memtui.index.meta import scope_json
from memtui.index.store import sqlite_driver
from memtui.jscompat import js_stringify
from memtui.manager import MemoryManager

VARIANTS = list(recording("variants"))
CHUNKED = [name for name in VARIANTS if "chunks" in recording("variants")[name]["index"]]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Root:
    return build_root(tmp_path_factory.mktemp("oc-memory"))


def _index(root: Root, state: Path, variant: str) -> Path:
    env = agent_env(root, state, variant)
    with MemoryManager(env) as manager:
        manager.sync(force=True)
    return env.store_path


def _files(db: Path) -> list[dict]:
    return [{"path": p, "source": s, "hash": h, "size": z}
            for p, s, h, z in rows(db, "SELECT path, source, hash, size FROM files ORDER BY path, source")]


def _chunks(db: Path, *, texts: bool) -> list[dict]:
    found = rows(db, "SELECT id, path, source, start_line, end_line, hash, model, text, embedding, "
                     "ROW_NUMBER() OVER (PARTITION BY path, source ORDER BY rowid) FROM chunks "
                     "ORDER BY path, start_line, end_line, id")
    return [{"id": i, "path": p, "source": s, "start_line": a, "end_line": b, "hash": h, "model": m,
             **({"text": t} if texts else {}), "embedding": e, "ordinal": n}
            for i, p, s, a, b, h, m, t, e, n in found]


def _recorded_files(index: dict) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "mtime"} for row in index["files"]]


def _recorded_chunks(index: dict) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "updated_at"} for row in index["chunks"]]


def _fts(db: Path) -> list[dict]:
    found = rows(db, "SELECT f.id, f.path, f.source, f.model, f.start_line, f.end_line, f.text = c.text "
                     "FROM chunks_fts f JOIN chunks c ON c.id = f.id ORDER BY f.path, f.start_line, f.end_line, f.id")
    assert all(row[6] for row in found), "an FTS row does not hold its chunk's text"
    return [{"id": i, "path": p, "source": s, "model": m, "start_line": a, "end_line": b}
            for i, p, s, m, a, b, _ in found]


def _vocab(db: Path) -> list[list]:
    conn = sqlite_driver.connect(str(db))
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, chunks_fts, row)")
        return [list(row) for row in conn.execute("SELECT term, doc, cnt FROM temp.vocab ORDER BY term")]
    finally:
        conn.close()


def _meta(db: Path) -> str:
    return rows(db, "SELECT value FROM meta WHERE key = 'memory_index_meta_v1'")[0][0]


def test_default_index_is_openclaws(root: Root, tmp_path: Path) -> None:
    """Every file row, chunk (id, lines, text, hash), FTS row and FTS term count, and the meta row, byte for
    byte: CJK, emoji cut into lone surrogates, CRLF, BOM, blank files, a 13,000-character line."""
    index = recording("index")
    db = _index(root, tmp_path / "state", "default")
    assert _files(db) == _recorded_files(index)
    assert _chunks(db, texts=True) == _recorded_chunks(index)
    assert _fts(db) == index["fts"]
    assert _vocab(db) == index["fts_vocab_row"]
    assert _meta(db) == index["meta"][0]["value"]


def test_openclaw_tables_have_openclaws_columns(root: Root, tmp_path: Path) -> None:
    """The tables OpenClaw reads have its columns, types, defaults and keys (its DDL, whitespace aside)."""
    db = _index(root, tmp_path / "state", "default")
    reference = sqlite_driver.connect(":memory:")
    for row in recording("index")["schema"]:
        if row["type"] == "table" and row["sql"] and not row["name"].startswith("chunks_fts_"):
            reference.execute(row["sql"])
    conn = sqlite_driver.connect(str(db))
    try:
        for name in ("meta", "files", "chunks", "embedding_cache"):
            pragma = f"PRAGMA table_info({name})"
            assert conn.execute(pragma).fetchall() == reference.execute(pragma).fetchall(), name
    finally:
        conn.close()
        reference.close()


@pytest.mark.parametrize("variant", VARIANTS)
def test_meta_row_and_scope_hash_equal_openclaws(root: Root, tmp_path: Path, variant: str) -> None:
    """The meta row OpenClaw wrote for each config (extraPaths with `~`, a symlinked parent and duplicates,
    absolute paths with `..`, multimodal on and off, small chunks, trigram) and the JSON it hashed. Where the
    JSON names the recorder's folders, memtui must hash the same JSON with this tree's folders in them."""
    recorded = recording("variants")[variant]
    wanted = json.loads(recorded["index"]["meta"][0]["value"])
    assert recorded["scope"]["sha256"] == wanted["scopeHash"]  # the recorded JSON is what OpenClaw hashed
    state = tmp_path / "state"
    db = _index(root, state, variant)
    env = agent_env(root, state, variant)
    scope = root.fill(recorded["scope"]["json"])
    assert scope_json(env.workspace_dir, env.settings) == scope
    if scope == recorded["scope"]["json"]:
        assert _meta(db) == recorded["index"]["meta"][0]["value"]
    else:
        wanted["scopeHash"] = hashlib.sha256(scope.encode("utf-8")).hexdigest()
        assert _meta(db) == js_stringify(wanted)


@pytest.mark.parametrize("variant", CHUNKED)
def test_variant_files_and_chunks_equal_openclaws(root: Root, tmp_path: Path, variant: str) -> None:
    """Extra paths outside the workspace (`../outside/…`), 50-token chunks, the trigram tokenizer."""
    index = recording("variants")[variant]["index"]
    db = _index(root, tmp_path / "state", variant)
    assert _files(db) == _recorded_files(index)
    assert _chunks(db, texts=False) == _recorded_chunks(index)
    if "fts" in index:
        assert _fts(db) == index["fts"]
        assert _vocab(db) == index["fts_vocab_row"]



def test_repeated_chunks_are_written_and_removed_like_openclaws(root: Root, tmp_path: Path) -> None:
    """50-token chunks of the 13,000-character line repeat (same lines, same text): one chunks row and an FTS
    row per occurrence, as OpenClaw writes them; re-indexing the file leaves no FTS row behind."""
    db = _index(root, tmp_path / "state", "chunking-small")
    ids = [row[0] for row in rows(db, "SELECT id FROM chunks_fts WHERE path = 'memory/huge-line.md'")]
    assert len(ids) > len(set(ids))
    env = agent_env(root, tmp_path / "state", "chunking-small")
    huge = root.workspace / "memory" / "huge-line.md"
    original = huge.read_bytes()
    try:
        huge.write_bytes(original + b"one more line\n")
        with MemoryManager(env) as manager:
            manager.sync()
        huge.write_bytes(original)
        with MemoryManager(env) as manager:
            manager.sync()
    finally:
        huge.write_bytes(original)
    assert _fts(db) == _fts(_index(root, tmp_path / "fresh", "chunking-small"))
    assert sorted(ids) == sorted(row[0] for row in rows(db, "SELECT id FROM chunks_fts "
                                                              "WHERE path = 'memory/huge-line.md'"))

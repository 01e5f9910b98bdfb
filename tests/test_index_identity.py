"""Index identity against §2.2–§2.4 and sync against §5.2–§5.3, on real SQLite files."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
import sqlean
import sqlite_vec
from hashed_provider import HashedProvider, trigram_vector
from openclaw_memory_data import recording

from memtui.cli import main as cli_main
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv, resolve_agent
from memtui.settings.config import ChunkingSettings, MultimodalSettings, StoreSettings

FTS_PROVIDER_KEY_JSON = '{"provider":"none","model":"fts-only"}'
# maxFileBytes is 10 MiB (10,485,760) in OpenClaw 2026.4.29; the recording holds the hash it wrote for this.
EMPTY_SCOPE_JSON = '{"extraPaths":[],"multimodal":{"enabled":false,"modalities":[],"maxFileBytes":10485760}}'


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Memory\n- likes green tea\n", encoding="utf-8")
    (ws / "memory" / "2026-04-28.md").write_text("# 2026-04-28\n- fixed the router vlan\n", encoding="utf-8")
    (ws / "memory" / "2026-04-29.md").write_text("# 2026-04-29\n- planned the garden\n", encoding="utf-8")
    return ws


def _env(tmp_path: Path, ws: Path, **overrides) -> AgentEnv:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return resolve_agent(state_dir=str(tmp_path / "state"), workspace=str(ws), provider="none",
                         env={"HOME": str(home), "OPENCLAW_HOME": str(home)}, **overrides)


def _rows(db: Path, sql: str, params: tuple = ()) -> list[tuple]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def _vec_rows(db: Path, sql: str) -> list[tuple]:
    conn = sqlean.connect(str(db))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _meta(db: Path) -> str:
    return _rows(db, "SELECT value FROM meta WHERE key = 'memory_index_meta_v1'")[0][0]


def _set_meta(db: Path, value: str | None) -> None:
    conn = sqlite3.connect(str(db))
    with conn:
        if value is None:
            conn.execute("DELETE FROM meta")
        else:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'memory_index_meta_v1'", (value,))
    conn.close()


def _index(env: AgentEnv, provider=None, **kwargs):
    with MemoryManager(env, provider=provider) as manager:
        return manager.sync(**kwargs)


# -- chunk rows and meta --------------------------------------------------------------------------


def test_chunk_ids_hashes_and_fts_only_columns(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    env = _env(tmp_path, ws)
    _index(env)
    rows = _rows(env.store_path, "SELECT id, path, source, start_line, end_line, hash, model, text, embedding "
                                 "FROM chunks ORDER BY path")
    expected = []
    for rel in ("MEMORY.md", "memory/2026-04-28.md", "memory/2026-04-29.md"):
        text = (ws / rel).read_text(encoding="utf-8")
        chunk_hash = _sha(text)
        chunk_id = _sha(f"memory:{rel}:1:3:{chunk_hash}:fts-only")
        expected.append((chunk_id, rel, "memory", 1, 3, chunk_hash, "fts-only", text, "[]"))
    assert rows == expected
    files = _rows(env.store_path, "SELECT path, source, hash, size FROM files ORDER BY path")
    assert files == [(rel, "memory", _sha((ws / rel).read_text()), (ws / rel).stat().st_size)
                     for rel in ("MEMORY.md", "memory/2026-04-28.md", "memory/2026-04-29.md")]
    fts = _rows(env.store_path, "SELECT id, path, source, model, start_line, end_line FROM chunks_fts ORDER BY path")
    assert [(r[0], r[1], r[2], r[3], int(r[4]), int(r[5])) for r in fts] == [
        (e[0], e[1], "memory", "fts-only", 1, 3) for e in expected]


def test_meta_row_byte_exact_fts_only(tmp_path: Path) -> None:
    recorded = json.loads(recording("variants")["default"]["index"]["meta"][0]["value"])
    assert recorded["scopeHash"] == _sha(EMPTY_SCOPE_JSON)
    env = _env(tmp_path, _workspace(tmp_path))
    _index(env)
    expected = ('{"model":"fts-only","provider":"none","providerKey":"' + _sha(FTS_PROVIDER_KEY_JSON)
                + '","sources":["memory"],"scopeHash":"' + _sha(EMPTY_SCOPE_JSON)
                + '","chunkTokens":400,"chunkOverlap":80,"ftsTokenizer":"unicode61"}')
    assert _meta(env.store_path) == expected


def test_meta_row_byte_exact_with_provider_and_extra_paths(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("outside note\n")
    (ws / "docs").mkdir()
    env = _env(tmp_path, ws)
    env = env.with_settings(replace(env.settings, extra_paths=("docs", str(outside)),
                                    chunking=ChunkingSettings(tokens=300, overlap=50)))
    _index(env, provider=HashedProvider())
    paths = sorted([str(ws / "docs"), str(outside)])
    scope = ('{"extraPaths":' + json.dumps(paths, separators=(",", ":"))
             + ',"multimodal":{"enabled":false,"modalities":[],"maxFileBytes":10485760}}')
    key = _sha('{"provider":"hashed","model":"hashed-trigram-64"}')
    expected = ('{"model":"hashed-trigram-64","provider":"hashed","providerKey":"' + key
                + '","sources":["memory"],"scopeHash":"' + _sha(scope)
                + '","chunkTokens":300,"chunkOverlap":50,"ftsTokenizer":"unicode61","vectorDims":64}')
    assert _meta(env.store_path) == expected


def test_multimodal_settings_enter_scope_hash(tmp_path: Path) -> None:
    env = _env(tmp_path, _workspace(tmp_path))
    env = env.with_settings(replace(env.settings, multimodal=MultimodalSettings(
        enabled=True, modalities=("image", "audio"), max_file_bytes=5000)))
    _index(env)
    scope = '{"extraPaths":[],"multimodal":{"enabled":true,"modalities":["audio","image"],"maxFileBytes":5000}}'
    assert json.loads(_meta(env.store_path))["scopeHash"] == _sha(scope)


def test_provider_chunks_carry_json_vectors_and_vec_rows(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    env = _env(tmp_path, ws)
    _index(env, provider=HashedProvider())
    rows = _rows(env.store_path, "SELECT id, path, model, text, embedding FROM chunks ORDER BY path")
    assert len(rows) == 3
    for chunk_id, rel, model, text, embedding in rows:
        assert model == "hashed-trigram-64"
        assert chunk_id == _sha(f"memory:{rel}:1:3:{_sha(text)}:hashed-trigram-64")
        assert embedding.startswith("[") and " " not in embedding
        assert json.loads(embedding) == pytest.approx(trigram_vector(text))
    vec_ids = {r[0] for r in _vec_rows(env.store_path, "SELECT id FROM chunks_vec")}
    assert vec_ids == {r[0] for r in rows}


# -- schema ----------------------------------------------------------------------------------------


def _norm(sql: str) -> str:
    sql = re.sub(r"\s+", " ", sql.replace("IF NOT EXISTS ", "")).strip()
    return re.sub(r"\s*\)", ")", re.sub(r"\(\s*", "(", sql))


SPEC_DDL = {
    "meta": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "files": "CREATE TABLE files ( path TEXT PRIMARY KEY, source TEXT NOT NULL DEFAULT 'memory', "
             "hash TEXT NOT NULL, mtime INTEGER NOT NULL, size INTEGER NOT NULL)",
    "chunks": "CREATE TABLE chunks ( id TEXT PRIMARY KEY, path TEXT NOT NULL, source TEXT NOT NULL DEFAULT 'memory', "
              "start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, hash TEXT NOT NULL, "
              "model TEXT NOT NULL, text TEXT NOT NULL, embedding TEXT NOT NULL, updated_at INTEGER NOT NULL)",
    "embedding_cache": "CREATE TABLE embedding_cache ( provider TEXT NOT NULL, model TEXT NOT NULL, "
                       "provider_key TEXT NOT NULL, hash TEXT NOT NULL, embedding TEXT NOT NULL, dims INTEGER, "
                       "updated_at INTEGER NOT NULL, PRIMARY KEY (provider, model, provider_key, hash))",
    "idx_embedding_cache_updated_at": "CREATE INDEX idx_embedding_cache_updated_at ON embedding_cache(updated_at)",
    "chunks_fts": "CREATE VIRTUAL TABLE chunks_fts USING fts5( text, id UNINDEXED, path UNINDEXED, "
                  "source UNINDEXED, model UNINDEXED, start_line UNINDEXED, end_line UNINDEXED )",
    "idx_chunks_path": "CREATE INDEX idx_chunks_path ON chunks(path)",
    "idx_chunks_source": "CREATE INDEX idx_chunks_source ON chunks(source)",
    "chunks_vec": "CREATE VIRTUAL TABLE chunks_vec USING vec0( id TEXT PRIMARY KEY, embedding FLOAT[64])",
}


def test_schema_ddl_matches_spec(tmp_path: Path) -> None:
    env = _env(tmp_path, _workspace(tmp_path))
    _index(env, provider=HashedProvider())
    stored = {name: _norm(sql) for name, sql in _rows(env.store_path, "SELECT name, sql FROM sqlite_master "
                                                                      "WHERE sql IS NOT NULL")}
    for name, ddl in SPEC_DDL.items():
        assert stored.get(name) == _norm(ddl), name
    assert _rows(env.store_path, "PRAGMA journal_mode")[0][0] == "wal"


def test_trigram_tokenizer_ddl(tmp_path: Path) -> None:
    env = _env(tmp_path, _workspace(tmp_path))
    env = env.with_settings(replace(env.settings, store=StoreSettings(fts_tokenizer="trigram")))
    _index(env)
    sql = _rows(env.store_path, "SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'")[0][0]
    assert _norm(sql) == _norm("CREATE VIRTUAL TABLE chunks_fts USING fts5( text, id UNINDEXED, path UNINDEXED, "
                               "source UNINDEXED, model UNINDEXED, start_line UNINDEXED, end_line UNINDEXED, "
                               "tokenize='trigram case_sensitive 0')")
    assert json.loads(_meta(env.store_path))["ftsTokenizer"] == "trigram"


# -- full reindex triggers ---------------------------------------------------------------------------


def _doctor(meta: str, key: str, value) -> str:
    data = json.loads(meta)
    if value is _DROP:
        del data[key]
    else:
        data[key] = value
    return json.dumps(data, separators=(",", ":"))


_DROP = object()


def test_meta_mismatch_forces_full_rebuild(tmp_path: Path) -> None:
    env = _env(tmp_path, _workspace(tmp_path))
    _index(env)
    good = _meta(env.store_path)
    for key, value in [("model", "other-model"), ("provider", "openai"), ("providerKey", "0" * 64),
                       ("sources", ["memory", "sessions"]), ("scopeHash", "f" * 64), ("chunkTokens", 401),
                       ("chunkOverlap", 79), ("ftsTokenizer", "trigram"), ("scopeHash", _DROP)]:
        _set_meta(env.store_path, _doctor(good, key, value))
        report = _index(env)
        assert (report.full, report.files_changed) == (True, 3), key
        assert _meta(env.store_path) == good


def test_missing_fts_tokenizer_means_unicode61_and_no_rebuild(tmp_path: Path) -> None:
    env = _env(tmp_path, _workspace(tmp_path))
    _index(env)
    _set_meta(env.store_path, _doctor(_meta(env.store_path), "ftsTokenizer", _DROP))
    report = _index(env)
    assert report.full is False
    assert report.files_changed == 0


def test_missing_meta_row_forces_full_rebuild(tmp_path: Path) -> None:
    env = _env(tmp_path, _workspace(tmp_path))
    _index(env)
    _set_meta(env.store_path, None)
    report = _index(env)
    assert (report.full, report.files_changed) == (True, 3)


def test_unchanged_index_syncs_incrementally_and_force_rebuilds(tmp_path: Path) -> None:
    env = _env(tmp_path, _workspace(tmp_path))
    assert _index(env).full is True
    again = _index(env)
    assert (again.full, again.files_changed) == (False, 0)
    forced = _index(env, force=True)
    assert (forced.full, forced.files_changed) == (True, 3)


def test_missing_vector_dims_with_vector_ready_forces_rebuild(tmp_path: Path) -> None:
    env = _env(tmp_path, _workspace(tmp_path))
    _index(env, provider=HashedProvider())
    good = _meta(env.store_path)
    _set_meta(env.store_path, _doctor(good, "vectorDims", _DROP))
    report = _index(env, provider=HashedProvider())
    assert (report.full, report.files_changed) == (True, 3)
    assert _meta(env.store_path) == good


def test_switching_provider_rebuilds_with_new_model(tmp_path: Path) -> None:
    env = _env(tmp_path, _workspace(tmp_path))
    _index(env)
    report = _index(env, provider=HashedProvider())
    assert report.full is True
    assert {r[0] for r in _rows(env.store_path, "SELECT model FROM chunks")} == {"hashed-trigram-64"}
    back = _index(env)
    assert back.full is True
    assert {r[0] for r in _rows(env.store_path, "SELECT model FROM chunks")} == {"fts-only"}


class _KeyedProvider(HashedProvider):
    def __init__(self, base_url: str) -> None:
        super().__init__()
        self.base_url = base_url

    def cache_key_data(self):
        return {"provider": "hashed", "baseUrl": self.base_url, "model": self.model}


def test_provider_key_change_rebuilds(tmp_path: Path) -> None:
    env = _env(tmp_path, _workspace(tmp_path))
    _index(env, provider=_KeyedProvider("http://127.0.0.1:1"))
    key1 = json.loads(_meta(env.store_path))["providerKey"]
    assert key1 == _sha('{"provider":"hashed","baseUrl":"http://127.0.0.1:1","model":"hashed-trigram-64"}')
    report = _index(env, provider=_KeyedProvider("http://127.0.0.1:2"))
    assert report.full is True
    assert json.loads(_meta(env.store_path))["providerKey"] == _sha(
        '{"provider":"hashed","baseUrl":"http://127.0.0.1:2","model":"hashed-trigram-64"}')


@pytest.mark.parametrize("change", ["extra", "tokens", "overlap", "tokenizer", "sources"])
def test_settings_changes_rebuild(tmp_path: Path, change: str) -> None:
    ws = _workspace(tmp_path)
    env = _env(tmp_path, ws)
    _index(env)
    s = env.settings
    changed = {
        "extra": replace(s, extra_paths=("memory",)),
        "tokens": replace(s, chunking=ChunkingSettings(tokens=200, overlap=80)),
        "overlap": replace(s, chunking=ChunkingSettings(tokens=400, overlap=40)),
        "tokenizer": replace(s, store=StoreSettings(fts_tokenizer="trigram")),
        "sources": replace(s, sources=("memory", "sessions"), session_memory=True),
    }[change]
    report = _index(env.with_settings(changed))
    assert report.full is True


# -- incremental sync and deletions ----------------------------------------------------------------


def test_incremental_sync_reindexes_only_changed_content(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    env = _env(tmp_path, ws)
    _index(env)
    before = dict(_rows(env.store_path, "SELECT path, updated_at FROM chunks"))
    files_before = dict(_rows(env.store_path, "SELECT path, mtime FROM files"))
    (ws / "memory" / "2026-04-28.md").write_text("# 2026-04-28\n- replaced the router\n", encoding="utf-8")
    touched = ws / "memory" / "2026-04-29.md"
    os.utime(touched, (touched.stat().st_atime + 100, touched.stat().st_mtime + 100))
    report = _index(env)
    assert (report.full, report.files_changed, report.files_deleted) == (False, 1, 0)
    after = dict(_rows(env.store_path, "SELECT path, updated_at FROM chunks"))
    assert after["MEMORY.md"] == before["MEMORY.md"]
    assert after["memory/2026-04-29.md"] == before["memory/2026-04-29.md"]
    assert dict(_rows(env.store_path, "SELECT path, mtime FROM files"))["memory/2026-04-29.md"] \
        == files_before["memory/2026-04-29.md"]
    text = _rows(env.store_path, "SELECT text FROM chunks WHERE path = 'memory/2026-04-28.md'")
    assert text == [("# 2026-04-28\n- replaced the router\n",)]
    fts = _rows(env.store_path, "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'replaced'")
    assert fts == [(1,)]
    assert _rows(env.store_path, "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'vlan'") == [(0,)]


def test_deleted_file_rows_removed_everywhere(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    env = _env(tmp_path, ws)
    _index(env, provider=HashedProvider())
    gone = "memory/2026-04-28.md"
    gone_ids = {r[0] for r in _rows(env.store_path, "SELECT id FROM chunks WHERE path = ?", (gone,))}
    assert gone_ids
    (ws / gone).unlink()
    report = _index(env, provider=HashedProvider())
    assert (report.full, report.files_deleted) == (False, 1)
    assert _rows(env.store_path, "SELECT count(*) FROM chunks WHERE path = ?", (gone,)) == [(0,)]
    assert _rows(env.store_path, "SELECT count(*) FROM files WHERE path = ?", (gone,)) == [(0,)]
    assert _rows(env.store_path, "SELECT count(*) FROM chunks_fts WHERE path = ?", (gone,)) == [(0,)]
    vec_ids = {r[0] for r in _vec_rows(env.store_path, "SELECT id FROM chunks_vec")}
    assert not (vec_ids & gone_ids)
    assert len(vec_ids) == 2


# -- read-only -----------------------------------------------------------------------------------------


def _fingerprint(db: Path) -> dict[str, tuple[str, int] | None]:
    result: dict[str, tuple[str, int] | None] = {}
    for suffix in ("", "-wal", "-shm"):
        p = Path(f"{db}{suffix}")
        result[suffix] = (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) if p.exists() else None
    return result


def test_read_only_store_is_not_touched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path)
    db = tmp_path / "openclaw-copy.sqlite"
    common = ["--state-dir", str(tmp_path / "state"), "--workspace", str(ws), "--provider", "none", "--store", str(db)]
    assert cli_main(["index", *common]) == 0
    (ws / "memory" / "2026-04-30.md").write_text("new router note\n")
    before = _fingerprint(db)
    siblings = sorted(tmp_path.iterdir())
    capsys.readouterr()
    assert cli_main(["status", *common, "--read-only", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["chunks"] == 3
    assert cli_main(["search", "router", *common, "--read-only", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]
    assert cli_main(["search", "garden", *common, "--read-only"]) == 0
    assert _fingerprint(db) == before
    assert sorted(tmp_path.iterdir()) == siblings


def test_stemmed_index_is_backfilled_for_an_existing_index(make_env, workspace) -> None:
    """An index written without memtui's stemmed table (an older memtui, or OpenClaw) gets it filled on open."""
    import sqlite3

    from memtui.index.store import STEMMED_FTS
    from memtui.manager import MemoryManager

    env = make_env()
    with MemoryManager(env) as manager:
        manager.sync()
    conn = sqlite3.connect(env.store_path)
    conn.execute(f"DROP TABLE {STEMMED_FTS}")
    conn.commit()
    conn.close()
    with MemoryManager(env) as manager:
        hits = manager.search("payments webhooks", min_score=0.0).results
        assert hits and hits[0].path == "memory/2026-11-28.md"

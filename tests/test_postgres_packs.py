"""The fleet search reads each agent's postings packed (`memtui.packs`): it returns what reading every posting
row returns — the same chunks, in the same order, with the same scores to the last bit — with fleet statistics
or each agent's own, with repeated and common terms, after edits and deletions the packs do not hold yet, after
the writer repacks, and on a database an older memtui wrote, which `memtui fleet-index` packs."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from postgres_server import fresh_database
from test_postgres_maxscore import LIVE, POOLED, queries, words, write_agent, zipf

from memtui.index.store.postgres import PostgresStore, maxscore, packs
from memtui.index.store.postgres.bm25 import Scope
from memtui.index.store.schema import ChunkRow


@pytest.fixture(scope="module")
def fleet() -> Iterator[tuple[str, list[PostgresStore], list[str]]]:
    """Three agents of 600, 900 and 1,200 chunks in one database, and the vocabulary: the first two packed whole,
    the third as its writer left it (packed between and after its commits, up to a tail)."""
    url, vocabulary = fresh_database(), words()
    stores = [write_agent(url, f"agent{n}", 300 * (n + 2), vocabulary) for n in range(3)]
    with psycopg.connect(url, autocommit=True) as conn:
        for store in stores[:2]:
            packs.repack(conn, store._write_gen())
    yield url, stores, vocabulary
    for store in stores:
        store.close()


def same_as_every_posting(conn: Any, scope: Scope, terms_list: list[list[str]], limit: int) -> None:
    """Assert the packed ranking equals the exhaustive one for every query."""
    run = lambda sql, params: conn.execute(sql, params).fetchall()  # noqa: E731
    for terms in terms_list:
        exhaustive = maxscore._exhaustive(run, [[term] for term in terms], scope, "", limit)
        with maxscore.snapshot(conn):
            packed = packs.packed_top(conn, terms, scope, limit)
        assert [(r[0], r[1], r[2], r[9]) for r in packed] == [(r[0], r[1], r[2], r[9]) for r in exhaustive], terms


def state(conn: Any, store: PostgresStore) -> tuple[int, int, int]:
    """(chunks above the packs' seq, dead chunks listed, chunks) of the store's live generation."""
    gen = store._write_gen()
    upto, dead = conn.execute("SELECT upto, length(dead) / 8 FROM memtui.packed WHERE gen = %s",
                              (gen,)).fetchone() or (0, 0)
    tail = conn.execute("SELECT count(*) FROM memtui.chunks WHERE gen = %s AND seq > %s", (gen, upto)).fetchone()[0]
    chunks = conn.execute("SELECT chunks FROM memtui.generations WHERE gen = %s", (gen,)).fetchone()[0]
    return tail, dead, chunks


def stemmed(vocabulary: list[str]) -> list[list[str]]:
    """Queries as the search gives them to the store: stemmed, with repeated words, the commonest words (FTS5's
    IDF floor in these agents) among them, and a query of common words alone."""
    from memtui.search.tokenizer import PorterTokenizer

    term = PorterTokenizer().term
    rng = random.Random(7)
    found = [[term(word) for word in query] for query in queries(vocabulary, 30)]
    found += [[term(word) for word in zipf(rng, vocabulary, rng.randint(4, 14))] for _ in range(20)]
    found += [[term(vocabulary[0]), term(vocabulary[1]), term(vocabulary[0])]]
    return found


@pytest.mark.parametrize("limit", [1, 6, 24])
def test_packed_ranking_equals_reading_every_posting(fleet: tuple[str, list[PostgresStore], list[str]],
                                                     limit: int) -> None:
    url, stores, vocabulary = fleet
    with psycopg.connect(url, autocommit=True) as conn:
        assert [state(conn, store)[:2] for store in stores[:2]] == [(0, 0), (0, 0)]
        tail, dead, chunks = state(conn, stores[2])
        assert dead == 0 and tail <= max(packs.PACK_MIN, packs.PACK_SHARE_DONE * (chunks - tail))
        floor = {row[0] for row in conn.execute(
            "SELECT t.lexeme FROM memtui.terms t GROUP BY t.lexeme HAVING 2 * sum(t.df) >= (SELECT sum(chunks) FROM "
            "memtui.generations)")}
        asked = stemmed(vocabulary)
        assert floor and sum(1 for terms in asked if floor & set(terms)) >= 10  # IDF floor terms left out and back
        same_as_every_posting(conn, POOLED, asked, limit)
        same_as_every_posting(conn, LIVE, asked, limit)  # each agent's statistics
        same_as_every_posting(conn, POOLED, [["nosuchword"], ["nosuchword", stemmed(vocabulary)[0][0]]], limit)


def test_edits_and_deletions_are_read_until_the_writer_repacks(
        fleet: tuple[str, list[PostgresStore], list[str]]) -> None:
    url, _, vocabulary = fleet
    store = write_agent(url, "edited", 1000, vocabulary)
    rng = random.Random(3)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            packs.repack(conn, store._write_gen())
            assert state(conn, store) == (0, 0, 1000)
            # a few files rewritten, a few deleted: below the share that repacks, so read from the tail and the
            # dead list
            for number in range(0, 40, 4):
                path = f"memory/2026-01-{1 + number % 28:02d}-{number}.md"
                text = " ".join(zipf(rng, vocabulary, 30)) + " zyzzyva"
                store.replace_file(path=path, source="memory", digest=f"edit{number}", mtime=1.8e9, size=9, rows=[
                    (ChunkRow(f"edit-{number}", path, "memory", 1, 1, f"h{number}", "fts-only", text), "[]", None)],
                    updated_at=2)
            store.delete_files([f"memory/2026-01-{1 + n % 28:02d}-{n}.md" for n in range(2, 40, 4)], "memory")
            tail, dead, chunks = state(conn, store)
            assert (tail, dead, chunks) == (10, 100, 910)  # 10 new chunks; 10 edited and 10 deleted files' 5 each
            same_as_every_posting(conn, POOLED, [*stemmed(vocabulary), ["zyzzyva"], ["zyzzyva", "the"]], 10)
            with maxscore.snapshot(conn):
                assert {row[2] for row in packs.packed_top(conn, ["zyzzyva"], POOLED, 20)} == {
                    f"edit-{number}" for number in range(0, 40, 4)}  # only in the tail
            # enough deleted to pass the share: the write that passes it repacks
            store.delete_files([f"memory/2026-01-{1 + n % 28:02d}-{n}.md" for n in range(40, 200)], "memory")
            assert state(conn, store) == (0, 0, 110)
            same_as_every_posting(conn, POOLED, stemmed(vocabulary), 10)
            same_as_every_posting(conn, Scope(f"SELECT {store._write_gen()}"), stemmed(vocabulary), 10)
    finally:
        store.close()


def test_an_older_database_is_read_unpacked_until_fleet_index_packs_it(
        fleet: tuple[str, list[PostgresStore], list[str]], tmp_path: Path) -> None:
    _, _, vocabulary = fleet
    url = fresh_database()
    stores = [write_agent(url, f"old{n}", 400, vocabulary) for n in range(2)]
    for store in stores:
        store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TABLE memtui.packs, memtui.packed")  # as a version-3 database of the previous memtui
    reopened = PostgresStore(url, agent="old0", workspace="/fleet/old0", path=Path("/fleet/old0.sqlite"),
                             tokenizer=stores[0].tokenizer, read_only=True)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute("SELECT count(*) FROM memtui.packs").fetchone()[0] == 0  # the tables are back, empty
            assert state(conn, reopened) == (400, 0, 400)
            same_as_every_posting(conn, POOLED, stemmed(vocabulary), 10)  # every posting read as the tail
            config = tmp_path / "openclaw.json"
            config.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {"store": {
                "driver": "postgres", "url": url}}}}}), encoding="utf-8")
            command = [sys.executable, "-m", "memtui", "--state-dir", str(tmp_path / "state"), "--config", str(config),
                       "--agent", "admin", "--workspace", str(tmp_path), "fleet-index"]
            done = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=120, check=True)
            assert json.loads(done.stdout) == {"packed": 2, "packSeconds": json.loads(done.stdout)["packSeconds"],
                                               "dims": None, "built": False, "seconds": None}
            again = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout
            assert again.splitlines() == ["Every agent's postings were packed already.",
                                          "No agent in the database has vectors yet: no vector index to build."]
            assert packs.pack_fleet(conn) == 0  # nothing stale left
            assert state(conn, reopened) == (0, 0, 400)
            same_as_every_posting(conn, POOLED, stemmed(vocabulary), 10)
    finally:
        reopened.close()


def test_sparse_chunk_numbers_are_summed_by_sorting(fleet: tuple[str, list[PostgresStore], list[str]],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunk numbers spread thinly (a database rebuilt many times) are summed by sorting, not in an array as long
    as their span: the same answers."""
    url, _, vocabulary = fleet
    monkeypatch.setattr(packs, "_DENSE", 0)
    with psycopg.connect(url, autocommit=True) as conn:
        same_as_every_posting(conn, POOLED, stemmed(vocabulary), 10)
        same_as_every_posting(conn, LIVE, stemmed(vocabulary)[:20], 3)


def test_a_generation_too_large_for_narrow_postings_is_packed_wide(
        fleet: tuple[str, list[PostgresStore], list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """A generation with a count or a chunk length over 16 bits keeps 16-byte postings, read with the others'
    8-byte ones: the same answers."""
    url, stores, vocabulary = fleet
    with psycopg.connect(url, autocommit=True) as conn:
        monkeypatch.setattr(packs, "_SMALL", 0)
        packs.repack(conn, stores[0]._write_gen())
        monkeypatch.undo()
        bases = dict(conn.execute("SELECT gen, base FROM memtui.packed").fetchall())
        assert bases[stores[0]._write_gen()] is None and bases[stores[1]._write_gen()] is not None
        sizes = conn.execute("SELECT k.gen, sum(length(k.data)) / (SELECT count(*) FROM memtui.postings p WHERE "
                             "p.gen = k.gen) FROM memtui.packs k GROUP BY k.gen").fetchall()
        assert {int(gen): int(size) for gen, size in sizes}[stores[0]._write_gen()] == 16
        assert {int(gen): int(size) for gen, size in sizes}[stores[1]._write_gen()] == 8
        same_as_every_posting(conn, POOLED, stemmed(vocabulary), 10)
        same_as_every_posting(conn, LIVE, stemmed(vocabulary)[:20], 5)
        packs.repack(conn, stores[0]._write_gen())


@pytest.mark.parametrize("floor", [0.5, 2.0, 50.0])
def test_terms_left_out_widen_the_candidates_or_are_read_after_all(
        fleet: tuple[str, list[PostgresStore], list[str]], monkeypatch: pytest.MonkeyPatch, floor: float) -> None:
    """The common terms left out of the choice (here every term whose IDF is at most `floor`, so that many are) can
    lift a chunk by at most what the candidates are widened by; when that could let in a chunk holding only them,
    every term is read: the same answers either way."""
    url, _, vocabulary = fleet
    monkeypatch.setattr(packs, "_FLOOR", floor)
    reads: list[int] = []
    packed = packs._packed
    monkeypatch.setattr(packs, "_packed", lambda conn, lexemes, scope: reads.append(len(lexemes)) or packed(
        conn, lexemes, scope))
    with psycopg.connect(url, autocommit=True) as conn:
        same_as_every_posting(conn, POOLED, stemmed(vocabulary), 10)
    assert len(reads) > len(stemmed(vocabulary))  # some queries read every term after all


def test_a_user_who_may_not_create_the_new_tables_is_told_what_to_do(
        fleet: tuple[str, list[PostgresStore], list[str]]) -> None:
    """A read-only database user meeting a database an older memtui wrote gets a StoreError saying who must
    connect first, not a traceback; once the owner has connected, the user reads the fleet."""
    from memtui.errors import StoreError
    from memtui.index.store.postgres.schema import connect

    _, _, vocabulary = fleet
    url = fresh_database()
    write_agent(url, "older", 300, vocabulary).close()
    reader_url = url.replace("postgres@", "memtui_reader@")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TABLE memtui.packs, memtui.packed")
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'memtui_reader'").fetchone():
            conn.execute("CREATE ROLE memtui_reader LOGIN")
        conn.execute("GRANT USAGE ON SCHEMA memtui TO memtui_reader")
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA memtui TO memtui_reader")
    with pytest.raises(StoreError) as raised:
        connect(reader_url)
    assert "lacks memtui.packs, memtui.packed" in raised.value.message
    assert "as a user that may create tables in schema memtui" in (raised.value.hint or "")
    connect(url)[0].close()  # the owner adds them
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA memtui TO memtui_reader")
    conn, _ = connect(reader_url)
    with conn, maxscore.snapshot(conn):
        assert len(packs.packed_top(conn, [vocabulary[5]], POOLED, 5)) == 5

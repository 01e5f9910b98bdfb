"""The postgres store's pruned BM25 (MaxScore) returns what reading every posting returns — the same chunks, in the
same order, with the same scores to the last bit — per agent and over the whole fleet (each generation with its own
essential terms), whichever way a term is looked up, after deletions (whose bounds stay wider than the data), and
on a database written by the previous schema."""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from postgres_server import fresh_database

from memtui.index.store.postgres import PostgresStore, maxscore
from memtui.index.store.postgres.bm25 import Scope
from memtui.index.store.schema import META_KEY, ChunkRow
from memtui.search.tokenizer import PorterTokenizer

DEMO = Path(__file__).resolve().parents[1] / "memtui" / "demo" / "data" / "state" / "workspace"
LIVE = Scope("SELECT live_gen FROM memtui.indexes WHERE live_gen IS NOT NULL")
POOLED = Scope(LIVE.gens, pooled=True)  # a fleet search: the fleet's statistics


def words() -> list[str]:
    """The demo workspace's words, most frequent first (a real vocabulary, drawn by Zipf's law below)."""
    text = " ".join(path.read_text(encoding="utf-8") for path in sorted(DEMO.rglob("*.md")))
    return [word for word, _ in Counter(re.findall(r"[a-z]{3,}", text.lower())).most_common()]


def zipf(rng: random.Random, vocabulary: list[str], count: int) -> list[str]:
    """`count` words drawn with weight 1/rank."""
    return rng.choices(vocabulary, weights=[1 / (rank + 1) for rank in range(len(vocabulary))], k=count)


def write_agent(url: str, agent: str, chunks: int, vocabulary: list[str]) -> PostgresStore:
    """Agent `agent` with `chunks` chunks of 8-60 words, five to a file."""
    rng = random.Random(agent)
    store = PostgresStore(url, agent=agent, workspace=f"/fleet/{agent}", path=Path(f"/fleet/{agent}.sqlite"),
                          tokenizer=PorterTokenizer(), vector_enabled=False)
    with store.batch():
        for number in range(chunks // 5):
            path = f"memory/2026-01-{1 + number % 28:02d}-{number}.md"
            rows = []
            for line in range(5):
                text = " ".join(zipf(rng, vocabulary, rng.randint(8, 60)))
                digest = hashlib.sha256(text.encode()).hexdigest()
                rows.append((ChunkRow(hashlib.sha256(f"{path}:{line}".encode()).hexdigest(), path, "memory", line + 1,
                                      line + 1, digest, "fts-only", text), "[]", None))
            store.replace_file(path=path, source="memory", digest=hashlib.sha256(path.encode()).hexdigest(),
                               mtime=1.7e9 + number, size=100, rows=rows, updated_at=1)
    return store


@pytest.fixture(scope="module")
def fleet() -> Iterator[tuple[str, list[PostgresStore], list[str]]]:
    """Three agents of 1,500 chunks in one database, and the vocabulary."""
    url, vocabulary = fresh_database(), words()
    stores = [write_agent(url, f"agent{n}", 1500, vocabulary) for n in range(3)]
    yield url, stores, vocabulary
    for store in stores:
        store.close()


def queries(vocabulary: list[str], count: int) -> list[list[str]]:
    """Queries of 2-12 distinct terms, common words and rare ones mixed as in text."""
    rng, tokenizer = random.Random(30), PorterTokenizer()
    found = []
    while len(found) < count:
        terms = list(dict.fromkeys(tokenizer.term(word) for word in zipf(rng, vocabulary, rng.randint(2, 12))))
        if len(terms) > 1:
            found.append(terms)
    return found


def with_phrases(vocabulary: list[str], count: int) -> list[list[list[str]]]:
    """Queries of 2-8 terms where some are phrases of two or three common words (found in a row in some chunks)."""
    rng, tokenizer = random.Random(31), PorterTokenizer()
    found = []
    for terms in queries(vocabulary, count):
        phrases = [[term] for term in terms]
        for _ in range(rng.randint(1, 2)):
            phrases.insert(rng.randrange(len(phrases) + 1),
                           [tokenizer.term(word) for word in zipf(rng, vocabulary[:12], rng.randint(2, 3))])
        found.append(phrases)
    return found


def compare(conn: Any, scope: Scope, terms_list: list[list[str]] | list[list[list[str]]], limit: int) -> Counter[str]:
    """Assert the pruned ranking equals the exhaustive one for every query (terms, or phrases); how each was
    answered."""
    run = lambda sql, params: conn.execute(sql, params).fetchall()  # noqa: E731
    ways: Counter[str] = Counter()
    for terms in terms_list:
        phrases = [term if isinstance(term, list) else [term] for term in terms]
        exhaustive = maxscore._exhaustive(run, phrases, scope, "", limit)
        seen: list[str] = []

        def watched(sql: str, params: dict[str, Any], seen: list[str] = seen) -> list[tuple[Any, ...]]:
            seen.append("phrases" if "ph (gen" in sql else "merged" if "AS NULL" in sql or "NULL FROM t" in sql
                        else "pruned" if "b0 AS" in sql else "probe" if "best AS" in
                        sql else "bounds" if "ms_lexemes" in params else "exhaustive")
            return run(sql, params)
        pruned = maxscore.top_chunks(watched, phrases, scope, filters="", limit=limit)
        assert [(r[0], r[1], r[2], r[9]) for r in pruned] == [(r[0], r[1], r[2], r[9]) for r in exhaustive], terms
        ways[seen[-1]] += 1
    return ways


@pytest.mark.parametrize("limit", [6, 24])
def test_pruned_top_k_equals_reading_every_posting(fleet: tuple[str, list[PostgresStore], list[str]],
                                                   monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    url, stores, vocabulary = fleet
    with psycopg.connect(url, autocommit=True) as conn:
        agent_gen = Scope(f"SELECT live_gen FROM memtui.indexes WHERE id = {stores[0].index_id}")
        assert compare(conn, LIVE, queries(vocabulary, 30), limit)["exhaustive"] == 30  # small: read it all
        monkeypatch.setattr(maxscore, "EXHAUSTIVE_BELOW", 0)  # as if it were large
        chosen = compare(conn, LIVE, queries(vocabulary, 60), limit) + compare(conn, agent_gen,
                                                                               queries(vocabulary, 60), limit)
        assert chosen["pruned"] >= 20 and chosen["exhaustive"] >= 5, chosen  # by the share of essential postings
        monkeypatch.setattr(maxscore, "EXHAUSTIVE_SHARE", 1.0)
        monkeypatch.setattr(maxscore, "SEEK_COST", 1)  # every term looked up by key
        forced = compare(conn, LIVE, queries(vocabulary, 60), limit) + compare(conn, POOLED,
                                                                               queries(vocabulary, 40), limit)
        assert forced["pruned"] >= 60, forced
        monkeypatch.setattr(maxscore, "SEEK_COST", 10**9)  # the first one read whole and merged by hashing
        merged = compare(conn, LIVE, queries(vocabulary, 60), limit) + compare(conn, POOLED,
                                                                               queries(vocabulary, 40), limit)
        assert merged["merged"] >= 40, merged
        monkeypatch.setattr(maxscore, "SEEK_COST", 4)
        phrased = compare(conn, LIVE, with_phrases(vocabulary, 40), limit) + compare(
            conn, POOLED, with_phrases(vocabulary, 30), limit) + compare(
            conn, agent_gen, with_phrases(vocabulary, 40), limit)
        assert phrased["phrases"] >= 40, phrased


def test_deleted_postings_leave_wider_bounds_and_the_same_answers(
        fleet: tuple[str, list[PostgresStore], list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    url, _, vocabulary = fleet
    store = write_agent(url, "shrinking", 600, vocabulary)
    try:
        store.delete_files([f"memory/2026-01-{1 + n % 28:02d}-{n}.md" for n in range(0, 120, 2)], "memory")
        with psycopg.connect(url, autocommit=True) as conn:
            counted = dict(conn.execute(
                "SELECT lexeme, count(*) FROM memtui.postings WHERE gen = %s GROUP BY lexeme",
                (store._write_gen(),)).fetchall())
            kept = {lexeme: df for lexeme, df in conn.execute(
                "SELECT lexeme, df FROM memtui.terms WHERE gen = %s AND df > 0", (store._write_gen(),)).fetchall()}
            assert kept == counted
            monkeypatch.setattr(maxscore, "EXHAUSTIVE_BELOW", 0)
            monkeypatch.setattr(maxscore, "EXHAUSTIVE_SHARE", 1.0)
            ways = compare(conn, Scope(f"SELECT {store._write_gen()}"), queries(vocabulary, 60), 6)
            assert ways["pruned"] + ways["merged"] >= 30, ways
    finally:
        store.close()


def test_a_version_2_database_gets_its_bounds_counted() -> None:
    url, vocabulary = fresh_database(), words()
    store = write_agent(url, "old", 300, vocabulary)
    store.write_meta('{"model": "fts-only", "provider": "none"}')
    store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM memtui.meta WHERE key = %s", (META_KEY,)).fetchone()[0] == 1
        expected = conn.execute("SELECT gen, lexeme, max_tf, min_length FROM memtui.terms ORDER BY 1, 2").fetchall()
        conn.execute("ALTER TABLE memtui.terms DROP COLUMN max_tf, DROP COLUMN min_length")
        conn.execute("UPDATE memtui.info SET value = '2' WHERE key = 'schema'")
    PostgresStore(url, agent="old", workspace="/fleet/old", path=Path("/fleet/old.sqlite"),
                  tokenizer=PorterTokenizer(), read_only=True).close()
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT value FROM memtui.info WHERE key = 'schema'").fetchone()[0] == "3"
        assert conn.execute("SELECT gen, lexeme, max_tf, min_length FROM memtui.terms ORDER BY 1, 2").fetchall() \
            == expected
        # version 2 wrote some terms as FTS5 does not ('trekk'): the meta row is gone, so the next sync rebuilds
        assert conn.execute("SELECT count(*) FROM memtui.meta WHERE key = %s", (META_KEY,)).fetchone()[0] == 0


@pytest.mark.parametrize("models", [["m1", "m1", "m1"], ["m0", "m1", "m2"]])
def test_a_search_keeps_to_its_model_and_sources(models: list[str]) -> None:
    """Chunks of another model (left by a provider change) or another source are never returned; with none in the
    generation, no filter is needed (the check seeks the gaps around the wanted values instead of scanning)."""
    url = fresh_database()
    store = PostgresStore(url, agent="mixed", workspace="/fleet/mixed", path=Path("/fleet/mixed.sqlite"),
                          tokenizer=PorterTokenizer(), vector_enabled=False)
    try:
        for n, (model, source) in enumerate(zip(models, ["memory", "sessions", "zzz"], strict=True)):
            text = f"quokka ledger entry {n}"
            store.replace_file(path=f"memory/{n}.md", source=source, digest=str(n), mtime=1.0, size=10,
                               rows=[(ChunkRow(f"c{n}", f"memory/{n}.md", source, 1, 1, str(n), model, text), "[]",
                                      None)], updated_at=1)
        found = [(row.model, row.source) for row, _ in store.stemmed_search('"quokka"', 10, model="m1",
                                                                             sources=["memory", "sessions"])]
        wanted = [(m, s) for m, s in zip(models, ["memory", "sessions", "zzz"], strict=True)
                  if m == "m1" and s in ("memory", "sessions")]
        assert sorted(found) == sorted(wanted)
        assert [row.source for row, _ in store.stemmed_search('"quokka"', 10, model=None, sources=["zzz"])] == ["zzz"]
        between = store.stemmed_search('"quokka"', 10, model=None, sources=["zzz", "memory"])  # 'sessions' inside
        assert sorted(row.source for row, _ in between) == ["memory", "zzz"]
    finally:
        store.close()

"""Writers on the postgres store: a writer killed with -9 in the middle of a COPY or of a rebuild loses nothing
that was committed and leaves no half-written file; the next run completes the index; agents sharing the database
stay apart; a second writer of the same index waits for the first, and a sync on another host waits until a
rebuild has flipped its generation."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from postgres_server import fresh_database

from memtui.index.store.postgres import PostgresStore
from memtui.index.store.postgres.schema import LOCK_SPACE, SYNC_LOCK_SPACE
from memtui.manager import MemoryManager
from memtui.search.tokenizer import PorterTokenizer
from memtui.settings.agent import AgentEnv, resolve_agent

WORDS = ["ledger", "payments", "deploy", "freeze", "rollback", "postgres", "replica", "failover", "webhook", "gateway",
         "token", "budget", "cache", "redis", "queue", "consumer", "latency", "incident", "runbook", "schema",
         "migration", "vector", "index", "search", "memory", "agent", "notes"]


def big_workspace(root: Path, files: int = 500) -> Path:
    """`files` daily logs of a few chunks each (enough rows that a COPY takes a while)."""
    rng = random.Random(30)
    for day in range(files):
        lines = [f"# Day {day}", ""] + [f"- {' '.join(rng.choices(WORDS, k=12))} item{day}x{n}." for n in range(60)]
        path = root / "memory" / f"2025-{1 + day // 28:02d}-{1 + day % 28:02d}-n{day}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def env_for(tmp_path: Path, workspace: Path, url: str | None, agent: str = "main") -> AgentEnv:
    """An agent on `workspace` whose index is in the database at `url` (None: the SQLite store)."""
    store = {"store": {"driver": "postgres", "url": url}} if url is not None else {}
    path = tmp_path / f"{agent}-{'pg' if url else 'sqlite'}.json"
    path.write_text(json.dumps({"agents": {"defaults": {"memorySearch": store}}}), encoding="utf-8")
    return resolve_agent(state_dir=str(tmp_path / f"state-{agent}"), config=str(path), agent=agent,
                         workspace=str(workspace), provider="none")


def memtui(env: AgentEnv, *args: str) -> subprocess.Popen[bytes]:
    """`memtui <args>` for `env` in a process of its own."""
    return subprocess.Popen([sys.executable, "-m", "memtui", "--state-dir", str(env.state_dir), "--config",
                             str(env.config_path), "--agent", env.agent_id, "--workspace", str(env.workspace_dir),
                             "--provider", "none", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ))


def wait_for(check: Callable[[], object], what: str, timeout: float = 120.0) -> object:
    """Poll `check` until it returns something true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := check():
            return found
        time.sleep(0.005)
    raise AssertionError(f"timed out waiting for {what}")


def copying(url: str, gen_filter: str = "") -> Callable[[], object]:
    """A check: a memtui backend is running a COPY (into a generation matching `gen_filter`, SQL on `g`)."""
    def check() -> object:
        with psycopg.connect(url, autocommit=True) as conn:
            if gen_filter and not conn.execute(f"SELECT 1 FROM memtui.generations g WHERE {gen_filter}").fetchone():
                return None
            return conn.execute("SELECT pid FROM pg_stat_activity WHERE application_name = 'memtui' AND "
                                "datname = current_database() AND state = 'active' AND query LIKE 'COPY%'").fetchone()
    return check


def no_backend_left(url: str) -> Callable[[], bool]:
    """A check: the killed writer's server process has rolled back and gone (this test's database only: another
    test's connections are not its)."""
    def check() -> bool:
        with psycopg.connect(url, autocommit=True) as conn:
            return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'memtui' AND "
                                "datname = current_database()").fetchone()[0] == 0
    return check


def live_state(url: str) -> tuple[int, dict[str, int], int, bool]:
    """(live generation, chunks per path, generations held, stats consistent) of the only index."""
    with psycopg.connect(url, autocommit=True) as conn:
        (gen,) = conn.execute("SELECT live_gen FROM memtui.indexes").fetchone()
        per_path = dict(conn.execute("SELECT f.path, count(c.id) FROM memtui.files f LEFT JOIN memtui.chunks c ON "
                                     "c.gen = f.gen AND c.path = f.path WHERE f.gen = %s GROUP BY f.path", (gen,)))
        generations = conn.execute("SELECT count(*) FROM memtui.generations").fetchone()[0]
        consistent = conn.execute(
            "SELECT g.chunks = (SELECT count(*) FROM memtui.chunks c WHERE c.gen = g.gen) AND g.tokens = (SELECT "
            "coalesce(sum(length), 0) FROM memtui.chunks c WHERE c.gen = g.gen) AND (SELECT count(DISTINCT seq) FROM "
            "memtui.postings p WHERE p.gen = g.gen) = g.chunks FROM memtui.generations g WHERE g.gen = %s",
            (gen,)).fetchone()[0]
    return gen, {path: int(n) for path, n in per_path.items()}, generations, bool(consistent)


@pytest.fixture
def fleet(tmp_path: Path) -> tuple[AgentEnv, AgentEnv, dict[str, int]]:
    """(SQLite env, postgres env) on one big workspace, and the SQLite store's chunks per file."""
    workspace = big_workspace(tmp_path / "ws")
    sqlite = env_for(tmp_path, workspace, None)
    with MemoryManager(sqlite) as manager:
        manager.sync()
        expected = Counter(path for path, *_ in manager.store.conn.execute("SELECT path FROM chunks"))
    return sqlite, env_for(tmp_path, workspace, fresh_database()), dict(expected)


def hits(env: AgentEnv) -> list[list[tuple[str, int, float]]]:
    with MemoryManager(env) as manager:
        return [[(h["path"], h["startLine"], h["score"]) for h in manager.memory_search(query)["results"]]
                for query in ("postgres failover runbook", "item42x7", "webhook token budget")]


def test_a_writer_killed_mid_copy_loses_nothing(fleet: tuple[AgentEnv, AgentEnv, dict[str, int]]) -> None:
    sqlite, postgres, expected = fleet
    url = postgres.settings.store.url or ""
    writer = memtui(postgres, "index")
    try:
        wait_for(lambda: copying(url)() and live_state(url)[1], "a COPY after a first commit")
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    wait_for(no_backend_left(url), "the killed writer's backend to go")
    _, committed, _, consistent = live_state(url)
    assert 0 < len(committed) < len(expected)  # killed halfway...
    assert consistent and all(count == expected[path] for path, count in committed.items())  # ...no half file
    assert memtui(postgres, "index").wait() == 0
    assert live_state(url)[1] == expected
    assert hits(postgres) == hits(sqlite)


def test_a_rebuild_killed_midway_leaves_the_live_index_answering(
        fleet: tuple[AgentEnv, AgentEnv, dict[str, int]]) -> None:
    _, postgres, expected = fleet
    url = postgres.settings.store.url or ""
    assert memtui(postgres, "index").wait() == 0
    before, answers = live_state(url), hits(postgres)
    rebuild = memtui(postgres, "index", "--force")
    try:
        wait_for(copying(url, f"g.gen > {before[0]} AND g.chunks > 0"), "the rebuild's COPY")
    finally:
        rebuild.send_signal(signal.SIGKILL)
        rebuild.wait()
    wait_for(no_backend_left(url), "the killed rebuild's backend to go")
    assert live_state(url)[:2] == before[:2] and hits(postgres) == answers
    assert memtui(postgres, "index", "--force").wait() == 0
    gen, per_path, generations, consistent = live_state(url)
    assert gen > before[0] and per_path == expected and consistent
    assert generations == 1  # the replaced generation and the killed rebuild's are gone
    assert hits(postgres) == answers


def test_agents_sharing_a_database_stay_apart(tmp_path: Path) -> None:
    url = fresh_database()
    envs = []
    for agent, note in (("alpha", "The alpha agent keeps the zebra ledger."), ("beta", "Beta tracks the otter queue.")):
        workspace = tmp_path / agent
        workspace.mkdir()
        (workspace / "MEMORY.md").write_text(f"# Memory\n\n- {note}\n", encoding="utf-8")
        envs.append(env_for(tmp_path, workspace, url, agent))
    found = {}
    for env in envs:
        with MemoryManager(env) as manager:
            found[env.agent_id] = {q: [h["snippet"][:30] for h in manager.memory_search(q)["results"]]
                                   for q in ("zebra ledger", "otter queue")}
    assert found["alpha"]["zebra ledger"] and not found["alpha"]["otter queue"]
    assert found["beta"]["otter queue"] and not found["beta"]["zebra ledger"]


def test_a_second_writer_waits_for_the_first(tmp_path: Path) -> None:
    url = fresh_database()
    stores = [PostgresStore(url, agent="main", workspace=str(tmp_path), path=tmp_path / "main.sqlite",
                            tokenizer=PorterTokenizer()) for _ in range(2)]
    try:
        done = threading.Event()
        with stores[0].batch():
            stores[0].write_meta("first", key="who")
            second = threading.Thread(target=lambda: (stores[1].write_meta("second", key="who"), done.set()))
            second.start()

            def waiting() -> bool:
                with psycopg.connect(url, autocommit=True) as conn:
                    return bool(conn.execute("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                                             ).fetchone())
            wait_for(waiting, "the second writer to wait on the index's lock")
            assert not done.is_set()
        second.join(60)
        assert done.is_set() and stores[0].meta_value("who") == "second"
    finally:
        for store in stores:
            store.close()


def test_a_sync_on_another_host_waits_until_a_rebuild_has_flipped(tmp_path: Path) -> None:
    workspace, url = big_workspace(tmp_path / "ws", files=800), fresh_database()
    (tmp_path / "host2").mkdir()
    first, second = env_for(tmp_path, workspace, url), env_for(tmp_path / "host2", workspace, url)
    assert memtui(first, "index").wait() == 0
    before = live_state(url)[0]

    def rebuilt_file() -> str | None:
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute("SELECT path FROM memtui.files WHERE gen > %s LIMIT 1", (before,)).fetchone()
        return row[0] if row else None

    def waiting() -> bool:  # on the lock a whole sync holds, before reading the index: not only on a write
        with psycopg.connect(url, autocommit=True) as conn:
            return bool(conn.execute("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND "
                                     "classid = %s", (SYNC_LOCK_SPACE,)).fetchone())

    rebuild = memtui(first, "index", "--force")
    incremental = None
    try:
        path = workspace / str(wait_for(rebuilt_file, "the rebuild's first committed file"))
        path.write_text(path.read_text(encoding="utf-8") + "- The quokka protocol was adopted.\n", encoding="utf-8")
        incremental = memtui(second, "index")  # another state dir: another host's own writer lock
        wait_for(waiting, "the second host's sync to wait for the rebuild")
        assert rebuild.poll() is None
    finally:
        assert rebuild.wait() == 0
        assert incremental is not None and incremental.wait() == 0
    gen, _, generations, consistent = live_state(url)
    assert gen > before and generations == 1 and consistent
    with MemoryManager(second) as manager:
        found = [hit["path"] for hit in manager.memory_search("quokka protocol")["results"]]
    assert found[:1] == [str(path.relative_to(workspace))]


def test_closing_a_store_does_not_wait_on_another_hosts_lock(tmp_path: Path) -> None:
    """A sync queued behind another host's lock (a batch waiting for the index's advisory lock) does not keep its
    process from closing the store: the waiting statement is cancelled, the sync fails, the store closes (a `memtui
    watch` stopped with Ctrl-C otherwise waited for the other host)."""
    url = fresh_database()
    store = PostgresStore(url, agent="main", workspace=str(tmp_path), path=tmp_path / "main.sqlite",
                          tokenizer=PorterTokenizer())
    other = psycopg.connect(url, autocommit=True)
    other.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_SPACE, store.index_id))  # another host's batch
    failed: list[BaseException] = []

    def sync() -> None:
        try:
            with store.batch():
                pass
        except BaseException as exc:
            failed.append(exc)
    thread = threading.Thread(target=sync, daemon=True)
    thread.start()
    wait_for(lambda: other.execute("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").fetchone(),
             "the batch to wait for the lock")
    began = time.monotonic()
    store.close()
    thread.join(timeout=30)
    other.close()
    assert time.monotonic() - began < 20 and not thread.is_alive() and failed

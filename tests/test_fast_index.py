"""The memtui profile's in-memory accelerator: same ranking as the stemmed FTS5 table, never stale."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from hashed_provider import HashedProvider

from memtui.manager import MemoryManager
from memtui.search.accelerator import StaleRead, build_index, build_index_isolated
from memtui.search.engine import Searcher, SearchOptions
from memtui.search.fast_search import FastSearch
from memtui.search.fts_query import build_or_query
from memtui.search.tokenizer import PorterTokenizer
from memtui.settings.agent import AgentEnv

NOTES = {
    "memory/2026-10-01.md": "# Ops\n\nThe runners were running the assembly job; it runs nightly.\n",
    "memory/2026-10-02.md": "# Pathology\n\nPathology reports and morphology notes, possibly irreversibly lost.\n",
    "memory/2026-10-03.md": "# Café\n\nMet Zoë at the CAFÉ; discussed auth_gateway latency and the gateway auth.\n",
    "memory/2026-10-04.md": "# Cache\n\nRedis cache cache cache eviction; cache keys expire after 300 seconds.\n",
    "memory/2026-10-05.md": "# Misc\n\nGrafana dashboards for billing; Sentry alerts for the billing-api.\n",
    "memory/2026-10-06.md": "# Misc\n\nGrafana dashboards for billing; Sentry alerts for the billing-api.\n",
    "MEMORY.md": "# Memory\n\n- The user runs Kafka and Redis.\n- Technologies: Helm, Terraform, Vault.\n",
}
QUERIES = ["running assembly", "pathologies morphological technology", "cafe zoe", "cache eviction redis",
           "grafana billing dashboards", "who runs kafka", "irreversible loss", "seconds 300"]


@pytest.fixture
def notes_env(tmp_path: Path) -> Callable[..., AgentEnv]:
    """An AgentEnv on a workspace holding NOTES."""
    from memtui.settings.agent import resolve_agent

    workspace = tmp_path / "notes"
    for name, text in NOTES.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text, encoding="utf-8")

    def build(**overrides: object) -> AgentEnv:
        options: dict[str, object] = {"state_dir": str(tmp_path / "state"), "workspace": str(workspace),
                                      "provider": "none", "profile": "memtui"}
        options.update(overrides)
        return resolve_agent(**options)  # type: ignore[arg-type]

    return build


def test_keyword_ranking_matches_the_stemmed_fts5_table(notes_env: Callable[..., AgentEnv]) -> None:
    with MemoryManager(notes_env()) as manager:
        manager.sync()
        store = manager.store
        index = build_index(store, vectors=False)
        rowid_of = {chunk_id: rowid for rowid, chunk_id in store.chunk_ids()}
        for query in QUERIES:
            keyword = build_or_query(query)
            expected = [(rowid_of[row.id], bm25) for row, bm25 in store.stemmed_search(keyword.match, 5, model=None,
                                                                                        sources=None)]
            got = index.keyword(keyword.terms, 5, model=None, sources=None)
            assert got is not None
            assert [r for r, _ in got] == [r for r, _ in expected], query
            assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-5), query


def test_bm25_by_hand_on_three_chunks(tmp_path: Path) -> None:
    from memtui.settings.agent import resolve_agent

    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("apple apple pie", encoding="utf-8")
    (workspace / "memory" / "b.md").write_text("apple", encoding="utf-8")
    (workspace / "memory" / "c.md").write_text("banana split now", encoding="utf-8")
    (workspace / "memory" / "d.md").write_text("cherry tart", encoding="utf-8")
    (workspace / "memory" / "e.md").write_text("plum jam jar", encoding="utf-8")
    env = resolve_agent(state_dir=str(tmp_path / "state"), workspace=str(workspace), provider="none",
                        profile="memtui")
    with MemoryManager(env) as manager:
        manager.sync()
        index = build_index(manager.store, vectors=False)
        paths = {rowid: manager.store.chunks_by_rowids([rowid])[rowid].path for rowid in index.rowids.tolist()}
        got = {paths[r]: s for r, s in index.keyword(["apples"], 10, model=None, sources=None)}
    # N = 5 chunks of 3, 1, 3, 2 and 3 tokens (avgdl 12/5); "apples" stems to "appl", in 2 chunks.
    avgdl = 12 / 5
    idf = math.log((5 - 2 + 0.5) / (2 + 0.5))
    a = idf * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 3 / avgdl))
    b = idf * 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1 / avgdl))
    assert got == {"memory/a.md": pytest.approx(-a, rel=1e-5), "memory/b.md": pytest.approx(-b, rel=1e-5)}


def test_vector_ranking_matches_sqlite_vec(notes_env: Callable[..., AgentEnv]) -> None:
    provider = HashedProvider()
    with MemoryManager(notes_env(), provider=provider) as manager:
        manager.sync()
        store = manager.store
        index = build_index(store, vectors=True)
        rowid_of = {chunk_id: rowid for rowid, chunk_id in store.chunk_ids()}
        for query in QUERIES:
            vector = provider.embed_query(query)
            expected = store.vector_knn(vector, 10, model=provider.model, sources=None)
            got = index.vector(vector, 10, model=provider.model, sources=None)
            assert got is not None
            # Every chunk ranked; two notes have the same text (equal vectors): compare rowids per score tier.
            assert _tiers(got) == _tiers([(rowid_of[row.id], score) for row, score in expected]), query
            assert [s for _, s in got] == pytest.approx([s for _, s in expected], abs=1e-5), query


def _tiers(ranked: list[tuple[int, float]]) -> list[frozenset[int]]:
    """Rowids grouped into runs of equal (within 1e-5) scores, in rank order."""
    tiers: list[tuple[float, set[int]]] = []
    for rowid, score in ranked:
        if tiers and abs(tiers[-1][0] - score) <= 1e-5:
            tiers[-1][1].add(rowid)
        else:
            tiers.append((score, {rowid}))
    return [frozenset(ids) for _, ids in tiers]


def _paths(manager: MemoryManager, query: str) -> list[str]:
    return [hit.path for hit in manager.search(query, min_score=0.0).results]


def test_edit_delete_and_add_are_seen_immediately(notes_env: Callable[..., AgentEnv]) -> None:
    env = notes_env()
    with MemoryManager(env) as manager:
        manager.fast = FastSearch(sync_build_chunks=10_000)
        manager.sync()
        assert _paths(manager, "quokkas") == []
        assert manager.fast.current(manager.store, vectors=False) is not None
        edited = env.workspace_dir / "memory" / "2026-10-05.md"
        edited.write_text(edited.read_text(encoding="utf-8") + "A quokka visited.\n", encoding="utf-8")
        manager.sync()
        assert _paths(manager, "quokkas") == ["memory/2026-10-05.md"]
        (env.workspace_dir / "memory" / "2026-10-04.md").unlink()
        manager.sync()
        assert "memory/2026-10-04.md" not in _paths(manager, "cache eviction")
        (env.workspace_dir / "memory" / "2026-10-07.md").write_text("Quokka census done.\n", encoding="utf-8")
        manager.sync()
        assert sorted(_paths(manager, "quokkas")) == ["memory/2026-10-05.md", "memory/2026-10-07.md"]
        index = manager.fast.current(manager.store, vectors=False)
        assert index is not None and index.revision == manager.store.revision()


def test_a_write_by_another_process_is_seen(notes_env: Callable[..., AgentEnv], tmp_path: Path) -> None:
    env = notes_env()
    with MemoryManager(env) as manager:
        manager.fast = FastSearch(sync_build_chunks=10_000)
        manager.sync()
        assert _paths(manager, "wombats") == []
        before = manager.store.revision()
        (env.workspace_dir / "memory" / "2026-10-08.md").write_text("Wombat sighting.\n", encoding="utf-8")
        script = textwrap.dedent(f"""
            from memtui.settings.agent import resolve_agent
            from memtui.manager import MemoryManager
            env = resolve_agent(state_dir={str(tmp_path / "state")!r}, workspace={str(env.workspace_dir)!r},
                                provider="none", profile="memtui")
            with MemoryManager(env) as other:
                other.sync()
        """)
        subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
        assert manager.store.revision() != before
        assert _paths(manager, "wombats") == ["memory/2026-10-08.md"]
        index = manager.fast.current(manager.store, vectors=False)
        assert index is not None and index.revision == manager.store.revision()


def test_multi_token_term_is_answered_by_fts5(notes_env: Callable[..., AgentEnv]) -> None:
    with MemoryManager(notes_env()) as manager:
        manager.fast = FastSearch(sync_build_chunks=10_000)
        manager.sync()
        index = manager.fast.current(manager.store, vectors=False)
        assert index is not None
        assert index.keyword(["auth_gateway"], 5, model=None, sources=None) is None
        # FTS5 treats "auth_gateway" as the phrase "auth gateway": only the adjacent pair matches.
        assert _paths(manager, "auth_gateway") == ["memory/2026-10-03.md"]


def test_fts5_answers_until_the_background_build_is_ready(notes_env: Callable[..., AgentEnv]) -> None:
    env = notes_env()
    with MemoryManager(env) as manager:
        manager.fast.quiet_s = 0.0
        manager.sync()
        # The first search of a process (a one-shot CLI call) never starts a build.
        expected = _paths(manager, "grafana billing")
        assert manager.fast.current(manager.store, vectors=False) is None
        manager.fast.wait(60)
        index = manager.fast.current(manager.store, vectors=False)
        assert index is not None
        assert _paths(manager, "grafana billing") == expected
        (env.workspace_dir / "memory" / "2026-10-09.md").write_text("Grafana billing panel.\n", encoding="utf-8")
        manager.sync()
        # The write is applied to the index from the store's change journal: no rebuild, never stale.
        updated = manager.fast.current(manager.store, vectors=False)
        assert updated is not None and updated is not index and manager.fast.updates == 1
        assert updated.revision == manager.store.revision() and updated.delta_size == 1
        assert "memory/2026-10-09.md" in _paths(manager, "grafana billing panel")


def test_no_background_rebuild_while_edits_keep_coming(notes_env: Callable[..., AgentEnv]) -> None:
    """Within the quiet period after a write the accelerator is not rebuilt (FTS5 answers, fresh)."""
    env = notes_env()
    with MemoryManager(env) as manager:
        manager.fast.quiet_s = 60.0
        manager.sync()
        for _ in range(3):
            assert manager.fast.current(manager.store, vectors=False) is None
        manager.fast.wait(5)
        assert manager.fast.current(manager.store, vectors=False) is None
        assert _paths(manager, "grafana billing")


def test_background_build_starts_by_itself_once_the_index_is_quiet(notes_env: Callable[..., AgentEnv]) -> None:
    """A search inside the quiet period schedules the rebuild; it runs when the quiet period ends, so the
    next search is fast even if nobody searched in between."""
    env = notes_env()
    with MemoryManager(env) as manager:
        manager.fast.quiet_s = 0.3
        manager.sync()
        for _ in range(2):
            assert manager.fast.current(manager.store, vectors=False) is None
        manager.fast.wait(30)
        assert manager.fast.current(manager.store, vectors=False) is not None


def test_prepare_builds_at_once_and_the_next_search_uses_it(notes_env: Callable[..., AgentEnv]) -> None:
    with MemoryManager(notes_env()) as manager:
        manager.fast.quiet_s = 60.0
        manager.sync()
        built = manager.fast.prepare(manager.store, vectors=False)
        assert built is not None
        assert manager.fast.current(manager.store, vectors=False) is built
        assert _paths(manager, "grafana billing")


def test_index_built_in_a_child_process_answers_like_one_built_in_process(
        notes_env: Callable[..., AgentEnv]) -> None:
    with MemoryManager(notes_env(), provider=HashedProvider()) as manager:
        manager.sync()
        here = build_index(manager.store, vectors=True)
        there = build_index_isolated(manager.store, vectors=True, tokenizer=PorterTokenizer())
        assert there.revision == here.revision and there.size == here.size and there.has_vectors
        vector = manager.embed_query("grafana billing dashboards")
        assert vector is not None
        for query in QUERIES:
            terms = build_or_query(query).terms
            assert there.keyword(terms, 10, model=None, sources=None) == \
                here.keyword(terms, 10, model=None, sources=None)
        assert there.vector(vector, 10, model=None, sources=None) == here.vector(vector, 10, model=None, sources=None)
        manager.store.path = manager.store.path.with_name("gone.sqlite")  # the child cannot open it
        with pytest.raises(StaleRead, match="cannot open the index"):
            build_index_isolated(manager.store, vectors=False, tokenizer=PorterTokenizer())


def test_without_an_interpreter_to_start_the_index_is_built_in_process(notes_env: Callable[..., AgentEnv],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    with MemoryManager(notes_env()) as manager:
        manager.sync()
        monkeypatch.setattr(sys, "executable", str(Path(manager.store.path).with_name("no-python")))
        index = build_index_isolated(manager.store, vectors=False, tokenizer=PorterTokenizer())
        assert index.revision == manager.store.revision() and index.size == manager.store.chunk_count()


def test_openclaw_profile_does_not_use_the_accelerator(notes_env: Callable[..., AgentEnv]) -> None:
    with MemoryManager(notes_env(profile="openclaw")) as manager:
        manager.sync()
        index = build_index(manager.store, vectors=False)
        plain = Searcher(manager.store, None, manager.settings, "openclaw", manager.file_mtimes)
        given = Searcher(manager.store, None, manager.settings, "openclaw", manager.file_mtimes, fast=index)
        for query in QUERIES:
            assert [c.trace() for c in given.search(query).candidates] == \
                [c.trace() for c in plain.search(query).candidates]
        # Unstemmed AND query: "run" and "assemblies" are not words of any note.
        response = manager.search("run assemblies", min_score=0.0)
        assert response.explain()["ftsOperator"] == "AND"
        assert [hit.path for hit in response.results] == []
    with MemoryManager(notes_env(profile="memtui")) as manager:
        manager.sync()
        assert _paths(manager, "run assemblies")[0] == "memory/2026-10-01.md"


def _fts5_and_accelerated(manager: MemoryManager, query: str, vector: list[float] | None) -> tuple[list, list]:
    fts = Searcher(manager.store, manager.provider, manager.settings, "memtui", manager.file_mtimes)
    fast = manager.fast.current(manager.store, vectors=manager.provider is not None)
    assert fast is not None
    accelerated = Searcher(manager.store, manager.provider, manager.settings, "memtui", manager.file_mtimes,
                           fast=fast)
    options = SearchOptions(max_results=20, min_score=0.0)  # every candidate: no tie at the cut
    return ([(c.id, round(c.score, 9)) for c in fts.search(query, options, query_vector=vector).results],
            [(c.id, round(c.score, 9)) for c in accelerated.search(query, options, query_vector=vector).results])


def _by_score(results: list[tuple[str, float]]) -> list[tuple[float, str]]:
    return sorted((-round(score, 5), chunk_id) for chunk_id, score in results)


@pytest.mark.parametrize("hybrid", [False, True])
def test_writes_are_applied_in_place_and_rank_as_fts5_does(notes_env: Callable[..., AgentEnv], hybrid: bool) -> None:
    """Edits, deletions and new notes (including a rowid freed and reused) reach the accelerator through the
    change journal; its ranking stays the stemmed FTS5 table's (and sqlite-vec's) after every step."""
    env = notes_env()
    memory = env.workspace_dir / "memory"
    steps = [
        lambda: (memory / "2026-10-04.md").write_text("Redis cache warmed; eviction of running jobs.\n", "utf-8"),
        lambda: (memory / "2026-10-01.md").unlink(),
        lambda: (memory / "2026-10-20.md").write_text("Assembly runners and pathology caches.\n", "utf-8"),
        lambda: (memory / "2026-10-20.md").write_text("Assembly runners, now with Kafka dashboards.\n", "utf-8"),
        lambda: [(memory / f"2026-11-{day:02d}.md").write_text(f"Billing note {day} for grafana.\n", "utf-8")
                 for day in range(1, 6)],
    ]
    provider = HashedProvider() if hybrid else None
    with MemoryManager(env, provider=provider) as manager:
        manager.fast = FastSearch(sync_build_chunks=10_000)
        manager.sync()
        assert manager.fast.current(manager.store, vectors=hybrid) is not None
        for number, step in enumerate(steps, start=1):
            step()
            manager.sync()
            for query in [*QUERIES, "kafka dashboards", "billing grafana note"]:
                vector = provider.embed_query(query) if provider else None
                expected, got = _fts5_and_accelerated(manager, query, vector)
                # equal cosines (two notes with the same text) may come in either order from sqlite-vec
                assert _by_score(got) == _by_score(expected), (number, query)
            assert manager.fast.updates == number


def test_a_large_delta_is_compacted_by_a_background_rebuild(notes_env: Callable[..., AgentEnv],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import memtui.search.fast_search as fast_search

    monkeypatch.setattr(fast_search, "REBUILD_DELTA_MIN", 2)
    env = notes_env()
    with MemoryManager(env) as manager:
        manager.fast = FastSearch(sync_build_chunks=10_000, quiet_s=0.0)
        manager.sync()
        assert manager.fast.current(manager.store, vectors=False) is not None
        for day in range(1, 5):
            (env.workspace_dir / "memory" / f"2026-12-0{day}.md").write_text(f"Kafka note {day}.\n", "utf-8")
        manager.sync()
        grown = manager.fast.current(manager.store, vectors=False)
        assert grown is not None and grown.delta_size == 4
        manager.fast.wait(60)
        compacted = manager.fast.current(manager.store, vectors=False)
        assert compacted is not None and compacted.delta_size == 0 and compacted is not grown
        assert {f"memory/2026-12-0{day}.md" for day in range(1, 5)} <= set(_paths(manager, "kafka note"))

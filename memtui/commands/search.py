"""`memtui search QUERY`: search memory like `openclaw memory search`, with score traces on request."""

from __future__ import annotations

import argparse
import sys

from memtui.backend import open_manager
from memtui.commands.args import agent_from_args
from memtui.commands.explain_text import explain_header, trace_line
from memtui.commands.output import fixed3, print_json
from memtui.manager import MemoryManager
from memtui.search.agent_db import GENERATION, NOT_INDEXED
from memtui.settings.agent import AgentEnv
from memtui.settings.config import PROFILES


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `search` subcommand."""
    parser = subparsers.add_parser("search", parents=parents, help="search memory (memory_search)")
    parser.add_argument("query", nargs="?", help="the query")
    parser.add_argument("--query", dest="query_opt", metavar="TEXT", help="the query (wins over the positional)")
    parser.add_argument("--json", action="store_true", help="print the memory_search JSON")
    parser.add_argument("--max-results", type=int, metavar="N", help="results to return (default 6)")
    parser.add_argument("--min-score", type=float, metavar="X", help="score threshold (default 0.35)")
    parser.add_argument("--profile", choices=PROFILES, help="ranking profile (default memtui); openclaw: the agent's "
                        "OpenClaw generation exactly (2026.9: its own index), openclaw-2026.4: the classic rules")
    parser.add_argument("--explain", action="store_true", help="show each hit's score trace and the FTS query")
    parser.add_argument("--session-key", metavar="KEY", help="session key deciding citations in auto mode")
    parser.add_argument("--no-sync", action="store_true", help="search the index as it is, without syncing first")
    parser.add_argument("--why", metavar="PATH:LINE", help="explain where the chunk at PATH:LINE ranks for this "
                        "query, or which stage dropped it")
    parser.add_argument("--fleet", action="store_true", help="search every agent in the PostgreSQL store, ranked as "
                        "this agent's search ranks, each hit naming its agent")
    parser.add_argument("--exact", action="store_true", help="with --fleet: compare the query with every vector, "
                        "not through the fleet's approximate index (memtui fleet-index)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Search and print."""
    query = args.query_opt or args.query
    if not query or not query.strip():
        raise SystemExit("memtui: error: a query is required (memtui search QUERY)")
    if args.exact and not args.fleet:
        raise SystemExit("memtui: error: --exact goes with --fleet (an agent's own search is always exact)")
    if args.fleet and (args.why or args.profile not in (None, "memtui")):
        raise SystemExit("memtui: error: --fleet ranks with the memtui profile and has no --why: search the agent "
                         "itself (without --fleet) for those")
    env = agent_from_args(args)
    if args.fleet:
        from memtui.commands.fleet import print_fleet_search

        return print_fleet_search(args, env, query)
    if env.backend == "qmd":
        return _run_qmd(args, env, query)
    with MemoryManager(env) as manager:
        agent_db = manager.agent_db_index(args.profile) is not None
        if not agent_db and (args.profile or env.profile) == "openclaw" and env.generation.name == GENERATION:
            print(f"memtui: {NOT_INDEXED}", file=sys.stderr)
        if not args.no_sync and not agent_db:
            # A one-shot process has no watcher: a note edited since the last sync (known by its size and mtime)
            # is synced before the search, as a running agent's watcher would have (bounded by the search's wait).
            manager.dirty = manager.dirty or (not manager.env.read_only and manager.stale_reason() is not None)
            manager.ensure_indexed()
        if agent_db and not args.why:  # --why below: the same search, then where the chunk stands
            from memtui.commands.search_agent_db import print_agent_db

            return print_agent_db(args, manager.search(query, max_results=args.max_results,
                                                       min_score=args.min_score, profile=args.profile))
        if args.why:
            return _why(manager, query, args)
        if args.json:
            print_json(manager.memory_search(query, max_results=args.max_results, min_score=args.min_score,
                                             session_key=args.session_key, explain=args.explain,
                                             profile=args.profile))
            return 0
        response = manager.search(query, max_results=args.max_results, min_score=args.min_score,
                                  profile=args.profile)
        if args.explain:
            provider = manager.provider.id if manager.provider else "none"
            print("\n".join(explain_header(response, args.profile or env.profile, provider)))
            print()
        if not response.results:
            print("No matches.")
            return 0
        for hit in response.results:
            print(f"{fixed3(hit.score)} {hit.path}:{hit.start_line}-{hit.end_line}")
            if args.explain:
                print(trace_line(hit, response))
            print(hit.snippet)
            print()
    return 0


def _run_qmd(args: argparse.Namespace, env: AgentEnv, query: str) -> int:
    """`memory.backend: "qmd"`: search through QMD (falling back to the builtin index), print its payload."""
    manager = open_manager(env)
    try:
        if not args.no_sync:
            manager.ensure_indexed()
        payload = manager.memory_search(query, max_results=args.max_results, min_score=args.min_score,
                                        session_key=args.session_key)
    finally:
        manager.close()
    if args.json:
        print_json(payload)
        return 0
    if payload.get("fallback"):
        print(f"(QMD unavailable: {payload['fallback'].get('reason')}; answered by the builtin index)")
    if not payload["results"]:
        print("No matches.")
        return 0
    for hit in payload["results"]:
        print(f"{fixed3(hit['score'])} {hit['path']}:{hit['startLine']}-{hit['endLine']}")
        print(hit["snippet"])
        print()
    return 0


def _why(manager: MemoryManager, query: str, args: argparse.Namespace) -> int:
    """`--why PATH:LINE`: the fate of one chunk for this query."""
    from memtui.search.why_not import chunk_at, explain_agent_db, explain_chunk, parse_location

    path, line = parse_location(args.why)
    response = manager.search(query, max_results=args.max_results, min_score=args.min_score, profile=args.profile)
    if response.generation is not None:
        why = explain_agent_db(manager, response, lambda c: c.path == path and c.start_line <= line <= c.end_line,
                               f"{path}:{line}")
    else:
        why = explain_chunk(manager, response, chunk_at(manager, path, line, response).id)
    if args.json:
        print_json(why.to_json())
        return 0
    print(f"{why.path}:{why.start_line}-{why.end_line} — {why.headline}")
    for reason in why.reasons:
        print(f"  • {reason}")
    return 0

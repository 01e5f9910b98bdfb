"""`memtui search QUERY`: search memory like `openclaw memory search`, with score traces on request."""

from __future__ import annotations

import argparse
import sys

from memtui.backend import open_manager
from memtui.commands.args import agent_from_args
from memtui.commands.output import fixed3, print_json
from memtui.manager import MemoryManager
from memtui.search.agent_db import GENERATION, NOT_INDEXED
from memtui.search.formula import formula_text, number_text
from memtui.search.response import Candidate, SearchResponse
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


def _text_side(hit: Candidate, response: SearchResponse) -> str:
    """How the hit's text score comes from its bm25: over the divisor (memtui, hybrid) or r/(1+r)."""
    if hit.bm25 is None:
        return f"text #{hit.text_rank} (LIKE match → {hit.text_score or 0:.4f})"
    divisor = response.text_divisor
    if divisor is not None:
        return (f"text #{hit.text_rank} (bm25 {number_text(hit.bm25)} / {number_text(divisor)} → "
                f"{hit.text_score or 0:.4f})")
    return f"text #{hit.text_rank} (bm25 {number_text(hit.bm25)} → r/(1+r) {hit.text_score or 0:.4f})"


def _vector_side(hit: Candidate, response: SearchResponse) -> str | None:
    """The hit's cosine and, when the list is normalised, the best cosine it is divided by."""
    rank = f"vector #{hit.vector_rank}" if hit.vector_rank is not None else "cosine only"
    divisor = response.vector_divisor
    if hit.cosine is not None and divisor is not None:
        return f"{rank} (cos {hit.cosine:.4f} / {divisor:.4f} → {hit.vector_score or 0:.4f})"
    return None if hit.vector_rank is None else rank


def trace_line(hit: Candidate, response: SearchResponse) -> str:
    """A hit's `--explain` line: its formula, then how each side's score was made, MMR, threshold, origin."""
    parts = [formula_text(hit, response)]
    ranks = [_text_side(hit, response)] if hit.text_rank is not None else []
    if (vector := _vector_side(hit, response)) is not None:
        ranks.append(vector)
    if ranks:
        parts.append("· " + ", ".join(ranks))
    if hit.mmr_rank is not None:
        parts.append(f"· MMR {hit.sorted_rank}→{hit.mmr_rank}")
    parts.append(f"· {hit.threshold or 'n/a'} minScore {response.min_score:g}")
    parts.append(f"· via {'+'.join(hit.matched_by)}")
    return "  " + " ".join(parts)


def explain_header(response: SearchResponse, profile: str, provider: str) -> list[str]:
    """The query-level lines of `--explain`: what `--json --explain` holds that changes a rank, in words."""
    info = response.explain()
    mode = info["mode"] + (f" (vector side skipped: {info['vectorSkipped']}; keyword scores only)"
                           if info["vectorSkipped"] else "")
    lines = [f"Profile: {profile} · mode: {mode} · provider: {provider}", f"FTS query: {info['ftsQuery'] or '(none)'}"]
    if info["droppedTerms"]:
        lines.append(f"Dropped terms: {', '.join(info['droppedTerms'])}")
    if info["keywordFallbackTerms"]:
        lines.append(f"Keyword fallback terms: {', '.join(info['keywordFallbackTerms'])}")
    if info["textNormalization"]:
        divisor = number_text(info["textDivisor"]) if info["textDivisor"] is not None else None
        said = divisor is None or f"/ {divisor} " in info["textNormalization"]  # the floor names itself
        lines.append(f"Text score: −{info['textNormalization']}" + ("" if said else f" = {divisor}"))
    elif any(hit.bm25 is not None for hit in response.candidates):
        lines.append("Text score: r/(1+r) of r = −bm25")
    if info["vectorNormalization"]:
        divisor = f" = {info['vectorDivisor']:.4f}" if info["vectorDivisor"] is not None else ""
        lines.append(f"Vector score: {info['vectorNormalization']}{divisor}")
    if info["skippedVectors"]:
        lines.append(f"Stored vectors skipped: {info['skippedVectors']} (no direction: all zeros or NaN; their chunks "
                     "rank by keywords only; memtui index --force embeds them again)")
    lines.append(f"Candidates: {info['candidates']} (limit {info['candidateLimit']}) · below minScore "
                 f"{info['minScore']:g}: {info['filteredByMinScore']}" + (" · relaxed" if info["relaxed"] else ""))
    return lines


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

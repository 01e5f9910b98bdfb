"""`memtui search --profile openclaw` for an OpenClaw 2026.9 agent: OpenClaw's own index (the agent database),
ranked exactly as 2026.9.6 ranks it, read without writing; each hit's trace on request."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from memtui.agentdb.index_summary import AgentIndexSummary, read_agent_index
from memtui.agentdb.search import AgentHit, memory_search_json, search_agent_db
from memtui.commands.output import fixed3, print_json
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv


def agent_index_to_answer(env: AgentEnv, profile: str | None) -> AgentIndexSummary | None:
    """The agent database's index when this search is OpenClaw 2026.9's own (profile `openclaw` on an agent whose
    database holds an index); else None, and the classic rules rank memtui's index (stderr says so)."""
    if (profile or env.profile) != "openclaw" or env.generation.name != "2026.9":
        return None
    summary = read_agent_index(env.generation.path)
    if summary.chunks > 0:
        return summary
    print("memtui: OpenClaw 2026.9 has not indexed this agent yet; ranking memtui's index with the 2026.4 rules "
          "(openclaw-2026.4)", file=sys.stderr)
    return None


def _query_vector(env: AgentEnv, query: str, model: str | None) -> tuple[list[float] | None, str | None]:
    """The query's vector when memtui can embed it with the model of OpenClaw's vectors, else why not."""
    with MemoryManager(env) as manager:
        if manager.provider is not None and manager.model == model:
            return manager.embed_query(query), None
        have = manager.model if manager.provider is not None else "no embedding provider"
    return None, (f"OpenClaw's vectors are of {model}; memtui has {have} here, so this ranks keyword-only, as "
                  "OpenClaw does without its provider")


def run_agent_db(args: argparse.Namespace, env: AgentEnv, query: str, summary: AgentIndexSummary) -> int:
    """Search the agent database (whose index is `summary`) and print the hits (or `memory search --json`'s JSON)."""
    vector, why_keyword = _query_vector(env, query, summary.meta.get("model")) if summary.vectors else (None, None)
    hits = search_agent_db(env.generation.path, query, max_results=args.max_results, min_score=args.min_score,
                           now_ms=int(time.time() * 1000), query_vector=vector, workspace_dir=env.workspace_dir)
    if why_keyword:
        print(f"memtui: {why_keyword}", file=sys.stderr)
    if args.json:
        payload: dict[str, Any] = memory_search_json(hits)
        if args.explain:
            payload["explain"] = {"profile": "openclaw", "generation": "2026.9", "database": str(env.generation.path),
                                  "mode": "hybrid" if vector is not None else "keyword-only",
                                  "traces": [hit.trace for hit in hits]}
        print_json(payload)
        return 0
    print(f"OpenClaw 2026.9's own index ({env.generation.path}) · {'hybrid' if vector is not None else 'keyword-only'}"
          " · ranked as 2026.9.6 ranks it")
    if not hits:
        print("No matches.")
        return 0
    for hit in hits:
        print(f"{fixed3(hit.score)} {hit.path}:{hit.start_line}-{hit.end_line}" + _annotations(hit))
        if args.explain:
            print("  " + trace_line(hit))
        print(hit.snippet)
        print()
    return 0


def _annotations(hit: AgentHit) -> str:
    parts = [f"importance {hit.importance}" if hit.importance is not None else "",
             f"triggers {hit.triggers}" if hit.triggers else "",
             f"project {hit.project_key}" if hit.project_key else ""]
    shown = " · ".join(part for part in parts if part)
    return f"  [{shown}]" if shown else ""


def trace_line(hit: AgentHit) -> str:
    """The numbers that placed a hit, in the order OpenClaw applied them."""
    return " · ".join(f"{key} {_value(value)}" for key, value in hit.trace.items() if value not in (None, [], {}))


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return ",".join(_value(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} {_value(v)}" for k, v in value.items()) + "}"
    return str(value)

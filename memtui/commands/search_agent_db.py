"""`memtui search --profile openclaw` for an OpenClaw 2026.9 agent: OpenClaw's own index (the agent database),
ranked exactly as 2026.9.6 ranks it (`MemoryManager.search`, the same answer the TUI and the MCP server give),
printed like `openclaw memory search`; each hit's trace on request."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memtui.commands.output import fixed3, print_json
from memtui.search.agent_db import cli_json, formula_text
from memtui.search.response import Candidate, SearchResponse


def print_agent_db(args: argparse.Namespace, response: SearchResponse) -> int:
    """Print a response of the agent database (or `memory search --json`'s JSON, + the traces with --explain)."""
    if response.vector_skipped:
        print(f"memtui: {response.vector_skipped}", file=sys.stderr)
    if args.json:
        payload: dict[str, Any] = cli_json(response)
        if args.explain:
            payload["explain"] = {"profile": "openclaw", "generation": response.generation,
                                  "database": response.database, "mode": _mode(response),
                                  "traces": [_trace(hit) for hit in response.results]}
        print_json(payload)
        return 0
    print(f"OpenClaw 2026.9's own index ({response.database}) · {_mode(response)} · ranked as 2026.9.6 ranks it")
    if not response.results:
        print("No matches.")
        return 0
    for hit in response.results:
        print(f"{fixed3(hit.score)} {hit.path}:{hit.start_line}-{hit.end_line}" + _annotations(hit))
        if args.explain:
            print("  " + formula_text(hit))
            print("  " + trace_line(hit))
        print(hit.snippet)
        print()
    return 0


def _mode(response: SearchResponse) -> str:
    return "hybrid" if response.mode == "hybrid" else "keyword-only"


def _trace(hit: Candidate) -> dict[str, Any]:
    return dict((hit.openclaw or {}).get("trace") or {})


def _annotations(hit: Candidate) -> str:
    extra = hit.openclaw or {}
    parts = [f"importance {extra['importance']}" if extra.get("importance") is not None else "",
             f"triggers {extra['triggers']}" if extra.get("triggers") else "",
             f"project {extra['projectKey']}" if extra.get("projectKey") else ""]
    shown = " · ".join(part for part in parts if part)
    return f"  [{shown}]" if shown else ""


def trace_line(hit: Candidate) -> str:
    """The numbers that placed a hit, in the order OpenClaw applied them."""
    return " · ".join(f"{key} {_value(value)}" for key, value in _trace(hit).items() if value not in (None, [], {}))


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return ",".join(_value(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} {_value(v)}" for k, v in value.items()) + "}"
    return str(value)

"""`memtui promote`: rank short-term recalls and (with --apply) append the winners to MEMORY.md."""

from __future__ import annotations

import argparse
import json
from typing import Any

from memtui.agentdb.plugin_state import global_db_path, state_reference
from memtui.commands.args import agent_from_args
from memtui.dreaming.promotion import ApplyGates, apply_promotions, list_candidates
from memtui.dreaming.ranking import Candidate
from memtui.errors import MemtuiError


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, got {value}")
    return value


def _unit_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {value}")
    return value


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `promote` subcommand."""
    p = subparsers.add_parser(
        "promote", parents=parents, help="rank short-term recalls; --apply writes MEMORY.md"
    )
    p.add_argument("--apply", action="store_true", help="append the ranked candidates to MEMORY.md")
    p.add_argument("--limit", type=_non_negative_int, metavar="N", help="at most N candidates")
    p.add_argument("--min-score", type=_unit_float, default=0.75, metavar="X", help="default 0.75")
    p.add_argument("--min-recall-count", type=_non_negative_int, default=3, metavar="N", help="default 3")
    p.add_argument("--min-unique-queries", type=_non_negative_int, default=None, metavar="N",
                   help="default 2; 3 for an OpenClaw 2026.9 agent, as its `memory promote`")
    p.add_argument("--include-promoted", action="store_true", help="also list already promoted entries")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def format_candidate(index: int, candidate: Candidate) -> str:
    """Two lines: rank, score, source and counts; then the snippet."""
    c = candidate
    flags = f" promoted={c.promoted_at}" if c.promoted_at else ""
    return (
        f"{index}. {c.score:.3f} {c.source} signals={c.signal_count} (recalls={c.recall_count} "
        f"daily={c.daily_count} grounded={c.grounded_count}) queries={c.unique_queries} "
        f"days={len(c.recall_days)} avg={c.avg_score:.3f}{flags}\n   {c.snippet}"
    )


def run(args: argparse.Namespace) -> int:
    """List (and optionally apply) promotion candidates."""
    env = agent_from_args(args)
    tz = env.dreaming.tz()
    if args.min_unique_queries is None:  # 2026.9.6's `memory promote` raised its default from 2026.4's 2
        args.min_unique_queries = 3 if env.openclaw_layout == "2026.9" else 2
    candidates = list_candidates(
        env.workspace_dir,
        min_score=args.min_score,
        min_recall_count=args.min_recall_count,
        min_unique_queries=args.min_unique_queries,
        include_promoted=args.include_promoted,
        limit=args.limit,
    )
    result = None
    if args.apply:
        if env.read_only:
            raise MemtuiError("--apply writes MEMORY.md; drop --read-only to promote")
        gates = ApplyGates(min_score=args.min_score, min_recall_count=args.min_recall_count,
                           min_unique_queries=args.min_unique_queries, limit=args.limit)
        result = apply_promotions(env.workspace_dir, candidates, tz=tz, gates=gates)
    if args.json:
        payload: dict[str, Any] = {"workspaceDir": str(env.workspace_dir)}
        if env.openclaw_layout == "2026.9":  # as 2026.9.6's `memory promote --json` names its store
            payload.update(storePath=state_reference("recall", env.workspace_dir),
                           database=str(global_db_path(env.state_dir)))
        payload["candidates"] = [c.to_json() for c in candidates]
        if result is not None:
            payload["applied"] = result.to_json()
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    if env.openclaw_layout == "2026.9":
        print(f"Recall store: OpenClaw 2026.9's {global_db_path(env.state_dir)} (read-only)")
    if not candidates:
        print("No promotion candidates.")
    else:
        print(f"Promotion candidates ({len(candidates)}):")
        for index, candidate in enumerate(candidates, start=1):
            print(format_candidate(index, candidate))
    if result is not None:
        print(f"Promoted {len(result.applied)} candidate(s) into {result.memory_path}", end="")
        print(f" ({result.appended} appended, {result.already_present} already present).")
        for key, reason in result.skipped:
            print(f"Skipped {key}: {reason}")
    return 0

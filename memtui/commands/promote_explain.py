"""`memtui promote-explain SELECTOR`: every component of a short-term entry's promotion score."""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import asdict

from memtui.commands.args import agent_from_args
from memtui.dreaming.clock import resolve_now
from memtui.dreaming.ranking import Candidate, RankOptions, score_entry
from memtui.dreaming.recall_store import RecallEntry, load_phase_signals, load_recall_store, normalize_path
from memtui.errors import MemtuiError

_RANGE_RE = re.compile(r"^(?P<path>.+):(?P<start>\d+)-(?P<end>\d+)$")


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `promote-explain` subcommand."""
    p = subparsers.add_parser(
        "promote-explain", parents=parents, help="explain a candidate's promotion score"
    )
    p.add_argument("selector", help="a recall key, PATH:START-END, or a path")
    p.add_argument("--include-promoted", action="store_true", help="treat promoted entries as eligible")
    p.add_argument("--min-score", type=float, default=0.75, metavar="X", help="gate to check (default 0.75)")
    p.add_argument("--min-recall-count", type=int, default=3, metavar="N", help="gate to check (default 3)")
    p.add_argument("--min-unique-queries", type=int, default=2, metavar="N", help="gate to check (default 2)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def select_entries(entries: dict[str, RecallEntry], selector: str) -> list[RecallEntry]:
    """Entries matching a key, an exact or overlapping `path:start-end`, or a path."""
    selector = selector.strip()
    if selector in entries:
        return [entries[selector]]
    match = _RANGE_RE.match(selector)
    if match:
        path, start, end = normalize_path(match["path"]), int(match["start"]), int(match["end"])
        same = [e for e in entries.values() if e.path == path and e.start_line <= end and e.end_line >= start]
        exact = [e for e in same if (e.start_line, e.end_line) == (start, end)]
        return exact or same
    path = normalize_path(selector)
    return [e for e in entries.values() if e.path == path or e.path.endswith("/" + path)]


def explain_lines(candidate: Candidate) -> list[str]:
    """Human explanation: evidence, each weighted component, the phase boost, the gates."""
    c = candidate
    lines = [f"{c.key}", f"  source: {c.source}", f"  snippet: {c.snippet}"]
    lines.append(
        f"  signals: {c.signal_count} = recalls {c.recall_count} + daily {c.daily_count}"
        f" + grounded {c.grounded_count}"
    )
    lines.append(
        f"  queries: {c.unique_queries} · days: {len(c.recall_days)} ({', '.join(c.recall_days)}) · "
        f"age: {c.age_days:.2f} d · concepts: {', '.join(c.concept_tags) or '-'}"
    )
    for name, value in asdict(c.components).items():
        weight = c.weights[name]
        lines.append(f"  {name:<13} {value:.3f} × {weight:.2f} = {value * weight:.3f}")
    boost = c.phase_boost
    lines.append(
        f"  phase boost   {boost.total:.3f} (light {boost.light_strength:.3f}×{boost.light_recency:.3f}, "
        f"rem {boost.rem_strength:.3f}×{boost.rem_recency:.3f})"
    )
    lines.append(f"  score         {c.score:.3f}")
    lines.append("  eligible" if not c.rejected else "  not eligible: " + "; ".join(c.rejected))
    return lines


def run(args: argparse.Namespace) -> int:
    """Explain the promotion score of the selected entries."""
    env = agent_from_args(args)
    store = load_recall_store(env.workspace_dir)
    chosen = select_entries(store.entries, args.selector)
    if not chosen:
        raise MemtuiError(
            f"no short-term recall entry matches {args.selector!r}",
            "use a key or PATH:START-END from `memtui promote --json`, or a daily note path",
        )
    signals = load_phase_signals(env.workspace_dir).entries
    options = RankOptions(
        min_score=args.min_score,
        min_recall_count=args.min_recall_count,
        min_unique_queries=args.min_unique_queries,
        include_promoted=args.include_promoted,
    )
    now = resolve_now(None)
    explained = [score_entry(entry, signals.get(entry.key), now, options) for entry in chosen]
    if args.json:
        print(
            json.dumps({"selector": args.selector, "candidates": [c.to_json() for c in explained]}, indent=2)
        )
        return 0
    for index, candidate in enumerate(explained):
        if index:
            print()
        print("\n".join(explain_lines(candidate)))
    return 0

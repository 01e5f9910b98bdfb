"""`memtui eval scifact|locomo|run`: measure search quality on benchmarks or your own golden queries."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memtui.errors import MemtuiError
from memtui.settings.config import PROFILES


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add `eval` and its three subcommands."""
    p = subparsers.add_parser("eval", parents=parents, help="measure search quality (SciFact, LoCoMo, golden queries)")
    sub = p.add_subparsers(dest="eval_command", metavar="SUITE", required=True)

    sci = sub.add_parser("scifact", parents=parents, help="BEIR SciFact nDCG@10 and recall@100 in a fresh workspace")
    sci.add_argument("--corpus", required=True, metavar="FILE", help="corpus.jsonl")
    sci.add_argument("--queries", required=True, metavar="FILE", help="queries JSONL (e.g. queries-train.jsonl)")
    sci.add_argument("--qrels", required=True, metavar="FILE", help="qrels TSV (e.g. qrels/train.tsv)")
    sci.add_argument("--limit", type=int, metavar="N", help="score only the first N judged queries")
    sci.add_argument("--keep", type=Path, metavar="DIR",
                     help="index in DIR and keep it, so later runs reuse its embedding cache (hybrid runs)")
    sci.add_argument("--min-score", type=_threshold, default=0.0, metavar="X|configured",
                     help="score threshold (default 0, the benchmark's protocol; 'configured' = what an agent gets)")
    _common(sci)
    sci.set_defaults(func=run_scifact_command)

    loc = sub.add_parser(
        "locomo", parents=parents, help="LoCoMo evidence recall@k, one fresh workspace per conversation"
    )
    loc.add_argument("file", metavar="FILE", help="LoCoMo JSON (a list of samples)")
    loc.add_argument("--k", default="6,10", metavar="K,...", help="cut-offs, comma-separated (default 6,10)")
    loc.add_argument("--conversations", metavar="ID,...", help="only these sample ids, e.g. conv-26,conv-30")
    loc.add_argument(
        "--min-score",
        type=float,
        metavar="X",
        help="score threshold (default: the engine's configured minScore, as an agent gets)",
    )
    loc.add_argument("--keep", type=Path, metavar="DIR",
                     help="index each conversation under DIR/<id> and keep it, so later runs reuse its embedding "
                     "cache and query vectors (hybrid runs)")
    _common(loc)
    loc.set_defaults(func=run_locomo_command)

    gold = sub.add_parser("run", parents=parents, help="score golden queries against the current workspace")
    gold.add_argument(
        "golden",
        metavar="GOLDEN.jsonl",
        help='lines of {"query": ..., "expected": ["path" | "path:a-b", ...]}',
    )
    gold.add_argument("--k", type=int, default=10, metavar="N", help="results per query (default 10)")
    gold.add_argument("--json", action="store_true", help="print the result JSON (usable later as --compare input)")
    gold.add_argument("--compare", metavar="PREVIOUS.json", help="show per-query changes against an earlier --json run")
    gold.add_argument("--profile", choices=PROFILES, help="ranking profile (default: memtui)")
    gold.set_defaults(func=run_golden_command)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", choices=PROFILES, default="memtui", help="ranking profile (default: memtui)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def _threshold(text: str) -> float | None:
    """`--min-score`: a number, or `configured` for the engine's configured minScore (None)."""
    if text == "configured":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'configured', got {text!r}") from None


def _progress(label: str, done: int, total: int) -> None:
    if sys.stderr.isatty():
        end = "\n" if done == total else ""
        print(f"\r{label}: {done}/{total} queries", end=end, file=sys.stderr, flush=True)


def format_table(rows: Sequence[Sequence[Any]], header: Sequence[str], left: int = 1) -> str:
    """A small aligned text table: the first `left` columns left-aligned, the others right-aligned."""
    cells = [[str(c) for c in header]] + [[_cell(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for r in cells:
        parts = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _print_json(report: dict[str, Any]) -> None:
    print(json.dumps(report, indent=2, ensure_ascii=False))


def _provider(args: argparse.Namespace) -> str:
    return args.provider or "none"


def run_scifact_command(args: argparse.Namespace) -> int:
    """`memtui eval scifact`."""
    from memtui.evaluation.scifact import run_scifact

    report = run_scifact(
        args.corpus,
        args.queries,
        args.qrels,
        profile=args.profile,
        provider=_provider(args),
        limit=args.limit,
        progress=lambda d, t: _progress("scifact", d, t),
        keep=args.keep,
        min_score=args.min_score,
    )
    if args.json:
        _print_json(report)
        return 0
    print(
        format_table(
            [
                ["ndcg@10", report["ndcg@10"]],
                ["recall@100", report["recall@100"]],
                ["mrr@10", report["mrr@10"]],
            ["ndcg@10, ties averaged", report["tieAveraged"]["ndcg@10"]],
                ["queries", report["queries"]],
                ["zero-hit queries", report["zeroHit"]],
                ["documents", report["documents"]],
                ["index time (s)", f"{report['indexMs'] / 1000:.1f}"],
                ["search time (s)", f"{report['searchMs'] / 1000:.1f}"],
            ],
            ["SciFact", "value"],
        )
    )
    print(
        f"profile {report['profile']}, provider {report['provider']}, "
        f"minScore {'configured' if report['minScore'] is None else format(report['minScore'], 'g')}, "
        f"temporal decay {'on' if report['temporalDecay'] else 'off'}"
    )
    return 0


def _parse_ks(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise MemtuiError(f"--k {text!r}: expected comma-separated integers, e.g. 6,10") from None
    if not ks or min(ks) < 1:
        raise MemtuiError(f"--k {text!r}: expected positive integers, e.g. 6,10")
    return ks


def run_locomo_command(args: argparse.Namespace) -> int:
    """`memtui eval locomo`."""
    from memtui.evaluation.locomo import run_locomo

    ks = _parse_ks(args.k)
    conversations = [c.strip() for c in args.conversations.split(",") if c.strip()] if args.conversations else None
    report = run_locomo(
        args.file,
        ks=ks,
        profile=args.profile,
        provider=_provider(args),
        conversations=conversations,
        min_score=args.min_score,
        progress=lambda conv, d, t: _progress(f"locomo {conv}", d, t),
        keep=args.keep,
    )
    if args.json:
        _print_json(report)
        return 0
    ks = sorted(set(ks))
    rows = [["all", report["questions"], *(report[f"recall@{k}"] for k in ks)]]
    rows += [
        [name, entry["questions"], *(entry[f"recall@{k}"] for k in ks)] for name, entry in report["byCategory"].items()
    ]
    print(format_table(rows, ["category", "questions", *(f"recall@{k}" for k in ks)]))
    budget = ", ".join(f"{float(v):.0f} @{k}" for k, v in report["charsPerQueryAtK"].items())
    print(f"snippet chars per query: {budget}")
    threshold = "configured" if report["minScore"] is None else report["minScore"]
    print(
        f"conversations {', '.join(report['conversations'])}; profile {report['profile']}, provider "
        f"{report['provider']}, minScore {threshold}, temporal decay {'on' if report['temporalDecay'] else 'off'}; "
        f"{report['skippedQuestions']} questions without a valid evidence id skipped; "
        f"{report['elapsedMs'] / 1000:.1f} s"
    )
    return 0


def run_golden_command(args: argparse.Namespace) -> int:
    """`memtui eval run`."""
    from memtui.commands.args import agent_from_args
    from memtui.evaluation.golden import compare_runs, load_previous, run_golden

    previous = load_previous(args.compare) if args.compare else None
    report = run_golden(agent_from_args(args), args.golden, args.k)
    if previous is not None:
        report["compare"] = compare_runs(report, previous)
    if args.json:
        _print_json(report)
        return 0
    k = report["k"]
    print(
        format_table(
            [[r["query"], r["firstRank"], r[f"recall@{k}"], r["rr"], r[f"ndcg@{k}"]] for r in report["results"]],
            ["query", "first", f"recall@{k}", "rr", f"ndcg@{k}"],
        )
    )
    print()
    print(
        format_table(
            [
                [
                    f"mean of {report['queries']} queries",
                    report[f"recall@{k}"],
                    report["mrr"],
                    report[f"ndcg@{k}"],
                ]
            ],
            ["", f"recall@{k}", "mrr", f"ndcg@{k}"],
        )
    )
    if previous is not None:
        cmp = report["compare"]
        print()
        print(
            format_table(
                [
                    [r["query"], r["status"], r["previousRank"], r["currentRank"], _signed(r["rankChange"])]
                    for r in cmp["rows"]
                ],
                ["query", "change", "before", "now", "ranks"],
                left=2,
            )
        )
        print(", ".join(f"{cmp[s]} {s}" for s in ("better", "worse", "unchanged", "new", "removed")))
    return 0


def _signed(value: int | None) -> str | None:
    return None if value is None else f"{value:+d}"

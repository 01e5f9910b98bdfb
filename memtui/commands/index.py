"""`memtui index [--force]`: sync the index (a full, atomic rebuild with --force)."""

from __future__ import annotations

import argparse

from memtui.backend import open_manager
from memtui.commands.args import agent_from_args
from memtui.commands.output import ProgressLine, print_json
from memtui.manager import MemoryManager


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `index` subcommand."""
    parser = subparsers.add_parser("index", parents=parents, help="index memory files (incremental)")
    parser.add_argument("--force", action="store_true", help="rebuild the whole index (atomic swap)")
    parser.add_argument("--json", action="store_true", help="print the sync report as JSON")
    parser.add_argument("--verbose", action="store_true", help="list files with problems")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run a sync and report it."""
    env = agent_from_args(args)
    if env.backend == "qmd":
        manager = open_manager(env)
        try:
            result = manager.sync(force=args.force, reason="cli")
        finally:
            manager.close()
        if args.json:
            print_json(result)
        elif result.get("backend") == "qmd":
            print(f"QMD collections updated{' and embedded' if result.get('embedded') else ''}.")
        else:
            print(f"QMD unavailable ({result.get('fallbackReason')}); indexed the builtin fallback instead.")
        if not args.json:
            print(f"Memory index updated ({env.agent_id}).")
        return 0
    with MemoryManager(env) as manager:
        bar = ProgressLine(f"Indexing memory ({env.agent_id})")
        report = manager.sync(force=args.force, reason="cli", progress=bar)
        bar.finish()
        if args.json:
            print_json(report.to_json())
            return 0
        kind = "full rebuild" if report.full else "incremental"
        print(f"Indexed {report.files_changed} of {report.files_total} files ({kind}): {report.chunks_written} "
              f"chunks written, {report.files_deleted} removed, {report.elapsed_ms / 1000:.1f}s.")
        if report.full_reason and report.full:
            print(f"Full rebuild because: {report.full_reason}")
        if report.repaired:
            print(f"Repaired: {report.repaired}.")
        if manager.fallback:
            print(f"Fallback: {manager.fallback['from']} failed ({manager.fallback['reason']}); "
                  f"now using {manager.provider.id if manager.provider else 'FTS-only'}.")
        if report.vector_gaps:
            print(f"Embedding failed ({report.embed_error}): {sum(report.vector_gaps.values())} chunk(s) written "
                  "without a vector, searched by keywords until the next sync embeds them (see `memtui status`).")
        if report.issues:
            print(f"{len(report.issues)} file issue(s); see `memtui status`.")
            if args.verbose:
                for issue in report.issues:
                    print(f"  {issue.path}: {issue.reason}")
        if manager.provider is not None and not manager.store.capabilities.vector_available:
            print(f"Memory index WARNING ({env.agent_id}): chunks_vec not updated — sqlite-vec unavailable "
                  f"({manager.store.capabilities.vector_error}); vector search uses in-process cosine.")
        else:
            print(f"Memory index updated ({env.agent_id}).")
    return 0

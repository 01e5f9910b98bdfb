"""`memtui health`: the agent's index (OpenClaw's own, of either generation, or memtui's) read without writing and
compared with the files on disk and with a fresh index; one row per difference, each naming its file."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from memtui.commands.args import agent_from_args
from memtui.commands.output import print_json
from memtui.errors import MemtuiError
from memtui.index.health import AGENT_DB_TABLES, CLASSIC_TABLES, IndexHealth, index_health
from memtui.settings.agent import AgentEnv

INDEXES = ("openclaw", "memtui")


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `health` subcommand."""
    p = subparsers.add_parser("health", parents=parents, help="diff an index against the files on disk and a "
                              "fresh index (changed, new, deleted, cut differently, other model)")
    p.add_argument("--index", choices=INDEXES, help="which index: OpenClaw's own (the default when it has one) "
                   "or memtui's")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def agent_index_health(env: AgentEnv, which: str | None = None) -> IndexHealth:
    """The health of `which` index of the agent (OpenClaw's when None and it has one, else memtui's)."""
    generation = env.generation
    settings = env.settings
    has_openclaw = generation.name in ("2026.9", "2026.4") and generation.path.is_file()
    which = which or ("openclaw" if has_openclaw else "memtui")
    search_model = settings.model or None if settings.provider not in ("auto", "none") else None
    if which == "openclaw":
        if not has_openclaw:
            raise MemtuiError(f"OpenClaw has no index for agent {env.agent_id} yet ({generation.path}); "
                              "memtui health --index memtui checks memtui's")
        agent_db = generation.name == "2026.9"
        return index_health(generation.path, generation.label, env.workspace_dir,
                            tables=AGENT_DB_TABLES if agent_db else CLASSIC_TABLES, layout_2026_9=agent_db,
                            extra_paths=settings.extra_paths, chunk_tokens=settings.chunking.tokens,
                            chunk_overlap=settings.chunking.overlap, search_model=search_model)
    if not env.store_path.is_file():
        raise MemtuiError(f"memtui has not indexed agent {env.agent_id} yet ({env.store_path}); run memtui index")
    return index_health(env.store_path, "memtui's index", env.workspace_dir, tables=CLASSIC_TABLES,
                        layout_2026_9=False, extra_paths=settings.extra_paths,
                        chunk_tokens=settings.chunking.tokens, chunk_overlap=settings.chunking.overlap,
                        search_model=search_model)


def run(args: argparse.Namespace) -> int:
    """Print the health report."""
    health = agent_index_health(agent_from_args(args), args.index)
    if args.json:
        print_json(health.to_json())
        return 0
    written = "never" if health.last_written_ms is None else \
        datetime.fromtimestamp(health.last_written_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{health.label} ({health.path})")
    print(f"{health.files} files, {health.chunks} chunks · model {health.model or 'none'} · last written {written}"
          f" · {health.files_on_disk} memory files on disk")
    if health.healthy:
        print("Healthy: every file on disk is indexed as it is now, cut as a fresh index would cut it.")
        return 0
    counts = ", ".join(f"{count} {kind}" for kind, count in health.counts().items() if count)
    print(f"Differences: {counts}")
    width = max(len(row.path) for row in health.rows)
    for row in health.rows:
        print(f"  {row.kind:<10} {row.path:<{width}}  {row.detail}")
    return 0

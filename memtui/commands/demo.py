"""`memtui demo`: install the bundled demo workspace into a fresh directory and open the app on it."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

from memtui.commands.args import agent_from_args
from memtui.commands.output import ProgressLine, fixed3
from memtui.demo import DemoPaths, install_demo
from memtui.embeddings.convert import MODEL_PACKAGE
from memtui.embeddings.model_store import install_model, installed_model_path
from memtui.errors import ProviderError
from memtui.manager import MemoryManager

FIRST_QUERY = "why did the gateway return 502s"
# What an agent asked over the last days: `memtui demo` records them so the dreams view has recalls to rank.
RECALL_QUERIES = ("pgbouncer pool size", "gateway 502 keep-alive", "redis eviction policy", "OPS-1142",
                  "ledger cutover plan", "pgbouncer reserve pool", "keep-alive timeout nginx")
EXAMPLE_QUERIES = (
    "OPS-1142",
    "HTTP 502 ECONNRESET keep-alive",
    "redis OOM maxmemory",
    "pnpm or npm",
)


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `demo` subcommand."""
    parser = subparsers.add_parser("demo", parents=parents,
                                   help="open the app on a bundled demo workspace (copied to a fresh directory)")
    parser.add_argument("--dir", metavar="DIR", help="install the demo here (new or empty; default: a temp dir)")
    parser.add_argument("--screenshot", dest="demo_screenshot", metavar="FILE.svg",
                        help="render the app's first screen to an SVG and exit")
    parser.add_argument("--query", default=FIRST_QUERY,
                        help=f"the search the app opens with (default: {FIRST_QUERY!r}; '' for none)")
    parser.add_argument("--no-model", action="store_true",
                        help="keyword search only: do not convert memtui's local embedding model into the demo")
    parser.add_argument("--no-tui", action="store_true",
                        help="only install and index the demo, then print example searches")
    parser.set_defaults(func=run)


def demo_args(args: argparse.Namespace, paths: DemoPaths) -> argparse.Namespace:
    """The app's options for the installed demo (the user's --provider and --profile are kept)."""
    options = vars(args).copy()
    options.update(
        state_dir=str(paths.state_dir),
        workspace=str(paths.workspace_dir),
        agent=paths.agent_id,
        config=str(paths.config_path),
        provider=args.provider or _offline_provider(paths, args.no_model),
        store=str(paths.store_path),
        read_only=False,
        screenshot=args.demo_screenshot or getattr(args, "screenshot", None),
        query=args.query,
        provider_note=None if args.provider else _provider_note(args, paths),
    )
    return argparse.Namespace(**options)


def _offline_provider(paths: DemoPaths, no_model: bool) -> str:
    """The demo never calls a remote API on its own: memtui's local model (per-user cache) when usable and not
    refused with --no-model, else FTS-only."""
    usable = installed_model_path(paths.state_dir) is not None and importlib.util.find_spec("llama_cpp") is not None
    return "local" if usable and not no_model else "none"


def _provider_note(args: argparse.Namespace, paths: DemoPaths) -> str | None:
    """Why the demo searches by keyword only (None when it has the local model)."""
    if _offline_provider(paths, args.no_model) == "local":
        return None
    if args.no_model:
        return "started with --no-model"
    return "no local model installed"


def _convert_model(paths: DemoPaths) -> Path | None:
    """Convert memtui's packaged model into the demo (about a second, offline) when every piece is installed."""
    needed = ("llama_cpp", "gguf", "safetensors", MODEL_PACKAGE)
    if any(importlib.util.find_spec(name) is None for name in needed):
        return None
    try:
        return install_model()
    except ProviderError as exc:
        print(f"  model:     not converted ({exc}); keyword search only", file=sys.stderr)
        return None


def _telling_line(snippet: str, query: str) -> str:
    """The snippet's first line that mentions a query word (else its first line), shortened."""
    lines = [line.strip() for line in snippet.splitlines() if line.strip()]
    words = [w.lower() for w in query.split() if len(w) > 2]
    chosen = next((line for line in lines if any(w in line.lower() for w in words)), lines[0] if lines else "")
    return chosen if len(chosen) <= 80 else chosen[:79] + "…"


def _index_and_show(args: argparse.Namespace) -> int:
    env = agent_from_args(args)
    with MemoryManager(env) as manager:
        bar = ProgressLine("Indexing the demo")
        report = manager.sync(reason="cli", progress=bar)
        bar.finish()
        mode = manager.provider.id if manager.provider else "FTS-only (no embedding provider)"
        print(f"Indexed {report.files_total} files into {report.chunks_written} chunks · search: {mode}")
        for query in EXAMPLE_QUERIES:
            response = manager.search(query, max_results=3)
            print(f"\n$ memtui --state-dir {env.state_dir} search {query!r}")
            if not response.results:
                print("  No matches.")
            for hit in response.results:
                print(f"  {fixed3(hit.score)} {hit.path}:{hit.start_line}-{hit.end_line}  "
                      f"{_telling_line(hit.snippet, query)}")
    print(f"\nExplore it: memtui --state-dir {env.state_dir} sessions · status · search QUERY")
    return 0


def seed_recalls(options: argparse.Namespace) -> None:
    """Index the demo and record a few days of agent searches in its short-term recall store (what the agent's
    `memory_search` would have left), so the dreams view has candidates to rank."""
    from datetime import UTC, datetime, timedelta

    from memtui.dreaming.recalls import record_search_hits

    env = agent_from_args(options)
    with MemoryManager(env) as manager:
        bar = ProgressLine("Indexing the demo")
        manager.sync(reason="cli", progress=bar)
        bar.finish()
        tz = env.dreaming.tz()
        now = datetime.now(UTC)
        for offset, query in enumerate(RECALL_QUERIES * 2):
            response = manager.search(query)
            hits = [(h.path, h.start_line, h.end_line, h.score, h.snippet, h.source) for h in response.results]
            record_search_hits(env.workspace_dir, query, hits, now=now - timedelta(days=offset % 5, hours=offset),
                               tz=tz)


def run(args: argparse.Namespace) -> int:
    """Install the demo, then open the app on it (or index it and print example searches)."""
    target = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="memtui-demo-"))
    paths = install_demo(target)
    print(f"Demo installed in {paths.root}")
    print(f"  workspace: {paths.workspace_dir}")
    print(f"  config:    {paths.config_path}")
    print(f"  sessions:  {paths.sessions_dir}")
    if not args.no_model:
        if (installed := installed_model_path(paths.state_dir)) is not None:
            print(f"  model:     {installed} (your installed memtui model)")
        elif (converted := _convert_model(paths)) is not None:
            print(f"  model:     {converted} (converted from the installed all-MiniLM-L6-v2 package)")
    options = demo_args(args, paths)
    if args.no_tui:
        return _index_and_show(options)
    try:
        from memtui.commands.tui import run_app
    except ImportError as exc:
        print(f"memtui: the app cannot start ({exc}); indexing the demo instead.", file=sys.stderr)
        return _index_and_show(options)
    seed_recalls(options)
    return run_app(options)

"""`memtui mcp`: serve `memory_search` and `memory_get` to any MCP client over stdio."""

from __future__ import annotations

import argparse

from memtui.backend import open_manager
from memtui.commands.args import agent_from_args
from memtui.index.watcher import MemoryWatcher

SHUTDOWN_WAIT_S = 5.0


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `mcp` subcommand."""
    parser = subparsers.add_parser("mcp", parents=parents,
                                   help="serve memory_search / memory_get over stdio (Model Context Protocol)")
    parser.add_argument("--session-key", metavar="KEY",
                        help="session key of the calls (citations in auto mode; the QMD scope), e.g. agent:main:main")
    parser.add_argument("--no-watch", action="store_true", help="do not watch memory files for changes")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Sync in the background, watch the files, and serve until the client disconnects."""
    import anyio  # the MCP SDK costs ~1 s to import: only `memtui mcp` pays it

    from memtui.mcp_server import serve_stdio

    env = agent_from_args(args)
    with open_manager(env) as manager:
        manager.request_sync("mcp-start")
        watcher = None if args.no_watch or env.read_only else MemoryWatcher(manager)
        if watcher is not None:
            watcher.start()
        try:
            anyio.run(serve_stdio, manager, args.session_key)
        finally:
            if watcher is not None:
                watcher.stop()
            # The client is gone: give a running sync a moment, but do not outlive the client for long
            # (an interrupted sync is safe: the next one picks up where it stopped).
            manager.wait_idle(timeout=SHUTDOWN_WAIT_S)
    return 0

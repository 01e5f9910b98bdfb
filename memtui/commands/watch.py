"""`memtui watch`: keep the index fresh in the foreground, one line per sync, until Ctrl-C."""

from __future__ import annotations

import argparse
import threading
import time

from memtui.backend import open_manager
from memtui.commands.args import agent_from_args
from memtui.index.events import IndexEvent
from memtui.index.watcher import MemoryWatcher


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `watch` subcommand."""
    parser = subparsers.add_parser("watch", parents=parents, help="watch memory files and re-index on change")
    parser.add_argument("--debounce-ms", type=int, metavar="MS", help="override sync.watchDebounceMs (1500)")
    parser.set_defaults(func=run)


def format_event(event: IndexEvent) -> str | None:
    """One line for a finished or failed sync; None for other events."""
    stamp = time.strftime("%H:%M:%S", time.localtime(event.at))
    if event.kind == "finished" and event.report is not None:
        report = event.report
        return (f"{stamp} sync ({event.reason}): {report.files_changed} changed, {report.files_deleted} removed, "
                f"{report.chunks_written} chunks, {report.elapsed_ms:.0f} ms"
                + (" (full rebuild)" if report.full else ""))
    if event.kind == "finished":
        return f"{stamp} sync ({event.reason}): done"
    if event.kind == "failed":
        return f"{stamp} sync ({event.reason}) FAILED: {event.error}"
    return None


def run(args: argparse.Namespace) -> int:
    """Watch until interrupted; the database is closed on exit."""
    env = agent_from_args(args)
    stop = threading.Event()
    manager = open_manager(env)
    try:

        def show(event: IndexEvent) -> None:
            line = format_event(event)
            if line:
                print(line, flush=True)

        manager.subscribe(show)
        watcher = MemoryWatcher(manager, debounce_ms=args.debounce_ms)
        print(f"Watching {env.workspace_dir} (agent {env.agent_id}); Ctrl-C to stop.", flush=True)
        watcher.start()
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            print("Stopping…", flush=True)
        finally:
            watcher.stop()
            manager.wait_idle(timeout=30)
    finally:
        manager.close()
    return 0

"""`memtui` with no subcommand: the terminal app."""

from __future__ import annotations

import argparse
import gc
import os
from pathlib import Path

from memtui.errors import PathError
from memtui.index.watcher import MemoryWatcher
from memtui.manager import MemoryManager
from memtui.settings.paths import resolve_state_dir

SCREENSHOT_SIZE = (120, 36)
# Textual draws at most MAX_FPS frames a second, on a fixed beat: a change made just after a frame (the search's
# results, a key's echo) waited up to two beats, 17-33 ms at Textual's 60. At 120 the results of a keystroke reach
# the screen ~15 ms sooner (median 49 -> 34 ms at 10,000 notes); a frame is drawn only when something changed, so
# an idle app draws no more. TEXTUAL_FPS set by the user wins.
FRAME_RATE = 120


def run_app(args: argparse.Namespace) -> int:
    """Open the app on the resolved agent; with `--screenshot FILE.svg`, render headless, write it, exit."""
    # Start-up builds ~100,000 objects (Textual's modules, the widgets), ~3,500 of them garbage: the collector's
    # passes over them (~90 ms, a full one ~40 ms) held the first frame back. The app enables it after that frame.
    gc.disable()
    try:
        return _run_app(args)
    finally:
        gc.enable()


def _run_app(args: argparse.Namespace) -> int:
    os.environ.setdefault("TEXTUAL_FPS", str(FRAME_RATE))  # read once, when Textual is imported just below
    from memtui.commands.args import agent_from_args
    from memtui.settings.memtui_config import config_folder
    from memtui.tui.app import MemtuiApp
    from memtui.tui.keymap import load_keymap

    state_dir = getattr(args, "state_dir", None)
    if state_dir and not Path(state_dir).expanduser().is_dir():
        raise PathError(f"--state-dir {state_dir} does not exist",
                        "check the path; memtui does not create one, and `memtui demo` sets up a sample to explore")
    if not state_dir and not getattr(args, "workspace", None) and not resolve_state_dir().is_dir():
        raise PathError(f"no OpenClaw state dir at {resolve_state_dir()}",
                        "`memtui demo` opens a sample workspace; `memtui --workspace DIR` a folder of notes; "
                        "`memtui --state-dir DIR` another OpenClaw install")
    env = agent_from_args(args)
    keymap = load_keymap(config_folder(env.state_dir))
    screenshot = getattr(args, "screenshot", None)
    note = getattr(args, "provider_note", None)
    if note is None and (getattr(args, "provider", None) or "").strip() == "none":
        note = "started with --provider none"
    with MemoryManager(env) as manager:
        # The app starts the watcher after its first frame (its first sync walks every note, which would slow
        # that frame down), or, when the workspace folder does not exist yet, once a first note has made it.
        watcher = MemoryWatcher(manager) if not screenshot else None
        app = MemtuiApp(manager, keymap=keymap, initial_query=getattr(args, "query", None) or "",
                        screenshot_path=Path(screenshot) if screenshot else None, provider_note=note,
                        start_watching=watcher.start if watcher is not None else None)
        if screenshot:
            app.run(headless=True, size=SCREENSHOT_SIZE)
            return app.return_code or 0
        try:
            app.run()
        finally:
            if watcher is not None:
                watcher.stop()
            manager.wait_idle(timeout=10)
    return app.return_code or 0

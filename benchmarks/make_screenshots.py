"""Render every memtui screen from the bundled demo, searched with the real local model, to SVG and PNG.

    python benchmarks/make_screenshots.py [--out screenshots] [--only main tuning ...]

The demo is installed into a temporary folder with a frozen "today", memtui's local embedding model
(all-MiniLM-L6-v2, converted from the installed package into the per-user model cache when it is not there yet),
and the demo is indexed with the local provider. The dreams view shows the recall store the demo bundles (what its
agent's own searches left: `benchmarks/make_demo_recalls.py`). Each screen is driven in a fresh app at 120×36
(80×24 and 200×50 for the screens named so); the SVG's font family is rewritten to DejaVu Sans Mono before cairosvg
converts it, so columns line up.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime
from pathlib import Path

import cairosvg

from memtui.demo import install_demo
from memtui.embeddings.model_store import install_model, installed_model_path
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent
from memtui.tui.app import MemtuiApp
from memtui.tui.tuning import KNOBS

ROOT = Path(__file__).resolve().parents[1]
SIZE = (120, 36)
SIZES = {"main-80x24": (80, 24), "main-200x50": (200, 50), "tuning-80x24": (80, 24), "help-80x24": (80, 24)}
TODAY = date(2026, 11, 30)
NOW = datetime(2026, 11, 30, 15, 0, tzinfo=UTC)
QUERY = "why did the gateway return 502s"
TUNING_QUERY = "pgbouncer pool size"
FONT = re.compile(r"font-family:\s*[^;\"]*")


def svg_to_png(svg: str, png_path: Path, width: int = 1600) -> None:
    """Rewrite Textual's font family to DejaVu Sans Mono (so columns line up) and convert with cairosvg."""
    fixed = FONT.sub("font-family: DejaVu Sans Mono", svg)
    cairosvg.svg2png(bytestring=fixed.encode("utf-8"), write_to=str(png_path), output_width=width)


async def settle(app: MemtuiApp, pilot, delay: float = 0.3) -> None:
    """Wait for the debounce, the workers, and a repaint."""
    await pilot.pause(delay)
    await app.workers.wait_for_complete()
    await pilot.pause(0.2)


async def main_screen(app: MemtuiApp, pilot) -> None:
    """The opening query, its first hit highlighted with the trace (what `memtui demo` shows first)."""


async def file_view(app: MemtuiApp, pilot) -> None:
    await pilot.press("j", "enter")
    await pilot.pause(0.3)


async def tuning(app: MemtuiApp, pilot) -> None:
    app.query_input.value = TUNING_QUERY
    await settle(app, pilot)
    app.results.focus()
    await pilot.press("t")
    await settle(app, pilot)
    panel = app.tuning_panel
    panel.highlighted = [knob.field for knob in KNOBS].index("vector_weight")
    await pilot.press("enter", *"0.2", "enter")
    await settle(app, pilot)


async def why_not(app: MemtuiApp, pilot) -> None:
    await pilot.press("W", *"memory/2026-11-09.md:5", "enter")
    await pilot.pause(0.3)


async def sessions(app: MemtuiApp, pilot) -> None:
    await pilot.press("s")
    await pilot.pause(0.4)


async def _sessions_tab(app: MemtuiApp, pilot, tab: str) -> None:
    await sessions(app, pilot)
    app.screen.query_one("#sessions-tabs").active = tab
    await pilot.pause(0.3)


async def bootstrap(app: MemtuiApp, pilot) -> None:
    await _sessions_tab(app, pilot, "tab-bootstrap")
    table = app.screen.query_one("#bootstrap-table")
    table.focus()
    table.move_cursor(row=table.get_row_index("MEMORY.md"))
    await pilot.pause(0.3)


async def startup(app: MemtuiApp, pilot) -> None:
    await _sessions_tab(app, pilot, "tab-startup")


async def editor(app: MemtuiApp, pilot) -> None:
    app.open_file("MEMORY.md", app.manager.env.workspace_dir / "MEMORY.md")
    app.viewer.content_widget.focus()
    await pilot.press("e")
    await pilot.pause(0.3)


async def help_screen(app: MemtuiApp, pilot) -> None:
    await pilot.press("f1")
    await pilot.pause(0.4)


async def dreams(app: MemtuiApp, pilot) -> None:
    await pilot.press("d")
    await pilot.pause(0.4)


async def status(app: MemtuiApp, pilot) -> None:
    await pilot.press("i")
    await pilot.pause(0.3)


async def palette(app: MemtuiApp, pilot) -> None:
    await pilot.press("ctrl+p")
    await pilot.pause(0.3)
    await pilot.press(*"why")
    await pilot.pause(0.5)


async def recalls(app: MemtuiApp, pilot) -> None:
    await pilot.press("escape", "a")
    await pilot.pause(0.5)
    if app.screen.recalls:
        await pilot.press("enter")
        await pilot.pause(0.8)


async def health(app: MemtuiApp, pilot) -> None:
    (app.manager.env.workspace_dir / "memory" / f"{TODAY.isoformat()}.md").write_text(
        f"# {TODAY.isoformat()}\n\n- A note written after the last sync.\n", encoding="utf-8")
    await pilot.press("escape", "H")
    await pilot.pause(0.5)


SCREENS: dict[str, Callable[..., Awaitable[None]]] = {
    "main": main_screen, "main-80x24": main_screen, "main-200x50": main_screen, "file": file_view,
    "tuning": tuning, "tuning-80x24": tuning, "why-not": why_not, "sessions": sessions,
    "bootstrap": bootstrap, "startup": startup, "editor": editor, "help": help_screen, "help-80x24": help_screen,
    "dreams": dreams, "status": status, "palette": palette, "recalls": recalls, "health": health,
}


async def render(name: str, manager: MemoryManager, out: Path) -> None:
    """Drive a fresh app on the indexed demo into one screen and save it."""
    app = MemtuiApp(manager, now=NOW, system_clipboard=False, debounce=0.05, initial_query=QUERY,
                    auto_index=False)
    async with app.run_test(size=SIZES.get(name, SIZE)) as pilot:
        await settle(app, pilot)
        await SCREENS[name](app, pilot)
        app.clear_notifications()
        await pilot.pause(0.1)
        svg = app.export_screenshot(title=f"memtui · {name}")
    (out / f"{name}.svg").write_text(svg, encoding="utf-8")
    svg_to_png(svg, out / f"{name}.png", width=round(1600 * SIZES.get(name, SIZE)[0] / SIZE[0]))
    print(f"wrote {out / name}.svg/.png")


def prepare_demo(scratch: Path) -> MemoryManager:
    """Install the demo and the model, index with the local provider (the demo bundles its agent's recalls)."""
    paths = install_demo(scratch / "demo", today=TODAY)
    if installed_model_path(paths.state_dir) is None:
        install_model()  # into the per-user model cache, where the local provider looks
    # memtui's own index in the scratch folder, not in the user's data dir
    env = resolve_agent(state_dir=str(paths.state_dir), provider="local",
                        env={"MEMTUI_DATA_DIR": str(scratch / "data")})
    manager = MemoryManager(env)
    manager.sync(reason="screenshots")
    manager.wait_idle(timeout=30)
    return manager


def main() -> int:
    """Render every screen (or `--only` some)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "screenshots"))
    parser.add_argument("--only", nargs="*", choices=sorted(SCREENS))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch, prepare_demo(Path(scratch)) as manager:
        print(f"demo indexed with {manager.provider.id if manager.provider else 'no provider'} "
              f"({manager.model}): {manager.store.chunk_count()} chunks")
        for name in args.only or SCREENS:
            asyncio.run(render(name, manager, out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Render every memtui screen to SVG and PNG under screenshots/ (120×36, DejaVu Sans Mono).

    python benchmarks/make_screenshots.py [--state-dir DIR --workspace DIR] [--out screenshots]

Without a workspace it builds the test fixture workspace in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import cairosvg
from textual.widgets import Input

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from hashed_provider import HashedProvider  # noqa: E402

from memtui.agent import resolve_agent  # noqa: E402
from memtui.manager import MemoryManager  # noqa: E402
from memtui.tui.app import MemtuiApp  # noqa: E402

SIZE = (120, 36)
NOW = datetime(2026, 4, 29, 15, 0, tzinfo=UTC)
FONT = re.compile(r"font-family:\s*[^;\"]*")


def svg_to_png(svg: str, png_path: Path, width: int = 1600) -> None:
    """Rewrite Textual's font family to DejaVu Sans Mono (so columns line up) and convert with cairosvg."""
    fixed = FONT.sub("font-family: DejaVu Sans Mono", svg)
    cairosvg.svg2png(bytestring=fixed.encode("utf-8"), write_to=str(png_path), output_width=width)


async def settle(app: MemtuiApp, pilot, delay: float = 0.3) -> None:
    """Wait for the debounce and the workers."""
    await pilot.pause(delay)
    await app.workers.wait_for_complete()
    await pilot.pause(0.1)


async def search(app: MemtuiApp, pilot, query: str) -> None:
    """Type a query and jump to the results."""
    await pilot.press(*query, "enter")
    await settle(app, pilot)


async def main_screen(app, pilot) -> None:
    await search(app, pilot, "redis eviction")


async def file_view(app, pilot) -> None:
    await search(app, pilot, "redis eviction")
    await pilot.press("enter")
    await pilot.pause(0.2)


async def tuning(app, pilot) -> None:
    await search(app, pilot, "postgres analytics service")
    await pilot.press("t")
    app.query_one("#tune-vector", Input).value = "0.2"
    app.query_one("#tune-text", Input).value = "0.8"
    await settle(app, pilot)
    app.results.focus()
    await pilot.pause(0.1)


async def why_not(app, pilot) -> None:
    await search(app, pilot, "redis eviction")
    await pilot.press("W", *"MEMORY.md:5", "enter")
    await pilot.pause(0.2)


async def sessions(app, pilot) -> None:
    app.browser.focus()
    await pilot.press("s")
    await pilot.pause(0.3)


async def bootstrap(app, pilot) -> None:
    await sessions(app, pilot)
    app.screen.query_one("#sessions-tabs").active = "tab-bootstrap"
    await pilot.pause(0.2)


async def editor(app, pilot) -> None:
    app.browser.focus()
    app.open_file("MEMORY.md", app.manager.env.workspace_dir / "MEMORY.md")
    await pilot.press("e")
    await pilot.pause(0.2)


async def help_screen(app, pilot) -> None:
    app.browser.focus()
    await pilot.press("f1")
    await pilot.pause(0.3)


SCREENS: dict[str, Callable[..., Awaitable[None]]] = {
    "main": main_screen, "file": file_view, "tuning": tuning, "why-not": why_not, "sessions": sessions,
    "bootstrap": bootstrap, "editor": editor, "help": help_screen,
}


async def render(name: str, state: Path, workspace: Path, out: Path) -> None:
    """Drive a fresh app into one screen and save it."""
    env = resolve_agent(state_dir=str(state), workspace=str(workspace), env={})
    with MemoryManager(env, provider=HashedProvider()) as manager:
        manager.sync(reason="screenshots")
        app = MemtuiApp(manager, now=NOW, system_clipboard=False, debounce=0.05)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await SCREENS[name](app, pilot)
            svg = app.export_screenshot(title=f"memtui · {name}")
    (out / f"{name}.svg").write_text(svg, encoding="utf-8")
    svg_to_png(svg, out / f"{name}.png")
    print(f"wrote {out / name}.svg/.png")


def main() -> int:
    """Render every screen."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--state-dir")
    parser.add_argument("--workspace")
    parser.add_argument("--out", default=str(ROOT / "screenshots"))
    parser.add_argument("--only", nargs="*", choices=sorted(SCREENS))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        if args.workspace:
            state, workspace = Path(args.state_dir or scratch), Path(args.workspace)
        else:
            from tui.conftest import build_workspace

            state, workspace = build_workspace(Path(scratch))
        for name in args.only or SCREENS:
            asyncio.run(render(name, state, workspace, out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

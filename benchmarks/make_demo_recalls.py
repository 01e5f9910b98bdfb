"""Write the bundled demo's short-term recall store (`memory/.dreams/short-term-recall.json`): what the demo agent's
own `memory_search` calls over its last two weeks would have left, so the Dreams screen and `memtui promote` have
candidates to rank (a developer's searches in memtui never feed it).

The demo is installed with its own dates (no shift), indexed keyword-only, and each agent question below is
searched as the MCP server searches and recorded at its day and hour, in the demo's time zone. The store is
written into memtui/demo/data; `install_demo` moves its dates with every other date of the demo.

    python benchmarks/make_demo_recalls.py
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from memtui.demo import install_demo, newest_daily_date
from memtui.dreaming.recalls import record_search_hits
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent

BUNDLED = Path(__file__).resolve().parents[1] / "memtui" / "demo" / "data" / "state"
STORE = Path("memory") / ".dreams" / "short-term-recall.json"
# (days before the newest daily log, hour, the agent's question): some asked again on other days, as an agent
# comes back to what matters, so a few entries pass the promotion gates and most do not.
QUESTIONS = [
    (13, 9, "pgbouncer pool limits for ledger-api"), (12, 10, "OPS-1142 postmortem owner"),
    (11, 15, "what is the payments API burst limit"), (10, 9, "pgbouncer transaction mode prepared statements"),
    (9, 11, "redis eviction policy for the session cache"), (8, 14, "ledger cutover rollback flag"),
    (7, 9, "pgbouncer max_prepared_statements"), (6, 16, "who owns the ledger cutover"),
    (5, 10, "redis maxmemory eviction"), (4, 9, "LEDGER_READ_V2 flag rollback"),
    (3, 13, "pgbouncer pool size cl_waiting"), (2, 11, "ledger cutover date"), (1, 10, "redis eviction incident"),
    (0, 9, "ledger cutover plan and rollback"),
]


def main() -> None:
    """Write the store into the bundled demo."""
    with tempfile.TemporaryDirectory(prefix="memtui-demo-recalls-") as scratch:
        newest = newest_daily_date(BUNDLED / "workspace" / "memory")
        paths = install_demo(Path(scratch) / "demo", today=newest)
        env = resolve_agent(state_dir=str(paths.state_dir), provider="none", env={"HOME": scratch})
        with MemoryManager(env) as manager:
            manager.sync()
            zone = env.dreaming.tz()
            for days, hour, question in QUESTIONS:
                day = newest - timedelta(days=days)
                moment = datetime(day.year, day.month, day.day, hour, 0, tzinfo=zone)
                response = manager.search(question, max_results=6)
                hits = [(h.path, h.start_line, h.end_line, h.score, h.snippet, h.source) for h in response.results]
                record_search_hits(env.workspace_dir, question, hits, now=moment, tz=zone)
        target = BUNDLED / "workspace" / STORE
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(env.workspace_dir / STORE, target)
        print(f"wrote {target.relative_to(BUNDLED.parents[3])}")


if __name__ == "__main__":
    main()

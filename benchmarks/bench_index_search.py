"""Index time, chunks/s and keyword search p50/p95 on generated workspaces (issue 2), plus the
save-to-searchable latency of the live index and a no-change sync (issue 4).

Run: `python benchmarks/bench_index_search.py [--sizes 2000,20000] [--live]`
"""

from __future__ import annotations

import argparse
import queue
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from notes import generate

from memtui.index.events import IndexEvent
from memtui.index.watcher import MemoryWatcher
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent

QUERIES = ["payment webhook 502", "pgbouncer pool size", "rotate credentials", "Grafana dashboards",
           "deploy on Fridays", "exponential backoff", "certificate has expired", "Alice Redis decision",
           "OOMKilled media-resizer", "Kafka migration review"]


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def bench_size(notes: int, live: bool, profile: str) -> None:
    """Generate, index, search (and optionally measure the live index) for one workspace size."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        workspace = root / "ws"
        started = time.perf_counter()
        needles = generate(workspace, notes)
        gen_s = time.perf_counter() - started
        env = resolve_agent(state_dir=str(root / "state"), workspace=str(workspace), provider="none",
                            profile=profile)
        with MemoryManager(env) as manager:
            started = time.perf_counter()
            report = manager.sync(reason="bench")
            index_s = time.perf_counter() - started
            chunks = manager.store.chunk_count()
            started = time.perf_counter()
            manager.sync(reason="bench-noop")
            noop_s = time.perf_counter() - started
            timings = []
            for _ in range(5):
                for query in QUERIES + [q for q, _ in needles]:
                    t0 = time.perf_counter()
                    manager.search(query)
                    timings.append((time.perf_counter() - t0) * 1000)
            top1 = sum(1 for q, path in needles if (r := manager.search(q).results) and r[0].path == path)
            print(f"{notes:>6} notes  {chunks:>6} chunks  generate {gen_s:5.1f}s  index {index_s:6.2f}s "
                  f"({chunks / index_s:7.0f} chunks/s, {report.files_total / index_s:6.0f} files/s)  "
                  f"no-change sync {noop_s * 1000:7.0f} ms  search p50 {percentile(timings, 0.5):6.2f} ms "
                  f"p95 {percentile(timings, 0.95):6.2f} ms  needles top-1 {top1}/{len(needles)}  [{profile}]")
            if live:
                bench_live(manager, workspace)


def bench_live(manager: MemoryManager, workspace: Path) -> None:
    """Time from saving an edited note to the edit being returned by search (debounce included)."""
    events: queue.Queue[IndexEvent] = queue.Queue()
    manager.subscribe(events.put)
    watcher = MemoryWatcher(manager)
    watcher.start()
    while events.get(timeout=120).kind != "finished":
        pass
    notes = sorted((workspace / "memory").glob("*.md"))
    target = notes[len(notes) // 2]
    latencies = []
    for attempt in range(3):
        word = f"quokka{attempt}edit"
        saved = time.perf_counter()
        target.write_text(target.read_text(encoding="utf-8") + f"- {word} appended\n", encoding="utf-8")
        while True:
            hits = manager.search(word, min_score=0.0).results
            if hits and hits[0].path.endswith(target.name):
                break
            time.sleep(0.02)
        latencies.append(time.perf_counter() - saved)
    watcher.stop()
    manager.wait_idle(60)
    print(f"        save → searchable (debounce {manager.settings.sync.watch_debounce_ms} ms): "
          + ", ".join(f"{s:.2f}s" for s in latencies))


def main() -> None:
    """Parse args and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="2000,20000")
    parser.add_argument("--live", action="store_true", help="also measure the watcher's save→search latency")
    parser.add_argument("--profile", default="memtui", choices=("memtui", "openclaw"))
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        bench_size(size, args.live, args.profile)


if __name__ == "__main__":
    main()

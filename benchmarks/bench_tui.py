"""TUI benchmark: the real `memtui` process in a pseudo-terminal (120x36) on generated daily logs.

    python benchmarks/bench_tui.py [--notes 3000 10000] [--queries 8]

Each workspace holds one daily log per day (one entry, about one chunk per file). For every size it runs the app
twice, with a built index and without one (the app indexes on start), and reports:

- first frame: from spawning the process (Python start-up included) until the screen shows the panes;
- status: until the status bar shows the file count (read in a worker);
- keystroke → results: from the last key of a query (a ticket id such as OPS-1234, keyword search) until the
  results table shows the file holding it;
- longest event-loop stall while indexing, and after a sync (ctrl+r), from the app's stall probe
  (`MEMTUI_LAG_LOG`: a 10 ms timer, how late it ran).

memtui's bytecode is written before the first run, as an install has it (this environment sets
PYTHONDONTWRITEBYTECODE=1). The screen is read with pyte (a VT100 emulator). Wall time, the benchmark process's
CPU time, the children's CPU time, the load average, the CPU time the VM's host took away (steal) and how long a
plain Python loop takes here are printed with the numbers.
"""

from __future__ import annotations

import argparse
import os
import pty
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from datetime import date, timedelta
from fcntl import ioctl
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parents[1]
COLS, ROWS = 120, 36
WORDS = ("postgres", "redis", "kafka", "deploy", "rollback", "incident", "latency", "billing", "invoice", "argo",
         "cluster", "replica", "schema", "migration", "timeout", "alert", "pager", "oncall", "budget", "token",
         "session", "memory", "embedding", "vector", "search", "index", "cache", "eviction", "policy", "tenant",
         "customer", "contract", "renewal", "roadmap", "quarter", "metric", "dashboard")


def build(root: Path, notes: int) -> tuple[Path, Path, dict[str, str]]:
    """(state dir, workspace, ticket id → file) for `notes` daily logs ending today, one entry each."""
    rng = random.Random(7)
    workspace, state = root / "workspace", root / "state"
    (workspace / "memory").mkdir(parents=True)
    state.mkdir()
    (workspace / "MEMORY.md").write_text("# Long-Term Memory\n\n- Prefers Postgres.\n", encoding="utf-8")
    tickets: dict[str, str] = {}
    end = date.today()
    for index in range(notes):
        day = end - timedelta(days=index)
        ticket = f"OPS-{10000 + index}"
        tickets[ticket] = f"memory/{day.isoformat()}.md"
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 30)))
        (workspace / "memory" / f"{day.isoformat()}.md").write_text(
            f"# {day.isoformat()}\n\n## {rng.randint(8, 18):02d}:{rng.randint(0, 59):02d} — {ticket}\n- {words}\n",
            encoding="utf-8")
    return state, workspace, tickets


class Terminal:
    """The app in a pty, its screen kept by pyte; a reader thread drains the pty at once, as a terminal does
    (a slow reader would make the app wait on its own output)."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.changed = threading.Condition()
        self.fed = 0  # how many reads were fed to the screen
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(argv[0], argv, env)
        ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                return
            if not data:
                return
            with self.changed:
                self.stream.feed(data)
                self.fed += 1
                self.changed.notify_all()

    def text(self) -> str:
        """The screen as text."""
        with self.changed:
            return "\n".join(self.screen.display)

    def wait_for(self, needle: str, timeout: float = 60.0) -> float:
        """Seconds (since now) until `needle` is on the screen. The screen is read again only after the app wrote
        to it, as a terminal redraws only then: a polling reader would take a core from the app on 2 cores."""
        start = time.perf_counter()
        with self.changed:
            seen = -1
            while True:
                if self.fed != seen:
                    seen = self.fed
                    if needle in "\n".join(self.screen.display):
                        return time.perf_counter() - start
                left = timeout - (time.perf_counter() - start)
                if left <= 0:
                    raise TimeoutError(f"{needle!r} did not appear in {timeout} s:\n" +
                                       "\n".join(self.screen.display))
                self.changed.wait(left)

    def send(self, keys: str) -> None:
        """Type raw bytes."""
        os.write(self.fd, keys.encode())

    def close(self) -> None:
        """Quit (ctrl+q) and reap the process."""
        self.send("\x11")
        deadline = time.perf_counter() + 10
        while time.perf_counter() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                return
            time.sleep(0.05)
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)


def touch(workspace: Path, tickets: dict[str, str], count: int = 50) -> int:
    """Edit `count` daily logs and add `count` new ones (dated after the newest), as a day of work would; returns
    how many files were added."""
    for rel in list(tickets.values())[:count]:
        with (workspace / rel).open("a", encoding="utf-8") as log:
            log.write("- follow-up: checked again, still fine\n")
    newest = max(date.fromisoformat(rel[7:17]) for rel in tickets.values())
    for offset in range(1, count + 1):
        day = newest + timedelta(days=offset)
        (workspace / "memory" / f"{day.isoformat()}.md").write_text(f"# {day.isoformat()}\n\n- planned work\n",
                                                                     encoding="utf-8")
    return count


def stalls(log: Path, since: float = 0.0) -> tuple[float, float]:
    """(longest stall while indexing, longest of all) in ms, from the probe's lines after `since`."""
    busy: list[float] = []
    idle: list[float] = []
    if log.exists():
        for line in log.read_text().splitlines():
            stamp, worst, indexing = line.split()
            if float(stamp) >= since:
                (busy if indexing == "1" else idle).append(float(worst))
    return max(busy, default=float("nan")), max([*busy, *idle], default=float("nan"))


def cpu_ticks() -> tuple[int, int]:
    """(steal, total) CPU ticks of the machine so far (/proc/stat; zeros elsewhere): on a shared VM, the host
    taking the CPUs away is time the app could not run."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def python_speed() -> float:
    """Seconds a 10,000,000-step Python loop takes here: how fast this machine is, to compare runs across VMs."""
    start = time.process_time()
    total = 0
    for step in range(10_000_000):
        total += step
    return time.process_time() - start


def child_env() -> dict[str, str]:
    """The app's environment: this checkout first on the path, bytecode read and written as an install has it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(ROOT)}


def run(notes: int, built: bool, queries: int) -> dict[str, float]:
    """One app session; returns the measured numbers."""
    with tempfile.TemporaryDirectory(prefix="memtui-bench-tui-") as tmp:
        state, workspace, tickets = build(Path(tmp), notes)
        common = ["--state-dir", str(state), "--workspace", str(workspace), "--provider", "none"]
        python = sys.executable
        if built:
            subprocess.run([python, "-m", "memtui", *common, "index"], check=True, cwd=ROOT,
                           stdout=subprocess.DEVNULL, env=child_env())
        log = Path(tmp) / "lag.log"
        env = {**child_env(), "TERM": "xterm-256color", "MEMTUI_LAG_LOG": str(log),
               "COLUMNS": str(COLS), "LINES": str(ROWS)}
        children_before, ticks_before = os.times(), cpu_ticks()
        term = Terminal([python, "-m", "memtui", *common], env)
        try:
            first_frame = term.wait_for("3 Results")
            status = first_frame + term.wait_for(f"{notes + 1:,} files · ", timeout=600)
            term.wait_for(f"{notes + 1:,} chunks · clean", timeout=600)
            index_stall, _ = stalls(log)
            latencies = []
            chosen = random.Random(3).sample(sorted(tickets), queries)
            term.send("/")
            term.wait_for("Esc leave")
            for ticket in chosen:
                term.send("\x15")  # ctrl+u: clear the box
                time.sleep(0.2)
                term.send(ticket[:-1])
                time.sleep(0.3)
                term.send(ticket[-1])
                start = time.perf_counter()
                term.wait_for(tickets[ticket].removeprefix("memory/") + ":", timeout=30)
                latencies.append(time.perf_counter() - start)
            term.send("\x1b")  # leave the box
            changed = touch(workspace, tickets)
            synced_at = time.perf_counter()
            term.send("\x12")  # ctrl+r: sync
            term.wait_for(f"{notes + 1 + changed:,} files · ", timeout=600)
            time.sleep(1.0)
            _, after_sync = stalls(log, since=synced_at)
        finally:
            term.close()
        children, ticks = os.times(), cpu_ticks()
        child_cpu = (children.children_user - children_before.children_user) + \
            (children.children_system - children_before.children_system)
        return {"first_frame_s": first_frame, "status_s": status, "keystroke_ms_median": 1000 * statistics.median(
            latencies), "keystroke_ms_max": 1000 * max(latencies), "stall_indexing_ms": index_stall,
            "stall_after_sync_ms": after_sync, "app_cpu_s": child_cpu,
            "steal_pct": 100 * (ticks[0] - ticks_before[0]) / max(1, ticks[1] - ticks_before[1])}


def main() -> int:
    """Run every size, with and without a built index, and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, nargs="+", default=[3000, 10000])
    parser.add_argument("--queries", type=int, default=8)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "memtui")], check=True, env=child_env())
    wall, cpu = time.perf_counter(), time.process_time()
    print(f"load average before: {os.getloadavg()[0]:.2f} · {os.cpu_count()} CPUs · a 10^7-step Python loop takes "
          f"{python_speed():.2f} s")
    print(f"{'notes':>6} {'index':>7} {'first frame':>12} {'status':>8} {'key→results':>16} {'stall idx':>10} "
          f"{'stall sync':>11} {'app CPU':>8}")
    for notes in args.notes:
        for built in (True, False):
            r = run(notes, built, args.queries)
            stall = f"{r['stall_indexing_ms']:.0f} ms" if not built else "–"
            print(f"{notes:>6} {'built' if built else 'none':>7} {r['first_frame_s']:>10.2f} s {r['status_s']:>6.2f} s "
                  f"{r['keystroke_ms_median']:>6.0f} / {r['keystroke_ms_max']:>4.0f} ms {stall:>10} "
                  f"{r['stall_after_sync_ms']:>8.0f} ms {r['app_cpu_s']:>6.1f} s  load {os.getloadavg()[0]:.2f} "
                  f"steal {r['steal_pct']:.0f}%")
    print(f"key→results: median / max of {args.queries} queries; benchmark wall {time.perf_counter() - wall:.0f} s, "
          f"its own CPU {time.process_time() - cpu:.1f} s, load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

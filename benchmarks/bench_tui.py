"""TUI benchmark: the real `memtui` process in a pseudo-terminal on generated daily logs, typed into key by key
while other processes keep the cores busy.

    python benchmarks/bench_tui.py [--notes 10000] [--modes keyword hybrid] [--load 2] [--gap 0.15] [--unbuilt]

Each workspace holds one daily log per day (one entry, about one chunk per file). `--load N` (2 by default, 0 for
a quiet machine) starts N busy processes (a Python loop each) before the app starts and stops them at the end, as
other work on a 2-core laptop would. `keyword` runs with `--provider none`; `hybrid` embeds with OpenAI's API
served on 127.0.0.1 by tests/embedding_server.py (hashed trigrams, deterministic, no download). For each mode, with
a built index, it reports:

- first frame: from spawning the process (Python start-up included) until the screen shows the panes;
- echo: from writing a character to the pty until the search box on the screen shows it (median / p95);
- keystroke → results: from the last key of a query until the results table shows the file it names (p50 / p95);
- CPU per keystroke: the app's CPU time (every thread, /proc/PID/task/*/schedstat) from one key to the next,
  median and mean, and how much of it the UI thread took; the idle rate (ms of CPU per second with nothing typed)
  is printed beside it;
- stalls: half-second windows of the app's event-loop probe (`MEMTUI_LAG_LOG`: a 10 ms timer, how late it ran)
  over 100 ms while typing, and the longest; beside it the longest lateness of the same 10 ms asyncio timer in a
  process of its own (what the load alone costs a loop that does nothing else);
- with `--unbuilt`, a second session per mode that indexes on start: the longest stall while indexing.

Every query types a common word (thousands of candidates) and then a ticket id (OPS-12345) one key at a time,
`--gap` seconds apart (0.15 s: a fast typist), so every key runs a search, as it does for a user. memtui's
bytecode is written before the first run, as an install has it. The screen is read with pyte (a VT100 emulator)
only after the app wrote to it, as a terminal redraws only then. The load average is printed with every row.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import pty
import random
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from fcntl import ioctl
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parents[1]
APP_ROOT = [ROOT]  # the checkout whose `memtui` runs (--checkout: another one, e.g. `git archive` of a commit)
WORDS = ("postgres", "redis", "kafka", "deploy", "rollback", "incident", "latency", "billing", "invoice", "argo",
         "cluster", "replica", "schema", "migration", "timeout", "alert", "pager", "oncall", "budget", "token",
         "session", "memory", "embedding", "vector", "search", "index", "cache", "eviction", "policy", "tenant",
         "customer", "contract", "renewal", "roadmap", "quarter", "metric", "dashboard")
STALL_MS = 100.0
INPUT_ROW, INPUT_COL = 1, 2  # where the search box's text starts on the screen (border, padding)
SERVER = ("import sys, time; sys.path.insert(0, sys.argv[1]); from embedding_server import EmbeddingServer; "
          "server = EmbeddingServer().start(); print(server.url, flush=True); time.sleep(86400)")


def build(root: Path, notes: int) -> tuple[Path, dict[str, str]]:
    """(workspace, ticket id → file) for `notes` daily logs ending today, one entry each."""
    rng = random.Random(7)
    workspace = root / "workspace"
    (workspace / "memory").mkdir(parents=True)
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
    return workspace, tickets


def write_config(state: Path, server_url: str | None) -> None:
    """Hybrid's config: OpenAI's provider, pointed at the local server."""
    if server_url is None:
        return
    config = {"agents": {"defaults": {"memorySearch": {"provider": "openai", "model": "text-embedding-3-small",
                                                       "remote": {"baseUrl": f"{server_url}/v1",
                                                                  "apiKey": "sk-bench"}}}}}
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")


class Terminal:
    """The app in a pty, its screen kept by pyte; a reader thread drains the pty at once, as a terminal does
    (a slow reader would make the app wait on its own output)."""

    def __init__(self, argv: list[str], env: dict[str, str], size: tuple[int, int]) -> None:
        cols, rows = size
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.changed = threading.Condition()
        self.fed = 0  # how many reads were fed to the screen
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(APP_ROOT[0])  # `python -m` puts the working folder first on the path
            os.execvpe(argv[0], argv, env)
        ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
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

    def wait_until(self, seen: Callable[[list[str]], bool], what: str, timeout: float = 60.0) -> float:
        """Seconds (since now) until `seen(screen lines)` is true; checked each time the app wrote, never polled
        (a polling reader would take a core from the app on 2 cores)."""
        start = time.perf_counter()
        with self.changed:
            checked = -1
            while True:
                if self.fed != checked:
                    checked = self.fed
                    if seen(self.screen.display):
                        return time.perf_counter() - start
                left = timeout - (time.perf_counter() - start)
                if left <= 0:
                    raise TimeoutError(f"{what} did not appear in {timeout} s:\n" + "\n".join(self.screen.display))
                self.changed.wait(left)

    def wait_for(self, needle: str, timeout: float = 60.0) -> float:
        """Seconds (since now) until `needle` is on the screen."""
        return self.wait_until(lambda lines: needle in "\n".join(lines), repr(needle), timeout)

    def wait_echo(self, typed: str, timeout: float = 30.0) -> float:
        """Seconds until the search box shows exactly `typed` (a trailing space cannot be seen: callers skip it)."""
        end = INPUT_COL + len(typed)

        def shown(lines: list[str]) -> bool:
            row = lines[INPUT_ROW]
            return row[INPUT_COL:end] == typed and row[end] == " "

        return self.wait_until(shown, f"the echo of {typed!r}", timeout)

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


def cpu_ns(pid: int) -> tuple[int, int]:
    """(every thread, the main thread) CPU time of `pid` in ns so far, from the scheduler's own accounting."""
    total = main = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            ran = int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a worker thread that just ended
        total += ran
        if task.name == str(pid):
            main = ran
    return total, main


def spin() -> None:
    """A busy process: competing load."""
    while True:
        pass


async def _probe(seconds: float) -> float:
    worst, last, end = 0.0, time.perf_counter(), time.perf_counter() + seconds
    while last < end:
        await asyncio.sleep(0.01)
        now = time.perf_counter()
        worst, last = max(worst, now - last - 0.01), now
    return worst


def plain_probe(seconds: float, out: multiprocessing.Queue) -> None:
    """The longest lateness (ms) of a 10 ms asyncio timer in a process doing nothing else, over `seconds`."""
    out.put(1000 * asyncio.run(_probe(seconds)))


def lag_windows(log: Path, since: float) -> list[tuple[float, bool]]:
    """(worst lateness ms, indexing) of each half-second window of the app's probe written after `since`."""
    if not log.exists():
        return []
    windows = []
    for line in log.read_text().splitlines():
        stamp, worst, indexing = line.split()
        if float(stamp) >= since:
            windows.append((float(worst), indexing == "1"))
    return windows


def child_env() -> dict[str, str]:
    """The app's environment: the measured checkout first on the path, bytecode read and written as an install
    has it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(APP_ROOT[0])}


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))] if ordered else float("nan")


@dataclass
class Session:
    """What one app session measured."""

    first_frame_s: float = float("nan")
    echo_ms: list[float] = field(default_factory=list)
    results_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    main_cpu_ms: list[float] = field(default_factory=list)
    idle_ms_per_s: float = float("nan")
    windows: list[tuple[float, bool]] = field(default_factory=list)
    plain_probe_ms: float = float("nan")
    mode: str = ""


def queries(tickets: dict[str, str], count: int) -> list[tuple[str, str]]:
    """(query, file it must find) pairs: a common word, then a ticket id."""
    rng = random.Random(3)
    return [(f"{rng.choice(WORDS)} {ticket}", tickets[ticket]) for ticket in rng.sample(sorted(tickets), count)]


def type_queries(term: Terminal, chosen: list[tuple[str, str]], gap: float, session: Session) -> None:
    """Type each query key by key, `gap` seconds apart; measure echo, CPU per key and keystroke → results."""
    for query, rel in chosen:
        term.send("\x15")  # ctrl+u: clear the box
        time.sleep(gap)
        for index, char in enumerate(query):
            before = cpu_ns(term.pid)
            sent = time.perf_counter()
            term.send(char)
            if char != " ":
                session.echo_ms.append(1000 * term.wait_echo(query[: index + 1]))
            if index == len(query) - 1:
                session.results_ms.append(1000 * term.wait_for(rel.removeprefix("memory/") + ":", timeout=30))
            time.sleep(max(0.0, gap - (time.perf_counter() - sent)))
            after = cpu_ns(term.pid)
            session.cpu_ms.append((after[0] - before[0]) / 1e6)
            session.main_cpu_ms.append((after[1] - before[1]) / 1e6)


def prepare(root: Path, workspace: Path, mode: str, server_url: str | None, *, built: bool) -> list[str]:
    """The app's options for one session: its state dir (kept from an earlier run with --keep when it holds a
    built index; a fresh one without an index) and, when `built`, the index built before the app starts."""
    name = f"{mode}-{'built' if built else 'none'}"
    state = root / f"state-{name}"
    common = ["--state-dir", str(state), "--workspace", str(workspace)]
    if server_url is None:
        common += ["--provider", "none"]
    if built and (state / "built").exists():
        write_config(state, server_url)  # the server's port is new each run
        return common
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir()
    write_config(state, server_url)
    if built:
        subprocess.run([sys.executable, "-m", "memtui", *common, "index"], check=True, cwd=APP_ROOT[0],
                       stdout=subprocess.DEVNULL, env=child_env())
        (state / "built").touch()
    return common


def run(common: list[str], notes: int, mode: str, *, built: bool, chosen: list[tuple[str, str]], gap: float,
        size: tuple[int, int]) -> Session:
    """One app session; returns what it measured."""
    python = sys.executable
    state = Path(common[1])
    log = state / "lag.log"
    log.unlink(missing_ok=True)
    env = {**child_env(), "TERM": "xterm-256color", "MEMTUI_LAG_LOG": str(log), "COLUMNS": str(size[0]),
           "LINES": str(size[1])}
    session = Session(mode=mode)
    term = Terminal([python, "-m", "memtui", *common], env, size)
    try:
        session.first_frame_s = term.wait_for("3 Results")
        chunks = f"{notes + 1:,} chunks · "
        term.wait_until(lambda lines: chunks in lines[-2] and "· clean" in lines[-2], "a clean index", 900)
        if not built:
            session.windows = lag_windows(log, since=0.0)
            return session
        term.send("/")
        term.wait_for("Esc leave")
        time.sleep(1.0)
        idle_from, idle_at = cpu_ns(term.pid)[0], time.perf_counter()
        time.sleep(2.0)
        session.idle_ms_per_s = (cpu_ns(term.pid)[0] - idle_from) / 1e6 / (time.perf_counter() - idle_at)
        seconds = (sum(len(q) for q, _ in chosen) + len(chosen)) * gap
        box: multiprocessing.Queue = multiprocessing.Queue()
        probe = multiprocessing.Process(target=plain_probe, args=(seconds, box), daemon=True)
        probe.start()
        typing_from = time.perf_counter()
        type_queries(term, chosen, gap, session)
        session.windows = lag_windows(log, since=typing_from)
        probe.join(timeout=seconds + 30)
        session.plain_probe_ms = box.get(timeout=5) if not box.empty() else float("nan")
    finally:
        term.close()
    return session


def report(session: Session, built: bool, load: int) -> str:
    """One printed row."""
    loadavg = "/".join(f"{v:.1f}" for v in os.getloadavg())
    stalled = [w for w, _ in session.windows if w > STALL_MS]
    worst = max((w for w, _ in session.windows), default=float("nan"))
    if not built:
        return (f"{session.mode:>8} {'none':>6} {session.first_frame_s:>7.2f} s  indexing: {len(stalled)} of "
                f"{len(session.windows)} windows > {STALL_MS:.0f} ms, longest {worst:.0f} ms  load {loadavg}")
    cpu, main = session.cpu_ms, session.main_cpu_ms
    return (f"{session.mode:>8} {'built':>6} {session.first_frame_s:>7.2f} s "
            f"{statistics.median(cpu):>6.1f} /{statistics.fmean(cpu):>6.1f} ms "
            f"({100 * sum(main) / max(1e-9, sum(cpu)):>3.0f}% UI) {session.idle_ms_per_s:>5.1f} ms/s "
            f"{statistics.median(session.echo_ms):>5.0f} /{percentile(session.echo_ms, 0.95):>4.0f} ms "
            f"{statistics.median(session.results_ms):>5.0f} /{percentile(session.results_ms, 0.95):>4.0f} ms "
            f"{len(stalled):>3} of {len(session.windows):>3}, max {worst:>4.0f} ms "
            f"{session.plain_probe_ms:>5.0f} ms  load {loadavg} ({load} busy)")


def main() -> int:
    """Start the load, run every mode (and, with --unbuilt, a session that indexes on start), print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--modes", nargs="+", choices=("keyword", "hybrid"), default=["keyword", "hybrid"])
    parser.add_argument("--load", type=int, default=2, help="busy processes competing for the cores (0: none)")
    parser.add_argument("--queries", type=int, default=8)
    parser.add_argument("--gap", type=float, default=0.15, help="seconds between keys")
    parser.add_argument("--size", default="120x36", help="terminal COLSxROWS")
    parser.add_argument("--unbuilt", action="store_true", help="also start once without an index")
    parser.add_argument("--checkout", metavar="DIR", help="run the memtui package in DIR instead of this one")
    parser.add_argument("--keep", metavar="DIR", help="build the notes and indexes in DIR and reuse them next time")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    if args.checkout:
        APP_ROOT[0] = Path(args.checkout).resolve()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(APP_ROOT[0] / "memtui")], check=True,
                   env=child_env())
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(ROOT / "tests")], stdout=subprocess.PIPE,
                              text=True) if "hybrid" in args.modes else None
    server_url = server.stdout.readline().strip() if server is not None else None
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.load)]
    try:
        with tempfile.TemporaryDirectory(prefix="memtui-bench-tui-") as tmp:
            root = Path(args.keep or tmp)
            workspace, tickets = (root / "workspace", json.loads((root / "tickets.json").read_text())) \
                if (root / "tickets.json").exists() else build(root, args.notes)
            (root / "tickets.json").write_text(json.dumps(tickets))
            notes = len(tickets)
            sessions = [(mode, built, prepare(root, workspace, mode, server_url if mode == "hybrid" else None,
                                              built=built))
                        for mode in args.modes for built in ((True, False) if args.unbuilt else (True,))]
            print(f"{notes:,} notes · {args.size} · {os.cpu_count()} CPUs · {args.load} busy processes · "
                  f"{args.queries} queries typed {args.gap * 1000:.0f} ms a key · load before "
                  f"{'/'.join(f'{v:.1f}' for v in os.getloadavg())}")
            print(f"{'mode':>8} {'index':>6} {'1st frame':>9} {'CPU/key med/mean':>17} {'':>9} {'idle':>8} "
                  f"{'echo p50/p95':>12} {'key→results p50/p95':>20} {'stalls > 100 ms':>17} {'plain':>8}")
            for spinner in spinners:
                spinner.start()
            chosen = queries(tickets, args.queries)
            for mode, built, common in sessions:
                session = run(common, notes, mode, built=built, chosen=chosen, gap=args.gap, size=size)
                print(report(session, built, args.load), flush=True)
    finally:
        for spinner in spinners:
            spinner.terminate()
        if server is not None:
            server.terminate()
    print("CPU/key: the app's CPU (all threads) from one key to the next, median / mean; idle: its CPU per second "
          "with nothing typed; stalls: the app's 0.5 s probe windows; plain: the longest lateness of a bare asyncio "
          "10 ms timer in its own process meanwhile")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

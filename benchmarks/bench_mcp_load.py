"""`memtui mcp` under pipelined load (issue 29, item 5): throughput, latency, threads and RSS of the real server.

Run: `python benchmarks/bench_mcp_load.py [--notes 300] [--requests 10000] [--deadline 120] [--tree DIR]`

`--tree DIR` runs the `memtui` package found under DIR (e.g. a `git worktree` of an older commit) instead of
this checkout, for a before/after on the same machine. Phases, each on the server's raw stdio:

* odd lines: ids 1e308, 1.5, null, true, [], {}, lone surrogates in a tool name and a query, deep-nested valid
  JSON, each followed by a ping; what (if anything) answers each;
* a 10 MB `memory_get` path: time to the answer;
* one `--long-mb` (300) MB line, on a fresh server: the answer, RSS before/peak/after, and a ping after it;
* 10,000 notifications, then a ping: the ping's latency;
* sequential `memory_search`: p50/p99 latency;
* a ping sent right after 200 pipelined searches: its latency, and how many searches were answered before it;
* `--requests` searches written without waiting for answers (a fresh server): answered within `--deadline`,
  requests/s, p50/p99 latency (from the moment each write was attempted), peak threads, RSS before/peak/after,
  and the server's CPU time next to the wall time.

The load average (`os.getloadavg()`) is printed with every phase: on 2 cores anything above 2 means the
numbers shared the CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_index_search import percentile
from notes import generate

REPO = Path(__file__).resolve().parents[1]
PHASES = ("odd", "path", "long", "notifications", "sequential", "amid", "pipelined")
QUERIES = ["payment webhook 502", "Redis session cache", "who prefers Grafana", "deploy on Fridays",
           "certificate has expired", "rotate credentials", "pool size", "billing-api incident"]
PROTOCOL = "2025-06-18"
TICK = os.sysconf("SC_CLK_TCK")


def load() -> str:
    """The load average, for the record."""
    return "load {:.2f}/{:.2f}/{:.2f}".format(*os.getloadavg())


def request(request_id: Any, method: str, params: dict[str, Any] | None = None) -> str:
    """One JSON-RPC request line."""
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    return json.dumps(message if params is None else {**message, "params": params})


def search(request_id: int, query: str) -> str:
    """A `memory_search` tool call line."""
    return request(request_id, "tools/call", {"name": "memory_search", "arguments": {"query": query}})


class Server:
    """`python -m memtui mcp` from a tree, with every answer's arrival time kept by id."""

    def __init__(self, tree: Path, state: Path, workspace: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "memtui", "mcp", "--no-watch", "--state-dir", str(state), "--workspace",
             str(workspace), "--provider", "none"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tree)
        self.arrived: dict[str, tuple[float, dict[str, Any]]] = {}
        self.order: list[str] = []
        self.changed = threading.Condition()
        self.write_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.send(request(0, "initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                                            "clientInfo": {"name": "bench", "version": "1"}}))
        self.wait(["0"], 60)
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            now = time.perf_counter()
            answer = json.loads(line)
            key = json.dumps(answer.get("id"))
            with self.changed:
                self.arrived[key] = (now, answer)
                self.order.append(key)
                self.changed.notify_all()

    def send(self, line: str) -> None:
        """Write one line (blocks while the server does not read: back-pressure)."""
        assert self.process.stdin is not None
        with self.write_lock:
            self.process.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
            self.process.stdin.flush()

    def wait(self, keys: list[str], timeout: float) -> bool:
        """Whether all answers with these id keys arrived within `timeout` seconds."""
        deadline = time.perf_counter() + timeout
        with self.changed:
            while not all(k in self.arrived for k in keys):
                left = deadline - time.perf_counter()
                if left <= 0:
                    return False
                self.changed.wait(left)
        return True

    def first_new(self, before: int, exclude: str, timeout: float) -> str | None:
        """The id key of the first answer after the first `before` ones, other than `exclude` (None: none came)."""
        deadline = time.perf_counter() + timeout
        with self.changed:
            while True:
                keys = [k for k in self.order[before:] if k != exclude]
                left = deadline - time.perf_counter()
                if keys or left <= 0:
                    return keys[0] if keys else None
                self.changed.wait(left)

    def ping(self, request_id: str, timeout: float = 120) -> float | None:
        """Seconds until a ping is answered (None: not within `timeout`)."""
        started = time.perf_counter()
        self.send(request(request_id, "ping"))
        if not self.wait([json.dumps(request_id)], timeout):
            return None
        return self.arrived[json.dumps(request_id)][0] - started

    def status(self) -> tuple[int, int]:
        """(threads, RSS in KB) of the server process now."""
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines())
        return int(fields["Threads"]), int(fields["VmRSS"].split()[0])

    def cpu(self) -> float:
        """User + system CPU seconds the server has used so far."""
        stat = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(stat[11]) + int(stat[12])) / TICK

    def stop(self) -> None:
        """Kill the server (a pipelined phase may leave it busy for minutes)."""
        self.process.kill()
        self.process.wait()


def describe(answer: dict[str, Any] | None) -> str:
    """An answer in a few words."""
    if answer is None:
        return "NO ANSWER"
    if "error" in answer:
        return f"id={json.dumps(answer.get('id'))} {answer['error']['code']} {answer['error']['message'][:90]!r}"
    result = answer.get("result", {})
    text = (result.get("content") or [{}])[0].get("text", "")
    return f"id={json.dumps(answer.get('id'))} result isError={result.get('isError')} {text[:70]!r}"


def odd_lines(server: Server) -> None:
    """Each odd line, then a ping; what answered the line (an error with id null counts, in order)."""
    deep = "[" * 100_000 + "]" * 100_000
    cases = {
        "id 1e308": '{"jsonrpc":"2.0","id":1e308,"method":"ping"}',
        "id 1.5": '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
        "id null": '{"jsonrpc":"2.0","id":null,"method":"ping"}',
        "id true": '{"jsonrpc":"2.0","id":true,"method":"ping"}',
        "id []": '{"jsonrpc":"2.0","id":[],"method":"ping"}',
        "id {}": '{"jsonrpc":"2.0","id":{},"method":"ping"}',
        "lone surrogate in name": '{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":'
                                  '{"name":"memory_\\ud800","arguments":{}}}',
        "lone surrogate in query": '{"jsonrpc":"2.0","id":"s2","method":"tools/call","params":'
                                   '{"name":"memory_search","arguments":{"query":"pay\\ud800"}}}',
        "lone surrogate (raw)": '{"jsonrpc":"2.0","id":"s3","method":"tools/call","params":'
                                '{"name":"memory_search","arguments":{"query":"pay\ud800"}}}',
        "deep valid JSON": '{"jsonrpc":"2.0","id":"d1","method":"tools/call","params":{"name":"memory_search",'
                           f'"arguments":{{"query":"x","deep":{deep}}}}}}}',
    }
    print(f"\n## Odd lines ({load()})")
    for number, (label, line) in enumerate(cases.items()):
        before = len(server.order)
        started = time.perf_counter()
        server.send(line)
        ping = f"after-{number}"
        server.send(request(ping, "ping"))
        answered = server.wait([json.dumps(ping)], 30)
        key = server.first_new(before, exclude=json.dumps(ping), timeout=3)
        answer = server.arrived[key][1] if key else None
        took = f"{server.arrived[key][0] - started:.3f} s" if key else "-"
        print(f"* {label:<26} {describe(answer)} ({took}){'' if answered else '; the ping got no answer'}")


def huge_path(server: Server) -> None:
    """A 10 MB `memory_get` path."""
    started = time.perf_counter()
    server.send(request("big", "tools/call", {"name": "memory_get",
                                              "arguments": {"path": "memory/" + "a" * 10_000_000 + ".md"}}))
    done = server.wait([json.dumps("big")], 120)
    took = time.perf_counter() - started
    answer = server.arrived[json.dumps("big")][1] if done else None
    print(f"\n## 10 MB path ({load()})\n* answered in {took:.2f} s: {describe(answer)}")


def long_line(server: Server, megabytes: int) -> None:
    """One `memory_search` line of `megabytes` MB (its query), written 1 MB at a time, then a ping; the server's
    RSS sampled throughout."""
    _threads, rss0 = server.status()
    peak = [rss0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                peak[0] = max(peak[0], server.status()[1])
            time.sleep(0.02)

    threading.Thread(target=sample, daemon=True).start()
    started = time.perf_counter()
    head = '{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"memory_search","arguments":' \
           '{"query":"'
    piece = b"a" * (1 << 20)
    assert server.process.stdin is not None
    with server.write_lock:
        server.process.stdin.write(head.encode())
        for _ in range(megabytes):
            server.process.stdin.write(piece)
        server.process.stdin.write(b'"}}}\n')
        server.process.stdin.flush()
    written = time.perf_counter() - started
    answered = server.wait([json.dumps("long")], 300)
    took = time.perf_counter() - started
    latency = server.ping("after-long")
    done.set()
    _threads, rss1 = server.status()
    answer = server.arrived[json.dumps("long")][1] if answered else None
    print(f"\n## One {megabytes} MB line ({load()})")
    print(f"* written in {written:.1f} s, answered after {took:.1f} s: {describe(answer)}")
    print(f"* RSS {rss0 / 1024:.0f} MB before, peak {peak[0] / 1024:.0f} MB, {rss1 / 1024:.0f} MB after; "
          f"a ping after it answered in {latency if latency is None else f'{latency * 1000:.0f} ms'}")


def notifications(server: Server, count: int = 10_000) -> None:
    """`count` notifications, then a ping."""
    started = time.perf_counter()
    cpu = server.cpu()
    line = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for _ in range(count):
        server.send(line)
    latency = server.ping("after-notifications")
    total = time.perf_counter() - started
    print(f"\n## {count:,} notifications, then a ping ({load()})")
    print(f"* ping answered {latency if latency is None else f'{latency:.2f} s'} after it was sent, "
          f"{total:.2f} s after the first notification; server CPU {server.cpu() - cpu:.2f} s")


def sequential(server: Server, count: int) -> None:
    """`count` searches, one at a time."""
    latencies = []
    cpu, started = server.cpu(), time.perf_counter()
    for n in range(count):
        sent = time.perf_counter()
        server.send(search(100_000 + n, QUERIES[n % len(QUERIES)]))
        server.wait([str(100_000 + n)], 60)
        latencies.append(server.arrived[str(100_000 + n)][0] - sent)
    wall = time.perf_counter() - started
    threads, rss = server.status()
    print(f"\n## {count} sequential searches ({load()})")
    print(f"* {count / wall:.0f} requests/s, p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
          f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms; CPU {server.cpu() - cpu:.2f} s in {wall:.2f} s wall; "
          f"{threads} threads, RSS {rss / 1024:.0f} MB")


def ping_amid_searches(server: Server, count: int = 200) -> None:
    """A ping written right after `count` pipelined searches, then pings one after another while they run."""
    first = 200_000
    started = time.perf_counter()
    for n in range(count):
        server.send(search(first + n, QUERIES[n % len(QUERIES)]))
    latency = server.ping("amid")
    keys = [str(first + n) for n in range(count)]
    busy = []
    while len(busy) < 50 and not all(k in server.arrived for k in keys[-10:]):
        busy.append(server.ping(f"busy-{len(busy)}") or float("inf"))
    server.wait(keys, 300)
    ping_at = server.arrived[json.dumps("amid")][0]
    before = sum(1 for k in keys if k in server.arrived and server.arrived[k][0] < ping_at)
    last = max(server.arrived[k][0] for k in keys if k in server.arrived) - started
    print(f"\n## A ping right after {count} pipelined searches ({load()})")
    print(f"* ping answered in {latency if latency is None else f'{latency * 1000:.0f} ms'}, "
          f"with {before} of the {count} searches answered before it; the last search after {last:.2f} s")
    if busy:
        print(f"* {len(busy)} pings one after another while the searches ran: p50 "
              f"{percentile(busy, 0.5) * 1000:.0f} ms, max {max(busy) * 1000:.0f} ms")


def pipelined(server: Server, count: int, deadline: float) -> None:
    """`count` searches written by one thread without waiting; sampled for threads and RSS."""
    threads0, rss0 = server.status()
    peak = {"threads": threads0, "rss": rss0}
    sent_at: dict[str, float] = {}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            try:
                threads, rss = server.status()
            except (FileNotFoundError, ProcessLookupError):
                return
            peak["threads"], peak["rss"] = max(peak["threads"], threads), max(peak["rss"], rss)
            time.sleep(0.05)

    def write() -> None:
        for n in range(count):
            key = str(1_000_000 + n)
            sent_at[key] = time.perf_counter()
            try:
                server.send(search(1_000_000 + n, QUERIES[n % len(QUERIES)]))
            except (BrokenPipeError, ValueError):
                return

    cpu, started = server.cpu(), time.perf_counter()
    threading.Thread(target=sample, daemon=True).start()
    threading.Thread(target=write, daemon=True).start()
    keys = [str(1_000_000 + n) for n in range(count)]
    server.wait(keys, deadline)
    wall = time.perf_counter() - started
    done.set()
    cpu = server.cpu() - cpu
    threads1, rss1 = server.status()
    answered = [k for k in keys if k in server.arrived]
    latencies = [server.arrived[k][0] - sent_at[k] for k in answered]
    last = max((server.arrived[k][0] for k in answered), default=started) - started
    errors = sum(1 for k in answered if "error" in server.arrived[k][1])
    print(f"\n## {count:,} pipelined searches, deadline {deadline:.0f} s ({load()})")
    print(f"* answered {len(answered):,} of {count:,} ({errors} errors) in {last:.1f} s: "
          f"{len(answered) / max(last, 1e-9):.0f} requests/s")
    if latencies:
        print(f"* latency p50 {percentile(latencies, 0.5):.2f} s, p99 {percentile(latencies, 0.99):.2f} s "
              "(from the moment each write was attempted)")
    print(f"* threads {threads0} before, peak {peak['threads']}, {threads1} after")
    print(f"* RSS {rss0 / 1024:.0f} MB before, peak {peak['rss'] / 1024:.0f} MB, {rss1 / 1024:.0f} MB after")
    print(f"* server CPU {cpu:.1f} s in {wall:.1f} s wall: {len(answered) / max(cpu, 1e-9):.0f} answers per CPU second")


def main() -> None:
    """Build a workspace, index it once, run the phases."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--sequential", type=int, default=300)
    parser.add_argument("--deadline", type=float, default=120.0)
    parser.add_argument("--long-mb", type=int, default=300, help="the size of the long line (MB)")
    parser.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated, of {', '.join(PHASES)}")
    parser.add_argument("--tree", type=Path, default=REPO, help="the directory holding the memtui package to run")
    args = parser.parse_args()
    tree = args.tree.resolve()
    phases = set(args.phases.split(","))
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as scratch:
        workspace, state = Path(scratch) / "workspace", Path(scratch) / "state"
        generate(workspace, args.notes)
        subprocess.run([sys.executable, "-m", "memtui", "index", "--state-dir", str(state), "--workspace",
                        str(workspace), "--provider", "none"], check=True, capture_output=True, cwd=tree,
                       env={**os.environ, "PYTHONPATH": str(tree)})
        print(f"# memtui mcp under load: {tree} ({args.notes} notes, {os.cpu_count()} CPUs, {load()})")
        server = Server(tree, state, workspace)
        try:
            for name, phase in (("odd", odd_lines), ("path", huge_path), ("notifications", notifications),
                                ("sequential", lambda s: sequential(s, args.sequential)),
                                ("amid", ping_amid_searches)):
                if name in phases:
                    phase(server)
        finally:
            server.stop()
        if "long" in phases:
            server = Server(tree, state, workspace)
            try:
                long_line(server, args.long_mb)
            finally:
                server.stop()
        if "pipelined" in phases:
            server = Server(tree, state, workspace)
            try:
                sequential(server, 20)
                pipelined(server, args.requests, args.deadline)
            finally:
                server.stop()


if __name__ == "__main__":
    main()

"""Fault injection (issue 15): attempts and failures per class, for the README's reliability section.

Run: `python benchmarks/bench_faults.py [--rounds N] [--only CLASS] [--json]`

Classes (a failure is what a user would call a bug):
  escapes      reads/writes tried outside the workspace: a symlink swapped in for a note while memory_get
               reads it, saves and appends through symlinked files and parent folders, FIFOs (notes,
               sessions.json, transcripts), a transcript linking outside, 300-char names. Failure: outside
               content returned, indexed or written, a hang, or a traceback.
  kills        `kill -9` of `index --force`, of an incremental `index` and of a saving process, at random
               moments. Failure: the next `search` misses a note, the index shows 0 chunks or no meta,
               a temp file survives the next `index`, or `status` says clean after a killed incremental run.
  concurrency  readers (raw and --read-only searches) opening the index while another process rebuilds it;
               an agent appending to a daily log while memtui appends notes; memtui appending while an
               editor saves the same log. Failure: a reader sees an empty or broken index or no answer,
               a rebuild fails, or an appended line is lost.
  bad inputs   deep JSON in a transcript, a folder 1,100 levels deep, a deep config, nonsense chunking,
               foreign/truncated/random index files, an unwritable state dir (read, never written: memtui's
               index lives in its data folder), malformed MCP lines.
               Failure: a traceback, a multi-line error, or the rest of the memory not indexed.
  links        (issue 29, items 3, 4, 8) hard links to an outside file as a note, MEMORY.md, a note in a
               subfolder and in an extra path, read by `get`, MCP `memory_get` and indexed into search, and
               written by a note, a save and a promotion; symlinks, a symlinked folder, a FIFO, a socket and
               `/dev/zero` read by `get` and MCP `memory_get`; saves and appends while a folder on the way
               flips between a folder, a symlink out and a file; `atomic_write_text` without `root=` through
               a symlinked folder; `extraPaths` naming `/`, the home folder, the state dir or a folder above
               it; an extra folder of 21,000 notes. Failure: a leak (outside content read, indexed or
               written) or an unclear answer (no reason given, a raw OSError, a silent unbounded walk).
  provider     (issue 29, items 6, 7; benchmarks/faults_provider.py) 15 kinds of embedding provider failure
               during an incremental index, and a provider answering after 30 s. Failure: vectors of unchanged
               notes lost, a status that does not name the failure or miscounts the chunks without a vector,
               chunks not embedded once the provider is back, a search slower than 10 s or silent about a stale
               index or a keyword-only answer.
  full disk    (issue 29, item 2; benchmarks/faults_disk.py) the TUI's note, `promote_lines` and the editor's
               save on a 200 KB tmpfs with 0–150 KB free. Failure: a torn file, an error that does not name
               the full disk, a failed promotion that later answers "already promoted".
  zero vectors (issue 29, item 1; benchmarks/faults_vectors.py) a provider answering all-zero vectors for some
               texts, then for every text, then healthy; zero rows already stored. Failure: a search that fails
               or finds nothing, a status that does not tell (which chunks have no vector and why, a provider
               failure, stored rows to re-embed), a chunk sent again every sync, chunks not embedded once
               asked to.

Everything is real: files, SQLite, subprocesses, signals. Prints wall and CPU time and the load average.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from hashlib import sha256
from pathlib import Path

from memtui.atomic import ConflictError, append_text, atomic_write_text
from memtui.errors import MemtuiError
from memtui.index.store import Store
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent
from memtui.tools import memory_get
from memtui.tui.curation import append_note, promote_lines, save_memory_file

sys.path.insert(0, str(Path(__file__).resolve().parent))
from faults_disk import full_disk
from faults_provider import provider as provider_faults
from faults_vectors import zero_vectors

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]), *sys.path])}
DAY = date(2026, 11, 30)
SECRET = "OUTSIDE-SECRET"
NOTES_FOR_KILLS = 3000  # enough that an index run outlasts the Python start-up, so kills land mid-run


@dataclass
class Tally:
    """Attempts and failures of one class, with a note per failure kind."""

    name: str
    attempts: int = 0
    failures: int = 0
    notes: dict[str, int] = field(default_factory=dict)

    def record(self, ok: bool, what: str) -> None:
        self.attempts += 1
        if not ok:
            self.failures += 1
            self.notes[what] = self.notes.get(what, 0) + 1


def cli(state: Path, workspace: Path, *args: str, timeout: float = 120,
        **kwargs: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(state), "--workspace",
                           str(workspace), "--provider", "none"], capture_output=True, text=True, timeout=timeout,
                          env=ENV, **kwargs)  # type: ignore[call-overload]


def index_path(state: Path, workspace: Path) -> Path:
    """The index `cli(state, workspace, …)` uses (a workspace other than the configured one has its own)."""
    return resolve_agent(state_dir=str(state), workspace=str(workspace), provider="none").store_path


def clean_error(done: subprocess.CompletedProcess) -> bool:
    """A failed command that said so in one `memtui: error:` line, without a traceback."""
    lines = done.stderr.strip().splitlines()
    return done.returncode != 0 and len(lines) == 1 and lines[0].startswith("memtui: error:")


def make_workspace(root: Path, notes: int) -> Path:
    workspace = root / "workspace"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("# Memory\n\n- The payment webhook runbook lives in ops/.\n")
    for i in range(notes):
        body = "\n".join(f"- entry {i}.{j}: service s{j} deployed with queue q{i * j % 97}" for j in range(30))
        (workspace / "memory" / f"2026-10-{i % 28 + 1:02d}-n{i}.md").write_text(f"# Note {i}\n\n{body}\n")
    return workspace


# -- escapes ---------------------------------------------------------------------------------------------------


def escapes(root: Path, tally: Tally, rounds: int) -> None:
    workspace = make_workspace(root / "esc", 3)
    outside = root / "esc" / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(SECRET + "\n")
    memory = workspace / "memory"
    # memory_get against a symlink flipping in and out under it
    note, link, regular = memory / "flip.md", memory / ".flip-link", memory / ".flip-regular"
    os.symlink(outside / "secret.md", link)
    regular.write_text("inside\n")
    note.write_text("inside\n")
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            os.link(link, memory / ".l", follow_symlinks=False)
            os.replace(memory / ".l", note)
            os.link(regular, memory / ".r")
            os.replace(memory / ".r", note)

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    for _ in range(rounds * 100):
        tally.record(SECRET not in memory_get(workspace, "memory/flip.md").get("text", ""), "memory_get leaked")
    stop.set()
    flipper.join()
    # writes through symlinked files and folders
    for attempt in range(rounds):
        shape = attempt % 3
        target = memory / "sub" / "secret.md" if shape == 1 else memory / "secret.md"
        if shape == 0:
            os.symlink(outside / "secret.md", memory / "secret.md")
        elif shape == 1:
            os.symlink(outside, memory / "sub")
        else:
            os.rename(memory, workspace / "memory-real")
            os.symlink(outside, memory)
        writes: list[Callable[[], object]] = [
            lambda path=target: atomic_write_text(path, "overwritten\n", root=workspace),
            lambda: append_note(workspace, DAY, "note")]
        for write in writes:
            with contextlib.suppress(MemtuiError):
                write()
            untouched = (outside / "secret.md").read_text() == SECRET + "\n"
            tally.record(untouched and sorted(p.name for p in outside.iterdir()) == ["secret.md"], "write escaped")
        for path in (memory / "secret.md", memory / "sub"):
            if path.is_symlink():
                path.unlink()
        if memory.is_symlink():
            memory.unlink()
            os.rename(workspace / "memory-real", memory)
    # FIFOs and over-long names, through the CLI
    os.mkfifo(memory / "pipe.md")
    state = root / "esc" / "state"
    for path in ["memory/pipe.md", "memory/" + "n" * 300 + ".md"] * max(1, rounds // 4):
        try:
            done = cli(state, workspace, "get", path, timeout=20)
            tally.record(clean_error(done) and str(workspace) not in done.stderr, "get: not a clean error")
        except subprocess.TimeoutExpired:
            tally.record(False, "get hung")
    # the state dir: a FIFO named sessions.json or like a transcript, a transcript that links outside
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "sources": ["memory", "sessions"], "experimental": {"sessionMemory": True}}}}}))
    (outside / "s.jsonl").write_text(json.dumps({"type": "message", "message": {"role": "user", "content": SECRET}}))
    os.mkfifo(sessions / "sessions.json")
    os.mkfifo(sessions / "pipe.jsonl")
    os.symlink(outside / "s.jsonl", sessions / "linked.jsonl")
    for _ in range(max(1, rounds // 2)):
        try:
            done = cli(state, workspace, "index", "--force", timeout=30)
            found = json.loads(cli(state, workspace, "search", SECRET, "--json").stdout)["results"]
            tally.record(done.returncode == 0 and not found, "index of the sessions folder failed or leaked")
        except subprocess.TimeoutExpired:
            tally.record(False, "index hung on a FIFO in the sessions folder")


# -- kills ------------------------------------------------------------------------------------------------------


def _kill_at_random(command: list[str], after: tuple[float, float]) -> bool:
    """Start `command`, SIGKILL it at a random moment; True when it was still running (the kill landed)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    time.sleep(random.uniform(*after))
    landed = process.poll() is None
    process.send_signal(signal.SIGKILL)
    process.wait()
    return landed


def kills(root: Path, tally: Tally, rounds: int) -> None:
    """One attempt per kill that landed mid-run; it counts as survived when every check after it holds."""
    workspace = make_workspace(root / "kill", NOTES_FOR_KILLS)
    state = root / "kill" / "state"
    base = [sys.executable, "-m", "memtui", "index", "--state-dir", str(state), "--workspace", str(workspace),
            "--provider", "none"]
    assert cli(state, workspace, "index").returncode == 0
    expected = _chunks(state, workspace)
    for attempt in range(rounds * 2):
        forced = attempt % 2 == 0
        if not forced:
            for i in random.sample(range(NOTES_FOR_KILLS), 40):
                path = workspace / "memory" / f"2026-10-{i % 28 + 1:02d}-n{i}.md"
                path.write_text(path.read_text() + f"- appended in round {attempt}\n")
        if not _kill_at_random(base + (["--force"] if forced else []), (0.3, 1.2)):
            expected = _chunks(state, workspace)  # the run finished before the kill
            continue
        failed: list[str] = []
        store = Store(index_path(state, workspace))
        # A killed rebuild leaves the index as it was; a killed incremental run keeps what it committed.
        count = store.chunk_count()
        if store.read_meta() is None or (count != expected if forced else count < expected):
            failed.append("index empty or short after the kill")
        store.close()
        status = cli(state, workspace, "status", "--json")
        if status.returncode != 0:
            failed.append(f"status failed after a kill: {status.stderr.strip()[-200:]}")
        elif not forced and json.loads(status.stdout)["dirty"] is not True:
            failed.append("status clean after a killed incremental run")
        done = cli(state, workspace, "index")
        index = index_path(state, workspace)
        if done.returncode != 0 or [p for p in index.parent.iterdir() if p.name.startswith(index.name + ".tmp-")]:
            failed.append("temp files survived the next index")
        expected = _chunks(state, workspace)
        hits = json.loads(cli(state, workspace, "search", "payment webhook runbook", "--json").stdout)["results"]
        if not hits or hits[0]["path"] != "MEMORY.md":
            failed.append("search missed a note after the kill")
        tally.record(not failed, failed[0] if failed else "")
    saver = ("import sys\nfrom pathlib import Path\nfrom memtui.atomic import atomic_write_text\n"
             "root = Path(sys.argv[1])\ntext = 'x' * (4 << 20)\n"
             "while True:\n    atomic_write_text(root / 'memory' / 'big.md', text, root=root)\n")
    big = workspace / "memory" / "big.md"
    for _ in range(rounds):
        if _kill_at_random([sys.executable, "-c", saver, str(workspace)], (0.3, 0.9)):
            tally.record(not big.exists() or big.stat().st_size == 4 << 20, "torn save")
    time.sleep(1.1)
    cli(state, workspace, "index")
    temps = [p.name for p in (workspace / "memory").iterdir() if p.name.endswith(".tmp")]
    if temps:
        tally.record(False, "temp files of killed saves survived the next index")


def _chunks(state: Path, workspace: Path) -> int:
    store = Store(index_path(state, workspace))
    try:
        return store.chunk_count()
    finally:
        store.close()


# -- concurrency ------------------------------------------------------------------------------------------------

OPENER = """
import json, sys, time
from pathlib import Path
from memtui.index.store import Store
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent
path, seconds = Path(sys.argv[1]), float(sys.argv[2])
env = resolve_agent(state_dir=sys.argv[3], workspace=sys.argv[4], provider="none", read_only=True)
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    try:
        store = Store(path)
        seen = [store.chunk_count(), store.read_meta() is not None]
        time.sleep(0.03)
        seen.append(store.chunk_count())
        store.close()
        with MemoryManager(env) as reader:
            seen.append(bool(reader.memory_search("payment webhook runbook")["results"]))
    except Exception as exc:
        seen = [f"{type(exc).__name__}: {exc}"]
    print(json.dumps(seen), flush=True)
"""
AGENT = """
import sys
for i in range(int(sys.argv[2])):
    with open(sys.argv[1], "a", encoding="utf-8") as handle:
        handle.write(f"- agent line {i}\\n")
"""

NOTER = """
import sys
from pathlib import Path
from memtui.tui.curation import append_note, save_memory_file
from datetime import date
for i in range(int(sys.argv[2])):
    append_note(Path(sys.argv[1]), date(2026, 11, 30), f"racing note {i}")
"""


def concurrency(root: Path, tally: Tally, rounds: int) -> None:
    workspace = make_workspace(root / "conc", 60)
    env = resolve_agent(state_dir=str(root / "conc" / "state"), workspace=str(workspace), provider="none")
    with MemoryManager(env) as manager:
        manager.sync()
        chunks = manager.store.chunk_count()
        seconds = 2.0 + rounds * 0.5
        readers = [subprocess.Popen([sys.executable, "-c", OPENER, str(env.store_path), str(seconds + 1),
                                     str(root / "conc" / "state"), str(workspace)],
                                    stdout=subprocess.PIPE, text=True, env=ENV) for _ in range(3)]
        time.sleep(0.8)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                manager.sync(force=True)
                tally.record(manager.store.chunk_count() == chunks, "rebuild left a short index")
            except Exception:
                tally.record(False, "rebuild failed")
    for reader in readers:
        for line in reader.communicate(timeout=60)[0].splitlines():
            tally.record(json.loads(line) == [chunks, True, chunks, True], "a reader saw an empty or broken index")
    log = workspace / "memory" / f"{DAY.isoformat()}.md"
    log.write_text(f"# {DAY.isoformat()}\n")
    lines = 500 * rounds
    agent = subprocess.Popen([sys.executable, "-c", AGENT, str(log), str(lines)], env=ENV)
    notes = 0
    while agent.poll() is None:
        append_note(workspace, DAY, f"note {notes}")
        notes += 1
    agent.wait()
    text = log.read_text().splitlines()
    agent_seen = {line for line in text if line.startswith("- agent line ")}
    notes_seen = {line for line in text if line.startswith("- note ")}
    for i in range(lines):
        tally.record(f"- agent line {i}" in agent_seen, "an agent's line was lost")
    for i in range(notes):
        tally.record(f"- note {i}" in notes_seen, "a note was lost")
    # an editor saving the log (its text plus a line, refused when it changed) while memtui appends notes
    noter = subprocess.Popen([sys.executable, "-c", NOTER, str(workspace), str(lines // 2)], env=ENV)
    rel = log.relative_to(workspace).as_posix()
    while noter.poll() is None:
        data = log.read_bytes()
        with contextlib.suppress(ConflictError):
            save_memory_file(workspace, rel, data.decode() + "- saved\n", expected_digest=sha256(data).hexdigest())
    noter.wait()
    text = log.read_text()
    for i in range(lines // 2):
        tally.record(f"- racing note {i}\n" in text, "a note appended during a save was lost")


# -- bad inputs ---------------------------------------------------------------------------------------------------


def _fresh(root: Path, name: str) -> tuple[Path, Path]:
    folder = root / "bad" / name
    workspace = make_workspace(folder, 3)
    return folder / "state", workspace


def _nest(folder: Path, levels: int) -> Path:
    for _ in range(levels):
        folder = folder / "d"
        os.mkdir(folder)
    return folder


def _damage_index(kind: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        if kind == "random bytes":
            path.write_bytes(os.urandom(1 << 16))
        elif kind == "truncated":
            with open(path, "r+b") as handle:
                handle.truncate(path.stat().st_size // 2)
        else:
            path.unlink()
            conn = sqlite3.connect(path)
            conn.execute("CREATE TABLE chunks (x)")
            conn.commit()
            conn.close()
    return damage


def bad_inputs(root: Path, tally: Tally) -> None:
    def indexed_rest(state: Path, workspace: Path) -> bool:
        hits = json.loads(cli(state, workspace, "search", "payment webhook runbook", "--json").stdout)["results"]
        return bool(hits) and hits[0]["path"] == "MEMORY.md"

    state, workspace = _fresh(root, "transcript")
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "sources": ["memory", "sessions"], "experimental": {"sessionMemory": True}}}}}))
    (sessions / "s1.jsonl").write_text(json.dumps({"type": "session", "id": "s1"}) + "\n" + "[" * 100_000 + "\n")
    for command in (["index"], ["sessions"]):
        done = cli(state, workspace, *command)
        tally.record(done.returncode == 0 and "Traceback" not in done.stderr, f"deep transcript JSON: {command[0]}")
    tally.record(indexed_rest(state, workspace), "deep transcript JSON: rest not indexed")

    state, workspace = _fresh(root, "deep-folder")
    (_nest(workspace / "memory", 1100) / "bottom.md").write_text("- the lanternfish note\n")
    done = cli(state, workspace, "index")
    found = json.loads(cli(state, workspace, "search", "lanternfish", "--json").stdout)["results"]
    tally.record(done.returncode == 0 and bool(found) and indexed_rest(state, workspace), "1,100-level folder")

    for name, config in [("deep config", '{"agents": {"defaults": {"memorySearch": {"x": ' + "[" * 1000 + "]" * 1000
                          + "}}}}"),
                         ("tokens 0", json.dumps({"agents": {"defaults": {"memorySearch": {"chunking": {
                             "tokens": 0}}}}})),
                         ("overlap >= tokens", json.dumps({"agents": {"defaults": {"memorySearch": {"chunking": {
                             "tokens": 50, "overlap": 50}}}}}))]:
        state, workspace = _fresh(root, name.replace(" ", "-").replace(">=", "ge"))
        state.mkdir(parents=True)
        (state / "openclaw.json").write_text(config)
        tally.record(clean_error(cli(state, workspace, "status")), name)

    for kind in ("random bytes", "truncated", "foreign schema"):
        for command in (["status"], ["search", "payment"], ["index", "--force"]):
            state, workspace = _fresh(root, f"{kind}-{command[0]}".replace(" ", "-"))
            cli(state, workspace, "index")
            _damage_index(kind)(index_path(state, workspace))
            done = cli(state, workspace, *command)
            tally.record(done.returncode == 0 and "Traceback" not in done.stderr and indexed_rest(state, workspace),
                         f"{kind} index: {command[0]}")

    state, workspace = _fresh(root, "read-only-state")
    state.mkdir(mode=0o555)
    state.chmod(0o555)
    as_user = {"preexec_fn": _without_root_powers} if os.geteuid() == 0 else {}
    for command in (["status"], ["search", "payment"], ["index"]):
        # memtui's index lives in its own data folder: a read-only state dir (OpenClaw's) is read, never written
        done = cli(state, workspace, *command, **as_user)
        tally.record(done.returncode == 0 and "Traceback" not in done.stderr and not any(state.iterdir()),
                     f"read-only state dir: {command[0]}")
    state.chmod(0o755)

    state, workspace = _fresh(root, "mcp")
    lines = ["{not json", "[" * 100_000, json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]),
             json.dumps({"id": 2, "method": "tools/list"}), json.dumps({"jsonrpc": "2.0", "id": 3, "method": 7})]
    init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    done = subprocess.run([sys.executable, "-m", "memtui", "mcp", "--no-watch", "--state-dir", str(state),
                           "--workspace", str(workspace), "--provider", "none"],
                          input="\n".join([init, *lines]) + "\n", capture_output=True, text=True, timeout=60, env=ENV)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    errors = [a for a in answers if "error" in a and a["error"]["code"] in (-32700, -32600)]
    for _ in lines:
        tally.record(len(errors) >= 1, "MCP line without an answer")
        if errors:
            errors.pop(0)
    tally.record("Traceback" not in done.stderr, "MCP traceback on stderr")


# -- links, special files, write races and extra paths (issue 29) -------------------------------------------------


def _mcp_gets(state: Path, workspace: Path, paths: list[str]) -> list[dict]:
    """`memory_get` of each path through a real `memtui mcp`, in one session."""
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
    calls = [{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
              "params": {"name": "memory_get", "arguments": {"path": p}}} for i, p in enumerate(paths)]
    server = subprocess.Popen([sys.executable, "-m", "memtui", "mcp", "--no-watch", "--state-dir", str(state),
                               "--workspace", str(workspace), "--provider", "none"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)
    assert server.stdin is not None and server.stdout is not None
    answers: dict[object, dict] = {}
    for message in [init, *calls]:  # one at a time: stdin closed early cancels what is still running
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        while message["id"] not in answers and (line := server.stdout.readline()):
            answer = json.loads(line)
            answers[answer.get("id")] = answer
    server.stdin.close()
    server.wait(timeout=60)
    return [json.loads(answers[i + 1]["result"]["content"][0]["text"]) if "result" in answers.get(i + 1, {})
            else {"error": "no answer"} for i in range(len(paths))]


def _record_read(tally: Tally, surface: str, text: str, error: str, reason: str) -> None:
    """A leak when the secret came back; unclear when the refusal does not say `reason`."""
    tally.record(SECRET not in text, f"leak: {surface}")
    tally.record(SECRET in text or reason in error, f"unclear: {surface}")


def links(root: Path, tally: Tally, rounds: int) -> None:
    base = root / "links"
    workspace, state, outside = make_workspace(base, 2), base / "state", base / "outside"
    outside.mkdir()
    secret = outside / "secret.md"
    secret.write_text(f"# {SECRET}\n\n- {SECRET} line\n")
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "extraPaths": ["notes"]}}}}))
    (workspace / "notes").mkdir()
    (workspace / "memory" / "sub").mkdir()
    hard = ["memory/hard.md", "memory/sub/hard.md", "notes/hard.md"]
    for rel in hard:
        os.link(secret, workspace / rel)
    for rel in hard:
        done = cli(state, workspace, "get", rel)
        _record_read(tally, "get of a hard link", done.stdout, done.stderr, "hard link")
    for answer in _mcp_gets(state, workspace, hard):
        _record_read(tally, "MCP memory_get of a hard link", answer.get("text", ""), answer.get("error", ""),
                     "hard link")
    cli(state, workspace, "index", "--force")
    found = json.loads(cli(state, workspace, "search", SECRET, "--json").stdout)["results"]
    issues = json.dumps(json.loads(cli(state, workspace, "status", "--json").stdout).get("issues", []))
    for rel in hard:
        hit = any(r["path"] == rel for r in found)
        tally.record(not hit, "leak: a hard link indexed into search")
        tally.record(hit or (rel in issues and "hard link" in issues), "unclear: a hard link skipped silently")
    for rel in hard:
        os.unlink(workspace / rel)
    # writes into the outside file through a hard-linked daily log, MEMORY.md and note
    before = secret.read_bytes()
    log = workspace / "memory" / f"{DAY.isoformat()}.md"
    memory_md = workspace / "MEMORY.md"
    memory_md.rename(base / "MEMORY.md.kept")
    writes: list[tuple[Path, Callable[[], object]]] = [
        (log, lambda: append_note(workspace, DAY, "note")),
        (workspace / "memory" / "hard.md",
         lambda: save_memory_file(workspace, "memory/hard.md", "replaced\n", expected_digest=False)),
        (memory_md, lambda: promote_lines(workspace, path="memory/2026-10-01-n0.md", start_line=3, end_line=3,
                                          text="- entry 0.0", day=DAY))]
    for target, write in writes:
        os.link(secret, target)
        message = ""
        try:
            write()
        except MemtuiError as exc:
            message = str(exc)
        tally.record(secret.read_bytes() == before, "leak: a write through a hard link")
        tally.record("hard link" in message, "unclear: a write through a hard link")
        os.unlink(target)
    (base / "MEMORY.md.kept").rename(memory_md)
    # symlinks, a symlinked folder, a FIFO, a socket, /dev/zero
    memory = workspace / "memory"
    os.symlink(secret, memory / "link.md")
    os.symlink(outside, memory / "linked")
    os.symlink("/dev/zero", memory / "zero.md")
    os.mkfifo(memory / "pipe.md")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(memory / "sock.md"))
    special = {"memory/link.md": ("a symlink", "is a symlink"), "memory/pipe.md": ("a FIFO", "FIFO"),
               "memory/linked/secret.md": ("a symlinked folder", "is a symlink"),
               "memory/zero.md": ("a symlink to /dev/zero", "is a symlink"), "memory/sock.md": ("a socket", "socket")}
    if os.geteuid() == 0:
        os.mknod(memory / "dev.md", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's device
        special["memory/dev.md"] = ("a character device", "device")
    for rel, (kind, reason) in special.items():
        try:
            done = cli(state, workspace, "get", rel, timeout=20)
            _record_read(tally, f"get of {kind}", done.stdout, done.stderr, reason)
        except subprocess.TimeoutExpired:
            tally.record(False, f"unclear: get of {kind} hung")
    for (kind, reason), answer in zip(special.values(), _mcp_gets(state, workspace, list(special)), strict=True):
        _record_read(tally, f"MCP memory_get of {kind}", answer.get("text", ""), answer.get("error", ""), reason)
    listener.close()
    _write_races(workspace, outside, tally, rounds)
    # the library API without root=: a symlinked folder on the way
    os.symlink(outside, memory / "out")
    message = ""
    try:
        atomic_write_text(memory / "out" / "secret.md", "overwritten\n")
    except MemtuiError as exc:
        message = str(exc)
    tally.record(secret.read_bytes() == before, "leak: atomic_write_text without root= through a symlink")
    tally.record("symlink" in message, "unclear: atomic_write_text without root= through a symlink")
    _extra_paths(base, tally)


def _write_races(workspace: Path, outside: Path, tally: Tally, rounds: int) -> None:
    """Saves (the library's and the editor's) and appends into memory/race/ while it flips between a folder, a
    symlink out and a file."""
    memory, stop = workspace / "memory", threading.Event()

    def flip() -> None:
        shapes = [lambda p: os.symlink(outside, p), lambda p: p.mkdir(), lambda p: p.write_text("x")]
        turn = 0
        while not stop.is_set():
            turn += 1
            staged, old = memory / f".race-{turn}", memory / f".race-old-{turn}"
            shapes[turn % 3](staged)
            with contextlib.suppress(OSError):  # a writer may have made memory/race meanwhile
                os.rename(memory / "race", old)
            with contextlib.suppress(OSError):
                os.rename(staged, memory / "race")
            for leftover in (staged, old):
                if leftover.is_dir() and not leftover.is_symlink():
                    shutil.rmtree(leftover, ignore_errors=True)
                elif os.path.lexists(leftover):
                    os.unlink(leftover)

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    writes: list[Callable[[], object]] = [
        lambda: atomic_write_text(memory / "race" / "a.md", "overwritten\n", root=workspace),
        lambda: save_memory_file(workspace, "memory/race/b.md", "saved\n", expected_digest=False),
        lambda: append_text(memory / "race" / "c.md", lambda _text: "- appended\n", root=workspace)]
    try:
        for attempt in range(rounds * 150):
            try:
                writes[attempt % 3]()
                raw = False
            except MemtuiError:
                raw = False
            except OSError:
                raw = True
            tally.record(sorted(p.name for p in outside.iterdir()) == ["secret.md"], "leak: a racing write")
            tally.record(not raw, "unclear: a racing write raised a raw OSError")
    finally:
        stop.set()
        flipper.join()


def _extra_paths(base: Path, tally: Tally) -> None:
    """`extraPaths` naming the machine, the home folder or the state dir: dropped with a warning at resolution;
    a folder of 21,000 notes: listed up to the bound, with an issue."""
    home = base / "home"
    state = home / ".openclaw"
    workspace = make_workspace(state, 1)
    entries = {"/": "the root", str(home): "the home folder", str(state): "the state dir", "..": "the state dir "
               "(as ..)", str(base): "a folder holding the home folder"}
    for entry, what in entries.items():
        (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
            "extraPaths": [entry]}}}}))
        env = resolve_agent(state_dir=str(state), workspace=str(workspace), provider="none",
                            env={**os.environ, "HOME": str(home), "OPENCLAW_HOME": ""})
        tally.record(entry not in env.settings.extra_paths, f"leak: extraPaths naming {what} kept")
        tally.record(any("extraPaths" in w for w in env.warnings), f"unclear: extraPaths naming {what}, no word")
    from memtui.index.workspace import list_memory_files

    big = base / "big"
    for i in range(21_000):
        if i % 1000 == 0:
            (big / f"d{i // 1000:02d}").mkdir(parents=True)
        (big / f"d{i // 1000:02d}" / f"n{i}.md").write_text("- a note\n")
    issues: list = []
    try:
        listed = list_memory_files(workspace, [str(big)], issues=issues)  # type: ignore[call-arg]
    except TypeError:
        listed = list_memory_files(workspace, [str(big)])
    tally.record(len(listed) < 21_000 and bool(issues), "unclear: a walk of 21,000 notes, unbounded and silent")


def _without_root_powers() -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH: root obeys file modes
        libc.prctl(24, capability, 0, 0, 0)


def _remove_tree(folder: Path) -> None:
    """shutil.rmtree recurses once per level; the 1,100-level folder needs a bottom-up walk."""
    stack = [folder]
    while stack:
        top = stack[-1]
        entries = list(os.scandir(top))
        subfolders = [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)
        if subfolders:
            stack.extend(subfolders)
        else:
            os.rmdir(top)
            stack.pop()


CLASSES: dict[str, Callable[[Path, Tally, int], None]] = {
    "escapes": escapes, "kills": kills, "concurrency": concurrency,
    "bad inputs": lambda root, tally, _rounds: bad_inputs(root, tally), "links": links,
    "provider": lambda root, tally, rounds: provider_faults(root, tally, rounds, ENV),
    "full disk": full_disk,
    "zero vectors": lambda root, tally, rounds: zero_vectors(root, tally, rounds, ENV)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6, help="rounds per class (default 6)")
    parser.add_argument("--json", action="store_true", help="print the tallies as JSON")
    parser.add_argument("--only", choices=list(CLASSES), action="append", help="run only this class (repeatable)")
    args = parser.parse_args()
    random.seed(15)
    chosen = args.only or list(CLASSES)
    tallies = [Tally(name) for name in chosen]
    root = Path(tempfile.mkdtemp(prefix="memtui-faults-"))
    # memtui's own files (the index of a workspace not configured in the state dir) stay in the run's folder
    os.environ["MEMTUI_DATA_DIR"] = ENV["MEMTUI_DATA_DIR"] = str(root / "data")
    wall, cpu = time.perf_counter(), time.process_time()
    children_cpu = os.times()
    try:
        for tally in tallies:
            CLASSES[tally.name](root, tally, args.rounds)
    finally:
        _remove_tree(root) if root.exists() else None
        shutil.rmtree(root, ignore_errors=True)
    times = os.times()
    child_cpu = (times.children_user + times.children_system) - (children_cpu.children_user
                                                                 + children_cpu.children_system)
    load = os.getloadavg()
    if args.json:
        print(json.dumps([t.__dict__ for t in tallies], indent=2))
    else:
        print(f"{'class':<13} {'attempts':>9} {'failures':>9}  failure kinds")
        for t in tallies:
            kinds = ", ".join(f"{k} ×{n}" for k, n in t.notes.items()) or "-"
            print(f"{t.name:<13} {t.attempts:>9,} {t.failures:>9,}  {kinds}")
            leaks = sum(n for k, n in t.notes.items() if k.startswith("leak:"))
            if t.name == "links":
                print(f"{'':<12} leaks {leaks:,} · unclear answers {t.failures - leaks:,}")
    print(f"wall {time.perf_counter() - wall:.1f} s · CPU {time.process_time() - cpu:.1f} s in process + "
          f"{child_cpu:.1f} s in child processes · load {load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f} on "
          f"{os.cpu_count()} cores", file=sys.stderr)
    return 1 if any(t.failures for t in tallies) else 0


if __name__ == "__main__":
    sys.exit(main())

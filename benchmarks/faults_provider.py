"""bench_faults' `provider` class (issue 29, items 6 and 7): an embedding provider that fails or is slow.

Against a real OpenAI-compatible server on 127.0.0.1 (tests/embedding_server.py), for each of 15 failure kinds
(HTTP 400, 401, 403, 404, 413, 422, 429, 500, 502, 503, 504, an HTML page, no data, a wrong vector count, NaN
vectors), held for the whole of an incremental `memtui index` after two notes changed:
  vectors kept   every chunk of an unchanged note keeps its vector (and a chunk whose text was embedded before
                 gets it from the embedding cache);
  status         `status --json` during the outage names the failure (`custom.providerUnavailableReason`), counts
                 the chunks without a vector (`custom.missingVectors.chunks`, as the index holds them) and says
                 `searchMode` fts-only only when no chunk has a vector;
  retried        once the provider is back, the next `memtui index` gives every chunk its vector.
Then a provider answering every request after 30 s: `memtui search --json` with a rebuild owed (the chunking
settings changed) and with a clean index (only the query to embed) must answer within SEARCH_BUDGET_S and say
why it is stale or keyword-only; `status --json` meanwhile must say the index is dirty.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from embedding_server import EmbeddingServer

from memtui.settings.agent import resolve_agent

KEY = "sk-bench-provider-0a1b2c"
NOTES = 12
SLOW_S = 30.0
SEARCH_BUDGET_S = 10.0  # a search's normal time here is ~1 s (a Python start-up and one query)
BLOCKED_S = 100.0  # a search still running after this is counted as blocked and killed

FAULTS: dict[str, Callable[[EmbeddingServer], None]] = {
    **{f"HTTP {code}": (lambda srv, c=code: srv.fail("/v1/embeddings", c, times=100_000))
       for code in (400, 401, 403, 404, 413, 422, 429, 500, 502, 503, 504)},
    "HTML page": lambda srv: srv.respond("/v1/embeddings", b"<html>502 Bad Gateway</html>", times=100_000),
    "no data": lambda srv: srv.respond("/v1/embeddings", {"object": "list"}, times=100_000),
    "wrong count": lambda srv: srv.respond("/v1/embeddings", {"data": []}, times=100_000),
    "NaN vectors": lambda srv: srv.corrupt(float("nan"), times=100_000),
}


class Recorder(Protocol):
    """bench_faults' Tally."""

    def record(self, ok: bool, what: str) -> None: ...


def _cli(env: dict[str, str], state: Path, workspace: Path, *args: str,
         timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(state), "--workspace",
                           str(workspace)], capture_output=True, text=True, timeout=timeout, env=env)


def _setup(base: Path, server: EmbeddingServer) -> tuple[Path, Path]:
    workspace, state = base / "workspace", base / "state"
    (workspace / "memory").mkdir(parents=True)
    state.mkdir()
    (workspace / "MEMORY.md").write_text("# Memory\n\n- The payment webhook runbook lives in ops/.\n")
    for i in range(NOTES):
        body = "\n\n".join(f"## Part {j}\n" + "\n".join(f"- item {i}.{j}.{k}: service s{k} on queue q{i * k % 13}"
                                                          for k in range(12)) for j in range(4))
        (workspace / "memory" / f"2026-10-{i + 1:02d}.md").write_text(f"# Note {i}\n\n{body}\n")
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "provider": "openai", "remote": {"baseUrl": f"{server.url}/v1", "apiKey": KEY}}}}}))
    return workspace, state


def _vectors(state: Path, workspace: Path) -> tuple[int, int]:
    """(chunks, chunks with a stored vector)."""
    path = resolve_agent(state_dir=str(state), workspace=str(workspace)).store_path
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        total, with_vector = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(embedding != '[]'), 0) FROM chunks").fetchone()
        return int(total), int(with_vector)
    finally:
        conn.close()


def _change_two(workspace: Path, tag: str) -> None:
    """One note edited (one part new, the rest as embedded before) and one note added."""
    note = workspace / "memory" / "2026-10-01.md"
    note.write_text(note.read_text() + f"\n## Added {tag}\n- a new line about the {tag} rollout\n")
    (workspace / "memory" / f"2026-11-{tag}.md").write_text(f"# New {tag}\n\n- The {tag} deploy went out.\n")


def json_output(done: subprocess.CompletedProcess) -> dict[str, Any]:
    """A CLI run's stdout as a JSON object ({} when it is not one)."""
    try:
        value = json.loads(done.stdout)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def provider(root: Path, tally: Recorder, rounds: int, env: dict[str, str]) -> None:
    """Failure kinds × (vectors kept, status truthful, retried), then searches under a 30 s provider."""
    server = EmbeddingServer(api_key=KEY).start()
    try:
        for number, (kind, inject) in enumerate(FAULTS.items()):
            workspace, state = _setup(root / "provider" / f"k{number}", server)
            _cli(env, state, workspace, "index")
            _, healthy = _vectors(state, workspace)
            unchanged = healthy - len(_chunk_rows(state, workspace, "memory/2026-10-01.md"))
            _change_two(workspace, f"{number:02d}")
            inject(server)
            _cli(env, state, workspace, "index")
            total, with_vector = _vectors(state, workspace)
            tally.record(with_vector >= unchanged, f"vectors lost: {kind}")
            status = json_output(_cli(env, state, workspace, "status", "--json"))
            custom = status.get("custom", {})
            missing = (custom.get("missingVectors") or {}).get("chunks")
            truthful = (bool(custom.get("providerUnavailableReason")) and missing == total - with_vector
                        and (custom.get("searchMode") == "fts-only") == (with_vector == 0))
            tally.record(truthful, f"status untruthful: {kind}")
            server.heal()
            _cli(env, state, workspace, "index")
            total, with_vector = _vectors(state, workspace)
            tally.record(total == with_vector, f"not retried: {kind}")
        _slow_searches(root / "provider" / "slow", server, tally, rounds, env)
    finally:
        server.heal()
        server.stop()


def _chunk_rows(state: Path, workspace: Path, rel: str) -> list[str]:
    path = resolve_agent(state_dir=str(state), workspace=str(workspace)).store_path
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [row[0] for row in conn.execute("SELECT id FROM chunks WHERE path = ?", (rel,))]
    finally:
        conn.close()


def _timed_search(env: dict[str, str], state: Path, workspace: Path) -> tuple[float, dict[str, Any]]:
    began = time.monotonic()
    try:
        done = _cli(env, state, workspace, "search", "payment webhook runbook", "--json", timeout=BLOCKED_S)
    except subprocess.TimeoutExpired:
        return time.monotonic() - began, {}
    return time.monotonic() - began, json_output(done)


def _slow_searches(base: Path, server: EmbeddingServer, tally: Recorder, rounds: int, env: dict[str, str]) -> None:
    workspace, state = _setup(base, server)
    times: list[float] = []
    _cli(env, state, workspace, "index")
    config = json.loads((state / "openclaw.json").read_text())
    config["agents"]["defaults"]["memorySearch"]["chunking"] = {"tokens": 120, "overlap": 10}
    (state / "openclaw.json").write_text(json.dumps(config))  # the index must be rebuilt before it matches
    server.slow("/v1/embeddings", SLOW_S, times=100_000)
    for _ in range(max(1, min(rounds, 3))):
        elapsed, payload = _timed_search(env, state, workspace)
        times.append(elapsed)
        tally.record(elapsed < SEARCH_BUDGET_S, f"search with a rebuild owed took ≥ {SEARCH_BUDGET_S:g} s")
        tally.record(bool(payload.get("results")), "search with a rebuild owed found nothing")
        tally.record(bool(payload.get("stale") or payload.get("partial")), "search did not say it is stale")
    status = json_output(_cli(env, state, workspace, "status", "--json"))
    tally.record(status.get("dirty") is True and bool(status.get("custom", {}).get("dirtyReason")),
                 "status did not say the index is stale")
    server.heal()
    _cli(env, state, workspace, "index")
    server.slow("/v1/embeddings", SLOW_S, times=100_000)
    for _ in range(max(1, min(rounds, 3))):
        elapsed, payload = _timed_search(env, state, workspace)
        times.append(elapsed)
        tally.record(elapsed < SEARCH_BUDGET_S, f"search of a clean index took ≥ {SEARCH_BUDGET_S:g} s")
        tally.record(bool(payload.get("results")), "search of a clean index found nothing")
        tally.record(bool(payload.get("partial") and payload.get("warning")),
                     "keyword-only search did not say why")
    print(f"provider: `memtui search --json` under a {SLOW_S:g} s provider took "
          f"{', '.join(f'{t:.1f}' for t in times)} s (a rebuild owed, then a clean index)", file=sys.stderr)

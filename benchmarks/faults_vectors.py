"""bench_faults' `zero vectors` class (issue 29, item 1): vectors without a direction, from the provider and in
the index.

Against a real OpenAI-compatible server on 127.0.0.1 (tests/embedding_server.py) that answers an all-zero vector
for every text holding a mark, each round:
  some texts   notes with the mark are indexed: every search (`memtui search --json`, `--explain`, and MCP
               `memory_search`) answers and finds the marked notes by keywords; `status --json` names the
               chunks without a vector and their files (`custom.noVector`) and is neither dirty nor reports a
               provider failure; two more syncs (one after another note changed) send no marked text again;
  every text   the provider answers zeros for everything, also a probe text: a new note's sync records the
               failure (`custom.providerUnavailableReason`, `missingVectors`) and searches still answer;
  stored rows  a zero vector written into the index as an older memtui did: searches answer, `status --json`
               (`custom.degenerateVectors`) and `memtui health` name the file and `memtui index --force`;
  healthy      the provider is back: `index --force` embeds every chunk, and status names nothing.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from embedding_server import EmbeddingServer
from faults_provider import json_output

from memtui.index.store.schema import sqlite_driver
from memtui.settings.agent import resolve_agent

KEY = "sk-bench-zero-vectors"
MARK = "zerovec"
NOTES = 10
QUERIES = ("green tea preference", "payment webhook runbook", "carrier manifests depot", MARK)


class Recorder(Protocol):
    """bench_faults' Tally."""

    def record(self, ok: bool, what: str) -> None: ...


class ZeroingServer(EmbeddingServer):
    """Answers an all-zero vector for every text with `MARK` (every text when `everything`)."""

    everything = False
    zeroing = True

    def _openai_embeddings(self, body: dict[str, Any]) -> tuple[int, Any]:
        status, payload = super()._openai_embeddings(body)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        for item, text in zip(payload.get("data", []), texts, strict=False):
            if self.everything or (self.zeroing and MARK in text):
                item["embedding"] = [0.0] * len(item["embedding"])
        return status, payload

    def marked_texts(self) -> int:
        """Texts with the mark sent so far."""
        count = 0
        for request in self.matching("/embeddings"):
            texts = request.json()["input"]
            count += sum(MARK in text for text in (texts if isinstance(texts, list) else [texts]))
        return count


def _cli(env: dict[str, str], state: Path, workspace: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(state), "--workspace",
                           str(workspace)], capture_output=True, text=True, timeout=300, env=env)


def _setup(base: Path, server: EmbeddingServer, marked: list[int]) -> tuple[Path, Path]:
    workspace, state = base / "workspace", base / "state"
    (workspace / "memory").mkdir(parents=True)
    state.mkdir()
    (workspace / "MEMORY.md").write_text("# Memory\n\n- The payment webhook runbook lives in ops/.\n")
    for i in range(NOTES):
        tag = f" ({MARK} {i})" if i in marked else ""
        (workspace / "memory" / f"2026-10-{i + 1:02d}.md").write_text(
            f"# Note {i}\n\n- Alice prefers green tea over coffee{tag}.\n- The carrier manifests for depot {i} "
            "were reconciled.\n")
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "provider": "openai", "remote": {"baseUrl": f"{server.url}/v1", "apiKey": KEY}}}}}))
    return workspace, state


def _searches(env: dict[str, str], state: Path, workspace: Path, tally: Recorder, when: str,
              must_find: str | None = None) -> None:
    """Every query through the CLI (plain and --explain): each answers with hits; `must_find` among them."""
    for query in QUERIES:
        for extra in ((), ("--explain",)):
            done = _cli(env, state, workspace, "search", query, "--json", *extra)
            payload = json_output(done)
            tally.record(done.returncode == 0 and "Traceback" not in done.stderr and not payload.get("error"),
                         f"search failed ({when})")
            tally.record(bool(payload.get("results")), f"search found nothing ({when})")
            if must_find and query == MARK:
                tally.record(any(must_find == hit["path"] for hit in payload.get("results", [])),
                             f"a note without a vector was not found by its keyword ({when})")
    _mcp_search(env, state, workspace, tally, when)


def _mcp_search(env: dict[str, str], state: Path, workspace: Path, tally: Recorder, when: str) -> None:
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
            "name": "memory_search", "arguments": {"query": query}}} for n, query in enumerate(QUERIES, start=1))]
    done = subprocess.run([sys.executable, "-m", "memtui", "mcp", "--no-watch", "--state-dir", str(state),
                           "--workspace", str(workspace)], input="".join(json.dumps(x) + "\n" for x in lines),
                          capture_output=True, text=True, timeout=300, env=env)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    calls = [a for a in answers if a.get("id") not in (0, None)]
    tally.record(len(calls) == len(QUERIES) and all("result" in a and not a["result"].get("isError")
                                                    for a in calls), f"MCP memory_search failed ({when})")


def _poison(state: Path, workspace: Path, rel: str) -> None:
    """A zero vector stored for `rel`'s chunks (column and sqlite-vec table), as an older memtui left them."""
    import sqlite_vec

    path = resolve_agent(state_dir=str(state), workspace=str(workspace)).store_path
    conn = sqlite_driver.connect(str(path))
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        for chunk_id, embedding in conn.execute("SELECT id, embedding FROM chunks WHERE path = ?", (rel,)).fetchall():
            dims = len(json.loads(embedding))
            conn.execute("UPDATE chunks SET embedding = ? WHERE id = ?", (json.dumps([0.0] * dims), chunk_id))
            conn.execute("UPDATE chunks_vec SET embedding = ? WHERE id = ?", (struct.pack(f"<{dims}f", *[0.0] * dims),
                                                                             chunk_id))
        conn.commit()
    finally:
        conn.close()


def zero_vectors(root: Path, tally: Recorder, rounds: int, env: dict[str, str]) -> None:
    """Per round: zeros for some texts, for every text, stored rows, then healthy (see the module's text)."""
    for number in range(rounds):
        server = ZeroingServer(api_key=KEY).start()
        try:
            _round(root / "zero" / f"r{number}", server, tally, env, marked=[number % NOTES, (number + 3) % NOTES])
        finally:
            server.stop()


def _round(base: Path, server: ZeroingServer, tally: Recorder, env: dict[str, str], marked: list[int]) -> None:
    workspace, state = _setup(base, server, marked)
    files = {f"memory/2026-10-{i + 1:02d}.md" for i in marked}
    _cli(env, state, workspace, "index")
    _searches(env, state, workspace, tally, "some texts zero", must_find=min(files))
    status = json_output(_cli(env, state, workspace, "status", "--json"))
    custom = status.get("custom", {})
    told = custom.get("noVector") or {}
    tally.record(set(told.get("files", {})) == files and told.get("chunks") == len(files),
                 "status does not name the chunks the provider gives no vector")
    tally.record(status.get("dirty") is False and not custom.get("providerUnavailableReason"),
                 "status calls a provider that embeds other text failed or the index dirty")
    sent = server.marked_texts()
    _cli(env, state, workspace, "index")
    note = workspace / "memory" / "2026-10-10.md"
    note.write_text(note.read_text() + "- One more line.\n")
    _cli(env, state, workspace, "index")
    tally.record(server.marked_texts() == sent, "a chunk without a vector was sent again by a later sync")

    server.everything = True  # zeros for every text, the probe's too: a provider that does not work
    (workspace / "memory" / "2026-11-01.md").write_text("# New\n\n- The new runbook covers the webhook.\n")
    _cli(env, state, workspace, "index")
    custom = json_output(_cli(env, state, workspace, "status", "--json")).get("custom", {})
    tally.record(bool(custom.get("providerUnavailableReason")) and bool(custom.get("missingVectors")),
                 "status does not report a provider answering zeros for everything")
    _searches(env, state, workspace, tally, "every text zero")
    server.everything = False
    server.zeroing = False

    _poison(state, workspace, "MEMORY.md")
    _searches(env, state, workspace, tally, "a zero row stored")
    custom = json_output(_cli(env, state, workspace, "status", "--json")).get("custom", {})
    stored = custom.get("degenerateVectors") or {}
    tally.record("MEMORY.md" in stored.get("files", {}) and "index --force" in stored.get("action", ""),
                 "status does not name stored vectors without a direction")
    health = json_output(_cli(env, state, workspace, "health", "--index", "memtui", "--json"))
    tally.record(any(row["kind"] == "vector" and row["path"] == "MEMORY.md" for row in health.get("rows", [])),
                 "health does not name stored vectors without a direction")

    _cli(env, state, workspace, "index", "--force")
    custom = json_output(_cli(env, state, workspace, "status", "--json")).get("custom", {})
    tally.record(not custom.get("noVector") and not custom.get("degenerateVectors") and not custom.get(
        "missingVectors"), "chunks not embedded by index --force once the provider is healthy")
    _searches(env, state, workspace, tally, "healthy again", must_find=min(files))

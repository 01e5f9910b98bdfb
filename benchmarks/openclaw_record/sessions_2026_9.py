"""Record real OpenClaw 2026.9.6 agent sessions (the transcripts memtui reads from the agent database).

In a scratch folder (isolated HOME, `OPENCLAW_STATE_DIR`, XDG folders, no API keys, no proxy) it writes the
workspace of `workspace_2026_9.py`, indexes it keyword-only (`openclaw memory index --force`, no embedding provider)
and then runs the **real agent** turn by turn: `openclaw agent --local --session-key <key> --message <text> --json`
(`--local` is the embedded, gateway-less path). The model is a custom provider `scripted` (`api:
"openai-completions"`, dummy key) whose base URL is `sessions_2026_9_chat.ChatServer` on 127.0.0.1: a scripted
chat-completions server that answers with `memory_search` / `memory_get` tool calls and plain answers
(`SCRIPTS`). `tools.toolSearch: false` makes OpenClaw send the tool schemas directly (by default it hides most tools
behind `tool_search`).

`TURNS` makes 4 sessions over 4 session keys: `agent:main:ops` (3 turns), `agent:main:planning` and
`agent:main:research` (2 turns each) and `agent:main:incident` (2 turns;
the server reports a prompt of `INCIDENT_PROMPT_TOKENS` tokens on its first turn, so the second turn starts over
the compaction threshold: OpenClaw runs the pre-compaction memory flush, then compacts).

It writes `tests/data/openclaw-2026.9.6/sessions/`:

* `agent.sqlite`: a consistent copy (sqlite backup API) of `<state>/agents/main/agent/openclaw-agent.sqlite`
  after the runs;
* `chat_requests.json`: every request the agent sent to the chat server, in order (body, headers without
  credentials, the scripted reply, the script and step, the wall clock). The system prompts and tool lists are
  long and repeat, so each is stored once under `system_prompts` / `tool_sets` (by sha256) and referenced;
* `cli.json`: per turn the arguments, exit code, stdout (parsed when JSON), stderr and clock, plus
  `openclaw sessions --json` after the runs;
* `provenance.json`: versions, config, counts, commands, timings, a DB summary.

Machine paths become `<ws>`, `<state>`, `<home>`, `<scratch>`; the chat server URL becomes `<chat>`. Every
subprocess runs under a timeout; the server answers at most `ChatServer.max_requests` requests.

Run: `python3 benchmarks/openclaw_record/sessions_2026_9.py --scratch /tmp/oc96sessions [--openclaw DIR] [--node NODE]`
(about 5 minutes).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import workspace_2026_9  # noqa: E402
from launcher import LauncherError, default_node  # noqa: E402
from peers import peers_dir  # noqa: E402
from record_2026_9 import (  # noqa: E402
    OPENCLAW_VERSION,
    base_config,
    copy_db,
    fresh_scratch,
    log,
    parse_json,
    write_workspace,
)
from sessions_2026_9_chat import SILENT, ChatServer  # noqa: E402

DEFAULT_OUT = HERE.parents[1] / "tests" / "data" / f"openclaw-{OPENCLAW_VERSION}" / "sessions"
AGENT_DB_MAX_BYTES = 3 * 1024 * 1024
MODEL_ID = "scripted-1"
PROVIDER_ID = "scripted"
CONTEXT_WINDOW = 200_000
INCIDENT_PROMPT_TOKENS = 190_000  # ≥ 200000 − 20000: the next turn of that session is over the compaction threshold

# User texts (OpenClaw wraps them in a timestamp prefix and a Runtime trailer; the server matches by containment).
BURST = "What is the payments API burst limit?"
POSTGRES = "Which Postgres version runs in production?"
THANKS = "Thanks, that is all for now."
FRIDAY = "Can I deploy the payments service on Friday afternoon?"
OWNER = "Who owns the payments service?"
TERRAFORM = "Where does the Terraform state live?"
FAILOVER = "Summarize the September 14 database failover."
TRACING = "What did we decide about tracing?"
CI = "Where do the CI runners run?"
NEW_SESSION = "A new session was started via /new or /reset"
FLUSH = "Pre-compaction memory flush"
SUMMARIZE = "</conversation>"  # the compaction summary request quotes the conversation, then asks for a summary


def _top(results: list[dict[str, Any]], default: str = "MEMORY.md") -> dict[str, Any]:
    """The first hit of the last memory_search result the agent sent back."""
    for result in reversed(results):
        if result.get("name") == "memory_search" and isinstance(result.get("json"), dict):
            hits = result["json"].get("results") or []
            if hits:
                return hits[0]
    return {"path": default, "startLine": 1, "endLine": 5}


def _get_top(results: list[dict[str, Any]]) -> dict[str, Any]:
    hit = _top(results)
    return {"path": hit["path"], "from": hit.get("startLine", 1), "lines": 6}


def _answer(prefix: str):
    def answer(results: list[dict[str, Any]]) -> str:
        hit = _top(results)
        text = next((r["json"].get("text") for r in reversed(results)
                     if r.get("name") == "memory_get" and isinstance(r.get("json"), dict) and r["json"].get("text")),
                    None) or hit.get("snippet") or ""
        first = next((line.strip("- ").strip() for line in text.splitlines() if line.strip().startswith("-")),
                     text.strip().splitlines()[0] if text.strip() else "nothing found")
        return f"{prefix} {first} (source: {hit['path']}#L{hit.get('startLine', 1)})"
    return answer


SCRIPTS: dict[str, list[tuple[Any, ...]]] = {
    BURST: [("tool", "memory_search", {"query": "payments API burst limit", "maxResults": 4, "minScore": 0.2}),
            ("tool", "memory_get", _get_top),
            ("answer", _answer("From memory:"))],
    POSTGRES: [("tool", "memory_search", {"query": "postgres version production"}),
               ("answer", _answer("Production Postgres:"))],
    THANKS: [("answer", "You're welcome.")],
    FRIDAY: [("tool", "memory_search", {"query": "deploy on friday", "maxResults": 3}),
             ("tool", "memory_get", {"path": "MEMORY.md", "from": 5, "lines": 2}),
             ("answer", _answer("No:"))],
    OWNER: [("tool", "memory_search", {"query": "who owns the payments service", "minScore": 0.1}),
            ("answer", _answer("Owner:"))],
    TERRAFORM: [("tool", "memory_search", {"query": "terraform state bucket", "maxResults": 2, "minScore": 0}),
                ("tool", "memory_get", {"path": "memory/does-not-exist.md"}),
                ("answer", _answer("Terraform:"))],
    FAILOVER: [("tool", "memory_search", {"query": "database failover September 14", "maxResults": 5}),
               ("answer", _answer("Failover:"))],
    TRACING: [("tool", "memory_search", {"query": "tracing decision OpenTelemetry"}),
              ("answer", _answer("Tracing:"))],
    CI: [("tool", "memory_search", {"query": "CI runners", "corpus": "memory", "maxResults": 3}),
         ("answer", _answer("CI:"))],
    NEW_SESSION: [("answer", "New session ready.")],
    FLUSH: [("answer", SILENT)],
    SUMMARIZE: [("answer", "## Original Request\nSummarize the September 14 database failover.\n\n## Early Progress\n"
                           "- Searched memory for the failover (memory_search).\n\n## Context for Suffix\n"
                           "- The failover runbook is memory/runbooks/postgres-failover.md.")],
}

# (turn id, session key, message, what it is about[, extra CLI args])
TURNS: list[tuple[Any, ...]] = [
    ("ops-1", "agent:main:ops", BURST,
     "memory_search (maxResults 4, minScore 0.2) → memory_get of the top hit → answer"),
    ("ops-2", "agent:main:ops", POSTGRES, "memory_search with the default maxResults/minScore → answer"),
    ("ops-3", "agent:main:ops", THANKS, "a plain answer, no tools"),
    ("planning-1", "agent:main:planning", FRIDAY,
     "memory_search (maxResults 3) → memory_get MEMORY.md lines 5-6 → answer"),
    ("planning-2", "agent:main:planning", OWNER, "memory_search (minScore 0.1) → answer"),
    ("research-1", "agent:main:research", TERRAFORM,
     "memory_search (maxResults 2, minScore 0) → memory_get of a missing file"),
    ("research-2", "agent:main:research", CI, "memory_search with corpus memory"),
    ("incident-1", "agent:main:incident", FAILOVER,
     f"memory_search (maxResults 5); the server reports {INCIDENT_PROMPT_TOKENS} prompt tokens"),
    ("incident-2", "agent:main:incident", TRACING, "starts over the compaction threshold: memory flush, compaction"),
]


def sha256(data: str | bytes) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def session_config(workspace: str, chat_url: str) -> dict[str, Any]:
    """`base_config` (keyword-only memory) plus the scripted model provider and direct tool schemas."""
    config = base_config(workspace)
    config["agents"]["defaults"] = {"model": {"primary": f"{PROVIDER_ID}/{MODEL_ID}"}}
    config["tools"] = {"toolSearch": False}
    config["models"] = {"mode": "merge", "providers": {PROVIDER_ID: {
        "baseUrl": f"{chat_url}/v1", "apiKey": "dummy-key", "api": "openai-completions",
        "models": [{"id": MODEL_ID, "name": "Scripted", "reasoning": False, "input": ["text"],
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                    "contextWindow": CONTEXT_WINDOW, "maxTokens": 4096}]}}}
    return config


def split_request_log(exchanges: list[dict[str, Any]]) -> dict[str, Any]:
    """Requests with each system prompt and tool list stored once (by sha256)."""
    prompts: dict[str, Any] = {}
    tool_sets: dict[str, Any] = {}
    out = []
    for exchange in exchanges:
        body = exchange.get("body")
        if isinstance(body, dict):
            body = dict(body)
            messages = []
            for message in body.get("messages") or []:
                if message.get("role") in ("system", "developer"):
                    text = json.dumps(message.get("content"), ensure_ascii=False, sort_keys=True)
                    key = sha256(text)
                    prompts.setdefault(key, message.get("content"))
                    message = {"role": message["role"], "content_ref": key}
                messages.append(message)
            body["messages"] = messages
            if "tools" in body:
                text = json.dumps(body["tools"], ensure_ascii=False, sort_keys=True)
                key = sha256(text)
                tool_sets.setdefault(key, body["tools"])
                body["tools"] = {"ref": key, "names": [t.get("function", {}).get("name") for t in body["tools"]]}
        out.append({**exchange, "body": body})
    return {"requests": out, "system_prompts": prompts, "tool_sets": tool_sets}


def db_summary(db: Path) -> dict[str, Any]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    q = lambda sql: con.execute(sql).fetchall()  # noqa: E731
    summary = {
        "schema_meta": [list(row) for row in q("SELECT meta_key, role, schema_version, agent_id, app_version "
                                               "FROM schema_meta")],
        "chunks": q("SELECT count(*) FROM memory_index_chunks")[0][0],
        "session_windows": q("SELECT count(*) FROM session_windows")[0][0],
        "session_nodes": q("SELECT count(*) FROM session_nodes")[0][0],
        "transcript_events": q("SELECT count(*) FROM transcript_events")[0][0],
        "compressed_events": q("SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL")[0][0],
        "sessions": [list(row) for row in q("SELECT session_key, session_id, previous_session_id, reason FROM "
                                            "session_windows ORDER BY created_at")],
    }
    con.close()
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--openclaw", type=Path,
                        default=peers_dir() / f"openclaw-{OPENCLAW_VERSION}" / "node_modules" / "openclaw")
    parser.add_argument("--node", type=Path, default=default_node())
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--turn-timeout", type=float, default=300.0)
    args = parser.parse_args()

    scratch, cli, ph = fresh_scratch(args)
    files = workspace_2026_9.build_files()
    write_workspace(cli.ws, files)

    server = ChatServer(SCRIPTS, model=MODEL_ID, max_requests=120,
                        reported_prompt_tokens={FAILOVER: INCIDENT_PROMPT_TOKENS}).start()
    turns: list[dict[str, Any]] = []
    try:
        config = session_config(str(cli.ws), server.url)
        (cli.state / "openclaw.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        version = cli.run(["--version"], timeout=60)
        index = cli.run(["memory", "index", "--force"], timeout=900)
        log(f"index --force: exit {index['exit']} in {index['seconds']} s")
        if index["exit"] != 0:
            raise LauncherError(f"memory index failed: {index['stderr'][-1500:]}")
        for turn_id, key, message, about, *extra in TURNS:
            first = len(server.requests)
            res = cli.run(["agent", "--local", "--session-key", key, *(extra[0] if extra else []), "--message",
                           message, "--json"],
                          timeout=args.turn_timeout)
            output = parse_json(res["stdout"])
            log(f"turn {turn_id} ({key}): exit {res['exit']}, {len(server.requests) - first} model calls, "
                f"{res['seconds']} s")
            turns.append({"id": turn_id, "session_key": key, "message": message, "about": about,
                          "args": res["args"], "exit": res["exit"], "output": output,
                          "stdout": None if output is not None else res["stdout"], "stderr": res["stderr"],
                          "clock_ms": res["clock_ms"], "requests": [first, len(server.requests)]})
        sessions = cli.run(["sessions", "--json", "--limit", "all"], timeout=120)
        exchanges = [e.to_json() for e in server.requests]
    finally:
        server.stop()
    server_url = config["models"]["providers"][PROVIDER_ID]["baseUrl"].removesuffix("/v1")

    live_db = cli.state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    copy = scratch / "agent-copy.sqlite"
    copy_db(live_db, copy)
    db_bytes = copy.stat().st_size
    if db_bytes >= AGENT_DB_MAX_BYTES:
        raise LauncherError(f"the agent DB copy is {db_bytes} bytes, over {AGENT_DB_MAX_BYTES}")
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(copy, out / "agent.sqlite")
    summary = db_summary(copy)
    leaked = [token for token in (str(scratch), str(scratch.resolve())) if token.encode() in copy.read_bytes()]

    def dump(name: str, value: Any) -> None:
        text = json.dumps(ph.apply(value), ensure_ascii=False, indent=1).replace(server_url, "<chat>") + "\n"
        for token in (str(scratch), str(scratch.resolve()), server_url):
            if token in text:
                raise LauncherError(f"{name} still names {token}")
        (out / name).write_text(text, encoding="utf-8")

    log_value = split_request_log(exchanges)
    dump("chat_requests.json", {"openclaw_version": OPENCLAW_VERSION, "base_url": "<chat>/v1", **log_value})
    dump("cli.json", {"openclaw_version": OPENCLAW_VERSION, "turns": turns,
                      "sessions": {"args": sessions["args"], "exit": sessions["exit"],
                                   "output": parse_json(sessions["stdout"]), "stderr": sessions["stderr"],
                                   "clock_ms": sessions["clock_ms"]}})
    node_version = subprocess.run([str(cli.node), "--version"], capture_output=True, text=True,
                                  timeout=60).stdout.strip()
    dump("provenance.json", {
        "openclaw_version": OPENCLAW_VERSION,
        "openclaw_cli_version": version["stdout"].strip(),
        "node": node_version,
        "recorded_at_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(index["clock_ms"][0] / 1000)),
        "recorder": "benchmarks/openclaw_record/sessions_2026_9.py",
        "chat_server": {"module": "benchmarks/openclaw_record/sessions_2026_9_chat.py", "base_url": "<chat>/v1",
                        "requests": len(exchanges), "reported_prompt_tokens": {FAILOVER: INCIDENT_PROMPT_TOKENS},
                        "usage": "prompt_tokens = chars/4 of the request's messages + tools, unless "
                                 "reported_prompt_tokens names the script"},
        "config": config,
        "environment": {"HOME": "<home>", "OPENCLAW_STATE_DIR": "<state>", "TZ": "UTC", "LANG": "C.UTF-8",
                        "XDG_*": "<scratch>/xdg/…", "api_keys": "none (the provider key is the dummy 'dummy-key')",
                        "proxy": "none", "network": "127.0.0.1 only"},
        "commands": {"index": ["openclaw", "memory", "index", "--force"],
                     "turn": ["openclaw", "agent", "--local", "--session-key", "<key>", "--message", "<text>",
                              "--json"],
                     "sessions": ["openclaw", "sessions", "--json", "--limit", "all"]},
        "turns": [{"id": t["id"], "session_key": t["session_key"], "message": t["message"], "about": t["about"],
                   "exit": t["exit"], "requests": t["requests"]} for t in turns],
        "index_run": {"exit": index["exit"], "seconds": index["seconds"]},
        "calls": cli.calls,
        "counts": {"workspace_files": len(files), "turns": len(turns), "chat_requests": len(exchanges),
                   "session_keys": len({t["session_key"] for t in turns})},
        "agent_db": {"file": "agent.sqlite", "bytes": db_bytes, "sha256": sha256(copy.read_bytes()),
                     "machine_paths_inside": [ph.text(p) for p in leaked], **summary},
    })
    log(f"wrote {out}: {len(turns)} turns, {len(exchanges)} chat requests, {summary['session_windows']} sessions, "
        f"{summary['transcript_events']} events, db {db_bytes} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Record what the real OpenClaw 2026.9.6 CLI does with a developer workspace, for memtui's 2026.9 tests.

In a scratch folder it writes the workspace of `workspace_2026_9.py` (exact texts, fixed mtimes), an isolated
HOME / state dir / XDG folders and a 2026.9 `openclaw.json` (`agents.entries.main.workspace`, `memory.search.query`,
no provider set, so the default `openai` is optional; with no API key the engine indexes and searches keyword-only).
It also records that an explicit `provider: "openai"` without a key makes `memory index` fail
(`provenance.json` → `explicit_openai`). It then runs
the real CLI (`node openclaw.mjs …`, every call under a timeout):

* `openclaw memory index --force`, then `openclaw memory status --json`;
* `openclaw memory search --json <query>` for every query in `QUERIES` (some with `--max-results` /
  `--min-score`);
* `openclaw config validate` and `config validate --json` on the configs in `VALIDATE_CASES`
  (through `OPENCLAW_CONFIG_PATH`).

It writes `tests/data/openclaw-2026.9.6/`:

* `workspace.json`: the files (text, mtime ms, sha256) and the config;
* `agent.sqlite`: a consistent copy (sqlite backup API) of `<state>/agents/main/agent/openclaw-agent.sqlite`;
* `session_schema.sql`: the CREATE statements of the session/transcript tables of that DB;
* `status.json`: `memory status --json`;
* `search.json`: per query the arguments, exit code, the CLI JSON exactly as printed (parsed, plus the sha256 of
  stdout), stderr and the wall clock before and after the call (decay depends on it, see below);
* `config_validate.json`: per case the config, and the text and JSON runs with exit codes and output;
* `provenance.json`: versions, the dates, the commands and their timings, counts.

Clock: OpenClaw 2026.9.6 has no way to pin its clock. Temporal decay uses `Date.now()` at search time against the
date in a daily file's name, so `search.json` keeps `clock_ms: [before, after]` for each call; the spread of a call
(a few seconds) moves a decayed score by less than 1e-5 relative. Machine paths become `<ws>`, `<state>`, `<home>`,
`<scratch>`.

Run: `python3 benchmarks/openclaw_record/record_2026_9.py --scratch /tmp/oc96rec [--openclaw DIR] [--node NODE]`
(about 8 minutes on 2 busy cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
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
from launcher import LauncherError, Placeholders, default_node  # noqa: E402
from peers import peers_dir  # noqa: E402

OPENCLAW_VERSION = "2026.9.6"
DEFAULT_OUT = HERE.parents[1] / "tests" / "data" / f"openclaw-{OPENCLAW_VERSION}"
AGENT_DB_MAX_BYTES = 3 * 1024 * 1024

# (id, query, extra CLI args, what the case is about)
QUERIES: list[tuple[str, str, list[str], str]] = [
    ("nl-burst-limit", "what is the payments API burst limit?", [], "natural question; old (200) vs new (500) fact under decay"),
    ("kw-burst-limit", "burst limit", [], "two keywords; old vs new"),
    ("nl-burst-raised", "when was the burst limit raised", [], "question with stop words"),
    ("nl-postgres-version", "which Postgres version runs in production", [], "importance 8 entry vs daily logs"),
    ("kw-postgres-upgrade", "postgres upgrade", [], "two keywords over dated logs"),
    ("nl-friday-deploy", "can I deploy on friday?", [], "importance 9 + trigger entry"),
    ("kw-friday-freeze", "friday freeze", [], "MEMORY.md entry vs runbook"),
    ("path-runbooks", "runbooks", [], "word only in the path memory/runbooks/"),
    ("path-runbooks-payments", "payments runbooks", [], "path word + body word"),
    ("path-exact-basename", "payments-deploy.md", [], "exact basename tier"),
    ("path-exact-stem", "payments-deploy", [], "exact stem tier"),
    ("path-exact-full", "memory/runbooks/payments-deploy.md", [], "exact full path tier"),
    ("path-date", "2026-09-14", [], "date in a slug file name"),
    ("kw-terraform-state", "terraform state", [], "trigger phrase, importance 7"),
    ("kw-tf-locks", "tf-locks", [], "hyphenated token"),
    ("kw-idempotency", "idempotency keys", [], "importance 3 entry"),
    ("kw-ci-runners", "CI runners", [], "short token CI (dropped as keyword) + importance 2"),
    ("nl-who-owns-payments", "who owns the payments service", [], "stop-word heavy question"),
    ("sw-heavy", "what was the thing that we did about the it", [], "almost only stop words"),
    ("sw-only", "the and of to", [], "stop words only"),
    ("nl-tracing", "why did we choose OpenTelemetry over Datadog", [], "decision in MEMORY.md and slug file"),
    ("kw-feature-flags", "feature flags", [], "trigger phrase, importance 4"),
    ("kw-flagd", "flagd", [], "one keyword in many files"),
    ("kw-ledger", "ledger reconcile", [], "multi-line MEMORY.md entry"),
    ("kw-karpenter", "Karpenter", [], "case"),
    ("kw-trigram-invalid-project", "trigram tokenizer", [], "entry with a malformed project annotation (excluded)"),
    ("kw-webhook-incident", "webhook signing secret rotation", [], "long log with several windows"),
    ("kw-queue-depth", "queue depth consumer lag", [], "repeated lines in the long log (MMR off in keyword-only)"),
    ("kw-failover", "database failover", [], "slug note vs runbook vs daily"),
    ("kw-connection-pool", "connection pool", [], "two dated files"),
    ("user-editor", "which editor does the user use", [], "USER.md entry"),
    ("user-timezone", "timezone", [], "USER.md trigger"),
    ("user-concise", "concise answers", [], "USER.md importance 8"),
    ("de-bereitschaft", "Rufbereitschaft", [], "German word"),
    ("de-question", "Wann wird die Datenbank-Migration auf Aurora verschoben?", [], "German question (no German stop words)"),
    ("de-umlaut", "Büro Alexanderplatz", [], "German with umlaut"),
    ("ja-rate-limit", "レート制限", [], "Japanese katakana + kanji"),
    ("ja-tokyo", "東京のベンダー", [], "Japanese with hiragana particle"),
    ("zh-shanghai", "上海办公室", [], "Chinese: unigrams and bigrams"),
    ("zh-database", "数据库迁移", [], "Chinese"),
    ("mixed-redis-ttl", "Redis TTL", [], "short uppercase token"),
    ("kw-hetzner", "Hetzner", [], "importance 2 entry vs daily logs"),
    ("nl-maria-leave", "when is Maria on leave", [], "recent daily log"),
    ("kw-rate-limiting-v2", "rate limiting v2", [], "many dated hits, decay order"),
    ("opt-max-results-3", "rate limiting", ["--max-results", "3"], "--max-results 3"),
    ("opt-min-score-0", "postgres", ["--min-score", "0"], "--min-score 0"),
    ("opt-min-score-high", "postgres", ["--min-score", "0.9"], "--min-score 0.9 (relaxed fallback)"),
    ("nomatch", "kubernetes helm chart museum", [], "no keyword matches at all"),
]


def base_config(workspace: str) -> dict[str, Any]:
    """The valid 2026.9 config the recording runs with."""
    return {
        "agents": {"entries": {"main": {"workspace": workspace}}},
        "memory": {"search": {"query": {"maxResults": 6, "minScore": 0.35}}},
    }


def explicit_openai_config(workspace: str) -> dict[str, Any]:
    """`provider: "openai"` set explicitly, no key: 2026.9.6 refuses to index (recorded as `explicit_openai`)."""
    cfg = base_config(workspace)
    cfg["memory"]["search"]["provider"] = "openai"
    return cfg


def validate_cases(workspace: str) -> list[tuple[str, dict[str, Any], str]]:
    valid = base_config(workspace)
    return [
        ("valid-2026.9", valid, "the recording's own config"),
        ("valid-per-agent-override", {
            "agents": {"entries": {"main": {"workspace": workspace,
                                            "memory": {"search": {"query": {"maxResults": 4}}}}}},
            "memory": {"search": {"provider": "none", "store": {"fts": {"tokenizer": "unicode61"}}}},
        }, "agents.entries.<id>.memory.search override, provider none"),
        ("retired-agents-defaults-memorySearch", {
            "agents": {"defaults": {"workspace": workspace,
                                    "memorySearch": {"provider": "openai", "query": {"maxResults": 6}}}},
        }, "2026.4 key agents.defaults.memorySearch"),
        ("retired-query-hybrid", {
            "agents": {"entries": {"main": {"workspace": workspace}}},
            "memory": {"search": {"provider": "openai",
                                  "query": {"hybrid": {"enabled": True, "vectorWeight": 0.6, "textWeight": 0.4}}}},
        }, "memory.search.query.hybrid"),
        ("retired-reserveTokensFloor", {
            "agents": {"defaults": {"compaction": {"reserveTokensFloor": 20000}},
                       "entries": {"main": {"workspace": workspace}}},
        }, "agents.defaults.compaction.reserveTokensFloor"),
        ("legacy-agents-list-default", {
            "agents": {"list": [{"id": "main", "default": True, "workspace": workspace}]},
        }, "agents.list[] with default: true (accepted with warnings)"),
    ]


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def sha256(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


class Cli:
    """The real `openclaw` CLI with an isolated HOME, state dir and XDG folders, no credentials, no proxy."""

    def __init__(self, openclaw_dir: Path, node: Path, scratch: Path):
        self.openclaw_dir = openclaw_dir
        self.node = node
        self.scratch = scratch
        self.home = scratch / "home"
        self.state = scratch / "state"
        self.ws = scratch / "ws"
        self.calls: list[dict[str, Any]] = []
        version = json.loads((openclaw_dir / "package.json").read_text(encoding="utf-8"))["version"]
        if version != OPENCLAW_VERSION:
            raise LauncherError(f"{openclaw_dir} is OpenClaw {version}, this recorder needs {OPENCLAW_VERSION}")
        if not node.is_file():
            raise LauncherError(f"Node not found at {node} (bash benchmarks/install_peers.sh)")

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "OPENCLAW_STATE_DIR": str(self.state),
            "XDG_CACHE_HOME": str(self.scratch / "xdg" / "cache"),
            "XDG_CONFIG_HOME": str(self.scratch / "xdg" / "config"),
            "XDG_DATA_HOME": str(self.scratch / "xdg" / "data"),
            "PATH": f"{self.node.parent}:/usr/bin:/bin",
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "TZ": "UTC",
            "AWS_EC2_METADATA_DISABLED": "true",
        } | (extra or {})

    def run(self, args: list[str], *, timeout: float = 300.0, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
        """Run `openclaw args…`; returns exit code, stdout, stderr, wall clock (ms) before/after and seconds."""
        before = time.time()
        started = time.perf_counter()
        try:
            proc = subprocess.run([str(self.node), str(self.openclaw_dir / "openclaw.mjs"), *args],
                                  env=self.env(extra_env), cwd=self.scratch, capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
            code, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            code = None
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            err = (exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")) + "\n<timeout>"
        result = {"args": args, "exit": code, "stdout": out, "stderr": err,
                  "clock_ms": [int(before * 1000), int(time.time() * 1000)],
                  "seconds": round(time.perf_counter() - started, 1)}
        self.calls.append({"args": args, "exit": code, "seconds": result["seconds"]})
        return result


def write_workspace(ws: Path, files: dict[str, tuple[str, int]]) -> None:
    if ws.exists():
        shutil.rmtree(ws)
    for rel, (text, mtime_ms) in files.items():
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        os.utime(path, ns=(mtime_ms * 1_000_000, mtime_ms * 1_000_000))


def copy_db(src: Path, dst: Path) -> None:
    """A consistent, compacted copy of a live SQLite DB (WAL included)."""
    dst.unlink(missing_ok=True)
    source = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    target = sqlite3.connect(dst)
    with target:
        source.backup(target)
    source.close()
    target.execute("PRAGMA journal_mode=DELETE")
    target.close()  # no VACUUM: the schema uses octet_length(), which older SQLite builds lack


def session_schema(db: Path) -> str:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL "
                       "ORDER BY type DESC, name").fetchall()
    con.close()
    shadow = ("_fts_config", "_fts_content", "_fts_data", "_fts_docsize", "_fts_idx")
    out = [f"-- session/transcript tables of openclaw-agent.sqlite (agent schema 23), OpenClaw {OPENCLAW_VERSION}"]
    out += [sql.strip() + ";" for _type, _name, table, sql in rows
            if table.startswith(("session_", "transcript_")) and not table.endswith(shadow)]
    return "\n".join(out) + "\n"


def db_summary(db: Path) -> dict[str, Any]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    q = lambda sql: con.execute(sql).fetchall()  # noqa: E731
    summary = {
        "schema_meta": [list(row) for row in q("SELECT meta_key, role, schema_version, agent_id, app_version FROM schema_meta")],
        "memory_index_meta": {key: value for key, value in q("SELECT key, value FROM memory_index_meta")},
        "sources": q("SELECT count(*) FROM memory_index_sources")[0][0],
        "chunks": q("SELECT count(*) FROM memory_index_chunks")[0][0],
        "chunks_with_importance": q("SELECT count(*) FROM memory_index_chunk_recall_metadata WHERE importance IS NOT NULL")[0][0],
        "chunks_with_triggers": q("SELECT count(*) FROM memory_index_chunk_recall_metadata WHERE triggers IS NOT NULL")[0][0],
        "chunks_with_project": q("SELECT count(*) FROM memory_index_chunk_recall_metadata WHERE project_key IS NOT NULL")[0][0],
        "tables": [row[0] for row in q("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")],
    }
    con.close()
    return summary


def parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def fresh_scratch(args: argparse.Namespace) -> tuple[Path, Cli, Placeholders]:
    """An emptied `--scratch` folder with the isolated HOME, state dir and XDG folders, the CLI driving the real
    package there, and the placeholders that keep its paths out of the recordings."""
    scratch = args.scratch.resolve()
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    cli = Cli(args.openclaw.resolve(), args.node, scratch)
    for folder in (cli.home, cli.state, scratch / "xdg"):
        folder.mkdir(parents=True, exist_ok=True)
    return scratch, cli, Placeholders({"ws": cli.ws, "state": cli.state, "home": cli.home, "scratch": scratch,
                                       "openclaw": args.openclaw.resolve()})


def record_hybrid(args: argparse.Namespace) -> int:
    """The same workspace and queries with an OpenAI-compatible embedding server on 127.0.0.1 (hybrid mode).

    The server is `tests/embedding_server.py` (deterministic 16-dim vectors from hashed character trigrams,
    `vector_for`). Writes `search_hybrid.json`: the config (base URL as `<embed>`), the index run, status and
    every query's CLI JSON, plus the vectors the server returned per input text (so a test can rebuild them).
    """
    sys.path.insert(0, str(HERE.parents[1] / "tests"))
    from embedding_server import DEFAULT_DIMS, EmbeddingServer

    scratch, cli, ph = fresh_scratch(args)
    files = workspace_2026_9.build_files()
    write_workspace(cli.ws, files)
    server = EmbeddingServer().start()
    try:
        config = base_config(str(cli.ws))
        config["memory"]["search"].update({"provider": "openai", "model": "text-embedding-3-small",
                                           "remote": {"baseUrl": f"{server.url}/v1", "apiKey": "test-key"}})
        (cli.state / "openclaw.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        index = cli.run(["memory", "index", "--force"], timeout=900)
        log(f"hybrid index --force: exit {index['exit']} in {index['seconds']} s")
        status = cli.run(["memory", "status", "--json"], timeout=300)
        searches = []
        for qid, query, extra, about in QUERIES:
            if args.only and qid not in args.only:
                continue
            res = cli.run(["memory", "search", "--json", *extra, query], timeout=300)
            output = parse_json(res["stdout"])
            log(f"hybrid search {qid}: exit {res['exit']}, {res['seconds']} s")
            searches.append({"id": qid, "query": query, "args": extra, "about": about, "exit": res["exit"],
                             "output": output, "stdout_sha256": sha256(res["stdout"]),
                             "stdout": None if output is not None else res["stdout"],
                             "stderr": res["stderr"], "clock_ms": res["clock_ms"]})
        requests = [{"path": r.path, "body": r.json()} for r in server.requests if r.path.endswith("/embeddings")]
    finally:
        server.stop()
    live_db = cli.state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    summary = db_summary(live_db)
    url = server.url
    value = ph.apply({
        "openclaw_version": OPENCLAW_VERSION,
        "embedding_server": {"module": "tests/embedding_server.py", "function": "vector_for", "dims": DEFAULT_DIMS,
                             "base_url": "<embed>/v1", "requests": len(requests),
                             "inputs": [item for req in requests for item in
                                        (req["body"].get("input") if isinstance(req["body"].get("input"), list)
                                         else [req["body"].get("input")])]},
        "config": config,
        "index_run": {"exit": index["exit"], "stdout": index["stdout"], "stderr": index["stderr"],
                      "clock_ms": index["clock_ms"]},
        "status": {"exit": status["exit"], "output": parse_json(status["stdout"])},
        "agent_db": summary,
        "searches": searches,
    })
    text = json.dumps(value, ensure_ascii=False, indent=1).replace(url, "<embed>") + "\n"
    if str(scratch) in text:
        raise LauncherError("search_hybrid.json still names the scratch folder")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "search_hybrid.json").write_text(text, encoding="utf-8")
    log(f"wrote {args.out / 'search_hybrid.json'}: {len(searches)} queries, {summary['chunks']} chunks")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--openclaw", type=Path,
                        default=peers_dir() / f"openclaw-{OPENCLAW_VERSION}" / "node_modules" / "openclaw")
    parser.add_argument("--node", type=Path, default=default_node())
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--only", nargs="*", help="query ids to run (default: all)")
    parser.add_argument("--hybrid", action="store_true",
                        help="instead: record search_hybrid.json against tests/embedding_server.py on 127.0.0.1")
    args = parser.parse_args()
    if args.hybrid:
        return record_hybrid(args)

    scratch, cli, ph = fresh_scratch(args)

    files = workspace_2026_9.build_files()
    write_workspace(cli.ws, files)
    config = base_config(str(cli.ws))
    (cli.state / "openclaw.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    log(f"workspace: {len(files)} files; OpenClaw {OPENCLAW_VERSION} at {cli.openclaw_dir}")

    version = cli.run(["--version"], timeout=60)
    index = cli.run(["memory", "index", "--force"], timeout=900)
    log(f"index --force: exit {index['exit']} in {index['seconds']} s")
    if index["exit"] != 0:
        raise LauncherError(f"memory index failed: {index['stderr'][-1500:]}")
    status = cli.run(["memory", "status", "--json"], timeout=300)

    searches = []
    for qid, query, extra, about in QUERIES:
        if args.only and qid not in args.only:
            continue
        res = cli.run(["memory", "search", "--json", *extra, query], timeout=300)
        output = parse_json(res["stdout"])
        hits = len(output["results"]) if isinstance(output, dict) and isinstance(output.get("results"), list) else None
        log(f"search {qid}: exit {res['exit']}, {hits} hits, {res['seconds']} s")
        searches.append({"id": qid, "query": query, "args": extra, "about": about, "exit": res["exit"],
                         "output": output, "stdout_sha256": sha256(res["stdout"]),
                         "stdout": None if output is not None else res["stdout"],
                         "stderr": res["stderr"], "clock_ms": res["clock_ms"]})

    validate_dir = cli.state / "validate"
    validate_dir.mkdir()
    validations = []
    for name, cfg, about in validate_cases(str(cli.ws)):
        path = validate_dir / f"{name}.json"
        path.write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
        env = {"OPENCLAW_CONFIG_PATH": str(path)}
        text = cli.run(["config", "validate"], timeout=120, extra_env=env)
        as_json = cli.run(["config", "validate", "--json"], timeout=120, extra_env=env)
        log(f"config validate {name}: exit {text['exit']} / {as_json['exit']}")
        validations.append({
            "name": name, "about": about, "config_path": str(path), "config": cfg,
            "text": {"exit": text["exit"], "stdout": text["stdout"], "stderr": text["stderr"]},
            "json": {"exit": as_json["exit"], "output": parse_json(as_json["stdout"]),
                     "stdout": as_json["stdout"], "stderr": as_json["stderr"]},
        })

    # An explicit provider "openai" without a key: its own state dir.
    openai_state = scratch / "openai-state"
    openai_state.mkdir()
    openai_cfg = openai_state / "openclaw.json"
    openai_cfg.write_text(json.dumps(explicit_openai_config(str(cli.ws)), indent=2) + "\n", encoding="utf-8")
    openai_env = {"OPENCLAW_STATE_DIR": str(openai_state)}
    explicit_openai = {"config": explicit_openai_config(str(cli.ws)), "runs": []}
    for cmd in (["memory", "index", "--force"], ["memory", "search", "--json", "burst limit"],
                ["memory", "status", "--json"]):
        res = cli.run(cmd, timeout=300, extra_env=openai_env)
        log(f"explicit openai {' '.join(cmd[:2])}: exit {res['exit']}")
        explicit_openai["runs"].append({"args": cmd, "exit": res["exit"], "stdout": res["stdout"],
                                        "output": parse_json(res["stdout"]), "stderr": res["stderr"]})

    # Outputs.
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    live_db = cli.state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    copy = scratch / "agent-copy.sqlite"
    copy_db(live_db, copy)
    db_bytes = copy.stat().st_size
    for stale in ("agent.sqlite", "agent.sql"):
        (out / stale).unlink(missing_ok=True)
    if db_bytes < AGENT_DB_MAX_BYTES:
        shutil.copyfile(copy, out / "agent.sqlite")
        db_file = "agent.sqlite"
    else:
        con = sqlite3.connect(copy)
        (out / "agent.sql").write_text("\n".join(con.iterdump()) + "\n", encoding="utf-8")
        con.close()
        db_file = "agent.sql"
    leaked = [token for token in (str(scratch), str(scratch.resolve())) if token.encode() in copy.read_bytes()]
    (out / "session_schema.sql").write_text(session_schema(copy), encoding="utf-8")
    summary = db_summary(copy)

    def dump(name: str, value: Any) -> None:
        value = ph.apply(value)
        text = json.dumps(value, ensure_ascii=False, indent=1) + "\n"
        for token in (str(scratch), str(scratch.resolve())):
            if token in text:
                raise LauncherError(f"{name} still names the scratch folder {token}")
        (out / name).write_text(text, encoding="utf-8")

    dump("workspace.json", {
        "openclaw_version": OPENCLAW_VERSION,
        "config": config,
        "files": [{"path": rel, "mtime_ms": mtime, "sha256": sha256(text), "text": text}
                  for rel, (text, mtime) in files.items()],
    })
    dump("status.json", {"args": status["args"], "exit": status["exit"], "output": parse_json(status["stdout"]),
                         "stderr": status["stderr"], "clock_ms": status["clock_ms"]})
    dump("search.json", {"openclaw_version": OPENCLAW_VERSION, "searches": searches})
    dump("config_validate.json", {"openclaw_version": OPENCLAW_VERSION, "cases": validations})
    node_version = subprocess.run([str(cli.node), "--version"], capture_output=True, text=True).stdout.strip()
    dump("provenance.json", {
        "openclaw_version": OPENCLAW_VERSION,
        "openclaw_cli_version": version["stdout"].strip(),
        "node": node_version,
        "recorded_at_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(index["clock_ms"][0] / 1000)),
        "clock": {
            "pinned": False,
            "note": "OpenClaw 2026.9.6 cannot pin its clock; temporal decay uses Date.now() at search time. "
                    "Each search in search.json has clock_ms [before, after] of its CLI call.",
            "index_clock_ms": index["clock_ms"],
            "first_search_ms": searches[0]["clock_ms"][0] if searches else None,
            "last_search_ms": searches[-1]["clock_ms"][1] if searches else None,
        },
        "environment": {"HOME": "<home>", "OPENCLAW_STATE_DIR": "<state>", "TZ": "UTC", "LANG": "C.UTF-8",
                        "XDG_*": "<scratch>/xdg/…", "api_keys": "none", "proxy": "none"},
        "commands": {
            "index": ["openclaw", "memory", "index", "--force"],
            "status": ["openclaw", "memory", "status", "--json"],
            "search": ["openclaw", "memory", "search", "--json", "[--max-results N]", "[--min-score S]", "<query>"],
            "validate": ["OPENCLAW_CONFIG_PATH=<state>/validate/<case>.json", "openclaw", "config", "validate",
                         "[--json]"],
        },
        "explicit_openai": explicit_openai,
        "index_run": {"exit": index["exit"], "stdout": index["stdout"], "stderr": index["stderr"],
                      "seconds": index["seconds"]},
        "calls": cli.calls,
        "counts": {"files": len(files), "queries": len(searches), "validate_cases": len(validations),
                   "indexed_sources": summary["sources"], "chunks": summary["chunks"]},
        "agent_db": {"file": db_file, "bytes": db_bytes, "machine_paths_inside": leaked, **summary},
    })
    log(f"wrote {out}: {len(files)} files, {summary['chunks']} chunks, {len(searches)} queries, db {db_bytes} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

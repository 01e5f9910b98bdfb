"""Record what the real OpenClaw 2026.4.29 memory engine does, for memtui's conformance tests.

Builds the workspace of `memory_workspace.py`, runs OpenClaw's own indexer, `openclaw memory search --json`
and its `memory_search` / `memory_get` tools in process (`memory_driver.mjs` through `launcher.py`) for
every config variant of `memory_cases.py`, and writes `tests/data/openclaw-2026.4.29/memory/`:

* `workspace.json` — the tree (files with their exact text, symlinks), root-relative;
* `index.json`     — the default index: schema, meta, files, chunks, FTS rows and vocabulary;
* `search.json`    — each query's CLI JSON and tool JSON, exactly as OpenClaw printed them;
* `get.json`       — each `memory_get` call and its tool JSON (or the error it threw);
* `variants.json`  — per config variant: config, meta, the JSON hashed into scopeHash, status, files, chunks
                     (and the variant's own queries / gets);
* `update.json`    — an incremental sync after files changed: the new tables and queries;
* `provenance.json` — versions, counts and the CLI cross-check.

Absolute paths become `<ROOT>`, `<WORKSPACE>`, `<HOME>`, `<STATE>`; `files.mtime` and `chunks.updated_at`
(clock values) become `"<clock>"`; `searchMs` becomes 0. Run it twice: the output is byte-identical.

Run: `/work/main/.venv/bin/python benchmarks/openclaw_record/memory.py --scratch /tmp/ocrec [--openclaw DIR]`
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import memory_cases as cases  # noqa: E402
import memory_workspace  # noqa: E402
from launcher import OPENCLAW_VERSION, LauncherError, OpenClawLauncher, Placeholders  # noqa: E402

DRIVER = HERE / "memory_driver.mjs"
DEFAULT_OUT = HERE.parents[1] / "tests" / "data" / f"openclaw-{OPENCLAW_VERSION}" / "memory"
CLOCK = "<clock>"
CHUNKED_VARIANTS = ("extra-paths", "chunking-small", "trigram")


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Run:
    """One config variant: its own HOME/state dir over the shared workspace root."""

    def __init__(self, launcher: OpenClawLauncher, scratch: Path, root: Path, name: str):
        self.launcher = launcher
        self.root = root
        self.workspace = root / "ws"
        self.home = root / "home"
        self.state = scratch / "state" / name
        self.name = name
        self.places = Placeholders({"WORKSPACE": self.workspace, "HOME": self.home,
                                    "STATE": self.state / "openclaw-state", "ROOT": root})

    def fill(self, value: Any) -> Any:
        """Substitute this run's folders for the tokens in a case value."""
        if isinstance(value, str):
            for token, path in (("<WORKSPACE>", self.workspace), ("<ROOT>", self.root), ("<HOME>", self.home)):
                value = value.replace(token, str(path))
            return value
        if isinstance(value, list):
            return [self.fill(item) for item in value]
        if isinstance(value, dict):
            return {key: self.fill(item) for key, item in value.items()}
        return value

    def config(self, memory_search: dict[str, Any] | None) -> dict[str, Any]:
        """openclaw.json: the workspace, plus `agents.defaults.memorySearch` when the variant sets it."""
        defaults: dict[str, Any] = {"workspace": "<WORKSPACE>"}
        if memory_search is not None:
            defaults["memorySearch"] = memory_search
        return {"agents": {"defaults": defaults}}

    def write_config(self, config: dict[str, Any]) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.fill(config), ensure_ascii=False)
        (self.state_dir / "openclaw.json").write_text(text, encoding="utf-8")

    def drive(self, steps: list[dict[str, Any]]) -> list[Any]:
        """Run the driver with HOME = the root's `home/` and the variant's own state dir."""
        out, timing = self.launcher.run(DRIVER, {"agentId": "main", "steps": self.fill(steps)}, self.state,
                                        home=self.home, state=self.state_dir)
        log(f"{self.name}: {len(steps)} steps in {timing['wall_s']} s wall, {timing['cpu_s']} s CPU, "
            f"load {os.getloadavg()[0]:.2f}")
        for step, result in zip(steps, out["steps"], strict=True):
            if "failed" in result:
                raise SystemExit(f"{self.name}: step {step} failed: {result['failed']}")
        return self.places.apply(out["steps"])

    def cli(self, args: list[str]) -> str:
        """The real `openclaw` CLI in this run's environment."""
        return self.launcher.cli(args, self.state, home=self.home, state=self.state_dir)

    @property
    def state_dir(self) -> Path:
        return self.state / "openclaw-state"

    @property
    def db(self) -> Path:
        return self.state_dir / "memory" / "main.sqlite"


def dump_index(db: Path, scratch: Path, *, texts: bool = True, fts: bool = False) -> dict[str, Any]:
    """The tables of an OpenClaw index, read from a copy. Without `texts`, chunks keep their hash (which is
    sha256 of the text) instead of the text; FTS rows are checked to hold exactly their chunk's text and are
    then stored without it."""
    copy = scratch / "dump.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{copy}{suffix}").unlink(missing_ok=True)
        if Path(f"{db}{suffix}").exists():
            shutil.copyfile(f"{db}{suffix}", f"{copy}{suffix}")
    conn = sqlite3.connect(copy)
    try:
        meta = [{"key": k, "value": v} for k, v in conn.execute("SELECT key, value FROM meta ORDER BY key")]
        files = [{"path": p, "source": s, "hash": h, "size": z, "mtime": CLOCK}
                 for p, s, h, z in conn.execute("SELECT path, source, hash, size FROM files ORDER BY path, source")]
        rows = conn.execute("SELECT id, path, source, start_line, end_line, hash, model, text, embedding, "
                            "ROW_NUMBER() OVER (PARTITION BY path, source ORDER BY rowid) FROM chunks "
                            "ORDER BY path, start_line, end_line, id").fetchall()
        chunk_text = {row[0]: row[7] for row in rows}
        # `ordinal`: the chunk's place among its file's rows as OpenClaw inserted them (ties in bm25 keep it).
        chunks = [{"id": i, "path": p, "source": s, "start_line": a, "end_line": b, "hash": h, "model": m,
                   **({"text": t} if texts else {}), "embedding": e, "updated_at": CLOCK, "ordinal": n}
                  for i, p, s, a, b, h, m, t, e, n in rows]
        tables: dict[str, Any] = {"meta": meta, "files": files, "chunks": chunks}
        if not fts:
            return tables
        schema = [{"type": t, "name": n, "tbl_name": b, "sql": s} for t, n, b, s in conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")]
        fts_rows = []
        for text, i, p, s, m, a, b in conn.execute("SELECT text, id, path, source, model, start_line, end_line "
                                                   "FROM chunks_fts ORDER BY path, start_line, end_line, id"):
            if chunk_text.get(i) != text:
                raise SystemExit(f"{db}: FTS row {i} does not hold its chunk's text")
            fts_rows.append({"id": i, "path": p, "source": s, "model": m, "start_line": a, "end_line": b})
        conn.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, chunks_fts, row)")
        vocab = [[term, docs, count] for term, docs, count in
                 conn.execute("SELECT term, doc, cnt FROM temp.vocab ORDER BY term")]
        cache = conn.execute("SELECT COUNT(*) FROM embedding_cache").fetchone()[0]
        return {"schema": schema, **tables, "fts": fts_rows, "fts_text": "each FTS row holds its chunk's text",
                "fts_vocab_row": vocab, "embedding_cache_rows": cache}
    finally:
        conn.close()


def search_steps(queries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every CLI search first, then every tool search: `runMemorySearch` closes the memory manager it used,
    and OpenClaw caches managers per process, so a tool call between two CLI calls would find it closed."""
    cli = [{"op": "cli_search", **case} for case in queries]
    tool = [{"op": "tool", "name": "memory_search", "params": case} for case in queries]
    return cli + tool


def compact_cli(result: dict[str, Any]) -> dict[str, Any]:
    """The CLI JSON as [id, startLine, endLine, score, textScore] rows in OpenClaw's order, plus the sha256 of
    the text it printed (the snippets are the chunks' first 700 UTF-16 units; the tool JSON has them)."""
    if "text" not in result:
        return result
    rows = [[r["id"], r["startLine"], r["endLine"], r["score"], r["textScore"]]
            for r in json.loads(result["text"])["results"]]
    return {"results": rows, "sha256": hashlib.sha256(result["text"].encode("utf-8")).hexdigest()}


def paired(queries: list[dict[str, Any]], results: list[Any]) -> list[dict[str, Any]]:
    """[{query…, cli, tool}] from the results of `search_steps`."""
    n = len(queries)
    return [{**case, "cli": compact_cli(results[i]), "tool": results[n + i]} for i, case in enumerate(queries)]


def record_default(run: Run, scratch: Path) -> dict[str, Any]:
    head = [{"op": "index", "force": True}, {"op": "status"}, {"op": "scope"},
            {"op": "keywords", "queries": [case["query"] for case in cases.QUERIES]}]
    searches = search_steps(cases.QUERIES)
    tool_only = [{"op": "tool", "name": "memory_search", **c} for c in cases.TOOL_ONLY_SEARCHES]
    gets = [{"op": "tool", "name": "memory_get", "params": g} for g in cases.GETS]
    results = run.drive(head + searches + tool_only + gets)
    index_log, status, scope, keywords = results[:4]
    rest = results[4:]
    n_search, n_tool = len(searches), len(tool_only)
    searched = [{**entry, "keywords": words} for entry, words in zip(paired(cases.QUERIES, rest[:n_search]),
                                                                      keywords, strict=True)]
    return {
        "index_log": index_log, "status": status, "scope": scope,
        "searches": searched,
        "tool_only": [{**c, "tool": r} for c, r in zip(cases.TOOL_ONLY_SEARCHES, rest[n_search:n_search + n_tool],
                                                          strict=True)],
        "gets": [{"params": g, "tool": r} for g, r in zip(cases.GETS, rest[n_search + n_tool:], strict=True)],
        "index": dump_index(run.db, scratch, fts=True),
    }


def record_variant(run: Run, scratch: Path, name: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [{"op": "index", "force": True}, {"op": "status"}, {"op": "scope"}]
    queries: list[dict[str, Any]] = []
    gets: list[dict[str, Any]] = []
    if name == "extra-paths":
        queries = [{"query": q} for q in cases.EXTRA_QUERIES]
        gets = cases.EXTRA_GETS
    elif name == "trigram":
        queries = [{"query": q} for q in cases.TRIGRAM_QUERIES]
    steps += search_steps(queries) + [{"op": "tool", "name": "memory_get", "params": g} for g in gets]
    results = run.drive(steps)
    index_log, status, scope = results[:3]
    n_search = 2 * len(queries)
    index = dump_index(run.db, scratch, texts=False, fts=name in ("trigram", "chunking-small"))
    out: dict[str, Any] = {"index_log": index_log, "status": status, "scope": scope, "index": index}
    if queries:
        out["searches"] = paired(queries, results[3:3 + n_search])
    if gets:
        out["gets"] = [{"params": g, "tool": r} for g, r in zip(gets, results[3 + n_search:], strict=True)]
    return out


def index_delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What an incremental sync changed: chunk and FTS rows added / removed (by chunk id), every chunk of a
    file whose hash changed (in OpenClaw's insertion order), the rest whole."""
    old = {row["id"] for row in before["chunks"]}
    new = {row["id"] for row in after["chunks"]}
    hashes = {row["path"]: row["hash"] for row in before["files"]}
    changed = {row["path"] for row in after["files"] if hashes.get(row["path"]) != row["hash"]}
    return {
        "meta": after["meta"], "files": after["files"],
        "chunks_of_changed_files": [row for row in after["chunks"] if row["path"] in changed],
        "chunks_added": [row for row in after["chunks"] if row["id"] not in old],
        "chunks_removed": sorted(old - new),
        "fts_added": [row for row in after["fts"] if row["id"] not in old],
        "fts_removed": sorted({row["id"] for row in before["fts"]} - {row["id"] for row in after["fts"]}),
        "fts_vocab_row": after["fts_vocab_row"],
    }


def record_update(run: Run, scratch: Path, before: dict[str, Any]) -> dict[str, Any]:
    for rel, change in cases.UPDATE_WRITES.items():
        mode, text = change.split(":", 1)
        target = run.root / rel
        with target.open("a" if mode == "append" else "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    for rel in cases.UPDATE_DELETES:
        (run.root / rel).unlink()
    queries = [{"query": q} for q in cases.UPDATE_QUERIES]
    results = run.drive([{"op": "index", "force": False}, {"op": "status"}, *search_steps(queries)])
    return {"writes": cases.UPDATE_WRITES, "deletes": cases.UPDATE_DELETES, "index_log": results[0],
            "status": results[1], "searches": paired(queries, results[2:]),
            "index": index_delta(before, dump_index(run.db, scratch, fts=True))}


def cli_check(run: Run, default: dict[str, Any]) -> list[dict[str, Any]]:
    """The real `openclaw memory search --json` for a few queries, compared with the in-process output."""
    plain = [s for s in default["searches"] if not set(s) - {"query", "cli", "tool", "keywords"}]
    recorded = {json.dumps(s["query"]): s["cli"]["sha256"] for s in plain}
    checks = []
    for case in cases.CLI_CHECK_QUERIES:
        started = time.perf_counter()
        stdout = run.cli(["memory", "search", case["query"], "--json"])
        seconds = time.perf_counter() - started
        printed = run.places.text(stdout[stdout.index("{"):].rstrip("\n"))
        same = hashlib.sha256(printed.encode("utf-8")).hexdigest() == recorded[json.dumps(case["query"])]
        log(f"CLI check {case['query']!r}: {'identical' if same else 'DIFFERENT'} ({seconds:.0f} s)")
        checks.append({"query": case["query"], "identical": same})
    return checks


def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scratch", type=Path, required=True, help="work folder (wiped, except the plugin stage)")
    parser.add_argument("--openclaw", type=Path, help="the openclaw package folder (…/node_modules/openclaw)")
    parser.add_argument("--node", type=Path, help="a Node 24 binary")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--variants", default=",".join(cases.VARIANTS), help="comma-separated variant names")
    parser.add_argument("--no-cli-check", action="store_true", help="skip the slow real-CLI cross-check")
    args = parser.parse_args(argv)

    scratch: Path = args.scratch.resolve()
    for part in ("root", "state"):
        shutil.rmtree(scratch / part, ignore_errors=True)
    root = scratch / "root"
    manifest = memory_workspace.entries()
    memory_workspace.build(root, manifest)
    launcher = OpenClawLauncher(scratch, openclaw_dir=args.openclaw, node=args.node)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    variants: dict[str, Any] = {}
    default: dict[str, Any] | None = None
    for name in args.variants.split(","):
        run = Run(launcher, scratch, root, name)
        config = run.config(cases.VARIANTS[name])
        run.write_config(config)
        log(f"variant {name}")
        if name == "default":
            default = record_default(run, scratch)
            variants[name] = {"config": config, **{k: default[k] for k in ("index_log", "status", "scope")},
                              "index": {"meta": default["index"]["meta"], "chunks_as_default": True}}
        else:
            variants[name] = {"config": config, **record_variant(run, scratch, name)}
            if name not in CHUNKED_VARIANTS and default is not None:
                chunks = variants[name]["index"].pop("chunks")
                same = [c["id"] for c in chunks] == [c["id"] for c in default["index"]["chunks"]]
                variants[name]["index"]["chunks_as_default"] = same

    provenance: dict[str, Any] = {"openclaw": OPENCLAW_VERSION, "node": launcher.node_version(),
                                  "placeholders": ["<ROOT>", "<WORKSPACE>", "<HOME>", "<STATE>"],
                                  "clock_placeholder": CLOCK}
    if default is not None:
        run = Run(launcher, scratch, root, "default")
        if not args.no_cli_check:
            provenance["cli_check"] = cli_check(run, default)
        update = record_update(run, scratch, default["index"])
        write_json(args.out / "workspace.json", {"workspace": "ws", "home": "home", "entries": manifest})
        write_json(args.out / "index.json", default["index"])
        write_json(args.out / "search.json", {"searches": default["searches"], "tool_only": default["tool_only"]})
        write_json(args.out / "get.json", {"gets": default["gets"]})
        write_json(args.out / "update.json", update)
        provenance["counts"] = {
            "files": len(default["index"]["files"]), "chunks": len(default["index"]["chunks"]),
            "fts_rows": len(default["index"]["fts"]), "fts_terms": len(default["index"]["fts_vocab_row"]),
            "queries": len(default["searches"]), "tool_only_searches": len(default["tool_only"]),
            "memory_get_calls": len(default["gets"]) + len(variants.get("extra-paths", {}).get("gets", [])),
            "variants": len(variants)}
    write_json(args.out / "variants.json", variants)
    write_json(args.out / "provenance.json", provenance)
    log(f"recorded into {args.out} in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except LauncherError as exc:
        raise SystemExit(f"memory.py: {exc}") from None

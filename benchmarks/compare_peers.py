"""memtui side by side with QMD 2.8.3 and OpenClaw 2026.9.6 on the same workspaces; writes BENCHMARKS.md.

Sections (run any subset; results merge into one JSON file and the Markdown is rewritten each time):

* notes   — generated daily-log workspaces (`notes.py`) of each `--sizes` note count: index time, per-query
            latency (needle queries + a fixed list) and needle top-1 for memtui in process (a child
            process per size, so its peak RSS is its own), memtui's CLI, QMD (`search` and lex query) and
            OpenClaw (index capped by `--oc-index-cap`).
* scifact — BEIR SciFact train: nDCG@10 and zero-hit queries; OpenClaw on every `--oc-stride`-th query.
* locomo  — LoCoMo dev: evidence recall@6/@10 and characters per query; OpenClaw on a stride subset.
* hybrid  — memtui with its local MiniLM model (real vectors) on the smallest notes workspace: query
            embedding and search timed apart.
* scifact-hybrid, locomo-hybrid — the quality sections with real vectors from one model for everyone:
            memtui's MiniLM GGUF in memtui, in QMD (`QMD_EMBED_MODEL`, typed `vec:` queries) and, through
            `embed_server.py` (an OpenAI-compatible endpoint on 127.0.0.1), in OpenClaw's `openai` provider.
            `--seed-cache STORE` reuses a memtui index's embedding cache (e.g. `memtui eval scifact --keep`).

Run: `python benchmarks/compare_peers.py --sections notes,scifact,locomo,hybrid,locomo-hybrid`
(after `bash benchmarks/install_peers.sh all`; missing peers are reported and skipped).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shlex
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_index_search import QUERIES, percentile
from embed_server import EmbeddingServer, load_cache
from embed_server import start as start_embed_server
from notes import generate
from peers import Hit, OpenClawRunner, PeerError, PeerSearch, QmdRunner, find_peers

from memtui import __version__ as memtui_version
from memtui.evaluation.engine import fresh_env, open_manager
from memtui.evaluation.locomo import convert_conversation, load_locomo
from memtui.evaluation.metrics import evidence_recall, mean, ndcg_at_k
from memtui.evaluation.scifact import build_workspace, doc_id_of, load_qrels, load_queries

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EVAL = Path("/work/shared/eval")
K = 10
LOCOMO_KS = (6, 10)
SearchFn = Callable[[str, int], PeerSearch]


# -- small helpers ---------------------------------------------------------------------------------

def log(message: str) -> None:
    """Progress on stderr with a timestamp."""
    print(f"[{datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)


def latency_stats(seconds: list[float]) -> dict[str, float]:
    """Median and nearest-rank p95 in milliseconds."""
    ms = [s * 1000 for s in seconds]
    return {"p50_ms": statistics.median(ms), "p95_ms": percentile(ms, 0.95), "n": len(ms)} if ms else {}


def load_avg() -> list[float]:
    """The 1/5/15-minute load averages."""
    return [round(x, 2) for x in os.getloadavg()]


def memtui_searcher(manager: Any, min_score: float | None, profile: str | None = None) -> SearchFn:
    """memtui in process as a `SearchFn` (hits carry the snippet length, as the agent sees it); with a
    provider the query embedding is part of the timed call."""
    def search(query: str, k: int) -> PeerSearch:
        cpu = time.thread_time()
        started = time.perf_counter()
        results = manager.search(query, max_results=k, min_score=min_score, profile=profile).results[:k]
        seconds = time.perf_counter() - started
        return PeerSearch([Hit(h.path, h.start_line, h.end_line, len(h.snippet)) for h in results], seconds,
                          time.thread_time() - cpu)
    return search


@dataclass
class Vectors:
    """The local MiniLM model shared by every system of a hybrid section, and the OpenAI-compatible endpoint
    that serves it to OpenClaw."""

    model: Path
    server: EmbeddingServer
    seed: Path | None

    @classmethod
    def start(cls, scratch: Path, seed: Path | None) -> Vectors:
        """Install the model under `scratch` and start the endpoint (answering from `seed`'s cache)."""
        from memtui.embeddings.model_store import install_model, installed_model_path

        state = scratch / "model-state"
        model = installed_model_path(state) or install_model(state)
        return cls(model, start_embed_server(str(model), cache=load_cache(seed) if seed else None), seed)

    def manager(self, state: Path, workspace: Path) -> Any:
        """A memtui manager with the local provider, its embedding cache seeded from `seed`."""
        manager = open_manager(fresh_env(state, workspace, "memtui", "local"))
        if self.seed is not None:
            with manager.store.lock, manager.store.conn:
                manager.store.conn.execute("ATTACH DATABASE ? AS seed", (str(self.seed),))
                manager.store.conn.execute("INSERT OR IGNORE INTO embedding_cache SELECT * FROM seed.embedding_cache")
            with manager.store.lock:
                manager.store.conn.execute("DETACH DATABASE seed")
        return manager

    def learn(self, manager: Any) -> None:
        """Let the endpoint answer every text `manager` has embedded from its cache (same model, same
        vectors), so a peer chunking the same text is not embedded twice."""
        self.server.cache.update(load_cache(manager.store.path))

    def stats(self) -> dict[str, int]:
        """What OpenClaw asked the endpoint for."""
        return {"requests": self.server.requests, "inputs": self.server.inputs, "cached": self.server.cached}


def peer_index_with_vectors(qmd: QmdRunner | None, oc: OpenClawRunner | None, workspace: Path,
                            args: argparse.Namespace, failures: dict[str, str], index_s: dict[str, float],
                            label: str) -> None:
    """Index (and for QMD embed) `workspace` in each peer that is still healthy; failures are recorded."""
    if qmd is not None and "qmd" not in failures:
        try:
            log(f"{label}: qmd index + embed")
            seconds = qmd.index(workspace) + qmd.embed(timeout=args.embed_cap)
            index_s["qmd-vec"] = index_s["qmd-hybrid"] = index_s.get("qmd-vec", 0.0) + seconds
        except PeerError as exc:
            failures["qmd"] = f"{label}: {exc}"
    if oc is not None and "openclaw" not in failures:
        try:
            log(f"{label}: openclaw index with embeddings")
            index_s["openclaw-hybrid"] = index_s.get("openclaw-hybrid", 0.0) + oc.index(workspace,
                                                                                      timeout=args.embed_cap)
        except PeerError as exc:
            failures["openclaw"] = f"{label}: {exc}"


def memtui_cli(state: Path, workspace: Path) -> list[str]:
    """The memtui CLI prefix for one isolated agent."""
    return [sys.executable, "-m", "memtui", "--state-dir", str(state), "--workspace", str(workspace),
            "--provider", "none"]


def run_timed(cmd: list[str], timeout: float, env: dict[str, str] | None = None) -> tuple[str, float]:
    """Run a command, raising on failure; returns stdout and wall seconds."""
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO,
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:6])} …: exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return proc.stdout, time.perf_counter() - started


def cli_env(state: Path) -> dict[str, str]:
    """Environment for the memtui CLI: isolated HOME, no OPENCLAW_* variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
    env["HOME"] = str(state)
    return env


def cli_searcher(state: Path, workspace: Path) -> SearchFn:
    """`python -m memtui search Q --json` as a `SearchFn`."""
    env = cli_env(state)

    def search(query: str, k: int) -> PeerSearch:
        cmd = [*memtui_cli(state, workspace), "search", query, "--json", "--max-results", str(k)]
        out, seconds = run_timed(cmd, 120, env)
        rows = json.loads(out)["results"]
        return PeerSearch([Hit(r["path"], r["startLine"], r["endLine"], len(r["snippet"])) for r in rows],
                          seconds)
    return search


# -- generated notes -------------------------------------------------------------------------------

def notes_workspace(scratch: Path, notes: int) -> tuple[Path, list[tuple[str, str]]]:
    """The generated workspace for `notes` (reused when already generated) and its needle queries."""
    workspace = scratch / f"notes-{notes}" / "ws"
    needles_file = workspace.parent / "needles.json"
    if not needles_file.exists():
        log(f"generating {notes} notes")
        needles = generate(workspace, notes)
        needles_file.write_text(json.dumps(needles), encoding="utf-8")
    return workspace, [tuple(n) for n in json.loads(needles_file.read_text(encoding="utf-8"))]


def query_run(search: SearchFn, needles: list[tuple[str, str]], rounds: int = 1) -> dict[str, Any]:
    """Latency over needles + the fixed queries (`rounds` times) and needle top-1."""
    queries = [q for q, _ in needles] + QUERIES
    times: list[float] = []
    cpu: list[float] = []
    top1 = 0
    for round_no in range(rounds):
        for query in queries:
            result = search(query, K)
            times.append(result.seconds)
            if result.cpu_seconds is not None:
                cpu.append(result.cpu_seconds)
            if round_no == 0:
                expected = dict(needles).get(query)
                top1 += bool(expected and result.hits and result.hits[0].path == expected)
    cpu_stats = {f"cpu_{key}": value for key, value in latency_stats(cpu).items() if key != "n"}
    return {**latency_stats(times), **cpu_stats, "top1": top1, "needles": len(needles), "queries": len(queries)}


def memtui_worker(workspace: Path, state: Path, profile: str, needles: list[tuple[str, str]],
                  reindex: bool = True) -> dict[str, Any]:
    """memtui in process on one workspace (run in a child process): index, latency, top-1, peak RSS.

    The memtui profile's in-memory accelerator is built (and timed) before the queries, so they measure
    the steady state. With `reindex` False the index already in `state` is searched as it is (latency only)."""
    env = fresh_env(state, workspace, profile, "none")
    with open_manager(env) as manager:
        started = time.perf_counter()
        if reindex:
            manager.sync(force=True)
        index_s = time.perf_counter() - started if reindex else None
        chunks = manager.store.chunk_count()
        started = time.perf_counter()
        if profile == "memtui":
            manager.fast.prepare(manager.store, vectors=False)
        warm_s = time.perf_counter() - started
        run = query_run(memtui_searcher(manager, None), needles, rounds=5)
    files = len(list(workspace.rglob("*.md")))
    return {"index_s": index_s, "accelerator_build_s": warm_s, "chunks": chunks, "files": files, **run,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def run_memtui_child(workspace: Path, state: Path, profile: str, needles_file: Path,
                     mode: str = "--worker") -> dict[str, Any]:
    """Start `memtui_worker` in a fresh Python process (`--worker` or `--search-worker`) and read its JSON."""
    out, _ = run_timed([sys.executable, __file__, mode, str(workspace), str(state), profile,
                        str(needles_file)], 7200)
    return json.loads(out)


def bench_latency(scratch: Path, notes: int, profiles: list[str]) -> dict[str, Any]:
    """Search latency (wall and thread CPU) of the latest indexes an earlier `notes` run left (no re-indexing)."""
    workspace, _ = notes_workspace(scratch, notes)
    row: dict[str, Any] = {"notes": notes, "load_before": load_avg()}
    for profile in profiles:
        states = sorted(workspace.parent.glob(f"runs-*/mt-{profile}"))
        if not states:
            row[f"memtui-{profile}"] = None
            continue
        log(f"latency {notes}: memtui in process ({profile} profile), existing index {states[-1]}")
        row[f"memtui-{profile}"] = run_memtui_child(workspace, states[-1], profile,
                                                    workspace.parent / "needles.json", "--search-worker")
    row["load_after"] = load_avg()
    return row


def bench_notes(scratch: Path, notes: int, peers: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Every system on one generated workspace."""
    workspace, needles = notes_workspace(scratch, notes)
    needles_file = workspace.parent / "needles.json"
    runs = workspace.parent / f"runs-{int(time.time())}"
    row: dict[str, Any] = {"notes": notes, "load_before": load_avg()}
    wanted = args.systems.split(",")
    for profile in ("memtui", "openclaw"):
        if f"memtui-{profile}" in wanted:
            log(f"notes {notes}: memtui in process ({profile} profile)")
            row[f"memtui-{profile}"] = run_memtui_child(workspace, runs / f"mt-{profile}", profile, needles_file)
            row.setdefault("chunks", row[f"memtui-{profile}"]["chunks"])
    if "memtui-cli" in wanted:
        log(f"notes {notes}: memtui CLI")
        state = runs / "mt-cli"
        state.mkdir(parents=True)
        _, index_s = run_timed([*memtui_cli(state, workspace), "index", "--force"], 7200, cli_env(state))
        row["memtui-cli"] = {"index_s": index_s, **query_run(cli_searcher(state, workspace), needles)}
    if peers.qmd and "qmd" in wanted:
        log(f"notes {notes}: QMD")
        try:
            qmd = QmdRunner(peers, runs)
            row["qmd"] = {"index_s": qmd.index(workspace), **query_run(qmd.search, needles)}
            qmd.mode = "lex"
            row["qmd-lex"] = {"index_s": row["qmd"]["index_s"], **query_run(qmd.search, needles)}
        except PeerError as exc:
            row["qmd"] = {"error": str(exc)}
    if peers.openclaw and "openclaw" in wanted:
        log(f"notes {notes}: OpenClaw (index cap {args.oc_index_cap:.0f} s)")
        oc = OpenClawRunner(peers, runs)
        try:
            index_s = oc.index(workspace, timeout=args.oc_index_cap)
            row["openclaw"] = {"index_s": index_s, **query_run(oc.search, needles)}
        except PeerError as exc:
            row["openclaw"] = {"error": str(exc), "timed_out": "timed out" in str(exc),
                               "cap_s": args.oc_index_cap}
    row["load_after"] = load_avg()
    return row


# -- SciFact -----------------------------------------------------------------------------------------

def scifact_scores(search: SearchFn, todo: list[tuple[str, str]], qrels: dict[str, dict[str, float]],
                   label: str) -> dict[str, Any]:
    """Per-query nDCG@10 and zero-hit flags for one system."""
    per_query: dict[str, dict[str, float]] = {}
    times = []
    for done, (qid, text) in enumerate(todo, start=1):
        try:
            result = search(text, K)
        except PeerError as exc:
            log(f"{label}: query {qid} failed: {exc}")
            per_query[qid] = {"ndcg": 0.0, "zero": 1.0, "error": 1.0}
            continue
        ranking = [(doc, -float(pos)) for pos, hit in enumerate(result.hits) if (doc := doc_id_of(hit.path))]
        per_query[qid] = {"ndcg": ndcg_at_k(ranking, qrels[qid], K), "zero": float(not result.hits)}
        times.append(result.seconds)
        if done % 100 == 0:
            log(f"{label}: {done}/{len(todo)}")
    return {"per_query": per_query, **latency_stats(times)}


def summarize_scifact(per_query: dict[str, dict[str, float]], ids: list[str]) -> dict[str, Any]:
    """nDCG@10, zero-hit count and failures over the query ids."""
    rows = [per_query[i] for i in ids if i in per_query]
    return {"ndcg@10": mean([r["ndcg"] for r in rows]), "zero_hit": int(sum(r["zero"] for r in rows)),
            "errors": int(sum(r.get("error", 0) for r in rows)), "queries": len(rows)}


def bench_scifact(scratch: Path, peers: Any, args: argparse.Namespace,
                  vectors: Vectors | None = None) -> dict[str, Any]:
    """SciFact train for memtui (both profiles), QMD (all queries) and OpenClaw (stride subset); with
    `vectors`, the hybrid forms of each (QMD and OpenClaw on the subset)."""
    data = EVAL / "scifact"
    qrels = load_qrels(data / "qrels" / "train.tsv")
    todo = [(qid, text) for qid, text in load_queries(data / "queries-train.jsonl") if qid in qrels]
    subset = todo[:: args.oc_stride]
    workspace = scratch / "scifact" / "ws"
    if not (workspace / "memory").exists():
        build_workspace(data / "corpus.jsonl", workspace)
    runs = scratch / "scifact" / f"runs-{int(time.time())}"
    out: dict[str, Any] = {"queries": len(todo), "subset_stride": args.oc_stride, "subset_queries": len(subset),
                           "lex_stride": args.lex_stride,
                           "load_before": load_avg(), "systems": {}}
    per_system: dict[str, dict[str, Any]] = {}
    if vectors is None:
        for profile in ("memtui", "openclaw"):
            env = fresh_env(runs / f"mt-{profile}", workspace, profile, "none")
            with open_manager(env) as manager:
                started = time.perf_counter()
                manager.sync(force=True)
                index_s = time.perf_counter() - started
                manager.fast.prepare(manager.store, vectors=False)
                log(f"scifact: memtui {profile}")
                per_system[f"memtui-{profile}"] = {"index_s": index_s, **scifact_scores(
                    memtui_searcher(manager, 0.0), todo, qrels, f"memtui-{profile}")}
    else:
        with vectors.manager(runs / "mt-hybrid", workspace) as manager:
            log("scifact hybrid: memtui index (local model)")
            started = time.perf_counter()
            manager.sync(force=True)
            index_s = time.perf_counter() - started
            manager.fast.prepare(manager.store, vectors=True)
            vectors.learn(manager)
            for profile in ("memtui", "openclaw"):
                log(f"scifact hybrid: memtui {profile}")
                per_system[f"memtui-{profile}"] = {"index_s": index_s, **scifact_scores(
                    memtui_searcher(manager, 0.0, profile), todo, qrels, f"memtui-{profile}")}
    failures: dict[str, str] = {}
    if peers.qmd and vectors is None:
        qmd = QmdRunner(peers, runs)
        try:
            index_s = qmd.index(workspace)
        except PeerError as exc:
            failures["qmd"] = str(exc)
        for name, mode, queries in (("qmd", "search", todo), ("qmd-lex", "lex", todo[:: args.lex_stride])):
            if "qmd" in failures:
                break
            qmd.mode = mode
            log(f"scifact: {name} on {len(queries)} queries")
            per_system[name] = {"index_s": index_s, **scifact_scores(qmd.search, queries, qrels, name)}
    if peers.openclaw and vectors is None:
        oc = OpenClawRunner(peers, runs)
        log("scifact: openclaw index")
        try:
            index_s = oc.index(workspace, timeout=args.oc_index_cap)
            log(f"scifact: openclaw on {len(subset)} queries")
            per_system["openclaw"] = {"index_s": index_s, **scifact_scores(oc.search, subset, qrels, "openclaw")}
        except PeerError as exc:
            failures["openclaw"] = str(exc)
    if vectors is not None:
        qmd_v = QmdRunner(peers, runs, embed_model=vectors.model, timeout=120) if peers.qmd else None
        oc_v = (OpenClawRunner(peers, runs, embeddings_url=vectors.server.base_url) if peers.openclaw else None)
        index_times: dict[str, float] = {}
        peer_index_with_vectors(qmd_v, oc_v, workspace, args, failures, index_times, "scifact hybrid")
        systems: list[tuple[str, SearchFn]] = []
        if qmd_v is not None and "qmd" not in failures:
            for mode in ("vec", "hybrid"):
                runner = QmdRunner(peers, runs, embed_model=vectors.model, timeout=120, mode=mode)
                runner.workspace = qmd_v.workspace
                systems.append((f"qmd-{mode}", runner.search))
        if oc_v is not None and "openclaw" not in failures:
            oc_v.min_score = 0.0
            systems.append(("openclaw-hybrid", oc_v.search))
        for name, search in systems:
            log(f"scifact hybrid: {name} on {len(subset)} queries")
            per_system[name] = {"index_s": index_times[name], **scifact_scores(search, subset, qrels, name)}
        out["endpoint"] = vectors.stats()
    all_ids = [q for q, _ in todo]
    sub_ids = [q for q, _ in subset]
    for name, result in per_system.items():
        per_query = result.pop("per_query")
        complete = len(per_query) == len(all_ids)
        out["systems"][name] = {**result, "all": summarize_scifact(per_query, all_ids) if complete else None,
                                "subset": summarize_scifact(per_query, sub_ids)}
    out["failures"] = failures
    out["load_after"] = load_avg()
    return out


# -- LoCoMo ------------------------------------------------------------------------------------------

def locomo_question_scores(conv: Any, hits_at: dict[int, list[Hit]], evidence: tuple[str, ...]) -> dict[str, float]:
    """Recall and characters at each k for one question."""
    row: dict[str, float] = {}
    for k, hits in hits_at.items():
        covered: set[str] = set()
        for hit in hits[:k]:
            covered |= conv.covered_turns(hit.path, hit.start, hit.end)
        row[f"recall@{k}"] = evidence_recall(evidence, covered)
        row[f"chars@{k}"] = float(sum(h.text_len for h in hits[:k]))
    return row


def summarize_locomo(rows: list[dict[str, float]]) -> dict[str, Any]:
    """Means over questions."""
    keys = [f"{m}@{k}" for k in LOCOMO_KS for m in ("recall", "chars")]
    return {**{key: mean([r[key] for r in rows]) for key in keys},
            "zero_hit": int(sum(r["zero"] for r in rows)), "questions": len(rows)}


def bench_locomo(scratch: Path, peers: Any, args: argparse.Namespace,
                 vectors: Vectors | None = None) -> dict[str, Any]:
    """LoCoMo dev: memtui (both profiles, one search per k like `memtui eval locomo`), QMD and OpenClaw
    (one search at k=10; @6 is its top 6). OpenClaw answers every `--oc-stride`-th question. With `vectors`,
    the hybrid forms, every system at minScore 0 (a pure ranking comparison at k): memtui embeds once and
    searches with both profiles; QMD's `vec:` and `lex:`+`vec:` queries and OpenClaw run on the subset."""
    samples = load_locomo(EVAL / "locomo" / "locomo-dev.json")
    runs = scratch / "locomo" / f"runs-{int(time.time())}"
    rows: dict[str, list[tuple[int, dict[str, float]]]] = {}
    index_s: dict[str, float] = {}
    times: dict[str, list[float]] = {}
    counter = 0
    failures: dict[str, str] = {}
    load_before = load_avg()
    for sample in samples:
        conv = convert_conversation(sample)
        asked = [q for q in conv.questions if q.evidence]
        numbered = list(enumerate(asked, start=counter))
        subset = [(i, q) for i, q in numbered if i % args.oc_stride == 0]
        counter += len(asked)
        workspace = scratch / "locomo" / conv.sample_id / "ws"
        if not workspace.exists():
            workspace.mkdir(parents=True)
            conv.write(workspace)
        systems: dict[str, tuple[Callable[[str, int], PeerSearch], bool, list[tuple[int, Any]]]] = {}
        managers = []
        if vectors is None:
            for profile in ("memtui", "openclaw"):
                manager = open_manager(fresh_env(runs / conv.sample_id / f"mt-{profile}", workspace, profile, "none"))
                managers.append(manager)
                started = time.perf_counter()
                manager.sync(force=True)
                index_s[f"memtui-{profile}"] = index_s.get(f"memtui-{profile}", 0.0) + time.perf_counter() - started
                manager.fast.prepare(manager.store, vectors=False)
                systems[f"memtui-{profile}"] = (memtui_searcher(manager, None), True, numbered)
        else:
            manager = vectors.manager(runs / conv.sample_id / "mt-hybrid", workspace)
            managers.append(manager)
            log(f"locomo {conv.sample_id}: memtui index (local model)")
            started = time.perf_counter()
            manager.sync(force=True)
            manager.fast.prepare(manager.store, vectors=True)
            vectors.learn(manager)
            for profile in ("memtui", "openclaw"):
                index_s[f"memtui-{profile}"] = index_s.get(f"memtui-{profile}", 0.0) + time.perf_counter() - started
                systems[f"memtui-{profile}"] = (memtui_searcher(manager, 0.0, profile), True, numbered)
            qmd_v = (QmdRunner(peers, runs / conv.sample_id, embed_model=vectors.model, timeout=120)
                     if peers.qmd else None)
            oc_v = (OpenClawRunner(peers, runs / conv.sample_id, embeddings_url=vectors.server.base_url)
                    if peers.openclaw else None)
            peer_index_with_vectors(qmd_v, oc_v, workspace, args, failures, index_s, f"locomo {conv.sample_id}")
            if qmd_v is not None and "qmd" not in failures:
                for mode in ("vec", "hybrid"):
                    runner = QmdRunner(peers, runs / conv.sample_id, embed_model=vectors.model, timeout=120,
                                       mode=mode)
                    runner.workspace = qmd_v.workspace
                    systems[f"qmd-{mode}"] = (runner.search, False, subset)
            if oc_v is not None and "openclaw" not in failures:
                oc_v.min_score = 0.0
                systems["openclaw-hybrid"] = (oc_v.search, False, subset)
        if peers.qmd and "qmd" not in failures and vectors is None:
            qmd = QmdRunner(peers, runs / conv.sample_id)
            try:
                index_s["qmd"] = index_s.get("qmd", 0.0) + qmd.index(workspace)
            except PeerError as exc:
                failures["qmd"] = f"{conv.sample_id}: {exc}"
                rows.pop("qmd", None)
                rows.pop("qmd-lex", None)
        if peers.qmd and "qmd" not in failures and vectors is None:
            qmd_lex = QmdRunner(peers, runs / conv.sample_id, mode="lex")
            qmd_lex.workspace = qmd.workspace
            systems["qmd"] = (qmd.search, False, numbered)
            systems["qmd-lex"] = (qmd_lex.search, False, [(i, q) for i, q in numbered if i % args.lex_stride == 0])
        oc = (OpenClawRunner(peers, runs / conv.sample_id)
              if peers.openclaw and "openclaw" not in failures and vectors is None else None)
        if oc is not None:
            log(f"locomo {conv.sample_id}: openclaw index")
            try:
                index_s["openclaw"] = index_s.get("openclaw", 0.0) + oc.index(workspace, timeout=args.oc_index_cap)
            except PeerError as exc:
                failures["openclaw"] = f"{conv.sample_id}: {exc}"
                rows.pop("openclaw", None)
        if oc is not None and "openclaw" not in failures:
            systems["openclaw"] = (oc.search, False, subset)
        for name, (search, per_k, questions) in systems.items():
            log(f"locomo {conv.sample_id}: {name} on {len(questions)} questions")
            for number, q in questions:
                try:
                    if per_k:
                        results = {k: search(q.question, k) for k in LOCOMO_KS}
                    else:
                        top = search(q.question, max(LOCOMO_KS))
                        results = {k: top for k in LOCOMO_KS}
                except PeerError as exc:
                    log(f"{name}: question failed: {exc}")
                    results = {k: PeerSearch([], 0.0) for k in LOCOMO_KS}
                times.setdefault(name, []).append(results[max(LOCOMO_KS)].seconds)
                row = locomo_question_scores(conv, {k: r.hits for k, r in results.items()}, q.evidence)
                row["zero"] = float(not results[max(LOCOMO_KS)].hits)
                rows.setdefault(name, []).append((number, row))
        for manager in managers:
            manager.close()
    out: dict[str, Any] = {"questions": counter, "subset_stride": args.oc_stride, "lex_stride": args.lex_stride,
                           "load_before": load_before,
                           "systems": {}}
    for name, numbered_rows in rows.items():
        subset = [r for i, r in numbered_rows if i % args.oc_stride == 0]
        out["systems"][name] = {
            "index_s": index_s.get(name), **latency_stats(times.get(name, [])),
            "all": summarize_locomo([r for _, r in numbered_rows]) if len(numbered_rows) == counter else None,
            "subset": summarize_locomo(subset),
        }
    out["subset_questions"] = len(range(0, counter, args.oc_stride))
    out["failures"] = failures
    if vectors is not None:
        out["endpoint"] = vectors.stats()
    out["load_after"] = load_avg()
    return out


# -- hybrid (real local vectors) -----------------------------------------------------------------------

def bench_hybrid(scratch: Path, notes: int) -> dict[str, Any]:
    """memtui hybrid with its installed local model on one notes workspace (embedding timed apart)."""
    from memtui.embeddings.model_store import install_model, installed_model_path

    workspace, needles = notes_workspace(scratch, notes)
    state = scratch / f"notes-{notes}" / f"hybrid-{int(time.time())}"
    state.mkdir(parents=True)
    model = installed_model_path(state) or install_model(state)
    env = fresh_env(state, workspace, "memtui", "local")
    queries = [q for q, _ in needles] + QUERIES
    with open_manager(env) as manager:
        if manager.provider is None:
            return {"error": "local provider did not start"}
        log(f"hybrid: embedding notes-{notes} with {model.name}")
        started = time.perf_counter()
        manager.sync(force=True)
        index_s = time.perf_counter() - started
        embed_t, search_t, top1, modes = [], [], 0, set()
        for round_no in range(3):
            for query in queries:
                t0 = time.perf_counter()
                vector = manager.embed_query(query)
                t1 = time.perf_counter()
                response = manager.search(query, max_results=K, query_vector=vector)
                t2 = time.perf_counter()
                embed_t.append(t1 - t0)
                search_t.append(t2 - t1)
                modes.add(response.mode)
                if round_no == 0:
                    expected = dict(needles).get(query)
                    top1 += bool(expected and response.results and response.results[0].path == expected)
        return {"notes": notes, "chunks": manager.store.chunk_count(), "model": model.name, "index_s": index_s,
                "embed": latency_stats(embed_t), "search": latency_stats(search_t), "top1": top1,
                "needles": len(needles), "mode": "/".join(sorted(modes)), "load": load_avg()}


# -- machine and report ------------------------------------------------------------------------------

def machine(peers: Any) -> dict[str, Any]:
    """CPU, cores, RAM and tool versions."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                  if line.startswith("MemTotal"))
    info: dict[str, Any] = {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": round(mem_kb / 1024 / 1024, 1),
                            "os": platform.platform(), "python": platform.python_version(),
                            "sqlite": sqlite3.sqlite_version, "memtui": memtui_version,
                            "missing": peers.missing, "date": datetime.now(UTC).isoformat(timespec="minutes")}
    if peers.node:
        info["node"] = subprocess.run([str(peers.node), "--version"], capture_output=True, text=True,
                                      timeout=30).stdout.strip()
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / "memtui-bench-versions"
    for key, runner in (("qmd", QmdRunner), ("openclaw", OpenClawRunner)):
        if getattr(peers, key):
            try:
                info[key] = runner(peers, scratch).version()
            except PeerError as exc:
                info[key] = f"unavailable: {exc}"
    return info


def fmt(value: Any, digits: int = 3) -> str:
    """A table cell."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


NOTE_SYSTEMS = [("memtui-memtui", "memtui in process, memtui profile"),
                ("memtui-openclaw", "memtui in process, openclaw profile"),
                ("memtui-cli", "memtui CLI (`python -m memtui search --json`)"),
                ("qmd", "QMD `search`"), ("qmd-lex", "QMD `query 'lex: …' --no-rerank`"),
                ("openclaw", "OpenClaw CLI, provider none")]


def notes_table(results: dict[str, Any]) -> list[str]:
    """The generated-notes comparison."""
    lines = ["| notes | chunks (memtui) | system | index s | p50 ms | p95 ms | needle top-1 | queries |",
             "|---|---|---|---|---|---|---|---|"]
    for key in sorted(results.get("notes", {}), key=int):
        row = {"chunks": None, **results["notes"][key]}
        for name, label in NOTE_SYSTEMS:
            cell = row.get(name)
            if cell is None:
                if name.startswith(("qmd", "openclaw")):
                    lines.append(f"| {fmt(row['notes'])} | {fmt(row['chunks'])} | {label} | not run | — | — | — | — |")
                continue
            if "error" in cell:
                text = "timed out" if cell.get("timed_out") else "failed"
                lines.append(f"| {fmt(row['notes'])} | {fmt(row['chunks'])} | {label} | {text} "
                             f"(cap {fmt(cell.get('cap_s'), 0)} s) | — | — | — | — |")
                continue
            lines.append(f"| {fmt(row['notes'])} | {fmt(row['chunks'])} | {label} | {fmt(cell['index_s'], 2)} | "
                         f"{fmt(cell['p50_ms'], 1)} | {fmt(cell['p95_ms'], 1)} | {cell['top1']}/{cell['needles']} "
                         f"| {cell['n']} |")
    return lines


def scale_table(results: dict[str, Any]) -> list[str]:
    """memtui in process across sizes."""
    lines = ["| notes | chunks | profile | index s | chunks/s | p50 ms | p95 ms | peak RSS MB | load before |",
             "|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(results.get("notes", {}), key=int):
        row = results["notes"][key]
        for profile in ("memtui", "openclaw"):
            cell = row.get(f"memtui-{profile}")
            if cell:
                lines.append(f"| {fmt(row['notes'])} | {fmt(cell['chunks'])} | {profile} | {fmt(cell['index_s'], 2)} "
                             f"| {fmt(cell['chunks'] / cell['index_s'], 0)} | {fmt(cell['p50_ms'], 2)} | "
                             f"{fmt(cell['p95_ms'], 2)} | {fmt(cell['peak_rss_mb'], 0)} | "
                             f"{' / '.join(map(str, row['load_before']))} |")
    return lines


def latency_table(results: dict[str, Any]) -> list[str]:
    """In-process search latency re-measured on existing indexes: wall and thread CPU time."""
    lines = ["| notes | chunks | profile | wall p50 ms | wall p95 ms | CPU p50 ms | CPU p95 ms | queries | "
             "load before → after |", "|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(results.get("latency", {}), key=int):
        row = results["latency"][key]
        for profile in ("memtui", "openclaw"):
            cell = row.get(f"memtui-{profile}")
            if cell:
                lines.append(f"| {fmt(row['notes'])} | {fmt(cell['chunks'])} | {profile} | {fmt(cell['p50_ms'], 2)} | "
                             f"{fmt(cell['p95_ms'], 2)} | {fmt(cell.get('cpu_p50_ms'), 2)} | "
                             f"{fmt(cell.get('cpu_p95_ms'), 2)} | {cell['n']} | {row['load_before']} → "
                             f"{row['load_after']} |")
    return lines


def accelerator_table(results: dict[str, Any]) -> list[str]:
    """bench_scale.py: the memtui profile from ~2k to ~100k chunks, SQLite path versus the accelerator."""
    lines = ["| chunks | index s (keyword) | keyword FTS5 p50 / p95 | keyword accelerator p50 / p95 | "
             "hybrid sqlite-vec+FTS5 p50 / p95 | hybrid accelerator p50 / p95 | accelerator build s | "
             "query embed ms | peak RSS MiB | load before |", "|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(results.get("scale", {}), key=int):
        row = results["scale"][key]

        def cell(name: str, row: dict[str, Any] = row) -> str:
            numbers = row.get(name)
            return f"{numbers['wall_p50_ms']:.2f} / {numbers['wall_p95_ms']:.2f}" if numbers else "—"

        lines.append(f"| {row['chunks']:,} | {row['index_s']:.1f} | {cell('keyword_fts5')} | "
                     f"{cell('keyword_accelerator')} | {cell('hybrid_sqlite')} | {cell('hybrid_accelerator')} | "
                     f"{row['keyword_accelerator']['build_s']:.1f} | {fmt(row.get('query_embed_ms'), 1)} | "
                     f"{row['peak_rss_mib']:,} | {' / '.join(f'{x:.1f}' for x in row['load_before'])} |")
    return lines


QUALITY_LABELS = {"memtui-memtui": "memtui, memtui profile", "memtui-openclaw": "memtui, openclaw profile",
                  "qmd": "QMD `search`", "qmd-lex": "QMD lex query", "openclaw": "OpenClaw, provider none",
                  "qmd-vec": "QMD `query 'vec: …'`", "qmd-hybrid": "QMD `query 'lex: …⏎vec: …' --no-rerank`",
                  "openclaw-hybrid": "OpenClaw, `openai` provider → the same MiniLM (minScore 0)"}
HYBRID_NOTE = ("Every system embeds with the same all-MiniLM-L6-v2 Q8_0 GGUF (memtui's bundled model): memtui "
               "through llama-cpp-python, QMD through its own node-llama-cpp (`QMD_EMBED_MODEL`; typed `vec:` "
               "queries, the only vector form that runs offline, without expansion or rerank), OpenClaw through "
               "its `openai` provider pointed at `benchmarks/embed_server.py` on 127.0.0.1 (the same model in "
               "llama-cpp-python). memtui runs both profiles on one index; index s includes embedding.")


def scifact_table(sci: dict[str, Any], title: str, intro: str) -> list[str]:
    """One SciFact table."""
    lines = [f"### {title}", "", intro, "",
             "| system | nDCG@10 (all) | zero-hit (all) | nDCG@10 (subset) | zero-hit (subset) | index s | "
             "p50 ms/query | p95 ms/query |", "|---|---|---|---|---|---|---|---|"]
    for name, cell in sci["systems"].items():
        whole = cell["all"] or {}
        sub = cell["subset"]
        lines.append(f"| {QUALITY_LABELS[name]} | {fmt(whole.get('ndcg@10'))} | "
                     f"{fmt(whole.get('zero_hit'))}{'/' + str(whole['queries']) if whole else ''} | "
                     f"{fmt(sub['ndcg@10'])} | {sub['zero_hit']}/{sub['queries']} | {fmt(cell['index_s'], 1)} | "
                     f"{fmt(cell.get('p50_ms'), 1)} | {fmt(cell.get('p95_ms'), 1)} |")
    return [*lines, *(f"* {name} failed: {why}" for name, why in sci.get("failures", {}).items()), ""]


def locomo_table(loc: dict[str, Any], title: str, intro: str) -> list[str]:
    """One LoCoMo table."""
    lines = [f"### {title}", "", intro, "",
             "| system | recall@6 | recall@10 | chars/query @6 | chars/query @10 | zero-hit | "
             "subset recall@6 | subset recall@10 | subset chars @10 | index s (5 convs) | p50 ms/query |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, cell in loc["systems"].items():
        whole = cell["all"] or {}
        sub = cell["subset"]
        lines.append(f"| {QUALITY_LABELS[name]} | {fmt(whole.get('recall@6'))} | {fmt(whole.get('recall@10'))} | "
                     f"{fmt(whole.get('chars@6'), 0)} | {fmt(whole.get('chars@10'), 0)} | "
                     f"{fmt(whole.get('zero_hit'))} | {fmt(sub['recall@6'])} | {fmt(sub['recall@10'])} | "
                     f"{fmt(sub['chars@10'], 0)} | {fmt(cell['index_s'], 1)} | {fmt(cell.get('p50_ms'), 1)} |")
    return [*lines, *(f"* {name} failed: {why}" for name, why in loc.get("failures", {}).items()), ""]


def quality_tables(results: dict[str, Any]) -> list[str]:
    """SciFact and LoCoMo tables, keyword-only and hybrid."""
    lines: list[str] = []
    sci = results.get("scifact")
    if sci:
        lines += scifact_table(sci, "SciFact train (5,183 abstracts), keyword only", (
            f"All {sci['queries']} judged train queries; OpenClaw only on every {sci['subset_stride']}th "
            f"query ({sci['subset_queries']} queries; see its per-call latency) and QMD's lex query on every "
            f"{sci.get('lex_stride', 1)}th; every system is also scored on the OpenClaw subset. nDCG@10 ranks by "
            "returned order; zero-hit = no result at all; — = not run on all queries."))
    hyb = results.get("scifact-hybrid")
    if hyb:
        lines += scifact_table(hyb, "SciFact train, hybrid (real vectors)", (
            f"memtui on all {hyb['queries']} queries, the peers on every {hyb['subset_stride']}th "
            f"({hyb['subset_queries']}). {HYBRID_NOTE} Endpoint: {hyb.get('endpoint')} (cached = answered from "
            "memtui's embedding cache of the same model, i.e. the vectors memtui computed for the same text)."))
    loc = results.get("locomo")
    if loc:
        lines += locomo_table(loc, "LoCoMo dev (5 conversations), keyword only", (
            f"{loc['questions']} questions with valid evidence; OpenClaw only on every {loc['subset_stride']}th "
            f"({loc['subset_questions']} questions) and QMD's lex query on every {loc.get('lex_stride', 1)}th; "
            "every system is also scored on the OpenClaw subset. memtui searches once per k with its default "
            "minScore (as `memtui eval locomo`); the peers search once at k=10 and @6 is the top 6 of that list. "
            "chars = characters of the snippets returned (QMD: snippet text without its `@@` header line)."))
    hyb = results.get("locomo-hybrid")
    if hyb:
        lines += locomo_table(hyb, "LoCoMo dev, hybrid (real vectors)", (
            f"memtui on all {hyb['questions']} questions, the peers on every {hyb['subset_stride']}th "
            f"({hyb['subset_questions']}). {HYBRID_NOTE} The daily logs are dated 2023, so OpenClaw 2026.9.6's "
            "fixed 30-day temporal decay scales every score far down and favours the latest sessions. Every "
            "system runs at minScore 0 here (k results per query), so this table compares ranking alone."))
    return lines


def targets(results: dict[str, Any]) -> list[str]:
    """The issue's two speed targets, checked against the measured numbers."""
    lines = []
    notes = results.get("notes", {})
    for section, what in (("notes", "during the indexing run"), ("latency", "re-measured on the built index")):
        rows = results.get(section, {})
        big = rows.get(str(max(map(int, rows)))) if rows else None
        cell = big.get("memtui-memtui") if big else None
        if not cell or cell["chunks"] < 90_000:
            continue
        p95 = cell["p95_ms"]
        cpu = f", thread CPU p95 {cell['cpu_p95_ms']:.1f} ms" if "cpu_p95_ms" in cell else ""
        cpu_p95 = cell.get("cpu_p95_ms", p95)
        verdict = "met" if p95 <= 20 else "**missed** (wall time)" if cpu_p95 <= 20 else "**missed** (wall and CPU)"
        lines.append(f"* p95 ≤ 20 ms in process at ~100k chunks (FTS-only, memtui profile), {what}: wall p95 "
                     f"{p95:.1f} ms{cpu} at {cell['chunks']:,} chunks, load {big['load_before']} — {verdict}.")
    scale = results.get("scale", {})
    biggest = scale.get(str(max(map(int, scale)))) if scale else None
    if biggest and "hybrid_accelerator" in biggest:
        cell = biggest["hybrid_accelerator"]
        verdict = "met" if cell["wall_p95_ms"] <= 20 else "**missed**"
        lines.append(f"* p95 ≤ 20 ms in process at ~100k chunks, hybrid, query embedding excluded "
                     f"(`bench_scale.py`, memtui profile): wall p95 {cell['wall_p95_ms']:.1f} ms (p50 "
                     f"{cell['wall_p50_ms']:.1f}, CPU p95 {cell['cpu_p95_ms']:.1f}) at {biggest['chunks']:,} chunks, "
                     f"load {biggest['load_before'][0]:.1f} — {verdict}. Keyword only: wall p95 "
                     f"{biggest['keyword_accelerator']['wall_p95_ms']:.1f} ms.")
    small = notes.get("2000")
    if small and "qmd" in small and "index_s" in small.get("qmd", {}):
        ours, theirs = small["memtui-memtui"]["index_s"], small["qmd"]["index_s"]
        cli = small["memtui-cli"]["index_s"]
        verdict = "met" if theirs / ours >= 2 else "**missed**"
        lines.append(f"* Index 2,000 notes keyword-only ≥ 2× faster than QMD: memtui {ours:.2f} s in process "
                     f"({cli:.2f} s through the CLI, Python start-up included) vs QMD {theirs:.2f} s → "
                     f"{theirs / ours:.1f}× in process, {theirs / cli:.1f}× via CLI — {verdict}.")
    hybrid = results.get("hybrid")
    if hybrid and "search" in hybrid:
        lines.append(f"* Hybrid (real MiniLM vectors) at {hybrid['chunks']:,} chunks: search p95 "
                     f"{hybrid['search']['p95_ms']:.1f} ms excluding the query embedding.")
    return lines


def merge_results(into: dict[str, Any], other: dict[str, Any]) -> None:
    """Merge one results file into another (notes sizes and commands merge; other sections replace)."""
    for key, value in other.items():
        if key in ("notes", "latency", "scale"):
            for size, row in value.items():
                into.setdefault(key, {}).setdefault(size, {}).update(row)
        elif key in ("commands", "remarks"):
            into[key] = list(dict.fromkeys([*into.get(key, []), *value]))
        elif key == "machine" and "machine" in into:
            continue
        else:
            into[key] = value


def write_markdown(results: dict[str, Any], path: Path) -> None:
    """Render BENCHMARKS.md from the merged results."""
    m = results.get("machine", {})
    lines = ["# memtui benchmarks: side by side with QMD and OpenClaw", "",
             "Generated by `benchmarks/compare_peers.py`; numbers as measured, including misses.", "",
             "## Machine", "",
             f"* CPU: {m.get('cpu')} × {m.get('cores')} cores, RAM {m.get('ram_gb')} GB, {m.get('os')}",
             f"* Python {m.get('python')} (SQLite {m.get('sqlite')}), memtui {m.get('memtui')}, "
             f"Node {m.get('node', '—')}",
             f"* QMD: {m.get('qmd', 'not installed')}; OpenClaw: {m.get('openclaw', 'not installed')}",
             f"* Run on {m.get('date')}. The load average (1/5/15 min) is recorded per section: on 2 cores "
             "anything above 2 means the measurement shared the CPU, and wall times (above all the peers' CLI "
             "start-up) grow with it.", ""]
    if m.get("missing"):
        lines += [f"* Missing peers (measured memtui alone): {'; '.join(m['missing'])}", ""]
    if results.get("remarks"):
        lines += ["## Remarks on this run", "", *(f"* {r}" for r in results["remarks"]), ""]
    lines += ["## Targets", "", *targets(results), "",
              "## Generated notes (`benchmarks/notes.py`, seed 7)", "",
              "Queries: the workspace's needle queries (`incident zx…q`, one per 5 % of the notes, expected file "
              "known) plus the 10 fixed queries of `bench_index_search.py`, all at k = 10. In-process memtui runs "
              "every query 5 times; CLIs run each once, so their latency includes process start-up. Index = "
              "cold full index of a fresh state dir. OpenClaw's index is capped; a run over the cap is "
              "reported as timed out.", "", *notes_table(results), ""]
    for key in sorted(results.get("notes", {}), key=int):
        row = results["notes"][key]
        lines.append(f"* {int(key):,} notes: load average before {row['load_before']}, after {row['load_after']}")
    if results.get("scale"):
        lines += ["", "## Scale: the memtui profile from ~2k to ~100k chunks (`benchmarks/bench_scale.py`)", "",
                  "Generated notes; 13 queries × 5 rounds; wall ms (CPU time is in the results file). "
                  "\"Accelerator\" is the in-memory BM25 + vector index (`memtui/search/accelerator.py`) that "
                  "serves the memtui profile once built; the SQLite path (FTS5, sqlite-vec KNN) answers until then "
                  "and always for the openclaw profile. Vectors: 128 chunks embedded with the real MiniLM model and "
                  "tiled with noise over every chunk (embedding 100k chunks takes hours on this CPU); queries are "
                  "embedded for real and that time is reported apart.", "", *accelerator_table(results)]
    lines += ["", "## memtui in process on the generated-notes workspaces (keyword only)", "",
              "From the notes runs above. Each size runs in its own Python process; peak RSS is `ru_maxrss` of "
              "that process (index + queries); the memtui profile searches through its accelerator.", "",
              *scale_table(results), ""]
    if results.get("latency"):
        lines += ["### Search latency on the built indexes", "",
                  "The same queries (5 rounds) on the indexes the notes run built, in a fresh process without "
                  "re-indexing. CPU = `time.thread_time()` of the searching thread, which a busy machine does not "
                  "inflate the way it inflates wall time.", "", *latency_table(results), ""]
    hybrid = results.get("hybrid")
    if hybrid:
        lines += ["### Hybrid with the local model (real vectors)", ""]
        if "search" in hybrid:
            lines += ["| notes | chunks | model | index s (embedding every chunk) | query embed p50/p95 ms | "
                      "search p50/p95 ms (embedding excluded) | needle top-1 | mode |",
                      "|---|---|---|---|---|---|---|---|",
                      f"| {hybrid['notes']:,} | {hybrid['chunks']:,} | {hybrid['model']} | {hybrid['index_s']:.1f} | "
                      f"{hybrid['embed']['p50_ms']:.1f} / {hybrid['embed']['p95_ms']:.1f} | "
                      f"{hybrid['search']['p50_ms']:.2f} / {hybrid['search']['p95_ms']:.2f} | "
                      f"{hybrid['top1']}/{hybrid['needles']} | {hybrid['mode']} |", ""]
        else:
            lines += [f"Not measured: {hybrid.get('error')}", ""]
        lines += [hybrid.get("note", ""), ""]
    lines += ["## Retrieval quality", "", *quality_tables(results)]
    for key in ("scifact", "scifact-hybrid", "locomo", "locomo-hybrid"):
        if key in results:
            lines.append(f"* {key}: load average before {results[key]['load_before']}, "
                         f"after {results[key]['load_after']}")
    lines += ["", "## Reproduce", "", "```bash", "cd /work/main && . .venv/bin/activate",
              "bash benchmarks/install_peers.sh all      # Node 24, QMD 2.8.3, OpenClaw 2026.9.6 from npm",
              "# everything in one go (sequential; several hours on 2 cores because of OpenClaw's CLI):",
              "python benchmarks/compare_peers.py --sections notes,scifact,locomo,latency,hybrid,scifact-hybrid,"
              "locomo-hybrid --oc-stride 16 --lex-stride 4",
              "python benchmarks/bench_scale.py --results scale.json   # then --merge it with the rest",
              "# what produced this file (sections run concurrently, each into its own results file):",
              *results.get("commands", []),
              "python benchmarks/compare_peers.py --merge RESULTS.json ...   # one BENCHMARKS.md from several runs",
              "```", "",
              "Data: `/work/shared/eval/scifact` (BEIR SciFact, train split) and "
              "`/work/shared/eval/locomo/locomo-dev.json`; generated corpora stay under the scratch dir "
              "(default `/tmp/memtui-bench`). Every peer call runs under a timeout with its own HOME, XDG "
              "dirs and OpenClaw state dir; QMD `query` with expansion, `vsearch` and `pull` are never called (they "
              "download models), and `qmd embed` runs only with the local GGUF given as QMD_EMBED_MODEL.", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def main() -> None:
    """Parse args, run the chosen sections, merge results and write the Markdown."""
    if len(sys.argv) == 6 and sys.argv[1] in ("--worker", "--search-worker"):
        needles = [tuple(n) for n in json.loads(Path(sys.argv[5]).read_text(encoding="utf-8"))]
        print(json.dumps(memtui_worker(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4], needles,
                                       reindex=sys.argv[1] == "--worker")))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default="notes,scifact,locomo,hybrid")
    parser.add_argument("--sizes", default="2000,18000,90000", help="note counts (~2k, 20k, 100k chunks)")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/memtui-bench"))
    parser.add_argument("--results", type=Path, help="results JSON (default <scratch>/results.json)")
    parser.add_argument("--out", type=Path, default=HERE / "BENCHMARKS.md")
    parser.add_argument("--oc-stride", type=int, default=8, help="OpenClaw answers every Nth query")
    parser.add_argument("--oc-index-cap", type=float, default=900.0, help="OpenClaw index time cap (s)")
    parser.add_argument("--lex-stride", type=int, default=1, help="QMD lex query on every Nth query")
    parser.add_argument("--merge", type=Path, nargs="+", help="merge these results files, write the Markdown")
    parser.add_argument("--note", action="append", default=[], help="a remark to print in BENCHMARKS.md")
    parser.add_argument("--hybrid-notes", type=int, default=2000)
    parser.add_argument("--embed-cap", type=float, default=3600.0, help="peer index+embed time cap (s)")
    parser.add_argument("--seed-cache", type=Path,
                        help="memtui index whose embedding cache seeds the hybrid sections (e.g. an `eval "
                             "scifact --keep` run), so already embedded text is not embedded again")
    parser.add_argument("--systems", default=",".join(name for name, _ in NOTE_SYSTEMS if name != "qmd-lex"),
                        help="systems of the notes section (comma list)")
    parser.add_argument("--profiles", default="memtui,openclaw", help="profiles of the latency section")
    parser.add_argument("--peers", default="qmd,openclaw", help="peers to run (comma list; '' = memtui alone)")
    args = parser.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    results_path = args.results or args.scratch / "results.json"
    results = json.loads(results_path.read_text(encoding="utf-8")) if results_path.exists() else {}
    peers = find_peers()
    for name in ("qmd", "openclaw"):
        if name not in args.peers.split(","):
            setattr(peers, name, None)
            peers.missing.append(f"{name} not asked for (--peers {args.peers!r})")
    for reason in peers.missing:
        log(f"peer unavailable, measuring without it: {reason}")
    command = "python benchmarks/compare_peers.py " + shlex.join(sys.argv[1:])
    if args.merge:
        for source in args.merge:
            merge_results(results, json.loads(source.read_text(encoding="utf-8")))
    else:
        results["machine"] = machine(peers)

    def save() -> None:
        results_path.write_text(json.dumps(results, indent=1), encoding="utf-8")
        write_markdown(results, args.out)

    sections = [] if args.merge else args.sections.split(",")
    results["remarks"] = list(dict.fromkeys([*results.get("remarks", []), *args.note]))
    if sections:
        results["commands"] = list(dict.fromkeys([*results.get("commands", []), command]))
    if "notes" in sections:
        for size in (int(s) for s in args.sizes.split(",")):
            results.setdefault("notes", {})[str(size)] = bench_notes(args.scratch, size, peers, args)
            save()
    if "scifact" in sections:
        results["scifact"] = bench_scifact(args.scratch, peers, args)
        save()
    if "locomo" in sections:
        results["locomo"] = bench_locomo(args.scratch, peers, args)
        save()
    vectors = (Vectors.start(args.scratch, args.seed_cache)
               if {"scifact-hybrid", "locomo-hybrid"} & set(sections) else None)
    for key, bench in (("scifact-hybrid", bench_scifact), ("locomo-hybrid", bench_locomo)):
        if key in sections:
            results[key] = bench(args.scratch, peers, args, vectors)
            save()
    if "latency" in sections:
        for size in (int(s) for s in args.sizes.split(",")):
            results.setdefault("latency", {})[str(size)] = bench_latency(args.scratch, size, args.profiles.split(","))
            save()
    if "hybrid" in sections:
        results["hybrid"] = bench_hybrid(args.scratch, args.hybrid_notes)
        save()
    save()
    log(f"wrote {args.out} and {results_path}")


if __name__ == "__main__":
    main()

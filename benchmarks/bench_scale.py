"""Scale benchmark: index time, keyword and hybrid search latency, peak RSS at ~2k, ~20k and ~100k chunks,
for the `memtui` profile through FTS5/sqlite-vec and through the in-memory accelerator
`memtui.search.accelerator`, in the same process and conditions, and the phase after a write.

Run: `python benchmarks/bench_scale.py [--chunks 2000,20000,100000] [--queries 240] [--repeat 1] [--sample 128]`

Corpus and queries come from `zipf_notes.py`: a Zipf-distributed vocabulary of 30,000 words, and
`--queries` distinct queries of 1–8 words (most cut from the notes, a quarter free draws). Each size runs
in a child process so its peak RSS is its own. Search times exclude the query embedding (timed apart);
wall and CPU time p50/p95/p99 are both reported, with the load average, because the machine is shared
(CPU is the process's, numpy's BLAS threads included). After a write: one note is edited and synced as the
watcher would; searches keep running while the time until the edit is found and the latency meanwhile are recorded.

Vectors: embedding 100k chunks with the local model takes hours here, so the script embeds
`--sample` real chunks of the workspace with the local all-MiniLM-L6-v2 model and gives every chunk
one of those real vectors plus small Gaussian noise (re-normalised), written straight into the
keyword index's `chunks_vec`. Queries are embedded with the real model. No hybrid index time is
reported (it would be embedding time, measured by bench_local_embed.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from zipf_notes import generate
from zipf_notes import queries as zipf_queries

from memtui.embeddings.base import EmbeddingProvider
from memtui.embeddings.local import LocalEmbeddingProvider
from memtui.embeddings.model_store import install_model
from memtui.index.store import REVISION_KEY, Store
from memtui.manager import MemoryManager
from memtui.search.accelerator import build_index
from memtui.search.engine import Searcher
from memtui.settings.agent import resolve_agent

CHUNKS_PER_NOTE = 1.78
RESULT = "RESULT "


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def timed(run: Callable[[str], object], queries: Sequence[str], repeat: int) -> tuple[list[float], list[float]]:
    """(wall ms, CPU ms) of every call of `run` over `queries`, `repeat` rounds."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        for query in queries:
            w, c = time.perf_counter(), time.process_time()
            run(query)
            cpu.append((time.process_time() - c) * 1000)
            wall.append((time.perf_counter() - w) * 1000)
    return wall, cpu


def summary(wall: Sequence[float], cpu: Sequence[float]) -> str:
    """p50/p95/p99 of wall and CPU time."""
    return " | ".join(f"{kind} " + " ".join(f"p{p} {percentile(values, p / 100):7.2f}" for p in (50, 95, 99)) + " ms"
                      for kind, values in (("wall", wall), ("cpu", cpu)))


class TiledProvider(EmbeddingProvider):
    """The search-time provider of the tiled vector store (queries come pre-embedded by the real model)."""

    id = "local"

    def __init__(self, model: str):
        self.model = f"{model}#tiled"

    def embed_query(self, text: str) -> list[float]:
        """Not used: queries are embedded with the real model."""
        raise NotImplementedError("bench queries are embedded with the real local model")

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """Not used: the store is filled by `write_tiled_vectors`."""
        raise NotImplementedError("the tiled store is written directly")


def write_tiled_vectors(store: Store, model: str, sample: np.ndarray, noise: float = 0.02) -> int:
    """Give every chunk of `store` one of the real `sample` vectors plus seeded Gaussian noise
    (re-normalised), written straight into `chunks_vec` and `chunks.model`; returns the row count."""
    rng = np.random.default_rng(7)
    ids = [chunk_id for _, chunk_id in store.chunk_ids()]
    store.ensure_vector_table(sample.shape[1])
    with store.lock, store.conn:
        store.conn.execute("UPDATE chunks SET model = ?", (model,))
        for start in range(0, len(ids), 5000):
            part = ids[start : start + 5000]
            vectors = sample[rng.integers(0, len(sample), len(part))].astype(np.float32)
            vectors += rng.normal(0.0, noise, vectors.shape).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            store.conn.executemany("INSERT INTO chunks_vec (id, embedding) VALUES (?, ?)",
                                   [(chunk_id, vectors[i].astype("<f4").tobytes()) for i, chunk_id in enumerate(part)])
    store.write_meta(uuid.uuid4().hex, key=REVISION_KEY)
    return len(ids)


def same_top(a: Sequence[object], b: Sequence[object]) -> bool:
    """Whether two result lists hold the same chunk ids in the same order."""
    return [c.id for c in a] == [c.id for c in b]  # type: ignore[attr-defined]


def stats(wall: Sequence[float], cpu: Sequence[float]) -> dict[str, float]:
    """p50/p95/p99 of wall and CPU ms, rounded for the results file."""
    return {f"{kind}_p{p}_ms": round(percentile(values, p / 100), 2)
            for kind, values in (("wall", wall), ("cpu", cpu)) for p in (50, 95, 99)}


def bench_keyword(root: Path, workspace: Path, repeat: int, query_count: int,
                  out: dict[str, object]) -> tuple[MemoryManager, list[str]]:
    """Keyword-only index and search, FTS5 versus the accelerator (numbers into `out`); returns the
    manager and queries."""
    env = resolve_agent(state_dir=str(root / "state-fts"), workspace=str(workspace), provider="none",
                        profile="memtui", env={"HOME": str(root)})
    manager = MemoryManager(env)
    started = time.perf_counter()
    manager.sync(reason="bench")
    index_s = time.perf_counter() - started
    chunks = manager.store.chunk_count()
    print(f"  keyword-only index: {chunks} chunks in {index_s:.1f} s ({chunks / index_s:.0f} chunks/s)")
    out.update(chunks=chunks, index_s=round(index_s, 2))
    queries = zipf_queries(workspace, query_count)
    out["queries"] = len(queries)
    fts = Searcher(manager.store, None, manager.settings, "memtui", manager.file_mtimes)
    one_wall, _ = timed(lambda q: fts.search(q, query_vector=None), queries[-3:], 1)
    wall, cpu = timed(lambda q: fts.search(q), queries, repeat)
    print(f"  keyword  FTS5        {summary(wall, cpu)}")
    out["keyword_fts5"] = stats(wall, cpu)
    started, c0 = time.perf_counter(), time.thread_time()
    index = build_index(manager.store, vectors=False)
    build_s, build_cpu = time.perf_counter() - started, time.thread_time() - c0
    print(f"  accelerator build (keyword): {build_s:.2f} s wall, {build_cpu:.2f} s cpu, "
          f"{index.nbytes() / 2**20:.0f} MiB arrays (slowest long-query FTS5 search: {max(one_wall):.0f} ms)")
    manager.fast.prepare(manager.store, vectors=False)
    wall, cpu = timed(lambda q: manager.search(q), queries, repeat)
    print(f"  keyword  accelerator {summary(wall, cpu)}")
    agree = sum(same_top(fts.search(q).results, manager.search(q).results) for q in queries)
    print(f"  top results identical for {agree}/{len(queries)} queries")
    out["keyword_accelerator"] = {**stats(wall, cpu), "build_s": round(build_s, 2),
                                  "same_top": f"{agree}/{len(queries)}"}
    out["after_write"] = after_write(manager, workspace, queries)
    return manager, queries


def after_write(manager: MemoryManager, workspace: Path, queries: list[str],
                window_s: float = 45.0) -> dict[str, object]:
    """Edit one note, sync it as the watcher would, and keep searching: how long until the edit is found, and the
    latency of the searches meanwhile (at least 2 s, until the accelerator is current again, at most `window_s`)."""
    note = sorted((workspace / "memory").glob("*.md"))[len(queries) % 7]
    marker = f"zqx{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    with note.open("a", encoding="utf-8") as handle:
        handle.write(f"- edited today: {marker} was added\n")
    manager.sync(reason="watch", memory_paths={note.relative_to(workspace).as_posix()})
    synced_s = time.perf_counter() - started
    found_s: float | None = None
    wall: list[float] = []
    cpu: list[float] = []
    turn = 0
    while time.perf_counter() - started < window_s:
        w, c = time.perf_counter(), time.process_time()
        manager.search(queries[turn % len(queries)])
        cpu.append((time.process_time() - c) * 1000)
        wall.append((time.perf_counter() - w) * 1000)
        turn += 1
        if found_s is None and any(h.path == note.relative_to(workspace).as_posix()
                                   for h in manager.search(marker).results):
            found_s = time.perf_counter() - started
        if found_s is not None and time.perf_counter() - started > 2.0 and \
                manager.fast.current(manager.store, vectors=False) is not None:
            break
    current_s = time.perf_counter() - started
    print(f"  after a write: synced in {synced_s:.2f} s, searchable after {found_s or float('nan'):.2f} s, accelerator "
          f"current again after {current_s:.1f} s; {len(wall)} searches meanwhile: {summary(wall, cpu)}")
    return {"synced_s": round(synced_s, 2), "searchable_s": None if found_s is None else round(found_s, 2),
            "accelerator_current_s": round(current_s, 1), "searches": len(wall), **stats(wall, cpu)}


def bench_hybrid(root: Path, keyword_manager: MemoryManager, queries: list[str],
                 repeat: int, sample_size: int, out: dict[str, object]) -> None:
    """Hybrid search over tiled real vectors, sqlite-vec + FTS5 versus the accelerator (numbers into `out`)."""
    model_file = install_model(root / "model-state")
    real = LocalEmbeddingProvider(str(model_file))
    rng = random.Random(7)
    rowids = [rowid for rowid, _ in keyword_manager.store.chunk_ids()]
    picked = rng.sample(rowids, min(sample_size, len(rowids)))
    sample_texts = [row.text for row in keyword_manager.store.chunks_by_rowids(picked).values()]
    started = time.perf_counter()
    sample = np.asarray(real.embed_batch(sample_texts), dtype=np.float64)
    embed_s = time.perf_counter() - started
    print(f"  embedded {len(sample_texts)} real chunks in {embed_s:.1f} s; every chunk gets one of them + noise")
    started = time.perf_counter()
    query_vectors = {q: real.embed_query(q) for q in queries}
    embed_ms = (time.perf_counter() - started) * 1000 / len(queries)
    print(f"  query embedding (real model, apart): {embed_ms:.1f} ms per query")
    out["query_embed_ms"] = round(embed_ms, 1)
    provider = TiledProvider(real.model)
    started = time.perf_counter()
    rows = write_tiled_vectors(keyword_manager.store, provider.model, sample)
    print(f"  {rows} tiled vectors written straight into the store in {time.perf_counter() - started:.1f} s")
    env = keyword_manager.env
    keyword_manager.close()
    manager = MemoryManager(env, provider=provider)
    before = Searcher(manager.store, provider, manager.settings, "memtui", manager.file_mtimes)
    wall, cpu = timed(lambda q: before.search(q, query_vector=query_vectors[q]), queries, repeat)
    print(f"  hybrid   sqlite-vec+FTS5 {summary(wall, cpu)}")
    out["hybrid_sqlite"] = stats(wall, cpu)
    started, c0 = time.perf_counter(), time.thread_time()
    index = build_index(manager.store, vectors=True)
    print(f"  accelerator build (keyword + vectors): {time.perf_counter() - started:.2f} s wall, "
          f"{time.thread_time() - c0:.2f} s cpu, {index.nbytes() / 2**20:.0f} MiB arrays")
    del index
    manager.fast.prepare(manager.store, vectors=True)
    wall, cpu = timed(lambda q: manager.search(q, query_vector=query_vectors[q]), queries, repeat)
    print(f"  hybrid   accelerator     {summary(wall, cpu)}")
    agree = sum(same_top(before.search(q, query_vector=query_vectors[q]).results,
                         manager.search(q, query_vector=query_vectors[q]).results) for q in queries)
    print(f"  top results identical for {agree}/{len(queries)} queries")
    out["hybrid_accelerator"] = {**stats(wall, cpu), "same_top": f"{agree}/{len(queries)}"}
    print(f"  RSS now {current_rss_mib():.0f} MiB (accelerator arrays "
          f"{manager.fast.current(manager.store, vectors=True).nbytes() / 2**20:.0f} MiB)")
    manager.close()
    real.close()


def current_rss_mib() -> float:
    """Resident set size of this process now (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_size(target: int, repeat: int, sample: int, vectors: bool, query_count: int) -> dict[str, object]:
    """One workspace size, in this process; returns its numbers."""
    notes = max(1, round(target / CHUNKS_PER_NOTE))
    out: dict[str, object] = {"chunks_target": target, "notes": notes, "load_before": list(os.getloadavg())}
    with tempfile.TemporaryDirectory(prefix="memtui-scale-") as tmp:
        root = Path(tmp)
        workspace = root / "ws"
        generate(workspace, notes)
        print(f"~{target} chunks ({notes} notes), load average {os.getloadavg()[0]:.1f}")
        manager, queries = bench_keyword(root, workspace, repeat, query_count, out)
        if vectors:
            bench_hybrid(root, manager, queries, repeat, sample, out)
        else:
            manager.close()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  peak RSS {peak:.0f} MiB, load average {os.getloadavg()[0]:.1f}")
    out.update(peak_rss_mib=round(peak), load_after=list(os.getloadavg()))
    return out


def main() -> None:
    """Parse args; run each size in its own child process; optionally save the numbers for BENCHMARKS.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", default="2000,20000,100000")
    parser.add_argument("--repeat", type=int, default=1, help="rounds over the query set")
    parser.add_argument("--queries", type=int, default=240, help="distinct queries (zipf_notes.queries)")
    parser.add_argument("--sample", type=int, default=128, help="real chunks embedded for the vector side")
    parser.add_argument("--no-vectors", action="store_true", help="keyword side only")
    parser.add_argument("--results", type=Path,
                        help="write {'scale': ...} here (merge into BENCHMARKS.md with compare_peers.py --merge)")
    parser.add_argument("--single", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.single:
        print(RESULT + json.dumps(run_size(args.single, args.repeat, args.sample, not args.no_vectors, args.queries)))
        return
    scale: dict[str, object] = {}
    for size in (int(s) for s in args.chunks.split(",")):
        command = [sys.executable, __file__, "--single", str(size), "--repeat", str(args.repeat),
                   "--sample", str(args.sample), "--queries", str(args.queries)]
        command += ["--no-vectors"] if args.no_vectors else []
        proc = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
        for line in proc.stdout.splitlines():
            if line.startswith(RESULT):
                scale[str(size)] = json.loads(line[len(RESULT):])
            else:
                print(line, flush=True)
    if args.results:
        args.results.write_text(json.dumps({"scale": scale, "commands": [
            "python benchmarks/bench_scale.py " + " ".join(sys.argv[1:])]}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

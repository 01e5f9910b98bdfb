"""Throughput of the local provider against raw llama_cpp on ~400-token chunks, plus conversion time.

    python benchmarks/bench_local_embed.py [--chunks 24] [--quant q8_0]

Goal: `LocalEmbeddingProvider.embed_batch` reaches >= 90 % of raw `Llama.embed` (one call per chunk,
n_ctx = n_batch = n_ubatch = 512, flash attention: the settings deps.md measured as fastest).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from llama_cpp import Llama

from memtui.embeddings.convert import QUANTS, convert_model, package_model_dir
from memtui.embeddings.local import LocalEmbeddingProvider
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent

VOCABULARY = (
    "memory agent index search vector chunk session note daily review deploy server latency cache "
    "config provider embedding hybrid keyword weight decay snippet citation workspace markdown file "
    "line token budget flush compaction transcript model local remote batch retry error status watch "
    "the a of to and in is it for on with as was at by this that from be or are have has"
)


def make_chunks(count: int, seed: int = 7) -> list[str]:
    """Deterministic prose chunks of about 1,600 characters (about 400 tokens, OpenClaw's default)."""
    rng = random.Random(seed)
    vocabulary = VOCABULARY.split()
    chunks = []
    for _ in range(count):
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < 1600:
            words.append(rng.choice(vocabulary) + (str(rng.randint(1, 999)) if rng.random() < 0.1 else ""))
        chunks.append(" ".join(words))
    return chunks


def rate(seconds: float, count: int) -> str:
    return f"{count / seconds:6.2f} embeddings/s ({1000 * seconds / count:6.1f} ms each)"


def main() -> None:
    """Convert the model, then time raw llama_cpp and the provider on the same chunks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=24)
    parser.add_argument("--quant", choices=QUANTS, default="q8_0")
    parser.add_argument("--rounds", type=int, default=3, help="alternating timing rounds (best is kept)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"all-MiniLM-L6-v2-{args.quant}.gguf"
        started = time.perf_counter()
        convert_model(package_model_dir(), path, args.quant)
        print(f"conversion {args.quant}: {time.perf_counter() - started:.2f} s, {path.stat().st_size / 1e6:.1f} MB")

        chunks = make_chunks(args.chunks)
        raw = Llama(model_path=str(path), embedding=True, n_ctx=512, n_batch=512, n_ubatch=512,
                    flash_attn=True, verbose=False)
        tokens = [len(raw.tokenize(c.encode(), add_bos=True)) for c in chunks]
        print(f"{len(chunks)} chunks, {sum(tokens) / len(tokens):.0f} tokens on average (max {max(tokens)})")
        provider = LocalEmbeddingProvider(str(path))
        provider.embed_query("warm up")
        raw.embed("warm up")

        best_raw = best_provider = float("inf")
        for _ in range(args.rounds):
            started = time.perf_counter()
            for chunk in chunks:
                raw.embed(chunk, normalize=True)
            best_raw = min(best_raw, time.perf_counter() - started)
            started = time.perf_counter()
            provider.embed_batch(chunks)
            best_provider = min(best_provider, time.perf_counter() - started)
        print(f"raw llama_cpp      {rate(best_raw, len(chunks))}")
        print(f"LocalEmbedding...  {rate(best_provider, len(chunks))}")
        print(f"provider / raw     {100 * best_raw / best_provider:5.1f} % (goal >= 90 %)")
        provider.close()
        raw.close()
        pipeline(Path(tmp), path, chunks, best_raw)


def pipeline(tmp: Path, model: Path, chunks: list[str], raw_seconds: float) -> None:
    """The whole indexing pipeline (read, chunk, embed, write SQLite + vec0) on the same texts, one chunk
    per file: cold (empty cache), then warm (a forced rebuild served by the embedding cache)."""
    workspace = tmp / "ws"
    (workspace / "memory").mkdir(parents=True)
    for index, chunk in enumerate(chunks):
        (workspace / "memory" / f"note-{index:04d}.md").write_text(chunk + "\n", encoding="utf-8")
    env = resolve_agent(state_dir=str(tmp / "state"), workspace=str(workspace), provider="none")
    with MemoryManager(env, provider=LocalEmbeddingProvider(str(model))) as manager:
        manager.provider.embed_query("warm up")
        started = time.perf_counter()
        cold = manager.sync(reason="bench")
        cold_s = time.perf_counter() - started
        started = time.perf_counter()
        warm = manager.sync(reason="bench", force=True)
        warm_s = time.perf_counter() - started
    share = (cold.embedded / cold_s) / (len(chunks) / raw_seconds)
    print(f"pipeline cold      {rate(cold_s, cold.embedded)}  = {100 * share:5.1f} % of raw per embedding "
          f"({cold.embedded} chunks embedded from {len(chunks)} files)")
    print(f"pipeline warm      {cold.chunks_written / warm_s:8.1f} chunks/s ({warm.cache_hits} cache hits, "
          f"{warm.embedded} embedded)")


if __name__ == "__main__":
    main()

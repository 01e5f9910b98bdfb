"""An OpenAI-compatible `/v1/embeddings` endpoint on 127.0.0.1 backed by memtui's local MiniLM model,
so a peer that only speaks to remote providers (OpenClaw without node-llama-cpp) embeds with exactly
the vectors memtui uses. For benchmarks only: one model, one lock, no auth.

`--cache STORE.sqlite` answers texts whose sha256 is in that memtui index's embedding cache (the same
model's vectors, computed earlier) without embedding them again.

Run: `python benchmarks/embed_server.py MODEL.gguf [--port 0] [--cache STORE]` prints the base URL.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sqlite3
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from memtui.embeddings.local import LocalEmbeddingProvider


class EmbeddingServer(ThreadingHTTPServer):
    """Serves `provider` under `/v1/embeddings`; `requests`/`inputs`/`cached` count what peers asked for."""

    daemon_threads = True

    def __init__(self, provider: LocalEmbeddingProvider, port: int = 0,
                 cache: dict[str, list[float]] | None = None) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.provider = provider
        self.cache = cache or {}
        self.lock = threading.Lock()
        self.requests = 0
        self.inputs = 0
        self.cached = 0

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1`."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Embed under the lock (llama.cpp contexts are not thread-safe)."""
        with self.lock:
            self.requests += 1
            self.inputs += len(texts)
            keys = [hashlib.sha256(text.encode("utf-8")).hexdigest() for text in texts]
            todo = [text for key, text in zip(keys, texts, strict=True) if key not in self.cache]
            fresh = iter(self.provider.embed_batch(todo) if todo else [])
            self.cached += len(texts) - len(todo)
            return [self.cache[key] if key in self.cache else next(fresh) for key in keys]


def load_cache(store: Path) -> dict[str, list[float]]:
    """text sha256 → vector from the `local` rows of a memtui index's embedding cache (read-only)."""
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT hash, embedding FROM embedding_cache WHERE provider = 'local'").fetchall()
    finally:
        conn.close()
    return {digest: json.loads(vector) for digest, vector in rows}


def _encode(vector: list[float], encoding: str) -> Any:
    if encoding == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
    return vector


class _Handler(BaseHTTPRequestHandler):
    server: EmbeddingServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: peers call this thousands of times."""

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._reply(200, {"object": "list", "data": [{"id": "all-MiniLM-L6-v2", "object": "model"}]})
        else:
            self._reply(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/embeddings"):
            self._reply(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            raw = request["input"]
            texts = [raw] if isinstance(raw, str) else list(raw)
            if not all(isinstance(text, str) for text in texts):
                raise ValueError("input must be a string or a list of strings")
        except (ValueError, KeyError, TypeError) as exc:
            self._reply(400, {"error": {"message": f"bad request: {exc}", "type": "invalid_request_error"}})
            return
        vectors = self.server.embed(texts)
        encoding = request.get("encoding_format") or "float"
        self._reply(200, {
            "object": "list", "model": request.get("model", "all-MiniLM-L6-v2"),
            "data": [{"object": "embedding", "index": i, "embedding": _encode(v, encoding)}
                     for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        })


def start(model_path: str, port: int = 0, cache: dict[str, list[float]] | None = None) -> EmbeddingServer:
    """Load the model and serve it from a daemon thread; `shutdown()` stops it."""
    server = EmbeddingServer(LocalEmbeddingProvider(model_path), port, cache)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="GGUF embedding model")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cache", type=Path, help="memtui index whose embedding cache to answer from")
    args = parser.parse_args()
    cache = load_cache(args.cache) if args.cache else None
    server = EmbeddingServer(LocalEmbeddingProvider(args.model), args.port, cache)
    print(server.base_url, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

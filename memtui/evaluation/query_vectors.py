"""Query embeddings for an evaluation: one per query text, kept in a JSON file next to a `--keep` index.

An evaluation searches each query more than once (two cut-offs); embedding it once and passing the vector
halves the model time, and with a kept directory a repeated run embeds nothing at all. Entries are keyed
by the provider's `providerKey`, so switching model never reuses a stale vector.
"""

from __future__ import annotations

import json
from pathlib import Path

from memtui.atomic import atomic_write_text
from memtui.embeddings.base import provider_key
from memtui.jscompat import sha256_hex
from memtui.manager import MemoryManager

FILE_NAME = "query-vectors.json"


class QueryVectors:
    """Query text → vector for one manager's provider, loaded from and saved to `path` (None: memory only)."""

    def __init__(self, manager: MemoryManager, path: Path | None = None):
        self.manager = manager
        self.path = path
        self.key = provider_key(manager.provider) if manager.provider is not None else None
        self._vectors: dict[str, list[float]] = {}
        self._dirty = False
        if path is not None and path.is_file() and self.key is not None:
            try:
                stored = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                stored = {}
            if isinstance(stored, dict) and stored.get("providerKey") == self.key:
                vectors = stored.get("vectors")
                self._vectors = vectors if isinstance(vectors, dict) else {}

    def vector(self, query: str) -> list[float] | None:
        """The query's embedding (None in FTS-only mode), computed at most once."""
        if self.key is None:
            return None
        digest = sha256_hex(query)
        cached = self._vectors.get(digest)
        if cached is None:
            cached = self.manager.embed_query(query) or []
            self._vectors[digest] = cached
            self._dirty = True
        return cached

    def save(self) -> None:
        """Write the vectors back when something new was embedded (and a path was given)."""
        if self.path is None or not self._dirty or self.key is None:
            return
        payload = {"providerKey": self.key, "vectors": self._vectors}
        atomic_write_text(self.path, json.dumps(payload, separators=(",", ":")))
        self._dirty = False

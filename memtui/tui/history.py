"""Query history for the search box: the last queries, newest last, kept in `<state>/memtui/history.json`."""

from __future__ import annotations

import json
from pathlib import Path

from memtui.atomic import atomic_write_text
from memtui.errors import MemtuiError

HISTORY_FILE = "history.json"
MAX_QUERIES = 200


class QueryHistory:
    """Earlier queries and a cursor for ↑ / ↓; a draft typed before browsing back is kept."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.queries: list[str] = self._load()
        self.position: int | None = None
        self.draft = ""

    def _load(self) -> list[str]:
        if self.path is None or not self.path.is_file():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        queries = data.get("queries") if isinstance(data, dict) else None
        return [q for q in queries if isinstance(q, str) and q.strip()][-MAX_QUERIES:] if isinstance(queries,
                                                                                                      list) else []

    def add(self, query: str) -> None:
        """Remember `query` as the newest (a repeat moves to the end) and save; the cursor resets."""
        text = query.strip()
        self.position = None
        if not text or (self.queries and self.queries[-1] == text):
            return
        self.queries = [*[q for q in self.queries if q != text][-(MAX_QUERIES - 1):], text]
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(self.path, json.dumps({"queries": self.queries}, ensure_ascii=False) + "\n")
            except (OSError, MemtuiError):
                pass  # the history is a convenience: a read-only state dir just keeps it in memory

    def step(self, direction: int, current: str) -> str | None:
        """The query one step older (-1) or newer (+1) than the cursor; None when there is none."""
        if not self.queries:
            return None
        if self.position is None:
            if direction > 0:
                return None
            self.draft = current
            self.position = len(self.queries) - 1
            return self.queries[self.position]
        target = self.position + direction
        if target < 0:
            return None
        if target >= len(self.queries):
            self.position = None
            return self.draft
        self.position = target
        return self.queries[target]

"""Updating a few entries of `short-term-recall.json` (every search does) at a cost that does not grow with it.

`load_recall_store` parses and validates every entry and `save_recall_store` serialises them all again with
Python's indenting JSON encoder: ~45 ms per search once the store holds 2,000 entries. A search touches at most
a few. `RecallUpdate` finds each entry's block in the file text (the layout `write_json_state` writes and
OpenClaw's `JSON.stringify(…, null, 2)` matches), parses only the entries asked for, and writes the file back
with the other entries' text unchanged, byte for byte. A file in any other layout is read and written the
full way, so the format on disk is the same either way.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from memtui.atomic import atomic_write_text
from memtui.dreaming.recall_store import (
    RECALL_STORE_NAME,
    RecallEntry,
    RecallStore,
    dreams_dir,
    load_recall_store,
    read_json_state,
    save_recall_store,
)

_HEAD = re.compile(r'\{\n  "version": 1,\n  "updatedAt": "[^"\\\n]*",\n  "entries": \{\n')


class RecallUpdate:
    """The recall store opened to update some entries: `get`, `in`, `put`, then `save`."""

    def __init__(self, workspace_dir: Path, now_iso: str = ""):
        self.path = dreams_dir(workspace_dir) / RECALL_STORE_NAME
        self.workspace_dir = workspace_dir
        self.now_iso = now_iso
        self._blocks: dict[str, str] | None = None
        self._store: RecallStore | None = None
        self._changed: dict[str, RecallEntry] = {}
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        self._blocks = _split(text)
        if self._blocks is None:  # another layout (or invalid): the full, validating path
            if text.strip():
                read_json_state(self.path)  # a clear error for a corrupt file
            self._store = load_recall_store(workspace_dir, now_iso)

    def __contains__(self, key: str) -> bool:
        if key in self._changed:
            return True
        return key in self._store.entries if self._store is not None else key in (self._blocks or {})

    def get(self, key: str) -> RecallEntry | None:
        """The entry stored under `key`, parsed and validated (None when absent or invalid)."""
        if key in self._changed:
            return self._changed[key]
        if self._store is not None:
            return self._store.entries.get(key)
        block = (self._blocks or {}).get(key)
        if block is None:
            return None
        return RecallEntry.from_json(key, json.loads("{" + block + "}").get(key), self.now_iso)

    def put(self, key: str, entry: RecallEntry) -> None:
        """Set an entry (kept in memory until `save`)."""
        self._changed[key] = entry

    def save(self, updated_at: str) -> None:
        """Write the store back: the changed entries re-serialised, the others as they were."""
        if self._store is not None:
            self._store.updated_at = updated_at
            self._store.entries.update(self._changed)
            save_recall_store(self.workspace_dir, self._store)
            return
        blocks = dict(self._blocks or {})
        for key, entry in self._changed.items():
            body = json.dumps({key: entry.to_json()}, indent=2, ensure_ascii=False)[2:-2]
            blocks[key] = "  " + body.replace("\n", "\n  ")
        head = json.dumps({"version": 1, "updatedAt": updated_at}, indent=2, ensure_ascii=False)[:-2]
        if not blocks:
            atomic_write_text(self.path, head + ',\n  "entries": {}\n}\n', root=self.workspace_dir)
            return
        atomic_write_text(self.path, head + ',\n  "entries": {\n' + ",\n".join(blocks.values()) + "\n  }\n}\n",
                          root=self.workspace_dir)


def _split(text: str) -> dict[str, str] | None:
    """key → its block (`    "key": {…    }`) when `text` has exactly the canonical layout, else None.

    A block ends at the first line that is four spaces and `}`: its fields are indented deeper, and a JSON
    string never holds a raw newline, nor `": {` followed by one (quotes and newlines are escaped)."""
    if not text:
        return {}
    head = _HEAD.match(text)
    if head is None:
        return {} if text.endswith('"entries": {}\n}\n') and _is_empty_store(text) else None
    blocks: dict[str, str] = {}
    position = head.end()
    while True:
        if not text.startswith('    "', position):
            return None
        key_end = text.find('": {\n', position)
        end = text.find("\n    }", key_end)
        if key_end < 0 or end < 0:
            return None
        literal = text[position + 4 : key_end + 1]
        key = literal[1:-1] if "\\" not in literal else json.loads(literal)
        end += 6
        blocks[key] = text[position:end]
        position = end
        if text.startswith(",\n", position):
            position += 2
            continue
        return blocks if text[position:] == "\n  }\n}\n" else None


def _is_empty_store(text: str) -> bool:
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("version") == 1 and data.get("entries") == {}

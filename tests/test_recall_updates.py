"""A search's recall update rewrites only the entries it touches, and leaves the file as the full writer would."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from memtui.dreaming.recall_store import RECALL_STORE_NAME, dreams_dir, load_recall_store
from memtui.dreaming.recalls import record_search_hits

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _hits(first: int, count: int) -> list[tuple[str, int, int, float, str, str]]:
    return [(f"memory/2026-11-{(n % 28) + 1:02d}.md", n * 10 + 1, n * 10 + 4, 0.5 + n / 1000,
             f"note {n}: the deploy key for «проект {n}» rotates on Fridays", "memory")
            for n in range(first, first + count)]


def _workspace(tmp_path: Path, entries: int) -> Path:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    for start in range(0, entries, 6):
        record_search_hits(workspace, f"query {start}", _hits(start, 6), now=NOW)
    return workspace


def test_partial_update_writes_what_the_full_path_writes(tmp_path: Path) -> None:
    partial = _workspace(tmp_path / "a", 60)
    full = _workspace(tmp_path / "b", 60)
    full_path = dreams_dir(full) / RECALL_STORE_NAME
    full_path.write_text(json.dumps(json.loads(full_path.read_text(encoding="utf-8"))), encoding="utf-8")  # forces it
    for workspace in (partial, full):
        assert record_search_hits(workspace, "query again", [*_hits(10, 3), *_hits(100, 2)], now=NOW) == 5
    text = (dreams_dir(partial) / RECALL_STORE_NAME).read_text(encoding="utf-8")
    assert json.loads(text) == json.loads(full_path.read_text(encoding="utf-8"))
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    entries = load_recall_store(partial).entries
    assert len(entries) == 62
    assert entries["memory:memory/2026-11-11.md:101:104"].recall_count == 2


def test_entries_a_search_does_not_touch_keep_their_text(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, 12)
    path = dreams_dir(workspace) / RECALL_STORE_NAME
    data = json.loads(path.read_text(encoding="utf-8"))
    key = next(iter(data["entries"]))
    data["entries"][key]["futureField"] = {"kept": True}  # a field a newer OpenClaw might write
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    record_search_hits(workspace, "another", _hits(500, 1), now=NOW)
    assert json.loads(path.read_text(encoding="utf-8"))["entries"][key]["futureField"] == {"kept": True}


def test_a_file_in_another_layout_is_read_and_rewritten_in_full(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, 6)
    path = dreams_dir(workspace) / RECALL_STORE_NAME
    compact = json.dumps(json.loads(path.read_text(encoding="utf-8")))
    path.write_text(compact, encoding="utf-8")
    assert record_search_hits(workspace, "query 0", _hits(0, 1), now=NOW) == 1
    entries = load_recall_store(workspace).entries
    assert len(entries) == 6 and entries["memory:memory/2026-11-01.md:1:4"].recall_count == 2
    assert path.read_text(encoding="utf-8").startswith('{\n  "version": 1,')


def test_keys_with_escaped_characters_are_found_again(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, 6)
    odd = ('memory/say "hi" ♥/2026-11-05.md', 3, 4, 0.7, "a quoted note about the deploy key", "memory")
    record_search_hits(workspace, "odd one", [odd], now=NOW)
    record_search_hits(workspace, "odd two", [odd], now=NOW)
    entry = load_recall_store(workspace).entries['memory:memory/say "hi" ♥/2026-11-05.md:3:4']
    assert entry.recall_count == 2 and len(load_recall_store(workspace).entries) == 7

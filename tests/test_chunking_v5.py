"""memtui's restatement of OpenClaw 2026.9.6's chunker (version 5) against the real agent database: every file of
the recorded workspace cut into the same chunks (lines, text, hash, id) with the same recall metadata as the real
`openclaw memory index --force` stored, plus the edge rules read from the dist."""

from __future__ import annotations

import itertools
import sqlite3

from openclaw_2026_9_data import RECORDING, recording

from memtui.index.chunking_v5 import INVALID_PROJECT, chunk_markdown_v5, prepare_chunks, strip_annotations
from memtui.jscompat import sha256_hex


def _stored() -> dict[str, dict[tuple[int, int], tuple]]:
    """path → (start, end) → (text, hash, id, model, importance, triggers, project key), as OpenClaw stored them."""
    conn = sqlite3.connect(f"{(RECORDING / 'agent.sqlite').absolute().as_uri()}?immutable=1", uri=True)
    try:
        rows = conn.execute(
            "SELECT c.path, c.start_line, c.end_line, c.text, c.hash, c.id, c.model, m.importance, m.triggers, "
            "m.project_key FROM memory_index_chunks c LEFT JOIN memory_index_chunk_recall_metadata m "
            "ON m.chunk_id = c.id WHERE c.source = 'memory'").fetchall()
    finally:
        conn.close()
    stored: dict[str, dict[tuple[int, int], tuple]] = {}
    for path, start, end, *rest in rows:
        stored.setdefault(path, {})[(start, end)] = tuple(rest)
    return stored


def test_every_recorded_file_is_cut_as_openclaw_2026_9_6_cut_it() -> None:
    stored = _stored()
    files = {entry["path"]: entry["text"] for entry in recording("workspace")["files"]}
    assert sum(map(len, stored.values())) == 82 and set(stored) == set(files)
    with_metadata = 0
    for path, text in files.items():
        mine = {}
        for c in prepare_chunks(text, path, "memory"):
            model = stored[path].get((c.chunk.start_line, c.chunk.end_line), (None,) * 4)[3]
            chunk_id = sha256_hex(f"memory:{path}:{c.chunk.start_line}:{c.chunk.end_line}:{c.chunk.hash}:{model}")
            mine[(c.chunk.start_line, c.chunk.end_line)] = (c.chunk.text, c.chunk.hash, chunk_id, model,
                                                            c.metadata.importance, c.metadata.triggers,
                                                            c.metadata.project_key)
        assert mine == stored[path], path
        with_metadata += sum(1 for row in mine.values() if any(v is not None for v in row[4:]))
    assert with_metadata >= 10  # importance, triggers and project keys were compared, not only empty ones


def test_memory_md_is_cut_per_entry_and_annotations_leave_the_text() -> None:
    text = ("# Memory\n\n- First fact. <!-- importance: 8 -->\n  continued here\n\n## Section\nbody line\n"
            "- Second <!-- trigger: deploy, freeze; friday --> <!-- project: GitHub.com/Acme/x -->\n")
    chunks = prepare_chunks(text, "MEMORY.md", "memory")
    assert [(c.chunk.start_line, c.chunk.end_line) for c in chunks] == [(1, 2), (3, 5), (6, 7), (8, 9)]
    assert chunks[1].chunk.text == "- First fact.\n  continued here\n"
    assert chunks[1].metadata.importance == 8
    assert chunks[3].metadata.triggers == "deploy; freeze; friday"
    assert chunks[3].metadata.project_key == "github.com/Acme/x"
    assert prepare_chunks(text, "memory/notes.md", "memory")[0].metadata.importance is None  # not a curated root
    assert prepare_chunks("- a <!-- project: <bad> -->\n", "MEMORY.md", "memory")[0].metadata.project_key == \
        INVALID_PROJECT
    assert prepare_chunks("- a <!-- project: x -->\n", "USER.md", "memory")[0].metadata.project_key is None


def test_a_comment_over_two_lines_stays_and_only_line_ends_lose_spaces() -> None:
    assert strip_annotations("a <!-- importance:\n 3 --> b") == "a <!-- importance:\n 3 --> b"
    assert strip_annotations("keep  two <!-- trigger: x -->  \nnext") == "keep  two\nnext"


def test_the_overlap_carry_is_bounded_by_the_room_the_next_line_leaves() -> None:
    lines = [f"line {i:03d} " + "x" * 90 for i in range(1, 40)]
    chunks = chunk_markdown_v5("\n".join(lines))
    assert len(chunks) > 1
    for (previous, _), (chunk, _) in itertools.pairwise(chunks):
        assert chunk.start_line <= previous.end_line  # consecutive chunks overlap
        assert sum(len(line) + 1 for line in chunk.text.split("\n")) <= 1600

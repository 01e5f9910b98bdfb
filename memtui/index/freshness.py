"""Whether the index still matches the memory files on disk (an honest `Dirty` after a killed or missed sync)."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from pathlib import Path

from memtui.atomic import open_for_read, parts_below
from memtui.errors import PathError
from memtui.index.workspace import MAX_MARKDOWN_BYTES, list_memory_files, memory_location
from memtui.jscompat import sha256_hex


def first_difference(workspace_dir: Path, extra_paths: tuple[str, ...],
                     indexed: Iterable[tuple[str, str, str, float, int]],
                     skipped: Collection[str] = ()) -> str | None:
    """The first memory file that is new, changed or gone since it was indexed, described in a few words;
    None when the index matches the disk. `indexed` holds `(path, source, hash, mtime, size)` rows; `skipped`
    the files the last sync left out (binary, too large): not indexed, and no sync will index them. A file
    whose size and mtime match is taken as unchanged; otherwise its text is hashed as the indexer does."""
    rows = {path: (digest, mtime, size) for path, source, digest, mtime, size in indexed if source == "memory"}
    listed = list_memory_files(workspace_dir, extra_paths) if workspace_dir.is_dir() else []
    for memory_file in listed:
        row = rows.pop(memory_file.rel_path, None)
        if row is None:
            if memory_file.rel_path in skipped:
                continue
            return f"{memory_file.rel_path} is not indexed yet"
        try:
            if same_stat(memory_file.path, row[1], row[2]):
                continue
            if os.lstat(memory_file.path).st_size > MAX_MARKDOWN_BYTES:  # the indexer does not read it either
                return f"{memory_file.rel_path} changed since it was indexed"
            text = read_memory_bytes(workspace_dir, extra_paths, memory_file.rel_path).decode("utf-8", errors="replace")
        except PathError:  # now a symlink, FIFO or device (swapped in since the listing): not what was indexed
            return f"{memory_file.rel_path} changed since it was indexed"
        except OSError:
            continue
        if sha256_hex(text) != row[0]:
            return f"{memory_file.rel_path} changed since it was indexed"
    if rows:
        return f"{min(rows)} was deleted but is still indexed"
    return None


def same_stat(path: str | Path, mtime: float, size: int) -> bool:
    """True when `path` (not followed if a symlink) has this size and mtime (ms): the file is taken as the one
    indexed, by the sync (which does not read it again) and by the `Dirty` check alike."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (info.st_size, info.st_mtime_ns / 1e6) == (size, mtime)


def read_memory_bytes(workspace_dir: Path, extra_paths: tuple[str, ...], rel: str) -> bytes:
    """The file's bytes, opened as the indexer opens it: no symlink followed below its root, no FIFO waited on."""
    location = memory_location(workspace_dir, rel, extra_paths)
    with open_for_read(location.root, parts_below(location.root, location.target)) as handle:
        return handle.read()

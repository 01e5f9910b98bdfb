"""Full rebuilds: a temporary index file next to the live one, swapped into place, and removing index files."""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from pathlib import Path


def temp_index_path(target: Path) -> Path:
    """A fresh path beside `target` to build a full rebuild in."""
    return Path(f"{target}.tmp-{uuid.uuid4().hex}")


def swap_database(temp_path: Path, target: Path) -> None:
    """Move a freshly built index into place; the old files are kept until the move succeeded."""
    backup = Path(f"{target}.backup-{os.getpid()}-{time.time_ns()}")
    moved: list[tuple[str, str]] = []
    try:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(f"{target}{suffix}"):
                os.replace(f"{target}{suffix}", f"{backup}{suffix}")
                moved.append((f"{backup}{suffix}", f"{target}{suffix}"))
        os.replace(temp_path, target)
        for suffix in ("-wal", "-shm"):
            if os.path.exists(f"{temp_path}{suffix}"):
                os.replace(f"{temp_path}{suffix}", f"{target}{suffix}")
    except OSError:
        for source, destination in moved:
            os.replace(source, destination)
        raise
    for source, _ in moved:
        os.remove(source)


def remove_database_files(path: Path) -> None:
    """Delete an index file and its -wal/-shm companions."""
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")

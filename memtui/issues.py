"""Problems found while reading memory files or transcripts, reported instead of aborting a sync."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class FileIssue:
    """One problem with one file: which file, why, and (when known) which line."""

    path: str
    reason: str
    line: int | None = None

    def to_json(self) -> dict[str, object]:
        """JSON shape used by `status --json` (`issues` list)."""
        data: dict[str, object] = {"path": self.path, "reason": self.reason}
        if self.line is not None:
            data["line"] = self.line
        return data


def carried_over(recorded: list[dict[str, object]], untouched: Callable[[str], bool]) -> list[FileIssue]:
    """The issues an earlier sync recorded for files this sync did not read again (unchanged on disk, or outside
    the paths a watcher's sync was given): they still hold, so `status` keeps showing them."""
    kept = []
    for item in recorded:
        path, reason, line = item.get("path"), item.get("reason"), item.get("line")
        if isinstance(path, str) and isinstance(reason, str) and untouched(path):
            kept.append(FileIssue(path, reason, line if isinstance(line, int) else None))
    return kept

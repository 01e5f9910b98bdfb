"""Shared fixtures for the dreaming tests: a workspace with daily notes and recorded recalls."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memtui.dreaming.recalls import record_search_hits

DAILY_NOTE = """# 2026-04-27

## Infrastructure
- Move nightly backups to S3 Glacier deep archive.
- Keep 30 days of hot snapshots on the NAS.

## People
Alice prefers async standups on Tuesdays.
"""


def make_workspace(root: Path) -> Path:
    """A workspace with one daily note (`memory/2026-04-27.md`)."""
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "2026-04-27.md").write_text(DAILY_NOTE, encoding="utf-8")
    return root


def recall_backups(workspace: Path, times: int = 3) -> None:
    """Record the Glacier line (lines 4-4) as a search hit for `times` different queries on different days."""
    snippet = "- Move nightly backups to S3 Glacier deep archive."
    for i in range(times):
        now = datetime(2026, 4, 27 + i, 12, 0, tzinfo=UTC)
        hits = [("memory/2026-04-27.md", 4, 4, 0.9, snippet, "memory")]
        record_search_hits(workspace, f"backup query {i}", hits, now=now, tz=UTC)

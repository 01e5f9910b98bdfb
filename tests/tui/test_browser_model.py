"""The browser's listing: counts per group kept current by file events, as a fresh listing would count them."""

from __future__ import annotations

from pathlib import Path

from memtui.tui.browser_model import Listing, entry_for

WORKSPACE = Path("/ws")
START = ["MEMORY.md", "memory/2026-04-10.md", "memory/2026-04-10-standup.md", "memory/2026-03-31.md",
         "memory/2025-12-31.md", "memory/projects.md", "notes/extra.md", "sessions/a.jsonl"]


def listing(rels: list[str]) -> Listing:
    return Listing(entry_for(WORKSPACE, rel) for rel in rels)


def test_counts_follow_added_replaced_and_removed_files() -> None:
    live = listing(START)
    assert live.group_counts()[("month", 2026, 4)] == 2
    added = ["memory/2026-04-11.md", "memory/2024-01-01.md", "memory/ideas.md", "memory/2026-04-10.md"]
    removed = ["memory/2025-12-31.md", "memory/2026-03-31.md", "sessions/a.jsonl", "memory/gone.md"]
    live.apply([entry_for(WORKSPACE, rel) for rel in added], removed)
    now = sorted(set(START) - set(removed) | set(added))
    assert live.group_counts() == listing(now).group_counts()
    counts = live.group_counts()
    assert counts[("month", 2026, 4)] == 3 and counts[("year", 2024)] == 1
    # Emptied groups are gone, not counted as zero: the tree drops their nodes.
    assert ("year", 2025) not in counts and ("month", 2026, 3) not in counts and ("Session transcripts",) not in counts
    assert [e.rel for e in live.in_group(("month", 2026, 4))] == [
        "memory/2026-04-11.md", "memory/2026-04-10.md", "memory/2026-04-10-standup.md"]


def test_a_copy_of_the_counts_is_returned() -> None:
    live = listing(START)
    live.group_counts()[("", )] = 99
    assert live.group_counts()[("",)] == 1


def test_dreaming_reports_are_notes_not_daily_logs(tmp_path: Path) -> None:
    """`memory/dreaming/deep/2026-11-30.md` is a dreaming report: listed with the other notes, not as the daily log
    '30 Mon'; a dated note in any other folder under memory/ is a daily log, as OpenClaw dates it."""
    assert entry_for(tmp_path, "memory/dreaming/deep/2026-11-30.md").kind == "note"
    assert entry_for(tmp_path, "memory/2026-11-30.md").kind == "daily"
    assert entry_for(tmp_path, "memory/archive/2026-11-30.md").kind == "daily"

"""Promotion into MEMORY.md (§12.6): format, idempotence, staleness, signals feeding the store."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import cast

from dreaming_helpers import make_workspace, recall_backups

from memtui.dreaming.promotion import apply_promotions, list_candidates, promotion_section, relocate
from memtui.dreaming.ranking import Candidate
from memtui.dreaming.recalls import record_search_hits

APPLY_AT = datetime(2026, 4, 29, 10, 0, tzinfo=UTC)


def candidates(ws):
    return list_candidates(ws, now=APPLY_AT, min_score=0, min_recall_count=3, min_unique_queries=2)


def test_search_hits_only_count_on_short_term_memory_paths(tmp_path):
    ws = make_workspace(tmp_path)
    hits = [
        ("memory/2026-04-27.md", 4, 4, 1.4, "- Move nightly backups", "memory"),
        ("MEMORY.md", 1, 2, 0.9, "long term", "memory"),
        ("memory/dreaming/light/2026-04-27.md", 1, 2, 0.9, "report", "memory"),
        ("sessions/abc.jsonl", 1, 2, 0.9, "User: hi there", "sessions"),
        ("memory/.dreams/session-corpus/2026-04-27.txt", 3, 3, 0.5, "User: hello again", "memory"),
    ]
    assert record_search_hits(ws, "Backups", hits, now=APPLY_AT, tz=UTC) == 2
    store = json.loads((ws / "memory/.dreams/short-term-recall.json").read_text())
    assert sorted(store["entries"]) == [
        "memory:memory/.dreams/session-corpus/2026-04-27.txt:3:3",
        "memory:memory/2026-04-27.md:4:4",
    ]
    entry = store["entries"]["memory:memory/2026-04-27.md:4:4"]
    # score is clamped to 1; query hash is sha1("backups")[:12]
    assert entry["totalScore"] == 1 and entry["recallCount"] == 1
    assert entry["queryHashes"] == [hashlib.sha1(b"backups").hexdigest()[:12]]
    assert entry["recallDays"] == ["2026-04-29"]
    assert entry["firstRecalledAt"] == "2026-04-29T10:00:00.000Z"


def test_promotion_section_format():
    c = Candidate(
        key="memory:memory/2026-04-27.md:4:6",
        path="memory/2026-04-27.md",
        start_line=4,
        end_line=6,
        snippet="Alice prefers async standups",
        recall_count=4,
        daily_count=0,
        grounded_count=0,
        signal_count=4,
        avg_score=0.6119,
        max_score=0.9,
        unique_queries=3,
        context_diversity=3,
        age_days=0,
        first_recalled_at="",
        last_recalled_at="",
        recall_days=[],
        concept_tags=[],
        components=None,
        weights={},
        phase_boost=None,
        score=0.8234,
    )
    assert promotion_section([c], "2026-04-29") == (
        "\n## Promoted From Short-Term Memory (2026-04-29)\n\n"
        "<!-- openclaw-memory-promotion:memory:memory/2026-04-27.md:4:6 -->\n"
        "- Alice prefers async standups [score=0.823 recalls=4 avg=0.612 source=memory/2026-04-27.md:4-6]\n"
    )


def test_apply_twice_writes_once_and_marks_promoted(tmp_path):
    ws = make_workspace(tmp_path)
    recall_backups(ws)
    first = apply_promotions(ws, candidates(ws), now=APPLY_AT, tz=UTC)
    assert first.appended == 1
    text = (ws / "MEMORY.md").read_text()
    assert text.startswith("# Long-Term Memory\n\n\n## Promoted From Short-Term Memory (2026-04-29)\n\n")
    assert "<!-- openclaw-memory-promotion:memory:memory/2026-04-27.md:4:4 -->\n" in text
    assert re.search(
        r"\n- - Move nightly backups to S3 Glacier deep archive\. \[score=\d\.\d{3} recalls=3 avg=0\.900 "
        r"source=memory/2026-04-27\.md:4-4\]\n$",
        text,
    )
    before = (ws / "MEMORY.md").read_bytes()
    store = json.loads((ws / "memory/.dreams/short-term-recall.json").read_text())
    assert store["entries"]["memory:memory/2026-04-27.md:4:4"]["promotedAt"] == "2026-04-29T10:00:00.000Z"
    assert candidates(ws) == []
    # applying the same (stale-list) candidates again writes nothing
    again = list_candidates(ws, now=APPLY_AT, min_score=0, include_promoted=True)
    second = apply_promotions(ws, again, now=APPLY_AT, tz=UTC)
    assert second.appended == 0 and second.applied == []
    assert (ws / "MEMORY.md").read_bytes() == before


def test_marker_already_in_memory_is_not_duplicated(tmp_path):
    ws = make_workspace(tmp_path)
    recall_backups(ws)
    existing = "# Mine\n\n<!-- openclaw-memory-promotion:memory:memory/2026-04-27.md:4:4 -->\n- old copy\n"
    (ws / "MEMORY.md").write_text(existing)
    result = apply_promotions(ws, candidates(ws), now=APPLY_AT, tz=UTC)
    assert (result.appended, result.already_present, len(result.applied)) == (0, 1, 1)
    assert (ws / "MEMORY.md").read_text() == existing


def test_moved_lines_are_rehydrated_and_changed_text_is_skipped(tmp_path):
    ws = make_workspace(tmp_path)
    recall_backups(ws)
    note = ws / "memory/2026-04-27.md"
    note.write_text("# Added title\n\nextra line\n" + note.read_text())
    moved = apply_promotions(ws, candidates(ws), now=APPLY_AT, tz=UTC)
    assert [c.source for c in moved.applied] == ["memory/2026-04-27.md:7-7"]
    assert "source=memory/2026-04-27.md:7-7]" in (ws / "MEMORY.md").read_text()

    ws2 = make_workspace(tmp_path / "second")
    recall_backups(ws2)
    note2 = ws2 / "memory/2026-04-27.md"
    note2.write_text(note2.read_text().replace("S3 Glacier deep archive", "tape"))
    stale = apply_promotions(ws2, candidates(ws2), now=APPLY_AT, tz=UTC)
    assert stale.applied == [] and not (ws2 / "MEMORY.md").exists()
    assert "stale" in stale.skipped[0][1]


def test_existing_memory_gets_no_header(tmp_path):
    ws = make_workspace(tmp_path)
    recall_backups(ws)
    (ws / "MEMORY.md").write_text("# Facts\n- sky is blue")
    apply_promotions(ws, candidates(ws), now=APPLY_AT, tz=UTC)
    assert (
        (ws / "MEMORY.md")
        .read_text()
        .startswith(
            "# Facts\n- sky is blue\n\n## Promoted From Short-Term Memory (2026-04-29)\n\n"
            "<!-- openclaw-memory-promotion:"
        )
    )


def test_relocation_tries_windows_of_up_to_eight_lines():
    """`relocateCandidateRange` looks at windows of max(span + 3, 8) lines: a one-line note that was later
    wrapped over six lines is found whole, not as its first four lines (the recorded relocations are shorter)."""
    lines = ["# 2026-04-25", "", "other", "more", "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "tail"]
    moved = SimpleNamespace(snippet="alpha beta gamma delta epsilon zeta", start_line=3, end_line=3)
    assert relocate(lines, cast(Candidate, moved)) == (5, 10, "alpha beta gamma delta epsilon zeta")

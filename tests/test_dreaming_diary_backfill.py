"""DREAMS.md format (§12.8), rem-backfill and its byte-for-byte rollback, daily ingestion."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from dreaming_helpers import make_workspace

from memtui.dreaming import diary
from memtui.dreaming.backfill import rollback, run_backfill
from memtui.dreaming.clock import diary_date
from memtui.dreaming.daily import ingest_daily, snippet_chunks
from memtui.dreaming.signals import ingest_sessions
from memtui.errors import PathError

NOW = datetime(2026, 4, 29, 10, 0, tzinfo=UTC)


def test_diary_date_matches_en_us_intl_format():
    assert diary_date(NOW, ZoneInfo("America/Los_Angeles")) == "April 29, 2026 at 3:00 AM PDT"
    assert diary_date(NOW, ZoneInfo("Asia/Shanghai")) == "April 29, 2026 at 6:00 PM GMT+8"
    assert diary_date(NOW, ZoneInfo("Asia/Kolkata")) == "April 29, 2026 at 3:30 PM GMT+5:30"


def test_entries_append_before_the_end_marker(tmp_path):
    diary.append_entry(tmp_path, "One.", now=NOW, tz=UTC)
    diary.append_entry(tmp_path, "Two.", now=NOW, tz=UTC)
    assert (tmp_path / "DREAMS.md").read_text() == (
        "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n"
        "---\n\n*April 29, 2026 at 10:00 AM UTC*\n\nOne.\n\n"
        "\n---\n\n*April 29, 2026 at 10:00 AM UTC*\n\nTwo.\n"
        "\n<!-- openclaw:dreaming:diary:end -->\n"
    )


def test_symlinked_diary_is_refused(tmp_path):
    target = tmp_path / "elsewhere.md"
    target.write_text("mine\n")
    (tmp_path / "DREAMS.md").symlink_to(target)
    with pytest.raises(PathError, match="symlink"):
        diary.append_entry(tmp_path, "x", now=NOW, tz=UTC)
    assert target.read_text() == "mine\n"


def test_backfill_entries_replace_their_set_and_roll_back(tmp_path):
    ws = make_workspace(tmp_path)
    diary.append_entry(ws, "An older dream.", now=NOW, tz=UTC)
    dreams_before = (ws / "DREAMS.md").read_text()

    result = run_backfill(ws, ws / "memory", stage_short_term=True, now=NOW)
    note = str(ws / "memory" / "2026-04-27.md")
    assert result.source_files == [note] and (result.written, result.replaced, result.staged) == (1, 0, 2)
    text = (ws / "DREAMS.md").read_text()
    assert text.startswith(dreams_before.split("<!-- openclaw:dreaming:diary:end -->")[0].rstrip("\n"))
    assert (
        "---\n\n*April 27, 2026*\n\n"
        f"<!-- openclaw:dreaming:backfill-entry day=2026-04-27 source={note} -->\n\n"
        "What Happened\n1. Alice prefers async standups on Tuesdays. [memory/2026-04-27.md:8]\n"
    ) in text
    store = ws / "memory/.dreams/short-term-recall.json"
    staged = json.loads(store.read_text())["entries"]
    # the lasting update (weight 2) and the durable candidate (1) are one claim at one line
    assert [e["groundedCount"] for e in staged.values()] == [3]

    # a second backfill replaces the earlier set instead of adding to it
    again = run_backfill(ws, ws / "memory", stage_short_term=True, now=NOW)
    assert (again.replaced, again.replaced_short_term) == (1, 1)
    assert (ws / "DREAMS.md").read_text().count("backfill-entry") == 1

    undone = rollback(ws, diary_entries=True, short_term=True, now=NOW)
    assert (undone.removed_diary_entries, undone.removed_short_term) == (1, 1)
    assert "backfill-entry" not in (ws / "DREAMS.md").read_text()
    assert "An older dream." in (ws / "DREAMS.md").read_text()
    assert json.loads(store.read_text())["entries"] == {}


def test_rollback_keeps_recalled_candidates(tmp_path):
    ws = make_workspace(tmp_path)
    run_backfill(ws, ws / "memory/2026-04-27.md", stage_short_term=True, now=NOW)
    store = ws / "memory/.dreams/short-term-recall.json"
    entries = json.loads(store.read_text())["entries"]
    key = next(iter(entries))
    entries[key]["recallCount"] = 1  # a real search recalled it too
    store.write_text(json.dumps({"version": 1, "updatedAt": "x", "entries": entries}))
    assert rollback(ws, diary_entries=False, short_term=True, now=NOW).removed_short_term == 0
    assert list(json.loads(store.read_text())["entries"]) == [key]


def test_daily_chunks_prefix_heading_and_cap_runs_at_four_lines():
    lines = ["# 2026-04-27", "## Plans", "- first item", "- second item", "- third item", "- fourth item",
             "- fifth item", "", "a paragraph line", "short"]
    chunks = snippet_chunks(lines, 10)
    assert [(c.start_line, c.end_line, c.snippet) for c in chunks] == [
        (3, 6, "Plans: first item; second item; third item; fourth item"),
        (7, 7, "Plans: fifth item"),
        (9, 9, "Plans: a paragraph line"),  # "short" (5 chars) is under the 8-character floor
    ]


def test_daily_ingestion_counts_once_per_day_and_skips_unchanged_files(tmp_path):
    ws = make_workspace(tmp_path)
    first = ingest_daily(ws, now=NOW, tz=UTC)
    assert (first.files, first.signals) == (1, 2)
    store = json.loads((ws / "memory/.dreams/short-term-recall.json").read_text())
    entry = store["entries"]["memory:memory/2026-04-27.md:4:5"]
    assert (entry["dailyCount"], entry["recallCount"], entry["totalScore"]) == (1, 0, 0.62)
    state = json.loads((ws / "memory/.dreams/daily-ingestion.json").read_text())
    assert list(state["files"]) == ["memory/2026-04-27.md"]
    assert ingest_daily(ws, now=NOW, tz=UTC).signals == 0
    (ws / "memory/2026-04-27.md").write_text((ws / "memory/2026-04-27.md").read_text() + "\nNew fact here.\n")
    ingest_daily(ws, now=NOW, tz=UTC)
    store = json.loads((ws / "memory/.dreams/short-term-recall.json").read_text())
    assert store["entries"]["memory:memory/2026-04-27.md:4:5"]["dailyCount"] == 1


def test_session_ingestion_writes_redacted_corpus_lines_once(tmp_path):
    ws = make_workspace(tmp_path / "ws")
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    records = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-04-29T09:00:00.000Z"},
        {
            "type": "message",
            "id": "m1",
            "timestamp": "2026-04-29T09:00:01.000Z",
            "message": {"role": "user", "content": "Please remember my key OPENAI_API_KEY=sk-1234567890abcdefghij"},
        },
        {
            "type": "message",
            "id": "m2",
            "timestamp": "2026-04-29T09:00:02.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Noted, I will keep it safe."}]},
        },
        {
            "type": "message",
            "id": "m3",
            "timestamp": "2026-04-29T09:00:03.000Z",
            "message": {"role": "user", "content": "ok"},
        },
    ]
    (sessions / "s1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = ingest_sessions(ws, sessions, "main", now=NOW, tz=UTC)
    corpus = (ws / "memory/.dreams/session-corpus/2026-04-29.txt").read_text().splitlines()
    assert len(corpus) == 2 and result.signals == 2  # "User: ok" is under 12 characters
    assert corpus[0].startswith("[main/s1.jsonl#L2] User: Please remember my key ")
    assert "sk-1234567890abcdefghij" not in corpus[0]
    assert corpus[1] == "[main/s1.jsonl#L3] Assistant: Noted, I will keep it safe."
    store = json.loads((ws / "memory/.dreams/short-term-recall.json").read_text())
    entry = store["entries"]["memory:memory/.dreams/session-corpus/2026-04-29.txt:2:2"]
    assert (entry["dailyCount"], entry["totalScore"]) == (1, 0.58)
    state = json.loads((ws / "memory/.dreams/session-ingestion.json").read_text())
    assert state["version"] == 3 and state["files"]["s1.jsonl"]["lastContentLine"] == 4
    assert ingest_sessions(ws, sessions, "main", now=NOW, tz=UTC).signals == 0

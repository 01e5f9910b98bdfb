"""rem-backfill, the light/REM phases and the dream run against OpenClaw 2026.4.29 (recorded in
`tests/data/openclaw-2026.4.29/context/sweep.json`), compared file by file, byte for byte."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from openclaw_context_data import make_placeholders, recording

from memtui.dreaming.backfill import rollback, run_backfill

SWEEP = recording("sweep")
NOW = datetime.fromtimestamp(1777456800000 / 1000, UTC)
DIARY = ("# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 28, 2026 at 3:00 AM PDT*\n\n"
         "A real entry.\n\n<!-- openclaw:dreaming:diary:end -->\n")


def _files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "events.jsonl"}


def test_rem_backfill_stage_and_rollback_match_openclaw(tmp_path: Path) -> None:
    recorded = SWEEP["remBackfill"]
    ws, history = tmp_path / "workspace", tmp_path / "history"
    ws.mkdir()
    history.mkdir()
    (ws / "DREAMS.md").write_text(DIARY, encoding="utf-8")
    for name, text in recorded["sources"].items():
        (history / name).write_text(text, encoding="utf-8")
    result = run_backfill(ws, history, stage_short_term=True, now=NOW, tz=ZoneInfo("America/Los_Angeles"))
    written = recorded["written"]
    assert (result.written, result.replaced, result.staged, result.replaced_short_term) == (
        written["written"], written["replaced"], written["stagedShortTermEntries"],
        written["replacedShortTermEntries"])
    mapping = {"<history>": str(history), "<ws>": str(ws)}
    assert make_placeholders(_files(ws), mapping) == recorded["afterStage"]
    undone = rollback(ws, diary_entries=True, short_term=True, now=NOW)
    assert (undone.removed_diary_entries, undone.removed_short_term) == (
        recorded["rollback"]["diary"]["removed"], recorded["rollback"]["shortTerm"]["removed"])
    assert make_placeholders(_files(ws), mapping) == recorded["afterRollback"]

"""rem-backfill, the light/REM phases and the dream run against OpenClaw 2026.4.29 (recorded in
`tests/data/openclaw-2026.4.29/context/sweep.json`), compared file by file, byte for byte."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from openclaw_context_data import make_placeholders, recording, write_tree

from memtui.dreaming import diary
from memtui.dreaming.backfill import rollback, run_backfill
from memtui.dreaming.phases import run_sweep
from memtui.dreaming.recalls import record_search_hits
from memtui.settings.dreaming import DreamingSettings, dreaming_settings

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



NARRATIVE = "The router hummed like a kettle while the backups slept in their cold shelves."
LA = ZoneInfo("America/Los_Angeles")


def _narrator(calls: list):
    """A stand-in for the narrative sub-agent: records the prompt it would get, answers a fixed text."""
    def narrate(phase: str, snippets: list[str], themes: list[str], promotions: list[str]) -> str:
        calls.append(diary.narrative_prompt(snippets, themes, promotions))
        return NARRATIVE
    return narrate


def _sweep(tmp_path: Path, case: dict, settings: DreamingSettings) -> tuple[Path, list]:
    ws = tmp_path / "workspace"
    ws.mkdir()
    write_tree(ws, case["tree"])
    for recall in case["seed"]:
        hits = [(r["path"], r["startLine"], r["endLine"], r["score"], r["snippet"], r["source"])
                for r in recall["results"]]
        record_search_hits(ws, recall["query"], hits, now=datetime.fromtimestamp(recall["nowMs"] / 1000, UTC), tz=UTC)
    calls: list = []
    run_sweep(ws, settings, tz=LA, now=NOW, narrator=_narrator(calls) if case.get("narrative") else lambda *_: None)
    return ws, calls


def _masked(ws: Path) -> dict[str, str]:
    """The workspace files, with the wall-clock mtimes of notes the sweep itself wrote masked as the recording
    masks them (any mtime after the fixed clock)."""
    limit = int(NOW.timestamp() * 1000)
    def mask(match: re.Match[str]) -> str:
        return match.group(0) if int(match.group(1)) <= limit else '"mtimeMs": "<run>"'
    return {name: re.sub(r'"mtimeMs": (\d+)', mask, text) for name, text in _files(ws).items()}


@pytest.mark.parametrize("case", SWEEP["phases"]["cases"], ids=lambda c: c["name"])
def test_light_and_rem_phases_match_openclaw(tmp_path: Path, case: dict) -> None:
    settings = dreaming_settings(case["config"])
    settings = replace(settings, deep=replace(settings.deep, enabled=False))
    ws, calls = _sweep(tmp_path, case, settings)
    assert _masked(ws) == case["files"]
    assert calls == [c["message"] for c in case["subagent"] if c["call"] == "run"]


@pytest.mark.parametrize("case", [c for c in SWEEP["dream"]["cases"] if c.get("enabled") is not False],
                         ids=lambda c: c["name"])
def test_dream_run_matches_openclaw(tmp_path: Path, case: dict) -> None:
    ws, calls = _sweep(tmp_path, case, dreaming_settings(case["config"]))
    assert _masked(ws) == case["files"]
    assert calls == [c["message"] for c in case["subagent"] if c["call"] == "run"]

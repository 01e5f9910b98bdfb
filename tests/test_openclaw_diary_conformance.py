"""DREAMS.md and grounded REM evidence against OpenClaw 2026.4.29 (`appendNarrativeEntry`,
`formatNarrativeDate`, `buildNarrativePrompt`, the backfill writers, `previewGroundedRemMarkdown`), recorded in
`tests/data/openclaw-2026.4.29/context/sweep.json` and compared byte for byte."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from openclaw_context_data import case_ids, recording

from memtui.dreaming import diary
from memtui.dreaming.clock import diary_date
from memtui.dreaming.grounded import preview_file

SWEEP = recording("sweep")
DIARY = SWEEP["diary"]
NARRATIVE = "The router hummed like a kettle while the backups slept in their cold shelves."


def _moment(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def _zone(name: str | None):
    return ZoneInfo(name) if name else UTC


@pytest.mark.parametrize("case", DIARY["append"], ids=case_ids(DIARY["append"]))
def test_appended_diary_entries_match_openclaw(tmp_path: Path, case: dict) -> None:
    name = case.get("file", "DREAMS.md")
    if case["existing"] is not None:
        (tmp_path / name).write_text(case["existing"], encoding="utf-8")
    now = _moment(1777456800000)
    diary.append_entry(tmp_path, NARRATIVE, now=now, tz=_zone(case.get("tz")))
    diary.append_entry(tmp_path, "Second entry.", now=_moment(1777456800000 + 3600000), tz=_zone(case.get("tz")))
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(tmp_path.iterdir())}
    assert files == case["result"]


@pytest.mark.parametrize("case", DIARY["dates"], ids=lambda c: f"{c['nowMs']}-{c['timezone']}")
def test_diary_date_lines_match_intl_date_time_format(case: dict) -> None:
    assert diary_date(_moment(case["nowMs"]), _zone(case["timezone"])) == case["text"]


def test_backfill_write_dedupe_and_remove_match_openclaw(tmp_path: Path) -> None:
    first = DIARY["backfill"][0]
    (tmp_path / "DREAMS.md").write_text(
        "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 28, 2026 at 3:00 AM PDT*\n\nA real "
        "entry.\n\n---\n\n*April 28, 2026 at 3:00 AM PDT*\n\nA real entry.\n\n<!-- openclaw:dreaming:diary:end -->\n",
        encoding="utf-8")
    entries = [diary.BackfillEntry("2026-04-20", ["What happened", "- a line  ", "", "More"], "/src/2026-04-20.md"),
               diary.BackfillEntry("2026-04-21", ["Only body"]), diary.BackfillEntry("not-a-day", [])]
    written = diary.write_backfill_entries(tmp_path, entries)
    assert (written.written, written.replaced) == (first["output"]["written"], first["output"]["replaced"])
    assert (tmp_path / "DREAMS.md").read_text(encoding="utf-8") == first["text"]
    second = DIARY["backfill"][1]
    written = diary.write_backfill_entries(tmp_path, [diary.BackfillEntry("2026-04-22", ["Replaced"],
                                                                          "/src/2026-04-22.md")])
    assert (written.written, written.replaced) == (second["output"]["written"], second["output"]["replaced"])
    assert (tmp_path / "DREAMS.md").read_text(encoding="utf-8") == second["text"]
    third = DIARY["backfill"][2]
    assert diary.dedupe_entries(tmp_path) == (third["output"]["removed"], third["output"]["kept"])
    assert (tmp_path / "DREAMS.md").read_text(encoding="utf-8") == third["text"]
    fourth = DIARY["backfill"][3]
    assert diary.remove_backfill_entries(tmp_path) == fourth["output"]["removed"]
    assert (tmp_path / "DREAMS.md").read_text(encoding="utf-8") == fourth["text"]


@pytest.mark.parametrize("case", DIARY["prompts"], ids=lambda c: c["data"]["phase"])
def test_narrative_prompts_match_openclaw(case: dict) -> None:
    data = case["data"]
    assert diary.narrative_prompt(data["snippets"], data.get("themes", []), data.get("promotions", [])) \
        == case["prompt"]


GROUNDED = SWEEP["groundedNotes"]


@pytest.mark.parametrize("file", GROUNDED["preview"]["files"], ids=lambda f: f["path"])
def test_grounded_rem_evidence_matches_openclaw(file: dict) -> None:
    got = preview_file(file["path"], GROUNDED["notes"][file["path"].rsplit("/", 1)[-1]])
    assert got.rendered_markdown == file["renderedMarkdown"]
    assert [(c.lean, c.text, c.refs) for c in got.candidates] == [
        (c["lean"], c["text"], c["refs"]) for c in file["candidates"]]
    assert [(m.text, m.refs) for m in got.memory_implications] == [
        (m["text"], m["refs"]) for m in file["memoryImplications"]]

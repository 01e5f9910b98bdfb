"""The short-term recall store, ranking and promotion against OpenClaw 2026.4.29 (`recordShortTermRecalls`,
`recordDreamingPhaseSignals`, `recordGroundedShortTermCandidates`, `rankShortTermPromotionCandidates`,
`applyShortTermPromotions`, `isContaminatedDreamingSnippet`, the short-term path rule), replayed step by step
from `tests/data/openclaw-2026.4.29/context/dreaming.json` and compared byte for byte."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from openclaw_context_data import case_ids, recording, write_tree

from memtui.dreaming.contamination import is_contaminated_snippet
from memtui.dreaming.promotion import ApplyGates, apply_promotions, list_candidates
from memtui.dreaming.recall_store import is_short_term_path
from memtui.dreaming.recalls import Hit, record_recalls, record_search_hits
from memtui.dreaming.signals import GroundedItem, record_grounded, record_phase_hits

DATA = recording("dreaming")
SCENARIOS = DATA["scenarios"]["cases"]
CANDIDATE_FIELDS = ("key", "path", "startLine", "endLine", "snippet", "recallCount", "dailyCount",
                    "groundedCount", "signalCount", "avgScore", "maxScore", "uniqueQueries", "ageDays",
                    "firstRecalledAt", "lastRecalledAt", "score", "recallDays", "conceptTags", "components")


def _moment(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


@pytest.mark.parametrize("case", DATA["contaminated"]["cases"], ids=lambda c: c["snippet"][:30] or "empty")
def test_contaminated_snippets_match_openclaw(case: dict) -> None:
    assert is_contaminated_snippet(case["snippet"]) is case["contaminated"]


@pytest.mark.parametrize("case", DATA["shortTermPaths"]["cases"], ids=lambda c: c["path"])
def test_short_term_paths_match_openclaw(case: dict) -> None:
    assert is_short_term_path(case["path"]) is case["shortTerm"]


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def _rank(ws: Path, options: dict, now: datetime):
    return list_candidates(
        ws, now=now,
        min_score=options.get("minScore", 0.75),
        min_recall_count=options.get("minRecallCount", 3),
        min_unique_queries=options.get("minUniqueQueries", 2),
        max_age_days=options.get("maxAgeDays"),
        include_promoted=options.get("includePromoted", False),
        limit=options.get("limit"),
    )


def _replay_step(ws: Path, step: dict, now: datetime, ranked: list) -> tuple[list, object]:
    op = step["op"]
    when = _moment(step["nowMs"]) if "nowMs" in step else now
    if op == "files":
        for rel in step["tree"]:
            (ws / rel).unlink(missing_ok=True)
        write_tree(ws, step["tree"])
    elif op == "delete":
        (ws / step["path"]).unlink()
    elif op == "writeStore":
        target = ws / "memory" / ".dreams" / "short-term-recall.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(step["store"], indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    elif op == "record" and not step.get("signalType") and not step.get("dedupeByQueryPerDay"):
        hits = [(r["path"], r["startLine"], r["endLine"], r["score"], r["snippet"], r["source"])
                for r in step["results"]]
        record_search_hits(ws, step["query"], hits, now=when, tz=UTC)
    elif op == "record":
        hits = [Hit(r["path"], r["startLine"], r["endLine"], r["score"], r["snippet"])
                for r in step["results"] if r["source"] == "memory"]
        record_recalls(ws, step["query"], hits, signal=step.get("signalType") or "recall",
                       dedupe_per_day=bool(step.get("dedupeByQueryPerDay")), day=step.get("dayBucket"),
                       now=when, tz=UTC)
    elif op == "grounded":
        items = [GroundedItem(i["path"], i["startLine"], i["endLine"], i["snippet"], i["score"], i.get("query"),
                              i.get("signalCount", 1), i.get("dayBucket")) for i in step["items"]]
        record_grounded(ws, step["query"], items, dedupe_per_day=bool(step.get("dedupeByQueryPerDay")), now=when,
                        tz=UTC)
    elif op == "phase":
        record_phase_hits(ws, step["phase"], step["keys"], now=when)
    elif op == "rank":
        ranked = _rank(ws, step["options"], now)
        return ranked, ranked
    elif op == "apply":
        options = step["options"]
        gates = ApplyGates(min_score=options.get("minScore", 0.75), min_recall_count=options.get("minRecallCount", 3),
                           min_unique_queries=options.get("minUniqueQueries", 2),
                           max_age_days=options.get("maxAgeDays"), limit=options.get("limit"))
        result = apply_promotions(ws, ranked, now=now, tz=ZoneInfo(options.get("timezone", "UTC")), gates=gates)
        return ranked, result
    return ranked, None


@pytest.mark.parametrize("scenario", SCENARIOS, ids=case_ids(SCENARIOS))
def test_recall_store_rank_and_promotion_match_openclaw(tmp_path: Path, scenario: dict) -> None:
    ws = tmp_path / "workspace"
    ws.mkdir()
    now = _moment(scenario["nowMs"])
    ranked: list = []
    for index, step in enumerate(scenario["steps"]):
        ranked, output = _replay_step(ws, step, now, ranked)
        where = f"step {index} ({step['op']})"
        if step["op"] == "rank":
            got = [{k: c.to_json()[k] for k in CANDIDATE_FIELDS} for c in output]
            want = [{k: c[k] for k in CANDIDATE_FIELDS} for c in step["output"]]
            assert got == want, where
        if step["op"] == "apply":
            assert [c.key for c in output.applied] == [c["key"] for c in step["output"]["appliedCandidates"]], where
            assert (output.appended, output.already_present) == (step["output"]["appended"],
                                                                 step["output"]["reconciledExisting"]), where
        after = step["after"]
        assert _read(ws / "memory/.dreams/short-term-recall.json") == after["store"], where
        assert _read(ws / "memory/.dreams/phase-signals.json") == after["phaseSignals"], where
        assert _read(ws / "MEMORY.md") == after["memory"], where
    shutil.rmtree(ws)


def _polluted(entries: dict) -> dict:
    """Copies of each recorded entry that OpenClaw never ranks: on a slug file, under `memory/dreaming/`, and
    with a dreaming-output snippet; counts, scores and days as the original, so only the path or the
    snippet keeps them out."""
    extra = {}
    for entry in entries.values():
        line = entry["startLine"]
        contaminated = (f"Candidate: {entry['snippet']} confidence: 0.81 evidence: memory/2026-04-25.md:{line}-{line} "
                        "recalls: 4 status: staged")
        for path, start, snippet in (("memory/2026-04-25-tie-notes.md", line, entry["snippet"]),
                                     ("memory/dreaming/light/2026-04-25.md", line, entry["snippet"]),
                                     (entry["path"], line + 10, contaminated)):
            key = f"memory:{path}:{start}:{start}"
            extra[key] = {**entry, "key": key, "path": path, "startLine": start, "endLine": start, "snippet": snippet}
    return {**entries, **extra}


def test_slug_dreaming_and_contaminated_store_entries_are_never_ranked(tmp_path: Path) -> None:
    """The recorded `tofixed-ties` store with such copies of its entries added (as another program or an
    older memtui could have left them): ranking and promotion give exactly what OpenClaw gave without them."""
    scenario = next(case for case in SCENARIOS if case["name"] == "tofixed-ties")
    ws = tmp_path / "workspace"
    ws.mkdir()
    now = _moment(scenario["nowMs"])
    ranked: list = []
    for step in scenario["steps"]:
        if step["op"] == "writeStore":
            store = step["store"]
            step = {**step, "store": {**store, "entries": _polluted(store["entries"])}}
            assert len(step["store"]["entries"]) == 4 * len(store["entries"])
        ranked, output = _replay_step(ws, step, now, ranked)
        if step["op"] == "rank":
            assert [c.to_json()["key"] for c in output] == [c["key"] for c in step["output"]]
            assert [c.to_json()["score"] for c in output] == [c["score"] for c in step["output"]]
        if step["op"] == "apply":
            assert _read(ws / "MEMORY.md") == step["after"]["memory"]

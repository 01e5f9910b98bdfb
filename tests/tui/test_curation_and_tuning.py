"""Curation writes (promotion marker, notes) and tuning maths (settings, marks, JSON5 snippet)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import json5
import pytest

from memtui.errors import MemtuiError
from memtui.search.response import Candidate
from memtui.settings.config import MemorySearchSettings
from memtui.tui.curation import append_note, markdown_entry, promote_lines
from memtui.tui.tuning import Tuning, gone_ids, movement_marks

DAY = date(2026, 4, 29)


def test_promotion_into_an_empty_memory_adds_the_long_term_header(tmp_path: Path) -> None:
    outcome = promote_lines(tmp_path, path="memory/2026-04-20.md", start_line=3, end_line=4,
                            text="- Prefers   Postgres\n  for analytics", day=DAY, score=0.8234)
    assert outcome.appended
    assert (tmp_path / "MEMORY.md").read_text(encoding="utf-8") == (
        "# Long-Term Memory\n\n\n## Promoted From Short-Term Memory (2026-04-29)\n\n"
        "<!-- openclaw-memory-promotion:memory:memory/2026-04-20.md:3:4 -->\n"
        "- Prefers   Postgres [score=0.823 recalls=0 avg=0.000 source=memory/2026-04-20.md:3-4]\n"
        "  for analytics\n")
    again = promote_lines(tmp_path, path="memory/2026-04-20.md", start_line=3, end_line=4, text="x", day=DAY)
    assert not again.appended


def test_promoted_lines_keep_their_markdown() -> None:
    chunk = ("# 2026-11-29\n\n## 14:35 — OPS-1203 pgbouncer\n- Raised the pool from 20 to 40.\n  - reserve pool 5\n"
             "Checked the gateway\nafterwards.\n\n### Follow-up\n```sh\nkubectl get pods\n```\n")
    assert markdown_entry(chunk, day=date(2026, 11, 29)) == [
        "- **14:35 — OPS-1203 pgbouncer**",
        "  - Raised the pool from 20 to 40.",
        "    - reserve pool 5",
        "  - Checked the gateway",
        "    afterwards.",
        "  - **Follow-up**",
        "    ```sh",
        "    kubectl get pods",
        "    ```",
    ]


def test_promotions_of_one_day_share_a_section(tmp_path: Path) -> None:
    for start in (1, 5):
        promote_lines(tmp_path, path="memory/2026-04-20.md", start_line=start, end_line=start + 1,
                      text=f"- line {start}", day=DAY, score=0.5)
    text = (tmp_path / "MEMORY.md").read_text(encoding="utf-8")
    assert text.count("## Promoted From Short-Term Memory (2026-04-29)") == 1
    assert text.endswith("<!-- openclaw-memory-promotion:memory:memory/2026-04-20.md:5:6 -->\n"
                         "- line 5 [score=0.500 recalls=0 avg=0.000 source=memory/2026-04-20.md:5-6]\n")


def test_append_note_creates_todays_log(tmp_path: Path) -> None:
    path = append_note(tmp_path, DAY, "first line\nsecond line")
    assert path == tmp_path / "memory" / "2026-04-29.md"
    assert path.read_text(encoding="utf-8") == "# 2026-04-29\n\n- first line\n  second line\n"
    with pytest.raises(MemtuiError, match="empty"):
        append_note(tmp_path, DAY, "   ")


def test_tuning_normalises_weights_and_clamps() -> None:
    tuning = Tuning.from_settings(MemorySearchSettings(), "openclaw")
    tuned = Tuning(**{**tuning.__dict__, "vector_weight": 3.0, "text_weight": 1.0, "min_score": 2.0,
                      "max_results": 0, "mmr_enabled": True, "mmr_lambda": 0.5})
    settings = tuned.apply(MemorySearchSettings())
    # Clamped to [0, 1] first (3 → 1), then normalised: 1/(1+1) each.
    assert settings.query.hybrid.vector_weight == 0.5 and settings.query.hybrid.text_weight == 0.5
    assert settings.query.min_score == 1.0 and settings.query.max_results == 1
    assert settings.query.hybrid.mmr.enabled and settings.query.hybrid.mmr.lambda_ == 0.5
    snippet = json5.loads(tuned.json5_snippet(MemorySearchSettings()))
    query = snippet["agents"]["defaults"]["memorySearch"]["query"]
    assert query["maxResults"] == 1 and query["minScore"] == 1
    assert query["hybrid"]["mmr"] == {"enabled": True, "lambda": 0.5}
    assert query["hybrid"]["temporalDecay"] == {"enabled": False, "halfLifeDays": 30}


def _hit(chunk_id: str) -> Candidate:
    return Candidate(id=chunk_id, path="MEMORY.md", source="memory", start_line=1, end_line=2, text="")


def test_movement_marks() -> None:
    current = [_hit("c"), _hit("a"), _hit("d")]
    assert movement_marks(["a", "b", "c"], current) == {"c": "▲2", "a": "▼1", "d": "new"}
    assert gone_ids(["a", "b", "c"], current) == ["b"]
    assert movement_marks(None, current) == {}

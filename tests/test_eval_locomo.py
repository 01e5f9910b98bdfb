"""LoCoMo conversion to daily logs, session dates and evidence ids, on a hand-written conversation."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from memtui.errors import MemtuiError
from memtui.evaluation.locomo import (
    category_name,
    convert_conversation,
    load_locomo,
    parse_evidence_ids,
    parse_session_datetime,
)

SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        # session 10 sorts after session 2 (numeric, not lexical order) and shares 2's date
        "session_10_date_time": "9:05 pm on 3 June, 2023",
        "session_10": [{"speaker": "Ben", "dia_id": "D10:1", "text": "Late news:\nI got the job."}],
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi Ben!"},
            {
                "speaker": "Ben",
                "dia_id": "D1:2",
                "text": "Look at my dog.",
                "blip_caption": "a photo of a dog",
                "img_url": ["https://example.invalid/x.jpg"],
            },
        ],
        "session_2_date_time": "10:37 am on 3 June, 2023",
        "session_2": [{"speaker": "Ana", "dia_id": "D2:1", "text": "Morning  run done."}],
        # a date with no session (LoCoMo has these) is ignored
        "session_3_date_time": "2:00 pm on 9 June, 2023",
    },
    "qa": [
        {"question": "What did Ben show?", "answer": "dog", "evidence": ["D1:2"], "category": 4},
        {"question": "Two sessions?", "answer": "x", "evidence": ["D2:1; D10:1", "D"], "category": 1},
        {"question": "Nothing valid", "adversarial_answer": "y", "evidence": ["D9:9", "D"], "category": 5},
        {"question": "Empty", "answer": "z", "evidence": [], "category": 3},
    ],
}

MAY_8 = """# 2023-05-08

## Session 1 (1:56 pm)

- [D1:1] Ana: Hi Ben!
- [D1:2] Ben: Look at my dog. [shared image: a photo of a dog]
"""

JUNE_3 = """# 2023-06-03

## Session 2 (10:37 am)

- [D2:1] Ana: Morning run done.

## Session 10 (9:05 pm)

- [D10:1] Ben: Late news: I got the job.
"""


def test_conversion_writes_exact_daily_logs() -> None:
    conv = convert_conversation(SAMPLE)
    assert conv.files == {"memory/2023-05-08.md": MAY_8, "memory/2023-06-03.md": JUNE_3}
    # line numbers are 1-based, counted in the texts above
    assert conv.turn_lines == {
        "D1:1": ("memory/2023-05-08.md", 5),
        "D1:2": ("memory/2023-05-08.md", 6),
        "D2:1": ("memory/2023-06-03.md", 5),
        "D10:1": ("memory/2023-06-03.md", 9),
    }


def test_questions_keep_only_evidence_that_names_a_turn() -> None:
    conv = convert_conversation(SAMPLE)
    assert [(q.question, q.category, q.evidence) for q in conv.questions] == [
        ("What did Ben show?", 4, ("D1:2",)),
        ("Two sessions?", 1, ("D2:1", "D10:1")),
        ("Nothing valid", 5, ()),
        ("Empty", 3, ()),
    ]


def test_written_workspace_matches_files(tmp_path: Path) -> None:
    conv = convert_conversation(SAMPLE)
    conv.write(tmp_path)
    assert (tmp_path / "memory/2023-06-03.md").read_text(encoding="utf-8") == JUNE_3
    assert sorted(p.name for p in (tmp_path / "memory").iterdir()) == ["2023-05-08.md", "2023-06-03.md"]


def test_hit_covers_turns_whose_line_is_inside_its_range() -> None:
    conv = convert_conversation(SAMPLE)
    assert conv.covered_turns("memory/2023-06-03.md", 1, 5) == {"D2:1"}
    assert conv.covered_turns("memory/2023-06-03.md", 6, 9) == {"D10:1"}
    assert conv.covered_turns("memory/2023-06-03.md", 6, 8) == set()
    assert conv.covered_turns("memory/2023-05-08.md", 5, 6) == {"D1:1", "D1:2"}
    assert conv.covered_turns("memory/2023-05-09.md", 1, 100) == set()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D1:3"], ["D1:3"]),
        (["D"], []),
        (["D:11:26"], ["D11:26"]),
        (["D8:6; D9:17"], ["D8:6", "D9:17"]),
        (["D1:18", "D", "D1:20"], ["D1:18", "D1:20"]),
        (["D01:3", "D1:3", 7, None], ["D1:3"]),
        ([], []),
    ],
)
def test_parse_evidence_ids(raw: list, expected: list[str]) -> None:
    assert parse_evidence_ids(raw) == expected


@pytest.mark.parametrize(
    ("text", "date", "clock"),
    [
        ("1:56 pm on 8 May, 2023", dt.date(2023, 5, 8), "1:56 pm"),
        ("12:09 am on 13 September, 2023", dt.date(2023, 9, 13), "12:09 am"),
        ("10:37 AM on 27 june 2023", dt.date(2023, 6, 27), "10:37 am"),
    ],
)
def test_parse_session_datetime(text: str, date: dt.date, clock: str) -> None:
    assert parse_session_datetime(text) == (date, clock)


@pytest.mark.parametrize(
    "text", ["yesterday", "1:56 pm on 31 February, 2023", "1:56 pm on 8 Maytember, 2023"]
)
def test_bad_session_dates_are_clear_errors(text: str) -> None:
    with pytest.raises(MemtuiError, match="session date"):
        parse_session_datetime(text)


def test_session_without_date_is_an_error() -> None:
    sample = {"sample_id": "c", "conversation": {"session_1": []}, "qa": []}
    with pytest.raises(MemtuiError, match="session_1 has no session_1_date_time"):
        convert_conversation(sample)


def test_category_names() -> None:
    assert [category_name(c) for c in (4, 1, 2, 3, 5, 9)] == [
        "single-hop",
        "multi-hop",
        "temporal",
        "open-domain",
        "adversarial",
        "category-9",
    ]


def test_load_locomo_filters_and_reports_unknown_ids(tmp_path: Path) -> None:
    path = tmp_path / "l.json"
    path.write_text(json.dumps([SAMPLE, {**SAMPLE, "sample_id": "conv-y"}]), encoding="utf-8")
    assert [s["sample_id"] for s in load_locomo(path, ["conv-y"])] == ["conv-y"]
    with pytest.raises(MemtuiError, match="no conversation conv-z"):
        load_locomo(path, ["conv-z"])
    path.write_text("[{", encoding="utf-8")
    with pytest.raises(MemtuiError, match="invalid JSON"):
        load_locomo(path)

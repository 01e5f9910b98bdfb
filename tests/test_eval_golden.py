"""Golden queries: expected-path matching, per-query metrics and the regression view."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from memtui.errors import MemtuiError
from memtui.evaluation.golden import (
    Expected,
    GoldenQuery,
    compare_runs,
    load_golden,
    load_previous,
    parse_expected,
    score_query,
    summarize,
)

D2, D3, D4 = 1 / math.log2(3), 1 / math.log2(4), 1 / math.log2(5)


def hit(path: str, start: int, end: int, score: float) -> dict:
    return {"path": path, "startLine": start, "endLine": end, "score": score}


def test_parse_expected() -> None:
    assert parse_expected("memory/2026-01-02.md") == Expected("memory/2026-01-02.md", "memory/2026-01-02.md")
    assert parse_expected("MEMORY.md:10-20") == Expected("MEMORY.md:10-20", "MEMORY.md", 10, 20)
    assert parse_expected("./notes/a.md:7") == Expected("./notes/a.md:7", "notes/a.md", 7, 7)
    with pytest.raises(ValueError, match="1 <= a <= b"):
        parse_expected("MEMORY.md:20-10")


def test_line_ranges_match_overlapping_hits_only() -> None:
    e = parse_expected("MEMORY.md:10-20")
    assert e.matches("MEMORY.md", 20, 25)
    assert e.matches("MEMORY.md", 1, 10)
    assert e.matches("MEMORY.md", 12, 14)
    assert not e.matches("MEMORY.md", 21, 30)
    assert not e.matches("MEMORY.md", 1, 9)
    assert not e.matches("memory/MEMORY.md", 10, 20)


def test_score_query_by_hand() -> None:
    golden = GoldenQuery(
        "q", tuple(parse_expected(e) for e in ["memory/a.md", "MEMORY.md:10-20", "memory/c.md"])
    )
    hits = [
        hit("MEMORY.md", 1, 9, 5.0),  # outside 10-20: gain 0
        hit("memory/a.md", 1, 10, 4.0),  # first hit on a: gain 1
        hit("memory/a.md", 11, 20, 3.0),  # a again: gain 0
        hit("MEMORY.md", 18, 30, 2.0),  # overlaps 10-20: gain 1
        hit("memory/z.md", 1, 5, 1.0),  # gain 0
    ]
    r = score_query(golden, hits, 5)
    assert r["ranks"] == {"memory/a.md": 2, "MEMORY.md:10-20": 4, "memory/c.md": None}
    assert r["firstRank"] == 2
    assert r["recall@5"] == pytest.approx(2 / 3)
    assert r["rr"] == pytest.approx(1 / 2)
    # DCG = 1/log2(3) + 1/log2(5); ideal for three expected entries = 1 + 1/log2(3) + 1/log2(4)
    assert r["ndcg@5"] == pytest.approx((D2 + D4) / (1 + D2 + D3))
    # at k = 3 only a is inside: recall 1/3, nDCG (1/log2(3)) / (1 + 1/log2(3) + 1/log2(4))
    r3 = score_query(golden, hits, 3)
    assert r3["recall@3"] == pytest.approx(1 / 3)
    assert r3["ndcg@3"] == pytest.approx(D2 / (1 + D2 + D3))
    assert len(r3["hits"]) == 3


def test_one_hit_matching_two_entries_fills_one_ideal_position() -> None:
    golden = GoldenQuery("q", (parse_expected("MEMORY.md"), parse_expected("MEMORY.md:10-20")))
    r = score_query(golden, [hit("MEMORY.md", 5, 15, 1.0)], 10)
    assert r["ranks"] == {"MEMORY.md": 1, "MEMORY.md:10-20": 1}
    assert r["recall@10"] == 1.0
    # gain 1 at rank 1 against an ideal of two gains: 1 / (1 + 1/log2(3))
    assert r["ndcg@10"] == pytest.approx(1 / (1 + D2))


def test_query_with_nothing_found() -> None:
    golden = GoldenQuery("q", (parse_expected("memory/a.md"),))
    r = score_query(golden, [hit("memory/b.md", 1, 3, 1.0)], 10)
    assert (r["firstRank"], r["recall@10"], r["rr"], r["ndcg@10"]) == (None, 0.0, 0.0, 0.0)
    r = score_query(golden, [], 10)
    assert (r["firstRank"], r["recall@10"], r["ndcg@10"]) == (None, 0.0, 0.0)


def test_summarize_means() -> None:
    results = [{"recall@10": 1.0, "rr": 0.5, "ndcg@10": 0.25}, {"recall@10": 0.0, "rr": 0.0, "ndcg@10": 0.75}]
    s = summarize(results, 10)
    assert (s["k"], s["queries"], s["recall@10"], s["mrr"], s["ndcg@10"]) == (10, 2, 0.5, 0.25, 0.5)


def test_load_golden_reports_line_of_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text('{"query": "a", "expected": ["MEMORY.md"]}\n\n{"query": "b"}\n', encoding="utf-8")
    with pytest.raises(MemtuiError, match=r"g\.jsonl:3: 'expected' must be a non-empty list"):
        load_golden(path)
    path.write_text('{"query": "a", "expected": ["MEMORY.md:9-2"]}\n', encoding="utf-8")
    with pytest.raises(MemtuiError, match=r"g\.jsonl:1: line range 9-2"):
        load_golden(path)
    path.write_text('{"query": "a", "expected": ["x.md"]}\nnot json\n', encoding="utf-8")
    with pytest.raises(MemtuiError, match=r"g\.jsonl:2: invalid JSON"):
        load_golden(path)
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(MemtuiError, match="no golden queries"):
        load_golden(path)


def _result(query: str, first: int | None, ndcg: float) -> dict:
    return {
        "query": query,
        "expected": ["x.md"],
        "firstRank": first,
        "ranks": {"x.md": first},
        "recall@10": 0.0 if first is None else 1.0,
        "rr": 0.0 if first is None else 1 / first,
        "ndcg@10": ndcg,
        "hits": [],
    }


def test_compare_two_result_files(tmp_path: Path) -> None:
    before = {
        "k": 10,
        "queries": 6,
        "results": [
            _result("up two", 3, 0.5),
            _result("down three", 1, 1.0),
            _result("found now", None, 0.0),
            _result("same rank, more found", 2, 0.6),
            _result("lost", 5, 0.38),
            _result("steady", 1, 1.0),
            _result("dropped from file", 1, 1.0),
        ],
    }
    after = {
        "k": 10,
        "queries": 6,
        "results": [
            _result("up two", 1, 1.0),
            _result("down three", 4, 0.43),
            _result("found now", 2, 0.63),
            _result("same rank, more found", 2, 0.7),
            _result("lost", None, 0.0),
            _result("steady", 1, 1.0),
            _result("brand new", 1, 1.0),
        ],
    }
    (tmp_path / "before.json").write_text(json.dumps(before), encoding="utf-8")
    (tmp_path / "after.json").write_text(json.dumps(after), encoding="utf-8")
    cmp = compare_runs(load_previous(tmp_path / "after.json"), load_previous(tmp_path / "before.json"))
    rows = [
        (r["query"], r["status"], r["previousRank"], r["currentRank"], r["rankChange"]) for r in cmp["rows"]
    ]
    assert rows == [
        ("up two", "better", 3, 1, 2),
        ("down three", "worse", 1, 4, -3),
        ("found now", "better", None, 2, None),
        ("same rank, more found", "better", 2, 2, 0),
        ("lost", "worse", 5, None, None),
        ("steady", "unchanged", 1, 1, 0),
        ("brand new", "new", None, 1, None),
        ("dropped from file", "removed", 1, None, None),
    ]
    assert [r["ndcgChange"] for r in cmp["rows"]][:6] == pytest.approx([0.5, -0.57, 0.63, 0.1, -0.38, 0.0])
    assert (cmp["better"], cmp["worse"], cmp["unchanged"], cmp["new"], cmp["removed"]) == (3, 2, 1, 1, 1)


def test_repeated_query_text_is_matched_by_occurrence() -> None:
    before = {"k": 10, "results": [_result("q", 1, 1.0), _result("q", 4, 0.4)]}
    after = {"k": 10, "results": [_result("q", 1, 1.0), _result("q", 2, 0.6)]}
    rows = compare_runs(after, before)["rows"]
    assert [(r["status"], r["rankChange"]) for r in rows] == [("unchanged", 0), ("better", 2)]


def test_previous_file_must_be_a_run_result(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"ndcg@10": 0.5}', encoding="utf-8")
    with pytest.raises(MemtuiError, match="not an `memtui eval run --json` result"):
        load_previous(path)
    with pytest.raises(MemtuiError, match="cannot read"):
        load_previous(tmp_path / "missing.json")


def test_repeated_expected_entries_count_once(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text('{"query": "a", "expected": ["MEMORY.md", "MEMORY.md", "x.md"]}\n', encoding="utf-8")
    (golden,) = load_golden(path)
    assert [e.label for e in golden.expected] == ["MEMORY.md", "x.md"]
    # one of two distinct entries found: recall 1/2
    assert score_query(golden, [hit("MEMORY.md", 1, 2, 1.0)], 10)["recall@10"] == 0.5

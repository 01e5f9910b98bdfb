"""qmd output parsing and result mapping (§11.4) on outputs captured from the real qmd 2.8.3."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.qmd.collections import Collection
from memtui.qmd.parser import (
    MappedHit,
    QmdOutputError,
    clamp_injected_chars,
    diversify_by_source,
    line_range,
    map_results,
    parse_qmd_query_json,
)

DATA = Path(__file__).parent / "data" / "qmd"
WS = Path("/srv/ws")
COLLECTIONS = [
    Collection("memory-root-main", WS, "MEMORY.md"),
    Collection("memory-dir-main", WS / "memory", "**/*.md"),
    Collection("custom-1-main", Path("/srv/extra"), "**/*.md"),
    Collection("sessions-main", Path("/srv/state/qmd/sessions"), "**/*.md", "sessions"),
]


def captured(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_no_results_in_either_form() -> None:
    assert parse_qmd_query_json(captured("search_none_plain.stdout")) == []
    assert parse_qmd_query_json(captured("search_none_json.stdout")) == []
    assert parse_qmd_query_json(captured("vsearch_unembedded.stdout"), captured("vsearch_unembedded.stderr")) == []
    assert parse_qmd_query_json("", "No results found.") == []


def test_array_is_extracted_from_noisy_output() -> None:
    items = parse_qmd_query_json(captured("query_lex_combined.out"))
    assert [(i.docid, i.score, i.file) for i in items] == [
        ("ff73eb", 1.0, "qmd://memory-dir-main/2026-11-28.md"),
        ("f9f2db", 0.5, "qmd://custom-1-main/runbook.md"),
    ]


def test_garbage_is_an_error() -> None:
    with pytest.raises(QmdOutputError, match="no JSON result array"):
        parse_qmd_query_json("Error: database is locked [code 5")


def test_mapping_paths_lines_and_snippets() -> None:
    items = parse_qmd_query_json(captured("search_two_collections.stdout"))
    hits = map_results(items, workspace=WS, collections=COLLECTIONS, max_snippet_chars=450)
    # `@@ -2,3 @@` → lines 2..4; `@@ -4,3 @@` → 4..6; the header line is not part of the snippet.
    assert hits == [
        MappedHit("qmd/custom-1-main/runbook.md", 2, 4, 0.65,
                  "\nRestart pgbouncer when the connection pool is exhausted.\n", "memory", "custom-1-main"),
        MappedHit("memory/2026-11-28.md", 4, 6, 0.59,
                  "The payment webhook returned HTTP 502 for order batch 7.\n"
                  "Root cause: connection pool timeout on pgbouncer.\n", "memory", "memory-dir-main"),
    ]
    root = map_results(parse_qmd_query_json(captured("search_root.stdout")), workspace=WS,
                       collections=COLLECTIONS, max_snippet_chars=20)
    assert [(h.path, h.start_line, h.end_line, h.snippet) for h in root] \
        == [("MEMORY.md", 2, 5, "\n- Production databa")]


def test_min_score_unknown_collections_and_escapes_are_dropped() -> None:
    items = parse_qmd_query_json(captured("search_two_collections.stdout"))
    assert [h.path for h in map_results(items, workspace=WS, collections=COLLECTIONS, max_snippet_chars=450,
                                        min_score=0.6)] == ["qmd/custom-1-main/runbook.md"]
    assert map_results(items, workspace=WS, collections=COLLECTIONS[:2], max_snippet_chars=450)[0].path \
        == "memory/2026-11-28.md"
    zero = parse_qmd_query_json(captured("search_pizza.stdout"))  # three hits that qmd scored 0
    assert len(map_results(zero, workspace=WS, collections=COLLECTIONS, max_snippet_chars=450)) == 3
    assert map_results(zero, workspace=WS, collections=COLLECTIONS, max_snippet_chars=450, min_score=0.01) == []
    escaping = parse_qmd_query_json('[{"file":"qmd://custom-1-main/../../etc/x.md","score":1,"snippet":"x"}]')
    assert map_results(escaping, workspace=WS, collections=COLLECTIONS, max_snippet_chars=450) == []


def test_line_fallbacks_and_docid_resolution() -> None:
    explicit, = parse_qmd_query_json('[{"docid":"#abc123","score":0.4,"snippet":"a\\nb","startLine":7,"end_line":9}]')
    assert line_range(explicit) == (7, 9)
    counted, = parse_qmd_query_json('[{"docid":"abc123","score":0.4,"body":"one\\ntwo\\nthree"}]')
    assert line_range(counted) == (1, 3)
    hits = map_results([counted], workspace=WS, collections=COLLECTIONS, max_snippet_chars=450,
                       resolve_docid=lambda d: ("memory-dir-main", "2026-01-02.md") if d == "abc123" else None)
    assert [(h.path, h.snippet) for h in hits] == [("memory/2026-01-02.md", "one\ntwo\nthree")]
    plain, = parse_qmd_query_json('[{"collection":"custom-1-main","file":"./notes/a.md","score":1,"snippet":""}]')
    assert map_results([plain], workspace=WS, collections=COLLECTIONS, max_snippet_chars=9)[0].path \
        == "qmd/custom-1-main/notes/a.md"


def test_round_robin_across_sources_and_clamp() -> None:
    items = parse_qmd_query_json(captured("search_with_sessions.stdout"))
    hits = map_results(items, workspace=WS, collections=COLLECTIONS, max_snippet_chars=450)
    # qmd order: s-1 (sessions .58), runbook (memory .55), s-2 (sessions .51), 2026-11-28 (memory .47).
    # Sessions hold the best hit, so they lead: s-1, runbook, s-2, 2026-11-28.
    mixed = diversify_by_source(hits)
    assert [h.path for h in mixed] == ["qmd/sessions-main/s-1.md", "qmd/custom-1-main/runbook.md",
                                       "qmd/sessions-main/s-2.md", "memory/2026-11-28.md"]
    assert diversify_by_source([hits[1], hits[3]]) == [hits[1], hits[3]]
    lengths = [len(h.snippet) for h in mixed]
    budget = lengths[0] + 10
    clamped = clamp_injected_chars(mixed, budget)
    assert [len(h.snippet) for h in clamped] == [lengths[0], 10]
    assert clamped[1].snippet == mixed[1].snippet[:10]
    assert clamp_injected_chars(mixed, 10_000) == mixed

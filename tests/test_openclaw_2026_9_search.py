"""memtui.agentdb.search replays OpenClaw 2026.9.6's own `openclaw memory search --json` recordings.

* `search.json`: the 48 keyword-only CLI searches over `agent.sqlite` (the real agent DB after
  `memory index --force`). All 48 match: the same hits in the same order (path, startLine, endLine), every other
  field equal (snippet, source, importance, triggers, projectKey, provenance, key order), `score` and `textScore`
  within 1e-6 (the largest error is about 2e-7).
* `search_hybrid.json`: the 48 hybrid CLI searches against the recorder's embedding server. Its vectors are
  `tests/embedding_server.py` `vector_for` (hashed character trigrams, deterministic), and the recording lists every
  text the server embedded: the 82 chunk texts and the 48 queries. So the test rebuilds that DB from a copy of
  `agent.sqlite` (each chunk's vector, unit-normalised as OpenClaw stores it, as binary64 in `embedding`, the model
  set to the index's) and recomputes each query vector. All 48 match; `vectorScore` differs by about 1e-7 at most
  because the recording's KNN ran in sqlite-vec with float32 vectors, while the scan here (like OpenClaw's own
  fallback scan) is in binary64.
* Clock: decay uses `Date.now()` at search time, which the recorder could not pin; each search keeps `clock_ms`
  (epoch ms before and after its CLI call). The replay uses the "after" bound; the clock that reproduces each
  recorded decayed score exactly lies inside the window (about 0.3-1.2 s before its end), checked below.

Nothing recorded is left unreproduced.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from embedding_server import vector_for
from openclaw_2026_9_data import add_vectors

from memtui.agentdb.keywords import build_fts_query, extract_keywords, is_stop_word
from memtui.agentdb.mmr import jaccard, mmr_rerank, mmr_tokens
from memtui.agentdb.search import (
    AgentHit,
    exact_path_matcher,
    importance_multiplier,
    locale_compare,
    memory_search_json,
    search_agent_db,
)

DATA = Path(__file__).parent / "data" / "openclaw-2026.9.6"
KEYWORD = json.loads((DATA / "search.json").read_text(encoding="utf-8"))["searches"]
HYBRID_RECORD = json.loads((DATA / "search_hybrid.json").read_text(encoding="utf-8"))
HYBRID = HYBRID_RECORD["searches"]
SCORE_TOLERANCE = 1e-6
SCORE_KEYS = ("score", "textScore", "vectorScore")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _cli_options(args: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        if flag == "--max-results":
            options["max_results"] = int(value)
        elif flag == "--min-score":
            options["min_score"] = float(value)
        else:  # pragma: no cover - the recorder uses only these two
            raise AssertionError(f"unexpected flag {flag}")
    return options


def _normalised(vector: list[float]) -> list[float]:
    """OpenClaw's `sanitizeAndNormalizeEmbedding`."""
    magnitude = math.sqrt(sum(v * v for v in vector))
    return vector if magnitude < 1e-10 else [v / magnitude for v in vector]


@pytest.fixture(scope="module")
def agent_db(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A copy of the recorded agent DB; after every test of the module its bytes must be unchanged and no -wal or
    -shm may have appeared beside it."""
    copy = tmp_path_factory.mktemp("agentdb") / "openclaw-agent.sqlite"
    shutil.copyfile(DATA / "agent.sqlite", copy)
    before = _sha256(copy)
    yield copy
    assert _sha256(copy) == before
    assert sorted(p.name for p in copy.parent.iterdir()) == [copy.name]


@pytest.fixture(scope="module")
def hybrid_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recorded hybrid index rebuilt: the keyword DB's chunks with the embedding server's vectors."""
    assert HYBRID_RECORD["embedding_server"]["function"] == "vector_for"
    path = tmp_path_factory.mktemp("hybrid") / "openclaw-agent.sqlite"
    shutil.copyfile(DATA / "agent.sqlite", path)
    inputs = set(HYBRID_RECORD["embedding_server"]["inputs"])
    conn = sqlite3.connect(path)
    try:
        texts = [text for (text,) in conn.execute("SELECT text FROM memory_index_chunks")]
    finally:
        conn.close()
    assert len(texts) == HYBRID_RECORD["agent_db"]["chunks"]
    assert all(text in inputs for text in texts)  # the server embedded exactly these chunk texts
    add_vectors(path)
    return path


def _assert_same(got: dict[str, Any], recorded: dict[str, Any]) -> float:
    """The hit lists equal field by field (key order included), scores within the tolerance; returns the largest
    score error."""
    got_rows, want_rows = got["results"], recorded["results"]
    assert [(r["path"], r["startLine"], r["endLine"]) for r in got_rows] == \
        [(r["path"], r["startLine"], r["endLine"]) for r in want_rows]
    worst = 0.0
    for mine, theirs in zip(got_rows, want_rows, strict=True):
        assert list(mine) == list(theirs)
        for key in SCORE_KEYS:
            if key in theirs:
                worst = max(worst, abs(mine[key] - theirs[key]))
                assert mine[key] == pytest.approx(theirs[key], abs=SCORE_TOLERANCE), key
        assert {k: v for k, v in mine.items() if k not in SCORE_KEYS} == \
            {k: v for k, v in theirs.items() if k not in SCORE_KEYS}
    return worst


@pytest.mark.parametrize("case", KEYWORD, ids=[c["id"] for c in KEYWORD])
def test_keyword_only_replay(agent_db: Path, case: dict[str, Any]) -> None:
    assert case["exit"] == 0
    hits = search_agent_db(agent_db, case["query"], now_ms=case["clock_ms"][1], **_cli_options(case["args"]))
    assert all(hit.vector_score is None for hit in hits)
    _assert_same(memory_search_json(hits), case["output"])


@pytest.mark.parametrize("case", HYBRID, ids=[c["id"] for c in HYBRID])
def test_hybrid_replay(hybrid_db: Path, case: dict[str, Any]) -> None:
    assert case["exit"] == 0
    assert case["query"] in HYBRID_RECORD["embedding_server"]["inputs"]
    query_vector = _normalised(vector_for(case["query"].strip(), 16))
    hits = search_agent_db(hybrid_db, case["query"], now_ms=case["clock_ms"][1], query_vector=query_vector,
                           **_cli_options(case["args"]))
    assert all(hit.vector_score is not None for hit in hits)
    _assert_same(memory_search_json(hits), case["output"])


def test_every_recorded_query_matches_within_tolerance(agent_db: Path, hybrid_db: Path) -> None:
    """The summary the docstring states: 48/48 keyword-only and 48/48 hybrid, largest score error below 1e-6."""
    worst = 0.0
    for case in KEYWORD:
        hits = search_agent_db(agent_db, case["query"], now_ms=case["clock_ms"][1], **_cli_options(case["args"]))
        worst = max(worst, _assert_same(memory_search_json(hits), case["output"]))
    for case in HYBRID:
        vector = _normalised(vector_for(case["query"].strip(), 16))
        hits = search_agent_db(hybrid_db, case["query"], now_ms=case["clock_ms"][1], query_vector=vector,
                               **_cli_options(case["args"]))
        worst = max(worst, _assert_same(memory_search_json(hits), case["output"]))
    assert len(KEYWORD) == len(HYBRID) == 48
    assert worst < 5e-7


def test_recorded_decay_clock_lies_inside_each_window(agent_db: Path) -> None:
    """Solving each decayed top hit's recorded score for OpenClaw's `Date.now()` lands inside that call's
    `clock_ms` window, so using the window's end is sound (a ms moves the score by < 3e-10 relative)."""
    checked = 0
    for case in KEYWORD:
        before, after = case["clock_ms"]
        hits = search_agent_db(agent_db, case["query"], now_ms=after, **_cli_options(case["args"]))
        for hit, recorded in zip(hits, case["output"]["results"], strict=True):
            decay = hit.trace["decay"]
            if decay["timestamp"] is None or hit.trace["exactTier"] > 0:
                continue
            undecayed = hit.score / decay["factor"]
            age_days = -math.log(recorded["score"] / undecayed) / (math.log(2) / 30)
            clock = decay["timestamp"] + age_days * 86_400_000
            assert before - 5 <= clock <= after + 5, (case["id"], hit.path, clock - after)
            checked += 1
    assert checked >= 20


def test_trace_explains_the_rank(agent_db: Path) -> None:
    case = next(c for c in KEYWORD if c["id"] == "kw-burst-limit")
    [hit] = search_agent_db(agent_db, case["query"], now_ms=case["clock_ms"][1])
    assert isinstance(hit, AgentHit)
    assert hit.path == "memory/2026-11-24.md"
    trace = hit.trace
    assert trace["bodyScore"] == 1.0 and trace["boost"]["capped"]
    assert trace["boost"]["overlap"] == ["burst", "limit"]
    assert trace["decay"]["why"] == "date in path"
    assert trace["decay"]["ageDays"] == pytest.approx(9.6, abs=0.01)
    assert hit.score == pytest.approx(trace["decay"]["factor"])
    assert trace["importanceMultiplier"] == 1.0 and trace["exactTier"] == 0

    exact = next(c for c in KEYWORD if c["id"] == "path-exact-basename")
    first = search_agent_db(agent_db, exact["query"], now_ms=exact["clock_ms"][1])[0]
    assert first.trace["exactTier"] == 2 and first.score == 1
    assert "exactTieScore" in first.trace

    heavy = next(c for c in KEYWORD if c["id"] == "nl-burst-limit")
    top = search_agent_db(agent_db, heavy["query"], now_ms=heavy["clock_ms"][1])[0]
    assert top.importance == 9 and top.trace["importanceMultiplier"] == 1.2
    assert top.trace["fallbackTerms"] == ["payments", "api", "burst", "limit"]
    assert top.trace["decay"]["why"] == "evergreen"


def test_hybrid_trace_has_mmr_and_content_scores(hybrid_db: Path) -> None:
    case = next(c for c in HYBRID if c["id"] == "nl-burst-limit")
    hits = search_agent_db(hybrid_db, case["query"], now_ms=case["clock_ms"][1],
                           query_vector=_normalised(vector_for(case["query"], 16)))
    for hit in hits:
        assert hit.trace["contentScore"] == pytest.approx(0.7 * hit.vector_score + 0.3 * hit.trace["keywordScore"])
        assert hit.trace["mmr"]["group"] == "non-exact"
    assert [hit.trace["mmr"]["position"] for hit in hits] == list(range(1, len(hits) + 1))


def test_invalid_project_annotation_is_never_returned(agent_db: Path) -> None:
    case = next(c for c in KEYWORD if c["id"] == "kw-trigram-invalid-project")
    assert search_agent_db(agent_db, case["query"], now_ms=case["clock_ms"][1], min_score=0) == []


def test_empty_query_and_defaults(agent_db: Path) -> None:
    assert search_agent_db(agent_db, "   ", now_ms=0) == []
    assert memory_search_json([]) == {"results": []}


def test_active_project_keys_rerank(agent_db: Path) -> None:
    """The CLI passes no project keys; with one, matching chunks get ×1.15 and others with a key ×0.9."""
    case = next(c for c in KEYWORD if c["id"] == "nl-burst-limit")
    hits = search_agent_db(agent_db, case["query"], now_ms=case["clock_ms"][1],
                           active_project_keys=("github.com/acme/payments-api",))
    by_line = {hit.start_line: hit for hit in hits if hit.path == "MEMORY.md"}
    assert by_line[18].score == pytest.approx(1.05 * 1.15)
    assert by_line[18].trace["projectMultiplier"] == 1.15


# -- extractKeywords ---------------------------------------------------------------------------------------------
# Expected values: OpenClaw 2026.9.6's own `extractKeywords` (dist/query-expansion-XZx6aBHC.mjs) run under Node 24
# on these strings; the recorded queries are the first group.

RECORDED_KEYWORDS = {
    "what is the payments API burst limit?": ["payments", "api", "burst", "limit"],
    "can I deploy on friday?": ["deploy", "friday"],
    "payments-deploy.md": ["payments", "deploy"],
    "memory/runbooks/payments-deploy.md": ["memory", "runbooks", "payments", "deploy"],
    "2026-09-14": [],
    "tf-locks": ["locks"],
    "CI runners": ["runners"],
    "what was the thing that we did about the it": [],
    "the and of to": [],
    "which editor does the user use": ["editor", "user", "use"],
    "Wann wird die Datenbank-Migration auf Aurora verschoben?":
        ["wann", "wird", "die", "datenbank", "migration", "auf", "aurora", "verschoben"],
    "Büro Alexanderplatz": ["büro", "alexanderplatz"],
    "レート制限": ["レート", "制限"],
    "東京のベンダー": ["東京", "ベンダー"],
    "上海办公室": ["上", "海", "办", "公", "室", "上海", "海办", "办公", "公室"],
    "数据库迁移": ["数", "据", "库", "迁", "移", "数据", "据库", "库迁", "迁移"],
    "rate limiting v2": ["rate", "limiting", "v2"],
}

MORE_KEYWORDS = {
    "之前讨论的那个方案": ["之", "讨", "论", "个", "方", "案", "前讨", "讨论", "论的", "的那", "个方", "方案"],
    "数据库migration迁移": ["数", "据", "库", "迁", "移", "数据", "据库", "库迁", "迁移"],
    "東京のベンダーと打ち合わせ": ["東京", "ベンダー", "打", "合", "わせ"],
    "レート制限の設定はどこ": ["レート", "制限", "設定", "はどこ"],
    "会議で決めたAPIの仕様": ["会議", "決", "めた", "api", "仕様"],
    "서울에서 회의": ["서울에서", "서울", "회의"],
    "데이터베이스를 마이그레이션": ["데이터베이스를", "데이터베이스", "마이그레이션"],
    "우리는 그것을": [],
    "API를 수정": ["api를", "api", "수정"],
    "ㄱㄴ 테스트": ["ㄱㄴ", "테스트"],
    "Größe der Straße": ["größe", "der", "straße"],
    "¿Qué pasó ayer con el despliegue?": ["pasó", "despliegue"],
    "O que é isso": ["isso"],
    "ما هو الخطأ في الخادم": ["ما", "الخطأ", "الخادم"],
    "ab cd efg 123 4x4 c++ $$$ --- ...": ["efg", "4x4", "c++"],
    "x_y snake_case __init__": ["snake", "case", "init"],
    "emoji 😀 test": ["emoji", "test"],
    "İstanbul ΣΟΦΟΣ": ["i̇stanbul", "σοφος"],
    "tab\tseparated\u3000fullwidth": ["tab", "separated", "fullwidth"],
    "a—b–c": [],
}

TRIGRAM_KEYWORDS = {
    "上海办公室": ["上海办公室"],
    "数据库migration迁移": ["数据库迁移"],
    "之前讨论的那个方案": ["之前讨论的那个方案"],
    "レート制限": ["レート", "制限"],
}


@pytest.mark.parametrize(("query", "expected"), [*RECORDED_KEYWORDS.items(), *MORE_KEYWORDS.items()])
def test_extract_keywords_matches_openclaw(query: str, expected: list[str]) -> None:
    assert extract_keywords(query) == expected


@pytest.mark.parametrize(("query", "expected"), TRIGRAM_KEYWORDS.items())
def test_extract_keywords_trigram(query: str, expected: list[str]) -> None:
    assert extract_keywords(query, fts_tokenizer="trigram") == expected


def test_recorded_queries_cover_the_keyword_table() -> None:
    recorded = {case["query"] for case in KEYWORD}
    assert set(RECORDED_KEYWORDS) <= recorded


def test_stop_words_and_no_german_list() -> None:
    assert is_stop_word("the") and is_stop_word("qué") and is_stop_word("的") and is_stop_word("에서")
    assert is_stop_word("これ") and is_stop_word("هل")
    assert not is_stop_word("die") and not is_stop_word("wird")  # no German list in 2026.9.6


def test_build_fts_query_keeps_stop_words_and_case() -> None:
    assert build_fts_query("the Payments-API?") == '"the" AND "Payments" AND "API"'
    assert build_fts_query("?!") is None


# -- ordering, exact paths, MMR ----------------------------------------------------------------------------------

def test_locale_compare_follows_node_ascii_order() -> None:
    # Node 24's `localeCompare` order of printable ASCII (ICU root collation).
    node_order = (" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789"
                  "aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ")
    for left, right in itertools.pairwise(node_order):
        assert locale_compare(left, right) < 0, (left, right)
    assert locale_compare("MEMORY.md", "memory/2026-06-02.md") < 0
    assert locale_compare("a", "A") < 0 and locale_compare("A", "á") < 0 and locale_compare("Ab", "b") < 0


def test_exact_path_tiers() -> None:
    tier = exact_path_matcher("payments-deploy")
    assert tier("memory/runbooks/payments-deploy.md") == 1
    assert exact_path_matcher("Payments-Deploy.md")("memory/runbooks/payments-deploy.md") == 2
    assert exact_path_matcher("./memory/runbooks/payments-deploy.md")("memory/runbooks/payments-deploy.md") == 3
    assert exact_path_matcher("runbooks/payments-deploy.md")("memory/runbooks/payments-deploy.md") == 0


def test_importance_multiplier() -> None:
    assert importance_multiplier(None) == 1
    assert importance_multiplier(5) == 1.0
    assert importance_multiplier(10) == 1.25
    assert importance_multiplier(0) == pytest.approx(0.8)


def test_mmr_prefers_diverse_snippets() -> None:
    items = [("a", 1.0, "queue depth consumer lag"), ("b", 0.99, "queue depth consumer lag alert"),
             ("c", 0.98, "postgres failover runbook"), ("d", 0.5, "reading list")]
    ranked = mmr_rerank(items, lambda i: i[1], lambda i: i[2])
    assert [item[0] for item, _step in ranked] == ["a", "c", "b", "d"]
    step = ranked[2][1]
    assert step is not None and step.max_similarity == pytest.approx(0.8)  # b shares 4 of 5 tokens with a
    assert mmr_tokens("我喜欢hello你好") == frozenset({"hello", "我", "喜", "欢", "你", "好", "我喜", "喜欢", "你好"})
    assert jaccard(frozenset(), frozenset()) == 1.0

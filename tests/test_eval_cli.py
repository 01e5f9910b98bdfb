"""End to end: `memtui eval scifact|locomo|run` on tiny hand-written fixtures, FTS-only.

Each fixture query uses words that occur in exactly one document, so which documents a keyword
search returns is fixed by the text, and the expected numbers follow from the metric formulas.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from memtui.cli import main

D2 = 1 / math.log2(3)  # discount of rank 2


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write_scifact(root: Path) -> tuple[Path, Path, Path]:
    corpus = root / "corpus.jsonl"
    docs = [
        {"_id": "11", "title": "Zebra herds", "text": "Zebra migration follows the seasonal rains.", "metadata": {}},
        {"_id": "22", "title": "Kelp", "text": "Kelp forests shelter juvenile fish.", "metadata": {}},
        {"_id": "33", "title": "Glaciers", "text": "Glacier retreat exposes bedrock.", "metadata": {}},
        {"_id": "44", "title": "Ice", "text": "Sea ice thins every summer.", "metadata": {}},
    ]
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    queries = root / "queries.jsonl"
    qs = [
        {"_id": "1", "text": "zebra migration", "metadata": {}},
        {"_id": "2", "text": "glacier retreat", "metadata": {}},
        {"_id": "3", "text": "quasar luminosity", "metadata": {}},
        {"_id": "4", "text": "unjudged kelp", "metadata": {}},
    ]
    queries.write_text("".join(json.dumps(q) + "\n" for q in qs), encoding="utf-8")
    qrels = root / "qrels.tsv"
    qrels.write_bytes(b"query-id\tcorpus-id\tscore\r\n1\t11\t1\r\n2\t33\t1\r\n2\t44\t1\r\n3\t22\t1\r\n")
    return corpus, queries, qrels


@pytest.mark.parametrize("profile", ["memtui", "openclaw"])
def test_eval_scifact_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], profile: str) -> None:
    corpus, queries, qrels = write_scifact(tmp_path)
    code, out, _ = run_cli(
        capsys,
        "eval",
        "scifact",
        "--corpus",
        str(corpus),
        "--queries",
        str(queries),
        "--qrels",
        str(qrels),
        "--profile",
        profile,
        "--json",
    )
    assert code == 0
    report = json.loads(out)
    # q1: doc 11 alone at rank 1 -> 1. q2: doc 33 at rank 1, doc 44 never -> 1 / (1 + 1/log2(3)).
    # q3: no hit -> 0. q4 has no qrels and is not scored.
    assert report["ndcg@10"] == pytest.approx((1 + 1 / (1 + D2) + 0) / 3)
    assert report["recall@100"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert report["mrr@10"] == pytest.approx(2 / 3)
    # no two hits of a query share a score here, so averaging ties changes nothing
    assert report["tieAveraged"]["ndcg@10"] == pytest.approx(report["ndcg@10"])
    assert (report["queries"], report["zeroHit"], report["documents"]) == (3, 1, 4)
    assert (report["profile"], report["provider"], report["temporalDecay"]) == (profile, "none", False)
    assert report["elapsedMs"] >= report["indexMs"] + report["searchMs"] - 1


def test_eval_scifact_table_and_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, queries, qrels = write_scifact(tmp_path)
    code, out, _ = run_cli(
        capsys,
        "eval",
        "scifact",
        "--corpus",
        str(corpus),
        "--queries",
        str(queries),
        "--qrels",
        str(qrels),
        "--limit",
        "1",
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["SciFact", "value"]
    assert lines[1].split() == ["ndcg@10", "1.0000"]
    assert lines[2].split() == ["recall@100", "1.0000"]
    assert lines[5].split() == ["queries", "1"]
    assert lines[-1] == "profile memtui, provider none, minScore 0, temporal decay off"


def test_eval_scifact_bad_input_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, queries, qrels = write_scifact(tmp_path)
    qrels.write_text("1\t11\n", encoding="utf-8")
    code, _, err = run_cli(
        capsys, "eval", "scifact", "--corpus", str(corpus), "--queries", str(queries), "--qrels", str(qrels)
    )
    assert code == 2
    assert f"{qrels}:1: expected query-id, corpus-id and score separated by tabs" in err
    corpus.write_text('{"_id": "../x", "title": "t", "text": "x"}\n', encoding="utf-8")
    qrels.write_text("1\t11\t1\n", encoding="utf-8")
    code, _, err = run_cli(
        capsys, "eval", "scifact", "--corpus", str(corpus), "--queries", str(queries), "--qrels", str(qrels)
    )
    assert code == 2
    assert "document id '../x' cannot be a file name" in err


LOCOMO = [
    {
        "sample_id": "conv-t",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "Hello there."},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "I fed the giraffe.", "blip_caption": "a tall animal"},
            ],
            "session_2_date_time": "10:37 am on 3 June, 2023",
            "session_2": [{"speaker": "Ana", "dia_id": "D2:1", "text": "Marathon training started."}],
        },
        "qa": [
            {"question": "giraffe", "answer": "a", "evidence": ["D1:2"], "category": 4},
            {"question": "marathon", "answer": "b", "evidence": ["D2:1", "D1:1"], "category": 1},
            {"question": "volcano", "answer": "c", "evidence": ["D1:1"], "category": 2},
            {"question": "giraffe again", "answer": "d", "evidence": ["D", "D7:7"], "category": 5},
        ],
    }
]
MAY_8 = (
    "# 2023-05-08\n\n## Session 1 (1:56 pm)\n\n- [D1:1] Ana: Hello there.\n"
    "- [D1:2] Ben: I fed the giraffe. [shared image: a tall animal]\n"
)
JUNE_3 = "# 2023-06-03\n\n## Session 2 (10:37 am)\n\n- [D2:1] Ana: Marathon training started.\n"


def test_eval_locomo_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO), encoding="utf-8")
    code, out, _ = run_cli(capsys, "eval", "locomo", str(path), "--k", "1,6", "--min-score", "0", "--json")
    assert code == 0
    report = json.loads(out)
    # each daily log is one chunk. giraffe -> May 8 covers D1:2 (1); marathon -> June 3 covers D2:1 of
    # D2:1, D1:1 (1/2); volcano -> nothing (0). The fourth question has no valid evidence id.
    assert report["recall@1"] == pytest.approx(0.5)
    assert report["recall@6"] == pytest.approx(0.5)
    assert report["byCategory"] == {
        "single-hop": {"recall@1": 1.0, "recall@6": 1.0, "questions": 1},
        "multi-hop": {"recall@1": 0.5, "recall@6": 0.5, "questions": 1},
        "temporal": {"recall@1": 0.0, "recall@6": 0.0, "questions": 1},
    }
    # snippets are the whole (short) chunk texts: one file per answered question, nothing for volcano
    assert report["charsPerQuery"] == pytest.approx((len(MAY_8) + len(JUNE_3) + 0) / 3)
    assert report["charsPerQueryAtK"]["1"] == pytest.approx(report["charsPerQuery"])
    assert (report["questions"], report["skippedQuestions"], report["conversations"]) == (3, 1, ["conv-t"])
    assert report["temporalDecay"] is False


def test_eval_locomo_table_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO), encoding="utf-8")
    code, out, _ = run_cli(capsys, "eval", "locomo", str(path), "--min-score", "0", "--conversations", "conv-t")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[:5]]
    assert rows == [
        ["category", "questions", "recall@6", "recall@10"],
        ["all", "3", "0.5000", "0.5000"],
        ["single-hop", "1", "1.0000", "1.0000"],
        ["multi-hop", "1", "0.5000", "0.5000"],
        ["temporal", "1", "0.0000", "0.0000"],
    ]
    code, _, err = run_cli(capsys, "eval", "locomo", str(path), "--k", "6,x")
    assert (code, "--k '6,x': expected comma-separated integers" in err) == (2, True)
    code, _, err = run_cli(capsys, "eval", "locomo", str(path), "--conversations", "conv-9")
    assert (code, "no conversation conv-9" in err) == (2, True)


@pytest.fixture
def golden_ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Memory\n\n- The pelican is named Pete.\n", encoding="utf-8")
    (ws / "memory" / "2026-01-02.md").write_text("# 2026-01-02\n\n- Fed the giraffe at noon.\n", encoding="utf-8")
    (ws / "memory" / "2026-01-03.md").write_text("# 2026-01-03\n\n- Repaired the kayak.\n", encoding="utf-8")
    return ws


def test_eval_run_json_is_its_own_previous(tmp_path: Path, golden_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        '{"query": "giraffe", "expected": ["memory/2026-01-02.md"]}\n'
        '{"query": "pelican", "expected": ["MEMORY.md:3-3", "memory/2026-01-03.md"]}\n'
        '{"query": "kayak", "expected": ["MEMORY.md"]}\n',
        encoding="utf-8",
    )
    common = ["--state-dir", str(tmp_path / "state"), "--workspace", str(golden_ws), "--provider", "none"]
    code, out, _ = run_cli(capsys, "eval", "run", str(golden), "--json", *common)
    assert code == 0
    report = json.loads(out)
    assert (report["k"], report["queries"]) == (10, 3)
    rows = [(r["query"], r["firstRank"], r["ranks"], r["recall@10"], r["rr"]) for r in report["results"]]
    assert rows == [
        ("giraffe", 1, {"memory/2026-01-02.md": 1}, 1.0, 1.0),
        ("pelican", 1, {"MEMORY.md:3-3": 1, "memory/2026-01-03.md": None}, 0.5, 1.0),
        ("kayak", None, {"MEMORY.md": None}, 0.0, 0.0),
    ]
    # nDCG: 1; 1 / (1 + 1/log2(3)) (one of two expected found at rank 1); 0
    assert [r["ndcg@10"] for r in report["results"]] == pytest.approx([1.0, 1 / (1 + D2), 0.0])
    assert report["mrr"] == pytest.approx(2 / 3)
    previous = tmp_path / "previous.json"
    previous.write_text(out, encoding="utf-8")
    code, out, _ = run_cli(capsys, "eval", "run", str(golden), "--json", "--compare", str(previous), *common)
    assert code == 0
    cmp = json.loads(out)["compare"]
    assert [r["status"] for r in cmp["rows"]] == ["unchanged"] * 3
    assert (cmp["better"], cmp["worse"], cmp["unchanged"]) == (0, 0, 3)


def test_eval_run_compare_table(tmp_path: Path, golden_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        '{"query": "giraffe", "expected": ["memory/2026-01-02.md"]}\n'
        '{"query": "kayak", "expected": ["MEMORY.md"]}\n'
        '{"query": "pelican", "expected": ["MEMORY.md"]}\n',
        encoding="utf-8",
    )
    previous = tmp_path / "previous.json"
    previous.write_text(
        json.dumps(
            {
                "k": 10,
                "queries": 3,
                "results": [
                    {"query": "giraffe", "firstRank": 4, "ndcg@10": 0.43},
                    {"query": "kayak", "firstRank": 2, "ndcg@10": 0.63},
                    {"query": "old query", "firstRank": 1, "ndcg@10": 1.0},
                ],
            }
        ),
        encoding="utf-8",
    )
    code, out, _ = run_cli(
        capsys,
        "eval",
        "run",
        str(golden),
        "--compare",
        str(previous),
        "--provider",
        "none",
        "--state-dir",
        str(tmp_path / "state"),
        "--workspace",
        str(golden_ws),
    )
    assert code == 0
    table = out.split("\n\n")[2].splitlines()
    assert table == [
        "query      change   before  now  ranks",
        "giraffe    better        4    1     +3",
        "kayak      worse         2    -      -",
        "pelican    new           -    1      -",
        "old query  removed       1    -      -",
        "1 better, 1 worse, 0 unchanged, 1 new, 1 removed",
    ]


def test_eval_run_missing_golden_file(tmp_path: Path, golden_ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        capsys,
        "eval",
        "run",
        str(tmp_path / "nope.jsonl"),
        "--state-dir",
        str(tmp_path / "state"),
        "--workspace",
        str(golden_ws),
    )
    assert code == 2
    assert "cannot read" in err and "nope.jsonl" in err

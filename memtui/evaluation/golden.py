"""A user's golden queries: recall@k, MRR and nDCG@k on the current workspace, and regressions.

A golden file is JSONL, one `{"query": ..., "expected": [...]}` per line. An expected entry is a
workspace-relative path (matched by any hit on that file) or `path:a-b` (matched by a hit whose
lines overlap a..b; `path:a` means a..a). Per query:

* an expected entry's rank is the 1-based position of the first hit that matches it;
* `firstRank` is the position of the first hit matching any expected entry (None: none in top k);
* a hit gains 1 when it matches an entry no earlier hit matched, else 0 (several hits on one
  file count once); nDCG@k uses these gains against an ideal of min(#expected, k) gains of 1;
* recall@k is the share of expected entries matched by some hit in the top k; MRR is 1/firstRank.

Ranks are positions in the returned list (equal scores keep the engine's order). The JSON a run returns
is accepted again by `compare_runs` as the previous result.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.errors import MemtuiError
from memtui.evaluation.engine import open_manager
from memtui.evaluation.metrics import dcg, expected_reciprocal_rank, found_at_k, ideal_dcg, mean
from memtui.settings.agent import AgentEnv

_RANGE = re.compile(r"(?P<path>.+):(?P<start>\d+)(?:-(?P<end>\d+))?")


@dataclass(frozen=True)
class Expected:
    """One expected location: a file, or a 1-based inclusive line range in it."""

    label: str
    path: str
    start: int | None = None
    end: int | None = None

    def matches(self, path: str, start_line: int, end_line: int) -> bool:
        """Whether a hit on `path` lines start_line..end_line satisfies this entry."""
        if path != self.path:
            return False
        if self.start is None or self.end is None:
            return True
        return start_line <= self.end and end_line >= self.start


@dataclass(frozen=True)
class GoldenQuery:
    """One line of a golden file."""

    query: str
    expected: tuple[Expected, ...]


def _normalize_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def parse_expected(label: str) -> Expected:
    """`"MEMORY.md:10-20"` → Expected(path="MEMORY.md", start=10, end=20); a bare path matches the file."""
    text = label.strip()
    match = _RANGE.fullmatch(text)
    if match:
        start = int(match["start"])
        end = int(match["end"]) if match["end"] else start
        if start < 1 or end < start:
            raise ValueError(f"line range {start}-{end} in {label!r} must satisfy 1 <= a <= b")
        return Expected(label, _normalize_path(match["path"]), start, end)
    if not text:
        raise ValueError("empty expected path")
    return Expected(label, _normalize_path(text))


def load_golden(path: str | Path) -> list[GoldenQuery]:
    """Read and validate a golden JSONL file."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise MemtuiError(f"cannot read {path}: {exc.strerror}") from exc
    queries: list[GoldenQuery] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MemtuiError(f"{where}: invalid JSON: {exc.msg}") from exc
        if not isinstance(obj, dict) or not isinstance(obj.get("query"), str) or not obj["query"].strip():
            raise MemtuiError(
                f'{where}: expected {{"query": "...", "expected": [...]}} with a non-empty query'
            )
        expected = obj.get("expected")
        if not isinstance(expected, list) or not expected or not all(isinstance(e, str) for e in expected):
            raise MemtuiError(
                f"{where}: 'expected' must be a non-empty list of paths like "
                '"memory/2026-01-02.md" or "MEMORY.md:10-20"'
            )
        try:
            parsed = tuple(parse_expected(e) for e in dict.fromkeys(expected))
        except ValueError as exc:
            raise MemtuiError(f"{where}: {exc}") from exc
        queries.append(GoldenQuery(obj["query"], parsed))
    if not queries:
        raise MemtuiError(
            f"{path}: no golden queries", 'one JSON object per line: {"query": ..., "expected": [...]}'
        )
    return queries


def score_query(golden: GoldenQuery, hits: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """Metrics of one golden query from its hits (dicts with path, startLine, endLine, score)."""
    hits = hits[:k]
    ranks: dict[str, int | None] = {e.label: None for e in golden.expected}
    gains: list[float] = []
    found: list[float] = []
    for pos, hit in enumerate(hits, start=1):
        new = [
            e
            for e in golden.expected
            if ranks[e.label] is None and e.matches(hit["path"], hit["startLine"], hit["endLine"])
        ]
        for e in new:
            ranks[e.label] = pos
        gains.append(1.0 if new else 0.0)
        found.append(float(len(new)))
    order = [-float(pos) for pos in range(len(hits))]  # the returned order decides ties
    matched = [r for r in ranks.values() if r is not None]
    ideal = ideal_dcg([1.0] * len(golden.expected), k)
    return {
        "query": golden.query,
        "expected": [e.label for e in golden.expected],
        "firstRank": min(matched) if matched else None,
        "ranks": ranks,
        f"recall@{k}": found_at_k(found, order, k) / len(golden.expected),
        "rr": expected_reciprocal_rank([g > 0 for g in gains], order, k),
        f"ndcg@{k}": dcg(gains, order, k) / ideal,
        "hits": hits,
    }


def summarize(results: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """The run-level report around per-query results."""
    return {
        "k": k,
        "queries": len(results),
        f"recall@{k}": mean([r[f"recall@{k}"] for r in results]),
        "mrr": mean([r["rr"] for r in results]),
        f"ndcg@{k}": mean([r[f"ndcg@{k}"] for r in results]),
        "results": results,
    }


def run_golden(env: AgentEnv, path: str | Path, k: int = 10) -> dict[str, Any]:
    """Search every golden query in the agent's workspace (syncing first unless read-only) and score it."""
    if k < 1:
        raise MemtuiError("--k must be at least 1")
    queries = load_golden(path)
    results = []
    with open_manager(env) as mgr:
        if not env.read_only:
            mgr.sync()
        for golden in queries:
            resp = mgr.search(golden.query, max_results=k)
            hits = [
                {"path": h.path, "startLine": h.start_line, "endLine": h.end_line, "score": h.score}
                for h in resp.results
            ]
            results.append(score_query(golden, hits, k))
    report = summarize(results, k)
    report["workspace"] = str(env.workspace_dir)
    report["profile"] = env.profile
    return report


def load_previous(path: str | Path) -> dict[str, Any]:
    """Read an earlier `eval run --json` output."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MemtuiError(f"cannot read {path}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise MemtuiError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not all(
        isinstance(r, dict) and isinstance(r.get("query"), str) for r in results
    ):
        raise MemtuiError(f"{path}: not an `memtui eval run --json` result (no 'results' list of queries)")
    return data


def _keyed(results: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    seen: dict[str, int] = {}
    keyed = {}
    for r in results:
        n = seen.get(r["query"], 0)
        seen[r["query"]] = n + 1
        keyed[(r["query"], n)] = r
    return keyed


def _status(before: int | None, after: int | None, ndcg_change: float) -> str:
    if before == after:
        if abs(ndcg_change) < 1e-12:
            return "unchanged"
        return "better" if ndcg_change > 0 else "worse"
    if before is None:
        return "better"
    if after is None:
        return "worse"
    return "better" if after < before else "worse"


def compare_runs(current: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    """Per-query regression rows of `current` against `previous` (queries matched by text and order).

    `rankChange` is previous firstRank minus current firstRank (positive: moved up), None when a
    side did not find the query's expected entries in its top k.
    """
    k = current["k"]
    ndcg_key = f"ndcg@{k}"
    prev = _keyed(previous["results"])
    cur = _keyed(current["results"])
    rows = []
    for key, now in cur.items():
        before = prev.get(key)
        if before is None:
            rows.append(
                {
                    "query": key[0],
                    "status": "new",
                    "previousRank": None,
                    "currentRank": now["firstRank"],
                    "rankChange": None,
                    "ndcgChange": None,
                }
            )
            continue
        b_rank, a_rank = before.get("firstRank"), now["firstRank"]
        change = now[ndcg_key] - float(before[ndcg_key]) if ndcg_key in before else 0.0
        rows.append(
            {
                "query": key[0],
                "status": _status(b_rank, a_rank, change),
                "previousRank": b_rank,
                "currentRank": a_rank,
                "rankChange": b_rank - a_rank if b_rank is not None and a_rank is not None else None,
                "ndcgChange": round(change, 6) if ndcg_key in before else None,
            }
        )
    for key, before in prev.items():
        if key not in cur:
            rows.append(
                {
                    "query": key[0],
                    "status": "removed",
                    "previousRank": before.get("firstRank"),
                    "currentRank": None,
                    "rankChange": None,
                    "ndcgChange": None,
                }
            )
    counts = {
        s: sum(1 for r in rows if r["status"] == s)
        for s in ("better", "worse", "unchanged", "new", "removed")
    }
    return {**counts, "rows": rows}

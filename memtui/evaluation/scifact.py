"""BEIR SciFact: a workspace of one Markdown file per abstract, scored by nDCG@10 and recall@100.

Every query is searched twice with minScore 0 (or the configured threshold on request): top 10 for
nDCG@10 (and MRR@10), top 100 for recall@100. Hits map back to documents by path
(`memory/scifact/<_id>.md`); each document keeps its best rank. Queries without qrels are not
scored. The main keys rank by the returned order; `tieAveraged` holds the same metrics with equal
scores averaged (see `metrics`).
"""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memtui.errors import MemtuiError
from memtui.evaluation.engine import fresh_env, open_manager
from memtui.evaluation.metrics import mean, ndcg_at_k, recall_at_k, reciprocal_rank
from memtui.evaluation.query_vectors import FILE_NAME as QUERY_VECTORS
from memtui.evaluation.query_vectors import QueryVectors

DOC_DIR = "memory/scifact"
NDCG_K = 10
RECALL_K = 100
_SAFE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise MemtuiError(f"cannot read {path}: {exc.strerror}") from exc
    with handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise MemtuiError(f"{path}:{lineno}: invalid JSON: {exc.msg}") from exc
            if not isinstance(obj, dict):
                raise MemtuiError(f"{path}:{lineno}: expected a JSON object")
            yield lineno, obj


def _field(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise MemtuiError(f"{where}: missing or non-string {key!r}")
    return value


def document_text(title: str, text: str) -> str:
    """The Markdown of one corpus document: `# <title>\\n\\n<text>\\n`."""
    return f"# {title}\n\n{text}\n"


def build_workspace(corpus: str | Path, workspace: Path) -> int:
    """Write `memory/scifact/<_id>.md` for every corpus document; returns the document count."""
    corpus = Path(corpus)
    target = workspace / DOC_DIR
    target.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    for lineno, obj in _jsonl(corpus):
        where = f"{corpus}:{lineno}"
        doc_id = _field(obj, "_id", where)
        if not _SAFE_ID.fullmatch(doc_id):
            raise MemtuiError(
                f"{where}: document id {doc_id!r} cannot be a file name",
                "ids may hold letters, digits, '.', '_' and '-'",
            )
        if doc_id in seen:
            raise MemtuiError(f"{where}: duplicate document id {doc_id!r}")
        seen.add(doc_id)
        title = obj.get("title") or ""
        (target / f"{doc_id}.md").write_text(
            document_text(str(title), _field(obj, "text", where)), encoding="utf-8"
        )
    if not seen:
        raise MemtuiError(f"{corpus}: no documents")
    return len(seen)


def load_queries(path: str | Path) -> list[tuple[str, str]]:
    """`(query id, claim text)` pairs in file order."""
    path = Path(path)
    return [
        (_field(obj, "_id", f"{path}:{n}"), _field(obj, "text", f"{path}:{n}")) for n, obj in _jsonl(path)
    ]


def load_qrels(path: str | Path) -> dict[str, dict[str, float]]:
    """BEIR qrels TSV (`query-id<TAB>corpus-id<TAB>score`, optional header, LF or CRLF)."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise MemtuiError(f"cannot read {path}: {exc.strerror}") from exc
    qrels: dict[str, dict[str, float]] = {}
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        parts = line.strip().split("\t")
        if len(parts) != 3:
            raise MemtuiError(f"{path}:{lineno}: expected query-id, corpus-id and score separated by tabs")
        try:
            grade = float(parts[2])
        except ValueError:
            if lineno == 1:
                continue
            raise MemtuiError(f"{path}:{lineno}: score {parts[2]!r} is not a number") from None
        qrels.setdefault(parts[0], {})[parts[1]] = grade
    if not qrels:
        raise MemtuiError(f"{path}: no relevance judgements")
    return qrels


def doc_id_of(path: str) -> str | None:
    """The document id of a hit path under `memory/scifact/`, else None."""
    prefix = DOC_DIR + "/"
    if path.startswith(prefix) and path.endswith(".md") and "/" not in path[len(prefix) :]:
        return path[len(prefix) : -3]
    return None


def _ranking(hits: list[Any]) -> list[tuple[str, float]]:
    return [(doc, hit.score) for hit in hits if (doc := doc_id_of(hit.path)) is not None]


def run_scifact(
    corpus: str | Path,
    queries: str | Path,
    qrels: str | Path,
    *,
    profile: str = "memtui",
    provider: str = "none",
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    keep: Path | None = None,
    min_score: float | None = 0.0,
) -> dict[str, Any]:
    """Index the corpus in a fresh temporary workspace (or in `keep`, reused across runs so embeddings and
    query vectors are cached) and score every judged query; `min_score` None uses the configured threshold
    (the protocol's default is 0, no threshold)."""
    judged = load_qrels(qrels)
    todo = [(qid, text) for qid, text in load_queries(queries) if qid in judged]
    if limit is not None:
        if limit < 1:
            raise MemtuiError("--limit must be at least 1")
        todo = todo[:limit]
    if not todo:
        raise MemtuiError(f"{queries}: no query has relevance judgements in {qrels}")
    started = time.perf_counter()
    scores: dict[tuple[str, bool], list[float]] = {}
    zero_hit = 0
    with contextlib.ExitStack() as stack:
        root = keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memtui-scifact-")))
        workspace = root / "workspace"
        documents = build_workspace(corpus, workspace)
        env = fresh_env(root / "state", workspace, profile, provider)
        with open_manager(env) as mgr:
            t0 = time.perf_counter()
            mgr.sync(force=True)
            t1 = time.perf_counter()
            vectors = QueryVectors(mgr, root / QUERY_VECTORS if keep is not None else None)
            for done, (qid, text) in enumerate(todo, start=1):
                vector = vectors.vector(text)
                top = mgr.search(text, max_results=NDCG_K, min_score=min_score, query_vector=vector).results[:NDCG_K]
                deep = mgr.search(text, max_results=RECALL_K, min_score=min_score,
                                  query_vector=vector).results[:RECALL_K]
                zero_hit += not top
                for tied in (False, True):
                    row = {
                        f"ndcg@{NDCG_K}": ndcg_at_k(_ranking(top), judged[qid], NDCG_K, tie_aware=tied),
                        f"mrr@{NDCG_K}": reciprocal_rank(_ranking(top), judged[qid], NDCG_K, tie_aware=tied),
                        f"recall@{RECALL_K}": recall_at_k(_ranking(deep), judged[qid], RECALL_K, tie_aware=tied),
                    }
                    for name, value in row.items():
                        scores.setdefault((name, tied), []).append(value)
                if progress:
                    progress(done, len(todo))
            vectors.save()
            t2 = time.perf_counter()
    names = (f"ndcg@{NDCG_K}", f"recall@{RECALL_K}", f"mrr@{NDCG_K}")
    return {
        **{name: mean(scores[(name, False)]) for name in names},
        "tieAveraged": {name: mean(scores[(name, True)]) for name in names},
        "queries": len(todo),
        "zeroHit": zero_hit,
        "documents": documents,
        "profile": profile,
        "provider": provider,
        "minScore": min_score,
        "temporalDecay": env.settings.query.hybrid.temporal_decay.enabled,
        "indexMs": round((t1 - t0) * 1000, 1),
        "searchMs": round((t2 - t1) * 1000, 1),
        "elapsedMs": round((time.perf_counter() - started) * 1000, 1),
    }

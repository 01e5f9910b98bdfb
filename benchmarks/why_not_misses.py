"""Why-not on real misses: LoCoMo questions whose evidence is not in the top k, each with its why-not.

    .venv/bin/python benchmarks/why_not_misses.py [DATASET] [--provider local|none] [--keep DIR]
        [--k 6] [--sample 30] [--seed 27] [--json] [--out FILE]

Runs the LoCoMo evaluation as `memtui eval locomo` does (the library's conversion, one workspace per
conversation, a forced sync, the configured minScore, one search per question at `maxResults` k with the
kept query vectors), collects the misses (a question with an evidence turn no top-k hit covers; its first
uncovered turn is the one explained), samples `--sample` of them with a fixed seed spread over conversations
and categories (round-robin over the (conversation, category) strata, seeded order), and prints for each the
question, the evidence (path:line and its text), the top k (score, path) and `why_not.explain_chunk` of the
evidence chunk against the same manager and response. `--json` prints the same as one JSON document.

Each case also carries a cross-check for the reader who judges the why-not: the chunk's fate in the same
search with every chunk a candidate (`candidate_limit` = all chunks), its keyword r/(1+r) and cosine (the
memtui profile's minScore evidence) and its rank by final score among every chunk. It is the ranking code
again, not a second formula; it only makes the question "would it have been returned as a candidate?" easy
to read.

`--keep` defaults to /tmp/locomo_keep for `--provider local` (the kept index of
`memtui eval locomo ... --provider local --keep /tmp/locomo_keep`: embeddings and query vectors are reused) and
to a fresh temporary folder for `--provider none`, so a keyword-only run never re-syncs the local index's store.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memtui.errors import MemtuiError
from memtui.evaluation.engine import fresh_env, open_manager
from memtui.evaluation.locomo import (
    Conversation,
    Question,
    _dir_name,
    category_name,
    convert_conversation,
    load_locomo,
)
from memtui.evaluation.query_vectors import FILE_NAME as QUERY_VECTORS
from memtui.evaluation.query_vectors import QueryVectors
from memtui.manager import MemoryManager
from memtui.search.ranking import bm25_rank_to_score
from memtui.search.response import Candidate, SearchResponse
from memtui.search.why_not import chunk_at, explain_chunk

DEFAULT_DATASET = Path("/work/shared/eval/locomo/locomo-dev.json")
DEFAULT_LOCAL_KEEP = Path("/tmp/locomo_keep")
SNIPPET = 220


@dataclass
class Clock:
    """Wall and CPU time of one phase, with the load average when it ended."""

    wall_s: float = 0.0
    cpu_s: float = 0.0
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def to_json(self) -> dict[str, Any]:
        """Seconds rounded to milliseconds, and the 1/5/15-minute load average."""
        return {"wallS": round(self.wall_s, 3), "cpuS": round(self.cpu_s, 3),
                "loadAfter": [round(x, 2) for x in self.load_after]}


@contextlib.contextmanager
def timed(clock: Clock) -> Iterator[None]:
    """Add the wall and process CPU time of the block to `clock`."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        clock.wall_s += time.perf_counter() - wall
        clock.cpu_s += time.process_time() - cpu
        clock.load_after = os.getloadavg()


@dataclass
class Miss:
    """One question whose evidence the top k does not cover, before it is explained."""

    conversation: str
    index: int
    question: Question
    missed: list[str]
    covered: list[str]

    @property
    def stratum(self) -> tuple[str, int]:
        """(conversation, category): what the sample spreads over."""
        return self.conversation, self.question.category


@dataclass
class Case:
    """A sampled miss with everything printed about it."""

    miss: Miss
    data: dict[str, Any] = field(default_factory=dict)


def write_workspace(conv: Conversation, workspace: Path) -> None:
    """The conversation's daily logs in `workspace`, as `run_locomo` writes them; files already holding the same
    text are left alone, so a kept workspace another run is reading is not deleted under it."""
    wanted = {workspace / rel: text for rel, text in conv.files.items()}
    if workspace.exists():
        for path in workspace.rglob("*"):
            if path.is_file() and path not in wanted:
                path.unlink()
    for path, text in wanted.items():
        with contextlib.suppress(OSError):
            if path.read_text(encoding="utf-8") == text:
                continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def sample_misses(misses: list[Miss], count: int, seed: int) -> list[Miss]:
    """`count` misses, round-robin over the (conversation, category) strata in a seeded order, each stratum
    shuffled with the same seed; the result is in conversation, question order."""
    rng = random.Random(seed)
    strata: dict[tuple[str, int], list[Miss]] = {}
    for miss in misses:
        strata.setdefault(miss.stratum, []).append(miss)
    keys = sorted(strata)
    rng.shuffle(keys)
    for key in keys:
        rng.shuffle(strata[key])
    chosen: list[Miss] = []
    while len(chosen) < min(count, len(misses)):
        for key in keys:
            if strata[key] and len(chosen) < count:
                chosen.append(strata[key].pop())
    return sorted(chosen, key=lambda m: (m.conversation, m.index))


def _evidence(candidate: Candidate) -> dict[str, float | None]:
    """The memtui profile's minScore evidence of a candidate: keyword r/(1+r) and cosine."""
    keyword = bm25_rank_to_score(candidate.bm25) if candidate.bm25 is not None else None
    return {"keyword": keyword, "cosine": candidate.cosine}


def _hit(hit: Candidate, conv: Conversation, evidence: tuple[str, ...]) -> dict[str, Any]:
    turns = conv.covered_turns(hit.path, hit.start_line, hit.end_line)
    return {"rank": hit.rank, "score": round(hit.score, 4), "path": f"{hit.path}:{hit.start_line}-{hit.end_line}",
            "evidenceTurns": sorted(set(evidence) & turns)}


def cross_check(manager: MemoryManager, response: SearchResponse, chunk_id: str, *, now: datetime,
                vector: list[float] | None) -> dict[str, Any]:
    """The chunk in the same search with every chunk a candidate: its stage there, its rank by final score among
    every chunk, its scores and minScore evidence; and the score of the last returned hit."""
    wide = manager.search(response.query, max_results=response.max_results, min_score=response.min_score,
                          now=now, query_vector=vector, candidate_limit=max(1, manager.store.chunk_count()))
    found = next((c for c in wide.candidates if c.id == chunk_id), None)
    last = response.results[-1] if response.results else None
    wide_last = wide.results[-1] if wide.results else None
    check: dict[str, Any] = {"lastReturnedScore": round(last.score, 4) if last else None,
                             "wideLastReturnedScore": round(wide_last.score, 4) if wide_last else None,
                             "wideRelaxed": wide.relaxed, "chunks": manager.store.chunk_count()}
    pool = [c for c in response.candidates if c.stage != "below-min-score"]
    mine = next((i for i, c in enumerate(pool, start=1) if c.id == chunk_id), None)
    check["poolPosition"] = f"{mine} of {len(pool)}" if mine is not None else None
    if found is None:
        check["stageWithEveryCandidate"] = "not ranked (no keyword match and no vector)"
        return check
    by_score = sorted(wide.candidates, key=lambda c: -c.score)
    check.update({
        "stageWithEveryCandidate": found.stage,
        "rankByScore": 1 + by_score.index(found),
        "score": round(found.score, 4),
        "textRank": found.text_rank, "vectorRank": found.vector_rank,
        "evidence": {k: None if v is None else round(v, 4) for k, v in _evidence(found).items()},
        "keywordMatches": sum(1 for c in wide.candidates if c.text_rank is not None),
    })
    return check


def explain_case(manager: MemoryManager, conv: Conversation, miss: Miss, response: SearchResponse, *,
                 now: datetime, vector: list[float] | None) -> dict[str, Any]:
    """Everything printed for one miss: question, evidence, top k, the why-not and the cross-check."""
    q = miss.question
    turn = miss.missed[0]
    path, line = conv.turn_lines[turn]
    text = conv.files[path].split("\n")[line - 1]
    data: dict[str, Any] = {
        "conversation": miss.conversation, "questionIndex": miss.index, "category": category_name(q.category),
        "question": q.question, "evidenceTurns": list(q.evidence), "missedTurns": miss.missed,
        "coveredTurns": miss.covered,
        "explained": {"turn": turn, "location": f"{path}:{line}", "text": text},
        "query": {"mode": response.mode, "ftsQuery": response.keyword.match if response.keyword else None,
                  "candidates": len(response.candidates), "candidateLimit": response.candidate_limit,
                  "minScore": response.min_score, "thresholdRule": response.threshold_rule,
                  "relaxed": response.relaxed, "textNormalization": response.text_normalization},
        "top": [_hit(hit, conv, q.evidence) for hit in response.results],
    }
    try:
        row = chunk_at(manager, path, line)
    except MemtuiError as exc:
        data["whyNot"] = {"error": str(exc)}
        return data
    covering = [r for r in manager.store.chunks_for_path(path) if r.start_line <= line <= r.end_line]
    data["explained"].update({"chunk": f"{row.path}:{row.start_line}-{row.end_line}", "chunkId": row.id,
                              "chunksCoveringLine": len(covering)})
    why = explain_chunk(manager, response, row.id, now=now, query_vector=vector)
    data["whyNot"] = why.to_json()
    data["check"] = cross_check(manager, response, row.id, now=now, vector=vector)
    others = []
    for other in covering:
        if other.id != row.id:
            other_why = explain_chunk(manager, response, other.id, now=now, query_vector=vector)
            others.append({"chunk": f"{other.path}:{other.start_line}-{other.end_line}",
                           "headline": other_why.headline, "score": other_why.score})
    data["otherCoveringChunks"] = others
    return data


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Evaluate, collect the misses at k, sample and explain them."""
    load_before = os.getloadavg()
    keep: Path = args.keep
    evaluation, explaining = Clock(), Clock()
    now = datetime.now(UTC)
    samples = load_locomo(args.dataset, args.conversations or None)
    misses: list[Miss] = []
    asked_total = 0
    recall_sum = 0.0
    convs: dict[str, Conversation] = {}
    # pass 1: the evaluation, as run_locomo does it (one search per question at maxResults k)
    for sample in samples:
        conv = convert_conversation(sample)
        convs[conv.sample_id] = conv
        root = keep / _dir_name(conv.sample_id)
        with timed(evaluation):
            write_workspace(conv, root / "workspace")
            env = fresh_env(root / "state", root / "workspace", args.profile, args.provider)
            with open_manager(env) as mgr:
                mgr.sync(force=True)
                vectors = QueryVectors(mgr, root / QUERY_VECTORS)
                for index, q in enumerate(conv.questions):
                    if not q.evidence:
                        continue
                    asked_total += 1
                    vector = vectors.vector(q.question)
                    hits = mgr.search(q.question, max_results=args.k, min_score=args.min_score, now=now,
                                      query_vector=vector).results[: args.k]
                    covered: set[str] = set()
                    for hit in hits:
                        covered |= conv.covered_turns(hit.path, hit.start_line, hit.end_line)
                    recall_sum += len(set(q.evidence) & covered) / len(q.evidence)
                    missed = [dia for dia in q.evidence if dia not in covered]
                    if missed:
                        misses.append(Miss(conv.sample_id, index, q, missed, [d for d in q.evidence if d in covered]))
                vectors.save()
    chosen = sample_misses(misses, args.sample, args.seed)
    # pass 2: the why-not of each sampled miss, against the same manager and response
    cases: list[dict[str, Any]] = []
    for conv_id in sorted({m.conversation for m in chosen}):
        conv = convs[conv_id]
        root = keep / _dir_name(conv_id)
        with timed(explaining):
            env = fresh_env(root / "state", root / "workspace", args.profile, args.provider)
            with open_manager(env) as mgr:
                vectors = QueryVectors(mgr, root / QUERY_VECTORS)
                for miss in (m for m in chosen if m.conversation == conv_id):
                    vector = vectors.vector(miss.question.question)
                    response = mgr.search(miss.question.question, max_results=args.k, min_score=args.min_score,
                                          now=now, query_vector=vector)
                    cases.append(explain_case(mgr, conv, miss, response, now=now, vector=vector))
    by_category: dict[str, int] = {}
    for miss in misses:
        name = category_name(miss.question.category)
        by_category[name] = by_category.get(name, 0) + 1
    return {
        "dataset": str(args.dataset), "profile": args.profile, "provider": args.provider, "k": args.k,
        "minScore": args.min_score, "seed": args.seed, "keep": str(keep), "commit": _commit(),
        "questions": asked_total, "recallAtK": round(recall_sum / asked_total, 4) if asked_total else None,
        "misses": len(misses), "missesByCategory": by_category, "sampled": len(cases),
        "time": {"loadBefore": [round(x, 2) for x in load_before], "evaluation": evaluation.to_json(),
                 "whyNot": explaining.to_json()},
        "cases": cases,
    }


def _commit() -> str:
    """The repository's HEAD, with `+dirty` when the working tree has changes (other engineers' edits)."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def _short(text: str, width: int = SNIPPET) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def print_text(report: dict[str, Any]) -> None:
    """The report for a reader: a header with recall and timings, then one block per sampled miss."""
    t = report["time"]
    print(f"LoCoMo why-not misses · {report['dataset']} · profile {report['profile']} · provider "
          f"{report['provider']} · k {report['k']} · seed {report['seed']} · commit {report['commit']}")
    print(f"{report['questions']} questions, recall@{report['k']} {report['recallAtK']}, {report['misses']} misses "
          f"({', '.join(f'{k} {v}' for k, v in report['missesByCategory'].items())}), {report['sampled']} sampled")
    for name in ("evaluation", "whyNot"):
        print(f"{name}: wall {t[name]['wallS']:.2f} s, CPU {t[name]['cpuS']:.2f} s, load after "
              f"{t[name]['loadAfter']}")
    print(f"load before: {t['loadBefore']}")
    for number, case in enumerate(report["cases"], start=1):
        ex, query = case["explained"], case["query"]
        print(f"\n## {number}. {case['conversation']} q{case['questionIndex']} · {case['category']}")
        print(f"Q: {case['question']}")
        print(f"Evidence {', '.join(case['evidenceTurns'])}; missed {', '.join(case['missedTurns'])}"
              + (f"; covered {', '.join(case['coveredTurns'])}" if case["coveredTurns"] else ""))
        print(f"  {ex['turn']} {ex['location']}: {_short(ex['text'])}")
        if "chunk" in ex:
            print(f"  chunk {ex['chunk']} ({ex['chunksCoveringLine']} chunk(s) cover the line)")
        print(f"Top {report['k']} ({query['mode']}, {query['candidates']} candidates, limit {query['candidateLimit']}, "
              f"minScore {query['minScore']:g}, {query['thresholdRule']}"
              + (", relaxed" if query["relaxed"] else "") + f"); FTS {_short(query['ftsQuery'] or '(none)', 160)}")
        for hit in case["top"]:
            turns = f"  [evidence {', '.join(hit['evidenceTurns'])}]" if hit["evidenceTurns"] else ""
            print(f"  {hit['rank']}. {hit['score']:.4f} {hit['path']}{turns}")
        why = case["whyNot"]
        if "error" in why:
            print(f"Why-not: error: {why['error']}")
            continue
        print(f"Why-not: {why['path']}:{why['startLine']}-{why['endLine']} — {why['headline']}")
        for reason in why["reasons"]:
            print(f"  • {reason}")
        check = case["check"]
        detail = (f", rank by score {check['rankByScore']} of {check['chunks']}, score {check['score']}, evidence "
                  f"{check['evidence']}, text #{check['textRank']} of {check['keywordMatches']} keyword matches, "
                  f"vector #{check['vectorRank']}") if "rankByScore" in check else ""
        print(f"Check (every chunk a candidate): {check['stageWithEveryCandidate']}{detail}; last returned "
              f"{check['lastReturnedScore']} (with every candidate {check['wideLastReturnedScore']}"
              + (", relaxed" if check["wideRelaxed"] else "") + ")"
              + (f"; position in the pool it was cut from: {check['poolPosition']}" if check["poolPosition"] else ""))
        for other in case["otherCoveringChunks"]:
            score = "" if other["score"] is None else f", score {other['score']:.4f}"
            print(f"  also covering the line: {other['chunk']} — {other['headline']}{score}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", nargs="?", type=Path, default=DEFAULT_DATASET, help="LoCoMo JSON file")
    parser.add_argument("--provider", default="local", help="embedding provider (local, none)")
    parser.add_argument("--profile", default="memtui", help="ranking profile (memtui, openclaw)")
    parser.add_argument("--keep", type=Path, help="kept eval folder (default: /tmp/locomo_keep for local, else a "
                        "temporary folder)")
    parser.add_argument("--k", type=int, default=6, help="cut-off: a miss is evidence outside the top k")
    parser.add_argument("--min-score", type=float, default=None, help="minScore (default: the configured one)")
    parser.add_argument("--sample", type=int, default=30, help="misses to explain")
    parser.add_argument("--seed", type=int, default=27, help="sampling seed")
    parser.add_argument("--conversations", nargs="*", help="only these sample ids")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--out", type=Path, help="also write the JSON report to this file")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run, print, and optionally save the JSON."""
    args = parse_args(argv)
    with contextlib.ExitStack() as stack:
        if args.keep is None:
            if args.provider == "local":
                args.keep = DEFAULT_LOCAL_KEEP
            else:
                args.keep = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memtui-whynot-")))
        try:
            report = run(args)
        except MemtuiError as exc:
            print(f"why_not_misses: {exc}", file=sys.stderr)
            return 1
    if args.out:
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report, indent=1, ensure_ascii=False))
    else:
        print_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""LoCoMo evidence recall: conversations → dated daily logs, questions → evidence recall@k.

Conversion (one workspace per conversation): every session goes into `memory/<YYYY-MM-DD>.md`
for its date, sessions of one date share the file in session order. The file reads

    # 2023-05-08
    <blank>
    ## Session 1 (1:56 pm)
    <blank>
    - [D1:1] Caroline: Hey Mel! [shared image: a photo of a dog]
    <blank>
    ## Session 2 (...)

Whitespace runs inside a turn (LoCoMo has a few multi-line turns) become one space, so each turn
is exactly one line. A hit covers a turn when the turn's line lies within its startLine..endLine.

`charsPerQuery` counts the characters (code points) of the snippets the search returns (what
`memory_search` hands an agent, at most 700 per hit), not the whole chunk text behind them; it is
given at the largest k asked, and `charsPerQueryAtK` holds it for every k. Recall is averaged over
questions with at least one evidence id that names a turn; the others are counted as skipped.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from memtui.errors import MemtuiError
from memtui.evaluation.engine import fresh_env, open_manager
from memtui.evaluation.metrics import evidence_recall, mean
from memtui.evaluation.query_vectors import FILE_NAME as QUERY_VECTORS
from memtui.evaluation.query_vectors import QueryVectors

CATEGORY_NAMES = {4: "single-hop", 1: "multi-hop", 2: "temporal", 3: "open-domain", 5: "adversarial"}
DEFAULT_KS = (6, 10)

_MONTHS = {
    name: i
    for i, name in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ],
        start=1,
    )
}
_DATE_TIME = re.compile(
    r"\s*(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<ampm>[ap]\.?m\.?)\s+on\s+"
    r"(?P<day>\d{1,2})\s+(?P<month>[A-Za-z]+)\.?,?\s+(?P<year>\d{4})\s*",
    re.IGNORECASE,
)
_EVIDENCE_ID = re.compile(r"D:?(\d+):(\d+)")
_SESSION_KEY = re.compile(r"session_(\d+)")


@dataclass(frozen=True)
class Question:
    """One LoCoMo question with its parsed evidence ids (only those that name a turn)."""

    question: str
    category: int
    evidence: tuple[str, ...]
    raw_evidence: tuple[str, ...]


@dataclass
class Conversation:
    """One converted conversation: workspace files, where each turn landed, and its questions."""

    sample_id: str
    files: dict[str, str] = field(default_factory=dict)
    turn_lines: dict[str, tuple[str, int]] = field(default_factory=dict)
    questions: list[Question] = field(default_factory=list)

    def write(self, workspace: Path) -> None:
        """Write the daily logs under `workspace`."""
        for rel, text in self.files.items():
            target = workspace / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

    @cached_property
    def _turn_at(self) -> dict[tuple[str, int], str]:
        return {place: dia for dia, place in self.turn_lines.items()}

    def covered_turns(self, path: str, start_line: int, end_line: int) -> set[str]:
        """Turn ids whose line lies within `start_line..end_line` of `path`."""
        turn_at = self._turn_at
        return {turn_at[(path, line)] for line in range(start_line, end_line + 1) if (path, line) in turn_at}


def category_name(category: int) -> str:
    """The report name of a LoCoMo category number."""
    return CATEGORY_NAMES.get(category, f"category-{category}")


def parse_session_datetime(value: str) -> tuple[dt.date, str]:
    """`"1:56 pm on 8 May, 2023"` → (date(2023, 5, 8), `"1:56 pm"`)."""
    match = _DATE_TIME.fullmatch(value) if isinstance(value, str) else None
    month = _MONTHS.get(match["month"].lower()) if match else None
    if not match or month is None:
        raise MemtuiError(f"cannot read session date {value!r}", "expected e.g. '1:56 pm on 8 May, 2023'")
    try:
        date = dt.date(int(match["year"]), month, int(match["day"]))
    except ValueError as exc:
        raise MemtuiError(f"invalid session date {value!r}: {exc}") from exc
    ampm = match["ampm"].lower().replace(".", "")
    return date, f"{int(match['hour'])}:{match['minute']} {ampm}"


def parse_evidence_ids(raw: Iterable[Any]) -> list[str]:
    """Normalised turn ids from LoCoMo evidence strings, in order, without duplicates.

    `"D8:6; D9:17"` gives two ids, `"D:11:26"` reads as `D11:26`, a bare `"D"` gives none.
    """
    ids: list[str] = []
    for item in raw:
        if not isinstance(item, str):
            continue
        for session, turn in _EVIDENCE_ID.findall(item):
            dia = f"D{int(session)}:{int(turn)}"
            if dia not in ids:
                ids.append(dia)
    return ids


def _dir_name(sample_id: str) -> str:
    """A sample id as one safe directory name (no separators, never `.` or `..`)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", sample_id)
    return name or "_"


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def convert_conversation(sample: dict[str, Any]) -> Conversation:
    """Convert one LoCoMo sample into daily-log files, a turn→line map and its questions."""
    sample_id = str(sample.get("sample_id", "?"))
    conv = sample.get("conversation")
    if not isinstance(conv, dict):
        raise MemtuiError(f"LoCoMo sample {sample_id}: no 'conversation' object")
    sessions = sorted(
        (int(m.group(1)), key)
        for key in conv
        if (m := _SESSION_KEY.fullmatch(key)) and isinstance(conv[key], list)
    )
    by_date: dict[dt.date, list[tuple[int, str, list[dict[str, Any]]]]] = {}
    for number, key in sessions:
        stamp = conv.get(f"{key}_date_time")
        if stamp is None:
            raise MemtuiError(f"LoCoMo sample {sample_id}: {key} has no {key}_date_time")
        date, clock = parse_session_datetime(stamp)
        by_date.setdefault(date, []).append((number, clock, conv[key]))
    result = Conversation(sample_id)
    for date in sorted(by_date):
        rel = f"memory/{date.isoformat()}.md"
        lines = [f"# {date.isoformat()}"]
        for number, clock, turns in by_date[date]:
            lines += ["", f"## Session {number} ({clock})", ""]
            for turn in turns:
                dia = _one_line(turn.get("dia_id", ""))
                line = f"- [{dia}] {_one_line(turn.get('speaker', ''))}: {_one_line(turn.get('text', ''))}"
                if turn.get("blip_caption"):
                    line += f" [shared image: {_one_line(turn['blip_caption'])}]"
                lines.append(line)
                result.turn_lines[dia] = (rel, len(lines))
        result.files[rel] = "\n".join(lines) + "\n"
    for qa in sample.get("qa") or []:
        raw = qa.get("evidence") or []
        raw = raw if isinstance(raw, list) else [raw]
        valid = tuple(dia for dia in parse_evidence_ids(raw) if dia in result.turn_lines)
        result.questions.append(
            Question(
                question=str(qa.get("question", "")),
                category=int(qa.get("category", 0)),
                evidence=valid,
                raw_evidence=tuple(str(x) for x in raw),
            )
        )
    return result


def load_locomo(path: str | Path, conversations: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Read a LoCoMo JSON file, optionally keeping only the named sample ids."""
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MemtuiError(f"cannot read {source}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise MemtuiError(f"{source}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    if not isinstance(data, list) or not all(isinstance(s, dict) for s in data):
        raise MemtuiError(f"{source}: expected a JSON list of LoCoMo samples")
    if conversations:
        known = [str(s.get("sample_id")) for s in data]
        missing = [c for c in conversations if c not in known]
        if missing:
            raise MemtuiError(
                f"{source}: no conversation {', '.join(missing)}", f"available: {', '.join(known)}"
            )
        data = [s for s in data if str(s.get("sample_id")) in conversations]
    return data


def run_locomo(
    path: str | Path,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    profile: str = "memtui",
    provider: str = "none",
    conversations: Sequence[str] | None = None,
    min_score: float | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    keep: Path | None = None,
) -> dict[str, Any]:
    """Run the LoCoMo evidence-recall evaluation; one fresh temporary workspace per conversation (or
    `keep/<sample id>/`, kept so a later run reuses its embedding cache and query vectors).

    `min_score` None uses the engine's configured threshold (what an agent gets by default).
    """
    ks = sorted(set(ks))
    if not ks or ks[0] < 1:
        raise MemtuiError("--k needs positive integers, e.g. --k 6,10")
    samples = load_locomo(path, conversations)
    per_question: list[tuple[int, dict[int, float], dict[int, int]]] = []
    skipped = 0
    index_ms = search_ms = 0.0
    started = time.perf_counter()
    decay = False
    for sample in samples:
        conv = convert_conversation(sample)
        asked = [q for q in conv.questions if q.evidence]
        skipped += len(conv.questions) - len(asked)
        with contextlib.ExitStack() as stack:
            root = keep / _dir_name(conv.sample_id) if keep is not None else Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="memtui-locomo-")))
            workspace = root / "workspace"
            if workspace.exists():
                shutil.rmtree(workspace)
            workspace.mkdir(parents=True)
            conv.write(workspace)
            t0 = time.perf_counter()
            env = fresh_env(root / "state", workspace, profile, provider)
            decay = decay or env.settings.query.hybrid.temporal_decay.enabled
            with open_manager(env) as mgr:
                mgr.sync(force=True)
                t1 = time.perf_counter()
                index_ms += (t1 - t0) * 1000
                vectors = QueryVectors(mgr, root / QUERY_VECTORS if keep is not None else None)
                for done, q in enumerate(asked, start=1):
                    recalls: dict[int, float] = {}
                    chars: dict[int, int] = {}
                    vector = vectors.vector(q.question)
                    for k in ks:
                        hits = mgr.search(q.question, max_results=k, min_score=min_score,
                                          query_vector=vector).results[:k]
                        covered: set[str] = set()
                        for hit in hits:
                            covered |= conv.covered_turns(hit.path, hit.start_line, hit.end_line)
                        recalls[k] = evidence_recall(q.evidence, covered)
                        chars[k] = sum(len(hit.snippet) for hit in hits)
                    per_question.append((q.category, recalls, chars))
                    if progress:
                        progress(conv.sample_id, done, len(asked))
                vectors.save()
                search_ms += (time.perf_counter() - t1) * 1000
    report: dict[str, Any] = {f"recall@{k}": mean([r[k] for _, r, _ in per_question]) for k in ks}
    by_category: dict[str, dict[str, float | int]] = {}
    order = [*CATEGORY_NAMES, *sorted({c for c, _, _ in per_question} - set(CATEGORY_NAMES))]
    for category in order:
        rows = [r for c, r, _ in per_question if c == category]
        if rows:
            entry: dict[str, float | int] = {f"recall@{k}": mean([r[k] for r in rows]) for k in ks}
            entry["questions"] = len(rows)
            by_category[category_name(category)] = entry
    report["byCategory"] = by_category
    report["charsPerQuery"] = mean([c[ks[-1]] for _, _, c in per_question])
    report["charsPerQueryAtK"] = {str(k): mean([c[k] for _, _, c in per_question]) for k in ks}
    report["charsCounted"] = "snippet"
    report["questions"] = len(per_question)
    report["skippedQuestions"] = skipped
    report["conversations"] = [str(s.get("sample_id")) for s in samples]
    report["profile"] = profile
    report["provider"] = provider
    report["minScore"] = min_score
    report["temporalDecay"] = decay
    report["indexMs"] = round(index_ms, 1)
    report["searchMs"] = round(search_ms, 1)
    report["elapsedMs"] = round((time.perf_counter() - started) * 1000, 1)
    return report

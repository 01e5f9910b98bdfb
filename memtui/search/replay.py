"""The agent's own memory calls, listed, and one `memory_search` replayed against today's index: kept, new,
dropped.

`agent_recalls(env)` lists every memory_search / memory_get call newest first, numbered (1 = newest) so a replay
can name one: a 2026.9 agent's from its database, a 2026.4 agent's from `<state>/agents/<id>/sessions/*.jsonl`
(primary transcripts and reset/deleted archives; session keys from `sessions.json`). Nothing is written.

`replay(env, recall, open_manager=...)`:

The call's own query, maxResults and minScore (None: the tool's defaults, 6 and 0.35) are searched again:

* profile `openclaw` on an OpenClaw 2026.9 agent whose database holds an index: OpenClaw's own index, ranked as
  2026.9.6 ranks it (`agentdb.search.search_agent_db`, read-only). A hit it got then but not now is looked up
  in the database (is the chunk still indexed, under which lines) and in a wide search of up to 200 candidates
  with minScore 0 (its current rank and score);
* any other profile (or a 2026.4 agent): memtui's index through the `MemoryManager` that `open_manager(env)`
  opens (synced first unless `sync=False`; the index lives in memtui's data folder, never in the state dir or
  workspace), and a dropped hit gets `why_not.explain_chunk`'s headline and reasons.

Temporal decay measures age against a clock: `now_ms` when given (e.g. the call's own time, to see only what
the index changed), else `_now_ms()` — this module's time source, which tests pin.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.agentdb.recalls import Recall, jsonl_memory_calls
from memtui.agentdb.sessions import MemoryToolCall, memory_tool_calls
from memtui.context.sessions import load_session_entries, transcript_path_for
from memtui.errors import MemtuiError, PathError
from memtui.index.transcripts import list_session_files, session_id_for_file

if TYPE_CHECKING:
    from memtui.settings.agent import AgentEnv

OpenManager = Callable[["AgentEnv"], Any]
"""Opens memtui's index for an agent (`MemoryManager`, a context manager); passed in by the command."""

WIDE_CANDIDATES = 200
DEFAULT_MAX_RESULTS = 6
DEFAULT_MIN_SCORE = 0.35


def _keys_by_file(sessions_dir: Path) -> dict[str, str]:
    """Transcript file name (and session id) → session key, from `sessions.json` (read, never repaired)."""
    entries, _issues = load_session_entries(sessions_dir)
    out: dict[str, str] = {}
    for key, entry in entries.items():
        target = transcript_path_for(sessions_dir, entry)
        if target is not None:
            out.setdefault(target.name, key)
        session_id = entry.get("sessionId")
        if isinstance(session_id, str) and session_id.strip():
            out.setdefault(f"id:{session_id.strip()}", key)
    return out


def jsonl_recall_calls(sessions_dir: Path) -> list[tuple[MemoryToolCall, str]]:
    """Every memory call in the JSONL transcripts of `sessions_dir` (primary files and reset/deleted archives),
    with the file each came from."""
    keys = _keys_by_file(sessions_dir)
    out = []
    for path in list_session_files(sessions_dir):
        key = keys.get(path.name) or keys.get(f"id:{session_id_for_file(path.name)}")
        out += [(call, str(path)) for call in jsonl_memory_calls(path, key)]
    return out


# Listing both generations -----------------------------------------------------------------------------------------

def _order_key(item: tuple[MemoryToolCall, str]) -> tuple[str, str, int]:
    call = item[0]
    return (call.called_at or "", call.session_id, call.call_seq)


def agent_recalls(env: AgentEnv, *, session: str | None = None) -> list[Recall]:
    """The agent's memory_search / memory_get calls, newest first (numbered 1…), optionally of one session (its
    key, or its session id or a prefix of it). A 2026.9 agent's come from its database, others' from JSONL."""
    if env.generation.name == "2026.9" and Path(env.generation.path).is_file():
        db = Path(env.generation.path)
        found = [(call, str(db)) for call in memory_tool_calls(db)]
    else:
        found = jsonl_recall_calls(env.sessions_dir)
    found.sort(key=_order_key, reverse=True)
    recalls = [Recall(index=i, call=call, source=source) for i, (call, source) in enumerate(found, start=1)]
    if session:
        recalls = [r for r in recalls if r.call.session_key == session or r.call.session_id.startswith(session)]
    return recalls


def find_recall(env: AgentEnv, ref: str) -> Recall:
    """The call `ref` names: its number in the full listing, or its tool-call id (unique among the calls)."""
    recalls = agent_recalls(env)
    text = ref.strip()
    if text.isdigit():
        number = int(text)
        for recall in recalls:
            if recall.index == number:
                return recall
        raise MemtuiError(f"there is no memory call #{number}; the agent made {len(recalls)}",
                          "list them with `memtui recalls`")
    matches = [r for r in recalls if r.call.call_id == text]
    if not matches:
        raise MemtuiError(f"no memory call has the id {text!r}", "list them with `memtui recalls`")
    if len(matches) > 1:
        numbers = ", ".join(f"#{r.index}" for r in matches)
        raise MemtuiError(f"{len(matches)} calls have the id {text!r} ({numbers}); name one by its number")
    return matches[0]


# Replay --------------------------------------------------------------------------------------------------------------

def _now_ms() -> int:
    """The clock a replay's temporal decay uses unless told otherwise."""
    return int(time.time() * 1000)


def iso_to_ms(value: str | None) -> int | None:
    """An ISO-8601 timestamp (the transcript's `calledAt`) as epoch milliseconds."""
    if not value:
        return None
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return int(stamp.timestamp() * 1000)


Key = tuple[str, int, int]


@dataclass
class ReplayRow:
    """One chunk of the comparison: `status` kept / new / dropped, its rank and score then and now (None where it
    was not returned), and for a dropped one why it is not returned now."""

    status: str
    path: str
    start_line: int
    end_line: int
    rank_then: int | None = None
    rank_now: int | None = None
    score_then: float | None = None
    score_now: float | None = None
    why_not: dict[str, Any] | None = None
    now_lines: tuple[int, int] | None = None
    """For a kept hit returned now as another chunk of the file: that chunk's lines."""

    def to_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {"status": self.status, "path": self.path, "startLine": self.start_line,
                                "endLine": self.end_line, "rankThen": self.rank_then, "rankNow": self.rank_now,
                                "scoreThen": self.score_then, "scoreNow": self.score_now}
        if self.now_lines is not None:
            item["nowLines"] = list(self.now_lines)
        if self.why_not is not None:
            item["whyNot"] = self.why_not
        return item


@dataclass
class Replay:
    """A replayed search: where it ran, with which numbers, what it returned, and the comparison."""

    recall: Recall
    profile: str
    index: str
    """`agent-db` (OpenClaw 2026.9's own index) or `memtui` (memtui's index)."""
    location: str
    mode: str
    now_ms: int
    max_results: int | None
    min_score: float | None
    then: list[dict[str, Any]]
    now: list[dict[str, Any]]
    rows: list[ReplayRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    query_vector: list[float] | None = field(default=None, repr=False)

    def of(self, status: str) -> list[ReplayRow]:
        return [row for row in self.rows if row.status == status]

    @property
    def same(self) -> bool:
        """The same chunks in the same order as then."""
        return [_key(h) for h in self.then] == [_key(h) for h in self.now]

    def to_json(self) -> dict[str, Any]:
        return {"call": self.recall.to_json(), "profile": self.profile, "index": self.index,
                "location": self.location, "mode": self.mode, "nowMs": self.now_ms,
                "maxResults": self.max_results, "minScore": self.min_score, "same": self.same,
                "then": self.then, "now": self.now,
                "kept": [r.to_json() for r in self.of("kept")], "new": [r.to_json() for r in self.of("new")],
                "dropped": [r.to_json() for r in self.of("dropped")], "notes": list(self.notes)}


def _key(hit: dict[str, Any]) -> Key:
    return (str(hit.get("path")), int(hit.get("startLine") or 0), int(hit.get("endLine") or 0))


def _number(value: Any, kind: type) -> Any:
    """A tool argument as the tool reads it (a number, or None for left out / not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return kind(value)


def _sources(corpus: Any) -> tuple[str, ...]:
    return {"sessions": ("sessions",), "all": ("memory", "sessions")}.get(corpus if isinstance(corpus, str) else "",
                                                                         ("memory",))


def _overlaps(a: Key, b: Key) -> bool:
    return a[0] == b[0] and a[1] <= b[2] and b[1] <= a[2]


def compare(then: list[dict[str, Any]], now: list[dict[str, Any]]) -> list[ReplayRow]:
    """Kept (in today's order), then new, then dropped (in the order they had then). A hit of then whose exact
    lines are not returned now but lie inside (overlap) a returned chunk of the same file — the index cuts the
    file differently now, or memtui's index cuts it otherwise than OpenClaw's — is kept, with `now_lines`."""
    then_at = {_key(h): (i, h) for i, h in enumerate(then, start=1)}
    now_at = {_key(h): (i, h) for i, h in enumerate(now, start=1)}
    paired: dict[Key, Key] = {key: key for key in then_at if key in now_at}
    for key in then_at:
        if key not in paired:
            match = next((other for other in now_at if _overlaps(key, other)), None)
            if match is not None:
                paired[key] = match
    rows = []
    for now_key, (rank, hit) in now_at.items():
        for key in (k for k, v in paired.items() if v == now_key):
            old_rank, old = then_at[key]
            rows.append(ReplayRow("kept", *key, rank_then=old_rank, rank_now=rank, score_then=old.get("score"),
                                  score_now=hit.get("score"),
                                  now_lines=None if key == now_key else (now_key[1], now_key[2])))
    used = set(paired.values())
    for key, (rank, hit) in now_at.items():
        if key not in used:
            rows.append(ReplayRow("new", *key, rank_now=rank, score_now=hit.get("score")))
    for key, (rank, hit) in then_at.items():
        if key not in paired:
            rows.append(ReplayRow("dropped", *key, rank_then=rank, score_then=hit.get("score")))
    return rows


def replay(env: AgentEnv, recall: Recall, *, open_manager: OpenManager, profile: str | None = None,
           now_ms: int | None = None, sync: bool = True) -> Replay:
    """Search `recall`'s query again under `profile` (default `openclaw`, the agent's own) and compare."""
    call = recall.call
    if call.tool != "memory_search":
        raise MemtuiError(f"call #{recall.index} is a {call.tool}; replay_get reads a memory_get again")
    if not call.query or not call.query.strip():
        raise MemtuiError(f"call #{recall.index} has no query to replay")
    chosen = profile or "openclaw"
    clock = _now_ms() if now_ms is None else now_ms
    then = recall.hit_summaries()
    if chosen == "openclaw" and _agent_db_has_index(env):
        result = _replay_agent_db(env, recall, clock, open_manager)
    else:
        result = _replay_memtui(env, recall, chosen, clock, open_manager, sync=sync)
    result.then = then
    if result.index == "agent-db":
        result.rows = compare(then, result.now)
        _explain_dropped_agent_db(env, result)
    return result


def read_state(answer: dict[str, Any]) -> str:
    """`error`, `not-found` (OpenClaw 2026.9's `not_found`; 2026.4's and memtui's `{text: "", path}` without the
    lines read) or `read`."""
    if answer.get("error"):
        return "error"
    if answer.get("status") == "not_found" or (answer.get("status") is None and answer.get("text") == ""
                                               and "from" not in answer and "lines" not in answer):
        return "not-found"
    return "read"


@dataclass
class GetReplay:
    """A memory_get read again: what the agent got then and what the same read returns now."""

    recall: Recall
    now: dict[str, Any]

    @property
    def then_state(self) -> str:
        """`read`, `not-found`, `error` (see `read_state`), or `unknown` when the transcript holds no result."""
        result = self.recall.call.result
        if isinstance(result, dict):
            return read_state(result)
        if self.recall.call.is_error:
            return "error"
        return "read" if self.recall.get_outcome().get("plainText") else "unknown"

    @property
    def now_state(self) -> str:
        """`read`, `not-found` or `error` of the read now."""
        return read_state(self.now)

    @property
    def then_text(self) -> str | None:
        """The text the agent got (a plain-text result's whole text; None when the transcript holds none)."""
        call = self.recall.call
        if isinstance(call.result, dict):
            return call.result.get("text") if isinstance(call.result.get("text"), str) else None
        return call.result_text if self.then_state == "read" else None

    @property
    def now_text(self) -> str:
        """The text the same read returns now ("" for an error or a missing file)."""
        text = self.now.get("text")
        return text if isinstance(text, str) else ""

    @property
    def status(self) -> str:
        """same, changed, gone (read then; missing or refused now), still-not-found, found-now (not found then,
        read now), or unknown (no result then)."""
        then, now = self.then_state, self.now_state
        if then == "not-found":
            return {"not-found": "still-not-found", "read": "found-now"}.get(now, "gone")
        if now != "read" or (not self.now_text and self.then_text):
            return "gone"
        if then == "unknown" or self.then_text is None:
            return "unknown"
        return "same" if self.then_text == self.now_text else "changed"

    def to_json(self) -> dict[str, Any]:
        return {"call": self.recall.to_json(), "status": self.status, "then": self.recall.get_outcome(),
                "thenState": self.then_state, "thenText": self.then_text, "nowState": self.now_state,
                "now": self.now}


def replay_get(recall: Recall, read_now: Callable[[str, int | None, int | None], dict[str, Any]]) -> GetReplay:
    """Read `recall`'s memory_get again with `read_now(path, from, lines)` (the `memory_get` tool of today's
    workspace) and keep both answers."""
    call = recall.call
    if call.tool != "memory_get":
        raise MemtuiError(f"call #{recall.index} is a {call.tool}, not a memory_get")
    if not isinstance(call.path, str) or not call.path.strip():
        raise MemtuiError(f"call #{recall.index} has no path to read again")
    return GetReplay(recall, read_now(call.path, _number(call.from_line, int), _number(call.lines, int)))


# OpenClaw 2026.9's own index --------------------------------------------------------------------------------------

def _agent_db_has_index(env: AgentEnv) -> bool:
    if env.generation.name != "2026.9":
        return False
    from memtui.agentdb.index_summary import read_agent_index

    return read_agent_index(env.generation.path).chunks > 0


def _query_vector(env: AgentEnv, query: str, model: str | None,
                  open_manager: OpenManager) -> tuple[list[float] | None, str | None]:
    """The query's vector when memtui's own index (opened read-only) embeds with the model of OpenClaw's
    vectors; else None and why the replay ranks keyword-only."""
    try:
        with open_manager(replace(env, read_only=True)) as manager:
            if manager.provider is not None and manager.model == model:
                return manager.embed_query(query), None
            have = manager.model if manager.provider is not None else "no embedding provider"
    except MemtuiError as exc:
        have = f"no usable provider ({exc.message})"
    return None, f"OpenClaw's vectors are of {model}; memtui has {have} here, so the replay ranks keyword-only"


def _agent_hit(hit: Any) -> dict[str, Any]:
    return {"path": hit.path, "startLine": hit.start_line, "endLine": hit.end_line, "score": hit.score}


def _search_agent_db(env: AgentEnv, recall: Recall, clock: int, vector: list[float] | None, *,
                     max_results: int | None, min_score: float | None) -> list[Any]:
    from memtui.agentdb.search import search_agent_db

    return search_agent_db(env.generation.path, recall.call.query or "", max_results=max_results,
                           min_score=min_score, now_ms=clock, query_vector=vector,
                           sources=_sources(recall.call.corpus), workspace_dir=env.workspace_dir)


def _replay_agent_db(env: AgentEnv, recall: Recall, clock: int, open_manager: OpenManager) -> Replay:
    from memtui.agentdb.index_summary import read_agent_index

    summary = read_agent_index(env.generation.path)
    notes = []
    vector = None
    if summary.vectors:
        vector, why = _query_vector(env, recall.call.query or "", summary.meta.get("model"), open_manager)
        if why:
            notes.append(why)
    # left out by the model: the agent's configured memory.search.query defaults (OpenClaw's 6 / 0.35)
    max_results = _number(recall.call.max_results, int) or env.settings.query.max_results
    min_score = _number(recall.call.min_score, float)
    min_score = env.settings.query.min_score if min_score is None else min_score
    hits = _search_agent_db(env, recall, clock, vector, max_results=max_results, min_score=min_score)
    result = Replay(recall=recall, profile="openclaw", index="agent-db", location=str(env.generation.path),
                    mode="hybrid" if vector is not None else "keyword-only", now_ms=clock, max_results=max_results,
                    min_score=min_score, then=[], now=[_agent_hit(h) for h in hits], notes=notes,
                    query_vector=vector)
    return result


def _explain_dropped_agent_db(env: AgentEnv, result: Replay) -> None:
    dropped = result.of("dropped")
    if not dropped:
        return
    wide = _search_agent_db(env, result.recall, result.now_ms, result.query_vector,
                            max_results=WIDE_CANDIDATES, min_score=0)
    ranks = {(h.path, h.start_line, h.end_line): (i, h) for i, h in enumerate(wide, start=1)}
    limit = DEFAULT_MAX_RESULTS if result.max_results is None else result.max_results
    threshold = DEFAULT_MIN_SCORE if result.min_score is None else result.min_score
    from memtui.agentdb.index_summary import chunk_ranges

    for row in dropped:
        ranges = chunk_ranges(Path(env.generation.path), row.path)
        indexed = (row.start_line, row.end_line) in ranges
        info: dict[str, Any] = {"stillIndexed": indexed, "indexedRanges": [list(r) for r in ranges],
                                "candidates": len(wide), "rank": None, "score": None}
        found = ranks.get((row.path, row.start_line, row.end_line))
        if found is not None:
            rank, hit = found
            info.update(rank=rank, score=hit.score)
            if hit.score < threshold:
                info["stage"] = "below-min-score"
                info["headline"] = (f"still indexed; scores {hit.score:.3f} < minScore {threshold:g} "
                                    f"(#{rank} of {len(wide)} candidates)")
            else:
                info["stage"] = "cut-by-max-results"
                info["headline"] = (f"still indexed; #{rank} of {len(wide)} candidates (score {hit.score:.3f}), "
                                    f"cut by maxResults {limit}")
        elif indexed:
            info["stage"] = "not-a-candidate"
            info["headline"] = f"still indexed, but not among the {len(wide)} candidates (no keyword match now)"
        elif ranges:
            info["stage"] = "rechunked"
            now_as = ", ".join(f"{a}-{b}" for a, b in ranges)
            near = [(ranks[(row.path, a, b)][0], a, b) for a, b in ranges
                    if (row.path, a, b) in ranks and a <= row.end_line and b >= row.start_line]
            info["headline"] = (f"lines {row.start_line}-{row.end_line} are no longer a chunk; {row.path} is "
                                f"indexed as lines {now_as}"
                                + ("; overlapping " + ", ".join(f"{a}-{b} ranks #{r}" for r, a, b in near)
                                   if near else ""))
        elif (deleted := _deleted_from_disk(env, row.path, result.recall)) is not None:
            info["stage"] = "deleted"
            info["headline"] = f"{deleted}; the agent database's index no longer holds it"
        else:
            info["stage"] = "not-indexed"
            info["headline"] = f"{row.path} is no longer in the agent database's index"
        row.why_not = info


def _deleted_from_disk(env: AgentEnv, path: str, recall: Recall) -> str | None:
    """"<path> was deleted from disk since the call at <time>" when the file a hit came from is gone (it was
    there when the agent searched); None when it is on disk."""
    if os.path.lexists(os.path.normpath(env.workspace_dir / path)):
        return None
    called = iso_to_ms(recall.call.called_at)
    since = "" if called is None else " since the call at " + datetime.fromtimestamp(called / 1000, UTC).strftime(
        "%Y-%m-%d %H:%M UTC")
    return f"{path} was deleted from disk{since} (it is not in the workspace now)"


# memtui's index ----------------------------------------------------------------------------------------------------

def _replay_memtui(env: AgentEnv, recall: Recall, profile: str, clock: int, open_manager: OpenManager, *,
                   sync: bool) -> Replay:
    from memtui.search.why_not import chunk_at, explain_chunk

    call = recall.call
    max_results = _number(call.max_results, int)
    min_score = _number(call.min_score, float)
    when = datetime.fromtimestamp(clock / 1000, tz=UTC)
    notes = []
    if profile == "openclaw" and env.generation.name == "2026.9":
        notes.append("OpenClaw 2026.9 has not indexed this agent yet; ranking memtui's index instead")
    with open_manager(env) as manager:
        if sync and (manager.ensure_indexed() is None and manager.stale_reason() is not None):
            manager.sync(reason="replay")  # a memory file changed since the last sync: today's index has it
        vector = manager.embed_query(call.query or "")
        response = manager.search(call.query or "", max_results=max_results, min_score=min_score,
                                  sources=list(_sources(call.corpus)), profile=profile, now=when,
                                  query_vector=vector)
        now = [{"path": h.path, "startLine": h.start_line, "endLine": h.end_line, "score": h.score}
               for h in response.results]
        result = Replay(recall=recall, profile=profile, index="memtui", location=str(env.store_path),
                        mode=response.mode, now_ms=clock, max_results=max_results, min_score=min_score, then=[],
                        now=now, notes=notes)
        result.rows = compare(recall.hit_summaries(), now)
        for row in result.of("dropped"):
            try:
                chunk = chunk_at(manager, row.path, row.start_line, response)
            except PathError as exc:
                deleted = _deleted_from_disk(env, row.path, recall)
                row.why_not = {"stage": "deleted" if deleted else "not-indexed", "stillIndexed": False,
                               "headline": deleted or exc.message, "reasons": []}
                continue
            why = explain_chunk(manager, response, chunk.id, now=when, query_vector=vector)
            info = why.to_json()
            info["stillIndexed"] = (chunk.start_line, chunk.end_line) == (row.start_line, row.end_line)
            if not info["stillIndexed"]:
                info["headline"] = (f"now indexed as lines {chunk.start_line}-{chunk.end_line}; "
                                    f"{info['headline']}")
            row.why_not = info
    return result

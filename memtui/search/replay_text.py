"""The agent's memory calls and their replays as text: the listing of `memtui recalls`, a replayed search side by
side (kept / new / dropped, rank and score then → now, why-not), a replayed memory_get (then → now, the diff);
shared by the CLI and the TUI's Recalls screen."""

from __future__ import annotations

import difflib
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memtui.agentdb.recalls import Recall
    from memtui.search.replay import GetReplay, Replay, ReplayRow
    from memtui.settings.agent import AgentEnv

TOP_HITS = 3
DIFF_LINES = 40


def _time(value: str | None) -> str:
    if not value:
        return "-"
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    return stamp.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _num(value: Any, default: str) -> str:
    if value is None:
        return f"{default} (default)"
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else repr(value)


def _score(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "-"


def _loc(item: dict[str, Any]) -> str:
    return f"{item.get('path')}:{item.get('startLine')}-{item.get('endLine')}"


def describe_call(recall: Recall) -> list[str]:
    """A listed call: its header line and what it got."""
    item = recall.to_json()
    head = f"  #{recall.index:<3} {_time(item['calledAt'])}  "
    if recall.tool == "memory_search":
        corpus = f" · corpus {item['corpus']}" if item.get("corpus") is not None else ""
        lines = [head + f"search {item['query']!r} · maxResults {_num(item['maxResults'], '6')} · minScore "
                 f"{_num(item['minScore'], '0.35')}{corpus}"]
        if item.get("error"):
            lines.append(f"        error: {item['error']}")
        elif recall.call.result is None and recall.call.result_text is None:
            lines.append("        no result recorded")
        else:
            hits = item["hits"]
            shown = " · ".join(f"{_score(h['score'])} {_loc(h)}" for h in hits[:TOP_HITS])
            more = f" · +{len(hits) - TOP_HITS} more" if len(hits) > TOP_HITS else ""
            lines.append(f"        → {len(hits)} hit{'s' if len(hits) != 1 else ''}"
                         + (f": {shown}{more}" if hits else ""))
        return lines
    span = ""
    if item.get("from") is not None or item.get("lines") is not None:
        span = f" from {item.get('from') if item.get('from') is not None else 1}"
        span += f" lines {item['lines']}" if item.get("lines") is not None else ""
    got = recall.get_outcome()
    if got.get("plainText"):
        first = (recall.call.result_text or "").strip().splitlines()[0]
        what = f"read {got['chars']} chars, plain text (not JSON): {first[:60]}"
    elif got.get("status") == "not_found":
        what = "not found (no such file)"
    elif got.get("status") == "ok":
        start = got.get("from") or 1
        count = got.get("lines")
        what = (f"lines {start}-{start + count - 1}" if isinstance(count, int) and count > 0 else "read") + \
            f" ({got['chars']} chars" + (f", truncated, next from {got['nextFrom']}" if got.get("truncated") else "") \
            + ")"
    else:
        what = f"{got.get('status')}" + (f": {got['error']}" if got.get("error") else "")
    return [head + f"get {item['path']}{span}", f"        → {what}"]


def render_listing(env: AgentEnv, recalls: list[Recall]) -> str:
    """The human listing: calls newest first, under a header per session."""
    searches = sum(1 for r in recalls if r.tool == "memory_search")
    where = (f"OpenClaw 2026.9 agent database {env.generation.path}" if env.generation.name == "2026.9"
             else f"transcripts in {env.sessions_dir}")
    lines = [f"agent {env.agent_id} · {where}",
             f"{len(recalls)} memory call{'s' if len(recalls) != 1 else ''} ({searches} memory_search, "
             f"{len(recalls) - searches} memory_get), newest first"]
    if not recalls:
        lines.append("no memory_search / memory_get calls")
    last = None
    for recall in recalls:
        session = (recall.call.session_key, recall.call.session_id)
        if session != last:
            lines += ["", f"{recall.call.session_key or '(no session key)'} · session {recall.call.session_id[:8]}"]
            last = session
        lines += describe_call(recall)
    if recalls:
        lines += ["", "replay one: memtui recalls --replay N [--profile P]"]
    return "\n".join(lines)


def _row_line(row: ReplayRow) -> str:
    then = f"#{row.rank_then}" if row.rank_then is not None else "-"
    now = f"#{row.rank_now}" if row.rank_now is not None else "-"
    ranks = f"{then:>3} → {now:<3}"
    scores = f"{_score(row.score_then):>5} → {_score(row.score_now):<5}"
    moved = f" (now as lines {row.now_lines[0]}-{row.now_lines[1]})" if row.now_lines else ""
    return f"  {row.status:<8} {ranks}  {scores}  {row.path}:{row.start_line}-{row.end_line}{moved}"


def render_replay(result: Replay) -> str:
    """The human comparison: kept / new / dropped, side by side (rank and score then → now)."""
    recall = result.recall
    where = ("OpenClaw 2026.9's own index " if result.index == "agent-db" else "memtui's index ") + result.location
    clock = datetime.fromtimestamp(result.now_ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")
    lines = [f"replay #{recall.index} · memory_search {recall.call.query!r} · {recall.call.session_key or '-'} · "
             f"{_time(recall.call.called_at)}",
             f"maxResults {_num(result.max_results, '6')} · minScore {_num(result.min_score, '0.35')} · "
             f"profile {result.profile} · {where} · {result.mode} · decay clock {clock} UTC"]
    lines += [f"note: {note}" for note in result.notes]
    lines += ["", f"  {'':<8} {'RANK':^9}  {'SCORE':^13}  THEN {len(result.then)} hit(s) · NOW {len(result.now)}"]
    for status in ("kept", "new", "dropped"):
        for row in result.of(status):
            lines.append(_row_line(row))
            why = row.why_not
            if why:
                lines.append(f"           why not: {why.get('headline')}")
                for reason in why.get("reasons") or []:
                    lines.append(f"             • {reason}")
    if not result.rows:
        lines.append("  no hits then and none now")
    lines += ["", "same list as then" if result.same else
              f"{len(result.of('kept'))} kept · {len(result.of('new'))} new · {len(result.of('dropped'))} dropped"]
    return "\n".join(lines)


def _state_line(state: str, answer: dict[str, Any], chars: int, *, plain: bool = False) -> str:
    """`ok · 346 chars`, `not found`, `error: …` or `no result recorded`."""
    if state == "not-found":
        return "not found (no such file)"
    if state == "error":
        return f"error: {answer.get('error')}"
    if state == "unknown":
        return "no result recorded"
    return f"ok · {chars} chars" + (" · truncated" if answer.get("truncated") else "") + (
        " (plain text, not JSON: the text the agent got)" if plain else "")


def render_get_replay(result: GetReplay) -> str:
    """A memory_get read again: what it got then → what it gets now, and the diff when the text changed."""
    item = result.recall.to_json()
    then = result.recall.get_outcome()
    lines = [f"replay #{result.recall.index} · memory_get {item['path']} · {item['sessionKey'] or '-'} · "
             f"{_time(item['calledAt'])}",
             "then: " + _state_line(result.then_state, then, len(result.then_text or ""),
                                    plain=bool(then.get("plainText"))),
             "now:  " + _state_line(result.now_state, result.now, len(result.now_text)), ""]
    status = result.status
    if status == "same":
        lines.append("same text as then")
    elif status == "still-not-found":
        lines.append("not found then, and still not found now")
    elif status in ("unknown", "found-now"):
        lines.append("not found then; the file exists now:" if status == "found-now" else
                     "the transcript holds no result for this call; now:")
        lines += result.now_text.splitlines()[:DIFF_LINES]
    elif status == "gone":
        lines.append(f"read then; the file is not found now (deleted or moved since the call at "
                     f"{_time(item['calledAt'])})" if result.now_state == "not-found" else
                     "the read returns nothing now (the file is missing, moved or refused)")
    else:
        diff = list(difflib.unified_diff((result.then_text or "").splitlines(), result.now_text.splitlines(),
                                         "then", "now", lineterm=""))
        lines += diff[:DIFF_LINES] + ([f"… {len(diff) - DIFF_LINES} more diff lines"] if len(diff) > DIFF_LINES
                                      else [])
    return "\n".join(lines)

"""`memtui recalls`: the agent's own memory_search / memory_get calls, and any search replayed against today's index.

The calls come from the agent's transcripts (2026.9: the agent database; 2026.4: the JSONL files), read-only.
`--replay N` searches call N's query again with its maxResults / minScore under a profile (default `openclaw`,
the agent's own) and prints what was kept (rank and score then → now), what is new, and what dropped out, with
the reason each dropped hit is not returned now."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memtui.commands.args import agent_from_args
from memtui.commands.output import print_json
from memtui.errors import MemtuiError
from memtui.settings.config import PROFILES

if TYPE_CHECKING:
    from memtui.agentdb.recalls import Recall
    from memtui.search.replay import Replay, ReplayRow

TOP_HITS = 3


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `recalls` subcommand."""
    p = subparsers.add_parser("recalls", parents=parents,
                              help="the agent's memory_search / memory_get calls; replay one against today's index")
    p.add_argument("--session", metavar="KEY", help="only this session (its key, or a session id prefix)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--replay", metavar="N", help="replay search N of the listing (or a tool-call id)")
    p.add_argument("--profile", choices=PROFILES, help="ranking profile of the replay (default openclaw: the "
                   "agent's own; on a 2026.9 agent its own index)")
    clock = p.add_mutually_exclusive_group()
    clock.add_argument("--at-call-time", action="store_true",
                       help="measure temporal decay against the call's own time, so only index changes show")
    clock.add_argument("--now", metavar="ISO", help="measure temporal decay against this time")
    p.add_argument("--no-sync", action="store_true", help="replay on memtui's index as it is, without syncing")
    p.set_defaults(func=run)


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
    got = item["get"]
    if got.get("status") == "ok":
        start = got.get("from") or 1
        count = got.get("lines")
        what = (f"lines {start}-{start + count - 1}" if isinstance(count, int) and count > 0 else "read") + \
            f" ({got['chars']} chars" + (f", truncated, next from {got['nextFrom']}" if got.get("truncated") else "") \
            + ")"
    else:
        what = f"{got.get('status')}" + (f": {got['error']}" if got.get("error") else "")
    return [head + f"get {item['path']}{span}", f"        → {what}"]


def render_listing(env: Any, recalls: list[Recall]) -> str:
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


def _clock(args: argparse.Namespace, recall: Recall) -> int | None:
    from memtui.search.replay import iso_to_ms

    if args.at_call_time:
        at = iso_to_ms(recall.call.called_at)
        if at is None:
            raise MemtuiError(f"call #{recall.index} has no recorded time; use --now instead")
        return at
    if args.now:
        at = iso_to_ms(args.now)
        if at is None:
            raise MemtuiError(f"--now {args.now!r} is not an ISO-8601 time", "e.g. 2026-12-03T14:50:00Z")
        return at
    return None


def run(args: argparse.Namespace) -> int:
    """List the calls, or replay one."""
    from memtui.search.replay import agent_recalls, find_recall

    env = agent_from_args(args)
    if args.replay:
        from memtui.manager import MemoryManager
        from memtui.search.replay import replay

        recall = find_recall(env, args.replay)
        result = replay(env, recall, open_manager=MemoryManager, profile=args.profile, now_ms=_clock(args, recall),
                        sync=not args.no_sync)
        if args.json:
            print_json(result.to_json())
        else:
            print(render_replay(result))
        return 0
    recalls = agent_recalls(env, session=args.session)
    if args.json:
        print_json({"agentId": env.agent_id, "generation": env.generation.name,
                    "source": str(env.generation.path) if env.generation.name == "2026.9" else str(env.sessions_dir),
                    "calls": [r.to_json() for r in recalls]})
    else:
        print(render_listing(env, recalls))
    return 0

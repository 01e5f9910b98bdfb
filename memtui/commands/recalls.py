"""`memtui recalls`: the agent's own memory_search / memory_get calls, and any search replayed against today's index.

The calls come from the agent's transcripts (2026.9: the agent database; 2026.4: the JSONL files), read-only.
`--replay N` searches call N's query again with its maxResults / minScore under a profile (default `openclaw`,
the agent's own) and prints what was kept (rank and score then → now), what is new, and what dropped out, with
the reason each dropped hit is not returned now."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from memtui.commands.args import agent_from_args
from memtui.commands.output import print_json
from memtui.errors import MemtuiError
from memtui.search.replay_text import render_get_replay, render_listing, render_replay
from memtui.settings.agent import AgentEnv
from memtui.settings.config import PROFILES

if TYPE_CHECKING:
    from memtui.agentdb.recalls import Recall


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `recalls` subcommand."""
    p = subparsers.add_parser("recalls", parents=parents,
                              help="the agent's memory_search / memory_get calls; replay one against today's index")
    p.add_argument("--session", metavar="KEY", help="only this session (its key, or a session id prefix)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--replay", metavar="N", help="replay call N of the listing (or a tool-call id): a search "
                   "against today's index, a memory_get read again")
    p.add_argument("--profile", choices=PROFILES, help="ranking profile of the replay (default openclaw: the "
                   "agent's own; on a 2026.9 agent its own index)")
    clock = p.add_mutually_exclusive_group()
    clock.add_argument("--at-call-time", action="store_true",
                       help="measure temporal decay against the call's own time, so only index changes show")
    clock.add_argument("--now", metavar="ISO", help="measure temporal decay against this time")
    p.add_argument("--no-sync", action="store_true", help="replay on memtui's index as it is, without syncing")
    p.set_defaults(func=run)


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


def _replay_get(env: AgentEnv, recall: Recall, *, as_json: bool) -> int:
    from memtui.search.replay import replay_get
    from memtui.tools import memory_get

    context = env.context

    def read_now(path: str, from_line: int | None, lines: int | None) -> dict[str, Any]:
        return memory_get(env.workspace_dir, path, from_line=from_line, lines=lines,
                          extra_paths=env.settings.memory_paths, max_chars=context.memory_get_max_chars,
                          default_lines=context.memory_get_default_lines)

    result = replay_get(recall, read_now)
    if as_json:
        print_json(result.to_json())
    else:
        print(render_get_replay(result))
    return 0




def run(args: argparse.Namespace) -> int:
    """List the calls, or replay one."""
    from memtui.search.replay import agent_recalls, find_recall

    env = agent_from_args(args)
    if args.replay:
        from memtui.manager import MemoryManager
        from memtui.search.replay import replay

        recall = find_recall(env, args.replay)
        if recall.tool == "memory_get":
            return _replay_get(env, recall, as_json=args.json)
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

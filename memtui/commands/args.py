"""The options every subcommand shares, and the agent environment they resolve to."""

from __future__ import annotations

import argparse
import sys

from memtui.settings.agent import AgentEnv, resolve_agent


def common_parser(*, for_subcommand: bool = False) -> argparse.ArgumentParser:
    """The options every subcommand accepts (on a subcommand they never override values given before it)."""
    parser = argparse.ArgumentParser(add_help=False)
    default = argparse.SUPPRESS if for_subcommand else None
    group = parser.add_argument_group("agent")
    group.add_argument("--state-dir", metavar="DIR", default=default,
                       help="OpenClaw state dir (default ~/.openclaw)")
    group.add_argument("--workspace", metavar="DIR", default=default,
                       help="memory workspace (default: the agent's workspace)")
    group.add_argument("--agent", metavar="ID", default=default,
                       help="agent id (default: the configured default agent)")
    group.add_argument("--config", metavar="FILE", default=default,
                       help="openclaw.json to read (default <state>/openclaw.json)")
    group.add_argument("--provider", metavar="ID", default=default,
                       help="embedding provider override; 'none' means FTS-only")
    group.add_argument("--store", metavar="FILE", default=default,
                       help="index file (default: memtui's data dir, $MEMTUI_DATA_DIR or ~/.local/share/memtui)")
    group.add_argument("--read-only", action="store_true", default=argparse.SUPPRESS if for_subcommand else False,
                       help="open an existing index without writing to it")
    return parser


def agent_from_args(args: argparse.Namespace) -> AgentEnv:
    """Resolve the agent environment from the common options."""
    env = resolve_agent(
        state_dir=args.state_dir,
        workspace=args.workspace,
        agent=args.agent,
        config=args.config,
        provider=args.provider,
        store=args.store,
        read_only=args.read_only,
        profile=getattr(args, "profile", None),
    )
    for warning in env.warnings:
        print(f"memtui: warning: {warning}", file=sys.stderr)
    return env
